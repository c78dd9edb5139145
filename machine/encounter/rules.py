"""The options and tables the encounter reads, typed: a ruleset is structured into these when loaded.

Each field's sentence is what ``hexlog rules show`` prints beside it. A field with a default may be
left out of a ruleset: the rule it names then does not apply (for example, only the AD&D text has a
rule for noisy armor). The section numbers are those of REFERENCE.md.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from hexlog.events.encounter import AdvantageKind, ReactionResult
from hexlog.events.vocabulary import Setting, Unit
from hexlog.machine import dice
from hexlog.machine.commands import ABILITY
from hexlog.machine.kit.rules import (
    RulesError,
    bands,
    chosen_by,
    dice_rule,
    in_range,
    non_empty,
    rollable_by,
    rule,
    totals,
)

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset

#: the rulesets written before ``distance_rules`` existed named their distance rules by their own name
_LEGACY_DISTANCE_RULES = frozenset({"ose", "adnd", "explore"})
#: the longest length a rule may give, in feet (as the referee's lengths, ``opening.MAX_LENGTH_FT``)
MAX_FT = 100_000
#: the largest multiplier of a distance roll or a detection range
MAX_MULTIPLIER = 10_000
#: ability scores (``commands.ABILITY``, as the party's sheets): a band table starts at the lowest
SCORES = (ABILITY.least, ABILITY.most)
#: a CHA or WIS modifier (as a situational reaction modifier, ``resolution.MAX_REACTION_MODIFIER``)
SCORE_MODIFIERS = (-10, 10)
#: a distance dice expression may total 0 (melee range), never less
DISTANCE_DICE = dice_rule(lowest=0)


class DistanceRules(enum.StrEnum):
    """Which text's procedure determines the encounter distance."""

    OSE = "ose"
    ADND = "adnd"
    EXPLORE = "explore"


#: the rules only one text's distance procedure reads (``positions``: ``options.distance_rules`` picks it)
OSE_DISTANCE = (("distance_rules", (DistanceRules.OSE.value,)),)
ADND_DISTANCE = (("distance_rules", (DistanceRules.ADND.value,)),)
EXPLORE_DISTANCE = (("distance_rules", (DistanceRules.EXPLORE.value,)),)


class TieRule(enum.StrEnum):
    """How an initiative tie is settled (A2)."""

    SIMULTANEOUS = "simultaneous"
    REROLL = "reroll"


class DistanceTrigger(enum.StrEnum):
    """When the OSE wilderness distance shrinks (A3)."""

    EITHER = "either"
    BOTH = "both"


class MutualSurprise(enum.StrEnum):
    """What each side loses when both are surprised under the segments rule (A9)."""

    DIFFERENCE = "difference"
    FACE = "face"


class ArmorKind(enum.StrEnum):
    """The kinds of armor the AD&D armor list tags (§3.4)."""

    CLOTH = "cloth"
    LEATHER = "leather"
    METAL = "metal"
    PLATED = "plated"


class AvoidRule(enum.StrEnum):
    """How a side that surprised the other slips away (§3.4)."""

    ADD20 = "add20"
    MOVEMENT = "movement"


class WisSurprise(enum.StrEnum):
    """Whether each character's WIS modifies the party's surprise roll (A8, A33)."""

    SCALE = "scale"
    OFF = "off"


class WisScope(enum.StrEnum):
    """What a character's failed WIS surprise roll does to the party (§4.3, A8)."""

    #: only that character is surprised; the party as a side is surprised when all its characters are
    CHARACTER = "character"
    #: one surprised character makes the whole party surprised (hexlog 0.1.0)
    PARTY = "party"


class Encirclement(enum.StrEnum):
    """Whether a party surprised in the open by enough monsters is encircled (§2.2: it "may" be)."""

    #: always: the surprise step records it (hexlog 0.1.0)
    ALWAYS = "always"
    #: at the referee's call: the step ``encircle`` records it, and without it the party is not encircled
    REFEREE = "referee"


class CaughtDistance(enum.StrEnum):
    """How far apart the sides start when a wilderness pursuit catches the party (A18's spirit, §4.14, §2.9)."""

    #: a fresh meeting's distance roll (releases before the option was read)
    ROLLED = "rolled"
    #: the pursuers have closed on the party: melee range, no roll
    MELEE = "melee"


class ChaScale(enum.StrEnum):
    """Which CHA reaction scale applies (A31)."""

    OSE = "ose"
    UNIFORM = "uniform"


