"""``hexlog demo --ruleset``: the demo's story under each built-in ruleset, each step as its rules ask."""

from __future__ import annotations

import json
import re

import pytest

from hexlog.machine import ruleset as rulesets

SECRET = bytes(range(32)).hex()

#: client seeds whose dice (with SECRET) take the story down its branches under ose: the moor's wanderers pursue the
#: party day by day and catch it ("s33") or lose it ("e"), or let it go ("b"); the rats' chase catches it in each
OSE_SEEDS = [("b", None), ("s33", "caught"), ("e", "escaped")]
#: and under adnd: the moor's wanderers give chase, which adnd has no pursuit for ("d"), or let the party go
ADND_SEEDS = [("d", True), ("a", False), ("table-7", False)]
#: what each ruleset lacks, said plainly where the story would need it
BARRED = {
    "ose": ("travel tables", "castle table", "camp table", "tables.dungeon, tables.open_doors"),
    "adnd": (
        "travel tables",
        "castle table",
        "camp table",
        "tables.light, tables.dungeon, tables.open_doors",
        "no dungeon pursuit table (tables.dungeon_pursuit)",
    ),
}


def _events(hexlog) -> list[dict]:
    exported = hexlog("export", "--campaign", "demo")
    assert exported.returncode == 0, exported.stderr
    return [json.loads(line) for line in exported.stdout.splitlines()]


def _types(events: list[dict]) -> set[str]:
    return {e["type"].removeprefix("hexlog.") for e in events}


def _per_encounter(events: list[dict]) -> list[list[dict]]:
    """Each encounter's events, from its start to the next one's."""
    runs: list[list[dict]] = []
    for event in events:
        if event["type"] == "hexlog.encounter.started":
            runs.append([])
        if runs:
            runs[-1].append(event)
    return runs


def _played_under(stdout: str, events: list[dict], ruleset: str) -> None:
    """The session ran to its end under ``ruleset``: closed, every roll re-derived, replayed; what it lacks told."""
    assert f"campaign demo started under {ruleset}" in stdout
    (started,) = [e for e in events if e["type"] == "hexlog.campaign.started"]
    assert started["data"]["ruleset"] == ruleset
    counts = re.search(r"audit: INCOMPLETE: (\d+) of (\d+) rolls re-derived", stdout)
    assert counts is not None, stdout[-2000:]
    assert counts.group(1) == counts.group(2) != "0"
    assert "replay: matches" in stdout
    assert any(e["type"] == "hexlog.session.closed" for e in events)
    for lacking in BARRED[ruleset]:
        assert f"the rules in force ({ruleset}) have " in stdout
        assert lacking in stdout, lacking
    # the procedures the rules lack leave nothing in the log; the encounters are played by the rules in force
    assert not {t.split(".")[0] for t in _types(events)} & {"travel", "camp", "castle", "dungeon", "map"}
    encounters = [e for e in events if e["type"] == "hexlog.encounter.started"]
    assert len(encounters) >= 3  # on the moor, the rats, the ghouls
    distances = [e["data"]["rule"] for e in events if e["type"] == "hexlog.encounter.distance_determined"]
    assert distances
    assert all(rule.startswith(f"{ruleset}.") for rule in distances), distances


def _each_round_waits_for_its_initiative(events: list[dict]) -> int:
    """Under ose every round after the first is played once its own initiative is rolled; the rounds checked."""
    checked = 0
    for run in _per_encounter(events):
        rolled = 0
        for event in run:
            if event["type"] == "hexlog.encounter.initiative_rolled":
                rolled += 1
            elif event["type"] == "hexlog.encounter.round_played" and event["data"]["round"] > 1:
                assert rolled >= event["data"]["round"], run
                checked += 1
    return checked


