#!/usr/bin/env python3
"""Writes the licenses of the crates compiled into a shipped artifact.

    scripts/third-party-licenses.py [--target=TRIPLE] PACKAGE [PACKAGE...] > THIRD-PARTY-LICENSES.txt

Walks `cargo metadata` from the named workspace packages along normal
dependencies for the target (x86_64 Linux unless --target names another:
Windows builds compile other crates in) (build scripts and proc macros run at build
time and are not shipped), and prints each crate's name, version, license
expression and the text of its LICENSE*/COPYING*/NOTICE* files (a text
seen before is named, not repeated). Fails when a
crate declares no license, so nothing unlicensed ships unnoticed.
"""
import json
import pathlib
import subprocess
import sys


def main() -> int:
    roots = sys.argv[1:]
    target = "x86_64-unknown-linux-gnu"
    if roots and roots[0].startswith("--target="):
        target = roots.pop(0).split("=", 1)[1]
    if not roots:
        print(__doc__, file=sys.stderr)
        return 2
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked",
         "--filter-platform", target],
        check=True, capture_output=True, text=True).stdout)
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    workspace = set(meta["workspace_members"])
    by_name = {packages[i]["name"]: i for i in workspace}
    missing = [r for r in roots if r not in by_name]
    if missing:
        print(f"not workspace packages: {missing}", file=sys.stderr)
        return 2
    seen, todo = set(), [by_name[r] for r in roots]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        if any("proc-macro" in t["kind"] for t in packages[pid]["targets"]):
            continue  # runs in the compiler, is not shipped
        seen.add(pid)
        for dep in nodes[pid]["deps"]:
            if any(k["kind"] is None for k in dep["dep_kinds"]):
                todo.append(dep["pkg"])
    shipped = sorted((packages[i] for i in seen if i not in workspace),
                     key=lambda p: (p["name"], p["version"]))
    out = [f"Third-party crates compiled into {', '.join(roots)}: {len(shipped)}.", ""]
    unlicensed = []
    for p in shipped:
        lic = p.get("license") or (f"see {p['license_file']}" if p.get("license_file") else None)
        if lic is None:
            unlicensed.append(p["name"])
        out.append(f"{p['name']} {p['version']}: {lic}")
    out.append("")
    texts = {}  # license text -> the first crate that printed it
    for p in shipped:
        root = pathlib.Path(p["manifest_path"]).parent
        files = sorted(f for f in root.iterdir() if f.is_file() and f.name.upper().startswith(("LICENSE", "LICENCE", "COPYING", "NOTICE")))
        out.append("=" * 78)
        out.append(f"{p['name']} {p['version']} ({p.get('license')})")
        for f in files:
            out.append("-" * 78)
            text = f.read_text(errors="replace").rstrip()
            first = texts.setdefault(text, f"{p['name']} {p['version']} {f.name}")
            if first.startswith(f"{p['name']} {p['version']} "):
                out.append(f"{f.name}:")
                out.append(text)
            else:
                out.append(f"{f.name}: the same text as {first}")
        if not files:
            out.append("(no license file in the crate; its license expression is above)")
    if unlicensed:
        print(f"crates without a license: {unlicensed}", file=sys.stderr)
        return 1
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
