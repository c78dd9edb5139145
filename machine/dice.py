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

import functools
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
#: the most terms (dice groups and constants) one expression may add
MAX_TERMS = 20
#: a constant of more digits is refused before it is read (it could not be within MAX_MODIFIER)
_MAX_DIGITS = 7
#: one term: ``NdS``, ``d%`` (a d100), keep or drop (``kh3``, ``kl1``, ``k2``, ``dl1``, ``dh1``, ``d1``), or a
#: constant. ASCII digits only: ``\d`` (and ``int``) would also take other scripts' digits, such as a full-width 1
_TERM = re.compile(r"([0-9]*)\s*[dD]\s*([0-9]+|%)(?:\s*([kKdD][hHlL]?)\s*([0-9]+))?|([0-9]+)")
_SIGN = re.compile(r"\s*([+-])\s*")
_FORMS = "NdS, NdS+K, d%, 4d6kh3, 2d20kl1, 1d8+1d6+2"
#: keep or drop as written, read as keep-highest or keep-lowest
_RULES = {"k": "kh", "kh": "kh", "kl": "kl", "d": "dl", "dl": "dl", "dh": "dh"}


#: what marks a roll of the referee's lane in its name: ``s2#r4`` is secret, ``s2#4`` public
REFEREE_MARK = "r"


def nonce_name(nonce: int, *, secret: bool) -> str:
    """A roll's name within its session: ``#4``, or ``#r4`` for a secret (referee's) roll."""
    return f"#{REFEREE_MARK if secret else ''}{nonce}"


def roll_name(session: str, nonce: int, *, secret: bool) -> str:
    """A roll's name across the campaign: its session and nonce, ``s2#4``, or ``s2#r4`` for a secret roll.

    Under hexlog-dice-v2 the public and the referee's lane count their nonces apart, so the mark is what
    tells ``s2#0`` from ``s2#r0``; under v1 (one count for both) it only says which rolls were secret.
    """
    return f"{session}{nonce_name(nonce, secret=secret)}"


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
    return KeyedDice(key).faces(nonce, sides)


#: each byte XORed with HMAC's inner and outer pads, as ``bytes.translate`` tables
_IPAD = bytes(b ^ 0x36 for b in range(256))
_OPAD = bytes(b ^ 0x5C for b in range(256))


class KeyedDice:
    """The faces of a lane's rolls, as ``die_face`` gives them, with the key's HMAC-SHA256 set up once.

    HMAC(key, m) is SHA-256(key ^ opad || SHA-256(key ^ ipad || m)) (RFC 2104): the two hashes of the padded
    key are made once and copied for each draw, which costs a third of a fresh ``hmac.new`` per draw.
    """

    def __init__(self, key: bytes) -> None:
        block = hashlib.sha256().block_size
        padded = (hashlib.sha256(key).digest() if len(key) > block else key).ljust(block, b"\0")
        self._inner = hashlib.sha256(padded.translate(_IPAD))
        self._outer = hashlib.sha256(padded.translate(_OPAD))

    def faces(self, nonce: int, sides: Iterable[int]) -> tuple[int, ...]:
        """The faces of roll ``nonce`` of dice with the given sides."""
        inner_key, outer_key = self._inner, self._outer
        out = []
        for index, count in enumerate(sides):
            bound, counter = rejection_bound(count), 0
            while True:
                inner = inner_key.copy()
                inner.update(f"{nonce}:{index}:{counter}".encode())
                outer = outer_key.copy()
                outer.update(inner.digest())
                x = int.from_bytes(outer.digest()[:8], "big")
                if x < bound:
                    out.append(x % count + 1)
                    break
                counter += 1
        return tuple(out)


@attrs.frozen
class DiceGroup:
    """``count`` dice of ``sides`` faces, of which ``keep`` (``kh`` or ``kl``, with ``keep_n``) keeps some."""

    count: int
    sides: int
    #: "" (every die counts), ``kh`` (the highest ``keep_n``) or ``kl`` (the lowest ``keep_n``)
    keep: str = ""
    keep_n: int = 0

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}" + (f"{self.keep}{self.keep_n}" if self.keep else "")

    def dropped(self, faces: tuple[int, ...]) -> tuple[int, ...]:
        """The indices (within the group) of the dice that do not count: ties keep the earlier die."""
        if not self.keep:
            return ()
        order = sorted(range(len(faces)), key=lambda k: (-faces[k] if self.keep == "kh" else faces[k], k))
        return tuple(sorted(order[self.keep_n :]))


