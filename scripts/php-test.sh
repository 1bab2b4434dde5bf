#!/usr/bin/env bash
# The PHP binding (bindings/php, examples/php), run by scripts/test.sh (or
# alone: ./scripts/php-test.sh). Safe to run again.
#
#  1. installs php-cli, phpunit, php-phpstan-phpdoc-parser and php-psr-log with apt-get
#     when missing (Debian's php-cli includes FFI);
#  2. checks every PHPDoc type of bindings/php/src and examples/php with
#     PHPStan's own PHPDoc parser (scripts/phpdoc-check.php: each type parses,
#     each name is a type, an alias in scope or a class; PHPStan itself is
#     not run, see bindings/php/README.md);
#  3. builds libiikocloud (package iikocloud-c) and the emulator (a no-op
#     when they are up to date);
#  4. starts the emulator on a free port, stopped again on exit;
#  5. runs PHPUnit with -d ffi.enable=1 on bindings/php/tests: every Client
#     method and error, the shared webhook vectors, the library loader and the
#     preload files, leaks, 8 processes sharing one token, and examples/php
#     (receiver.php and organizations.php under php -S). PHP-FPM behind nginx
#     is scripts/php-fpm-test.sh;
#  6. runs bindings/php/bench/webhooks.php with one call per measurement.
#
#   PHP_PROFILE=release ./scripts/php-test.sh   # test an optimized library
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PROFILE=${PHP_PROFILE:-debug}
OUT=$ROOT/target/php-test
mkdir -p "$OUT"

step() { printf '\n==> [php %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

# ---- 1. tools ----
missing=()
command -v php >/dev/null 2>&1 || missing+=(php-cli)
command -v phpunit >/dev/null 2>&1 || missing+=(phpunit)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# PHPStan's PHPDoc parser, for the PHPDoc check (PHPStan itself has no Debian package).
[ -f /usr/share/php/PHPStan/PhpDocParser/autoload.php ] || missing+=(php-phpstan-phpdoc-parser)
# PSR-3's LoggerInterface, for the telemetry tests (a client's `logger`).
[ -f /usr/share/php/Psr/Log/autoload.php ] || missing+=(php-psr-log)
if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! php -m | grep -ix ffi >/dev/null; then
    echo "this php has no FFI extension (php -m); Debian's php-cli includes it" >&2
    exit 1
fi
echo "$(php -r 'echo "PHP ", PHP_VERSION;'), $(phpunit --version | head -1)"

# ---- 2. PHPDoc ----
step "PHPDoc types of bindings/php/src and examples/php (PHPStan's parser)"
# psr/log: the telemetry's PHPDoc names its LoggerInterface.
php scripts/phpdoc-check.php --autoload bindings/php/autoload.php \
    --autoload /usr/share/php/Psr/Log/autoload.php bindings/php/src examples/php

# ---- 3. build ----
step "building libiikocloud ($PROFILE) and the emulator"
# With the test hooks; see scripts/workspace-features.sh.
# shellcheck source=scripts/workspace-features.sh
source scripts/workspace-features.sh
build_library_and_emulator "$PROFILE"
export IIKOCLOUD_LIB=$ROOT/target/$PROFILE/libiikocloud.so

# ---- 4. emulator ----
# shellcheck source=scripts/emulator-env.sh
. "$ROOT/scripts/emulator-env.sh"
trap stop_emulator EXIT
start_emulator
# The same emulator over HTTPS with a test root, and a CONNECT proxy
# (tests/NetworkTest.php).
# shellcheck source=scripts/tls-fixture.sh
. scripts/tls-fixture.sh
tls_fixture_start "$OUT/tls" till php-proxy-pw-9b3f
trap 'tls_fixture_stop; stop_emulator' EXIT

# ---- 5. PHPUnit ----
step "phpunit (bindings/php/tests) against $IIKO_BASE_URL"
# The panic-boundary test panics on purpose; keep its report to one line.
export RUST_BACKTRACE=0
php -d ffi.enable=1 "$(command -v phpunit)" -c bindings/php/phpunit.xml.dist

# ---- 6. the benchmark, each measurement made once ----
# Not a test, but a change that breaks it should fail here, not in the next
# report (bench-report.sh).
step "bindings/php/bench/webhooks.php, each measurement made once (PHP_BENCH_SMOKE=1)"
PHP_BENCH_SMOKE=1 php -d ffi.enable=1 bindings/php/bench/webhooks.php >/dev/null
