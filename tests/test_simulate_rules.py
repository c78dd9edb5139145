"""``hexlog simulate`` plays by the rules in force: a trial's party rests when those rules owe it (house rules
included), and the simulated rates of more procedures agree with their exact chances (fixed seeds, binomial and
chi-square tests, the 95 % interval holding the exact rate)."""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise, product
from typing import Any

import pytest
from scipy.stats import binomtest, chisquare

from hexlog.events import dungeon as dev
from hexlog.events import travel as tev
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.service import simulation as sim

P_MIN = 0.001
MIN_EXPECTED = 5
TRIALS = 400


def _events(scenario: str, situation: Any, overrides: dict[str, Any], index: int = 0) -> list[Any]:
    """The events of one trial of ``scenario`` under explore with ``overrides``, as ``hexlog simulate`` plays it."""
    question = sim.Question(scenario=scenario, situation=situation, ruleset="explore", overrides=overrides, seed=3)
    play = sim.Play(sim.handler_for(question.ruleset, sim.CAMPAIGN, overrides))
    found = sim.SCENARIOS[scenario]
    if found.prepare is not None:
        found.prepare(play, situation)
    play.run(c.CloseSession())
    play.run(c.OpenSession(secret_hex=sim.secret_for(question.seed, index)))
    found.trial(play, situation)
    return play.events


def _rate(outcomes: list[sim.Outcome], name: str) -> sim.Rate:
    (measure,) = [m for m in sim.summarise(outcomes) if m.name == name]
    (rate,) = measure.rates
    return rate


def _holds(rate: sim.Rate, exact: float) -> bool:
    """Whether the simulated rate agrees with the exact one: its 95 % interval holds it, and a binomial test agrees."""
    low, high = rate.interval
    return low <= exact <= high and binomtest(rate.hits, rate.n, exact).pvalue > P_MIN


def _fits(values: list[Any], exact: dict[Any, Fraction]) -> bool:
    """Whether the values follow the exact distribution (chi-square, the rarest values pooled in bins of at least 5
    expected trials) and take no value it cannot give."""
    if not set(values) <= set(exact):
        return False
    observed, expected = [0], [0.0]
    for value in sorted(exact):
        if expected[-1] >= MIN_EXPECTED:
            observed.append(0)
            expected.append(0.0)
        observed[-1] += values.count(value)
        expected[-1] += float(exact[value]) * len(values)
    if expected[-1] < MIN_EXPECTED and len(expected) > 1:  # the last, rare bin joins the one before
        observed[-2:] = [sum(observed[-2:])]
        expected[-2:] = [sum(expected[-2:])]
    return bool(chisquare(observed, expected).pvalue > P_MIN)


def _dice(count: int, sides: int, value: Any = sum) -> dict[Any, Fraction]:
    """The exact distribution of ``value`` of ``count`` dice of ``sides`` faces."""
    out: dict[Any, Fraction] = {}
    for faces in product(range(1, sides + 1), repeat=count):
        key = value(faces)
        out[key] = out.get(key, Fraction(0)) + Fraction(1, sides**count)
    return out


# -- a trial's party rests when the rules in force owe it ------------------------------------------------------------


def test_a_journey_rests_as_often_as_house_rules_owe_a_rest() -> None:
    """A house rule of a rest day every 3 travel days: a week's journey rests twice and no one grows exhausted (the
    party once rested after 6 days whatever the rules, so the house rule's travellers were exhausted on days 4-6)."""
    overrides = {"tables": {"rest": {"rest_every_travel_days": 3}}}
    events = _events("travel", sim.Journey(days=7), overrides)
    assert sum(isinstance(e, tev.Rested) for e in events) == 2
    assert not [e for e in events if isinstance(e, tev.ExhaustionChanged) and e.level > 0]
    question = sim.Question(scenario="travel", situation=sim.Journey(days=7), ruleset="explore", overrides=overrides)
    assert {o["rest days"] for o in sim.simulate(question, 4)} == {2}


