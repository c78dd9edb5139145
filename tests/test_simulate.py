"""``hexlog simulate``: the real procedures asked many times agree with the exact chances of their rules; a split
over processes changes nothing; the plot is a PNG; ``compare`` puts two sides beside each other."""

from __future__ import annotations

import json
import struct
import sys
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binomtest, chisquare

from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter import machine as encounter_machine
from hexlog.machine.encounter import opening
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables
from hexlog.service import cli_simulate
from hexlog.service import simulation as sim
from hexlog.service.simulation_camp import Night
from hexlog.service.simulation_castle import Visit
from hexlog.service.simulation_chase import Pursued

from .conftest import IN_PROCESS, run_hexlog, simulated_json

P_MIN = 0.001
TRIALS = 600
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def ose_encounters() -> list[sim.Outcome]:
    """600 OSE dungeon encounters, neither side aware, seed 7."""
    question = sim.Question(scenario="encounter", situation=enc.StartEncounter(), ruleset="ose", seed=7)
    return sim.simulate(question, TRIALS)


@pytest.mark.parametrize("side", ["party surprised", "monsters surprised"])
def test_ose_surprise_rate_is_one_in_three_per_side(ose_encounters: list[sim.Outcome], side: str) -> None:
    """OSE: each side is surprised on 1-2 on a d6: the rate's 95 % interval holds 1/3, and a binomial test agrees."""
    (measure,) = [m for m in sim.summarise(ose_encounters) if m.name == side]
    (rate,) = measure.rates
    assert rate.n == TRIALS
    low, high = rate.interval
    assert low < 1 / 3 < high
    assert binomtest(rate.hits, rate.n, 1 / 3).pvalue > P_MIN


def test_ose_dungeon_distance_is_2d6_times_ten_feet(ose_encounters: list[sim.Outcome]) -> None:
    """The distance the procedure rolled follows 2d6 x 10 ft exactly (chi-square)."""
    exact: dict[int, Fraction] = {}
    for a, b in product(range(1, 7), repeat=2):
        exact[(a + b) * 10] = exact.get((a + b) * 10, Fraction(0)) + Fraction(1, 36)
    values = [o["distance (ft)"] for o in ose_encounters]
    assert set(values) <= set(exact)
    observed = [values.count(v) for v in sorted(exact)]
    expected = [float(exact[v]) * len(values) for v in sorted(exact)]
    assert chisquare(observed, expected).pvalue > P_MIN


def test_an_aware_party_is_never_surprised() -> None:
    """A rule's certainty shows as a rate of 0 with an interval that still admits small rates."""
    question = sim.Question(scenario="encounter", situation=enc.StartEncounter(party_aware=True), ruleset="ose", seed=3)
    (measure,) = [m for m in sim.summarise(sim.simulate(question, 40)) if m.name == "party surprised"]
    assert measure.rates[0].hits == 0
    assert measure.rates[0].interval[1] > 0


def test_two_processes_give_what_one_gives() -> None:
    """Each trial's dice derive from the seed and its index: any split over processes gives the same outcomes."""
    question = sim.Question(scenario="encounter", situation=enc.StartEncounter(), ruleset="ose", seed=11)
    one = sim.simulate(question, 30, jobs=1)
    assert sim.simulate(question, 30, jobs=2) == one
    other = sim.Question(scenario="encounter", situation=enc.StartEncounter(), ruleset="ose", seed=12)
    assert sim.simulate(other, 30, jobs=1) != one


@pytest.mark.parametrize("scenario", sorted(sim.SCENARIOS))
def test_a_trial_is_the_same_first_on_its_campaign_or_after_others(scenario: str) -> None:
    """A trial's outcome is its seed's and index's alone: each trial played alone is the trial played after those before
    it on one campaign (a journey's rest days once carried over, so the split over processes changed the answer)."""
    situations = {
        "encounter": enc.StartEncounter(),
        "travel": sim.Journey(days=3),
        "dungeon": sim.Delve(turns=6),
        "pursuit": sim.Chase(pursuers_speed=150),
        "camp": Night(nights=2),
        "castle": Visit(answer="flee"),
        "chase": Pursued(gap_ft=60, fleeing_ft=90, pursuers_ft=120, hungry=True, drop=("food", "food")),
    }
    question = sim.Question(
        scenario=scenario, situation=situations[scenario], ruleset=sim.SCENARIOS[scenario].ruleset, seed=4
    )
    together = sim.trials(question, range(6))
    assert [sim.trials(question, [i])[0] for i in range(6)] == together


def test_a_short_journey_never_owes_a_rest_day() -> None:
    """A rest is owed after 6 travel days (seed 004): journeys of 3 days, one after another, never rest."""
    question = sim.Question(scenario="travel", situation=sim.Journey(days=3), ruleset="explore", seed=2)
    assert {o["rest days"] for o in sim.trials(question, range(6))} == {0}


def test_jobs_2_prints_what_jobs_1_prints(tmp_path: Path) -> None:
    result = simulated_json("simulate", "dungeon", "--n", "6", "--turns", "6", "--seed", "5", cwd=tmp_path)
    assert result["scenario"] == "dungeon"
    assert result["n"] == 6
    assert result["sides"][0]["ruleset"] == "explore"
    names = [m["name"] for m in result["sides"][0]["measures"]]
    assert "wandering monsters met" in names


