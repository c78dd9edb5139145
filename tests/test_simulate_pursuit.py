"""``hexlog simulate pursuit``: the real pursuit, started on committed dice and fled to its end, agrees with the
exact chances of its rules (the first evasion roll, the hexes fled, the catch), whichever reading is in force;
a split over processes changes nothing; ``compare`` and ``--plot`` take it."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import pytest
from rich.console import Console
from scipy.stats import binomtest, chisquare

from hexlog.machine import evasion
from hexlog.machine import ruleset as rulesets
from hexlog.machine.evasion import Situation
from hexlog.service import cli_simulate
from hexlog.service import simulation as sim

from .conftest import run_hexlog, simulated_json

if TYPE_CHECKING:
    from pathlib import Path

P_MIN = 0.001
TRIALS = 400
#: the simulation's party: two members at the default rate
PARTY_SPEED = 120


def _rate(outcomes: list[sim.Outcome], name: str) -> sim.Rate:
    (measure,) = [m for m in sim.summarise(outcomes) if m.name == name]
    (rate,) = measure.rates
    return rate


@pytest.mark.parametrize(
    ("ruleset", "chase", "situation"),
    [
        pytest.param(
            "explore",
            sim.Chase(party_size=8, pursuers=1),
            Situation(fleeing=8, pursuers=1, fleeing_speed=PARTY_SPEED, pursuers_speed=120),
            id="explore-8-fleeing-1-in-the-open",
        ),
        pytest.param(
            "explore",
            sim.Chase(party_size=8, pursuers=1, terrain="woods"),
            Situation(fleeing=8, pursuers=1, fleeing_speed=PARTY_SPEED, pursuers_speed=120, woods=True),
            id="explore-8-fleeing-1-in-woods",
        ),
        pytest.param(
            "ose",
            sim.Chase(party_size=14, pursuers=8),
            Situation(fleeing=14, pursuers=8, fleeing_speed=PARTY_SPEED, pursuers_speed=120),
            id="ose-14-fleeing-8",
        ),
    ],
)
def test_the_first_evasion_roll_passes_at_the_exact_chance(
    ruleset: str, chase: sim.Chase, situation: Situation
) -> None:
    """The rate of pursuits evaded at once: the exact chance of ``machine.evasion`` lies in its 95 % interval, and
    a binomial test agrees (p > 0.001)."""
    pct = evasion.chance(rulesets.load(ruleset), situation).pct
    assert 0 < pct < 100
    outcomes = sim.simulate(sim.Question(scenario="pursuit", situation=chase, ruleset=ruleset, seed=21), TRIALS)
    rate = _rate(outcomes, "evaded at once")
    assert rate.n == TRIALS
    low, high = rate.interval
    assert low < pct / 100 < high
    assert binomtest(rate.hits, rate.n, pct / 100).pvalue > P_MIN


def test_the_hexes_fled_and_the_catch_follow_the_rules() -> None:
    """Seed 004: 8 flee 1 faster monster in the open: evasion p = 35 %, caught q = 3-in-6 after each hex.

    P(0) = p; P(k >= 1) = (1 - p) r^(k-1) (q + (1 - q) p) with r = (1 - q)(1 - p); caught (1 - p) q / (1 - r).
    An escape owes half a day of rest per hex fled.
    """
    chase = sim.Chase(party_size=8, pursuers=1, pursuers_speed=150)
    outcomes = sim.simulate(sim.Question(scenario="pursuit", situation=chase, ruleset="explore", seed=5), TRIALS)
    p, q = 0.35, 0.5
    r = (1 - q) * (1 - p)
    exact = [p, *((1 - p) * r ** (k - 1) * (q + (1 - q) * p) for k in (1, 2))]
    exact.append(1 - sum(exact))
    hexes = [o["hexes fled"] for o in outcomes]
    assert all(isinstance(h, int) for h in hexes)
    observed = [hexes.count(0), hexes.count(1), hexes.count(2), sum(h >= 3 for h in hexes)]  # type: ignore[operator]
    assert chisquare(observed, [TRIALS * e for e in exact]).pvalue > P_MIN
    caught = _rate(outcomes, "caught")
    assert binomtest(caught.hits, caught.n, (1 - p) * q / (1 - r)).pvalue > P_MIN
    for outcome in outcomes:
        assert outcome["escaped"] is not outcome["caught"]
        owed = outcome["rest owed (half-days)"]
        assert owed == (outcome["hexes fled"] if outcome["escaped"] else None)


def test_ose_surprisers_evade_and_a_hopeless_party_stops_when_it_gives_up() -> None:
    """OSE: a party that surprised its pursuers always evades at once; a surprised party without the referee's
    chance never does, and stops (caught) after the days it was given unless a later roll frees it."""
    surprisers = sim.Question(scenario="pursuit", situation=sim.Chase(pursuers_surprised=True), ruleset="ose", seed=2)
    assert _rate(sim.simulate(surprisers, 20), "evaded at once").hits == 20
    hopeless = sim.Question(
        scenario="pursuit", situation=sim.Chase(party_surprised=True, give_up_after=2), ruleset="ose", seed=2
    )
    outcomes = sim.simulate(hopeless, 40)
    assert _rate(outcomes, "evaded at once").hits == 0
    for outcome in outcomes:
        assert 1 <= outcome["days of flight"] <= 2  # type: ignore[operator]
        assert outcome["stopped"] is outcome["caught"]
    assert 0 < _rate(outcomes, "stopped").hits < 40


def test_jobs_2_prints_what_jobs_1_prints(tmp_path: Path) -> None:
    args = ("simulate", "pursuit", "--n", "12", "--party-size", "8", "--pursuers-speed", "150", "--seed", "3")
    result = simulated_json(*args, cwd=tmp_path)
    assert result["scenario"] == "pursuit"
    assert result["situation"]["party_size"] == 8
    names = [m["name"] for m in result["sides"][0]["measures"]]
    for name in ("evaded at once", "escaped", "caught", "hexes fled", "rest owed (half-days)"):
        assert name in names


def test_compare_the_two_readings_with_a_plot(tmp_path: Path) -> None:
    """Seed 004 against OSE for the same situation, side by side, and its chart."""
    plot = tmp_path / "pursuit.png"
    done = run_hexlog(
        "simulate", "compare", "pursuit", "--against", "ose", "--n", "20", "--plot", str(plot), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "[explore]" in done.stdout
    assert "[ose]" in done.stdout
    assert "hexes fled" in done.stdout
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rules_without_a_pursuit_a_castle_under_ose_and_an_endless_chase_are_one_line(tmp_path: Path) -> None:
    none = run_hexlog("simulate", "pursuit", "--ruleset", "adnd", "--n", "3", cwd=tmp_path)
    assert none.returncode == 1
    assert "no wilderness pursuit" in none.stderr
    castle = run_hexlog("simulate", "pursuit", "--ruleset", "ose", "--castle", "hostile", "--n", "3", cwd=tmp_path)
    assert castle.returncode == 2
    assert "castle forces pursue under seed 004" in castle.stderr
    assert not castle.stdout
    endless = run_hexlog(
        "simulate",
        "pursuit",
        "--pursuers-speed",
        "150",
        "--option",
        "tables.wilderness_pursuit.catch_on=[]",
        "--option",
        "evasion_cap_pct=0",
        "--n",
        "1",
        cwd=tmp_path,
    )
    assert endless.returncode == 2
    assert "has not ended after 1000 flights" in endless.stderr


def test_a_terrain_a_hex_may_have_is_read_as_a_hex_of_it_and_any_other_is_refused(tmp_path: Path) -> None:
    """Tangled forest is woods to a pursuit as it is to a hex of the map (it was open ground); a word the rules do not
    know is refused, naming it, where it was read as open ground too."""
    question = sim.Question(
        scenario="pursuit", situation=sim.Chase(pursuers_speed=150, terrain="woods"), ruleset="explore", seed=9
    )
    forest = sim.Question(
        scenario="pursuit", situation=sim.Chase(pursuers_speed=150, terrain="tangled_forest"), ruleset="explore", seed=9
    )
    clear = sim.Question(scenario="pursuit", situation=sim.Chase(pursuers_speed=150), ruleset="explore", seed=9)
    woods = sim.simulate(question, 40)
    assert sim.simulate(forest, 40) == woods != sim.simulate(clear, 40)
    refused = run_hexlog("simulate", "pursuit", "--n", "5", "--terrain", "bogus", cwd=tmp_path)
    assert refused.returncode == 2
    assert "unknown terrain 'bogus'" in refused.stderr
    assert "tangled_forest" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_measure_only_some_trials_reach_says_how_many() -> None:
    """Rest is owed only after an escape: its row names the trials it counts, which are fewer than all."""
    question = sim.Question(
        scenario="pursuit", situation=sim.Chase(party_size=8, pursuers_speed=150), ruleset="explore", seed=1
    )
    measures = sim.summarise(sim.simulate(question, 60))
    (rest,) = [m for m in measures if m.name == "rest owed (half-days)"]
    assert 0 < rest.n < 60
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(cli_simulate._table("title", [("explore", measures)], 60))
    text = console.export_text()
    assert f"rest owed (half-days) ({rest.n} of 60 trials reach it)" in text  # its shares are of those
    assert "hexes fled (" not in text  # every trial counts it
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(cli_simulate._table("title", [("A", measures), ("B", sim.summarise([{"hexes fled": 1}] * 60))], 60))
    assert f"rest owed (half-days) (A: {rest.n} of 60 trials reach it)" in console.export_text()


def test_both_sides_surprised_flee_as_if_neither_was(tmp_path: Path) -> None:
    """``--party-surprised --pursuers-surprised``: both sides were surprised, so neither has the advantage (OSE §2.2,
    seed 004 1a) and the same dice give the answer of a meeting where neither was; the party alone surprised (what
    both flags were read as) has no chance in the open under seed 004."""
    args = ("simulate", "pursuit", "--n", "40", "--party-size", "8", "--pursuers-speed", "150", "--seed", "4", "--json")
    both = run_hexlog(*args, "--party-surprised", "--pursuers-surprised", cwd=tmp_path)
    neither = run_hexlog(*args, cwd=tmp_path)
    alone = run_hexlog(*args, "--party-surprised", cwd=tmp_path)
    for done in (both, neither, alone):
        assert done.returncode == 0, done.stderr
    measures = [json.loads(done.stdout)["sides"][0]["measures"] for done in (both, neither, alone)]
    assert measures[0] == measures[1]
    evaded = [next(m for m in found if m["name"] == "evaded at once")["rates"]["yes"]["hits"] for found in measures]
    assert evaded[0] > 0
    assert evaded[2] == 0


def test_ose_measures_days_of_flight_and_no_rest_it_does_not_have() -> None:
    """OSE flees day by day and owes no rest after an escape: its answer names days of flight, and has no rows of a
    rest (they showed as 0 half-days, and its days were called hexes); seed 004 keeps its hexes and its rest."""
    names = {}
    for ruleset in ("ose", "explore"):
        question = sim.Question(scenario="pursuit", situation=sim.Chase(pursuers_speed=240), ruleset=ruleset, seed=2)
        names[ruleset] = {m.name for m in sim.summarise(sim.simulate(question, 30))}
    rest = {"rest owed (half-days)", "encounters while resting"}
    assert "days of flight" in names["ose"]
    assert not ({"hexes fled"} | rest) & names["ose"]
    assert {"hexes fled"} | rest <= names["explore"]
    assert "days of flight" not in names["explore"]


def test_give_up_after_is_refused_where_no_side_s_rules_let_the_party_stop(tmp_path: Path) -> None:
    """Only OSE's pursuit lets a party stop: under seed 004's ``--give-up-after`` changed nothing and was taken without
    a word; it is refused, naming the option and why, unless a side's rules read it."""
    refused = run_hexlog("simulate", "pursuit", "--give-up-after", "5", "--n", "3", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.startswith("hexlog: error: --give-up-after does not apply: only OSE's pursuit")
    assert "explore's is odd" in refused.stderr
    assert not refused.stdout
    assert "Traceback" not in refused.stderr
    ose = run_hexlog("simulate", "pursuit", "--ruleset", "ose", "--give-up-after", "5", "--n", "3", cwd=tmp_path)
    assert ose.returncode == 0, ose.stderr
    compared = run_hexlog(
        "simulate", "compare", "pursuit", "--against", "ose", "--give-up-after", "5", "--n", "3", cwd=tmp_path
    )
    assert compared.returncode == 0, compared.stderr  # side B reads it
    neither = run_hexlog(
        "simulate", "compare", "pursuit", "--against-option", "evasion_cap_pct=90", "--give-up-after", "5",
        "--n", "3", cwd=tmp_path,
    )  # fmt: skip
    assert neither.returncode == 2
    assert "--give-up-after does not apply" in neither.stderr


def test_a_trial_follows_no_encounter_so_none_is_offered(tmp_path: Path) -> None:
    """`pursuit start --encounter N` takes encounter N's facts; a trial has no encounter, so the option is not
    offered (naming one was ignored, then refused in every trial)."""
    refused = run_hexlog("simulate", "pursuit", "--n", "5", "--encounter", "1", cwd=tmp_path)
    assert refused.returncode == 2
    assert "No such option" in refused.stderr
    assert "--encounter" not in run_hexlog("simulate", "pursuit", "--help", cwd=tmp_path).stdout


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("--ruleset", "ose", "--magic", "--party-surprised"), "only seed 004's evasion"),
        (("--referee-pct", "10", "--party-surprised"), "only OSE's evasion"),
        (("--magic",), "counts only for a party surprised"),
        (("--ruleset", "ose", "--referee-pct", "10"), "counts only for a party surprised"),
        (("--magic", "--party-surprised", "--pursuers-surprised"), "counts only for a party surprised"),
        (("--magic", "--party-surprised", "--evasion-failed"), "counts only for a party surprised"),
    ],
)
def test_magic_and_the_referee_s_chance_are_refused_where_the_evasion_never_reads_them(
    tmp_path: Path, args: tuple[str, ...], why: str
) -> None:
    """Magic counts under seed 004's evasion, the referee's chance under OSE's, and each only for a party surprised at
    its first roll: elsewhere each changed nothing and was taken without a word; it is refused, naming it and why."""
    refused = run_hexlog("simulate", "pursuit", *args, "--n", "3", cwd=tmp_path)
    assert refused.returncode == 2
    option = "--magic" if "--magic" in args else "--referee-pct"
    assert refused.stderr.startswith(f"hexlog: error: {option} does not apply: ")
    assert why in refused.stderr
    assert not refused.stdout


