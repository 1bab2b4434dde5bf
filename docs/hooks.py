"""MkDocs hook of the documentation site (mkdocs.yml, scripts/docs.sh).

Pages reuse the repository's text instead of copying it, with two line
directives, both resolved against the repository root:

    !include README.md "## Configuration"   the section under that heading (to the
                                            next heading of the same or a higher
                                            level), or a whole file without a heading
    !code examples/c/example_client.c       a file as a fenced code block
    !cheader include/iikocloud.h            the header rendered: each documented
                                            constant, type and function with its comment

The code shown is the code the test command compiles and runs (examples/,
the README samples checked by scripts/readme-samples.sh), so no sample on the
site is untested. Relative links in included text are rewritten from the
included file's directory: to the site page that includes that file when there
is one, else to the file in the repository (which must exist: a missing
target fails the build, as --strict does for links between pages).
"""
from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVE = re.compile(r'^!(include|code|cheader) (\S+)(?: "([^"]+)")?[ \t]*$', re.M)
DOC_DECL = re.compile(r"/\*\*(.*?)\*/\s*\n(.*?)(?=\n\s*\n|\n/\*\*|\Z)", re.S)
# Images too: the charts of BENCHMARKS.md live in docs/site/img/.
LINK = re.compile(r'\[([^\]]*)\]\(([^)\s]+)\)')
LANGS = {".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".py": "python", ".pyi": "python",
         ".php": "php", ".rs": "rust", ".sh": "sh", ".toml": "toml", ".json": "json",
         ".txt": "cmake", ".cmake": "cmake", ".yml": "yaml"}

# Repository files that are site pages of their own: links to them go there.
PAGES = {
    "README.md": "index.md",
    "bindings/c/README.md": "reference/c.md",
    "bindings/python/README.md": "start/python.md",
    "bindings/php/README.md": "start/php.md",
    "cli/README.md": "start/cli.md",
    "emulator/README.md": "emulator.md",
    "docs/reliability.md": "reliability.md",
    "CHANGELOG.md": "install.md",
    "BENCHMARKS.md": "benchmarks.md",
}


def _repo_file(rel: str, page: str) -> Path:
    path = (ROOT / rel).resolve()
    if ROOT not in path.parents or not path.is_file():
        raise PluginError(f"{page}: {rel} is not a file of the repository")
    return path


def _section(text: str, heading: str, rel: str, page: str) -> str:
    lines = text.splitlines()
    level = len(heading) - len(heading.lstrip("#"))
    in_fence = False
    start = end = None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_fence = not in_fence
        if in_fence:
            continue
        if start is None and line.strip() == heading:
            start = i + 1
        elif start is not None and re.match(r"#{1,%d} " % level, line):
            end = i
            break
    if start is None:
        raise PluginError(f'{page}: no heading "{heading}" in {rel}')
    return "\n".join(lines[start:end]).strip("\n")


def _rewrite_links(text: str, rel: str, page: str) -> str:
    """Links of an included file, made right for the page including it."""
    src_dir = posixpath.dirname(rel)
    page_dir = posixpath.dirname(page)

    def fix(m: re.Match[str]) -> str:
        label, target = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:|^#|^/", target):
            return m.group(0)
        path, _, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(src_dir, path))
        if repo_path.startswith("docs/site/"):
            new = posixpath.relpath(repo_path[len("docs/site/"):], page_dir or ".")
        elif repo_path in PAGES:
            new = posixpath.relpath(PAGES[repo_path], page_dir or ".")
        else:
            if not (ROOT / repo_path).exists():
                raise PluginError(f"{page}: the link {target} of {rel} points to a missing {repo_path}")
            new = f"{REPO_URL}/{repo_path}"
        return f"[{label}]({new}{'#' + anchor if anchor else ''})"

    return LINK.sub(fix, text)


REPO_URL = ""


def _comment(raw: str) -> str:
    lines = [re.sub(r"^\s*\* ?", "", line) for line in raw.strip("\n").splitlines()]
    text = "\n".join(lines).strip()
    # rustdoc-style "# Safety" inside a comment: a paragraph title here.
    return re.sub(r"^# (\w+)$", r"**\1.**", text, flags=re.M)


def _render_header(text: str) -> str:
    constants, others = [], []
    for m in DOC_DECL.finditer(text):
        doc, decl = _comment(m.group(1)), m.group(2).strip()
        define = re.match(r"#define (\w+) (.+)", decl)
        if define:
            first = doc.split("\n\n")[0].replace("\n", " ").replace("|", "\\|")
            constants.append(f"| `{define.group(1)}` | `{define.group(2).strip()}` | {first} |")
            continue
        name = re.search(r"(iiko_\w+)\s*(?:\(|;|\{|$)", decl) or re.search(r"(\w+)\s*;?\s*$", decl)
        title = name.group(1) if name else decl.split()[0]
        others.append(f"### `{title}`\n\n```c\n{decl}\n```\n\n{doc}\n")
    if not others:
        raise PluginError("no documented declaration found in the header")
    table = "| name | value | meaning |\n|---|---|---|\n" + "\n".join(constants)
    return "## Types and functions\n\n" + "\n".join(others) + "\n## Constants\n\n" + table


def on_config(config, **kwargs):
    global REPO_URL
    REPO_URL = (config.get("repo_url") or "").rstrip("/") + "/blob/main"
    return config


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    name = page.file.src_uri

    def expand(m: re.Match[str]) -> str:
        kind, rel, heading = m.group(1), m.group(2), m.group(3)
        text = _repo_file(rel, name).read_text()
        if kind == "cheader":
            return _render_header(text)
        if kind == "code":
            lang = LANGS.get(os.path.splitext(rel)[1], "")
            fence = "````" if "```" in text else "```"
            return f"`{rel}`:\n\n{fence}{lang}\n{text.rstrip()}\n{fence}"
        body = _section(text, heading, rel, name) if heading else text
        return _rewrite_links(body, rel, name)

    return DIRECTIVE.sub(expand, markdown)
