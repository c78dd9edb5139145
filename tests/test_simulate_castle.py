"""``hexlog simulate castle``: the real meeting with a castle's garrison, on committed dice, agrees with the exact
chances of its rules (the type die, the disposition, the toll, the joust, the forces' pursuit of a party that flees);
each trial meets a castle of its own; a split over processes changes nothing; what it cannot read is refused."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import pytest

from hexlog.machine import ruleset as rulesets
from hexlog.machine.castle.rules import CastleDemands, CastleTables, Disposition
from hexlog.service import simulation as sim
from hexlog.service import simulation_castle as castle

from .conftest import run_hexlog, simulated_json
from .exact_chances import fits, holds

if TYPE_CHECKING:
    from pathlib import Path

TRIALS = 600
EXPLORE = rulesets.load("explore")
TABLE = EXPLORE.part(CastleTables).castle
DEMANDS = EXPLORE.part(CastleTables).castle_demands or CastleDemands()
assert TABLE is not None


def _outcomes(visit: castle.Visit, seed: int = 5, n: int = TRIALS) -> list[sim.Outcome]:
    return sim.simulate(sim.Question(scenario="castle", situation=visit, ruleset="explore", seed=seed), n)


def test_the_type_and_disposition_follow_the_type_die_and_the_disposition_die() -> None:
    """One face of the type die per type; a type that is always one disposition (patriarch friendly, evil high priest
    hostile) is that, the others hostile on the rules' faces of a d6, else neutral."""
    types = {t: Fraction(1, len(TABLE.types)) for t in TABLE.types}
    disposition: dict[str, Fraction] = dict.fromkeys((d.value for d in Disposition), Fraction(0))
    for name, share in types.items():
        always = TABLE.always.get(name)
        if always is not None:
            disposition[always.value] += share
        else:
            hostile = Fraction(len(TABLE.hostile_on), 6)
            disposition[Disposition.HOSTILE.value] += share * hostile
            disposition[Disposition.NEUTRAL.value] += share * (1 - hostile)
    outcomes = _outcomes(castle.Visit())
    assert fits([o["castle type"] for o in outcomes], types)
    assert fits([o["disposition"] for o in outcomes], disposition)


@pytest.mark.parametrize("disposition", ["hostile", "neutral", "friendly"])
def test_the_forces_pursue_a_fleeing_party_on_their_disposition_s_chance(disposition: str) -> None:
    exact = Fraction(TABLE.pursue_in_6.get(Disposition(disposition), 0), 6)
    outcomes = _outcomes(castle.Visit(castle_type="lord", disposition=disposition, answer="flee"), seed=7)
    if exact == 0:  # nothing is rolled: a note tells it, and no rate of 0 % shows it (and the escape it makes sure of)
        assert all("pursued" not in o and "meeting ended" not in o for o in outcomes)
        return
    assert holds([bool(o["pursued"]) for o in outcomes], exact)
    # a party the forces do not pursue gets away; one they pursue is fled to the pursuit's end
    assert all(o["meeting ended"] == "escaped" for o in outcomes if not o["pursued"])
    assert {o["meeting ended"] for o in outcomes if o["pursued"]} <= {"escaped", "caught"}


def test_a_magic_user_s_toll_is_its_dice_in_thousands_and_a_cleric_s_a_tithe() -> None:
    assert DEMANDS.magic_user is not None
    assert DEMANDS.cleric is not None
    per, sides = DEMANDS.magic_user.toll_gp_per_point, int(DEMANDS.magic_user.toll_dice.split("d")[1])
    outcomes = _outcomes(castle.Visit(castle_type="wizard"), n=400)
    assert fits([o["toll (gp)"] for o in outcomes], {per * face: Fraction(1, sides) for face in range(1, sides + 1)})
    # a cleric's castle, met among the others the type die names, asks the tithe of the worth given
    tithe = 1234 * DEMANDS.cleric.tithe_pct // 100
    mixed = _outcomes(castle.Visit(worth=1234), n=60)
    clerics = [o["toll (gp)"] for o in mixed if o["castle type"] in {"patriarch", "evil_high_priest"}]
    assert clerics
    assert set(clerics) == {tithe}
    # given a cleric's castle, no die decides it: a note tells it, and the measure is not shown
    assert all("toll (gp)" not in o for o in _outcomes(castle.Visit(castle_type="patriarch", worth=1234), n=5))
    assert f": {tithe} gp" in " ".join(
        castle.CASTLE_SCENARIO.notes(castle.Visit(castle_type="patriarch", worth=1234), EXPLORE)
    )


def test_the_joust_is_even() -> None:
    """The joust is rolled on a d6: 1-3 the castle's champion, 4-6 the party's fighter."""
    outcomes = _outcomes(castle.Visit(castle_type="superhero"), seed=9)
    assert holds([bool(o["joust won"]) for o in outcomes], Fraction(1, 2))
    assert all(o["meeting ended"] == ("jousted_won" if o["joust won"] else "jousted_lost") for o in outcomes)


