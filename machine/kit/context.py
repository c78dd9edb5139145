"""The step context: what every step works through, and the kit's way of running one command.

A step reads the table (folded through every event emitted so far in this command), rolls through
``roll`` (made *for* a character or side, with the modifiers the state imposes applied and recorded
with their sources), advances game time through ``advance`` (the clock event, then every check that
falls due, in registry order), and may ``hand_off`` to another procedure in the same append. The
kit fires the command's trigger before the step runs (a refusal writes nothing) and records the
phase change after it; when a procedure that was handed off to concludes, its parent resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from hexlog.events.base import Event
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import RuleRefusedError
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.machine import dice as hexdice
from hexlog.machine import table as tables
from hexlog.machine.commands import Command
from hexlog.machine.keeper import SecretKeeper
from hexlog.machine.kit.clock import ClockOptions, Span
from hexlog.machine.kit.registry import Registry
from hexlog.machine.rolls import Roller

if TYPE_CHECKING:
    from hexlog.machine.kit.procedure import Procedure
    from hexlog.machine.ruleset import Ruleset

T = TypeVar("T")


@attrs.frozen(kw_only=True)
class ChildConcluded(Command):
    """Issued by the kit, never by a user: the procedure ``child`` that a parent handed off to has concluded."""

    child: str


class _Frame:
    """A step under way: its procedure and the phase change still to record."""

    __slots__ = ("change", "procedure")

    def __init__(self, procedure: Procedure, change: PhaseChanged | None) -> None:
        self.procedure = procedure
        self.change = change


@attrs.define
class StepContext:
    """The context one command's steps run in."""

    table: tables.Table
    registry: Registry
    campaign: str = ""
    keeper: SecretKeeper | None = None
    #: the dice of the open session (given the table); None when the caller allows no roll
    roller_for: Callable[[tables.Table], Roller] | None = None
    events: list[Event] = attrs.field(factory=list)
    _roller: Roller | None = None
    _roller_session: str = ""
    _frames: list[_Frame] = attrs.field(factory=list)

    @property
    def rules(self) -> Ruleset:
        """The rules in force; a refusal before the campaign has started."""
        if self.table.rules is None:
            msg = "the campaign has not started"
            raise RuleRefusedError(msg)
        return self.table.rules

    def part(self, cls: type[T]) -> T:
        """A typed part of the rules in force."""
        return self.rules.part(cls)

    @property
    def change(self) -> PhaseChanged | None:
        """The phase change of the step under way (None for a command without a machine)."""
        return self._frames[-1].change if self._frames else None

    def state(self, procedure: str) -> Any:
        """A procedure's folded state, or None."""
        return self.table.procedures.get(procedure)

    def emit(self, *events: Event) -> None:
        """Record events, in order; the table folds each at once."""
        for event in events:
            self.events.append(event)
            self.table = tables.evolve(self.table, event, self.registry)

    def roll(
        self,
        dice: str | hexdice.DiceSpec,
        purpose: str,
        *,
        made_for: str = "",
        visibility: Visibility = Visibility.PUBLIC,
    ) -> DiceRolled:
        """Roll from the open session's committed dice, with the state's modifiers, and record the roll."""
        session = self.table.session
        if session is None or not session.open:
            msg = f"no session is open, so nothing can be rolled (for {purpose}); run 'hexlog session open'"
            raise RuleRefusedError(msg)
        spec = hexdice.parse(dice) if isinstance(dice, str) else dice
        nonce = session.nonce_for(visibility)
        faces = self._dice(session.id).faces(nonce, spec.sides_tuple, hexdice.lane_of(session.scheme, visibility))
        modifiers = tuple(m for source in self.registry.modifier_sources for m in source(self.table, made_for, purpose))
        modifier = spec.modifier + sum(m.value for m in modifiers)
        rolled = DiceRolled(
            session=session.id,
            nonce=nonce,
            purpose=purpose,
            sides=spec.sides_tuple,
            faces=faces,
            modifier=modifier,
            total=sum(faces) + modifier,
            visibility=visibility,
            made_for=made_for,
            modifiers=modifiers,
        )
        self.emit(rolled)
        return rolled

    def _dice(self, session: str) -> Roller:
        if self.roller_for is None:
            msg = "no dice are available here"
            raise RuleRefusedError(msg)
        if self._roller is None or self._roller_session != session:
            self._roller, self._roller_session = self.roller_for(self.table), session
        return self._roller

    def advance(self, span: Span, *, reason: str, times: int = 1) -> None:
        """Let ``span`` of game time pass ``times`` times: each time the clock event, then every due check.

        Advancing N spans at once records exactly what advancing one span N times records.
        """
        options = self.part(ClockOptions)
        for _ in range(times):
            start = self.table.clock.seconds
            self.emit(span.event(options, reason))
            for check in self.registry.due_checks:
                check.run(self, start, self.table.clock.seconds)

    def hand_off(self, command: Command) -> None:
        """Start another procedure within this append; the running one resumes when it concludes.

        The running step's phase change is recorded first (it enters the phase it waits in), then
        ``procedure.handed_off``, then the child's own step.
        """
        if not self._frames:
            msg = "only a step of a procedure can hand off"
            raise RuleRefusedError(msg)
        frame = self._frames[-1]
        if frame.change is not None:
            self.emit(frame.change)
            frame.change = None
        child = self.registry.route(type(command)).procedure
        self.emit(HandedOff(parent=frame.procedure.name, child=child.name))
        run_step(self, command)


def run_step(ctx: StepContext, command: Command) -> None:
    """Fire the command's trigger (if its procedure has a machine), run its step, record the change."""
    route = ctx.registry.route(type(command))
    procedure = route.procedure
    change = None
    if route.trigger is not None:
        runner = ctx.registry.runner(procedure.name)
        change = runner.fire(route.trigger, ctx.state(procedure.name), ctx.table, command)
    frame = _Frame(procedure, change)
    ctx._frames.append(frame)  # noqa: SLF001 - the kit's own context
    try:
        procedure.steps[type(command)](ctx, command)
    finally:
        ctx._frames.pop()  # noqa: SLF001 - the kit's own context
    if frame.change is not None:
        ctx.emit(frame.change)


def _resume_parents(ctx: StepContext) -> None:
    """While the latest procedure handed off to has concluded, its parent resumes."""
    while ctx.table.handoffs:
        parent_name, child_name = ctx.table.handoffs[-1]
        child = ctx.registry.procedure(child_name)
        if child.phase_of(ctx.state(child_name)) not in child.final:
            return
        parent = ctx.registry.procedure(parent_name)
        ctx.emit(Resumed(parent=parent_name, child=child_name))
        if parent.resume is None:
            continue
        command = ChildConcluded(child=child_name)
        change = ctx.registry.runner(parent_name).fire(
            parent.resume.trigger, ctx.state(parent_name), ctx.table, command
        )
        frame = _Frame(parent, change)
        ctx._frames.append(frame)  # noqa: SLF001 - the kit's own context
        try:
            parent.resume.step(ctx, command)
        finally:
            ctx._frames.pop()  # noqa: SLF001 - the kit's own context
        if frame.change is not None:
            ctx.emit(frame.change)


def run(ctx: StepContext, command: Command) -> None:
    """Run one command: every guard, its step (trigger first), then any parent whose child concluded."""
    for guard in ctx.registry.guards:
        guard(ctx.table, command)
    run_step(ctx, command)
    _resume_parents(ctx)