def test_magic_and_the_referee_s_chance_change_a_surprised_party_s_first_roll(tmp_path: Path) -> None:
    """Where they are read they are taken, and change the chance of evading at once: magic lets a surprised party roll
    as if unsurprised (seed 004), the referee's chance is the surprised party's (OSE)."""
    for ruleset, option in (("explore", ("--magic",)), ("ose", ("--referee-pct", "100"))):
        args = ("simulate", "pursuit", "--ruleset", ruleset, "--party-surprised", "--n", "20", "--json")
        rates = []
        for given in ((), option):
            done = run_hexlog(*args, *given, cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            (side,) = json.loads(done.stdout)["sides"]
            (evaded,) = [m for m in side["measures"] if m["name"] == "evaded at once"]
            rates.append(evaded["rates"]["yes"]["hits"])
        assert rates[0] == 0 < rates[1]


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("--ruleset", "ose", "--terrain", "woods"), "the pursuit under ose reads nothing of woods"),
        (("--ruleset", "ose", "--terrain", "swamp", "--party-speed", "60"), "reads nothing of swamp"),
        (("--castle", "hostile"), "only pursuers faster than the party roll one (pursuers 120, party 120)"),
        (("--castle", "neutral", "--pursuers-speed", "90"), "(pursuers 90, party 120)"),
    ],
)
def test_a_terrain_or_a_castle_the_pursuit_never_reads_is_refused(
    tmp_path: Path, args: tuple[str, ...], why: str
) -> None:
    """OSE's evasion and catch read no terrain and it owes no rest, and a castle force is asked whether it keeps up
    the pursuit only after a catch roll, which only faster pursuers make: there ``--terrain`` and ``--castle`` changed
    nothing and were taken without a word; they are refused, naming the option and why."""
    refused = run_hexlog("simulate", "pursuit", *args, "--n", "3", cwd=tmp_path)
    assert refused.returncode == 2
    option = "--terrain" if "--terrain" in args else "--castle"
    assert refused.stderr.startswith(f"hexlog: error: {option} does not apply: ")
    assert why in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not refused.stdout


