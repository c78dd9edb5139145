"""Poor visibility halves the encounter distance (REFERENCE §4.10, flag V: fog, blizzard): the travel day and
a night in camp hand the weather's divisor to the encounter, whose distance step applies it and says so,
and the audit re-runs it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import codec
from hexlog.events import encounter as ev
from hexlog.events.codec import decode
from hexlog.events.errors import UsageError
from hexlog.machine import camp
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.hexmap import SetHex
from hexlog.machine.travel import commands as t
from hexlog.replay.decisions import check_decision_events

from .scripted_play import ScriptedPlay

CAMPAIGN = "fog"
STREAM = tables.stream_for(CAMPAIGN)
GOLDEN = Path(__file__).parent / "golden" / "events"


class Table(ScriptedPlay):
    """An explore campaign with Ann and Bo, its dice a script each command is given."""

    def __init__(self) -> None:
        super().__init__(CAMPAIGN)
        for command in (
            c.StartCampaign(ruleset="explore"),
            c.OpenSession(secret_hex="6e" * 32),
            c.AddMember(name="Ann"),
            c.AddMember(name="Bo"),
        ):
            self.run(command)

    def events(self) -> list[Any]:
        return [decode(r.envelope) for r in self.h.store.read_stream(STREAM)]


def one(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def wilderness_distance(divisor: int) -> ev.DistanceDetermined:
    """Nobody surprised (6, 6), then 4d6 = 3+4+5+6 = 18: 180 yd in clear weather."""
    table = Table()
    table.run(enc.StartEncounter(setting="wilderness", distance_divisor=divisor))
    table.run(enc.CheckSurprise(), 6, 6)
    return one(table.run(enc.DetermineDistance(), 3, 4, 5, 6), ev.DistanceDetermined)


class TestTheDistanceStep:
    def test_poor_visibility_halves_the_distance_and_says_so(self) -> None:
        clear, fog = wilderness_distance(1), wilderness_distance(2)
        assert (clear.value, fog.value) == (180, 90)
        assert not [s for s in clear.steps if "visibility" in s]
        assert "poor visibility: / 2 -> 90 yd" in fog.steps

    def test_the_divisor_rounds_down_and_decides_whether_missiles_reach(self) -> None:
        """Surprised (1, 6): 1d3 = 3, 30 yd; halved 15 yd, rounded down; within 10 yd only when divided by 3."""
        found = {}
        for divisor in (1, 2, 3):
            table = Table()
            table.run(enc.StartEncounter(setting="wilderness", distance_divisor=divisor))
            table.run(enc.CheckSurprise(), 1, 6)
            found[divisor] = one(table.run(enc.DetermineDistance(), 3), ev.DistanceDetermined)
        assert [(d.value, d.missiles_possible) for d in found.values()] == [(30, False), (15, False), (10, True)]

    def test_a_divisor_out_of_range_is_refused(self) -> None:
        with pytest.raises(UsageError, match="distance divisor must be 1 to 10"):
            Table().run(enc.StartEncounter(setting="wilderness", distance_divisor=11))

    def test_the_audit_re_runs_the_divided_distance(self) -> None:
        """The recorded 90 yd is what the rules give; a log that says 180 yd is caught."""
        table = Table()
        table.run(enc.StartEncounter(setting="wilderness", distance_divisor=2))
        table.run(enc.CheckSurprise(), 6, 6)
        table.run(enc.DetermineDistance(), 3, 4, 5, 6)
        events = table.events()
        assert check_decision_events(events).issues == ()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.DistanceDetermined))
        events[at] = attrs.evolve(events[at], value=180)
        (issue,) = check_decision_events(events).issues
        assert issue.at == at
        assert "distance 180 yd recorded, but the rules give 90 yd" in issue.reason


class TestTheSchema:
    def test_a_version_1_start_reads_as_never_divided(self) -> None:
        golden = json.loads((GOLDEN / "encounter.started.v1.json").read_text(encoding="utf-8"))
        assert "distance_divisor" not in golden["data"]
        started = codec.from_data(golden["type"], 1, golden["data"])
        assert isinstance(started, ev.EncounterStarted)
        assert started.distance_divisor == 1
        assert ev.EncounterStarted.schema_version >= 2


class TestTheHandOffs:
    def test_a_travel_day_in_fog_hands_its_divisor_to_the_encounter(self) -> None:
        found = {}
        for weather in ("clear", "fog"):
            table = Table()
            table.run(SetHex(hex="1,1", terrain="meadow"))
            table.run(t.StartJourney(hex="1,1"))
            table.run(t.RollWeather(weather=weather))
            table.run(t.DeclareRoute(), 6, 1)
            found[weather] = one(table.run(t.CheckWandering(), 6), ev.EncounterStarted)
        assert (found["clear"].distance_divisor, found["fog"].distance_divisor) == (1, 2)

    def test_a_night_in_fog_hands_its_divisor_to_the_encounter(self) -> None:
        found = {}
        for weather in ("rain", "fog"):
            table = Table()
            table.run(camp.MakeCamp(weather=weather, terrain="clear"))
            table.run(camp.SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")))
            table.run(camp.CheckNight(), 6, 1)
            found[weather] = one(table.run(camp.MeetEncounter()), ev.EncounterStarted)
        assert (found["rain"].distance_divisor, found["fog"].distance_divisor) == (1, 2)
