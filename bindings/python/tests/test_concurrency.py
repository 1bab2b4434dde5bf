"""Threads sharing one client (the GIL must be released during I/O) and the
asyncio client (concurrent, cancellation-safe)."""

from __future__ import annotations

import asyncio
import os
import http.server
import threading
import time

import pytest

import iikocloud
from iikocloud.testing import ORGANIZATION_ID, Emulator

ORGS = "/api/1/organizations"
DELAY = 0.6


class _SlowService(http.server.BaseHTTPRequestHandler):
    """A stand-in for the service written in Python: if a client call held
    the GIL while waiting, these handler threads could not run and the test
    would hang instead of finishing in about one DELAY."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.endswith("/access_token"):
            body = b'{"correlationId":"t","token":"opaque-token"}'
        else:
            time.sleep(DELAY)
            body = b'{"correlationId":"slow","organizations":[]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_threads_share_one_client_in_parallel() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowService)
    server.daemon_threads = True
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        client = iikocloud.Client(
            api_login="login", base_url=f"http://127.0.0.1:{server.server_address[1]}"
        )
        n = 8
        results: list = []
        errors: list = []

        def work() -> None:
            try:
                results.append(client.organizations())
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(n)]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        elapsed = time.monotonic() - started
        assert not errors and len(results) == n
        assert all(r.correlation_id == "slow" for r in results)
        # Serialized calls would take n * DELAY = 4.8 s.
        assert elapsed < DELAY * n / 2, elapsed
    finally:
        server.shutdown()
        server.server_close()


def test_python_keeps_running_while_a_call_waits(emu: Emulator) -> None:
    """A held GIL would freeze the counter thread during the call."""
    client = emu.client()
    client.ensure_token()
    emu.inject(ORGS, "delay", delay=DELAY)
    stop = threading.Event()
    ticks = [0]

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.05)
        before = ticks[0]
        client.organizations()
        during = ticks[0] - before
    finally:
        stop.set()
        counter.join()
    assert during > 1000, during


def test_cold_client_threads_make_one_token_request(emu: Emulator) -> None:
    client = emu.client()
    emu.inject("/api/v2/access_token", "delay", delay=0.3)
    threads = [threading.Thread(target=client.organizations) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert emu.request_count("/api/v2/access_token") == 1
    assert emu.request_count(ORGS) == 8


def test_async_client_methods(emu: Emulator) -> None:
    async def main() -> None:
        async with emu.async_client() as client:
            orgs = await client.organizations()
            assert orgs.organizations
            stops = await client.stop_lists(organization_ids=[ORGANIZATION_ID])
            assert stops.terminal_group_stop_lists
            await client.webhooks.update_settings(
                organization_id=ORGANIZATION_ID, web_hooks_uri="http://127.0.0.1:9/x", auth_token="tok-123456"
            )
            s = await client.webhooks.settings(organization_id=ORGANIZATION_ID)
            assert s.web_hooks_uri == "http://127.0.0.1:9/x"
            raw = await client.call(ORGS, {})
            assert raw["correlationId"]
            assert client.token_expires_at() is not None
            emu.inject(ORGS, "status", status=400)
            with pytest.raises(iikocloud.BadRequestError) as info:
                await client.organizations()
            assert info.value.correlation_id
        assert client.closed

    asyncio.run(main())


def test_async_calls_run_concurrently(emu: Emulator) -> None:
    client = emu.async_client()

    async def main() -> float:
        await client.ensure_token()
        emu.inject(ORGS, "delay", delay=DELAY, times=4)
        started = time.monotonic()
        results = await asyncio.gather(*(client.organizations() for _ in range(4)))
        assert len(results) == 4
        return time.monotonic() - started

    assert asyncio.run(main()) < DELAY * 4 / 2


def test_async_cancellation_returns_at_once_and_the_request_completes(emu: Emulator) -> None:
    client = emu.async_client()

    async def main() -> float:
        await client.ensure_token()
        emu.inject(ORGS, "delay", delay=1.0)
        started = time.monotonic()
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.organizations(), timeout=0.2)
        cancelled_after = time.monotonic() - started
        # The loop is free meanwhile; the request finishes in its thread.
        await asyncio.sleep(1.3)
        return cancelled_after

    assert asyncio.run(main()) < 0.6
    served = [r for r in emu.requests() if r["path"] == ORGS]
    assert served and served[-1]["status"] == 200


def test_an_idle_keep_alive_connection_never_stalls_concurrent_calls() -> None:
    """The scenario that stalled the emulator on tiny_http: one client keeps
    an idle connection open, then 8 threads of another call at once while
    every answer is delayed by 0.3 s. Some calls waited the whole client
    timeout (4.6 s). Every call must now answer in about the delay."""
    delay, margin, threads = 0.3, 0.7, 8
    for trial in range(15):
        with Emulator() as emu:
            idle = emu.client()
            idle.organizations()  # its connection now sits idle in the pool
            busy = emu.client(timeout=2, client_timeout=4)
            busy.ensure_token()
            emu.inject(ORGS, "delay", delay=delay, times=threads)
            took: list = []
            start = threading.Barrier(threads)

            def call() -> None:
                start.wait()
                t = time.monotonic()
                busy.organizations()
                took.append(time.monotonic() - t)

            workers = [threading.Thread(target=call) for _ in range(threads)]
            for w in workers:
                w.start()
            for w in workers:
                w.join(timeout=30)
            assert len(took) == threads, f"trial {trial}: {len(took)} calls finished"
            assert max(took) < delay + margin, f"trial {trial}: {sorted(took)}"
            idle.close()


def test_async_client_runs_far_more_calls_at_once_than_the_default_executor(emu: Emulator) -> None:
    """The loop's default executor has cpu + 4 threads: 64 calls of 0.3 s
    would take 0.3 s times 64 / 6 there. The client's own pool runs them
    together."""
    calls, delay = 64, 0.3

    async def main() -> float:
        async with emu.async_client() as client:
            await client.ensure_token()
            emu.inject(ORGS, "delay", delay=delay, times=calls)
            started = time.monotonic()
            results = await asyncio.gather(*(client.organizations() for _ in range(calls)))
            assert len(results) == calls
            return time.monotonic() - started

    elapsed = asyncio.run(main())
    # Not a speed target: the bound is half of what the default executor
    # would need at best, so a loaded machine does not fail it.
    default_workers = min(32, (os.cpu_count() or 1) + 4)
    serial_batches = -(-calls // default_workers)
    assert elapsed < delay * serial_batches / 2, (elapsed, serial_batches)


def test_async_client_max_workers_bounds_calls_in_flight(emu: Emulator) -> None:
    calls, delay, workers = 8, 0.3, 2

    async def main() -> float:
        async with emu.async_client(max_workers=workers) as client:
            await client.ensure_token()
            emu.inject(ORGS, "delay", delay=delay, times=calls)
            started = time.monotonic()
            await asyncio.gather(*(client.organizations() for _ in range(calls)))
            return time.monotonic() - started

    # 8 calls, 2 at a time: at least 4 rounds of the delay.
    assert asyncio.run(main()) >= delay * calls / workers * 0.95


def test_async_client_views_share_the_pool_until_the_last_closes(emu: Emulator) -> None:
    async def main() -> None:
        client = emu.async_client(max_workers=4)
        view = client.with_timeout(5)
        await client.aclose()
        # The view still works: the pool stays while a handle shares it.
        assert (await view.organizations()).organizations
        await view.aclose()
        with pytest.raises(iikocloud.IikoError):
            await view.organizations()
        with pytest.raises(iikocloud.IikoError):
            await client.organizations()

    asyncio.run(main())


def test_async_client_worker_options_are_checked() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with pytest.raises(ValueError, match="max_workers"):
        iikocloud.AsyncClient(api_login="x", max_workers=0)
    with pytest.raises(TypeError, match="max_workers"):
        iikocloud.AsyncClient(api_login="x", max_workers=2.5)  # type: ignore[arg-type]
    with ThreadPoolExecutor(2) as pool:
        with pytest.raises(ValueError, match="not both"):
            iikocloud.AsyncClient(api_login="x", executor=pool, max_workers=4)
