"""Encounter distance and avoiding: the pure rules of seeds 000, 001 and 004."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import pytest
from scipy.stats import chisquare

from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import Setting, Unit
from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter import positions
from hexlog.machine.encounter.positions import Distance, Situation, determine_distance
from hexlog.machine.encounter.positions_adnd import avoid
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import KeyRoller, Rolls, ScriptedRoller

if TYPE_CHECKING:
    from collections.abc import Callable

SECRET = bytes(range(32))
RUNS = 20_000
P_MIN = 0.001
NONE = (False, False)
PARTY = (True, False)
MONSTERS = (False, True)
BOTH = (True, True)

Pmf = dict[Any, Fraction]


Dice = Rolls


def scripted(*faces: int) -> Dice:
    """Dice that show the given faces, in order."""
    return Dice(ScriptedRoller(list(faces)))


def seeded(client_seed: str) -> Dice:
    """hexlog-dice-v1 dice from the fixed test secret and ``client_seed``."""
    return Dice(KeyRoller(hexdice.derive_key(SECRET, client_seed)))


def rules(name: str, **overrides: Any) -> rulesets.Ruleset:
    """A built-in ruleset with overrides given as ``section__key=value`` (each a key a procedure reads), checked."""
    nested: dict[str, dict[str, Any]] = {}
    for key, value in overrides.items():
        section, _, option = key.partition("__")
        nested.setdefault(section, {})[option] = value
    loaded = rulesets.load(name, nested, used=REGISTRY.used_keys())
    REGISTRY.check_rules(loaded)
    return loaded


# --- exact distributions, computed here independently of the code under test -------------------


def die(sides: int, change: Callable[[int], int] = lambda f: f) -> Pmf:
    """One die of ``sides`` faces, each face mapped by ``change``."""
    out: Pmf = {}
    for face in range(1, sides + 1):
        out[change(face)] = out.get(change(face), Fraction(0)) + Fraction(1, sides)
    return out


def convolve(a: Pmf, b: Pmf) -> Pmf:
    """The distribution of the sum of two independent values."""
    out: Pmf = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, Fraction(0)) + p * q
    return out


def dice(count: int, sides: int, change: Callable[[int], int] = lambda f: f) -> Pmf:
    """The sum of ``count`` dice, each face mapped by ``change``."""
    out: Pmf = {0: Fraction(1)}
    for _ in range(count):
        out = convolve(out, die(sides, change))
    return out


def mapped(pmf: Pmf, fn: Callable[[Any], Any]) -> Pmf:
    """The distribution of ``fn(x)``."""
    out: Pmf = {}
    for x, p in pmf.items():
        out[fn(x)] = out.get(fn(x), Fraction(0)) + p
    return out


def mixture(*parts: tuple[Fraction, Pmf]) -> Pmf:
    """A weighted mixture of distributions."""
    out: Pmf = {}
    for weight, pmf in parts:
        for x, p in pmf.items():
            out[x] = out.get(x, Fraction(0)) + weight * p
    return out


def plain(pmf: Pmf) -> Pmf:
    """Values out of melee range, where missiles are possible (no limit in the table, missiles_without_limit)."""
    return mapped(pmf, lambda v: (v, False, True))


def check_distribution(observed: list[Any], expected: Pmf) -> float:
    """Chi-square p-value of ``observed`` against ``expected``, bins with expectation < 5 merged."""
    assert sum(expected.values()) == 1
    outside = set(observed) - set(expected)
    assert not outside, f"values the rule cannot give: {sorted(outside)[:5]}"
    counts = Counter(observed)
    n = len(observed)
    obs_bins: list[float] = []
    exp_bins: list[float] = []
    acc_o, acc_e = 0.0, 0.0
    for key in sorted(expected):
        acc_o += counts[key]
        acc_e += float(expected[key]) * n
        if acc_e >= 5:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o, acc_e = 0.0, 0.0
    if acc_e and exp_bins:
        obs_bins[-1] += acc_o
        exp_bins[-1] += acc_e
    if len(exp_bins) == 1:
        return 1.0
    return float(chisquare(obs_bins, exp_bins).pvalue)


def flags(d: Distance) -> tuple[int, bool, bool]:
    """What a distribution test observes of one result."""
    return (d.value, d.melee, d.missiles_possible)


# --- the distribution cases: (id, ruleset, overrides, situation, surprised, segments, expected) -----


def tens(pmf: Pmf, k: int = 10) -> Pmf:
    """Each value times ``k``."""
    return mapped(pmf, lambda v: v * k)


def outdoor(count: int, mult: int, change: Callable[[int], int], segments: int = 0, least: int = 10) -> Pmf:
    """AD&D §3.3: adjusted dice summed, scaled, less 30 ft a segment, at least ``least``."""
    return plain(mapped(dice(count, 4, change), lambda s: max(s * mult - 30 * segments, least)))


def indoor_surprised() -> Pmf:
    """AD&D §3.2: 1d3 x 10 ft, a 1 in melee range."""
    return mapped(dice(1, 3), lambda f: (f * 10, f == 1, True))


def small_room() -> Pmf:
    """AD&D §3.2: the 20 ft room's d6: 1-2 melee (5 ft), 3-4 10 ft, 5-6 20 ft."""
    return mapped(dice(1, 6), lambda f: (5, True, True) if f <= 2 else (10 if f <= 4 else 20, False, True))


