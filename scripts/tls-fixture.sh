# Sourced by the binding test scripts: a test root CA and a leaf for
# 127.0.0.1/localhost made now with openssl (keys stay in target/, never
# committed), the emulator binary serving HTTPS with the leaf, and a CONNECT
# proxy with Basic credentials (tests/tools/connect_proxy.py).
#
#   tls_fixture_start DIR PROXY_USER PROXY_PASSWORD
#     exports IIKO_TLS_BASE_URL, IIKO_TLS_CA_FILE, IIKO_TLS_PROXY_URL (with
#     the credentials), IIKO_TLS_PROXY_PASSWORD, IIKO_TLS_PROXY_LOG (one line per tunnel or refusal)
#   tls_fixture_stop
# Needs openssl, python3 and target/debug/iikocloud-emulator.

TLS_FIXTURE_PIDS=()

tls_fixture_stop() {
    local pid
    for pid in "${TLS_FIXTURE_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    TLS_FIXTURE_PIDS=()
}

# Waits for "listening on ..." in a log and prints the rest of that line.
tls_fixture_wait() {
    local log=$1
    for _ in $(seq 600); do
        if grep -q 'listening on ' "$log"; then
            sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$log" | head -1
            return 0
        fi
        sleep 0.05
    done
    cat "$log" >&2
    return 1
}

tls_fixture_start() {
    local dir=$1 user=$2 password=$3
    local root
    root=$(git rev-parse --show-toplevel)
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj "/CN=iikocloud test root" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
        2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
        -keyout "$dir/leaf.key" -out "$dir/leaf.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
        >"$dir/leaf.ext"
    openssl x509 -req -in "$dir/leaf.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
        -CAcreateserial -days 2 -extfile "$dir/leaf.ext" -out "$dir/leaf.pem" 2>/dev/null
    chmod 600 "$dir/ca.key" "$dir/leaf.key"

    # Emptied before the start: a log of an earlier run in DIR would name a
    # closed port to tls_fixture_wait before the child truncates it.
    : >"$dir/emulator.log"
    : >"$dir/proxy.log"
    "$root/target/debug/iikocloud-emulator" --port 0 --tls-cert "$dir/leaf.pem" \
        --tls-key "$dir/leaf.key" >"$dir/emulator.log" 2>&1 &
    TLS_FIXTURE_PIDS+=($!)
    IIKO_TLS_BASE_URL=$(tls_fixture_wait "$dir/emulator.log")
    case "$IIKO_TLS_BASE_URL" in
        https://*) ;;
        *) echo "the TLS emulator did not start" >&2; return 1 ;;
    esac

    IIKO_TEST_PROXY_PASSWORD=$password python3 "$root/tests/tools/connect_proxy.py" "$user" \
        >"$dir/proxy.log" 2>&1 &
    TLS_FIXTURE_PIDS+=($!)
    local proxy_addr
    proxy_addr=$(tls_fixture_wait "$dir/proxy.log")
    export IIKO_TLS_BASE_URL
    export IIKO_TLS_CA_FILE=$dir/ca.pem
    export IIKO_TLS_PROXY_URL="http://$user:$password@$proxy_addr"
    export IIKO_TLS_PROXY_PASSWORD=$password
    export IIKO_TLS_PROXY_LOG=$dir/proxy.log
}
