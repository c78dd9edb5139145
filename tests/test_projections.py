"""Live projections: kept in the store, caught up by the tail, always equal to a rebuild from the log."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode, to_data
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError, NotFoundError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.party import MemberAdded, MemberRemoved
from hexlog.events.session import ClientSeedSet, SessionClosed, SessionOpened
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent, Recorded
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.projections import live
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay, state_at, table_at

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from hexlog.events.base import Event

STREAM = "campaign-c1"
NAMES = ("Ann", "Bo", "Cy")


def make_handler(store: Any) -> Handler:
    """A handler with a fixed clock and counted ids, over ``store``, with campaign c1 started."""
    ids = itertools.count(1)
    handler = Handler(
        store, MemoryKeeper(), clock=lambda: "2026-11-29T20:00:00Z",
        new_id=lambda: f"00000000-0000-0000-0000-{next(ids):012d}",
    )
    handler.execute("c1", c.StartCampaign())
    live.refresh(store, STREAM)
    return handler


def run(handler: Handler, store: Any, commands: list[c.Command]) -> None:
    """Execute each command (skipping the ones the rules refuse), refreshing after each."""
    for command in commands:
        try:
            handler.execute("c1", command)
        except HexlogError:
            continue
        live.refresh(store, STREAM)


def _raw_append(store: Any, event: Event) -> None:
    """Append an event past the handler, so no live projection is refreshed."""
    store.append(
        STREAM,
        [NewEvent(id=f"raw-{store.stream_version(STREAM) + 1}", source="hexlog:c1", type=event.cloud_type(),
                  time="2026-11-29T20:00:00Z", schemaversion=event.schema_version, data=to_data(event))],
        expected_version=store.stream_version(STREAM),
    )


def evening() -> list[c.Command]:
    """A fixed evening at the table: a session with a party and several rolls, then a second session."""
    return [
        c.OpenSession(secret_hex=bytes(range(32)).hex()), c.SetClientSeed(client_seed="table-7"),
        c.AddMember(name="Ann", dex=14), c.AddMember(name="Bo", speed=90),
        c.RollDice(expression="2d6"), c.RollDice(expression="d20", secret=True),
        c.RemoveMember(name="Bo", reason="fled"), c.CloseSession(),
        c.OpenSession(secret_hex=bytes(32).hex()), c.RollDice(expression="3d4+1"),
    ]


def events_of(store: Any) -> list[Event]:
    """The decoded events of the campaign stream."""
    return [decode(r.envelope) for r in store.read_stream(STREAM)]


def new_event(event: Event, n: int) -> NewEvent:
    """An event ready to append, with a counted id."""
    return NewEvent(
        id=f"e{n}", source="hexlog:c1", type=event.cloud_type(), time="2026-11-29T20:00:00Z",
        schemaversion=event.schema_version, data=to_data(event),
    )


class CountingStore(MemoryStore):
    """A memory store that remembers where each stream read started."""

    def __init__(self) -> None:
        super().__init__()
        self.reads_from: list[int] = []

    def read_stream(self, stream_id: str, from_version: int = 1) -> list[Recorded]:
        """Record ``from_version`` and read as usual."""
        self.reads_from.append(from_version)
        return super().read_stream(stream_id, from_version)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An empty store of each backend."""
    made: Any = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "hexlog.db")
    yield made
    made.close()


