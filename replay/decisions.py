"""Every dice-driven decision re-derived from its recorded rolls: the audit's ``decision`` check.

The dice check re-derives each roll's faces from the revealed secret; this check re-derives what the
rules did with them. For each decision (an event that names the rolls it used in ``rolls``), the
stream is folded up to it with the handler's own fold (the rules in force as recorded, the party, the
procedures so far); the procedure that wrote it gives the command that made it (its inverse), and the
kit runs that command again on that table, with the recorded faces as its dice. What it records is
compared with the log:

* the decision itself, field by field (what the referee typed is taken from the record);
* the events the step records after it (a party surrounded, a conclusion, the clock, the phase
  change): the rolls decided them too. A step is run with no due check as it lets time pass (a
  delve's move, a rest day), and what it records past a clock event is looked for past the due
  checks' events the log records there, which the due checks' re-run judges;
* each roll the step asks for against the roll the decision names in that place: its purpose, dice,
  modifier and visibility (and, for rolls written since it was recorded, whom it was made for and the
  modifiers the state imposed), and whether a low total was the good one.

A decision whose rolls were made before ``dice.rolled`` version 4 is re-run with every modifier added
as its source gave it (``StepContext.modifiers_as_given``), as the releases that made them did, even on
a roll where low is good, which the steps since count them against.

A decision recorded at an earlier schema version of its event is re-run by the command its inverse
names for that version (``Inverse.command_before``), when the release that wrote it ran its rules
otherwise: a pursuit's flight during a journey, whose heading those releases rolled in public. An event
the rules record only after a decision (``Inverse.follows_only``: a flight whose heading is the
referee's) is a finding anywhere but in its place after one.

Before its step runs again, each decision's command is held to the guards, the invariants the procedures own
over other commands, as the referee's door holds every command (``kit.admit``): a decision that door would have
refused (the day's weather while a pursuit runs, a rest day in a delve) is a finding naming the rule.

An event that a command the referee types records first, and other steps record too (``Inverse.typed_steps``: an
encounter's conclusion; a chase's start, which an encounter or a delve hands off too), is judged once its procedure's
phase change shows that command's trigger: the command runs again on the state just before the event, rolling no
dice, and a refusal (a delve's encounter concluded in pursuit, which the rules leave to its pursuers' decision; a
chase following an encounter the log never met) is a finding, as is the event, or one after it up to the phase change
(its turn on the clock), that differs from what it records. In a stream no event of which shows the release that
refuses it (``Inverse.typed_since``), such an event is let be, as the releases before it may have let the referee
type it. A session names the release that opened it (``session.opened`` version 3), which shows it from the session's
first event on. The event a procedure's step records first right after ``procedure.handed_off`` names it (past its
rolls) was its parent's command, by the same trigger: the re-run of the parent's step judges it, not this.

A child handed off to concludes in the command that records its parent's resume (``kit.run``): an event between the
phase change that concludes it and that ``procedure.resumed`` is a finding, unless the concluding step records it there
(what it records after a ``follow``, found in its place by its re-run) or a check due after its clock event does.

No rule is written here: the step is the rule, so the audit judges by exactly the code that rolled.
A decision may only name rolls of the session open at it, recorded before it, each used by one
decision; and a roll with the purpose a procedure reserves for its steps that no decision names is a
finding, since the steps name every roll they make: a roll made and then ignored is a silent re-roll.

The faces are what the players saw, so every decision is checked at once, revealed or not; while a
session's secret is unrevealed the faces themselves are still unverified, and a finding about a
decision that used them says so.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import releases
from hexlog.events.base import TYPE_PREFIX, Event
from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError
from hexlog.events.hexmap import HexSet
from hexlog.events.party import MemberEdited, MemberSheet
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.events.session import SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.travel import DayStarted
from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.commands import Command
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import Hex, MapState
from hexlog.machine.kit import context as kit
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.procedure import Inverse
from hexlog.machine.kit.registry import Registry
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted, shown
from hexlog.replay import differences as words
from hexlog.replay import due_audit
from hexlog.replay.dice_audit import Issue, Recent, free_named, free_rolls
from hexlog.replay.hidden_audit import FindOrder, HiddenCheck, check_hidden, still_hidden
from hexlog.replay.hidden_audit import aside as hidden_aside
from hexlog.replay.hidden_audit import caveat as hidden_caveat

if TYPE_CHECKING:
    from hexlog.events.chain import Envelope

__all__ = ["CHECK", "DecisionCheck", "check_decision_events", "check_decisions"]

CHECK = "decision"
#: the first schema version of ``dice.rolled`` that records whom a roll was made for
_MADE_FOR_SINCE = 2
#: the first schema version of ``dice.rolled`` whose state modifiers count against a roll where low is good
_LOW_IS_GOOD_SINCE = 4
#: the first release that recorded a rest day's start (``travel.day_started`` version 2, whose step the audit re-runs)
_REST_DAY_STARTED_SINCE = releases.raised_at(TYPE_PREFIX + "travel.day_started", 2)
#: the first release whose resumes are the kit's today: the releases before it resumed a delve whose chase caught the
#: party into exploring, and a travel day after one of its rest's encounters without handing off the next, and what
#: those releases recorded there is let be (``check_resumed``)
_RESUMES_SINCE = releases.raised_at(TYPE_PREFIX + "encounter.pursuit_decided", 2)


#: how many of the log's events after an event a command the referee types records first are kept until its phase
#: change (``_Typed.after``): more than any such step records, so that a log with more there differs all the same, and
#: a stream read as it comes keeps no more however long it waits
_TYPED_KEPT = 32


class _RollMismatchError(Exception):
    """The step asked for a roll the decision does not name in that place."""


@attrs.define
class _RecordedDice:
    """The dice of a re-run step: the recorded rolls the decision names, in order."""

    rolls: list[DiceRolled]
    used: int = 0

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]:  # noqa: ARG002 - Roller protocol
        """The faces of the next named roll, if it has the dice the rules ask for."""
        asked = _expression(sides)
        if self.used >= len(self.rolls):
            named = f"names only {counted(len(self.rolls), 'roll')}" if self.rolls else "names no roll"
            msg = f"the rules roll {asked} here (roll {self.used + 1} of this decision), but the decision {named}"
            raise _RollMismatchError(msg)
        roll = self.rolls[self.used]
        if tuple(roll.sides) != tuple(sides):
            msg = f"roll {_name(roll)} is {roll.expression} for {roll.purpose}, but the rules roll {asked} here"
            raise _RollMismatchError(msg)
        self.used += 1
        return tuple(roll.faces)


@attrs.define
class _Typed:
    """An event a command the referee types records first (``Inverse.typed_steps``), waiting for its procedure's phase
    change, which tells whether that command made it: the command, the table just before the event, and the log's
    events after it (past those of the due checks once the clock has moved)."""

    at: int
    event: Event
    command: Command
    table: tables.Table
    inverse: Inverse
    after: list[Event] = attrs.field(factory=list)
    clocked: bool = False


#: the first schema version of ``session.opened``: the releases that write it roll hexlog-dice-v2
LANES_SINCE = 2


def _name(roll: DiceRolled) -> str:
    """A roll's name within its session: ``#4``, a secret roll's ``#r4``."""
    return hexdice.nonce_name(roll.nonce, secret=roll.visibility == hexdice.REFEREE_LANE)


