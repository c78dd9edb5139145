"""What the rules recorded, checked (sessions, hexlog-dice-v1 rolls, phase changes), and one roll explained."""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING

import attrs

from hexlog.events.chain import canonical_json
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError, NotFoundError, UsageError
from hexlog.events.procedure import PhaseChanged
from hexlog.events.session import (
    DICE_SCHEME,
    ClientSeedSet,
    SessionAbandoned,
    SessionClosed,
    SessionOpened,
)
from hexlog.machine import dice as hexdice

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope

UNVERIFIABLE = "unverifiable until the session closes and reveals its secret"
ABANDONED = "session {session} was abandoned without revealing its secret"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_PROCEDURE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@attrs.frozen
class Issue:
    """A problem (or, with ``note``, an unverifiable roll) at index ``at`` of the checked events."""

    at: int
    check: str
    reason: str
    cause: bool = True
    note: bool = False


@attrs.define
class SessionRecord:
    """One session as the log tells it: where it opened, its seed, its reveal and its rolls."""

    id: str
    opened_at: int
    commitment: str
    scheme: str
    client_seed: str = ""
    closed_at: int | None = None
    #: where the session was abandoned without a reveal: its rolls can never be verified
    abandoned_at: int | None = None
    #: the revealed secret, once it matched the commitment
    secret: bytes | None = None
    next_nonce: int = 0
    rolls: list[int] = attrs.field(factory=list)

    @property
    def open(self) -> bool:
        """Whether the session has neither closed nor been abandoned yet."""
        return self.closed_at is None and self.abandoned_at is None


@attrs.frozen
class DiceCheck:
    """What checking a stream's sessions found."""

    issues: tuple[Issue, ...]
    sessions: dict[str, SessionRecord]
    rolls: int
    verified: int


def transition_checker(procedure: str) -> Callable[[str, str, str], bool] | None:
    """``recorded_transition_ok`` of ``hexlog.machine.<procedure>``, if that module has one."""
    if not _PROCEDURE_NAME.match(procedure):
        return None
    name = f"hexlog.machine.{procedure}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == name:
            return None  # no such procedure module: nothing to check against
        raise
    checker = getattr(module, "recorded_transition_ok", None)
    return checker if callable(checker) else None


def _roll_shape(roll: DiceRolled) -> str | None:
    """What makes a roll impossible by the scheme's limits, if anything."""
    if not 1 <= len(roll.sides) <= hexdice.MAX_DICE:
        return f"a roll must have 1 to {hexdice.MAX_DICE} dice, not {len(roll.sides)}"
    if len(roll.faces) != len(roll.sides):
        return f"{len(roll.faces)} faces for {len(roll.sides)} dice"
    if any(not hexdice.MIN_SIDES <= s <= hexdice.MAX_SIDES for s in roll.sides):
        return f"sides {list(roll.sides)} outside {hexdice.MIN_SIDES} to {hexdice.MAX_SIDES}"
    if any(not 1 <= f <= s for f, s in zip(roll.faces, roll.sides, strict=True)):
        return f"faces {list(roll.faces)} do not fit dice {list(roll.sides)}"
    if roll.total != sum(roll.faces) + roll.modifier:
        return f"total {roll.total} is not the sum of faces {list(roll.faces)} plus modifier {roll.modifier}"
    return None