_events = st.one_of(
    st.builds(MemberAdded, name=st.sampled_from(NAMES), dex=st.integers(3, 18), speed=st.sampled_from([60, 90, 120])),
    st.builds(MemberRemoved, name=st.sampled_from(NAMES), reason=st.sampled_from(["", "died"])),
    st.builds(ClockAdvanced, seconds=st.integers(0, 3600), rounds=st.integers(0, 6), turns=st.integers(0, 6), reason=st.text(max_size=5)),
    st.builds(SessionOpened, session=st.sampled_from(["s1", "s2"]), commitment=st.just("ab" * 32)),
    st.builds(ClientSeedSet, session=st.sampled_from(["s1", "s2"]), client_seed=st.text(min_size=1, max_size=5)),
    st.builds(SessionClosed, session=st.sampled_from(["s1", "s2"]), secret=st.just("cd" * 32)),
    st.builds(
        DiceRolled, session=st.sampled_from(["s1", "s2"]), nonce=st.integers(0, 9), purpose=st.just("p"),
        sides=st.just((6, 6)), faces=st.tuples(st.integers(1, 6), st.integers(1, 6)), modifier=st.integers(-2, 2),
        total=st.integers(0, 14), visibility=st.sampled_from(["public", "referee"]),
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
    """The live states, refreshed after each command, equal the states rebuilt from the log."""

    def test_a_campaign_through_the_handler_replays_equal(self, store: Any) -> None:
        """Replay finds every live projection equal and up to date, and the table equals the handler's."""
        handler = make_handler(store)
        run(handler, store, evening())
        report = replay(store, "c1")
        assert report.ok, report.text()
        assert all(check.up_to_date for check in report.checks)
        assert report.projections == live.refresh(store, STREAM) == live.rebuild(events_of(store))
        assert report.table == handler.load("c1")
        assert [m.name for m in report.projections["party"].members] == ["Ann"]
        assert report.projections["ledger"].roll_count == 3

    def test_a_tampered_live_state_is_reported_as_differing(self, store: Any) -> None:
        """A saved party state that the log does not give is caught by replay."""
        handler = make_handler(store)
        run(handler, store, evening())
        version, _ = store.load_projection(f"{STREAM}/party")
        store.save_projection(f"{STREAM}/party", version, live.to_json(live.PROJECTIONS["party"][0]))
        report = replay(store, "c1")
        assert not report.ok
        assert [check.status for check in report.checks] == ["differs", "equal", "equal"]

    def test_a_live_state_that_lags_still_compares_at_its_own_version(self) -> None:
        """Without a refresh after the last command, replay compares at the saved version and says it lags."""
        store = MemoryStore()
        handler = make_handler(store)
        run(handler, store, evening())
        _raw_append(store, MemberAdded(name="Cy"))
        report = replay(store, "c1")
        assert report.ok
        assert not any(check.up_to_date for check in report.checks)

    def test_a_projection_never_saved_is_missing(self) -> None:
        """A campaign whose projections were never refreshed replays with every check missing."""
        store = MemoryStore()
        _raw_append(store, MemberAdded(name="Ann"))
        assert [check.status for check in replay(store, "c1").checks] == ["missing"] * 3

    @FAST
    @given(commands=st.lists(_commands, max_size=12))
    def test_random_command_runs_replay_equal_and_audit_clean(self, commands: list[c.Command]) -> None:
        """Whatever the referee does, live equals rebuilt and the audit finds nothing wrong."""
        store = MemoryStore()
        run(make_handler(store), store, commands)
        assert replay(store, "c1").ok
        assert audit_store(store).ok


class TestFolds:
    """Folding is pure: repeatable, and resumable from a snapshot."""

    def test_folding_twice_gives_equal_state(self) -> None:
        """Two rebuilds of the same events are equal."""
        store = MemoryStore()
        run(make_handler(store), store, evening())
        events = events_of(store)
        assert live.rebuild(events) == live.rebuild(events)

    @FAST
    @given(events=st.lists(_events, max_size=15), data=st.data())
    def test_snapshot_plus_tail_equals_the_full_fold(self, events: list[Event], data: st.DataObject) -> None:
        """Refreshing after a prefix, then after the rest, gives the rebuild of all events."""
        split = data.draw(st.integers(0, len(events)))
        store = MemoryStore()
        numbers = itertools.count(1)
        store.append(STREAM, [new_event(e, next(numbers)) for e in events[:split]], expected_version=0)
        live.refresh(store, STREAM)
        store.append(STREAM, [new_event(e, next(numbers)) for e in events[split:]], expected_version=split)
        assert live.refresh(store, STREAM) == live.rebuild(events)
        assert all(live.from_json(n, live.to_json(s)) == s for n, s in live.rebuild(events).items())

    def test_refresh_reads_only_the_events_after_the_saved_version(self) -> None:
        """After a refresh at version 3, the next refresh reads from version 4 on."""
        store = CountingStore()
        handler = Handler(store, MemoryKeeper())
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.AddMember(name="Ann"))
        handler.execute("c1", c.AddMember(name="Bo"))
        live.refresh(store, STREAM)
        _raw_append(store, MemberAdded(name="Cy"))
        store.reads_from.clear()
        states = live.refresh(store, STREAM)
        assert store.reads_from == [4]
        assert [m.name for m in states["party"].members] == ["Ann", "Bo", "Cy"]
        assert store.load_projection(f"{STREAM}/party")[0] == 4

    def test_an_unreadable_saved_state_is_rebuilt_from_the_log(self) -> None:
        """A saved state that does not decode is treated as a stale cache and rebuilt."""
        store = MemoryStore()
        run(make_handler(store), store, evening())
        store.save_projection(f"{STREAM}/clock", 3, '{"not": "a clock"}')
        assert live.refresh(store, STREAM) == live.rebuild(events_of(store))


class TestTimeTravel:
    """The projections and the table as of any stream version."""

    def test_state_at_each_version_is_the_fold_of_that_prefix(self) -> None:
        """state_at(v) equals the rebuild of the first v events, and table_at(v) knows version v."""
        store = MemoryStore()
        run(make_handler(store), store, evening())
        events = events_of(store)
        for version in range(len(events) + 1):
            assert state_at(store, "c1", version) == live.rebuild(events[:version])
            assert table_at(store, "c1", version).version == version
        assert state_at(store, "c1", 0) == {n: initial for n, (initial, _) in live.PROJECTIONS.items()}

    def test_a_version_beyond_the_log_is_refused(self) -> None:
        """Asking for a version after the last event is a UsageError."""
        store = MemoryStore()
        run(make_handler(store), store, evening())
        with pytest.raises(UsageError, match="outside"):
            state_at(store, "c1", store.stream_version(STREAM) + 1)

    def test_an_unknown_campaign_is_not_found(self) -> None:
        """Replaying a campaign with no events raises NotFoundError."""
        with pytest.raises(NotFoundError):
            replay(MemoryStore(), "nope")
