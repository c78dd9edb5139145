"""Every encounter decision re-derived from its recorded rolls: the audit's ``decision`` check.

The dice check re-derives each roll's faces from the revealed secret; this check re-derives what the
rules did with them. For each decision of the encounter (surprise, distance, initiative, reaction,
pursuit) the stream is folded up to it with the handler's own fold (``hexlog.machine.table``: the rules
in force from the latest ``campaign.started`` or ``campaign.rules_changed`` by ``from_recorded``, the
party, the encounter so far), the encounter step that made it (``encounter_steps.STEPS``) is run again
on that table with the recorded faces as its dice, and what the step emits is compared with the record:

* the decision itself, field by field (only what the referee typed is taken from the record: the
  speaker and modifier of a reaction, a referee's or players' pursuit choice, a referee's distance,
  the free note after a pursuit's basis);
* the events the step records after it (a party surrounded, both sides straight to combat, the
  conclusion and clock of a pursuit, the phase change): the rolls decided them too;
* each roll the step asks for against the roll the decision names in that place: its purpose, dice,
  modifier and visibility.

No rule is written here: the step is the rule, so the audit judges by exactly the code that rolled.
Besides, a decision may only name rolls of the session open at it, recorded before it, each used by
one decision; and a roll with the purpose of an encounter step (surprise, distance, initiative,
reaction) that no decision names is a finding, since the steps name every roll they make: a roll made
and then ignored is a silent re-roll.

The faces are what the players saw, so every decision is checked at once, revealed or not; while a
session's secret is unrevealed the faces themselves are still unverified (the dice check notes each
such roll), and a finding about a decision that used them says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import encounter as ev
from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.codec import decode, to_data
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError
from hexlog.events.session import SessionAbandoned, SessionClosed
from hexlog.machine import positions, surprise
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.encounter_commands import (
    CheckSurprise,
    DecidePursuit,
    DetermineDistance,
    RerollReaction,
    RollInitiative,
    RollReaction,
)
from hexlog.machine.encounter_steps import STEPS
from hexlog.machine.step import Step
from hexlog.replay.explain import Issue

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope
    from hexlog.machine.commands import Command

__all__ = ["CHECK", "STEP_PURPOSES", "DecisionCheck", "check_decision_events", "check_decisions"]

CHECK = "decision"
#: the purposes of the rolls the encounter steps make (each, or each followed by ``.`` and more): the
#: steps name every such roll in a decision
STEP_PURPOSES = (surprise.PURPOSE, positions.PURPOSE, "encounter.initiative", "encounter.reaction")
#: the fields of a decision that the referee typed (the command's arguments), by decision type
_TYPED: dict[type[Event], frozenset[str]] = {
    ev.ReactionRolled: frozenset({"speaker", "modifier"}),
    ev.PursuitDecided: frozenset({"note"}),
}


class _RollMismatch(Exception):
    """The step asked for a roll the decision does not name in that place."""


@attrs.define
class _RecordedDice:
    """The dice of a re-run step: the recorded rolls the decision names, in order."""

    rolls: list[DiceRolled]
    used: int = 0

    def faces(self, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]:  # noqa: ARG002 - Roller protocol
        """The faces of the next named roll, if it has the dice the rules ask for."""
        asked = _expression(sides)
        if self.used >= len(self.rolls):
            named = f"names only {len(self.rolls)} roll(s)" if self.rolls else "names no roll"
            msg = f"the rules roll {asked} here (roll {self.used + 1} of this decision), but the decision {named}"
            raise _RollMismatch(msg)
        roll = self.rolls[self.used]
        if tuple(roll.sides) != tuple(sides):
            msg = f"roll #{roll.nonce} is {roll.expression} for {roll.purpose}, but the rules roll {asked} here"
            raise _RollMismatch(msg)
        self.used += 1
        return tuple(roll.faces)


def _expression(sides: tuple[int, ...]) -> str:
    """Dice notation for a tuple of sides (``2d6``)."""
    return DiceRolled(session="", nonce=0, purpose="", sides=sides, faces=sides, modifier=0, total=0).expression


def _step_purpose(purpose: str) -> bool:
    """Whether an encounter step rolls for this purpose."""
    return any(purpose == p or purpose.startswith(p + ".") for p in STEP_PURPOSES)


def _command_for(event: Event) -> Command | None:
    """The command that made a recorded decision, with what the referee typed taken from the record."""
    match event:
        case ev.SurpriseChecked():
            return CheckSurprise()
        case ev.DistanceDetermined(rule="referee"):
            return DetermineDistance(value=event.value)
        case ev.DistanceDetermined():
            return DetermineDistance()
        case ev.InitiativeRolled():
            return RollInitiative()
        case ev.ReactionRolled(reroll=True):
            return RerollReaction(speaker=event.speaker, modifier=event.modifier)
        case ev.ReactionRolled():
            return RollReaction(speaker=event.speaker, modifier=event.modifier)
        case ev.PursuitDecided():
            return DecidePursuit(pursue=None if event.decided_by == "reaction" else event.pursue)
    return None


def _show(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def _rolls_text(rolls: Sequence[DiceRolled]) -> str:
    shown = ", ".join(f"#{r.nonce} ({r.expression} = {r.total})" for r in rolls)
    if not rolls:
        return " with no roll"
    return f" from roll{'s' if len(rolls) > 1 else ''} {shown}"


def _note_ok(recorded: str, basis: str) -> bool:
    """A pursuit's note is the rules' basis, then ``; `` and the referee's free note (if any)."""
    return not basis or recorded == basis or recorded.startswith(basis + "; ")