class _Checker:
    """Walks one stream's decoded events and collects the dice issues."""

    def __init__(self) -> None:
        self.issues: list[Issue] = []
        self.sessions: dict[str, SessionRecord] = {}
        self.current: SessionRecord | None = None
        self.rolls = 0
        self.verified = 0

    def flag(self, at: int, check: str, reason: str, *, note: bool = False) -> None:
        self.issues.append(Issue(at, check, reason, note=note))

    def opened(self, at: int, event: SessionOpened) -> None:
        if self.current is not None and self.current.open:
            self.flag(at, "session", f"session {event.session} opened while {self.current.id} is open")
        if event.session in self.sessions:
            self.flag(at, "session", f"session id {event.session} is used twice")
        if event.scheme != DICE_SCHEME:
            self.flag(at, "session", f"unknown dice scheme {event.scheme!r}")
        if not _HEX64.match(event.commitment):
            self.flag(at, "commitment", "the commitment is not 64 lowercase hex digits")
        self.current = SessionRecord(event.session, at, event.commitment, event.scheme)
        self.sessions[event.session] = self.current

    def seeded(self, at: int, event: ClientSeedSet) -> None:
        session = self.sessions.get(event.session)
        if session is None or session is not self.current or not session.open:
            self.flag(at, "session", f"client seed for session {event.session}, which is not open")
        elif session.rolls or session.next_nonce:
            self.flag(at, "session", f"client seed set after the first roll of session {session.id}")
        elif session.client_seed:
            self.flag(at, "session", f"a second client seed for session {session.id}")
        else:
            session.client_seed = event.client_seed

    def rolled(self, at: int, event: DiceRolled) -> None:
        self.rolls += 1
        session = self.sessions.get(event.session)
        problem = _roll_shape(event)
        if problem is not None:
            self.flag(at, "dice", problem)
        if session is None or session is not self.current or not session.open:
            self.flag(at, "session", f"roll {event.nonce} outside an open session ({event.session})")
            return
        if event.nonce < session.next_nonce:
            self.flag(at, "nonce", f"nonce {event.nonce} repeats or goes back; {session.next_nonce} was next")
        elif event.nonce > session.next_nonce:
            missing = session.next_nonce if event.nonce == session.next_nonce + 1 else f"{session.next_nonce} to {event.nonce - 1}"
            self.flag(at, "nonce", f"nonce {event.nonce} skips nonce(s) {missing} of session {session.id}")
        session.next_nonce = max(session.next_nonce, event.nonce + 1)
        if problem is None:
            session.rolls.append(at)

    def closed(self, at: int, event: SessionClosed, events: Sequence[Event | None]) -> None:
        session = self.sessions.get(event.session)
        if session is None or not session.open:
            self.flag(at, "session", f"closing session {event.session}, which is not open")
            return
        session.closed_at = at
        secret = bytes.fromhex(event.secret) if _HEX64.match(event.secret) else None
        if secret is None or hexdice.commitment(secret) != session.commitment:
            self.flag(at, "commitment", f"the revealed secret does not hash to the commitment of session {session.id}")
            for roll_at in session.rolls:
                self.flag(roll_at, "dice", f"session {session.id} revealed a secret that fails its commitment", note=True)
            return
        session.secret = secret
        if session.scheme != DICE_SCHEME:
            return
        key = hexdice.derive_key(secret, session.client_seed)
        for roll_at in session.rolls:
            roll = events[roll_at]
            assert isinstance(roll, DiceRolled)  # noqa: S101 - only rolls are recorded here
            derived = hexdice.faces_for(key, roll.nonce, roll.sides)
            if derived != roll.faces:
                self.flag(roll_at, "dice", f"faces {list(roll.faces)} recorded; hexlog-dice-v1 gives {list(derived)}")
            else:
                self.verified += 1

    def abandoned(self, at: int, event: SessionAbandoned) -> None:
        session = self.sessions.get(event.session)
        if session is None or not session.open:
            self.flag(at, "session", f"abandoning session {event.session}, which is not open")
            return
        session.abandoned_at = at
        for roll_at in session.rolls:
            self.flag(roll_at, "dice", ABANDONED.format(session=session.id), note=True)

    def phase_changed(self, at: int, event: PhaseChanged) -> None:
        allowed = transition_checker(event.procedure)
        if allowed is not None and not allowed(event.trigger, event.source, event.dest):
            reason = f"{event.procedure} has no transition '{event.trigger}' from {event.source} to {event.dest}"
            self.flag(at, "transition", reason)

    def finish(self) -> None:
        for session in self.sessions.values():
            if session.open:
                for roll_at in session.rolls:
                    self.flag(roll_at, "dice", f"{UNVERIFIABLE} (session {session.id})", note=True)


def check_dice(events: Sequence[Event | None]) -> DiceCheck:
    """Check one stream's decoded events (``None`` where one did not decode), in version order.

    Sessions, nonces, commitments and every revealed roll (hexlog-dice-v1), and that each phase
    change names a transition of its procedure (``recorded_transition_ok``, where one exists).
    The rolls of a session still open, or abandoned without a reveal, are notes (unverifiable),
    not failures; a roll after a session closed or was abandoned is a failure.
    """
    checker = _Checker()
    for at, event in enumerate(events):
        match event:
            case SessionOpened():
                checker.opened(at, event)
            case ClientSeedSet():
                checker.seeded(at, event)
            case DiceRolled():
                checker.rolled(at, event)
            case SessionClosed():
                checker.closed(at, event, events)
            case SessionAbandoned():
                checker.abandoned(at, event)
            case PhaseChanged():
                checker.phase_changed(at, event)
    checker.finish()
    return DiceCheck(tuple(checker.issues), checker.sessions, checker.rolls, checker.verified)


def _decisions(envelopes: Sequence[Envelope], events: Sequence[Event | None], at: int, nonce: int) -> list[str]:
    """The events after roll ``at`` (until the next session opens) whose ``rolls`` name ``nonce``."""
    lines: list[str] = []
    for env, event in zip(envelopes[at + 1 :], events[at + 1 :], strict=True):
        if isinstance(event, SessionOpened):
            break
        rolls = env.data.get("rolls") if isinstance(env.data, dict) else None
        if isinstance(rolls, list | tuple) and nonce in rolls:
            lines.append(f"  version {env.streamversion} {env.type}: {canonical_json(env.data)}")
    return lines


