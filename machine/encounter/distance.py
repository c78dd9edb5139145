"""The encounter distance as every text finds it: the situation, the result and the trace of its steps.

``positions`` (OSE and seed 004) and ``positions_adnd`` (seed 001) both build on these, so neither
needs the other's module to describe a distance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import attrs

from hexlog.events import encounter as ev
from hexlog.events.vocabulary import Setting, Unit
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.kit.rules import RulesError
from hexlog.machine.rolls import Roll

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hexlog.events.dice import DiceRolled
    from hexlog.machine.ruleset import Ruleset

V = TypeVar("V")
K = TypeVar("K")

PURPOSE = "encounter.distance"
SETTINGS = tuple(Setting)


@attrs.frozen(kw_only=True)
class Distance:
    """How far apart the two sides start, and how that was found."""

    value: int
    #: a word of ``Unit``; a distance recorded by hexlog 0.1.0 may hold its house rules' unit (``m``)
    unit: Unit | str
    melee: bool
    missiles_possible: bool
    rule: str
    steps: tuple[str, ...]
    rolls: tuple[int, ...]

    def recorded(self) -> ev.DistanceDetermined:
        """The event that records this distance."""
        return ev.DistanceDetermined(
            value=self.value,
            unit=self.unit,
            melee=self.melee,
            missiles_possible=self.missiles_possible,
            rule=self.rule,
            steps=self.steps,
            rolls=self.rolls,
        )

    @classmethod
    def of(cls, event: ev.DistanceDetermined) -> Distance:
        """The distance a recorded event holds."""
        return cls(
            value=event.value,
            unit=event.unit,
            melee=event.melee,
            missiles_possible=event.missiles_possible,
            rule=event.rule,
            steps=event.steps,
            rolls=event.rolls,
        )


@attrs.frozen(kw_only=True)
class Situation:
    """Everything the referee can tell about where the encounter happens."""

    setting: Setting
    terrains: tuple[str, ...] = ()
    line_of_sight_ft: int | None = None
    area_ft: int | None = None
    light_radius_ft: int | None = None
    #: a side carries light (AD&D indoors: without ``light_radius_ft`` the rules' default radius caps the distance)
    light_carried: bool = False
    vision_ft: int | None = None
    hiding: bool = False
    #: poor visibility (fog, blizzard) divides the distance by this (REFERENCE §4.10); 1: clear
    distance_divisor: int = 1


@attrs.define
class Trace:
    """The steps and roll nonces of one determination, gathered as it goes."""

    roll_fn: Roll
    #: option ``missiles_without_limit``: what a distance records where the table sets no missile limit
    unlimited_missiles: bool = False
    steps: list[str] = attrs.field(factory=list)
    rolls: list[int] = attrs.field(factory=list)

    def roll(self, expression: str, purpose: str) -> DiceRolled:
        """Roll through the caller's dice and note the nonce and the result."""
        rolled = self.roll_fn(expression, purpose)
        self.rolls.append(rolled.nonce)
        self.steps.append(f"roll {expression} = {rolled.total}")
        return rolled

    def note(self, text: str) -> None:
        """Add a readable step."""
        self.steps.append(text)

    def distance(
        self, value: int, unit: Unit, rule: str, *, melee: bool = False, missiles: bool | None = None
    ) -> Distance:
        """The finished result; ``missiles`` None: as ``missiles_without_limit`` says (no limit in the table)."""
        return Distance(
            value=value,
            unit=unit,
            melee=melee,
            missiles_possible=self.unlimited_missiles if missiles is None else missiles,
            rule=rule,
            steps=tuple(self.steps),
            rolls=tuple(self.rolls),
        )


def missiles_possible(rules: Ruleset, value: int, at_most: int | None) -> bool:
    """Whether melee or missile attacks are possible at ``value``: within the table's limit, or anywhere without one."""
    if at_most is None:
        return rules.part(EncounterOptions).missiles_without_limit
    return value <= at_most


def entry(rules: Ruleset, table: str, found: Mapping[K, V] | None, key: K | None) -> V:
    """One keyed entry of a table, refused with the table and key named when it is missing."""
    if found is None or key is None or key not in found:
        msg = f"ruleset {rules.name}: tables.{table} has no entry {str(key)!r}"
        raise RulesError(msg)
    return found[key]


def visibility(trace: Trace, value: int, situation: Situation, unit: str = "ft") -> int:
    """``value`` divided (rounded down) by the situation's poor-visibility divisor, noted as a step."""
    if situation.distance_divisor <= 1:
        return value
    result = value // situation.distance_divisor
    trace.note(f"poor visibility: / {situation.distance_divisor} -> {result} {unit}")
    return result


def cap(trace: Trace, value: int, limit: int, label: str, unit: str = "ft") -> int:
    """``value`` limited to ``limit``, noted as a step."""
    result = min(value, limit)
    trace.note(f"cap by {label} -> {result} {unit}")
    return result