def _differences(recorded: Event, expected: Event) -> list[str]:
    """Each field the rules decide differently, in words (distance first, as value and unit)."""
    out: list[str] = []
    skip = set(_TYPED.get(type(recorded), ()))
    if isinstance(recorded, ev.DistanceDetermined) and isinstance(expected, ev.DistanceDetermined):
        skip |= {"value", "unit"}
        if (recorded.value, recorded.unit) != (expected.value, expected.unit):
            given = f"{expected.value} {expected.unit}"
            out.append(f"distance {recorded.value} {recorded.unit} recorded, but the rules give {given}")
    for field in attrs.fields(type(recorded)):
        name = field.name
        mine, theirs = getattr(recorded, name), getattr(expected, name)
        if name in skip or mine == theirs:
            continue
        out.append(f"{name} {_show(mine)} recorded, but the rules give {_show(theirs)}")
    if isinstance(recorded, ev.PursuitDecided) and isinstance(expected, ev.PursuitDecided):
        if not _note_ok(recorded.note, expected.note):
            out.append(f"note {_show(recorded.note)} recorded, but the rules' basis is {_show(expected.note)}")
    return out


def _tail_difference(emitted: Sequence[Event], events: Sequence[Event | None], at: int) -> str | None:
    """The first event after the decision that differs from what the step records after it."""
    for offset, want in enumerate(emitted, start=1):
        found = events[at + offset] if at + offset < len(events) else None
        if found == want:
            continue
        wanted = f"{want.type_name} {_show_data(want)}"
        if found is None:
            return f"after it the rules record {wanted}, but the log has no such event there"
        if type(found) is type(want):
            diffs = [
                f"{f.name} {_show(getattr(found, f.name))} where the rules give {_show(getattr(want, f.name))}"
                for f in attrs.fields(type(want)) if getattr(found, f.name) != getattr(want, f.name)
            ]
            return f"the {want.type_name} after it differs: {'; '.join(diffs)}"
        return f"after it the rules record {wanted}, but the log has {found.type_name} there"
    return None


def _show_data(event: Event) -> str:
    return ", ".join(f"{k}={_show(v)}" for k, v in to_data(event).items())


