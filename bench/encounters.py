"""Whole encounters through the command handler on the in-memory store, per second.

Each encounter is the OSE dungeon sequence a referee runs most: start, check surprise, determine
distance, roll initiative, react, fight, one combat round, conclude (eight commands, about 25 events,
every event sealed into the hash chain and folded into the live projections). The dice are the
session's committed dice. One core, one process.

    .venv/bin/python bench/encounters.py [--encounters 2000] [--repeat 3] [--profile]

The last line on stdout is one JSON object: {"encounters_per_s": ..., "commands_per_s": ..., ...}.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import time

from workload import ENCOUNTER, set_up

from hexlog.events.memory import MemoryStore
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper


def campaign() -> Handler:
    """A handler with an OSE campaign, an open session and a party of two."""
    return set_up(Handler(MemoryStore(), MemoryKeeper()), "bench")


def run(encounters: int) -> tuple[float, int]:
    """Seconds for ``encounters`` whole encounters, and the events they wrote."""
    handler = campaign()
    before = handler.store.stream_version("campaign-bench")
    start = time.perf_counter()
    for _ in range(encounters):
        for command in ENCOUNTER:
            handler.execute("bench", command)
    elapsed = time.perf_counter() - start
    return elapsed, handler.store.stream_version("campaign-bench") - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encounters", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print where the time goes (cProfile)")
    args = parser.parse_args()
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(run, args.encounters)
        pstats.Stats(profile, stream=sys.stderr).sort_stats("tottime").print_stats(25)
    samples = [run(args.encounters) for _ in range(args.repeat)]
    rates = [args.encounters / s for s, _ in samples]
    events = samples[0][1]
    result = {
        "name": "project_encounters",
        "encounters": args.encounters,
        "repeat": args.repeat,
        "events_per_encounter": round(events / args.encounters, 2),
        "encounters_per_s": round(statistics.median(rates), 1),
        "commands_per_s": round(statistics.median(rates) * len(ENCOUNTER), 1),
        "events_per_s": round(statistics.median(rates) * events / args.encounters, 1),
        "spread": [round(min(rates), 1), round(max(rates), 1)],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