def _expression(sides: tuple[int, ...]) -> str:
    """Dice notation for a tuple of sides (``2d6``)."""
    return DiceRolled(session="", nonce=0, purpose="", sides=sides, faces=sides, modifier=0, total=0).expression


@attrs.define
class _Walker:
    """Folds one stream's events and checks each decision against the table just before it."""

    events: Sequence[Event | None]
    versions: Sequence[int] | None
    schemas: Sequence[int] | None
    registry: Registry
    issues: list[Issue] = attrs.field(factory=list)
    table: tables.Table = attrs.field(factory=tables.Table)
    #: session -> (lane, nonce) -> (index, roll): every roll recorded so far ("" is v1's one lane)
    rolls: dict[str, dict[tuple[str, int], tuple[int, DiceRolled]]] = attrs.field(factory=dict)
    #: (session, lane, nonce) -> the index of the decision that named it first
    named: dict[tuple[str, str, int], int] = attrs.field(factory=dict)
    #: session -> its dice scheme
    schemes: dict[str, str] = attrs.field(factory=dict)
    #: whether a session of the stream rolled hexlog-dice-v2 (``check_scheme``)
    lanes: bool = False
    #: what the referee decided by hand, where: the audit's account of the referee's hand
    hand: list[str] = attrs.field(factory=list)
    #: session -> how many free rolls it made, and the first ones named (``note_free``)
    free: dict[str, tuple[int, tuple[str, ...]]] = attrs.field(factory=dict)
    #: what cannot be told apart from a fault in a log of a release that did not prevent it: not a failure,
    #: but never verified
    doubts: list[str] = attrs.field(factory=list)
    checked: int = 0
    #: the sessions that reveal their secret somewhere in the stream, and those abandoned
    closed: set[str] = attrs.field(factory=set)
    abandoned: set[str] = attrs.field(factory=set)
    #: decision event type -> the inverse of the procedure that writes it
    inverses: dict[type[Event], Inverse] = attrs.field(factory=dict)
    #: what the log opens of the facts it commits to (hidden features), and how many it never opens
    hidden: HiddenCheck | None = None
    #: the decisions not judged because they may have read a fact never opened, and the latest one
    unsure: int = 0
    forgiven: int | None = None
    #: the facts never opened that were hidden at some decision not judged (their commitments)
    doubted: set[str] = attrs.field(factory=set)
    #: the events a re-run decision's step records after it, found in their places (``Inverse.follows_only``)
    followed: set[int] = attrs.field(factory=set)
    #: the last clock event, while the events after it that a due check may record are still coming (``due_audit``)
    due: due_audit.Pending | None = None
    #: the event types some due check records, and those only a due check records
    due_kinds: frozenset[type[Event]] = frozenset()
    due_sole: frozenset[type[Event]] = frozenset()
    #: the event types a due check records and steps record too (a rest): each is found in its place, after a clock
    #: event as the due checks record it there, or after or before a decision as its step records it (``loose``)
    due_shared: frozenset[type[Event]] = frozenset()
    #: those events since the last event no due check records that are in no such place yet: each with the table
    #: just before it; and those the due checks' re-run after the last clock event found in their places
    loose: list[tuple[int, Event, tables.Table]] = attrs.field(factory=list)
    placed: set[int] = attrs.field(factory=set)
    #: the latest release an event of the stream so far shows wrote it (``releases.raised_at``; 0: any)
    release: int = 0
    #: whether the last decision's step could not be re-run (a finding): what it recorded after it is in no place
    unjudged: bool = False
    quiet: bool = False
    #: the order a search's finds are recorded in (no hidden key needed: never forgiven)
    finds: FindOrder = attrs.field(factory=FindOrder)
    #: (procedure, trigger) -> the decisions its step always records before its phase change (``Inverse.decides``)
    decides: dict[tuple[str, str], tuple[type[Event], ...]] = attrs.field(factory=dict)
    decided_kinds: frozenset[type[Event]] = frozenset()
    #: the events no dice decide whose steps are re-run all the same (``Inverse.reruns``)
    reruns: frozenset[type[Event]] = frozenset()
    #: event type -> the ``Inverse.follows_only`` of every procedure that records it
    follows_only: dict[type[Event], tuple[Callable[[Event], bool], ...]] = attrs.field(factory=dict)
    #: where each of those decisions was last recorded, and where each procedure last changed its phase
    decided_at: dict[type[Event], int] = attrs.field(factory=dict)
    changed_at: dict[str, int] = attrs.field(factory=dict)
    #: event type -> the procedure whose command the referee types records it first, and its inverse
    #: (``Inverse.typed_steps``); and each procedure's such event still waiting for its phase change
    typed_kinds: dict[type[Event], tuple[str, Inverse]] = attrs.field(factory=dict)
    typed: dict[str, _Typed] = attrs.field(factory=dict)
    #: the procedure the latest event handed off to, while only its rolls have come since (its step's first event is
    #: its parent's command, not the referee's: a chase an encounter hands off starts by the trigger the typed one does)
    handed_to: str | None = None
    #: the latest hand-off under way whose child has concluded, and where: (parent, child, index) until the parent's
    #: ``procedure.resumed``, which the same command records (``check_seam``)
    concluded: tuple[str, str, int] | None = None

    def where(self, at: int) -> str:
        if self.versions is not None:
            return f"stream version {self.versions[at]}"
        return f"entry {at + 1}"

    def flag(self, at: int, reason: str) -> None:
        if at == self.forgiven:
            return  # it may have read a fact the log never opens: the caveat names it
        self.issues.append(Issue(at, CHECK, reason))

    def run(self) -> None:
        self.begin()
        self.closed = {e.session for e in self.events if isinstance(e, SessionClosed)}
        self.abandoned = {e.session for e in self.events if isinstance(e, SessionAbandoned)}
        for at, event in enumerate(self.events):
            if event is not None:
                self.step(at, event)
        self.settle_due()
        self.settle_loose()
        self.issues.extend(self.finds.end())
        self.orphans()

    def begin(self) -> None:
        """Ready to walk: each decision's inverse by event type, and what the due checks record."""
        self.inverses = {kind: p.inverse for p in self.registry for kind in p.events if p.inverse is not None}
        self.due_kinds, self.due_sole = due_audit.kinds(self.registry)
        self.due_shared = self.due_kinds - self.due_sole
        self.decides = {
            (p.name, trigger): kinds
            for p in self.registry
            if p.inverse is not None
            for trigger, kinds in p.inverse.decides.items()
        }
        self.decided_kinds = frozenset(kind for kinds in self.decides.values() for kind in kinds)
        self.reruns = frozenset(kind for p in self.registry if p.inverse is not None for kind in p.inverse.reruns)
        self.typed_kinds = {
            kind: (p.name, p.inverse) for p in self.registry if p.inverse is not None for kind in p.inverse.typed_steps
        }
        for p in self.registry:  # an event two procedures record (where the party truly is) is held to both
            if p.inverse is not None and p.inverse.follows_only is not None:
                for kind in p.events:
                    self.follows_only[kind] = (*self.follows_only.get(kind, ()), p.inverse.follows_only)

    def step(self, at: int, event: Event) -> None:
        """Check one event (a decision against the table just before it), then fold it."""
        if isinstance(event, SessionOpened):
            self.check_scheme(at, event)
            self.schemes.setdefault(event.session, event.scheme)
            for earlier in list(self.free):  # a session left open when another opens rolls no more
                self.tell_free(earlier, self.where(at))
        elif isinstance(event, SessionClosed | SessionAbandoned):
            self.tell_free(event.session, self.where(at))
            if isinstance(event, SessionClosed):
                self.note_closed_under_way(at, event)
        if isinstance(event, DiceRolled):
            lane = hexdice.lane_of(self.schemes.get(event.session, hexdice.V1), event.visibility)
            self.rolls.setdefault(event.session, {})[(lane, event.nonce)] = (at, event)
        self.note_hand(at, event)
        self.note_due(at, event)
        if isinstance(event, DiceRolled) and self.registry.reserved(event.purpose) is None:
            self.check_free_roll(at, event)
            self.note_free(event)
        self.check_recorded(at, event)
        self.check_followed(at, event)
        self.check_decided(at, event)
        self.issues.extend(self.finds.note(at, event))
        self.check_derived(at, event)
        self.note_loose(at, event)
        self.check_resumed(at, event)
        self.check_seam(at, event)
        self.note_typed(at, event)
        folded = self.judged(at, event)
        if not self.due_event(event):
            self.settle_loose()
        try:
            self.table = tables.evolve(self.table, folded, self.registry)
        except Exception:  # noqa: BLE001 - a malformed event: the decode and transition checks name it
            return
        self.note_concluded(at, event)

    def note_concluded(self, at: int, event: Event) -> None:
        """Note a phase change that concludes the child of the latest hand-off under way (the kit then resumes its
        parent, ``resume_parents``), with where it is; a resume ends the wait."""
        if isinstance(event, Resumed):
            self.concluded = None
            return
        if not isinstance(event, PhaseChanged) or not self.table.handoffs:
            return
        parent, child = self.table.handoffs[-1]
        if event.procedure != child or child not in self.registry.runners:
            return
        if event.dest in {phase.name for phase in self.registry.procedure(child).final}:
            self.concluded = (parent, child, at)

    def check_seam(self, at: int, event: Event) -> None:
        """An event between a child's conclusion and its parent's resume: the command that concludes the child records
        the resume at once (``kit.run``), so nothing comes between them but what the concluding step records after its
        phase change (a chase's end after it settles, found in its place by the step's re-run) and the events of the
        checks due after a clock event it records (judged by their re-run). Anything else there (a free roll, the
        clock, another procedure's step, the party changed) was slipped in by hand. A decision whose step could not
        be re-run is a finding already: what it records after it is let be."""
        if self.concluded is None or isinstance(event, Resumed) or at in self.followed or self.unjudged or self.quiet:
            return
        if self.due is not None and self.due_event(event):
            return
        parent, child, since = self.concluded
        self.flag(
            at,
            f"{event.type_name} is recorded after {child} concluded ({self.where(since)}) and before {parent} "
            f"resumes, which the command that concluded it records at once: the kit records nothing between them",
        )

    def check_resumed(self, at: int, event: Event) -> None:
        """A parent the kit resumed as its child concluded: the kit's resume is run again on the state before it, and
        what it records after it (the parent's phase change, and what its resume step records: an encounter fought
        once the chase caught the party, or ended as the party got away) is held to the log's events there, up to the
        next parent it resumes in turn, which is judged at its own ``procedure.resumed``. A resume where no child has
        concluded records nothing here, and one naming another parent or child than the kit resumes (the latest
        hand-off under way) is let go here: the procedure audit names both. In a stream no event of which shows the
        release whose resumes are today's (``_RESUMES_SINCE``), the resumes are let be, as its release may have made
        them."""
        if not isinstance(event, Resumed) or self.release < _RESUMES_SINCE:
            return
        ctx = self.diceless(self.table)
        try:
            kit.resume_parents(ctx)
        except Exception as err:  # noqa: BLE001 - whatever the recorded rules or state make the resume raise is a finding
            said = err.said(self.registry.step_words) if isinstance(err, HexlogError) else str(err)
            self.flag(at, f"{event.type_name}: the rules cannot resume {event.parent} here: {said}")
            return
        emitted = [e for e in ctx.events if not isinstance(e, DiceRolled)]
        if not emitted or emitted[0] != event:
            return
        after = next((i for i, e in enumerate(emitted) if i and isinstance(e, Resumed)), len(emitted))
        tail = self.tail(emitted[1:after], at)
        if tail:
            self.flag(at, f"{event.parent} resumes as {event.child} concluded: {tail}")

    def diceless(self, table: tables.Table) -> kit.StepContext:
        """A context to run again a step no dice decide (a resume, a command the referee typed) on ``table``, as its
        release recorded it: no due check runs as its time passes (the audit re-runs them after every clock event)."""
        return kit.StepContext(
            table=self._rewound([], table),
            registry=self.registry,
            roller_for=lambda _t: _RecordedDice([]),
            keeper=self.hidden.keeper if self.hidden is not None else None,
            as_recorded=True,
            due_checks=False,
        )

    def note_typed(self, at: int, event: Event) -> None:
        """Keep an event a command the referee types records first (``Inverse.typed_steps``) with the table before it,
        in a stream that shows the release that re-runs it; keep the events after it until its procedure's phase
        change, which re-runs that command when it is the command's trigger (``check_typed``). The first event of a
        procedure's step right after ``procedure.handed_off`` names it (past its rolls) is its parent's command, which
        the parent's step gave: the re-run of that step judges it."""
        if isinstance(event, PhaseChanged):
            self.check_typed(event)
        for pending in self.typed.values():
            if len(pending.after) < _TYPED_KEPT and not (pending.clocked and self.due_event(event)):
                pending.after.append(event)
                pending.clocked |= isinstance(event, ClockAdvanced)
        handed_to = self.handed_to
        if isinstance(event, HandedOff):
            self.handed_to = event.child
        elif not isinstance(event, DiceRolled):
            self.handed_to = None
        found = self.typed_kinds.get(type(event))
        if found is None:
            return
        procedure, inverse = found
        if self.release >= inverse.typed_since and procedure != handed_to:
            command = inverse.typed_steps[type(event)](event)
            self.typed[procedure] = _Typed(at, event, command, self.table, inverse)

    def check_typed(self, change: PhaseChanged) -> None:
        """The step of a command the referee types, run again on the state just before the event it records first,
        once its procedure's phase change shows the command's trigger: a refusal, and each of its events that differs
        from the log's (the event itself, then those up to the phase change), is a finding at that event."""
        pending = self.typed.pop(change.procedure, None)
        if pending is None or change.trigger != self.registry.route(type(pending.command)).trigger:
            return
        pending.after.append(change)
        event = pending.event
        ctx = self.diceless(pending.table)
        try:
            kit.admit(ctx, pending.command, text_checked=True)
            kit.run_step(ctx, pending.command)
        except Exception as err:  # noqa: BLE001 - whatever the recorded rules or state make the step raise is a finding
            said = err.said(self.registry.step_words) if isinstance(err, HexlogError) else str(err)
            self.flag(pending.at, f"{event.type_name}: the rules refuse the referee's command here: {said}")
            return
        emitted = [e for e in ctx.events if not isinstance(e, DiceRolled)]
        index = next((i for i, e in enumerate(emitted) if type(e) is type(event)), None)
        if index is None:
            self.flag(pending.at, f"{event.type_name}: the rules record no {event.type_name} here")
            return
        wanted = emitted[index + 1 :]  # up to the phase change, as the log's events kept are
        problems = words.differences(pending.inverse, event, emitted[index])
        tail = words.tail_difference(wanted, pending.after, range(len(wanted)))
        if tail is not None:
            problems.append(tail)
        if problems:
            self.flag(pending.at, f"{event.type_name}: " + "; ".join(problems))

    def check_rules_hash(self, at: int, event: CampaignStarted | RulesChanged) -> None:
        content_hash = rulesets.from_recorded(event.ruleset, event.rules).hash
        if content_hash != event.rules_hash:
            self.flag(at, f"rules_hash {event.rules_hash[:16]} does not match the recorded rules ({content_hash[:16]})")

    def check_recorded(self, at: int, event: Event) -> None:
        """What an event records that follows from the rules it is recorded under: their hash, a clock's counts."""
        if isinstance(event, CampaignStarted | RulesChanged):
            self.check_rules_hash(at, event)
        elif isinstance(event, ClockAdvanced):
            self.check_clock_counts(at, event)

    def check_clock_counts(self, at: int, event: ClockAdvanced) -> None:
        """Time passing counts its seconds in whole rounds and turns by the rules in force (``Span.event``): counts
        that differ would show the players another time than the clock keeps."""
        if self.table.rules is None:
            return
        options = self.table.rules.part(ClockOptions)
        rounds, turns = event.seconds // options.round_seconds, event.seconds // options.turn_seconds
        if (event.rounds, event.turns) != (rounds, turns):
            self.flag(
                at,
                f"clock.advanced counts {event.rounds} rounds and {event.turns} turns, but its {event.seconds} s are "
                f"{rounds} rounds and {turns} turns by the rules in force",
            )

    def judged(self, at: int, event: Event) -> Event:
        """What to fold in an event's place: a decision (it names its rolls) or an event whose step is re-run though
        no dice decide it (``Inverse.reruns``) checked and re-derived; any other event as it is."""
        names = getattr(event, "rolls", None)
        if isinstance(names, tuple):  # a day's start whose weather the referee set is re-run, but no dice decide it
            return self.decision(at, event, names, counted=bool(names) or not isinstance(event, DayStarted))
        if type(event) in self.reruns:
            return self.decision(at, event, (), counted=False)
        return event

    def check_free_roll(self, at: int, roll: DiceRolled) -> None:
        """A free roll (one no procedure makes) carries the modifiers the state imposes on the one it is made for, as
        the kit applies them to every roll (since ``dice.rolled`` version 2, which records them): none left out,
        none added."""
        recorded = self.schemas[at] if self.schemas is not None else type(roll).schema_version
        if recorded < _MADE_FOR_SINCE:
            return
        sources = self.registry.modifier_sources
        try:
            imposed = tuple(m for source in sources for m in source(self.table, roll.made_for, roll.purpose))
        except Exception:  # noqa: BLE001 - a state the sources cannot read: the other checks name what is wrong
            return
        if roll.low_is_good and recorded >= _LOW_IS_GOOD_SINCE:
            imposed = tuple(attrs.evolve(m, value=-m.value) for m in imposed)
        if tuple(roll.modifiers) != imposed:
            made = f" made for {roll.made_for}" if roll.made_for else ""
            named = f"roll {_name(roll)} for {words.show(shown(roll.purpose))}{made}"
            carries, wanted = words.modifiers_text(roll.modifiers), words.modifiers_text(imposed)
            self.flag(at, f"{named} carries {carries}, but the state imposes {wanted}")

    def note_due(self, at: int, event: Event) -> None:
        """Keep an event a due check may have recorded after the last clock event, or judge those kept once another
        event ends them; an event only a due check records is a finding anywhere else; a clock event is kept."""
        pending = self.due
        if pending is not None:
            if self.due_event(event):  # a free roll is no check's: it ends the run, kept short
                pending.run.append((at, event))
                return
            self.settle_due()
        if type(event) in self.due_sole:
            self.flag(at, due_audit.stray(event))
        if isinstance(event, ClockAdvanced) and self.registry.due_checks:
            self.due = due_audit.Pending(at, self.table, event)

    def settle_due(self) -> None:
        """Judge the events after the last clock event against what the checks due in its span record."""
        pending, self.due = self.due, None
        if pending is None:
            return
        try:
            emitted = due_audit.rerun(pending, self.registry, self.hidden.keeper if self.hidden is not None else None)
        except Exception as err:  # noqa: BLE001 - whatever the recorded rules or state make a check raise is a finding
            said = err.said(self.registry.step_words) if isinstance(err, HexlogError) else str(err)
            self.flag(pending.at, f"the rules cannot run the checks due after this advance of the clock: {said}")
            return
        problem, placed = due_audit.compare(pending, emitted)
        if problem:  # what follows the first difference is not judged again, event by event
            self.flag(pending.at, problem)
            self.placed.update(at for at, _ in pending.run)
            return
        self.placed.update(placed)
        for at, event in pending.run:
            if type(event) in self.due_sole and at not in placed:
                self.flag(at, due_audit.stray(event))

    def prelude(self) -> list[tuple[int, Event, tables.Table]]:
        """The events a due check records and steps record too that came since the last event no due check records,
        in no place of the due checks' (``loose``): what the step of the decision now checked recorded before it (the
        exhaustion a travel day starts with), if anything did."""
        return [entry for entry in self.loose if entry[0] not in self.placed]

    def check_prelude(self, at: int, emitted: list[Event], prelude: list[tuple[int, Event, tables.Table]]) -> None:
        """The events of ``due_shared`` kinds a decision's step records before it (``emitted``) against those the log
        records there (``prelude``): the first difference is a finding, at the log's event if it has one there, else
        at the decision."""
        for offset in range(max(len(emitted), len(prelude))):
            want = emitted[offset] if offset < len(emitted) else None
            place, found = prelude[offset][:2] if offset < len(prelude) else (at, None)
            if want == found:
                continue
            self.flag(place, words.prelude_difference(want, found))
            return

    def note_loose(self, at: int, event: Event) -> None:
        """Note the release the event shows wrote the stream (a session names the one that opened it), and keep it
        with the table before it if it is of a kind a due check records and steps record too, in no decision's place
        after it (``loose``)."""
        recorded = self.schemas[at] if self.schemas is not None else type(event).schema_version
        self.release = max(self.release, releases.raised_at(TYPE_PREFIX + event.type_name, recorded))
        if isinstance(event, SessionOpened):  # the release that opened it (0 before version 3): the stream's from here
            self.release = max(self.release, event.release)
        if type(event) in self.due_shared and at not in self.followed:
            self.loose.append((at, event, self.table))

    def settle_loose(self) -> None:
        """Each event a due check records and steps record too (``due_shared``) in no place: not after a clock event as
        the due checks record it, nor after or before a decision as its step records it (a rest day forged in, the
        exhaustion it clears gone from every roll after it). The releases before ``travel.day_started`` version 2
        recorded a rest day's rest with no decision of its own, which nothing re-runs: in a stream they wrote, such an
        event is let be."""
        for at, event, _ in self.prelude() if self.release >= _REST_DAY_STARTED_SINCE and not self.quiet else ():
            self.flag(at, words.prelude_difference(None, event))
        self.loose.clear()
        self.placed.clear()
        self.quiet, self.unjudged = self.unjudged, False  # a step not re-run: its events after it are let be

    def check_followed(self, at: int, event: Event) -> None:
        """An event only a step records after a decision it re-runs, anywhere else, was not written by the kit."""
        if not any(follows_only(event) for follows_only in self.follows_only.get(type(event), ())):
            return
        if at not in self.followed:
            self.flag(at, f"{event.type_name} follows no decision here, and the rules record it only after one")

    def check_decided(self, at: int, event: Event) -> None:
        """A phase change by a trigger whose step always records a decision (``Inverse.decides``) follows one since
        its procedure's phase change before it: without it, the decision and its rolls were taken out of the log and
        the procedure moved on as if it had been made (a day's wandering check, a night's check, a lost check)."""
        if not isinstance(event, PhaseChanged):
            if type(event) in self.decided_kinds:
                self.decided_at[type(event)] = at
            return
        wanted = self.decides.get((event.procedure, event.trigger))
        since = self.changed_at.get(event.procedure, -1)
        self.changed_at[event.procedure] = at
        if wanted and all(self.decided_at.get(kind, -1) <= since for kind in wanted):
            named = " or ".join(kind.type_name for kind in wanted)
            self.flag(
                at,
                f"{event.procedure} '{event.trigger}' moves on to {event.dest} with no {named} since its phase "
                f"before it, which its step always records: the decision was taken out of the log",
            )

    def check_scheme(self, at: int, event: SessionOpened) -> None:
        """A session rolls ``hexlog-dice-v1`` only as the release that wrote it did: one lane for every roll, so a
        secret roll moves the next public one. Every release that records ``session.opened`` at schema version 2 or
        later rolls ``hexlog-dice-v2``, and no release goes back to v1 after a v2 session of the campaign: a v1
        session there is the log's scheme changed by hand. No release of hexlog rolled ``hexlog-dice-v2`` before
        recording ``session.opened`` at version 2 (which says whether the secret was supplied): in a campaign hexlog
        started (``campaign.started``), a v2 session's of version 1 was re-labelled, leaving out that its secret was
        supplied. (Another program that writes only the session and dice events may write version 1 rolling v2.)"""
        recorded = self.schemas[at] if self.schemas is not None else type(event).schema_version
        if event.scheme == hexdice.V2 and recorded < LANES_SINCE and self.table.started:
            self.flag(
                at,
                f"session {event.session} rolls {hexdice.V2}, but its session.opened is of schema version {recorded}, "
                f"which no release that rolls {hexdice.V2} writes (they record whether the secret was supplied)",
            )
        if event.scheme != hexdice.V1:
            self.lanes |= event.scheme == hexdice.V2
            return
        if recorded >= LANES_SINCE:
            self.flag(
                at,
                f"session {event.session} rolls {hexdice.V1} (one lane for public and secret rolls), but its "
                f"session.opened is of schema version {recorded}, which every release writes with {hexdice.V2}",
            )
        elif self.lanes:
            self.flag(
                at,
                f"session {event.session} rolls {hexdice.V1} (one lane for public and secret rolls) after a session "
                f"of the campaign rolled {hexdice.V2}: no release goes back to one lane",
            )

    def check_derived(self, at: int, event: Event) -> None:
        """What an event records of the state before it (no dice decide it), against the table just before it."""
        inverse = self.inverses.get(type(event))
        if inverse is None or inverse.derived is None:
            return
        recorded = self.schemas[at] if self.schemas is not None else type(event).schema_version
        found = inverse.derived(kit.StepContext(table=self.table, registry=self.registry), event, recorded)
        if found:
            self.flag(at, f"{event.type_name}: {found}")

    def command(self, at: int, event: Event, inverse: Inverse) -> Command | None:
        """The command that made a decision, as the release that recorded it ran its rules (its schema version)."""
        recorded = self.schemas[at] if self.schemas is not None else type(event).schema_version
        if inverse.command_before is not None and recorded < type(event).schema_version:
            return inverse.command_before(event, recorded)
        return inverse.command_for(event)

    def note_hand(self, at: int, event: Event) -> None:
        """Note what the referee decided by hand in this event: house rules, or a procedure's by-hand choices (as the
        release that recorded it left them to the referee: its schema version)."""
        if isinstance(event, CampaignStarted | RulesChanged):
            found = rulesets.origin(rulesets.from_recorded(event.ruleset, event.rules), self.registry.rule_parts)
            said = f"rules changed to {found.base}" if isinstance(event, RulesChanged) else ""
            if found.house_rules:
                changed = "; ".join(f"{key} {_value(old)} -> {_value(new)}" for key, old, new in found.changes)
                said = f"{said + ', with ' if said else ''}house rules over {found.base}: {changed}"
            if not found.builtin:
                own = f"rules {event.ruleset!r} that are no built-in ruleset: every rule in them is the referee's own"
                said = f"{said}, {own}" if said else own
            if said:
                self.hand.append(f"{self.where(at)}: {said}")
            if found.since:  # on a line of its own: a campaign started before the change keeps its reading
                today = "; ".join(f"{key} {_shown(old)} -> {_shown(new)}" for key, old, new in found.since)
                self.hand.append(
                    f"{self.where(at)}: rules of an earlier build, {found.base}, which today's {event.ruleset} "
                    f"reads otherwise: {today}"
                )
            return
        if isinstance(event, MemberEdited) and at not in self.followed:  # not the rules' (the armor a joust takes)
            self.hand.append(f"{self.where(at)}: {_edited(event)}")
            return
        if isinstance(event, HexSet):
            self.note_hex_changed(at, event)
            return
        by_hand = self.procedure_hand(at, event)
        if by_hand:
            self.hand.append(f"{self.where(at)}: {by_hand}")

    def procedure_hand(self, at: int, event: Event) -> str | None:
        """What the referee decided by hand in a procedure's event, in its words, as the release that recorded it (its
        schema version) left it to the referee (None: nothing)."""
        inverse = self.inverses.get(type(event))
        if inverse is None:
            return None
        ctx = kit.StepContext(table=self.table, registry=self.registry)
        recorded = self.schemas[at] if self.schemas is not None else type(event).schema_version
        if inverse.by_hand_before is not None and recorded < type(event).schema_version:
            return inverse.by_hand_before(event, ctx, recorded)
        return inverse.by_hand(event, ctx) if inverse.by_hand is not None else None

    def named_rolls(self, at: int, event: Event, names: tuple[Any, ...]) -> list[DiceRolled] | None:
        """The recorded rolls a decision names, or None when one is not a roll of its session.

        A decision names its public rolls in ``rolls`` (every roll, in a v1 session) and, under
        hexlog-dice-v2, its secret rolls in ``referee_rolls``.
        """
        session = self.table.session
        current = session.id if session is not None and session.open else None
        lanes = session is not None and session.lanes
        secret = getattr(event, "referee_rolls", ())
        named = [(hexdice.PUBLIC_LANE if lanes else "", n) for n in names]
        named += [(hexdice.REFEREE_LANE if lanes else "", n) for n in (secret if isinstance(secret, tuple) else ())]
        found: list[DiceRolled] = []
        missing = False
        referee = len(names)
        for k, (lane, nonce) in enumerate(named):
            key = (lane, nonce)
            name = hexdice.nonce_name(nonce, secret=k >= referee) if isinstance(nonce, int) else f"#{nonce!r}"
            hit = self.rolls.get(current, {}).get(key) if current is not None and isinstance(nonce, int) else None
            if hit is None:
                where = f"session {current}" if current else "a session (none is open)"
                self.flag(at, f"{event.type_name} names roll {name}, which is not a roll of {where} before it")
                missing = True
                continue
            assert current is not None  # noqa: S101 - a hit needs a current session
            first = self.named.setdefault((current, lane, nonce), at)
            if first != at:
                other = self.events[first]
                kind = other.type_name if other is not None else "decision"
                self.flag(at, f"roll {name} of session {current} is already used by the {kind} at {self.where(first)}")
            found.append(hit[1])
        return None if missing else found

    def _rewound(self, recorded: list[DiceRolled], table: tables.Table) -> tables.Table:
        """The table as it stood when the decision's first roll was made (its session's nonces put back), from
        ``table`` (just before the decision, or before what its step recorded before it).

        Its rules are read as recorded (``Ruleset.as_recorded``): a decision made under values an
        earlier release accepted and this one refuses is re-derived as it was made.
        """
        session = table.session
        if table.rules is not None:
            table = attrs.evolve(table, rules=table.rules.as_recorded())
        if not recorded or session is None:
            return table
        public = [r.nonce for r in recorded if not session.lanes or r.visibility != hexdice.REFEREE_LANE]
        secret = [r.nonce for r in recorded if session.lanes and r.visibility == hexdice.REFEREE_LANE]
        rewound = attrs.evolve(
            session,
            next_nonce=min(public, default=session.next_nonce),
            next_referee_nonce=min(secret, default=session.next_referee_nonce),
        )
        return attrs.evolve(table, sessions=attrs.evolve(table.sessions, current=rewound))

    def decision(self, at: int, event: Event, names: tuple[Any, ...], *, counted: bool = True) -> Event:
        """Check one decision; what to fold in its place (the rules' decision, once re-derived). An event no dice
        decide (``Inverse.reruns``) is checked the same way, not ``counted`` among the decisions re-run.

        Folding the re-derived decision rather than a forged one keeps a single forgery from
        showing again at every later decision that reads it.
        """
        recorded = self.named_rolls(at, event, names)
        inverse = self.inverses.get(type(event))
        command = self.command(at, event, inverse) if inverse is not None else None
        if recorded is None or command is None or inverse is None:
            return event
        self.checked += counted
        if self.is_unsure(event, inverse):
            self.unsure += 1
            self.forgiven = at
        dice = _RecordedDice(list(recorded))
        keeper = self.hidden.keeper if self.hidden is not None else None
        prelude = self.prelude()
        self.loose.clear()  # the step's re-run finds them in their places or names them
        ctx = kit.StepContext(
            table=self._rewound(recorded, prelude[0][2] if prelude else self.table),
            registry=self.registry,
            roller_for=lambda _t: dice,
            keeper=keeper,
            modifiers_as_given=any(self._schema(r) < _LOW_IS_GOOD_SINCE for r in recorded),
            as_recorded=True,
            due_checks=False,
        )
        try:
            kit.admit(ctx, command, text_checked=True)  # the invariants the procedures own, as the referee's door holds
        except HexlogError as err:
            said = err.said(self.registry.step_words)  # a step it advises, in no door's words
            self.flag(at, f"{event.type_name}: the rules refuse this decision here: {said}")
            self.unjudged = True
            return event
        try:
            kit.run_step(ctx, command)
        except _RollMismatchError as err:
            self.flag(at, f"{event.type_name}: {err}{self.unverified(recorded)}")
            self.unjudged = True
            return event
        except Exception as err:  # noqa: BLE001 - whatever the recorded rules or state make the step raise is a finding
            said = err.said(self.registry.step_words) if isinstance(err, HexlogError) else str(err)
            # a step's own assertion says nothing: the state before the decision is none its rules can reach
            said = said or f"the step stopped ({type(err).__name__}) on a state no command reaches"
            self.flag(at, f"{event.type_name}: the rules cannot re-run this decision here: {said}")
            self.unjudged = True
            return event
        emitted = [e for e in ctx.events if not isinstance(e, DiceRolled)]
        index = next((i for i, e in enumerate(emitted) if type(e) is type(event)), None)
        if index is None:
            problems_found, tail = [f"the rules record no {event.type_name} here"], None
        else:
            problems_found = words.differences(inverse, event, emitted[index])
            tail = self.tail(emitted[index + 1 :], at)
        dice_problems = self.roll_problems(ctx.events, recorded)
        if problems_found:
            problems_found[0] += words.rolls_text(recorded)
        if index and type(event) in self.reruns:  # a step no dice decide, re-run at its event, records nothing before
            problems_found.append(f"the rules record {words.event_text(emitted[0])} before it, which the log left out")
        self.check_prelude(at, [e for e in emitted[: index or 0] if type(e) in self.due_shared], prelude)
        problems = [*problems_found, *dice_problems, *([tail] if tail else [])]
        if problems:
            self.flag(at, "; ".join(problems) + self.unverified(recorded))
        return emitted[index] if index is not None and not dice_problems and at != self.forgiven else event

    def is_unsure(self, event: Event, inverse: Inverse) -> bool:
        """Whether a decision may have read a fact hidden at the time that the log never opens (noted in
        ``doubted``)."""
        if self.hidden is None or inverse.unsure is None:
            return False
        state = self.table.procedures.get(MAP)
        hidden = still_hidden(self.hidden, state)
        if None not in hidden or not inverse.unsure(event, hidden):
            return False
        self.doubted.update(key for key in getattr(state, "unopened", ()) if key in self.hidden.never_opened)
        return True

    def caveat(self) -> str:
        """The caveat for the decisions not judged."""
        return hidden_caveat(self.unsure, len(self.doubted))

    def asides(self) -> tuple[str, ...]:
        """What the audit notes without doubting it: hidden features never revealed that no decision can have read."""
        never = self.hidden.never_revealed if self.hidden is not None else 0
        return (hidden_aside(never),) if never and not self.unsure else ()

    def tail(self, emitted: Sequence[Event], at: int) -> str | None:
        """How the events after the decision at ``at`` differ from those the step records after it, if they do; the
        log's events in their places are noted as following it.

        The step ran no due check (``StepContext.due_checks``), so once it has let time pass, each of its events is
        looked for past the events of the due checks the log records there (``due_event``), which the due checks'
        re-run after the clock event judges."""
        places: list[int] = []
        place, clocked = at + 1, False
        for want in emitted:
            while clocked and place < len(self.events) and self.due_event(self.events[place]):
                place += 1
            places.append(place)
            clocked |= isinstance(want, ClockAdvanced)
            place += 1
        for place, want in zip(places, emitted, strict=True):
            found = self.events[place] if place < len(self.events) else None
            if type(found) is not type(want):
                break
            self.followed.add(place)
        return words.tail_difference(emitted, self.events, places)

    def due_event(self, event: Event | None) -> bool:
        """Whether a due check may record this event after a clock event: a roll of a procedure's purpose, or an event
        a due check records (``DueCheck.records``)."""
        if isinstance(event, DiceRolled):
            return self.registry.reserved(event.purpose) is not None
        return type(event) in self.due_kinds

    def _schema(self, roll: DiceRolled) -> int:
        lane = hexdice.lane_of(self.schemes.get(roll.session, hexdice.V1), roll.visibility)
        at = self.rolls.get(roll.session, {}).get((lane, roll.nonce), (None, None))[0]
        return self.schemas[at] if self.schemas is not None and at is not None else DiceRolled.schema_version

    def roll_problems(self, events: Sequence[Event], recorded: list[DiceRolled]) -> list[str]:
        """Each named roll whose purpose, modifiers, visibility or recipient is not what the rules roll there."""
        asked = [e for e in events if isinstance(e, DiceRolled)]
        out: list[str] = []
        for want, roll in zip(asked, recorded, strict=False):
            mine: tuple[Any, ...] = (roll.purpose, roll.modifier, roll.visibility, roll.modifiers, roll.low_is_good)
            theirs: tuple[Any, ...] = (want.purpose, want.modifier, want.visibility, want.modifiers, want.low_is_good)
            if self._schema(roll) >= _MADE_FOR_SINCE:
                mine, theirs = (*mine, roll.made_for), (*theirs, want.made_for)
            if mine != theirs:
                out.append(
                    f"roll {_name(roll)} is {words.roll_label(roll)}, but the rules roll {words.roll_label(want)} here"
                )
        if len(recorded) > len(asked):
            extra = ", ".join(_name(r) for r in recorded[len(asked) :])
            out.append(
                f"the decision names {counted(len(recorded), 'roll')}, but the rules use {len(asked)} (not {extra})"
            )
        return out

    def unverified(self, recorded: Sequence[DiceRolled]) -> str:
        """A note when the faces used are not verified by a revealed secret (yet, or ever)."""
        sessions = dict.fromkeys(r.session for r in recorded if r.session not in self.closed)
        notes = [
            f"session {s} was abandoned, so these faces can never be verified"
            if s in self.abandoned
            else f"these faces are themselves unverified until session {s} reveals its secret"
            for s in sessions
        ]
        return "".join(f" ({n})" for n in notes)

    def orphans(self) -> None:
        """A roll of a procedure's reserved purpose that no decision names: the steps name every roll they make.

        Not asked while an event of the stream does not decode: it may be the decision that names the roll,
        and the audit has named it already."""
        if any(event is None for event in self.events):
            return
        for session, by_nonce in self.rolls.items():
            self.session_orphans(session, by_nonce)

    def session_orphans(self, session: str, by_nonce: dict[tuple[str, int], tuple[int, DiceRolled]]) -> None:
        """``orphans`` of one session's rolls; its free rolls were told where it ended (``tell_free``), and those of a
        session still open are let go untold."""
        for (lane, nonce), (at, roll) in by_nonce.items():
            if self.registry.reserved(roll.purpose) is None or (session, lane, nonce) in self.named:
                continue
            if self.schemes.get(session) == hexdice.V1:  # 0.1.0 let a free roll take any purpose
                self.doubts.append(
                    f"{self.where(at)}: roll {_name(roll)} of session {session} for {shown(roll.purpose)} is "
                    "named by no decision; the release that wrote it let a free roll take a procedure's purpose, "
                    "so it cannot be told from a roll made and then ignored"
                )
            else:
                self.flag(at, f"roll {_name(roll)} for {roll.purpose} is named by no decision: rolled and then ignored")
        self.free.pop(session, None)  # a session still open: its free rolls are told once it ends

    def note_hex_changed(self, at: int, event: HexSet) -> None:
        """A hex of the map whose terrain, road or track the referee changed while a procedure was under way, as the
        referee's hand: the chances of the checks still to come there (a wandering check's, a lost check's) follow it,
        and the referee knew the dice they would roll. A hex drawn for the first time is not told."""
        state = self.table.procedures.get(MAP)
        old = state.hex(event.hex) if isinstance(state, MapState) else None
        if old is None or (old.terrain, old.road, old.track) == (event.terrain, event.road, event.track):
            return
        named = self.under_way()
        if not named:
            return
        self.hand.append(
            f"{self.where(at)}: hex {shown(event.hex)} changed by the referee from {_hex_text(old)} to "
            f"{_hex_text(event)} while {named} was under way"
        )

    def under_way(self) -> str:
        """The procedures under way now, each with its phase ("" when none is)."""
        under_way = self.registry.open_procedures(self.table)
        return ", ".join(f"{p.name} (phase {getattr(p.phase_of(state), 'name', '')})" for p, state in under_way)

    def note_closed_under_way(self, at: int, event: SessionClosed) -> None:
        """A session closed while a procedure is under way, as the referee's hand: the referee, who knew the dice the
        session would roll next, could have closed it to leave them unrolled (the rest of the procedure is rolled on
        a new session's dice, which nobody knew)."""
        named = self.under_way()
        if not named:
            return
        self.hand.append(
            f"{self.where(at)}: session {event.session} closed while {named} was under way; the referee, who knew "
            "the dice it would roll next, could have closed it to leave them unrolled"
        )

    def note_free(self, roll: DiceRolled) -> None:
        """Note a free roll (``hexlog roll``: no procedure step made it), told with its session's others when the
        session ends (``tell_free``)."""
        count, names = self.free.get(roll.session, (0, ()))
        purpose = roll.purpose if roll.visibility == hexdice.PUBLIC_LANE else None
        self.free[roll.session] = (count + 1, free_named(names, _name(roll), purpose))

    def tell_free(self, session: str, where: str) -> None:
        """A session's free rolls as one line of the referee's hand (``free_rolls``), where the session ends: the
        lines keep the log's order, and a session still open tells none yet (its rolls are not verified yet)."""
        noted = self.free.pop(session, None)
        if noted is not None:
            self.hand.append(free_rolls(session, where, *noted))


