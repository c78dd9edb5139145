"""Encounter events: the facts of one encounter, from its start to its conclusion.

Sides are named ``party`` and ``monsters``. Every decision that used dice names the nonces of those
rolls in ``rolls``. A length of ``0`` in ``EncounterStarted`` means the referee did not give it.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event
from hexlog.events.vocabulary import SIDES, Setting, Side, Unit

PARTY = Side.PARTY
MONSTERS = Side.MONSTERS

__all__ = [
    "MONSTERS",
    "PARTY",
    "SIDES",
    "Action",
    "ActionChosen",
    "Advantage",
    "AdvantageKind",
    "DecidedBy",
    "DistanceDetermined",
    "EncounterConcluded",
    "EncounterStarted",
    "EvasionRolled",
    "First",
    "FreeActionTaken",
    "InitiativeRolled",
    "MovementRated",
    "PartySurrounded",
    "PursuitDecided",
    "ReactionResult",
    "ReactionRolled",
    "RoundPlayed",
    "Setting",
    "Side",
    "SurpriseChecked",
    "Tie",
    "Unit",
]


class Advantage(enum.StrEnum):
    """Who gains the advantage of surprise: the side that alone surprised the other, or nobody."""

    NONE = "none"
    PARTY = "party"
    MONSTERS = "monsters"


class AdvantageKind(enum.StrEnum):
    """What surprise gives: a free round (OSE), lost segments (AD&D) or a single free action (explore)."""

    ROUND = "round"
    SEGMENTS = "segments"
    SINGLE_ACTION = "single_action"


class First(enum.StrEnum):
    """Who acts first after initiative."""

    PARTY = "party"
    MONSTERS = "monsters"
    SIMULTANEOUS = "simultaneous"


class Tie(enum.StrEnum):
    """How an initiative tie was settled (``none``: there was no tie)."""

    NONE = "none"
    SIMULTANEOUS = "simultaneous"
    REROLL = "reroll"


class ReactionResult(enum.StrEnum):
    """The bands of the monster reaction table."""

    ATTACKS = "attacks"
    HOSTILE = "hostile"
    UNCERTAIN = "uncertain"
    INDIFFERENT = "indifferent"
    FRIENDLY = "friendly"


class Action(enum.StrEnum):
    """A side's response to an encounter."""

    COMBAT = "combat"
    EVASION = "evasion"
    PARLEY = "parley"
    WAIT = "wait"
    AVOID = "avoid"


class DecidedBy(enum.StrEnum):
    """Who decided a pursuit."""

    REFEREE = "referee"
    PLAYERS = "players"
    REACTION = "reaction"


@attrs.frozen(kw_only=True)
class EncounterStarted(Event):
    """The referee opened an encounter and described the situation."""

    type_name: ClassVar[str] = "encounter.started"
    schema_version: ClassVar[int] = 3
    #: 1 for the campaign's first encounter, 2 for the next, ...
    number: int
    name: str = ""
    #: the ruleset in force when it started
    ruleset: str
    #: ``dungeon``, ``wilderness`` or ``waterborne`` (OSE, explore); ``indoors`` or ``outdoors`` (AD&D)
    setting: Setting
    #: the party's members when it started
    party: tuple[str, ...] = ()
    party_aware: bool = False
    monsters_aware: bool = False
    #: the side carries a light in a dark place
    party_light: bool = False
    monsters_light: bool = False
    party_noisy: bool = False
    monsters_noisy: bool = False
    monster_count: int = 1
    intelligent: bool = True
    #: the monsters' base movement rate (feet per turn, as the party's)
    monster_speed: int = 120
    terrains: tuple[str, ...] = ()
    line_of_sight_ft: int = 0
    area_ft: int = 0
    light_radius_ft: int = 0
    vision_ft: int = 0
    hiding: bool = False
    #: poor visibility (fog, blizzard: REFERENCE §4.10) divides the encounter distance by this (1: not)
    distance_divisor: int = 1
    #: the side is surprised on a d6 of 1 up to this (creatures surprised more or less often, seed 001);
    #: -1: the rules' surprise_on
    party_surprise_on: int = -1
    monsters_surprise_on: int = -1
    #: the monsters cannot be surprised: they do not roll
    monsters_unsurprisable: bool = False
    #: light, noise or other circumstances adjust the side's surprise d6 by this (seed 004; higher: harder
    #: to surprise)
    party_surprise_modifier: int = 0
    monsters_surprise_modifier: int = 0
    #: the longest infravision among the party's members when it started (seed 001 limits the distance by it)
    party_vision_ft: int = 0

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 had no poor visibility: its distances were never divided."""
        return {**data, "distance_divisor": 1}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 knew no per-side surprise chance, adjustment or unsurprisable monsters, and read no infravision."""
        return {
            **data,
            "party_surprise_on": -1,
            "monsters_surprise_on": -1,
            "monsters_unsurprisable": False,
            "party_surprise_modifier": 0,
            "monsters_surprise_modifier": 0,
            "party_vision_ft": 0,
        }


