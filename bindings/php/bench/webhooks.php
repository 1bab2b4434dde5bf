<?php
// What a receiver does with each webhook body (issue 35), against json_decode:
// the parse of a few bodies, then the parse and every field of each event on
// every body of benches/data/bodies. Prints Markdown tables; with a file
// argument, also writes the figures of the chart (scripts/bench_charts.py).
// Run by scripts/bench-report.sh, or alone on a release build:
//
//   IIKOCLOUD_LIB=target/release/libiikocloud.so \
//       php -d ffi.enable=1 bindings/php/bench/webhooks.php [figures.json]
//
// Any library works when PHP_BENCH_SMOKE=1 (see below).

declare(strict_types=1);

$root = dirname(__DIR__, 3);
// A warning (an undefined property after a rename, say) means the benchmark
// no longer measures what it says: stop.
set_error_handler(static function (int $no, string $message, string $file, int $line): bool {
    throw new ErrorException($message, 0, $no, $file, $line);
});
require $root . "/bindings/php/autoload.php";
$small = file_get_contents($root . "/tests/vectors/payloads/delivery_order_update.json");
$large = file_get_contents($root . "/benches/data/large_webhook.json");
// PHP_BENCH_SMOKE=1 (scripts/php-test.sh): one call per measurement, so that
// the test command runs this through and a change that breaks it fails there;
// the figures then mean nothing.
define('SMOKE', getenv('PHP_BENCH_SMOKE') === '1');
// Best time per call over 5 rounds of at least 0.2 s each.
function per_call(callable $f): float {
    if (SMOKE) {
        $t = hrtime(true);
        $f();
        return (hrtime(true) - $t) / 1000;
    }
    $n = 1;
    while (true) {
        $t = hrtime(true); for ($i = 0; $i < $n; $i++) { $f(); } $t = hrtime(true) - $t;
        if ($t >= 2e8 || $n > 1000000) break;
        $n *= 2;
    }
    $best = INF;
    for ($r = 0; $r < 5; $r++) {
        $t = hrtime(true); for ($i = 0; $i < $n; $i++) { $f(); } $t = hrtime(true) - $t;
        $best = min($best, $t / $n);
    }
    return $best / 1000; // µs
}
printf("PHP %s\n\n", PHP_VERSION);
echo "| webhook body | IikoCloud\\Webhooks::parse (FFI) | json_decode (assoc) | parse / json_decode |\n|---|---|---|---|\n";
$bodies = ["small, indented" => $small];
foreach (["small_delivery" => "delivery", "small_stop_list" => "stop list",
          "small_error" => "error", "lifecycle" => "lifecycle", "mixed" => "mixed"] as $file => $held) {
    $bodies["held-out $held"] = file_get_contents($root . "/benches/data/bodies/$file.json");
}
$bodies["large"] = $large;
foreach ($bodies as $name => $body) {
    $ours = per_call(fn() => IikoCloud\Webhooks::parse($body));
    $theirs = per_call(fn() => json_decode($body, true, 512, JSON_THROW_ON_ERROR));
    printf("| %s (%s B) | %s µs | %s µs | %.2fx |\n", $name, number_format(strlen($body)),
        number_format($ours, 1), number_format($theirs, 1), $ours / $theirs);
}
// Every body of benches/data/bodies (the odd classes of #35 too): the
// parse and every field of each event read, against json_decode and
// the same members read from its arrays; figures for the chart.
$readOurs = function (string $body): void {
    foreach (IikoCloud\Webhooks::parse($body) as $e) {
        $e->type; $e->typeName; $e->time; $e->timeUnixMs; $e->organizationId; $e->correlationId;
        $e->problem; $e->entityId; $e->orderId; $e->timestamp; $e->creationStatus; $e->status;
        $e->orderNumber; $e->sum; $e->phone; $e->errorCode; $e->errorMessage;
        $e->isNewDeliveryOrder; $e->dedupKey; $e->json;
    }
};
$readTheirs = function (string $body): void {
    foreach (json_decode($body, true, 512, JSON_THROW_ON_ERROR) as $e) {
        if (!is_array($e)) { continue; }
        $e["eventType"] ?? null; $e["eventTime"] ?? null; $e["organizationId"] ?? null;
        $e["correlationId"] ?? null;
        $i = $e["eventInfo"] ?? null;
        if (!is_array($i)) { continue; }
        $i["id"] ?? null; $i["timestamp"] ?? null; $i["creationStatus"] ?? null;
        $i["errorInfo"]["code"] ?? null; $i["errorInfo"]["message"] ?? null;
        $o = $i["order"] ?? $i["reserve"] ?? null;
        if (is_array($o)) {
            $o["id"] ?? null; $o["status"] ?? null; $o["number"] ?? null; $o["sum"] ?? null;
            $o["phone"] ?? null;
        }
    }
};
echo "\n| webhook body (`benches/data/bodies`) | parse + every field of each `Event` | json_decode + the same members | ours / theirs |\n|---|---|---|---|\n";
$figures = [];
$files = glob($root . "/benches/data/bodies/*.json");
usort($files, fn($a, $b) => filesize($a) <=> filesize($b));
foreach ($files as $file) {
    $body = file_get_contents($file);
    $parse = per_call(fn() => IikoCloud\Webhooks::parse($body));
    $decode = per_call(fn() => json_decode($body, true, 512, JSON_THROW_ON_ERROR));
    $ours = per_call(fn() => $readOurs($body));
    $theirs = per_call(fn() => $readTheirs($body));
    printf("| %s (%s B) | %s µs | %s µs | %.2fx |\n", basename($file, ".json"),
        number_format(strlen($body)), number_format($ours, 1), number_format($theirs, 1), $ours / $theirs);
    $figures[] = ["body" => basename($file, ".json"), "bytes" => strlen($body),
        "ours_us" => $parse, "theirs_us" => $decode, "read_ours_us" => $ours, "read_theirs_us" => $theirs];
}
if (isset($argv[1])) {
    file_put_contents($argv[1], json_encode($figures));
}
// The floor of any FFI read of a body under 2 KB: what Webhooks::parse
// would cost if the library did no work at all. Its FFI calls (parse,
// count, one summary per event, free), each timed as a call that returns
// at once, plus the Event objects made from summaries filled beforehand
// and every field read. Where that alone exceeds json_decode and the same
// reads, no change inside the library can bring the parse under it.
echo "\n| webhook body under 2 KB | json_decode + the same members | the FFI calls alone | the `Event`s alone (summaries filled beforehand) | floor / theirs | ours / theirs |\n|---|---|---|---|---|---|\n";
$ffi = IikoCloud\Library::ffi();
foreach ($files as $file) {
    $body = file_get_contents($file);
    if (strlen($body) >= 2048) {
        continue;
    }
    $out = $ffi->new('iiko_events*');
    $err = $ffi->new('iiko_error*');
    $status = $ffi->iiko_webhook_parse($body, strlen($body), 0, 0, 0, FFI::addr($out), FFI::addr($err));
    if ($status !== IikoCloud\Status::OK) {
        throw new RuntimeException(basename($file) . ": the library refused the body ($status)");
    }
    $summaries = [];
    for ($i = 0, $n = $ffi->iiko_events_count($out); $i < $n; $i++) {
        $s = $ffi->new('iiko_event_summary');
        $s->size = FFI::sizeof($s);
        if ($ffi->iiko_events_summary($out, $i, FFI::addr($s), FFI::addr($err)) !== IikoCloud\Status::OK) {
            throw new RuntimeException(basename($file) . ": no summary of event $i");
        }
        $summaries[] = $s;
    }
    $calls = 3 + count($summaries);
    $callsAlone = per_call(function () use ($ffi, $calls): void {
        for ($i = 0; $i < $calls; $i++) {
            $ffi->iiko_webhook_http_status(0);
        }
    });
    $eventsAlone = per_call(function () use ($summaries): void {
        foreach ($summaries as $s) {
            $e = new IikoCloud\Event($s);
            $e->type; $e->typeName; $e->time; $e->timeUnixMs; $e->organizationId; $e->correlationId;
            $e->problem; $e->entityId; $e->orderId; $e->timestamp; $e->creationStatus; $e->status;
            $e->orderNumber; $e->sum; $e->phone; $e->errorCode; $e->errorMessage;
            $e->isNewDeliveryOrder; $e->dedupKey; $e->json;
        }
    });
    $ours = per_call(fn() => $readOurs($body));
    $theirs = per_call(fn() => $readTheirs($body));
    $ffi->iiko_events_free($out);
    printf("| %s (%s B, %d events) | %s µs | %s µs | %s µs | %.2fx | %.2fx |\n", basename($file, ".json"),
        number_format(strlen($body)), count($summaries), number_format($theirs, 2), number_format($callsAlone, 2),
        number_format($eventsAlone, 2), ($callsAlone + $eventsAlone) / $theirs, $ours / $theirs);
}
