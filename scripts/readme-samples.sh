#!/usr/bin/env bash
# Checks the README's C, C++, Python and PHP samples (the Rust ones are
# doctests): C and C++ are compiled against the real headers with warnings as
# errors, Python is type-checked with mypy --strict against the installed
# package's stubs, PHP is linted with php -l. Run after the Python and C
# sections of scripts/test.sh (it uses their venv).
set -euo pipefail
cd "$(dirname "$0")/.."

out=target/readme-samples
rm -rf "$out" && mkdir -p "$out"

# Writes each fenced block of the given language to $out/<n>.<ext>.
python3 - "$out" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
text = pathlib.Path("README.md").read_text()
exts = {"c": "c", "cpp": "cpp", "python": "py", "php": "php"}
count = {}
for lang, body in re.findall(r"^```(\w+)[^\n]*\n(.*?)^```", text, re.S | re.M):
    if lang in exts:
        count[lang] = count.get(lang, 0) + 1
        (out / f"sample{count[lang]}.{exts[lang]}").write_text(body)
print("README samples:", ", ".join(f"{n} {l}" for l, n in sorted(count.items())))
PY

checked=0
failed=0
check() {
    local what=$1; shift
    if "$@" >"$out/log" 2>&1; then
        checked=$((checked + 1))
    else
        failed=$((failed + 1))
        echo "README sample failed: $what" >&2
        cat "$out/log" >&2
    fi
}

for f in "$out"/*.c; do
    [ -e "$f" ] || continue
    check "$f" cc -std=c11 -Wall -Wextra -Werror -Iinclude -c "$f" -o "$f.o"
done
for f in "$out"/*.cpp; do
    [ -e "$f" ] || continue
    check "$f" c++ -std=c++17 -Wall -Wextra -Werror -Iinclude -c "$f" -o "$f.o"
done
if ls "$out"/*.py >/dev/null 2>&1; then
    py=.venv/bin/python
    if [ ! -x "$py" ]; then
        echo "no .venv: run scripts/py-test.sh first" >&2
        exit 1
    fi
    for f in "$out"/*.py; do
        check "$f" "$py" -m mypy --strict --no-incremental "$f"
    done
fi
if ls "$out"/*.php >/dev/null 2>&1; then
    if command -v php >/dev/null 2>&1; then
        for f in "$out"/*.php; do
            check "$f" php -l "$f"
        done
    else
        echo "php not installed: PHP samples not linted" >&2
        failed=$((failed + 1))
    fi
fi
echo "readme-samples: $checked passed, $failed failed"
[ "$failed" -eq 0 ]