def test_the_plot_is_a_png(tmp_path: Path) -> None:
    """``--plot`` writes a PNG (its signature, a header of a sensible size) and says so."""
    plot = tmp_path / "surprise.png"
    done = run_hexlog("simulate", "encounter", "--n", "30", "--plot", str(plot), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = plot.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 600
    assert height >= 300
    assert len(data) > 10_000
    assert f"plot written to {plot}" in done.stdout


def test_a_plot_that_cannot_be_written_is_refused_before_the_trials(tmp_path: Path) -> None:
    """A name not ending .png, in a folder that is not there, naming a folder or a link to nothing, is refused at once
    (exit 2, nothing run)."""
    (tmp_path / "taken.png").mkdir()
    (tmp_path / "dangling.png").symlink_to(tmp_path / "gone" / "chart.png")
    for plot, words in (
        ("chart.svg", "give a name ending .png"),
        ("missing/chart.png", "there is no folder"),
        ("taken.png", "it is a folder"),
        ("dangling.png", "which is not there"),
    ):
        refused = run_hexlog("simulate", "encounter", "--n", "5", "--plot", str(tmp_path / plot), cwd=tmp_path)
        assert refused.returncode == 2
        assert words in refused.stderr
        assert refused.stdout == ""
        assert not (tmp_path / plot).is_file()


def test_a_plot_over_a_file_hexlog_did_not_write_is_refused_before_the_trials(tmp_path: Path) -> None:
    """``--plot notes.png`` wrote over whatever was there (a picture of the user's, a file named for the database):
    a file that is not a plot hexlog wrote is refused naming it (exit 2, nothing run, the file as it was), as are
    the database and its key file by name; a plot hexlog wrote before is written over, as ``export --out`` writes
    over a file without asking for ``--force``."""
    theirs = tmp_path / "theirs.png"
    theirs.write_bytes(PNG_SIGNATURE + b"\x00\x00\x00\rIHDR" + bytes(17) + b"not hexlog's")
    text = tmp_path / "notes.png"
    text.write_text("my notes\n")
    database = tmp_path / "game.png"
    run = run_hexlog("init", "--db", str(database), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    kept = {p: p.read_bytes() for p in (theirs, text, database)}
    for plot, env, words in (
        (theirs, {}, "a file is there that is not a plot hexlog wrote, and it would be lost"),
        (text, {}, "a file is there that is not a plot hexlog wrote"),
        (database, {"HEXLOG_DB": str(database)}, f"it is {database}, in which the database keeps its log"),
        (tmp_path / "keys.png", {"HEXLOG_KEY_FILE": str(tmp_path / "keys.png")}, f"it is {tmp_path / 'keys.png'}, in"),
    ):
        refused = run_hexlog("simulate", "encounter", "--n", "5", "--plot", str(plot), cwd=tmp_path, env=env)
        assert refused.returncode == 2, refused.stderr
        assert f"cannot write the plot to {plot}: {words}" in " ".join(refused.stderr.split())
        assert refused.stdout == ""
    assert {p: p.read_bytes() for p in kept} == kept
    assert not (tmp_path / "keys.png").exists()  # a key file not made yet is not made a plot
    ours = tmp_path / "ours.png"
    for _ in range(2):  # a plot hexlog wrote is written over
        done = run_hexlog("simulate", "encounter", "--n", "5", "--plot", str(ours), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert ours.read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.skipif(
    not Path("/dev/full").exists(), reason="needs /dev/full, a file whose every write fails (Linux has it)"
)
def test_a_plot_whose_write_fails_after_the_trials_says_where_and_loses_no_answer(tmp_path: Path) -> None:
    """A write that fails after the trials (a full disk, here a link to /dev/full) says where, exit 1, and the answer
    was printed first."""
    taken = tmp_path / "full.png"
    taken.symlink_to("/dev/full")
    failed = run_hexlog("simulate", "encounter", "--n", "5", "--json", "--plot", str(taken), cwd=tmp_path)
    assert failed.returncode == 1
    assert f"cannot write the plot to {taken}" in failed.stderr
    assert "Traceback" not in failed.stderr
    assert json.loads(failed.stdout)["n"] == 5


def test_json_is_printed_as_it_is(tmp_path: Path) -> None:
    """Text in the situation reaches the JSON as given: no console markup or emoji code is read in it."""
    done = run_hexlog("simulate", "encounter", "--n", "3", "--json", "--name", ":thumbs_up: [b]x[/b]", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["situation"]["name"] == ":thumbs_up: [b]x[/b]"


def test_a_run_over_the_most_trials_is_refused(tmp_path: Path) -> None:
    refused = run_hexlog("simulate", "encounter", "--n", "100000000000", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--n" in refused.stderr
    assert "10000000" in refused.stderr


@pytest.mark.parametrize(("what", "option", "most"), [("travel", "--days", 366), ("dungeon", "--turns", 1440)])
def test_a_trial_longer_than_the_longest_is_refused_naming_the_option(
    tmp_path: Path, what: str, option: str, most: int
) -> None:
    """A trial is held whole while it runs: one without a bound would grow until the machine runs out of memory."""
    refused = run_hexlog("simulate", what, option, str(most + 1), "--n", "1", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert f"Invalid value for '{option}': Input should be less than or equal to {most}" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_the_table_names_the_rules_and_each_measure(tmp_path: Path) -> None:
    done = run_hexlog("simulate", "travel", "--terrain", "swamp", "--days", "2", "--n", "4", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "simulate travel: 4 trials, seed 1" in done.stdout
    assert "[explore]" in done.stdout
    for name in ("days lost", "ever lost", "encounters", "hexes travelled"):
        assert name in done.stdout


def test_compare_puts_two_sides_beside_each_other(tmp_path: Path) -> None:
    done = run_hexlog(
        "simulate", "compare", "encounter", "--n", "20", "--against-option", "surprise_on=3", "--json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    a, b = json.loads(done.stdout)["sides"]
    assert a["ruleset"] == b["ruleset"] == "ose"
    assert a["rules_hash"] != b["rules_hash"]
    assert (a["house_rules"], b["house_rules"]) == ({}, {"options": {"surprise_on": 3}})  # what makes B other
    surprised = [
        next(m for m in side["measures"] if m["name"] == "party surprised")["rates"]["yes"]["hits"] for side in (a, b)
    ]
    assert surprised[0] <= surprised[1]  # the same dice: every face that surprised on 1-2 surprises on 1-3


def test_compare_refuses_two_equal_sides_and_unknown_rules(tmp_path: Path) -> None:
    same = run_hexlog("simulate", "compare", "encounter", "--n", "5", cwd=tmp_path)
    assert same.returncode == 2
    assert "two different sides" in same.stderr
    unknown = run_hexlog("simulate", "encounter", "--n", "5", "--option", "no_such_option=1", cwd=tmp_path)
    assert unknown.returncode != 0
    assert "no_such_option" in unknown.stderr
    assert not unknown.stdout


def test_a_house_rule_given_as_an_option_reaches_the_procedure(tmp_path: Path) -> None:
    """``--option tables.TABLE.KEY=VALUE`` is a house rule the procedure reads: a wandering monster on every face
    meets one at every check."""
    done = run_hexlog(
        "simulate",
        "dungeon",
        "--n",
        "5",
        "--turns",
        "4",
        "--option",
        "tables.dungeon.wandering_on=[1, 2, 3, 4, 5, 6]",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    (side,) = json.loads(done.stdout)["sides"]
    measures = {m["name"]: m for m in side["measures"]}
    assert measures["any wandering monster"]["rates"]["yes"]["hits"] == 5
    assert measures["wandering monsters met"]["mean"] >= 2


def test_the_encounter_offers_no_monster_speed_which_no_trial_reads(tmp_path: Path) -> None:
    """A trial never evades, so the monsters' speed decides nothing: the option is not offered (it was, and did
    nothing), nor shown in the situation; the pursuit keeps the pursuers' speed, which it reads."""
    refused = run_hexlog("simulate", "encounter", "--n", "3", "--monster-speed", "30", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--monster-speed" in refused.stderr
    assert "Traceback" not in refused.stderr
    compared = run_hexlog(
        "simulate", "compare", "encounter", "--against", "explore", "--n", "3", "--monster-speed", "30", cwd=tmp_path
    )
    assert compared.returncode == 2
    done = run_hexlog("simulate", "encounter", "--n", "3", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "monster_speed" not in json.loads(done.stdout)["situation"]
    pursuit = run_hexlog("simulate", "pursuit", "--n", "3", "--pursuers-speed", "150", "--json", cwd=tmp_path)
    assert pursuit.returncode == 0, pursuit.stderr
    assert json.loads(pursuit.stdout)["situation"]["pursuers_speed"] == 150


@pytest.mark.parametrize(
    ("overrides", "name"),
    [({"options": {"encirclement": "always"}}, sim.ENCIRCLED), ({}, sim.MAY_BE_ENCIRCLED)],
    ids=["always", "referee"],
)
def test_the_number_of_monsters_decides_whether_a_party_surprised_in_the_open_is_encircled(
    overrides: dict[str, Any], name: str
) -> None:
    """OSE §2.2: a party surprised in the wilderness by 3 or more monsters may be encircled. ``--monsters`` acts in the
    encounter through that rule, and the situation decides it, not the dice: 2 monsters never encircle (no trial
    measures it, a note says why, where a rate of 0 % would read as a chance never taken), and 3 encircle a party as
    often as they surprise it, a rate of every trial (not 100 % of those surprised, which would read as a chance
    always taken). Where the rules leave the call to the referee (ose's encirclement = "referee") no trial makes it:
    the measure is how often the referee may, the same trials."""
    rules = rulesets.load("ose", overrides)
    for count in (2, 3):
        situation = enc.StartEncounter(setting="wilderness", monster_count=count)
        question = sim.Question(scenario="encounter", situation=situation, ruleset="ose", overrides=overrides, seed=5)
        outcomes = sim.simulate(question, 60)
        summary = {m.name: m for m in sim.summarise(outcomes)}
        assert sim.ENCIRCLED not in summary or name == sim.ENCIRCLED
        assert sim.MAY_BE_ENCIRCLED not in summary or name == sim.MAY_BE_ENCIRCLED
        (note,) = sim.SCENARIOS["encounter"].notes(situation, rules)
        if count == 2:
            assert name not in summary
            assert note.startswith("2 monsters cannot encircle a party (at least 3 can)")
            continue
        surprised = sum(bool(o["party surprised"]) for o in outcomes)
        assert 0 < surprised < 60
        assert (summary[name].n, summary[name].rates[0].hits) == (60, surprised)
        assert f"'{name}' is how often" in note
    dungeon = enc.StartEncounter(monster_count=3)
    assert sim.SCENARIOS["encounter"].notes(dungeon, rules) == ()
    outcomes = sim.simulate(sim.Question(scenario="encounter", situation=dungeon, ruleset="ose", seed=5), 30)
    assert all(sim.ENCIRCLED not in o and sim.MAY_BE_ENCIRCLED not in o for o in outcomes)  # not in the open


def test_what_the_situation_decides_of_encirclement_is_a_note_not_a_rate(tmp_path: Path) -> None:
    """A designer reading the answer sees the monsters' number decide encirclement in a sentence, in the table's
    text and in ``--json`` alike, and no rate of 0 % or 100 % for it."""
    args = ("simulate", "encounter", "--setting", "wilderness", "--n", "40", "--seed", "2")
    few = run_hexlog(*args, "--monsters", "2", cwd=tmp_path)
    assert few.returncode == 0, few.stderr
    assert "note: 2 monsters cannot encircle a party (at least 3 can)" in few.stdout
    assert "encircled" not in few.stdout.split("note:")[0]
    told = json.loads(run_hexlog(*args, "--monsters", "2", "--json", cwd=tmp_path).stdout)["sides"][0]
    assert [m["name"] for m in told["measures"] if "encircled" in m["name"]] == []
    assert told["notes"][0].startswith("2 monsters cannot encircle a party")
    enough = json.loads(run_hexlog(*args, "--monsters", "4", "--json", cwd=tmp_path).stdout)["sides"][0]
    measures = {m["name"]: m for m in enough["measures"]}
    may = measures[sim.MAY_BE_ENCIRCLED]
    assert may["n"] == 40
    assert may["rates"]["yes"]["hits"] == measures["party surprised"]["rates"]["yes"]["hits"]
    assert 0 < may["rates"]["yes"]["rate"] < 1
    assert "may encircle a party they surprise in the open, at the referee's call" in enough["notes"][0]


def test_compare_sets_side_b_in_the_setting_its_rules_name(tmp_path: Path) -> None:
    """OSE's wilderness is AD&D's outdoors: ``--against-setting`` gives side B's setting, so the two can be set side by
    side (compare took one situation for both, and AD&D refused OSE's word); two processes print what one prints."""
    args = ("simulate", "compare", "encounter", "--against", "adnd", "--setting", "wilderness")
    args += ("--against-setting", "outdoors", "--n", "8", "--seed", "3")
    result = simulated_json(*args, cwd=tmp_path)
    assert result["situation"]["setting"] == "wilderness"
    a, b = result["sides"]
    assert (a["ruleset"], b["ruleset"], b["situation"]["setting"]) == ("ose", "adnd", "outdoors")
    assert "situation" not in a  # A's is the question's own
    assert {m["name"] for m in a["measures"]} >= {"distance (ft)"}  # OSE's yards beside AD&D's feet, in feet
    table = run_hexlog(*args, cwd=tmp_path)
    assert table.returncode == 0, table.stderr
    assert "A in wilderness, B in outdoors" in table.stdout
    same_rules = run_hexlog(
        "simulate", "compare", "encounter", "--against-setting", "wilderness", "--n", "4", cwd=tmp_path
    )
    assert same_rules.returncode == 0, same_rules.stderr  # one ruleset in two settings is two sides


def test_compare_sets_distances_in_two_units_side_by_side_in_feet(tmp_path: Path) -> None:
    """OSE measures the wilderness distance in yards, AD&D the outdoor one in feet: compare shows one distance, in
    feet, on both sides (it showed two measures, each with one side empty, nothing side by side); A's yards are
    its trials' own times three."""
    common = ("--setting", "wilderness", "--n", "12", "--seed", "3")
    result = simulated_json(
        "simulate", "compare", "encounter", "--against", "adnd", "--against-setting", "outdoors", *common, cwd=tmp_path
    )
    names = [{m["name"] for m in side["measures"] if m["name"].startswith("distance")} for side in result["sides"]]
    assert names == [{"distance (ft)"}, {"distance (ft)"}]
    alone = simulated_json("simulate", "encounter", *common, cwd=tmp_path)
    (yards,) = [m for m in alone["sides"][0]["measures"] if m["name"] == "distance (yd)"]
    (feet,) = [m for m in result["sides"][0]["measures"] if m["name"] == "distance (ft)"]
    assert feet["mean"] == pytest.approx(3 * yards["mean"])
    assert feet["counts"] == {str(3 * int(value)): count for value, count in yards["counts"].items()}
    table = run_hexlog(
        "simulate",
        "compare",
        "encounter",
        "--against",
        "adnd",
        "--against-setting",
        "outdoors",
        *common,
        cwd=tmp_path,
    )
    assert table.returncode == 0, table.stderr
    assert "(yd)" not in table.stdout
    assert table.stdout.count("(ft)") == 1  # one measure (its name may wrap in a narrow table)
    same_unit = sim.in_common_units([[{"distance (yd)": 40}], [{"distance (yd)": None}]])
    assert same_unit == [[{"distance (yd)": 40}], [{"distance (yd)": None}]]  # one unit: as it is


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ((), "give side B's setting with --against-setting"),
        (("--against-setting", "moon"), "setting 'moon' is not one of the adnd settings: indoors, outdoors"),
    ],
)
def test_compare_refuses_a_setting_side_b_does_not_know_before_any_trial(
    tmp_path: Path, extra: tuple[str, ...], words: str
) -> None:
    """A setting B's rules do not know is refused at once, naming the side, its rules and the settings they know."""
    refused = run_hexlog(
        "simulate",
        "compare",
        "encounter",
        "--against",
        "adnd",
        "--setting",
        "wilderness",
        *extra,
        "--n",
        "5",
        cwd=tmp_path,
    )
    assert refused.returncode == 2
    assert "side B (adnd): setting" in refused.stderr
    assert words in refused.stderr
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "travel", "--terrain", "swamp", "--days", "7", "--n", "50"),
        ("simulate", "compare", "encounter", "--against", "ose", "--n", "5"),
    ],
    ids=["travel", "compare"],
)
@pytest.mark.skipif(not IN_PROCESS, reason="matplotlib is made missing in this process")
def test_a_plot_without_matplotlib_is_refused_before_any_trial(tmp_path: Path, monkeypatch, args) -> None:
    """matplotlib missing: the one line naming the extra, exit 2, and no trial run (nothing printed, no file)."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # its import fails, as where it is not installed
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)

    def no_trial(*_args: object, **_kwargs: object) -> None:
        pytest.fail("a trial ran")

    monkeypatch.setattr(cli_simulate, "_run", no_trial)
    refused = run_hexlog(*args, "--plot", "chart.png", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr == "hexlog: error: --plot needs matplotlib: pip install 'hexlog[plot]'\n"
    assert not (tmp_path / "chart.png").exists()


@pytest.mark.parametrize(
    ("args", "where"),
    [(("simulate", "travel"), ""), (("simulate", "compare", "travel", "--against", "ose"), "side A (explore): ")],
    ids=["travel", "compare"],
)
def test_a_terrain_the_rules_do_not_know_is_refused_naming_the_option_and_the_terrains(tmp_path: Path, args, where):
    refused = run_hexlog(*args, "--terrain", "lava", "--n", "5", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stdout == ""
    said = refused.stderr.removeprefix("hexlog: error: ")
    assert said.startswith(f"{where}--terrain 'lava' is not one the rules know: bog, boggy_forest, ")
    assert "swamp" in said
    assert "hex 0,0" not in said


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (("simulate", "travel", "--ruleset", "adnd"), ""),
        (("simulate", "compare", "travel", "--against", "adnd"), "side B (adnd): "),
    ],
    ids=["travel", "compare"],
)
def test_travel_under_rules_without_travel_tables_is_refused_for_that_not_for_the_default_terrain(
    tmp_path: Path, args, where
):
    """adnd has no travel tables: the refusal says so, as under ose, and never blames a --terrain the user did not
    give (the default meadow) nor a hex it never drew."""
    refused = run_hexlog(*args, "--n", "5", cwd=tmp_path)
    assert refused.returncode == 1
    assert refused.stdout == ""
    said = refused.stderr.removeprefix("hexlog: error: ")
    assert said.startswith(
        f"{where}travel: 'start' refused in phase IDLE: the rules in force (adnd) have no travel tables ("
    )
    assert "--terrain" not in said
    assert "meadow" not in said


@pytest.mark.parametrize("ruleset", ["ose", "adnd", "explore"])
def test_first_to_act_is_the_side_surprise_favours_whatever_the_rules(tmp_path: Path, ruleset: str) -> None:
    """A party always surprised by monsters never surprised: the monsters act first in every trial, whether the
    rules give them a free round (OSE), the segments the party loses (AD&D) or a free action (explore); the rate's
    interval ends at 1 exactly."""
    result = simulated_json(
        "simulate", "encounter", "--ruleset", ruleset, "--party-surprise-on", "6", "--monsters-surprise-on", "0",
        "--n", "60", "--seed", "3", cwd=tmp_path,
    )  # fmt: skip
    measures = {m["name"]: m for m in result["sides"][0]["measures"]}
    assert measures["party surprised"]["rates"]["yes"]["hits"] == 60
    first = measures["first to act"]
    assert first["counts"] == {"monsters": 60}
    assert first["rates"]["monsters"]["ci95"][1] == 1.0


def test_a_rate_at_none_or_all_has_its_interval_end_there_exactly() -> None:
    for n in (1, 7, 20000, 99991):
        assert sim.wilson(n, n)[1] == 1.0
        assert sim.wilson(0, n)[0] == 0.0
        low, high = sim.wilson(n // 2, n)
        assert 0.0 < low < 0.5 <= high < 1.0 or n == 1


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc, a folder that takes no file")
def test_a_plot_in_a_folder_that_takes_no_file_is_refused_before_any_trial(tmp_path: Path) -> None:
    refused = run_hexlog("simulate", "encounter", "--n", "5", "--plot", "/proc/hexlog.png", cwd=tmp_path)
    assert refused.returncode == 2
    assert "cannot write the plot to /proc/hexlog.png" in refused.stderr
    assert refused.stdout == ""


class _Axes:
    """What a panel draws, recorded."""

    def __init__(self) -> None:
        self.bars: list[tuple[list[float], str]] = []

    def bar(self, xs: list[float], _ys: list[float], **kwargs: object) -> None:
        self.bars.append((list(xs), str(kwargs["color"])))

    def __getattr__(self, _name: str) -> object:
        return lambda *_args, **_kwargs: None


def test_a_panel_of_a_measure_only_side_b_has_stands_its_bars_on_their_ticks_in_bs_colour() -> None:
    pytest.importorskip("matplotlib")
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    a = sim.summarise([{"caught": True}, {"caught": False}])
    b = sim.summarise([{"caught": True, "stopped": True}, {"caught": False, "stopped": False}])
    alone, both = _Axes(), _Axes()
    simulation_plot._panel(alone, "stopped", [("A", a), ("B", b)])
    simulation_plot._panel(both, "caught", [("A", a), ("B", b)])
    assert alone.bars == [([0.0], "C1")]
    assert [colour for _, colour in both.bars] == ["C0", "C1"]
    assert both.bars[0][0][0] < 0.0 < both.bars[1][0][0]


def test_a_number_both_sides_give_lists_its_values_in_order_in_the_table_and_the_plot() -> None:
    """Side B's values that side A never gave stand among A's in numeric order, in the table's rows and on the
    plot's axis (they came after all of A's: 10, 30, 20)."""
    a = sim.summarise([{"distance (ft)": 10}, {"distance (ft)": 30}])
    b = sim.summarise([{"distance (ft)": 20}, {"distance (ft)": 30}])
    table = cli_simulate._table("t", [("A", a), ("B", b)], 2)
    assert list(table.columns[1].cells) == ["mean", "= 10", "= 20", "= 30"]
    pytest.importorskip("matplotlib")
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    ticks: list[list[str]] = []

    class Axes(_Axes):
        def set_xticklabels(self, labels: list[str], **_kwargs: object) -> None:
            ticks.append(list(labels))

    simulation_plot._panel(Axes(), "distance (ft)", [("A", a), ("B", b)])
    assert ticks == [["10", "20", "30"]]


def _settings(ruleset: str) -> list[str]:
    return ["", *rulesets.load(ruleset).part(EncounterTables).distance]


@pytest.mark.parametrize(
    ("ruleset", "setting", "encirclement"),
    [
        (ruleset, setting, encirclement)
        for ruleset in ("ose", "explore", "adnd")
        for setting in _settings(ruleset)
        for encirclement in (("always", "referee") if ruleset == "ose" else ("",))  # the others have no such option
    ],
)
def test_the_simulation_measures_encirclement_where_the_encounter_encircles(
    ruleset: str, setting: str, encirclement: str
) -> None:
    """Which situations measure encirclement is the encounter's own condition (``machine.encircles``, of the setting
    its start names: the ruleset's first when it names none), not a restatement of it: every trial measures it where a
    party the monsters surprise is encircled (or may be, at the referee's call), and no trial where none ever is."""
    overrides = {"options": {"encirclement": encirclement}} if encirclement else {}
    rules = rulesets.load(ruleset, overrides)
    options = rules.part(EncounterOptions)
    for count in (2, 3):
        situation = enc.StartEncounter(setting=setting, monster_count=count)
        question = sim.Question(scenario="encounter", situation=situation, ruleset=ruleset, overrides=overrides)
        outcomes = sim.simulate(question, 12)
        names = (sim.ENCIRCLED, sim.MAY_BE_ENCIRCLED)
        measured = [any(name in o for name in names) for o in outcomes]
        engine = encounter_machine.encircles(options, opening.setting_named(rules, setting), count)
        assert measured == [engine] * len(outcomes), (ruleset, setting, count)
        assert sim.SCENARIOS["encounter"].measure([], situation, rules) != {} or not engine


def test_rules_that_never_encircle_a_party_have_no_encirclement_measure() -> None:
    """AD&D encircles nobody (surrounded_at_monsters = 0): its trials in the open do not measure encirclement (they
    showed a rate of 0 %, as if the monsters had a chance and never took it); OSE's, on the same dice, do (how often
    the referee may encircle)."""
    situations = {"adnd": "outdoors", "ose": "wilderness"}
    measured = {}
    for ruleset, setting in situations.items():
        situation = enc.StartEncounter(setting=setting, monster_count=3)
        outcomes = sim.simulate(sim.Question(scenario="encounter", situation=situation, ruleset=ruleset, seed=5), 30)
        assert any(o["party surprised"] for o in outcomes)
        measured[ruleset] = [m.name for m in sim.summarise(outcomes)]
    assert sim.ENCIRCLED not in measured["adnd"]
    assert sim.MAY_BE_ENCIRCLED not in measured["adnd"]
    assert sim.MAY_BE_ENCIRCLED in measured["ose"]  # ose leaves the call to the referee


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (("--against-option", "surprise_on=9"), 2, "side B (ose): options.surprise_on: 9 is out of range"),
        (
            ("--option", "no_such_option=1", "--against", "adnd"),
            2,
            "side A (ose): unknown key 'options.no_such_option'",
        ),
        (("--against", "no_such_rules"), 2, "side B (no_such_rules): unknown ruleset 'no_such_rules'"),
    ],
    ids=["b-option", "a-option", "b-ruleset"],
)
def test_compare_names_the_side_whose_rules_are_refused(
    tmp_path: Path, args: tuple[str, ...], code: int, words: str
) -> None:
    """Two sides, two sets of rules: a refused one is named by its side (the message did not say whether --option
    or --against-option was wrong)."""
    refused = run_hexlog("simulate", "compare", "encounter", "--n", "3", *args, cwd=tmp_path)
    assert refused.returncode == code
    assert refused.stderr.startswith(f"hexlog: error: {words}")
    assert not refused.stdout


def test_compare_names_the_side_whose_rules_have_no_such_procedure(tmp_path: Path) -> None:
    """A procedure side B's rules do not have is refused naming side B, before any trial of side A is run."""
    refused = run_hexlog(
        "simulate", "compare", "travel", "--terrain", "clear", "--against", "ose", "--n", "3", cwd=tmp_path
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("hexlog: error: side B (ose): travel: 'start' refused")
    assert not refused.stdout


def test_a_number_one_side_shows_by_value_and_the_other_by_percentile_is_plotted_by_percentile() -> None:
    """Side A took few values (its shares of each are shown), side B too many (its percentiles): the panel shows
    both sides' percentiles on one scale (A's shares, near 0, stood at ticks of their own beside B's feet)."""
    pytest.importorskip("matplotlib")
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    a = sim.summarise([{"distance (ft)": 30 * (i % 4 + 1)} for i in range(40)])
    b = sim.summarise([{"distance (ft)": 10 * i} for i in range(40)])
    ticks: list[list[str]] = []
    heights: list[list[float]] = []
    labels: list[tuple[str, str]] = []

    class Axes(_Axes):
        def bar(self, xs: list[float], ys: list[float], **kwargs: object) -> None:
            super().bar(xs, ys, **kwargs)
            heights.append(list(ys))

        def set_xticklabels(self, labels: list[str], **_kwargs: object) -> None:
            ticks.append(list(labels))

        def set_xlabel(self, text: str) -> None:
            labels.append(("x", text))

        def set_ylabel(self, text: str) -> None:
            labels.append(("y", text))

    simulation_plot._panel(Axes(), "distance (ft)", [("A", a), ("B", b)])
    assert ticks == [["p5", "p25", "p50", "p75", "p95"]]
    assert heights[0] == [30.0, 30.0, 60.0, 90.0, 120.0]  # A's percentiles, in feet
    # the axis of the bars says they are percentiles (it named the distance twice, on both axes)
    assert labels == [("x", "distance (ft): percentile of the trials"), ("y", "distance (ft)")]


def test_a_long_title_of_two_sides_rules_fits_the_plot() -> None:
    """The rules of both sides of a ``compare`` with house rules are named in full within the figure (they ran off
    both of its edges)."""
    pytest.importorskip("matplotlib")
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    rules = rulesets.load("explore")
    named = f"{rules.title} [explore + house rules, hash 1a2b3c4d...]"
    title = f"simulate dungeon: 100 trials, seed 1, rules A: {named}; B: {named}"
    sides = [(side, sim.summarise([{"caught": True}, {"caught": False}])) for side in "AB"]
    figure = simulation_plot.chart(title, sides)
    try:
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        shown = figure.get_suptitle()
        assert shown.replace("\n", " ") == title
        (text,) = [t for t in figure.texts if t.get_text() == shown]
        box, frame = text.get_window_extent(renderer), figure.bbox
        assert frame.x0 <= box.x0 < box.x1 <= frame.x1
        assert frame.y0 <= box.y0 < box.y1 <= frame.y1
    finally:
        simulation_plot.pyplot().close(figure)


@pytest.mark.parametrize(
    "args",
    [
        ("encounter", "--ruleset", "adnd", "--setting", "outdoors", "--terrain", "forest"),
        ("travel", "--days", "8", "--terrain", "woods", "--season", "winter"),  # a rest day owed on the 7th
        ("dungeon", "--turns", "14", "--danger"),
        ("pursuit", "--ruleset", "ose", "--party-size", "8", "--pursuers-speed", "150"),
        ("camp", "--terrain", "swamp", "--nights", "2"),
        ("castle", "--answer", "flee"),
        ("chase", "--setting", "waterborne", "--gap-ft", "300", "--fleeing-ft", "90", "--pursuers-ft", "150"),
        ("compare", "encounter", "--setting", "wilderness", "--monsters", "4", "--against", "explore"),
        ("compare", "travel", "--days", "7", "--against-option", "tables.rest.rest_every_travel_days=3"),
        ("compare", "dungeon", "--turns", "8", "--against-option", "tables.dungeon.wandering_every_turns=1"),
        ("compare", "pursuit", "--party-size", "8", "--pursuers-speed", "150", "--against", "ose"),
        ("compare", "camp", "--gatherers", "1", "--against-option", "tables.camp.firewood_dice=2d6"),
        (
            "compare",
            "chase",
            "--gap-ft",
            "60",
            "--fleeing-ft",
            "90",
            "--pursuers-ft",
            "120",
            "--hungry",
            "--drop",
            "food",
            "--against",
            "explore",
        ),
    ],
    ids=lambda args: "-".join(args[:2]),
)
def test_every_simulation_gives_on_two_processes_what_it_gives_on_one(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Each subcommand and each ``compare``: ``--jobs 2`` prints, byte for byte, what ``--jobs 1`` prints."""
    result = simulated_json("simulate", *args, "--n", "24", "--seed", "8", cwd=tmp_path)
    assert result["n"] == 24
    assert all(measure["n"] > 0 for side in result["sides"] for measure in side["measures"])


def test_json_carries_everything_the_table_shows(tmp_path: Path) -> None:
    """The table's title (trials, seed, each side's rules by title and by name, house rules flagged), its measures
    and notes are all in ``--json`` (however the terminal wraps them)."""
    args = ("simulate", "compare", "encounter", "--setting", "wilderness", "--monsters", "4", "--n", "12")
    args += ("--against-option", "surrounded_at_monsters=5")
    table = run_hexlog(*args, cwd=tmp_path)
    shown = json.loads(run_hexlog(*args, "--json", cwd=tmp_path).stdout)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    end = next(i for i, line in enumerate(lines) if line.startswith("└"))
    assert " ".join(lines[:start]) == shown["title"]
    measures = " ".join(line.split("│")[1].strip() for line in lines[start:end] if line.startswith("│"))
    after = " ".join(" ".join(lines[end + 1 :]).split())
    for side in shown["sides"]:
        assert f"{side['rules_title']} [{side['rules']}]" in shown["title"]
        for note in side["notes"]:
            assert f"note ({side['label']}): {note}" in after
        for measure in side["measures"]:
            assert measure["name"] in measures
    assert shown["sides"][1]["rules"].startswith("ose + house rules, hash ")


def test_a_season_beside_a_weather_given_every_day_is_refused(tmp_path: Path) -> None:
    """The season picks the column of the day's weather roll; with ``--weather`` no day rolls, so a season changed
    nothing and was taken without a word: it is refused, naming why (the season alone, or the weather alone, runs)."""
    refused = run_hexlog(
        "simulate", "travel", "--n", "2", "--days", "1", "--season", "winter", "--weather", "fog", cwd=tmp_path
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith("hexlog: error: --season does not apply: it picks the column of the day's weather")
    assert not refused.stdout
    for alone in (("--season", "winter"), ("--weather", "fog")):
        done = run_hexlog("simulate", "travel", "--n", "2", "--days", "1", *alone, cwd=tmp_path)
        assert done.returncode == 0, done.stderr


def test_a_dangerous_place_whose_checks_are_all_given_is_refused(tmp_path: Path) -> None:
    """A dangerous place sets how often and on which faces wandering checks come; given both, it changed nothing and
    was taken without a word: it is refused, naming why (with one of the two given it still sets the other)."""
    args = ("simulate", "dungeon", "--n", "2", "--turns", "2", "--danger", "--every-turns", "3")
    refused = run_hexlog(*args, "--wandering-on", "2", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.startswith("hexlog: error: --danger does not apply: it sets how often and on which faces")
    assert not refused.stdout
    done = run_hexlog(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not IN_PROCESS, reason="reads what the plot is given in this process")
def test_the_plot_of_a_compare_names_each_side_s_rules_in_its_legend(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    given: list[list[str]] = []
    monkeypatch.setattr(simulation_plot, "write", lambda _path, _title, sides: given.append([s for s, _ in sides]))
    args = ("simulate", "compare", "dungeon", "--turns", "2", "--n", "2", "--plot", str(tmp_path / "c.png"))
    done = run_hexlog(*args, "--against-option", "tables.dungeon.wandering_every_turns=1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ((a, b),) = given
    assert a == "A: explore"
    assert b.startswith("B: explore + house rules, hash ")


def test_nothing_in_the_table_is_cut_short_at_eighty_columns(tmp_path: Path) -> None:
    """Printed to a file (80 columns), a compare's two sides once cut rates' intervals and outcomes' names short with
    an ellipsis (``23.8%-34.…``, ``simultane…``): a word wider than its column folds, every character of it there."""
    args = ("simulate", "compare", "encounter", "--setting", "wilderness", "--monsters", "4", "--against", "explore")
    done = run_hexlog(*args, "--n", "40", cwd=tmp_path, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    table = [line for line in done.stdout.splitlines() if line[:1] in set("┏┃┡│├└")]
    assert max(len(line) for line in table) <= 80
    outcomes = "".join(line.split("│")[2].strip() for line in table if line.startswith("│"))
    assert "simultaneous" in outcomes
    assert "indifferent" in outcomes


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("dungeon", "--option", "carry_partial_hex=true"),
            "--option carry_partial_hex=true: options.carry_partial_hex",
        ),
        (
            ("compare", "dungeon", "--against-option", "tables.rest.rest_every_travel_days=3"),
            "--against-option tables.rest.rest_every_travel_days=3: tables.rest is read by travel",
        ),
        (("encounter", "--option", "tables.dungeon.wandering_every_turns=1"), "tables.dungeon is read by dungeon"),
    ],
)
def test_a_house_rule_no_procedure_of_the_trial_reads_is_refused(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """A house rule of travel given to a delve changed nothing (a compare of it gave two equal sides, taken without a
    word): it is refused, naming who reads it and what the trial plays."""
    refused = run_hexlog("simulate", *args, "--n", "2", cwd=tmp_path)
    assert refused.returncode == 2
    assert said in refused.stderr
    assert not refused.stdout
    read = run_hexlog(
        "simulate",
        "compare",
        "travel",
        "--days",
        "1",
        "--n",
        "2",
        "--against-option",
        "tables.rest.rest_every_travel_days=3",
        cwd=tmp_path,
    )
    assert read.returncode == 0, read.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("compare", "encounter", "--against-option", "evasion_cap_pct=90"),
            (
                "--against-option evasion_cap_pct=90: options.evasion_cap_pct is read by encounter only where a party "
                "flees a meeting (evade, roll-evasion), which no trial of simulate encounter does"
            ),
        ),
        (("dungeon", "--option", "tables.evasion.bx=[]"), "tables.evasion is read by encounter only where"),
        (("travel", "--days", "1", "--option", "evasion_rules=ose"), "which no trial of simulate travel does"),
        (("dungeon", "--rules", "{file}"), "--rules {file}: options.evasion_cap_pct is read by encounter only where"),
        (("compare", "travel", "--against-rules", "{file}"), "--against-rules {file}: options.evasion_cap_pct"),
        (("encounter", "--rules", "{dungeon}"), "--rules {dungeon}: tables.dungeon is read by dungeon, which"),
    ],
)
def test_a_house_rule_no_trial_reaches_is_refused_given_or_in_a_file(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    """The encounter procedure reads the evasion rules, but only when a party flees, which no encounter of a trial
    does: a compare of one gave two equal sides, taken without a word; it is refused, naming the rule and why, and so
    is a house rule of a rules file that no trial reads (only those given with --option were)."""
    file, dungeon = tmp_path / "evasion.toml", tmp_path / "dungeon.toml"
    file.write_text("[options]\nevasion_cap_pct = 90\n", encoding="utf-8")
    dungeon.write_text("[tables.dungeon]\nwandering_every_turns = 1\n", encoding="utf-8")
    named = [arg.format(file=file, dungeon=dungeon) for arg in args]
    refused = run_hexlog("simulate", *named, "--n", "2", cwd=tmp_path)
    assert refused.returncode == 2
    assert said.format(file=file, dungeon=dungeon) in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not refused.stdout
    read = run_hexlog("simulate", "compare", "pursuit", "--against-rules", str(file), "--n", "2", cwd=tmp_path)
    assert read.returncode == 0, read.stderr


def test_an_evasion_rule_changes_no_encounter_a_trial_plays() -> None:
    """What the refusal says: the encounters of an encounter trial are the same, outcome for outcome, whatever the
    evasion rules."""
    asked = {"scenario": "encounter", "situation": enc.StartEncounter(setting="wilderness"), "ruleset": "ose"}
    plain = sim.simulate(sim.Question(**asked), 30)
    capped = sim.Question(**asked, overrides={"options": {"evasion_cap_pct": 20, "evasion_floor_pct": 10}})
    assert sim.simulate(capped, 30) == plain


@pytest.mark.parametrize(
    "args",
    [
        ("pursuit", "--ruleset", "ose", "--option", "lost_encounter_source=dolmenwood"),
        ("compare", "pursuit", "--against", "ose", "--against-option", "lost_encounter_source=dolmenwood"),
        ("pursuit", "--ruleset", "ose", "--option", "tables.lost_encounter.odd_p18.clear={lost=[1], encounter=[2]}"),
    ],
    ids=["option", "side-b", "table"],
)
def test_a_house_rule_the_rules_in_force_never_read_is_refused_naming_why(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """The pursuit reads the lost and encounter chances only for the rest after an escape, which OSE's pursuit does
    not owe: under ose ``--option lost_encounter_source=dolmenwood`` changed nothing and was taken without a word (the
    check asked only whether the pursuit reads the option somewhere). It is refused, naming it and why; under explore,
    whose pursuit owes a rest, it is read."""
    refused = run_hexlog("simulate", *args, "--n", "2", cwd=tmp_path)
    assert refused.returncode == 2, refused.stdout
    key = "options.lost_encounter_source" if "table" not in args[-1] else "tables.lost_encounter"
    assert f"{key} is read by pursuit only for the rest after an escape, which the pursuit under ose does not owe" in (
        " ".join(refused.stderr.split())
    )
    assert args[-1] in refused.stderr
    assert not refused.stdout
    read = run_hexlog("simulate", "pursuit", "--option", "lost_encounter_source=dolmenwood", "--n", "2", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
