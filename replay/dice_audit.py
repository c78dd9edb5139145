"""The dice audit: sessions, nonces, commitments and every revealed roll of one stream, re-derived.

It walks the stream with the shared session lifecycle fold (``hexlog.projections.sessions``),
checking each event against the lifecycle as it stands just before it, and keeps beside it only what
an audit needs: where each session opened and ended, which rolls it recorded, and its revealed secret.
It also checks that each phase change names a transition of its procedure's table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias, TypeVar, overload

import attrs

from hexlog.events.dice import DiceRolled
from hexlog.events.errors import DiceExpressionError
from hexlog.events.procedure import PhaseChanged
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.machine import dice as hexdice
from hexlog.machine.text import counted, shown
from hexlog.projections import sessions
from hexlog.replay import differences as words
from hexlog.replay.verdict import Caveats

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hexlog.events.base import Event
    from hexlog.machine.kit.registry import Registry

    #: the events a check looks back at by index: the stream's, or (read as it comes) the open session's rolls
    Looked: TypeAlias = Mapping[int, Event | None] | Sequence[Event | None]

UNVERIFIABLE = "unverifiable until the session closes and reveals its secret"
ABANDONED = "session {session} was abandoned without revealing its secret"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
MAX_CLIENT_SEED_V2 = 200
T = TypeVar("T")


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
    """What the audit keeps of one session besides its lifecycle: where things happened, and the secret."""

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
    #: the indices of its well-formed rolls
    rolls: list[int] = attrs.field(factory=list)
    #: its secret was given to hexlog, not drawn by it
    supplied: bool = False

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


def printable_ascii(seed: str) -> bool:
    """Whether a client seed is one hexlog-dice-v2 accepts: 1 to 200 printable ASCII characters."""
    return 0 < len(seed) <= MAX_CLIENT_SEED_V2 and all(" " <= ch <= "~" for ch in seed)


def roll_shape(roll: DiceRolled) -> str | None:  # noqa: PLR0911 - one return per way a roll is impossible
    """What makes a roll impossible by the scheme's limits, if anything."""
    if not 1 <= len(roll.sides) <= hexdice.MAX_DICE:
        return f"a roll must have 1 to {hexdice.MAX_DICE} dice, not {len(roll.sides)}"
    if len(roll.faces) != len(roll.sides):
        return f"{len(roll.faces)} faces for {len(roll.sides)} dice"
    if any(not hexdice.MIN_SIDES <= s <= hexdice.MAX_SIDES for s in roll.sides):
        return f"sides {list(roll.sides)} outside {hexdice.MIN_SIDES} to {hexdice.MAX_SIDES}"
    if any(not 1 <= f <= s for f, s in zip(roll.faces, roll.sides, strict=True)):
        return f"faces {list(roll.faces)} do not fit dice {list(roll.sides)}"
    if roll.notation or roll.dropped:
        problem = _keep_problem(roll)
        if problem:
            return problem
    if roll.total != roll.counted + roll.modifier:
        counted = "the faces that count" if roll.dropped else "the sum of faces"
        return f"total {roll.total} is not {counted} {list(roll.faces)} plus modifier {roll.modifier}"
    return None


def _keep_problem(roll: DiceRolled) -> str | None:
    """What is wrong with a keep or drop: its notation must name the dice rolled and the dice it leaves out."""
    try:
        spec = hexdice.parse(roll.notation)
    except DiceExpressionError:
        return f"notation {roll.notation!r} is not a dice expression"
    if not spec.keeps or spec.sides_tuple != roll.sides:
        return f"notation {roll.notation!r} does not keep or drop, or names other dice than {list(roll.sides)}"
    if roll.dropped != spec.dropped(roll.faces):
        return f"dice {list(roll.dropped)} dropped, but {roll.notation} drops {list(spec.dropped(roll.faces))}"
    return None