class StreamWalker(_Walker):
    """``_Walker`` for a stream read as it comes (``feed`` each event, then ``finish``): it keeps the table, the
    reserved rolls of the session open that no decision has named yet, the rolls named in it, and what the steps
    record after a decision until those events have come.

    What it finds (``failed``, the issues) is what ``check_decision_events`` finds when that finds nothing, and
    something whenever that finds something (a decision naming a roll it let go of, a session's rolls checked for
    orphans when it ends): a caller that meets a finding audits the stream whole, for the findings' own words.
    """

    def __init__(self, registry: Registry, hidden: HiddenCheck) -> None:
        #: the stream and schema versions of the events it still names (the rolls it keeps, the event being checked)
        self.stream_versions: Recent[int] = Recent(0)
        self.schema_versions: Recent[int] = Recent(0)
        super().__init__(Recent(None), self.stream_versions, self.schema_versions, registry, hidden=hidden)
        self.begin()
        #: what the steps recorded after each decision still to come, one queue a decision: (index, event, flagged or
        #: forgiven), the index None past a clock event (the step ran no due check): the next event not a due check's
        self.expected: list[deque[tuple[int | None, Event, bool]]] = []
        #: the rolls the decision being checked named
        self.used: list[tuple[str, str, int]] = []
        self.failed = False

    def tail(self, emitted: Sequence[Event], at: int) -> str | None:
        forgiven = at == self.forgiven
        clock = next((i for i, want in enumerate(emitted) if isinstance(want, ClockAdvanced)), None)
        entries = [
            (at + offset if clock is None or offset <= clock + 1 else None, want, forgiven)
            for offset, want in enumerate(emitted, start=1)
        ]
        if entries:
            self.expected.append(deque(entries))
        return None

    def named_rolls(self, at: int, event: Event, names: tuple[Any, ...]) -> list[DiceRolled] | None:
        found = super().named_rolls(at, event, names)
        for roll in found or ():
            lane = hexdice.lane_of(self.schemes.get(roll.session, hexdice.V1), roll.visibility)
            self.used.append((roll.session, lane, roll.nonce))
        return found

    def feed(self, at: int, event: Event, version: int, schema: int) -> None:
        """Check and fold the event at index ``at`` (its stream version and schema version given)."""
        versions, schemas = self.stream_versions, self.schema_versions
        versions.note(at, version)
        schemas.note(at, schema)
        self.met(at, event)
        self.step(at, event)
        self.followed.discard(at)
        if self.used:
            for session, lane, nonce in self.used:
                self._forget(self.rolls.get(session, {}).pop((lane, nonce), None))
            self.used.clear()
        if isinstance(event, DiceRolled):
            by_nonce = self.rolls.get(event.session, {})
            key = (hexdice.lane_of(self.schemes.get(event.session, hexdice.V1), event.visibility), event.nonce)
            hit = by_nonce.get(key)
            if hit is not None and hit[0] == at:
                if self.registry.reserved(event.purpose) is not None:
                    versions.keep()  # with the roll, until a decision names it or its session ends
                    schemas.keep()
                    return
                del by_nonce[key]
        if isinstance(event, SessionOpened | SessionClosed | SessionAbandoned):
            self._ended()

    def met(self, at: int, event: Event) -> None:
        """Meet the event at ``at`` with what each decision's step recorded there (``expected``): an event past a
        clock event of the step's is the next one that is not a due check's (those the due checks' re-run judges)."""
        emptied = False
        for queue in self.expected:
            index, want, forgiven = queue[0]
            if index != at and (index is not None or self.due_event(event)):
                continue
            queue.popleft()
            emptied |= not queue
            if type(want) is type(event):
                self.followed.add(at)
            if want != event and (not forgiven or type(want) is not type(event)):
                self.failed = True  # the whole audit words it, and which events follow the decision there
        if emptied:
            self.expected = [queue for queue in self.expected if queue]

    def _forget(self, hit: tuple[int, DiceRolled] | None) -> None:
        if hit is not None:
            self.stream_versions.kept.pop(hit[0], None)
            self.schema_versions.kept.pop(hit[0], None)

    def _ended(self, *, every: bool = False) -> None:
        """Check the rolls of each session that can no longer be named (all with ``every``) for orphans, then
        let go of them."""
        session = self.table.session
        current = session.id if session is not None and session.open and not every else None
        for ended in [s for s in self.rolls if s != current]:
            by_nonce = self.rolls.pop(ended)
            self.session_orphans(ended, by_nonce)
            for hit in by_nonce.values():
                self._forget(hit)
            self.named = {key: at for key, at in self.named.items() if key[0] != ended}

    def finish(self) -> None:
        """Check the sessions still open, what is still to come after the last decision, and the checks due after the
        last clock event."""
        self.settle_due()
        self.issues.extend(self.finds.end())
        self._ended(every=True)
        if any(not forgiven for queue in self.expected for _, _, forgiven in queue):
            self.failed = True
        assert self.hidden is not None  # noqa: S101 - given at the start
        if self.hidden.issues or self.issues:
            self.failed = True
        if self.unsure:
            self.doubts.append(self.caveat())


