"""The store figures of hexlog, the peer (``eventsourcing``) and the limit (``sqlite3`` + ``orjson``) measured in turn.

On a machine whose speed moves from one minute to the next (a shared virtual machine), figures taken minutes apart
compare the minutes as much as the code. This runs the three sides one after another, each in a process of its own
and each a few seconds long, ``--rounds`` times, and reports each side's median and the median (and range) of the
ratios of the rounds: hexlog / limit and hexlog / peer.

It needs the peers' benchmark folder with its virtual environment (see README.md: ``../shared/bench`` copied outside
the repository, ``.venv`` made there from its ``requirements.txt``):

    .venv/bin/python bench/side_by_side.py --peers /tmp/peerbench [--rounds 5] [--keys read_stream,replay,...]

The workload is ``hexlog bench``'s and the peers' (streams of 100: a start and dice rolls): reads and replay of a
100,000-event log written once in a temporary folder per side, appends of 20,000 events 100 a call, and 1,000 events
one per durable transaction. The machine layer's keys (``trigger``, ``create_shared``, ``attach_detach``) are
``peer_machines.py``'s: its path of ten triggers fired on one model, and 10,000 new models attached to one shared
machine (and detached again), hexlog's kit against bare ``transitions`` (the peer) and a plain dict table (the
limit). Progress goes to stderr; the last line on stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

#: the keys of the machine layer: hexlog's kit against bare ``transitions`` (the peer) and a plain dict table (the
#: limit)
MACHINE_KEYS = ("trigger", "create_shared", "attach_detach")
KEYS = ("append_tx1", "append_batch100", "read_stream", "read_log", "replay", *MACHINE_KEYS)
MACHINE_COUNT = 10_000  # the peers cap the models one shared machine holds at 10,000
READ_EVENTS = 100_000
BATCH_EVENTS = 20_000
TX1_EVENTS = 1_000


def _best(run: Any, count: int, samples: int = 3) -> float:
    """``count`` over the fastest of ``samples`` runs of ``run()``."""
    spent = []
    for _ in range(samples):
        gc.collect()
        start = time.perf_counter()
        run()
        spent.append(time.perf_counter() - start)
    return count / min(spent)


def _remove(path: Path) -> None:
    """A SQLite file and its WAL and shared-memory files."""
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


# -- hexlog -----------------------------------------------------------------------------------------


def _hexlog(key: str, folder: Path) -> float:
    from hexlog.events.sqlite import SQLiteStore  # noqa: PLC0415 - only this side has hexlog
    from hexlog.events.streams import stream_for  # noqa: PLC0415
    from hexlog.service import benchmark  # noqa: PLC0415

    if key in MACHINE_KEYS:
        return max(benchmark.machine_layer(MACHINE_COUNT)[f"project_{key}_per_s"] for _ in range(3))
    if key in {"read_stream", "read_log", "replay"}:
        path = folder / "hexlog.db"
        if not path.exists():
            store = SQLiteStore(path)
            benchmark.write_log(store, READ_EVENTS, 100, 100)
            store.close()
        store = SQLiteStore(path, create=False)
        read = {
            "read_stream": lambda: benchmark.read_streams(store),
            "read_log": lambda: benchmark.read_log(store),
            "replay": lambda: benchmark.replay_all(store),
        }[key]
        read()
        return _best(read, READ_EVENTS)
    count = BATCH_EVENTS if key == "append_batch100" else TX1_EVENTS
    streams = list(benchmark.workload(count, 100))
    rates = []
    for _ in range(3):
        path = folder / f"append-{uuid.uuid4().hex}.db"
        store = SQLiteStore(path)

        def write(store: SQLiteStore = store) -> None:
            size = 100 if key == "append_batch100" else 1
            for campaign, stream in streams:
                for at in range(0, len(stream), size):
                    batch = benchmark.new_events(campaign, stream[at : at + size], at)
                    store.append(stream_for(campaign), batch, expected_version=at)

        rates.append(_best(write, count, samples=1))
        store.close()
        _remove(path)
    return max(rates)


# -- the limit --------------------------------------------------------------------------------------


def _limit(key: str, folder: Path, peers: Path) -> float:
    sys.path.insert(0, str(peers))
    import limit_sqlite as limit  # type: ignore[import-not-found]  # noqa: PLC0415 - the peers' own code

    if key in MACHINE_KEYS:
        return _machines("limit", key)
    if key in {"read_stream", "read_log", "replay"}:
        return _limit_read(key, folder, limit)
    count = BATCH_EVENTS if key == "append_batch100" else TX1_EVENTS
    rows, _ = limit.make_rows(count, 100)
    rates = []
    for _ in range(3):
        path = folder / f"limit-append-{uuid.uuid4().hex}.db"
        conn = _limit_connect(path, limit)

        def write(conn: sqlite3.Connection = conn) -> None:  # as limit_sqlite.py writes
            if key == "append_tx1":
                for row in rows:
                    conn.execute("BEGIN")
                    conn.execute(limit.INSERT_SQL, row)
                    conn.execute("COMMIT")
                return
            for at in range(0, count, 100):
                conn.execute("BEGIN")
                conn.executemany(limit.INSERT_SQL, rows[at : at + 100])
                conn.execute("COMMIT")

        rates.append(_best(write, count, samples=1))
        conn.close()
        _remove(path)
    return max(rates)


def _limit_connect(path: Path, limit: Any) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(limit.SCHEMA_SQL)
    return conn


def _limit_log(path: Path, limit: Any) -> None:
    """The limit's log of ``READ_EVENTS`` events, written once."""
    rows, _ = limit.make_rows(READ_EVENTS, 100)
    conn = _limit_connect(path, limit)
    conn.execute("BEGIN")
    conn.executemany(limit.INSERT_SQL, rows)
    conn.execute("COMMIT")
    conn.close()


