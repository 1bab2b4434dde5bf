<?php

declare(strict_types=1);

namespace IikoCloud;

use FFI;
use FFI\CData;
use IikoCloud\Exception\IikoException;
use IikoCloud\Exception\InvalidInputException;
use Psr\Log\LoggerInterface;

/**
 * A blocking client of the iikoCloud (iikoTransport) API.
 *
 * Give either the v2 credentials (`appId`, `clientSecret`, `apiKey`) or the
 * legacy `apiLogin`. The token is fetched on the first call, cached and
 * refreshed 1 min before it expires. PHP starts every request with a new
 * process state, so an in-memory cache alone would fetch a token per
 * request: give `tokenCacheDir` to share the token between PHP-FPM workers,
 * CLI scripts and cron jobs through a file (mode 0600 in a directory created
 * 0700; keep it private to the service's user). Processes with the same base
 * URL and credentials then make one token request between them, and a token
 * the service refuses is dropped for all of them.
 *
 * Answers are PHP arrays with the service's own (camelCase) field names, as
 * json_decode gives them (fractional numbers are floats, large integers
 * strings); {@see callJson()} gives the exact JSON text. Failures throw a
 * subclass of {@see IikoException}; messages never contain a secret.
 *
 * Safe calls (every typed method; {@see call()} with `idempotent: true`) are
 * retried after a transport error or a 5xx; nothing is retried after a 429.
 * A client created before `pcntl_fork()` must not be used in the child:
 * create a new one there.
 */
final class Client
{
    use Api\Operations;

    /** The production address of the service (Russia region): the library's
     *  IIKO_DEFAULT_BASE_URL (checked against the header by a test), used when
     *  no baseUrl is given. */
    public const DEFAULT_BASE_URL = 'https://api-ru.iiko.services';
    /** IIKO_CALL_IDEMPOTENT (checked against the header by a test). */
    private const CALL_IDEMPOTENT = 1;
    /** IIKO_CALL_MONEY_AS_STRING (checked against the header by a test). */
    private const CALL_MONEY_AS_STRING = 2;
    /** IIKO_CALL_ALLOW_UNKNOWN_FIELDS (checked against the header by a test). */
    private const CALL_ALLOW_UNKNOWN_FIELDS = 4;
    private const JSON_OUT = JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE
        | JSON_PRESERVE_ZERO_FRACTION;

    private FFI $ffi;
    /** The `iiko_client *`; null once closed. */
    private ?CData $handle = null;
    private string $baseUrl;
    private float $timeout;
    /** The process that created the handle (see fork in the class comment). */
    private int $pid;
    /** Delivers each call's spans and log records; null when none are wanted. */
    private ?Telemetry $telemetry = null;