class TestTheDemoUnderEachRuleset:
    @pytest.mark.parametrize(("seed", "moor"), OSE_SEEDS)
    def test_under_ose_each_round_waits_for_its_initiative(self, hexlog, seed, moor):
        """Surprise gives a round, distance by OSE's dice, a later round waits for its initiative, the rats' chase
        run by OSE's dungeon pursuit table, the moor's pursuit day by day; the travel day, camp, castle and delve told,
        as OSE has none of their tables."""
        result = hexlog("demo", "--ruleset", "ose", "--secret-file", "-", "--client-seed", seed, input_text=SECRET)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        events = _events(hexlog)
        _played_under(result.stdout, events, "ose")
        assert "(Old-School Essentials (seed 000))" in result.stdout.splitlines()[0]
        assert _each_round_waits_for_its_initiative(events)  # the fight with the rats that caught the party
        assert "under ose each round waits for its own initiative: the referee rolls it" in result.stdout
        assert "ose.dungeon 2d6x10ft" in result.stdout
        # the rats' pursuit: the encounter the referee started in the dungeon hands OSE's dungeon chase off itself
        (chase,) = [e for e in events if e["type"] == "hexlog.chase.started"]
        names = [e["data"]["name"] for e in events if e["type"] == "hexlog.encounter.started"]
        assert chase["data"]["from_encounter"] == names.index("barrow giant rats") + 1
        handed = [e["data"] for e in events if e["type"] == "hexlog.procedure.handed_off"]
        assert {"parent": "encounter", "child": "chase"} in handed
        assert "the chase is the referee's to start" not in result.stdout
        (ended,) = [e for e in events if e["type"] == "hexlog.chase.ended"]
        assert ended["data"]["outcome"] == "caught"
        assert "the giant rats catch the party: it turns at bay and fights" in result.stdout
        # the moor: OSE's pursuers decide by their reaction, then the pursuit is played day by day (OSE's evasion)
        pursuits = [e for e in events if e["type"] == "hexlog.pursuit.ended"]
        assert [e["data"]["outcome"] for e in pursuits] == ([moor] if moor else [])
        if moor:
            assert "no journey hands the pursuit over: the referee starts it" in result.stdout
            assert re.search(r"evasion \d+ % \(base \d+ % \(4 fleeing, 6 pursuing\)", result.stdout)

    @pytest.mark.parametrize(("seed", "pursued"), ADND_SEEDS)
    def test_under_adnd_surprise_costs_segments_and_no_chase_is_run(self, hexlog, seed, pursued):
        """AD&D's distances (outdoors 18d4, indoors capped by the light), surprise in segments, noisy plate; no
        wilderness pursuit and no dungeon chase: the referee tells the flight, saying why."""
        result = hexlog("demo", "--ruleset", "adnd", "--secret-file", "-", "--client-seed", seed, input_text=SECRET)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        events = _events(hexlog)
        _played_under(result.stdout, events, "adnd")
        assert "adnd.outdoors 18d4x10ft" in result.stdout
        assert "by adnd.indoors" in result.stdout
        surprise = [e["data"] for e in events if e["type"] == "hexlog.encounter.surprise_checked"]
        assert "segments" in {s["advantage_kind"] for s in surprise}
        assert re.search(r"SURPRISED, loses \d segments?", result.stdout)
        assert "the party wear noisy armour (plate)" in result.stdout
        assert not _types(events) & {"chase.started", "pursuit.started"}
        (moor, *_) = [e for e in events if e["type"] == "hexlog.encounter.pursuit_decided"]
        assert moor["data"]["pursue"] is pursued
        told = "the rules in force (adnd) have no wilderness pursuit (options.evasion_rules): no pursuit day by day"
        assert (told in result.stdout) is pursued

    @pytest.mark.parametrize("ruleset", ["ose", "adnd"])
    def test_with_a_drawn_secret_the_demo_is_verified(self, hexlog, ruleset):
        """The secret drawn by hexlog: the session closes and the audit is VERIFIED under each ruleset."""
        result = hexlog("demo", "--ruleset", ruleset)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        assert "audit: VERIFIED:" in result.stdout
        assert "replay: matches" in result.stdout
        assert f"campaign demo started under {ruleset}" in result.stdout

    def test_an_unknown_ruleset_is_refused_before_any_file_is_written(self, hexlog, tmp_path):
        """A bad --ruleset: a usage error naming the known rulesets, exit 2, no database."""
        result = hexlog("demo", "--ruleset", "bx")
        assert result.returncode == 2
        known = ", ".join(rulesets.builtin_names())
        assert f"unknown ruleset 'bx'; known: {known}" in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout == ""
        assert not list(tmp_path.iterdir())
