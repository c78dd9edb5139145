"""What the map's terrain means for the travel day: costs, lost and encounter rows, the next hex.

Pure rules over the map, the journey and the rules in force (REFERENCE §4.7-4.9, A20, A21, A22, A23).
Roads and tracks: entering a hex along a road (both hexes have one) costs the road's points, and a
track likewise. Each source of lost and encounter chances reads its own table (option
``lost_encounter_source``): Dolmenwood's has a road row (never lost, in clear weather by day) and a
track row; the OD&D p.18 table has neither, so under ``odd_p18`` a road or track hex reads its
terrain's row. Fog or a blizzard, and darkness, raise every lost chance (§4.7), a road's included.

A party that is lost and does not know it believes it is in another hex than its true one: everything
the players see of its day is decided by the hex it believes it is in (``seen``): the cost of a move and
of a search, mounts led on foot, where the map ends, the wandering check's row. Its true hex's terrain
decides only what the referee keeps (the true position, what a search finds there); a true hex off the
map or barred to its mounts or vehicles stops the move, and the referee decides what the party sees.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.hexmap import grid
from hexlog.machine.hexmap.rules import MapTables, TerrainOptions
from hexlog.machine.travel.rules import (
    Chances,
    ChanceSource,
    LostSource,
    TerrainChances,
    TravelTables,
)

if TYPE_CHECKING:
    from hexlog.machine.hexmap.state import Hex, MapState
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.travel.state import TravelState

FACES = 6
#: the step that tells a lost party it is lost
REVEAL_LOST = Advice("RevealLost")


def difficulty(rules: Ruleset, place: Hex) -> str:
    """A hex's difficulty (light, moderate, difficult): a terrain the Dolmenwood table does not rate reads the option
    ``unrated_terrain_difficulty`` (§4.8 gives it no cost)."""
    return terrain_difficulty(rules, place.terrain)


def terrain_difficulty(rules: Ruleset, terrain: str) -> str:
    """The difficulty of ground of ``terrain``, on the map or off it (``difficulty``)."""
    unrated = rules.part(TerrainOptions).unrated_terrain_difficulty
    return rules.part(MapTables).difficulty(terrain, unrated).value


def unrated(rules: Ruleset, place: Hex) -> str:
    """How the rules read a hex whose terrain the Dolmenwood table does not rate, in words ("" for a rated one)."""
    if rules.part(MapTables).rated(place.terrain):
        return ""
    reading = rules.part(TerrainOptions).unrated_terrain_difficulty.value
    option = "options.unrated_terrain_difficulty"
    return f"tables.terrain_difficulty does not rate {place.terrain}: read as {reading} ({option})"


def search_cost(rules: Ruleset, place: Hex) -> int:
    """Travel points to search a hex: the same as entering it off the road (§4.11)."""
    return (rules.part(TravelTables).terrain_cost or {}).get(difficulty(rules, place), 0)


def entry_cost(rules: Ruleset, start: Hex | None, place: Hex) -> int:
    """Travel points to enter ``place`` from ``start`` (a road or track both share costs its own)."""
    costs = rules.part(TravelTables).terrain_cost or {}
    cost = costs.get(difficulty(rules, place), 0)
    for way, on in (("road", start is not None and start.road and place.road), ("track", _track(start, place))):
        if on and way in costs:
            cost = min(cost, costs[way])
    return cost


def _track(start: Hex | None, place: Hex) -> bool:
    return start is not None and (start.road or start.track) and (place.road or place.track)


def row(rules: Ruleset, place: Hex) -> tuple[str, Chances]:
    """The row of the lost and encounter table a hex reads, and its faces, under the source in force: Dolmenwood's
    road, track or difficulty; the OD&D row of the hex's terrain under odd_p18, which has no road or track row."""
    return terrain_row(rules, place.terrain, road=place.road, track=place.track)


def terrain_row(rules: Ruleset, terrain: str, *, road: bool = False, track: bool = False) -> tuple[str, Chances]:
    """The row of the lost and encounter table ground of ``terrain`` reads (on a road or track, or off both), and its
    faces, under the source in force: a hex's (``row``), and off the map a pursuit's rest's."""
    chances = rules.part(TerrainChances).lost_encounter or {}
    source = rules.part(ChanceSource).lost_encounter_source
    if source is LostSource.DOLMENWOOD:
        name = "road" if road else "track" if track else terrain_difficulty(rules, terrain)
    else:
        name = rules.part(MapTables).odd_row(terrain)
    found = chances.get(source.value, {}).get(name)
    return name, found if found is not None else Chances(lost=(), encounter=())


