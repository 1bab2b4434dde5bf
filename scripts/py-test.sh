#!/usr/bin/env bash
# The Python package: builds the wheel of bindings/python, installs it into
# .venv (created if missing), checks the .pyi stubs against the module
# (mypy.stubtest, mypy --strict) and runs pytest on the installed wheel: the
# package tests and the framework examples. Safe to run again.
#
#   PY_PROFILE=release ./scripts/py-test.sh   # test an optimized build
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
VENV=.venv
PY=${PYTHON:-python3}
PROFILE=${PY_PROFILE:-debug}
WHEELS=target/py-wheels

if [ ! -x "$VENV/bin/python" ]; then
    step "creating $VENV"
    if ! "$PY" -m venv "$VENV" 2>/dev/null; then
        # Debian ships venv separately.
        rm -rf "$VENV"
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        "$PY" -m venv "$VENV"
    fi
fi

# The network tests make a test CA with the openssl command.
if ! command -v openssl >/dev/null 2>&1; then
    step "installing openssl"
    apt-get update -qq && apt-get install -y -qq openssl >/dev/null
fi

step "python tools (maturin, pytest, mypy, flask, fastapi, httpx)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.9.4,<2" "pytest>=7" "mypy>=1.8" flask fastapi httpx "iikocloudapi==1.0.0"

step "building the wheel ($PROFILE)"
rm -rf "$WHEELS"
flags=()
[ "$PROFILE" = release ] && flags+=(--release)
"$VENV/bin/maturin" build -q "${flags[@]}" -m bindings/python/Cargo.toml --out "$WHEELS" \
    --interpreter "$VENV/bin/python"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$WHEELS"/iikocloud-*.whl

# Run from outside the source tree, so the installed wheel is what is tested.
cd target
../"$VENV"/bin/python -c 'import iikocloud, sys; print("testing", iikocloud.__file__, iikocloud.__version__); sys.exit("site-packages" not in iikocloud.__file__)'

step "stubs: mypy.stubtest and mypy --strict"
../"$VENV"/bin/python -m mypy.stubtest iikocloud
../"$VENV"/bin/python -m mypy --strict --no-incremental -p iikocloud

step "pytest (package tests and examples)"
../"$VENV"/bin/python -m pytest -q -p no:cacheprovider \
    ../bindings/python/tests ../examples/python
