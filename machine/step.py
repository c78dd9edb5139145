"""One step of a procedure: the rolls it makes and the events it returns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs

from hexlog.events.base import Event
from hexlog.events.dice import PUBLIC, DiceRolled
from hexlog.events.errors import RuleRefusedError
from hexlog.machine import dice as hexdice
from hexlog.machine.ruleset import Ruleset
from hexlog.machine.table import Table


class Roller(Protocol):
    """Gives the faces of one roll."""

    def faces(self, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]: ...


@attrs.frozen
class KeyRoller:
    """Faces by hexlog-dice-v1 from a session's roll key."""

    key: bytes

    def faces(self, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]:
        """The committed faces of roll ``nonce``."""
        return hexdice.faces_for(self.key, nonce, sides)


@attrs.define
class ScriptedRoller:
    """Faces taken from a script, for tests of a rule on chosen rolls."""

    script: list[int]

    def faces(self, nonce: int, sides: tuple[int, ...]) -> tuple[int, ...]:  # noqa: ARG002 - protocol
        """The next faces of the script, one per die; each must fit its die."""
        out = []
        for s in sides:
            face = self.script.pop(0)
            if not 1 <= face <= s:
                msg = f"scripted face {face} does not fit a d{s}"
                raise ValueError(msg)
            out.append(face)
        return tuple(out)


@attrs.define
class Step:
    """The context a command's step runs in: the folded table, the dice, the events so far."""

    table: Table
    roller_source: Callable[[], Roller]
    events: list[Event] = attrs.field(factory=list)
    _roller: Roller | None = None

    @property
    def rules(self) -> Ruleset:
        """The rules in force."""
        if self.table.rules is None:
            msg = "the campaign has not started"
            raise RuleRefusedError(msg)
        return self.table.rules

    def emit(self, *events: Event) -> None:
        """Add decision events, in order."""
        self.events.extend(events)

    def roll(self, dice: str | hexdice.DiceSpec, purpose: str, *, visibility: str = PUBLIC) -> DiceRolled:
        """Roll from the open session's committed dice and record the roll."""
        session = self.table.session
        if session is None or not session.open:
            msg = f"no session is open, so nothing can be rolled (for {purpose}); run 'hexlog session open'"
            raise RuleRefusedError(msg)
        spec = hexdice.parse(dice) if isinstance(dice, str) else dice
        if self._roller is None:
            self._roller = self.roller_source()
        nonce = session.next_nonce + sum(isinstance(e, DiceRolled) for e in self.events)
        faces = self._roller.faces(nonce, spec.sides_tuple)
        rolled = DiceRolled(
            session=session.id, nonce=nonce, purpose=purpose, sides=spec.sides_tuple,
            faces=faces, modifier=spec.modifier, total=sum(faces) + spec.modifier,
            visibility=visibility,
        )
        self.events.append(rolled)
        return rolled


class Rolls:
    """A ``roll`` function outside any session, for the pure rules in simulations and tests.

    Faces come from a roller (committed dice through ``KeyRoller``, or a script); nonces count from 0
    and every roll is kept in ``made``.
    """

    def __init__(self, roller: Roller, session: str = "s1") -> None:
        self.roller = roller
        self.session = session
        self.made: list[DiceRolled] = []

    def __call__(self, expression: str, purpose: str) -> DiceRolled:
        """Roll ``expression`` for ``purpose`` as a procedure step would."""
        spec = hexdice.parse(expression)
        nonce = len(self.made)
        faces = self.roller.faces(nonce, spec.sides_tuple)
        rolled = DiceRolled(
            session=self.session, nonce=nonce, purpose=purpose, sides=spec.sides_tuple, faces=faces,
            modifier=spec.modifier, total=sum(faces) + spec.modifier,
        )
        self.made.append(rolled)
        return rolled