    /**
     * Creates a client; makes no request. A bad configuration throws here,
     * not on the first call.
     *
     * Give the settings as named arguments, `new Client(appId: …, clientSecret: …, apiKey: …)`,
     * or as one array with the same keys, `new Client(['appId' => …, 'tokenCacheDir' => …])`.
     * In the array an unknown key is refused (a typo would otherwise drop a setting), and
     * `false`, which getenv() returns for an unset variable, counts as not given.
     *
     * @param array<string, mixed>|string|null $appId v2 credentials: `appId` from the developer
     *                                               portal; or every setting as an array
     * @param ?string $clientSecret v2 credentials: `clientSecret`
     * @param ?string $apiKey v2 credentials: an `apiKey` from iikoWeb
     * @param ?string $apiLogin legacy credentials instead of the three above
     * @param ?string $baseUrl the service address, e.g. `https://api-eu.iiko.services` (null: {@see DEFAULT_BASE_URL})
     * Every duration and size is read by the library's one rule (tests/vectors/limits.json): null
     * keeps the library's default, a value it refuses throws with its message.
     *
     * @param ?float $timeout seconds: the `Timeout` header, how long the service waits for the
     *                        restaurant terminal before answering 408 (default 15 s)
     * @param ?float $clientTimeout seconds the client waits for a whole exchange (default
     *                              the timeout + 5 s; it must be longer than $timeout)
     * @param ?int $retries how often a safe call is retried after a transport error or a 5xx
     *                      (default 2)
     * @param ?float $retryBaseDelay seconds before the first retry (default 250 ms, doubled each
     *                               time, with jitter)
     * @param ?int $maxResponseBytes the largest answer read (default 64 MiB)
     * @param ?string $tokenCacheDir a directory to share the token with other processes
     * @param ?float $tokenRefreshMargin seconds before expiry a token is refreshed (default 1 min)
     * @param ?float $tokenFallbackLifetime seconds a token without a JWT `exp` is kept (default 1 h)
     * @param ?string $library the path of libiikocloud (default: see {@see Library})
     * @param ?string $caFile a PEM file of extra roots to trust (a corporate or private CA), on
     *                       top of the system store; unreadable or empty fails here
     * @param string $trust `system` (default: the OS store, honouring SSL_CERT_FILE) or
     *                      `bundled` (only the Mozilla roots in the library)
     * @param ?string $proxy `http://[user:password@]host:port`; PHP-FPM clears the environment,
     *                       so give it here rather than relying on HTTPS_PROXY. Never shown.
     * @param ?string $noProxy hosts reached without the proxy, comma-separated
     * @param ?string $tokenStore a shared store for the token instead of a directory:
     *                           `sqlite:///abs/path.db` (one machine) or
     *                           `redis://[:password@]host:port/db` (many); one token request
     *                           per credential set at a time among all sharing it
     * @param ?LoggerInterface $logger receives the library's log records of this client's
     *                                 calls (PSR-3, package psr/log), after each call returns
     * @param ?callable(array<string, mixed>): void $onSpanEnd receives each span of this
     *                                 client's calls after the call returns, parents first
     *                                 (the shape: docs/site/observability.md)
     * @param string $logLevel the most verbose PSR-3 level given to $logger (default `info`)
     * @throws InvalidInputException for a bad configuration
     * @throws Exception\LibraryException when the library cannot be loaded
     */
    public function __construct(
        #[\SensitiveParameter] array|string|null $appId = null,
        #[\SensitiveParameter] ?string $clientSecret = null,
        #[\SensitiveParameter] ?string $apiKey = null,
        #[\SensitiveParameter] ?string $apiLogin = null,
        ?string $baseUrl = null,
        ?float $timeout = null,
        ?float $clientTimeout = null,
        ?int $retries = null,
        ?float $retryBaseDelay = null,
        ?int $maxResponseBytes = null,
        ?string $tokenCacheDir = null,
        ?float $tokenRefreshMargin = null,
        ?float $tokenFallbackLifetime = null,
        ?string $library = null,
        ?string $caFile = null,
        string $trust = 'system',
        #[\SensitiveParameter] ?string $proxy = null,
        ?string $noProxy = null,
        #[\SensitiveParameter] ?string $tokenStore = null,
        ?LoggerInterface $logger = null,
        ?callable $onSpanEnd = null,
        string $logLevel = 'info'
    ) {
        if (is_array($appId)) {
            if (func_num_args() > 1) {
                throw new InvalidInputException(
                    'give the settings either as one array or as named arguments, not both',
                    Status::INVALID_CONFIG
                );
            }
            try {
                // Named arguments from the array: PHP checks each type.
                $this->__construct(...self::options($appId));
            } catch (\TypeError $e) {
                // PHP's message names the parameter and the types, never the value.
                throw new InvalidInputException('a client option has the wrong type: ' . $e->getMessage(), Status::INVALID_CONFIG);
            }
            return;
        }
        $this->ffi = Library::ffi($library);
        $this->telemetry = Telemetry::of($this->ffi, $logger, $onSpanEnd, $logLevel);
        $v2 = $appId !== null || $clientSecret !== null || $apiKey !== null;
        if ($v2 && $apiLogin !== null) {
            throw new InvalidInputException(
                'give either appId, clientSecret and apiKey, or apiLogin, not both',
                Status::INVALID_CONFIG
            );
        }
        // Read (and refused) as iiko_client_new reads them: a configuration error.
        $config = Status::INVALID_CONFIG;
        $timeoutMs = Library::arg('client.timeout', $timeout, $config);
        $clientTimeoutMs = Library::arg('client.client_timeout', $clientTimeout, $config);
        $retryCount = Library::arg('client.retries', $retries, $config);
        $retryDelayMs = Library::arg('client.retry_base_delay', $retryBaseDelay, $config);
        $maxBytes = Library::arg('client.max_response_bytes', $maxResponseBytes, $config);
        $refreshMs = Library::arg('client.refresh_margin', $tokenRefreshMargin, $config);
        $lifetimeMs = Library::arg('client.fallback_token_lifetime', $tokenFallbackLifetime, $config);
        $ffi = $this->ffi;
        $options = $ffi->new('iiko_client_options*');
        $err = Library::errorOut($ffi);
        Library::check($ffi, (int) $ffi->iiko_client_options_new(FFI::addr($options), FFI::addr($err)), $err);
        Library::track(1);
        try {
            if ($v2) {
                $this->set($ffi->iiko_client_options_set_v2(
                    $options,
                    Library::cString($appId ?? '', 'appId'),
                    Library::cString($clientSecret ?? '', 'clientSecret'),
                    Library::cString($apiKey ?? '', 'apiKey'),
                    FFI::addr($err)
                ), $err);
            } elseif ($apiLogin !== null) {
                $this->set($ffi->iiko_client_options_set_api_login(
                    $options,
                    Library::cString($apiLogin, 'apiLogin'),
                    FFI::addr($err)
                ), $err);
            }
            // What is not given keeps the library's default: the setter is not
            // called, or is given the default the library names.
            if ($baseUrl !== null) {
                $this->set($ffi->iiko_client_options_set_base_url(
                    $options,
                    Library::cString($baseUrl, 'baseUrl'),
                    FFI::addr($err)
                ), $err);
            }
            if ($timeout !== null) {
                $this->set($ffi->iiko_client_options_set_timeout_ms($options, $timeoutMs, FFI::addr($err)), $err);
            }
            if ($clientTimeout !== null) {
                $this->set($ffi->iiko_client_options_set_client_timeout_ms($options, $clientTimeoutMs, FFI::addr($err)), $err);
            }
            if ($retries !== null || $retryBaseDelay !== null) {
                $this->set($ffi->iiko_client_options_set_retries(
                    $options,
                    $retries === null ? Library::limitDefault('client.retries') : $retryCount,
                    $retryBaseDelay === null ? Library::limitDefault('client.retry_base_delay') : $retryDelayMs,
                    FFI::addr($err)
                ), $err);
            }
            if ($maxResponseBytes !== null) {
                $this->set($ffi->iiko_client_options_set_max_response_bytes($options, $maxBytes, FFI::addr($err)), $err);
            }
            if ($tokenRefreshMargin !== null || $tokenFallbackLifetime !== null) {
                $this->set($ffi->iiko_client_options_set_token_cache(
                    $options,
                    $tokenRefreshMargin === null ? Library::limitDefault('client.refresh_margin') : $refreshMs,
                    $tokenFallbackLifetime === null ? Library::limitDefault('client.fallback_token_lifetime') : $lifetimeMs,
                    FFI::addr($err)
                ), $err);
            }
            if ($tokenCacheDir !== null) {
                $this->set($ffi->iiko_client_options_set_token_cache_dir(
                    $options,
                    Library::cString($tokenCacheDir, 'tokenCacheDir'),
                    FFI::addr($err)
                ), $err);
            }
            if ($tokenStore !== null) {
                $this->set($ffi->iiko_client_options_set_token_store(
                    $options,
                    Library::cString($tokenStore, 'tokenStore'),
                    FFI::addr($err)
                ), $err);
            }
            if ($caFile !== null) {
                $this->set($ffi->iiko_client_options_set_ca_file(
                    $options,
                    Library::cString($caFile, 'caFile'),
                    FFI::addr($err)
                ), $err);
            }
            $which = ['system' => 0, 'bundled' => 1][$trust] ?? null;
            if ($which === null) {
                throw new InvalidInputException('trust must be "system" or "bundled"', Status::INVALID_CONFIG);
            }
            $this->set($ffi->iiko_client_options_set_trust_roots($options, $which, FFI::addr($err)), $err);
            if ($proxy !== null) {
                $this->set($ffi->iiko_client_options_set_proxy(
                    $options,
                    Library::cString($proxy, 'proxy'),
                    FFI::addr($err)
                ), $err);
            }
            if ($noProxy !== null) {
                $this->set($ffi->iiko_client_options_set_no_proxy(
                    $options,
                    Library::cString($noProxy, 'noProxy'),
                    FFI::addr($err)
                ), $err);
            }
            $handle = $ffi->new('iiko_client*');
            $this->set($ffi->iiko_client_new($options, FFI::addr($handle), FFI::addr($err)), $err);
        } finally {
            $ffi->iiko_client_options_free($options);
            Library::track(-1);
        }
        $this->handle = $handle;
        Library::track(1);
        $this->baseUrl = rtrim($baseUrl ?? self::DEFAULT_BASE_URL, '/');
        $this->timeout = ($timeout === null ? Library::limitDefault('client.timeout') : $timeoutMs) / 1000;
        $this->pid = getmypid() ?: 0;
    }

