"""Which castles the party has passed within range of today: the ride-out checks owed (seed: two hexes).

The party's path on the travel day is folded by the castle's state from the travel day's events; the
hex it is truly in now is taken from the journey as well, so a castle placed during a day is judged
from where the party stands. Distances are counted on the hex grid (``hexmap.grid.distance``).

The true path is the referee's, so what the players see must not depend on it: a castle placed since
``castle.placed`` version 2 is checked on every travel day (``due``: before the day closes, once the party
has moved since the day's last check), each such castle's die rolled whether it is in reach or not (those
out of reach for show). A castle placed before is checked only when passed within range (``owed``), as then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.machine.castle.rules import CastleTables
from hexlog.machine.castle.state import PROCEDURE, CastleState
from hexlog.machine.hexmap import grid
from hexlog.machine.text import counted
from hexlog.machine.travel.state import PROCEDURE as TRAVEL
from hexlog.machine.travel.state import Phase as TravelPhase
from hexlog.machine.travel.state import TravelState

if TYPE_CHECKING:
    from hexlog.machine.table import Table

#: the farthest a garrison rides out to a party passing by (seed: two hexes)
REACH = 2
#: the phases of a travel day in which the party passes castles (from the weather to the day's end)
_ON_THE_ROAD = frozenset({TravelPhase.ROUTE, TravelPhase.TRAVEL, TravelPhase.DUSK})


def away(distance: int) -> str:
    """How far a castle is from the party's path, in words: ``in its hex``, ``1 hex away``, ``2 hexes away``."""
    return "in its hex" if distance == 0 else f"{counted(distance, 'hex')} away"


def path_today(table: Table) -> tuple[str, ...]:
    """The hexes the party was truly in on the travel day under way (none between days, nor on a day of rest: the
    party stays where it is, and passes no castle)."""
    state = table.procedures.get(PROCEDURE)
    trip = table.procedures.get(TRAVEL)
    if not isinstance(trip, TravelState) or trip.phase not in _ON_THE_ROAD or trip.rest or not trip.hex:
        return ()
    path = state.path if isinstance(state, CastleState) else ()
    return path if trip.hex in path else (*path, trip.hex)


def nearest(hex_name: str, path: tuple[str, ...]) -> int:
    """The fewest hexes between a castle and any hex of the path."""
    return min(grid.distance(hex_name, where) for where in path)


def in_reach(table: Table) -> list[tuple[str, int]]:
    """(castle hex, distance) of each castle passed today within range whose ride-out is not checked, nearest first."""
    state = table.procedures.get(PROCEDURE)
    rules = table.rules
    if not isinstance(state, CastleState) or not state.castles or rules is None:
        return []
    castle = rules.part(CastleTables).castle
    path = path_today(table)
    if castle is None or not path:
        return []
    found = []
    for hex_name in state.castles:
        if hex_name in state.checked:
            continue
        distance = nearest(hex_name, path)
        if distance <= REACH and castle.ride_out_in_6.chance(distance) > 0:
            found.append((hex_name, distance))
    return sorted(found, key=lambda item: (item[1], grid.parse(item[0])))


def owed(table: Table) -> list[tuple[str, int]]:
    """``in_reach``, of the castles placed before ``castle.placed`` version 2: their check is owed at once."""
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, CastleState):
        return []
    return [(hex_name, distance) for hex_name, distance in in_reach(table) if not state.castles[hex_name].daily]


def daily(table: Table) -> list[str]:
    """The castles checked every travel day, in the order of the grid."""
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, CastleState) or table.rules is None or table.rules.part(CastleTables).castle is None:
        return []
    return sorted((h for h, castle in state.castles.items() if castle.daily), key=grid.parse)


def due(table: Table) -> bool:
    """Whether the day's check of the castles checked every travel day is owed: on the road, with such a castle,
    and no check since the party last moved (or since the day began)."""
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, CastleState) or not daily(table) or not path_today(table):
        return False
    return state.passed_at <= state.moves
