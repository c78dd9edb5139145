"""Export to CloudEvents JSON lines and import back: lossless, verified first, all or nothing."""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from typing import TYPE_CHECKING, Any, NoReturn

import attrs
import pytest

from hexlog.events.chain import reseal
from hexlog.events.errors import CorruptLogError, NotFoundError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.postgres import PostgresStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import campaigns, export_lines, import_envelopes, read_export

from .postgres_db import pg_url

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from hexlog.events.chain import Envelope
    from hexlog.events.store import EventStore

__all__ = ["pg_url"]  # the fixture, used by name


def drive(store: Any, campaign: str = "c1", *, member: str = "Ann") -> None:
    """Write a small campaign through the handler, with non-ASCII text in a purpose and a closed session."""
    ids = itertools.count(1)
    handler = Handler(
        store,
        MemoryKeeper(),
        clock=lambda: "2026-11-29T20:00:00.000000Z",
        new_id=lambda: f"{campaign.encode().hex()[:8]:0>8}-0000-0000-0000-{next(ids):012d}",  # a UUID per campaign
    )
    handler.execute(campaign, c.StartCampaign())
    secret = hashlib.sha256(campaign.encode()).hexdigest()  # one per campaign: a secret is never used twice
    handler.execute(campaign, c.OpenSession(secret_hex=secret))
    handler.execute(campaign, c.SetClientSeed(client_seed="table 7"))
    handler.execute(campaign, c.AddMember(name=member))
    handler.execute(campaign, c.RollDice(expression="2d6+1", purpose="tåble ✓"))
    handler.execute(campaign, c.RollDice(expression="d20", secret=True))
    handler.execute(campaign, c.CloseSession())


def exported_file(store: Any, campaign: str = "c1") -> bytes:
    """The export of a campaign as the bytes of a file, one line per event."""
    return "".join(line + "\n" for line in export_lines(store, campaign)).encode("utf-8")


def parse(data: bytes) -> list[Any]:
    """Read a file's bytes, split on newlines as the format says."""
    return read_export(data.split(b"\n"))


class TestRoundTrip:
    """Export, import elsewhere, export again."""

    def test_export_import_export_gives_identical_lines(self, tmp_path: Path) -> None:
        """A campaign moved from memory to SQLite and back exports the very same lines."""
        first = MemoryStore()
        drive(first)
        lines = list(export_lines(first, "c1"))
        second = SQLiteStore(tmp_path / "hexlog.db")
        try:
            result = import_envelopes(second, read_export(lines))
            assert list(export_lines(second, "c1")) == lines
            third = MemoryStore()
            import_envelopes(third, read_export(export_lines(second, "c1")))
            assert list(export_lines(third, "c1")) == lines
            assert audit_store(second).ok
        finally:
            second.close()
        assert (result.campaign, result.stream_id, result.events) == ("c1", "campaign-c1", len(lines))

    def test_each_line_is_one_cloudevent_with_text_kept_as_utf_8(self) -> None:
        """Lines are JSON objects with the CloudEvents attributes, in stream order, non-ASCII unescaped."""
        store = MemoryStore()
        drive(store)
        lines = list(export_lines(store, "c1"))
        objects = [json.loads(line) for line in lines]
        assert [o["streamversion"] for o in objects] == list(range(1, len(lines) + 1))
        assert all(o["specversion"] == "1.0" and o["subject"] == "campaign-c1" for o in objects)
        assert any("tåble ✓" in line for line in lines)

    def test_campaigns_lists_the_campaign_streams(self) -> None:
        """campaigns gives the ids of the campaign-<id> streams in order of creation."""
        store = MemoryStore()
        drive(store, "c1")
        drive(store, "c2")
        assert campaigns(store) == ["c1", "c2"]

    def test_exporting_an_unknown_campaign_is_not_found(self) -> None:
        """A campaign with no events cannot be exported."""
        with pytest.raises(NotFoundError):
            export_lines(MemoryStore(), "nope")


