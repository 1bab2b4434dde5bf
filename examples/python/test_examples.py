"""The examples, driven by their frameworks' test clients and the emulator."""

from __future__ import annotations

import json
import queue
import runpy
import sys
from pathlib import Path

import pytest

from iikocloud import webhooks

HERE = Path(__file__).resolve().parent
VECTORS = HERE.parents[1] / "tests" / "vectors" / "payloads"
sys.path.insert(0, str(HERE))

TOKEN = "receiver-token-0123456789"
BODY = (VECTORS / "multi_all_types.json").read_bytes()


def test_list_organizations(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IIKO_APP_ID", raising=False)
    monkeypatch.setattr(sys, "argv", ["list_organizations.py"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(HERE / "list_organizations.py"), run_name="__main__")
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "Emulator Pizza (Central)" in out and "organizations (correlationId" in out


def test_flask_receiver() -> None:
    pytest.importorskip("flask")
    from flask_receiver import create_app

    work: "queue.Queue[webhooks.Event]" = queue.Queue()
    client = create_app(TOKEN, work).test_client()
    r = client.post("/iiko/webhook", data=BODY, headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200 and work.qsize() == 8
    # The same delivery again: answered 200, nothing new queued.
    r = client.post("/iiko/webhook", data=BODY, headers={"Authorization": TOKEN})
    assert r.status_code == 200 and work.qsize() == 8
    r = client.post("/iiko/webhook", data=BODY, headers={"Authorization": "wrong"})
    assert r.status_code == 401 and work.qsize() == 8
    r = client.post("/iiko/webhook", data=b"not json", headers={"Authorization": TOKEN})
    assert r.status_code == 200
    assert create_app("", work).test_client().post("/iiko/webhook", data=BODY).status_code == 500
    first = work.get_nowait()
    assert isinstance(first, webhooks.DeliveryOrderUpdate)


def test_fastapi_receiver() -> None:
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from fastapi_receiver import create_app

    app = create_app(TOKEN)
    client = TestClient(app)
    r = client.post("/iiko/webhook", content=BODY, headers={"authorization": TOKEN})
    assert r.status_code == 200 and app.state.events.qsize() == 8
    r = client.post("/iiko/webhook", content=BODY, headers={"authorization": TOKEN})
    assert r.status_code == 200 and app.state.events.qsize() == 8
    r = client.post("/iiko/webhook", content=BODY)
    assert r.status_code == 401
    stale = json.loads((VECTORS / "delivery_order_update.json").read_text())
    newer = json.loads((VECTORS / "delivery_order_update_cancelled.json").read_text())
    client.post("/iiko/webhook", json=newer, headers={"authorization": TOKEN})
    before = app.state.events.qsize()
    # Not a duplicate of anything queued, but older than the cancelled version.
    stale[0]["eventInfo"]["timestamp"] = newer[0]["eventInfo"]["timestamp"] - 1
    client.post("/iiko/webhook", json=stale, headers={"authorization": TOKEN})
    assert app.state.events.qsize() == before


@pytest.mark.parametrize(
    "script, expected",
    [
        ("create_order.py", "Success, status Unconfirmed, sum 1180"),
        ("sync_menu.py", "Pizza Margherita 32 cm"),
        ("wait_command.py", "a documented status"),
    ],
)
def test_operation_examples(
    script: str, expected: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("IIKO_APP_ID", raising=False)
    monkeypatch.setattr(sys, "argv", [script])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(HERE / script), run_name="__main__")
    out = capsys.readouterr().out
    assert done.value.code == 0, out
    assert expected in out, out