def test_a_terrain_and_a_castle_are_taken_where_the_pursuit_reads_them(tmp_path: Path) -> None:
    """Where the refusal says they change nothing they do not (the same trials, outcome for outcome); where they are
    taken (seed 004's woods, a castle force faster than the party, a side that reads them) they do."""
    ose = {"scenario": "pursuit", "ruleset": "ose", "seed": 4}
    plain = sim.simulate(sim.Question(situation=sim.Chase(party_speed=60), **ose), 40)
    assert sim.simulate(sim.Question(situation=sim.Chase(party_speed=60, terrain="woods"), **ose), 40) == plain
    slow = sim.simulate(sim.Question(scenario="pursuit", situation=sim.Chase(), ruleset="explore", seed=4), 40)
    castle = sim.Question(scenario="pursuit", situation=sim.Chase(castle="hostile"), ruleset="explore", seed=4)
    assert sim.simulate(castle, 40) == slow
    for args in (
        ("pursuit", "--terrain", "woods"),
        ("pursuit", "--castle", "hostile", "--party-speed", "60"),
        ("compare", "pursuit", "--ruleset", "ose", "--against", "explore", "--terrain", "woods"),
    ):
        taken = run_hexlog("simulate", *args, "--n", "3", cwd=tmp_path)
        assert taken.returncode == 0, taken.stderr


