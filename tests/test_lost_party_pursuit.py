"""A party lost without knowing it, pursued: nothing the players see of the pursuit tells them the terrain of the hex
it is truly in.

Seed 004 §4.12: the party "unknowingly travels in the wrong direction" and "may not realize they are lost until they
fail to reach a landmark". A pursuit's terrain is public: its start, the +25 % of woods in the evasion (the
encounter's own and the pursuit's), the 1-in-4 of woods or swamp in the catch and the rest's encounter chances must
all read the hex the party believes it is in (``pursuit.started``, ``pursuit.evasion_rolled``,
``pursuit.catch_rolled``, ``pursuit.rested`` version 2, ``encounter.evasion_rolled`` version 3). The same lost day
whose true hexes differ in terrain, and nothing else, shows a player the same pursuit. Once the party knows it is
lost its believed hex is its true one.

``tests/golden/resting-one-v1.jsonl`` was written before: after a secret flight its catch roll read the woods of the
party's true hex. It audits VERIFIED, its rolls re-run as their release made them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hexlog.events import encounter as enc_ev
from hexlog.events import pursuit as ev
from hexlog.events import travel as travel_ev
from hexlog.events.codec import decode
from hexlog.events.errors import RuleRefusedError
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.hexmap import SetHex
from hexlog.machine.pursuit import commands as p
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay
from .test_lost_party_view import LOST, NORTH_EAST, only, player_view

CAMPAIGN = "lost"
RESTING_ONE_V1 = Path(__file__).resolve().parent / "golden" / "resting-one-v1.jsonl"
#: the flight's d6: S
SOUTH = 4


class Journey(ScriptedPlay):
    """The party sets out from a meadow at 2,3 heading N into a bog it believes it enters (2,2); lost, it truly goes
    NE into 3,2. Every hex but those two is of ``truly``; the dice a script the test fills as it goes."""

    def __init__(self, truly: str) -> None:
        super().__init__(CAMPAIGN)
        self.run(c.StartCampaign(ruleset="explore"))
        self.run(c.OpenSession(secret_hex="4c" * 32))
        for name in ("Ann", "Bo"):
            self.run(c.AddMember(name=name, speed=60))
        terrains = {f"{col},{row}": truly for col in range(6) for row in range(6)} | {"2,3": "meadow", "2,2": "bog"}
        for name, terrain in terrains.items():
            self.run(SetHex(hex=name, terrain=terrain))
        self.run(t.StartJourney(hex="2,3"))
        self.run(t.RollWeather(weather="fog"))
        checked = only(self.run(t.DeclareRoute(headings=("N",)), LOST, NORTH_EAST), travel_ev.LostChecked)
        assert (checked.lost, checked.heading) == (True, "NE")
        self.run(t.Move())
        assert (self.travel.hex, self.travel.believed) == ("3,2", "2,2")

    @property
    def travel(self) -> Any:
        return self.h.load(CAMPAIGN).procedures["travel"]

    def records(self) -> list[Any]:
        return self.h.store.read_stream(stream_for(CAMPAIGN))


def a_lost_pursuit(truly: str) -> Journey:
    """The wandering check meets an encounter; the party evades and fails, is pursued, flees a hex (secretly), is not
    caught, evades and rests. Each die has the same face whatever the terrain, and fits it."""
    trip = Journey(truly)
    trip.run(t.CheckWandering(), 6)
    trip.run(enc.CheckSurprise(), 4, 4)
    trip.run(enc.DetermineDistance(), 3, 3, 3, 3)
    trip.run(enc.RollInitiative(), 5, 2)
    trip.run(enc.Evade())
    trip.run(enc.RollEvasion(), 99)
    trip.run(p.Flee(), SOUTH)
    trip.run(p.Catch(), 4)
    trip.run(p.RollEvasion(), 99)
    trip.run(p.Flee(), SOUTH)
    trip.run(p.Catch(), 4)
    trip.run(p.RollEvasion(), 1)
    trip.run(p.Rest(), 1, 1)
    return trip


class TestWhatThePlayersSee:
    def test_the_pursuit_reads_the_terrain_of_the_hex_the_party_believes_it_is_in(self) -> None:
        """Believed in a bog (OD&D swamp), truly in tangled forest (woods): the pursuit starts in the swamp, its
        evasions have no +25 % of woods, its catches are rough (1d4), its rest reads the swamp's chances (4-6)."""
        trip = a_lost_pursuit("tangled_forest")
        events = [decode(r.envelope) for r in trip.records()]
        assert only(events, ev.PursuitStarted).terrain == "swamp"
        assert not only(events, enc_ev.EvasionRolled).woods
        evasions = [e for e in events if isinstance(e, ev.PursuitEvasionRolled)]
        assert [e.terrain for e in evasions] == ["swamp", "swamp"]
        assert not [step for e in evasions for step in e.steps if "woods" in step]
        catches = [e for e in events if isinstance(e, ev.CatchRolled)]
        assert [(e.dice, e.terrain) for e in catches] == [("1d4", "swamp"), ("1d4", "swamp")]
        rested = only(events, ev.PursuitRested)
        assert (rested.terrain, rested.encounter_on) == ("swamp", (4, 5, 6))
        truly = [e.hex for e in events if isinstance(e, travel_ev.TruePosition)]
        assert truly == ["3,2", "3,3", "3,4"]  # the referee's: the flights moved it through the tangled forest

    @pytest.mark.parametrize("truly", ["meadow", "tangled_forest", "hills", "swamp"])
    def test_a_player_sees_the_same_pursuit_whatever_the_terrain_of_the_true_hex(self, truly: str) -> None:
        """The same lost day, its true hexes bogs as believed or of another terrain: every event a player is sent,
        every line of the timeline and of the state is the same (the map aside, public in both)."""
        assert player_view(a_lost_pursuit(truly)) == player_view(a_lost_pursuit("bog"))

    def test_once_the_party_knows_it_is_lost_the_pursuit_reads_its_true_hex(self) -> None:
        trip = Journey("tangled_forest")
        trip.run(t.RevealLost(reason="the referee says so"))
        started = only(trip.run(p.StartPursuit(pursuers_speed=240)), ev.PursuitStarted)
        assert started.terrain == "woods"
        rolled = only(trip.run(p.RollEvasion(), 99), ev.PursuitEvasionRolled)
        assert rolled.terrain == "woods"


class TestTheAudit:
    def test_a_lost_pursuit_audits_clean(self) -> None:
        trip = a_lost_pursuit("tangled_forest")
        report = audit_envelopes(read_export(list(export_lines(trip.h.store, CAMPAIGN))))
        assert report.findings == (), report.text()

    def test_a_log_that_read_the_true_hex_audits_clean(self) -> None:
        """``resting-one-v1.jsonl``: its catch roll read the woods of the party's true hex after a secret flight."""
        lines = RESTING_ONE_V1.read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines]
        catches = [r for r in rows if r["type"] == "hexlog.pursuit.catch_rolled"]
        assert {r["schemaversion"] for r in catches} == {1}
        assert "woods" in {r["data"]["terrain"] for r in catches}
        report = audit_envelopes(read_export(lines))
        assert report.findings == (), report.text()

    @pytest.mark.parametrize("command", [p.RollEvasionTrueHex(), p.CatchTrueHex(), p.RestTrueHex()])
    def test_the_audits_commands_are_refused_to_the_referee(self, command: c.Command) -> None:
        trip = Journey("meadow")
        trip.run(p.StartPursuit(pursuers_speed=240))
        with pytest.raises(RuleRefusedError, match="audit"):
            trip.run(command)
