"""What an event's envelope and data say of where it belongs, which the chain alone does not judge: the audit names
each such forgery, whichever way it reads the log (held whole, read as it comes, from a database), and an import
refuses an export that holds one, writing nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import pytest

from hexlog.events.chain import reseal
from hexlog.events.codec import from_data
from hexlog.events.errors import CorruptLogError
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent
from hexlog.replay.audit import AuditReport, audit_envelopes, audit_store
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.hex_names import hex_problem

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hexlog.events.chain import Envelope
    from hexlog.events.store import EventStore

GOLDEN = sorted((Path(__file__).parent / "golden" / "logs").glob("*.jsonl"))


def golden(name: str = "ose") -> list[Envelope]:
    path = next(p for p in GOLDEN if p.stem == name)
    return read_export(path.read_bytes().split(b"\n"))


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    made: EventStore = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "forged.db")
    yield made
    made.close()


def stored(store: EventStore, envelopes: list[Envelope]) -> EventStore:
    """The envelopes appended to a store as they are (past the handler and the import, as a forger writes)."""
    new = [NewEvent(e.id, e.source, e.type, e.time, e.schemaversion, e.data) for e in envelopes]
    store.append(envelopes[0].subject, new, expected_version=0)
    return store


def reports(store: EventStore, envelopes: list[Envelope]) -> list[AuditReport]:
    """The audit of the envelopes held whole, and of the store they are in: whole and the campaign alone."""
    campaign = envelopes[0].subject.removeprefix("campaign-")
    return [audit_envelopes(envelopes), audit_store(store), audit_store(store, campaign)]


def refused(envelopes: list[Envelope], tmp_path: Path) -> str:
    """Why an import refused the envelopes (it must), once nothing was written."""
    target = SQLiteStore(tmp_path / "target.db")
    try:
        with pytest.raises(CorruptLogError) as err:
            import_envelopes(target, envelopes)
        assert list(target.read_all()) == []
    finally:
        target.close()
    return str(err.value)


class TestAStartNamingAnotherCampaign:
    """The ``campaign.started`` of campaign 'other' in the stream of 'main' (chain resealed): its source and subject
    are main's, only its data says otherwise. No command writes it (a campaign is started in its own stream)."""

    def forged(self) -> list[Envelope]:
        envelopes = golden()
        first = envelopes[0]
        assert first.type == "hexlog.campaign.started"
        assert first.data["campaign"] == "main"
        return reseal([attrs.evolve(first, data={**first.data, "campaign": "other"}), *envelopes[1:]])

    def test_it_is_a_finding_however_the_log_is_read(self, store: EventStore) -> None:
        forged = self.forged()
        for report in reports(stored(store, forged), forged):
            assert [(f.check, f.streamversion) for f in report.findings] == [("source", 1)]
            assert report.findings[0].reason == (
                "campaign.started names campaign 'other', but it is in the stream of campaign 'main'"
            )

    def test_an_import_refuses_it(self, tmp_path: Path) -> None:
        assert refused(self.forged(), tmp_path) == (
            f"line 1: the export does not verify: campaign-main version 1, event {golden()[0].id}: source: "
            "campaign.started names campaign 'other', but it is in the stream of campaign 'main'"
        )

    def test_the_golden_logs_name_their_own_campaign(self) -> None:
        for path in GOLDEN:
            assert audit_envelopes(read_export(path.read_bytes().split(b"\n"))).findings == (), path.stem


