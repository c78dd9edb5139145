"""The tables castles read, typed (seed 004 U&WA p.15, REFERENCE §4.15).

A ruleset without a castle table (ose, adnd) has no castles: the castle's commands say so. The
ride-out and pursuit chances are "in 6": the garrison rides out (the forces pursue) when a d6 shows
at most the chance. The type is rolled on one die with a face per entry of ``types``, the
disposition on a d6 (``hostile_on``, else neutral) unless the type is always one (``always``).
``kind`` says what each type demands; ``castle_demands`` holds the tolls, the joust's rewards, the
quest's share and the tithe. The check across them (``check``) refuses a type without a kind, a
disposition a type cannot have, or a kind without its demands.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, ClassVar

import attrs

from hexlog.machine.kit.rules import RulesError, dice_rule, in_range, non_empty, rule

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset

FACES = 6


class Disposition(enum.StrEnum):
    """How a castle's occupants stand towards the party."""

    HOSTILE = "hostile"
    NEUTRAL = "neutral"
    FRIENDLY = "friendly"


class Kind(enum.StrEnum):
    """What a castle's lord is, which decides what the castle demands."""

    FIGHTER = "fighter"
    MAGIC_USER = "magic_user"
    CLERIC = "cleric"


@attrs.frozen(kw_only=True)
class RideOut:
    """The garrison rides out on a d6 showing at most this, by the party's distance (seed: 3, 2, 1)."""

    same_hex: int = rule(help="The party is in the castle's hex.", validator=in_range(0, FACES))
    one_hex: int = rule(help="The party passes one hex away.", validator=in_range(0, FACES))
    two_hexes: int = rule(help="The party passes two hexes away.", validator=in_range(0, FACES))

    def chance(self, distance: int) -> int:
        """The chance in 6 at ``distance`` hexes (0 beyond two)."""
        return (self.same_hex, self.one_hex, self.two_hexes)[distance] if 0 <= distance <= 2 else 0  # noqa: PLR2004 - the seed's reach


@attrs.frozen(kw_only=True)
class CastleTable:
    """§4.15: the garrison riding out, the castle's type and disposition, pursuit of a party that flees."""

    ride_out_in_6: RideOut = rule(help="Chance in 6 that the garrison rides out as the party passes, by distance.")
    hostile_on: tuple[int, ...] = rule(
        help="The disposition d6 faces that mean hostile (the rest neutral).", validator=in_range(1, FACES)
    )
    types: tuple[str, ...] = rule(
        help="The castle types, in the order of the type die (one face each).", validator=non_empty
    )
    always: dict[str, Disposition] = rule(
        factory=dict,
        help="Types whose disposition is never rolled (seed: Patriarch friendly, Evil High Priest hostile).",
    )
    kind: dict[str, Kind] = rule(help="What each type is: fighter, magic_user or cleric (it decides the demand).")
    pursue_in_6: dict[Disposition, int] = rule(
        help="Chance in 6 that the castle's forces pursue a party that flees, by disposition (left out: never)."
    )

    def rides_out(self, distance: int, face: int) -> bool:
        """Whether a garrison rides out on ``face`` of the d6 as the party passes ``distance`` hexes away."""
        return face <= self.ride_out_in_6.chance(distance)

    def type_of(self, face: int) -> str:
        """The castle type the type die's ``face`` names."""
        return self.types[face - 1]

    def disposition_of(self, castle_type: str, face: int) -> Disposition:
        """The disposition of a castle of ``castle_type`` whose d6 showed ``face`` (0: not rolled, for a type that
        is always one)."""
        always = self.always.get(castle_type)
        if always is not None:
            return always
        return Disposition.HOSTILE if face in self.hostile_on else Disposition.NEUTRAL

    def pursue_on(self, disposition: str) -> tuple[int, ...]:
        """The faces on which the forces pursue (none: they never do)."""
        return tuple(range(1, self.pursue_in_6.get(Disposition(disposition), 0) + 1))