def _hex_text(hex_: Hex | HexSet) -> str:
    """A hex's terrain, and its road or track."""
    way = " with a road" if hex_.road else " with a track" if hex_.track else ""
    return f"{shown(hex_.terrain)}{way}"


def _edited(event: MemberEdited) -> str:
    """A member's record corrected by the referee: each score changed, from what to what, and why."""
    changed = [
        f"{field.name} {_value(getattr(event.was, field.name))} -> {_value(getattr(event.now, field.name))}"
        for field in attrs.fields(MemberSheet)
        if getattr(event.was, field.name) != getattr(event.now, field.name)
    ]
    reason = f" ({shown(event.reason)})" if event.reason else ""
    return f"{shown(event.was.name)}'s record corrected by the referee: {', '.join(changed)}{reason}"


def _value(value: Any) -> str:
    return "(absent)" if value is None else rulesets.render_value(value)


def _shown(value: Any) -> str:
    """A value as ``Origin.since`` gives it: the recorded value, a default already in words, or none."""
    return value if isinstance(value, str) and value.endswith(" (default)") else _value(value)


@attrs.frozen
class DecisionCheck:
    """What re-deriving a stream's decisions found, how many were re-run, and the referee's hand."""

    issues: tuple[Issue, ...]
    checked: int
    hand: tuple[str, ...] = ()
    #: what makes the verdict INCOMPLETE without being a fault (``_Walker.doubts``)
    doubts: tuple[str, ...] = ()
    #: what the audit notes that leaves the verdict as it is (``_Walker.asides``)
    asides: tuple[str, ...] = ()


