<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use Psr\Log\LoggerInterface;

/**
 * Hands the library's log records to a PSR-3 logger and its finished spans
 * to a callable, for one {@see Client} (or one {@see Webhooks::receive()}).
 *
 * PHP's FFI closures crash when a thread other than PHP's calls them, so no
 * PHP callback is ever given to the library: around each call the library
 * collects, on the calling thread only, what the call produced
 * (`iiko_telemetry_capture_begin` / `_take`), and this class delivers it
 * after the call returns, on PHP's thread. The names, attributes and the
 * shape of each span are the library's (see docs/site/observability.md).
 *
 * A logger or callback that throws is ignored: telemetry never changes the
 * outcome of a call.
 *
 * @internal created by Client and Webhooks from their `logger`, `onSpanEnd`
 *           and `logLevel` arguments
 */
final class Telemetry
{
    /** PSR-3 levels by the library's IIKO_LOG_* numbers (1 error ... 5 trace). */
    private const PSR_LEVEL = [1 => 'error', 2 => 'warning', 3 => 'info', 4 => 'debug', 5 => 'debug'];
    /** The most verbose IIKO_LOG_* number each PSR-3 level lets through. */
    private const LIBRARY_LEVEL = [
        'emergency' => 1, 'alert' => 1, 'critical' => 1, 'error' => 1,
        'warning' => 2, 'notice' => 3, 'info' => 3, 'debug' => 4,
    ];

    /** @var ?callable(array<string, mixed>): void */
    private $onSpanEnd;
    private int $level;

    /**
     * @param ?callable(array<string, mixed>): void $onSpanEnd
     * @throws Exception\InvalidInputException for an unknown level
     */
    private function __construct(private FFI $ffi, private ?LoggerInterface $logger, ?callable $onSpanEnd, string $logLevel)
    {
        $level = self::LIBRARY_LEVEL[strtolower($logLevel)] ?? null;
        if ($level === null) {
            throw new Exception\InvalidInputException(
                sprintf('logLevel must be a PSR-3 level (%s), not %s', implode(', ', array_keys(self::LIBRARY_LEVEL)), var_export($logLevel, true)),
                Status::INVALID_CONFIG
            );
        }
        $this->onSpanEnd = $onSpanEnd;
        $this->level = $level;
    }

    /**
     * The telemetry of a client, or null when it wants none (then calls cost
     * nothing extra).
     *
     * @param ?callable(array<string, mixed>): void $onSpanEnd
     * @throws Exception\InvalidInputException for an unknown level
     */
    public static function of(FFI $ffi, ?LoggerInterface $logger, ?callable $onSpanEnd, string $logLevel): ?self
    {
        $telemetry = new self($ffi, $logger, $onSpanEnd, $logLevel);
        return $logger === null && $onSpanEnd === null ? null : $telemetry;
    }

    /**
     * Runs one library call with its telemetry captured around it: begun
     * just before, delivered however the call ends (a throw included). Every
     * FFI call that may log or trace goes through here, so a new call site
     * cannot forget to deliver; with no telemetry it is the bare call.
     *
     * @template T
     * @param callable(): T $call
     * @return T
     */
    public static function around(?self $telemetry, callable $call): mixed
    {
        if ($telemetry === null) {
            return $call();
        }
        $telemetry->begin();
        try {
            return $call();
        } finally {
            $telemetry->deliver();
        }
    }

    /** Starts collecting this thread's spans and records (before a call). */
    private function begin(): void
    {
        // A failure here only means no telemetry for this call.
        $this->ffi->iiko_telemetry_capture_begin($this->level, null);
    }

    /** Delivers what the call produced: spans (parents first), then records. */
    private function deliver(): void
    {
        $out = $this->ffi->new('char*');
        if ((int) $this->ffi->iiko_telemetry_capture_take(FFI::addr($out), null) !== Status::OK) {
            return;
        }
        $json = (string) Library::takeString($this->ffi, $out);
        $taken = json_decode($json, true);
        if (!is_array($taken)) {
            return;
        }
        if ($this->onSpanEnd !== null) {
            foreach ($taken['spans'] ?? [] as $span) {
                try {
                    ($this->onSpanEnd)($span);
                } catch (\Throwable) {
                    // Ignored: see the class comment.
                }
            }
        }
        if ($this->logger !== null) {
            foreach ($taken['logs'] ?? [] as $record) {
                $context = $record['attributes'] ?? [];
                $context['target'] = $record['target'] ?? '';
                if (isset($record['span_id'])) {
                    $context['span_id'] = $record['span_id'];
                }
                try {
                    $this->logger->log(self::PSR_LEVEL[$record['level']] ?? 'debug', (string) $record['message'], $context);
                } catch (\Throwable) {
                }
            }
        }
    }
}