def wild(pmf: Pmf) -> Pmf:
    """Seed 004 wilderness: melee or missiles possible at 10 yd or closer."""
    return mapped(pmf, lambda v: (v, False, v <= 10))


def capped(pmf: Pmf, limit: int) -> Pmf:
    """Values capped at ``limit``."""
    return mapped(pmf, lambda v: min(v, limit))


FOREST = lambda f: f - 1  # noqa: E731
SCRUB = lambda f: f - 1 if f in (3, 4) else f  # noqa: E731
MARSH = lambda f: f - 1 if f in (2, 3, 4) else f  # noqa: E731
SAME = lambda f: f  # noqa: E731
S = Situation
THIRD = Fraction(1, 3)

CASES: list[tuple[str, str, dict[str, Any], Situation, tuple[bool, bool], int, Pmf]] = [
    # OSE §2.3
    ("ose-dungeon", "ose", {}, S(setting=Setting.DUNGEON), NONE, 0, plain(tens(dice(2, 6)))),
    ("ose-dungeon-surprised", "ose", {}, S(setting=Setting.DUNGEON), PARTY, 0, plain(tens(dice(2, 6)))),
    ("ose-dungeon-both", "ose", {}, S(setting=Setting.DUNGEON), BOTH, 0, plain(tens(dice(2, 6)))),
    ("ose-indoors-alias", "ose", {}, S(setting=Setting.INDOORS), NONE, 0, plain(tens(dice(2, 6)))),
    ("ose-wild", "ose", {}, S(setting=Setting.WILDERNESS), NONE, 0, plain(tens(dice(4, 6)))),
    ("ose-wild-party", "ose", {}, S(setting=Setting.WILDERNESS), PARTY, 0, plain(tens(dice(1, 4)))),
    ("ose-wild-monsters", "ose", {}, S(setting=Setting.WILDERNESS), MONSTERS, 0, plain(tens(dice(1, 4)))),
    ("ose-wild-both", "ose", {}, S(setting=Setting.WILDERNESS), BOTH, 0, plain(tens(dice(1, 4)))),
    (
        "ose-wild-trigger-both-one",
        "ose",
        {"options__wild_surprise_distance_trigger": "both"},
        S(setting=Setting.WILDERNESS),
        PARTY,
        0,
        plain(tens(dice(4, 6))),
    ),
    (
        "ose-wild-trigger-both-both",
        "ose",
        {"options__wild_surprise_distance_trigger": "both"},
        S(setting=Setting.WILDERNESS),
        BOTH,
        0,
        plain(tens(dice(1, 4))),
    ),
    ("ose-water", "ose", {}, S(setting=Setting.WATERBORNE), NONE, 0, plain(tens(dice(4, 6)))),
    ("ose-water-surprised", "ose", {}, S(setting=Setting.WATERBORNE), MONSTERS, 0, plain(tens(dice(1, 4)))),
    (
        "ose-wild-line-of-sight",
        "ose",
        {},
        S(setting=Setting.WILDERNESS, line_of_sight_ft=300),
        NONE,
        0,
        plain(capped(tens(dice(4, 6)), 100)),
    ),
    # AD&D §3.2 indoors, order A14
    ("adnd-in", "adnd", {}, S(setting=Setting.INDOORS), NONE, 0, plain(tens(mapped(dice(1, 6), lambda f: f + 4)))),
    (
        "adnd-in-dungeon-alias",
        "adnd",
        {},
        S(setting=Setting.DUNGEON),
        NONE,
        0,
        plain(tens(mapped(dice(1, 6), lambda f: f + 4))),
    ),
    ("adnd-in-party", "adnd", {}, S(setting=Setting.INDOORS), PARTY, 0, indoor_surprised()),
    ("adnd-in-monsters", "adnd", {}, S(setting=Setting.INDOORS), MONSTERS, 0, indoor_surprised()),
    ("adnd-in-both", "adnd", {}, S(setting=Setting.INDOORS), BOTH, 0, indoor_surprised()),
    ("adnd-in-hiding", "adnd", {}, S(setting=Setting.INDOORS, hiding=True), NONE, 0, plain(tens(dice(1, 4)))),
    (
        "adnd-in-line-of-sight",
        "adnd",
        {},
        S(setting=Setting.INDOORS, line_of_sight_ft=70),
        NONE,
        0,
        plain(capped(tens(mapped(dice(1, 6), lambda f: f + 4)), 70)),
    ),
    (
        "adnd-in-area",
        "adnd",
        {},
        S(setting=Setting.INDOORS, area_ft=60),
        NONE,
        0,
        plain(capped(tens(mapped(dice(1, 6), lambda f: f + 4)), 60)),
    ),
    ("adnd-in-small-room", "adnd", {}, S(setting=Setting.INDOORS, area_ft=20), NONE, 0, small_room()),
    (
        "adnd-in-small-room-surprised",
        "adnd",
        {},
        S(setting=Setting.INDOORS, area_ft=20),
        PARTY,
        0,
        mixture(
            (THIRD, {(10, True, True): Fraction(1)}), (THIRD, {(20, False, True): Fraction(1)}), (THIRD, small_room())
        ),
    ),
    (
        "adnd-in-light",
        "adnd",
        {},
        S(setting=Setting.INDOORS, light_radius_ft=30),
        NONE,
        0,
        plain(capped(tens(mapped(dice(1, 6), lambda f: f + 4)), 60)),
    ),
    (
        "adnd-in-light-beats-vision",
        "adnd",
        {},
        S(setting=Setting.INDOORS, light_radius_ft=35, vision_ft=90),
        NONE,
        0,
        plain(capped(tens(mapped(dice(1, 6), lambda f: f + 4)), 70)),
    ),
    (
        "adnd-in-vision",
        "adnd",
        {},
        S(setting=Setting.INDOORS, vision_ft=60),
        NONE,
        0,
        plain(capped(tens(mapped(dice(1, 6), lambda f: f + 4)), 60)),
    ),
    (
        "adnd-in-surprised-vision",
        "adnd",
        {},
        S(setting=Setting.INDOORS, vision_ft=20),
        MONSTERS,
        0,
        mapped(indoor_surprised(), lambda t: (min(t[0], 20), t[1], True)),
    ),
    # AD&D §3.3 outdoors, per-die terrain (A12 mixed: forest > marsh > scrub), A10, A11
    ("adnd-out", "adnd", {}, S(setting=Setting.OUTDOORS), NONE, 0, outdoor(18, 10, SAME)),
    ("adnd-out-wilderness-alias", "adnd", {}, S(setting=Setting.WILDERNESS), NONE, 0, outdoor(18, 10, SAME)),
    ("adnd-out-plains", "adnd", {}, S(setting=Setting.OUTDOORS, terrains=("plains",)), NONE, 0, outdoor(18, 10, SAME)),
    ("adnd-out-desert", "adnd", {}, S(setting=Setting.OUTDOORS, terrains=("desert",)), NONE, 0, outdoor(18, 10, SAME)),
    ("adnd-out-hills", "adnd", {}, S(setting=Setting.OUTDOORS, terrains=("hills",)), NONE, 0, outdoor(18, 10, SAME)),
    (
        "adnd-out-mountains",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("mountains",)),
        NONE,
        0,
        outdoor(18, 10, SAME),
    ),
    ("adnd-out-scrub", "adnd", {}, S(setting=Setting.OUTDOORS, terrains=("scrub",)), NONE, 0, outdoor(18, 10, SCRUB)),
    (
        "adnd-out-forest",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("forest",)),
        NONE,
        0,
        outdoor(18, 10, FOREST),
    ),
    ("adnd-out-marsh", "adnd", {}, S(setting=Setting.OUTDOORS, terrains=("marsh",)), NONE, 0, outdoor(18, 10, MARSH)),
    (
        "adnd-out-mixed-plains-scrub",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("plains", "scrub")),
        NONE,
        0,
        outdoor(18, 10, SCRUB),
    ),
    (
        "adnd-out-mixed-scrub-marsh",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("scrub", "marsh")),
        NONE,
        0,
        outdoor(18, 10, MARSH),
    ),
    (
        "adnd-out-mixed-marsh-forest-hills",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("marsh", "forest", "hills")),
        NONE,
        0,
        outdoor(18, 10, FOREST),
    ),
    (
        "adnd-out-surprise-3",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("plains",)),
        PARTY,
        3,
        outdoor(18, 10, SAME, 3),
    ),
    (
        "adnd-out-forest-surprise-6",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, terrains=("forest",)),
        BOTH,
        6,
        outdoor(18, 10, FOREST, 6),
    ),
    (
        "adnd-out-6d4",
        "adnd",
        {"options__outdoor_distance_dice": "6d4x30ft"},
        S(setting=Setting.OUTDOORS),
        NONE,
        0,
        outdoor(6, 30, SAME),
    ),
    (
        "adnd-out-6d4-forest-zeros",
        "adnd",
        {"options__outdoor_distance_dice": "6d4x30ft"},
        S(setting=Setting.OUTDOORS, terrains=("forest",)),
        MONSTERS,
        6,
        outdoor(6, 30, FOREST, 6),
    ),
    (
        "adnd-out-6d4-marsh-min-50",
        "adnd",
        {"options__outdoor_distance_dice": "6d4x30ft", "options__outdoor_min_distance_ft": 50},
        S(setting=Setting.OUTDOORS, terrains=("marsh",)),
        PARTY,
        5,
        outdoor(6, 30, MARSH, 5, 50),
    ),
    (
        "adnd-out-line-of-sight",
        "adnd",
        {},
        S(setting=Setting.OUTDOORS, line_of_sight_ft=400),
        NONE,
        0,
        mapped(outdoor(18, 10, SAME), lambda t: (min(t[0], 400), False, True)),
    ),
    # seed 004 §4.3 dungeon and §4.5 wilderness
    ("explore-dungeon", "explore", {}, S(setting=Setting.DUNGEON), NONE, 0, plain(tens(dice(2, 4)))),
    (
        "explore-dungeon-2d6",
        "explore",
        {"options__dungeon_distance": "2d6x10ft"},
        S(setting=Setting.DUNGEON),
        NONE,
        0,
        plain(tens(dice(2, 6))),
    ),
    ("explore-dungeon-party", "explore", {}, S(setting=Setting.DUNGEON), PARTY, 0, plain(tens(dice(1, 3)))),
    ("explore-dungeon-monsters", "explore", {}, S(setting=Setting.DUNGEON), MONSTERS, 0, plain(tens(dice(1, 3)))),
    ("explore-dungeon-both", "explore", {}, S(setting=Setting.DUNGEON), BOTH, 0, plain(tens(dice(1, 3)))),
    ("explore-wild", "explore", {}, S(setting=Setting.WILDERNESS), NONE, 0, wild(tens(dice(4, 6)))),
    ("explore-wild-party", "explore", {}, S(setting=Setting.WILDERNESS), PARTY, 0, wild(tens(dice(1, 3)))),
    ("explore-wild-monsters", "explore", {}, S(setting=Setting.WILDERNESS), MONSTERS, 0, wild(tens(dice(1, 3)))),
    ("explore-wild-both", "explore", {}, S(setting=Setting.WILDERNESS), BOTH, 0, wild(tens(dice(1, 3)))),
    ("explore-water", "explore", {}, S(setting=Setting.WATERBORNE), NONE, 0, wild(tens(dice(4, 6)))),
    ("explore-water-surprised", "explore", {}, S(setting=Setting.WATERBORNE), BOTH, 0, wild(tens(dice(1, 3)))),
    (
        "explore-wild-line-of-sight",
        "explore",
        {},
        S(setting=Setting.WILDERNESS, line_of_sight_ft=150),
        NONE,
        0,
        wild(capped(tens(dice(4, 6)), 50)),
    ),
]


