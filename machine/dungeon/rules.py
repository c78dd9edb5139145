"""The tables the dungeon reads, typed, and the pure rules of its chances (REFERENCE §1, §4.2).

``tables.light`` (OSE values, which seed 004 inherits: its Light header is empty), ``tables.dungeon``
(the seed's wandering check, listening, secret doors, spikes; OSE rest) and ``tables.open_doors``
(the DEFAULT "Feat of Strength": OSE's open-doors chance by STR, A33). A ruleset may leave the
dungeon tables out (OSE has only light): a delve is then refused, naming the missing table.
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs

from hexlog.machine.commands import ABILITY
from hexlog.machine.kit.rules import bands, in_range, non_empty, rule

#: the faces of the dungeon's d6 chances
D6 = (1, 6)
#: ability scores (``commands.ABILITY``, as the party's sheets): a band table starts at the lowest
SCORES = (ABILITY.least, ABILITY.most)
#: the longest a light burns or a check waits, in turns (a year of turns)
MAX_TURNS = 52_560
MAX_RADIUS_FT = 1000


@attrs.frozen(kw_only=True)
class LightTable:
    """How long lights burn and how far they light (§1)."""

    torch_turns: int = attrs.field(validator=in_range(1, MAX_TURNS))
    lantern_turns_per_flask: int = attrs.field(validator=in_range(1, MAX_TURNS))
    radius_ft: int = attrs.field(validator=in_range(0, MAX_RADIUS_FT))


class SecretDoorRoll(enum.StrEnum):
    """Whose die a turn of searching for secret doors rolls (§4.2: "1-in-6 per turn of searching")."""

    #: one secret d6 for the party's turn of searching, whoever searches (seed 004's reading)
    PARTY = "party"
    #: one secret d6 for each searcher, the door found when any hits (B/X-style play)
    EACH_SEARCHER = "each_searcher"


@attrs.frozen(kw_only=True)
class DungeonTable:
    """The exploration turn's checks: faces of a d6 that succeed (§4.2)."""

    wandering_every_turns: int = attrs.field(validator=in_range(1, MAX_TURNS))
    wandering_on: tuple[int, ...] = attrs.field(validator=in_range(*D6))
    listen_on: tuple[int, ...] = attrs.field(validator=in_range(*D6))
    secret_door_on: tuple[int, ...] = attrs.field(validator=in_range(*D6))
    spike_slips_on: tuple[int, ...] = attrs.field(validator=in_range(*D6))
    rest_turns_per_hour: int = attrs.field(validator=in_range(0, 6))
    #: a dangerous place (``enter --danger``): checks this often and on these faces. DEFAULT: the seed
    #: only says danger "may increase the frequency or likelihood"; every turn on 1-2 does both
    danger_every_turns: int = attrs.field(default=1, validator=in_range(1, MAX_TURNS))
    danger_wandering_on: tuple[int, ...] = attrs.field(default=(1, 2), validator=in_range(*D6))
    #: an hour of delving without its turns of rest: this on attack and damage rolls made for a member until
    #: the party rests (REFERENCE §1, OSE; 0: no penalty, as in rules recorded before it was read)
    unrested_penalty: int = attrs.field(default=0, validator=in_range(-10, 0))
    #: a door swings shut after it is opened (§4.2: "players must open them again each time"): one that had to be
    #: forced sticks again, and is forced again each time, unless spiked open; false: once forced it no longer
    #: sticks (as in rules recorded before it was read)
    doors_stick_again: bool = False
    #: a turn of searching for secret doors rolls one d6 for the party ("party", §4.2: "1-in-6 per turn of
    #: searching") or one for each searcher ("each_searcher", as in rules recorded before it was read)
    secret_door_roll: SecretDoorRoll = SecretDoorRoll.EACH_SEARCHER


@attrs.frozen(kw_only=True)
class OpenDoorsTable:
    """Forcing a stuck door: [lowest STR, chance in 6]; a crowbar or axe helps and may break (§4.2, A33)."""

    by_str: tuple[tuple[int, int], ...] = attrs.field(validator=[non_empty, bands(scores=SCORES, values=(0, 6))])
    tool_bonus_in_6: int = attrs.field(validator=in_range(0, 6))
    tool_breaks_on: tuple[int, ...] = attrs.field(validator=in_range(*D6))


@attrs.frozen(kw_only=True)
class DungeonTables:
    """The dungeon's tables (each may be left out of a ruleset; a delve then needs the missing ones)."""

    section: ClassVar[str] = "tables"

    light: LightTable | None = rule(None, help="Light: torch turns, lantern turns per flask, radius (§1, §4.2).")
    dungeon: DungeonTable | None = rule(
        None,
        help="Dungeon turn: wandering check every N turns on these d6 faces, listening, secret doors, "
        "spikes, rest turns per hour and the penalty to attack and damage for an hour without them; "
        "the danger values of a dangerous place; secret_door_roll: party (one secret d6 for each turn of "
        "searching, whoever searches) or each_searcher (one for each searcher) (§4.2, §1).",
    )
    open_doors: OpenDoorsTable | None = rule(
        None, help="Stuck doors: chance in 6 by STR band, a tool's bonus and its breakage faces (§4.2, A33)."
    )


def str_chance(table: OpenDoorsTable, strength: int) -> int:
    """The chance in 6 to force a stuck door with this STR: the band of the highest lowest score it reaches."""
    chance = table.by_str[0][1]
    for lowest, value in table.by_str:
        if strength >= lowest:
            chance = value
    return chance


def in_chance(read: int, chance: int) -> bool:
    """An N-in-6 (or N %) check: the die as read (``kit.context.read_low``: a penalty raises it), never below 1,
    is at most the chance."""
    return chance > 0 and max(1, read) <= chance


def on_faces(read: int, faces: tuple[int, ...]) -> bool:
    """A check on listed faces: the die as read, never below 1, is one of them."""
    return max(1, read) in faces
