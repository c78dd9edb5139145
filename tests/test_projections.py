"""Live projections: rows in the store, written with the events they fold, always equal to a rebuild from the log."""

from __future__ import annotations

import functools
import itertools
import json
import sqlite3
from typing import TYPE_CHECKING, Any

import attrs
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hexlog.events.chain import canonical_json
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode, to_data
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import HexlogError, NotFoundError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.party import MemberAdded, MemberRemoved
from hexlog.events.session import ClientSeedSet, SessionClosed, SessionOpened
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import EVERY_ROW, NewEvent, ProjectionRow, Recorded
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine.encounter import CheckSurprise, DetermineDistance, StartEncounter
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import Table, TableProjection
from hexlog.projections import live, sessions
from hexlog.projections.ledger import LEDGER, commitment_key, roll_key, session_key
from hexlog.projections.sessions import Status
from hexlog.replay import rebuilt_rows
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import projections, replay, state_at, table_at

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

    from hexlog.events.base import Event
    from hexlog.events.store import AppendResult

STREAM = "campaign-c1"
NAMES = ("Ann", "Bo", "Cy")
TABLE = TableProjection(REGISTRY)


def make_handler(store: Any) -> Handler:
    """A handler with a fixed clock and counted ids, over ``store``, with campaign c1 started."""
    handler = fresh_handler(store)
    handler.execute("c1", c.StartCampaign())
    return handler


def fresh_handler(store: Any, keeper: MemoryKeeper | None = None) -> Handler:
    """A handler with nothing in memory yet, over ``store`` (and ``keeper``), with a fixed clock and ids of its own."""
    ids = itertools.count(1)
    handler = next(_handlers)
    return Handler(
        store,
        keeper or MemoryKeeper(),
        clock=lambda: "2026-11-29T20:00:00Z",
        new_id=lambda: f"00000000-0000-0000-{handler:04d}-{next(ids):012d}",
    )


_handlers = itertools.count(1)


def run(handler: Handler, commands: Sequence[c.Command]) -> None:
    """Execute each command of campaign c1, skipping the ones the rules refuse."""
    for command in commands:
        try:
            handler.execute("c1", command)
        except HexlogError:
            continue


def _raw_append(store: Any, event: Event) -> None:
    """Append an event past the handler, so that no projection row is written with it."""
    store.append(
        STREAM,
        [
            NewEvent(
                id=f"raw-{store.stream_version(STREAM) + 1}",
                source="hexlog:c1",
                type=event.cloud_type(),
                time="2026-11-29T20:00:00Z",
                schemaversion=event.schema_version,
                data=to_data(event),
            )
        ],
        expected_version=store.stream_version(STREAM),
    )


def evening() -> list[c.Command]:
    """A fixed evening at the table: a session with a party and several rolls, then a second session."""
    return [
        c.OpenSession(secret_hex=bytes(range(32)).hex()),
        c.SetClientSeed(client_seed="table-7"),
        c.AddMember(name="Ann", dex=14),
        c.AddMember(name="Bo", speed=90),
        c.RollDice(expression="2d6"),
        c.RollDice(expression="d20", secret=True),
        c.RemoveMember(name="Bo", reason="fled"),
        c.CloseSession(),
        c.OpenSession(secret_hex=bytes(32).hex()),
        c.RollDice(expression="3d4+1"),
    ]


def events_of(store: Any) -> list[Event]:
    """The decoded events of the campaign stream."""
    return [decode(r.envelope) for r in store.read_stream(STREAM)]


def rebuilt(events: Sequence[Event]) -> dict[str, Any]:
    """Every live projection's state folded from scratch from ``events``."""
    return {p.name: live.rebuild(p, events)[0] for p in projections()}


def as_json(value: Any) -> Any:
    """A value as the SQLite store gives it back (through canonical JSON)."""
    return json.loads(canonical_json(value))


def stored(store: Any, name: str) -> dict[str, Any]:
    """The data of every row of a projection, as JSON, by key."""
    return {key: as_json(data) for key, (_, data) in store.read_rows(STREAM, name).items()}


