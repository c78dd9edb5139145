"""The options and tables the camp reads, typed (seed 004 §4.16, A19, A21, A34).

A ruleset without a camp table (ose, adnd) has no night in camp: the camp's commands say so. The
night's check reads the parts it shares with the travel day (``WildernessOptions``,
``WildernessTables``: the night's check, the weather's flags) and with the rest after a pursuit's
escape too (``ChanceSource``, ``TerrainChances``: the encounter chances by terrain and their
source). The check across the parts (``check``) refuses a camp table whose watches do not fill the
night, or whose watch die cannot pick every watch. A watch lasts ``options.watch_seconds`` on the
game clock; the table's ``watch_hours`` is the sleep it costs a guard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import attrs

from hexlog.machine.kit.rules import RulesError, dice_rule, in_range, rule, totals
from hexlog.machine.travel.rules import ChanceSource, TerrainChances, WildernessOptions

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset

DAY_HOURS = 24


@attrs.frozen(kw_only=True)
class CampTable:
    """§4.16: the night, its watches, sleep, healing, firewood and the night's wandering check."""

    night_hours: int = rule(help="Hours in a night in camp.", validator=in_range(1, DAY_HOURS))
    watches: int = rule(help="Watches in a night, each with at least one guard.", validator=in_range(1, DAY_HOURS))
    watch_hours: int = rule(
        help="Hours of sleep one watch costs its guard: a member standing one sleeps night_hours - watch_hours "
        "(on the clock a watch lasts options.watch_seconds).",
        validator=in_range(1, DAY_HOURS),
    )
    min_sleep_hours: int = rule(
        help="A member who sleeps fewer hours than this does not benefit from rest.", validator=in_range(0, DAY_HOURS)
    )
    heal_hp: int = rule(help="Hit points healed by a member who slept enough.", validator=in_range(0, 100))
    firewood_dice: str = rule(
        help="Hours of fuel each gatherer brings back.", validator=dice_rule(required=True, lowest=0)
    )
    firewood_wet_divisor: int = rule(
        help="DEFAULT: each gatherer's hours are divided by this (rounded down) in wet weather.",
        validator=in_range(1, 100),
    )
    firewood_winter_divisor: int = rule(
        help="DEFAULT: each gatherer's hours are divided by this (rounded down) in winter, after the wet divisor.",
        validator=in_range(1, 100),
    )
    night_checks: int = rule(
        help="Wandering checks each night (seed: one), on the terrain's encounter range.", validator=in_range(0, 10)
    )
    watch_dice: str = rule(
        help="DEFAULT: the die that picks the watch an encounter comes in (it must show 1 to watches).",
        validator=dice_rule(required=True),
    )
    sleepers_surprised_on: int = rule(
        help="DEFAULT: the sleepers are surprised when the party's d6 shows at most this (the guards keep the "
        "encounter's surprise_on); the party counts as surprised when any member is.",
        validator=in_range(0, 6),
    )


@attrs.frozen(kw_only=True)
class CampTables:
    """The tables the camp reads."""

    section: ClassVar[str] = "tables"

    camp: CampTable | None = rule(None, help="§4.16 camping: the night, watches, sleep, firewood, the night check.")


def check(ruleset: Ruleset) -> None:
    """Refuse a camp table that cannot run a night: watches that do not fill it, a watch die that misses one."""
    table = ruleset.part(CampTables).camp
    if table is None:
        return
    where = "tables.camp"
    if table.watches * table.watch_hours != table.night_hours:
        msg = (
            f"{where}.watches: {table.watches} watches of {table.watch_hours} hours do not fill a night of "
            f"{table.night_hours} hours; make watches x watch_hours equal night_hours"
        )
        raise RulesError(msg)
    if table.min_sleep_hours > table.night_hours:
        msg = f"{where}.min_sleep_hours: {table.min_sleep_hours} is more than the night ({table.night_hours} hours)"
        raise RulesError(msg)
    if totals(table.watch_dice, "watch_dice") != (1, table.watches):
        msg = f"{where}.watch_dice: {table.watch_dice!r} must show 1 to {table.watches}, one face per watch"
        raise RulesError(msg)
    chances = ruleset.part(TerrainChances).lost_encounter
    source = ruleset.part(ChanceSource).lost_encounter_source
    if (
        ruleset.part(WildernessOptions).night_encounter_check
        and table.night_checks
        and (source is None or source not in (chances or {}))
    ):
        msg = (
            f"{where}.night_checks: the night's wandering check needs tables.lost_encounter.{source or '(none given)'} "
            "(options.lost_encounter_source), which the rules do not have; set night_checks = 0 or add it"
        )
        raise RulesError(msg)
