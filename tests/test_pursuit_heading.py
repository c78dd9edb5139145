"""A lost party's flight: its heading leads to the party's true hex, which only the referee may know.

During a journey the pursuit's heading is a secret roll, recorded in ``pursuit.heading_rolled`` (the
referee's until the session ends) with the hex it leads to, and the public ``pursuit.fled`` names no
heading. Scripted through the handler: the player view (the projection, ``state --view player``, the
player's log and export) holds no heading, face or true hex until the session ends, and does after; the
referee sees them; the audit re-runs the heading and catches a forged one. ``tests/golden/pursuit-v1.jsonl``
was written by hexlog at commit 36d6c0f, whose flights named their headings in public (``pursuit.fled``
version 1): it still audits VERIFIED, exports byte for byte, and a heading forged in it FAILS.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import pursuit as ev
from hexlog.events import travel as travel_ev
from hexlog.events.base import event_class
from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode, from_data
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import RuleRefusedError
from hexlog.events.hexmap import HexSet
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex, grid
from hexlog.machine.keeper import FileKeeper, MemoryKeeper, key_file_for
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as tr
from hexlog.projections.visibility import PlayerView, ended_sessions
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

CAMPAIGN = "main"
STREAM = f"campaign-{CAMPAIGN}"
START = "2,2"
#: the lost check (1: lost on the open forest's row) and the true heading's die (3: SE)
LOST = (1, 3)
#: the flight's d6: NE
FACE, HEADING = 2, "NE"
V1_LOG = Path(__file__).resolve().parent / "golden" / "pursuit-v1.jsonl"


@attrs.define
class Lost:
    """A campaign whose party is lost on a journey, then flees a pursuit: every face scripted."""

    handler: Handler
    script: list[int]

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    def events(self) -> list[Any]:
        return [decode(r.envelope) for r in self.handler.store.read_stream(STREAM)]

    def travel(self) -> Any:
        return self.handler.load(CAMPAIGN).procedures["travel"]


def lost_party(db: Path | None = None, speed: int = 60) -> Lost:
    """The party sets out from 2,2 heading N, is lost (truly SE), moves a hex, and a pursuit starts."""
    store = MemoryStore() if db is None else SQLiteStore(db)
    keeper = MemoryKeeper() if db is None else FileKeeper(key_file_for(db))
    script: list[int] = []
    table = Lost(Handler(store, keeper, roller=lambda _t: ScriptedRoller(script)), script)
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
    ):
        table.run(command)
    for col in range(5):
        for row in range(5):
            table.run(SetHex(hex=f"{col},{row}", terrain="meadow" if (col + row) % 2 else "open_forest"))
    table.run(tr.StartJourney(hex=START))
    table.run(tr.RollWeather(weather="clear"))
    checked = [e for e in table.run(tr.DeclareRoute(headings=("N",)), *LOST) if isinstance(e, travel_ev.LostChecked)]
    assert checked[0].lost
    table.run(tr.Move(hexes=1))
    table.run(p.StartPursuit(pursuers_speed=speed, evasion_failed=True))
    return table


def fled(table: Lost) -> tuple[list[Any], str, str]:
    """The flight (d6 = 2, NE): its events, the hex the party believes it is in, and its true hex after."""
    before = table.travel()
    target = grid.neighbour(before.hex, HEADING)
    assert target is not None
    assert before.hex != before.believed  # lost: the players do not know where the party is
    assert target != before.believed
    return table.run(p.Flee(), FACE), before.believed, target


def visible(events: list[Any]) -> list[Any]:
    """The events a player may see as of the end of ``events``."""
    view = PlayerView(ended_sessions(events))
    return [e for e in events if not view.hides(e)]


def assert_nothing_shows_the_heading(seen: list[Any], true_hex: str) -> None:
    """No event a player sees names the flight's heading, its face, or the party's true hex."""
    assert not [e for e in seen if isinstance(e, ev.HeadingRolled | travel_ev.TruePosition)]
    assert not [e for e in seen if isinstance(e, DiceRolled) and e.purpose == "pursuit.flight"]
    flights = [e for e in seen if isinstance(e, ev.PursuitFled)]
    assert flights
    assert all((f.heading, f.face, f.rolls, f.held) == ("", 0, (), False) for f in flights)
    assert not [e for e in seen if isinstance(e, ClockAdvanced) and HEADING in e.reason.split()]
    placed = [e for e in seen if not isinstance(e, HexSet)]  # the map's hexes are public
    assert not [e for e in placed if true_hex in {getattr(e, "hex", ""), getattr(e, "believed", "")}]


class TestTheFlight:
    def test_the_heading_is_a_secret_roll_recorded_with_the_hex_it_leads_to(self):
        table = lost_party()
        events, _, target = fled(table)
        (rolled,) = [e for e in events if isinstance(e, DiceRolled)]
        assert (rolled.purpose, rolled.visibility, rolled.faces) == ("pursuit.flight", Visibility.REFEREE, (FACE,))
        kinds = [type(e) for e in events if not isinstance(e, DiceRolled)]
        assert kinds[:3] == [ev.HeadingRolled, ev.PursuitFled, travel_ev.TruePosition]
        heading = events[1]
        assert heading == ev.HeadingRolled(heading=HEADING, face=FACE, hex=target, referee_rolls=(rolled.nonce,))
        assert events[2] == ev.PursuitFled(hexes_fled=1, pursuers_faster=False)
        assert [e.hex for e in events if isinstance(e, travel_ev.TruePosition)] == [target]
        assert table.travel().hex == target
        assert [e.reason for e in events if isinstance(e, ClockAdvanced)] == ["pursuit 1: the party flees"]

    def test_without_a_journey_the_heading_stays_public(self):
        """No journey, no true hex to hide: the d6 is public and pursuit.fled names its heading, as before."""
        script = [FACE]
        h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(script))
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(), c.AddMember(name="Ann")):
            h.execute(CAMPAIGN, command)
        h.execute(CAMPAIGN, p.StartPursuit(pursuers_speed=60, evasion_failed=True))
        events = list(h.execute(CAMPAIGN, p.Flee()).events)
        assert not [e for e in events if isinstance(e, ev.HeadingRolled)]
        (rolled,) = [e for e in events if isinstance(e, DiceRolled)]
        assert rolled.visibility is Visibility.PUBLIC
        (flight,) = [e for e in events if isinstance(e, ev.PursuitFled)]
        assert (flight.heading, flight.face, flight.rolls) == (HEADING, FACE, (rolled.nonce,))
        assert visible(events) == events

    def test_a_flight_off_the_grid_keeps_to_its_hex_in_secret(self):
        """Where the grid ends the party keeps to its hex: the referee's facts say so (its true hex recorded all the
        same, as after any flight), the public one does not."""
        table = lost_party(speed=240)
        while grid.neighbour(table.travel().hex, "N") is not None:  # N from the top row is off the grid
            table.run(p.Flee(), 1)
            table.run(p.Catch(), 4)  # not caught on a d6 or, in the woods, a d4
            table.run(p.RollEvasion(), 99)
        here = table.travel().hex
        events = table.run(p.Flee(), 1)
        (heading,) = [e for e in events if isinstance(e, ev.HeadingRolled)]
        assert (heading.heading, heading.hex, heading.held) == ("N", here, True)
        (flight,) = [e for e in events if isinstance(e, ev.PursuitFled)]
        assert not flight.held
        assert [e.hex for e in events if isinstance(e, travel_ev.TruePosition)] == [here]

    @pytest.mark.parametrize("command", [p.FleeInPublic(), p.FleeHeldUnrecorded(), p.FleeHeldUnrecorded(told=True)])
    def test_the_audits_own_flight_is_not_the_referees(self, command):
        table = lost_party()
        version = table.handler.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="audit"):
            table.run(command)
        assert table.handler.store.stream_version(STREAM) == version


class TestWhoSeesIt:
    def test_a_player_sees_no_heading_face_or_true_hex_until_the_session_ends(self):
        table = lost_party()
        _, believed, target = fled(table)
        events = table.events()
        assert_nothing_shows_the_heading(visible(events), target)
        lines = render.timeline(table.handler.store.read_stream(STREAM), player=True)
        text = "\n".join(line.text for line in lines if line.kind != "map.hex_set")
        assert target not in text
        assert f"flees {HEADING}" not in text
        assert "the party flees (which way is the referee's): 1 fled so far" in text
        state = "\n".join(render.state_lines(CAMPAIGN, table.handler.load(CAMPAIGN), player=True))
        assert target not in state
        assert f"the party is in {believed} (as it believes)" in state
        assert "last flight" not in state

    def test_the_referee_sees_the_heading_and_the_hex(self):
        table = lost_party()
        _, _, target = fled(table)
        lines = render.timeline(table.handler.store.read_stream(STREAM))
        text = "\n".join(line.text for line in lines)
        assert f"the party truly flees {HEADING} (d6={FACE}) into {target} (referee only" in text
        state = "\n".join(render.state_lines(CAMPAIGN, table.handler.load(CAMPAIGN)))
        assert f"last flight: {HEADING}, into {target}" in state

    def test_once_the_session_ends_a_player_sees_the_heading_and_the_hex(self):
        table = lost_party()
        _, _, target = fled(table)
        table.run(c.CloseSession())
        seen = visible(table.events())
        assert [(e.heading, e.hex) for e in seen if isinstance(e, ev.HeadingRolled)] == [(HEADING, target)]
        assert target in [e.hex for e in seen if isinstance(e, travel_ev.TruePosition)]
        lines = render.timeline(table.handler.store.read_stream(STREAM), player=True)
        assert any(f"truly flees {HEADING}" in line.text for line in lines)


class TestTheCommandLine:
    @pytest.fixture
    def lost_db(self, tmp_path: Path) -> Lost:
        return lost_party(tmp_path / "hexlog.db")

    def test_state_log_and_export_for_players_hold_no_heading_until_the_session_ends(self, lost_db, hexlog):
        _, _, target = fled(lost_db)
        lost_db.handler.store.close()
        state = hexlog("state", "--view", "player")
        assert state.returncode == 0, state.stderr
        assert target not in state.stdout
        assert "last flight" not in state.stdout
        log = hexlog("log", "--view", "player", "--json")
        assert log.returncode == 0, log.stderr
        rows = [json.loads(line) for line in log.stdout.splitlines()]
        assert_nothing_shows_the_heading([decode_row(r) for r in rows if r["data"] is not None], target)
        assert "pursuit.heading_rolled (hidden by the referee" in hexlog("log", "--view", "player").stdout
        refused = hexlog("export")
        assert refused.returncode == 1
        assert refused.stdout == ""
        referee = hexlog("state")
        assert f"last flight: {HEADING}, into {target}" in referee.stdout
        assert f"truly flees {HEADING}" in hexlog("log").stdout

    def test_after_the_session_the_players_log_and_export_show_it(self, lost_db, hexlog):
        _, _, target = fled(lost_db)
        lost_db.run(c.CloseSession())
        lost_db.handler.store.close()
        assert f"truly flees {HEADING} (d6={FACE}) into {target}" in hexlog("log", "--view", "player").stdout
        exported = hexlog("export")
        assert exported.returncode == 0, exported.stderr
        headings = [json.loads(line) for line in exported.stdout.splitlines()]
        found = [e["data"] for e in headings if e["type"] == "hexlog.pursuit.heading_rolled"]
        assert [(d["heading"], d["hex"]) for d in found] == [(HEADING, target)]


def decode_row(row: dict[str, Any], version: int | None = None) -> Any:
    """A ``log --json`` row's event (its data as recorded: at the current version unless ``version``)."""
    kind = row["type"]
    return from_data(kind, event_class(kind).schema_version if version is None else version, row["data"])