@attrs.define
class _Walker:
    """Folds one stream's events and checks each decision against the table just before it."""

    events: Sequence[Event | None]
    versions: Sequence[int] | None
    issues: list[Issue] = attrs.field(factory=list)
    table: tables.Table = attrs.field(factory=tables.Table)
    #: session -> nonce -> (index, roll): every roll recorded so far
    rolls: dict[str, dict[int, tuple[int, DiceRolled]]] = attrs.field(factory=dict)
    #: (session, nonce) -> the index of the decision that named it first
    named: dict[tuple[str, int], int] = attrs.field(factory=dict)
    checked: int = 0
    #: the sessions that reveal their secret somewhere in the stream, and those abandoned
    closed: set[str] = attrs.field(factory=set)
    abandoned: set[str] = attrs.field(factory=set)

    def where(self, at: int) -> str:
        if self.versions is not None:
            return f"stream version {self.versions[at]}"
        return f"entry {at + 1}"

    def flag(self, at: int, reason: str) -> None:
        self.issues.append(Issue(at, CHECK, reason))

    def run(self) -> None:
        self.closed = {e.session for e in self.events if isinstance(e, SessionClosed)}
        self.abandoned = {e.session for e in self.events if isinstance(e, SessionAbandoned)}
        for at, event in enumerate(self.events):
            if event is None:
                continue
            if isinstance(event, DiceRolled):
                self.rolls.setdefault(event.session, {})[event.nonce] = (at, event)
            if isinstance(event, (CampaignStarted, RulesChanged)):
                content_hash = rulesets.from_recorded(event.ruleset, event.rules).hash
                if content_hash != event.rules_hash:
                    self.flag(at, f"rules_hash {event.rules_hash[:16]} does not match the recorded rules ({content_hash[:16]})")
            names = getattr(event, "rolls", None)
            folded = self.decision(at, event, names) if isinstance(names, tuple) else event
            try:
                self.table = tables.evolve(self.table, folded)
            except Exception:  # noqa: BLE001, S112 - a malformed event: the decode and transition checks name it
                continue
        self.orphans()

    def named_rolls(self, at: int, event: Event, names: tuple[Any, ...]) -> list[DiceRolled] | None:
        """The recorded rolls a decision names, or None when one is not a roll of its session."""
        session = self.table.session
        current = session.id if session is not None and session.open else None
        found: list[DiceRolled] = []
        missing = False
        for nonce in names:
            hit = self.rolls.get(current, {}).get(nonce) if current is not None and isinstance(nonce, int) else None
            if hit is None:
                where = f"session {current}" if current else "a session (none is open)"
                self.flag(at, f"{event.type_name} names roll #{nonce}, which is not a roll of {where} before it")
                missing = True
                continue
            assert current is not None  # noqa: S101 - a hit needs a current session
            first = self.named.setdefault((current, nonce), at)
            if first != at:
                other = self.events[first]
                kind = other.type_name if other is not None else "decision"
                used = f"already used by the {kind} at {self.where(first)}"
                self.flag(at, f"roll #{nonce} of session {current} is {used}")
            found.append(hit[1])
        return None if missing else found

    def decision(self, at: int, event: Event, names: tuple[Any, ...]) -> Event:
        """Check one decision; what to fold in its place (the rules' decision, once re-derived).

        Folding the re-derived decision rather than a forged one keeps a single forgery from
        showing again at every later decision that reads it.
        """
        recorded = self.named_rolls(at, event, names)
        command = _command_for(event)
        if recorded is None or command is None:
            return event
        self.checked += 1
        table = self.table
        if recorded and table.session is not None:
            table = attrs.evolve(table, session=attrs.evolve(table.session, next_nonce=recorded[0].nonce))
        dice = _RecordedDice(list(recorded))
        step = Step(table=table, roller_source=lambda: dice)
        try:
            STEPS[type(command)](step, command)
        except _RollMismatch as err:
            self.flag(at, f"{event.type_name}: {err}{self.unverified(recorded)}")
            return event
        except Exception as err:  # noqa: BLE001 - whatever the recorded rules or state make the step raise is a finding
            self.flag(at, f"{event.type_name}: the rules cannot re-run this decision here: {err}")
            return event
        emitted = [e for e in step.events if not isinstance(e, DiceRolled)]
        index = next((i for i, e in enumerate(emitted) if type(e) is type(event)), None)
        if index is None:
            differences, tail = [f"the rules record no {event.type_name} here"], None
        else:
            differences = _differences(event, emitted[index])
            tail = _tail_difference(emitted[index + 1 :], self.events, at)
        dice_problems = self.roll_problems(step, recorded)
        if differences:
            differences[0] += _rolls_text(recorded)
        problems = [*differences, *dice_problems, *([tail] if tail else [])]
        if problems:
            self.flag(at, "; ".join(problems) + self.unverified(recorded))
        return emitted[index] if index is not None and not dice_problems else event

    def roll_problems(self, step: Step, recorded: list[DiceRolled]) -> list[str]:
        """Each named roll whose purpose, modifier or visibility is not what the rules roll there."""
        asked = [e for e in step.events if isinstance(e, DiceRolled)]
        out: list[str] = []
        for want, roll in zip(asked, recorded, strict=False):
            if (want.purpose, want.modifier, want.visibility) != (roll.purpose, roll.modifier, roll.visibility):
                out.append(
                    f"roll #{roll.nonce} is {roll.expression} for {roll.purpose} ({roll.visibility}), "
                    f"but the rules roll {want.expression} for {want.purpose} ({want.visibility}) here"
                )
        if len(recorded) > len(asked):
            extra = ", ".join(f"#{r.nonce}" for r in recorded[len(asked) :])
            out.append(f"the decision names {len(recorded)} roll(s), but the rules use {len(asked)} (not {extra})")
        return out

    def unverified(self, recorded: Sequence[DiceRolled]) -> str:
        """A note when the faces used are not verified by a revealed secret (yet, or ever)."""
        sessions = dict.fromkeys(r.session for r in recorded if r.session not in self.closed)
        notes = [
            f"session {s} was abandoned, so these faces can never be verified" if s in self.abandoned
            else f"these faces are themselves unverified until session {s} reveals its secret"
            for s in sessions
        ]
        return "".join(f" ({n})" for n in notes)

    def orphans(self) -> None:
        """An encounter roll no decision names: the steps name every roll they make."""
        for session, by_nonce in self.rolls.items():
            for nonce, (at, roll) in by_nonce.items():
                if _step_purpose(roll.purpose) and (session, nonce) not in self.named:
                    self.flag(at, f"roll #{nonce} for {roll.purpose} is named by no decision: rolled and then ignored")


