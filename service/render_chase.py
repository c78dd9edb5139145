"""Readable text for the chase's events, and the lines ``hexlog state`` shows of a chase and its exhaustion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import chase as ev
from hexlog.machine.chase import ChaseState, Phase
from hexlog.machine.dungeon import DelveState
from hexlog.machine.dungeon import Phase as DelvePhase
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.table import Table


def _started(e: ev.ChaseStarted) -> str:
    name = f" '{e.name}'" if e.name else ""
    source = f" from encounter {e.from_encounter}" if e.from_encounter else ""
    traits = [
        t
        for t, on in (
            ("fond of treasure", e.likes_treasure),
            ("hungry", e.hungry),
            ("unintelligent", not e.intelligent),
            ("relentless", not e.gives_up_out_of_sight),
        )
        if on
    ]
    pursuers = f"; the pursuers are {', '.join(traits)}" if traits else ""
    sight = f"; line of sight {e.line_of_sight_ft} ft" if e.line_of_sight_ft else ""
    forced = "; forced to stop" if e.forced_to_stop else ""
    who = [side for side, hit in (("fleeing side", e.fleeing_surprised), ("pursuers", e.pursuers_surprised)) if hit]
    surprised = f"; the encounter surprised the {' and the '.join(who)}" if who else ""
    return (
        f"chase {e.number}{name} ({e.setting}){source}: the {e.fleeing} flee at {e.fleeing_ft} ft a round, "
        f"pursued at {e.pursuers_ft} ft, {e.gap_ft} ft apart{pursuers}{sight}{forced}{surprised}"
    )


def _repeated(e: ev.StepsRepeated) -> str:
    who = [s for s, hit in (("party", e.party_surprised), ("monsters", e.monsters_surprised)) if hit]
    surprised = f"{' and '.join(who)} surprised" if who else "nobody surprised"
    return (
        f"surprise and distance again: party {e.party_face}, monsters {e.monsters_face} "
        f"(surprised on 1-{e.surprised_on}), {surprised}; {e.gap_ft} ft apart ({e.rule}){rolls_named(e.rolls)}"
    )


def _round(e: ev.RoundRun) -> str:
    minimum = f" (at least {e.minimum_close_ft} ft closed)" if e.minimum_close_ft else ""
    why = f": {e.reason}" if e.reason else ""
    return (
        f"round {e.round}: fleeing {e.fleeing_ft} ft, pursuers {e.pursuers_ft - e.slowed_ft} ft; "
        f"gap {e.gap_before} -> {e.gap_after} ft{minimum}{why}"
    )


def _dropped(e: ev.ItemDropped) -> str:
    result = "the pursuers stop" if e.stopped else "the pursuers run on"
    return f"{e.item} dropped ({e.reason}): {result}{rolls_named(e.rolls)}"


def _water(e: ev.WaterEvasionRolled) -> str:
    result = "evaded" if e.evaded else "not evaded: the pursuers close in, round by round"
    retry = "; they may try again tomorrow if that day's encounter check comes up" if e.retry_next_day else ""
    return f"vessel evasion ({e.row}): {e.chance} %, rolled {e.roll}: {result}{retry}{rolls_named(e.rolls)}"


def _exhausted(e: ev.ChaseExhausted) -> str:
    return (
        f"round {e.round}: {', '.join(e.members)} exhausted by running: {e.penalty:+d} to attack, damage and AC "
        f"until they rest {e.recover_after_turns} turns"
    )


def _ended(e: ev.ChaseEnded) -> str:
    melee = "; melee starts next round" if e.melee_next_round else ""
    why = f": {e.reason}" if e.reason else ""
    return f"chase {e.number} over after {counted(e.rounds, 'round')}: {e.outcome}{melee}{why}"


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    ev.ChaseStarted: _started,
    ev.StepsRepeated: _repeated,
    ev.RoundRun: _round,
    ev.ItemDropped: _dropped,
    ev.WaterEvasionRolled: _water,
    ev.ChaseExhausted: _exhausted,
    ev.ChaseEnded: _ended,
}


def state_lines(state: Any, table: Table, *, player: bool = False) -> list[str]:  # noqa: ARG001 - nothing secret
    """The chase as ``hexlog state`` shows it: the gap and rounds, how it ended, and who is exhausted."""
    if not isinstance(state, ChaseState):
        return []
    s = state.started
    lines = []
    if state.phase in {Phase.RUNNING, Phase.CLOSING, Phase.REPEAT, Phase.EVASION}:
        lines.append(
            f"chase {s.number} ({s.setting}): round {state.rounds}, gap {state.gap_ft} ft "
            f"(the {s.fleeing} at {s.fleeing_ft} ft a round, the pursuers at {s.pursuers_ft} ft)"
        )
    elif state.ended is not None:
        retry = " (the pursuers may try again tomorrow)" if state.ended.retry_next_day else ""
        lines.append(
            f"chase {s.number} ({s.setting}): {state.ended.outcome} after {counted(state.ended.rounds, 'round')}{retry}"
        )
    e = state.exhaustion
    if e is not None and state.exhausted:
        lines.append(
            f"exhausted: {', '.join(e.members)}: {e.penalty:+d} to attack, damage and AC "
            f"({e.rested_turns} of {e.recover_after_turns} turns of rest)"
        )
    return [f"  {line}" for line in lines]


STATES: dict[str, Callable[..., list[str]]] = {"chase": state_lines}


def after(state: Any, table: Table, events: tuple[Event, ...]) -> list[str]:
    """A chase that nothing resumes (started by hand) ending with the sides in reach: a delve exploring meets them;
    with no delve under way an encounter starts with both sides aware, in melee (the encounter a chase was handed
    off by resumes in its own fight, its delve waiting)."""
    ended = next((e for e in events if isinstance(e, ev.ChaseEnded)), None)
    if not isinstance(state, ChaseState) or ended is None or not ended.melee_next_round:
        return []
    if table.concluded_into("chase"):
        return []
    delve = table.procedures.get("dungeon")
    if isinstance(delve, DelveState) and delve.phase is DelvePhase.EXPLORING:
        return ["the delve meets them: hexlog dungeon meet"]
    if REGISTRY.procedure("dungeon").is_open(delve) or not REGISTRY.runner("encounter").allows(
        "start", table.procedures.get("encounter"), table
    ):
        return []
    meet = f"hexlog encounter start --setting {state.started.setting} --party-aware --monsters-aware"
    return [f"the sides meet in melee: {meet}, then hexlog encounter determine-distance --value 0"]


AFTER: dict[str, Callable[[Any, Table, tuple[Event, ...]], list[str]]] = {"chase": after}
