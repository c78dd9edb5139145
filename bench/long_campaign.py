"""A command's cost near the start of a long campaign and at its end, in memory and on SQLite.

The campaign is ``campaign_driver``'s: a 40x40 hex map, a journey with a camp each night and rest
days as owed, delves turn by turn, every encounter played to its end, on the committed dice of one
open session. A window of travel days and dungeon turns (``--window-days``, ``--window-turns``) is
timed right after the campaign is set up, again after ``--days`` travel days and ``--turns`` dungeon
turns, and again after ``--long-days`` and ``--long-turns`` (0: skip). Each window's commands are
timed two ways:

* ``warm``: one long-lived handler (a service), which keeps the projections in memory;
* ``cold``: a new handler for every command, as each ``hexlog`` invocation is.

Reported per window (microseconds, means over the early window's mix of commands, since the dice
give each window its own): a travel day's steps (``travel_us``: weather, route, moves, searches, the
check, the end of the day, rest days), a dungeon turn's move (``move_us``), the night in camp
(``camp_us``) and every command (``all_us``); each ``ratio`` is late / early (1.0: no growth with
history).

    .venv/bin/python bench/long_campaign.py [--days 60] [--turns 200] [--long-days 0] [--long-turns 0]
        [--window-days 10] [--window-turns 40] [--backends memory,sqlite] [--profile]

The last line on stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import statistics
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from campaign_driver import CAMPAIGN, Campaign

from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.streams import stream_for
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper

if TYPE_CHECKING:
    from hexlog.events.store import LiveStore

#: what each figure averages: the commands whose key (procedure.Command) starts with one of these
KINDS = {"travel": ("travel.",), "move": ("dungeon.Move",), "camp": ("camp.",), "all": ("",)}


def _window(run: Campaign, days: int, turns: int, *, cold: bool) -> dict[str, tuple[int, float]]:
    """Play and time one window of the campaign: each command's count and mean seconds, by procedure.Command.

    The stretches between the windows run on the long-lived handler.
    """
    gc.collect()
    run.spent.clear()
    run.fresh = (lambda: Handler(run.handler.store, run.handler.keeper)) if cold else None
    run.play(days, turns)
    run.fresh = None
    return {key: (len(times), statistics.fmean(times)) for key, times in run.spent.items()}


def _basket(windows: dict[str, dict[str, tuple[int, float]]]) -> dict[str, float]:
    """Each window's mean per kind, over the early window's mix of commands (the dice make each window's mix
    differ: a fixed basket compares like with like), and each later window's ratio to the early one."""
    early = windows["early"]
    shared = set.intersection(*(set(window) for window in windows.values()))
    out: dict[str, float] = {}
    for kind, prefixes in KINDS.items():
        keys = [key for key in shared if key.startswith(prefixes)]
        weight = sum(early[key][0] for key in keys)
        for label, window in windows.items():
            mean = sum(early[key][0] * window[key][1] for key in keys) / weight if weight else 0.0
            out[f"{kind}_{label}_us"] = round(mean * 1e6, 1)
        for label in list(windows)[1:]:
            before = out[f"{kind}_early_us"]
            out[f"{kind}_{label}_ratio"] = round(out[f"{kind}_{label}_us"] / before, 3) if before else 0.0
    return out


def warm_up() -> None:
    """A small campaign first, so that what Python does once per process (cattrs writing its structure and
    unstructure functions, the machines built) is not counted as the early window's cost."""
    run = Campaign(Handler(MemoryStore(), MemoryKeeper()))
    run.set_up(size=8)
    run.play(6, 20)


def measure(store: LiveStore, args: argparse.Namespace, *, cold: bool) -> dict[str, float]:
    """The window's means at the start, after ``--days``/``--turns`` and after the long stretch."""
    run = Campaign(Handler(store, MemoryKeeper()))
    run.set_up()
    out: dict[str, float] = {}
    points = [("early", 0, 0), ("late", args.days, args.turns)]
    if args.long_days:
        points.append(("long", args.long_days, args.long_turns))
    windows: dict[str, dict[str, tuple[int, float]]] = {}
    days_done, turns_done = 0, 0
    for label, days, turns in points:
        if days > days_done:
            run.play(days - days_done, max(0, turns - turns_done))
        out[f"events_{label}"] = store.stream_version(stream_for(CAMPAIGN))
        windows[label] = _window(run, args.window_days, args.window_turns, cold=cold)
        days_done = max(days_done, days) + args.window_days
        turns_done = max(turns_done, turns) + args.window_turns
    return out | _basket(windows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=60, help="travel days before the late window")
    parser.add_argument("--turns", type=int, default=200, help="dungeon turns before the late window")
    parser.add_argument("--long-days", type=int, default=0, help="travel days before a third window (0: none)")
    parser.add_argument("--long-turns", type=int, default=0, help="dungeon turns before the third window")
    parser.add_argument("--window-days", type=int, default=10)
    parser.add_argument("--window-turns", type=int, default=40)
    parser.add_argument("--backends", default="memory,sqlite")
    parser.add_argument("--profile", action="store_true", help="profile the late window (warm, memory) to stderr")
    args = parser.parse_args()
    result: dict[str, object] = {"name": "project_long_campaign", "days": args.days, "turns": args.turns}
    if args.long_days:
        result.update(long_days=args.long_days, long_turns=args.long_turns)
    warm_up()
    if args.profile:
        run = Campaign(Handler(MemoryStore(), MemoryKeeper()))
        run.set_up()
        run.play(args.days, args.turns)
        profile = cProfile.Profile()
        profile.runcall(run.play, args.window_days, args.window_turns)
        pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
    for backend in args.backends.split(","):
        for mode in ("warm", "cold"):
            with tempfile.TemporaryDirectory() as folder:
                store: LiveStore = MemoryStore() if backend == "memory" else SQLiteStore(Path(folder) / "bench.db")
                result[f"{backend}_{mode}"] = measure(store, args, cold=mode == "cold")
                store.close()
            print(backend, mode, json.dumps(result[f"{backend}_{mode}"]), file=sys.stderr, flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
