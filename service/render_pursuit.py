"""Readable text for the wilderness pursuit's events and its state line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import pursuit as ev
from hexlog.machine.evasion import EvasionRules
from hexlog.machine.pursuit.state import PROCEDURE, PursuitState
from hexlog.machine.text import counted
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table
    from hexlog.service.render_context import Context


def _started(e: ev.PursuitStarted) -> str:
    who = (
        f"a {e.disposition} castle force"
        if e.pursuers_kind is ev.Pursuers.CASTLE
        else f"{counted(e.pursuers, 'monster')}"
    )
    facts = [
        f"{e.party_size} flee at {e.party_speed}",
        f"{who} pursue at {e.pursuers_speed}",
        f"terrain {e.terrain}" + (f" ({e.ground})" if e.ground else ""),
        *(["the party surprised"] if e.party_surprised else []),
        *(["the party surprised them"] if e.pursuers_surprised else []),
        *(["magic used"] if e.magic else []),
        *(["the evasion already failed"] if e.evasion_failed else []),
    ]
    came = f" after encounter {e.encounter}" if e.encounter else ""
    return f"pursuit {e.number} begins ({e.rules} rules){came}: {'; '.join(facts)}"


def _evasion(e: ev.PursuitEvasionRolled) -> str:
    roll = f"d100={e.total}" if e.rolls else "no roll"
    verdict = "the party gets away" if e.evaded else "the pursuit goes on"
    return f"evasion {e.chance} % ({'; '.join(e.steps)}): {roll}, {verdict}{rolls_named(e.rolls)}"


def _heading(e: ev.HeadingRolled) -> str:
    where = f"along the edge of the map, keeping to {e.hex}" if e.held else f"into {e.hex}"
    named = rolls_named(referee=e.referee_rolls)
    return f"the party truly flees {e.heading} (d6={e.face}) {where} (referee only: the players do not know){named}"


def flights(rules: str, count: int) -> str:
    """How much a pursuit under ``rules`` has fled: hexes (seed 004), or days of flight (OSE §2.9, one day at a
    time)."""
    return f"{counted(count, 'day')} of flight" if rules == EvasionRules.OSE else f"{counted(count, 'hex')} fled"


def _rules(context: Context) -> str:
    """The rules of the pursuit an event belongs to, as its start named them ("" when no start was noted)."""
    started = context.last(ev.PursuitStarted)
    return started.rules if started is not None else ""


def _fled(e: ev.PursuitFled, context: Context) -> str:
    if e.secret:
        where = "(which way is the referee's)"
    elif e.believed and e.held:
        where = f"{e.heading} (d6={e.face}), where the map ends: it believes it keeps to {e.believed}"
    elif e.believed:
        where = f"{e.heading} (d6={e.face}), into {e.believed} as it believes"
    elif e.held:
        where = "along the edge of the map, keeping to its hex"
    else:
        where = f"{e.heading} (d6={e.face})"
    faster = "faster pursuers follow" if e.pursuers_faster else "the pursuers are not faster"
    ose = _rules(context) == EvasionRules.OSE
    so_far = flights(EvasionRules.OSE, e.hexes_fled) if ose else f"{e.hexes_fled} fled"
    return f"the party flees {where}: {so_far} so far; {faster}{rolls_named(e.rolls)}"


def _catch(e: ev.CatchRolled) -> str:
    rule = f"at most {e.at_most}" if e.at_most else f"on {','.join(map(str, e.catch_on))}"
    verdict = "CAUGHT" if e.caught else "not caught"
    return f"catch roll {e.dice}={e.total} ({rule}, {e.terrain}): {verdict}{rolls_named(e.rolls)}"


def _continue(e: ev.ContinueChecked) -> str:
    verdict = "keeps up the pursuit" if e.continues else "gives up"
    on = ",".join(map(str, e.continue_on))
    return f"the {e.disposition} castle force (on {on}) d6={e.total}: {verdict}{rolls_named(e.rolls)}"


def _stopped(e: ev.PursuitStopped) -> str:
    return "the party stops running and is caught" + (f": {e.note}" if e.note else "")


def _rested(e: ev.PursuitRested, context: Context) -> str:
    if not e.days and not e.faces:
        # no rest is owed (OSE's day-by-day pursuit owes none, nor an escape before any hex fled): no rest to tell
        return "the party got away: no rest is owed"
    row = f" ({e.row})" if e.row else ""
    on = ",".join(map(str, e.encounter_on))
    checks = f"encounter on {on}{row}: d6 {', '.join(map(str, e.faces))}" if e.faces else ""
    met = f"; {counted(e.encounters, 'encounter')}" if e.encounters else ""
    fled = flights(_rules(context), e.hexes_fled)
    rested = f"the party rests {e.days:g} day{'' if e.days == 1 else 's'} for {fled}"
    return f"{rested}{'; ' + checks if checks else ''}{met}{rolls_named(e.rolls)}"


def _ended(e: ev.PursuitEnded, context: Context) -> str:
    ose = _rules(context) == EvasionRules.OSE
    after = flights(EvasionRules.OSE, e.hexes_fled) if ose else counted(e.hexes_fled, "hex")
    return f"pursuit {e.number} ends: {e.outcome} after {after}"


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    ev.PursuitStarted: _started,
    ev.PursuitEvasionRolled: _evasion,
    ev.HeadingRolled: _heading,
    ev.CatchRolled: _catch,
    ev.ContinueChecked: _continue,
    ev.PursuitStopped: _stopped,
}

#: the lines that read back to the pursuit's start, which names its rules: a flight, the rest and the end are
#: counted in hexes fled, or under OSE in days of flight
TOLD: dict[type[Event], Callable[[Any, Context], str]] = {
    ev.PursuitFled: _fled,
    ev.PursuitRested: _rested,
    ev.PursuitEnded: _ended,
}


def read_back(table: Table) -> tuple[Event, ...]:
    """What the lines of the events of a command read back to in the table it left: the latest pursuit's start."""
    state = table.procedures.get(PROCEDURE)
    return (state.started,) if isinstance(state, PursuitState) else ()


def state_lines(state: Any, table: Table, *, player: bool = False) -> list[str]:  # noqa: ARG001 - the STATES signature
    """The pursuit under way: who pursues, the hexes fled (OSE: the days of flight), the last flight's heading during
    a journey (the referee's alone), the last roll."""
    if not isinstance(state, PursuitState) or state.ended is not None:
        return []
    s = state.started
    fled = flights(s.rules, state.hexes_fled)
    lines = [f"  pursuit {s.number}: {counted(s.pursuers, 'pursuer')} at {s.pursuers_speed}, {fled}"]
    if state.heading is not None and not player:
        h = state.heading
        lines.append(f"  last flight: {h.heading}, {'kept to' if h.held else 'into'} {h.hex} (the players do not know)")
    if state.evasion is not None:
        lines.append(f"  last evasion: {state.evasion.chance} %, {'evaded' if state.evasion.evaded else 'failed'}")
    return lines


STATES: dict[str, Callable[..., list[str]]] = {"pursuit": state_lines}
