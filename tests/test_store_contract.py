"""The event store contract, run against every backend."""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlog.events.chain import GENESIS, verify_stream
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode_record, decode_stored, to_data
from hexlog.events.dice import DiceRolled, RollModifier, Visibility
from hexlog.events.encounter import DistanceDetermined
from hexlog.events.errors import ConcurrencyError, IdempotencyConflictError
from hexlog.events.memory import MemoryStore
from hexlog.events.postgres import PostgresStore
from hexlog.events.session import SessionOpened
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import EVERY_ROW, AppendResult, EventStore, Later, NewEvent, ProjectionRow, ProjectionStore

from .postgres_db import drop_schema, needs_postgres, schema_url

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hexlog.events.base import Event


class Store(EventStore, ProjectionStore, Protocol):
    """Both protocols, as every backend offers them."""


def thing(n: int, **data: Any) -> NewEvent:
    """A test event whose data carries ``n``."""
    return NewEvent(
        id=str(uuid.uuid4()),
        source="hexlog:test",
        type="hexlog.test.thing",
        time="2024-05-01T12:00:00Z",
        schemaversion=1,
        data={"n": n, **data},
    )


def row(projection: str, key: str, version: int, data: Any) -> ProjectionRow:
    """A projection row of ``projection`` (data None deletes it)."""
    return ProjectionRow(projection=projection, key=key, version=version, data=data)


def batch(*ns: int) -> list[NewEvent]:
    """Test events carrying each of ``ns``."""
    return [thing(n) for n in ns]


#: events of every kind a fold reads from a store: a text decoder's classes (with a nested class, an enum and big
#: numbers) and a class read only from its data (an open word)
SAMPLE_EVENTS = (
    SessionOpened(session="s1", commitment="c" * 64, scheme="hexlog-dice-v2"),
    DiceRolled(
        session="s1",
        nonce=2**52,
        purpose='é \u2028 "quoted"',
        sides=(6, 6),
        faces=(1, 6),
        modifier=-2,
        total=5,
        visibility=Visibility.REFEREE,
        made_for="Ann",
        modifiers=(RollModifier(source="exhaustion", value=-2),),
    ),
    ClockAdvanced(seconds=600, rounds=0, turns=1, reason="a turn"),
    DistanceDetermined(value=60, unit="ft", rule="ose.dungeon 2d6x10ft", steps=("rolled 6",), rolls=(0,)),
)


