<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Client;
use IikoCloud\Deduplicator;
use IikoCloud\Exception\InvalidInputException;
use IikoCloud\Exception\WebhookParseException;
use IikoCloud\Exception\WebhookVerificationException;
use IikoCloud\Inbox;
use IikoCloud\Library;
use IikoCloud\OrderingGuard;
use IikoCloud\Received;
use IikoCloud\Receipt;
use IikoCloud\Status;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * Limits and receive statuses come from the library, never from this package.
 *
 * The language-neutral limit vectors (tests/vectors/limits.json, format in
 * tests/vectors/README.md), shared with the Rust, C and Python tests: every
 * case through the library's readers, and every value a case refuses through
 * this package's own calls (new Client(timeout: ...), new Inbox(...),
 * Webhooks::parse(...)): the same refusal, the same message. Then every
 * default and status this package's PHPDoc and README state, held to the
 * library's value.
 */
final class LimitsTest extends TestCase
{
    private const UNREACHABLE = 'http://127.0.0.1:9';
    private const ORG = '7f2c6b2e-0000-4000-8000-000000000000';

    protected function setUp(): void
    {
        // No emulator needed.
    }

    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        static $doc = null;
        if ($doc === null) {
            $doc = json_decode((string) file_get_contents(dirname(__DIR__, 3) . '/tests/vectors/limits.json'), true, 512, JSON_THROW_ON_ERROR);
            self::assertSame('iikocloud-limit-vectors', $doc['format']);
            self::assertSame(1, $doc['version']);
        }
        return $doc;
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public static function cases(): array
    {
        $cases = [];
        foreach (self::vectors()['cases'] as $i => $case) {
            $form = array_values(array_intersect(['absent', 'int', 'seconds', 'raw'], array_keys($case)))[0];
            $cases[sprintf('%d %s %s %s', $i, $case['limit'], $form, json_encode($case[$form]))] = [$case];
        }
        return $cases;
    }

    /** The case's value as a PHP caller gives it: null, an int, or seconds as a float. */
    private static function given(array $case): int|float|null
    {
        if (array_key_exists('int', $case)) {
            return $case['int'];
        }
        if (!array_key_exists('seconds', $case)) {
            return null;
        }
        return match ($case['seconds']) {
            'NaN' => NAN,
            'inf' => INF,
            '-inf' => -INF,
            default => (float) $case['seconds'],
        };
    }

    /** @dataProvider cases */
    public function testTheLibraryReadsEveryCase(array $case): void
    {
        $read = function () use ($case): ?int {
            if (!array_key_exists('raw', $case)) {
                return Library::limit($case['limit'], self::given($case));
            }
            // The C calls' own form, as PHP's null reaches them.
            $ffi = Library::ffi();
            $out = $ffi->new('uint64_t');
            $err = Library::errorOut($ffi);
            Library::check($ffi, (int) $ffi->iiko_limit_read_arg($case['limit'], $case['raw'], \FFI::addr($out), \FFI::addr($err)), $err);
            $value = (int) $out->cdata;
            return $value === 0 && $case['value'] === null ? null : $value;
        };
        if (array_key_exists('error', $case)) {
            try {
                $read();
                self::fail('accepted');
            } catch (InvalidInputException $e) {
                self::assertStringContainsString($case['error'], $e->getMessage());
                self::assertSame(Status::INVALID_ARGUMENT, $e->getStatus());
            }
        } else {
            self::assertSame($case['value'], $read());
        }
    }

    public function testTheDefaultsAreTheTables(): void
    {
        foreach (self::vectors()['limits'] as $row) {
            self::assertSame($row['default'] ?? 0, Library::limitDefault($row['name']), $row['name']);
        }
    }

