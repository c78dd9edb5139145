"""A camp made on a journey takes what the referee leaves out from it: today's weather, the season, the hex's row."""

from __future__ import annotations

import pytest

from hexlog.events import camp as ev
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.camp.commands import MakeCamp
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as t

CAMPAIGN = "cj"


def campaign(*, journey: bool, season: str = "summer", weather: str = "rain") -> Handler:
    """Explore rules, a party of two, a tangled forest (OD&D row: woods) at 2,0 beside meadows (clear)."""
    h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller([3] * 50))
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex="4d" * 32),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
        SetHex(hex="2,0", terrain="tangled_forest"),
        SetHex(hex="2,1", terrain="meadow"),
    ):
        h.execute(CAMPAIGN, command)
    if journey:
        h.execute(CAMPAIGN, t.StartJourney(hex="2,0", season=season))
        h.execute(CAMPAIGN, t.RollWeather(weather=weather))
    return h


def made(h: Handler, command: MakeCamp) -> ev.CampMade:
    found = [e for e in h.execute(CAMPAIGN, command).events if isinstance(e, ev.CampMade)]
    assert len(found) == 1
    return found[0]


class TestACampOnAJourney:
    def test_the_weather_and_the_terrain_row_come_from_the_journey(self):
        camp = made(campaign(journey=True), MakeCamp())
        assert (camp.weather, camp.wet, camp.winter, camp.terrain) == ("rain", True, False, "woods")

    def test_a_winter_journey_makes_a_winter_camp(self):
        camp = made(campaign(journey=True, season="winter", weather="snow"), MakeCamp())
        assert (camp.weather, camp.wet, camp.winter) == ("snow", True, True)

    @pytest.mark.parametrize(
        ("given", "expected"),
        [({"weather": "clear"}, ("clear", False, "woods")), ({"terrain": "swamp"}, ("rain", True, "swamp"))],
    )
    def test_what_the_referee_gives_wins(self, given, expected):
        camp = made(campaign(journey=True), MakeCamp(**given))
        assert (camp.weather, camp.wet, camp.terrain) == expected

    def test_without_a_journey_nothing_is_assumed(self):
        camp = made(campaign(journey=False), MakeCamp())
        assert (camp.weather, camp.wet, camp.winter, camp.terrain) == ("", False, False, "")
