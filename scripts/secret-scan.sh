#!/usr/bin/env bash
# Secret scan of what the Python and C suites printed (run by
# scripts/reliability.sh; the Rust side is tests/secrets.rs).
#
# Scans, for the emulator's default secrets, the credentials and webhook
# tokens the Python and C tests use, and any JWT (text starting "eyJ"):
#   * target/reliability/py-test.log and c-test.log: the whole output of
#     scripts/py-test.sh and scripts/c-test.sh, saved by scripts/test.sh;
#   * target/c-test/*.log: what each C test program, example and the emulator
#     printed (written by scripts/c-test.sh);
#   * target/reliability/py-probe.log: written here by a Python run that
#     drives every client error class, the token refresh, the 401 retry and
#     webhook verification failures with DEBUG logging on, and prints str()
#     and repr() of every exception, its attributes and every object (pytest
#     shows none of that for passing tests); with opentelemetry-sdk in the
#     venv it runs with a tracer and a meter provider set and prints every
#     span (name, attributes, events) and every metric point's attributes
#     the package recorded, so spans, metric labels and log records are
#     scanned as well.
# A log that is missing is reported and skipped (e.g. the Python suite was
# not run); SECRET_SCAN_STRICT=1 makes that a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/reliability
mkdir -p "$OUT"

# Literal strings that must never be printed. The emulator's defaults come
# first, then the secrets the Python and C tests configure.
SECRETS=(
    emulator-secret emulator-api-key emulator-empty-key
    top-secret wrong-secret login-xyz-secret very-secret-webhook-token-123
    receiver-token-0123456789 another-token-0123456789 tok-123456
    s3cret example-token probe-S3KR1T
    c-proxy-pw-7d2a py-proxy-pw-5c1e php-proxy-pw-9b3f
)
JWT='eyJ[A-Za-z0-9_-]{8,}'

PY=.venv/bin/python
if [ -x "$PY" ] && "$PY" -c 'import iikocloud' 2>/dev/null; then
    echo "python probe: every error class, token refresh, 401 retry, webhook failures"
    (cd target && ../"$PY" - >"../$OUT/py-probe.log" 2>&1) <<'PYEOF'
import logging, sys
import iikocloud
from iikocloud import webhooks
from iikocloud.testing import Emulator

logging.basicConfig(level=logging.DEBUG, stream=sys.stdout,
                    format="%(levelname)s %(name)s %(message)s")

try:
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
except ImportError:
    SPANS = READER = None
    print("telemetry not scanned: opentelemetry-sdk is not installed")
else:
    SPANS, READER = InMemorySpanExporter(), InMemoryMetricReader()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(SPANS))
    trace.set_tracer_provider(tp)
    metrics.set_meter_provider(MeterProvider(metric_readers=[READER]))

def show_telemetry():
    if SPANS is None:
        return
    for s in SPANS.get_finished_spans():
        print(f"span {s.name} {dict(s.attributes or {})!r} status={s.status.description!r}")
        for e in s.events:
            print(f"  event {e.name} {dict(e.attributes or {})!r}")
    data = READER.get_metrics_data()
    for rm in data.resource_metrics if data else []:
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                for p in m.data.data_points:
                    print(f"metric {m.name} {dict(p.attributes or {})!r}")

def show(label, obj):
    print(f"{label}: str={obj!s} repr={obj!r}")
    for k in dir(obj):
        if not k.startswith("__"):
            try:
                print(f"  {k}={getattr(obj, k)!r}")
            except Exception as e:  # a property may raise; that text counts too
                print(f"  {k} raised {e!r}")

def attempt(label, fn):
    try:
        show(label + " ok", fn())
    except Exception as e:
        show(label + " " + type(e).__name__, e)
        cause = e.__cause__ or e.__context__
        if cause is not None:
            show(label + " cause", cause)

with Emulator() as emu:
    c = emu.client(retries=1, timeout=1, client_timeout=1.3)
    show("client", c)
    attempt("organizations", c.organizations)
    for kw in ({"client_secret": "wrong-secret"}, {"api_key": "wrong-secret"}):
        attempt(f"refused {list(kw)}", emu.client(**kw).organizations)
    attempt("legacy refused", iikocloud.Client(base_url=emu.url, api_login="wrong-secret").organizations)
    faults = [("status", {"status": 500}), ("status", {"status": 503}),
              ("rate_limited", {"retry_after": 3}), ("connection_reset", {}),
              ("malformed_body", {}), ("wrong_content_type", {}),
              ("unauthorized", {}), ("delay", {"delay": 1.6})]
    for path in ("/api/1/organizations", "/api/v2/access_token"):
        for kind, kw in faults:
            if path.endswith("access_token"):
                emu.expire_tokens()
            emu.inject(path, kind, times=3, **kw)
            attempt(f"{kind} on {path}", c.organizations)
            emu.clear_faults()
    emu.expire_tokens()
    attempt("after expiry (401 retry)", c.organizations)
    attempt("bad org id", lambda: c.webhooks.settings(organization_id="not-a-uuid"))
    # Labels carry an index, never the header: the probe must not print secrets itself.
    for i, header in enumerate(("Bearer wrong-secret", "s3cretx", " s3cret", "Bearer", None, "s3cret\r\n")):
        attempt(f"verify header #{i}", lambda: webhooks.verify(header, "s3cret"))
    attempt("verify empty expected", lambda: webhooks.verify("s3cret", " "))
    attempt("parse junk", lambda: webhooks.parse(b'[{"authToken":"probe-S3KR1T"'))
    attempt("parse string", lambda: webhooks.parse(b'"probe-S3KR1T"'))
    import tempfile
    with tempfile.TemporaryDirectory() as d, iikocloud.Inbox(f"sqlite://{d}/probe.db") as box:
        for token in ("s3cret", "Bearer wrong-secret"):
            attempt("inbox receive", lambda: box.receive("s3cret", {"Authorization": token},
                                                         b'[{"eventType":"X","eventInfo":{"authToken":"probe-S3KR1T"}}]'))
show_telemetry()
print("python probe done")
PYEOF
else
    echo "python probe skipped: no .venv with iikocloud (run scripts/py-test.sh first)"
fi

LOGS=("$OUT/py-test.log" "$OUT/c-test.log" "$OUT/py-probe.log")
for f in target/c-test/*.log; do [ -f "$f" ] && LOGS+=("$f"); done

scanned=0
missing=0
leaks=0
for f in "${LOGS[@]}"; do
    if [ ! -f "$f" ]; then
        echo "not found (suite not run?): $f"
        missing=$((missing + 1))
        continue
    fi
    scanned=$((scanned + 1))
    for s in "${SECRETS[@]}"; do
        if grep -nF -- "$s" "$f" >"$OUT/hit.txt"; then
            echo "LEAK: \"$s\" in $f:"
            head -5 "$OUT/hit.txt"
            leaks=$((leaks + 1))
        fi
    done
    if grep -nE -- "$JWT" "$f" >"$OUT/hit.txt"; then
        echo "LEAK: a JWT in $f:"
        head -5 "$OUT/hit.txt"
        leaks=$((leaks + 1))
    fi
done
rm -f "$OUT/hit.txt"
lines=0
for f in "${LOGS[@]}"; do [ -f "$f" ] && lines=$((lines + $(wc -l <"$f"))); done
echo "secret scan: $scanned logs ($lines lines), ${#SECRETS[@]} secrets + JWTs: $leaks leaks, $missing logs missing"
if [ "${SECRET_SCAN_STRICT:-0}" = 1 ] && [ "$missing" -gt 0 ]; then
    exit 1
fi
[ "$leaks" = 0 ]
