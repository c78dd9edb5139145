"""One roll explained: its purpose, its derivation die by die, its result and what the rules did with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.chain import canonical_json
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError, NotFoundError, UsageError
from hexlog.events.session import SessionOpened
from hexlog.machine import dice as hexdice
from hexlog.machine.registry import REGISTRY
from hexlog.replay.dice_audit import ABANDONED, check_dice

#: what a player reads in place of a decision hidden from the player view
WITHHELD = "(hidden by the referee until the session closes)"

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope
    from hexlog.machine.kit.registry import Registry


def _decisions(  # noqa: PLR0913 - the roll, where it is, and what may not be shown
    envelopes: Sequence[Envelope],
    events: Sequence[Event | None],
    at: int,
    nonce: int,
    *,
    field: str = "rolls",
    withheld: Collection[int] = (),
) -> list[str]:
    """The events after roll ``at`` (until the next session opens) whose ``rolls`` (or ``field``) name ``nonce``;
    the contents of those whose version is ``withheld`` are not shown."""
    lines: list[str] = []
    for env, event in zip(envelopes[at + 1 :], events[at + 1 :], strict=True):
        if isinstance(event, SessionOpened):
            break
        rolls = env.data.get(field) if isinstance(env.data, dict) else None
        if isinstance(rolls, list | tuple) and nonce in rolls:
            shown = WITHHELD if env.streamversion in withheld else canonical_json(env.data)
            lines.append(f"  version {env.streamversion} {env.type}: {shown}")
    return lines


def _dice_lines(key: bytes | None, roll: DiceRolled, unknown: str = "key not revealed yet") -> list[str]:
    """How each die of the roll is derived (or will be, once the key is known)."""
    lines: list[str] = []
    for k, sides in enumerate(roll.sides):
        if not hexdice.MIN_SIDES <= sides <= hexdice.MAX_SIDES:
            lines.append(f"  die {k} (d{sides}): not a die hexlog-dice-v1 can roll")
            continue
        bound = hexdice.rejection_bound(sides)
        lines.append(
            f"  die {k} (d{sides}): accept the first 64-bit value below {bound} = (2**64 // {sides}) * {sides}"
        )
        if key is None:
            lines.append(f'    HMAC-SHA256(key, "{roll.nonce}:{k}:c") for c = 0, 1, 2, … ({unknown})')
            continue
        for counter, x, accepted in hexdice.derivation(key, roll.nonce, k, sides):
            verdict = f"accepted: {x} % {sides} + 1 = {x % sides + 1}" if accepted else "rejected (not below the bound)"
            lines.append(f'    HMAC-SHA256(key, "{roll.nonce}:{k}:{counter}")[:8] = 0x{x:016x} = {x}: {verdict}')
    return lines


def decoded(envelopes: Sequence[Envelope]) -> tuple[list[Envelope], list[Event | None]]:
    """One stream's envelopes in version order and their events (None where one does not decode)."""
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
    return ordered, events


def find_roll(events: Sequence[Event | None], nonce: int, session: str | None, *, secret: bool) -> list[int]:
    """The indices of the rolls with ``nonce`` (in ``session``, if given), the latest last.

    Under hexlog-dice-v2 each lane counts its own nonces: ``secret`` chooses the referee lane's roll,
    otherwise the public one. A v1 session has one lane for both.
    """
    schemes = {e.session: e.scheme for e in events if isinstance(e, SessionOpened)}
    found = []
    for i, e in enumerate(events):
        if not isinstance(e, DiceRolled) or e.nonce != nonce or (session is not None and e.session != session):
            continue
        lanes = schemes.get(e.session, hexdice.V1) != hexdice.V1
        if not lanes or (e.visibility == hexdice.REFEREE_LANE) == secret:
            found.append(i)
    return found


def explain_roll(  # noqa: PLR0913 - the roll's name, the rules, and what may not be shown
    envelopes: Sequence[Envelope],
    nonce: int,
    session: str | None = None,
    registry: Registry = REGISTRY,
    *,
    secret: bool = False,
    withheld: Collection[int] = (),
) -> str:
    """A readable account of one roll: purpose, derivation die by die, result and its use (the contents of
    the events at the stream versions ``withheld`` left out: a player's account)."""
    ordered, events = decoded(envelopes)
    found = find_roll(events, nonce, session, secret=secret)
    if not found:
        lane = " of the referee lane" if secret else ""
        msg = f"no roll with nonce {nonce}{lane}" + (f" in session {session}" if session else "")
        raise NotFoundError(msg)
    at = found[-1]
    roll = events[at]
    assert isinstance(roll, DiceRolled)  # noqa: S101 - found above
    env = ordered[at]
    record = check_dice(events, registry).sessions.get(roll.session)
    name = hexdice.roll_name(roll.session, nonce, secret=roll.visibility == hexdice.REFEREE_LANE)
    lines = [
        f"roll {name} (nonce {nonce} of session {roll.session}): {roll.purpose} ({roll.expression}, {roll.visibility})",
        f"  event {env.id}, {env.subject} version {env.streamversion}, {env.time}",
    ]
    if len(found) > 1:
        lines.append(f"  (nonce {nonce} also appears earlier; this is the latest; name a session to choose)")
    commitment = record.commitment if record else "unknown (the session's opening is missing)"
    client_seed = record.client_seed if record else ""
    scheme = record.scheme if record else hexdice.V1
    lane = hexdice.lane_of(scheme, roll.visibility)
    prefix = f"hexlog-dice-v2|{lane}|" if lane else "hexlog-dice-v1|"
    lines += [
        f"scheme {scheme}; commitment sha256(secret) = {commitment}",
        f'client seed: "{client_seed}"' + ("" if client_seed else " (none set)"),
        f'key = HMAC-SHA256(secret, "{prefix}{client_seed}")',
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
        lines.append(
            f"session {roll.session} revealed a secret that does not hash to its commitment: nothing can be checked"
        )
    else:
        key = hexdice.lane_key(scheme, record.secret, client_seed, lane)
        lines.append(f"secret (revealed) = {record.secret.hex()}; sha256 matches the commitment")
        lines.append(f"key = {key.hex()}")
    lines += _dice_lines(key, roll, "key never revealed" if abandoned else "key not revealed yet")
    if key is not None:
        derived = hexdice.faces_for(key, roll.nonce, roll.sides)
        verdict = "match the record" if derived == roll.faces else f"DO NOT match the recorded faces {list(roll.faces)}"
        lines.append(f"derived faces {list(derived)} {verdict}")
    lines.append(f"faces {list(roll.faces)}, modifier {roll.modifier:+d}, total {roll.total}")
    field = "referee_rolls" if lane == hexdice.REFEREE_LANE else "rolls"
    decisions = _decisions(ordered, events, at, nonce, field=field, withheld=withheld)
    lines.append("what the rules did with it:" if decisions else "what the rules did with it: no event names this roll")
    lines += decisions
    return "\n".join(lines)
