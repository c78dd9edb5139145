"""The options and tables the encounter reads, typed: a ruleset is structured into these when loaded.

Each field's sentence is what ``hexlog rules show`` prints beside it. A field with a default may be
left out of a ruleset: the rule it names then does not apply (for example, only the AD&D text has a
rule for noisy armour). The section numbers are those of REFERENCE.md.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, ClassVar

import attrs

from hexlog.events.encounter import AdvantageKind, ReactionResult
from hexlog.events.vocabulary import Setting, Unit
from hexlog.machine.kit.rules import RulesError, dice_expression, in_range, rule

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset

#: the rulesets written before ``distance_rules`` existed named their distance rules by their own name
_LEGACY_DISTANCE_RULES = frozenset({"ose", "adnd", "explore"})


class DistanceRules(enum.StrEnum):
    """Which text's procedure determines the encounter distance."""

    OSE = "ose"
    ADND = "adnd"
    EXPLORE = "explore"


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
    """The kinds of armour the AD&D armour list tags (§3.4)."""

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
        help="What surprising the other side gives (A4): a free round (OSE), lost segments (AD&D) "
        "or one single action (seed 004).",
    )
    light_blocks_surprise: bool = rule(
        default=False,
        help="A side carrying light in darkness cannot surprise the other, which then does not roll (A5).",
    )
    noise_blocks_surprise: bool = rule(
        default=False,
        help="A side making noise gives itself away: the other side does not roll and cannot be surprised.",
    )
    noisy_armor: tuple[ArmorKind, ...] | None = rule(
        None, help="The kinds of armour that make a side noisy (§3.4); leave out for no armour rule."
    )
    segments_on_mutual_surprise: MutualSurprise = rule(
        MutualSurprise.DIFFERENCE,
        help="Both sides surprised under the segments rule: the larger face loses the difference, "
        "or each loses its own face (A9).",
    )
    wis_surprise_mod: WisSurprise | None = rule(
        None,
        help="scale: each character adds its WIS modifier to the party's d6 in the dungeon (A8); off: WIS is ignored.",
    )
    surrounded_at_monsters: int = rule(
        0,
        help="A party surprised in the open by at least this many monsters is surrounded (0: never).",
        validator=in_range(0, 10_000),
    )
    wild_surprise_distance_trigger: DistanceTrigger = rule(
        DistanceTrigger.EITHER,
        help="OSE outdoors: the distance shrinks when either side is surprised, or only when both are (A3).",
    )
    dungeon_distance: str | None = rule(
        None, help="Seed 004: the dungeon distance dice, an entry of tables.dungeon_distance (A17)."
    )
    outdoor_distance_dice: str | None = rule(
        None, help="AD&D outdoors: the distance dice, an entry of tables.outdoor_dice (A10)."
    )
    outdoor_min_distance_ft: int = rule(
        10, help="AD&D outdoors: the distance never falls below this many feet (A11).", validator=in_range(0, 100_000)
    )
    initiative_tie: TieRule = rule(help="An initiative tie: both act at once, or both roll again (A2).")
    reroll_limit: int = rule(
        10, help="At most this many initiative re-rolls, then the sides act at once.", validator=in_range(0, 1000)
    )
    cha_reaction_scale: ChaScale = rule(help="The CHA reaction scale, an entry of tables.cha_reaction (A31).")
    reroll_uncertain_reaction: bool = rule(
        help="An uncertain reaction may be rolled again once, after a round has passed (A7).",
    )
    pursue_if_reaction_at_most: int = rule(
        help="Monsters whose reaction total is at most this pursue a fleeing party (A6).", validator=in_range(-100, 100)
    )
    unintelligent_monsters_attack: bool = rule(
        default=False,
        help="Non-intelligent monsters roll no reaction: they move straight to melee (§4.3, §4.5).",
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
        help="Encounter movement lasts at most this many rounds (§2.7; 0: no limit is kept).",
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
    dice: str = attrs.field(default="", validator=dice_expression)
    multiplier: int = attrs.field(default=1, validator=in_range(1, 10_000))
    #: the dice when a side is surprised ("": not reduced)
    surprised_dice: str = attrs.field(default="", validator=dice_expression)
    #: melee or missile attacks are possible at this distance or closer
    missiles_at_most: int | None = None
    #: AD&D indoors: surprised faces that start in melee range
    surprised_melee_faces: tuple[int, ...] = ()
    hiding_dice: str = attrs.field(default="", validator=dice_expression)
    light_cap_multiplier: int | None = None
    #: AD&D outdoors: feet lost per surprise segment
    segment_ft: int | None = None


@attrs.frozen(kw_only=True)
class ReactionBand:
    """One band of the reaction table: its lowest total and what it means."""

    at_least: int
    result: ReactionResult
    text: str = ""


@attrs.frozen(kw_only=True)
class DiceEntry:
    """Dice and a multiplier, chosen by an option."""

    dice: str = attrs.field(validator=dice_expression)
    multiplier: int = attrs.field(validator=in_range(1, 10_000))


@attrs.frozen(kw_only=True)
class TerrainChange:
    """AD&D outdoors: dice showing one of ``faces`` change by ``change``; the highest ``rank`` present applies."""

    faces: tuple[int, ...]
    change: int
    rank: int


@attrs.frozen(kw_only=True)
class RoomRow:
    """One row of the small-room table."""

    at_most: int
    ft: int
    melee: bool


@attrs.frozen(kw_only=True)
class SmallRoom:
    """AD&D: in a room of ``size_ft`` the distance is read from its own die."""

    size_ft: int
    dice: str = attrs.field(validator=dice_expression)
    rows: tuple[RoomRow, ...]


@attrs.frozen(kw_only=True)
class AvoidTable:
    """AD&D: the numbers of the two avoid rules (§3.4)."""

    add20_min_ft_indoors: int
    add20_min_ft_outdoors: int
    ft_per_inch_indoors: int
    ft_per_inch_outdoors: int
    default_rate_inches: int
    detection_open_multiplier: int
    detection_close_add_ft: int
    close_terrains: tuple[str, ...]


Bands = tuple[tuple[int, int], ...]


@attrs.frozen(kw_only=True)
class EncounterTables:
    """The encounter's tables."""

    section: ClassVar[str] = "tables"

    distance: dict[Setting, DistanceRow] = rule(help="Encounter distance by setting (§2.3, §3.2-3.3, §4.3, §4.5).")
    reaction: tuple[ReactionBand, ...] = rule(help="Monster reaction: 2d6 plus the speaker's CHA modifier (§2.5).")
    cha_reaction: dict[ChaScale, Bands] = rule(
        help="CHA reaction modifier scales: [lowest score, modifier] (§2.5, A31)."
    )
    dungeon_distance: dict[str, DiceEntry] | None = rule(None, help="Seed 004 dungeon distance dice (A17).")
    wis_surprise: dict[WisSurprise, Bands] | None = rule(
        None, help="WIS surprise modifier: [lowest score, modifier] (§4.3)."
    )
    outdoor_dice: dict[str, DiceEntry] | None = rule(None, help="AD&D outdoor distance dice (A10).")
    outdoor_terrain: dict[str, TerrainChange] | None = rule(None, help="AD&D terrain, applied to each die (§3.3, A12).")
    small_room: SmallRoom | None = rule(None, help="AD&D: the distance in a small room (§3.2).")
    avoid: AvoidTable | None = rule(None, help="AD&D: avoiding the encounter (§3.4).")
    armor_kind: dict[str, ArmorKind] | None = rule(None, help="AD&D: the kind of each armour suit (§3.4).")


def check(rules: Ruleset) -> None:
    """Options that name a table entry find it; the reaction table has an uncertain band and covers every total."""
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
    if not tables.reaction or min(b.at_least for b in tables.reaction) > -99:  # noqa: PLR2004 - the table's floor
        msg = "tables.reaction: the lowest band must start at -99 or lower, so that every total has a band"
        raise RulesError(msg)