class Checker:
    """Walks one stream's decoded events and collects the dice issues."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.issues: list[Issue] = []
        self.log = sessions.SessionLog()
        self.sessions: dict[str, SessionRecord] = {}
        self.rolls = 0
        self.verified = 0

    def flag(self, at: int, check: str, reason: str, *, note: bool = False) -> None:
        self.issues.append(Issue(at, check, reason, note=note))

    def current(self, session: str) -> SessionRecord | None:
        """The record of ``session`` when it is the latest session and still open."""
        now = self.log.current
        if now is None or now.id != session or not now.open:
            return None
        return self.sessions.get(session)

    def opened(self, at: int, event: SessionOpened) -> None:
        now = self.log.current
        if now is not None and now.open:
            self.flag(at, "session", f"session {event.session} opened while {now.id} is open")
        if self.known(event.session):
            self.flag(at, "session", f"session id {event.session} is used twice")
        if event.scheme not in hexdice.SCHEMES:
            self.flag(at, "session", f"unknown dice scheme {event.scheme!r}")
        if not _HEX64.match(event.commitment):
            self.flag(at, "commitment", "the commitment is not 64 lowercase hex digits")
        earlier = self.committed(event.commitment)
        if earlier is not None:
            self.flag(
                at,
                "commitment",
                f"session {event.session} commits to the secret of session {earlier}: its rolls were predictable",
            )
        self.sessions[event.session] = SessionRecord(
            event.session, at, event.commitment, event.scheme, supplied=event.supplied
        )

    def known(self, session: str) -> bool:
        """Whether a session of this id was opened before."""
        return session in self.sessions

    def committed(self, commitment: str) -> str | None:
        """The first session so far that committed to this commitment, if any."""
        return next((s.id for s in self.sessions.values() if s.commitment == commitment), None)

    def seeded(self, at: int, event: ClientSeedSet) -> None:
        record, now = self.current(event.session), self.log.current
        if record is None or now is None:
            self.flag(at, "session", f"client seed for session {event.session}, which is not open")
        elif record.rolls or now.rolls:
            self.flag(at, "session", f"client seed set after the first roll of session {record.id}")
        elif record.client_seed:
            self.flag(at, "session", f"a second client seed for session {record.id}")
        else:
            if record.scheme == hexdice.V2 and not printable_ascii(event.client_seed):
                self.flag(at, "session", "a hexlog-dice-v2 client seed must be 1 to 200 printable ASCII characters")
            record.client_seed = event.client_seed

    def rolled(self, at: int, event: DiceRolled) -> None:
        self.rolls += 1
        problem = roll_shape(event)
        if problem is not None:
            self.flag(at, "dice", problem)
        record, now = self.current(event.session), self.log.current
        if record is None or now is None:
            self.flag(at, "session", f"roll {event.nonce} outside an open session ({event.session})")
            return
        expected = now.nonce_for(event.visibility)
        lane = f" of the {event.visibility} lane" if now.lanes else ""
        if event.nonce < expected:
            self.flag(at, "nonce", f"nonce {event.nonce}{lane} repeats or goes back; {expected} was next")
        elif event.nonce > expected:
            missing = expected if event.nonce == expected + 1 else f"{expected} to {event.nonce - 1}"
            self.flag(at, "nonce", f"nonce {event.nonce}{lane} skips nonce(s) {missing} of session {record.id}")
        if problem is None:
            record.rolls.append(at)
            self.kept(at, event)

    def kept(self, at: int, roll: DiceRolled) -> None:
        """A well-formed roll of the open session, at index ``at``, noted among its rolls."""

    def closed(self, at: int, event: SessionClosed, events: Looked) -> None:
        record = self.current(event.session)
        if record is None:
            self.flag(at, "session", f"closing session {event.session}, which is not open")
            return
        record.closed_at = at
        secret = bytes.fromhex(event.secret) if _HEX64.match(event.secret) else None
        if secret is None or hexdice.commitment(secret) != record.commitment:
            self.flag(at, "commitment", f"the revealed secret does not hash to the commitment of session {record.id}")
            for roll_at in record.rolls:
                self.flag(
                    roll_at, "dice", f"session {record.id} revealed a secret that fails its commitment", note=True
                )
            return
        record.secret = secret
        if record.scheme not in hexdice.SCHEMES:
            return
        keys = hexdice.keys_for(record.scheme, secret, record.client_seed)
        for roll_at in record.rolls:
            roll = events[roll_at]
            assert isinstance(roll, DiceRolled)  # noqa: S101 - only rolls are recorded here
            key = keys[hexdice.lane_of(record.scheme, roll.visibility)]
            derived = hexdice.faces_for(key, roll.nonce, roll.sides)
            if derived != roll.faces:
                self.flag(roll_at, "dice", f"faces {list(roll.faces)} recorded; {record.scheme} gives {list(derived)}")
            else:
                self.verified += 1

    def abandoned(self, at: int, event: SessionAbandoned) -> None:
        record = self.current(event.session)
        if record is None:
            self.flag(at, "session", f"abandoning session {event.session}, which is not open")
            return
        record.abandoned_at = at
        for roll_at in record.rolls:
            self.flag(roll_at, "dice", ABANDONED.format(session=record.id), note=True)

    def phase_changed(self, at: int, event: PhaseChanged) -> None:
        if not self.registry.knows(event.procedure) or event.procedure not in self.registry.runners:
            self.flag(at, "transition", f"the log names a procedure {event.procedure!r} that has no state machine here")
            return
        if not self.registry.runner(event.procedure).recorded_ok(event.trigger, event.source, event.dest):
            reason = f"{event.procedure} has no transition '{event.trigger}' from {event.source} to {event.dest}"
            self.flag(at, "transition", reason)

    def step(self, at: int, event: Event | None, events: Looked) -> None:
        """Check one event against the lifecycle before it, then fold it."""
        match event:
            case SessionOpened():
                self.opened(at, event)
            case ClientSeedSet():
                self.seeded(at, event)
            case DiceRolled():
                self.rolled(at, event)
            case SessionClosed():
                self.closed(at, event, events)
            case SessionAbandoned():
                self.abandoned(at, event)
            case PhaseChanged():
                self.phase_changed(at, event)
        if event is not None:
            self.log = sessions.evolve(self.log, event)

    def finish(self) -> None:
        for record in self.sessions.values():
            if record.open:
                for roll_at in record.rolls:
                    self.flag(roll_at, "dice", f"{UNVERIFIABLE} (session {record.id})", note=True)


def check_dice(events: Sequence[Event | None], registry: Registry) -> DiceCheck:
    """Check one stream's decoded events (``None`` where one did not decode), in version order.

    Sessions, nonces, commitments and every revealed roll (hexlog-dice-v1), and that each phase
    change names a transition of its procedure. The rolls of a session still open, or abandoned
    without a reveal, are notes (unverifiable), not failures; a roll after a session closed or was
    abandoned is a failure.
    """
    checker = Checker(registry)
    for at, event in enumerate(events):
        checker.step(at, event, events)
    checker.finish()
    return DiceCheck(tuple(checker.issues), checker.sessions, checker.rolls, checker.verified)


class StreamChecker(Checker):
    """``Checker`` for a stream read as it comes: it keeps the ids and commitments of the sessions so far, the
    record and the rolls of the session still open, and lets go of a session once it ends, with its caveats
    (``verdict.Caveats``) noted in ``caveat_lines``.

    Its findings are those of ``check_dice`` as long as sessions follow one another, as in a log with no finding
    at all; a caller that meets a finding audits the stream whole instead."""

    def __init__(self, registry: Registry) -> None:
        super().__init__(registry)
        self.ids: set[str] = set()
        self.commitments: dict[str, str] = {}
        #: the well-formed rolls of the sessions not ended yet, by index
        self.open_rolls: dict[int, Event | None] = {}
        self.tally = Caveats()
        self.caveat_lines: list[str] = []

    def known(self, session: str) -> bool:
        return session in self.ids

    def committed(self, commitment: str) -> str | None:
        return self.commitments.get(commitment)

    def opened(self, at: int, event: SessionOpened) -> None:
        super().opened(at, event)
        self.ids.add(event.session)
        self.commitments.setdefault(event.commitment, event.session)

    def kept(self, at: int, roll: DiceRolled) -> None:
        self.open_rolls[at] = roll

    def closed(self, at: int, event: SessionClosed, events: Looked) -> None:  # noqa: ARG002 - its own rolls
        record = self.current(event.session)
        super().closed(at, event, self.open_rolls)
        if record is not None:
            self.ended(record)

    def abandoned(self, at: int, event: SessionAbandoned) -> None:
        record = self.current(event.session)
        super().abandoned(at, event)
        if record is not None:
            self.ended(record)

    def ended(self, record: SessionRecord) -> None:
        """Note a session's caveats and let go of it and its rolls."""
        self.caveat_lines.extend(self.tally.add(record))
        self.sessions.pop(record.id, None)
        for roll_at in record.rolls:
            self.open_rolls.pop(roll_at, None)

    def finish(self) -> None:
        super().finish()
        for record in self.sessions.values():
            self.caveat_lines.extend(self.tally.add(record))