    /**
     * The calls of this package that take each limit, given a value as a PHP
     * caller gives it (seconds for durations, ints for the rest).
     *
     * @return array<string, callable(int|float): mixed>
     */
    private static function entryPoints(string $inbox): array
    {
        $client = fn (mixed ...$options) => new Client(...array_merge(['apiLogin' => 'x', 'baseUrl' => self::UNREACHABLE, 'retries' => 0], $options));
        $parse = function (mixed ...$limits): void {
            try {
                Webhooks::parse('[]', ...$limits);
            } catch (WebhookParseException) {
                // The limits were accepted; the body is then judged by them.
            }
        };
        return [
            'client.timeout' => fn ($v) => $client(timeout: $v),
            'client.client_timeout' => fn ($v) => $client(clientTimeout: $v),
            'client.retries' => fn ($v) => new Client(apiLogin: 'x', baseUrl: self::UNREACHABLE, retries: $v),
            'client.retry_base_delay' => fn ($v) => $client(retryBaseDelay: $v),
            'client.max_response_bytes' => fn ($v) => $client(maxResponseBytes: $v),
            'client.refresh_margin' => fn ($v) => $client(tokenRefreshMargin: $v),
            'client.fallback_token_lifetime' => fn ($v) => $client(tokenFallbackLifetime: $v),
            'call.timeout' => fn ($v) => $client()->callJson('/api/1/organizations', null, $v),
            'wait.timeout' => fn ($v) => $client()->wait('c', self::ORG, $v),
            'webhook.max_body_bytes' => fn ($v) => $parse(maxBodyBytes: $v),
            'webhook.max_depth' => fn ($v) => $parse(maxDepth: $v),
            'inbox.visibility_timeout' => fn ($v) => new Inbox($inbox, visibilityTimeout: $v),
            'inbox.max_attempts' => fn ($v) => new Inbox($inbox, maxAttempts: $v),
            'inbox.dedup_ttl' => fn ($v) => new Inbox($inbox, dedupTtl: $v),
            'inbox.dead_letters' => fn ($v) => (new Inbox($inbox))->deadLetters($v),
            'dedup.max_age' => fn ($v) => new Deduplicator('memory:', $v),
            'ordering.store_ttl' => fn ($v) => new OrderingGuard('memory:', $v),
        ];
    }

    public function testEveryCallReadsItsLimitAsTheLibraryDoes(): void
    {
        $dir = self::tempDir('limits');
        try {
            $calls = self::entryPoints('sqlite://' . $dir . '/inbox.db');
            $units = array_column(self::vectors()['limits'], 'unit', 'name');
            $network = ['call.timeout', 'wait.timeout'];
            $ran = [];
            foreach (self::vectors()['cases'] as $case) {
                $call = $calls[$case['limit']] ?? null;
                if ($call === null || array_key_exists('absent', $case) || array_key_exists('raw', $case)) {
                    continue;
                }
                // Durations are seconds here; a whole number of milliseconds is the C form.
                if (($units[$case['limit']] === 'ms') !== array_key_exists('seconds', $case)) {
                    continue;
                }
                $label = json_encode($case);
                if (array_key_exists('error', $case)) {
                    try {
                        $result = $call(self::given($case));
                        self::fail("accepted: $label");
                    } catch (InvalidInputException $e) {
                        self::assertStringContainsString($case['error'], $e->getMessage(), $label);
                    }
                } elseif (!in_array($case['limit'], $network, true)) {
                    $result = $call(self::given($case));
                    unset($result);
                }
                $ran[$case['limit']] = true;
            }
            self::assertEqualsCanonicalizing(array_keys($calls), array_keys($ran));
        } finally {
            gc_collect_cycles();
            self::removeDir($dir);
        }
    }

    public function testAnAcceptedTimeoutIsTheOneUsed(): void
    {
        self::assertSame(1.5, (new Client(apiLogin: 'x', baseUrl: self::UNREACHABLE, timeout: 1.5))->getTimeout());
        self::assertSame(
            Library::limitDefault('client.timeout') / 1000.0,
            (new Client(apiLogin: 'x', baseUrl: self::UNREACHABLE))->getTimeout()
        );
    }

    // ---- documentation held to the library ----

