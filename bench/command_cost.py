"""A command's cost at event 100 of a campaign and at event 10,000, on SQLite and in memory.

A command must cost the same at the end of a long campaign as at its start: it reads and writes the
same few rows of its live projections, never the whole log. This measures the mean time of whole
encounters' commands (start, surprise, distance, initiative, reaction, fight, a round, conclude) at
two points of one campaign, in two ways:

* ``warm``: one long-lived handler (a service), which keeps the projections in memory;
* ``cold``: a new handler for every command, as each ``hexlog`` invocation is: it loads the table
  and the ledger from their rows in the store.

It also measures a roll (``1d6``) after one session and after many (``--sessions``), each opened and
closed, warm and cold: what a command reads and writes must not grow with the sessions either.

    .venv/bin/python bench/command_cost.py [--early 100] [--late 10000] [--samples 40] [--sessions 3000]

The last line on stdout is one JSON object; each ``ratio`` is late / early (1.0: no growth).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from workload import ENCOUNTER, set_up

from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper

if TYPE_CHECKING:
    from hexlog.events.store import LiveStore

CAMPAIGN = "long"
STREAM = f"campaign-{CAMPAIGN}"
ROLL = c.RollDice(expression="1d6")


def _grow(handler: Handler, events: int) -> None:
    """Run whole encounters until the campaign holds at least ``events`` events."""
    while handler.store.stream_version(STREAM) < events:
        for command in ENCOUNTER:
            handler.execute(CAMPAIGN, command)


def _time(store: LiveStore, keeper: MemoryKeeper, warm: Handler, encounters: int, *, cold: bool) -> float:
    """Mean seconds per command over ``encounters`` whole encounters."""
    spent = 0.0
    count = 0
    for _ in range(encounters):
        for command in ENCOUNTER:
            handler = Handler(store, keeper) if cold else warm
            start = time.perf_counter()
            handler.execute(CAMPAIGN, command)
            spent += time.perf_counter() - start
            count += 1
    return spent / count


def measure(store: LiveStore, early: int, late: int, samples: int) -> dict[str, float]:
    """Per-command means (in microseconds) at ``early`` and ``late`` events, warm and cold, and their ratios."""
    keeper = MemoryKeeper()
    handler = set_up(Handler(store, keeper), CAMPAIGN)
    out: dict[str, float] = {}
    for label, target in (("early", early), ("late", late)):
        _grow(handler, target)
        out[f"events_{label}"] = store.stream_version(STREAM)
        for mode in ("warm", "cold"):
            mean = _time(store, keeper, handler, samples, cold=mode == "cold")
            handler = Handler(store, keeper)  # the warm handler caught up with what the cold ones wrote
            out[f"{mode}_{label}_us"] = round(mean * 1e6, 1)
    for mode in ("warm", "cold"):
        out[f"{mode}_ratio"] = round(out[f"{mode}_late_us"] / out[f"{mode}_early_us"], 3)
    return out


def _open_sessions(handler: Handler, count: int) -> None:
    """Close the open session and open another until the campaign has had ``count`` sessions."""
    while handler.load(CAMPAIGN).session_count < count:
        handler.execute(CAMPAIGN, c.CloseSession())
        handler.execute(CAMPAIGN, c.OpenSession())


def _time_rolls(store: LiveStore, keeper: MemoryKeeper, warm: Handler, rolls: int, *, cold: bool) -> float:
    """Mean seconds per ``1d6`` roll over ``rolls`` rolls."""
    spent = 0.0
    for _ in range(rolls):
        handler = Handler(store, keeper) if cold else warm
        start = time.perf_counter()
        handler.execute(CAMPAIGN, ROLL)
        spent += time.perf_counter() - start
    return spent / rolls


def measure_sessions(store: LiveStore, late: int, rolls: int) -> dict[str, float]:
    """Per-roll means (in microseconds) after one session and after ``late`` sessions, warm and cold."""
    keeper = MemoryKeeper()
    handler = set_up(Handler(store, keeper), CAMPAIGN)
    out: dict[str, float] = {}
    for label, target in (("early", 1), ("late", late)):
        _open_sessions(handler, target)
        out[f"sessions_{label}"] = handler.load(CAMPAIGN).session_count
        for mode in ("warm", "cold"):
            mean = _time_rolls(store, keeper, handler, rolls, cold=mode == "cold")
            handler = Handler(store, keeper)
            out[f"roll_{mode}_{label}_us"] = round(mean * 1e6, 1)
    for mode in ("warm", "cold"):
        out[f"roll_{mode}_ratio"] = round(out[f"roll_{mode}_late_us"] / out[f"roll_{mode}_early_us"], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--early", type=int, default=100)
    parser.add_argument("--late", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=40, help="whole encounters timed at each point")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=3000, help="sessions before the late rolls (0: skip)")
    parser.add_argument("--rolls", type=int, default=200, help="rolls timed after one session and after many")
    args = parser.parse_args()
    result: dict[str, object] = {"name": "project_command_cost", "early": args.early, "late": args.late}
    for backend in ("memory", "sqlite"):
        runs = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as folder:
                store: LiveStore = MemoryStore() if backend == "memory" else SQLiteStore(Path(folder) / "bench.db")
                run = measure(store, args.early, args.late, args.samples)
                store.close()
            if args.sessions:
                with tempfile.TemporaryDirectory() as folder:
                    store = MemoryStore() if backend == "memory" else SQLiteStore(Path(folder) / "bench.db")
                    run.update(measure_sessions(store, args.sessions, args.rolls))
                    store.close()
            runs.append(run)
        result[backend] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
