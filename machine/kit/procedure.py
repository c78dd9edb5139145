"""The declaration every procedure fills in: the kit reads it, and nothing else knows a procedure by name.

A procedure with a machine declares its phases and its transition table as data (in its own
package, at the top of the module that holds them), the model whose conditions the table names,
the fold of its state, one step per command, the typed rules it reads, the roll purposes its steps
use, and the inverse that audit uses to re-run its dice-driven decisions. It may also declare guards
(invariants it owns over other commands, which the audit holds every re-run decision to as well), the
commands hexlog alone gives (a step's own dice, the audit's re-run of an older release's decision),
checks that fall due as game time passes, modifiers it imposes on rolls, and what it does when a
procedure it handed off to concludes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from hexlog.events.base import Event
from hexlog.events.dice import RollModifier
from hexlog.events.errors import Advice, RuleRefusedError
from hexlog.machine.commands import Command
from hexlog.machine.kit.context import StepContext
from hexlog.machine.kit.model import Model
from hexlog.machine.ruleset import Ruleset
from hexlog.machine.table import Table

#: a step: roll what the rules ask for and emit the events (the kit fires the trigger before it runs)
Step = Callable[[StepContext, Any], None]
#: an invariant a procedure owns: raise (a refusal naming the reason) when ``command`` would break it
Guard = Callable[[Table, Command], None]
#: the modifiers the state imposes on a roll made for someone: (table, made for, purpose) -> modifiers, each valued
#: as it counts on a roll where high is good (a penalty negative); the kit counts them the other way on a roll
#: where low is good, so a penalty always counts against the one the roll is made for
ModifierSource = Callable[[Table, str, str], Sequence[RollModifier]]
#: a procedure's fold: its state after one event (None: no such procedure under way)
Fold = Callable[[Any, Event], Any]
#: one row of a transition table, as ``transitions`` takes it (``trigger``, ``source``, ``dest``, ``conditions``)
Row = Mapping[str, Any]


@attrs.frozen(kw_only=True)
class DueCheck:
    """A check that falls due as game time passes (light burning down, a wandering check, rest owed).

    After every advance of the clock the kit runs each registered check, in registry order, with the
    span of game time just passed: ``run(ctx, start, end)`` (seconds since the campaign began) emits
    whatever falls due in ``start < t <= end``. ``records`` names the events it records (besides its rolls), and
    ``sole`` says that nothing else records them: the audit runs each check again after every advance of the clock,
    and finds one of those events anywhere but in its place after an advance that makes it due.
    """

    name: str
    run: Callable[[StepContext, int, int], None]
    records: tuple[type[Event], ...] = ()
    sole: bool = False


def own_time(owner: str, under_way: Callable[[Table], bool], refusal: str) -> DueCheck:
    """The due check of a procedure whose time is its own while it is ``under_way``: game time passes only by its
    steps and those of the procedures it handed off to (down the line of hand-offs under way), and another procedure's
    step that would let time pass meanwhile is refused (``refusal``, its ``{running}`` the procedure whose step it
    is), nothing written. It records nothing; the audit's re-runs take what a log recorded as its release let it be."""

    def run(ctx: StepContext, start: int, end: int) -> None:  # noqa: ARG001 - a due check's signature
        running = ctx.running_outside(owner)
        if ctx.as_recorded or running is None or not under_way(ctx.table):
            return
        raise RuleRefusedError(refusal.format(running=running))

    return DueCheck(name=f"{owner}'s own time", run=run)