def new_event(event: Event, n: int) -> NewEvent:
    """An event ready to append, with a counted id."""
    return NewEvent(
        id=f"e{n}",
        source="hexlog:c1",
        type=event.cloud_type(),
        time="2026-11-29T20:00:00Z",
        schemaversion=event.schema_version,
        data=to_data(event),
    )


def row(projection: str, key: str, version: int, data: Any) -> ProjectionRow:
    """A projection row (data None deletes it)."""
    return ProjectionRow(projection=projection, key=key, version=version, data=data)


class CountingStore(MemoryStore):
    """A memory store that remembers where each stream read started and the rows of each append."""

    def __init__(self) -> None:
        super().__init__()
        self.reads_from: list[int] = []
        self.appended_rows: list[list[ProjectionRow]] = []

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]:
        """Record ``from_version`` and read as usual."""
        self.reads_from.append(from_version)
        return super().read_stream(stream_id, from_version)

    def append(self, stream_id: str, events: Sequence[NewEvent], **kwargs: Any) -> AppendResult:
        """Record the rows written with the batch and append as usual."""
        self.appended_rows.append(list(kwargs.get("rows", ())))
        return super().append(stream_id, events, **kwargs)


def written(rows: Sequence[ProjectionRow], name: str) -> set[str]:
    """The keys of the rows of projection ``name``."""
    return {r.key for r in rows if r.projection == name}


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An empty store of each backend."""
    made: Any = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "hexlog.db")
    yield made
    made.close()


_events = st.one_of(
    st.builds(MemberAdded, name=st.sampled_from(NAMES), dex=st.integers(3, 18), speed=st.sampled_from([60, 90, 120])),
    st.builds(MemberRemoved, name=st.sampled_from(NAMES), reason=st.sampled_from(["", "died"])),
    st.builds(
        ClockAdvanced,
        seconds=st.integers(0, 3600),
        rounds=st.integers(0, 6),
        turns=st.integers(0, 6),
        reason=st.text(max_size=5),
    ),
    st.builds(SessionOpened, session=st.sampled_from(["s1", "s2"]), commitment=st.just("ab" * 32)),
    st.builds(ClientSeedSet, session=st.sampled_from(["s1", "s2"]), client_seed=st.text(min_size=1, max_size=5)),
    st.builds(SessionClosed, session=st.sampled_from(["s1", "s2"]), secret=st.just("cd" * 32)),
    st.builds(
        DiceRolled,
        session=st.sampled_from(["s1", "s2"]),
        nonce=st.integers(0, 9),
        purpose=st.just("p"),
        sides=st.just((6, 6)),
        faces=st.tuples(st.integers(1, 6), st.integers(1, 6)),
        modifier=st.integers(-2, 2),
        total=st.integers(0, 14),
        visibility=st.sampled_from(["public", "referee"]),
        made_for=st.sampled_from(["", "Ann"]),
    ),
)


def _roll(session: str, nonce: int, visibility: str) -> DiceRolled:
    return DiceRolled(
        session=session, nonce=nonce, purpose="p", sides=(6,), faces=(3,), modifier=0, total=3, visibility=visibility
    )


#: a hexlog-dice-v2 session's two lanes, a roll of another session, then a v1 session's single lane
LANES = [
    SessionOpened(session="s1", commitment="ab" * 32, scheme="hexlog-dice-v2"),
    _roll("s1", 0, "referee"),
    _roll("s1", 0, "public"),
    _roll("s2", 7, "public"),
    _roll("s1", 1, "referee"),
    _roll("s1", 5, "public"),
    SessionOpened(session="s2", commitment="cd" * 32, scheme="hexlog-dice-v1"),
    _roll("s2", 0, "referee"),
    _roll("s2", 1, "public"),
]
#: the events above, with sessions of both dice schemes (secret rolls count apart only under hexlog-dice-v2)
_events_of_both_schemes = st.one_of(
    _events,
    st.builds(
        SessionOpened,
        session=st.sampled_from(["s1", "s2"]),
        commitment=st.just("ef" * 32),
        scheme=st.sampled_from(["hexlog-dice-v1", "hexlog-dice-v2"]),
    ),
)
_commands = st.one_of(
    st.builds(c.AddMember, name=st.sampled_from(NAMES), dex=st.integers(3, 18)),
    st.builds(c.RemoveMember, name=st.sampled_from(NAMES)),
    st.builds(c.RollDice, expression=st.sampled_from(["d6", "2d6+1", "d20", "3d4-1"]), secret=st.booleans()),
    st.builds(c.OpenSession, secret_hex=st.sampled_from([bytes(32).hex(), bytes(range(32)).hex()])),
    st.builds(c.SetClientSeed, client_seed=st.sampled_from(["a", "table-7"])),
    st.just(c.CloseSession()),
)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class TestLiveEqualsRebuild:
    """The rows the handler writes with each command hold the states a rebuild from the log gives."""

    def test_a_campaign_through_the_handler_replays_equal(self, store: Any) -> None:
        """Replay finds every live projection equal and up to date, and the table equals the handler's."""
        handler = make_handler(store)
        run(handler, evening())
        report = replay(store, "c1")
        assert report.ok, report.text()
        assert [check.name for check in report.checks] == ["table", "ledger"]
        assert all(check.up_to_date for check in report.checks)
        assert report.projections == live.refresh(store, STREAM, projections()) == rebuilt(events_of(store))
        assert report.table == handler.load("c1") == fresh_handler(store).load("c1")
        assert [m.name for m in report.table.party.members] == ["Ann"]
        assert report.projections["ledger"] == report.table.session
        assert report.projections["ledger"].id == "s2"

    def test_a_row_edited_through_the_store_is_reported_as_differing(self, store: Any) -> None:
        """A table part the log does not give is caught by replay, which names the row; the ledger stays equal."""
        run(make_handler(store), evening())
        version = store.stream_version(STREAM)
        ((_, party),) = store.read_rows(STREAM, "table", ["party"]).values()
        forged = {"v": {"members": [{**party["v"]["members"][0], "name": "Zed"}]}}
        assert store.write_rows(STREAM, [row("table", "party", version, forged)], at_version=version)
        report = replay(store, "c1")
        assert not report.ok
        assert [check.status for check in report.checks] == ["differs", "equal"]
        assert report.checks[0].up_to_date
        assert report.checks[0].reason == "rows differ party"

    def test_rows_that_lag_the_log_are_reported_with_both_versions(self) -> None:
        """After an event appended without its rows, replay says the rows were folded to an earlier version."""
        store = MemoryStore()
        run(make_handler(store), evening())
        lagging = store.stream_version(STREAM)
        _raw_append(store, MemberAdded(name="Cy"))
        report = replay(store, "c1")
        assert not report.ok
        assert not any(check.up_to_date for check in report.checks)
        assert {check.live_version for check in report.checks} == {lagging}
        assert all(f"version {lagging}, not the log's {lagging + 1}" in check.reason for check in report.checks)
        live.refresh(store, STREAM, projections())
        assert replay(store, "c1").ok

    def test_a_projection_never_saved_is_missing(self) -> None:
        """A campaign whose events were appended without rows replays with every check missing."""
        store = MemoryStore()
        _raw_append(store, MemberAdded(name="Ann"))
        assert [check.status for check in replay(store, "c1").checks] == ["missing", "missing"]

    @FAST
    @given(commands=st.lists(_commands, max_size=12))
    def test_random_command_runs_replay_equal_and_audit_clean(self, commands: list[c.Command]) -> None:
        """Whatever the referee does, the rows equal the rebuild, a fresh handler agrees and the audit is clean."""
        store = MemoryStore()
        handler = make_handler(store)
        run(handler, commands)
        report = replay(store, "c1")
        assert report.ok, report.text()
        assert fresh_handler(store).load("c1") == handler.load("c1") == report.table
        assert audit_store(store).ok