@pytest.mark.parametrize("rest_turns", [1, 3])
def test_a_delve_rests_the_rules_turns_each_hour(rest_turns: int) -> None:
    """The rules' rest of N turns each hour: each rest ends an hour after the one before (the party once rested after
    50 minutes whatever the rules, so a rest of 3 turns came every 80 minutes, the party unrested for 20 of them)."""
    overrides = {"tables": {"dungeon": {"rest_turns_per_hour": rest_turns}}}
    delve = sim.Delve(turns=24, every_turns=1000)  # no wandering check: nothing but moves and rests takes time
    rests = [e for e in _events("dungeon", delve, overrides) if isinstance(e, dev.PartyRested)]
    assert len(rests) >= 3
    assert {e.turns for e in rests} == {rest_turns}
    assert {b.at_seconds - a.at_seconds for a, b in pairwise(rests)} == {3600}


def test_a_delve_under_rules_that_owe_no_rest_never_rests() -> None:
    overrides = {"tables": {"dungeon": {"rest_turns_per_hour": 0}}}
    events = _events("dungeon", sim.Delve(turns=12, every_turns=1000), overrides)
    assert not [e for e in events if isinstance(e, dev.PartyRested)]


# -- the simulated rates agree with the exact chances of the rules -------------------------------------------------


def _outcomes(scenario: str, situation: Any, ruleset: str, n: int = TRIALS, seed: int = 21) -> list[sim.Outcome]:
    return sim.simulate(sim.Question(scenario=scenario, situation=situation, ruleset=ruleset, seed=seed), n)


@pytest.mark.parametrize(
    ("journey", "lost", "met"),
    [
        # §4.7 OD&D p.18 rows, the Dolmenwood terrains read as them (§4.8): clear, woods, swamp
        (sim.Journey(days=1, terrain="meadow"), Fraction(1, 6), Fraction(1, 6)),
        (sim.Journey(days=1, terrain="hilly_forest"), Fraction(2, 6), Fraction(2, 6)),
        (sim.Journey(days=1, terrain="swamp"), Fraction(3, 6), Fraction(3, 6)),
        # §4.7: fog +1 to the lost range, darkness +2 (the encounter chance is the terrain's)
        (sim.Journey(days=1, terrain="meadow", weather="fog"), Fraction(2, 6), Fraction(1, 6)),
        (sim.Journey(days=1, terrain="meadow", weather="clear", night=True), Fraction(3, 6), Fraction(1, 6)),
    ],
)
def test_a_travel_day_is_lost_and_meets_monsters_at_the_terrains_chances(
    journey: sim.Journey, lost: Fraction, met: Fraction
) -> None:
    """Seed 004 (explore): one travel day in a terrain is lost on its lost range of a d6 (plus fog's 1 and
    darkness's 2) and meets monsters at the day's check on its encounter range (summer's weather hides nothing)."""
    outcomes = _outcomes("travel", journey, "explore", n=300)
    assert _holds(_rate(outcomes, sim.LOST_ON_DAY_1), float(lost))
    (encounters,) = [m for m in sim.summarise(outcomes) if m.name == "encounters"]
    assert set(encounters.counts) <= {"0", "1"}
    assert _holds(sim.Rate(label="met", hits=encounters.counts.get("1", 0), n=encounters.n), float(met))


@pytest.mark.parametrize(
    ("delve", "chance"),
    [
        (sim.Delve(turns=2), Fraction(1, 6)),  # §4.2: every 2 turns, 1 on a d6
        (sim.Delve(turns=2, wandering_on=(1, 2, 3)), Fraction(3, 6)),
        (sim.Delve(turns=1, danger=True), Fraction(2, 6)),  # explore's dangerous place: every turn, 1-2
    ],
)
def test_a_delve_s_one_wandering_check_brings_a_monster_at_its_chance(delve: sim.Delve, chance: Fraction) -> None:
    outcomes = _outcomes("dungeon", delve, "explore")
    assert {o["checks"] for o in outcomes} == {1}
    assert _holds(_rate(outcomes, "any wandering monster"), float(chance))