@attrs.frozen(kw_only=True)
class EncounterOptions:
    """The encounter's options."""

    section: ClassVar[str] = "options"

    distance_rules: DistanceRules = rule(
        help="Whose distance procedure applies: ose (seed 000 §2.3), adnd (seed 001 §3.2-3.3) "
        "or explore (seed 004 §4.3, §4.5).",
    )
    surprise_on: int = rule(
        2, help="A side is surprised when its d6 shows at most this (0: never, 6: always).", validator=in_range(0, 6)
    )
    surprise_advantage: AdvantageKind = rule(
        help="What surprising the other side gives (A4): a free round (OSE: the surprised side cannot act in it, "
        "nor a surprised party speak to the monsters, so a reaction rolled in it has no speaker), lost segments "
        "(AD&D) or one single action (seed 004 §4.3 1a, underground: in the open it gives no free action, "
        "only the closer distance and the evasion chances surprise changes).",
    )
    light_blocks_surprise: bool = rule(
        default=False,
        help="A side carrying light in darkness cannot surprise the other, which then does not roll (A5).",
    )
    noise_blocks_surprise: bool = rule(
        default=False,
        help="A side making noise gives itself away: the other side does not roll and cannot be surprised.",
    )
    noise_outdoors: bool = rule(
        default=True,
        help="Noise (a noisy side, noisy armor) counts in the open too (true), or only indoors and underground "
        "(false: seed 001 lists its noise modifier under INDOORS only).",
    )
    noisy_armor: tuple[ArmorKind, ...] | None = rule(
        None, help="The kinds of armor that make a side noisy (§3.4); leave out for no armor rule."
    )
    segments_on_mutual_surprise: MutualSurprise = rule(
        MutualSurprise.DIFFERENCE,
        help="Both sides surprised under the segments rule: the larger face loses the difference, "
        "or each loses its own face (A9).",
        read_when=(("surprise_advantage", ("segments",)), ("wilderness_surprise_advantage", ("segments",))),
    )
    wis_surprise_mod: WisSurprise | None = rule(
        None,
        help="scale: each character adds its WIS modifier to the party's d6 in the dungeon (A8); off: WIS is ignored.",
    )
    wis_surprise_scope: WisScope = rule(
        WisScope.PARTY,
        help="character: a character surprised by its WIS is surprised alone, the party only when all are (§4.3); "
        "party: one surprised character surprises the whole party.",
    )
    wilderness_surprise_advantage: AdvantageKind | None = rule(
        None,
        help="What surprising the other side gives in the open (wilderness, waterborne, outdoors); "
        "leave out for surprise_advantage everywhere (single_action grants its action underground only).",
    )
    surprised_sides_roll_initiative: bool = rule(
        default=True,
        help="A surprised side rolls initiative too (true), or only the sides not surprised roll (false, §2.4).",
    )
    mutually_surprised_sides_act: bool = rule(
        default=True,
        help="Under the one-round advantage (round), both sides surprised: both act at once in the first round "
        "(true), or neither does: a momentary confusion, the first round passes with nobody acting (false, seed 000: "
        '"surprised sides cannot move or act in the first round").',
        read_when=(("surprise_advantage", ("round",)), ("wilderness_surprise_advantage", ("round",))),
    )
    initiative_each_round: bool = rule(
        default=False,
        help="Initiative is rolled again at the start of every round after the first, and the round and the sides' "
        "actions in it wait for it (OSE), or once per encounter.",
    )
    caught_distance: CaughtDistance = rule(
        CaughtDistance.ROLLED,
        help="§4.14 / §2.9 (seed 004 'Caught: resolve encounter', OSE 'caught'; A18: no new distance roll where the "
        "situation gives it): the encounter a wilderness pursuit hands off when it catches the party (or the party "
        "stops, OSE) starts at melee range, the pursuers having closed (melee: distance 0, no roll), or at a fresh "
        "meeting's rolled distance (rolled, as rules recorded before it was read).",
        read_when=(("evasion_rules", ("odd", "ose")),),
    )
    missiles_without_limit: bool = rule(
        default=False,
        help="Where tables.distance sets no missiles_at_most, melee or missile attacks are possible at any "
        "distance (true); false records them as not possible there.",
    )
    surrounded_at_monsters: int = rule(
        0,
        help="A party surprised in the open by at least this many monsters is encircled, or may be at the "
        "referee's call under encirclement = referee (0: never).",
        validator=in_range(0, 10_000),
    )
    encirclement: Encirclement = rule(
        Encirclement.ALWAYS,
        help="Such a party is encircled always (the surprise step records it), or only at the referee's call "
        '(referee: the step encircle; §2.2 "may find itself encircled").',
    )
    wild_surprise_distance_trigger: DistanceTrigger = rule(
        DistanceTrigger.EITHER,
        help="OSE outdoors: the distance shrinks when either side is surprised, or only when both are (A3).",
        read_when=OSE_DISTANCE,
    )
    dungeon_distance: str | None = rule(
        None,
        help="Seed 004: the dungeon distance dice, an entry of tables.dungeon_distance (A17).",
        read_when=EXPLORE_DISTANCE,
    )
    outdoor_distance_dice: str | None = rule(
        None, help="AD&D outdoors: the distance dice, an entry of tables.outdoor_dice (A10).", read_when=ADND_DISTANCE
    )
    default_light_radius_ft: int = rule(
        0,
        help="AD&D indoors: a light carried (--party-light, --monsters-light) without --light-radius lights this "
        "many feet, so the distance is at most the table's light_cap_multiplier times it (A39; 0: no cap).",
        validator=in_range(0, 100_000),
        read_when=ADND_DISTANCE,
    )
    outdoor_min_distance_ft: int = rule(
        10,
        help="AD&D outdoors: the distance never falls below this many feet (A11).",
        validator=in_range(0, 100_000),
        read_when=ADND_DISTANCE,
    )
    initiative_tie: TieRule = rule(help="An initiative tie: both act at once, or both roll again (A2).")
    reroll_limit: int = rule(
        10,
        help="At most this many initiative re-rolls, then the sides act at once.",
        validator=in_range(0, 1000),
        read_when=(("initiative_tie", ("reroll",)),),
    )
    cha_reaction_scale: ChaScale = rule(help="The CHA reaction scale, an entry of tables.cha_reaction (A31).")
    reroll_uncertain_reaction: bool = rule(
        help="An uncertain reaction may be rolled again a round after it, and again while it stays uncertain (A7).",
    )
    pursue_if_reaction_at_most: int = rule(
        help="Monsters whose reaction total is at most this pursue a fleeing party (A6).", validator=in_range(-100, 100)
    )
    unintelligent_monsters_attack: bool = rule(
        default=False,
        help="Non-intelligent monsters roll no reaction: they move straight to melee (§4.3, §4.5).",
    )
    waterborne_pursuit_hands_off: bool = rule(
        default=False,
        help="§2.9 on water: pursuers who give chase hand the pursuit to the chase (the vessels' evasion, then "
        "rounds; needs tables.evasion_waterborne) and the encounter waits for it: caught, the sides fight; "
        "escaped, it ends. false: the encounter concludes in pursuit and the chase is started after it.",
    )
    surprised_party_flees_within_ft: int = rule(
        0,
        help="A surprised party within this many feet may try to flee before combat (§4.3 3a; 0: no such rule).",
        validator=in_range(0, 100_000),
    )
    encounter_move_divisor: int = rule(
        help="Encounter movement per round is the base rate divided by this (§2.7).", validator=in_range(1, 1000)
    )
    encounter_move_max_rounds: int = rule(
        help="Encounter movement lasts at most this many rounds (§2.7; 0: none, fight, evade or conclude at once).",
        validator=in_range(0, 100_000),
    )
    avoid_rule: AvoidRule | None = rule(
        None,
        help="How the side that alone surprised the other slips away unnoticed (§3.4); leave out for no such rule.",
    )

    @staticmethod
    def legacy(data: dict[str, Any], ruleset: str) -> dict[str, Any]:
        """Rulesets recorded before ``distance_rules`` existed chose the distance rules by their name."""
        if "distance_rules" not in data and ruleset in _LEGACY_DISTANCE_RULES:
            data["distance_rules"] = ruleset
        return data