class TestTheAudit:
    def events(self) -> list[Any]:
        table = lost_party()
        fled(table)
        table.run(p.Rest(), 6)
        return table.events()

    def test_the_heading_is_re_derived(self):
        found = check_decision_events(self.events())
        assert found.issues == (), found.issues
        assert found.checked >= 3  # the lost check, the heading, the rest

    @pytest.mark.parametrize(
        ("kind", "field", "forged"),
        [
            (ev.HeadingRolled, "heading", "SW"),
            (ev.HeadingRolled, "face", 5),
            (ev.HeadingRolled, "hex", "0,0"),
            (ev.HeadingRolled, "held", True),
        ],
    )
    def test_a_forged_heading_or_hex_is_caught(self, kind: type, field: str, forged: Any):
        events = self.events()
        at = next(i for i, e in enumerate(events) if isinstance(e, kind))
        events[at] = attrs.evolve(events[at], **{field: forged})
        issues = check_decision_events(events).issues
        assert [i.at for i in issues][:1] == [at]
        assert field in issues[0].reason

    @pytest.mark.parametrize(
        ("kind", "field", "forged"),
        [(travel_ev.TruePosition, "hex", "0,0"), (ev.PursuitFled, "hexes_fled", 2), (ev.PursuitFled, "held", True)],
    )
    def test_what_the_heading_decided_after_it_is_caught(self, kind: type, field: str, forged: Any):
        """The true hex and the public flight are the step's own record after the heading: forged, it differs."""
        events = self.events()
        heading = next(i for i, e in enumerate(events) if isinstance(e, ev.HeadingRolled))
        at = next(i for i, e in enumerate(events) if isinstance(e, kind) and i > heading)
        events[at] = attrs.evolve(events[at], **{field: forged})
        issues = check_decision_events(events).issues
        assert heading in [i.at for i in issues]
        assert any(field in i.reason for i in issues)

    def test_a_flight_without_its_heading_is_caught(self):
        """A secret flight whose heading and roll are taken out follows no decision."""
        events = self.events()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.HeadingRolled))
        assert isinstance(events[at - 1], DiceRolled)
        del events[at - 1 : at + 1]
        issues = check_decision_events(events).issues
        assert [i.at for i in issues][:1] == [at - 1]
        assert "pursuit.fled follows no decision" in issues[0].reason

    def test_a_heading_made_public_during_a_journey_is_caught(self):
        """pursuit.fled version 2 names a heading only without a journey: one that names it during a journey
        (its heading taken into it, the roll made public) is not what the rules record."""
        events = self.events()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.HeadingRolled))
        roll, secret = events[at - 1], events[at]
        events[at - 1] = attrs.evolve(roll, visibility=Visibility.PUBLIC)
        events[at + 1] = attrs.evolve(events[at + 1], heading=secret.heading, face=secret.face, rolls=(roll.nonce,))
        del events[at]
        issues = check_decision_events(events).issues
        assert at in [i.at for i in issues]


