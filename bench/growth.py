"""How replay, audit and a rebuild from a checkpoint grow with a campaign's length.

For each size (default 10,000, 100,000 and 1,000,000 events) one campaign is written to a fresh
SQLite file in a temporary folder (never in the repository): sessions of 100 events one after another
(a session opened, 98 committed rolls, the session closed), the events of ``hexlog bench``. Its live
projections are saved (the checkpoint) 1,000 events before the end, as a command would leave them;
then the last 1,000 events are appended without them. Each operation then runs in a process of its
own, which reports its seconds and its peak memory:

* ``replay``: ``hexlog replay``'s rebuild of every projection from the whole log, compared with the rows;
* ``audit``: ``hexlog audit`` of the campaign (chain, commitments, every roll re-derived);
* ``checkpoint``: what a command does on a cold start: load the saved projections and fold the tail.

    .venv/bin/python bench/growth.py [--sizes 10000,100000,1000000] [--tail 1000]

A Markdown table goes to stderr; the last line on stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from hexlog.events.sqlite import SQLiteStore
from hexlog.events.streams import stream_for
from hexlog.projections import live
from hexlog.replay.rebuild import projections
from hexlog.service import benchmark

CAMPAIGN = "growth"
#: each operation: what it imports (not timed), then what is timed
OPERATIONS = {
    "replay": ("from hexlog.replay.rebuild import replay", "replay(store, 'growth')"),
    "audit": ("from hexlog.replay.audit import audit_store", "assert audit_store(store, 'growth').ok"),
    # a checkpoint used, not a fold of the whole log (which would write every row anew, the wipe first)
    "checkpoint": (
        (
            "from hexlog.events.store import EVERY_ROW\n"
            "from hexlog.projections import live\n"
            "from hexlog.replay.rebuild import projections"
        ),
        (
            "for p in projections():\n"
            "    assert all(row.key != EVERY_ROW for row in live.load(store, 'campaign-growth', p).pending)"
        ),
    ),
}
TIMED = """
import sys, time
from hexlog.events.sqlite import SQLiteStore
from hexlog.service.benchmark import peak_memory_mb
{setup}
store = SQLiteStore(sys.argv[1], create=False)
start = time.perf_counter()
{body}
spent = time.perf_counter() - start
print(spent, peak_memory_mb())
"""
HEADER = (
    "| events | replay s | replay eps | replay MB | audit s | audit eps | audit MB | checkpoint ms | checkpoint MB |\n"
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def write(path: Path, events: int, tail: int) -> None:
    """The campaign, its projections saved ``tail`` events before its end."""
    store = SQLiteStore(path)
    made = benchmark.campaign_events(events)
    benchmark.write_campaign(store, CAMPAIGN, itertools.islice(made, events - tail))
    live.refresh(store, stream_for(CAMPAIGN), projections())
    written = benchmark.write_campaign(store, CAMPAIGN, made)
    assert written == events, written  # noqa: S101 - the workload's own check
    store.close()


def timed(path: Path, setup: str, body: str) -> tuple[float, float]:
    """Seconds and peak memory (MB) of ``body`` run in a process of its own on the store at ``path``."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", TIMED.format(setup=setup, body=body), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, mb = done.stdout.split()
    return float(seconds), float(mb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--tail", type=int, default=1000, help="events after the checkpoint")
    args = parser.parse_args()
    rows: list[dict[str, float]] = []
    print(HEADER, file=sys.stderr)
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="hexlog-growth-") as folder:
            path = Path(folder) / "growth.db"
            write(path, size, min(args.tail, size // 2))
            row: dict[str, float] = {"events": size}
            for name, (setup, body) in OPERATIONS.items():
                seconds, mb = timed(path, setup, body)
                row[f"{name}_s"], row[f"{name}_mb"] = round(seconds, 3), round(mb, 1)
            rows.append(row)
        print(
            f"| {size:,} | {row['replay_s']:.2f} | {size / row['replay_s']:,.0f} | {row['replay_mb']:.0f} "
            f"| {row['audit_s']:.2f} | {size / row['audit_s']:,.0f} | {row['audit_mb']:.0f} "
            f"| {row['checkpoint_s'] * 1000:.0f} | {row['checkpoint_mb']:.0f} |",
            file=sys.stderr,
            flush=True,
        )
    print(json.dumps({"name": "project_growth", "tail": args.tail, "rows": rows}))


if __name__ == "__main__":
    main()