class TestDistanceDistributions:
    """Every distance rule, over 20,000 seeded rolls, matches its exact distribution."""

    @pytest.mark.parametrize(
        ("case", "name", "overrides", "situation", "surprised", "segments", "expected"),
        CASES,
        ids=[c[0] for c in CASES],
    )
    def test_seeded_rolls_match_the_exact_distribution(  # noqa: PLR0913, PLR0917 - one parametrised case
        self,
        case: str,
        name: str,
        overrides: dict[str, Any],
        situation: Situation,
        surprised: tuple[bool, bool],
        segments: int,
        expected: Pmf,
    ) -> None:
        """Chi-square p > 0.001 between 20,000 hexlog-dice-v1 runs and the enumerated distribution."""
        ruleset = rules(name, **overrides)
        roll = seeded(case)
        observed = [
            flags(determine_distance(roll, ruleset, situation, surprised=surprised, segments=segments))
            for _ in range(RUNS)
        ]
        assert check_distribution(observed, expected) > P_MIN

    def test_the_helper_rejects_a_wrong_distribution(self) -> None:
        """The chi-square helper can fail: 2d6 x 10 is not 2d4 x 10 shifted into range."""
        roll = seeded("helper")
        observed = [
            flags(determine_distance(roll, rules("ose"), S(setting=Setting.DUNGEON), surprised=NONE))
            for _ in range(2000)
        ]
        wrong = plain(tens(mixture((Fraction(1, 2), dice(2, 6)), (Fraction(1, 2), {7: Fraction(1)}))))
        assert check_distribution(observed, wrong) < P_MIN


