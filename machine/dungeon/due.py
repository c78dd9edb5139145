"""What falls due as game time passes in a delve: lights burn down, wandering checks come round.

Both are the kit's due checks: after every advance of the clock (a move, a search, a rest, an
encounter's rounds, any other procedure's time) each runs with the span just passed, and records
what fell due inside it, boundary by boundary. So advancing N turns at once records exactly what
advancing one turn N times records.

Wandering checks fall due every ``check_every_turns`` turns counted from the delve's entry, while
the party explores: none is rolled while a monster already due waits to be met or while an encounter
runs (its time is the encounter's), and those boundaries pass unrolled. So that the players cannot
count the checks that stop, the referee's own advance of the clock waits too: a monster that has come
is met first (``guard``), as every step of the delve but ``meet`` waits for it. A command that lets time
pass beyond the check a monster comes on (``clock advance "6 turns"``, a travel day's weather during a
delve) is refused at the referee's door for the same reason, and writes nothing (``wander``): the referee
lets time pass to that check, meets the monster, then lets the rest pass. (An encounter's or a pursuit's own time,
which the referee cannot let pass in steps, still passes the rest unrolled.) The audit's re-runs
(``StepContext.as_recorded``) take the boundaries a log recorded unrolled as that log's release passed them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import dungeon as ev
from hexlog.events.dice import Visibility
from hexlog.events.errors import Advice, HexlogError, RuleRefusedError
from hexlog.machine.dungeon.rules import on_faces
from hexlog.machine.dungeon.state import PROCEDURE, DelveState, Phase
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.timekeeping import AdvanceClock

if TYPE_CHECKING:
    from hexlog.machine.commands import Command
    from hexlog.machine.dungeon.commands import CheckWandering
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.table import Table

WANDERING = "dungeon.wandering"


def _delve(ctx: StepContext) -> DelveState | None:
    state = ctx.state(PROCEDURE)
    if not isinstance(state, DelveState) or state.phase in {Phase.OUTSIDE, Phase.LEFT}:
        return None
    return state


def guard(table: Table, command: Command) -> None:
    """The referee's advance of the clock waits for a wandering monster that has come: the checks it would roll
    pass unrolled while one waits, and the players would count the secret checks that stop."""
    state = table.procedures.get(PROCEDURE)
    if isinstance(command, AdvanceClock) and isinstance(state, DelveState) and state.monster_due:
        msg = "a wandering monster has come: meet it first ("
        raise RuleRefusedError(msg).advising(Advice("Meet"), "), then let time pass")


def burn(ctx: StepContext, start: int, end: int) -> None:
    """Each light whose time runs out in ``start < t <= end`` goes out, in the order they go out."""
    state = _delve(ctx)
    if state is None:
        return
    due = sorted(
        (light for light in state.lights if start < light.out_at_seconds <= end), key=lambda x: x.out_at_seconds
    )
    for light in due:
        now = _delve(ctx)
        assert now is not None  # noqa: S101 - a light going out does not end the delve
        left = [one for one in now.lights if one.lit and one.carrier != light.carrier]
        ctx.emit(
            ev.LightBurnedOut(carrier=light.carrier, kind=light.kind, at_seconds=light.out_at_seconds, dark=not left)
        )


def wander(ctx: StepContext, start: int, end: int) -> None:
    """At each wandering boundary in ``start < t <= end``, the referee's secret die (while exploring)."""
    state = _delve(ctx)
    if state is None:
        return
    turn_seconds = ctx.part(ClockOptions).turn_seconds
    boundary = state.next_check(start, turn_seconds)
    while boundary <= end:
        now = _delve(ctx)
        if now is None or now.phase is not Phase.EXPLORING:
            return
        if now.monster_due:
            if not ctx.as_recorded and _splittable(ctx):  # the players would count the secret checks that stop
                raise _passed_unrolled(ctx, now.turn_at(boundary, turn_seconds))
            return
        check_at(ctx, boundary)
        boundary = now.next_check(boundary, turn_seconds)


def _splittable(ctx: StepContext) -> bool:
    """Whether the referee could let this time pass in steps, meeting the monster between them: an advance of the
    clock is admitted now by every guard but this one (not while an encounter or a pursuit runs the clock)."""
    probe = AdvanceClock(duration="1 turn")
    for other in ctx.registry.guards:
        if other is guard:
            continue
        try:
            other(ctx.table, probe)
        except HexlogError:
            return False
    return True


def _passed_unrolled(ctx: StepContext, turn: int) -> RuleRefusedError:
    """The refusal of a command that would let a wandering check pass unrolled, a monster having come: a check of
    this command, or one before it (the referee's advance of the clock is refused by ``guard`` then)."""
    came = [e for e in ctx.events if isinstance(e, ev.WanderingChecked) and e.monster]
    when = f"comes at turn {came[-1].turn}" if came else "has come"
    msg = (
        f"a wandering monster {when} while this lets time pass on to the check due at turn {turn}, which would "
        "pass unrolled (the players would count the secret checks that stop): let time pass to the monster's "
        "check at most, meet it ("
    )
    return RuleRefusedError(msg).advising(Advice("Meet"), "), then let the rest pass")


def check_at(ctx: StepContext, at_seconds: int) -> None:
    """Roll the wandering die of the check due at ``at_seconds`` and record what it found."""
    state = _delve(ctx)
    assert state is not None  # noqa: S101 - checks fall due only in a delve
    turn_seconds = ctx.part(ClockOptions).turn_seconds
    faces = state.entered.wandering_on
    rolled = ctx.roll("1d6", WANDERING, visibility=Visibility.REFEREE)
    face = rolled.faces[0]
    ctx.emit(
        ev.WanderingChecked(
            turn=state.turn_at(at_seconds, turn_seconds),
            at_seconds=at_seconds,
            face=face,
            modifier=rolled.modifier,
            wandering_on=faces,
            monster=on_faces(rolled.total, faces),
            referee_rolls=(rolled.nonce,),
        )
    )


def check_wandering(ctx: StepContext, command: CheckWandering) -> None:
    """The step of the audit's re-run: the check due at the recorded time."""
    check_at(ctx, command.at_seconds)
