"""Where faces come from: the committed dice of a session, or a script for tests of a rule."""

from __future__ import annotations

from typing import Protocol

import attrs

from hexlog.events.dice import DiceRolled
from hexlog.machine import dice as hexdice


class Roller(Protocol):
    """Gives the faces of one roll: roll ``nonce`` of a lane (hexlog-dice-v2), with dice of ``sides``."""

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]: ...


class Roll(Protocol):
    """The dice of the pure rules: roll ``expression`` for ``purpose`` (made for someone) and record it."""

    def __call__(self, dice: str, purpose: str, /, *, made_for: str = "") -> DiceRolled: ...


@attrs.frozen
class KeyRoller:
    """Faces by hexlog-dice-v1 from a session's one roll key."""

    key: bytes

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]:  # noqa: ARG002 - one lane
        """The committed faces of roll ``nonce``."""
        return hexdice.faces_for(self.key, nonce, sides)


@attrs.frozen
class SessionDice:
    """Faces by the session's scheme: one key for v1, one key per lane for hexlog-dice-v2."""

    keys: dict[str, bytes]
    #: each lane's keyed dice, set up on its first roll (``faces_for`` sets them up anew for every roll)
    _keyed: dict[str, hexdice.KeyedDice] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    @classmethod
    def of(cls, scheme: str, secret: bytes, client_seed: str) -> SessionDice:
        """The dice of a session from its revealed (or kept) secret and its client seed."""
        return cls(hexdice.keys_for(scheme, secret, client_seed))

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]:
        """The committed faces of roll ``nonce`` of ``lane`` (what ``faces_for`` gives with the lane's key)."""
        lane = lane if lane in self.keys else ""
        keyed = self._keyed.get(lane)
        if keyed is None:
            keyed = self._keyed[lane] = hexdice.KeyedDice(self.keys[lane])
        return keyed.faces(nonce, sides)


@attrs.define
class ScriptedRoller:
    """Faces taken from a script, for tests of a rule on chosen rolls."""

    script: list[int]

    def faces(self, nonce: int, sides: tuple[int, ...], lane: str = "") -> tuple[int, ...]:  # noqa: ARG002 - protocol
        """The next faces of the script, one per die; each must fit its die."""
        out = []
        for s in sides:
            face = self.script.pop(0)
            if not 1 <= face <= s:
                msg = f"scripted face {face} does not fit a d{s}"
                raise ValueError(msg)
            out.append(face)
        return tuple(out)


class Rolls:
    """A ``roll`` function outside any session, for the pure rules in simulations and tests.

    Faces come from a roller (committed dice through ``KeyRoller``, or a script); nonces count from 0
    and every roll is kept in ``made``.
    """

    def __init__(self, roller: Roller, session: str = "s1") -> None:
        self.roller = roller
        self.session = session
        self.made: list[DiceRolled] = []

    def __call__(self, expression: str, purpose: str, *, made_for: str = "") -> DiceRolled:
        """Roll ``expression`` for ``purpose`` as a procedure step would."""
        spec = hexdice.parse(expression)
        nonce = len(self.made)
        faces = self.roller.faces(nonce, spec.sides_tuple)
        rolled = DiceRolled(
            session=self.session,
            nonce=nonce,
            purpose=purpose,
            sides=spec.sides_tuple,
            faces=faces,
            modifier=spec.modifier,
            total=spec.total(faces),
            made_for=made_for,
            notation=str(spec) if spec.keeps else "",
            dropped=spec.dropped(faces),
        )
        self.made.append(rolled)
        return rolled