class TestOseDistance:
    """OSE §2.3 on chosen rolls."""

    def test_the_dungeon_distance_is_2d6_times_10_feet_and_names_its_rule_and_roll(self) -> None:
        """Faces 3 and 4 give 70 ft, with the rule, the steps and the nonce recorded."""
        roll = scripted(3, 4)
        got = determine_distance(roll, rules("ose"), S(setting=Setting.DUNGEON), surprised=NONE)
        assert (got.value, got.unit, got.melee, got.missiles_possible) == (70, "ft", False, True)
        assert got.rule == "ose.dungeon 2d6x10ft"
        assert got.steps == ("roll 2d6 = 7", "x10 ft = 70 ft")
        assert got.rolls == (0,)
        assert roll.made[0].purpose == "encounter.distance"

    @pytest.mark.parametrize(("ruleset", "setting"), [("ose", Setting.DUNGEON), ("adnd", Setting.OUTDOORS)])
    def test_missiles_are_possible_where_the_table_sets_no_limit(self, ruleset: str, setting: Setting) -> None:
        """No missiles_at_most: possible at any distance; missiles_without_limit = false records them as not."""
        faces = (3, 4) if ruleset == "ose" else (2,) * 18
        got = determine_distance(scripted(*faces), rules(ruleset), S(setting=setting), surprised=NONE)
        assert got.missiles_possible
        legacy = rules(ruleset, options__missiles_without_limit=False)
        assert not determine_distance(scripted(*faces), legacy, S(setting=setting), surprised=NONE).missiles_possible

    def test_a_surprise_in_the_dungeon_does_not_shorten_the_distance(self) -> None:
        """The dungeon roll stays 2d6 when a side is surprised, and the step says so."""
        roll = scripted(6, 6)
        got = determine_distance(roll, rules("ose"), S(setting=Setting.DUNGEON), surprised=PARTY)
        assert got.value == 120
        assert "surprise: distance not reduced here" in got.steps

    def test_a_surprised_side_in_the_wilderness_starts_1d4_times_10_yards_away(self) -> None:
        """A 2 on the d4 gives 20 yd, rolled for the purpose encounter.distance.surprised."""
        roll = scripted(2)
        got = determine_distance(roll, rules("ose"), S(setting=Setting.WILDERNESS), surprised=MONSTERS)
        assert (got.value, got.unit) == (20, "yd")
        assert got.rule == "ose.wilderness 1d4x10yd (surprised)"
        assert roll.made[0].purpose == "encounter.distance.surprised"