class TestRowsWritten:
    """A command writes the rows it changed, in its own append, and nothing else."""

    def test_a_command_writes_only_the_table_parts_it_changed_and_the_mark(self) -> None:
        """Adding a member writes the party part; a roll writes the sessions part; each writes the mark."""
        store = CountingStore()
        handler = make_handler(store)
        run(handler, [c.OpenSession(secret_hex=bytes(range(32)).hex())])
        handler.execute("c1", c.AddMember(name="Ann"))
        assert written(store.appended_rows[-1], "table") == {"party", live.MARK}
        handler.execute("c1", c.RollDice(expression="2d6"))
        assert written(store.appended_rows[-1], "table") == {"sessions", live.MARK}
        version = store.stream_version(STREAM)
        assert all(r.version == version for r in store.appended_rows[-1])

    def test_every_command_writes_exactly_the_parts_that_differ(self) -> None:
        """Through an evening and an encounter, each append's table rows are the changed parts plus the mark."""
        store = CountingStore()
        handler = make_handler(store)
        commands = [
            *evening(),
            c.AddMember(name="Cy"),
            StartEncounter(monster_count=2),
            CheckSurprise(),
            DetermineDistance(),
        ]
        for command in commands:
            before = TABLE.parts(handler.load("c1"))
            handler.execute("c1", command)
            after = TABLE.parts(handler.load("c1"))
            changed = {
                key
                for key in after
                if as_json(TABLE.encode(key, after[key])) != as_json(TABLE.encode(key, before[key]))
            }
            assert changed, f"{type(command).__name__} changed no part of the table"
            assert written(store.appended_rows[-1], "table") == {*changed, live.MARK}, type(command).__name__
        assert any(written(rows, "table") >= {"procedure/encounter"} for rows in store.appended_rows[-3:])
        assert replay(store, "c1").ok

    def test_a_refused_command_writes_no_rows(self) -> None:
        """A command refused by the rules writes neither events nor rows."""
        store = CountingStore()
        handler = make_handler(store)
        before = {p.name: store.read_rows(STREAM, p.name) for p in projections()}
        appends = len(store.appended_rows)
        with pytest.raises(HexlogError):
            handler.execute("c1", c.RollDice(expression="2d6"))  # no session is open
        assert len(store.appended_rows) == appends
        assert {p.name: store.read_rows(STREAM, p.name) for p in projections()} == before


