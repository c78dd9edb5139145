"""Surprise: the pure rules of seeds 000, 001 and 004."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import attrs
import pytest
from scipy.stats import chisquare

from hexlog.events.errors import UsageError
from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter.surprise import Side, SurpriseResult, check_surprise
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import KeyRoller, Rolls, ScriptedRoller

SECRET = bytes(range(32))
RUNS = 20_000
P_MIN = 0.001
PARTY = Side(name="party")
MONSTERS = Side(name="monsters")


Dice = Rolls


def scripted(*faces: int) -> Dice:
    """Dice that show the given faces, in order."""
    return Dice(ScriptedRoller(list(faces)))


def seeded(client_seed: str) -> Dice:
    """hexlog-dice-v1 dice from the fixed test secret and ``client_seed``."""
    return Dice(KeyRoller(hexdice.derive_key(SECRET, client_seed)))


def rules(name: str, **options: Any) -> rulesets.Ruleset:
    """A built-in ruleset with some options overridden (each one a procedure reads), checked."""
    loaded = rulesets.load(name, {"options": options} if options else None, used=REGISTRY.used_keys())
    REGISTRY.check_rules(loaded)
    return loaded


def check(  # noqa: PLR0913 - a test's call, spelled out
    faces: tuple[int, ...],
    name: str,
    party: Side = PARTY,
    monsters: Side = MONSTERS,
    *,
    setting: str = "dungeon",
    names: tuple[str, ...] = (),
    **options: Any,
) -> SurpriseResult:
    """Surprise on scripted faces; every script face must be used."""
    roll = scripted(*faces)
    result = check_surprise(roll, rules(name, **options), party, monsters, setting=setting, member_names=names)
    assert len(roll.made) == len(faces)
    assert all(r.purpose.startswith("encounter.surprise") and r.sides == (6,) for r in roll.made)
    return result


def p_value(observed: list[Any], expected: dict[Any, Fraction]) -> float:
    """Chi-square p-value of ``observed`` against ``expected`` (every bin large here)."""
    assert sum(expected.values()) == 1
    assert set(observed) <= set(expected)
    counts = Counter(observed)
    keys = sorted(expected)
    return float(chisquare([counts[k] for k in keys], [float(expected[k]) * len(observed) for k in keys]).pvalue)


class TestOseSurprise:
    """OSE §2.2."""

    def test_each_unaware_side_rolls_a_d6_and_is_surprised_on_1_or_2(self) -> None:
        """Party 2 (surprised), monsters 5: the monsters gain the free round."""
        got = check((2, 5), "ose")
        assert (got.party.surprised, got.monsters.surprised) == (True, False)
        assert (got.party.face, got.monsters.face) == (2, 5)
        assert got.party.reason == "d6 = 2 <= 2: surprised"
        assert (got.advantage, got.advantage_kind) == ("monsters", "round")
        assert got.rolls == (0, 1)
        assert (got.party.segments, got.monsters.segments) == (0, 0)

    def test_both_sides_surprised_gives_nobody_an_advantage(self) -> None:
        """Faces 1 and 2: momentary confusion."""
        assert check((1, 2), "ose").advantage == "none"

    def test_each_sides_die_is_rolled_for_that_side(self) -> None:
        """The party's d6 is made for the party and the monsters' for the monsters, each with its own purpose."""
        roll = scripted(3, 4)
        check_surprise(roll, rules("ose"), PARTY, MONSTERS, setting="dungeon")
        assert [(r.purpose, r.made_for) for r in roll.made] == [
            ("encounter.surprise.party", "party"),
            ("encounter.surprise.monsters", "monsters"),
        ]

    def test_an_aware_side_does_not_roll_and_cannot_be_surprised(self) -> None:
        """The aware monsters roll nothing; the party's 1 gives the monsters the advantage."""
        got = check((1,), "ose", monsters=Side(name="monsters", aware=True))
        assert (got.monsters.rolled, got.monsters.face, got.monsters.nonce) == (False, None, None)
        assert got.monsters.reason == "aware: no roll"
        assert got.advantage == "monsters"
        assert got.rolls == (0,)

    def test_a_side_with_light_in_darkness_cannot_surprise_the_other(self) -> None:
        """Lit monsters: the party does not roll; only the monsters' roll is made."""
        got = check((6,), "ose", monsters=Side(name="monsters", light_in_darkness=True))
        assert not got.party.rolled
        assert got.party.reason == "the monsters carry light in darkness, so the party cannot be surprised by them"

    def test_light_blocks_surprise_false_lets_the_lit_side_surprise(self) -> None:
        """With the option off, the party rolls a 1 and is surprised."""
        got = check((1, 6), "ose", monsters=Side(name="monsters", light_in_darkness=True), light_blocks_surprise=False)
        assert got.party.surprised

    def test_a_noisy_side_cannot_surprise_the_other(self) -> None:
        """A noisy party: the monsters do not roll."""
        got = check((3,), "ose", party=Side(name="party", noisy=True))
        assert not got.monsters.rolled
        assert "party make noise" in got.monsters.reason

    def test_a_wider_surprise_range_counts(self) -> None:
        """Monsters surprised on 1-4 are surprised by a 4."""
        got = check((6, 4), "ose", monsters=Side(name="monsters", surprise_range=4))
        assert got.monsters.surprised
        assert got.advantage == "party"


