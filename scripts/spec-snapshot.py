#!/usr/bin/env python3
"""Derives spec/operations.json, the snapshot the code generator (codegen/)
reads: facts from iiko's OpenAPI documents, and our own one-line summary of
each operation from spec/operation-summaries.json.

    scripts/spec-snapshot.py                      # both documents in ../shared/spec
    scripts/spec-snapshot.py --check              # fail if spec/operations.json differs,
                                                  # or an operation has no summary
    scripts/spec-snapshot.py DOC [DOC ...]        # several editions; the first wins per path
    scripts/spec-snapshot.py --self-test          # the renaming rule on made-up documents

Kept: paths, methods, operation names, request and response schemas, field
names, types, formats, required, nullability, enums, lengths and ranges,
discriminators, the restriction group, deprecation, success status and error
body shape, and this project's classification of each operation (command or
not, safe to retry or not). Inheritance is resolved here, once: every object
lists all its fields, inherited ones included. The checks of spec/rules.json
(the project's own, beyond the documents) are added to their fields.
String fields named in the rules' `secret_fields` are marked `secret`.
Dropped: every description, summary, title and example (the official prose
is not ours to republish).

Each operation's `summary` is ours instead: one line written by hand in
spec/operation-summaries.json (`{"name": "line", ...}`, sorted by name). Both
modes refuse a snapshot where an operation has no line or a line names no
operation, so a new edition dropped in (or a path renamed) stops here until
every new operation has its line. A line is plain text that every generated
surface can carry as is: one sentence, no Markdown, quotes or angle brackets.

The official document is imperfect (api-facts.md): non-standard type names
(`bool`, `float`, `int`, `uuid`, `enum`, "integer <int32>", ...) are read as
the standard ones, and inline object schemas get names of their own.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_DIR = ROOT.parent / "shared" / "spec"
# The official snapshot first (it wins wherever both have a path or a schema
# name), then the newer edition's 104 back-office paths.
DEFAULT_DOCS = [SPEC_DIR / "iikocloud.openapi.json", SPEC_DIR / "iikocloud.newer-edition.openapi.json"]
OUT = ROOT / "spec" / "operations.json"
# Checks the project adds to what the documents state (hand-written).
RULES = ROOT / "spec" / "rules.json"
SUMMARIES = ROOT / "spec" / "operation-summaries.json"
# Longer than this and a line stops being one line in `iikocloud ops --long`
# and in the doc comments.
SUMMARY_MAX = 120
# What some surface would read as markup: Markdown in rustdoc and
# docs/operations.md (a `|` ends a table cell), reST in Python docstrings (a
# word ending in `_` is a link), `*/` in C, C++ and PHP comments, quotes in the
# string literals that carry the line.
SUMMARY_FORBIDDEN = re.compile(r"[`*\[\]<>|\\\"\n\r\t]|_(?![A-Za-z0-9])")

PREFIXES = (
    "iikoTransport.PublicApi.Contracts.",
    "iikoNet.Service.Contracts.Api.iikoTransport.",
    "iikoNet.Service.Contracts.Api.",
)

# Responses of operations that start work on a terminal and answer a
# correlationId to poll with commands/status. The document does not mark
# commands; this list is the project's reading of it.
COMMAND_RESPONSES = {
    "Common.CorrelationIdResponse",
    "Deliveries.Response.OrderResponse",
    "TableOrders.Response.TableOrderResponse",
    "Reserves.ReserveResponse",
}

# Restriction groups and final path segments of operations that only read:
# repeating them changes nothing, so the client may retry them.
READ_GROUPS = re.compile(r"(dictionaries|menu|geo|receiving|location|availability|preparing|^Data: stoplists$|^Commands$|settings)", re.I)
READ_SEGMENTS = re.compile(
    r"^(by_.*|list|get|info|status.*|is_alive|is_open|check|available_.*|.*_workload|settings|"
    r"regions|cities|organizations|nomenclature|menu|terminal_groups|stop_lists|cancel_causes|"
    r"order_types|discounts|payment_types|removal_types|tips_types|marketing_sources|couriers|"
    r"active_location|delivery_restrictions|allowed|combo|program|counteragents|get_.*|check_.*|"
    r"cancel_causes|.*_report.*|tree|assembled|prepared)$"
)
WRITE_SEGMENTS = re.compile(
    r"(create|update|add|cancel|close|change|delete|confirm|print|send|awake|clock|lock|save|"
    r"commit|post|remove|clear|init|set|modify|patch|refill|withdraw|calculate|hold|activate|"
    r"deactivate|register|upload|enable|disable|reset|assign|bind|unbind|block|unblock)"
)


def short(name: str) -> str:
    # .NET generic instances, e.g. "Common.RmsItemsResponseWrapper`1[[iikoTransport.
    # PublicApi.Contracts.Address.City, iikoTransport.PublicApi.Contracts, Version=...]]",
    # are named "Common.RmsItemsResponseWrapperOfCity".
    m = re.match(r"^(.*?)`\d+\[\[([^,\]]+)", name)
    if m:
        return short(m.group(1)) + "Of" + m.group(2).rsplit(".", 1)[-1]
    for p in PREFIXES:
        if name.startswith(p):
            return name[len(p):]
    return name


def ref_name(ref: str) -> str:
    return short(ref.rsplit("/", 1)[-1])


class Snapshot:
    def __init__(self) -> None:
        self.schemas: dict[str, dict] = {}
        self.components: dict[str, dict] = {}

    # ---- types ----------------------------------------------------------

    def type_of(self, s: dict, owner: str, field: str) -> dict:
        """A type reference: {"ref"}, a scalar, an array, a map or "any"."""
        if not isinstance(s, dict) or not s:
            return {"type": "any"}
        if "$ref" in s:
            return {"ref": ref_name(s["$ref"])}
        all_of = s.get("allOf")
        if all_of and len(all_of) == 1 and "$ref" in all_of[0] and "properties" not in s:
            return {"ref": ref_name(all_of[0]["$ref"])}
        if "oneOf" in s or "anyOf" in s or (all_of and "properties" not in s):
            variants = s.get("oneOf") or s.get("anyOf") or all_of
            if all("$ref" in v for v in variants) and len(variants) > 1 and "discriminator" not in s:
                return {"type": "any", "one_of": [ref_name(v["$ref"]) for v in variants]}
            name = f"{owner}.{pascal(field)}"
            self.define(name, s)
            return {"ref": name}
        t = normal_type(s.get("type"), s.get("format"))
        if t is None:
            return {"type": "any"}
        kind, fmt = t
        if kind == "array":
            return {"type": "array", "items": self.type_of(s.get("items", {}), owner, field + "Item")}
        if kind == "object":
            if s.get("properties"):
                name = f"{owner}.{pascal(field)}"
                self.define(name, s)
                return {"ref": name}
            extra = s.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                return {"type": "map", "values": self.type_of(extra, owner, field + "Value")}
            return {"type": "map", "values": {"type": "any"}}
        out: dict = {"type": kind}
        if fmt:
            out["format"] = fmt
        if "enum" in s and kind == "string":
            out["enum"] = [v for v in s["enum"] if isinstance(v, str)]
        for k in ("minLength", "maxLength", "minimum", "maximum"):
            if k in s:
                out[k] = s[k]
        return out

    # ---- named schemas --------------------------------------------------

    def define(self, name: str, s: dict) -> None:
        if name in self.schemas:
            return
        self.schemas[name] = {}  # placeholder against cycles
        if "enum" in s and normal_type(s.get("type"), s.get("format")) in (("string", None), ("string", "enum")):
            self.schemas[name] = {"kind": "enum", "values": [v for v in s["enum"] if isinstance(v, str)]}
            return
        if "enum" in s and (normal_type(s.get("type"), s.get("format")) or ("",))[0] == "integer":
            # Numeric enums (loyalty): the values are integers on the wire.
            self.schemas[name] = {"kind": "int_enum", "values": [v for v in s["enum"] if isinstance(v, int)]}
            return
        base = None
        props = dict(s.get("properties") or {})
        required = set(s.get("required") or [])
        for part in s.get("allOf") or []:
            if "$ref" in part and base is None and "properties" in s:
                base = ref_name(part["$ref"])
                self.use(part["$ref"])
            elif "$ref" in part:
                base = ref_name(part["$ref"])
                self.use(part["$ref"])
            else:
                props.update(part.get("properties") or {})
                required |= set(part.get("required") or [])
        disc = s.get("discriminator")
        fields = []
        for fname, fs in props.items():
            fs = fs if isinstance(fs, dict) else {}
            field = {
                "name": fname,
                "type": self.type_of(fs, name, fname),
                "required": fname in required,
                "nullable": bool(fs.get("nullable")),
            }
            if fs.get("deprecated"):
                field["deprecated"] = True
            const = constant(fs)
            if const is not None:
                field["const"] = const
            fields.append(field)
        out: dict = {"kind": "object", "fields": fields}
        if base:
            out["base"] = base
        if s.get("additionalProperties") is False:
            out["closed"] = True
        if disc:
            out["kind"] = "union"
            out["discriminator"] = disc["propertyName"]
            out["variants"] = {k: ref_name(v) for k, v in disc.get("mapping", {}).items()}
            for v in disc.get("mapping", {}).values():
                self.use(v)
        self.schemas[name] = out

    def use(self, ref: str) -> None:
        full = ref.rsplit("/", 1)[-1]
        if full in self.components:
            self.define(short(full), self.components[full])


def constant(s: dict):
    t = s.get("type")
    if isinstance(t, str) and t.startswith("constant string '"):
        return t[len("constant string '"):-1]
    return None


def normal_type(t, fmt):
    """The standard (type, format) for the document's type names."""
    if isinstance(t, str):
        t = t.strip()
    table = {
        "bool": ("boolean", None),
        "float": ("number", "float"),
        "int": ("integer", "int32"),
        "uuid": ("string", "uuid"),
        "enum": ("string", None),
        "integer <int32>": ("integer", "int32"),
        "integer <int64>": ("integer", "int64"),
        "Array of strings <uuid>": ("array", None),
    }
    if t in table:
        return table[t]
    if isinstance(t, str) and t.startswith("constant string"):
        return ("string", None)
    if t not in ("string", "integer", "number", "boolean", "array", "object"):
        return None
    if fmt == "enum":
        fmt = None
    if fmt == "yyyy-MM-dd HH:mm:ss.fff":
        fmt = "local-date-time"
    return (t, fmt)