class TestAdndIndoors:
    """AD&D §3.2 on chosen rolls, in the order of A14."""

    def test_the_base_distance_is_1d6_plus_4_times_10_feet(self) -> None:
        """A 3 gives (3 + 4) x 10 = 70 ft."""
        got = determine_distance(scripted(3), rules("adnd"), S(setting=Setting.INDOORS), surprised=NONE)
        assert (got.value, got.melee) == (70, False)
        assert got.rule == "adnd.indoors (1d6+4)x10ft"
        assert got.steps == ("roll 1d6+4 = 7", "x10 ft = 70 ft")

    @pytest.mark.parametrize(("face", "value", "melee"), [(1, 10, True), (2, 20, False), (3, 30, False)])
    def test_surprise_gives_1d3_times_10_feet_and_a_1_is_melee_range(
        self,
        face: int,
        value: int,
        melee: bool,  # noqa: FBT001 - parametrised
    ) -> None:
        """A13: 1 -> 10 ft in melee range, 2 -> 20 ft, 3 -> 30 ft."""
        got = determine_distance(scripted(face), rules("adnd"), S(setting=Setting.INDOORS), surprised=BOTH)
        assert (got.value, got.melee) == (value, melee)

    def test_a_hidden_side_is_found_1d4_times_10_feet_away(self) -> None:
        """Hiding overrides surprise: a 4 gives 40 ft, rolled as encounter.distance.hiding."""
        roll = scripted(4)
        got = determine_distance(roll, rules("adnd"), S(setting=Setting.INDOORS, hiding=True), surprised=PARTY)
        assert got.value == 40
        assert roll.made[0].purpose == "encounter.distance.hiding"

    def test_a_20_foot_room_rolls_the_small_room_table(self) -> None:
        """Base 100 ft does not fit a 20 ft room: the d6 shows 3, so 10 ft; both nonces are kept."""
        roll = scripted(6, 3)
        got = determine_distance(roll, rules("adnd"), S(setting=Setting.INDOORS, area_ft=20), surprised=NONE)
        assert (got.value, got.melee) == (10, False)
        assert got.rolls == (0, 1)
        assert roll.made[1].purpose == "encounter.distance.small_room"

    def test_line_of_sight_comes_before_the_area_so_a_fitting_distance_rolls_no_room_table(self) -> None:
        """Line of sight 20 ft cuts 80 ft to 20 ft, which fits the 20 ft room: one roll only."""
        roll = scripted(4)
        situation = S(setting=Setting.INDOORS, line_of_sight_ft=20, area_ft=20)
        got = determine_distance(roll, rules("adnd"), situation, surprised=NONE)
        assert got.value == 20
        assert got.rolls == (0,)

    def test_light_caps_at_twice_its_radius_and_vision_counts_only_without_light(self) -> None:
        """Radius 20 ft caps 90 ft at 40 ft even with 60 ft infravision; without light, vision caps."""
        lit = determine_distance(
            scripted(5), rules("adnd"), S(setting=Setting.INDOORS, light_radius_ft=20, vision_ft=60), surprised=NONE
        )
        dark = determine_distance(scripted(5), rules("adnd"), S(setting=Setting.INDOORS, vision_ft=60), surprised=NONE)
        assert (lit.value, dark.value) == (40, 60)
        assert "cap by light: 2 x 20 ft = 40 ft -> 40 ft" in lit.steps


