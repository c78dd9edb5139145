"""A terrain the Dolmenwood difficulty table does not rate (the OD&D rows, settlement): REFERENCE §4.8 gives it no
travel-point cost, so the rules read it as ``options.unrated_terrain_difficulty`` (light by default, the reading of
rules recorded before the option) and say so where it costs the party: in ``rules show``, after a move or a search
into one, in the state and in a refusal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from hexlog.machine.hexmap.rules import Difficulty, MapTables, TerrainOptions
from hexlog.machine.hexmap.state import Hex
from hexlog.machine.ruleset import load
from hexlog.machine.travel import terrain
from hexlog.machine.travel.rules import ChanceSource, TerrainChances

from .conftest import secret_file

if TYPE_CHECKING:
    from pathlib import Path

MAP = """
[hex."2,3"]
terrain = "meadow"

[hex."2,2"]
terrain = "mountains"

[hex."2,1"]
terrain = "desert"

[hex."2,0"]
terrain = "city"
"""


def _journey(hexlog, tmp_path: Path, *house: str) -> None:
    (tmp_path / "m.toml").write_text(MAP, encoding="utf-8")
    rules = ()
    if house:
        (tmp_path / "house.toml").write_text("[options]\n" + "\n".join(house) + "\n", encoding="utf-8")
        rules = ("--rules", "house.toml")
    for args in (
        ("init", "--ruleset", "explore", *rules),
        ("session", "open", "--secret-file", secret_file(tmp_path, "1b" * 32)),
        ("party", "add", "Ann"),  # speed 120 -> 40 on the Dolmenwood scale: 8 TP a day
        ("map", "load", "m.toml"),
        ("travel", "start", "2,3", "--season", "autumn"),
        ("travel", "weather", "--set", "clear"),
        ("travel", "route", "N", "N", "N"),
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)


def test_the_explore_ruleset_rates_no_odd_row_and_reads_them_light_by_default() -> None:
    rules = load("explore")
    tables = rules.part(MapTables)
    assert {"clear", "woods", "river", "mountains", "desert", "city", "settlement"} <= set(tables.unrated())
    assert "swamp" not in tables.unrated()  # a Dolmenwood terrain as well as an OD&D row: rated difficult
    assert rules.part(TerrainOptions).unrated_terrain_difficulty is Difficulty.LIGHT


def test_rules_show_lists_the_option_as_read_by_travel(hexlog) -> None:
    shown = hexlog("rules", "show", "explore")
    assert shown.returncode == 0, shown.stderr
    line = next(x for x in shown.stdout.splitlines() if x.startswith("options.unrated_terrain_difficulty"))
    assert line.startswith("options.unrated_terrain_difficulty = light ")
    assert "choices: light, moderate, difficult" in line
    help_line = shown.stdout.splitlines()[shown.stdout.splitlines().index(line) + 1]
    assert "[read by travel" in help_line
    assert "mountains" in help_line


def test_a_move_into_an_unrated_terrain_names_the_reading(hexlog, tmp_path: Path) -> None:
    """By default a mountain hex costs 2 TP (light), as before, and the referee is told why."""
    _journey(hexlog, tmp_path)
    moved = hexlog("travel", "move", "--hexes", "1")
    assert moved.returncode == 0, moved.stderr
    assert "the party moves N into 2,2 (2 TP, 6 left)" in moved.stdout
    assert (
        "the move into 2,2 cost 2 TP: tables.terrain_difficulty does not rate mountains: read as light "
        "(options.unrated_terrain_difficulty)"
    ) in moved.stdout
    assert "does not rate mountains" in hexlog("state").stdout


def test_the_option_rates_them_and_a_refusal_names_it(hexlog, tmp_path: Path) -> None:
    """Read as difficult, a mountain hex costs 4 TP, and the move the points no longer pay for says why it costs so."""
    _journey(hexlog, tmp_path, 'unrated_terrain_difficulty = "difficult"')
    moved = hexlog("travel", "move")
    assert moved.returncode == 0, moved.stderr
    assert "the party moves N into 2,2 (4 TP, 4 left)" in moved.stdout
    assert "the party moves N into 2,1 (4 TP, 0 left)" in moved.stdout
    before = len(hexlog("log").stdout.splitlines())
    refused = hexlog("travel", "move")
    assert refused.returncode == 1
    assert (
        "entering 2,0 (tables.terrain_difficulty does not rate city: read as difficult "
        "(options.unrated_terrain_difficulty)) costs 4 travel points; 0 left"
    ) in refused.stderr
    searched = hexlog("travel", "search")
    assert searched.returncode == 1
    assert "searching here (tables.terrain_difficulty does not rate desert" in searched.stderr
    assert len(hexlog("log").stdout.splitlines()) == before


@pytest.mark.parametrize(("reading", "cost"), [("light", 2), ("moderate", 3), ("difficult", 4)])
def test_each_reading_costs_its_difficulty(reading: str, cost: int) -> None:
    rules = load(
        "explore",
        {"options": {"unrated_terrain_difficulty": reading}},
        used={("options", "unrated_terrain_difficulty")},
        parts=(TerrainOptions,),
    )
    assert terrain.entry_cost(rules, None, Hex(terrain="mountains")) == cost
    assert terrain.search_cost(rules, Hex(terrain="settlement")) == cost
    assert terrain.entry_cost(rules, None, Hex(terrain="craggy_forest")) == 4  # rated: the option has no say


@pytest.mark.parametrize("reading", ["light", "moderate", "difficult"])
def test_under_dolmenwood_chances_an_unrated_terrain_reads_the_row_of_its_reading(reading: str) -> None:
    """The lost and encounter row of ground the table does not rate is its reading's, on the map and off it (a
    pursuit's rest off the map reads the row of its terrain as a hex of it does)."""
    rules = load(
        "explore",
        {"options": {"unrated_terrain_difficulty": reading, "lost_encounter_source": "dolmenwood"}},
        used={("options", "unrated_terrain_difficulty"), ("options", "lost_encounter_source")},
        parts=(TerrainOptions, ChanceSource, TerrainChances),
    )
    assert terrain.row(rules, Hex(terrain="mountains"))[0] == reading
    assert terrain.terrain_row(rules, "mountains")[0] == reading
    assert terrain.terrain_row(rules, "craggy_forest")[0] == "difficult"  # rated: the option has no say