@attrs.frozen
class DecisionCheck:
    """What re-deriving a stream's decisions found, and how many decisions were re-run."""

    issues: tuple[Issue, ...]
    checked: int


def check_decision_events(events: Sequence[Event | None], versions: Sequence[int] | None = None) -> DecisionCheck:
    """Check one stream's decoded events (``None`` where one did not decode), in version order.

    ``versions`` (their stream versions) only improves the wording. Each issue's ``at`` is an index
    into ``events``.
    """
    walker = _Walker(events, versions)
    walker.run()
    return DecisionCheck(tuple(sorted(walker.issues, key=lambda i: i.at)), walker.checked)


def check_decisions(envelopes_in_order: Sequence[Envelope]) -> list[Issue]:
    """Re-derive every encounter decision of these envelopes (one or more streams, each in version order).

    Each issue's ``at`` is the index of the event in ``envelopes_in_order``; an envelope that does
    not decode is skipped (the audit's decode check names it).
    """
    streams: dict[str, list[int]] = {}
    for i, env in enumerate(envelopes_in_order):
        streams.setdefault(env.subject, []).append(i)
    issues: list[Issue] = []
    for indices in streams.values():
        events: list[Event | None] = []
        for i in indices:
            try:
                events.append(decode(envelopes_in_order[i]))
            except HexlogError:
                events.append(None)
        versions = [envelopes_in_order[i].streamversion for i in indices]
        found = check_decision_events(events, versions)
        issues.extend(attrs.evolve(issue, at=indices[issue.at]) for issue in found.issues)
    return sorted(issues, key=lambda i: i.at)
