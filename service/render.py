"""Readable text for events and state, as a referee reads them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from hexlog.events.base import Event
from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode
from hexlog.events.dice import REFEREE, DiceRolled
from hexlog.events.party import MemberAdded, MemberRemoved
from hexlog.events.procedure import PhaseChanged
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.store import Recorded

HIDDEN = "(hidden by the referee until the session closes)"

#: event class -> text; procedure modules' events are added by ``describer``
_DESCRIBERS: dict[type[Event], Callable[[Any], str]] = {}


def describer(cls: type[Event]) -> Callable[[Callable[[Any], str]], Callable[[Any], str]]:
    """Register the text of an event class."""

    def add(fn: Callable[[Any], str]) -> Callable[[Any], str]:
        _DESCRIBERS[cls] = fn
        return fn

    return add


def roll_text(roll: DiceRolled) -> str:
    """``2d6+1 -> 3+4+1 = 8``."""
    faces = "+".join(str(f) for f in roll.faces)
    mod = f"{roll.modifier:+d}" if roll.modifier else ""
    return f"{roll.expression} -> {faces}{mod} = {roll.total}"


@describer(DiceRolled)
def _rolled(e: DiceRolled) -> str:
    secret = " [secret]" if e.visibility == REFEREE else ""
    return f"roll #{e.nonce} {roll_text(e)} for {e.purpose}{secret}"


@describer(SessionOpened)
def _opened(e: SessionOpened) -> str:
    return f"session {e.session} opened; commitment {e.commitment} ({e.scheme})"


@describer(ClientSeedSet)
def _seed(e: ClientSeedSet) -> str:
    return f"session {e.session}: players' client seed {e.client_seed!r}"


@describer(SessionClosed)
def _closed(e: SessionClosed) -> str:
    return f"session {e.session} closed; secret revealed: {e.secret}"


@describer(CampaignStarted)
def _started(e: CampaignStarted) -> str:
    return f"campaign {e.campaign} started under {e.ruleset} (rules {e.rules_hash[:12]})"


@describer(RulesChanged)
def _rules(e: RulesChanged) -> str:
    why = f": {e.reason}" if e.reason else ""
    return f"rules changed to {e.ruleset} (rules {e.rules_hash[:12]}){why}"


@describer(MemberAdded)
def _member(e: MemberAdded) -> str:
    return (
        f"{e.name} joins the party (CHA {e.cha}, WIS {e.wis}, DEX {e.dex}, STR {e.strength}, "
        f"speed {e.speed}, armour {e.armor})"
    )


@describer(MemberRemoved)
def _removed(e: MemberRemoved) -> str:
    return f"{e.name} leaves the party" + (f": {e.reason}" if e.reason else "")


@describer(ClockAdvanced)
def _clock(e: ClockAdvanced) -> str:
    parts = []
    if e.turns:
        parts.append(f"{e.turns} turn{'s' if e.turns != 1 else ''}")
    if e.rounds:
        parts.append(f"{e.rounds} round{'s' if e.rounds != 1 else ''}")
    span = " / ".join(parts) or f"{e.seconds} s"
    return f"clock advances {span} ({e.seconds} s){': ' + e.reason if e.reason else ''}"


@describer(PhaseChanged)
def _phase(e: PhaseChanged) -> str:
    return f"{e.procedure}: {e.trigger.replace('_', '-')} ({e.source} -> {e.dest})"


def _generic(event: Event) -> str:
    fields = attrs.asdict(event, recurse=False)
    shown = ", ".join(f"{k}={v}" for k, v in fields.items() if v not in ((), "", None))
    return f"{event.type_name}: {shown}"


def describe(event: Event) -> str:
    """One readable line for an event."""
    fn = _DESCRIBERS.get(type(event))
    return fn(event) if fn is not None else _generic(event)


@attrs.frozen
class Line:
    """One line of the timeline."""

    version: int
    time: str
    kind: str
    text: str


def hidden_nonces(events: Iterable[Event]) -> set[tuple[str, int]]:
    """(session, nonce) of every secret roll whose session has not ended (closed or abandoned)."""
    secret: set[tuple[str, int]] = set()
    closed: set[str] = set()
    for e in events:
        if isinstance(e, DiceRolled) and e.visibility == REFEREE:
            secret.add((e.session, e.nonce))
        elif isinstance(e, (SessionClosed, SessionAbandoned)):
            closed.add(e.session)
    return {k for k in secret if k[0] not in closed}


def timeline(recorded: list[Recorded], *, player: bool = False) -> list[Line]:
    """The campaign as lines; the player's view hides secret rolls and what they decided."""
    events = [decode(r.envelope) for r in recorded]
    hidden = hidden_nonces(events) if player else set()
    hidden_by_nonce = {n for _, n in hidden}
    current_session = ""
    lines = []
    for rec, event in zip(recorded, events, strict=True):
        if isinstance(event, SessionOpened):
            current_session = event.session
        text = describe(event)
        if isinstance(event, DiceRolled) and (event.session, event.nonce) in hidden:
            text = f"roll #{event.nonce} {HIDDEN}"
        elif hidden_by_nonce and _uses(event, hidden_by_nonce, current_session, hidden):
            text = f"{event.type_name} {HIDDEN}"
        lines.append(Line(rec.version, rec.envelope.time, event.type_name, text))
    return lines


