"""Encounter distance: the pure rules of seeds 000 (OSE), 001 (AD&D-derived) and 004 (explore).

Nothing here does I/O or draws randomness of its own: every die comes from the ``roll`` callable the
caller passes (``roll(expression, purpose) -> DiceRolled``), and every result names the rule, the
steps it took and the nonces of the rolls it used. The rules are chosen by the option
``distance_rules``; the AD&D rules live in ``positions_adnd``, and what both build on (the
situation, the result, the trace of its steps) in ``distance``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import FEET_PER_YARD, Setting, Unit
from hexlog.machine.encounter import positions_adnd
from hexlog.machine.encounter.distance import (
    PURPOSE,
    SETTINGS,
    Distance,
    Situation,
    Trace,
    cap,
    entry,
    missiles_possible,
    visibility,
)
from hexlog.machine.encounter.rules import DistanceRules, DistanceTrigger, EncounterOptions, EncounterTables
from hexlog.machine.kit.rules import RulesError

if TYPE_CHECKING:
    from hexlog.machine.rolls import Roll
    from hexlog.machine.ruleset import Ruleset

__all__ = [
    "PURPOSE",
    "SETTINGS",
    "Distance",
    "Situation",
    "Trace",
    "cap",
    "check",
    "determine_distance",
    "entry",
    "missiles_possible",
]

#: OSE names for the AD&D settings
_OSE_SETTING = {Setting.INDOORS: Setting.DUNGEON, Setting.OUTDOORS: Setting.WILDERNESS}


def _check_situation(situation: Situation, surprised: tuple[bool, bool], segments: int) -> None:
    if situation.setting not in SETTINGS:
        msg = f"unknown setting {situation.setting!r}; use one of {', '.join(SETTINGS)}"
        raise UsageError(msg)
    limits = {
        "line_of_sight_ft": situation.line_of_sight_ft,
        "area_ft": situation.area_ft,
        "light_radius_ft": situation.light_radius_ft,
        "vision_ft": situation.vision_ft,
    }
    for name, limit in limits.items():
        if limit is not None and limit < 0:
            msg = f"{name} must not be negative, not {limit}"
            raise UsageError(msg)
    if segments < 0:
        msg = f"segments must not be negative, not {segments}"
        raise UsageError(msg)
    if segments and not any(surprised):
        msg = f"{segments} surprise segments given, but no side is surprised"
        raise UsageError(msg)


def determine_distance(
    roll: Roll,
    rules: Ruleset,
    situation: Situation,
    *,
    surprised: tuple[bool, bool],
    segments: int = 0,
) -> Distance:
    """The encounter distance by the rules in force; ``surprised`` is (party, monsters)."""
    _check_situation(situation, surprised, segments)
    trace = Trace(roll, unlimited_missiles=rules.part(EncounterOptions).missiles_without_limit)
    chosen = rules.part(EncounterOptions).distance_rules
    if chosen is DistanceRules.OSE:
        return _ose(trace, rules, situation, surprised)
    if chosen is DistanceRules.EXPLORE:
        return _explore(trace, rules, situation, surprised)
    found = positions_adnd.distance(trace, rules, situation, surprised=surprised, segments=segments)
    if situation.distance_divisor <= 1 or found.melee:
        return found
    value = visibility(trace, found.value, situation, str(found.unit))
    return attrs.evolve(found, value=value, steps=tuple(trace.steps))


def _line_of_sight(trace: Trace, value: int, unit: Unit, situation: Situation) -> int:
    """The referee's line-of-sight limit, in the result's unit (yards round down)."""
    if situation.line_of_sight_ft is None:
        return value
    limit = situation.line_of_sight_ft // (FEET_PER_YARD if unit is Unit.YD else 1)
    return cap(trace, value, limit, f"line of sight {situation.line_of_sight_ft} ft", unit)


def _scaled(trace: Trace, dice: str, multiplier: int, unit: Unit, purpose: str) -> int:
    rolled = trace.roll(dice, purpose)
    value = rolled.total * multiplier
    trace.note(f"x{multiplier} {unit} = {value} {unit}")
    return value


def _ose(trace: Trace, rules: Ruleset, situation: Situation, surprised: tuple[bool, bool]) -> Distance:
    """OSE §2.3: dungeon 2d6 x 10 ft (never reduced); outdoors 4d6 x 10 yd, or 1d4 x 10 yd."""
    setting = _OSE_SETTING.get(situation.setting, situation.setting)
    row = entry(rules, "distance", rules.part(EncounterTables).distance, setting)
    trigger = rules.part(EncounterOptions).wild_surprise_distance_trigger
    shrink = any(surprised) if trigger is DistanceTrigger.EITHER else all(surprised)
    dice, purpose, label = row.dice, PURPOSE, ""
    if shrink and row.surprised_dice:
        dice, purpose, label = row.surprised_dice, f"{PURPOSE}.surprised", " (surprised)"
        trace.note(f"surprise ({trigger} side surprised): {dice} x {row.multiplier} {row.unit}")
    elif any(surprised):
        why = "not reduced here" if not row.surprised_dice else f"the trigger is {trigger.value!r}"
        trace.note(f"surprise: distance {why}")
    value = _scaled(trace, dice, row.multiplier, row.unit, purpose)
    value = visibility(trace, value, situation, row.unit)
    value = _line_of_sight(trace, value, row.unit, situation)
    rule = f"ose.{setting} {dice}x{row.multiplier}{row.unit}{label}"
    return trace.distance(value, row.unit, rule, missiles=missiles_possible(rules, value, row.missiles_at_most))


def _explore(trace: Trace, rules: Ruleset, situation: Situation, surprised: tuple[bool, bool]) -> Distance:
    """Seed 004 §4.3 / §4.5: dungeon 2d4 (or 2d6) x 10 ft, wilderness 4d6 x 10 yd; 1d3 when surprised."""
    setting = _OSE_SETTING.get(situation.setting, situation.setting)
    tables = rules.part(EncounterTables)
    row = entry(rules, "distance", tables.distance, setting)
    unit = row.unit
    if any(surprised):
        dice, multiplier = row.surprised_dice, row.multiplier
        purpose, label = f"{PURPOSE}.surprised", " (surprised)"
        trace.note(f"surprise (a side surprised): {dice} x {multiplier} {unit}")
    elif setting is Setting.DUNGEON:
        choice = rules.part(EncounterOptions).dungeon_distance
        dice_row = entry(rules, "dungeon_distance", tables.dungeon_distance, choice)
        dice, multiplier, purpose, label = dice_row.dice, dice_row.multiplier, PURPOSE, ""
    else:
        dice, multiplier, purpose, label = row.dice, row.multiplier, PURPOSE, ""
    value = _scaled(trace, dice, multiplier, unit, purpose)
    value = visibility(trace, value, situation, unit)
    value = _line_of_sight(trace, value, unit, situation)
    at_most = row.missiles_at_most
    missiles = missiles_possible(rules, value, at_most)
    if missiles and at_most is not None:
        trace.note(f"{value} {unit} <= {at_most} {unit}: melee or missile attacks possible")
    rule = f"explore.{setting} {dice}x{multiplier}{unit}{label}"
    return trace.distance(value, unit, rule, missiles=missiles)


def check(rules: Ruleset) -> None:
    """The chosen distance rules find, for every setting of ``tables.distance``, what they read.

    Refused at load, naming the option, rather than in the middle of an encounter.
    """
    options, tables = rules.part(EncounterOptions), rules.part(EncounterTables)
    chosen = options.distance_rules
    where = f"options.distance_rules: {chosen.value!r}"
    for setting in tables.distance:
        if chosen is DistanceRules.ADND:
            missing = positions_adnd.missing(rules, setting)
        else:
            missing = _missing(rules, chosen, setting)
        if missing:
            msg = f"{where} cannot determine the {setting} distance: {missing}"
            raise RulesError(msg)


def _missing(rules: Ruleset, chosen: DistanceRules, setting: Setting) -> str:
    """What the OSE or seed-004 distance of ``setting`` would read and the rules lack ("" when nothing)."""
    tables = rules.part(EncounterTables)
    row = tables.distance.get(_OSE_SETTING.get(setting, setting))
    if row is None:
        return f"tables.distance has no {_OSE_SETTING.get(setting, setting)} entry"
    if chosen is DistanceRules.EXPLORE:
        if not row.surprised_dice:
            return f"tables.distance.{setting}.surprised_dice is empty"
        if _OSE_SETTING.get(setting, setting) is Setting.DUNGEON:
            choice = rules.part(EncounterOptions).dungeon_distance
            if choice is None or tables.dungeon_distance is None or choice not in tables.dungeon_distance:
                return "options.dungeon_distance names no entry of tables.dungeon_distance"
            return ""
    return "" if row.dice else f"tables.distance.{setting}.dice is empty"