def check_decision_events(
    events: Sequence[Event | None],
    versions: Sequence[int] | None = None,
    schemas: Sequence[int] | None = None,
    registry: Registry = REGISTRY,
) -> DecisionCheck:
    """Check one stream's decoded events (``None`` where one did not decode), in version order.

    ``versions`` (their stream versions) only improves the wording; ``schemas`` (their recorded schema
    versions) says which rolls recorded whom they were made for. Each issue's ``at`` is an index into
    ``events``.
    """
    walker = _Walker(events, versions, schemas, registry, hidden=check_hidden(events))
    walker.run()
    assert walker.hidden is not None  # noqa: S101 - given just above
    issues = [*walker.hidden.issues, *walker.issues]
    if walker.unsure:
        walker.doubts.append(walker.caveat())
    return DecisionCheck(
        tuple(sorted(issues, key=lambda i: i.at)),
        walker.checked,
        tuple(walker.hand),
        tuple(walker.doubts),
        walker.asides(),
    )


def check_decisions(envelopes_in_order: Sequence[Envelope], registry: Registry = REGISTRY) -> list[Issue]:
    """Re-derive every decision of these envelopes (one or more streams, each in version order).

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
        found = check_decision_events(
            events,
            [envelopes_in_order[i].streamversion for i in indices],
            [envelopes_in_order[i].schemaversion for i in indices],
            registry,
        )
        issues.extend(attrs.evolve(issue, at=indices[issue.at]) for issue in found.issues)
    return sorted(issues, key=lambda i: i.at)