class _State:
    """The limit's read model of a stream (``limit_sqlite.py``'s replay)."""

    __slots__ = ("id", "last_purpose", "name", "rolls", "total", "version")


def _limit_replay(conn: sqlite3.Connection, streams: list[str], query: str, loads: Any) -> None:
    """Every stream read and folded into its read model, as ``limit_sqlite.py``'s ``replay_orjson``."""
    for sid in streams:
        state: Any = None
        for _, _, version, kind, data in conn.execute(query, (sid,)).fetchall():
            payload = loads(data)
            if kind == "DiceRolled":
                state.rolls += 1
                state.total += payload["total"]
                state.last_purpose = payload["purpose"]
            else:
                state = _State()
                state.id, state.name, state.rolls, state.total, state.last_purpose = sid, payload["name"], 0, 0, ""
            state.version = version


def _limit_read(key: str, folder: Path, limit: Any) -> float:
    import orjson  # noqa: PLC0415 - the peers' requirement, and hexlog's

    path = folder / "limit.db"
    if not path.exists():
        _limit_log(path, limit)
    conn = sqlite3.connect(path, isolation_level=None)
    streams = [row[0] for row in conn.execute("SELECT DISTINCT stream_id FROM events")]

    def read_streams() -> None:
        for sid in streams:
            for row in conn.execute(limit.READ_STREAM_SQL, (sid,)).fetchall():
                orjson.loads(row[4])

    def read_log() -> None:
        for row in conn.execute(limit.READ_LOG_SQL):
            orjson.loads(row[4])

    def replay() -> None:
        _limit_replay(conn, streams, limit.READ_STREAM_SQL, orjson.loads)

    read = {"read_stream": read_streams, "read_log": read_log, "replay": replay}[key]
    read()
    return _best(read, READ_EVENTS)


# -- the peer ---------------------------------------------------------------------------------------


def _peer(key: str, folder: Path, peers: Path) -> float:
    sys.path.insert(0, str(peers))
    import peer_eventsourcing as peer  # type: ignore[import-not-found]  # noqa: PLC0415 - the peers' own code
    from _common import dice_rolls  # type: ignore[import-not-found]  # noqa: PLC0415

    if key in MACHINE_KEYS:
        return _machines("peer", key)
    if key in {"read_stream", "read_log", "replay"}:
        where = folder / "peer"
        ids_file = where / "ids"
        if not ids_file.exists():
            where.mkdir(exist_ok=True)
            app = peer.new_app(str(where))
            ids = peer.write(app, dice_rolls(READ_EVENTS), 100, 100)
            ids_file.write_text("\n".join(str(i) for i in ids))
            app.close()
        app = peer.new_app(str(where))
        ids = [uuid.UUID(line) for line in ids_file.read_text().split()]
        read = {
            "read_stream": lambda: peer.read_streams(app, ids),
            "read_log": lambda: peer.read_log(app, decode=True),
            "replay": lambda: peer.replay(app, ids),
        }[key]
        read()
        return _best(read, READ_EVENTS)
    count = BATCH_EVENTS if key == "append_batch100" else TX1_EVENTS
    rolls = dice_rolls(count)
    rates = []
    for _ in range(3):
        where = folder / f"peer-append-{uuid.uuid4().hex}"
        where.mkdir()
        app = peer.new_app(str(where))
        batch = 100 if key == "append_batch100" else 1
        rates.append(_best(lambda app=app, batch=batch: peer.write(app, rolls, 100, batch), count, samples=1))
        app.close()
        shutil.rmtree(where)
    return max(rates)