@attrs.frozen(kw_only=True)
class DistanceRow:
    """How the distance of one setting is rolled: dice times a multiplier, in a unit."""

    unit: Unit
    dice: str = attrs.field(default="", validator=DISTANCE_DICE)
    multiplier: int = attrs.field(default=1, validator=in_range(1, MAX_MULTIPLIER))
    #: the dice when a side is surprised ("": not reduced)
    surprised_dice: str = attrs.field(default="", validator=DISTANCE_DICE)
    #: melee or missile attacks are possible at this distance or closer
    missiles_at_most: int | None = attrs.field(default=None, validator=in_range(0, MAX_FT))
    #: AD&D indoors: surprised totals that start in melee range
    surprised_melee_faces: tuple[int, ...] = attrs.field(default=(), validator=rollable_by("surprised_dice"))
    hiding_dice: str = attrs.field(default="", validator=DISTANCE_DICE)
    #: AD&D indoors: the distance is at most this many times the light radius
    light_cap_multiplier: int | None = attrs.field(default=None, validator=in_range(1, MAX_MULTIPLIER))
    #: AD&D outdoors: feet lost per surprise segment
    segment_ft: int | None = attrs.field(default=None, validator=in_range(0, MAX_FT))


@attrs.frozen(kw_only=True)
class ReactionBand:
    """One band of the reaction table: its lowest total and what it means."""

    at_least: int = attrs.field(validator=in_range(-1000, 1000))
    result: ReactionResult
    text: str = ""


