"""Load test of `iikocloud webhook serve` with a Redis inbox, run by
scripts/webhook-load.sh: bodies with repeats (and some with a wrong token)
posted concurrently, Redis killed mid-run and started again, every 503
resent as the service would, then /metrics scraped and parsed with
prometheus_client: the counts by status and by event outcome must match
what was sent and what came back, and the inbox must hold every unique
event once.

Environment: IIKO_CLI (the binary), IIKO_TEST_REDIS_URL, IIKO_REDIS_DIR,
IIKO_REDIS_PORT (scripts/redis-server.sh), LOAD_BODIES (default 600)."""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Tuple

from prometheus_client.parser import text_string_to_metric_families

TOKEN = "load-test-hooktoken-8d02"
UNIQUE = int(os.environ.get("LOAD_BODIES", "600"))
#: Requests in flight at once; a kill can cut at most this many writes.
SENDERS = 16
REDIS_DIR = os.environ["IIKO_REDIS_DIR"]
REDIS_PORT = os.environ["IIKO_REDIS_PORT"]
INBOX = os.environ["IIKO_TEST_REDIS_URL"].rsplit("/", 1)[0] + "/7"


def body(i: int) -> bytes:
    event = {
        "eventType": "DeliveryOrderUpdate",
        "eventTime": "2025-09-16 16:02:11.877",
        "organizationId": "0ae7e972-848d-53c5-8a8f-3a120fa115ba",
        "correlationId": f"load-{i}",
        "eventInfo": {
            "id": f"load-order-{i}",
            "timestamp": 1_758_038_531_877 + i,
            "creationStatus": "Success",
            "order": {"number": i, "status": "Unconfirmed"},
        },
    }
    return json.dumps([event]).encode()