@attrs.frozen(kw_only=True)
class Inverse:
    """What audit needs to re-run a procedure's dice-driven decisions from the recorded rolls.

    ``command_for(event)`` is the command that made a recorded decision (None: not such a decision),
    with only what the referee typed taken from the record; ``typed`` names those fields by event
    type, so they are not compared; ``compare(recorded, expected)`` may word some differences itself
    and return the fields it has judged; ``by_hand(event, ctx)`` says what the referee decided by hand in
    an event (``ctx`` holds the table just before it), for the audit's account of the referee's hand;
    ``derived`` checks what an event records of the state before it (not a decision: no dice decide it).
    """

    command_for: Callable[[Event], Command | None]
    typed: Mapping[type[Event], frozenset[str]] = attrs.field(factory=dict)
    compare: Callable[[Event, Event], tuple[list[str], frozenset[str]]] | None = None
    #: what the referee decided by hand in a recorded event (a modifier given, a distance set), in words
    by_hand: Callable[[Event, StepContext], str | None] | None = None
    #: what the referee decided by hand in an event recorded at an earlier schema version of its event (the event,
    #: that version), where the release that wrote it gave what the referee left out otherwise (an evasion's woods
    #: were a lost party's true hex's); None: ``by_hand`` at every version
    by_hand_before: Callable[[Event, StepContext, int], str | None] | None = None
    #: whether a decision may have read a fact the log commits to and never opens (a search, while some
    #: hidden feature is never revealed), given the facts still hidden at it in the order they were committed to:
    #: each one's place and text where the log opens it later, None where it never does (at least one is None).
    #: Such a decision is re-run but not judged, and a caveat names it
    unsure: Callable[[Event, Sequence[tuple[str, str] | None]], bool] | None = None
    #: the command that made a decision recorded at an earlier schema version of its event (the event, that
    #: version), where the release that wrote it ran its rules otherwise (a pursuit's flight rolled its heading
    #: in public); None: ``command_for`` at every version
    command_before: Callable[[Event, int], Command | None] | None = None
    #: whether an event is recorded only by a step after the decision it re-runs (a flight whose heading is the
    #: referee's, after that heading): such an event anywhere but there is a finding
    follows_only: Callable[[Event], bool] | None = None
    #: what an event records that the rules derive from the state before it, not from dice (the exertion under way
    #: as a journey sets out): given a context on the table just before it, the event and its recorded schema
    #: version, how the record differs from what the rules give there, in words (None: it does not, or no such fact)
    derived: Callable[[StepContext, Event, int], str | None] | None = None
    #: the triggers whose step always records one of these decisions before its phase change (the travel day's
    #: ``check``, its wandering check): a phase change by one of them with none of those decisions since the
    #: procedure's phase change before it is a finding (the decision and its rolls were taken out of the log)
    decides: Mapping[str, tuple[type[Event], ...]] = attrs.field(factory=dict)
    #: events no dice decide (they name no rolls) whose step the audit runs again on the state just before them, as
    #: it re-runs a decision, with the command ``command_for`` gives: a camp broken (the sleep it judges, the night
    #: it needs over), a toll paid, a chase's round, a delve's move. Such a step, as a decision's, runs no due check
    #: as it lets time pass (the audit runs them again after each clock event of the log, on the rolls recorded
    #: there), and what it records after its event is compared with the log's events past those the due checks
    #: record there
    reruns: frozenset[type[Event]] = frozenset()
    #: events a command the referee types records first that other steps record too (an encounter's conclusion, which
    #: an evasion, a pursuit decision or a chase's end records as well; a chase's start, which an encounter or a delve
    #: hands off): event type -> the command that made it, with what the referee typed taken from the record. Where
    #: the procedure's phase change that ends the step is that command's trigger, and the event is not the first its
    #: step records as its parent hands off to it, the audit runs the command again on the state just before the
    #: event, rolling no dice: a command the rules refuse there (a delve's encounter concluded in pursuit, a chase
    #: following an encounter never met) is a finding, and so is an event of the step's that differs from what it
    #: records
    typed_steps: Mapping[type[Event], Callable[[Event], Command]] = attrs.field(factory=dict)
    #: the first release (``hexlog.events.releases.raised_at``) whose ``typed_steps`` are re-run: in a stream no event
    #: of which shows it so far, they are let be, as the releases before it may have let the referee type them there
    typed_since: int = 0