    /** A value in a limit's unit, written as the library writes it (`15 s`, `16 MiB`). */
    private static function human(string $limit): string
    {
        $units = array_column(self::vectors()['limits'], 'unit', 'name');
        $v = Library::limitDefault($limit);
        return match ($units[$limit]) {
            'ms' => match (true) {
                $v % 3600000 === 0 => ($v / 3600000) . ' h',
                $v % 60000 === 0 => ($v / 60000) . ' min',
                $v % 1000 === 0 => ($v / 1000) . ' s',
                default => $v . ' ms',
            },
            'bytes' => $v % 1048576 === 0 ? ($v / 1048576) . ' MiB' : $v . ' bytes',
            'levels' => $v . ' levels',
            default => (string) $v,
        };
    }

    private static function flat(string $text): string
    {
        // A doc comment's lines without their ` * ` margins, as one line.
        $text = preg_replace('/^\s*\*\s?/m', '', $text) ?? $text;
        return trim(preg_replace('/\s+/', ' ', $text) ?? $text);
    }

    /** @return array<string, array{0: string, 1: string, 2: string}> */
    public static function documentedDefaults(): array
    {
        return [
            'Client timeout' => [Client::class . '::__construct', 'client.timeout', 'default {})'],
            'Client clientTimeout' => [Client::class . '::__construct', 'client.client_timeout', '(default the timeout + {margin};'],
            'Client retries' => [Client::class . '::__construct', 'client.retries', '(default {})'],
            'Client retryBaseDelay' => [Client::class . '::__construct', 'client.retry_base_delay', '(default {},'],
            'Client maxResponseBytes' => [Client::class . '::__construct', 'client.max_response_bytes', '(default {})'],
            'Client refresh margin' => [Client::class . '::__construct', 'client.refresh_margin', 'refreshed (default {})'],
            'Client fallback lifetime' => [Client::class . '::__construct', 'client.fallback_token_lifetime', 'kept (default {})'],
            'operation waitTimeout' => [Client::class . '::operation', 'wait.timeout', '(null: {})'],
            'wait timeout' => [Client::class . '::wait', 'wait.timeout', '(null: {})'],
            'parse maxBodyBytes' => [Webhooks::class . '::parse', 'webhook.max_body_bytes', '(default {})'],
            'parse maxDepth' => [Webhooks::class . '::parse', 'webhook.max_depth', '(default {};'],
            'Inbox visibilityTimeout' => [Inbox::class . '::__construct', 'inbox.visibility_timeout', 'again (default {})'],
            'Inbox maxAttempts' => [Inbox::class . '::__construct', 'inbox.max_attempts', 'letters (default {})'],
            'Inbox dedupTtl' => [Inbox::class . '::__construct', 'inbox.dedup_ttl', 'repeats (default {})'],
            'Inbox deadLetters' => [Inbox::class . '::deadLetters', 'inbox.dead_letters', '(default {})'],
            'Deduplicator maxAge' => [Deduplicator::class . '::__construct', 'dedup.max_age', '(default {};'],
            'OrderingGuard ttl' => [OrderingGuard::class . '::__construct', 'ordering.store_ttl', '(default {},'],
        ];
    }

    /** @dataProvider documentedDefaults */
    public function testADocumentedDefaultIsTheLibrarys(string $method, string $limit, string $phrase): void
    {
        $doc = self::flat((string) (new \ReflectionMethod($method))->getDocComment());
        $expected = str_contains($phrase, '{margin}')
            ? str_replace('{margin}', self::marginText(), $phrase)
            : str_replace('{}', self::human($limit), $phrase);
        self::assertStringContainsString($expected, $doc, $method);
    }

    public function testTheClassDocsRefreshMarginIsTheLibrarys(): void
    {
        $doc = self::flat((string) (new \ReflectionClass(Client::class))->getDocComment());
        self::assertStringContainsString('refreshed ' . self::human('client.refresh_margin') . ' before it expires', $doc);
    }

    public function testTheDepthCeilingInParseIsTheLibrarys(): void
    {
        $row = array_column(self::vectors()['limits'], null, 'name')['webhook.max_depth'];
        self::assertSame($row['max'], Library::limit('webhook.max_depth', PHP_INT_MAX));
        $doc = self::flat((string) (new \ReflectionMethod(Webhooks::class, 'parse'))->getDocComment());
        self::assertStringContainsString("lowered to {$row['max']} levels", $doc);
    }