class TestATimeGoingBack:
    """Version 10's wall-clock time set back to 2001 (chain resealed). The time is the writer's clock: it may be set
    back, or differ between the machines that write one database, and the chain orders the log, so it is no finding
    (the verdict stays the golden log's own, an import takes it) but a note naming where it went back."""

    NOTE = (
        "the wall-clock time of its events goes back at stream version 10 (2001-01-01T00:00:00Z, before version 9's "
        "{before}): a clock set back or differing between the machines that wrote them, or events written by hand "
        "(the chain, not the time, orders the log)"
    )

    def forged(self, time: str = "2001-01-01T00:00:00Z") -> list[Envelope]:
        envelopes = golden()
        return reseal([*envelopes[:9], attrs.evolve(envelopes[9], time=time), *envelopes[10:]])

    def test_it_is_noted_where_however_the_log_is_read(self, store: EventStore) -> None:
        forged, verdict = self.forged(), audit_envelopes(golden()).verdict
        for report in reports(stored(store, forged), forged):
            assert report.findings == ()
            assert report.verdict is verdict
            assert report.asides == (self.NOTE.format(before=forged[8].time),)
            assert f"note: {self.NOTE.format(before=forged[8].time)}" in report.text().splitlines()

    def test_an_import_takes_it(self, tmp_path: Path) -> None:
        target = SQLiteStore(tmp_path / "target.db")
        try:
            assert import_envelopes(target, self.forged()).events == len(golden())
        finally:
            target.close()

    def test_an_import_on_the_command_line_prints_the_note(self, hexlog, tmp_path: Path) -> None:
        """``hexlog import`` printed the audit's caveats but not its notes: the referee importing a log never heard
        that its times go back. It prints each as ``hexlog audit`` does, on stderr."""
        forged = self.forged()
        lines = [json.dumps({**env.to_cloudevent(), "data": env.data}, ensure_ascii=False) for env in forged]
        (tmp_path / "forged.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        done = hexlog("import", "forged.jsonl")
        assert done.returncode == 0, done.stderr
        assert f"hexlog: note: {self.NOTE.format(before=forged[8].time)}" in done.stderr.splitlines()
        audited = hexlog("audit")
        assert f"note: {self.NOTE.format(before=forged[8].time)}" in audited.stdout.splitlines()

    def test_times_are_compared_as_moments_whatever_their_offset(self, store: EventStore) -> None:
        """Version 9's time, 22:20:56 in UTC, written at +02:00 as 00:20:56 the next day and at -01:00 as 21:20:56:
        the text alone would sort them the other way round."""
        before = golden()[8].time
        assert before.startswith("2026-11-30T22:20:56.")
        back, on = self.forged("2026-12-01T00:20:55+02:00"), self.forged("2026-11-30T21:20:57-01:00")
        assert audit_envelopes(back).asides == (
            self.NOTE.format(before=before).replace("2001-01-01T00:00:00Z", "2026-12-01T00:20:55+02:00"),
        )
        for report in reports(stored(store, on), on):
            assert report.asides == ()

    def test_the_golden_logs_go_forward(self) -> None:
        for path in GOLDEN:
            assert audit_envelopes(read_export(path.read_bytes().split(b"\n"))).asides == (), path.stem


def with_fields(name: str, kind: str, **fields: object) -> list[Envelope]:
    """The golden log ``name`` with these data fields of its first ``kind`` event written so (chain resealed)."""
    envelopes = read_export((GOLDEN[0].parent.parent / f"{name}.jsonl").read_bytes().split(b"\n"))
    at = next(i for i, e in enumerate(envelopes) if e.type == f"hexlog.{kind}")
    forged = attrs.evolve(envelopes[at], data={**envelopes[at].data, **fields})
    return reseal([*envelopes[:at], forged, *envelopes[at + 1 :]])


def with_hex(name: str, kind: str, field: str, written: str) -> list[Envelope]:
    """The golden log ``name`` with the ``field`` of its first ``kind`` event written ``written`` (chain resealed)."""
    return with_fields(name, kind, **{field: written})


class TestAHexNotAsTheMapWritesIt:
    """Every step records a hex as the map writes it (``grid.normal``): one written otherwise ('2,2x', '02,2',
    '2,2 ') was written by hand. It was taken wherever no later decision read it (a castle placed, a hex set), or
    named only by the decisions that could not read it."""

    @pytest.mark.parametrize(
        ("written", "why"),
        [
            ("2,2x", "hex '2,2x' is not a hex (col,row: two numbers 0 to 9999)"),
            ("02,2", "hex '02,2' is not written as the map writes it ('2,2')"),
            ("2,2\n", "hex '2,2\\n' is not written as the map writes it ('2,2')"),
            (" 2, 2", "hex ' 2, 2' is not written as the map writes it ('2,2')"),
        ],
    )
    def test_it_is_a_finding_where_it_is_written(self, written: str, why: str, store: EventStore) -> None:
        """The hex set at version 6 (which no decision reads after it) written otherwise: it is the one finding,
        however the log is read."""
        forged = with_hex("castle-joust-v1", "map.hex_set", "hex", written)
        for report in reports(stored(store, forged), forged):
            assert [(f.check, f.streamversion, f.reason) for f in report.findings] == [("hex", 6, why)]

    def test_an_import_refuses_it(self, tmp_path: Path) -> None:
        forged = with_hex("castle-joust-v1", "castle.placed", "hex", "0,0x")
        assert refused(forged, tmp_path) == (
            f"line 8: the export does not verify: campaign-joust version 8, event {forged[7].id}: hex: "
            "hex '0,0x' is not a hex (col,row: two numbers 0 to 9999)"
        )
        unread = with_hex("castle-joust-v1", "map.hex_set", "hex", "2,2x")
        assert refused(unread, tmp_path).startswith("line 6: the export does not verify: campaign-joust version 6, ")

    def test_a_decision_that_cannot_read_it_says_why(self) -> None:
        """The castle placed on '2,2x': the garrison's meeting there cannot be re-run (the step asserts the castle is on
        the map), and says so rather than ending its reason on an empty error."""
        found = audit_envelopes(with_hex("castle-joust-v1", "castle.placed", "hex", "2,2x")).findings
        assert [(f.check, f.streamversion) for f in found] == [("hex", 8), ("decision", 12)]
        assert found[1].reason == (
            "castle.garrison_met: the rules cannot re-run this decision here: the step stopped (AssertionError) on a "
            "state no command reaches"
        )

    def test_a_hex_believed_is_held_to_it_too(self) -> None:
        forged = with_hex("lost-day-v1", "travel.moved", "believed", "3,3x")
        first = audit_envelopes(forged).first_bad
        assert first is not None
        assert (first.check, first.reason) == ("hex", "believed '3,3x' is not a hex (col,row: two numbers 0 to 9999)")

    def test_and_so_is_the_hex_of_a_castle_passed(self) -> None:
        """A hex a record of the event names (each castle passed) is held to it as the event's own."""
        sample = json.loads((GOLDEN[0].parent.parent / "events" / "castle.passed.v1.json").read_text(encoding="utf-8"))
        event = from_data(sample["type"], sample["schemaversion"], sample["data"])
        assert hex_problem(event) is None
        passed = [{**sample["data"]["passed"][0], "hex": "4,02"}]
        forged = from_data(sample["type"], sample["schemaversion"], {**sample["data"], "passed": passed})
        assert hex_problem(forged) == "hex '4,02' is not written as the map writes it ('4,2')"


class TestASearchCostForged:
    """A search spends the search cost of the hex the party believes it is in from the day's points: nobody types
    it. dvdm-search-v1's first search (version 25) spends 2 of 8 points; forged to spend 1 and leave 20 (chain
    resealed), the party could travel further that day than the rules let it. It audited VERIFIED."""

    def forged(self, **data: int) -> list[Envelope]:
        return with_fields("dvdm-search-v1", "travel.searched", **data)

    def test_it_is_a_finding_however_the_log_is_read(self, store: EventStore) -> None:
        forged = self.forged(cost=1, travel_points=20)
        for report in reports(stored(store, forged), forged):
            first = report.first_bad
            assert first is not None
            assert (first.check, first.streamversion, first.reason) == (
                "decision",
                25,
                (
                    "travel.searched: cost 1 recorded, but the rules give 2; "
                    "travel_points 20 recorded, but the rules give 6"
                ),
            )

    def test_an_import_refuses_it(self, tmp_path: Path) -> None:
        assert refused(self.forged(travel_points=7), tmp_path).startswith(
            "line 25: the export does not verify: campaign-dvdm version 25, "
        )

    def test_the_golden_searches_spend_what_the_rules_give(self) -> None:
        for name in ("dvdm-search-v1", "exhaustion-v1", "lost-day-v1"):
            path = GOLDEN[0].parent.parent / f"{name}.jsonl"
            assert audit_envelopes(read_export(path.read_bytes().split(b"\n"))).findings == (), name


class TestAnIdOfAnotherCampaignInCapitals:
    """Campaign 'other' (the published sample) whose third event has the id of main's third event in capitals,
    beside main in one store: the stores' unique ids compare case and each campaign alone is sound, but one UUID
    names two events. The audit of the whole store names the later one; a campaign's own audit cannot see it."""

    def logs(self) -> tuple[list[Envelope], list[Envelope]]:
        main = golden()
        sample = read_export((GOLDEN[0].parent.parent / "sample-export.jsonl").read_bytes().split(b"\n"))
        moved = [attrs.evolve(e, subject="campaign-other", source="hexlog:other") for e in sample]
        moved[2] = attrs.evolve(moved[2], id=main[2].id.upper())
        return main, reseal(moved)

    def test_the_whole_store_s_audit_names_it(self, store: EventStore) -> None:
        main, other = self.logs()
        stored(store, main)
        stored(store, other)
        why = f"event id {main[2].id.upper()!r} is also the id of campaign-main version 3"
        for report in (audit_envelopes([*main, *other]), audit_store(store)):
            assert [(f.check, f.stream, f.streamversion, f.reason) for f in report.findings] == [
                ("id", "campaign-other", 3, why)
            ]
        assert audit_store(store, "other").findings == ()