class TestLoading:
    """A handler reads the parts and the mark, then only the tail of the log after the mark."""

    def test_a_fresh_handler_loads_the_table_from_rows_without_reading_the_log(self) -> None:
        """A new handler reads the stream only from the mark's own event on, and gets the table a rebuild gives."""
        store = CountingStore()
        run(make_handler(store), evening())
        version = store.stream_version(STREAM)
        store.reads_from.clear()
        table = fresh_handler(store).load("c1")
        assert store.reads_from
        assert set(store.reads_from) == {version}  # the event at the mark, whose hash the mark names
        assert table == replay(store, "c1").table
        assert table.version == version

    def test_a_handler_catches_up_a_tail_another_handler_appended(self) -> None:
        """What one handler appends, another already in use folds from its own version on, not from the start."""
        store = CountingStore()
        one = make_handler(store)
        run(one, evening()[:4])
        other = fresh_handler(store)
        seen = other.load("c1")
        run(one, evening()[4:])
        store.reads_from.clear()
        caught = other.load("c1")
        assert min(store.reads_from) == seen.version + 1
        assert caught == one.load("c1") == replay(store, "c1").table
        assert caught.version == store.stream_version(STREAM) > seen.version
        other.execute("c1", c.AddMember(name="Cy"))
        assert [m.name for m in one.load("c1").party.members] == ["Ann", "Cy"]
        assert replay(store, "c1").ok

    def test_a_tail_appended_without_rows_is_folded_and_its_rows_written_with_the_next_command(
        self, store: Any
    ) -> None:
        """Events another writer appended without rows are folded from the mark; the next command writes their rows."""
        first = make_handler(store)
        run(first, evening())
        _raw_append(store, MemberAdded(name="Cy"))
        _raw_append(store, ClockAdvanced(seconds=600, turns=1))
        handler = fresh_handler(store, first.keeper)
        table = handler.load("c1")
        assert [m.name for m in table.party.members] == ["Ann", "Cy"]
        assert table.clock.seconds == 600
        assert not replay(store, "c1").ok
        handler.execute("c1", c.RollDice(expression="d6"))
        assert replay(store, "c1").ok

    def test_refresh_reads_only_the_events_after_the_mark(self) -> None:
        """After rows at version 3, a refresh reads from version 3 (the mark's event) on and moves the mark to 4."""
        store = CountingStore()
        handler = fresh_handler(store)
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.AddMember(name="Ann"))
        handler.execute("c1", c.AddMember(name="Bo"))
        _raw_append(store, MemberAdded(name="Cy"))
        store.reads_from.clear()
        states = live.refresh(store, STREAM, projections())
        assert store.reads_from == [3] * len(projections())
        assert [m.name for m in states["table"].party.members] == ["Ann", "Bo", "Cy"]
        assert {p.name: store.read_rows(STREAM, p.name, [live.MARK])[live.MARK][0] for p in projections()} == {
            "table": 4,
            "ledger": 4,
        }