def road_row(rules: Ruleset, place: Hex) -> tuple[str, Chances]:
    """The row a lost check read before ``travel.lost_checked`` version 3: a road hex read Dolmenwood's road row
    (never lost) whatever the source in force; any other hex its source's row (the audit re-runs such checks)."""
    dolmenwood = (rules.part(TerrainChances).lost_encounter or {}).get(LostSource.DOLMENWOOD.value, {})
    if place.road and "road" in dolmenwood:
        return "road", dolmenwood["road"]
    return row(rules, place)


def lost_range(
    rules: Ruleset, faces: tuple[int, ...], weather: str, flags: tuple[str, ...], *, night: bool
) -> tuple[int, ...]:
    """The lost faces after weather and darkness (§4.7, A20): the seed's fog/blizzard modifier, else the
    poor-visibility flag, never both, then darkness. They raise every row's chance, a road's none included (none
    in fog is 1-in-6): the seed names no exception."""
    tables = rules.part(TravelTables)
    mods = tables.lost_modifiers or {}
    effects = tables.weather_effects
    widen = mods.get(weather, 0)
    if not widen and "poor_visibility" in flags and effects is not None:
        widen = effects.poor_visibility_lost
    if night:
        widen += mods.get("darkness", 0)
    top = max(faces, default=0)
    return tuple(sorted(set(faces) | set(range(top + 1, min(FACES, top + widen) + 1))))


def is_lost(total: int, lost_on: tuple[int, ...]) -> bool:
    """Whether a lost roll's total (a penalty may take it below 1) means lost: read as a face, 1 to 6."""
    return min(max(total, 1), FACES) in lost_on


def true_route(declared: tuple[str, ...], heading: str) -> tuple[str, ...]:
    """A23: a lost party follows ``heading``; the first turn it declares turns it as much; later ones are lost."""
    if not declared:
        return ()
    out, current, turned = [heading], heading, False
    for before, after in itertools.pairwise(declared):
        if after != before and not turned:
            current, turned = grid.turn(current, grid.turn_between(before, after)), True
        out.append(current)
    return tuple(out)


def seen(the_map: MapState, trip: TravelState) -> Hex | None:
    """The hex whose terrain decides what the players see of the day: the one the party believes it is in (its true
    hex, unless it is lost and does not know it); the true hex where the believed one is not on the map."""
    return the_map.hex(trip.believed) or the_map.hex(trip.hex)


@attrs.frozen(kw_only=True)
class Step:
    """The next hex of the route: where the party truly goes, where it believes it goes, at what cost (the believed
    hex's: the party spends its points as it believes it travels), its mounts led on foot there."""

    heading: str
    true_hex: str
    believed: str
    cost: int
    led: bool = False


def _barred(rules: Ruleset, trip: TravelState, place: Hex, name: str) -> str | None:
    """Why the party's mounts or vehicles cannot enter a hex (None: they can)."""
    access = (rules.part(TravelTables).terrain_access or {}).get(difficulty(rules, place))
    if access is None or place.road or place.track:
        return None
    why = unrated(rules, place)
    where = f"{name}; {why}" if why else name
    if trip.vehicles and access.vehicles == "no":
        return f"vehicles cannot enter {place.terrain} ({where})"
    if trip.mounted and access.mounts == "no":
        return f"mounts cannot enter {place.terrain} ({where})"
    return None


def _led(rules: Ruleset, trip: TravelState, place: Hex) -> bool:
    """Whether the party leads its mounts into a hex (off road and track, where the terrain asks it)."""
    access = (rules.part(TravelTables).terrain_access or {}).get(difficulty(rules, place))
    return access is not None and not (place.road or place.track) and trip.mounted and access.mounts == "led"


def _dry(rules: Ruleset, trip: TravelState, place: Hex, name: str) -> str | None:
    """Why a ship afloat cannot sail into a hex: its terrain is not water (None: it may, or the party is not afloat,
    or the rules name no water terrains)."""
    water = rules.part(TravelTables).water_terrains
    if not trip.afloat or water is None or place.terrain in water:
        return None
    waters = ", ".join(water) or "none"
    return f"a ship afloat cannot sail into {name}: {place.terrain} is not water (tables.water_terrains: {waters})"


def ashore(rules: Ruleset, the_map: MapState, where: str) -> str | None:
    """Why a ship cannot set out afloat from a hex (None: it may, or the rules name no water terrains): its terrain
    is not water, and no hex next to it is (a port's hex lies beside the water it sails on)."""
    water = rules.part(TravelTables).water_terrains
    place = the_map.hex(where)
    if water is None or place is None or place.terrain in water:
        return None
    for heading in grid.HEADINGS:
        beside = grid.neighbour(where, heading)
        found = the_map.hex(beside) if beside is not None else None
        if found is not None and found.terrain in water:
            return None
    waters = ", ".join(water) or "none"
    return (
        f"a ship cannot set out afloat from {where}: {place.terrain} is not water, and no hex next to it is "
        f"(tables.water_terrains: {waters}); set out from water or a port beside it, or on foot"
    )


