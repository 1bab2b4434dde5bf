#!/usr/bin/env bash
# Builds the documentation site into target/docs-site (MkDocs, mkdocs.yml),
# run by scripts/test.sh. Safe to run again.
#
# The pages are docs/site/*.md; docs/hooks.py includes README sections and the
# examples the tests compile and run, and renders include/iikocloud.h. The
# rustdoc of the crates is built and copied in, so links to it are checked
# with the rest: the build is --strict, and any broken link, anchor or
# included file fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/target/docs-venv
SRC=$ROOT/target/docs-src

step() { printf '\n==> [docs %dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }

if [ ! -x "$VENV/bin/mkdocs" ]; then
    step "installing MkDocs into $VENV"
    python3 -m venv "$VENV" 2>/dev/null || {
        rm -rf "$VENV"
        apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
        python3 -m venv "$VENV"
    }
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "mkdocs>=1.6,<2"
fi

step "rustdoc (the workspace, no warnings)"
# The whole workspace, not only the crates the site links: this is the
# test command's rustdoc check too, and a build of some packages unifies
# other features, so it would document the core a second time (51 s).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --locked --no-deps --quiet
DOC=${CARGO_TARGET_DIR:-$ROOT/target}/doc

step "assembling the pages and the API reference"
rm -rf "$SRC"
mkdir -p "$SRC/api"
cp -R docs/site/. "$SRC/"
cp -R "$DOC" "$SRC/api/rust"

step "mkdocs build --strict"
"$VENV/bin/mkdocs" build --strict --quiet --clean
test -f target/docs-site/index.html
test -f target/docs-site/api/rust/iikocloud/index.html
echo "site: target/docs-site ($(find target/docs-site -name '*.html' | wc -l) HTML files, $(du -sh target/docs-site | cut -f1))"
