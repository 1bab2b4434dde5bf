"""The language-neutral operation vectors (tests/vectors/operations.json),
the same file the Rust core, the C ABI and PHP run, through
``Client.call_operation`` against the emulator."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any, Dict, List

import pytest

import iikocloud
from iikocloud.testing import Emulator

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "operations.json"


def _cases() -> List[Dict[str, Any]]:
    doc = json.loads(VECTORS.read_text(encoding="utf-8"))
    assert doc["format"] == "iikocloud-operation-vectors" and doc["version"] == 1, "unknown vector format"
    cases: List[Dict[str, Any]] = doc["cases"]
    return cases


def _at(answer: Any, path: str) -> Any:
    here = answer
    for part in path.split("."):
        here = here[int(part)] if isinstance(here, list) else here.get(part)
        if here is None:
            return None
    return here


@pytest.mark.parametrize("case", _cases(), ids=lambda c: str(c["name"]))
def test_operation_vector(emu: Emulator, case: Dict[str, Any]) -> None:
    client = emu.client()
    expect = case["expect"]
    # Requests go as JSON text: a vector may hold a request that is not an object.
    request = json.dumps(case["request"])
    call = lambda: client.call_operation(case["operation"], request, wait=case.get("wait", False))  # noqa: E731
    if expect["outcome"] == "invalid":
        with pytest.raises(iikocloud.InvalidInputError) as raised:
            call()
        for text in expect.get("error_contains", []):
            assert text in str(raised.value)
        return
    if expect["outcome"] == "command_failed":
        with pytest.raises(iikocloud.CommandFailedError) as failed:
            call()
        for text in expect.get("error_contains", []):
            assert text in str(failed.value)
        return
    assert expect["outcome"] == "ok", expect
    answer = call()
    for check in expect.get("answer", []):
        value = _at(answer, check["path"])
        if "equals" in check:
            want = check["equals"]
            assert value == (Decimal(str(want)) if isinstance(want, float) else want), check
        elif "money" in check:
            # Exact: the amount's digits as sent, whether it came as a number or a string.
            assert value is not None and Decimal(str(value)) == Decimal(check["money"]), (check, value)
        elif check.get("present"):
            assert value is not None, check