@attrs.frozen(kw_only=True)
class MovementRated(Event):
    """Each side's encounter movement per round: its base rate divided by ``divisor``."""

    type_name: ClassVar[str] = "encounter.movement_rated"
    #: the party moves at its slowest member's rate
    slowest_member: str
    party_base: int
    party_per_round: int
    monsters_base: int
    monsters_per_round: int
    #: ``ft`` underground, ``yd`` outdoors
    unit: Unit
    divisor: int
    max_rounds: int


@attrs.frozen(kw_only=True)
class SurpriseChecked(Event):
    """Surprise for both sides; a side that was aware (or is not rolled) shows ``rolled=False``."""

    type_name: ClassVar[str] = "encounter.surprise_checked"
    party_rolled: bool
    party_face: int = 0
    party_surprised: bool
    #: segments the side loses (AD&D), 0 otherwise
    party_segments: int = 0
    #: the party's members surprised when WIS modifiers split the party (explore)
    party_characters_surprised: tuple[str, ...] = ()
    party_reason: str = ""
    monsters_rolled: bool
    monsters_face: int = 0
    monsters_surprised: bool
    monsters_segments: int = 0
    monsters_reason: str = ""
    #: ``none``, ``party`` or ``monsters``: who gains the advantage
    advantage: Advantage = Advantage.NONE
    #: ``round`` (OSE), ``segments`` (AD&D) or ``single_action`` (explore)
    advantage_kind: AdvantageKind = AdvantageKind.ROUND
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class PartySurrounded(Event):
    """A party surprised by enough monsters in the open finds itself encircled."""

    type_name: ClassVar[str] = "encounter.party_surrounded"
    monster_count: int
    at_least: int
    reason: str = ""


@attrs.frozen(kw_only=True)
class DistanceDetermined(Event):
    """How far apart the sides are when they meet, and the rule and dice that said so."""

    type_name: ClassVar[str] = "encounter.distance_determined"
    value: int
    #: ``ft`` or ``yd``; an open field: a log of hexlog 0.1.0 may hold the unit its house rules named
    #: (``m``, say), kept as written
    unit: Unit | str
    melee: bool = False
    missiles_possible: bool = True
    #: the rule applied, e.g. ``ose.dungeon 2d6x10ft``, or ``referee`` when the referee set it
    rule: str
    #: each adjustment in order, in words
    steps: tuple[str, ...] = ()
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class FreeActionTaken(Event):
    """The side that surprised the other used its free action (explore) or its free segments (AD&D)."""

    type_name: ClassVar[str] = "encounter.free_action_taken"
    side: Side
    #: ``single_action`` or ``segments``
    kind: AdvantageKind
    #: segments it had, for ``segments``; 0 otherwise
    segments: int = 0
    action: str
    note: str = ""