def _reseal(lines: list[str], index: int, **data: Any) -> list[str]:
    """Export lines with ``data`` set in line ``index``'s data, it and the rest re-hashed (hexlog-chain-v1)."""
    objects = [json.loads(line) for line in lines]
    objects[index]["data"].update(data)
    for i in range(index, len(objects)):
        if i:
            objects[i]["prevhash"] = objects[i - 1]["hash"]
        objects[i]["hash"] = sha256_hex(canonical_json({k: v for k, v in objects[i].items() if k != "hash"}))
    return [json.dumps(o, ensure_ascii=False) for o in objects]


class TestAVersion1Log:
    """Flights recorded before pursuit.fled version 2: public headings, during a journey too."""

    def lines(self) -> list[str]:
        return V1_LOG.read_text(encoding="utf-8").splitlines()

    def journey_flight(self, lines: list[str]) -> int:
        """The first flight during the journey that moved the party (its heading public, version 1)."""
        started = next(i for i, line in enumerate(lines) if '"hexlog.travel.started"' in line)
        for i, line in enumerate(lines[started:], start=started):
            obj = json.loads(line)
            if obj["type"] == "hexlog.pursuit.fled" and not obj["data"]["held"]:
                assert obj["schemaversion"] == 1
                return i
        raise AssertionError

    def test_it_audits_verified_with_every_flight_re_run_as_recorded(self):
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == ()
        assert (report.events, report.rolls, report.rolls_verified, report.decisions) == (256, 35, 35, 34)
        assert report.verdict.name == "VERIFIED"

    def test_it_imports_replays_and_exports_the_same_bytes(self):
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        assert replay(store, "pursuit", REGISTRY).ok
        assert list(export_lines(store, "pursuit")) == self.lines()

    def test_its_flights_decode_as_written(self):
        flights = [json.loads(line) for line in self.lines() if '"hexlog.pursuit.fled"' in line]
        assert flights
        for obj in flights:
            event = decode_row(obj, obj["schemaversion"])
            assert not event.secret
            assert (event.heading, event.face, list(event.rolls)) == (
                obj["data"]["heading"],
                obj["data"]["face"],
                obj["data"]["rolls"],
            )

    @pytest.mark.parametrize("forged", ["heading", "true hex"])
    def test_a_forged_heading_or_true_hex_fails(self, forged: str):
        lines = self.lines()
        at = self.journey_flight(lines)
        flight = json.loads(lines[at])["data"]
        if forged == "heading":
            other = next(h for h in grid.HEADINGS if h != flight["heading"])
            lines = _reseal(lines, at, heading=other)
        else:
            moved = next(i for i in range(at, len(lines)) if '"hexlog.travel.true_position"' in lines[i])
            lines = _reseal(lines, moved, hex="0,0")
        report = audit_envelopes(read_export(lines))
        assert report.verdict.name == "FAILED"
        assert [f.index for f in report.findings][:1] == [at], report.text()
