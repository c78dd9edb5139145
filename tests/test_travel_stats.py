"""Seeded statistical checks of the travel day: the lost rate and the encounter rate of every terrain
row over 20,000 days (both sources, with fog and darkness), and the lost heading uniform; committed
dice from a fixed secret, chi-square p > 0.001."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from scipy.stats import chisquare

from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine.hexmap.state import Hex
from hexlog.machine.rolls import KeyRoller, Rolls
from hexlog.machine.travel import terrain
from hexlog.machine.travel.rules import TravelTables, WildernessTables

DAYS = 20_000
P_MIN = 0.001
KEY = hexdice.derive_key(bytes.fromhex("71" * 32), "travel statistics")
TERRAINS = ["meadow", "hills", "bog", "swamp", "craggy_forest", "thorny_forest", "river", "settlement", "desert"]


@functools.cache
def totals(purpose: str) -> tuple[int, ...]:
    """20,000 committed d6 rolls for ``purpose`` (one stream of days, read by every terrain's rules)."""
    roll = Rolls(KeyRoller(KEY))
    return tuple(roll("1d6", purpose, made_for="party").total for _ in range(DAYS))


def rules_for(source: str) -> rulesets.Ruleset:
    return rulesets.load("explore", {"options": {"lost_encounter_source": source}})


def rate_check(hits: int, p: float) -> None:
    """Exact at 0 and 1; otherwise a chi-square of hits and misses against the chance."""
    if p in {0.0, 1.0}:
        assert hits == DAYS * p
        return
    assert chisquare([hits, DAYS - hits], [DAYS * p, DAYS * (1 - p)]).pvalue > P_MIN


@pytest.mark.parametrize("source", ["odd_p18", "dolmenwood"])
@pytest.mark.parametrize("terrain_name", TERRAINS)
@pytest.mark.parametrize(("weather", "night"), [("clear", False), ("fog", False), ("clear", True)])
def test_the_lost_rate_of_each_terrain(source: str, terrain_name: str, weather: str, night: bool) -> None:  # noqa: FBT001 - a column
    """20,000 lost checks per terrain, read by the step's own rules, lose the party at the table's rate."""
    rules = rules_for(source)
    place = Hex(terrain=terrain_name)
    flags = tuple((rules.part(WildernessTables).weather_flags or {})[weather])
    _, chances = terrain.row(rules, place)
    lost_on = terrain.lost_range(rules, chances.lost, weather, flags, night=night)
    lost = sum(terrain.is_lost(total, lost_on) for total in totals("travel.lost"))
    rate_check(lost, len(lost_on) / 6)


@pytest.mark.parametrize("source", ["odd_p18", "dolmenwood"])
@pytest.mark.parametrize("terrain_name", TERRAINS)
def test_the_encounter_rate_of_each_terrain(source: str, terrain_name: str) -> None:
    """20,000 wandering checks per terrain meet monsters at the row's rate."""
    rules = rules_for(source)
    _, chances = terrain.row(rules, Hex(terrain=terrain_name))
    met = sum(total in chances.encounter for total in totals("travel.wandering"))
    rate_check(met, len(chances.encounter) / 6)


def test_the_known_rates_of_a_few_rows() -> None:
    """The rows read are those of §4.7-4.8: swamp 3-in-6 lost and 3-in-6 encounter (OD&D), hills 1-in-6 (Dolmenwood)."""
    assert terrain.row(rules_for("odd_p18"), Hex(terrain="swamp"))[1].lost == (1, 2, 3)
    assert terrain.row(rules_for("odd_p18"), Hex(terrain="swamp"))[1].encounter == (4, 5, 6)
    assert terrain.row(rules_for("dolmenwood"), Hex(terrain="hills"))[1].encounter == (1,)


def test_the_lost_heading_is_uniform() -> None:
    """20,000 headings of a lost party: each of the six faces as often as the others."""
    faces = rules_for("odd_p18").part(TravelTables).lost_direction.faces  # type: ignore[union-attr]
    counts = Counter(faces[total - 1] for total in totals("travel.lost.heading"))
    assert set(counts) == {"N", "NE", "SE", "S", "SW", "NW"}
    assert chisquare([counts[h] for h in faces]).pvalue > P_MIN