class TestAdndSurprise:
    """AD&D §3.1: segments."""

    def test_a_surprised_side_loses_as_many_segments_as_its_face(self) -> None:
        """Party 2: two segments lost; monsters 6: none."""
        got = check((2, 6), "adnd")
        assert (got.party.segments, got.monsters.segments) == (2, 0)
        assert (got.advantage, got.advantage_kind) == ("monsters", "segments")

    def test_mutual_surprise_leaves_the_difference_to_the_larger_face(self) -> None:
        """Party 4 (range 1-4), monsters 1: the party loses 3, the monsters none."""
        got = check((4, 1), "adnd", party=Side(name="party", surprise_range=4))
        assert (got.party.segments, got.monsters.segments) == (3, 0)
        assert got.advantage == "monsters"
        assert got.distance_segments == 4

    def test_equal_faces_cancel(self) -> None:
        """Both 2: nobody loses anything."""
        got = check((2, 2), "adnd")
        assert (got.party.segments, got.monsters.segments, got.advantage) == (0, 0, "none")

    def test_segments_on_mutual_surprise_face_keeps_each_sides_face(self) -> None:
        """With "face", party 4 and monsters 1 lose 4 and 1."""
        got = check((4, 1), "adnd", party=Side(name="party", surprise_range=4), segments_on_mutual_surprise="face")
        assert (got.party.segments, got.monsters.segments) == (4, 1)
        assert got.advantage == "monsters"

    def test_noisy_armor_makes_a_side_noisy(self) -> None:
        """A party in chain mail cannot surprise: the monsters do not roll."""
        got = check((5,), "adnd", party=Side(name="party", armor=("leather", "chain_mail")))
        assert not got.monsters.rolled
        assert "noisy armour (chain_mail)" in got.monsters.reason  # recorded words, kept

    @pytest.mark.parametrize(
        ("worn", "noisy"),
        [("chain", True), ("plate", True), ("leather", False), ("padded", False), ("metal", True), ("cloth", False)],
    )
    def test_short_armor_names_and_kinds_are_understood(self, worn: str, noisy: bool) -> None:  # noqa: FBT001
        """Members' armor as the command line writes it: chain and plate are noisy, leather is not."""
        faces = (5,) if noisy else (5, 6)
        got = check(faces, "adnd", party=Side(name="party", armor=(worn,)))
        assert got.monsters.rolled is not noisy

    def test_noisy_armor_option_decides_which_kinds_are_noisy(self) -> None:
        """With only plated armor noisy, chain mail is quiet and the monsters roll."""
        got = check((5, 1), "adnd", party=Side(name="party", armor=("chain_mail",)), noisy_armor=["plated"])
        assert got.monsters.surprised

    def test_unknown_armor_is_refused(self) -> None:
        """The message names the armor."""
        with pytest.raises(UsageError, match="unknown armor 'mithril_shirt'"):
            check((), "adnd", party=Side(name="party", armor=("mithril_shirt",)))

    def test_light_does_not_block_surprise_in_this_seed(self) -> None:
        """Seed 001 has no light rule for surprise: the party still rolls against lit monsters."""
        got = check((1, 6), "adnd", monsters=Side(name="monsters", light_in_darkness=True))
        assert got.party.surprised


