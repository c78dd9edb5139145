"""A ship continuously afloat sails only into water (``tables.water_terrains``, river under explore: its map has no
sea): a move afloat into a hex of another terrain is refused, naming the hex and its terrain, before anything is
recorded; a move of several hexes stops where the water ends; a lost ship whose true course runs ashore is stopped
with a word to the referee. Rules recorded without the table (before it was read) let a ship sail anywhere."""

from __future__ import annotations

import copy
from typing import Any

import attrs
import pytest

from hexlog.events import travel as ev
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.ruleset import Ruleset, load
from hexlog.machine.travel import commands as tr
from hexlog.machine.travel import terrain
from hexlog.machine.travel.state import TravelState

CAMPAIGN = "ship"


@attrs.define
class Voyage:
    """Ann afloat on a river at 2,3 under explore; upstream (N) 2,2 is river and 2,1 a meadow; NE of 2,3, 3,2 is a
    meadow too."""

    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset="explore"))
        self.run(c.OpenSession(secret_hex="5a" * 32))
        self.run(c.AddMember(name="Ann"))
        for where, kind in (("2,3", "river"), ("2,2", "river"), ("2,1", "meadow"), ("3,2", "meadow")):
            self.run(SetHex(hex=where, terrain=kind))
        self.run(tr.StartJourney(hex="2,3", afloat=True))
        self.run(tr.RollWeather(weather="clear"))

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    def version(self) -> int:
        return self.handler.load(CAMPAIGN).version


def test_a_ship_sails_up_the_river_and_stops_where_it_ends() -> None:
    voyage = Voyage()
    voyage.run(tr.DeclareRoute(headings=("N", "N")), 6, 1)  # not lost
    moved = [e for e in voyage.run(tr.Move()) if isinstance(e, ev.Moved)]
    assert [e.believed for e in moved] == ["2,2"]  # 2,1 is a meadow: the move stops at the river's end
    before = voyage.version()
    with pytest.raises(RuleRefusedError, match=r"a ship afloat cannot sail into 2,1: meadow is not water"):
        voyage.run(tr.Move())
    assert voyage.version() == before


def test_a_ship_is_refused_a_first_hex_ashore() -> None:
    voyage = Voyage()
    voyage.run(tr.DeclareRoute(headings=("NE",)), 6, 1)
    before = voyage.version()
    with pytest.raises(RuleRefusedError, match=r"cannot sail into 3,2: meadow is not water \(tables.water_terrains"):
        voyage.run(tr.Move())
    assert voyage.version() == before


def test_a_lost_ship_whose_true_course_runs_ashore_is_stopped_with_a_word_to_the_referee() -> None:
    voyage = Voyage()
    voyage.run(tr.DeclareRoute(headings=("N",)), 1, 2)  # lost on 1 (river row); truly heads NE, into a meadow
    before = voyage.version()
    with pytest.raises(RuleRefusedError, match=r"the party is lost, and truly a ship afloat cannot sail into 3,2"):
        voyage.run(tr.Move())
    assert voyage.version() == before


def test_rules_without_water_terrains_let_a_ship_sail_anywhere() -> None:
    """As rules recorded before the table was read: the audit and such campaigns keep their reading."""
    content = copy.deepcopy(load("explore").content)
    del content["tables"]["water_terrains"]
    before = Ruleset("explore", content)
    voyage = Voyage()
    voyage.run(tr.DeclareRoute(headings=("NE",)), 6, 1)
    table = voyage.handler.load(CAMPAIGN)
    trip = table.procedures["travel"]
    assert isinstance(trip, TravelState)
    the_map = table.procedures["map"]
    assert isinstance(the_map, MapState)
    assert table.rules is not None
    assert terrain.aground(table.rules, the_map, trip) is not None
    assert terrain.aground(before, the_map, trip) is None


def _ashore() -> Handler:
    """A campaign under explore whose map has a meadow at 5,5 with no water beside it, a meadow at 2,1 beside the
    river at 2,2 (a port), and the river."""
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller([]))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore"))
    handler.execute(CAMPAIGN, c.AddMember(name="Ann"))
    for where, kind in (("5,5", "meadow"), ("2,1", "meadow"), ("2,2", "river")):
        handler.execute(CAMPAIGN, SetHex(hex=where, terrain=kind))
    return handler


def test_a_ship_is_refused_a_start_afloat_from_dry_land_naming_the_hex_and_its_terrain() -> None:
    handler = _ashore()
    before = handler.load(CAMPAIGN).version
    with pytest.raises(RuleRefusedError, match=r"cannot set out afloat from 5,5: meadow is not water, and no hex next"):
        handler.execute(CAMPAIGN, tr.StartJourney(hex="5,5", afloat=True))
    assert handler.load(CAMPAIGN).version == before
    handler.execute(CAMPAIGN, tr.StartJourney(hex="5,5"))  # on foot it sets out


def test_a_ship_sets_out_on_water_or_from_a_port_beside_it() -> None:
    for where in ("2,2", "2,1"):
        handler = _ashore()
        out = handler.execute(CAMPAIGN, tr.StartJourney(hex=where, afloat=True)).events
        assert [e.afloat for e in out if isinstance(e, ev.JourneyStarted)] == [True]


def test_rules_without_water_terrains_let_a_ship_set_out_anywhere() -> None:
    content = copy.deepcopy(load("explore").content)
    del content["tables"]["water_terrains"]
    table = _ashore().load(CAMPAIGN)
    the_map = table.procedures["map"]
    assert isinstance(the_map, MapState)
    assert table.rules is not None
    assert terrain.ashore(table.rules, the_map, "5,5") is not None
    assert terrain.ashore(Ruleset("explore", content), the_map, "5,5") is None
