"""The steps of the day's travel: moving hex by hex, searching a hex, and the forced march.

A move spends the next hex's cost (§4.8-4.9) and records two facts: ``Moved`` (what the party
sees: the hex it believes it entered, the points left) and ``TruePosition`` (the referee's). A lost
party that reaches the hex where it expected a landmark, and is not there, learns it is lost. Until
it learns it, it spends its points as it believes it travels: a move costs the hex it believes it
enters, a search the hex it believes it searches (``terrain.seen``), so that nothing the players see
tells them the terrain of the hex they are truly in (§4.12: they do not know they are lost).

The hidden features of the hex come from the referee's key keeper (the log holds only their
commitments; the audit's keeper holds those the log opened). The search roll is the referee's secret
(a 1 that finds nothing would tell the players the hex is empty). A party that is lost, and does not
know it, finds in its true hex: the find (``FeatureFoundLost``) is the referee's until the session ends.
On the default table a low face finds, so the roll is one where low is good and a penalty on it (exhaustion)
raises its total, which must lie in the range (read as a face, 1 to 6); a natural 1 always finds a feature
that is there. On the dvdm table a high total finds, each feature on its own die read with the roll's modifier: one
secret roll holds a die for every still-hidden feature of the map, in the order they were placed (the players
know how many there are, not where), so the roll tells nothing of how many the searched hex hides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import hexmap as mapev
from hexlog.events import travel as ev
from hexlog.events.dice import Visibility
from hexlog.machine.dice import MAX_DICE
from hexlog.machine.hexmap import hidden
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import Hex, MapState
from hexlog.machine.kit.context import read_low
from hexlog.machine.travel import commands as c
from hexlog.machine.travel import terrain
from hexlog.machine.travel.rules import SearchTable, TravelOptions, TravelTables
from hexlog.machine.travel.state import journey

if TYPE_CHECKING:
    from hexlog.machine.kit.context import StepContext

#: why a party that missed the landmark it expected learns it is lost (the move's own words, not the referee's)
MISSED_LANDMARK = "the party expected {landmark} and did not find it"


def the_map(ctx: StepContext) -> MapState:
    """The hex map drawn so far."""
    found = ctx.state(MAP)
    return found if isinstance(found, MapState) else MapState()


def here(ctx: StepContext) -> Hex:
    """The hex the party truly is in (a journey starts and moves only on the map)."""
    place = the_map(ctx).hex(journey(ctx).hex)
    assert place is not None  # noqa: S101 - the party only enters hexes of the map
    return place


def seen(ctx: StepContext) -> Hex:
    """The hex the party believes it is in, whose terrain decides what the players see (``terrain.seen``)."""
    place = terrain.seen(the_map(ctx), journey(ctx))
    assert place is not None  # noqa: S101 - the party only enters hexes of the map
    return place


def move(ctx: StepContext, command: c.Move) -> None:
    """Enter hexes along the route while the points pay for the next one (at most ``hexes``)."""
    moved = 0
    while (command.hexes is None or moved < command.hexes) and _enter_next(ctx, afloat=True):
        moved += 1


def move_one_hex(ctx: StepContext, command: c.MoveOneHex | c.MoveOneHexTrueCost) -> None:
    """One hex of a move, as the audit re-runs it at its ``travel.moved``: nothing when the party cannot enter it
    (before version 2 of the event, paying the true hex's cost)."""
    _enter_next(ctx, true_cost=isinstance(command, c.MoveOneHexTrueCost))


def _enter_next(ctx: StepContext, *, true_cost: bool = False, afloat: bool = False) -> bool:
    """Enter the next hex of the route if the points pay for it: what the party sees, where it truly is, and, lost,
    the landmark it expected and did not find. Whether it entered one. ``afloat``: a ship stops where the next hex is
    not water (a move the referee gives; the audit re-runs a recorded hex as its release made it)."""
    trip = journey(ctx)
    step = (terrain.next_step_true_cost if true_cost else terrain.next_step)(ctx.rules, the_map(ctx), trip)
    if not isinstance(step, terrain.Step):
        return False
    if afloat and terrain.aground(ctx.rules, the_map(ctx), trip) is not None:
        return False
    left = trip.tp - step.cost
    ctx.emit(ev.Moved(believed=step.believed, heading=step.heading, cost=step.cost, travel_points=left, led=step.led))
    place = the_map(ctx).hex(step.true_hex)
    assert place is not None  # noqa: S101 - next_step only offers hexes of the map
    astray = step.true_hex != step.believed
    ctx.emit(ev.TruePosition(hex=step.true_hex, terrain=place.terrain, lost=astray))
    expected = the_map(ctx).hex(step.believed)
    if astray and expected is not None and expected.landmarks:
        why = MISSED_LANDMARK.format(landmark=expected.landmarks[0])
        ctx.emit(ev.LostRevealed(hex=step.true_hex, reason=why))
    return True


def search(ctx: StepContext, command: c.SearchHex) -> None:
    """Spend the cost of the hex the party believes it is in again, then roll the search table in secret for the hex
    it truly is in; a success reveals a feature."""
    trip = journey(ctx)
    cost = terrain.search_cost(ctx.rules, seen(ctx))
    ctx.emit(ev.Searched(cost=cost, travel_points=trip.tp - cost, guide=command.guide))
    search_roll(ctx, c.SearchRoll(guide=command.guide))


def search_roll(ctx: StepContext, command: c.SearchRoll | c.SearchRollHexDice | c.SearchRollOpenFinds) -> None:
    """The secret search roll of a search whose points are spent (the audit re-runs this alone). Each find is told
    to the players without its hex, and located for the referee until the session ends, lost or not: the players'
    view is the same wherever the party truly stands (releases before ``travel.search_rolled`` version 3 opened a
    find in public unless the party was lost, and the audit re-runs those so)."""
    trip = journey(ctx)
    place = here(ctx)
    tables, options = ctx.part(TravelTables), ctx.part(TravelOptions)
    found: list[hidden.Hidden] = []
    nonces: list[int] = []
    per_feature = False
    if options.search_table is SearchTable.DVDM and tables.search is not None and tables.search.dvdm is not None:
        dvdm = tables.search.dvdm
        found_on = dvdm.feature
        if isinstance(command, c.SearchRollHexDice):
            for feature in hidden.in_hex(ctx, trip.hex) or (None,):
                rolled = ctx.roll("1d6", "travel.search", made_for="party", visibility=Visibility.REFEREE)
                nonces.append(rolled.nonce)
                faces = dvdm.lair if feature is not None and feature.lair else dvdm.feature
                if feature is not None and rolled.total in faces:
                    found.append(feature)
        else:
            per_feature = True
            count, held = hidden.unopened(ctx)
            read: list[int] = []
            for start in range(0, max(count, 1), MAX_DICE):
                dice = min(MAX_DICE, max(count, 1) - start)
                rolled = ctx.roll(f"{dice}d6", "travel.search", made_for="party", visibility=Visibility.REFEREE)
                nonces.append(rolled.nonce)
                read += [face + rolled.modifier for face in rolled.faces]
            for at, feature in sorted(held.items()):
                if feature.hex == trip.hex and read[at] in (dvdm.lair if feature.lair else dvdm.feature):
                    found.append(feature)
    else:
        unfound = hidden.in_hex(ctx, trip.hex)
        default = tables.search.default if tables.search is not None else None
        found_on = _default_range(ctx, place, command.guide)
        rolled = ctx.roll("1d6", "travel.search", made_for="party", visibility=Visibility.REFEREE, low_is_good=True)
        nonces.append(rolled.nonce)
        face = rolled.faces[0]
        read_as = min(max(read_low(rolled), 1), terrain.FACES)
        always = default.always if default is not None else ()
        if unfound and (face in always or read_as in found_on):
            found.append(unfound[0])
    ctx.emit(
        ev.SearchRolled(
            hex=trip.hex,
            found_on=found_on,
            found=tuple(f.feature for f in found),
            guide=command.guide,
            referee_rolls=tuple(nonces),
            per_feature=per_feature,
        )
    )
    _finds(
        ctx,
        found,
        lost=trip.hex != trip.believed,
        opened=isinstance(command, c.SearchRollHexDice | c.SearchRollOpenFinds),
    )


def _finds(ctx: StepContext, found: list[hidden.Hidden], *, lost: bool, opened: bool) -> None:
    """Each find told to the players and located for the referee; ``opened`` as releases before
    ``travel.search_rolled`` version 3 recorded it (in public, or held back when the party was ``lost``)."""
    if opened:
        ctx.emit(*(hidden.opening(feature, found=True, lost=lost) for feature in found))
        return
    for feature in found:
        ctx.emit(mapev.FeatureTold(feature=feature.feature, lair=feature.lair))
        ctx.emit(
            mapev.FeatureLocated(
                hex=feature.hex, feature=feature.feature, lair=feature.lair, salt=feature.salt, lost=lost
            )
        )


def _default_range(ctx: StepContext, place: Hex, guide: bool) -> tuple[int, ...]:  # noqa: FBT001 - a fact
    search = ctx.part(TravelTables).search
    if search is None or search.default is None:
        return ()
    table = search.default
    faces: tuple[int, ...] = getattr(table, terrain.difficulty(ctx.rules, place))
    if guide and faces:
        top = max(faces)
        faces = tuple(sorted(set(faces) | set(range(top + 1, min(terrain.FACES, top + table.guide_widen) + 1))))
    return faces


def forced_march(ctx: StepContext, command: c.ForceMarch) -> None:  # noqa: ARG001 - the step signature
    """+50 % of the day's points (the table's forced column); a rest day is owed from now."""
    trip = journey(ctx)
    points = ctx.part(TravelTables).travel_points
    assert points is not None  # noqa: S101 - a journey starts only with the tables
    normal, forced = points.per_day(trip.speed)
    added = forced - normal
    ctx.emit(ev.ForcedMarch(added=added, travel_points=trip.tp + added))