class TestExploreSurprise:
    """Seed 004 §4.3 (A8) and §4.5."""

    PARTY3 = Side(name="party", wis_scores=(3, 10, 18))
    NAMES = ("Ann", "Bo", "Cy")

    def test_each_character_adds_its_own_wis_modifier_to_the_sides_d6(self) -> None:
        """d6 = 3: Ann (WIS 3, -2) is at 1 and surprised alone; Bo (0) at 3 and Cy (+2) at 5 are not and act."""
        got = check((3, 6), "explore", party=self.PARTY3, names=self.NAMES)
        assert not got.party.surprised
        assert got.party.characters_surprised == ("Ann",)
        assert got.party.reason.endswith("Ann surprised; Bo and Cy are not and act")
        assert "SURPRISED" not in got.party.reason
        assert (got.advantage, got.advantage_kind) == ("none", "single_action")

    def test_under_the_party_scope_one_surprised_character_surprises_the_party(self) -> None:
        """wis_surprise_scope = party: Ann's failed roll surprises the whole party (hexlog 0.1.0's reading)."""
        got = check((3, 6), "explore", party=self.PARTY3, names=self.NAMES, wis_surprise_scope="party")
        assert got.party.surprised
        assert (got.advantage, got.advantage_kind) == ("monsters", "single_action")

    def test_a_side_adjustment_moves_the_die(self) -> None:
        """Seed 004's "light, noise or other circumstances may adjust the roll": a 3 with -1 surprises Bo too."""
        party = attrs.evolve(self.PARTY3, modifier=-1)
        got = check((3, 6), "explore", party=party, names=self.NAMES)
        assert got.party.characters_surprised == ("Ann", "Bo")
        assert got.party.reason.startswith("d6 = 3 -1 = 2, surprised at <= 2")

    def test_monsters_that_cannot_be_surprised_do_not_roll(self) -> None:
        """An unsurprisable side never rolls; the party's die is the only one."""
        got = check((6,), "ose", monsters=Side(name="monsters", unsurprisable=True))
        assert (got.monsters.rolled, got.monsters.surprised) == (False, False)
        assert got.monsters.reason == "the monsters cannot be surprised: no roll"
        assert got.rolls == (0,)

    def test_a_low_face_surprises_more_characters(self) -> None:
        """d6 = 1: Ann at -1 and Bo at 1 are surprised; Cy at 3 is not."""
        got = check((1, 6), "explore", party=self.PARTY3, names=self.NAMES)
        assert got.party.characters_surprised == ("Ann", "Bo")

    def test_nobody_surprised_means_the_side_is_not_surprised(self) -> None:
        """d6 = 5: everyone is above 2."""
        got = check((5, 1), "explore", party=self.PARTY3, names=self.NAMES)
        assert not got.party.surprised
        assert got.advantage == "party"

    def test_characters_are_named_by_index_without_names(self) -> None:
        """Without member names the characters are listed by position."""
        got = check((3, 6), "explore", party=self.PARTY3)
        assert got.party.characters_surprised == ("0",)

    def test_wis_surprise_mod_off_ignores_wisdom(self) -> None:
        """With the option off, a 3 surprises nobody."""
        got = check((3, 6), "explore", party=self.PARTY3, names=self.NAMES, wis_surprise_mod="off")
        assert not got.party.surprised
        assert got.party.characters_surprised == ()

    def test_the_wilderness_check_is_a_plain_2_in_6_per_side(self) -> None:
        """§4.5 4b: WIS does not count outdoors, so a 3 surprises nobody."""
        got = check((3, 2), "explore", party=self.PARTY3, names=self.NAMES, setting="wilderness")
        assert not got.party.surprised
        assert got.monsters.surprised

    def test_mismatched_names_are_refused(self) -> None:
        """Two names for three WIS scores."""
        with pytest.raises(UsageError, match="2 member names for 3 WIS scores"):
            check((), "explore", party=self.PARTY3, names=("Ann", "Bo"))

    def test_an_unknown_setting_is_refused(self) -> None:
        """The message names the setting."""
        with pytest.raises(UsageError, match="unknown setting 'cave'"):
            check((), "explore", setting="cave")