def post(addr: Tuple[str, int], token: str, data: bytes) -> int:
    conn = http.client.HTTPConnection(*addr, timeout=20)
    try:
        conn.request("POST", "/hook", data, {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        return conn.getresponse().status
    finally:
        conn.close()


def redis_kill() -> None:
    with open(os.path.join(REDIS_DIR, "redis.pid")) as f:
        pid = int(f.read().strip())
    os.kill(pid, 9)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def redis_start() -> None:
    # The flags of scripts/redis-server.sh: the same port and directory, so
    # the append-only file brings back what was written before the kill.
    subprocess.run(
        ["redis-server", "--port", REDIS_PORT, "--bind", "127.0.0.1", "--dir", REDIS_DIR,
         "--appendonly", "yes", "--appendfsync", "always", "--save", "",
         "--daemonize", "yes", "--pidfile", os.path.join(REDIS_DIR, "redis.pid"),
         "--logfile", os.path.join(REDIS_DIR, "redis.log")],
        check=True,
    )
    for _ in range(100):
        if subprocess.run(["redis-cli", "-p", REDIS_PORT, "ping"], capture_output=True).returncode == 0:
            return
        time.sleep(0.1)
    sys.exit("redis-server did not start again")


def main() -> None:
    cli = os.environ["IIKO_CLI"]
    subprocess.run(["redis-cli", "-u", INBOX, "flushdb"], check=True, capture_output=True)
    serve = subprocess.Popen(
        [cli, "webhook", "serve", "--listen", "127.0.0.1:0", "--inbox", INBOX, "--metrics", "127.0.0.1:0"],
        env={**os.environ, "IIKO_WEBHOOK_TOKEN": TOKEN},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        first = json.loads(serve.stdout.readline())
        host, port = first["listening"].removeprefix("http://").rsplit(":", 1)
        addr = (host, int(port))
        metrics_url = first["metrics"]

        # Each unique body once, a third of them again (a resend), and one in
        # ten with a wrong token, shuffled.
        rng = random.Random(32)
        plan: List[Tuple[int, str]] = [(i, TOKEN) for i in range(UNIQUE)]
        plan += [(i, TOKEN) for i in rng.sample(range(UNIQUE), UNIQUE // 3)]
        plan += [(i, "wrong-token-for-load") for i in rng.sample(range(UNIQUE), UNIQUE // 10)]
        rng.shuffle(plan)

        answers: Counter[int] = Counter()
        lock = threading.Lock()
        pending: List[int] = []  # bodies answered 503: the service resends them

        def send(item: Tuple[int, str]) -> None:
            i, token = item
            status = post(addr, token, body(i))
            with lock:
                answers[status] += 1
                if status == 503:
                    pending.append(i)

        started = time.monotonic()
        half = len(plan) // 2
        with ThreadPoolExecutor(SENDERS) as pool:
            list(pool.map(send, plan[:half // 2]))
            killer = pool.submit(redis_kill)
            list(pool.map(send, plan[half // 2:half]))
            killer.result()
            # Redis is down: these are answered 503 and resent below.
            list(pool.map(send, plan[half:half + half // 4]))
            redis_start()
            list(pool.map(send, plan[half + half // 4:]))
        # Resend what was answered 503 until accepted (a write cut by the kill
        # leaves a claim that expires after 30 s; until then: 503 again).
        deadline = time.monotonic() + 45
        while pending and time.monotonic() < deadline:
            with lock:
                again, pending[:] = list(pending), []
            with ThreadPoolExecutor(SENDERS) as pool:
                list(pool.map(send, [(i, TOKEN) for i in again]))
            if pending:
                time.sleep(0.5)
        assert not pending, f"{len(pending)} bodies still answered 503 after 45 s"
        elapsed = time.monotonic() - started

        text = urllib.request.urlopen(metrics_url, timeout=10).read().decode()
        requests: Dict[str, float] = Counter()
        outcomes: Dict[str, float] = Counter()
        for family in text_string_to_metric_families(text):
            for s in family.samples:
                if s.name == "iiko_webhook_requests_total":
                    requests[s.labels["http_response_status_code"]] += s.value
                elif s.name == "iiko_webhook_events_total":
                    assert s.labels["iiko_event_type"] == "DeliveryOrderUpdate", s
                    outcomes[s.labels["iiko_event_outcome"]] += s.value

        print(f"sent {sum(answers.values())} requests in {elapsed:.1f} s; answers {dict(answers)}; "
              f"/metrics requests {dict(requests)}, events {dict(outcomes)}")
        assert answers[503] > 0, "Redis was killed but no request was answered 503"
        assert set(answers) <= {200, 401, 503}, answers
        for status, n in answers.items():
            assert requests[str(status)] == n, (status, n, requests)
        assert sum(requests.values()) == sum(answers.values()), (requests, answers)
        # The inbox holds every unique event exactly once.
        raw = subprocess.run(["redis-cli", "-u", INBOX, "--raw", "XRANGE", "iikocloud:inbox", "-", "+"],
                             capture_output=True, text=True, check=True).stdout
        held = Counter(re.findall(r'"correlationId": ?"load-(\d+)"', raw))
        assert sorted(map(int, held)) == list(range(UNIQUE)), f"{len(held)} of {UNIQUE} events in the inbox"
        assert set(held.values()) == {1}, [k for k, n in held.items() if n > 1]
        # One outcome per accepted body, nothing rejected. Each unique event
        # counts as new once, unless the kill landed after Redis ran (and
        # synced) its write but before the answer reached the receiver: that
        # request was answered 503, and its resend counts as a duplicate of an
        # event stored all the same (checked above).
        assert outcomes["new"] + outcomes["duplicate"] == answers[200], (outcomes, answers)
        assert outcomes["rejected"] == 0, outcomes
        unconfirmed = UNIQUE - outcomes["new"]
        assert 0 <= unconfirmed <= min(SENDERS, answers[503]), (outcomes, answers)
        if unconfirmed:
            print(f"{unconfirmed:.0f} event(s) stored by a write whose answer the kill cut")
    finally:
        serve.terminate()
        serve.wait(10)


if __name__ == "__main__":
    main()
