"""A party lost without knowing it: nothing the players see tells them the terrain of the hex it is truly in.

Seed 004 §4.12: the party "unknowingly travels in the wrong direction" and "may not realize they are lost until
they fail to reach a landmark". The map is public, so a move's cost, the points left, a search's cost, mounts led
on foot, the wandering check's row and a camp's terrain must all be those of the hex the party believes it is in:
the true hex's would tell the players where they are (``travel.moved``, ``travel.searched`` and
``travel.wandering_checked`` version 2). Two journeys whose true hexes differ in terrain, and nothing else, show a
player the same thing. The referee sees the truth; so do the players once the party learns it is lost.

``tests/golden/lost-day-v1.jsonl`` was written by hexlog at commit 22fbbf3: on its first day the party sets out
from a road through a swamp, in fog by night, and its lost check reads the Dolmenwood road row (never lost) though
the OD&D source is in force (``travel.lost_checked`` version 2); on its second day, lost in fog, it moves into
meadows it believes are bogs, paying the meadows' 2 points, searches at the meadow's cost, and its wandering check
reads the meadow's row (clear, on 6) and meets an encounter. It still audits VERIFIED, each check re-run as its
release made it, and exports byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import camp as camp_ev
from hexlog.events import travel as ev
from hexlog.events.codec import decode
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as camp
from hexlog.machine.hexmap import SetHex
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render
from hexlog.service.http_events import seen

from .scripted_play import ScriptedPlay

CAMPAIGN = "lost"
V1_LOG = Path(__file__).resolve().parent / "golden" / "lost-day-v1.jsonl"
#: the lost check's face (lost on 1) and the heading die's face that leads NE (the seed's 1 N, 2 NE, ...)
LOST, NORTH_EAST = 1, 2


class Journey(ScriptedPlay):
    """Meadows all around 2,3; bogs north of it at 2,2 and 2,1, where the party believes it goes; its true hexes NE,
    3,2 and then 4,2, of ``truly``; ``hexes`` changes any, ``absent`` leaves some undrawn; the dice a script the test
    fills as it goes."""

    def __init__(
        self,
        truly: str = "meadow",
        *,
        mounted: bool = False,
        hexes: dict[str, str] | None = None,
        absent: tuple[str, ...] = (),
    ) -> None:
        super().__init__(CAMPAIGN)
        self.run(c.StartCampaign(ruleset="explore"))
        self.run(c.OpenSession(secret_hex="4c" * 32))
        self.run(c.AddMember(name="Ann"))
        terrains = {f"{col},{row}": "meadow" for col in range(6) for row in range(6)}
        terrains |= {"2,2": "bog", "2,1": "bog", "3,2": truly, "4,2": truly} | (hexes or {})
        for name, terrain in terrains.items():
            if name not in absent:
                self.run(SetHex(hex=name, terrain=terrain))
        self.run(t.StartJourney(hex="2,3", mounted=mounted))
        self.run(t.RollWeather(weather="fog"))

    def lost(self, *headings: str) -> None:
        """Declare the route; the party is lost, truly heading NE."""
        checked = only(self.run(t.DeclareRoute(headings=headings), LOST, NORTH_EAST), ev.LostChecked)
        assert (checked.lost, checked.heading) == (True, "NE")

    @property
    def state(self) -> Any:
        return self.h.load(CAMPAIGN).procedures["travel"]

    def records(self) -> list[Any]:
        return self.h.store.read_stream(stream_for(CAMPAIGN))


def only(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def a_lost_day(truly: str) -> Journey:
    """Lost on a route N N: a move, a search, a forced march, a move, the wandering check, the day's end, a night in
    camp (a quiet one: its check 1, its watch die 1), the next day."""
    trip = Journey(truly)
    trip.lost("N", "N")
    trip.run(t.Move(hexes=1))
    trip.run(t.SearchHex(), 6)
    trip.run(t.ForceMarch())
    trip.run(t.Move())
    trip.run(t.CheckWandering(), 1)
    trip.run(t.EndDay())
    trip.run(camp.MakeCamp())
    trip.run(camp.SetWatches(watches=("1=Ann", "2=Ann", "3=Ann", "4=Ann")))
    trip.run(camp.CheckNight(), 1, 1)
    trip.run(camp.BreakCamp())
    trip.run(t.RollWeather(weather="fog"))
    return trip


def player_view(trip: Any) -> list[Any]:
    """Everything a player is shown of a journey's campaign (this file's, or the lost pursuit's) but the public map
    itself: each event as the service sends it (envelope and data; its id, time and hashes aside) with its line of
    text, then the state's lines."""
    shown = []
    for cloud, text in seen(trip.records(), player=True):
        if cloud["type"] == "hexlog.map.hex_set":
            continue
        kept = {k: v for k, v in cloud.items() if k not in {"id", "time", "hash", "prevhash"}}
        shown.append((json.dumps(kept, sort_keys=True), text))
    lines = render.state_lines(CAMPAIGN, trip.h.load(CAMPAIGN), player=True)
    return [*shown, *(line for line in lines if "stream version" not in line)]


