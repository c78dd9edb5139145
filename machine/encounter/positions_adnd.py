"""Seed 001 (AD&D-derived) "Determine Positions": indoor and outdoor distance, and avoiding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import FEET_PER_YARD, Setting, Unit
from hexlog.machine.dice import parse
from hexlog.machine.encounter.distance import PURPOSE, Distance, Situation, Trace, cap, entry
from hexlog.machine.encounter.rules import AvoidRule, EncounterOptions, EncounterTables, TerrainChange
from hexlog.machine.kit.rules import RulesError

if TYPE_CHECKING:
    from hexlog.events.dice import DiceRolled
    from hexlog.machine.ruleset import Ruleset

#: the AD&D names for the OSE settings
_SETTING = {
    Setting.DUNGEON: Setting.INDOORS,
    Setting.WILDERNESS: Setting.OUTDOORS,
    Setting.WATERBORNE: Setting.OUTDOORS,
}


def setting_of(situation: Situation) -> Setting:
    """``indoors`` or ``outdoors``: the seed's two kinds of place."""
    return _SETTING.get(situation.setting, situation.setting)


def distance(
    trace: Trace,
    rules: Ruleset,
    situation: Situation,
    *,
    surprised: tuple[bool, bool],
    segments: int,
) -> Distance:
    """The distance by §3.2 (indoors) or §3.3 (outdoors)."""
    if setting_of(situation) is Setting.INDOORS:
        return _indoors(trace, rules, situation, surprised)
    return _outdoors(trace, rules, situation, segments)


def _indoors(trace: Trace, rules: Ruleset, situation: Situation, surprised: tuple[bool, bool]) -> Distance:
    """§3.2 in the order of A14: the roll, then line of sight, area, and light or vision."""
    row = entry(rules, "distance", rules.part(EncounterTables).distance, Setting.INDOORS)
    multiplier, melee = row.multiplier, False
    rolled: DiceRolled
    if situation.hiding:
        dice, kind = row.hiding_dice, "hiding"
        trace.note(f"the other side hid: {dice} x {multiplier} ft")
        rolled = trace.roll(dice, f"{PURPOSE}.hiding")
    elif any(surprised):
        dice, kind = row.surprised_dice, "surprised"
        trace.note(f"surprise: {dice} x {multiplier} ft")
        rolled = trace.roll(dice, f"{PURPOSE}.surprised")
        melee = rolled.total in row.surprised_melee_faces
    else:
        dice, kind = row.dice, "base"
        rolled = trace.roll(dice, PURPOSE)
    value = rolled.total * multiplier
    trace.note(f"x{multiplier} ft = {value} ft" + (" (melee range)" if melee else ""))
    if situation.line_of_sight_ft is not None:
        value = cap(trace, value, situation.line_of_sight_ft, f"line of sight {situation.line_of_sight_ft} ft")
    if situation.area_ft is not None:
        value, melee = _area(trace, rules, value, situation.area_ft, melee=melee)
    radius, whose = _light_radius(rules, situation)
    if radius is not None and row.light_cap_multiplier is not None:
        times = row.light_cap_multiplier
        limit = times * radius
        value = cap(trace, value, limit, f"light: {times} x {radius} ft{whose} = {limit} ft")
        if situation.vision_ft is not None:
            trace.note(f"vision {situation.vision_ft} ft not used: the light carried sets the limit")
    elif situation.vision_ft is not None:
        value = cap(trace, value, situation.vision_ft, f"vision {situation.vision_ft} ft")
    shown = "(" + dice + ")" if "+" in dice or "-" in dice else dice
    rule = f"adnd.indoors {shown}x{multiplier}ft" + ("" if kind == "base" else f" ({kind})")
    return trace.distance(value, Unit.FT, rule, melee=melee)


def _light_radius(rules: Ruleset, situation: Situation) -> tuple[int | None, str]:
    """The radius of the light carried, and whose it is: the referee's ``--light-radius``, else, where a side
    carries light, the rules' ``default_light_radius_ft`` (A39; 0: none, no cap)."""
    if situation.light_radius_ft is not None:
        return situation.light_radius_ft, ""
    default = rules.part(EncounterOptions).default_light_radius_ft
    if situation.light_carried and default:
        return default, " (the rules' radius of a light carried)"
    return None, ""


def _area(trace: Trace, rules: Ruleset, value: int, area_ft: int, *, melee: bool) -> tuple[int, bool]:
    """The area cap; a room of the small-room size rolls its own d6 table instead (§3.2)."""
    if value <= area_ft:
        trace.note(f"area {area_ft} ft: {value} ft fits")
        return value, melee
    room = rules.part(EncounterTables).small_room
    if room is None or area_ft != room.size_ft:
        return cap(trace, value, area_ft, f"area {area_ft} ft"), melee
    face = trace.roll(room.dice, f"{PURPOSE}.small_room").total
    for row in room.rows:
        if face <= row.at_most:
            label = " (melee range)" if row.melee else ""
            trace.note(f"room {area_ft} x {area_ft} ft: {face} -> {row.ft} ft{label}")
            return row.ft, row.melee
    msg = f"ruleset {rules.name}: tables.small_room has no row for {face}"
    raise RulesError(msg)


def _terrain(rules: Ruleset, terrains: tuple[str, ...]) -> tuple[str, TerrainChange] | None:
    """The one terrain whose per-die change applies (A12: the highest rank present), if any."""
    table = rules.part(EncounterTables).outdoor_terrain or {}
    for name in terrains:
        if name not in table:
            msg = f"unknown outdoor terrain {name!r}; known: {', '.join(table)}"
            raise UsageError(msg)
    ranked = sorted(terrains, key=lambda n: -table[n].rank)
    if not ranked or not table[ranked[0]].faces or not table[ranked[0]].change:
        return None
    return ranked[0], table[ranked[0]]


