"""The dvdm search table's dice tell the players nothing of what the searched hex hides (REFERENCE §4.11).

On the dvdm table each hidden feature is found on 5-6 and each lair on 6, each on its own die. The search is
one secret roll holding a die for every hidden feature of the whole map still unopened, in the order they were
placed: the players know how many commitments are unopened, never which hex holds which, so the roll is the
same whatever the searched hex hides (``travel.search_rolled`` version 2, ``per_feature``).

``tests/golden/dvdm-search-v1.jsonl`` was written by hexlog at commit 57f5ef2, which rolled a die for each
feature of the searched hex (three, two, then one secret roll as its features were found): it still
audits VERIFIED, each search re-run as it was rolled, and exports byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import hexmap as mapev
from hexlog.events import travel as ev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.hexmap import RevealHidden, SetHex
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.projections.visibility import PlayerView
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay

from .scripted_play import ScriptedPlay

CAMPAIGN = "s"
V1_LOG = Path(__file__).resolve().parent / "golden" / "dvdm-search-v1.jsonl"
#: the map: a cairn at 2,2 placed first, then a chapel and a wolf den (a lair) at 1,1; 1,2 hides nothing
HEXES: dict[str, dict[str, Any]] = {
    "2,2": {"terrain": "meadow", "hidden": ("cairn",)},
    "1,1": {"terrain": "meadow", "hidden": ("chapel",), "lairs": ("wolf den",)},
    "1,2": {"terrain": "meadow"},
}


class Search(ScriptedPlay):
    """A campaign on the dvdm table with the map above, its party at ``start``, its dice a script."""

    def __init__(self, start: str, *, real_dice: bool = False, dice_byte: str = "3c") -> None:
        super().__init__(CAMPAIGN, scripted=not real_dice)
        self.run(c.StartCampaign(ruleset="explore", overrides={"options": {"search_table": "dvdm"}}))
        self.run(c.OpenSession(secret_hex=dice_byte * 32))
        self.run(c.AddMember(name="Ann"))
        for name, facts in HEXES.items():
            self.run(SetHex(hex=name, **facts))
        self.run(t.StartJourney(hex=start))
        self.run(t.RollWeather(weather="clear"))
        self.run(t.DeclareRoute(), *(() if real_dice else (6, 1)))

    def events(self) -> list[Any]:
        return [decode(r.envelope) for r in self.h.store.read_stream(stream_for(CAMPAIGN))]


def searched(events: list[Any]) -> tuple[list[DiceRolled], ev.SearchRolled]:
    rolls = [e for e in events if isinstance(e, DiceRolled) and e.purpose == "travel.search"]
    (rolled,) = [e for e in events if isinstance(e, ev.SearchRolled)]
    return rolls, rolled


class TestOneRollWhateverTheHexHides:
    @pytest.mark.parametrize("start", ["1,1", "2,2", "1,2"])
    def test_a_search_rolls_one_secret_die_for_every_hidden_feature_of_the_map(self, start: str) -> None:
        """Two features at 1,1, one at 2,2, none at 1,2: each search is one secret roll of 3d6."""
        rolls, rolled = searched(Search(start).run(t.SearchHex(), 1, 1, 1))
        assert [(r.sides, r.visibility, r.made_for) for r in rolls] == [((6, 6, 6), "referee", "party")]
        assert (rolled.per_feature, rolled.found, rolled.referee_rolls) == (True, (), (rolls[0].nonce,))

    def test_the_players_see_the_same_hidden_events_whatever_the_hex_hides(self) -> None:
        """What a player's view withholds during the session is alike for the hex of two features and the empty
        one: one hidden roll and one hidden search record each."""
        seen = {}
        for start in ("1,1", "1,2"):
            search = Search(start)
            search.run(t.SearchHex(), 1, 1, 1)
            view = PlayerView(ended=())
            seen[start] = [e.type_name for e in search.events() if view.hides(e)]
        assert seen["1,1"] == seen["1,2"]
        assert seen["1,1"].count("dice.rolled") >= 1
        assert seen["1,1"].count("travel.search_rolled") == 1

    @pytest.mark.parametrize(
        ("faces", "found"),
        [
            ((6, 1, 6), ("wolf den",)),  # the cairn's die (2,2) hits, but 1,1 is searched; the den on a 6
            ((1, 5, 5), ("chapel",)),  # a lair is found on a 6 alone
            ((1, 6, 6), ("chapel", "wolf den")),
            ((5, 4, 1), ()),
        ],
    )
    def test_each_feature_of_the_hex_is_found_on_its_own_die(self, faces: tuple[int, ...], found: tuple[str, ...]):
        """Die 1 is the cairn's, die 2 the chapel's, die 3 the den's: the order the features were placed."""
        search = Search("1,1")
        events = search.run(t.SearchHex(), *faces)
        assert searched(events)[1].found == found
        opened = [e.feature for e in events if isinstance(e, mapev.FeatureLocated)]
        assert tuple(opened) == found

    def test_a_feature_found_gives_up_its_die_and_the_next_search_rolls_one_die_fewer(self) -> None:
        search = Search("1,1")
        search.run(t.SearchHex(), 1, 5, 1)  # the chapel
        rolls, rolled = searched(search.run(t.SearchHex(), 1, 6))  # cairn, den
        assert [r.sides for r in rolls] == [(6, 6)]
        assert rolled.found == ("wolf den",)

    def test_with_nothing_hidden_on_the_map_the_search_still_rolls_one_die(self) -> None:
        search = Search("1,1")
        search.run(RevealHidden())
        rolls, rolled = searched(search.run(t.SearchHex(), 6))
        assert [r.sides for r in rolls] == [(6,)]
        assert rolled.found == ()

    def test_the_audit_re_runs_each_search_and_catches_a_forged_find(self) -> None:
        """Played with the session's committed dice, revealed and closed: every search re-derives; a search
        recorded as finding nothing where its die found the den is named."""
        search = Search("1,1", real_dice=True, dice_byte="00")
        for _ in range(3):
            search.run(t.SearchHex())
        search.run(RevealHidden())
        search.run(c.CloseSession())
        events = search.events()
        assert check_decision_events(events).issues == ()
        report = audit_envelopes([r.envelope for r in search.h.store.read_stream(stream_for(CAMPAIGN))])
        assert report.findings == (), report.text()
        assert report.rolls == report.rolls_verified
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.SearchRolled) and e.found)
        forged = [*events]
        forged[at] = attrs.evolve(events[at], found=())
        issues = check_decision_events(forged).issues
        assert [i.at for i in issues][:1] == [at]

    def test_the_audits_command_for_an_old_search_is_refused_to_the_referee(self) -> None:
        search = Search("1,1")
        with pytest.raises(RuleRefusedError, match="re-running a search an older release recorded"):
            search.run(t.SearchRollHexDice())


class TestALogOfVersion1:
    def lines(self) -> list[str]:
        return V1_LOG.read_text(encoding="utf-8").splitlines()

    def test_its_searches_rolled_a_die_for_each_feature_of_the_hex(self) -> None:
        rows = [json.loads(line) for line in self.lines() if '"hexlog.travel.search_rolled"' in line]
        assert [row["schemaversion"] for row in rows] == [1, 1, 1, 1]
        assert [len(row["data"]["referee_rolls"]) for row in rows] == [3, 2, 1, 1]

    def test_it_audits_verified_with_every_search_re_run_as_rolled(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict.name == "VERIFIED"
        assert report.decisions >= 4

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        assert replay(store, "dvdm", REGISTRY).ok
        assert list(export_lines(store, "dvdm")) == self.lines()

    def test_its_searches_read_as_version_2_without_per_feature(self) -> None:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        events = [decode(r.envelope) for r in store.read_stream(stream_for("dvdm"))]
        found = [e for e in events if isinstance(e, ev.SearchRolled)]
        assert [(e.per_feature, e.found) for e in found] == [
            (False, ("ruined chapel",)),
            (False, ("cairn", "wolf den")),
            (False, ()),
            (False, ()),
        ]