def test_a_castle_trial_is_the_same_first_on_its_campaign_or_after_others() -> None:
    """Each trial meets a castle of its own: what an earlier trial's dice made of its castle is not the next's."""
    question = sim.Question(scenario="castle", situation=castle.Visit(answer="flee"), ruleset="explore", seed=4)
    together = sim.trials(question, range(8))
    assert [sim.trials(question, [i])[0] for i in range(8)] == together


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--answer", "bow"), "--answer is yield or flee, not 'bow'"),
        (("--type", "lord", "--worth", "100"), "--worth does not apply"),
        (("--riders", "3"), "--riders does not apply"),
        (("--type", "king"), "castle type 'king' is not one of lord"),
        (("--disposition", "angry"), "disposition 'angry' is not one of hostile"),
        (("--type", "patriarch", "--disposition", "hostile"), "a patriarch castle is always friendly, not hostile"),
        (("--type", "patriarch", "--answer", "flee", "--speed", "300"), "--speed does not apply: only a pursuit"),
        (
            ("--option", "tables.wilderness_pursuit.catch_on=[1]"),
            "no trial of simulate castle plays in this situation (it plays campaign, castle, map)",
        ),
        (
            ("--type", "patriarch", "--answer", "flee", "--option", "surprise_on=3"),
            "options.surprise_on is read by encounter, which no trial of simulate castle plays in this situation",
        ),
        (
            ("--type", "lord", "--answer", "flee", "--option", "evasion_rules=ose", "--riders", "3"),
            "--riders does not apply: only seed 004's pursuit reads it",
        ),
        (("--ruleset", "ose"), "castle"),
    ],
)
def test_what_a_castle_cannot_read_is_refused(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    done = run_hexlog("simulate", "castle", "--n", "3", *args, cwd=tmp_path)
    assert done.returncode != 0
    assert named in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "gone", "told"),
    [
        (("--type", "wizard"), {"meeting ended"}, "every meeting ends paid"),
        (("--type", "patriarch"), {"meeting ended", "toll (gp)"}, "a tithe of 10% of the party's 800 gp: 80 gp"),
        (("--type", "patriarch", "--answer", "flee"), {"pursued", "meeting ended"}, "never pursue a party that flees"),
        (
            ("--type", "lord", "--disposition", "neutral", "--answer", "flee", "--option", "evasion_rules=ose"),
            set(),
            "",
        ),
    ],
)
def test_an_outcome_the_situation_decides_alone_is_told_not_rated(
    tmp_path: Path, args: tuple[str, ...], gone: set[str], told: str
) -> None:
    """A castle that is not a fighter's is paid every time the party yields, a cleric's tithe is the worth's share,
    a friendly castle's forces never pursue: no die decides these, so a note tells them and no rate of 0 or 100 %
    shows them; where a die decides (a neutral castle's forces pursue on 1 in 6), the measures are shown."""
    result = simulated_json("simulate", "castle", "--n", "6", *args, cwd=tmp_path)
    (side,) = result["sides"]
    names = {m["name"] for m in side["measures"]}
    assert not gone & names
    if told:
        assert any(told in note for note in side["notes"])
    else:
        assert not side["notes"]
        assert {"pursued", "meeting ended"} <= names


def test_simulate_castle_gives_on_two_processes_what_it_gives_on_one(tmp_path: Path) -> None:
    result = simulated_json("simulate", "castle", "--answer", "flee", "--n", "24", "--seed", "3", cwd=tmp_path)
    names = {m["name"] for m in result["sides"][0]["measures"]}
    assert {"castle type", "disposition", "pursued", "meeting ended"} <= names


def test_the_castle_s_help_names_what_it_measures() -> None:
    """The one line of help names the measures a trial gives (no demand: the castle's kind, which its type gives,
    decides it, and no measure reads it)."""
    title = castle.CASTLE_SCENARIO.title
    assert "demand" not in title
    for measured in ("type", "disposition", "toll", "joust", "pursue", "meeting ends"):
        assert measured in title


def test_a_house_rule_of_the_flight_is_taken_where_the_party_flees(tmp_path: Path) -> None:
    """Fleeing forces that may pursue, a trial plays the pursuit: its rules, and whose pursuit it is, are read."""
    for rule in ("tables.wilderness_pursuit.catch_on=[1]", "evasion_rules=ose"):
        result = simulated_json(
            "simulate", "castle", "--type", "lord", "--answer", "flee", "--option", rule, "--n", "4", cwd=tmp_path
        )
        assert {m["name"] for m in result["sides"][0]["measures"]} >= {"pursued", "meeting ended"}