    public function testTheReadmesDefaultsAreTheLibrarys(): void
    {
        $readme = (string) file_get_contents(dirname(__DIR__) . '/README.md');
        foreach ([
            '| `timeout` | {client.timeout} |',
            '| `clientTimeout` | {client.client_timeout} |',
            '| `retries`, `retryBaseDelay` | {client.retries}, {client.retry_base_delay} |',
            '| `maxResponseBytes` | {client.max_response_bytes} |',
            '| `tokenRefreshMargin`, `tokenFallbackLifetime` | {client.refresh_margin}, {client.fallback_token_lifetime} |',
            'refreshed {client.refresh_margin} before it expires',
        ] as $row) {
            $expected = preg_replace_callback('/\{([a-z_.]+)\}/', function (array $m): string {
                return $m[1] === 'client.client_timeout' ? 'the timeout + ' . self::marginText() : self::human($m[1]);
            }, $row);
            self::assertStringContainsString((string) $expected, self::flat($readme), $row);
        }
    }

    /**
     * The client timeout's default margin, written as the library writes it: PHP cannot see the
     * header's defines, so it is read from the header, whose define the C build holds to the core.
     */
    private static function marginText(): string
    {
        $header = (string) file_get_contents(dirname(__DIR__, 3) . '/include/iikocloud.h');
        self::assertMatchesRegularExpression('/#define IIKO_DEFAULT_CLIENT_TIMEOUT_MARGIN_MS (\d+)/', $header);
        preg_match('/#define IIKO_DEFAULT_CLIENT_TIMEOUT_MARGIN_MS (\d+)/', $header, $m);
        return ((int) $m[1] / 1000) . ' s';
    }

    // ---- statuses ----

    /** Every webhook code and the HTTP status the library answers for it. */
    private static function answers(): array
    {
        $answers = [];
        foreach ((new \ReflectionClass(Status::class))->getReflectionConstants() as $const) {
            if (str_starts_with($const->getName(), 'WEBHOOK_')) {
                $answers[$const->getName()] = [$const->getValue(), Webhooks::httpStatus($const->getValue()), (string) $const->getDocComment()];
            }
        }
        return $answers;
    }

    /** @return list<int> 3-digit numbers from 100 to 599 in a text */
    private static function statuses(string $text): array
    {
        preg_match_all('/\b([1-5]\d\d)\b/', $text, $m);
        return array_values(array_unique(array_map('intval', $m[1])));
    }

    public function testStatusConstantsSayWhatTheLibraryAnswers(): void
    {
        $answers = self::answers();
        self::assertCount(9, $answers);
        foreach ($answers as $name => [$code, $http, $doc]) {
            self::assertMatchesRegularExpression('/\(answer (\d{3})/', $doc, $name);
            preg_match('/\(answer (\d{3})/', $doc, $m);
            self::assertSame($http, (int) $m[1], $name);
        }
    }