    /** Frees the native client (see {@see close()}). */
    public function __destruct()
    {
        $this->close();
    }

    /**
     * Frees the native client now. Calls afterwards throw; closing twice is
     * harmless.
     */
    public function close(): void
    {
        if ($this->handle === null) {
            return;
        }
        $handle = $this->handle;
        $this->handle = null;
        Library::track(-1);
        if ($this->pid === (getmypid() ?: 0)) {
            $this->ffi->iiko_client_free($handle);
        }
        // In a forked child the handle shares the parent's sockets: dropping
        // its connections could disturb the parent's, so it is left alone.
    }

    /** Whether {@see close()} was called. */
    public function isClosed(): bool
    {
        return $this->handle === null;
    }

    /** The base URL, without a trailing slash. */
    public function getBaseUrl(): string
    {
        return $this->baseUrl;
    }

    /** The `Timeout` header this client sends, in seconds. */
    public function getTimeout(): float
    {
        return $this->timeout;
    }

    /**
     * A valid access token: the cached one, or a new one when there is none
     * or it expires within the refresh margin. You rarely need it: every
     * call gets one itself.
     *
     * @throws IikoException
     */
    public function accessToken(): AccessToken
    {
        $ffi = $this->ffi;
        $token = $ffi->new('char*');
        $expires = $ffi->new('int64_t');
        $err = Library::errorOut($ffi);
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_access_token($h, FFI::addr($token), FFI::addr($expires), FFI::addr($err)));
        Library::check($ffi, $status, $err);
        return new AccessToken((string) Library::takeString($ffi, $token), (int) $expires->cdata);
    }

    /**
     * Organizations the API key can see (`/api/1/organizations`).
     *
     * @param ?list<string> $organizationIds only these (UUIDs); null for all
     * @param ?bool $returnAdditionalInfo true for the Extended shape
     * @param ?bool $includeDisabled include disabled organizations
     * @param ?list<string> $returnExternalData keys of external data to return
     * @return array<string, mixed> the answer: `['correlationId' => …, 'organizations' => [[ 'id' => …, 'name' => …, … ], …]]`
     * @throws IikoException
     */
    public function organizations(
        ?array $organizationIds = null,
        ?bool $returnAdditionalInfo = null,
        ?bool $includeDisabled = null,
        ?array $returnExternalData = null
    ): array {
        $request = self::request([
            'organizationIds' => self::stringList($organizationIds, 'organizationIds'),
            'returnAdditionalInfo' => $returnAdditionalInfo,
            'includeDisabled' => $includeDisabled,
            'returnExternalData' => self::stringList($returnExternalData, 'returnExternalData'),
        ]);
        $ffi = $this->ffi;
        $orgs = $ffi->new('iiko_organizations*');
        $err = Library::errorOut($ffi);
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_organizations($h, $request, FFI::addr($orgs), FFI::addr($err)));
        Library::check($ffi, $status, $err);
        Library::track(1);
        try {
            $json = (string) $ffi->iiko_organizations_json($orgs);
        } finally {
            $ffi->iiko_organizations_free($orgs);
            Library::track(-1);
        }
        return self::decode($json);
    }

    /**
     * Webhook settings of an organization (`/api/1/webhooks/settings`).
     *
     * @return array<string, mixed> `['correlationId', 'apiLoginName', 'webHooksUri', 'authToken',
     *                              'webHooksFilter', …]`; `authToken` is your webhook token in clear: do not log it
     * @throws IikoException
     */
    public function webhookSettings(string $organizationId): array
    {
        $ffi = $this->ffi;
        $out = $ffi->new('char*');
        $err = Library::errorOut($ffi);
        $organizationId = Library::cString($organizationId, 'organizationId');
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_webhook_settings(
            $h,
            $organizationId,
            FFI::addr($out),
            FFI::addr($err)
        ));
        Library::check($ffi, $status, $err);
        return self::decode((string) Library::takeString($ffi, $out));
    }

    /**
     * Sets the webhook of an organization (`/api/1/webhooks/update_settings`).
     * Choose a long random `$authToken`: the service sends it back as the
     * `Authorization` header of every delivery.
     *
     * @param string $webHooksUri an absolute http(s) URL
     * @param ?array<string, mixed> $webHooksFilter e.g. `['deliveryOrderFilter' => ['orderStatuses' => ['New'], 'errors' => true]]`
     * @return array<string, mixed> the answer: `['correlationId' => …]`
     * @throws IikoException
     */
    public function updateWebhookSettings(
        string $organizationId,
        string $webHooksUri,
        #[\SensitiveParameter] ?string $authToken = null,
        ?array $webHooksFilter = null
    ): array {
        $request = self::request([
            'organizationId' => $organizationId,
            'webHooksUri' => $webHooksUri,
            'authToken' => $authToken,
            'webHooksFilter' => $webHooksFilter === null ? null : self::object($webHooksFilter),
        ]);
        $ffi = $this->ffi;
        $out = $ffi->new('char*');
        $err = Library::errorOut($ffi);
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_update_webhook_settings($h, $request, FFI::addr($out), FFI::addr($err)));
        Library::check($ffi, $status, $err);
        return self::decode((string) Library::takeString($ffi, $out));
    }

    /**
     * Out-of-stock items of organizations (`/api/1/stop_lists`).
     *
     * @param list<string> $organizationIds at least one
     * @param ?bool $returnSize fill `sizeId`
     * @param ?list<string> $terminalGroupsIds only these terminal groups
     * @return array<string, mixed> `['correlationId' => …, 'terminalGroupStopLists' => […]]`; balances
     *                              are floats here, exact in {@see callJson()}
     * @throws IikoException
     */
    public function stopLists(array $organizationIds, ?bool $returnSize = null, ?array $terminalGroupsIds = null): array
    {
        $request = self::request([
            'organizationIds' => self::stringList($organizationIds, 'organizationIds'),
            'returnSize' => $returnSize,
            'terminalGroupsIds' => self::stringList($terminalGroupsIds, 'terminalGroupsIds'),
        ]);
        $ffi = $this->ffi;
        $out = $ffi->new('char*');
        $err = Library::errorOut($ffi);
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_stop_lists($h, $request, FFI::addr($out), FFI::addr($err)));
        Library::check($ffi, $status, $err);
        return self::decode((string) Library::takeString($ffi, $out));
    }

    /**
     * Calls any endpoint, e.g. `call('/api/1/nomenclature', ['organizationId' => $id], idempotent: true)`,
     * with the same token handling, timeouts and errors as the typed calls.
     * Not retried unless `idempotent: true` says the call is safe to repeat:
     * many calls create orders.
     *
     * @param string $path e.g. `/api/1/nomenclature`
     * @param array<string, mixed>|object|null $body the JSON object to send (null or [] for `{}`)
     * @param ?float $timeout this call's Timeout header in seconds (null: the client's; 1 s to 1 h)
     * @return array<string, mixed> the decoded answer
     * @throws IikoException
     */
    public function call(string $path, array|object|null $body = null, ?float $timeout = null, bool $idempotent = false): array
    {
        $json = $body === null ? null : self::encode(is_array($body) ? self::object($body) : $body);
        return self::decode($this->callJson($path, $json, $timeout, $idempotent));
    }

    /**
     * {@see call()} with the JSON text in and out, e.g. to keep amounts
     * exact (json_decode reads them as floats).
     *
     * @param ?string $bodyJson a JSON object (null for `{}`)
     * @return string the answer's JSON text
     * @throws IikoException
     */
    public function callJson(string $path, ?string $bodyJson = null, ?float $timeout = null, bool $idempotent = false): string
    {
        $ffi = $this->ffi;
        $out = $ffi->new('char*');
        $err = Library::errorOut($ffi);
        $path = Library::cString($path, 'path');
        $bodyJson = $bodyJson === null ? null : Library::cString($bodyJson, 'the body');
        $timeoutMs = Library::arg('call.timeout', $timeout);
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_call(
            $h,
            $path,
            $bodyJson,
            $timeoutMs,
            $idempotent ? self::CALL_IDEMPOTENT : 0,
            FFI::addr($out),
            FFI::addr($err)
        ));
        Library::check($ffi, $status, $err);
        return (string) Library::takeString($ffi, $out);
    }

    /**
     * Calls an operation of the official document by its dotted name, e.g.
     * `operation('deliveries.create', [...], wait: true)`; the generated
     * resource groups (`$client->deliveries()->create([...])`) call this.
     *
     * The request is checked by the library before anything is sent (the same
     * rules and messages as every binding: a missing required field, a length,
     * a range, an allowed value, a UUID), reads are retried after a transport
     * error or a 5xx and commands never are. Amounts in the answer are numeric
     * strings (`"1250.5"`), exact; give amounts as numeric strings or numbers.
     * An empty nested object must be given as `new \stdClass()` (PHP's `[]`
     * is a list). Keys are the document's field names (`deliveryPoint`) at
     * every depth: any other key is refused before sending, naming its path
     * and the nearest field (`order.delivery_point: not a field of
     * DeliveryOrder; did you mean deliveryPoint?`), unless
     * `allowUnknownFields: true` sends it as given (a field newer than this
     * SDK).
     *
     * @param string $name e.g. `deliveries.create` (see `iikocloud ops`)
     * @param array<string, mixed> $request the request's fields
     * @param ?float $timeout this call's Timeout header in seconds (null: the client's; 1 to 3600)
     * @param bool $wait follow a command until it ends (only for commands); deliveries.create then
     *                   creates safely and answers `['orderInfo' => the created order]`
     * @param ?float $waitTimeout with $wait, the longest wait in seconds (null: 1 min)
     * @param bool $allowUnknownFields send keys that are no field of the document as given
     * @return array<string, mixed> the decoded answer
     * @throws InvalidInputException for an unknown name or a request the document refuses
     * @throws Exception\CommandException when a followed command fails, times out or expires
     * @throws IikoException
     */
    public function operation(string $name, array $request = [], ?float $timeout = null, bool $wait = false, ?float $waitTimeout = null, bool $allowUnknownFields = false): array
    {
        return self::decode($this->operationJson($name, self::encode(self::object($request)), $timeout, $wait, $waitTimeout, true, $allowUnknownFields));
    }

    /**
     * {@see operation()} with the JSON text in and out.
     *
     * @param ?string $requestJson the request (null for `{}`)
     * @param bool $moneyAsString amounts in the answer as JSON strings (else numbers whose text is exact)
     * @param bool $allowUnknownFields send keys that are no field of the document as given
     * @return string the answer's JSON text
     * @throws IikoException
     */
    public function operationJson(string $name, ?string $requestJson = null, ?float $timeout = null, bool $wait = false, ?float $waitTimeout = null, bool $moneyAsString = false, bool $allowUnknownFields = false): string
    {
        $ffi = $this->ffi;
        $op = (int) $ffi->iiko_operation_by_name(Library::cString($name, 'name'));
        if ($op === 0) {
            throw new InvalidInputException(sprintf('no operation named "%s" (names look like "deliveries.create")', addcslashes($name, "\0..\37\"\\")), Status::INVALID_ARGUMENT);
        }
        $out = $ffi->new('char*');
        $err = Library::errorOut($ffi);
        $request = $requestJson === null ? null : Library::cString($requestJson, 'the request');
        $timeoutMs = Library::arg('call.timeout', $timeout);
        $flags = ($moneyAsString ? self::CALL_MONEY_AS_STRING : 0)
            | ($allowUnknownFields ? self::CALL_ALLOW_UNKNOWN_FIELDS : 0);
        if ($wait) {
            $waitMs = Library::arg('wait.timeout', $waitTimeout);
            $status = $this->native(fn (CData $h) => $ffi->iiko_client_call_operation_wait(
                $h,
                $op,
                $request,
                $timeoutMs,
                $waitMs,
                $flags,
                FFI::addr($out),
                FFI::addr($err)
            ));
        } else {
            $status = $this->native(fn (CData $h) => $ffi->iiko_client_call_operation($h, $op, $request, $timeoutMs, $flags, FFI::addr($out), FFI::addr($err)));
        }
        Library::check($ffi, $status, $err);
        return (string) Library::takeString($ffi, $out);
    }

    /**
     * Follows a command until it ends: give its answer (with `correlationId`)
     * or the correlationId itself, and its organization.
     *
     * @param array<string, mixed>|string $answerOrCorrelationId
     * @param ?float $timeout the longest wait in seconds (null: 1 min)
     * @throws Exception\CommandFailedException when the command failed (getReason() says why)
     * @throws Exception\CommandTimeoutException when it was still running at the limit (it may yet finish)
     * @throws Exception\CommandExpiredException when the service no longer knows it
     * @throws IikoException
     */
    public function wait(array|string $answerOrCorrelationId, string $organizationId, ?float $timeout = null): void
    {
        $cid = is_array($answerOrCorrelationId) ? ($answerOrCorrelationId['correlationId'] ?? null) : $answerOrCorrelationId;
        if (!is_string($cid) || $cid === '') {
            throw new InvalidInputException('the answer has no correlationId to wait for', Status::INVALID_ARGUMENT);
        }
        $ffi = $this->ffi;
        $err = Library::errorOut($ffi);
        $organizationId = Library::cString($organizationId, 'organizationId');
        $cid = Library::cString($cid, 'correlationId');
        $timeoutMs = Library::arg('wait.timeout', $timeout);
        $status = $this->native(fn (CData $h) => $ffi->iiko_client_wait_command($h, $organizationId, $cid, $timeoutMs, FFI::addr($err)));
        Library::check($ffi, $status, $err);
    }

    /** @return array<string, mixed> what var_dump() shows: no handle, no secret */
    public function __debugInfo(): array
    {
        return ['baseUrl' => $this->baseUrl, 'timeout' => $this->timeout, 'closed' => $this->handle === null];
    }

    private function handle(): CData
    {
        if ($this->handle === null) {
            throw new IikoException('the client is closed', Status::INVALID_ARGUMENT);
        }
        if ($this->pid !== (getmypid() ?: 0)) {
            throw new IikoException(
                'this client was created by another process (before a fork): create a new Client in this one',
                Status::INVALID_ARGUMENT
            );
        }
        return $this->handle;
    }

    /**
     * Runs one library call on this client's handle, its telemetry captured
     * around it and delivered however it ends ({@see Telemetry::around()}):
     * every call of the handle goes through here.
     *
     * @param callable(CData): mixed $call given the handle; returns the call's status
     */
    private function native(callable $call): int
    {
        $handle = $this->handle();
        return (int) Telemetry::around($this->telemetry, static fn () => $call($handle));
    }

    /** Throws for a failed options setter (the options are freed by the caller). */
    private function set(int $status, CData $err): void
    {
        Library::check($this->ffi, $status, $err);
    }

    /**
     * The constructor's array form as named arguments.
     *
     * @param array<mixed> $options
     * @return array<string, mixed>
     */
    private static function options(array $options): array
    {
        $names = [];
        foreach ((new \ReflectionMethod(self::class, '__construct'))->getParameters() as $parameter) {
            $names[$parameter->getName()] = $parameter->getType();
        }
        $named = [];
        foreach ($options as $key => $value) {
            if (!is_string($key) || !isset($names[$key])) {
                throw new InvalidInputException(
                    sprintf('unknown client option %s; the options are: %s', var_export($key, true), implode(', ', array_keys($names))),
                    Status::INVALID_CONFIG
                );
            }
            if ($key === 'appId' && is_array($value)) {
                throw new InvalidInputException('the client option appId must be a string', Status::INVALID_CONFIG);
            }
            if ($value === false && $names[$key] !== null && $names[$key]->allowsNull()) {
                continue;
            }
            if (is_int($value) && in_array((string) $names[$key], ['float', '?float'], true)) {
                $value = (float) $value;
            }
            $named[$key] = $value;
        }
        return $named;
    }

    /**
     * @param ?array<mixed> $list
     * @return ?list<string>
     */
    private static function stringList(?array $list, string $what): ?array
    {
        if ($list === null) {
            return null;
        }
        foreach ($list as $item) {
            if (!is_string($item)) {
                throw new InvalidInputException(sprintf('%s must be a list of strings', $what), Status::INVALID_ARGUMENT);
            }
        }
        return array_values($list);
    }

    /**
     * A request object without its null fields (absent means "not set").
     *
     * @param array<string, mixed> $fields
     */
    private static function request(array $fields): string
    {
        return self::encode((object) array_filter($fields, static fn ($v): bool => $v !== null));
    }

    /**
     * An associative array as a JSON object, also when empty.
     *
     * @param array<mixed> $fields
     */
    private static function object(array $fields): object
    {
        if ($fields !== [] && array_is_list($fields)) {
            throw new InvalidInputException('a JSON object was expected, not a list', Status::INVALID_JSON);
        }
        return (object) $fields;
    }

    private static function encode(mixed $value): string
    {
        try {
            return json_encode($value, self::JSON_OUT);
        } catch (\JsonException $e) {
            // Not the value: it could hold a token.
            throw new InvalidInputException('the request cannot be written as JSON: ' . $e->getMessage(), Status::INVALID_JSON);
        }
    }

    /** @return array<string, mixed> */
    private static function decode(string $json): array
    {
        try {
            $data = json_decode($json, true, 512, JSON_THROW_ON_ERROR | JSON_BIGINT_AS_STRING);
        } catch (\JsonException $e) {
            throw new Exception\DecodeException('the answer is not JSON: ' . $e->getMessage());
        }
        return is_array($data) ? $data : ['value' => $data];
    }
}