class TestWhatThePlayersSee:
    def test_a_lost_move_spends_the_cost_of_the_hex_the_party_believes_it_enters(self) -> None:
        """8 points: the bogs it believes it enters cost 3 each (2 left), not the meadows' 2 it truly crosses."""
        trip = Journey("meadow")
        trip.lost("N", "N")
        events = trip.run(t.Move())
        moved = [e for e in events if isinstance(e, ev.Moved)]
        truly = [e for e in events if isinstance(e, ev.TruePosition)]
        assert [(m.believed, m.cost, m.travel_points) for m in moved] == [("2,2", 3, 5), ("2,1", 3, 2)]
        assert [(p.hex, p.terrain, p.lost) for p in truly] == [("3,2", "meadow", True), ("4,2", "meadow", True)]
        assert trip.state.tp == 2

    def test_a_lost_search_spends_the_believed_hexs_cost_and_rolls_for_the_true_one(self) -> None:
        trip = Journey("meadow")
        trip.lost("N")
        trip.run(t.Move())
        events = trip.run(t.SearchHex(), 6)
        assert (only(events, ev.Searched).cost, only(events, ev.Searched).travel_points) == (3, 2)
        rolled = only(events, ev.SearchRolled)
        assert (rolled.hex, rolled.found_on) == ("3,2", (1, 2, 3))  # the referee's: the meadow truly searched

    def test_the_wandering_check_and_the_camp_read_the_believed_hexs_row(self) -> None:
        """The bog reads as the OD&D swamp (encounter on 4-6); the meadow truly entered would read clear (on 6). The
        camp is made on the believed hex's ground, the bog, whose row its night's check reads."""
        trip = Journey("meadow")
        trip.lost("N")
        trip.run(t.Move())
        checked = only(trip.run(t.CheckWandering(), 1), ev.WanderingChecked)
        assert (checked.row, checked.encounter_on) == ("swamp", (4, 5, 6))
        trip.run(t.EndDay())
        assert only(trip.run(camp.MakeCamp()), camp_ev.CampMade).terrain == "bog"

    def test_mounts_are_led_as_the_believed_hex_asks(self) -> None:
        """Mounts are led on foot into a bog (moderate): the party believes it enters one, into a meadow truly; and
        not into a meadow it believes it enters, a bog truly."""
        trip = Journey("meadow", mounted=True)
        trip.lost("N")
        assert only(trip.run(t.Move()), ev.Moved).led
        other = Journey("bog", mounted=True, hexes={"2,2": "meadow"})
        other.lost("N")
        assert not only(other.run(t.Move()), ev.Moved).led

    @pytest.mark.parametrize("truly", ["meadow", "swamp", "tangled_forest", "hills"])
    def test_a_player_sees_the_same_day_whatever_the_terrain_of_the_true_hex(self, truly: str) -> None:
        """The same lost day, its true hexes bogs as believed or of another terrain: every event a player is sent,
        every line of the timeline and of the state is the same (the map aside, public in both)."""
        baseline = player_view(a_lost_day("bog"))
        assert player_view(a_lost_day(truly)) == baseline

    def test_the_referee_sees_the_true_hex_and_the_players_learn_it_when_the_party_learns_it_is_lost(self) -> None:
        trip = Journey("meadow")
        trip.lost("N")
        trip.run(t.Move())
        referee = "\n".join(text for _, text in seen(trip.records(), player=False))
        assert "truly in 3,2 (meadow) - lost" in referee
        player = "\n".join(text for _, text in seen(trip.records(), player=True))
        assert "3,2" not in player.replace("hex 3,2: meadow", "")  # only the public map names it
        trip.run(t.RevealLost(reason="the referee says so"))
        player = "\n".join(text for _, text in seen(trip.records(), player=True))
        assert "the party knows it is lost: the referee says so; it is in 3,2" in player
        # once it knows where it is, a search costs its true hex's points
        assert only(trip.run(t.SearchHex(), 6), ev.Searched).cost == 2