def _machines(side: str, key: str) -> float:
    """The peers' machine-layer figure for ``key``, as ``peer_machines.py`` measures it (the best of three): bare
    ``transitions`` for the peer, its plain dict table for the limit (whose attach and detach is a state set on a new
    model, as its ``plain_create_shared``)."""
    import peer_machines as machines  # type: ignore[import-not-found]  # noqa: PLC0415 - the peers' own code

    if key == "trigger":
        cycles = max(1, MACHINE_COUNT // len(machines.PATH))
        return _best(lambda: _fire_path(machines, side, cycles), cycles * len(machines.PATH))
    initial, detach = ("awaiting", False) if key == "create_shared" else ("combat", True)
    return _best(lambda: _attach(machines, side, initial, detach=detach), MACHINE_COUNT)


def _fire_path(machines: Any, side: str, cycles: int) -> None:
    """The peers' path of triggers fired ``cycles`` times on one model."""
    if side == "peer":
        model = machines.Encounter()
        machines.transitions_machine(model)
        fires = [getattr(model, t) for t in machines.PATH]
    else:
        fire = machines.PlainMachine(machines.Encounter()).fire
        fires = [functools.partial(fire, t) for t in machines.PATH]
    for _ in range(cycles):
        for one in fires:
            one()


def _attach(machines: Any, side: str, initial: str, *, detach: bool) -> None:
    """``MACHINE_COUNT`` new models put in ``initial`` (attached to one shared ``transitions`` machine for the peer,
    and detached again if ``detach``)."""
    if side != "peer":
        for i in range(MACHINE_COUNT):
            machines.Encounter(i).state = initial
        return
    machine = machines.transitions_machine(None)
    for i in range(MACHINE_COUNT):
        model = machines.Encounter(i)
        machine.add_model(model, initial=initial)
        if detach:
            machine.remove_model(model)


# -- the run ----------------------------------------------------------------------------------------


def _one(side: str, key: str, folder: Path, peers: Path) -> None:
    """Measure one side's figure for one key in this process and print it."""
    if side == "hexlog":
        rate = _hexlog(key, folder)
    elif side == "limit":
        rate = _limit(key, folder, peers)
    else:
        rate = _peer(key, folder, peers)
    print(rate)


def _spread(ratios: list[float]) -> list[float]:
    """The median of the rounds' ratios, then the lowest and the highest."""
    return [round(statistics.median(ratios), 2), round(min(ratios), 2), round(max(ratios), 2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=Path, required=True, help="the peers' benchmark folder, with its .venv")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keys", default=",".join(KEYS))
    parser.add_argument("--one", nargs=3, metavar=("SIDE", "KEY", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        side, key, folder = args.one
        _one(side, key, Path(folder), args.peers.resolve())
        return
    peer_python = args.peers / ".venv" / "bin" / "python"
    me = str(Path(__file__).resolve())
    result: dict[str, Any] = {"name": "side_by_side", "rounds": args.rounds, "keys": {}}
    with tempfile.TemporaryDirectory(prefix="hexlog-side-") as name:
        folder = Path(name)
        for key in args.keys.split(","):
            figures: dict[str, list[float]] = {"limit": [], "peer": [], "hexlog": []}
            for turn in range(1, args.rounds + 1):
                limit_python = str(peer_python) if key in MACHINE_KEYS else sys.executable  # the peers' machine module
                for side, python in (("limit", limit_python), ("peer", str(peer_python)), ("hexlog", sys.executable)):
                    done = subprocess.run(  # noqa: S603 - our own script, by our own interpreters
                        [python, me, "--peers", str(args.peers), "--one", side, key, str(folder)],
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    figures[side].append(float(done.stdout.strip().splitlines()[-1]))
                print(f"{key}: round {turn}/{args.rounds}", file=sys.stderr)
            to_limit = [h / lim for h, lim in zip(figures["hexlog"], figures["limit"], strict=True)]
            to_peer = [h / p for h, p in zip(figures["hexlog"], figures["peer"], strict=True)]
            summary = {
                **{side: round(statistics.median(values)) for side, values in figures.items()},
                "hexlog_to_limit": _spread(to_limit),
                "hexlog_to_peer": _spread(to_peer),
            }
            result["keys"][key] = summary
            print(
                f"| {key} | {summary['limit']:,} | {summary['peer']:,} | {summary['hexlog']:,} "
                f"| {summary['hexlog_to_limit'][0]} [{summary['hexlog_to_limit'][1]}-{summary['hexlog_to_limit'][2]}] "
                f"| {summary['hexlog_to_peer'][0]} [{summary['hexlog_to_peer'][1]}-{summary['hexlog_to_peer'][2]}] |",
                file=sys.stderr,
            )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
