"""What hexlog costs: the figures ``hexlog bench`` prints, measured on the real store, event classes and codec.

The workload is the one the peer and limit benchmarks share: N events in streams of 100, each stream
one start event and then dice rolls drawn from the same notations and purposes. In hexlog a stream is
a campaign's: ``session.opened`` (the start: a commitment to a secret), ``dice.rolled`` events whose
faces are the session's committed dice, and ``session.closed`` (the reveal), so that the audit
re-derives every roll. Every event is encoded by the codec, sealed into the hash chain and written
by the SQLite store at ``synchronous=FULL`` in WAL mode.

Each rate is the median of ``repeat`` samples; ``spread`` holds each one's minimum and maximum. The
result's keys and shape are those of the peer benchmarks' result line (``schema`` 1).
"""

from __future__ import annotations

import enum
import gc
import hashlib
import json
import os
import platform
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from hexlog.events.codec import decode_record, to_data
from hexlog.events.dice import DiceRolled
from hexlog.events.session import SessionClosed, SessionOpened
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent
from hexlog.events.streams import campaign_of, source_for, stream_for
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.model import Model
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.kit.runner import Runner
from hexlog.machine.rolls import SessionDice
from hexlog.machine.table import Table
from hexlog.machine.travel.commands import StartJourney
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay
from hexlog.service import simulation, simulation_kit

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from hexlog.events.base import Event
    from hexlog.events.store import LiveStore

SCHEMA = 1
NAME = "project_sqlite"
UNIT = "per second; median of repeats"
#: the notations and purposes of the peers' payloads (``_common.dice_rolls``): count, sides, modifier
NOTATIONS = ((1, 20, 0), (1, 20, 5), (2, 6, 0), (2, 6, 3), (1, 8, 2), (3, 6, 0), (4, 6, 0), (1, 100, 0))
PURPOSES = ("surprise", "distance", "initiative", "attack", "damage", "morale", "reaction", "evasion")
#: the campaigns ``command_tx1`` goes round
COMMAND_CAMPAIGNS = 50
TIME = "2024-01-01T00:00:00.000000Z"

#: the peers' state machine (peer_machines.EDGES and PATH): 9 phases, 10 triggers, 14 edges, no conditions
Phase = enum.Enum(
    "Phase",
    ["awaiting", "surprise", "distance", "initiative", "actions", "combat", "evasion", "parley", "concluded"],
)
EDGES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("begin", ("awaiting",), "surprise"),
    ("check_surprise", ("surprise",), "distance"),
    ("close_distance", ("distance",), "initiative"),
    ("roll_initiative", ("initiative",), "actions"),
    ("fight", ("actions",), "combat"),
    ("flee", ("actions",), "evasion"),
    ("talk", ("actions",), "parley"),
    ("next_round", ("combat", "evasion", "parley"), "initiative"),
    ("conclude", ("combat", "evasion", "parley"), "concluded"),
    ("reopen", ("concluded",), "awaiting"),
)
PATH = (
    "begin",
    "check_surprise",
    "close_distance",
    "roll_initiative",
    "fight",
    "next_round",
    "roll_initiative",
    "talk",
    "conclude",
    "reopen",
)


@attrs.frozen(kw_only=True)
class Params:
    """The knobs that change the figures."""

    events: int = 100_000
    repeat: int = 3
    tx1_events: int = 5000
    stream_len: int = 100
    batch: int = 100
    encounters: int = 1000
    travel_days: int = 200
    triggers: int = 100_000
    #: the events of the log whose replay's peak memory is measured (0: not measured)
    rss_events: int = 1_000_000

    @classmethod
    def quick(cls) -> Params:
        """A run of a few seconds: every key, figures not to be trusted."""
        return cls(events=1000, repeat=1, tx1_events=50, encounters=5, travel_days=3, triggers=1000, rss_events=1000)


# -- the workload -----------------------------------------------------------------------------------


def _secret(stream: int) -> bytes:
    return hashlib.sha256(f"hexlog bench stream {stream}".encode()).digest()


