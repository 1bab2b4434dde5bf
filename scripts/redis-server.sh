#!/usr/bin/env bash
# Sourced by scripts/test.sh: installs redis-server if missing, starts one on
# a free loopback port with a temporary directory (append-only file, fsync on
# every write) and exports IIKO_TEST_REDIS_URL for the tests. The server
# stops when the sourcing shell exits.

if ! command -v redis-server >/dev/null 2>&1; then
    echo "installing redis-server"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi

IIKO_REDIS_DIR="$(mktemp -d -t iiko-redis.XXXXXX)"
IIKO_REDIS_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$IIKO_REDIS_PORT" --bind 127.0.0.1 --dir "$IIKO_REDIS_DIR" \
    --appendonly yes --appendfsync always --save "" \
    --daemonize yes --pidfile "$IIKO_REDIS_DIR/redis.pid" --logfile "$IIKO_REDIS_DIR/redis.log"
for _ in $(seq 100); do
    redis-cli -p "$IIKO_REDIS_PORT" ping >/dev/null 2>&1 && break
    sleep 0.1
done
redis-cli -p "$IIKO_REDIS_PORT" ping >/dev/null || { echo "redis-server did not start" >&2; cat "$IIKO_REDIS_DIR/redis.log" >&2; exit 1; }
export IIKO_TEST_REDIS_URL="redis://127.0.0.1:$IIKO_REDIS_PORT/0"
iiko_stop_redis() {
    if [ -f "$IIKO_REDIS_DIR/redis.pid" ]; then kill "$(cat "$IIKO_REDIS_DIR/redis.pid")" 2>/dev/null || true; fi
    sleep 0.2
    rm -rf "$IIKO_REDIS_DIR"
}
trap iiko_stop_redis EXIT
echo "redis-server on $IIKO_TEST_REDIS_URL"