class TestAdndOutdoors:
    """AD&D §3.3 on chosen rolls."""

    def test_forest_dice_can_reach_zero_and_the_distance_is_clamped_to_10_feet(self) -> None:
        """Eighteen 1s in forest sum to 0 (A11): the distance is 10 ft."""
        got = determine_distance(
            scripted(*[1] * 18), rules("adnd"), S(setting=Setting.OUTDOORS, terrains=("forest",)), surprised=NONE
        )
        assert got.value == 10
        assert got.steps[-1] == "at least 10 ft -> 10 ft"

    def test_scrub_lowers_only_3s_and_4s(self) -> None:
        """Nine 1s and nine 4s: the 4s become 3s, so 9 + 27 = 36 -> 360 ft."""
        got = determine_distance(
            scripted(*[1] * 9, *[4] * 9),
            rules("adnd"),
            S(setting=Setting.OUTDOORS, terrains=("scrub",)),
            surprised=NONE,
        )
        assert got.value == 360

    def test_surprise_segments_cost_30_feet_each_after_scaling(self) -> None:
        """Eighteen 2s on plains give 360 ft; 3 segments leave 270 ft."""
        got = determine_distance(
            scripted(*[2] * 18),
            rules("adnd"),
            S(setting=Setting.OUTDOORS, terrains=("plains",)),
            surprised=PARTY,
            segments=3,
        )
        assert got.value == 270
        assert "surprise: -3 segments x 30 ft -> 270 ft" in got.steps
        assert got.rule == "adnd.outdoors 18d4x10ft"

    def test_mixed_terrain_applies_only_the_most_restrictive(self) -> None:
        """Marsh beside scrub: the 2s drop too (marsh), so eighteen 2s give 18 -> 180 ft."""
        got = determine_distance(
            scripted(*[2] * 18), rules("adnd"), S(setting=Setting.OUTDOORS, terrains=("scrub", "marsh")), surprised=NONE
        )
        assert got.value == 180
        assert "mixed terrain (scrub, marsh): only marsh applies" in got.steps


class TestExploreDistance:
    """Seed 004 §4.3 and §4.5 on chosen rolls."""

    def test_the_dungeon_distance_is_2d4_times_10_feet(self) -> None:
        """Faces 1 and 2 give 30 ft."""
        got = determine_distance(scripted(1, 2), rules("explore"), S(setting=Setting.DUNGEON), surprised=NONE)
        assert (got.value, got.rule) == (30, "explore.dungeon 2d4x10ft")

    @pytest.mark.parametrize(("face", "missiles"), [(1, True), (2, False), (3, False)])
    def test_a_surprised_wilderness_encounter_allows_missiles_at_10_yards(
        self,
        face: int,
        missiles: bool,  # noqa: FBT001 - parametrised
    ) -> None:
        """1d3 x 10 yd; only 10 yd sets missiles_possible, and never the melee flag."""
        got = determine_distance(scripted(face), rules("explore"), S(setting=Setting.WILDERNESS), surprised=PARTY)
        assert (got.value, got.unit, got.missiles_possible, got.melee) == (face * 10, "yd", missiles, False)