@attrs.frozen(kw_only=True)
class DiceEntry:
    """Dice and a multiplier, chosen by an option."""

    dice: str = attrs.field(validator=dice_rule(required=True, lowest=0))
    multiplier: int = attrs.field(validator=in_range(1, MAX_MULTIPLIER))


@attrs.frozen(kw_only=True)
class TerrainChange:
    """AD&D outdoors: dice showing one of ``faces`` change by ``change``; the highest ``rank`` present applies."""

    faces: tuple[int, ...] = attrs.field(validator=in_range(1, dice.MAX_SIDES))
    change: int = attrs.field(validator=in_range(-dice.MAX_SIDES, dice.MAX_SIDES))
    rank: int = attrs.field(validator=in_range(0, 1000))

    @change.validator
    def _no_die_below_zero(self, attribute: attrs.Attribute[int], value: int) -> None:
        """A die may fall to 0 (A11: forest turns a 1 into 0), never below: a distance is not negative."""
        lowest = min(self.faces, default=0)
        if lowest + value < 0:
            turned = f"{value} would turn a {lowest} into {lowest + value}"
            msg = f"{attribute.name}: {turned}; a die may fall to 0, not below"
            raise ValueError(msg)


@attrs.frozen(kw_only=True)
class RoomRow:
    """One row of the small-room table."""

    at_most: int
    ft: int = attrs.field(validator=in_range(0, MAX_FT))
    melee: bool


@attrs.frozen(kw_only=True)
class SmallRoom:
    """AD&D: in a room of ``size_ft`` the distance is read from its own die."""

    size_ft: int = attrs.field(validator=in_range(1, MAX_FT))
    dice: str = attrs.field(validator=dice_rule(required=True))
    rows: tuple[RoomRow, ...] = attrs.field(validator=non_empty)

    @rows.validator
    def _one_row_a_total(self, attribute: attrs.Attribute[tuple[RoomRow, ...]], value: tuple[RoomRow, ...]) -> None:
        """The rows rise, every total of the dice finds one, and each can be rolled."""
        problem = _rows_problem(value, self.dice)
        if problem:
            msg = f"{attribute.name}{problem}"
            raise ValueError(msg)


def _rows_problem(rows: tuple[RoomRow, ...], expression: str) -> str:
    """What is wrong with the small-room rows for ``expression`` ("" when nothing), starting with where."""
    low, high = totals(expression, "dice")
    for i in range(1, len(rows)):
        if rows[i].at_most <= rows[i - 1].at_most:
            rise = f"{rows[i].at_most} does not rise above the row before ({rows[i - 1].at_most})"
            return f"[{i}].at_most: {rise}; list the rows from low to high"
    last = len(rows) - 1
    if rows and rows[last].at_most < high:
        return f"[{last}].at_most: {rows[last].at_most} leaves {high} without a row; cover {expression} up to {high}"
    if rows and rows[0].at_most < low:
        return f"[0].at_most: {rows[0].at_most} is below {low}, the lowest total of {expression}; no roll finds it"
    if last > 0 and rows[last - 1].at_most >= high:
        covered = f"{rows[last - 1].at_most} already covers {expression} up to {high}"
        return f"[{last - 1}].at_most: {covered}; no roll finds the last row"
    return ""


@attrs.frozen(kw_only=True)
class AvoidTable:
    """AD&D: the numbers of the two avoid rules (§3.4)."""

    add20_min_ft_indoors: int = attrs.field(validator=in_range(0, MAX_FT))
    add20_min_ft_outdoors: int = attrs.field(validator=in_range(0, MAX_FT))
    ft_per_inch_indoors: int = attrs.field(validator=in_range(1, 1000))
    ft_per_inch_outdoors: int = attrs.field(validator=in_range(1, 1000))
    default_rate_inches: int = attrs.field(validator=in_range(1, 1000))
    detection_open_multiplier: int = attrs.field(validator=in_range(1, MAX_MULTIPLIER))
    detection_close_add_ft: int = attrs.field(validator=in_range(0, MAX_FT))
    close_terrains: tuple[str, ...]


