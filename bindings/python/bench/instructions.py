"""What bodies.py times (issue 35), counted in instructions by callgrind:
figures that do not move with the machine's load, for comparing two builds
on a machine too busy to time them. Instructions are not time (the peer
retires fewer per cycle than our code: 5.2 times our instructions was 7.5
times our time on 2026-12-02), so the kept tables stay in time; this is for
before and after. Run through ``scripts/bench-instructions.sh``, which runs
this file under valgrind and then again with ``--table`` to print the table.

Each measurement is a warm-up, then n calls, then 2n calls; ``os.getppid()``
ends each phase, and valgrind (``--dump-before=getppid``) writes the count
of the phase that ended. Per call: (the 2n phase - the n phase) / n, which
leaves out the loop's own fixed cost.

    python instructions.py --phases FILE [BODY...]   # under valgrind
    python instructions.py --table FILE DIR          # reads DIR/cg.*
    python instructions.py --smoke                   # one call per phase
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Dict, List


def calls_for(size: int) -> int:
    """n for a body of ``size`` bytes: about 100 KB read per phase, from 3 to
    300 calls."""
    return max(3, min(300, 100_000 // max(size, 1)))


def count(only: List[str], phases_file: str, smoke: bool) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bodies  # noqa: E402 (imports iikocloud; --table runs without it)

    phases: List[Dict[str, Any]] = []
    # As timeit and bodies.py time them: a collection that falls in one
    # phase and not the other would count as the calls' own.
    gc.disable()

    def end_phase(**what: Any) -> None:
        os.getppid()
        phases.append(what)

    for name, body in bodies.bodies():
        if only and not any(o in name for o in only):
            continue
        n = 1 if smoke else calls_for(len(body))
        read = bodies.readers(body)
        raises = "peer" in read and bodies.peer_raises(body)
        for measure, call in read.items():
            gc.collect()  # in the warm-up's count, which is left out
            for _ in range(1 if smoke else 3):
                call()
            end_phase(body=name, measure=measure, phase="warm-up")
            for phase, calls in (("n", n), ("2n", 2 * n)):
                for _ in range(calls):
                    call()
                end_phase(body=name, bytes=len(body), measure=measure, phase=phase, calls=calls,
                          peer_raises=raises)
    Path(phases_file).write_text(json.dumps(phases))


def totals(directory: Path) -> List[int]:
    """The count of each numbered dump of ``directory``, in order."""
    dumps = []
    for path in directory.glob("cg.*.*"):
        match = re.fullmatch(r"cg\.\d+\.(\d+)", path.name)
        if match:
            total = re.search(r"^totals: (\d+)$", path.read_text(errors="replace"), re.M)
            if not total:
                sys.exit(f"instructions: {path} has no 'totals:' line (a callgrind dump cut short?)")
            dumps.append((int(match.group(1)), int(total.group(1))))
    return [t for _, t in sorted(dumps)]


def table(phases_file: str, directory: str) -> None:
    phases = json.loads(Path(phases_file).read_text())
    counts = totals(Path(directory))
    if len(counts) < len(phases):
        sys.exit(f"instructions: {len(counts)} dumps for {len(phases)} phases "
                 "(was valgrind run with --dump-before=getppid?)")
    # Dumps before the first phase (interpreter start-up) are not phases.
    counts = counts[len(counts) - len(phases):]
    per_call: Dict[str, Dict[str, Any]] = {}
    doubtful = False
    for i, phase in enumerate(phases):
        if phase["phase"] != "2n":
            continue
        n = phases[i - 1]["calls"]
        single, double = counts[i - 1], counts[i]
        # The 2n phase should count about twice the n one; otherwise another
        # getppid() call split a phase and the figure means nothing.
        odd = not (1.5 * single <= double <= 2.5 * single)
        doubtful |= odd
        row = per_call.setdefault(phase["body"], {"bytes": phase["bytes"],
                                                  "peer_raises": phase["peer_raises"]})
        row[phase["measure"]] = ((double - single) / n, odd)
    print(
        "| body | bytes | parse | `orjson.loads` | parse / `orjson.loads` "
        "| parse + every `event_info` | `orjson.loads` + walk "
        "| full read / (`orjson.loads` + walk) | peer's typed parse | peer / full read |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def fig(row: Dict[str, Any], key: str) -> str:
        if key not in row:
            return "not installed"
        value, odd = row[key]
        return f"{value:,.0f}{' ?' if odd else ''}"

    def ratio(row: Dict[str, Any], a: str, b: str, suffix: str = "") -> str:
        if a not in row or b not in row:
            return "-"
        return f"{row[a][0] / row[b][0]:.2f}{suffix}"

    for name, row in sorted(per_call.items(), key=lambda kv: kv[1]["bytes"]):
        peer = ratio(row, "peer", "full", "x")
        if row["peer_raises"] and "peer" in row:
            peer += " (it raises)"
        print(
            f"| {name} | {row['bytes']:,} | {fig(row, 'parse')} | {fig(row, 'orjson')} "
            f"| {ratio(row, 'parse', 'orjson')} "
            f"| {fig(row, 'full')} | {fig(row, 'orjson_walk')} | {ratio(row, 'full', 'orjson_walk')} "
            f"| {fig(row, 'peer')} | {peer} |"
        )
    if doubtful:
        print("\n? a phase of 2n calls did not count about twice its phase of n: "
              "something else called getppid()")


def main() -> None:
    args = sys.argv[1:]
    if "--table" in args:
        at = args.index("--table")
        table(args[at + 1], args[at + 2])
    elif "--smoke" in args:
        count([a for a in args if a != "--smoke"], os.devnull, smoke=True)
    else:
        at = args.index("--phases")
        count(args[:at] + args[at + 2:], args[at + 1], smoke=False)


if __name__ == "__main__":
    main()
