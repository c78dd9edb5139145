"""The step context: what every step works through, and the kit's way of running one command.

A step reads the table (folded through every event emitted so far in this command), rolls through
``roll`` (made *for* a character or side, with the modifiers the state imposes applied and recorded
with their sources; a roll where low is good says so, and the kit counts those modifiers the other way,
so that a penalty always counts against the one the roll is made for), advances game time through
``advance`` (the clock event, then every check that falls due, in registry order), may ``follow`` its
roll with another trigger of its own procedure, and may ``hand_off`` to another procedure in the same
append. The kit fires the command's trigger before the step runs (a refusal writes nothing) and records the
phase change after it; when a procedure that was handed off to concludes, its parent resumes.

A handed-off command passes exactly the checks a command the referee gives does (its text, every
guard, the parent's waiting), and a hand-off that could leave its parent waiting for good is
refused: one to a procedure without a machine, to the parent itself, from a phase the parent cannot
resume in, or one that does not start its child. A parent takes no step of its own while it waits,
so the phase it resumes in is the phase it handed off in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from hexlog.events.base import Event
from hexlog.events.codec import converter
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import Advice, IllegalTransitionError, RuleRefusedError
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.machine import dice as hexdice
from hexlog.machine import table as tables
from hexlog.machine import text
from hexlog.machine.commands import Command, RemoveMember, named_members
from hexlog.machine.keeper import SecretKeeper
from hexlog.machine.kit.clock import ClockOptions, Span
from hexlog.machine.kit.registry import Registry
from hexlog.machine.rolls import Roller
from hexlog.projections.visibility import SESSION, referee_only

if TYPE_CHECKING:
    from hexlog.machine.kit.procedure import Procedure
    from hexlog.machine.ruleset import Ruleset

T = TypeVar("T")


@attrs.frozen(kw_only=True)
class ChildConcluded(Command):
    """Issued by the kit, never by a user: the procedure ``child`` that a parent handed off to has concluded."""

    child: str


class _Frame:
    """A step under way: its procedure, its command and the phase change still to record."""

    __slots__ = ("change", "command", "procedure")

    def __init__(self, procedure: Procedure, change: PhaseChanged | None, command: Command) -> None:
        self.procedure = procedure
        self.change = change
        self.command = command


@attrs.define
class StepContext:
    """The context one command's steps run in."""

    table: tables.Table
    registry: Registry
    campaign: str = ""
    keeper: SecretKeeper | None = None
    #: the dice of the open session (given the table); None when the caller allows no roll
    roller_for: Callable[[tables.Table], Roller] | None = None
    #: whether an earlier session of the campaign committed to a commitment (the handler reads one row);
    #: None when the caller keeps no record of them, and then no session can be opened
    commitment_used: Callable[[str], bool] | None = None
    events: list[Event] = attrs.field(factory=list)
    #: the audit's re-run of rolls an earlier release made (``dice.rolled`` before version 4): every modifier is
    #: added as its source gives it, on a roll where low is good too, as those releases did
    modifiers_as_given: bool = False
    #: the audit's re-run of a recorded decision (or of the due checks after a recorded advance of the clock): a range
    #: new input is held to (``arg(within=...)``: the worth a tithe is taken from) binds no number an earlier build
    #: recorded before it held the input to that range, and a refusal made at the referee's door alone (a delve's
    #: wandering check passed unrolled) judges nothing already recorded
    as_recorded: bool = False
    #: whether an advance of the clock runs the checks that fall due; the audit's re-run of a step (a delve's move,
    #: whose turn may make a wandering check due, a rest day) runs none: it runs them again after each clock event of
    #: the log, with the rolls the log records after it as their dice
    due_checks: bool = True
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
    def running(self) -> str | None:
        """The procedure whose step is running now (a child handed off to, inside its parent's step), or None."""
        return self._frames[-1].procedure.name if self._frames else None

    def running_outside(self, owner: str) -> str | None:
        """The procedure whose step is running now when it is neither ``owner`` nor one ``owner`` handed off to (down
        the line of hand-offs under way); None when it is, or when no step runs (a due check the audit re-runs)."""
        running = self.running
        own = {owner}
        for parent, child in self.table.handoffs:
            if parent in own:
                own.add(child)
        return None if running is None or running in own else running

    @property
    def change(self) -> PhaseChanged | None:
        """The phase change of the step under way (None for a command without a machine)."""
        return self._frames[-1].change if self._frames else None

    def state(self, procedure: str) -> Any:
        """A procedure's folded state, or None."""
        return self.table.procedures.get(procedure)

    def emit(self, *events: Event) -> None:
        """Record events, in order; the table folds each at once. An event the referee keeps from the players until
        its session ends (``referee_only``: a lost party's true hex) is refused while no session is open, as a roll
        is: no session would end to show it, and a player would be shown it at once. The audit's re-run of a step
        (``as_recorded``) takes such an event as its release recorded it: the releases before this refusal let it be."""
        for event in events:
            if referee_only(event) == SESSION and not self.as_recorded and not self._session_open():
                msg = (
                    f"no session is open, so nothing the players see only once a session ends can be recorded "
                    f"({event.type_name}); run '"
                )
                raise RuleRefusedError(msg).advising(Advice("OpenSession"), "'")
            self.events.append(event)
            self.table = tables.evolve(self.table, event, self.registry)

    def _session_open(self) -> bool:
        session = self.table.session
        return session is not None and session.open

    def roll(
        self,
        dice: str | hexdice.DiceSpec,
        purpose: str,
        *,
        made_for: str = "",
        visibility: Visibility = Visibility.PUBLIC,
        low_is_good: bool = False,
    ) -> DiceRolled:
        """Roll from the open session's committed dice, with the state's modifiers, and record the roll.

        Each source gives its modifiers as they count on a roll where high is good (a penalty negative). On a
        roll where a low total is good (``low_is_good``: an N-in-6, a percentage at most a chance) each is
        counted the other way, so a penalty raises the total and still counts against the one the roll is made
        for; the roll records it so (``DiceRolled.low_is_good``). A step reads such a roll by ``read_low``.
        """
        session = self.table.session
        if session is None or not session.open:
            msg = f"no session is open, so nothing can be rolled (for {purpose}); run '"
            raise RuleRefusedError(msg).advising(Advice("OpenSession"), "'")
        spec = hexdice.parse(dice) if isinstance(dice, str) else dice
        nonce = session.nonce_for(visibility)
        faces = self._dice(session.id).faces(nonce, spec.sides_tuple, hexdice.lane_of(session.scheme, visibility))
        modifiers = tuple(m for source in self.registry.modifier_sources for m in source(self.table, made_for, purpose))
        against = low_is_good and not self.modifiers_as_given
        if against:
            modifiers = tuple(attrs.evolve(m, value=-m.value) for m in modifiers)
        modifier = spec.modifier + sum(m.value for m in modifiers)
        rolled = DiceRolled(
            session=session.id,
            nonce=nonce,
            purpose=purpose,
            sides=spec.sides_tuple,
            faces=faces,
            modifier=modifier,
            total=spec.total(faces) + modifier - spec.modifier,
            visibility=visibility,
            made_for=made_for,
            modifiers=modifiers,
            notation=str(spec) if spec.keeps else "",
            dropped=spec.dropped(faces),
            low_is_good=against,
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
            for check in self.registry.due_checks if self.due_checks else ():
                check.run(self, start, self.table.clock.seconds)

    def follow(self, trigger: str) -> None:
        """Fire another trigger of the running procedure, after what its step has recorded so far.

        For a step whose roll decides where the procedure goes next: the step's own phase change is
        recorded first, then ``trigger`` fires on the phase it entered, its conditions reading what
        the step recorded (and the running command). No command fires ``trigger``; a refusal undoes
        the whole command, as any refusal does.
        """
        if not self._frames:
            msg = "only a step of a procedure can follow on"
            raise RuleRefusedError(msg)
        frame = self._frames[-1]
        if frame.change is not None:
            self.emit(frame.change)
            frame.change = None
        name = frame.procedure.name
        self.emit(self.registry.runner(name).fire(trigger, self.state(name), self.table, frame.command))

    def hand_off(self, command: Command) -> None:
        """Start another procedure within this append; the running one resumes when it concludes.

        The running step's phase change is recorded first (it enters the phase it waits in), then
        ``procedure.handed_off``, then the child's own step, after the checks a command the referee
        gives passes. Refused (nothing is written) when the parent could never resume.
        """
        if not self._frames:
            msg = "only a step of a procedure can hand off"
            raise RuleRefusedError(msg)
        frame = self._frames[-1]
        parent = frame.procedure
        child = self.registry.route(type(command)).procedure
        _check_hand_off(self, parent, child, frame.change)
        if frame.change is not None:
            self.emit(frame.change)
            frame.change = None
        self.emit(HandedOff(parent=parent.name, child=child.name))
        admit(self, command, text_checked=False)
        run_step(self, command)
        state = self.state(child.name)
        if not child.is_open(state) and child.phase_of(state) not in child.final:
            msg = f"{parent.name} handed off to {child.name} with {type(command).__name__}, which did not start it"
            raise RuleRefusedError(msg)


def read_low(rolled: DiceRolled) -> int:
    """A roll where low is good, as the rules read it: its total, the state's modifiers counted against it.

    A roll an earlier release made (``dice.rolled`` before version 4, which the audit re-runs as it was made)
    had them as their sources gave them, a penalty negative, and its step read them against the faces: the
    faces that count less the modifier.
    """
    return rolled.total if rolled.low_is_good else rolled.counted - rolled.modifier


def _check_hand_off(ctx: StepContext, parent: Procedure, child: Procedure, change: PhaseChanged | None) -> None:
    """Refuse a hand-off after which ``parent`` could never resume."""
    if not child.has_machine:
        msg = (
            f"{parent.name} cannot hand off to {child.name}: {child.name} has no machine, "
            "so it never concludes and the hand-off would stay open"
        )
        raise RuleRefusedError(msg)
    if child is parent:
        msg = f"{parent.name} cannot hand off to itself"
        raise RuleRefusedError(msg)
    if parent.resume is None:
        return
    phase = change.dest if change is not None else getattr(parent.phase_of(ctx.state(parent.name)), "name", "")
    if not ctx.registry.runner(parent.name).resumes_from(phase):
        msg = (
            f"{parent.name} cannot hand off to {child.name} in phase {phase}: "
            f"its machine has no '{parent.resume.trigger}' from {phase}, so it could never resume"
        )
        raise RuleRefusedError(msg)


def _keep_a_member(ctx: StepContext, command: RemoveMember) -> None:
    """Refuse to remove the party's last member while a procedure that runs for a party is under way
    (``Procedure.needs_party``): its steps would be rolled for nobody."""
    if [m.name for m in ctx.table.party.members] != [command.name]:
        return
    for procedure in ctx.registry:
        if procedure.needs_party and procedure.is_open(ctx.state(procedure.name)):
            msg = f"{command.name} is the last member of the party while {procedure.needs_party}"
            raise RuleRefusedError(msg)


def admit(ctx: StepContext, command: Command, *, text_checked: bool) -> None:
    """The checks every command passes before its trigger fires, the referee's and a handed-off one alike.

    Its free text (unless the handler has checked it already), the members it names (``arg(member=True)``), the
    party's last member kept while a procedure runs
    for it, every guard, and the parent's waiting: a procedure that handed off takes none of its own steps until it
    resumes.
    """
    if not text_checked:
        text.check(converter.unstructure(command))
    # a name the command must give, given empty, is refused at the door; a log's record is taken as its release took it
    for name in named_members(command, required_blank=not ctx.as_recorded):
        ctx.table.party.named(name)
    if isinstance(command, RemoveMember):
        _keep_a_member(ctx, command)
    for guard in ctx.registry.guards:
        guard(ctx.table, command)
    route = ctx.registry.route(type(command))
    if route.trigger is None:
        return
    procedure = route.procedure
    waits_for = [child for parent, child in ctx.table.handoffs if parent == procedure.name]
    if not waits_for:
        return
    phase = procedure.phase_of(ctx.state(procedure.name))
    assert phase is not None  # noqa: S101 - a procedure with a machine has an initial phase
    if route.trigger in ctx.registry.runner(procedure.name).triggers(phase):
        msg = (
            f"{procedure.name} waits for {waits_for[-1]} to conclude: "
            f"'{route.trigger}' is refused in phase {phase.name} until it resumes"
        )
        raise RuleRefusedError(msg)
    waiting = f" ({procedure.name} waits for {waits_for[-1]} to conclude: the {waits_for[-1]}'s steps come first)"
    raise IllegalTransitionError(procedure.name, phase.name, route.trigger, []).telling(waiting)


def run_step(ctx: StepContext, command: Command) -> None:
    """Fire the command's trigger (if its procedure has a machine), run its step, record the change."""
    route = ctx.registry.route(type(command))
    procedure = route.procedure
    change = None
    if route.trigger is not None:
        runner = ctx.registry.runner(procedure.name)
        change = runner.fire(route.trigger, ctx.state(procedure.name), ctx.table, command)
    frame = _Frame(procedure, change, command)
    ctx._frames.append(frame)  # noqa: SLF001 - the kit's own context
    try:
        procedure.steps[type(command)](ctx, command)
    finally:
        ctx._frames.pop()  # noqa: SLF001 - the kit's own context
    if frame.change is not None:
        ctx.emit(frame.change)


def resume_parents(ctx: StepContext) -> None:
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
        frame = _Frame(parent, change, command)
        ctx._frames.append(frame)  # noqa: SLF001 - the kit's own context
        try:
            parent.resume.step(ctx, command)
        finally:
            ctx._frames.pop()  # noqa: SLF001 - the kit's own context
        if frame.change is not None:
            ctx.emit(frame.change)


def run(ctx: StepContext, command: Command, *, text_checked: bool = True) -> None:
    """Run one command the referee gives: its checks, its step (trigger first), then any parent whose child concluded.

    A command hexlog alone gives (``Procedure.internal``) is refused here, at the referee's door; the steps that
    give one, and the audit that re-runs one, do not come through it.

    ``text_checked``: the caller has checked the command's free text (the handler does, before it
    reads anything).
    """
    ctx.registry.refuse_internal(command)
    admit(ctx, command, text_checked=text_checked)
    run_step(ctx, command)
    resume_parents(ctx)
