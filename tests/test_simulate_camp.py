"""``hexlog simulate camp``: the real night in camp, played on committed dice, agrees with the exact chances of its
rules (the night's check on the camp's row, the watch it calls, the fire still burning then, the members an
encounter catches unawares, the sleep it breaks); a split over processes changes nothing; ``compare`` and ``--plot``
take it; what it cannot read is refused."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING

import pytest

from hexlog.machine import ruleset as rulesets
from hexlog.machine.camp.rules import CampTables
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.travel.rules import TerrainChances
from hexlog.service import simulation as sim
from hexlog.service import simulation_camp as camp

from .conftest import run_hexlog, simulated_json
from .exact_chances import fits, holds

if TYPE_CHECKING:
    from pathlib import Path

TRIALS = 600
EXPLORE = rulesets.load("explore")
TABLE = EXPLORE.part(CampTables).camp
assert TABLE is not None


def _outcomes(night: camp.Night, seed: int = 5, n: int = TRIALS) -> list[sim.Outcome]:
    return sim.simulate(sim.Question(scenario="camp", situation=night, ruleset="explore", seed=seed), n)


@pytest.mark.parametrize("terrain", ["clear", "woods", "swamp"])
def test_a_night_is_met_at_the_exact_chance_of_the_camp_s_row(terrain: str) -> None:
    """One check a night (explore, A19) on the camp's row of the OD&D p.18 chances: clear 1, woods 2, swamp 3 in 6."""
    row = (EXPLORE.part(TerrainChances).lost_encounter or {})["odd_p18"][terrain]
    exact = Fraction(len(row.encounter), 6)
    outcomes = _outcomes(camp.Night(terrain=terrain))
    assert holds([o["any night encounter"] for o in outcomes], exact)
    # one check a night: a night meets one encounter at the most
    assert {o["night encounters"] for o in outcomes} <= {0, 1}


def test_the_watch_an_encounter_comes_in_is_the_watch_die_s() -> None:
    """The watch die (1d4 under explore) picks the watch: each of the four equally often."""
    outcomes = _outcomes(camp.Night(terrain="swamp"))
    watches = [o[camp.FIRST_WATCH] for o in outcomes if o[camp.FIRST_WATCH] is not None]
    assert len(watches) > 200
    assert fits(watches, {f"watch {n}": Fraction(1, TABLE.watches) for n in range(1, TABLE.watches + 1)})


