"""Readable text for events and state, as a referee (or a player) reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.procedure import Resumed
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.registry import REGISTRY
from hexlog.machine.ruleset import display_name
from hexlog.machine.text import counted, shown
from hexlog.projections import visibility
from hexlog.projections.visibility import PlayerView, ended_sessions
from hexlog.service.render_campaign import released, roll_name
from hexlog.service.render_context import Context
from hexlog.service.renderers import AFTER, READ_BACK, STATES, TEXTS, TOLD

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hexlog.events.base import Event
    from hexlog.events.store import Recorded
    from hexlog.machine.kit.registry import Registry
    from hexlog.machine.kit.runner import Allowed
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

HIDDEN = "(hidden by the referee until the session closes)"


def _generic(event: Event) -> str:
    fields = attrs.asdict(event, recurse=False)
    shown = ", ".join(f"{k}={v}" for k, v in fields.items() if v not in ((), "", None))
    return f"{event.type_name}: {shown}"


def describe(event: Event, context: Context | None = None) -> str:
    """One readable line for an event (text that could forge a line or steer a terminal is escaped); ``context`` holds
    the events before it that its words may depend on (a pursuit's start names the rules its flights are told by)."""
    told = TOLD.get(type(event))
    if told is not None:
        return shown(told(event, context if context is not None else Context()))
    text = TEXTS.get(type(event))
    return shown(text(event) if text is not None else _generic(event))


def context(table: Table | None = None) -> Context:
    """A context to tell a stream's events in order from its start (``note`` each before its line), or the events of
    one command from what the table it left holds that their lines read back to."""
    found = Context()
    if table is not None:
        for read_back in READ_BACK:
            for event in read_back(table):
                found.note(event)
    return found


@attrs.frozen
class Line:
    """One line of the timeline."""

    version: int
    time: str
    kind: str
    text: str
    #: hidden from the view asked for (a secret roll, or what it decided, before its session ends)
    hidden: bool = False


def timeline(recorded: list[Recorded], *, player: bool = False) -> list[Line]:
    """The campaign as lines; the player's view hides secret rolls and what they decided (a hidden feature
    of the map is only a commitment in the log: nothing to hide)."""
    events = [decode(r.envelope) for r in recorded]
    view = PlayerView(ended_sessions(events)) if player else None
    told = Context()
    lines = []
    for rec, event in zip(recorded, events, strict=True):
        told.note(event)
        text = describe(event, told)
        hides = view is not None and view.hides(event)
        if hides:
            hidden = f"roll {roll_name(event)}" if isinstance(event, DiceRolled) else event.type_name
            text = f"{hidden} {HIDDEN}"
        lines.append(Line(rec.version, rec.envelope.time, event.type_name, text, hidden=hides))
    return lines


def hidden_rolls(events: Iterable[Event]) -> set[tuple[str, str, int]]:
    """(session, lane, nonce) of every secret roll a player may not see yet."""
    return visibility.hidden_rolls(events)


def subcommand(trigger: str) -> str:
    """The subcommand that fires a trigger (``roll_initiative`` -> ``roll-initiative``)."""
    return trigger.replace("_", "-")


def next_steps(steps: list[Allowed]) -> list[str]:
    """Allowed steps as subcommands, naming the side when only one side other than the party may take a step."""
    shown = []
    for trigger, sides in steps:
        name = subcommand(trigger)
        shown.append(f"{name} --side {sides[0]}" if len(sides) == 1 and sides[0] != "party" else name)
    return shown


def steps_now(name: str, state: Any, table: Table, registry: Registry = REGISTRY) -> list[str]:
    """The steps a procedure offers next, as subcommands: what a command's answer and the campaign's state both say
    (none once it concluded into the procedure that handed it off and resumed: a caught party's chase offers no fresh
    start, that one's steps come next)."""
    return next_steps(registry.runner(name).offered(state, table))


def over(name: str, table: Table) -> str:
    """The words for a procedure's next steps when it offers none: a command that concluded it into the procedure
    that handed it off says that one resumes."""
    parent = table.concluded_into(name)
    return f"nothing (the {name} is over; the {parent} resumes)" if parent else "nothing"


def resumed(
    name: str, table: Table, events: Iterable[Event], registry: Registry = REGISTRY
) -> list[tuple[str, str | None, list[str]]]:
    """Each procedure a command's conclusion resumed (a caught party's encounter) other than ``name``: its name,
    phase and the steps it allows now, what the referee does next."""
    found = []
    for parent in dict.fromkeys(e.parent for e in events if isinstance(e, Resumed) and e.parent != name):
        state = table.procedures.get(parent)
        phase = registry.procedure(parent).phase_of(state)
        steps = steps_now(parent, state, table, registry)
        found.append((parent, phase.name if phase is not None else None, steps))
    return found


def after(name: str, state: Any, table: Table, events: Iterable[Event]) -> list[str]:
    """What the referee does next outside the procedure, once a command's ``events`` leave it so (a chase started
    by hand that caught the party in a delve: the delve meets them), as lines to print."""
    told = AFTER.get(name)
    return told(state, table, tuple(events)) if told is not None else []


def procedure_lines(
    name: str, state: Any, table: Table, registry: Registry = REGISTRY, *, player: bool = False
) -> list[str]:
    """A procedure's phase, its own lines (a player's view of them when asked), and the steps it allows now."""
    procedure = registry.procedure(name)
    phase = procedure.phase_of(state)
    lines = [f"{name}: phase {phase.name if phase is not None else '-'}"]
    own = STATES.get(name)
    if own is not None:
        lines.extend(own(state, table, player=player))
    if procedure.has_machine and not player:  # the steps allowed could tell a player what only the referee knows
        allowed = steps_now(name, state, table, registry)
        waited = [child for parent, child in table.handoffs if parent == name]
        into = table.concluded_into(name)
        if allowed:
            lines.append(f"  next: hexlog {name} {' | '.join(allowed)}")
        elif into:
            lines.append(f"  next: {_back_to(name, into, table, registry)}")
        elif waited:
            lines.append(f"  next: nothing until its {waited[-1]} concludes")
        else:
            lines.append("  next: nothing")
    return lines


def _back_to(name: str, parent: str, table: Table, registry: Registry) -> str:
    """The next steps of a procedure that concluded into ``parent``, which resumed: none of its own, its parent's
    (none once the parent has ended since: its steps would start it afresh)."""
    state = table.procedures.get(parent)
    procedure = registry.procedure(parent)
    if procedure.phase_of(state) in procedure.final:
        return f"nothing (the {name} is over; the {parent} it resumed has ended since)"
    steps = steps_now(parent, state, table, registry)
    then = f": hexlog {parent} {' | '.join(steps)}" if steps else ""
    return f"nothing (the {name} is over; the {parent} resumed{then})"


def state_lines(campaign: str, table: Table, registry: Registry = REGISTRY, *, player: bool = False) -> list[str]:
    """The campaign's state as a referee reads it (or a player: nothing only the referee may know)."""
    rules = table.rules
    lines = [f"campaign {campaign} (stream version {table.version})"]
    if rules is not None:
        lines.append(f"rules: {rules.title} [{display_name(rules)}], hash {rules.hash[:16]}")
    session = table.session
    if session is None:
        lines.append("session: none yet (hexlog session open)")
    else:
        seed = f", client seed {session.client_seed!r}" if session.client_seed else ""
        rolls = f"{session.rolls} roll{'' if session.rolls == 1 else 's'}"
        withheld = " (a withheld reveal: they can never be verified)" if session.abandoned else ""
        lines.append(f"session {session.id}: {session.status}, {rolls}{withheld}{seed}")
        supplied = ""
        if session.supplied:
            supplied = "; its secret was supplied, not drawn: the rolls do not protect the players"
        lines.append(f"  commitment {session.commitment} ({session.scheme}{released(session.release)}){supplied}")
    if table.party.members:
        lines.append(f"party ({len(table.party.members)}, moves at {table.party.slowest_speed}):")
        lines.extend(
            f"  {m.name}: CHA {m.cha} WIS {m.wis} DEX {m.dex} STR {m.strength}, speed {m.speed}, armor {m.armor}"
            for m in table.party.members
        )
    else:
        lines.append("party: nobody yet (hexlog party add NAME)")
    lines.append(clock_line(table))
    # in the registry's order, not the order the states were stored in: the same state reads the same
    for procedure in registry.procedures:
        if procedure.name in table.procedures:
            lines.extend(
                procedure_lines(procedure.name, table.procedures[procedure.name], table, registry, player=player)
            )
    return [shown(line) for line in lines]


def clock_line(table: Table) -> str:
    """The game time: day and time of day, then the time since the campaign began (``elapsed``)."""
    return f"clock: {table.clock.text} ({elapsed(table.clock.seconds, table.rules)})"


def elapsed(seconds: int, rules: Ruleset | None) -> str:
    """A span of game time in seconds, then as much of it as whole turns, then rounds, of the rules in force, and the
    seconds left (``2640 s = 4 turns 4 rounds``): the time itself, however it passed (a round at a time or longer)."""
    if rules is None:
        return f"{seconds} s"
    options = rules.part(ClockOptions)
    turns, rest = divmod(seconds, options.turn_seconds)
    rounds, rest = divmod(rest, options.round_seconds)
    parts = [counted(turns, "turn")] if turns else []
    parts += [counted(rounds, "round")] if rounds else []
    if not parts:
        return f"{seconds} s"
    return f"{seconds} s = {' '.join(parts)}{f' {rest} s' if rest else ''}"


def state_document(
    campaign: str, table: Table, registry: Registry = REGISTRY, *, player: bool = False
) -> dict[str, Any]:
    """The campaign's state as one JSON document (what ``state_lines`` shows, as data)."""
    rules = table.rules
    session = table.session
    procedures = {}
    for procedure in registry.procedures:
        if procedure.name in table.procedures:
            state = table.procedures[procedure.name]
            phase = procedure.phase_of(state)
            steps = []
            if procedure.has_machine and not player:
                steps = [trigger for trigger, _ in registry.runner(procedure.name).offered(state, table)]
            procedures[procedure.name] = {
                "phase": phase.name if phase is not None else None,
                "next": [subcommand(t) for t in steps],
                "lines": procedure_lines(procedure.name, state, table, registry, player=player)[1:],
            }
    return {
        "campaign": campaign,
        "version": table.version,
        "rules": None if rules is None else {"name": display_name(rules), "title": rules.title, "hash": rules.hash},
        "session": None
        if session is None
        else {
            "id": session.id,
            "status": session.status,
            "commitment": session.commitment,
            "scheme": session.scheme,
            "release": session.release,
            "client_seed": session.client_seed,
            "rolls": session.rolls,
        },
        "party": [attrs.asdict(m) for m in table.party.members],
        "clock": {
            "text": table.clock.text,
            "seconds": table.clock.seconds,
            "turns": table.clock.turns,
            "rounds": table.clock.rounds,
        },
        "procedures": procedures,
    }
