"""iikocloud.Inbox against real SQLite files and the real redis-server the
test command starts (IIKO_TEST_REDIS_URL): receive, take, ack, release,
visibility timeout, dead letters, two processes sharing one inbox."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator, List

import pytest

import iikocloud
from iikocloud import Inbox, webhooks

from conftest import VECTORS

REDIS = os.environ.get("IIKO_TEST_REDIS_URL")
TOKEN = "inbox-token-7f3a"


def _redis_db(db: int) -> str:
    """A Redis database of its own, emptied: the inbox's keys are fixed."""
    assert REDIS is not None
    url = REDIS.rsplit("/", 1)[0] + f"/{db}"
    cli = shutil.which("redis-cli")
    if cli is None:
        pytest.skip("redis-cli is needed to empty the test database")
    subprocess.run([cli, "-u", url, "flushdb"], check=True, capture_output=True)
    return url


@pytest.fixture(params=["sqlite", "redis"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'inbox.db'}"
    if not REDIS:
        pytest.skip("IIKO_TEST_REDIS_URL is not set (scripts/test.sh starts redis-server)")
    return _redis_db(11)


@pytest.fixture
def inbox(url: str) -> Iterator[Inbox]:
    with Inbox(url) as box:
        yield box


def _headers(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": token, "Content-Type": "application/json"}


def _order(order_id: str, timestamp: int) -> dict[str, object]:
    body = json.loads((VECTORS / "delivery_order_update.json").read_text())[0]
    body["eventInfo"]["id"] = order_id
    body["eventInfo"]["timestamp"] = timestamp
    return dict(body)


def test_receive_take_ack_round_trip(inbox: Inbox) -> None:
    body = (VECTORS / "delivery_order_update.json").read_bytes()
    expected = webhooks.parse(body)[0]
    before = dt.datetime.now(dt.timezone.utc)

    received = inbox.receive(TOKEN, _headers(), body)
    assert received == iikocloud.Received(200, 1, 0, None) and received.ok
    assert inbox.counts() == iikocloud.InboxCounts(pending=1, dead=0)

    # The service resends: answered 200, stored once.
    again = inbox.receive(TOKEN, list(_headers().items()), body)
    assert (again.status, again.stored, again.repeats) == (200, 0, 1)
    assert inbox.counts().pending == 1

    delivery = inbox.take()
    assert delivery is not None
    assert delivery.attempt == 1
    assert delivery.key == expected.dedup_key
    assert json.loads(delivery.event_json) == json.loads(body)[0]
    event = delivery.event
    assert isinstance(event, webhooks.DeliveryOrderUpdate)
    assert event == expected and event.sum == expected.sum
    assert before - dt.timedelta(seconds=2) <= delivery.received_at <= dt.datetime.now(
        dt.timezone.utc
    ) + dt.timedelta(seconds=2)
    assert "WEB-2025" not in repr(delivery), "the body stays out of the repr"

    assert inbox.take() is None, "a taken event is hidden from other consumers"
    assert inbox.ack(delivery) is True
    assert inbox.ack(delivery) is False, "a second ack is a no-op"
    assert inbox.counts() == iikocloud.InboxCounts(0, 0)


def test_every_event_of_a_body_is_stored(inbox: Inbox) -> None:
    body = (VECTORS / "multi_all_types.json").read_bytes()
    n = len(json.loads(body))
    received = inbox.receive(TOKEN, _headers(), body)
    assert (received.status, received.stored + received.repeats) == (200, n)
    seen = []
    while (d := inbox.take()) is not None:
        seen.append(d.event.event_type)
        assert inbox.ack(d)
    assert len(seen) == received.stored and received.stored > 0


def test_a_wrong_token_is_401_and_nothing_is_stored(inbox: Inbox) -> None:
    body = (VECTORS / "delivery_order_update.json").read_bytes()
    wrong = inbox.receive(TOKEN, _headers("Bearer not-the-token-xyz"), body)
    assert wrong.status == 401 and wrong.stored == 0 and wrong.error
    assert "not-the-token-xyz" not in wrong.error and TOKEN not in wrong.error
    missing = inbox.receive(TOKEN, {}, body)
    assert missing.status == 401
    empty = inbox.receive("", _headers(""), body)
    assert empty.status == 500, "an empty expected token is the server's fault"
    assert inbox.counts() == iikocloud.InboxCounts(0, 0)
    assert inbox.take() is None


def test_an_unparseable_body_is_kept_as_a_dead_letter(inbox: Inbox) -> None:
    received = inbox.receive(TOKEN, _headers(), b'{"eventType": ')
    # 200: a resend would bring the same bytes; kept, not lost.
    assert received.status == 200 and received.stored == 0 and received.error
    letters = inbox.dead_letters()
    assert len(letters) == 1
    assert letters[0].body == '{"eventType": ' and letters[0].key == ""
    assert letters[0].reason
    assert inbox.counts() == iikocloud.InboxCounts(0, 1)
    assert inbox.take() is None


def test_release_counts_attempts_then_dead_letters(url: str) -> None:
    with Inbox(url, max_attempts=2) as inbox:
        assert inbox.push([("k-1", json.dumps(_order("o-1", 1)))]) == 1
        first = inbox.take()
        assert first is not None and first.attempt == 1
        inbox.release(first, "database down")
        second = inbox.take()
        assert second is not None and second.attempt == 2 and second.id == first.id
        inbox.release(second, "still down")
        assert inbox.take() is None, "after max_attempts the event goes to the dead letters"
        (letter,) = inbox.dead_letters(10)
        assert letter.key == "k-1" and letter.attempts == 2
        assert "still down" in letter.reason
        assert json.loads(letter.body)["eventInfo"]["id"] == "o-1"
        assert inbox.counts() == iikocloud.InboxCounts(0, 1)
        assert inbox.dead_letters(0) == []


def test_an_unacknowledged_delivery_is_handed_out_again(url: str) -> None:
    with Inbox(url, visibility_timeout=dt.timedelta(milliseconds=300)) as inbox:
        inbox.push([("k-v", json.dumps(_order("o-v", 1)))])
        first = inbox.take()
        assert first is not None
        assert inbox.take() is None, "hidden during the visibility timeout"
        time.sleep(0.6)
        again = inbox.take()
        assert again is not None and again.id == first.id and again.attempt == 2
        assert inbox.ack(first) is False, "a stale delivery cannot ack"
        assert inbox.ack(again) is True
        assert inbox.counts().pending == 0


def _consume(url: str, out: "multiprocessing.Queue[List[str]]") -> None:
    taken = []
    with Inbox(url) as inbox:
        while (d := inbox.take()) is not None:
            taken.append(d.key)
            assert inbox.ack(d)
    out.put(taken)


def test_two_processes_take_each_event_exactly_once(url: str) -> None:
    with Inbox(url) as inbox:
        body = json.dumps([_order(f"o-{i}", i + 1) for i in range(60)]).encode()
        assert inbox.receive(TOKEN, _headers(), body).stored == 60
        keys = [event.dedup_key for event in webhooks.parse(body)]
        assert len(set(keys)) == 60
    ctx = multiprocessing.get_context("spawn")
    out: "multiprocessing.Queue[List[str]]" = ctx.Queue()
    procs = [ctx.Process(target=_consume, args=(url, out)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    taken = results[0] + results[1]
    assert sorted(taken) == sorted(keys), "every event taken exactly once"
    with Inbox(url) as inbox:
        assert inbox.counts() == iikocloud.InboxCounts(0, 0)


def test_bad_urls_and_options_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(iikocloud.InvalidInputError, match="outlive the process"):
        Inbox("memory:")
    with pytest.raises(iikocloud.InvalidInputError):
        Inbox("ftp://example.com/inbox")
    with pytest.raises(iikocloud.InvalidInputError):
        Inbox("")
    good = f"sqlite://{tmp_path / 'o.db'}"
    with pytest.raises(iikocloud.InvalidInputError, match="max_attempts"):
        Inbox(good, max_attempts=0)
    with pytest.raises(iikocloud.InvalidInputError):
        Inbox(good, max_attempts=-3)
    with pytest.raises(iikocloud.InvalidInputError, match="visibility_timeout"):
        Inbox(good, visibility_timeout=-1)
    with pytest.raises(iikocloud.InvalidInputError, match="visibility_timeout"):
        Inbox(good, visibility_timeout=0)
    with pytest.raises(iikocloud.InvalidInputError, match="dedup_ttl"):
        Inbox(good, dedup_ttl=float("nan"))
    # A directory that does not exist: a clear error, not a crash.
    with pytest.raises(iikocloud.IikoError):
        Inbox(f"sqlite://{tmp_path / 'missing' / 'dir' / 'x.db'}")


def test_the_password_never_shows() -> None:
    # Nothing listens on port 1: the error names the URL without its password.
    with pytest.raises(iikocloud.TransportError) as info:
        Inbox("redis://:hunter2-secret@127.0.0.1:1/0")
    assert "hunter2-secret" not in str(info.value)
    assert "hunter2-secret" not in repr(info.value)


def test_a_closed_inbox_refuses_calls(tmp_path: Path) -> None:
    inbox = Inbox(f"sqlite://{tmp_path / 'c.db'}")
    assert "c.db" in repr(inbox) and not inbox.closed
    with inbox:
        pass
    assert inbox.closed and repr(inbox) == "Inbox(closed)"
    with pytest.raises(iikocloud.IikoError, match="closed"):
        inbox.take()
    inbox.close()  # twice is fine
    # The events outlive the object: a new one finds them.
    path = tmp_path / "d.db"
    with Inbox(f"sqlite://{path}") as first:
        first.push([("k", "{}")])
    with Inbox(f"sqlite://{path}") as second:
        assert second.counts().pending == 1


def test_bad_arguments_raise_not_crash(tmp_path: Path) -> None:
    with Inbox(f"sqlite://{tmp_path / 'b.db'}") as inbox:
        with pytest.raises(iikocloud.InvalidInputError):
            inbox.receive(TOKEN, 42, b"[]")  # type: ignore[arg-type]
        with pytest.raises(iikocloud.InvalidInputError):
            inbox.receive(TOKEN, _headers(), 3.5)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            inbox.ack("not a delivery")  # type: ignore[arg-type]
        # Invalid UTF-8 from an authentic sender: kept as a dead letter.
        r = inbox.receive(TOKEN, _headers(), b"\xff\xfe[]")
        assert r.status == 200 and r.error and inbox.counts().dead == 1
        # A str body works like its UTF-8 bytes.
        body = (VECTORS / "reserve_update.json").read_text()
        assert inbox.receive(TOKEN, _headers(), body).stored == 1


def test_a_shared_store_drops_repeats_across_inboxes(tmp_path: Path) -> None:
    store = f"sqlite://{tmp_path / 'dedup.db'}"
    body = (VECTORS / "stop_list_update.json").read_bytes()
    with Inbox(f"sqlite://{tmp_path / 'a.db'}") as a, Inbox(f"sqlite://{tmp_path / 'b.db'}") as b:
        assert a.receive(TOKEN, _headers(), body, store=store).stored == 1
        r = b.receive(TOKEN, _headers(), body, store=store)
        assert (r.status, r.stored, r.repeats) == (200, 0, 1)
        assert b.counts().pending == 0
        # A store URL that cannot be opened is a programming error: raised.
        with pytest.raises(iikocloud.InvalidInputError):
            b.receive(TOKEN, _headers(), body, store="nope://")


def test_a_flask_handler_answers_at_once_and_a_worker_drains(tmp_path: Path) -> None:
    flask = pytest.importorskip("flask")
    inbox = Inbox(f"sqlite://{tmp_path / 'flask.db'}")
    app = flask.Flask("inbox")

    @app.post("/webhook")
    def webhook() -> tuple[str, int]:
        received = inbox.receive(TOKEN, flask.request.headers, flask.request.get_data())
        return "", received.status

    client = app.test_client()
    body = (VECTORS / "table_order_update.json").read_bytes()
    assert client.post("/webhook", data=body, headers=_headers()).status_code == 200
    assert client.post("/webhook", data=body, headers=_headers()).status_code == 200
    assert client.post("/webhook", data=body, headers=_headers("x")).status_code == 401
    handled = []
    while (d := inbox.take()) is not None:
        handled.append(d.event)
        inbox.ack(d)
    assert [type(e) for e in handled] == [webhooks.TableOrderUpdate]
    inbox.close()

