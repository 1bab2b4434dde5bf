<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

use IikoCloud\Status;

/**
 * No HTTP answer (status 2xx): DNS, connection, TLS, the client timeout, a
 * broken connection, or an answer larger than `maxResponseBytes`. Safe calls
 * were already retried. A call that creates something may or may not have
 * been carried out.
 */
class TransportException extends IikoException
{
    private const KINDS = [
        Status::TRANSPORT_DNS => 'dns',
        Status::TRANSPORT_CONNECT => 'connect',
        Status::TRANSPORT_TLS => 'tls',
        Status::TRANSPORT_TIMEOUT => 'timeout',
        Status::TRANSPORT_IO => 'io',
        Status::TRANSPORT_PROXY => 'proxy',
    ];

    /** One of `dns`, `connect`, `tls`, `proxy`, `timeout`, `io`, `other`. */
    public function getKind(): string
    {
        return self::KINDS[$this->getStatus()] ?? 'other';
    }

    /** Whether the client timeout ran out. */
    public function isTimeout(): bool
    {
        return $this->getStatus() === Status::TRANSPORT_TIMEOUT;
    }
}
