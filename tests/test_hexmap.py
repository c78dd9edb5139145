"""The hex map: the grid and its headings, the map file, setting hexes, and hidden features that the
log holds only as commitments, so no player's view shows them before a search finds them (timeline,
state, map show, export)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from hexlog.events import hexmap as ev
from hexlog.events.codec import converter, decode
from hexlog.events.errors import UsageError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import HEXMAP, LoadMap, SetHex, grid, hidden
from hexlog.machine.hexmap.state import Feature, Hex, MapState, Phase
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as t
from hexlog.service import render

if TYPE_CHECKING:
    from pathlib import Path

CAMPAIGN = "m"
STREAM = tables.stream_for(CAMPAIGN)
MAP = """
[hex."2,2"]
terrain = "meadow"
road = true
landmarks = ["the old mill"]

[hex."2,1"]
terrain = "hills"
hidden = ["ruined chapel"]
lairs = ["wolf den"]

[hex."3,2"]
terrain = "bog"
"""


def handler(script: list[int] | None = None) -> Handler:
    faces = script if script is not None else []
    h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(faces))
    for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="3c" * 32), c.AddMember(name="Ann")):
        h.execute(CAMPAIGN, command)
    return h


def events_of(h: Handler) -> list:
    return [decode(r.envelope) for r in h.store.read_stream(STREAM)]


class TestGrid:
    @pytest.mark.parametrize(
        ("start", "heading", "expected"),
        [
            ("2,2", "N", "2,1"),
            ("2,2", "S", "2,3"),
            ("2,2", "NE", "3,1"),
            ("2,2", "SE", "3,2"),
            ("2,2", "SW", "1,2"),
            ("2,2", "NW", "1,1"),
            ("3,2", "NE", "4,2"),
            ("3,2", "SE", "4,3"),
            ("3,2", "SW", "2,3"),
            ("3,2", "NW", "2,2"),
        ],
    )
    def test_neighbours_of_even_and_odd_columns(self, start: str, heading: str, expected: str) -> None:
        """Odd columns sit half a hex lower (flat-topped, odd-q): their NE/SE/SW/NW neighbours differ."""
        assert grid.neighbour(start, heading) == expected

    @pytest.mark.parametrize("heading", grid.HEADINGS)
    def test_every_heading_has_its_opposite_back(self, heading: str) -> None:
        """Going one way and back the opposite way returns to the hex, from either kind of column."""
        back = grid.turn(heading, 3)
        for start in ("4,4", "5,4"):
            there = grid.neighbour(start, heading)
            assert there is not None
            assert grid.neighbour(there, back) == start

    def test_the_edge_of_the_grid_has_no_neighbour(self) -> None:
        """Row 0 has nothing to its north."""
        assert grid.neighbour("0,0", "N") is None

    @pytest.mark.parametrize("text", ["3", "a,b", "3,4,5", "-1,2", "", "\uff13,\uff14", "\u0663,4", "3\u2003,4"])
    def test_a_malformed_hex_is_refused_naming_the_form(self, text: str) -> None:
        with pytest.raises(UsageError, match="col,row"):
            grid.parse(text)

    def test_a_hex_name_is_canonical(self) -> None:
        assert grid.normal(" 03 , 4 ") == "3,4"


class TestMapFile:
    def test_a_map_file_records_its_hexes_and_hidden_features(self, tmp_path: Path) -> None:
        """load records MapLoaded, one HexSet per hex, and each hidden feature apart."""
        path = tmp_path / "valley.toml"
        path.write_text(MAP, encoding="utf-8")
        h = handler()
        out = h.execute(CAMPAIGN, LoadMap(file=str(path)))
        kinds = [type(e) for e in out.events]
        assert kinds.count(ev.HexSet) == 3
        assert kinds.count(ev.HiddenFeaturePlaced) == 2
        the_map = out.table.procedures["map"]
        assert the_map.hex("2,2").road
        assert the_map.hex("2,2").landmarks == ("the old mill",)
        kept = hidden.kept(h.keeper, CAMPAIGN, the_map)
        assert [(f.hex, f.feature, f.lair) for f in kept] == [
            ("2,1", "ruined chapel", False),
            ("2,1", "wolf den", True),
        ]
        assert the_map.hex("2,1").features == ()  # the state holds only the commitments
        assert [e.commitment for e in out.events if isinstance(e, ev.HiddenFeaturePlaced)] == [
            f.commitment for f in kept
        ]
        assert not HEXMAP.is_open(the_map)  # a drawn map blocks nothing

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            ('[hex."1,1"]\nterrain = "lava"\n', "terrain 'lava'"),
            ('[hex."1,1"]\nterrain = "meadow"\ncolour = "red"\n', "unknown key colour"),
            ('[hex."1,1"]\nterrain = "meadow"\nroad = true\ntrack = true\n', "not both"),
            ('[hex."x"]\nterrain = "meadow"\n', "col,row"),
            ("[places]\n", "hex"),
            ('[hex."1,1"]\nterrain = "meadow"\nhidden = "ruin"\n', "list of strings"),
            ('[hex."1,1"]\nterrain = "meadow"\nlandmarks = ["a\\u0007b"]\n', "control"),
            ("not toml = = =", "not TOML"),
        ],
    )
    def test_a_bad_map_is_refused_and_nothing_is_written(self, tmp_path: Path, text: str, problem: str) -> None:
        path = tmp_path / "bad.toml"
        path.write_text(text, encoding="utf-8")
        h = handler()
        version = h.store.stream_version(STREAM)
        with pytest.raises(UsageError, match=problem):
            h.execute(CAMPAIGN, LoadMap(file=str(path)))
        assert h.store.stream_version(STREAM) == version

    def test_a_missing_file_is_named(self, tmp_path: Path) -> None:
        with pytest.raises(UsageError, match="cannot read the map"):
            handler().execute(CAMPAIGN, LoadMap(file=str(tmp_path / "nowhere.toml")))


class TestSetHex:
    def test_set_keeps_what_it_does_not_change(self) -> None:
        """Changing the terrain keeps the road and landmarks; adding a hidden feature keeps the rest."""
        h = handler()
        h.execute(CAMPAIGN, SetHex(hex="1,1", terrain="meadow", road=True, landmarks=("a well",)))
        h.execute(CAMPAIGN, SetHex(hex="1,1", terrain="hills"))
        out = h.execute(CAMPAIGN, SetHex(hex="1,1", hidden=("barrow",)))
        place = out.table.procedures["map"].hex("1,1")
        assert (place.terrain, place.road, place.landmarks) == ("hills", True, ("a well",))
        assert [f.feature for f in hidden.kept(h.keeper, CAMPAIGN, out.table.procedures["map"])] == ["barrow"]

    def test_a_track_replaces_a_road(self) -> None:
        h = handler()
        h.execute(CAMPAIGN, SetHex(hex="1,1", terrain="meadow", road=True))
        place = h.execute(CAMPAIGN, SetHex(hex="1,1", track=True)).table.procedures["map"].hex("1,1")
        assert (place.road, place.track) == (False, True)

    def test_a_new_hex_needs_a_terrain_and_nothing_is_written(self) -> None:
        h = handler()
        version = h.store.stream_version(STREAM)
        with pytest.raises(UsageError, match="give its --terrain"):
            h.execute(CAMPAIGN, SetHex(hex="1,1"))
        assert h.store.stream_version(STREAM) == version

    def test_an_od_and_d_row_is_a_terrain_too(self) -> None:
        """river and settlement (mapped rows) and desert (a row itself) may be drawn."""
        h = handler()
        for terrain in ("river", "settlement", "desert"):
            out = h.execute(CAMPAIGN, SetHex(hex="1,1", terrain=terrain))
            assert out.table.procedures["map"].hex("1,1").terrain == terrain


def found_campaign(*, search_face: int | None) -> Handler:
    """A journey in a hex with two hidden features; optionally a search that finds one (a natural 1)."""
    script: list[int] = []
    h = handler(script)
    h.execute(CAMPAIGN, SetHex(hex="2,1", terrain="hills", hidden=("ruined chapel",), lairs=("wolf den",)))
    h.execute(CAMPAIGN, t.StartJourney(hex="2,1"))
    h.execute(CAMPAIGN, t.RollWeather(weather="clear"))
    script.extend([6, 1])  # not lost; the heading die read by none
    h.execute(CAMPAIGN, t.DeclareRoute())
    if search_face is not None:
        script.append(search_face)
        h.execute(CAMPAIGN, t.SearchHex())
    return h


SECRETS = ("ruined chapel", "wolf den")


class TestHiddenFeaturesStayTheReferees:
    def player_texts(self, h: Handler) -> str:
        lines = render.timeline(h.store.read_stream(STREAM), player=True)
        state = render.state_lines(CAMPAIGN, h.load(CAMPAIGN), player=True)
        return "\n".join([*(line.text for line in lines), *state])

    def test_no_player_view_shows_a_hidden_feature_before_it_is_found(self) -> None:
        """The log holds only commitments: no timeline, not even the referee's, names a hidden feature."""
        h = found_campaign(search_face=None)
        player = self.player_texts(h)
        for secret in SECRETS:
            assert secret not in player
        referee = "\n".join(line.text for line in render.timeline(h.store.read_stream(STREAM)))
        assert all(secret not in referee for secret in SECRETS)
        assert "a hidden feature placed (commitment" in player

    def test_the_log_holds_neither_text_nor_hex_of_a_hidden_feature(self) -> None:
        """Every envelope of the stream, as exported, lacks the texts; a placement holds its commitment alone."""
        h = found_campaign(search_face=None)
        h.execute(CAMPAIGN, c.CloseSession())
        raw = json.dumps([r.envelope.data for r in h.store.read_stream(STREAM)])
        assert all(secret not in raw for secret in SECRETS)
        placed = [e for e in events_of(h) if isinstance(e, ev.HiddenFeaturePlaced)]
        assert [set(converter.unstructure(e)) for e in placed] == [{"commitment"}] * 2

    def test_a_found_feature_is_shown_and_the_other_is_not(self) -> None:
        """A natural 1 finds the first feature: its commitment is opened (the referee's until the session ends, the
        party lost or not), players are told what they found, never where, and nothing of the lair."""
        h = found_campaign(search_face=1)
        player = self.player_texts(h)
        assert "the party found ruined chapel" in player
        assert "found in" not in player
        assert "wolf den" not in player
        (told,) = [e for e in events_of(h) if isinstance(e, ev.FeatureTold)]
        assert (told.feature, told.lair) == ("ruined chapel", False)
        (found,) = [e for e in events_of(h) if isinstance(e, ev.FeatureLocated)]
        assert not found.lost
        placed = [e.commitment for e in events_of(h) if isinstance(e, ev.HiddenFeaturePlaced)]
        assert found.commitment == placed[0]
        assert h.load(CAMPAIGN).procedures["map"].unopened == (placed[1],)

    def test_players_export_while_features_are_hidden_and_see_none(self, hexlog, tmp_path: Path) -> None:
        """Through the command line: a player export needs no --referee and holds no hidden feature."""
        path = tmp_path / "valley.toml"
        path.write_text(MAP, encoding="utf-8")
        for args in (("init", "--ruleset", "explore"), ("session", "open"), ("map", "load", str(path))):
            assert hexlog(*args).returncode == 0
        shown_player = hexlog("map", "show", "2,1", "--view", "player")
        assert "ruined chapel" not in shown_player.stdout
        assert "ruined chapel" in hexlog("map", "show", "2,1").stdout
        assert "ruined chapel" not in hexlog("log", "--view", "player").stdout
        assert "ruined chapel" not in hexlog("state", "--view", "player").stdout
        assert "2 hidden features" in hexlog("state").stdout
        assert hexlog("session", "close").returncode == 0
        exported = hexlog("export")
        assert exported.returncode == 0, exported.stderr
        assert "ruined chapel" not in exported.stdout
        assert "wolf den" not in exported.stdout
        assert '"2,1"' not in "".join(line for line in exported.stdout.splitlines() if "hidden_placed" in line)
        types = [json.loads(line)["type"] for line in exported.stdout.splitlines() if line.startswith("{")]
        assert types.count("hexlog.map.hidden_placed") == 2


def test_a_saved_map_reads_back_as_it_was_and_an_unknown_key_is_refused() -> None:
    """The map's saved part is read by its own hook (a map holds thousands of hexes): the same state back."""
    features = (Feature(text="cache", lair=True, found=True), Feature(text="shrine"))
    state = MapState(
        phase=Phase.DRAWN,
        hexes={
            "1,2": Hex(terrain="bog", track=True, landmarks=("a gibbet",), features=features),
            "0,0": Hex(terrain="meadow"),
        },
    )
    data = converter.unstructure(state)
    assert converter.structure(json.loads(json.dumps(data)), MapState) == state
    data["hexes"]["1,2"]["colour"] = "red"
    with pytest.raises(Exception) as caught:  # noqa: PT011 - cattrs groups what went wrong
        converter.structure(data, MapState)
    assert caught.group_contains(ValueError, match="colour", depth=None)