def pascal(s: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", s)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def op_name(path: str) -> str:
    """`/api/1/deliveries/by_id` -> `deliveries.by_id` (the version prefix dropped)."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"]:
        parts = parts[1:]
    # /api/1/..., /api/2/..., /api/v2/..., /api/inventory/v1/..., /api/finance/v1/...
    if parts and re.fullmatch(r"v?\d+", parts[0]):
        parts = parts[1:]
    elif len(parts) > 1 and re.fullmatch(r"v\d+", parts[1]):
        parts = [parts[0]] + parts[2:]
    return ".".join(re.sub(r"[^A-Za-z0-9_]", "_", p).lower() for p in parts)


def disambiguate(operations: list[dict]) -> None:
    """Two operations with one name: a method other than POST gets its
    method as a suffix (`organizations_get`), and of two versions of a path
    the older gets its version (`access_token_v1`)."""
    by_name: dict[str, list[dict]] = {}
    for o in operations:
        by_name.setdefault(o["name"], []).append(o)
    for name, same in by_name.items():
        if len(same) < 2:
            continue
        for o in same:
            if o["method"] != "POST":
                o["name"] = f"{name}_{o['method'].lower()}"
        posts = [o for o in same if o["method"] == "POST"]
        # `/api/menu/v3/by_id` beside `/api/2/menu/by_id`: the family-versioned
        # path keeps its version where it stands (`menu.v3.by_id`).
        for o in posts if len(posts) > 1 else []:
            parts = [p for p in o["path"].split("/") if p][1:]
            if len(parts) > 2 and re.fullmatch(r"v\d+", parts[1]):
                o["name"] = ".".join(re.sub(r"[^A-Za-z0-9_]", "_", p).lower() for p in parts)
        posts = [o for o in posts if o["name"] == name]
        if len(posts) > 1:
            def version(o: dict) -> int:
                m = re.search(r"/v?(\d+)/", o["path"])
                return int(m.group(1)) if m else 0
            newest = max(posts, key=version)
            for o in posts:
                if o is not newest:
                    o["name"] = f"{name}_v{version(o)}"
    names = [o["name"] for o in operations]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise SystemExit(f"operation names still clash: {sorted(dupes)}")


def add_summaries(operations: list[dict]) -> list[str]:
    """Gives each operation its line from SUMMARIES (placed after its name);
    answers what is wrong: operations without a line, lines for no operation,
    and lines no surface could carry as they are."""
    try:
        lines = json.loads(SUMMARIES.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"cannot read it: {e}"]
    if not isinstance(lines, dict):
        return ["it must be one JSON object of operation name to line"]
    problems = []
    names = {o["name"] for o in operations}
    for name in sorted(names - lines.keys()):
        problems.append(f"{name}: no summary; add a line of your own words for it")
    for name in sorted(lines.keys() - names):
        problems.append(f"{name}: a summary for no operation of the snapshot; remove or rename it")
    for name, line in sorted(lines.items()):
        if not isinstance(line, str) or not line.strip():
            problems.append(f"{name}: the summary must be a non-empty string")
        elif line != line.strip() or len(line) > SUMMARY_MAX:
            problems.append(f"{name}: the summary must be one line of at most {SUMMARY_MAX} characters, "
                            "without surrounding spaces")
        elif not (line[0].isupper() and line.endswith(".")):
            problems.append(f"{name}: the summary must be one sentence: a capital letter first, a full stop last")
        elif SUMMARY_FORBIDDEN.search(line):
            problems.append(f"{name}: the summary holds markup ({SUMMARY_FORBIDDEN.search(line).group()!r}); "
                            "write it as plain text")
    if list(lines) != sorted(lines):
        problems.append("the lines must be sorted by operation name")
    if problems:
        return problems
    for i, o in enumerate(operations):
        items = list(o.items())
        operations[i] = dict(items[:1] + [("summary", lines[o["name"]])] + items[1:])
    return []


def resolve_inheritance(schemas: dict[str, dict]) -> None:
    """Writes each object's and union's whole field list, inherited fields
    first (a field a derived schema declares again replaces the inherited
    one), so no reader walks `base` chains; `base` stays as a fact. A
    schema deriving from unions also gets `inherited_discriminators`: their
    tag fields, which the union's variant carries, not the schema's fields."""
    own = {name: list(s.get("fields") or []) for name, s in schemas.items()}
    resolved: dict[str, list] = {}

    def fields(name: str, seen: frozenset) -> list:
        if name in resolved:
            return resolved[name]
        base = schemas[name].get("base")
        out = list(fields(base, seen | {name})) if base in schemas and base not in seen else []
        for f in own.get(name, []):
            out = [o for o in out if o["name"] != f["name"]]
            out.append(f)
        resolved[name] = out
        return out

    for name, s in schemas.items():
        if s.get("kind") not in ("object", "union"):
            continue
        s["fields"] = fields(name, frozenset())
        tags, seen, base = [], {name}, s.get("base")
        while base in schemas and base not in seen:
            seen.add(base)
            if schemas[base].get("kind") == "union" and schemas[base].get("discriminator"):
                tags.append(schemas[base]["discriminator"])
            base = schemas[base].get("base")
        if tags:
            s["inherited_discriminators"] = tags


def mark_secrets(schemas: dict[str, dict], rules: dict) -> None:
    """Marks `secret` every string field named in the rules' `secret_fields`
    (credentials and tokens, whichever schema holds them)."""
    names = set(rules.get("secret_fields", {}).get("names", []))
    for s in schemas.values():
        for i, f in enumerate(s.get("fields") or []):
            if f["name"] in names and f["type"].get("type") == "string" and not f.get("secret"):
                # Fields are shared with schemas deriving from this one: copy.
                s["fields"][i] = dict(f, secret=True)


def apply_rules(schemas: dict[str, dict], rules: dict) -> None:
    """Copies each project rule into its field as `project_checks` (the
    `why` stays in rules.json). A rule whose schema or field no document has
    stops the snapshot: a new edition must not drop a check silently."""
    for target, rule in sorted(rules.get("fields", {}).items()):
        schema, _, field = target.rpartition(".")
        fields = schemas.get(schema, {}).get("fields") or []
        found = [f for f in fields if f["name"] == field]
        if not found:
            raise SystemExit(f"{RULES.name}: {target} names no field of the snapshot")
        checks = {k: v for k, v in rule.items() if k != "why"}
        unknown = set(checks) - {"min_items", "not_blank", "format"}
        if unknown:
            raise SystemExit(f"{RULES.name}: {target}: unknown checks {sorted(unknown)}")
        # Fields are shared with schemas deriving from this one: copy, not edit.
        index = fields.index(found[0])
        fields[index] = dict(found[0], project_checks=checks)


def shape(s, schemas: dict, seen: frozenset = frozenset()) -> object:
    """A schema without its prose and nullability, references followed (a
    name is the document's own choice): what decides whether two documents
    mean the same thing by one name."""
    if isinstance(s, dict):
        ref = s.get("$ref")
        if isinstance(ref, str):
            full = ref.rsplit("/", 1)[-1]
            if full in seen or full not in schemas:
                return {"$ref": short(full)}
            return shape(schemas[full], schemas, seen | {full})
        return {k: shape(v, schemas, seen) for k, v in sorted(s.items())
                if k not in ("description", "summary", "title", "example", "examples", "nullable", "default")}
    if isinstance(s, list):
        return [shape(v, schemas, seen) for v in s]
    return s


def keep_apart(doc: dict, known: dict[str, dict], edition: str) -> dict:
    """A later document's schema whose short name an earlier one already
    declares with another shape is renamed `<Edition>Edition.<Name>` (and
    every reference to it), so neither document's reading replaces the
    other's. Returns the document, rewritten only when a name was taken."""
    by_short = {short(full): full for full in known}
    mine = doc.get("components", {}).get("schemas", {})
    renamed = {}
    for full, schema in doc.get("components", {}).get("schemas", {}).items():
        taken = by_short.get(short(full))
        if taken is not None and shape(known[taken], known) != shape(schema, mine):
            renamed[full] = f"{pascal(edition)}Edition.{short(full)}"
    if not renamed:
        return doc
    text = json.dumps(doc)
    for old, new in renamed.items():
        text = text.replace(json.dumps(f"#/components/schemas/{old}"), json.dumps(f"#/components/schemas/{new}"))
    doc = json.loads(text)
    schemas = doc["components"]["schemas"]
    doc["components"]["schemas"] = {renamed.get(k, k): v for k, v in schemas.items()}
    return doc


def json_schema(content: dict) -> dict:
    return (content or {}).get("application/json", {}).get("schema", {}) or {}


def self_test() -> None:
    """The rule of `keep_apart` on made-up documents (the real ones have no
    clash of shapes today, so nothing else would show it broken)."""
    official = {"iikoTransport.PublicApi.Contracts.Tag": {
        "type": "object", "properties": {"id": {"type": "string"}, "item": {"$ref": "#/components/schemas/Item"}}},
        "Item": {"type": "object", "properties": {"n": {"type": "string"}}}}
    same = {"components": {"schemas": {
        "Tag": {"type": "object", "description": "prose", "properties": {
            "id": {"type": "string", "nullable": True}, "item": {"$ref": "#/components/schemas/Other"}}},
        "Other": {"type": "object", "properties": {"n": {"type": "string", "description": "x"}}}}}}
    assert keep_apart(same, official, "newer") is same, "one shape under two names was renamed"
    other = {"components": {"schemas": {
        "Tag": {"type": "object", "properties": {"code": {"type": "string"}}},
        "Uses": {"type": "object", "properties": {"tag": {"$ref": "#/components/schemas/Tag"}}}}}}
    kept = keep_apart(other, official, "newer")["components"]["schemas"]
    assert set(kept) == {"NewerEdition.Tag", "Uses"}, kept
    assert kept["Uses"]["properties"]["tag"]["$ref"] == "#/components/schemas/NewerEdition.Tag", kept


def main(argv: list[str]) -> int:
    if "--self-test" in argv:
        self_test()
        print("spec-snapshot self-test passed")
        return 0
    check = "--check" in argv
    docs = [Path(a) for a in argv if not a.startswith("--")] or DEFAULT_DOCS
    snap = Snapshot()
    operations = []
    seen_paths: set[tuple[str, str]] = set()
    sources = []
    for index, doc_path in enumerate(docs):
        doc = json.loads(doc_path.read_text(encoding="utf-8"))
        edition = "official" if index == 0 else "newer"
        sources.append({
            "document": doc_path.name,
            "edition": edition,
            "sha256": hashlib.sha256(doc_path.read_bytes()).hexdigest(),
        })
        if index > 0:
            doc = keep_apart(doc, snap.components, edition)
        # Schema names are global; of two documents declaring one name with
        # one shape (six back-office schemas, differing only in nullability
        # and prose), the first wins. One of another shape was renamed above.
        for full, schema in doc.get("components", {}).get("schemas", {}).items():
            snap.components.setdefault(full, schema)
        for path, item in doc["paths"].items():
            for method, op in item.items():
                if method not in ("get", "post", "put", "delete", "patch"):
                    continue
                if (path, method) in seen_paths:
                    continue  # the first document wins
                seen_paths.add((path, method))
                name = op_name(path)
                owner = "Operations." + pascal(name.replace(".", "_"))
                request = json_schema(op.get("requestBody", {}).get("content"))
                ok_status = next((int(c) for c in op["responses"] if c.startswith("2")), 200)
                response = json_schema(op["responses"].get(str(ok_status), {}).get("content"))
                error = None
                for code, r in op["responses"].items():
                    if not code.startswith("2"):
                        es = json_schema(r.get("content"))
                        if "$ref" in es:
                            error = ref_name(es["$ref"])
                            break
                for ref in (request.get("$ref"), response.get("$ref")):
                    if ref:
                        snap.use(ref)
                req_t = snap.type_of(request, owner, "Request") if request else None
                resp_t = snap.type_of(response, owner, "Response") if response else {"type": "any"}
                group = re.search(r"Restriction group: `([^`]*)`", op.get("description") or "")
                group = group.group(1) if group else None
                resp_ref = response.get("$ref")
                command = bool(resp_ref) and ref_name(resp_ref) in COMMAND_RESPONSES
                last = name.rsplit(".", 1)[-1]
                read = not command and (
                    bool(READ_SEGMENTS.match(last))
                    or (group is not None and bool(READ_GROUPS.search(group))
                        and "chang" not in group and "creat" not in group
                        and not WRITE_SEGMENTS.search(last))
                )
                entry = {
                    "name": name,
                    "path": path,
                    "method": method.upper(),
                    "edition": edition,
                    "tag": (op.get("tags") or [None])[0],
                    "restriction_group": group,
                    "command": command,
                    "safe_to_retry": read,
                    "deprecated": bool(op.get("deprecated")),
                    "request": req_t,
                    "response": resp_t,
                    "success_status": ok_status,
                    "error_schema": error,
                }
                operations.append(entry)
    # Every named schema reachable from an operation, then any the document
    # declares and nothing references (webhook payloads among them).
    for full in list(snap.components):
        snap.define(short(full), snap.components[full])
    rules = json.loads(RULES.read_text(encoding="utf-8"))
    apply_rules(snap.schemas, rules)
    resolve_inheritance(snap.schemas)
    mark_secrets(snap.schemas, rules)
    disambiguate(operations)
    operations.sort(key=lambda o: (o["name"], o["method"]))
    problems = add_summaries(operations)
    if problems:
        print(f"{SUMMARIES.relative_to(ROOT)} does not match the operations:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    out = {
        "about": "Facts derived by scripts/spec-snapshot.py from iiko's OpenAPI documents, with "
                 "none of their prose; each `summary` is this project's own line from "
                 "spec/operation-summaries.json. Regenerate with that script, then "
                 "`cargo run -p iikocloud-codegen`.",
        "sources": sources,
        # The names of credential fields (spec/rules.json), for the readers
        # of untyped JSON: the CLI hides them at any depth.
        "secret_fields": sorted(rules.get("secret_fields", {}).get("names", [])),
        "operations": operations,
        "schemas": dict(sorted(snap.schemas.items())),
    }
    text = json.dumps(out, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
    if check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is out of date: run scripts/spec-snapshot.py", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)}: up to date ({len(operations)} operations, {len(snap.schemas)} schemas)")
        return 0
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(operations)} operations, {len(snap.schemas)} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
