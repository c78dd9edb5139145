"""A short journey through the command line: a map, two travel days, a search, a rest; what the
referee and a player read; refusals that write nothing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from .conftest import secret_file

if TYPE_CHECKING:
    from pathlib import Path

MAP = """
[hex."2,3"]
terrain = "meadow"
road = true

[hex."2,2"]
terrain = "meadow"
road = true

[hex."2,1"]
terrain = "hills"
landmarks = ["the standing stones"]
hidden = ["barrow of the hill king"]

[hex."3,2"]
terrain = "bog"
"""


@pytest.fixture
def journey(hexlog, tmp_path: Path):
    """A campaign with a map and a party, set out from 2,3 in autumn."""
    (tmp_path / "valley.toml").write_text(MAP, encoding="utf-8")
    for args in (
        ("init", "--ruleset", "explore"),
        ("session", "open", "--secret-file", secret_file(tmp_path, "1b" * 32)),
        ("party", "add", "Ann"),
        ("party", "add", "Bo", "--speed", "90"),
        ("map", "load", "valley.toml"),
        ("travel", "start", "2,3", "--season", "autumn"),
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)
    return hexlog


def version(hexlog) -> int:
    return len(hexlog("log").stdout.splitlines())


def test_a_day_of_travel_and_a_rest(journey) -> None:
    """Weather, route, lost check, moves, a search, the wandering check, the day's end, then a rest day."""
    hexlog = journey
    weather = hexlog("travel", "weather")
    assert weather.returncode == 0, weather.stderr
    assert "day 1: weather" in weather.stdout
    assert "-> ROUTE; next: route" in weather.stdout
    route = hexlog("travel", "route", "N", "N")
    assert route.returncode == 0, route.stderr
    assert "route declared: N N" in route.stdout
    assert "lost check (clear" in route.stdout  # a road through a meadow reads the meadow's OD&D row
    moved = hexlog("travel", "move")
    assert moved.returncode == 0, moved.stderr
    assert "the party moves N into 2,2 (2 TP" in moved.stdout
    state = hexlog("state")
    assert "travel: phase TRAVEL" in state.stdout
    assert "travel points left today" in state.stdout
    assert re.search(r"^  \w+: 1 travel day since rest", state.stdout, re.MULTILINE), state.stdout
    check = hexlog("travel", "check")
    assert check.returncode == 0, check.stderr
    assert "wandering check" in check.stdout
    if "ENCOUNTER" in check.stdout:
        for step in ("check-surprise", "determine-distance"):
            assert hexlog("encounter", step).returncode == 0
        if "FREE_ACTION" in hexlog("state").stdout:
            hexlog("encounter", "take-free-action")
        if "INITIATIVE" in hexlog("state").stdout:
            hexlog("encounter", "roll-initiative")
        assert hexlog("encounter", "conclude").returncode == 0
    ended = hexlog("travel", "end-day")
    assert ended.returncode == 0, ended.stderr
    assert "day 1 ends" in ended.stdout
    assert "-> DAWN" in ended.stdout
    rest = hexlog("travel", "rest")
    assert rest.returncode == 0, rest.stderr
    assert "a full day of rest (Ann, Bo)" not in rest.stdout  # recorded at the day's end
    assert "-> RESTING; next: check" in rest.stdout
    assert "a full day of rest (Ann, Bo)" in rest_day_s_end(hexlog, 2)
    assert "clock: day 3" in hexlog("state").stdout


def rest_day_s_end(hexlog, day: int) -> str:
    """The wandering check that ends a rest day, at midnight (wanderers met are sent away), then the day's end; what
    the day's end printed."""
    check = hexlog("travel", "check")
    assert check.returncode == 0, check.stderr
    assert f"rest day {day} goes on until midnight, its end" in check.stdout
    assert "wandering check" in check.stdout
    if "ENCOUNTER" in check.stdout:
        assert hexlog("encounter", "cancel", "--reason", "a test of the rest day").returncode == 0
    ended = hexlog("travel", "end-day")
    assert ended.returncode == 0, ended.stderr
    assert f"day {day} ends" in ended.stdout
    return ended.stdout


def test_a_rest_day_waits_for_its_wandering_check(journey) -> None:
    """The state names the check as the next step; end-day before it is refused naming it, and writes nothing."""
    hexlog = journey
    assert hexlog("travel", "rest").returncode == 0
    state = hexlog("state").stdout
    assert "clock: day 1 08:00" in state
    assert "  a day of rest: no travel today" in state
    assert "  next: hexlog travel check" in state
    before = version(hexlog)
    early = hexlog("travel", "end-day")
    assert early.returncode == 1
    refused = "hexlog: error: travel: 'end-day' is not allowed in state RESTING; allowed now: check"
    assert early.stderr.strip() == refused
    assert version(hexlog) == before
    rest_day_s_end(hexlog, 1)
    assert "clock: day 2 00:00" in hexlog("state").stdout


