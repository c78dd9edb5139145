"""The rules a chase reads, typed, and the pure arithmetic of its chances and rounds (REFERENCE §2.9, §4.4, A18).

``tables.dungeon_pursuit`` (OSE §2.9, which seed 004's underworld pursuit takes for its step 4): the
dropped treasure and food chances in 6, the rounds of running that exhaust, the penalty and the
turns of rest that end it, and the gap at which the pursuers start melee. ``tables.evasion_waterborne``
(OSE §2.9): the evasion chance by how much slower the fleeing vessel is, and the least the gap
closes each round. ``options.pursuit_repeats_encounter_steps`` (A18): a pursuit from an encounter in
progress repeats surprise and distance.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.machine.kit.rules import in_range, non_empty, rule

#: the longest gap or rate, in feet, a chase reads
MAX_FT = 100_000
PERCENT = 100
#: the dropped item treasure lovers stop for (the other is food)
TREASURE = "treasure"


def _ascending(_: Any, attribute: attrs.Attribute[Any], value: tuple[tuple[int, int], ...]) -> None:
    """A validator: rows [slower by at most ft, %] with thresholds rising and chances in 0..100."""
    last = -1
    for i, (most, pct) in enumerate(value):
        if most <= last:
            msg = f"{attribute.name}[{i}]: {most} ft does not rise above the row before ({last} ft)"
            raise ValueError(msg)
        if not 0 <= pct <= PERCENT:
            msg = f"{attribute.name}[{i}][1]: {pct} is out of range; allowed 0 to 100"
            raise ValueError(msg)
        last = most


@attrs.frozen(kw_only=True)
class DungeonPursuitTable:
    """Dungeon pursuit (OSE §2.9; seed 004 §4.4)."""

    dropped_treasure_stop_in_6: int = attrs.field(validator=in_range(0, 6))
    dropped_food_stop_in_6: int = attrs.field(validator=in_range(0, 6))
    exhaustion_rounds: int = attrs.field(validator=in_range(1, 10_000))
    exhaustion_penalty: int = attrs.field(validator=in_range(-20, 0))
    recovery_turns: int = attrs.field(validator=in_range(0, 10_000))
    #: DEFAULT (§4.4): pursuers that close the gap to this start melee next round
    melee_at_gap_ft: int = attrs.field(default=0, validator=in_range(0, MAX_FT))

    def stop_for(self, item: str, *, likes_treasure: bool, hungry: bool, intelligent: bool) -> tuple[bool, int]:
        """Whether pursuers are tempted by a dropped ``item`` at all (treasure those who like it; food the hungry or
        unintelligent), and the chance in 6 that it stops them (OSE §2.9)."""
        if item == TREASURE:
            return likes_treasure, self.dropped_treasure_stop_in_6
        return hungry or not intelligent, self.dropped_food_stop_in_6


@attrs.frozen(kw_only=True)
class WaterborneEvasionTable:
    """Waterborne evasion (OSE §2.9): [slower by at most ft/round, %] rows, and the least the gap closes."""

    faster_pct: int = attrs.field(validator=in_range(0, PERCENT))
    slower: tuple[tuple[int, int], ...] = attrs.field(validator=[non_empty, _ascending])
    slower_beyond_pct: int = attrs.field(validator=in_range(0, PERCENT))
    min_close_ft_per_round: int = attrs.field(validator=in_range(0, MAX_FT))


@attrs.frozen(kw_only=True)
class ChaseTables:
    """The chase's tables (each may be left out: a chase of that kind is then refused, naming it)."""

    section: ClassVar[str] = "tables"

    dungeon_pursuit: DungeonPursuitTable | None = rule(
        None,
        help="Dungeon pursuit: dropped treasure and food stop pursuers on N in 6; exhaustion after N rounds of "
        "running, its penalty and the turns of rest that end it; the gap at which melee starts (§2.9, §4.4).",
    )
    evasion_waterborne: WaterborneEvasionTable | None = rule(
        None,
        help="Waterborne evasion: % when the fleeing vessel is faster, rows [slower by at most ft/round, %], "
        "% beyond them, and the least the gap closes each round of the pursuit (§2.9).",
    )


@attrs.frozen(kw_only=True)
class ChaseOptions:
    """The chase's options."""

    section: ClassVar[str] = "options"

    pursuit_repeats_encounter_steps: bool = rule(
        False,  # noqa: FBT003 - a default
        help="A18: a pursuit that starts from an encounter in progress repeats surprise and distance.",
    )


def water_chance(table: WaterborneEvasionTable, fleeing_ft: int, pursuers_ft: int) -> tuple[int, str, int]:
    """The evasion chance of a vessel: (slower by, the row in words, %)."""
    slower_by = pursuers_ft - fleeing_ft
    if slower_by < 0:
        return slower_by, "faster", table.faster_pct
    low = 0
    for most, pct in table.slower:
        if slower_by <= most:
            return slower_by, f"{low}-{most} ft/round slower", pct
        low = most + 1
    return slower_by, f"{low}+ ft/round slower", table.slower_beyond_pct


def in_6(face: int, chance: int) -> bool:
    """An N-in-6 chance (pursuers stop for what was dropped): the face is at most N."""
    return chance > 0 and face <= chance


def evades(roll: int, chance: int) -> bool:
    """A percentile evasion: the roll (1-100) is at most the chance."""
    return roll <= chance
