"""Readable text for the camp's events, and the camp's lines in the campaign's state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import camp as ev
from hexlog.machine.camp import CampState
from hexlog.machine.text import counted
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table


def _made(e: ev.CampMade) -> str:
    facts = [f"weather {e.weather}{' (wet)' if e.wet else ''}" if e.weather else "weather not given"]
    if e.winter:
        facts.append("winter")
    if e.terrain:
        facts.append(f"terrain {e.terrain}")
    return f"camp {e.number} is made: " + ", ".join(facts)


def _firewood(e: ev.FirewoodGathered) -> str:
    each = ", ".join(
        f"{g.name} {g.rolled}" + (f" -> {g.hours}" if g.hours != g.rolled else "") + " h" for g in e.gathered
    )
    why = f" ({e.reason})" if e.reason else ""
    fire = f"a fire for {counted(e.fire_hours, 'hour')} of the night" if e.fire else "no fire"
    return f"firewood: {each}{why}; {counted(e.hours, 'hour')} of fuel, {fire}{rolls_named(e.rolls)}"


def _watches(e: ev.WatchesSet) -> str:
    each = "; ".join(f"{w.number}: {', '.join(w.guards)}" for w in e.watches)
    return f"watches of {counted(e.watch_hours, 'hour')}: {each}"


def _checked(e: ev.NightChecked) -> str:
    faces = ", ".join(str(f) for f in e.encounter_on)
    head = f"night check {e.check} ({e.terrain}, encounter on {faces}): d6={e.face}"
    if not e.encounter:
        return f"{head}, a quiet night{rolls_named(e.rolls, e.referee_rolls)}"
    fire = "the fire burns" if e.fire else "no fire"
    asleep = ", ".join(e.asleep) or "nobody"
    return (
        f"{head}, an ENCOUNTER in watch {e.watch}: awake {', '.join(e.awake)}, asleep {asleep}; {fire}"
        f"{rolls_named(e.rolls, e.referee_rolls)}"
    )


def _ended(e: ev.NightEncounterEnded) -> str:
    caught = ", ".join(e.surprised) or "nobody"
    woken = f"; woken: {', '.join(e.woken)} ({e.reason})" if e.woken else ""
    return f"the night's encounter {e.encounter} ended ({e.outcome}) in watch {e.watch}: surprised {caught}{woken}"


def _rest(r: ev.Rest) -> str:
    stood = f", stood watch {', '.join(str(w) for w in r.watches)}" if r.watches else ""
    woken = f", woken in watch {', '.join(str(w) for w in r.woken)}" if r.woken else ""
    benefit = f"heals {r.healed_hp} hp, may memorise spells" if r.can_memorise else "no benefit from rest"
    return f"{r.name} slept {r.slept_hours} h{stood}{woken}: {benefit}"


def _broken(e: ev.CampBroken) -> str:
    return f"camp {e.number} is broken at morning (rest needs {e.min_sleep_hours} h): " + "; ".join(
        _rest(r) for r in e.rests
    )


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    ev.CampMade: _made,
    ev.FirewoodGathered: _firewood,
    ev.WatchesSet: _watches,
    ev.NightChecked: _checked,
    ev.NightEncounterEnded: _ended,
    ev.CampBroken: _broken,
}


def state_lines(state: Any, table: Table, *, player: bool = False) -> list[str]:  # noqa: ARG001 - the STATES signature
    """The camp under way and each member's healing, as the campaign's state shows them.

    A player is not shown the night's checks (the referee's secret rolls) or an encounter they brought.
    """
    return [f"  {line}" for line in _camp_lines(state, player=player)]


def _camp_lines(state: Any, *, player: bool) -> list[str]:
    if not isinstance(state, CampState):
        return []
    lines = []
    if state.made is not None:
        lines.append(_made(state.made))
    if state.firewood is not None:
        lines.append(f"fire: {counted(state.firewood.fire_hours, 'hour')}" if state.firewood.fire else "fire: none")
    if state.watches is not None:
        lines.append(_watches(state.watches))
    if not player:
        lines.extend(_checked(c) for c in state.checks)
        lines.extend(_ended(e) for e in state.encounters)
    last = {r.name: r for r in state.last_night.rests} if state.last_night is not None else {}
    # named by its camp, not "last night": nights may have passed since without a camp
    which = f"camp {state.last_night.number}'s night" if state.last_night is not None else ""
    for name, hp in state.healed:
        rest = last.get(name)
        night = f"; {which}: {_rest(rest).removeprefix(name + ' ')}" if rest is not None else ""
        lines.append(f"{name}: healed {hp} hp in camp so far{night}")
    return lines


#: the lines a procedure adds to the campaign's state, by procedure name
STATES: dict[str, Callable[..., list[str]]] = {"camp": state_lines}