@attrs.frozen
class DiceSpec:
    """A parsed dice expression: groups of dice (each may keep some) plus a constant ``modifier``."""

    groups: tuple[DiceGroup, ...]
    modifier: int = 0

    @property
    def count(self) -> int:
        """How many dice are rolled."""
        return sum(g.count for g in self.groups)

    @property
    def sides(self) -> int:
        """The sides of the first group's dice (of every die, for one group)."""
        return self.groups[0].sides

    @functools.cached_property
    def sides_tuple(self) -> tuple[int, ...]:
        """One entry per die, in the order written: die ``k`` takes index ``k`` of the roll's nonce."""
        return tuple(g.sides for g in self.groups for _ in range(g.count))

    @functools.cached_property
    def keeps(self) -> bool:
        """Whether some dice may not count (a keep or drop)."""
        return any(g.keep for g in self.groups)

    @property
    def lowest(self) -> int:
        """The lowest total the expression can show."""
        return sum(g.keep_n if g.keep else g.count for g in self.groups) + self.modifier

    @property
    def highest(self) -> int:
        """The highest total the expression can show."""
        return sum((g.keep_n if g.keep else g.count) * g.sides for g in self.groups) + self.modifier

    def dropped(self, faces: tuple[int, ...]) -> tuple[int, ...]:
        """The indices (within the roll) of the dice that do not count."""
        if not self.keeps:
            return ()
        out: list[int] = []
        at = 0
        for g in self.groups:
            out.extend(at + k for k in g.dropped(faces[at : at + g.count]))
            at += g.count
        return tuple(out)

    def total(self, faces: tuple[int, ...]) -> int:
        """The faces that count plus the modifier."""
        if not self.keeps:
            return sum(faces) + self.modifier
        dropped = set(self.dropped(faces))
        return sum(f for k, f in enumerate(faces) if k not in dropped) + self.modifier

    def __str__(self) -> str:
        text = "+".join(str(g) for g in self.groups)
        return text + (f"{self.modifier:+d}" if self.modifier else "")


@functools.lru_cache(maxsize=1024)
def parse(expression: str) -> DiceSpec:
    """Parse a dice expression (``NdS``, ``d%``, keep or drop, several terms); ``DiceExpressionError`` otherwise.

    The same few expressions are rolled again and again, and a ``DiceSpec`` is a value: each is parsed once.
    """
    text = expression.strip()
    groups: list[DiceGroup] = []
    modifier, at, terms, sign = 0, 0, 0, "+"
    while True:
        match = _TERM.match(text, at)
        if match is None or not text:
            msg = f"not a dice expression: {expression!r} (use {_FORMS})"
            raise DiceExpressionError(msg)
        count_text, sides_text, rule, keep_text, constant = match.groups()
        terms += 1
        if terms > MAX_TERMS:
            msg = f"{expression!r}: an expression adds at most {MAX_TERMS} terms"
            raise DiceExpressionError(msg)
        if constant is not None:
            modifier += _number(constant, expression) * (-1 if sign == "-" else 1)
        elif sign == "-":
            msg = f"not a dice expression: {expression!r} (dice are added, never subtracted; use {_FORMS})"
            raise DiceExpressionError(msg)
        else:
            groups.append(_group(count_text, sides_text, rule, keep_text, expression))
        at = match.end()
        if at == len(text):
            break
        joined = _SIGN.match(text, at)
        if joined is None or joined.end() == len(text):
            msg = f"not a dice expression: {expression!r} (use {_FORMS})"
            raise DiceExpressionError(msg)
        sign, at = joined.group(1), joined.end()
    if not groups:
        msg = f"not a dice expression: {expression!r} (it rolls no dice; use {_FORMS})"
        raise DiceExpressionError(msg)
    return _checked(tuple(groups), modifier, expression)


def _number(digits: str, expression: str) -> int:
    if len(digits.lstrip("0")) > _MAX_DIGITS:
        msg = f"{expression!r}: a number in it is past {MAX_MODIFIER}"
        raise DiceExpressionError(msg)
    return int(digits)


def _group(count_text: str, sides_text: str, rule: str | None, keep_text: str | None, expression: str) -> DiceGroup:
    count = _number(count_text, expression) if count_text else 1
    sides = 100 if sides_text == "%" else _number(sides_text, expression)
    if rule is None or keep_text is None:
        return DiceGroup(count, sides)
    n, how = _number(keep_text, expression), _RULES[rule.lower()]
    if how.startswith("k") and not 1 <= n <= count:
        msg = f"{expression!r}: keeps {n} of {count} dice; keep 1 to {count}"
        raise DiceExpressionError(msg)
    if how.startswith("d") and not 1 <= n < count:
        msg = f"{expression!r}: drops {n} of {count} dice; drop 1 to {count - 1}"
        raise DiceExpressionError(msg)
    if how == "dl":
        how, n = "kh", count - n
    elif how == "dh":
        how, n = "kl", count - n
    return DiceGroup(count, sides, how, n)


def _checked(groups: tuple[DiceGroup, ...], modifier: int, label: str) -> DiceSpec:
    count = sum(g.count for g in groups)
    if not 1 <= count <= MAX_DICE or any(g.count < 1 for g in groups):
        msg = f"{label!r}: the number of dice must be 1 to {MAX_DICE}, not {count}"
        raise DiceExpressionError(msg)
    bad = next((g.sides for g in groups if not MIN_SIDES <= g.sides <= MAX_SIDES), None)
    if bad is not None:
        msg = f"{label!r}: a die must have {MIN_SIDES} to {MAX_SIDES} sides, not {bad}"
        raise DiceExpressionError(msg)
    if abs(modifier) > MAX_MODIFIER:
        msg = f"{label!r}: the modifier must be within ±{MAX_MODIFIER}"
        raise DiceExpressionError(msg)
    return DiceSpec(groups, modifier)


def spec(count: int, sides: int, modifier: int = 0, shown: str | None = None) -> DiceSpec:
    """A checked ``DiceSpec`` of one group; raise ``DiceExpressionError`` when over the limits."""
    label = shown if shown is not None else f"{count}d{sides}{modifier:+d}"
    return _checked((DiceGroup(count, sides),), modifier, label)