class TestOptions:
    """Each option the distance rules read changes the outcome it should."""

    def test_outdoor_distance_dice_switches_18d4x10_to_6d4x30(self) -> None:
        """Six 4s with 6d4x30ft give 720 ft from six dice."""
        roll = scripted(*[4] * 6)
        got = determine_distance(
            roll, rules("adnd", options__outdoor_distance_dice="6d4x30ft"), S(setting=Setting.OUTDOORS), surprised=NONE
        )
        assert (got.value, got.rule) == (720, "adnd.outdoors 6d4x30ft")
        assert roll.made[0].sides == (4,) * 6

    def test_outdoor_min_distance_ft_sets_the_clamp(self) -> None:
        """Forest 1s with a 40 ft minimum give 40 ft."""
        got = determine_distance(
            scripted(*[1] * 18),
            rules("adnd", options__outdoor_min_distance_ft=40),
            S(setting=Setting.OUTDOORS, terrains=("forest",)),
            surprised=NONE,
        )
        assert got.value == 40

    def test_wild_surprise_distance_trigger_both_needs_both_sides_surprised(self) -> None:
        """With "both", one surprised side rolls 4d6 x 10 yd; with "either", 1d4 x 10 yd."""
        both = determine_distance(
            scripted(1, 1, 1, 1),
            rules("ose", options__wild_surprise_distance_trigger="both"),
            S(setting=Setting.WILDERNESS),
            surprised=PARTY,
        )
        either = determine_distance(scripted(1), rules("ose"), S(setting=Setting.WILDERNESS), surprised=PARTY)
        assert (both.value, either.value) == (40, 10)

    def test_dungeon_distance_switches_2d4_to_2d6(self) -> None:
        """Faces 6 and 6 fit only a d6: 120 ft."""
        got = determine_distance(
            scripted(6, 6),
            rules("explore", options__dungeon_distance="2d6x10ft"),
            S(setting=Setting.DUNGEON),
            surprised=NONE,
        )
        assert (got.value, got.rule) == (120, "explore.dungeon 2d6x10ft")


def found(value: int, unit: Unit = Unit.FT) -> Distance:
    """A distance as determine_distance would give it."""
    return Distance(value=value, unit=unit, melee=False, missiles_possible=False, rule="test", steps=(), rolls=())


class TestAvoid:
    """Seed 001: avoiding the encounter (§3.3-3.4, option avoid_rule)."""

    def test_add20_lets_unseen_surprisers_slip_away_at_20_feet_or_more(self) -> None:
        """Indoors, 20 ft is enough and 10 ft is not."""
        adnd = rules("adnd")
        assert avoid(adnd, S(setting=Setting.INDOORS), found(20), MONSTERS, 2)[0]
        ok, why = avoid(adnd, S(setting=Setting.INDOORS), found(10), MONSTERS, 2)
        assert not ok
        assert "the party are 10 ft away (need 20 ft)" in why

    def test_add20_outdoors_needs_20_yards(self) -> None:
        """Outdoors 50 ft is too close, 60 ft is enough."""
        adnd = rules("adnd")
        assert not avoid(adnd, S(setting=Setting.OUTDOORS), found(50), PARTY, 2)[0]
        assert avoid(adnd, S(setting=Setting.OUTDOORS), found(60), PARTY, 2)[0]

    def test_surprisers_with_light_are_noticed(self) -> None:
        """A lit side cannot slip away under add20."""
        ok, why = avoid(rules("adnd"), S(setting=Setting.INDOORS), found(60), PARTY, 2, surprisers_lit=True)
        assert not ok
        assert "carry light" in why

    @pytest.mark.parametrize("surprised", [NONE, BOTH])
    def test_nobody_slips_away_unless_exactly_one_side_is_surprised(self, surprised: tuple[bool, bool]) -> None:
        """Neither or both surprised: no avoiding."""
        assert not avoid(rules("adnd"), S(setting=Setting.INDOORS), found(60), surprised, 2)[0]

    def test_movement_compares_the_gap_after_moving_with_the_detection_range(self) -> None:
        """Indoors 12" = 12 ft a segment: from 30 ft, 3 segments reach 66 ft > 60 ft; 2 reach 54 ft."""
        moving = rules("adnd", options__avoid_rule="movement")
        assert avoid(moving, S(setting=Setting.INDOORS), found(30), MONSTERS, 3)[0]
        assert not avoid(moving, S(setting=Setting.INDOORS), found(30), MONSTERS, 2)[0]

    def test_movement_in_open_terrain_must_double_the_distance(self) -> None:
        """Plains, 200 ft, 36 ft a segment: 6 segments (416 ft) beat 400 ft, 5 (380 ft) do not."""
        moving = rules("adnd", options__avoid_rule="movement")
        plains = S(setting=Setting.OUTDOORS, terrains=("plains",))
        assert avoid(moving, plains, found(200), PARTY, 6)[0]
        assert not avoid(moving, plains, found(200), PARTY, 5)[0]

    def test_avoid_rule_changes_the_verdict(self) -> None:
        """At 30 ft with one segment, add20 slips away and movement does not."""
        situation = S(setting=Setting.INDOORS)
        assert avoid(rules("adnd"), situation, found(30), MONSTERS, 1)[0]
        assert not avoid(rules("adnd", options__avoid_rule="movement"), situation, found(30), MONSTERS, 1)[0]

    def test_avoiding_is_refused_by_rulesets_without_the_rule(self) -> None:
        """OSE leaves avoid_rule out: nobody slips away, and the verdict names the rules and says to evade."""
        ok, why = avoid(rules("ose"), S(setting=Setting.DUNGEON), found(30), MONSTERS, 1)
        assert not ok
        assert why == "the rules in force (ose) have no avoid-encounter rule; use evade"


