#!/usr/bin/env bash
# The PHP package as PHP shops deploy it: PHP-FPM behind nginx, under PHP-FPM's
# default ffi.enable=preload (issue 18). Run by scripts/test.sh after
# scripts/php-test.sh, or alone: ./scripts/php-fpm-test.sh. Safe to run again.
#
#  1. installs php-fpm, nginx and curl (Debian packages) when missing;
#  2. builds libiikocloud (PHP_PROFILE, as php-test.sh) and the emulator;
#  3. lays out a deployed site in a temporary directory (the package and
#     examples/php copied, the library in PREFIX/lib and PREFIX/include), runs
#     the package's bin/iikocloud-preload as bindings/php/README.md says, and
#     starts its own processes on loopback: the emulator (8 organizations),
#     three PHP-FPM masters with their own pool files and conf.d (the written
#     ini; the same without its opcache.preload line; ffi.enable=1 alone) and
#     an nginx in front of them, all stopped again on exit;
#  4. checks: the client page (examples/php/organizations.php) answers 200 to
#     400 requests from 8 clients with one token request across 5 workers;
#     ffi.enable=1 works too; a missing opcache.preload line answers 500 with
#     the line in the body and the log; the emulator delivers events of 8
#     organizations at once to examples/php/receiver.php behind nginx while
#     the page is under load, all delivered at the first attempt, none
#     blocked; after the library is replaced, rewriting the preload files and
#     reloading PHP-FPM binds the new file; no secret in any log or answer.
#
# Logs of the last run are kept in target/php-fpm-test.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PROFILE=${PHP_PROFILE:-debug}
KEEP=$ROOT/target/php-fpm-test
REQUESTS=400      # client page requests of the main load
CONCURRENCY=8     # clients at once
WORKERS=5         # PHP-FPM workers of the main pool
ORGS=8            # organizations delivering webhooks at once
EVENTS_PER_ORG=12
WEBHOOK_TOKEN=fpm-test-webhook-token-$RANDOM$RANDOM