def _outdoors(trace: Trace, rules: Ruleset, situation: Situation, segments: int) -> Distance:
    """§3.3: roll, change each die by terrain, sum, scale, subtract surprise segments, clamp."""
    options, tables = rules.part(EncounterOptions), rules.part(EncounterTables)
    dice_row = entry(rules, "outdoor_dice", tables.outdoor_dice, options.outdoor_distance_dice)
    dice, multiplier = dice_row.dice, dice_row.multiplier
    rolled = trace.roll(dice, PURPOSE)
    faces = list(rolled.faces)
    applied = _terrain(rules, situation.terrains)
    if len(situation.terrains) > 1:
        chosen = applied[0] if applied else "none"
        trace.note(f"mixed terrain ({', '.join(situation.terrains)}): only {chosen} applies")
    if applied is None and situation.terrains:
        trace.note(f"terrain {', '.join(situation.terrains)}: no change to the dice")
    if applied is not None:
        name, change = applied
        faces = [f + change.change if f in change.faces else f for f in faces]
        every = set(range(1, max(rolled.sides) + 1)) <= set(change.faces)
        shown = "every die" if every else "each die showing " + ", ".join(str(f) for f in change.faces)
        trace.note(f"{name}: {change.change:+d} on {shown} -> {sum(faces)}")
    value = sum(faces) * multiplier
    trace.note(f"x{multiplier} ft = {value} ft")
    if segments:
        per = entry(rules, "distance", tables.distance, Setting.OUTDOORS).segment_ft or 0
        value -= segments * per
        trace.note(f"surprise: -{segments} segments x {per} ft -> {value} ft")
    least = options.outdoor_min_distance_ft
    if value < least:
        value = least
        trace.note(f"at least {least} ft -> {value} ft")
    if situation.line_of_sight_ft is not None:
        value = cap(trace, value, situation.line_of_sight_ft, f"line of sight {situation.line_of_sight_ft} ft")
    return trace.distance(value, Unit.FT, f"adnd.outdoors {dice}x{multiplier}ft")


def avoid(  # noqa: PLR0913 - the referee's situation, spelled out
    rules: Ruleset,
    situation: Situation,
    found: Distance,
    surprised: tuple[bool, bool],
    segments: int,
    *,
    rate_inches: int | None = None,
    detection_range_ft: int | None = None,
    surprisers_lit: bool = False,
    surprisers_noisy: bool = False,
) -> tuple[bool, str]:
    """§3.3-3.4 avoiding: only a side that alone surprised the other may slip away (option avoid_rule).

    ``surprised`` is (party, monsters) after the mutual-surprise rule; ``segments`` are the net
    segments the surprisers have.
    """
    rule = rules.part(EncounterOptions).avoid_rule
    if surprised[0] == surprised[1]:
        return False, "no side alone is surprised, so nobody can slip away unnoticed"
    who = "monsters" if surprised[0] else "party"
    params = rules.part(EncounterTables).avoid
    if rule is None or params is None:
        return False, f"the rules in force ({rules.name}) have no avoid-encounter rule; use evade"
    outdoors = setting_of(situation) is Setting.OUTDOORS
    gap = found.value * (FEET_PER_YARD if found.unit is Unit.YD else 1)
    if rule is AvoidRule.ADD20:
        if surprisers_lit or surprisers_noisy:
            why = "carry light" if surprisers_lit else "make noise"
            return False, f"add20: the {who} {why}, so they are noticed"
        need = params.add20_min_ft_outdoors if outdoors else params.add20_min_ft_indoors
        ok = gap >= need
        verdict = "they slip away unnoticed" if ok else "too close to slip away"
        return ok, f"add20: the {who} are {gap} ft away (need {need} ft): {verdict}"
    if segments <= 0:
        return False, f"movement: the {who} have no segments to move in"
    rate = params.default_rate_inches if rate_inches is None else rate_inches
    per = rate * (params.ft_per_inch_outdoors if outdoors else params.ft_per_inch_indoors)
    moved = gap + per * segments
    if detection_range_ft is None:
        close = not outdoors or any(t in params.close_terrains for t in situation.terrains)
        detection_range_ft = gap + params.detection_close_add_ft if close else gap * params.detection_open_multiplier
    ok = moved > detection_range_ft
    verdict = "beyond detection: they slip away" if ok else "still within detection"
    return ok, (
        f"movement: the {who} move {per} ft x {segments} segments to {moved} ft, "
        f"detection {detection_range_ft} ft: {verdict}"
    )


def missing(rules: Ruleset, setting: Setting) -> str:
    """What the AD&D distance of ``setting`` would read and the rules lack or cannot use ("" when nothing)."""
    options, tables = rules.part(EncounterOptions), rules.part(EncounterTables)
    place = _SETTING.get(setting, setting)
    row = tables.distance.get(place)
    if row is None:
        return f"tables.distance has no {place} entry"
    if row.unit is not Unit.FT:
        return f"tables.distance.{place}.unit is {row.unit}; the adnd distance is measured in ft"
    if place is Setting.INDOORS:
        empty = [name for name in ("dice", "surprised_dice", "hiding_dice") if not getattr(row, name)]
        return f"tables.distance.{place}.{empty[0]} is empty" if empty else ""
    dice = options.outdoor_distance_dice
    if dice is None or tables.outdoor_dice is None or dice not in tables.outdoor_dice:
        return "options.outdoor_distance_dice names no entry of tables.outdoor_dice"
    shown = tables.outdoor_dice[dice].dice
    if parse(shown).modifier:
        return f"tables.outdoor_dice.{dice}.dice {shown!r} adds a number, which terrain applied die by die cannot use"
    return ""
