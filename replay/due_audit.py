"""What falls due as game time passes, made again after each advance of the clock: part of the audit's ``decision``
check.

A step that lets game time pass records the clock event, then whatever the procedures' due checks find due in the
span (``DueCheck``): a light burning out, a wandering check, a rest day. No command names those checks and the
rolls they make, so a decision's re-run does not reach them. After each ``clock.advanced`` the audit runs the due
checks again on the table as it stood, with the rolls the log records right after it as their dice, and compares
what they record with the events that follow: a check that fell due and is missing, or differs, is a finding; and an
event that only a due check records (``DueCheck.sole``), anywhere but in its place after an advance that makes it due,
is a finding too (a wandering check added on a turn none falls due shifts every secret roll after it).

The events after a clock event that a due check may have recorded (rolls of a procedure's purposes, and
``DueCheck.records``) are read as they come, and judged once another event ends them (a free roll, a decision, a
phase change), so a reader that sees each event once can judge them too, keeping no more than a check records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.base import Event
from hexlog.events.clock import ClockAdvanced
from hexlog.events.dice import DiceRolled
from hexlog.machine import dice as hexdice
from hexlog.machine.kit import context as kit
from hexlog.machine.table import Table
from hexlog.replay.differences import show, show_data

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.machine.keeper import SecretKeeper
    from hexlog.machine.kit.registry import Registry


@attrs.define
class _Following:
    """The dice of the due checks' re-run: the rolls the log records after the clock event, in order (where the log
    has no such roll, the highest faces: what the rules record then differs from the log anyway)."""

    rolls: list[DiceRolled]
    used: int = 0

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]:  # noqa: ARG002 - Roller protocol
        if self.used < len(self.rolls):
            roll = self.rolls[self.used]
            self.used += 1
            if tuple(roll.sides) == tuple(sides) and len(roll.faces) == len(sides):
                return tuple(roll.faces)
        return tuple(sides)


@attrs.define
class Pending:
    """A clock event whose due checks are still to be judged: where it is, the table just before it, and the events
    after it that a due check may have recorded (with their indices)."""

    at: int
    table: Table
    clock: ClockAdvanced
    run: list[tuple[int, Event]] = attrs.field(factory=list)


def kinds(registry: Registry) -> tuple[frozenset[type[Event]], frozenset[type[Event]]]:
    """The event types some due check records, and those only a due check records."""
    checks = registry.due_checks
    return (
        frozenset(kind for check in checks for kind in check.records),
        frozenset(kind for check in checks if check.sole for kind in check.records),
    )


def rerun(pending: Pending, registry: Registry, keeper: SecretKeeper | None = None) -> list[Event]:
    """What the due checks record after the clock event, on the table just before it (its rules read as recorded),
    the rolls after it as their dice."""
    table = pending.table
    if table.rules is not None:
        table = attrs.evolve(table, rules=table.rules.as_recorded())
    dice = _Following([event for _, event in pending.run if isinstance(event, DiceRolled)])
    ctx = kit.StepContext(table=table, registry=registry, roller_for=lambda _t: dice, keeper=keeper, as_recorded=True)
    start = ctx.table.clock.seconds
    ctx.emit(pending.clock)
    for check in registry.due_checks:
        check.run(ctx, start, ctx.table.clock.seconds)
    return ctx.events[1:]


def _same(found: Event | None, want: Event) -> bool:
    """Whether the log's event is the one the due checks record (a roll: the same roll of the same dice, for the
    same purpose, in the same lane)."""
    if isinstance(want, DiceRolled):
        if not isinstance(found, DiceRolled):
            return False
        mine = (found.session, found.nonce, found.purpose, tuple(found.sides), found.visibility)
        return mine == (want.session, want.nonce, want.purpose, tuple(want.sides), want.visibility)
    return found == want


def _named(want: Event) -> str:
    """The event the rules record, in words."""
    if isinstance(want, DiceRolled):
        name = hexdice.nonce_name(want.nonce, secret=want.visibility == hexdice.REFEREE_LANE)
        return f"roll {name} ({want.expression} for {want.purpose})"
    return f"{want.type_name} {show_data(want)}"


def compare(pending: Pending, emitted: Sequence[Event]) -> tuple[str | None, set[int]]:
    """How the log's events after the clock event differ from what the due checks record there (None: they do not),
    and the indices of those found in their places."""
    placed: set[int] = set()
    for offset, want in enumerate(emitted):
        at, found = pending.run[offset] if offset < len(pending.run) else (None, None)
        if at is not None and type(found) is type(want):
            placed.add(at)
        if _same(found, want):
            continue
        when = f"the clock advanced {show(pending.clock.reason)}" if pending.clock.reason else "the clock advanced"
        if found is None:
            return f"{when}, and the rules record {_named(want)} after it, but the log has no such event", placed
        if type(found) is type(want) and not isinstance(want, DiceRolled):
            diffs = [
                f"{f.name} {show(getattr(found, f.name))} where the rules give {show(getattr(want, f.name))}"
                for f in attrs.fields(type(want))
                if getattr(found, f.name) != getattr(want, f.name)
            ]
            return f"{when}, and the {want.type_name} due after it differs: {'; '.join(diffs)}", placed
        there = f"roll {found.purpose}" if isinstance(found, DiceRolled) else found.type_name
        return f"{when}, and the rules record {_named(want)} after it, but the log has {there} there", placed
    return None, placed


def stray(event: Event) -> str:
    """The finding for an event only a due check records, out of its place."""
    return (
        f"{event.type_name} is recorded only when it falls due as game time passes, and no advance of the clock "
        "makes it due here"
    )