def _uses(event: Event, nonces: set[int], session: str, hidden: set[tuple[str, int]]) -> bool:
    used = getattr(event, "rolls", ())
    return any((session, n) in hidden for n in used if n in nonces)


def state_lines(campaign: str, table: Any) -> list[str]:
    """The campaign's state as a referee reads it."""
    rules = table.rules
    lines = [f"campaign {campaign} (stream version {table.version})"]
    if rules is not None:
        lines.append(f"rules: {rules.title} [{rules.name}], hash {rules.hash[:16]}")
    session = table.session
    if session is None:
        lines.append("session: none yet (hexlog session open)")
    else:
        status = "open" if session.open else ("abandoned" if session.abandoned else "closed")
        seed = f", client seed {session.client_seed!r}" if session.client_seed else ""
        lines.append(f"session {session.id}: {status}, {session.next_nonce} rolls{seed}")
        lines.append(f"  commitment {session.commitment}")
    if table.party.members:
        lines.append(f"party ({len(table.party.members)}, moves at {table.party.slowest_speed}):")
        lines.extend(
            f"  {m.name}: CHA {m.cha} WIS {m.wis} DEX {m.dex} STR {m.strength}, speed {m.speed}, armour {m.armor}"
            for m in table.party.members
        )
    else:
        lines.append("party: nobody yet (hexlog party add NAME)")
    clock = table.clock
    lines.append(f"clock: {clock.text} ({clock.turns} turns, {clock.rounds} rounds, {clock.seconds} s)")
    for name, proc in table.procedures.items():
        lines.extend(procedure_lines(name, proc, table))
    return lines


def next_steps(steps: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    """Available steps as subcommands, naming the side when only one side may take a step."""
    shown = []
    for trigger, sides in steps:
        name = trigger.replace("_", "-")
        shown.append(f"{name} --side {sides[0]}" if len(sides) == 1 and sides[0] != "party" else name)
    return shown


def procedure_lines(name: str, proc: Any, table: Any) -> list[str]:
    """A procedure's phase and the steps it allows now (as the subcommands that fire them)."""
    from hexlog.machine import encounter  # noqa: PLC0415 - procedures register late

    phase = getattr(proc, "phase", None)
    phase_name = getattr(phase, "name", str(phase))
    lines = [f"{name}: phase {phase_name}"]
    if name == "encounter":
        allowed = next_steps(encounter.available_steps(proc, table.rules, table.party))
        lines.append(f"  next: hexlog encounter {' | '.join(allowed) if allowed else '(nothing)'}")
    return lines


from hexlog.service import render_encounter as _render_encounter  # noqa: E402,F401 - registers its texts