class Recent(Sequence[T]):
    """What a check of a stream read as it comes looks up by index: the value of the event that came last
    (``note``), the values kept (``keep``) for the earlier indices it still needs, ``default`` for any other; its
    length is how many events have come so far."""

    def __init__(self, default: T) -> None:
        self.kept: dict[int, T] = {}
        self.default = default
        self.now = default
        self.seen = 0

    def note(self, index: int, value: T) -> None:
        """The value of the event at ``index``, the one that came last."""
        self.seen, self.now = index + 1, value

    def keep(self) -> None:
        """Keep the value of the event that came last for when later ones have come."""
        self.kept[self.seen - 1] = self.now

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...
    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        if index == self.seen - 1:
            return self.now
        if isinstance(index, slice):
            msg = "a stream read as it comes is not sliced"
            raise TypeError(msg)
        return self.kept.get(index, self.default)

    def __len__(self) -> int:
        return self.seen


#: how many of a session's free rolls the audit names (the rest it counts)
FREE_NAMED = 5


def free_named(names: tuple[str, ...], name: str, purpose: str | None) -> tuple[str, ...]:
    """The free rolls of a session named so far, with one more while fewer than ``FREE_NAMED``: a public roll with
    its purpose (``#4 for "omen"``), a secret one (``purpose`` None) by its name alone (``#r0``: the purpose of a
    secret roll is the referee's, and an abandoned session never reveals it)."""
    if len(names) >= FREE_NAMED:
        return names
    return (*names, name if purpose is None else f"{name} for {words.show(shown(purpose))}")


def free_rolls(session: str, where: str, count: int, names: tuple[str, ...]) -> str:
    """A session's free rolls (``hexlog roll``: no procedure step made them) as one line of the referee's hand, at
    ``where`` (the session's end): each took the next nonce of its lane, so a referee who knows the secret could
    have spent one to pass over a roll a step would have made."""
    more = f" and {count - len(names)} more" if count > len(names) else ""
    return (
        f"{where}: {counted(count, 'free roll')} of session {session} made by the referee outside any procedure step "
        f"({', '.join(names)}{more}); each took the next nonce of its lane, so the referee, who knows the secret, "
        "could have spent one to pass over a roll a step would have made"
    )