def stream_events(stream: int, length: int, rng: random.Random, session: str = "s1") -> list[Event]:
    """One stream's events (or one session's): a session opened, ``length - 2`` committed rolls, the session
    closed."""
    secret = _secret(stream)
    scheme = hexdice.SCHEME
    dice = SessionDice.of(scheme, secret, "")
    lane = hexdice.lane_of(scheme, "public")
    events: list[Event] = [SessionOpened(session=session, commitment=hexdice.commitment(secret), scheme=scheme)]
    for nonce in range(max(0, length - 2)):
        count, sides, modifier = NOTATIONS[rng.randrange(len(NOTATIONS))]
        faces = dice.faces(nonce, (sides,) * count, lane)
        purpose = PURPOSES[rng.randrange(len(PURPOSES))]
        events.append(
            DiceRolled(
                session=session,
                nonce=nonce,
                purpose=purpose,
                sides=(sides,) * count,
                faces=faces,
                modifier=modifier,
                total=sum(faces) + modifier,
            )
        )
    if length > 1:
        events.append(SessionClosed(session=session, secret=secret.hex()))
    return events[:length]


def new_events(campaign: str, events: list[Event], first: int) -> list[NewEvent]:
    """The events as the store takes them (encoded by the codec), with ids counted from ``first``."""
    source = source_for(campaign)
    return [
        NewEvent(f"{campaign}-{first + i}", source, e.cloud_type(), TIME, e.schema_version, to_data(e))
        for i, e in enumerate(events)
    ]


