# Sourced by scripts/wine-test.sh and scripts/dist-test.sh: running the
# Windows x86_64 builds (x86_64-pc-windows-gnu) here, under Debian's wine.
#
#   wine_env_setup   installs what is missing (mingw-w64, wine, the Rust
#                    target), makes the wine prefix target/wine-prefix and, if
#                    this wine lacks bcryptprimitives.dll, puts the ProcessPrng
#                    stand-in of tests/wine/ into the prefix (test setup only:
#                    nothing built from it ships); starts a wineserver that
#                    stays up until wine_env_stop
#   wine_env_stop    stops that wineserver and every process of the prefix
#   winpath PATH     the path as a Windows program names it (Z:\...)
#
# Exports WINEPREFIX, WINEDEBUG, WINEDLLOVERRIDES, MINGW_CC, MINGW_CXX. Unsets
# SSL_CERT_FILE and SSL_CERT_DIR: wine hands the environment to Windows
# programs, and there they would replace the Windows certificate store.

WINE_ENV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

winpath() {
    local p
    p=$(realpath -m "$1")
    printf 'Z:%s\n' "${p//\//\\}"
}

wine_env_setup() {
    local missing=() sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    # The -posix compilers: MinGW's C++ threads (std::thread) and pthreads.
    command -v x86_64-w64-mingw32-gcc-posix >/dev/null || missing+=(mingw-w64)
    command -v wine >/dev/null || missing+=(wine wine64)
    command -v jq >/dev/null || missing+=(jq)
    if ((${#missing[@]})); then
        printf '\n==> [wine] installing %s\n' "${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            "${missing[@]}" >/dev/null
    fi
    if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
        printf '\n==> [wine] rustup target add x86_64-pc-windows-gnu\n'
        rustup target add x86_64-pc-windows-gnu
    fi
    export MINGW_CC=x86_64-w64-mingw32-gcc-posix MINGW_CXX=x86_64-w64-mingw32-g++-posix
    export WINEPREFIX=$WINE_ENV_ROOT/target/wine-prefix
    # No wine debug channels; no Mono or Gecko installer at prefix creation.
    export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    unset SSL_CERT_FILE SSL_CERT_DIR
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
        printf '\n==> [wine] creating the prefix %s\n' "$WINEPREFIX"
        mkdir -p "$WINEPREFIX"
        wineboot -i </dev/null >/dev/null 2>&1
        wineserver -w
    fi
    local sys32=$WINEPREFIX/drive_c/windows/system32
    # Wine 9 and later have the DLL; Wine 8 (Debian 12) does not.
    if ! find /usr/lib /usr/lib64 /opt -path '*wine*' -iname bcryptprimitives.dll 2>/dev/null | grep -q .; then
        if [ ! -f "$sys32/bcryptprimitives.dll" ] ||
            [ "$WINE_ENV_ROOT/tests/wine/bcryptprimitives.c" -nt "$sys32/bcryptprimitives.dll" ]; then
            printf '\n==> [wine] this wine lacks bcryptprimitives.dll: the test prefix gets the ProcessPrng stand-in (tests/wine/)\n'
            x86_64-w64-mingw32-gcc -O2 -s -shared -o "$sys32/bcryptprimitives.dll" \
                "$WINE_ENV_ROOT/tests/wine/bcryptprimitives.c" \
                "$WINE_ENV_ROOT/tests/wine/bcryptprimitives.def" -lbcrypt
        fi
    fi
    # One server for the whole run: each wine start then takes 0.2 s, not 1 s.
    # Detached from the caller's output, which may be a pipe (test.sh | tee).
    wineserver -p </dev/null >/dev/null 2>&1
    # Wine's own background processes (services.exe, winedevice.exe) start
    # with the first program; start them here, detached from any pipe of the
    # caller, which they would otherwise keep open for as long as they run.
    wine cmd /c exit </dev/null >/dev/null 2>&1
}

wine_env_stop() {
    wineserver -k 2>/dev/null || true
}