@attrs.frozen(kw_only=True)
class InitiativeRolled(Event):
    """Who acts first: 1d6 per side that rolls (a surprised side too, unless the rules let only the sides not
    surprised roll), highest first."""

    type_name: ClassVar[str] = "encounter.initiative_rolled"
    #: the last faces rolled, 0 for a side that did not roll
    party_face: int = 0
    monsters_face: int = 0
    #: ``party``, ``monsters`` or ``simultaneous``
    first: First
    #: the sides in acting order (both, for simultaneous)
    order: tuple[Side, ...]
    #: ``none``, ``simultaneous`` or ``reroll`` (how a tie was handled)
    tie: Tie = Tie.NONE
    rerolls: int = 0
    #: the side that gains a free round because only it is unsurprised, or ""
    free_round: str = ""
    reason: str = ""
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class ReactionRolled(Event):
    """The monsters' reaction: 2d6 plus the speaker's CHA modifier, read on the reaction table.

    Since version 2 a party surprised in the first round (under the one-round advantage) has no speaker in it, as it
    cannot act; before, a release let its speaker's CHA modifier count (the audit holds only a version 2 reaction to
    the rule).
    """

    type_name: ClassVar[str] = "encounter.reaction_rolled"
    schema_version: ClassVar[int] = 2
    #: the character who spoke, or "" when nobody did
    speaker: str = ""
    cha: int = 0
    cha_modifier: int = 0
    #: the referee's situational modifier
    modifier: int = 0
    dice: int
    total: int
    #: the band of the reaction table; an open field: a log of hexlog 0.1.0 may hold a band its house
    #: rules named (``wary``, say), kept as written
    result: ReactionResult | str
    text: str = ""
    #: the round of the encounter it was rolled in (0 = before any round)
    round: int = 0
    #: the one re-roll an uncertain result allows after a round
    reroll: bool = False
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 records the same fields: only who may speak in the first round changed."""
        return dict(data)


@attrs.frozen(kw_only=True)
class ActionChosen(Event):
    """A side's response: combat, evasion, parley, wait or avoid (``both`` for the two sides).

    Since version 2, where initiative is rolled each round (option ``initiative_each_round``) a side chooses in a
    round after the first only once that round's initiative is rolled; before, a release let it choose on the last
    round's (the audit holds only a version 2 choice to the rule, and later ones). Since version 3 an avoid records
    what the referee gave for it (``rate_inches``, ``detection_range_ft``), which the AD&D movement rule reads, and
    the audit runs the avoid again from the state before it: one the rules refuse there, or whose verdict differs,
    is a finding. An avoid of an earlier version is let be: its release did not record what the referee gave.
    """

    type_name: ClassVar[str] = "encounter.action_chosen"
    schema_version: ClassVar[int] = 3
    side: Side
    action: Action
    note: str = ""
    #: an avoid's surprisers' movement rate in inches, as the referee gave it (``encounter avoid --rate-inches``; null:
    #: not given, or not an avoid)
    rate_inches: int | None = None
    #: how far the surprised side would notice an avoiding side, in feet, as the referee gave it (``encounter avoid
    #: --detection-range``; null: not given, or not an avoid)
    detection_range_ft: int | None = None

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 records the same fields: only when the rules let a side choose changed."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 records what the referee gave for an avoid; an earlier one recorded none of it."""
        return {**data, "rate_inches": None, "detection_range_ft": None}


@attrs.frozen(kw_only=True)
class PursuitDecided(Event):
    """The side that was fled from chose whether to pursue; for monsters a low reaction suggests it.

    Since version 2 the encounter a delve waits for (under rules with the dungeon pursuit table) hands its chase off
    itself when its pursuers give chase, as one on water does: the chase starts at once, and the encounter waits for
    it, fights a fleeing side caught and ends when it gets away. Before, it concluded in pursuit (its turn passing
    first) and the delve handed the chase on, going on exploring once it ended (the audit re-runs such a decision
    as its release made it). Version 2 also records what the referee said of pursuers who give chase in a chase
    handed off (``likes_treasure``, ``hungry``), which that chase starts with. Since version 3 an encounter the
    referee started in the dungeon setting, which no procedure waits for, hands its chase off too, as a delve's does:
    before, it concluded in pursuit, its turn passing before the chase the referee started by hand (the audit re-runs
    such a decision as its release made it). Its data is unchanged.
    """

    type_name: ClassVar[str] = "encounter.pursuit_decided"
    schema_version: ClassVar[int] = 3
    pursuer: Side
    fleeing: Side
    pursue: bool
    #: what the rules suggested (monsters: reaction total at most the threshold)
    suggested: bool = False
    reaction_total: int = 0
    at_most: int = 0
    #: ``referee``, ``players`` or ``reaction``
    decided_by: DecidedBy
    #: the pursuers like treasure (dropped treasure may stop them): the referee's word on pursuers who give chase in
    #: a chase the encounter hands off, which starts with it (version 2)
    likes_treasure: bool = False
    #: the pursuers are hungry (dropped food may stop them): the referee's word, as for ``likes_treasure``
    hungry: bool = False
    note: str = ""
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 concluded a delve's encounter in pursuit (the audit re-runs it as its release ran it), and its
        referee could not say the pursuers like treasure or are hungry: neither."""
        return {**data, "likes_treasure": False, "hungry": False}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 handed a dungeon chase off only where a delve waited for the encounter (the audit re-runs it as
        its release ran it); its data is version 3's."""
        return data