step() { printf '\n==> [php-fpm %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# ---- 1. tools ----
missing=()
command -v php >/dev/null 2>&1 || missing+=(php-cli)
PHPV=""
if command -v php >/dev/null 2>&1; then
    PHPV=$(php -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')
    # The FPM of the CLI's version: the preload files are written by the CLI.
    command -v "php-fpm$PHPV" >/dev/null 2>&1 || [ -x "/usr/sbin/php-fpm$PHPV" ] || missing+=("php$PHPV-fpm")
else
    missing+=(php-fpm)
fi
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    # nginx would start on 0.0.0.0:80; these tests start their own.
    source scripts/apt-install.sh
    apt_install_without_services "${missing[@]}"
    PHPV=$(php -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;')
fi
FPM=$(command -v "php-fpm$PHPV" || echo "/usr/sbin/php-fpm$PHPV")
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
modules=$("$FPM" -m)
for ext in ffi 'zend opcache'; do
    if ! grep -qix "$ext" <<<"$modules"; then
        echo "$FPM has no $ext extension ($FPM -m); Debian's php-fpm includes it" >&2
        exit 1
    fi
done
echo "$("$FPM" -v | head -1), $("$NGINX" -v 2>&1)"

# ---- 2. build ----
step "building libiikocloud ($PROFILE) and the emulator"
# As php-test.sh builds them (scripts/workspace-features.sh).
# shellcheck source=scripts/workspace-features.sh
source scripts/workspace-features.sh
build_library_and_emulator "$PROFILE"

# ---- 3. the site and its processes ----
started=$(date +%s.%N)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/iikocloud-fpm.XXXXXX")
chmod 755 "$TMP" # the workers' user reads the site from here
OUT=$TMP/out
mkdir -p "$OUT"
PIDS=()
cleanup() {
    local status=$? pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$KEEP"
    mkdir -p "$KEEP"
    # Logs and answers only: the pool files and fixtures hold the credentials.
    (cd "$TMP" && find . \( -name '*.log' -o -path './out/*' -o -name '*.ini' \) -type f -print0 |
        xargs -0 -r cp --parents -t "$KEEP") 2>/dev/null || true
    rm -rf "$TMP"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM # through cleanup, so nothing started here outlives the script

if [ "$(id -u)" = 0 ]; then
    # As Debian's service runs it: a root master, workers as www-data.
    RUN_USER=www-data
    id -u "$RUN_USER" >/dev/null
else
    RUN_USER=$(id -un)
fi

# A deployed site: the package and the examples keep their relative paths.
APP=$TMP/app
PREFIX=$TMP/prefix
mkdir -p "$APP/bindings/php" "$APP/examples/php" "$PREFIX/lib" "$PREFIX/include" "$TMP/token"
cp -r bindings/php/autoload.php bindings/php/preload.php bindings/php/bin bindings/php/src "$APP/bindings/php/"
cp examples/php/organizations.php examples/php/receiver.php "$APP/examples/php/"
cp "target/$PROFILE/libiikocloud.so" "$PREFIX/lib/libiikocloud.so"
cp include/iikocloud.h "$PREFIX/include/"
chmod -R a+rX "$APP" "$PREFIX"
chmod 700 "$TMP/token"
[ "$(id -u)" = 0 ] && chown "$RUN_USER" "$TMP/token"

# The emulator, with ORGS organizations under the default credentials.
php -r '
    $orgs = [];
    for ($i = 1; $i <= (int) $argv[1]; $i++) {
        $orgs[] = ["id" => sprintf("00000000-0000-4000-8000-%012d", $i), "name" => "FPM Test $i", "code" => "FPM-$i",
            "disabled" => false, "externalData" => null,
            "terminalGroups" => [["id" => sprintf("00000000-0000-4000-9000-%012d", $i), "name" => "Kitchen $i", "stopList" => []]]];
    }
    echo json_encode(["apps" => [["appId" => "emulator-app", "clientSecret" => "emulator-secret"]],
        "apiKeys" => [["apiKey" => "emulator-api-key", "name" => "emulator-api-login", "organizationIds" => array_column($orgs, "id")]],
        "organizations" => $orgs], JSON_PRETTY_PRINT);
' "$ORGS" >"$TMP/fixtures.json"
"$ROOT/target/debug/iikocloud-emulator" --port 0 --fixtures "$TMP/fixtures.json" >"$TMP/emulator.log" 2>&1 &
PIDS+=($!)

# The README's deploy step: the package writes the FFI header and the ini.
step "bin/iikocloud-preload $TMP/etc --user=$RUN_USER"
php "$APP/bindings/php/bin/iikocloud-preload" "$TMP/etc" --user="$RUN_USER" --library="$PREFIX/lib/libiikocloud.so" \
    | tee "$OUT/preload.txt"
INI=$TMP/etc/iikocloud.ini

for _ in $(seq 600); do # up to 30 s on a loaded machine
    grep -q 'listening on http://' "$TMP/emulator.log" && break
    sleep 0.05
done
EMU=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$TMP/emulator.log" | head -1)
if [ -z "$EMU" ]; then
    cat "$TMP/emulator.log" >&2
    echo "the emulator did not start" >&2
    exit 1
fi

# One PHP-FPM master: its own pool file, logs and socket, the Debian
# php.ini, and conf.d = Debian's plus its own (as a conf.d link would add).
#   start_fpm NAME WORKERS INI-FILE [EXTRA-POOL-LINE...]
start_fpm() {
    local name=$1 workers=$2 ini=$3 dir=$TMP/fpm-$1 user_lines="" line
    shift 3
    mkdir -p "$dir/conf.d"
    ln -s "$ini" "$dir/conf.d/50-iikocloud.ini"
    if [ "$(id -u)" = 0 ]; then
        user_lines="user = $RUN_USER
group = $RUN_USER
listen.owner = $RUN_USER
listen.group = $RUN_USER"
    fi
    cat >"$dir/fpm.conf" <<EOF
[global]
pid = $dir/fpm.pid
error_log = $dir/fpm.log
log_limit = 8192
daemonize = no

[$name]
$user_lines
listen = $dir/fpm.sock
listen.mode = 0660
pm = static
pm.max_children = $workers
catch_workers_output = yes
decorate_workers_output = no
access.log = $dir/access.log
access.format = "%p %s %{mili}d %r"
env[IIKO_APP_ID] = emulator-app
env[IIKO_CLIENT_SECRET] = emulator-secret
env[IIKO_API_KEY] = emulator-api-key
env[IIKO_BASE_URL] = $EMU
env[IIKO_TOKEN_DIR] = $TMP/token
env[IIKO_WEBHOOK_TOKEN] = $WEBHOOK_TOKEN
EOF
    for line in "$@"; do echo "$line" >>"$dir/fpm.conf"; done
    chmod 600 "$dir/fpm.conf"
    PHP_INI_SCAN_DIR=":$dir/conf.d" "$FPM" -y "$dir/fpm.conf" -p "$dir" -F >"$dir/stdout.log" 2>&1 &
    PIDS+=($!)
    eval "FPM_PID_$name=\$!"
}
grep -v '^opcache\.preload=' "$INI" >"$TMP/etc/no-opcache-preload.ini"
echo 'ffi.enable=1' >"$TMP/etc/ffi-enable.ini"
start_fpm main "$WORKERS" "$INI"
start_fpm nopreload 1 "$TMP/etc/no-opcache-preload.ini"
start_fpm ffi1 2 "$TMP/etc/ffi-enable.ini" "env[IIKOCLOUD_LIB] = $PREFIX/lib/libiikocloud.so"

PORT=$(php -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo parse_url("tcp://" . stream_socket_get_name($s, false), PHP_URL_PORT);')
mkdir -p "$TMP/nginx/tmp"
nginx_user=""
[ "$(id -u)" = 0 ] && nginx_user="user $RUN_USER $RUN_USER;"
fastcgi() { # fastcgi LOCATION POOL SCRIPT
    printf '        location = %s {\n            include /etc/nginx/fastcgi_params;\n' "$1"
    printf '            fastcgi_param SCRIPT_FILENAME %s;\n            fastcgi_pass unix:%s;\n        }\n' "$3" "$TMP/fpm-$2/fpm.sock"
}
cat >"$TMP/nginx/nginx.conf" <<EOF
$nginx_user
worker_processes 2;
daemon off;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 512; }
http {
    log_format timing '\$uri \$status \$request_time';
    access_log $TMP/nginx/access.log timing;
    client_body_temp_path $TMP/nginx/tmp/body;
    fastcgi_temp_path $TMP/nginx/tmp/fastcgi;
    proxy_temp_path $TMP/nginx/tmp/proxy;
    uwsgi_temp_path $TMP/nginx/tmp/uwsgi;
    scgi_temp_path $TMP/nginx/tmp/scgi;
    server {
        listen 127.0.0.1:$PORT;
        location = /health { return 200 "ok\n"; }
$(fastcgi /organizations main "$APP/examples/php/organizations.php")
$(fastcgi /webhook main "$APP/examples/php/receiver.php")
$(fastcgi /nopreload/organizations nopreload "$APP/examples/php/organizations.php")
$(fastcgi /ffi1/organizations ffi1 "$APP/examples/php/organizations.php")
        location / { return 404; }
    }
}
EOF
"$NGINX" -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" -e "$TMP/nginx/error.log" >"$TMP/nginx/stdout.log" 2>&1 &
PIDS+=($!)
SITE=http://127.0.0.1:$PORT

ready() {
    curl -fsS --max-time 2 "$SITE/health" >/dev/null 2>&1 || return 1
    local name
    for name in main nopreload ffi1; do
        grep -q 'ready to handle connections' "$TMP/fpm-$name/fpm.log" 2>/dev/null || return 1
    done
}
for _ in $(seq 200); do # up to 20 s
    ready && break
    sleep 0.1
done
if ! ready; then
    for f in "$TMP"/fpm-*/fpm.log "$TMP"/fpm-*/stdout.log "$TMP/nginx/error.log" "$TMP/nginx/stdout.log"; do
        echo "--- $f" >&2
        tail -20 "$f" >&2 || true
    done
    echo "PHP-FPM or nginx did not start" >&2
    exit 1
fi
echo "emulator $EMU, nginx $SITE, PHP-FPM pools main ($WORKERS workers), nopreload, ffi1; workers run as $RUN_USER"

# ---- 4. checks ----
passed=0
failed=0
check() { # check DESCRIPTION COMMAND...: one result line
    local what=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok   $what"
    else
        failed=$((failed + 1))
        echo "FAIL $what"
    fi
}
equals() { [ "$1" = "$2" ] || { echo "     expected '$2', got '$1'"; return 1; }; }
at_least() { [ "$1" -ge "$2" ] || { echo "     expected at least $2, got $1"; return 1; }; }
contains() { grep -qF -- "$2" "$1" || { echo "     $1 lacks: $2"; head -c 2000 "$1" | sed 's/^/     | /'; return 1; }; }
has_line() { grep -qxF -- "$2" "$1" || { echo "     $1 has no line: $2"; return 1; }; }
lacks() { ! grep -qF -- "$2" "$1" || { echo "     $1 has: $2"; return 1; }; }
emu_get() { curl -fsS --max-time 10 "$EMU$1"; }
emu_post() { curl -fsS --max-time 70 -H 'Content-Type: application/json' -d "$2" "$EMU$1"; }
requests_to() { emu_get "/_emulator/requests?path=$1" | php -r 'echo count(json_decode(stream_get_contents(STDIN), true));'; }
# load URL COUNT CONCURRENCY FILE: one line per request, "status seconds bytes"; bounded in count and time.
load() {
    seq "$2" | timeout 120 xargs -P "$3" -I{} \
        curl -sS -o /dev/null --max-time 10 -w '%{http_code} %{time_total} %{size_download}\n' "$1?n={}" >"$4" || true
}
# percentiles FILE COLUMN: "p50 p99 max" in milliseconds of a column of seconds
percentiles() {
    awk -v c="$2" '{print $c}' "$1" | sort -n |
        awk '{a[NR] = $1} END {if (NR == 0) {print "- - -"; exit} i = int((NR * 50 + 99) / 100); j = int((NR * 99 + 99) / 100); printf "%.1f %.1f %.1f\n", a[i] * 1000, a[j] * 1000, a[NR] * 1000}'
}
worker_pids() { # PIDs of a pool's workers that served something, from its access log
    awk '{print $1}' "$TMP/fpm-$1/access.log" | sort -u | wc -l
}

step "the preload files"
check "the ini has ffi.enable=preload" has_line "$INI" "ffi.enable=preload"
check "the ini names the header in ffi.preload" has_line "$INI" "ffi.preload=\"$TMP/etc/iikocloud-ffi.h\""
check "the ini names the package's preload.php in opcache.preload" has_line "$INI" "opcache.preload=\"$APP/bindings/php/preload.php\""
check "the ini names opcache.preload_user" has_line "$INI" "opcache.preload_user=$RUN_USER"
check "the header binds scope iikocloud to the library" \
    equals "$(head -2 "$TMP/etc/iikocloud-ffi.h" | tr '\n' ' ')" "#define FFI_SCOPE \"iikocloud\" #define FFI_LIB \"$PREFIX/lib/libiikocloud.so\" "

step "client page: $REQUESTS requests, $CONCURRENCY at once, $WORKERS workers, cold token cache"
# No warm-up: the first requests of every worker race for the first token.
load "$SITE/organizations" "$REQUESTS" "$CONCURRENCY" "$OUT/load.txt"
curl -sS --max-time 10 -o "$OUT/organizations.json" -w '%{http_code}' "$SITE/organizations" >"$OUT/organizations.status" || true
check "the page answers 200" equals "$(cat "$OUT/organizations.status")" 200
check "the page lists the $ORGS organizations" \
    equals "$(php -r 'echo count(json_decode((string) file_get_contents($argv[1]), true)["organizations"] ?? []);' "$OUT/organizations.json")" "$ORGS"
read -r p50 p99 pmax <<<"$(percentiles "$OUT/load.txt" 2)"
echo "     $(wc -l <"$OUT/load.txt") answers; latency p50 $p50 ms, p99 $p99 ms, max $pmax ms (curl, through nginx)"
check "every request answered 200" equals "$(awk '$1 == 200' "$OUT/load.txt" | wc -l)" "$REQUESTS"
check "every answer has the same size as the first" \
    equals "$(awk '{print $3}' "$OUT/load.txt" | sort -u | tr '\n' ' ')" "$(stat -c %s "$OUT/organizations.json") "
tokens=$(requests_to /api/v2/access_token)
check "one token request for $((REQUESTS + 1)) pages across the workers (token file cache)" equals "$tokens" 1
check "one /api/1/organizations call per page" equals "$(requests_to /api/1/organizations)" "$((REQUESTS + 1))"
workers=$(worker_pids main)
check "the load was served by several workers ($workers of $WORKERS)" at_least "$workers" 2
check "no PHP error or warning in the PHP-FPM log" lacks "$TMP/fpm-main/fpm.log" "PHP "

step "ffi.enable=1 without preloading"
load "$SITE/ffi1/organizations" 40 4 "$OUT/ffi1.txt"
check "40 requests answered 200" equals "$(awk '$1 == 200' "$OUT/ffi1.txt" | wc -l)" 40
check "still one token request (the same token file)" equals "$(requests_to /api/v2/access_token)" 1

step "ffi.enable=preload without the opcache.preload line"
missing_line="Missing php.ini line: opcache.preload=$APP/bindings/php/preload.php"
curl -sS --max-time 10 -o "$OUT/nopreload.txt" -w '%{http_code}' "$SITE/nopreload/organizations" >"$OUT/nopreload.status" || true
check "the page answers 500" equals "$(cat "$OUT/nopreload.status")" 500
check "the answer names the missing line" contains "$OUT/nopreload.txt" "$missing_line"
check "the answer says how to write it" contains "$OUT/nopreload.txt" "php $APP/bindings/php/bin/iikocloud-preload DIR writes every line needed"
check "the PHP-FPM log names the missing line" contains "$TMP/fpm-nopreload/fpm.log" "$missing_line"

step "webhooks: $ORGS organizations x $EVENTS_PER_ORG events at once, while the page takes 200 more requests"
# The README's quickstart points every organization's webhook at the receiver.
WEBHOOK_URL=$SITE/webhook WEBHOOK_TOKEN=$WEBHOOK_TOKEN IIKO_APP_ID=emulator-app IIKO_CLIENT_SECRET=emulator-secret \
    IIKO_API_KEY=emulator-api-key IIKO_BASE_URL=$EMU IIKOCLOUD_LIB=$PREFIX/lib/libiikocloud.so php -d ffi.enable=1 examples/php/quickstart.php >"$OUT/quickstart.txt" 2>&1 || true
check "quickstart.php set the webhook of every organization" \
    equals "$(grep -c "set to $SITE/webhook" "$OUT/quickstart.txt")" "$ORGS"
emu_post /_emulator/reset-deliveries '{}' >/dev/null
events_before=$(grep -c 'receiver: [A-Z]' "$TMP/fpm-main/fpm.log" || true)
php -r '
    $kinds = ["delivery-order", "stop-list-change", "delivery-error", "reserve-update", "table-order-update", "personal-shift"];
    for ($e = 0; $e < (int) $argv[2]; $e++) {
        for ($i = 1; $i <= (int) $argv[1]; $i++) {
            printf("%s %s\n", $kinds[$e % count($kinds)], sprintf("00000000-0000-4000-8000-%012d", $i));
        }
    }
' "$ORGS" "$EVENTS_PER_ORG" >"$TMP/triggers.txt"
total=$(wc -l <"$TMP/triggers.txt")
webhook_started=$(date +%s%N)
load "$SITE/organizations" 200 "$CONCURRENCY" "$OUT/load-during-webhooks.txt" &
page_load=$!
timeout 60 xargs -P "$ORGS" -L 1 sh -c 'curl -fsS --max-time 10 -o /dev/null -H "Content-Type: application/json" \
    -d "{\"organizationId\": \"$2\"}" "$0/_emulator/events/$1"' "$EMU" <"$TMP/triggers.txt" >"$OUT/triggers.txt" 2>&1 &&
    triggered=ok || triggered=failed
emu_post /_emulator/wait-deliveries "{\"count\": $total, \"timeoutMs\": 45000, \"outcome\": \"delivered\"}" >"$OUT/wait.json" || true
webhook_ms=$((($(date +%s%N) - webhook_started) / 1000000))
wait "$page_load" || true
check "the emulator accepted the $total triggers" equals "$triggered" ok
emu_get /_emulator/deliveries >"$OUT/deliveries.json"
emu_get /_emulator/webhooks >"$OUT/webhooks.json"
outcomes=$(php -r '
    $by = [];
    foreach (json_decode((string) file_get_contents($argv[1]), true) as $d) {
        $by[$d["outcome"]] = ($by[$d["outcome"]] ?? 0) + 1;
    }
    ksort($by);
    foreach ($by as $k => $n) { echo "$k=$n "; }
' "$OUT/deliveries.json")
echo "     deliveries in ${webhook_ms} ms: $outcomes"
check "all $total events delivered, at the first attempt (no failed, given up or dropped attempt)" equals "$outcomes" "delivered=$total "
check "every organization delivered" equals "$(php -r '
    echo count(array_unique(array_column(json_decode((string) file_get_contents($argv[1]), true), "organizationId")));
' "$OUT/deliveries.json")" "$ORGS"
check "no webhook blocked, no failure counted" equals "$(php -r '
    $bad = 0;
    foreach (json_decode((string) file_get_contents($argv[1]), true) as $w) {
        $bad += (!empty($w["blocked"]) || ($w["consecutiveFailures"] ?? 0) !== 0) ? 1 : 0;
    }
    echo $bad;
' "$OUT/webhooks.json")" 0
logged_events() { # receiver lines (one per event) written since the deliveries began
    echo $(($(grep -c 'receiver: [A-Z]' "$TMP/fpm-main/fpm.log" || true) - events_before))
}
for _ in $(seq 50); do # the receiver logs after its answer has gone
    [ "$(logged_events)" -ge "$total" ] && break
    sleep 0.1
done
check "the receiver logged the $total events" equals "$(logged_events)" "$total"
check "the receiver refused nothing" lacks "$TMP/fpm-main/fpm.log" "receiver: 40"
awk '$1 == "/webhook"' "$TMP/nginx/access.log" >"$OUT/webhook-times.txt"
read -r w50 w99 wmax <<<"$(percentiles "$OUT/webhook-times.txt" 3)"
echo "     receiver behind nginx: p50 $w50 ms, p99 $w99 ms, max $wmax ms (nginx request time)"
check "nginx answered the $total deliveries 200" equals "$(awk '$2 == 200' "$OUT/webhook-times.txt" | wc -l)" "$total"
read -r b50 b99 bmax <<<"$(percentiles "$OUT/load-during-webhooks.txt" 2)"
echo "     client page meanwhile: p50 $b50 ms, p99 $b99 ms, max $bmax ms"
check "the page answered its 200 requests 200 meanwhile" equals "$(awk '$1 == 200' "$OUT/load-during-webhooks.txt" | wc -l)" 200
curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H 'Authorization: not-the-token' -H 'Content-Type: application/json' \
    -d '[]' "$SITE/webhook" >"$OUT/wrong-token.status" || true
check "a delivery with the wrong token is refused (401)" equals "$(cat "$OUT/wrong-token.status")" 401

step "library upgrade: a new file, the preload files written again, PHP-FPM reloaded"
tokens_before=$(requests_to /api/v2/access_token)
# make install puts each version in a file of its own (libiikocloud.so.X.Y.Z).
cp "$PREFIX/lib/libiikocloud.so" "$PREFIX/lib/libiikocloud.so.upgraded"
php "$APP/bindings/php/bin/iikocloud-preload" "$TMP/etc" --user="$RUN_USER" --library="$PREFIX/lib/libiikocloud.so.upgraded" >"$OUT/preload-upgrade.txt"
kill -USR2 "$FPM_PID_main" # what systemctl reload php-fpm does
mapped_new() { # every worker of the main pool maps the upgraded file, none the old one
    local pids pid
    pids=$(grep -lx "PPid:[[:space:]]*$FPM_PID_main" /proc/[0-9]*/status 2>/dev/null | cut -d/ -f3)
    [ "$(echo "$pids" | grep -c .)" = "$WORKERS" ] || return 1
    for pid in $pids; do
        grep -q 'libiikocloud\.so\.upgraded' "/proc/$pid/maps" 2>/dev/null || return 1
        ! grep -q 'libiikocloud\.so$' "/proc/$pid/maps" 2>/dev/null || return 1
    done
}
for _ in $(seq 100); do # up to 10 s
    mapped_new && break
    sleep 0.1
done
check "after the reload every worker maps the new library file" mapped_new
load "$SITE/organizations" 20 4 "$OUT/after-reload.txt"
check "the page answers 200 after the reload" equals "$(awk '$1 == 200' "$OUT/after-reload.txt" | wc -l)" 20
check "the token file outlived the reload (no new token request)" equals "$(requests_to /api/v2/access_token)" "$tokens_before"

step "no secret in any log or answer"
token=$(php -r '
    foreach (glob($argv[1] . "/*.json") ?: [] as $f) { echo json_decode((string) file_get_contents($f), true)["token"] ?? ""; }
' "$TMP/token" 2>/dev/null || true)
check "the access token was read from the token file" at_least "${#token}" 20
scanned=$(find "$TMP" \( -name '*.log' -o -path "$OUT/*" \) -type f | sort)
leaks=""
for secret in emulator-secret emulator-api-key "$WEBHOOK_TOKEN" "$token"; do
    [ -n "$secret" ] || continue
    # shellcheck disable=SC2086
    if grep -lF -- "$secret" $scanned >/dev/null 2>&1; then leaks="$leaks $(grep -lF -- "$secret" $scanned | tr '\n' ' ')"; fi
done
check "no credential, token or webhook token in $(echo "$scanned" | wc -l) logs and answers" equals "$leaks" ""

elapsed=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
echo
echo "client page: $REQUESTS requests, $CONCURRENCY at once, $WORKERS workers: p50 $p50 ms, p99 $p99 ms; $tokens token request"
echo "webhooks: $total events from $ORGS organizations delivered in $webhook_ms ms (receiver p50 $w50 ms, p99 $w99 ms)"
echo "php-fpm suite: ${elapsed} s after the build"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