class TestRefusals:
    """Bad situations are refused with the problem named."""

    def test_an_unknown_setting_is_refused(self) -> None:
        """The message lists the settings."""
        with pytest.raises(UsageError, match="unknown setting 'cave'"):
            determine_distance(scripted(1, 1), rules("ose"), S(setting="cave"), surprised=NONE)

    def test_an_unknown_terrain_is_refused(self) -> None:
        """The message names the terrain."""
        with pytest.raises(UsageError, match="unknown outdoor terrain 'jungle'"):
            determine_distance(
                scripted(*[1] * 18), rules("adnd"), S(setting=Setting.OUTDOORS, terrains=("jungle",)), surprised=NONE
            )

    def test_segments_without_a_surprised_side_are_refused(self) -> None:
        """Surprise segments need a surprised side."""
        with pytest.raises(UsageError, match="no side is surprised"):
            determine_distance(
                scripted(*[1] * 18), rules("adnd"), S(setting=Setting.OUTDOORS), surprised=NONE, segments=2
            )

    def test_a_ruleset_without_a_distance_rule_is_refused(self) -> None:
        """A recorded ruleset of another name that leaves distance_rules out is refused, naming the option."""
        content = rulesets.load("ose").content
        del content["options"]["distance_rules"]
        other = rulesets.from_recorded("homebrew", content)
        with pytest.raises(rulesets.RulesError, match=r"options\.distance_rules"):
            determine_distance(scripted(1, 1), other, S(setting=Setting.DUNGEON), surprised=NONE)

    def test_the_distance_rules_follow_the_option_not_the_ruleset_name(self) -> None:
        """Explore's rules recorded under the name ose roll the explore dungeon 2d4 x 10 ft, not OSE's 2d6."""
        other = rulesets.from_recorded("ose", rulesets.load("explore").content)
        got = determine_distance(scripted(1, 2), other, S(setting=Setting.DUNGEON), surprised=NONE)
        assert (got.value, got.rule) == (30, "explore.dungeon 2d4x10ft")

    def test_a_ruleset_recorded_before_the_option_takes_the_rules_of_its_name(self) -> None:
        """AD&D content without distance_rules, recorded as adnd, still rolls the AD&D indoor distance."""
        content = rulesets.load("adnd").content
        del content["options"]["distance_rules"]
        got = determine_distance(
            scripted(3), rulesets.from_recorded("adnd", content), S(setting=Setting.INDOORS), surprised=NONE
        )
        assert (got.value, got.rule) == (70, "adnd.indoors (1d6+4)x10ft")

    def test_every_purpose_starts_with_encounter_distance(self) -> None:
        """All rolls of a small-room determination are distance rolls."""
        roll = seeded("purposes")
        for _ in range(20):
            determine_distance(roll, rules("adnd"), S(setting=Setting.INDOORS, area_ft=20), surprised=PARTY)
        assert all(r.purpose.startswith("encounter.distance") for r in roll.made)
        assert positions.PURPOSE == "encounter.distance"