def test_a_search_through_the_command_line(journey) -> None:
    """Reach the hills (if the party is not lost) and search: the roll is secret, the feature only when found."""
    hexlog = journey
    hexlog("travel", "weather", "--set", "clear")
    hexlog("travel", "route", "N", "N")
    hexlog("travel", "move")
    searched = hexlog("travel", "search")
    assert searched.returncode in {0, 1}
    if searched.returncode == 0:
        assert "the party searches (2 TP" in searched.stdout
        assert "[secret]" in searched.stdout
        found = "barrow of the hill king" in hexlog("map", "show", "2,1", "--view", "player").stdout
        assert found == ("found in 2,1: barrow of the hill king" in searched.stdout)


def test_a_refused_step_writes_nothing_and_names_what_is_allowed(journey) -> None:
    hexlog = journey
    before = version(hexlog)
    refused = hexlog("travel", "move")
    assert refused.returncode != 0
    assert "DAWN" in refused.stderr
    assert "weather" in refused.stderr
    bad = hexlog("travel", "route", "UP")
    assert bad.returncode != 0
    off_map = hexlog("map", "set", "9,9")
    assert off_map.returncode != 0
    assert "give its --terrain" in off_map.stderr
    assert version(hexlog) == before


def test_the_player_state_shows_the_believed_hex_only(journey) -> None:
    """The player's state has the believed hex, no next steps, and nothing hidden."""
    hexlog = journey
    hexlog("travel", "weather", "--set", "fog")
    hexlog("travel", "route", "N")
    hexlog("travel", "move")
    player = hexlog("state", "--view", "player").stdout
    assert "(as it believes)" in player
    assert "next:" not in player
    assert "barrow" not in player
    assert "LOST" not in player
    assert "hexlog state --view" not in hexlog("state", "--view", "wizard").stdout
    assert hexlog("state", "--view", "wizard").returncode != 0


def test_map_show_lists_the_hexes_and_set_changes_one(journey) -> None:
    hexlog = journey
    shown = hexlog("map", "show").stdout
    assert "2,1: hills" in shown
    assert "hidden (referee only): barrow of the hill king" in shown
    assert hexlog("map", "set", "3,2", "--terrain", "swamp", "--landmark", "a drowned oak").returncode == 0
    assert "3,2: swamp" in hexlog("map", "show", "3,2").stdout
    assert "a drowned oak" in hexlog("map", "show", "3,2").stdout
    assert hexlog("map", "show", "7,7").returncode != 0


def test_a_hex_written_in_digits_of_another_script_is_refused_and_writes_nothing(journey) -> None:
    """Full-width or Arabic-Indic digits are not read as 0-9 (as no other number hexlog reads is)."""
    hexlog = journey
    before = version(hexlog)
    for written in ("\uff13,\uff12", "\u0663,\u0662"):
        refused = hexlog("map", "set", written, "--terrain", "hills")
        assert refused.returncode == 2
        assert f"a hex is written col,row (two numbers 0 to 9999, e.g. 3,4), not {written!r}" in refused.stderr
    assert version(hexlog) == before
    assert "3,2: bog" in hexlog("map", "show", "3,2").stdout


def test_an_empty_hidden_feature_is_named_as_one_and_writes_nothing(journey) -> None:
    hexlog = journey
    before = version(hexlog)
    refused = hexlog("map", "set", "3,2", "--hidden", " ")
    assert refused.returncode == 2
    assert refused.stderr == "hexlog: error: hex 3,2: a hidden feature may not be empty\n"
    assert version(hexlog) == before


def test_map_set_that_changes_nothing_is_refused_and_writes_nothing(journey) -> None:
    """A hex set again as it already is (no option, or the same terrain) records nothing and says so."""
    hexlog = journey
    before = version(hexlog)
    for args in (("3,2",), ("3,2", "--terrain", "bog"), ("3,2", "--no-road")):
        refused = hexlog("map", "set", *args)
        assert refused.returncode == 2, args
        assert "hex 3,2 is already so: nothing to change" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert version(hexlog) == before
    assert hexlog("map", "set", "3,2", "--road").returncode == 0
    assert version(hexlog) == before + 1


#: house rules under which a party in the open is always lost, and truly heads NE
ALWAYS_LOST = """
[tables.lost_encounter.odd_p18.clear]
lost = [1, 2, 3, 4, 5, 6]
encounter = [6]

[tables.lost_direction]
faces = ["NE", "NE", "NE", "NE", "NE", "NE"]
"""