class TestRefusals:
    """Imports that must write nothing."""

    def test_importing_into_a_store_where_the_stream_exists_is_refused_and_writes_nothing(self, tmp_path: Path) -> None:
        """A UsageError, and the target store holds exactly what it held before."""
        source = MemoryStore()
        drive(source)
        target = SQLiteStore(tmp_path / "hexlog.db")
        try:
            drive(target, member="Bo")
            before = [r.envelope for r in target.read_all()]
            with pytest.raises(UsageError, match="already exists"):
                import_envelopes(target, parse(exported_file(source)))
            assert [r.envelope for r in target.read_all()] == before
        finally:
            target.close()

    def test_a_file_truncated_mid_line_is_refused_naming_the_line(self) -> None:
        """Cutting the file inside its fourth line is bad JSON on line 4."""
        store = MemoryStore()
        drive(store)
        data = exported_file(store)
        cut = sum(len(line) + 1 for line in data.split(b"\n")[:3]) + 40
        with pytest.raises(CorruptLogError, match=r"^line 4: bad JSON"):
            parse(data[:cut])

    def test_an_edited_value_is_refused_naming_the_line(self) -> None:
        """A roll's total edited on line 5 keeps the JSON valid but fails the hash of line 5."""
        store = MemoryStore()
        drive(store)
        lines = exported_file(store).decode("utf-8").splitlines()
        obj = json.loads(lines[4])
        obj["data"]["total"] += 1
        lines[4] = json.dumps(obj, ensure_ascii=False)
        target = MemoryStore()
        with pytest.raises(CorruptLogError, match=r"line 5\b"):
            import_envelopes(target, read_export(lines))
        assert target.streams() == []

    def test_a_missing_attribute_is_refused_naming_the_line_and_the_attribute(self) -> None:
        """A line without ``hash`` is refused with its line number and the missing name."""
        store = MemoryStore()
        drive(store)
        lines = list(export_lines(store, "c1"))
        obj = json.loads(lines[2])
        del obj["hash"]
        lines[2] = json.dumps(obj)
        with pytest.raises(CorruptLogError, match=r"^line 3: missing attributes: hash"):
            read_export(lines)

    def test_an_empty_line_inside_the_file_is_refused(self) -> None:
        """A blank line between events is named; a final newline is not an error."""
        store = MemoryStore()
        drive(store)
        lines = list(export_lines(store, "c1"))
        assert len(read_export([*lines, ""])) == len(lines)
        with pytest.raises(CorruptLogError, match=r"^line 2: an empty line"):
            read_export([lines[0], "", *lines[1:]])

    def test_two_campaigns_in_one_file_are_refused(self) -> None:
        """An import holds one campaign stream only, and nothing is written."""
        store = MemoryStore()
        drive(store, "c1")
        drive(store, "c2")
        envelopes = parse(exported_file(store, "c1") + exported_file(store, "c2"))
        target = MemoryStore()
        with pytest.raises(CorruptLogError, match="one campaign stream"):
            import_envelopes(target, envelopes)
        assert target.streams() == []

    def test_a_source_that_does_not_match_the_subject_is_refused(self) -> None:
        """An event whose source names another campaign is refused with its line."""
        store = MemoryStore()
        drive(store)
        lines = list(export_lines(store, "c1"))
        obj = json.loads(lines[1])
        obj["source"] = "hexlog:c9"
        lines[1] = json.dumps(obj)
        with pytest.raises(CorruptLogError, match="line 2: source"):
            import_envelopes(MemoryStore(), read_export(lines))

    def test_a_dropped_middle_line_is_refused(self) -> None:
        """Removing line 3 breaks the chain at the event after it, and nothing is written."""
        store = MemoryStore()
        drive(store)
        lines = list(export_lines(store, "c1"))
        target = MemoryStore()
        with pytest.raises(CorruptLogError, match=r"^line 3: .*version 4"):
            import_envelopes(target, read_export(lines[:2] + lines[3:]))
        assert target.streams() == []

    def test_two_events_sharing_an_id_are_refused_naming_both_lines_and_the_id(self, tmp_path: Path) -> None:
        """An export resealed after giving line 6 the id of line 3 verifies; the store's UNIQUE id refused it with
        'another append recorded these events first'. Now the import names both lines, and writes nothing."""
        store = MemoryStore()
        drive(store)
        envelopes = parse(exported_file(store))
        shared = envelopes[2].id
        forged = reseal([*envelopes[:5], attrs.evolve(envelopes[5], id=shared), *envelopes[6:]])
        assert [f.check for f in audit_envelopes(forged).findings] == ["id"]  # the chain is whole
        target = SQLiteStore(tmp_path / "hexlog.db")
        try:
            with pytest.raises(CorruptLogError) as refused:
                import_envelopes(target, forged)
            assert str(refused.value) == (
                f"line 6 (version 6): event id {shared!r} is also the id of line 3 (version 3); "
                "two events may not share an id"
            )
            assert list(target.read_all()) == []
        finally:
            target.close()

    def test_an_id_written_again_in_capitals_is_the_same_id(self, tmp_path: Path) -> None:
        """An event id is a UUID, the same whatever the case of its hex digits: line 6 given line 3's id in capitals
        is a finding and refused as the id itself is, instead of auditing VERIFIED and importing two events of one
        id."""
        store = MemoryStore()
        drive(store)
        envelopes = parse(exported_file(store))
        given = "abcdef01-0000-4000-8000-0000000000aa"
        shared = given.upper()
        forged = reseal(
            [
                *envelopes[:2],
                attrs.evolve(envelopes[2], id=given),
                *envelopes[3:5],
                attrs.evolve(envelopes[5], id=shared),
                *envelopes[6:],
            ]
        )
        found = audit_envelopes(forged).findings
        assert [(f.check, f.streamversion, f.reason) for f in found] == [
            ("id", 6, f"event id {shared!r} is also the id of version 3")
        ]
        target = SQLiteStore(tmp_path / "hexlog.db")
        try:
            with pytest.raises(CorruptLogError, match=r"^line 6 \(version 6\): event id .* is also the id of line 3"):
                import_envelopes(target, forged)
            assert list(target.read_all()) == []
        finally:
            target.close()

    def test_an_event_with_the_id_of_one_the_store_holds_is_refused_naming_both(self, tmp_path: Path) -> None:
        """Campaign c1's export renamed c2 and resealed keeps c1's ids: imported beside c1, the store's words said
        only 'another append recorded these events first'."""
        source = MemoryStore()
        drive(source)
        envelopes = parse(exported_file(source))
        renamed = reseal([_renamed(e, "c2") for e in envelopes])
        target = SQLiteStore(tmp_path / "hexlog.db")
        try:
            import_envelopes(target, envelopes)
            before = [r.envelope for r in target.read_all()]
            with pytest.raises(UsageError) as refused:
                import_envelopes(target, renamed)
            assert str(refused.value) == (
                f"line 1: event id {envelopes[0].id!r} is already the id of campaign-c1 version 1 in this store; "
                "two events may not share an id, nothing was imported"
            )
            assert [r.envelope for r in target.read_all()] == before
        finally:
            target.close()

    def test_an_event_with_the_id_of_one_the_store_holds_in_capitals_is_refused(self, tmp_path: Path) -> None:
        """The same, c1's ids written in capitals in c2: the store's unique ids compare case and imported it, one UUID
        then naming two events."""
        source = MemoryStore()
        drive(source)
        envelopes = reseal([attrs.evolve(e, id="abcdef01" + e.id[8:]) for e in parse(exported_file(source))])
        renamed = reseal([attrs.evolve(_renamed(e, "c2"), id=e.id.upper()) for e in envelopes])
        target = SQLiteStore(tmp_path / "hexlog.db")
        try:
            import_envelopes(target, envelopes)
            before = [r.envelope for r in target.read_all()]
            with pytest.raises(UsageError) as refused:
                import_envelopes(target, renamed)
            assert str(refused.value) == (
                f"line 1: event id {renamed[0].id!r} is already the id of campaign-c1 version 1 in this store "
                f"(written {envelopes[0].id!r} there); two events may not share an id, nothing was imported"
            )
            assert [r.envelope for r in target.read_all()] == before
        finally:
            target.close()

    def test_two_swapped_lines_are_refused_naming_one_of_them(self) -> None:
        """Lines 4 and 5 exchanged keep every hash but are out of order, and one of them is named."""
        store = MemoryStore()
        drive(store)
        lines = list(export_lines(store, "c1"))
        lines[3], lines[4] = lines[4], lines[3]
        target = MemoryStore()
        with pytest.raises(CorruptLogError, match=r"^line [45]: .*out of order"):
            import_envelopes(target, read_export(lines))
        assert target.streams() == []


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    """An SQLite store, and a PostgreSQL one in a schema of its own, to import into."""
    made: EventStore = (
        SQLiteStore(tmp_path / "hexlog.db")
        if request.param == "sqlite"
        else PostgresStore(request.getfixturevalue("pg_url"))
    )
    yield made
    made.close()


