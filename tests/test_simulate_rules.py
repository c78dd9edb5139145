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
from hexlog.service import simulation as sim

P_MIN = 0.001


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


def _holds(rate: sim.Rate, exact: float) -> None:
    """The simulated rate agrees with the exact one: its 95 % interval holds it, and a binomial test agrees."""
    low, high = rate.interval
    assert low <= exact <= high, (rate, exact)
    assert binomtest(rate.hits, rate.n, exact).pvalue > P_MIN


def _fits(values: list[Any], exact: dict[Any, Fraction]) -> None:
    """The values follow the exact distribution (chi-square), and take no value it cannot give."""
    assert set(values) <= set(exact), set(values) - set(exact)
    observed = [values.count(v) for v in sorted(exact)]
    expected = [float(exact[v]) * len(values) for v in sorted(exact)]
    assert chisquare(observed, expected).pvalue > P_MIN


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