@pytest.mark.parametrize(("gatherers", "weather"), [(2, ""), (1, ""), (2, "rain")])
def test_the_fire_burns_at_the_encounter_at_the_exact_chance(gatherers: int, weather: str) -> None:
    """The fire lit at nightfall burns the gatherers' hours (each one's 1d6, halved, rounded down, in wet weather), at
    most the night's; it still burns in watch w when it burns longer than the w - 1 watches before it."""
    divisor = TABLE.firewood_wet_divisor if weather else 1
    burning = Fraction(0)
    faces = list(product(range(1, 7), repeat=gatherers))
    for rolled, watch in product(faces, range(1, TABLE.watches + 1)):
        hours = min(sum(face // divisor for face in rolled), TABLE.night_hours)
        if hours > (watch - 1) * TABLE.watch_hours:
            burning += Fraction(1, len(faces) * TABLE.watches)
    outcomes = _outcomes(camp.Night(terrain="swamp", gatherers=gatherers, weather=weather), seed=12)
    fire = [o[camp.FIRE_BURNING] for o in outcomes if o[camp.FIRE_BURNING] is not None]
    assert len(fire) > 200
    assert 0 < burning < 1
    assert holds(fire, burning)


def test_an_encounter_catches_the_sleepers_on_their_range_and_the_guard_on_the_party_s() -> None:
    """The party's surprise die is read on the sleepers' range (1-4 under explore) for the three asleep, and on the
    party's own (1-2) for the guard: all four caught on 1-2, the three sleepers on 3-4, none on 5-6."""
    asleep_on, awake_on = TABLE.sleepers_surprised_on, EXPLORE.part(EncounterOptions).surprise_on
    exact = {
        4: Fraction(awake_on, 6),
        3: Fraction(asleep_on - awake_on, 6),
        0: Fraction(6 - asleep_on, 6),
    }
    outcomes = _outcomes(camp.Night(terrain="swamp"), seed=9)
    caught = [o[camp.CAUGHT_UNAWARES] for o in outcomes if o[camp.CAUGHT_UNAWARES] is not None]
    assert len(caught) > 200
    assert fits(caught, exact)


def test_only_an_encounter_leaves_members_short_of_sleep() -> None:
    """Four members standing a watch each sleep six hours, enough; an encounter wakes the three asleep, who lose its
    watch's two hours and sleep too little to heal or memorise spells. Over two nights the measure is a morning's, on
    average (never more than the party's four)."""
    outcomes = _outcomes(camp.Night(terrain="swamp", nights=2), n=60)
    assert any(o["night encounters"] == 2 for o in outcomes)  # both nights met
    assert all(o["members short of sleep"] == 3 * o["night encounters"] / 2 for o in outcomes)
    assert max(o["members short of sleep"] for o in outcomes) <= len(camp.MEMBERS)


def test_a_camp_trial_is_the_same_first_on_its_campaign_or_after_others() -> None:
    """A trial's outcome is its seed's and index's alone."""
    question = sim.Question(scenario="camp", situation=camp.Night(nights=2), ruleset="explore", seed=4)
    together = sim.trials(question, range(6))
    assert [sim.trials(question, [i])[0] for i in range(6)] == together


def test_simulate_camp_prints_the_same_on_two_processes_and_plots(tmp_path: Path) -> None:
    """Through the CLI: ``--jobs 2`` gives what ``--jobs 1`` gives; every measure is there; the plot is a PNG."""
    result = simulated_json("simulate", "camp", "--terrain", "swamp", "--n", "24", "--seed", "8", cwd=tmp_path)
    names = {m["name"] for m in result["sides"][0]["measures"]}
    assert {"any night encounter", camp.FIRST_WATCH, camp.FIRE_BURNING, "members short of sleep"} <= names
    plot = tmp_path / "camp.png"
    done = run_hexlog("simulate", "camp", "--n", "12", "--plot", str(plot), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_compare_camp_sets_a_house_rule_beside_the_rules(tmp_path: Path) -> None:
    """Two night checks a night (a house rule) meet more encounters than one."""
    result = simulated_json(
        "simulate", "compare", "camp", "--terrain", "swamp", "--n", "60", "--against-option",
        "tables.camp.night_checks=2", cwd=tmp_path,
    )  # fmt: skip
    rates = [next(m for m in side["measures"] if m["name"] == "night encounters")["mean"] for side in result["sides"]]
    assert rates[1] > rates[0]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--gatherers", "0", "--weather", "rain"), "--weather does not apply"),
        (("--gatherers", "0", "--winter"), "--winter does not apply"),
        (("--terrain", "moon"), "terrain 'moon'"),
        (("--ruleset", "ose"), "no camp table"),
        (("--monsters", "3"), "No such option: --monsters"),
        (("--option", "night_encounter_check=false", "--terrain", "swamp"), "--terrain does not apply"),
    ],
)
def test_what_a_camp_cannot_read_is_refused_before_any_trial(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    done = run_hexlog("simulate", "camp", "--n", "5", *args, cwd=tmp_path)
    assert done.returncode != 0
    assert named in done.stderr
    assert "Traceback" not in done.stderr


def test_a_camp_without_firewood_says_it_has_no_fire(tmp_path: Path) -> None:
    """No dice decide that a camp without firewood has no fire: a note says it, no rate of 0 % shows it."""
    result = simulated_json("simulate", "camp", "--gatherers", "0", "--n", "6", cwd=tmp_path)
    (side,) = result["sides"]
    assert any("no fire" in note for note in side["notes"])
    assert camp.FIRE_BURNING not in {m["name"] for m in side["measures"]}


@pytest.mark.parametrize("rule", ["tables.camp.night_checks=0", "night_encounter_check=false"])
def test_a_camp_under_rules_that_make_no_night_check_says_so(tmp_path: Path, rule: str) -> None:
    """No dice decide that a night with no check meets no encounter, nor who then sleeps too little: a note says it,
    and only the firewood, which the dice decide, is measured."""
    result = simulated_json("simulate", "camp", "--option", rule, "--n", "6", cwd=tmp_path)
    (side,) = result["sides"]
    assert any("no night check" in note for note in side["notes"])
    assert {m["name"] for m in side["measures"]} == {"firewood (hours a night)"}