def test_both_sides_are_surprised_one_time_in_nine() -> None:
    """OSE: each side is surprised on 1-2 of its own d6, so both are, 1/9 of the time."""
    both = [
        o["party surprised"] and o["monsters surprised"] for o in _outcomes("encounter", enc.StartEncounter(), "ose")
    ]
    assert _holds(sim.Rate(label="both", hits=sum(map(bool, both)), n=len(both)), 1 / 9)


def _reaction_bands(cha_modifier: int) -> dict[Any, Fraction]:
    """OSE §2.5's bands of 2d6 plus ``cha_modifier``: attacks on 2 or less, hostile on 3-5, uncertain 6-8, indifferent
    9-11, friendly 12 or more (the bands it cannot reach left out)."""
    bands = {"attacks": range(-99, 3), "hostile": range(3, 6), "uncertain": range(6, 9), "indifferent": range(9, 12)}
    bands["friendly"] = range(12, 99)
    totals = _dice(2, 6, lambda faces: sum(faces) + cha_modifier)
    exact = {band: sum(p for total, p in totals.items() if total in within) for band, within in bands.items()}
    return {band: p for band, p in exact.items() if p}


def test_the_reaction_to_ann_is_2d6_plus_her_charisma_on_the_ose_bands() -> None:
    """OSE §2.5: 2d6 + 1 (Ann's CHA 13) where the party is not surprised; a surprised party cannot act in the first
    round, in which the trial rolls the reaction, nor speak (§2.2): 2d6 alone then."""
    outcomes = _outcomes("encounter", enc.StartEncounter(), "ose")
    spoken = [o["reaction"] for o in outcomes if not o["party surprised"]]
    silent = [o["reaction"] for o in outcomes if o["party surprised"]]
    assert spoken
    assert silent
    assert _fits(spoken, _reaction_bands(1))
    assert _fits(silent, _reaction_bands(0))


AWARE = {"party_aware": True, "monsters_aware": True}
SURPRISED = {"party_surprise_on": 6}


@pytest.mark.parametrize(
    ("ruleset", "situation", "measure", "exact"),
    [
        # OSE §2.3: wilderness 4d6 x 10 yd, 1d4 x 10 yd if either side is surprised
        ("ose", {"setting": "wilderness", **AWARE}, "distance (yd)", _dice(4, 6, lambda f: 10 * sum(f))),
        ("ose", {"setting": "wilderness", **SURPRISED}, "distance (yd)", _dice(1, 4, lambda f: 10 * sum(f))),
        # seed 004 §4.3: dungeon 2d4 x 10 ft, 1d3 x 10 ft if either side is surprised
        ("explore", AWARE, "distance (ft)", _dice(2, 4, lambda f: 10 * sum(f))),
        ("explore", SURPRISED, "distance (ft)", _dice(1, 3, lambda f: 10 * sum(f))),
        # seed 004 §4.5: wilderness 4d6 x 10 yd, 1d3 x 10 yd surprised
        ("explore", {"setting": "wilderness", **AWARE}, "distance (yd)", _dice(4, 6, lambda f: 10 * sum(f))),
        ("explore", {"setting": "wilderness", **SURPRISED}, "distance (yd)", _dice(1, 3, lambda f: 10 * sum(f))),
        # seed 001 §3.2: indoors (1d6 + 4) x 10 ft, 1d3 x 10 ft on any surprise
        ("adnd", {"setting": "indoors", **AWARE}, "distance (ft)", _dice(1, 6, lambda f: 10 * (f[0] + 4))),
        ("adnd", {"setting": "indoors", **SURPRISED}, "distance (ft)", _dice(1, 3, lambda f: 10 * sum(f))),
    ],
)
def test_the_encounter_distance_follows_the_rules_dice(
    ruleset: str, situation: dict[str, Any], measure: str, exact: dict[Any, Fraction]
) -> None:
    outcomes = _outcomes("encounter", enc.StartEncounter(**situation), ruleset)
    assert _fits([o[measure] for o in outcomes], exact)
