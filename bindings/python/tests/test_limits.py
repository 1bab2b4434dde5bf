"""Limits and receive statuses come from the core, never from this package.

* The language-neutral limit vectors (tests/vectors/limits.json, the file the
  Rust core, the C ABI and PHP run) through the core's reader, and every
  value a vector refuses through this package's own calls (``Client``,
  ``Inbox``, ``webhooks.parse``, ...): the same refusal, the same message.
* Every default or status this package's documentation states is held to the
  core's value, so a docstring cannot drift from the rule (a past one said
  "answer 400" where the core answers 200).
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Set

import pytest

import iikocloud
from iikocloud import _native, webhooks
from iikocloud._client import ClientOptions
from iikocloud._inbox import Received

ROOT = Path(__file__).resolve().parents[3]
VECTORS = ROOT / "tests" / "vectors" / "limits.json"
UNREACHABLE = "http://127.0.0.1:9"
ORG = "7f2c6b2e-0000-4000-8000-000000000000"


def _doc() -> Dict[str, Any]:
    doc: Dict[str, Any] = json.loads(VECTORS.read_text(encoding="utf-8"))
    assert doc["format"] == "iikocloud-limit-vectors" and doc["version"] == 1, "unknown vector format"
    return doc


def _python_cases() -> List[Dict[str, Any]]:
    # Python has no raw C argument.
    return [c for c in _doc()["cases"] if "raw" not in c]


def _given(case: Dict[str, Any]) -> Any:
    if "absent" in case:
        return None
    if "int" in case:
        return case["int"]
    seconds = case["seconds"]
    return float(seconds)


def _name(case: Dict[str, Any]) -> str:
    form = next(k for k in ("absent", "int", "seconds") if k in case)
    return f"{case['limit']}:{form}:{case.get(form)}"


@pytest.mark.parametrize("case", _python_cases(), ids=_name)
def test_the_core_reads_every_case(case: Dict[str, Any]) -> None:
    read = lambda: _native.read_limit(case["limit"], _given(case))  # noqa: E731
    if "error" in case:
        with pytest.raises(iikocloud.InvalidInputError) as raised:
            read()
        assert case["error"] in str(raised.value)
    else:
        assert read() == case["value"]


def test_the_table_is_the_vectors() -> None:
    rows = {r["name"]: r for r in _doc()["limits"]}
    table = _native.limit_table()
    assert [t[0] for t in table] == list(rows)
    for name, unit, default, zero, raw_zero, low, high, above, _text in table:
        assert rows[name] == {
            "name": name,
            "unit": unit,
            "default": default,
            "zero": zero,
            "raw_zero_is_default": raw_zero,
            "min": low,
            "max": high,
            "above": above,
        }


def _client(**options: Any) -> iikocloud.Client:
    return iikocloud.Client(api_login="x", base_url=UNREACHABLE, retries=0, **options)


def _parse_with(**limits: Any) -> None:
    """Parses a small body with these limits; a body the limits then find too
    large is fine (the limits were accepted)."""
    try:
        webhooks.parse(b"[]", **limits)
    except iikocloud.WebhookParseError:
        pass


def _entry_points(tmp_path: Path) -> Dict[str, Callable[[Any], Any]]:
    """The calls of this package that take each limit, given the value as a
    caller gives it (seconds for durations, ints for the rest)."""
    inbox = f"sqlite://{tmp_path / 'limits.db'}"
    return {
        "client.timeout": lambda v: _client(timeout=v),
        "client.client_timeout": lambda v: _client(client_timeout=v),
        "client.retries": lambda v: iikocloud.Client(api_login="x", base_url=UNREACHABLE, retries=v),
        "client.max_response_bytes": lambda v: _client(max_response_bytes=v),
        "call.timeout": lambda v: _client().call("/api/1/organizations", {}, timeout=v),
        "wait.timeout": lambda v: _client().wait("c", organization_id=ORG, timeout=v),
        "wait.first_pause": lambda v: _client().wait("c", organization_id=ORG, first_pause=v),
        "wait.max_pause": lambda v: _client().wait("c", organization_id=ORG, max_pause=v),
        "webhook.max_body_bytes": lambda v: _parse_with(max_body_bytes=v),
        "webhook.max_depth": lambda v: _parse_with(max_depth=v),
        "inbox.visibility_timeout": lambda v: iikocloud.Inbox(inbox, visibility_timeout=v).close(),
        "inbox.max_attempts": lambda v: iikocloud.Inbox(inbox, max_attempts=v).close(),
        "inbox.dedup_ttl": lambda v: iikocloud.Inbox(inbox, dedup_ttl=v).close(),
        "inbox.dead_letters": lambda v: iikocloud.Inbox(inbox).dead_letters(v),
        "dedup.capacity": lambda v: webhooks.Deduplicator(capacity=v),
        "dedup.max_age": lambda v: webhooks.Deduplicator(max_age=v),
        "ordering.capacity": lambda v: webhooks.OrderingGuard(capacity=v),
        "ordering.store_ttl": lambda v: webhooks.OrderingGuard(ttl=v),
    }


#: Limits whose calls go to the network once a value is accepted.
_NETWORK = {"call.timeout", "wait.timeout", "wait.first_pause", "wait.max_pause"}


def test_every_call_reads_its_limit_as_the_core_does(tmp_path: Path) -> None:
    calls = _entry_points(tmp_path)
    units = {r["name"]: r["unit"] for r in _doc()["limits"]}
    ran: Set[str] = set()
    for case in _python_cases():
        call = calls.get(case["limit"])
        if call is None or "absent" in case:
            continue
        # Durations are seconds here; a whole number of milliseconds is the C form.
        if (units[case["limit"]] == "ms") != ("seconds" in case):
            continue
        if "error" in case:
            with pytest.raises(iikocloud.InvalidInputError) as raised:
                call(_given(case))
            assert case["error"] in str(raised.value), (case, str(raised.value))
        elif case["limit"] not in _NETWORK:
            call(_given(case))
        ran.add(case["limit"])
    assert ran == set(calls) - {"client.fallback_token_lifetime"}, set(calls) - ran


def test_an_accepted_timeout_is_the_one_used() -> None:
    assert _client(timeout=1.5).timeout == 1.5
    assert _client().timeout == _native.read_limit("client.timeout", None) / 1000
    assert _client().with_timeout(30).timeout == 30.0


# ---- documentation held to the core ----


def _flat(text: str) -> str:
    """The text with every run of whitespace as one space."""
    return " ".join(text.split())


def _default_text(name: str) -> str:
    for row in _native.limit_table():
        if row[0] == name:
            return row[8]
    raise KeyError(name)


@pytest.mark.parametrize(
    "where, limit, phrase",
    [
        (ClientOptions, "client.timeout", "``timeout`` {}"),
        (ClientOptions, "client.client_timeout", "``client_timeout`` {},"),
        (ClientOptions, "client.retries", "``retries`` {}"),
        (iikocloud.Client, "client.timeout", "(default {})"),
        (iikocloud.Client, "client.client_timeout", "(default {}, and it"),
        (iikocloud.Client, "client.refresh_margin", "refreshed {} before"),
        (iikocloud.Client.wait, "wait.timeout", "(default {};"),
        (iikocloud.Client.wait, "wait.first_pause", "``first_pause``, {},"),
        (iikocloud.Client.wait, "wait.max_pause", "``max_pause``, {})"),
        (iikocloud.Client.call_operation, "wait.timeout", "default {})"),
        (iikocloud.Client.create_delivery_order, "wait.timeout", "(default {})"),
        (iikocloud.Inbox, "inbox.visibility_timeout", "default {}):"),
        (iikocloud.Inbox, "inbox.max_attempts", "(default {}):"),
        (iikocloud.Inbox, "inbox.dedup_ttl", "(default {}):"),
        (iikocloud.Inbox.dead_letters, "inbox.dead_letters", "(default {})"),
        (webhooks.parse, "webhook.max_body_bytes", "(default {})"),
        (webhooks.parse, "webhook.max_depth", "(default {};"),
        (webhooks.Deduplicator, "dedup.max_age", "(default {};"),
        (webhooks.Deduplicator, "dedup.capacity", "default {},"),
        (webhooks.OrderingGuard, "ordering.capacity", "default {},"),
        (webhooks.OrderingGuard, "ordering.store_ttl", "(default {},"),
    ],
)
def test_a_documented_default_is_the_cores(where: Any, limit: str, phrase: str) -> None:
    doc = _flat(inspect.getdoc(where) or "")
    expected = phrase.format(_default_text(limit))
    assert expected in doc, f"{where.__qualname__} should say {expected!r}"


def test_the_pause_growth_in_wait_is_the_cores() -> None:
    doc = _flat(inspect.getdoc(iikocloud.Client.wait) or "")
    assert f"each pause {_native.WAIT_PAUSE_GROWTH:g} times longer" in doc


def test_the_depth_ceiling_in_parse_is_the_cores() -> None:
    ceiling = next(r for r in _native.limit_table() if r[0] == "webhook.max_depth")[6]
    assert f"lowered to {ceiling} levels" in _flat(webhooks.parse.__doc__ or "")


def _statuses(text: str) -> Set[int]:
    """HTTP statuses a text names: 3-digit numbers from 100 to 599."""
    return {int(n) for n in re.findall(r"\b([1-5]\d\d)\b", text)}


@pytest.mark.parametrize(
    "where, allowed",
    [
        (webhooks, "RECEIVE_STATUSES"),
        (webhooks.verify, "RECEIVE_STATUSES"),
        (iikocloud.WebhookVerificationError, "RECEIVE_STATUSES"),
        (iikocloud.WebhookParseError, "RECEIVE_STATUSES"),
        (Received, "INBOX_RECEIVE_STATUSES"),
        (iikocloud.Inbox.receive, "INBOX_RECEIVE_STATUSES"),
    ],
)
def test_documented_statuses_are_the_cores(where: Any, allowed: str) -> None:
    named = _statuses(inspect.getdoc(where) or "")
    assert named, f"{where!r} names no status"
    assert named <= set(getattr(_native, allowed)), (where, named)


def test_the_error_classes_say_which_status_the_core_answers() -> None:
    # "Answer error.status, the status the core's receive rule gives: 401, ..."
    verification = _statuses(iikocloud.WebhookVerificationError.__doc__ or "")
    assert verification == {_native.STATUS_UNAUTHORIZED, _native.STATUS_RECEIVER_FAULT}
    assert _statuses(iikocloud.WebhookParseError.__doc__ or "") == {_native.STATUS_ACCEPTED}
    # And the classes of API errors name the status the core classifies for them.
    for cls in (
        iikocloud.BadRequestError,
        iikocloud.AuthenticationError,
        iikocloud.ForbiddenError,
        iikocloud.NotFoundError,
        iikocloud.TerminalTimeoutError,
        iikocloud.RateLimitError,
    ):
        status = int((cls.__doc__ or "").split(":")[0])
        assert _native.api_error_class(status) == cls.__name__
    assert _native.api_error_class(503) == "ServerError"
    for line in (iikocloud.ApiError.__doc__ or "").replace("\n", " ").split(","):
        match = re.search(r"\b([1-5]\d\d|5xx) :class:`(\w+)`", line)
        if match:
            status = 500 if match.group(1) == "5xx" else int(match.group(1))
            assert _native.api_error_class(status) == match.group(2), line


def test_the_statuses_the_module_exports_are_the_cores() -> None:
    assert webhooks.STATUS_ACCEPTED == 200 == _native.STATUS_ACCEPTED
    assert set(webhooks.RECEIVE_STATUSES) == {
        webhooks.STATUS_ACCEPTED,
        webhooks.STATUS_UNAUTHORIZED,
        webhooks.STATUS_RECEIVER_FAULT,
    }
    assert set(webhooks.INBOX_RECEIVE_STATUSES) == set(webhooks.RECEIVE_STATUSES) | {
        webhooks.STATUS_RETRY_LATER
    }


def test_the_readme_states_the_cores_rules() -> None:
    readme = (ROOT / "bindings" / "python" / "README.md").read_text(encoding="utf-8")
    flat = _flat(readme)
    for phrase, limit in [
        ("`timeout` (the `Timeout` header, default {}:", "client.timeout"),
        ("`client_timeout` (default {})", "client.client_timeout"),
        ("`retries` (default {},", "client.retries"),
    ]:
        expected = phrase.format(_default_text(limit))
        assert expected in flat, expected
    answers = [line for line in readme.splitlines() if "receipt.status" in line and "answer" in line]
    assert answers
    for line in answers:
        assert _statuses(line) <= set(webhooks.RECEIVE_STATUSES), line
    rule = flat.split("as the core's receive rule gives it:")[1].split(".")[0]
    assert _statuses(rule) == set(webhooks.RECEIVE_STATUSES), rule
    classes = re.findall(r"`(\w+Error)` (\d{3}|5xx)", flat)
    assert len(classes) >= 7
    for name, status in classes:
        code = 500 if status == "5xx" else int(status)
        assert _native.api_error_class(code) == name, (name, status)