class TestWhereTheRouteStops:
    def test_a_lost_party_stops_where_the_map_it_believes_it_crosses_ends(self) -> None:
        """Meadows N of 2,3 to the grid's edge at 2,0: the fourth hex north is off the grid, as the party sees it,
        though its true fourth hex NE (6,1) is drawn: the move stops there, as for a party not lost."""
        trip = Journey("meadow", hexes={"2,2": "meadow", "2,1": "meadow", "6,1": "meadow"})
        trip.lost("N", "N", "N", "N")
        moved = [e for e in trip.run(t.Move()) if isinstance(e, ev.Moved)]
        assert [m.believed for m in moved] == ["2,2", "2,1", "2,0"]
        assert (trip.state.hex, trip.state.tp) == ("5,1", 2)
        with pytest.raises(RuleRefusedError, match=r"the map ends there \(N of 2,0\)"):
            trip.run(t.Move())

    def test_a_true_hex_off_the_map_stops_a_lost_party_with_the_referees_reason(self) -> None:
        """Its third true hex NE (5,1) is not drawn: refused, nothing written, telling the referee why and what next."""
        trip = Journey("meadow", hexes={"2,2": "meadow", "2,1": "meadow"}, absent=("5,1",))
        trip.lost("N", "N", "N")
        assert len([e for e in trip.run(t.Move()) if isinstance(e, ev.Moved)]) == 2
        version = trip.h.store.stream_version(stream_for(CAMPAIGN))
        with pytest.raises(RuleRefusedError, match=r"lost: it would truly go NE of 4,2 into 5,1, which is not on"):
            trip.run(t.Move())
        assert trip.h.store.stream_version(stream_for(CAMPAIGN)) == version


class TestALogOfVersion1:
    def lines(self) -> list[str]:
        return V1_LOG.read_text(encoding="utf-8").splitlines()

    def events(self) -> list[Any]:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        return [decode(r.envelope) for r in store.read_stream(stream_for("lostday"))]

    def test_its_lost_day_paid_and_read_the_true_hexes(self) -> None:
        """Day 2: believed bogs (3 points, swamp), truly meadows: each move and the search cost 2, the check read
        clear (day 1 entered a swamp, not lost)."""
        rows = [json.loads(line) for line in self.lines()]
        moved = [r["data"] for r in rows if r["type"] == "hexlog.travel.moved"]
        assert [(m["believed"], m["cost"]) for m in moved] == [("1,3", 4), ("1,2", 2), ("1,1", 2)]
        assert [r["data"]["cost"] for r in rows if r["type"] == "hexlog.travel.searched"] == [2]
        kinds = ("hexlog.travel.moved", "hexlog.travel.searched", "hexlog.travel.wandering_checked")
        assert {r["schemaversion"] for r in rows if r["type"] in kinds} == {1}
        checks = [r["data"] for r in rows if r["type"] == "hexlog.travel.wandering_checked"]
        assert [(w["row"], w["encounter"]) for w in checks] == [("swamp", True), ("clear", True)]

    def test_it_audits_verified_with_its_wandering_checks_re_run_as_made(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict.name == "VERIFIED"
        assert report.decisions == 11

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        assert replay(store, "lostday", REGISTRY).ok
        assert list(export_lines(store, "lostday")) == self.lines()

    def test_its_wandering_check_of_a_lost_party_is_checked_against_the_true_hexs_row(self) -> None:
        """The check of day 2 read the meadow's row (clear, on 6): one that says it read the believed bog's row is
        a finding at it, as is one that met no encounter on its 6."""
        events = self.events()
        schemas = [json.loads(line)["schemaversion"] for line in self.lines()]
        at = [i for i, e in enumerate(events) if isinstance(e, ev.WanderingChecked)][-1]
        assert check_decision_events(events, schemas=schemas).issues == ()
        for forged in (
            attrs.evolve(events[at], row="swamp", encounter_on=(4, 5, 6)),
            attrs.evolve(events[at], encounter=False),
        ):
            issues = check_decision_events([*events[:at], forged, *events[at + 1 :]], schemas=schemas).issues
            assert [i.at for i in issues][:1] == [at]

    def test_the_audits_command_for_an_old_check_is_refused_to_the_referee(self) -> None:
        trip = Journey("meadow")
        trip.lost("N")
        with pytest.raises(RuleRefusedError, match=r"re-running a check an older release recorded; use CheckWandering"):
            trip.run(t.CheckWanderingTrueHex())

    def test_its_road_check_is_re_run_as_its_release_made_it(self) -> None:
        """Day 1 read the road as never lost (version 2); today's rules read the swamp, lost on 1-6 in fog by night:
        the audit re-runs the check as recorded, and a check that says the party was lost is a finding."""
        events = self.events()
        schemas = [json.loads(line)["schemaversion"] for line in self.lines()]
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.LostChecked))
        assert (events[at].row, events[at].lost_on, events[at].lost, schemas[at]) == ("road", (), False, 2)
        assert check_decision_events(events, schemas=schemas).issues == ()
        as_today = [*schemas[:at], ev.LostChecked.schema_version, *schemas[at + 1 :]]
        assert [i.at for i in check_decision_events(events, schemas=as_today).issues][:1] == [at]
        forged = attrs.evolve(events[at], lost=True)
        issues = check_decision_events([*events[:at], forged, *events[at + 1 :]], schemas=schemas).issues
        assert [i.at for i in issues][:1] == [at]

    def test_the_audits_command_for_an_old_road_check_is_refused_to_the_referee(self) -> None:
        trip = Journey("meadow")
        with pytest.raises(RuleRefusedError, match=r"re-running a route an older release recorded; use DeclareRoute"):
            trip.run(t.DeclareRouteRoadNeverLost(headings=("N",)))
