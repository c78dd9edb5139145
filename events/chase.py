"""Chase events: a pursuit in rounds in the dungeon (OSE §2.9, seed 004 §4.4) and on water (OSE §2.9).

Distances and rates are feet: a dungeon side runs its full base rate each round; a vessel moves its
rate each round. Every decision that used dice names the nonces of its rolls in ``rolls``.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event
from hexlog.events.vocabulary import Side


class ChaseSetting(enum.StrEnum):
    """Where a chase runs."""

    DUNGEON = "dungeon"
    WATERBORNE = "waterborne"


class Dropped(enum.StrEnum):
    """What the fleeing side drops to halt its pursuers."""

    TREASURE = "treasure"
    FOOD = "food"


class Outcome(enum.StrEnum):
    """How a chase ended."""

    ESCAPED = "escaped"
    CAUGHT = "caught"


@attrs.frozen(kw_only=True)
class ChaseStarted(Event):
    """A pursuit began: who flees, how far apart the sides are, how fast each runs, what the pursuers are."""

    type_name: ClassVar[str] = "chase.started"
    schema_version: ClassVar[int] = 2
    #: 1 for the campaign's first chase, 2 for the next, ...
    number: int
    name: str = ""
    setting: ChaseSetting
    #: the side that flees; the other pursues
    fleeing: Side = Side.PARTY
    #: the encounter it began from (its number), 0 when the referee started it
    from_encounter: int = 0
    #: the gap between the sides, in feet
    gap_ft: int
    #: each side's rate, feet per round (a dungeon side runs its full base rate)
    fleeing_ft: int
    pursuers_ft: int
    #: the party's members who run (they tire after the rules' rounds of running)
    runners: tuple[str, ...] = ()
    #: what the pursuers are: treasure lovers, hungry, intelligent, giving up once out of sight
    likes_treasure: bool = False
    hungry: bool = False
    intelligent: bool = True
    gives_up_out_of_sight: bool = True
    #: the referee's line of sight along the way (a corridor, the light): out of sight beyond it; 0 = not given
    line_of_sight_ft: int = 0
    #: the fleeing side is forced to stop (a dead end, a shut door): no automatic escape
    forced_to_stop: bool = False
    note: str = ""
    #: the encounter it began from found the fleeing side, or the pursuers, surprised (false without one)
    fleeing_surprised: bool = False
    pursuers_surprised: bool = False

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 recorded no surprise of the encounter it began from: it reads as neither side surprised."""
        return {**data, "fleeing_surprised": False, "pursuers_surprised": False}


@attrs.frozen(kw_only=True)
class StepsRepeated(Event):
    """A18: a pursuit from an encounter in progress repeats surprise and distance (1d6 per side, the distance dice)."""

    type_name: ClassVar[str] = "chase.steps_repeated"
    party_face: int
    monsters_face: int
    surprised_on: int
    party_surprised: bool
    monsters_surprised: bool
    #: the new gap, in feet, and the rule and steps that gave it
    gap_ft: int
    rule: str
    steps: tuple[str, ...] = ()
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class RoundRun(Event):
    """One round of the chase: each side's feet, the gap before and after, and what the referee declared."""

    type_name: ClassVar[str] = "chase.round_run"
    round: int
    fleeing_ft: int
    pursuers_ft: int
    gap_before: int
    gap_after: int
    #: waterborne: the gap closes by at least this much each round (0 in the dungeon)
    minimum_close_ft: int = 0
    #: an obstacle the referee declares (burning oil, a portcullis), the feet it costs the pursuers, or a stop
    obstacle: str = ""
    slowed_ft: int = 0
    stopped: bool = False
    #: the fleeing side is out of the pursuers' sight after the round
    out_of_sight: bool = False
    reason: str = ""


@attrs.frozen(kw_only=True)
class ItemDropped(Event):
    """The fleeing side dropped treasure or food; pursuers who care stop on the rules' chance in 6."""

    type_name: ClassVar[str] = "chase.item_dropped"
    item: Dropped
    #: whether the pursuers care (treasure: they like it; food: hungry or unintelligent)
    tempted: bool
    stop_in_6: int
    face: int = 0
    stopped: bool = False
    reason: str = ""
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class WaterEvasionRolled(Event):
    """A fleeing vessel's evasion: the chance by how much slower it is, a percentile roll."""

    type_name: ClassVar[str] = "chase.water_evasion_rolled"
    fleeing_ft: int
    pursuers_ft: int
    #: how much slower the fleeing vessel is, feet per round (0 or less: not slower)
    slower_by: int
    #: the row of the table read, in words, and its chance in percent
    row: str
    chance: int
    roll: int
    evaded: bool
    #: after a success the pursuers may try again only the next day, if that day's encounter check comes up
    retry_next_day: bool = False
    rolls: tuple[int, ...] = ()


@attrs.frozen(kw_only=True)
class ChaseExhausted(Event):
    """Characters ran the rules' rounds: they fight and defend worse until they rest."""

    type_name: ClassVar[str] = "chase.exhausted"
    round: int
    members: tuple[str, ...]
    #: added to their attack and damage rolls and to their armor class
    penalty: int
    #: turns of rest that end it
    recover_after_turns: int


@attrs.frozen(kw_only=True)
class ChaseEnded(Event):
    """The chase is over: the fleeing side escaped or was caught (melee then starts next round)."""

    type_name: ClassVar[str] = "chase.ended"
    number: int
    outcome: Outcome
    rounds: int = 0
    gap_ft: int = 0
    melee_next_round: bool = False
    #: waterborne: the pursuers may try again the next day, if that day's encounter check comes up
    retry_next_day: bool = False
    reason: str = ""
