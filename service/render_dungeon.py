"""Readable text for the delve's events, and the lines ``hexlog state`` shows of a delve."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import dungeon as ev
from hexlog.machine.dungeon import DelveState, Phase, rest
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.dungeon.steps import rest_due
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.text import counted
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table


def _faces(faces: tuple[int, ...]) -> str:
    return ",".join(map(str, faces)) if faces else "never"  # a thief's skill of 0 in 6, a house rule's empty faces


def _mod(modifier: int) -> str:
    return f" {modifier:+d}" if modifier else ""


def _door(door: str) -> str:
    return f" '{door}'" if door else ""


def _entered(e: ev.DelveEntered) -> str:
    name = f" '{e.name}'" if e.name else ""
    danger = ", a dangerous place" if e.danger else ""
    return (
        f"delve {e.number}{name} begins ({e.ruleset}){danger}: {', '.join(e.party)}, "
        "in the dark unless they light a way; "
        f"wandering check every {counted(e.check_every_turns, 'turn')}, "
        f"a monster on {_faces(e.wandering_on)}"
    )


def _lit(e: ev.LightLit) -> str:
    return f"{e.carrier} lights a {e.kind} ({e.radius_ft} ft): it burns {counted(e.turns, 'turn')}"


def _moved(e: ev.PartyMoved) -> str:
    how = "mapping" if e.mapping else f"not mapping ({e.why_not_mapping})"
    flee = ", fleeing" if e.fleeing else ""
    dark = "" if e.lit else ", in the dark"
    moved = f"the party moves {e.feet} ft of its {e.rate} ft (slowest: {e.slowest_member})"
    return f"turn {e.turn}: {moved}, {how}{flee}{dark}"


def _wandering(e: ev.WanderingChecked) -> str:
    found = "a WANDERING MONSTER comes (meet it)" if e.monster else "nothing comes"
    die = f"d6={e.face}{_mod(e.modifier)} (on {_faces(e.wandering_on)})"
    return f"wandering check, turn {e.turn}: {die}: {found}{rolls_named(e.rolls, e.referee_rolls)}"


def _opened(e: ev.DoorOpened) -> str:
    parts = []
    if e.locked:
        if e.unlocked is ev.Unlock.KEY:
            parts.append("unlocked with its key")
        else:
            won = "picked" if e.unlocked is ev.Unlock.PICK else "the pick fails"
            parts.append(f"lock: d{e.pick_out_of}={e.pick_face} against {e.pick_chance}: {won}")
    if e.chance_in_6:
        tool = f" with a {e.tool}" if e.tool else ""
        parts.append(f"forcing it{tool} (STR {e.strength}): d6={e.face}{_mod(e.modifier)} against {e.chance_in_6}-in-6")
        if e.tool:
            parts.append(f"the {e.tool} {'BREAKS' if e.tool_broke else 'holds'} (d6={e.break_face})")
    elif not e.stuck and e.opened:
        parts.append("not stuck")
    verdict = (
        "the door opens" if e.opened else "the door stays shut" + (" (noise: surprise is lost)" if e.noisy else "")
    )
    return f"{e.by} tries the door{_door(e.door)}: {'; '.join([*parts, verdict])}{rolls_named(e.rolls)}"


def _listened(e: ev.DoorListened) -> str:
    how = "by their skill" if e.thief_skill else "by the rules"
    heard = "hears something" if e.heard else "hears nothing"
    die = f"({how}, on {_faces(e.hears_on)}): d6={e.face}{_mod(e.modifier)}"
    return f"{e.by} listens at the door{_door(e.door)} {die}, {heard}{rolls_named(e.rolls, e.referee_rolls)}"


def _searched(e: ev.SecretDoorSearched) -> str:
    modifiers = e.modifiers or (0,) * len(e.faces)
    if e.party_die:
        dice = ", ".join(f"the party's die {f}{_mod(m)}" for f, m in zip(e.faces, modifiers, strict=False))
        dice = f"{', '.join(e.searchers)} searching: {dice}"
        by = "the party's search" + (f" ({', '.join(e.found_by)})" if e.found_by else "")
    else:
        dice = ", ".join(f"{n} {f}{_mod(m)}" for n, f, m in zip(e.searchers, e.faces, modifiers, strict=False))
        by = ", ".join(e.found_by)
    if e.found:
        found = f"a secret door is FOUND by {by}"
    else:
        found = "nothing found" + ("" if e.present else " (nothing is there)")
    return f"search for secret doors (on {_faces(e.finds_on)}): {dice}: {found}{rolls_named(e.rolls, e.referee_rolls)}"


def _spiked(e: ev.DoorSpiked) -> str:
    if e.how == "shut":
        return f"the door{_door(e.door)} is spiked shut: it counts as stuck"
    held = "the spike SLIPS and the door closes" if e.slipped else "the spike holds it open"
    slips = f"slips on {_faces(e.slips_on)}"
    return f"the door{_door(e.door)} is spiked open: d6={e.face} ({slips}): {held}{rolls_named(e.rolls)}"


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    ev.DelveEntered: _entered,
    ev.DelveLeft: lambda e: (
        f"the party leaves the dungeon after {counted(e.turns, 'turn')}" + (f": {e.note}" if e.note else "")
    ),
    ev.LightLit: _lit,
    ev.LanternRefilled: lambda e: f"{e.carrier} refills the lantern: it burns {counted(e.turns, 'turn')}",
    ev.LightBurnedOut: lambda e: f"{e.carrier}'s {e.kind} goes out" + (": the party is in DARKNESS" if e.dark else ""),
    ev.PartyMoved: _moved,
    ev.PartyRested: lambda e: f"the party rests {counted(e.turns, 'turn')}",
    ev.WanderingChecked: _wandering,
    ev.DoorOpened: _opened,
    ev.DoorListened: _listened,
    ev.SecretDoorSearched: _searched,
    ev.DoorSpiked: _spiked,
}


def state_lines(state: Any, table: Table, *, player: bool = False) -> list[str]:
    """The delve as ``hexlog state`` shows it: turns, lights left, the next wandering check, rest.

    A player is not told whether a wandering monster is due (the check is the referee's secret roll).
    """
    return [f"  {line}" for line in _delve_lines(state, table, player=player)]


def _delve_lines(state: Any, table: Table, *, player: bool) -> list[str]:
    if not isinstance(state, DelveState) or table.rules is None or state.phase is Phase.OUTSIDE:
        return []
    turn_seconds = table.rules.part(ClockOptions).turn_seconds
    now = table.clock.seconds
    e = state.entered
    name = f" {e.name!r}" if e.name else ""
    lines = [
        f"delve {e.number}{name}: {counted(state.turn_at(now, turn_seconds), 'turn')}, {counted(state.moves, 'move')}"
    ]
    if state.phase is Phase.LEFT:
        return lines
    lights = [
        f"{light.carrier}'s {light.kind} {counted((light.out_at_seconds - now) // turn_seconds, 'turn')} left"
        if light.lit
        else f"{light.carrier}'s {light.kind} out"
        for light in state.lights
    ]
    lines.append("light: " + ("; ".join(lights) if lights else "none") + ("" if state.lit else " (DARK: no mapping)"))
    if player:
        pass
    elif state.monster_due:
        lines.append("a wandering monster has come: hexlog dungeon meet")
    else:
        due = state.next_check(now, turn_seconds)
        lines.append(f"next wandering check at turn {state.turn_at(due, turn_seconds)} (on {_faces(e.wandering_on)})")
    tables = table.rules.part(DungeonTables).dungeon
    rest_turns = tables.rest_turns_per_hour if tables is not None else 0
    if rest_due(state, now, turn_seconds, rest_turns):
        lines.append(f"rest due: {counted(rest_turns, 'turn')} each hour (hexlog dungeon rest)")
    if state.doors:
        lines.append("doors: " + "; ".join(f"{name}: {door.text}" for name, door in sorted(state.doors.items())))
    penalty = rest.penalty(table)
    if penalty:
        lines.append(f"unrested: {penalty:+d} to attack and damage rolls made for a member until the party rests")
    return lines


STATES: dict[str, Callable[..., list[str]]] = {"dungeon": state_lines}