class TestStaleRows:
    """Rows are a cache: rows that cannot be used are folded again from the log and written anew."""

    @pytest.mark.parametrize("projection", [TABLE, LEDGER], ids=["table", "ledger"])
    def test_rows_of_another_revision_are_rebuilt_and_written_anew(self, store: Any, projection: Any) -> None:
        """A mark of another revision makes the projection fold the log; its old rows are wiped and replaced."""
        run(make_handler(store), evening())
        version = store.stream_version(STREAM)
        assert store.write_rows(
            STREAM,
            [
                row(projection.name, live.MARK, version, {"revision": projection.revision + 1}),
                row(projection.name, "left/over", version, {"stale": True}),
            ],
            at_version=version,
        )
        loaded = live.load(store, STREAM, projection)
        assert loaded.state == live.rebuild(projection, events_of(store))[0]
        assert loaded.pending[0] == row(projection.name, EVERY_ROW, version, None)
        assert live.refresh(store, STREAM, projections()) == rebuilt(events_of(store))
        assert "left/over" not in store.read_rows(STREAM, projection.name)
        assert store.read_rows(STREAM, projection.name, [live.MARK])[live.MARK] == (
            version,
            {"revision": projection.revision, "event": store.read_stream(STREAM, version)[0].envelope.id},
        )
        assert replay(store, "c1").ok

    @pytest.mark.parametrize(
        ("key", "data"),
        [
            ("party", {"v": {"members": [{"nome": "Ann"}]}}),
            ("clock", {"v": "a clock"}),
            ("sessions", ["not", "wrapped"]),
            ("rules", {"v": {"name": "ose"}}),
        ],
        ids=["party", "clock", "sessions", "rules"],
    )
    def test_a_table_part_that_does_not_decode_is_rebuilt_from_the_log(self, store: Any, key: str, data: Any) -> None:
        """A handler meeting a part it cannot read folds the log instead, and its next command writes every row anew."""
        run(make_handler(store), evening())
        version = store.stream_version(STREAM)
        assert store.write_rows(STREAM, [row("table", key, version, data)], at_version=version)
        handler = fresh_handler(store)
        assert handler.load("c1") == replay(store, "c1").table
        handler.execute("c1", c.AddMember(name="Cy"))
        report = replay(store, "c1")
        assert report.ok, report.text()
        assert stored(store, "table")[key] == as_json(TABLE.encode(key, TABLE.parts(report.table)[key]))

    def test_a_row_that_is_not_json_in_the_database_is_rebuilt_from_the_log(self, tmp_path: Path) -> None:
        """A part whose data column SQLite cannot parse is left out, so the table is folded from the log again."""
        path = tmp_path / "hexlog.db"
        store = SQLiteStore(path)
        try:
            run(make_handler(store), evening())
            with sqlite3.connect(path) as raw:
                raw.execute("UPDATE projection_rows SET data = '{bad' WHERE projection = 'table' AND key = 'party'")
            assert "party" not in store.read_rows(STREAM, "table")
            assert live.refresh(store, STREAM, projections()) == rebuilt(events_of(store))
            assert "party" in store.read_rows(STREAM, "table")
            assert replay(store, "c1").ok
        finally:
            store.close()

    def test_rows_ahead_of_the_log_are_rebuilt(self, store: Any) -> None:
        """A mark past the end of the stream is not trusted: the table is folded from the log."""
        run(make_handler(store), evening())
        version = store.stream_version(STREAM)
        assert store.write_rows(
            STREAM,
            [
                row("table", live.MARK, version + 5, {"revision": TABLE.revision}),
                row("table", "party", version + 5, {"v": {"members": []}}),
            ],
            at_version=version,
        )
        assert [m.name for m in fresh_handler(store).load("c1").party.members] == ["Ann"]