Bands = tuple[tuple[int, int], ...]


@attrs.frozen(kw_only=True)
class EncounterTables:
    """The encounter's tables."""

    section: ClassVar[str] = "tables"

    distance: dict[Setting, DistanceRow] = rule(
        help="Encounter distance by setting (§2.3, §3.2-3.3, §4.3, §4.5).", validator=non_empty
    )
    reaction: tuple[ReactionBand, ...] = rule(help="Monster reaction: 2d6 plus the speaker's CHA modifier (§2.5).")
    cha_reaction: dict[ChaScale, Bands] = rule(
        help="CHA reaction modifier scales: [lowest score, modifier] (§2.5, A31).",
        validator=bands(scores=SCORES, values=SCORE_MODIFIERS),
    )
    dungeon_distance: dict[str, DiceEntry] | None = chosen_by(
        "dungeon_distance", rule(None, help="Seed 004 dungeon distance dice (A17).", read_when=EXPLORE_DISTANCE)
    )
    wis_surprise: dict[WisSurprise, Bands] | None = rule(
        None,
        help="WIS surprise modifier: [lowest score, modifier] (§4.3).",
        validator=bands(scores=SCORES, values=SCORE_MODIFIERS),
    )
    outdoor_dice: dict[str, DiceEntry] | None = chosen_by(
        "outdoor_distance_dice", rule(None, help="AD&D outdoor distance dice (A10).", read_when=ADND_DISTANCE)
    )
    outdoor_terrain: dict[str, TerrainChange] | None = rule(None, help="AD&D terrain, applied to each die (§3.3, A12).")
    small_room: SmallRoom | None = rule(
        None, help="AD&D: the distance in a small room (§3.2).", read_when=ADND_DISTANCE
    )
    avoid: AvoidTable | None = rule(None, help="AD&D: avoiding the encounter (§3.4).")
    armor_kind: dict[str, ArmorKind] | None = rule(None, help="AD&D: the kind of each armor suit (§3.4).")


def check(rules: Ruleset) -> None:
    """Options that name a table entry find it, a rule finds the table it reads, and the reaction covers every total."""
    options, tables = rules.part(EncounterOptions), rules.part(EncounterTables)
    named = (
        ("dungeon_distance", options.dungeon_distance, tables.dungeon_distance),
        ("outdoor_distance_dice", options.outdoor_distance_dice, tables.outdoor_dice),
        ("cha_reaction_scale", options.cha_reaction_scale, tables.cha_reaction),
        (
            "wis_surprise_mod",
            options.wis_surprise_mod if options.wis_surprise_mod is not WisSurprise.OFF else None,
            tables.wis_surprise,
        ),
    )
    for option, value, table in named:
        if value is not None and (table is None or value not in table):
            shown = ", ".join(map(str, table)) if table else "nothing"
            msg = f"options.{option}: '{value}' is not an entry of its table (it has {shown})"
            raise RulesError(msg)
    needs: tuple[tuple[str, object, str, object], ...] = (
        ("avoid_rule", options.avoid_rule, "avoid", tables.avoid),
        ("noisy_armor", options.noisy_armor, "armor_kind", tables.armor_kind),
    )
    for rule_option, chosen, read, found in needs:
        if chosen is not None and found is None:
            msg = f"options.{rule_option}: the rule reads tables.{read}, which the rules do not have; add it"
            raise RulesError(msg)
    _check_reaction(tables.reaction)
    if tables.avoid is not None and tables.outdoor_terrain is not None:
        for i, terrain in enumerate(tables.avoid.close_terrains):
            if terrain not in tables.outdoor_terrain:
                known = ", ".join(tables.outdoor_terrain)
                where = f"tables.avoid.close_terrains[{i}]"
                msg = f"{where}: '{terrain}' is not a terrain of tables.outdoor_terrain ({known})"
                raise RulesError(msg)


def _check_reaction(reaction: tuple[ReactionBand, ...]) -> None:
    """Every total has a band (the lowest starts at -99 or lower), and no two bands start at the same total."""
    if not reaction or min(b.at_least for b in reaction) > -99:  # noqa: PLR2004 - the table's floor
        msg = "tables.reaction: the lowest band must start at -99 or lower, so that every total has a band"
        raise RulesError(msg)
    seen: dict[int, int] = {}
    for i, band in enumerate(reaction):
        if band.at_least in seen:
            twice = f"{band.at_least} starts band {seen[band.at_least]} too"
            msg = f"tables.reaction[{i}].at_least: {twice}; each band starts at its own total"
            raise RulesError(msg)
        seen[band.at_least] = i