    public function testTheStatusesTheDocsNameAreTheLibrarys(): void
    {
        $receive = array_values(array_unique(array_merge([Webhooks::httpStatus(Status::OK)], array_column(self::answers(), 1))));
        // The inbox answers one more: 503 when it could not store the events.
        $inbox = array_merge($receive, [503]);
        $docs = [
            'Webhooks' => [(string) (new \ReflectionClass(Webhooks::class))->getDocComment(), $receive],
            'Receipt::__construct' => [(string) (new \ReflectionMethod(Receipt::class, '__construct'))->getDocComment(), $receive],
            'Received' => [(string) (new \ReflectionClass(Received::class))->getDocComment(), $inbox],
            'WebhookVerificationException::getHttpStatus' => [(string) (new \ReflectionMethod(WebhookVerificationException::class, 'getHttpStatus'))->getDocComment(), $receive],
            'WebhookParseException::getHttpStatus' => [(string) (new \ReflectionMethod(WebhookParseException::class, 'getHttpStatus'))->getDocComment(), $receive],
        ];
        foreach ($docs as $where => [$doc, $allowed]) {
            $named = self::statuses($doc);
            self::assertNotEmpty($named, $where);
            self::assertEmpty(array_diff($named, $allowed), "$where names " . implode(', ', array_diff($named, $allowed)));
        }
        // The exceptions say exactly what they answer.
        self::assertSame(
            [Webhooks::httpStatus(Status::WEBHOOK_MISSING_AUTHORIZATION), Webhooks::httpStatus(Status::WEBHOOK_EMPTY_EXPECTED_TOKEN)],
            self::statuses((string) (new \ReflectionMethod(WebhookVerificationException::class, 'getHttpStatus'))->getDocComment())
        );
        self::assertSame([Webhooks::httpStatus(Status::WEBHOOK_BODY_NOT_JSON)], self::statuses((string) (new \ReflectionMethod(WebhookParseException::class, 'getHttpStatus'))->getDocComment()));
        $e = new WebhookVerificationException('x', Status::WEBHOOK_EMPTY_EXPECTED_TOKEN);
        self::assertSame(Webhooks::httpStatus(Status::WEBHOOK_EMPTY_EXPECTED_TOKEN), $e->getHttpStatus());
    }

    public function testHttpStatusListsEachCodeWithItsAnswer(): void
    {
        // "200 for OK and for ... (7410-7414), 401 for ... (7400, 7402, 7403), 500 otherwise (7401: ...)":
        // every code in the parentheses after an answer must get that answer.
        $doc = self::flat((string) (new \ReflectionMethod(Webhooks::class, 'httpStatus'))->getDocComment());
        $parts = preg_split('/\b(\d{3}) (?:for|otherwise)\b/', $doc, -1, PREG_SPLIT_DELIM_CAPTURE) ?: [];
        self::assertCount(7, $parts, $doc);
        for ($i = 1; $i < count($parts); $i += 2) {
            $answer = (int) $parts[$i];
            preg_match_all('/\(([^)]*)\)/', $parts[$i + 1], $groups);
            $listed = [];
            foreach ($groups[1] as $group) {
                foreach (preg_split('/,\s*/', $group) ?: [] as $part) {
                    if (preg_match('/^(\d{4})-(\d{4})$/', $part, $span)) {
                        $listed = array_merge($listed, range((int) $span[1], (int) $span[2]));
                    } elseif (preg_match('/^(\d{4})\b/', $part, $one)) {
                        $listed[] = (int) $one[1];
                    }
                }
            }
            self::assertNotEmpty($listed, $parts[$i + 1]);
            foreach ($listed as $code) {
                self::assertSame($answer, Webhooks::httpStatus($code), "$code in \"{$parts[$i + 1]}\"");
            }
        }
    }

    public function testTheReadmesStatusesAreTheLibrarys(): void
    {
        $readme = self::flat((string) file_get_contents(dirname(__DIR__) . '/README.md'));
        preg_match('/`WebhookVerificationException` \|[^|]*\|[^|]*`getHttpStatus\(\)` \(([^)]*)\)/', $readme, $v);
        preg_match('/`WebhookParseException` \|[^|]*\|[^|]*`getHttpStatus\(\)` \(([^)]*)\)/', $readme, $p);
        self::assertSame(
            [Webhooks::httpStatus(Status::WEBHOOK_TOKEN_MISMATCH), Webhooks::httpStatus(Status::WEBHOOK_EMPTY_EXPECTED_TOKEN)],
            self::statuses($v[1] ?? '')
        );
        self::assertSame([Webhooks::httpStatus(Status::WEBHOOK_BODY_TOO_LARGE)], self::statuses($p[1] ?? ''));
        self::assertStringContainsString(
            sprintf('an empty expected token refuses everything (answer %d', Webhooks::httpStatus(Status::WEBHOOK_EMPTY_EXPECTED_TOKEN)),
            $readme
        );
        self::assertStringContainsString(
            sprintf('body that cannot be read is answered %d too', Webhooks::httpStatus(Status::WEBHOOK_BODY_NOT_JSON)),
            $readme
        );
    }
}