class TestLedger:
    """The roll ledger: one row per session and one per roll, never one growing document."""

    def test_the_ledger_has_one_row_per_session_and_per_roll(self, store: Any) -> None:
        """After the evening the ledger holds the latest session, a row for each session and each roll, and the mark."""
        run(make_handler(store), evening())
        events = events_of(store)
        rolls = [e for e in events if isinstance(e, DiceRolled)]
        rows = stored(store, "ledger")
        assert set(rows) == {
            live.MARK,
            "current",
            session_key("s1"),
            session_key("s2"),
            commitment_key(hexdice.commitment(bytes(range(32)))),
            commitment_key(hexdice.commitment(bytes(32))),
            *(roll_key(r.session, r.nonce, own_lane=r.visibility == Visibility.REFEREE) for r in rolls),
        }
        # hexlog-dice-v2: the secret d20 draws from the referee lane, whose nonces count apart from 0
        assert [(r.session, r.visibility, r.nonce) for r in rolls] == [
            ("s1", Visibility.PUBLIC, 0),
            ("s1", Visibility.REFEREE, 0),
            ("s2", Visibility.PUBLIC, 0),
        ]
        assert roll_key("s1", 0, own_lane=True) == "roll/s1/referee/000000000" != roll_key("s1", 0)
        for roll in rolls:
            key = roll_key(roll.session, roll.nonce, own_lane=roll.visibility == Visibility.REFEREE)
            assert rows[key] == as_json(to_data(roll))
        assert rows[session_key("s1")]["status"] == Status.CLOSED
        assert rows[session_key("s1")]["secret"] == bytes(range(32)).hex()
        assert rows[session_key("s2")]["status"] == Status.OPEN
        assert rows[session_key("s2")] == rows["current"]["v"]
        assert len([k for k in rows if k.startswith("roll/")]) == len(rolls)

    def test_a_roll_writes_its_own_row_and_no_row_grows_with_the_rolls(self) -> None:
        """Each roll writes the same few ledger rows, and the largest ledger row stays the size it was."""
        store = CountingStore()
        handler = make_handler(store)
        run(handler, [c.OpenSession(secret_hex=bytes(range(32)).hex())])
        sizes: dict[str, list[int]] = {"ledger": [], "table": []}
        for n in range(30):
            handler.execute("c1", c.RollDice(expression="2d6", purpose=f"roll {n}"))
            assert written(store.appended_rows[-1], "ledger") == {
                "current",
                session_key("s1"),
                roll_key("s1", n),
                live.MARK,
            }
            for name, seen in sizes.items():
                seen.append(max(len(canonical_json(data)) for _, data in store.read_rows(STREAM, name).values()))
        assert len(store.read_rows(STREAM, "ledger")) == 30 + 4  # the rolls, current, the session, its commitment
        for seen in sizes.values():
            assert seen[-1] <= seen[1] + 4, seen

    def test_the_ledger_rebuild_gives_the_stored_rows(self, store: Any) -> None:
        """A fold of the log gives the very rows the commands wrote one by one (the mark aside)."""
        run(make_handler(store), evening())
        state, data = live.rebuild(LEDGER, events_of(store))
        assert as_json(data) == {k: v for k, v in stored(store, "ledger").items() if k != live.MARK}
        assert state == fresh_handler(store).load("c1").session


