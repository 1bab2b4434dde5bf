#!/usr/bin/env bash
# Build budgets of a checkout (issue: every operation typed): a clean release
# build of the workspace, timed (wall and CPU), and the size of the stripped
# C library. Prints a Markdown table row. Not part of the test command
# (minutes of CPU); run it on an otherwise idle machine.
#
#   ./scripts/budgets.sh [LABEL]        # this checkout, in a fresh target dir
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:-$(git rev-parse --short HEAD)}
target=$(mktemp -d)
trap 'rm -rf "$target"' EXIT
TIMEFORMAT='%R %U %S'
times=$( { time CARGO_TARGET_DIR=$target cargo build --release --workspace --locked --quiet >/dev/null 2>&1; } 2>&1 )
read -r wall user sys <<<"$times"
cp "$target/release/libiikocloud.so" "$target/lib.so"
strip "$target/lib.so"
size=$(stat -c %s "$target/lib.so")
printf '| %s | %.0f s | %.0f s | %.2f MiB |\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" \
    "$(echo "$size / 1048576" | bc -l)"