#: meadows around 2,3 but for the bog north of it, 2,2
BOG_NORTH = "\n".join(
    f'[hex."{col},{row}"]\nterrain = "{"bog" if (col, row) == (2, 2) else "meadow"}"\n'
    for col in range(5)
    for row in range(5)
)


def lost_by_the_bog(hexlog, tmp_path: Path, *then: tuple[str, ...]) -> None:
    """A party always lost (truly heading NE) starts its day on the meadow 2,3 south of the bog, in overcast
    weather; then the commands ``then``, each of which must succeed."""
    (tmp_path / "lost.toml").write_text(ALWAYS_LOST, encoding="utf-8")
    (tmp_path / "bog.toml").write_text(BOG_NORTH, encoding="utf-8")
    for args in (
        ("init", "--ruleset", "explore", "--rules", "lost.toml"),
        ("session", "open"),
        ("party", "add", "Ann"),
        ("map", "load", "bog.toml"),
        ("travel", "start", "2,3"),
        ("travel", "weather", "--set", "overcast"),
        *then,
    ):
        done = hexlog(*args)
        assert done.returncode == 0, (args, done.stderr)


def test_the_player_view_of_a_lost_party_gives_the_believed_hexs_costs_never_the_true_ones(hexlog, tmp_path) -> None:
    """Believed in the bog 2,2 (3 points to enter, 3 to search), truly in the meadow 3,2 (2 and 2): a player's
    timeline and state give the bog's costs and the points they leave; the referee's say where the party truly is."""
    lost_by_the_bog(hexlog, tmp_path, ("travel", "route", "N"), ("travel", "move"), ("travel", "search"))
    referee = hexlog("log").stdout
    assert "truly in 3,2 (meadow) - lost" in referee  # the check can fail: the referee reads the truth
    player = hexlog("log", "--view", "player").stdout + hexlog("state", "--view", "player").stdout
    assert "the party moves N into 2,2 (3 TP, 5 left)" in player
    assert "the party searches (3 TP, 2 left)" in player
    assert "travel points left today 2 " in player
    for leak in ("(2 TP", "6 left", "4 left", "left today 4", "truly", "3,2 (meadow)"):
        assert leak not in player, leak


def test_a_route_with_no_heading_keeps_the_party_in_its_hex_and_its_lost_check_says_so(hexlog, tmp_path) -> None:
    """``travel route`` with no heading declares a day spent in the party's hex (to search it): it is recorded, and
    the referee's lost check says the party stays, never an empty route in brackets."""
    lost_by_the_bog(hexlog, tmp_path)
    stayed = hexlog("travel", "route")
    assert stayed.returncode == 0, stayed.stderr
    referee = hexlog("log").stdout
    assert "route declared: (stay)" in referee
    assert "LOST: the party truly heads NE (it stays in its hex today)" in referee
    assert "()" not in referee
    assert hexlog("travel", "search").returncode == 0


def test_a_rest_day_in_a_dungeon_is_refused_and_writes_nothing(journey) -> None:
    hexlog = journey
    assert hexlog("dungeon", "enter", "--name", "the barrow").returncode == 0
    before = version(hexlog)
    refused = hexlog("travel", "rest", "--set", "clear")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "hexlog: error: a delve is under way, and a day in which one goes on is no rest; "
        "leave the dungeon first (hexlog dungeon leave)"
    )
    assert version(hexlog) == before
    assert hexlog("dungeon", "leave").returncode == 0
    assert hexlog("travel", "rest", "--set", "clear").returncode == 0


def test_a_step_the_waiting_day_does_not_have_names_the_encounter_it_waits_for(journey) -> None:
    """While the day's wandering encounter runs, a step of another phase (weather) is refused naming the encounter
    the day waits for, not only 'allowed now: none', and writes nothing."""
    hexlog = journey
    for _ in range(30):
        assert hexlog("travel", "weather", "--set", "clear").returncode == 0
        assert hexlog("travel", "route").returncode == 0
        if "ENCOUNTER" in hexlog("travel", "check").stdout:
            break
        assert hexlog("travel", "end-day").returncode == 0
    else:
        pytest.fail("no wandering encounter in 30 days")
    before = version(hexlog)
    refused = hexlog("travel", "weather")
    assert refused.returncode == 1
    assert "'weather' is not allowed in state DUSK; allowed now: none" in refused.stderr
    assert "(travel waits for encounter to conclude: the encounter's steps come first)" in refused.stderr
    assert version(hexlog) == before
