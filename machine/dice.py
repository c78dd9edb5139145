"""hexlog-dice-v1 and hexlog-dice-v2: dice derived from a committed secret, a client seed and a nonce.

v1: ``key = HMAC-SHA256(secret, b"hexlog-dice-v1|" + client_seed)``; die ``k`` of roll ``n`` with ``S``
sides takes the first ``x = int(HMAC-SHA256(key, f"{n}:{k}:{c}")[:8])`` (``c`` = 0, 1, …) below
``(2**64 // S) * S`` and shows ``x % S + 1``. Every roll of a session takes the next nonce.

v2: exactly v1 with two lanes, so that a referee who knows the secret cannot use secret rolls to
skip unwanted public outcomes: ``key_lane = HMAC-SHA256(secret, b"hexlog-dice-v2|" + lane + b"|" +
client_seed)`` with ``lane`` ``public`` (rolls everyone sees) or ``referee`` (secret rolls); each lane
counts its own nonces from 0.

The commitment is ``sha256(secret)`` in hex.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import re
from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import DiceExpressionError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

V1 = "hexlog-dice-v1"
V2 = "hexlog-dice-v2"
SCHEMES = (V1, V2)
#: the scheme new sessions use
SCHEME = V2
#: the lanes of v2 (a roll's visibility); v1 has one lane, written ""
PUBLIC_LANE = "public"
REFEREE_LANE = "referee"
MAX_DICE = 1000
MIN_SIDES = 2
MAX_SIDES = 1000
MAX_MODIFIER = 1_000_000
#: ASCII digits only: ``\d`` (and ``int``) would also take other scripts' digits, such as a full-width 1
_EXPRESSION = re.compile(r"^\s*([0-9]*)\s*[dD]\s*([0-9]+)\s*(?:([+-])\s*([0-9]+))?\s*$")


def commitment(secret: bytes) -> str:
    """The published commitment to a session's secret."""
    return hashlib.sha256(secret).hexdigest()


def derive_key(secret: bytes, client_seed: str = "") -> bytes:
    """The roll key of a hexlog-dice-v1 session: the secret mixed with the players' client seed."""
    return hmac.new(secret, b"hexlog-dice-v1|" + client_seed.encode("utf-8"), hashlib.sha256).digest()


def lane_of(scheme: str, visibility: str) -> str:
    """The lane a roll of ``visibility`` draws from: "" under v1 (one lane), else ``public`` or ``referee``."""
    if scheme == V1:
        return ""
    return REFEREE_LANE if visibility == REFEREE_LANE else PUBLIC_LANE


def lane_key(scheme: str, secret: bytes, client_seed: str, lane: str) -> bytes:
    """The key a lane's rolls are derived with (v1: the session's one key)."""
    if scheme == V1:
        return derive_key(secret, client_seed)
    if scheme != V2 or lane not in {PUBLIC_LANE, REFEREE_LANE}:
        msg = f"no lane {lane!r} in dice scheme {scheme!r}"
        raise ValueError(msg)
    prefix = b"hexlog-dice-v2|" + lane.encode("ascii") + b"|"
    return hmac.new(secret, prefix + client_seed.encode("utf-8"), hashlib.sha256).digest()


def keys_for(scheme: str, secret: bytes, client_seed: str) -> dict[str, bytes]:
    """Every lane's key of a session, by lane."""
    lanes = ("",) if scheme == V1 else (PUBLIC_LANE, REFEREE_LANE)
    return {lane: lane_key(scheme, secret, client_seed, lane) for lane in lanes}


def rejection_bound(sides: int) -> int:
    """The exclusive upper bound on accepted 64-bit draws for a die of ``sides`` faces."""
    return (2**64 // sides) * sides


def draws(key: bytes, nonce: int, index: int) -> Iterator[int]:
    """The 64-bit draws behind die ``index`` of roll ``nonce``, for counter 0, 1, 2, … (endless)."""
    for counter in itertools.count():
        digest = hmac.new(key, f"{nonce}:{index}:{counter}".encode(), hashlib.sha256).digest()
        yield int.from_bytes(digest[:8], "big")


def face_from_draws(values: Iterable[int], sides: int) -> int:
    """The face the first draw below the rejection bound gives; ``ValueError`` if none is."""
    bound = rejection_bound(sides)
    for x in values:
        if x < bound:
            return x % sides + 1
    msg = f"no draw was below the rejection bound {bound} of a d{sides}"
    raise ValueError(msg)


def die_face(key: bytes, nonce: int, index: int, sides: int) -> int:
    """The face of die ``index`` of roll ``nonce``."""
    return face_from_draws(draws(key, nonce, index), sides)


def derivation(key: bytes, nonce: int, index: int, sides: int) -> list[tuple[int, int, bool]]:
    """Every draw behind one die: (counter, 64-bit value, accepted), for explaining a roll."""
    bound = rejection_bound(sides)
    steps: list[tuple[int, int, bool]] = []
    counter = 0
    while True:
        digest = hmac.new(key, f"{nonce}:{index}:{counter}".encode(), hashlib.sha256).digest()
        x = int.from_bytes(digest[:8], "big")
        steps.append((counter, x, x < bound))
        if x < bound:
            return steps
        counter += 1


def faces_for(key: bytes, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]:
    """The faces of one roll of dice with the given sides."""
    return tuple(die_face(key, nonce, k, s) for k, s in enumerate(sides))


@attrs.frozen
class DiceSpec:
    """A parsed dice expression: ``count`` dice of ``sides`` faces plus ``modifier``."""

    count: int
    sides: int
    modifier: int = 0

    @property
    def sides_tuple(self) -> tuple[int, ...]:
        """One entry per die."""
        return (self.sides,) * self.count

    def __str__(self) -> str:
        text = f"{self.count}d{self.sides}"
        return text + (f"{self.modifier:+d}" if self.modifier else "")


def parse(expression: str) -> DiceSpec:
    """Parse ``NdS``, ``NdS+K``, ``NdS-K`` or ``dS``; raise ``DiceExpressionError`` otherwise."""
    match = _EXPRESSION.match(expression)
    if match is None:
        msg = f"not a dice expression: {expression!r} (use NdS, NdS+K, NdS-K or dS)"
        raise DiceExpressionError(msg)
    count_text, sides_text, sign, mod_text = match.groups()
    count = int(count_text) if count_text else 1
    sides = int(sides_text)
    modifier = int(mod_text) * (-1 if sign == "-" else 1) if mod_text else 0
    return spec(count, sides, modifier, expression)


def spec(count: int, sides: int, modifier: int = 0, shown: str | None = None) -> DiceSpec:
    """A checked ``DiceSpec``; raise ``DiceExpressionError`` when over the limits."""
    label = shown if shown is not None else f"{count}d{sides}{modifier:+d}"
    if not 1 <= count <= MAX_DICE:
        msg = f"{label!r}: the number of dice must be 1 to {MAX_DICE}, not {count}"
        raise DiceExpressionError(msg)
    if not MIN_SIDES <= sides <= MAX_SIDES:
        msg = f"{label!r}: a die must have {MIN_SIDES} to {MAX_SIDES} sides, not {sides}"
        raise DiceExpressionError(msg)
    if abs(modifier) > MAX_MODIFIER:
        msg = f"{label!r}: the modifier must be within ±{MAX_MODIFIER}"
        raise DiceExpressionError(msg)
    return DiceSpec(count, sides, modifier)