def _dice_lines(key: bytes | None, roll: DiceRolled, unknown: str = "key not revealed yet") -> list[str]:
    """How each die of the roll is derived (or will be, once the key is known)."""
    lines: list[str] = []
    for k, sides in enumerate(roll.sides):
        if not hexdice.MIN_SIDES <= sides <= hexdice.MAX_SIDES:
            lines.append(f"  die {k} (d{sides}): not a die hexlog-dice-v1 can roll")
            continue
        bound = hexdice.rejection_bound(sides)
        lines.append(f"  die {k} (d{sides}): accept the first 64-bit value below {bound} = (2**64 // {sides}) * {sides}")
        if key is None:
            lines.append(f'    HMAC-SHA256(key, "{roll.nonce}:{k}:c") for c = 0, 1, 2, … ({unknown})')
            continue
        for counter, x, accepted in hexdice.derivation(key, roll.nonce, k, sides):
            verdict = f"accepted: {x} % {sides} + 1 = {x % sides + 1}" if accepted else "rejected (not below the bound)"
            lines.append(f'    HMAC-SHA256(key, "{roll.nonce}:{k}:{counter}")[:8] = 0x{x:016x} = {x}: {verdict}')
    return lines


def explain_roll(envelopes: Sequence[Envelope], nonce: int, session: str | None = None) -> str:
    """A readable account of one roll: purpose, derivation die by die, result and its use."""
    ordered = sorted(envelopes, key=lambda env: env.streamversion)
    if len({env.subject for env in ordered}) > 1:
        msg = "explain_roll reads the events of one campaign stream at a time"
        raise UsageError(msg)
    events: list[Event | None] = []
    for env in ordered:
        try:
            events.append(decode(env))
        except HexlogError:
            events.append(None)
    found = [
        i for i, e in enumerate(events)
        if isinstance(e, DiceRolled) and e.nonce == nonce and (session is None or e.session == session)
    ]
    if not found:
        msg = f"no roll with nonce {nonce}" + (f" in session {session}" if session else "")
        raise NotFoundError(msg)
    at = found[-1]
    roll = events[at]
    assert isinstance(roll, DiceRolled)  # noqa: S101 - found above
    env = ordered[at]
    record = check_dice(events).sessions.get(roll.session)
    lines = [
        f"roll {nonce} of session {roll.session}: {roll.purpose} ({roll.expression}, {roll.visibility})",
        f"  event {env.id}, {env.subject} version {env.streamversion}, {env.time}",
    ]
    if len(found) > 1:
        lines.append(f"  (nonce {nonce} also appears earlier; this is the latest; name a session to choose)")
    commitment = record.commitment if record else "unknown (the session's opening is missing)"
    client_seed = record.client_seed if record else ""
    lines += [
        f"scheme {DICE_SCHEME}; commitment sha256(secret) = {commitment}",
        f'client seed: "{client_seed}"' + ("" if client_seed else " (none set)"),
        f'key = HMAC-SHA256(secret, "hexlog-dice-v1|{client_seed}")',
    ]
    key: bytes | None = None
    abandoned = record is not None and record.abandoned_at is not None
    if abandoned:
        lines.append(
            f"{ABANDONED.format(session=roll.session)}: its rolls can never be verified "
            f"against the commitment {commitment}"
        )
    elif record is None or record.open:
        lines.append(
            f"the secret of session {roll.session} is not revealed yet: the derivation can be checked "
            f"once the secret is revealed (when the session closes), against the commitment {commitment}"
        )
    elif record.secret is None:
        lines.append(f"session {roll.session} revealed a secret that does not hash to its commitment: nothing can be checked")
    else:
        key = hexdice.derive_key(record.secret, client_seed)
        lines.append(f"secret (revealed) = {record.secret.hex()}; sha256 matches the commitment")
        lines.append(f"key = {key.hex()}")
    lines += _dice_lines(key, roll, "key never revealed" if abandoned else "key not revealed yet")
    if key is not None:
        derived = hexdice.faces_for(key, roll.nonce, roll.sides)
        verdict = "match the record" if derived == roll.faces else f"DO NOT match the recorded faces {list(roll.faces)}"
        lines.append(f"derived faces {list(derived)} {verdict}")
    lines.append(f"faces {list(roll.faces)}, modifier {roll.modifier:+d}, total {roll.total}")
    decisions = _decisions(ordered, events, at, nonce)
    lines.append("what the rules did with it:" if decisions else "what the rules did with it: no event names this roll")
    lines += decisions
    return "\n".join(lines)