@attrs.frozen(kw_only=True)
class FighterDemand:
    """A fighter's castle: a joust, or a toll if the party declines."""

    toll_dice: str = rule(
        help="The toll's dice if the joust is declined.", validator=dice_rule(required=True, lowest=0)
    )
    toll_gp_per_point: int = rule(help="Gold pieces per point of the toll's dice.", validator=in_range(0, 1_000_000))
    hospitality_days: int = rule(help="Days of hospitality when the party's fighter wins.", validator=in_range(0, 366))
    rations_days: int = rule(help="Days of rations when the party's fighter wins.", validator=in_range(0, 366))


@attrs.frozen(kw_only=True)
class MagicUserDemand:
    """A magic-user's castle: a quest by geas, or a toll in gold (or a magic item)."""

    toll_dice: str = rule(help="The toll's dice if the quest is refused.", validator=dice_rule(required=True, lowest=0))
    toll_gp_per_point: int = rule(help="Gold pieces per point of the toll's dice.", validator=in_range(0, 1_000_000))
    quest_keeps_fraction: float = rule(
        help="The share of the quest's treasure the castle keeps (seed: at least half).", validator=in_range(0, 1)
    )


@attrs.frozen(kw_only=True)
class ClericDemand:
    """A cleric's castle: a tithe of the coin and jewels, or a quest."""

    tithe_pct: int = rule(
        help="The tithe: percent of the coin and jewels the party carries.", validator=in_range(0, 100)
    )


@attrs.frozen(kw_only=True)
class CastleDemands:
    """§4.15 tolls and demands by kind."""

    fighter: FighterDemand | None = rule(None, help="Lord, Superhero: joust or toll.")
    magic_user: MagicUserDemand | None = rule(None, help="Wizard, Necromancer: quest by geas, or toll or magic item.")
    cleric: ClericDemand | None = rule(None, help="Patriarch, Evil High Priest: tithe, or quest.")


@attrs.frozen(kw_only=True)
class CastleTables:
    """The tables castles read."""

    section: ClassVar[str] = "tables"

    castle: CastleTable | None = rule(None, help="§4.15 castles: ride-out, type, disposition, pursuit.")
    castle_demands: CastleDemands | None = rule(None, help="§4.15 tolls and demands by the castle's kind.")


def check(ruleset: Ruleset) -> None:
    """Refuse castle tables a meeting could not use: a type without a kind, or a kind without its demands."""
    tables = ruleset.part(CastleTables)
    table = tables.castle
    if table is None:
        return
    if len(set(table.types)) != len(table.types):
        msg = "tables.castle.types: a type is named twice"
        raise RulesError(msg)
    for where, names in (("kind", table.kind), ("always", table.always)):
        unknown = sorted(set(names) - set(table.types))
        if unknown:
            msg = f"tables.castle.{where}: {', '.join(unknown)} is not one of the types ({', '.join(table.types)})"
            raise RulesError(msg)
    missing = [t for t in table.types if t not in table.kind]
    if missing:
        msg = f"tables.castle.kind: {', '.join(missing)} has no kind (fighter, magic_user or cleric)"
        raise RulesError(msg)
    wrong = sorted(f"{k}={v}" for k, v in table.pursue_in_6.items() if not 0 <= v <= FACES)
    if wrong:
        msg = f"tables.castle.pursue_in_6: {', '.join(wrong)} is out of range; allowed 0 to {FACES}"
        raise RulesError(msg)
    demands = tables.castle_demands or CastleDemands()
    lacking = sorted({k.value for k in table.kind.values() if getattr(demands, k.value) is None})
    if lacking:
        msg = f"tables.castle_demands: the {', '.join(lacking)} demands are missing, and a castle type is one"
        raise RulesError(msg)


def placement_problem(table: CastleTable | None, castle_type: str, disposition: str) -> str | None:
    """What makes a castle of this type and disposition unplaceable under the rules (None: it can be placed)."""
    if table is None:
        return "the rules in force have no castle table (tables.castle)"
    if castle_type and castle_type not in table.types:
        return f"castle type {castle_type!r} is not one of {', '.join(table.types)}"
    if disposition:
        allowed = [d.value for d in Disposition]
        if disposition not in allowed:
            return f"disposition {disposition!r} is not one of {', '.join(allowed)}"
        always = table.always.get(castle_type)
        if always is not None and disposition != always:
            return f"a {castle_type} castle is always {always.value}, not {disposition}"
    return None