@attrs.frozen(kw_only=True)
class EvasionRolled(Event):
    """Seed 004 (§4.5 6a, §4.13): the fleeing party's evasion roll, d100 at most ``chance`` evades.

    ``total`` is 0 when a rule decided without dice (no chance when surprised, say). ``advantage`` (since
    version 2) is the advantage of surprise the chance read: when both sides were surprised neither has it (seed
    004 1a, OSE §2.2), where before version 2 the party was read as surprised whenever it was. Since version 3 the
    woods the referee leaves out are, on a journey, those of the hex the party believes it is in: before, a lost
    party's were its true hex's, which told the players its terrain (the woods are the referee's to give: the audit
    re-runs every version with those recorded). Since version 4 the d100 is made for the party, where a low total is
    good: its exhaustion raises the total, counted against it; before, it was made for nobody and an exhausted party
    evaded as a fresh one (the audit re-runs such a roll as its release made it).
    """

    type_name: ClassVar[str] = "encounter.evasion_rolled"
    schema_version: ClassVar[int] = 4
    fleeing: Side
    fleeing_count: int
    pursuers_count: int
    #: the flight is in woods (on a journey, unless the referee says: the hex the party believes it is in, version
    #: 3); the party uses magic to get away
    woods: bool = False
    magic: bool = False
    #: who had the advantage of surprise as the chance read it: ``monsters`` (they alone surprised the party: no
    #: chance but in woods or by magic), ``party`` (it alone surprised them: the chance doubled) or ``none``
    #: (neither side surprised, or both)
    advantage: Advantage
    chance: int
    base: int
    #: how the chance was made, in order
    steps: tuple[str, ...] = ()
    total: int = 0
    evaded: bool
    rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 read the party as surprised whenever it was, both sides surprised too, and recorded how it read
        surprise only in its steps: a step from ``surprised`` on (no chance, the flat chance in woods, or magic that
        lifts it) is the monsters' advantage, ``the party surprised the enemy`` the party's, neither none."""
        steps = data.get("steps")
        said = [step for step in steps if isinstance(step, str)] if isinstance(steps, list | tuple) else []
        advantage = Advantage.NONE
        if any(step.startswith("surprised") for step in said):
            advantage = Advantage.MONSTERS
        elif any(step.startswith("the party surprised the enemy") for step in said):
            advantage = Advantage.PARTY
        return {**data, "advantage": advantage.value}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 read the woods of the party's true hex on a journey (the same hex unless the party was lost): its
        data reads as version 3 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v3_v4(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 rolled the d100 for nobody, so exhaustion did not reach it: its data reads as version 4
        unchanged (the audit re-runs it as its release rolled it)."""
        return dict(data)


@attrs.frozen(kw_only=True)
class RoundPlayed(Event):
    """One round of the encounter passed; ``acting`` names the sides that could act in it.

    Since version 2, where initiative is rolled each round (option ``initiative_each_round``) a round after the first
    is played only once its own initiative is rolled; before, a release let it be played on the last round's (the
    audit holds only a version 2 round to the rule).
    """

    type_name: ClassVar[str] = "encounter.round_played"
    schema_version: ClassVar[int] = 2
    round: int
    combat: bool = False
    acting: tuple[Side, ...] = ()
    reason: str = ""
    note: str = ""

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 records the same fields: only when the rules let a round be played changed."""
        return dict(data)


@attrs.frozen(kw_only=True)
class EncounterConcluded(Event):
    """The encounter ended; the clock advances by ``seconds`` (at least one turn)."""

    type_name: ClassVar[str] = "encounter.concluded"
    number: int
    #: ``resolved``, ``evaded``, ``pursuit``, ``avoided``, ...
    outcome: str
    rounds: int = 0
    turns: int = 1
    seconds: int
    reason: str = ""


@attrs.frozen(kw_only=True)
class EncounterCancelled(Event):
    """An encounter started by mistake ends as cancelled: no game time passes and nothing recorded is removed."""

    type_name: ClassVar[str] = "encounter.cancelled"
    number: int
    #: the phase it was in when cancelled (``surprise``, ``actions``, ...)
    phase: str
    reason: str


@attrs.frozen(kw_only=True)
class EncounterCorrected(Event):
    """A fact of the encounter's start was recorded wrong: the new value from now on, naming the earlier one."""

    type_name: ClassVar[str] = "encounter.corrected"
    number: int
    #: the fact corrected (``monster_count``)
    field: str
    #: the value recorded before, and the value from now on
    was: int
    now: int
    reason: str
