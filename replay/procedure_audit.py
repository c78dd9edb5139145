"""The audit's check of how procedures ran: phase changes in an unbroken chain, every resume after its hand-off.

The kit records a phase change by firing a trigger on the procedure's phase as folded, so in a log
the kit wrote each procedure's phase changes form one chain: the first leaves the procedure's
initial phase and each later one leaves the phase the one before entered. (That a change names a
row of the procedure's transition table is the dice audit's check.) A step hands off to another
procedure (``procedure.handed_off``); when the child concludes, the kit resumes the parent of the
latest hand-off under way (``procedure.resumed``) in the same append. So a resume with no hand-off
of that parent and child under way, or before the child concluded, was not written by the kit, and
neither was a log that ends with a concluded child whose parent never resumed. Each such event is a
finding: a command that decided on a forged row of the table (a hand-off that never happened, a
phase it was not in) shows here, once it has reached the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.machine.kit.registry import Registry
from hexlog.replay.dice_audit import Issue

if TYPE_CHECKING:
    from hexlog.events.base import Event

TRANSITION = "transition"
PROCEDURE = "procedure"


@attrs.define
class Walker:
    """Follows each procedure's phase and the hand-offs under way through one stream."""

    registry: Registry
    versions: Sequence[int] | None
    issues: list[Issue] = attrs.field(factory=list)
    #: each procedure's phase (by name) as the log's phase changes leave it, and where it entered it
    phases: dict[str, tuple[str, int | None]] = attrs.field(factory=dict)
    #: the hand-offs under way, the latest last: (parent, child, where)
    open: list[tuple[str, str, int]] = attrs.field(factory=list)

    def place(self, at: int) -> str:
        return f"stream version {self.versions[at]}" if self.versions is not None else f"entry {at + 1}"

    def since(self, at: int | None) -> str:
        return "from the start" if at is None else f"since {self.place(at)}"

    def phase(self, name: str) -> tuple[str, int | None]:
        """A procedure's phase and where it entered it (its initial phase, from the start, before any change)."""
        initial = self.registry.procedure(name).initial
        return self.phases.get(name, (initial.name if initial is not None else "", None))

    def concluded(self, name: str) -> bool:
        """Whether a procedure with a machine is in one of its final phases."""
        return self.phase(name)[0] in {p.name for p in self.registry.procedure(name).final}

    def changed(self, at: int, event: PhaseChanged) -> None:
        runner = self.registry.runners.get(event.procedure)
        if runner is None:
            return  # the dice audit names a procedure without a machine
        phase, since = self.phase(event.procedure)
        # a change its table lacks is the dice audit's finding already: one finding per event
        if event.source != phase and runner.recorded_ok(event.trigger, event.source, event.dest):
            self.issues.append(
                Issue(
                    at,
                    TRANSITION,
                    f"{event.procedure} '{event.trigger}' leaves phase {event.source}, "
                    f"but the log has it in phase {phase} ({self.since(since)})",
                )
            )
        self.phases[event.procedure] = (event.dest, at)

    def handed_off(self, at: int, event: HandedOff) -> None:
        if event.child == event.parent:
            self.issues.append(Issue(at, PROCEDURE, f"{event.parent} hands off to itself, so it could never resume"))
            return
        if event.child not in self.registry.runners or event.parent not in self.registry.runners:
            named = event.child if event.child not in self.registry.runners else event.parent
            reason = f"{event.parent} hands off to {event.child}, but {named} has no state machine here"
            self.issues.append(Issue(at, PROCEDURE, reason + f", so {event.parent} could never resume"))
            return
        self.open.append((event.parent, event.child, at))

    def resumed(self, at: int, event: Resumed) -> None:
        pair = f"{event.parent} resumes after {event.child}"
        if not self.open:
            reason = f"{pair}, but no hand-off from {event.parent} to {event.child} is under way"
            self.issues.append(Issue(at, PROCEDURE, reason))
            return
        parent, child, since = self.open[-1]
        if (parent, child) != (event.parent, event.child):
            reason = f"{pair}, but the latest hand-off under way is from {parent} to {child} (at {self.place(since)})"
            self.issues.append(Issue(at, PROCEDURE, reason))
            return
        if not self.concluded(child):
            phase, _ = self.phase(child)
            self.issues.append(Issue(at, PROCEDURE, f"{pair}, but {child} has not concluded: it is in phase {phase}"))
        self.open.pop()

    def step(self, at: int, event: Event | None) -> None:
        """Follow one event."""
        match event:
            case PhaseChanged():
                self.changed(at, event)
            case HandedOff():
                self.handed_off(at, event)
            case Resumed():
                self.resumed(at, event)

    def finish(self) -> None:
        """A concluded child still waited on at the end: its parent never resumed."""
        for parent, child, since in reversed(self.open):
            if not self.concluded(child):
                return
            _, at = self.phase(child)
            where = at if at is not None else since
            reason = (
                f"{child} concluded while {parent} waited on it (handed off at {self.place(since)}), "
                f"but {parent} never resumed"
            )
            self.issues.append(Issue(where, PROCEDURE, reason))


def check_procedures(
    events: Sequence[Event | None], registry: Registry, versions: Sequence[int] | None = None
) -> list[Issue]:
    """Check one stream's decoded events (``None`` where one did not decode), in version order.

    Each issue's ``at`` is an index into ``events``; ``versions`` (their stream versions) only
    improves the wording.
    """
    walker = Walker(registry, versions)
    for at, event in enumerate(events):
        walker.step(at, event)
    walker.finish()
    return sorted(walker.issues, key=lambda issue: issue.at)
