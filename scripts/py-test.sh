#!/usr/bin/env bash
# The Python package: builds the wheel of bindings/python, installs it into
# .venv (created if missing), checks that the generated models and resource
# groups match spec/operations.json, checks the .pyi stubs against the module
# (mypy.stubtest, mypy --strict on the package, the examples and the
# operation tests) and runs pytest on the installed wheel: the package tests
# (the whole flow against the emulator) and the examples; then every
# benchmark with one call per measurement. Safe to run again.
#
#   PY_PROFILE=release ./scripts/py-test.sh   # test an optimized build
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> [py %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
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

step "python tools (maturin, pytest, mypy, flask, fastapi, httpx, opentelemetry-sdk)"
# opentelemetry-sdk and its Flask instrumentation: tests/test_telemetry.py
# (the package itself needs neither).
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.9.4,<2" "pytest>=7" "mypy>=1.8" flask fastapi httpx "iikocloudapi==1.0.0" \
    "opentelemetry-sdk>=1.20" opentelemetry-instrumentation-flask

step "generated Python (api_models, _ops, _groups) matches spec/operations.json"
# The same check covers the Rust output; it reuses the codegen build of test.sh.
cargo run -q --locked -p iikocloud-codegen -- --check

step "building the wheel ($PROFILE)"
rm -rf "$WHEELS"
flags=()
[ "$PROFILE" = release ] && flags+=(--release)
# test-hooks adds _native._panic_for_tests (the release wheel lacks it); only
# the Python crate depends on the feature, so it does not rebuild the others.
"$VENV/bin/maturin" build -q "${flags[@]}" --features test-hooks -m bindings/python/Cargo.toml --out "$WHEELS" \
    --interpreter "$VENV/bin/python"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$WHEELS"/iikocloud-*.whl

# Run from outside the source tree, so the installed wheel is what is tested.
cd target
../"$VENV"/bin/python -c 'import iikocloud, sys; print("testing", iikocloud.__file__, iikocloud.__version__); sys.exit("site-packages" not in iikocloud.__file__)'

step "stubs: mypy.stubtest and mypy --strict"
../"$VENV"/bin/python -m mypy.stubtest iikocloud
../"$VENV"/bin/python -m mypy --strict --no-incremental -p iikocloud
# The examples and the typed tests use the stubs as a user would.
../"$VENV"/bin/python -m mypy --strict --no-incremental ../examples/python \
    ../bindings/python/tests/test_operations.py

step "import time of the package (generated models load on first use)"
../"$VENV"/bin/python - <<'PY'
import subprocess, sys
def cost(code: str, module: str) -> float:
    """Best of three: cumulative ms of importing `module` (its own line)."""
    runs = []
    for _ in range(3):
        err = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                             capture_output=True, text=True, check=True).stderr
        line = next(l for l in err.splitlines() if l.split("|")[-1].strip() == module)
        runs.append(float(line.split("|")[1]) / 1000)
    return min(runs)
base = cost("import iikocloud", "iikocloud")
models = cost("import iikocloud, iikocloud.api_models", "iikocloud.api_models")
print(f"import iikocloud: {base:.1f} ms; iikocloud.api_models on first use: {models:.1f} ms more")
assert "iikocloud.api_models" not in subprocess.run(
    [sys.executable, "-c", "import iikocloud, sys; print(sorted(sys.modules))"],
    capture_output=True, text=True, check=True).stdout, "import iikocloud loaded the models"
PY

step "pytest (package tests and examples)"
../"$VENV"/bin/python -m pytest -q -p no:cacheprovider \
    ../bindings/python/tests ../examples/python

# The benchmarks are not tests, but one that a change broke should fail here,
# not in the next report (models.py did, unnoticed, from 0179cd0 on).
step "benchmarks, each measurement made once (scripts/py-bench.sh, PY_BENCH_SMOKE=1)"
PY_BENCH_SMOKE=1 PY_BENCH_VENV=$VENV ../scripts/py-bench.sh >/dev/null