@pytest.mark.parametrize("shouted", [False, True])
def test_an_import_asks_the_store_for_its_ids_instead_of_reading_its_log(
    target: EventStore, monkeypatch: pytest.MonkeyPatch, *, shouted: bool
) -> None:
    """An import into a store that holds events read the store's whole log to find an id it holds in other capitals:
    its cost grew with the store's history. It asks the store for its ids, and still finds one the store holds in
    capitals (``shouted``: the store wrote c1's ids in capitals, the export has them in small letters) or in small
    letters (the export in capitals)."""
    source = MemoryStore()
    drive(source)
    envelopes = reseal([attrs.evolve(e, id="abcdef01" + e.id[8:]) for e in parse(exported_file(source))])
    held = reseal([attrs.evolve(e, id=e.id.upper()) for e in envelopes]) if shouted else envelopes
    import_envelopes(target, held)
    renamed = reseal([attrs.evolve(_renamed(e, "c2"), id=e.id if shouted else e.id.upper()) for e in envelopes])

    def unread(*_: object, **__: object) -> NoReturn:
        pytest.fail("the import read the store's log")

    monkeypatch.setattr(target, "read_all", unread)
    monkeypatch.setattr(target, "log_pages", unread)
    with pytest.raises(UsageError) as refused:
        import_envelopes(target, renamed)
    assert str(refused.value) == (
        f"line 1: event id {renamed[0].id!r} is already the id of campaign-c1 version 1 in this store "
        f"(written {held[0].id!r} there); two events may not share an id, nothing was imported"
    )
    fresh = reseal([attrs.evolve(_renamed(e, "c3"), id=str(uuid.UUID(int=n))) for n, e in enumerate(envelopes)])
    assert import_envelopes(target, fresh).events == len(fresh)
    monkeypatch.undo()
    assert [r.envelope for r in target.read_all()] == [*held, *fresh]


def _renamed(env: Envelope, campaign: str) -> Envelope:
    """An event of an export moved to campaign ``campaign``'s stream, its ``campaign.started`` naming it (unsealed)."""
    data = env.data
    if env.type == "hexlog.campaign.started":
        data = {**data, "campaign": campaign}
    return attrs.evolve(env, subject=f"campaign-{campaign}", source=f"hexlog:{campaign}", data=data)
