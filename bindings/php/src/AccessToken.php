<?php

declare(strict_types=1);

namespace IikoCloud;

/**
 * An access token of the service and its expiry. It is a credential: it is
 * left out of var_dump/print_r, and it should never be logged.
 */
final class AccessToken
{
    /**
     * @param string $token the token, sent as `Authorization: Bearer <token>`
     * @param int $expiresAtMs its expiry, milliseconds since the Unix epoch
     */
    public function __construct(
        #[\SensitiveParameter] public readonly string $token,
        public readonly int $expiresAtMs
    ) {
    }

    /** The expiry as a UTC date. */
    public function expiresAt(): \DateTimeImmutable
    {
        $date = \DateTimeImmutable::createFromFormat('U', (string) intdiv($this->expiresAtMs, 1000));
        return ($date === false ? new \DateTimeImmutable('@0') : $date)->setTimezone(new \DateTimeZone('UTC'));
    }

    /** @return array<string, mixed> what var_dump() shows: never the token */
    public function __debugInfo(): array
    {
        return ['token' => '[redacted]', 'expiresAtMs' => $this->expiresAtMs];
    }
}