@attrs.frozen(kw_only=True)
class Resume:
    """What a parent does when the procedure it handed off to concludes: fire ``trigger``, then ``step``."""

    trigger: str
    step: Step


@attrs.frozen(kw_only=True)
class Procedure:
    """One procedure, declared for the kit."""

    #: the name procedures, events and logs know it by
    name: str
    #: one line for the command line's help
    title: str
    #: each command's step
    steps: Mapping[type[Command], Step]
    #: each command's trigger (commands of a procedure with a machine); a command not listed runs no machine
    triggers: Mapping[type[Command], str] = attrs.field(factory=dict)
    #: the machine: phases, the transition table (rows as ``transitions`` takes them), the initial
    #: phase and the phases in which the procedure has concluded
    phases: type[enum.Enum] | None = None
    transitions: Sequence[Row] = ()
    initial: enum.Enum | None = None
    final: frozenset[enum.Enum] = frozenset()
    #: the class whose condition methods the transition table names
    model: type[Model] | None = None
    #: the folded state (kept in the table under the procedure's name) and its class
    fold: Fold | None = None
    state_type: type | None = None
    #: the event types the fold reads (a subclass of one is read too): it leaves its state as it is at any other
    #: event, so the table does not ask it of them; None: every event
    reads: tuple[type[Event], ...] | None = None
    #: the typed parts of a ruleset the procedure reads, and a check across them run when rules are loaded
    rules: tuple[type, ...] = ()
    rules_check: Callable[[Ruleset], None] | None = None
    #: the roll purposes its steps use: reserved, each alone or followed by ``.`` and more
    purposes: tuple[str, ...] = ()
    inverse: Inverse | None = None
    guards: tuple[Guard, ...] = ()
    #: the commands hexlog alone gives, never the referee (a step's own dice, the audit's re-run of a decision an
    #: older release recorded), each with the refusal's words after the command's name (what to use instead: words,
    #: and the commands each door says in its own words)
    internal: Mapping[type[Command], str | tuple[str | Advice, ...]] = attrs.field(factory=dict)
    due_checks: tuple[DueCheck, ...] = ()
    modifiers: tuple[ModifierSource, ...] = ()
    resume: Resume | None = None
    #: triggers that cancel or correct what was recorded: allowed by the table in every phase under way,
    #: never offered as a next step (``Runner.allowed`` leaves them out)
    corrections: frozenset[str] = frozenset()
    #: the event types its steps write
    events: tuple[type[Event], ...] = ()
    #: what the rule texts describe and the procedure does not model, and what it does instead, in words
    #: (``hexlog rules show`` prints them)
    limits: tuple[str, ...] = ()
    #: why it cannot run under a ruleset, in words ("" when it can): the tables it starts from are absent
    #: (``hexlog rules show`` says so beside the options and tables it reads)
    unavailable: Callable[[Ruleset], str] | None = None
    #: for a procedure that runs for a party of at least one member: what is under way and how to end it, in the
    #: words of the refusal of the last member's removal while it is (empty: it runs without one)
    needs_party: str = ""

    def edges(self) -> list[tuple[str, str, str]]:
        """Every (trigger, source phase, destination phase) its transition table allows, one per source."""
        out: list[tuple[str, str, str]] = []
        for row in self.transitions:
            sources = row["source"] if isinstance(row["source"], list) else [row["source"]]
            out.extend((row["trigger"], source.name, row["dest"].name) for source in sources)
        return out

    @property
    def has_machine(self) -> bool:
        """Whether the procedure runs a state machine (the campaign's own commands do not)."""
        return self.phases is not None

    def phase_of(self, state: Any) -> enum.Enum | None:
        """The phase of a folded state (its initial phase before the procedure first ran)."""
        return self.initial if state is None else state.phase

    def is_open(self, state: Any) -> bool:
        """Whether the procedure is under way: past its initial phase and not concluded."""
        phase = self.phase_of(state)
        return phase is not None and phase is not self.initial and phase not in self.final