class TestReplayNamesRows:
    """replay compares every stored row with a rebuild from the log and names the rows that differ."""

    @pytest.fixture
    def db(self, tmp_path: Path) -> Iterator[tuple[Path, SQLiteStore]]:
        """A SQLite store after the evening, and its path."""
        path = tmp_path / "hexlog.db"
        store = SQLiteStore(path)
        run(make_handler(store), evening())
        yield path, store
        store.close()

    def edit(self, path: Path, sql: str) -> None:
        """Change the database behind hexlog's back."""
        with sqlite3.connect(path) as raw:
            raw.execute(sql)

    def test_replay_is_equal_after_commands(self, db: tuple[Path, SQLiteStore]) -> None:
        """Before anything is edited, both projections are equal and up to date."""
        _, store = db
        report = replay(store, "c1")
        assert report.ok
        assert [(check.name, check.status, check.up_to_date) for check in report.checks] == [
            ("table", "equal", True),
            ("ledger", "equal", True),
        ]

    @pytest.mark.parametrize(
        ("sql", "name", "reason"),
        [
            (
                (
                    "UPDATE projection_rows SET data = replace(data, 'Ann', 'Zed') "
                    "WHERE projection = 'table' AND key = 'party'"
                ),
                "table",
                "rows differ party",
            ),
            (
                (
                    "UPDATE projection_rows SET data = replace(data, '\"total\":', '\"total\":1') "
                    "WHERE projection = 'ledger' AND key = 'roll/s1/000000000'"
                ),
                "ledger",
                "rows differ roll/s1/000000000",
            ),
            (
                "DELETE FROM projection_rows WHERE projection = 'ledger' AND key = 'session/s1'",
                "ledger",
                "rows missing session/s1",
            ),
            (
                "INSERT INTO projection_rows VALUES ('campaign-c1', 'table', 'forged', 11, '{\"v\":1}')",
                "table",
                "rows not in the log forged",
            ),
        ],
        ids=["edited part", "edited roll", "deleted session", "added row"],
    )
    def test_replay_names_a_row_edited_in_the_database(
        self, db: tuple[Path, SQLiteStore], sql: str, name: str, reason: str
    ) -> None:
        """An edited, deleted or added row makes its projection differ, with the row named; the other stays equal."""
        path, store = db
        self.edit(path, sql)
        report = replay(store, "c1")
        assert not report.ok
        checks = {check.name: check for check in report.checks}
        assert checks[name].status == "differs"
        assert checks[name].reason == reason
        assert all(check.ok for check in report.checks if check.name != name)
        assert f"{name}: differs (up to date): {reason}" in report.text()

    @pytest.mark.parametrize(
        "sql",
        [
            "DELETE FROM projection_rows WHERE projection = 'ledger' AND key LIKE 'roll/%'",
            "UPDATE projection_rows SET data = replace(data, '\"total\":', '\"total\":1') WHERE key LIKE 'roll/%'",
            (
                "INSERT INTO projection_rows SELECT stream_id, projection, key || '/forged', version, data "
                "FROM projection_rows WHERE key != '@'"
            ),
            "UPDATE projection_rows SET version = 1000 WHERE key LIKE 'roll/s1/%'",
            "UPDATE projection_rows SET key = key || 'z' WHERE projection = 'ledger' AND key LIKE 'session/%'",
        ],
        ids=["rolls deleted", "rolls edited", "rows added", "rows newer than the mark", "session renamed"],
    )
    def test_rows_rebuilt_past_the_bound_in_memory_are_compared_alike(
        self, db: tuple[Path, SQLiteStore], sql: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With the rebuilt rows moved to a temporary file every 2 rows (and the stored ones read 3 at a time),
        a replay finds and names the same rows as one that holds them all in memory."""
        path, store = db
        self.edit(path, sql)
        held = replay(store, "c1")
        monkeypatch.setattr(rebuilt_rows, "LIMIT", 2)
        monkeypatch.setattr("hexlog.events.sqlite.ROWS_PAGE_SIZE", 3)
        spilled = replay(store, "c1")
        assert not held.ok
        assert spilled.checks == held.checks
        assert spilled.text() == held.text()


class TestFolds:
    """Folding is pure: repeatable, and resumable from the rows of a prefix."""

    def test_folding_twice_gives_equal_state_and_rows(self) -> None:
        """Two rebuilds of the same events are equal, state and rows."""
        store = MemoryStore()
        run(make_handler(store), evening())
        events = events_of(store)
        for projection in projections():
            assert live.rebuild(projection, events) == live.rebuild(projection, events)

    @FAST
    @given(events=st.lists(_events, max_size=15), data=st.data())
    def test_rows_of_a_prefix_plus_the_tail_equal_the_full_fold(self, events: list[Event], data: st.DataObject) -> None:
        """Refreshing after a prefix, then after the rest, gives the rebuild of all events, in state and in rows."""
        split = data.draw(st.integers(0, len(events)))
        store = MemoryStore()
        numbers = itertools.count(1)
        store.append(STREAM, [new_event(e, next(numbers)) for e in events[:split]], expected_version=0)
        live.refresh(store, STREAM, projections())
        store.append(STREAM, [new_event(e, next(numbers)) for e in events[split:]], expected_version=split)
        assert live.refresh(store, STREAM, projections()) == rebuilt(events)
        for projection in projections():
            state, rows = live.rebuild(projection, events)
            assert stored_without_mark(store, projection.name) == as_json(rows)
            parts = {key: as_json(projection.encode(key, part)) for key, part in projection.parts(state).items()}
            assert projection.assemble(parts) == state
        if store.stream_version(STREAM):
            assert replay(store, "c1").ok

    @settings(max_examples=200, deadline=None)
    @given(events=st.lists(_events_of_both_schemes, max_size=40), size=st.integers(1, 9))
    @example(events=LANES, size=3)
    def test_folding_runs_of_events_at_once_equals_folding_them_one_by_one(
        self, events: list[Event], size: int
    ) -> None:
        """``evolve_all`` over the events cut in runs of ``size`` gives the state ``evolve`` gives event by event,
        for each projection and for the session lifecycle (a run of rolls is folded into one new session)."""
        for projection in projections():
            one_by_one = functools.reduce(projection.evolve, events, projection.initial())
            state = projection.initial()
            for at in range(0, len(events), size):
                state = projection.evolve_all(state, events[at : at + size])
            assert state == one_by_one
        assert sessions.fold(sessions.SessionLog(), events) == functools.reduce(
            sessions.evolve, events, sessions.SessionLog()
        )

    def test_an_empty_table_survives_its_rows(self) -> None:
        """The initial table, written as parts and read back, is the initial table."""
        parts = {key: as_json(TABLE.encode(key, part)) for key, part in TABLE.parts(Table()).items()}
        assert TABLE.assemble(parts) == Table()
        assert LEDGER.assemble({"current": as_json(LEDGER.encode("current", None))}) is None


def stored_without_mark(store: Any, name: str) -> dict[str, Any]:
    """A projection's stored rows as JSON, the mark left out."""
    return {k: v for k, v in stored(store, name).items() if k != live.MARK}


class TestTimeTravel:
    """The projections and the table as of any stream version."""

    def test_state_at_each_version_is_the_fold_of_that_prefix(self) -> None:
        """state_at(v) equals the rebuild of the first v events, and table_at(v) knows version v."""
        store = MemoryStore()
        run(make_handler(store), evening())
        events = events_of(store)
        for version in range(len(events) + 1):
            assert state_at(store, "c1", version) == rebuilt(events[:version])
            assert table_at(store, "c1", version) == attrs.evolve(rebuilt(events[:version])["table"], version=version)
        assert state_at(store, "c1", 0) == {"table": Table(), "ledger": None}
        assert state_at(store, "c1", 3)["ledger"].id == "s1"

    def test_a_version_beyond_the_log_is_refused(self) -> None:
        """Asking for a version after the last event is a UsageError."""
        store = MemoryStore()
        run(make_handler(store), evening())
        with pytest.raises(UsageError, match="outside"):
            state_at(store, "c1", store.stream_version(STREAM) + 1)

    def test_an_unknown_campaign_is_not_found(self) -> None:
        """Replaying a campaign with no events raises NotFoundError."""
        with pytest.raises(NotFoundError):
            replay(MemoryStore(), "nope")