def workload(events: int, stream_len: int, seed: int = 1) -> Iterator[tuple[str, list[Event]]]:
    """The streams of an ``events``-event log: (campaign, its events)."""
    rng = random.Random(seed)  # noqa: S311 - the peers' payloads, not a secret
    for stream in range((events + stream_len - 1) // stream_len):
        length = min(stream_len, events - stream * stream_len)
        yield f"b{stream}", stream_events(stream, length, rng)


def campaign_events(events: int, session_len: int = 100, seed: int = 1) -> Iterator[Event]:
    """One long campaign's events: sessions of ``session_len`` events one after another (s1, s2, ...)."""
    rng = random.Random(seed)  # noqa: S311 - the peers' payloads, not a secret
    for number in range((events + session_len - 1) // session_len):
        length = min(session_len, events - number * session_len)
        yield from stream_events(number, length, rng, session=f"s{number + 1}")


def write_campaign(store: LiveStore, campaign: str, events: Iterable[Event], batch: int = 1000) -> int:
    """Append a campaign's events ``batch`` at a time; the stream's version after."""
    stream, version, chunk = stream_for(campaign), store.stream_version(stream_for(campaign)), []
    for event in events:
        chunk.append(event)
        if len(chunk) == batch:
            store.append(stream, new_events(campaign, chunk, version), expected_version=version)
            version, chunk = version + len(chunk), []
    if chunk:
        store.append(stream, new_events(campaign, chunk, version), expected_version=version)
        version += len(chunk)
    return version


def write_log(store: LiveStore, events: int, stream_len: int, batch: int) -> None:
    """Write the workload's log, ``batch`` events per append call."""
    for campaign, stream in workload(events, stream_len):
        for at in range(0, len(stream), batch):
            store.append(stream_for(campaign), new_events(campaign, stream[at : at + batch], at), expected_version=at)


# -- where the store figures keep their logs --------------------------------------------------------


class Stores(Protocol):
    """The backend the store figures run on: new stores by name, each removed after its sample."""

    @property
    def name(self) -> str:
        """The result's ``name``."""
        ...

    def open(self, name: str, *, new: bool = True) -> LiveStore:
        """The store ``name``: a new, empty one, or (``new`` False) the one written before."""
        ...

    def remove(self, name: str) -> None:
        """Remove the store ``name`` and all it holds."""
        ...

    def facts(self, name: str, events: int) -> dict[str, Any]:
        """What the result's ``store`` says of the backend, read off the store ``name`` of ``events`` events."""
        ...


@attrs.frozen
class SQLiteFiles:
    """The SQLite backend: each store a file in ``folder``."""

    folder: Path
    name: str = NAME

    def open(self, name: str, *, new: bool = True) -> LiveStore:
        """The SQLite file ``name``, created when ``new``."""
        return SQLiteStore(self.folder / f"{name}.db", create=new)

    def remove(self, name: str) -> None:
        """Remove the file ``name``."""
        (self.folder / f"{name}.db").unlink()

    def facts(self, name: str, events: int) -> dict[str, Any]:
        """SQLite's version and settings, and the file's bytes per event."""
        return _store_facts(self.folder / f"{name}.db", events)


# -- the samples ------------------------------------------------------------------------------------


def _timed(run: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def append_tx1(stores: Stores, count: int) -> float:
    """Seconds for ``count`` rolls, one per durable transaction, to an already-open stream."""
    store = stores.open("tx1")
    rng = random.Random(1)  # noqa: S311 - the peers' payloads, not a secret
    events = stream_events(0, count + 2, rng)
    campaign = "tx1"
    stream = stream_for(campaign)
    store.append(stream, new_events(campaign, events[:1], 0), expected_version=0)
    rolls = events[1 : count + 1]

    def run() -> None:
        for i, event in enumerate(rolls, start=1):
            store.append(stream, new_events(campaign, [event], i), expected_version=i)

    spent = _timed(run)
    store.close()
    return spent


def append_batch(stores: Stores, params: Params) -> tuple[float, str]:
    """Seconds to write the workload's log, 100 events per append call (the events made beforehand); the store's
    name."""
    name = f"batch_{time.monotonic_ns()}"
    store = stores.open(name)
    streams = list(workload(params.events, params.stream_len))

    def run() -> None:
        for campaign, stream in streams:
            for at in range(0, len(stream), params.batch):
                batch = new_events(campaign, stream[at : at + params.batch], at)
                store.append(stream_for(campaign), batch, expected_version=at)

    spent = _timed(run)
    store.close()
    return spent, name


def read_streams(store: LiveStore) -> int:
    """Read every stream in full, decoded (each event's stream version, id and event, as a fold reads a stream); the
    events read."""
    count = 0
    for stream in store.streams():
        for page in store.event_pages(stream):
            count += len(page)
    return count


def read_stream_records(store: LiveStore) -> int:
    """Read every stream in full as records (envelopes and positions) and decode each record's event; the events
    read."""
    count = 0
    for stream in store.streams():
        count += len(list(map(decode_record, store.read_stream(stream))))
    return count


def read_log(store: LiveStore) -> int:
    """Read the global log in order, decoded (each event's position, stream, version, id and event, a page at a time,
    as a reader that folds the whole log reads it); the events read."""
    return sum(len(page) for page in store.log_pages())


def read_log_records(store: LiveStore, *, decoded: bool = True) -> int:
    """Read the global log in order as records (positions and envelopes), each record's event decoded unless not
    ``decoded``; the events read."""
    count = 0
    for record in store.read_all():
        if decoded:
            decode_record(record)
        count += 1
    return count


def read_log_raw(store: LiveStore) -> int:
    """Read the global log in order without decoding it (the stored rows a page at a time, as the audit reads them,
    where the store gives them; else its records); the events read."""
    pages = getattr(store, "read_event_rows", None)
    if pages is None:
        return read_log_records(store, decoded=False)
    return sum(len(page) for page in pages())


def replay_all(store: LiveStore) -> int:
    """Rebuild every projection of every campaign from its log; the events folded."""
    count = 0
    for stream in store.streams():
        campaign = campaign_of(stream)
        if campaign is not None:
            count += replay(store, campaign).version
    return count


def command_tx1(stores: Stores, count: int) -> tuple[float, float]:
    """Seconds for ``count`` rolls as whole commands on the store, round-robin over the campaigns: each by a new
    handler (load, decide, append, commit), then each by one long-lived handler (the projections cached)."""
    store = stores.open("commands")
    keeper = MemoryKeeper()
    handler = Handler(store, keeper)
    names = [f"c{i}" for i in range(COMMAND_CAMPAIGNS)]
    for name in names:
        handler.execute(name, c.StartCampaign(ruleset="ose"))
        handler.execute(name, c.OpenSession())
    roll = c.RollDice(expression="1d20", purpose="attack")

    def cold() -> None:
        for i in range(count):
            Handler(store, keeper).execute(names[i % COMMAND_CAMPAIGNS], roll)

    def warm() -> None:
        for i in range(count):
            handler.execute(names[i % COMMAND_CAMPAIGNS], roll)

    first = _timed(cold)
    handler = Handler(store, keeper)
    for name in names:
        handler.load(name)
    second = _timed(warm)
    store.close()
    return first, second


def encounters(count: int) -> float:
    """Seconds for ``count`` whole encounters through the handler on the in-memory store."""
    handler = simulation_kit.handler_for("ose", "bench")
    commands = simulation.BENCH_ENCOUNTER
    return _timed(lambda: [handler.execute("bench", command) for _ in range(count) for command in commands])


def travel_days(count: int) -> float:
    """Seconds for ``count`` whole travel days (and any encounter they meet) on the in-memory store."""
    play = simulation_kit.Play(simulation_kit.handler_for("explore", simulation_kit.CAMPAIGN))
    journey = simulation.Journey()
    simulation.prepare_journey(play, journey)
    play.run(StartJourney(hex=simulation.CENTRE))

    def run() -> None:
        for _ in range(count):
            simulation.travel_day(play, journey)
            play.events.clear()

    return _timed(run)


@attrs.define
class _Proc:
    """A folded state of the peers' machine: its phase."""

    phase: enum.Enum


def _machine() -> Procedure:
    commands = {
        trigger: attrs.make_class(f"Peer_{trigger}", {}, bases=(c.Command,), frozen=True) for trigger, *_ in EDGES
    }
    rows = [{"trigger": t, "source": [Phase[s] for s in sources], "dest": Phase[d]} for t, sources, d in EDGES]
    return Procedure(
        name="peer",
        title="The peers' benchmark machine.",
        steps={},
        triggers={cls: trigger for trigger, cls in commands.items()},
        phases=Phase,
        transitions=rows,
        initial=Phase["awaiting"],
        model=Model,
    )


def machine_layer(count: int) -> dict[str, float]:
    """Seconds for the kit's machine layer alone on the peers' machine: ``count`` triggers fired (load the
    folded state into the shared machine, fire, give the phase change), ``count`` new folded states attached
    to the shared machine, ``count`` attached and detached."""
    runner = Runner(_machine())
    commands = {trigger: cls() for cls, trigger in runner.procedure.triggers.items()}
    table = Table()
    path = [(t, commands[t]) for t in PATH]
    cycles = max(1, count // len(PATH))

    def fire() -> None:
        proc = _Proc(Phase["awaiting"])
        for _ in range(cycles):
            for trigger, command in path:
                proc = _Proc(Phase[runner.fire(trigger, proc, table, command).dest])

    def create() -> None:
        for _ in range(count):
            runner.attach(_Proc(Phase["awaiting"]), table)

    combat = _Proc(Phase["combat"])

    def attach_detach() -> None:
        for _ in range(count):
            runner.attach(combat, table)
            runner.detach()

    return {
        "project_trigger_per_s": cycles * len(PATH) / _timed(fire),
        "project_create_shared_per_s": count / _timed(create),
        "project_attach_detach_per_s": count / _timed(attach_detach),
    }


# -- peak memory of a replay ------------------------------------------------------------------------


def peak_memory_mb() -> float:
    """This process's peak resident memory in MB since it started (``VmHWM``: what ``ru_maxrss`` would say too, but
    ``ru_maxrss`` also counts the memory of the process that started this one, before ``exec``)."""
    try:
        with Path("/proc/self/status").open(encoding="ascii") as status:
            for text in status:
                if text.startswith("VmHWM:"):
                    return int(text.split()[1]) / 1024
    except OSError:
        pass
    import resource  # noqa: PLC0415 - where /proc is missing

    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 / 1024 if platform.system() == "Darwin" else kb / 1024


def peak_rss_mb(path: Path) -> float:
    """The peak resident memory (MB) of a process that replays every campaign of the log at ``path``."""
    code = (
        "import sys\n"
        "from hexlog.events.sqlite import SQLiteStore\n"
        "from hexlog.service.benchmark import peak_memory_mb, replay_all\n"
        "store = SQLiteStore(sys.argv[1], create=False)\n"
        "replay_all(store)\n"
        "print(peak_memory_mb())\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)  # noqa: S603 - our own interpreter and code
    return float(done.stdout.strip().splitlines()[-1])


# -- the run ----------------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for package in ("hexlog", "attrs", "cattrs", "transitions"):
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    out["sqlite"] = sqlite3.sqlite_version
    return out


def _store_facts(path: Path, events: int) -> dict[str, Any]:
    conn = sqlite3.connect(path)
    try:
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
        (avg,) = conn.execute("SELECT AVG(LENGTH(data)) FROM events").fetchone()
        (sample,) = conn.execute("SELECT data FROM events WHERE type LIKE '%dice.rolled' LIMIT 1").fetchone()
    finally:
        conn.close()
    return {
        "sqlite_version": sqlite3.sqlite_version,
        "journal_mode": str(mode).lower(),
        "synchronous": "FULL",
        "payload_bytes_avg": round(float(avg or 0), 1),
        "payload_sample": json.loads(sample) if sample else None,
        "db_bytes_per_event": round(path.stat().st_size / max(events, 1), 1),
    }


def _nproc() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run(
    params: Params, note: Callable[[str], None] = lambda _: None, stores: Callable[[Path], Stores] = SQLiteFiles
) -> dict[str, Any]:
    """Every figure, as the result line's object; ``note`` hears what is being measured; the store figures run on
    the backend ``stores`` gives for a temporary folder (SQLite files in it by default)."""
    samples: dict[str, list[float]] = {}

    def put(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    store_facts: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="hexlog-bench-") as name:
        folder = Path(name)
        where = stores(folder)
        for sample in range(1, params.repeat + 1):
            note(f"sample {sample}/{params.repeat}: append, one event per transaction")
            put("append_tx1_eps", params.tx1_events / append_tx1(where, params.tx1_events))
            note(f"sample {sample}/{params.repeat}: append, {params.batch} events per call")
            spent, logged = append_batch(where, params)
            put("append_batch100_eps", params.events / spent)
            store = where.open(logged, new=False)
            note(f"sample {sample}/{params.repeat}: reads")
            put("read_stream_eps", params.events / _timed(lambda: read_streams(store)))  # noqa: B023 - run now
            put("read_stream_records_eps", params.events / _timed(lambda: read_stream_records(store)))  # noqa: B023
            put("read_log_raw_eps", params.events / _timed(lambda: read_log_raw(store)))  # noqa: B023
            put("read_log_eps", params.events / _timed(lambda: read_log(store)))  # noqa: B023 - run now
            put("read_log_records_eps", params.events / _timed(lambda: read_log_records(store)))  # noqa: B023
            note(f"sample {sample}/{params.repeat}: replay and audit")
            put("replay_eps", params.events / _timed(lambda: replay_all(store)))  # noqa: B023
            put("audit_eps", params.events / _timed(lambda: audit_store(store, jobs=_nproc())))  # noqa: B023
            put("audit_one_process_eps", params.events / _timed(lambda: audit_store(store)))  # noqa: B023
            store.close()
            store_facts = where.facts(logged, params.events)
            where.remove(logged)
            note(f"sample {sample}/{params.repeat}: commands through the handler")
            cold, warm = command_tx1(where, params.tx1_events)
            put("command_tx1_eps", params.tx1_events / cold)
            put("command_tx1_cached_eps", params.tx1_events / warm)
            where.remove("commands")
            where.remove("tx1")
            note(f"sample {sample}/{params.repeat}: whole procedures in memory")
            put("encounters_per_s", params.encounters / encounters(params.encounters))
            put("travel_days_per_s", params.travel_days / travel_days(params.travel_days))
            note(f"sample {sample}/{params.repeat}: the machine layer")
            for key, spent_per in machine_layer(params.triggers).items():
                put(key, spent_per)
        if params.rss_events:
            note(f"peak memory of a replay of {params.rss_events} events")
            path = folder / "rss.db"
            store = SQLiteStore(path)
            write_log(store, params.rss_events, params.stream_len, params.batch)
            store.close()
            samples["peak_rss_mb"] = [peak_rss_mb(path)]
    rates = {key: round(statistics.median(values), 1) for key, values in samples.items()}
    spread = {key: [round(min(values), 1), round(max(values), 1)] for key, values in samples.items()}
    return {
        "name": where.name,
        "schema": SCHEMA,
        "events": params.events,
        "repeat": params.repeat,
        "nproc": _nproc(),
        "versions": _versions(),
        "unit": UNIT,
        "rates": rates,
        "spread": spread,
        "params": {
            "tx1_events": params.tx1_events,
            "stream_len": params.stream_len,
            "batch": params.batch,
            "command_campaigns": COMMAND_CAMPAIGNS,
            "encounters": params.encounters,
            "travel_days": params.travel_days,
            "triggers": params.triggers,
            "rss_events": params.rss_events,
            "audit_jobs": _nproc(),
            "audit_eps": "a whole-store audit on audit_jobs processes (hexlog audit --jobs, a SQLite file's) and "
            "audit_one_process_eps on one",
            "peak_rss_mb": "MB, not a rate: the peak resident memory of a process replaying rss_events events",
            "python_optimize": sys.flags.optimize,
        },
        "store": store_facts,
    }


def line(result: dict[str, Any]) -> str:
    """The result as the one line printed last."""
    return json.dumps(result)
