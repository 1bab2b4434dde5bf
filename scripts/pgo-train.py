"""The training run of the profile-guided build (scripts/dist-wheel.sh,
``pgo_profile``): what a receiver and a client do, run on an instrumented
build of the Python module, whose counts then tell the compiler which code is
hot and which is cold.

Trained on the test vectors (tests/vectors/payloads, indented) and on bodies
made from them (compact, and spaced as ``json.dumps`` writes), never on the
benchmark's bodies (benches/data/bodies), which stay held out. Covers the
webhook parse with every read a receiver makes (typed ``event_info`` and its
``to_dict``, the plain reading, the envelope), ``receive`` with its
verification, ``parse_event``, the kinds of odd event the service sends
(unknown types, no or wrong-typed ``eventInfo``, ``null`` members) and client
calls against the emulator (in a process of its own).
Run by ``pgo_profile`` so that its counts are the same every time: a fixed
random source (scripts/pgo-fixed-random.c), Python's hash seed fixed and
address randomization off; see the history of 2026-12-02 in BENCHMARKS.md.

    python scripts/pgo-train.py     # with the instrumented module importable
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

import iikocloud
from iikocloud import webhooks
from iikocloud.testing import API_KEY, APP_ID, CLIENT_SECRET

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors" / "payloads"
TOKEN = "pgo-training-token"
ROUNDS = 200


def odd_variants(events: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The vectors' events as the service also sends them: of a type this
    library does not know, without ``eventInfo``, with one of the wrong type,
    with ``null`` in it."""
    odd = []
    for event in events:
        unknown = dict(event, eventType="NomenclatureUpdate")
        no_info = {k: v for k, v in event.items() if k != "eventInfo"}
        wrong_type = dict(event, eventInfo="unavailable")
        with_null = dict(event)
        if isinstance(event.get("eventInfo"), dict):
            with_null["eventInfo"] = {k: None for k in event["eventInfo"]}
        odd += [unknown, no_info, wrong_type, with_null]
    return odd


def bodies() -> List[bytes]:
    found = []
    for path in sorted(VECTORS.glob("*.json")):
        text = path.read_bytes()
        found.append(text)
        try:
            events = json.loads(text)
        except ValueError:
            continue
        if isinstance(events, list) and events:
            found.append(json.dumps(odd_variants(events)).encode())
            # Compact, as the service writes: the vectors are indented, and
            # the Python module reads compact text with a reader of its own.
            found.append(json.dumps(events, ensure_ascii=False, separators=(",", ":")).encode())
    if not found:
        sys.exit(f"pgo-train: no bodies in {VECTORS}")
    return found


def read_everything(event: webhooks.Event) -> None:
    info = event.event_info
    if hasattr(info, "to_dict"):
        info.to_dict()
    event.raw_event_info
    event.to_dict()
    (event.event_type, event.event_time, event.organization_id, event.correlation_id)


def train_webhooks() -> int:
    events = 0
    all_bodies = bodies()
    authorization = f"Bearer {TOKEN}"
    for _ in range(ROUNDS):
        for body in all_bodies:
            receipt = webhooks.receive({"Authorization": authorization}, body, TOKEN)
            for event in receipt.events:
                read_everything(event)
                read_everything(webhooks.parse_event(event.raw_json))
                events += 1
            for event in webhooks.parse(body):
                event.event_info
    return events


# The emulator, serving until its standard input closes.
SERVE = """
import sys
from iikocloud.testing import Emulator
with Emulator() as emulator:
    print(emulator.url, flush=True)
    sys.stdin.read()
"""


def train_client() -> int:
    # The emulator runs in a process of its own whose counts are thrown
    # away: its server threads' counts vary from run to run (which thread
    # takes a connection, how often one waits), and would make the build
    # differ; the client's calls, on this thread, count the same every time.
    calls = 0
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(scratch, "%p.profraw"))
        server = subprocess.Popen(
            [sys.executable, "-c", SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
        )
        assert server.stdin is not None and server.stdout is not None
        try:
            url = server.stdout.readline().strip()
            if not url:
                sys.exit("pgo-train: the emulator did not start")
            client = iikocloud.Client(base_url=url, app_id=APP_ID, client_secret=CLIENT_SECRET, api_key=API_KEY)
            for _ in range(ROUNDS):
                client.organizations()
                calls += 1
            client.close()
        finally:
            server.stdin.close()
            server.wait(timeout=60)
    return calls


def main() -> None:
    events = train_webhooks()
    calls = train_client()
    print(f"pgo-train: {events} events read, {calls} calls made")


if __name__ == "__main__":
    main()
