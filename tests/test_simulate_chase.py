"""``hexlog simulate chase``: the real chase, started on committed dice and run to its end, agrees with the exact
chances of its rules (a dropped item that stops the pursuers, the vessels' evasion on water); a chase no die decides
is told so; a split over processes changes nothing; what it cannot read is refused."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import pytest

from hexlog.machine import ruleset as rulesets
from hexlog.machine.chase.rules import ChaseTables
from hexlog.service import simulation as sim
from hexlog.service import simulation_chase as chase

from .conftest import run_hexlog, simulated_json
from .exact_chances import holds

if TYPE_CHECKING:
    from pathlib import Path

TRIALS = 500
OSE = rulesets.load("ose")
DUNGEON = OSE.part(ChaseTables).dungeon_pursuit
WATER = OSE.part(ChaseTables).evasion_waterborne
assert DUNGEON is not None
assert WATER is not None


def _outcomes(pursued: chase.Pursued, seed: int = 6, n: int = TRIALS) -> list[sim.Outcome]:
    return sim.simulate(sim.Question(scenario="chase", situation=pursued, ruleset="ose", seed=seed), n)


@pytest.mark.parametrize("drops", [1, 2, 3])
def test_each_item_dropped_stops_hungry_pursuers_on_the_rules_chance(drops: int) -> None:
    """Food stops hungry pursuers on 3 in 6 (OSE §2.9), each drop a round: faster pursuers catch the party unless one
    of its drops stops them, so the escapes are 1 - (1 - 3/6)^drops, each one a stop."""
    stop = Fraction(DUNGEON.dropped_food_stop_in_6, 6)
    pursued = chase.Pursued(gap_ft=90, fleeing_ft=90, pursuers_ft=120, hungry=True, drop=("food",) * drops)
    outcomes = _outcomes(pursued)
    assert holds([bool(o["escaped"]) for o in outcomes], 1 - (1 - stop) ** drops)
    assert all(o["escaped"] == o["stopped by a dropped item"] for o in outcomes)
    assert all(o["caught"] != o["escaped"] for o in outcomes)


@pytest.mark.parametrize(("fleeing_ft", "pursuers_ft"), [(90, 150), (120, 150), (30, 150), (150, 120)])
def test_a_vessel_evades_on_the_rules_chance_by_how_much_slower_it_is(fleeing_ft: int, pursuers_ft: int) -> None:
    """OSE §2.9: a faster vessel evades on its percentage, a slower one on the row of how much slower it is (beyond
    the last row on the least chance); a vessel that does not evade is caught."""
    slower_by = pursuers_ft - fleeing_ft
    if slower_by <= 0:
        pct = WATER.faster_pct
    else:
        pct = next((chance for most, chance in WATER.slower if slower_by <= most), WATER.slower_beyond_pct)
    pursued = chase.Pursued(setting="waterborne", gap_ft=300, fleeing_ft=fleeing_ft, pursuers_ft=pursuers_ft)
    outcomes = _outcomes(pursued, seed=8)
    assert holds([bool(o["evaded on water"]) for o in outcomes], Fraction(pct, 100))
    assert all(o["escaped"] == o["evaded on water"] for o in outcomes)


def test_a_chase_no_die_decides_is_told_so(tmp_path: Path) -> None:
    """Faster pursuers with nothing dropped catch the party in the rounds the gap gives: a note says no die decides
    it, and every trial ends alike."""
    result = simulated_json(
        "simulate", "chase", "--gap-ft", "60", "--fleeing-ft", "90", "--pursuers-ft", "120", "--n", "8", cwd=tmp_path
    )
    (side,) = result["sides"]
    assert any("no die is rolled" in note for note in side["notes"])
    rounds = next(m for m in side["measures"] if m["name"] == "rounds")
    assert rounds["counts"] == {"2": 8}


def test_a_chase_trial_is_the_same_first_on_its_campaign_or_after_others() -> None:
    question = sim.Question(
        scenario="chase",
        situation=chase.Pursued(gap_ft=60, fleeing_ft=90, pursuers_ft=120, hungry=True, drop=("food", "food")),
        ruleset="ose",
        seed=4,
    )
    together = sim.trials(question, range(6))
    assert [sim.trials(question, [i])[0] for i in range(6)] == together


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--drop", "gold"), "--drop takes treasure or food, not 'gold'"),
        (("--drop", "treasure"), "care nothing for treasure"),
        (("--setting", "waterborne", "--drop", "food", "--hungry"), "a chase on water drops nothing"),
        (("--fleeing-ft", "120"), "has not ended after 1000 rounds"),
        (("--fleeing-ft", "150", "--hungry", "--drop", "food"), "--drop does not apply: the fleeing side is faster"),
        (("--fleeing-ft", "90", "--forced-to-stop"), "--forced-to-stop does not apply"),
        (("--fleeing-ft", "90", "--relentless"), "--relentless does not apply"),
        (("--fleeing-ft", "90", "--line-of-sight-ft", "100"), "--line-of-sight-ft does not apply: the gap never grows"),
        (
            ("--fleeing-ft", "150", "--forced-to-stop", "--relentless", "--line-of-sight-ft", "100"),
            "--line-of-sight-ft does not apply: relentless pursuers keep on",
        ),
        (("--fleeing-ft", "90", "--hungry"), "--hungry does not apply: only food dropped reads it"),
        (("--fleeing-ft", "90", "--likes-treasure", "--drop", "food", "--hungry"), "--likes-treasure does not apply"),
        (
            (
                "--fleeing-ft",
                "90",
                "--hungry",
                "--drop",
                "food",
                "--option",
                "tables.dungeon_pursuit.dropped_food_stop_in_6=0",
            ),
            "on 0 in 6: they never stop for it",
        ),
        (("--setting", "waterborne", "--fleeing-ft", "90", "--relentless"), "a chase on water reads only the gap"),
        (("--setting", "waterborne", "--fleeing-ft", "90", "--forced-to-stop"), "a chase on water reads only the gap"),
        (("--fleeing", "monsters"), "No such option: --fleeing"),
        (
            ("--fleeing-ft", "90", "--option", "pursuit_repeats_encounter_steps=true"),
            "only where a chase follows an encounter",
        ),
        ((), "give --gap-ft"),
    ],
)
def test_what_a_chase_cannot_read_is_refused(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    base = () if not args else ("--gap-ft", "60", "--pursuers-ft", "120")
    done = run_hexlog("simulate", "chase", "--n", "3", *base, *args, cwd=tmp_path)
    assert done.returncode != 0
    assert named in done.stderr
    assert "Traceback" not in done.stderr


def test_the_chase_s_help_takes_no_fact_from_an_encounter(tmp_path: Path) -> None:
    """A trial's chase follows no encounter: no option's help offers an encounter's fact as its default, and the gap
    and the pursuers' rate are said to be needed."""
    done = run_hexlog("simulate", "chase", "--help", cwd=tmp_path, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "the encounter's" not in done.stdout
    assert done.stdout.count("needed: a trial's chase follows no encounter") == 2  # the gap, the rate