def aground(rules: Ruleset, the_map: MapState, trip: TravelState) -> str | tuple[str | Advice, ...] | None:
    """Why a ship afloat cannot sail into the next hex of its route (None: it can, or the move is refused for another
    reason, or the party is not afloat): the hex it believes it enters is not water, or, lost, the one it truly
    enters. Only a move the referee gives asks it: the audit re-runs a recorded move as its release made it."""
    step = ahead(rules, the_map, trip)
    if not isinstance(step, Step):
        return None
    believed = the_map.hex(step.believed)
    dry = _dry(rules, trip, believed, step.believed) if believed is not None else None
    if dry is not None:
        return dry
    truly = the_map.hex(step.true_hex) if step.true_hex else None
    dry = _dry(rules, trip, truly, step.true_hex) if truly is not None else None
    if dry is not None:
        return f"the party is lost, and truly {dry}; tell it it is lost (", REVEAL_LOST, "), or stop here"
    return None


def ahead(rules: Ruleset, the_map: MapState, trip: TravelState) -> Step | str:
    """The next hex of the route as the party sees it, whatever the points left (or why it cannot go there): the
    believed hex must be on the map and open to the party, and its cost is what the move spends."""
    if not trip.route:
        return "the declared route is travelled; search, force the march, or check for wanderers"
    heading = trip.route[0]
    believed = grid.neighbour(trip.believed, heading)
    place = the_map.hex(believed) if believed is not None else None
    if believed is None or place is None:
        return f"the map ends there ({heading} of {trip.believed}); the day's travel stops"
    barred = _barred(rules, trip, place, believed)
    if barred is not None:
        return barred
    led = _led(rules, trip, place)
    true_heading = trip.true_route[0] if trip.true_route else heading
    target = grid.neighbour(trip.hex, true_heading) or ""
    cost = entry_cost(rules, the_map.hex(trip.believed), place)
    return Step(heading=heading, true_hex=target, believed=believed, cost=cost, led=led)


def next_step(rules: Ruleset, the_map: MapState, trip: TravelState) -> Step | str | tuple[str | Advice, ...]:
    """The next hex, or why the party cannot move into it now (with the command that gets past it, when one does)."""
    step = ahead(rules, the_map, trip)
    if isinstance(step, str):
        return step
    if step.cost > trip.tp:
        place = the_map.hex(step.believed)
        why = unrated(rules, place) if place is not None else ""
        return f"entering {step.believed}{f' ({why})' if why else ''} costs {step.cost} travel points; {trip.tp} left"
    truly = the_map.hex(step.true_hex) if step.true_hex else None
    if truly is None:
        heading = trip.true_route[0] if trip.true_route else step.heading
        where = f"{step.true_hex}, which is not on the map" if step.true_hex else "the edge of the grid"
        lost = f"the party is lost: it would truly go {heading} of {trip.hex} into {where}; draw it, or tell the party"
        return f"{lost} it is lost (", REVEAL_LOST, ")"
    barred = _barred(rules, trip, truly, step.true_hex)
    if barred is not None:
        return f"the party is lost, and truly {barred}; tell it it is lost (", REVEAL_LOST, "), or stop here"
    return step


def next_step_true_cost(rules: Ruleset, the_map: MapState, trip: TravelState) -> Step | str:
    """The next hex as releases before ``travel.moved`` version 2 moved into it (the audit re-runs their moves so):
    the true hex's cost and access, whatever the party believes."""
    if not trip.route:
        return "the declared route is travelled"
    heading = trip.true_route[0] if trip.true_route else trip.route[0]
    target = grid.neighbour(trip.hex, heading)
    place = the_map.hex(target) if target is not None else None
    if target is None or place is None:
        return f"the map ends there ({heading} of {trip.hex})"
    barred = _barred(rules, trip, place, target)
    if barred is not None:
        return barred
    cost = entry_cost(rules, the_map.hex(trip.hex), place)
    if cost > trip.tp:
        return f"entering {target} costs {cost} travel points; {trip.tp} left"
    believed = grid.neighbour(trip.believed, trip.route[0]) or trip.believed
    return Step(heading=trip.route[0], true_hex=target, believed=believed, cost=cost, led=_led(rules, trip, place))


def unfinished(rules: Ruleset, the_map: MapState, trip: TravelState) -> int:
    """A22: the points spent on an unfinished hex at the day's end: those left when the next hex of the route costs
    more (the party walks on into it); none when they would pay for it, or no route is left to travel."""
    step = ahead(rules, the_map, trip)
    return trip.tp if isinstance(step, Step) and step.cost > trip.tp else 0
