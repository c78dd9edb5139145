"""A short delve through the command line: each step prints what was rolled, what it meant and what may come next."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import secret_file

SECRET = bytes(range(32)).hex()


def _count_events(db) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


@pytest.fixture
def delve(hexlog, tmp_path):
    """An explore campaign, an open session, a party of two inside a dungeon; the database path."""
    for args in (
        ("init", "--ruleset", "explore"),
        ("session", "open", "--secret-file", secret_file(tmp_path, SECRET)),
        ("party", "add", "Ann", "--str", "16"),
        ("party", "add", "Bo", "--speed", "90"),
    ):
        assert hexlog(*args).returncode == 0
    entered = hexlog("dungeon", "enter", "--name", "crypt")
    assert entered.returncode == 0, entered.stderr
    assert "delve 1 'crypt' begins (explore)" in entered.stdout
    assert "wandering check every 2 turns, a monster on 1" in entered.stdout
    assert "-> EXPLORING; next: light, refill, move, door, listen, search, spike, rest, meet, leave" in entered.stdout
    return tmp_path / "hexlog.db"


class TestDelve:
    @pytest.mark.usefixtures("delve")
    def test_a_short_delve(self, hexlog):
        """Light, two turns of movement, a door, listening, searching, a spike, rest, the state, then out."""
        lit = hexlog("dungeon", "light", "torch", "--by", "Ann")
        assert "Ann lights a torch (30 ft): it burns 6 turns" in lit.stdout
        moved = hexlog("dungeon", "move")
        assert "turn 1: the party moves 90 ft of its 90 ft (slowest: Bo), mapping" in moved.stdout
        assert "clock advances 1 turn" in moved.stdout
        second = hexlog("dungeon", "move", "--feet", "40", "--no-mapping")
        assert "turn 2: the party moves 40 ft" in second.stdout
        assert "wandering check, turn 2: d6=" in second.stdout
        assert "for dungeon.wandering [secret]" in second.stdout
        door = hexlog("dungeon", "door", "open", "--by", "Ann", "--tool", "crowbar")
        assert door.returncode == 0, door.stderr
        assert "Ann tries the door: forcing it with a crowbar (STR 16):" in door.stdout
        assert "against 5-in-6" in door.stdout
        assert "for dungeon.door (for Ann)" in door.stdout
        assert "receipt " in door.stdout
        listened = hexlog("dungeon", "listen", "--by", "Bo")
        assert "Bo listens at the door (by the rules, on 1): d6=" in listened.stdout
        assert "[secret]" in listened.stdout
        searched = hexlog("dungeon", "search", "--by", "Bo")
        assert "search for secret doors (on 1): Bo searching: the party's die " in searched.stdout
        assert "for dungeon.search (for party) [secret]" in searched.stdout
        spiked = hexlog("dungeon", "spike", "--shut", "--door", "north")
        assert "the door 'north' is spiked shut: it counts as stuck" in spiked.stdout
        state = hexlog("state").stdout
        assert "dungeon: phase EXPLORING" in state
        assert "delve 1 'crypt': 3 turns, 2 moves" in state
        assert "light: Ann's torch 3 turns left" in state
        left = hexlog("dungeon", "leave")
        if left.returncode != 0:  # a wandering monster came at the third turn's end: meet it first
            assert "meet it first" in left.stderr
            return
        assert "the party leaves the dungeon after 3 turns" in left.stdout
        assert "-> LEFT" in left.stdout

    @pytest.mark.usefixtures("delve")
    def test_the_player_view_hides_the_secret_dice_and_what_they_decided(self, hexlog):
        hexlog("dungeon", "listen", "--by", "Bo")
        hexlog("dungeon", "door", "open", "--by", "Ann", "--free")
        player = hexlog("log", "--view", "player").stdout
        assert "dungeon.door_listened (hidden by the referee until the session closes)" in player
        assert "listens at the door" not in player
        assert "Ann tries the door: not stuck; the door opens" in player
        hexlog("session", "close")
        revealed = hexlog("log", "--view", "player").stdout
        assert "Bo listens at the door" in revealed

    @pytest.mark.usefixtures("delve")
    def test_the_player_view_hides_the_party_search_until_the_session_closes(self, hexlog):
        """The party's one search die is the referee's: its decision is hidden, then shown once the session closes."""
        hexlog("dungeon", "search")
        player = hexlog("log", "--view", "player").stdout
        assert "dungeon.secret_door_searched (hidden by the referee until the session closes)" in player
        assert "search for secret doors" not in player
        hexlog("session", "close")
        revealed = hexlog("log", "--view", "player").stdout
        assert "search for secret doors (on 1): Ann, Bo searching: the party's die " in revealed

    def test_a_refused_step_prints_one_error_and_writes_nothing(self, hexlog, delve):
        before = _count_events(delve)
        fled = hexlog("dungeon", "move", "--mapping", "--fleeing")
        assert fled.returncode != 0
        assert fled.stderr.strip() == (
            "hexlog: error: dungeon: 'move' refused in phase EXPLORING: the dungeon cannot be mapped while fleeing"
        )
        dark = hexlog("dungeon", "move", "--mapping")
        assert "cannot be mapped in the dark" in dark.stderr
        lamp = hexlog("dungeon", "light", "lamp", "--by", "Ann")
        assert lamp.returncode != 0
        assert "light a torch or a lantern, not 'lamp'" in lamp.stderr
        assert _count_events(delve) == before

    def test_a_searcher_named_twice_is_refused_and_writes_nothing(self, hexlog, delve):
        """Searching once a turn each: naming a searcher twice (a second die under each_searcher) is refused."""
        before = _count_events(delve)
        twice = hexlog("dungeon", "search", "--by", "Bo", "--by", "Ann", "--by", "Bo")
        assert twice.returncode == 2
        assert twice.stderr.strip() == "hexlog: error: Bo named twice: each searcher searches once a turn"
        assert _count_events(delve) == before

    @pytest.mark.parametrize(
        "step",
        [
            ("dungeon", "listen"),
            ("dungeon", "listen", "--skill-in-6", "3"),
            ("dungeon", "light", "torch"),
            ("dungeon", "door", "open", "--free"),
        ],
    )
    def test_a_step_done_by_nobody_is_refused_and_writes_nothing(self, hexlog, delve, step):
        """``--by ""`` names no member: the listening, the light and the door are refused alike, nothing written."""
        before = _count_events(delve)
        nobody = hexlog(*step, "--by", "")
        assert nobody.returncode == 2
        assert nobody.stderr.strip() == (
            "hexlog: error: the party has no member with an empty name '': give one (its members: Ann, Bo)"
        )
        assert _count_events(delve) == before

    @pytest.mark.parametrize("chance", [("--pick-chance", "30"), ("--pick-in-6", "2")])
    def test_a_key_and_a_thievery_chance_together_are_refused(self, hexlog, delve, chance):
        """The key opens the lock and no pick is tried: a chance given beside it is refused, not dropped unsaid."""
        before = _count_events(delve)
        both = hexlog("dungeon", "door", "open", "--by", "Ann", "--locked", "--key", *chance)
        assert both.returncode == 2
        assert both.stderr.strip() == (
            "hexlog: error: give --key or a thievery chance, not both: the key opens the lock, and no pick is tried"
        )
        assert _count_events(delve) == before
        keyed = hexlog("dungeon", "door", "open", "--by", "Ann", "--locked", "--key", "--free")
        assert keyed.returncode == 0, keyed.stderr
        assert "unlocked with its key" in keyed.stdout

    @pytest.mark.usefixtures("delve")
    def test_a_listening_skill_of_none_in_6_is_read_as_never(self, hexlog):
        """A thief's skill of 0 in 6 hears on no face: the line says never, not an empty list of faces."""
        listened = hexlog("dungeon", "listen", "--by", "Bo", "--skill-in-6", "0")
        assert listened.returncode == 0, listened.stderr
        assert "Bo listens at the door (by their skill, on never): d6=" in listened.stdout
        assert ", hears nothing" in listened.stdout
        assert "on )" not in hexlog("log").stdout

    @pytest.mark.usefixtures("delve")
    def test_a_step_the_phase_does_not_allow_names_the_subcommands_allowed(self, hexlog):
        hexlog("dungeon", "leave")
        moved = hexlog("dungeon", "move")
        assert moved.returncode != 0
        assert "'move' is not allowed in state LEFT; allowed now: enter" in moved.stderr