def _pages_of_seven(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store reads a stream's payloads and events seven at a time."""
    monkeypatch.setattr("hexlog.events.memory.PAGE_SIZE", 7)
    monkeypatch.setattr("hexlog.events.sql_pages.EVENT_PAGE_SIZE", 7)


def as_new(event: Event) -> NewEvent:
    """An event as a store takes it."""
    return NewEvent(
        id=str(uuid.uuid4()),
        source="hexlog:test",
        type=event.cloud_type(),
        time="2024-05-01T12:00:00Z",
        schemaversion=event.schema_version,
        data=to_data(event),
    )


class StoreContract:
    """Behaviour every event store shares; subclasses say how to make one."""

    def make_store(self, directory: Path) -> Store:
        """A new, empty store keeping its files (if any) in ``directory``."""
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Store]:
        """A new, empty store, closed after the test."""
        made = self.make_store(tmp_path)
        yield made
        made.close()

    def test_events_with_ids_finds_each_id_held_in_small_letters_or_capitals(self, store: Store) -> None:
        """An import asks the store for its ids, a page at a time, instead of reading the log: each held is found
        whether either side writes it in capitals, as written in the store, with its stream and version; ids past
        one page of them are asked too, and an id held nowhere is not found."""
        lower, upper, other = (str(uuid.UUID(int=n)) for n in (0xABC1, 0xABC2, 0xABC3))
        store.append("a", [thing(1), thing(2)._replace(id=lower)], expected_version=0)
        store.append("b", [thing(3)._replace(id=upper.upper()), thing(4)._replace(id=other)], expected_version=0)
        asked = [str(uuid.UUID(int=n)) for n in range(1, 1200)]
        found = store.events_with_ids([*asked[:700], lower.upper(), *asked[700:], upper])
        assert sorted(found) == sorted([(lower, "a", 2), (upper.upper(), "b", 1)])
        assert store.events_with_ids([]) == []
        assert store.events_with_ids(asked) == []

    def test_a_stream_reads_back_in_append_order_with_versions_one_to_n(self, store: Store) -> None:
        """Events come back in the order appended, numbered 1, 2, 3 … in their stream."""
        store.append("s", batch(1, 2), expected_version=0)
        store.append("s", batch(3), expected_version=2)
        read = store.read_stream("s")
        assert [r.envelope.data["n"] for r in read] == [1, 2, 3]
        assert [r.version for r in read] == [1, 2, 3]
        assert all(r.stream_id == "s" and r.envelope.subject == "s" for r in read)
        assert store.stream_version("s") == 3

    def test_read_stream_starts_at_the_version_asked_for(self, store: Store) -> None:
        """``from_version`` skips the earlier events of the stream."""
        store.append("s", batch(1, 2, 3, 4), expected_version=0)
        assert [r.version for r in store.read_stream("s", from_version=3)] == [3, 4]

    def test_an_unknown_stream_is_empty_at_version_zero(self, store: Store) -> None:
        """A stream never appended to has no events and version 0."""
        assert store.read_stream("nobody") == []
        assert store.stream_version("nobody") == 0
        assert store.streams() == []

    def test_append_result_names_the_versions_and_ids_written(self, store: Store) -> None:
        """The result gives the first and last version and the ids, not replayed."""
        store.append("s", batch(1), expected_version=0)
        events = batch(2, 3)
        result = store.append("s", events, expected_version=1)
        assert result == AppendResult(
            stream_id="s",
            first_version=2,
            last_version=3,
            event_ids=tuple(e.id for e in events),
            replayed=False,
        )

    def test_positions_are_gap_free_across_several_streams(self, store: Store) -> None:
        """Global positions run 1, 2, 3 … whichever streams the events go to."""
        store.append("a", batch(1, 2), expected_version=0)
        store.append("b", batch(3), expected_version=0)
        store.append("a", batch(4), expected_version=2)
        store.append("c", batch(5, 6), expected_version=0)
        everything = list(store.read_all())
        assert [r.position for r in everything] == [1, 2, 3, 4, 5, 6]
        assert [r.envelope.data["n"] for r in everything] == [1, 2, 3, 4, 5, 6]
        assert [r.stream_id for r in everything] == ["a", "a", "b", "a", "c", "c"]
        assert [r.position for r in store.read_stream("a")] == [1, 2, 4]

    def test_streams_are_listed_in_order_of_first_appearance(self, store: Store) -> None:
        """``streams`` lists each stream once, in the order it was first appended to."""
        for name in ["zeta", "alpha", "mid"]:
            store.append(name, batch(1), expected_version=0)
        store.append("alpha", batch(2), expected_version=1)
        assert store.streams() == ["zeta", "alpha", "mid"]

    def test_read_all_starts_at_a_position_and_stops_at_the_limit(self, store: Store) -> None:
        """``from_position`` and ``limit`` select a window of the global log."""
        store.append("a", batch(*range(1, 8)), expected_version=0)
        store.append("b", batch(*range(8, 11)), expected_version=0)
        assert [r.position for r in store.read_all(from_position=4)] == list(range(4, 11))
        assert [r.position for r in store.read_all(from_position=3, limit=4)] == [3, 4, 5, 6]
        assert [r.position for r in store.read_all(limit=2)] == [1, 2]
        assert list(store.read_all(from_position=11)) == []
        assert [r.position for r in store.read_all(from_position=9, limit=50)] == [9, 10]

    def test_read_all_pages_through_a_log_longer_than_a_page(self, store: Store) -> None:
        """A log of more than one page of rows reads back whole and in order."""
        for k in range(3):
            store.append("s", batch(*range(k * 400, (k + 1) * 400)), expected_version=k * 400)
        assert [r.envelope.data["n"] for r in store.read_all()] == list(range(1200))
        assert [r.position for r in store.read_all(from_position=450, limit=600)] == list(range(450, 1050))

    def test_iter_stream_pages_through_a_stream_and_reads_only_its_events(
        self, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A stream longer than a page reads back whole, in order, from any version, without another stream's
        events; it is the same as ``read_stream``."""
        monkeypatch.setattr("hexlog.events.sql_pages.STREAM_PAGE_SIZE", 7)
        for k in range(3):
            store.append("s", batch(*range(k * 10, (k + 1) * 10)), expected_version=k * 10)
            store.append("t", batch(100 + k), expected_version=k)
        assert [r.envelope.data["n"] for r in store.iter_stream("s")] == list(range(30))
        assert [r.version for r in store.iter_stream("s", from_version=14)] == list(range(14, 31))
        assert [r.envelope for r in store.iter_stream("t")] == [r.envelope for r in store.read_stream("t")]
        assert list(store.iter_stream("s", from_version=31)) == []
        assert list(store.iter_stream("nobody")) == []

    def test_iter_payloads_gives_what_iter_stream_gives_without_the_envelopes(
        self, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Each event's version, id, type, schema version and data, page by page, from any version, without
        another stream's events: the very values of its envelope."""
        monkeypatch.setattr("hexlog.events.sql_pages.STREAM_PAGE_SIZE", 7)
        for k in range(3):
            events = [thing(n, big=2**70, text="é\u2028") for n in range(k * 10, (k + 1) * 10)]
            store.append("s", events, expected_version=k * 10)
            store.append("t", batch(100 + k), expected_version=k)

        def expected(stream: str, start: int = 1) -> list[tuple[Any, ...]]:
            return [
                (e.streamversion, e.id, e.type, e.schemaversion, e.data)
                for e in (r.envelope for r in store.iter_stream(stream, start))
            ]

        assert list(store.iter_payloads("s")) == expected("s")
        assert [p[4]["n"] for p in store.iter_payloads("s")] == list(range(30))
        assert all(type(p[4]["big"]) is int for p in store.iter_payloads("s"))
        assert list(store.iter_payloads("s", from_version=14)) == expected("s", 14)
        assert [p[0] for p in store.iter_payloads("s", from_version=14)] == list(range(14, 31))
        assert list(store.iter_payloads("t")) == expected("t")
        assert list(store.iter_payloads("s", from_version=31)) == []
        assert list(store.iter_payloads("nobody")) == []

    def test_payload_pages_are_the_payloads_between_two_versions_a_page_at_a_time(
        self, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """``payload_pages`` gives what ``iter_payloads`` gives, from ``from_version`` to ``to_version``, in lists of
        at most a page, none empty, without another stream's events."""
        _pages_of_seven(monkeypatch)
        for k in range(3):
            events = [thing(n, big=2**70) for n in range(k * 10, (k + 1) * 10)]
            store.append("s", events, expected_version=k * 10)
            store.append("t", batch(100 + k), expected_version=k)
        whole = list(store.iter_payloads("s"))
        for start, end in [(1, None), (1, 30), (4, 17), (14, None), (30, 30), (7, 7), (31, None), (5, 4)]:
            pages = list(store.payload_pages("s", start, end))
            assert all(0 < len(page) <= 7 for page in pages)
            last = 30 if end is None else end
            assert [p for page in pages for p in page] == [p for p in whole if start <= p[0] <= last]
        assert [p[4]["n"] for page in store.payload_pages("t") for p in page] == [100, 101, 102]
        assert list(store.payload_pages("nobody")) == []

    def test_event_pages_are_the_payload_pages_decoded(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        """``event_pages`` gives each event's version, id and the event ``decode_stored`` makes of its payload, page
        by page between two versions: events read from their text and events of classes read only from their data
        alike."""
        _pages_of_seven(monkeypatch)
        store.append("s", [as_new(event) for event in SAMPLE_EVENTS], expected_version=0)
        store.append("s", [as_new(event) for event in SAMPLE_EVENTS], expected_version=len(SAMPLE_EVENTS))
        total = 2 * len(SAMPLE_EVENTS)
        for start, end in [(1, None), (3, total - 2), (total, None), (total + 1, None)]:
            pages = list(store.event_pages("s", start, end))
            assert all(0 < len(page) <= 7 for page in pages)
            expected = [
                (p[0], p[1], decode_stored("s", p)) for page in store.payload_pages("s", start, end) for p in page
            ]
            assert [stored for page in pages for stored in page] == expected
        decoded = [stored[2] for page in store.event_pages("s") for stored in page]
        assert decoded == [*SAMPLE_EVENTS, *SAMPLE_EVENTS]
        assert list(store.event_pages("nobody")) == []

    def test_log_pages_are_the_log_decoded(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        """``log_pages`` gives each event of every stream, in global order from a position on, as its position,
        stream, version, id and the event ``decode_record`` makes of its record, page by page: events read from their
        text and events of classes read only from their data alike."""
        _pages_of_seven(monkeypatch)
        for stream in ("a", "b", "a", "c", "b"):
            version = store.stream_version(stream)
            store.append(stream, [as_new(event) for event in SAMPLE_EVENTS], expected_version=version)
        total = 5 * len(SAMPLE_EVENTS)
        for start in (1, 0, 3, 8, total, total + 1):
            pages = list(store.log_pages(start))
            assert all(0 < len(page) <= 7 for page in pages)
            expected = [
                (r.position, r.stream_id, r.version, r.envelope.id, decode_record(r)) for r in store.read_all(start)
            ]
            assert [logged for page in pages for logged in page] == expected
            assert len(expected) == max(0, total - max(start, 1) + 1)
        decoded = [logged[4] for page in store.log_pages() for logged in page]
        assert decoded == list(SAMPLE_EVENTS) * 5
        streams = [stream for stream in ("a", "b", "a", "c", "b") for _ in SAMPLE_EVENTS]
        assert [logged[1] for logged in next(store.log_pages(len(SAMPLE_EVENTS) + 1))] == streams[len(SAMPLE_EVENTS) :][
            :7
        ]

    def test_a_store_with_no_events_has_no_log_pages(self, store: Store) -> None:
        """An empty log gives no page at all (never an empty one)."""
        assert list(store.log_pages()) == []
        store.append("s", batch(1), expected_version=0)
        assert list(store.log_pages(2)) == []

    def test_a_stale_expected_version_raises_and_writes_nothing(self, store: Store) -> None:
        """An append at the wrong version raises ``ConcurrencyError`` and leaves the log alone."""
        store.append("s", batch(1, 2), expected_version=0)
        with pytest.raises(ConcurrencyError, match="version 2"):
            store.append("s", batch(3), expected_version=1)
        with pytest.raises(ConcurrencyError):
            store.append("s", batch(3), expected_version=3)
        with pytest.raises(ConcurrencyError):
            store.append("new", batch(3), expected_version=1)
        assert store.stream_version("s") == 2
        assert [r.envelope.data["n"] for r in store.read_all()] == [1, 2]
        assert store.streams() == ["s"]

    def test_a_failed_batch_leaves_none_of_its_events(self, store: Store) -> None:
        """A batch refused for a stale version writes none of its events, first ones included."""
        store.append("s", batch(1), expected_version=0)
        with pytest.raises(ConcurrencyError):
            store.append("s", batch(10, 11, 12, 13), expected_version=0)
        assert [r.envelope.data["n"] for r in store.read_all()] == [1]
        store.append("s", batch(2), expected_version=1)
        assert [r.position for r in store.read_all()] == [1, 2]

    def test_a_retried_command_returns_the_first_result_and_writes_nothing(self, store: Store) -> None:
        """The same command id and digest give back the original result, marked replayed."""
        first = store.append("s", batch(1, 2), expected_version=0, command_id="c1", command_digest="d1")
        again = store.append("s", batch(1, 2), expected_version=0, command_id="c1", command_digest="d1")
        assert not first.replayed
        assert again.replayed
        assert (again.stream_id, again.first_version, again.last_version, again.event_ids) == (
            first.stream_id,
            first.first_version,
            first.last_version,
            first.event_ids,
        )
        assert store.stream_version("s") == 2
        assert len(list(store.read_all())) == 2

    def test_a_retry_is_recognised_before_the_version_check(self, store: Store) -> None:
        """A retry whose expected version is now stale still replays instead of conflicting."""
        first = store.append("s", batch(1), expected_version=0, command_id="c1", command_digest="d1")
        store.append("s", batch(2), expected_version=1)
        again = store.append("s", batch(1), expected_version=0, command_id="c1", command_digest="d1")
        assert again.replayed
        assert again.event_ids == first.event_ids
        assert store.stream_version("s") == 2

    def test_a_command_id_reused_for_another_command_raises(self, store: Store) -> None:
        """The same command id with another digest raises and writes nothing."""
        store.append("s", batch(1), expected_version=0, command_id="c1", command_digest="d1")
        with pytest.raises(IdempotencyConflictError, match="c1"):
            store.append("s", batch(2), expected_version=1, command_id="c1", command_digest="d2")
        assert store.stream_version("s") == 1

    def test_command_result_reports_earlier_commands_only(self, store: Store) -> None:
        """``command_result`` gives the replayed result of a known id and ``None`` otherwise."""
        first = store.append("s", batch(1), expected_version=0, command_id="c1", command_digest="d1")
        known = store.command_result("c1", "d1")
        assert known is not None
        assert known.replayed
        assert known.event_ids == first.event_ids
        assert store.command_result("c2", "d1") is None
        with pytest.raises(IdempotencyConflictError):
            store.command_result("c1", "other")

    def test_a_command_refused_for_its_version_can_be_retried_later(self, store: Store) -> None:
        """A command that failed on a stale version left no record, so its id is still free."""
        store.append("s", batch(1), expected_version=0)
        with pytest.raises(ConcurrencyError):
            store.append("s", batch(2), expected_version=0, command_id="c1", command_digest="d1")
        assert store.command_result("c1", "d1") is None
        result = store.append("s", batch(2), expected_version=1, command_id="c1", command_digest="d1")
        assert not result.replayed
        assert result.first_version == 2

    def test_the_stored_chain_verifies(self, store: Store) -> None:
        """Each stream read back is a sound hexlog-chain-v1 chain starting at genesis."""
        store.append("a", batch(1, 2), expected_version=0)
        store.append("b", batch(3), expected_version=0)
        store.append("a", [thing(4, text="naïve ✓", nested={"z": [1, 2], "a": None})], expected_version=2)
        for name in ["a", "b"]:
            envelopes = [r.envelope for r in store.read_stream(name)]
            assert envelopes[0].prevhash == GENESIS
            assert verify_stream(envelopes) is None
        last = store.read_stream("a")[-1].envelope
        assert last.data == {"n": 4, "text": "naïve ✓", "nested": {"z": [1, 2], "a": None}}
        assert last.prevhash == store.read_stream("a")[1].envelope.hash

    def test_the_log_holds_what_was_appended_whatever_the_caller_changes_after(self, store: Store) -> None:
        """The data a caller changes after its append (before anything is read, and after) is not the log's: the
        stream reads back what was appended, and its chain verifies."""
        first = thing(1, faces=[1, 2], name="Ann")
        store.append("a", [first], expected_version=0)
        first.data["faces"].append(6)
        first.data["name"] = "changed before a read"
        second = thing(2, faces=[3])
        store.append("a", [second], expected_version=1)
        assert [r.envelope.data for r in store.read_stream("a")] == [
            {"n": 1, "faces": [1, 2], "name": "Ann"},
            {"n": 2, "faces": [3]},
        ]
        second.data["faces"].append(4)
        envelopes = [r.envelope for r in store.read_stream("a")]
        assert envelopes[1].data == {"n": 2, "faces": [3]}
        assert verify_stream(envelopes) is None

    @pytest.mark.parametrize(
        "read",
        [
            lambda store: store.read_stream("a"),
            lambda store: list(store.iter_stream("a")),
            lambda store: list(store.read_all()),
        ],
        ids=["read_stream", "iter_stream", "read_all"],
    )
    def test_what_a_reader_changes_in_its_records_no_later_reader_sees(self, store: Store, read: Any) -> None:
        """Records are made anew for each read, as from stored rows: a reader that changes the data of the records,
        envelopes and payloads it was given (asked for in either order) changes nothing another read gives."""
        store.append("a", [thing(1, faces=[1, 2], who={"name": "Ann"}), thing(2, faces=[3])], expected_version=0)
        want = [{"n": 1, "faces": [1, 2], "who": {"name": "Ann"}}, {"n": 2, "faces": [3]}]
        first, second = read(store)
        first.envelope.data["faces"].append(6)
        first.envelope.data["who"]["name"] = "changed"
        first.payload()[2]["n"] = 99
        second.payload()[2]["faces"].clear()
        second.envelope.data["extra"] = True
        assert [r.envelope.data for r in read(store)] == want
        assert [r.payload()[2] for r in read(store)] == want

    def test_what_a_reader_changes_in_its_payloads_no_later_reader_sees(self, store: Store) -> None:
        """Payloads are made anew for each read: data changed by one reader of ``iter_payloads`` or ``payload_pages``
        is not what the next read gives, nor what the events decoded after it are made of."""
        store.append("s", [as_new(event) for event in SAMPLE_EVENTS], expected_version=0)
        events = [event for page in store.event_pages("s") for _, _, event in page]
        want = [payload[4] for payload in store.iter_payloads("s")]
        for payload in [*store.iter_payloads("s"), *(p for page in store.payload_pages("s") for p in page)]:
            payload[4]["session"] = "changed"
            payload[4].pop("nonce", None)
        assert [payload[4] for payload in store.iter_payloads("s")] == want
        assert [payload[4] for page in store.payload_pages("s") for payload in page] == want
        assert [event for page in store.event_pages("s") for _, _, event in page] == events
        assert [logged[4] for page in store.log_pages() for logged in page] == events

    def test_what_a_reader_changes_in_its_rows_no_later_reader_sees(self, store: Store) -> None:
        """Rows are made anew for each read: a reader that changes the data ``read_rows`` or ``iter_rows`` gave it
        changes nothing the next read gives (a row written as data, or ``Later``)."""
        rows = [
            row("p", "a", 1, {"parts": [1, 2], "who": {"name": "Ann"}}),
            row("p", "b", 1, Later(lambda: {"x": [1]})),
        ]
        store.append("s", batch(1), expected_version=0, rows=rows)
        want = {"a": (1, {"parts": [1, 2], "who": {"name": "Ann"}}), "b": (1, {"x": [1]})}
        for _ in range(2):
            found = store.read_rows("s", "p")
            assert found == want
            found["a"][1]["parts"].append(3)
            found["a"][1]["who"]["name"] = "changed"
            found["b"][1]["x"].clear()
            for _, _, data in store.iter_rows("s", "p"):
                data.clear()
            assert store.read_rows("s", "p", ["a"]) == {"a": want["a"]}
            assert {key: (version, data) for key, version, data in store.iter_rows("s", "p")} == want

    def test_envelope_fields_come_back_as_given(self, store: Store) -> None:
        """Id, source, type, time and schema version survive the round trip."""
        new = NewEvent(
            id="e-1",
            source="hexlog:camp",
            type="hexlog.test.other",
            time="2024-05-01T12:34:56Z",
            schemaversion=3,
            data={"k": "v"},
        )
        store.append("s", [new], expected_version=0)
        env = store.read_stream("s")[0].envelope
        assert (env.id, env.source, env.type, env.time, env.schemaversion, env.data) == (
            "e-1",
            "hexlog:camp",
            "hexlog.test.other",
            "2024-05-01T12:34:56Z",
            3,
            {"k": "v"},
        )

    def test_rows_written_by_an_append_read_back_with_their_versions(self, store: Store) -> None:
        """An append's rows are stored with it; every row, or only the keys asked for, read back."""
        store.append(
            "s",
            batch(1, 2),
            expected_version=0,
            rows=[
                row("party", "members", 2, ["Ana"]),
                row("party", "@", 2, {"revision": 1}),
                row("clock", "now", 1, 0),
            ],
        )
        assert store.read_rows("s", "party") == {"members": (2, ["Ana"]), "@": (2, {"revision": 1})}
        assert store.read_rows("s", "party", ["@"]) == {"@": (2, {"revision": 1})}
        assert store.read_rows("s", "party", ["members", "absent"]) == {"members": (2, ["Ana"])}
        assert store.read_rows("s", "party", []) == {}
        assert store.read_rows("s", "clock") == {"now": (1, 0)}
        assert store.read_rows("s", "nothing") == {}
        assert store.read_rows("other", "party") == {}

    def test_a_later_row_replaces_the_one_of_its_key_and_none_deletes_it(self, store: Store) -> None:
        """Rows are applied in order: an upsert per key, and data None removes the row."""
        store.append("s", batch(1), expected_version=0, rows=[row("p", "a", 1, {"x": 1}), row("p", "b", 1, "keep")])
        store.append("s", batch(2), expected_version=1, rows=[row("p", "a", 2, {"x": 2}), row("p", "b", 2, None)])
        assert store.read_rows("s", "p") == {"a": (2, {"x": 2})}
        store.append("s", batch(3), expected_version=2, rows=[row("p", "c", 3, None)])
        assert store.read_rows("s", "p") == {"a": (2, {"x": 2})}

    def test_a_row_made_later_is_kept_as_what_it_makes(self, store: Store) -> None:
        """A row whose data is ``Later`` reads back as what its ``make`` gives, at most once, whoever writes it."""
        made: list[str] = []

        def make(key: str) -> Later:
            def value() -> Any:
                made.append(key)
                return {"key": key, "parts": [1, 2]}

            return Later(value)

        store.append("s", batch(1), expected_version=0, rows=[row("p", "a", 1, make("a"))])
        assert store.write_rows("s", [row("p", "b", 1, make("b"))], at_version=1)
        for _ in range(2):
            assert store.read_rows("s", "p") == {
                "a": (1, {"key": "a", "parts": [1, 2]}),
                "b": (1, {"key": "b", "parts": [1, 2]}),
            }
            assert [data for _, _, data in store.iter_rows("s", "p")] == [
                {"key": "a", "parts": [1, 2]},
                {"key": "b", "parts": [1, 2]},
            ]
        assert sorted(made) == ["a", "b"]

    def test_deleting_every_row_wipes_the_projection_before_the_rows_after_it(self, store: Store) -> None:
        """A deleted EVERY_ROW row removes all rows of its projection of that stream, and only those."""
        store.append(
            "s",
            batch(1),
            expected_version=0,
            rows=[
                row("p", "a", 1, 1),
                row("p", "b", 1, 2),
                row("q", "a", 1, 3),
            ],
        )
        store.append("t", batch(2), expected_version=0, rows=[row("p", "a", 1, 4)])
        store.append("s", batch(3), expected_version=1, rows=[row("p", EVERY_ROW, 2, None), row("p", "c", 2, 5)])
        assert store.read_rows("s", "p") == {"c": (2, 5)}
        assert store.read_rows("s", "q") == {"a": (1, 3)}
        assert store.read_rows("t", "p") == {"a": (1, 4)}

    def test_a_refused_append_writes_none_of_its_rows(self, store: Store) -> None:
        """Rows go in the append's transaction: a stale version or a reused command id leaves them out."""
        store.append(
            "s", batch(1), expected_version=0, command_id="c1", command_digest="d1", rows=[row("p", "a", 1, "first")]
        )
        with pytest.raises(ConcurrencyError):
            store.append("s", batch(2), expected_version=0, rows=[row("p", "a", 1, "stale"), row("p", "b", 1, "x")])
        with pytest.raises(IdempotencyConflictError):
            store.append(
                "s",
                batch(2),
                expected_version=1,
                command_id="c1",
                command_digest="d2",
                rows=[row("p", "a", 2, "conflict")],
            )
        again = store.append(
            "s", batch(1), expected_version=0, command_id="c1", command_digest="d1", rows=[row("p", "a", 1, "replayed")]
        )
        assert again.replayed
        assert store.read_rows("s", "p") == {"a": (1, "first")}
        assert store.stream_version("s") == 1

    def test_write_rows_writes_only_while_the_stream_is_at_the_version_given(self, store: Store) -> None:
        """Rows folded to a version are written at that version and refused (False) once the stream moved."""
        store.append("s", batch(1, 2), expected_version=0)
        assert store.write_rows("s", [row("p", "a", 2, {"at": 2})], at_version=2) is True
        assert store.read_rows("s", "p") == {"a": (2, {"at": 2})}
        store.append("s", batch(3), expected_version=2)
        assert store.write_rows("s", [row("p", "a", 2, {"at": "late"}), row("p", "b", 2, 1)], at_version=2) is False
        assert store.write_rows("s", [row("p", "a", 4, {"at": "ahead"})], at_version=4) is False
        assert store.read_rows("s", "p") == {"a": (2, {"at": 2})}
        assert store.write_rows("s", [row("p", EVERY_ROW, 3, None), row("p", "b", 3, [3])], at_version=3) is True
        assert store.read_rows("s", "p") == {"b": (3, [3])}
        assert store.write_rows("empty", [row("p", "a", 0, 0)], at_version=0) is True
        assert store.read_rows("empty", "p") == {"a": (0, 0)}

    def test_rows_hold_any_json_value(self, store: Store) -> None:
        """Nested objects, lists, text beyond ASCII, numbers, booleans and null inside come back equal."""
        value = {"text": "naïve ✓", "list": [1, 2.5, True, None], "nested": {"z": {"a": []}}}
        store.append("s", batch(1), expected_version=0, rows=[row("p", "k/1", 1, value), row("p", "f", 1, data=False)])
        assert store.read_rows("s", "p") == {"k/1": (1, value), "f": (1, False)}

    def test_iter_rows_gives_every_row_of_one_projection_in_key_order(
        self, store: Store, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Every row of the stream's projection, the mark too, as (key, version, data) in key order, across pages
        (the SQLite and PostgreSQL stores read 3 at a time here): the rows ``read_rows`` gives, and no other
        projection's. Keys are in code point order on every backend (PostgreSQL's own collation aside)."""
        monkeypatch.setattr("hexlog.events.sqlite.ROWS_PAGE_SIZE", 3)
        monkeypatch.setattr("hexlog.events.postgres.ROWS_PAGE_SIZE", 3)
        keys = ["roll/s2/000000001", "@", "roll/s10/000000000", "session/s1", "roll/s2/000000000", "clock", "b", "a"]
        keys += ["B", "_x", "Zed", "é", "roll/S2"]
        rows = [row("p", key, n + 1, {"n": n}) for n, key in enumerate(keys)]
        store.append("s", batch(*range(len(keys))), expected_version=0, rows=[*rows, row("q", "a", 1, "other")])
        store.append("t", batch(1), expected_version=0, rows=[row("p", "a", 1, "other stream")])
        found = list(store.iter_rows("s", "p"))
        assert [key for key, _, _ in found] == sorted(keys)
        assert {key: (version, data) for key, version, data in found} == store.read_rows("s", "p")
        assert list(store.iter_rows("s", "q")) == [("a", 1, "other")]
        assert list(store.iter_rows("s", "nothing")) == []

    # Each backend subclass runs this one test; sharing its example database between them is
    # harmless (a plan that broke one backend is worth replaying on the other).
    @settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.differing_executors])
    @given(plan=st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 4)), max_size=12))
    def test_any_run_of_appends_keeps_positions_gap_free_and_chains_sound(self, plan: list[tuple[str, int]]) -> None:
        """Whatever the streams and batch sizes, positions are 1..n and every stream verifies."""
        with tempfile.TemporaryDirectory() as directory:
            store = self.make_store(Path(directory))
            try:
                counter = 0
                for name, size in plan:
                    numbers = range(counter, counter + size)
                    counter += size
                    store.append(name, batch(*numbers), expected_version=store.stream_version(name))
                everything = list(store.read_all())
                assert [r.position for r in everything] == list(range(1, counter + 1))
                assert [r.envelope.data["n"] for r in everything] == list(range(counter))
                for name in store.streams():
                    envelopes = [r.envelope for r in store.read_stream(name)]
                    assert verify_stream(envelopes) is None
                    assert len(envelopes) == store.stream_version(name)
            finally:
                store.close()


class TestMemoryStore(StoreContract):
    """The contract, held by the in-memory store."""

    def make_store(self, directory: Path) -> Store:  # noqa: ARG002 - keeps nothing on disk
        """A new in-memory store."""
        return MemoryStore()


class TestSQLiteStore(StoreContract):
    """The contract, held by the SQLite store."""

    def make_store(self, directory: Path) -> Store:
        """A new SQLite store in a file under ``directory``."""
        return SQLiteStore(directory / "events.db")


class _OwnSchemaStore(PostgresStore):
    """A PostgreSQL store in a new schema of its own, which closing drops."""

    def close(self) -> None:
        super().close()
        drop_schema(self.schema)


@needs_postgres
class TestPostgresStore(StoreContract):
    """The contract, held by the PostgreSQL store (each store in a new schema, dropped when it closes)."""

    def make_store(self, directory: Path) -> Store:  # noqa: ARG002 - keeps nothing on disk
        """A new PostgreSQL store in a schema of its own."""
        return _OwnSchemaStore(schema_url(f"hexlog_test_{uuid.uuid4().hex[:16]}"))
