"""AsyncClient fan-out: N calls at once, each answered after 0.3 s by the
emulator, on a 6-thread executor (what the event loop's default executor has
on a 2-core machine: cpu + 4) and on the client's own pool. Prints a
Markdown table; run by scripts/py-bench.sh."""

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from iikocloud.testing import Emulator

import bench

ORGS = "/api/1/organizations"

async def run(emu, n, **kw):
    async with emu.async_client(**kw) as c:
        await c.ensure_token()
        emu.inject(ORGS, "delay", delay=0.3, times=n)
        t = time.monotonic()
        await asyncio.gather(*(c.organizations() for _ in range(n)))
        return time.monotonic() - t

with Emulator() as emu:
    print("| calls at once (0.3 s answer each) | loop's default executor (cpu+4 = 6 threads) | AsyncClient's own pool (256) |")
    print("|---:|---:|---:|")
    for n in (4,) if bench.SMOKE else (16, 64, 256):
        old = asyncio.run(run(emu, n, executor=ThreadPoolExecutor(6)))
        new = asyncio.run(run(emu, n))
        print(f"| {n} | {old:.2f} s | {new:.2f} s |")