def outcome(result: SurpriseResult) -> tuple[Any, ...]:
    """What a frequency test observes of one result."""
    return (result.party.surprised, result.monsters.surprised, result.party.segments, result.monsters.segments)


class TestSurpriseFrequencies:
    """20,000 seeded checks match the exact chances."""

    def test_ose_surprises_each_side_on_2_in_6(self) -> None:
        """The four outcomes come at 1/9, 2/9, 2/9, 4/9."""
        roll, ose = seeded("ose-surprise"), rules("ose")
        observed = [outcome(check_surprise(roll, ose, PARTY, MONSTERS, setting="dungeon")) for _ in range(RUNS)]
        third = Fraction(1, 3)
        expected = {
            (p, m, 0, 0): (third if p else 1 - third) * (third if m else 1 - third)
            for p in (False, True)
            for m in (False, True)
        }
        assert p_value(observed, expected) > P_MIN

    def test_adnd_segments_follow_the_difference_rule(self) -> None:
        """Enumerated over both d6 faces with the party surprised on 1-4."""
        roll, adnd = seeded("adnd-segments"), rules("adnd")
        party = Side(name="party", surprise_range=4)
        observed = [outcome(check_surprise(roll, adnd, party, MONSTERS, setting="indoors")) for _ in range(RUNS)]
        expected: dict[Any, Fraction] = {}
        for a in range(1, 7):
            for b in range(1, 7):
                ps, ms = a <= 4, b <= 2
                pl, ml = (a if ps else 0), (b if ms else 0)
                if ps and ms:
                    pl, ml = (a - b if a > b else 0), (b - a if b > a else 0)
                key = (ps, ms, pl, ml)
                expected[key] = expected.get(key, Fraction(0)) + Fraction(1, 36)
        assert p_value(observed, expected) > P_MIN

    def test_explore_per_character_thresholds_follow_the_wis_scale(self) -> None:
        """WIS 3 (-2) is surprised on 1-4, WIS 10 on 1-2, WIS 18 (+2) never: one d6 for all."""
        roll, explore = seeded("explore-wis"), rules("explore")
        party = Side(name="party", wis_scores=(3, 10, 18))
        observed = [
            check_surprise(roll, explore, party, MONSTERS, setting="dungeon").party.characters_surprised
            for _ in range(RUNS)
        ]
        expected = {("0", "1"): Fraction(2, 6), ("0",): Fraction(2, 6), (): Fraction(2, 6)}
        assert p_value(observed, expected) > P_MIN

    @pytest.mark.parametrize("scope", ["character", "party"])
    def test_explore_side_surprise_and_advantage_follow_the_wis_scope(self, scope: str) -> None:
        """WIS 3 and WIS 10 on one d6, the monsters on their own: the side's surprise and the advantage, exactly.

        Under ``character`` the party is surprised only when both are (1-2); under ``party`` when either
        is (1-4). Enumerated over both dice.
        """
        roll, explore = seeded(f"explore-wis-{scope}"), rules("explore", wis_surprise_scope=scope)
        party = Side(name="party", wis_scores=(3, 10))
        observed = []
        for _ in range(RUNS):
            got = check_surprise(roll, explore, party, MONSTERS, setting="dungeon")
            party_side, monsters_side = got.party, got.monsters
            observed.append(
                (party_side.surprised, party_side.characters_surprised, monsters_side.surprised, got.advantage)
            )
        expected: dict[Any, Fraction] = {}
        for a in range(1, 7):
            for b in range(1, 7):
                hit = tuple(label for label, mod in (("0", -2), ("1", 0)) if a + mod <= 2)
                side = len(hit) == 2 if scope == "character" else bool(hit)
                monsters = b <= 2
                advantage = "monsters" if side and not monsters else "party" if monsters and not side else "none"
                key = (side, hit, monsters, advantage)
                expected[key] = expected.get(key, Fraction(0)) + Fraction(1, 36)
        assert p_value(observed, expected) > P_MIN