def test_whether_the_pursuers_are_intelligent_is_not_offered(tmp_path: Path) -> None:
    """Only the encounter of a caught party reads it, and no measure reads that encounter: the outcomes are the same
    either way, so ``--unintelligent`` is not offered (it was taken and changed nothing)."""
    for ruleset in ("explore", "ose"):
        asked = {"scenario": "pursuit", "ruleset": ruleset, "seed": 2}
        caught = sim.simulate(sim.Question(situation=sim.Chase(party_speed=60), **asked), 30)
        mindless = sim.Question(situation=sim.Chase(party_speed=60, intelligent=False), **asked)
        assert any(outcome["caught"] for outcome in caught)
        assert sim.simulate(mindless, 30) == caught
    refused = run_hexlog("simulate", "pursuit", "--unintelligent", "--n", "3", cwd=tmp_path)
    assert refused.returncode == 2
    assert "No such option" in refused.stderr
    assert "--unintelligent" not in run_hexlog("simulate", "pursuit", "--help", cwd=tmp_path).stdout


def test_the_chances_by_terrain_the_rest_reads_are_taken_and_change_its_encounters(tmp_path: Path) -> None:
    """The rest after an escape checks the terrain's encounter chances (tables.lost_encounter, by
    options.lost_encounter_source): a house rule of either was refused as read only by travel and camp; it is taken,
    by ``--option``, ``--against-option`` or ``--rules``, and changes the encounters while resting on the same dice
    (dolmenwood reads a swamp off the map as difficult ground, 3-in-6, as a swamp hex: it found no row and met none
    before ``pursuit.rested`` version 3; the house rule meets one on every face)."""
    (tmp_path / "house.toml").write_text(
        "[tables.lost_encounter.odd_p18]\nswamp = { lost = [1, 2, 3], encounter = [1, 2, 3, 4, 5, 6] }\n"
    )
    args = ("--n", "40", "--pursuers-speed", "150", "--terrain", "swamp", "--seed", "4", "--json")

    def resting(*given: str) -> list[dict[str, object]]:
        done = run_hexlog("simulate", *given, *args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        found = [
            next(m for m in side["measures"] if m["name"] == "encounters while resting")
            for side in json.loads(done.stdout)["sides"]
        ]
        return [{"n": m["n"], "counts": m["counts"]} for m in found]

    (plain,) = resting("pursuit")
    (dolmenwood,) = resting("pursuit", "--option", "lost_encounter_source=dolmenwood")
    (house,) = resting("pursuit", "--rules", "house.toml")
    assert plain["n"] == dolmenwood["n"] == house["n"]
    assert dolmenwood["counts"] != {"0": plain["n"]}
    assert sum(int(met) * times for met, times in dolmenwood["counts"].items()) > 0
    assert plain["counts"] != house["counts"]
    assert resting("compare", "pursuit", "--against-option", "lost_encounter_source=dolmenwood") == [
        plain,
        dolmenwood,
    ]
