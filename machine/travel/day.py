"""The steps that frame a travel day: setting out, the weather, the route and its secret lost check,
the wandering check at the day's end (handing an encounter off), the end of the day, rest and the end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import travel as ev
from hexlog.events.dice import Visibility
from hexlog.events.errors import UsageError
from hexlog.machine.chase import handover as chase
from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.encounter.commands import StartEncounter
from hexlog.machine.encounter.state import PROCEDURE as ENCOUNTER
from hexlog.machine.evasion import EvasionOptions
from hexlog.machine.hexmap import grid
from hexlog.machine.kit.clock import DAY_SECONDS, ClockOptions, Span
from hexlog.machine.pursuit import handover
from hexlog.machine.pursuit.state import PROCEDURE as PURSUIT
from hexlog.machine.travel import commands as c
from hexlog.machine.travel import exhaustion, moves, terrain
from hexlog.machine.travel.moves import here, the_map
from hexlog.machine.travel.rules import (
    AfloatRule,
    TravelOptions,
    TravelTables,
    WeatherTable,
    WildernessOptions,
    WildernessTables,
)
from hexlog.machine.travel.state import Phase, TravelState, journey, under_way

if TYPE_CHECKING:
    from hexlog.machine.hexmap.state import Hex
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.pursuit.commands import StartPursuit

SEASONS = ("spring", "summer", "autumn", "winter")
#: Dolmenwood's Speed is the combat rate: a third of the exploration rate in feet per turn (Speed 40 = 120 ft)
FEET_PER_TURN_PER_SPEED = 3
HOUR_SECONDS = 3600


def start(ctx: StepContext, command: c.StartJourney) -> None:
    """Set out: the slowest member's speed gives the day's travel points (§4.6); a delve, pursuit or chase under way
    is recorded, since no day it goes on in is rest."""
    if command.season not in SEASONS:
        msg = f"season must be one of {', '.join(SEASONS)}, not {command.season!r}"
        raise UsageError(msg)
    members = ctx.table.party.members
    speed = min(m.speed for m in members) // FEET_PER_TURN_PER_SPEED
    points = ctx.part(TravelTables).travel_points
    assert points is not None  # noqa: S101 - the start condition checks the tables
    ctx.emit(
        ev.JourneyStarted(
            hex=grid.normal(command.hex),
            season=command.season,
            party=tuple(m.name for m in members),
            speed=speed,
            travel_points=points.per_day(speed)[0],
            afloat=command.afloat,
            mounted=command.mounted,
            vehicles=command.vehicles,
            exerting=under_way(ctx),
        )
    )


def weather(ctx: StepContext, command: c.RollWeather | c.RollWeatherPastCamp | c.RollWeatherUntimed) -> None:
    """Start the day at the rules' hour (the clock runs on to it), then exhaustion, then the weather (2d6 on the
    season's column, or the referee's); the day records when it started (an older release's, re-run, none)."""
    _to_day_start(ctx)
    trip = journey(ctx)
    travellers = tuple(m.name for m in ctx.table.party.members)
    exhaustion.at_day_start(ctx, trip, travellers)
    name, flags, total, rolls = _weather(ctx, trip, command.weather)
    effects = ctx.part(TravelTables).weather_effects
    impeded = effects.impeded_tp if effects is not None and "impeded" in flags else 0
    points = max(0, trip.base_tp + impeded + trip.carried)
    ctx.emit(
        ev.DayStarted(
            day=trip.day + 1,
            travellers=travellers,
            weather=name,
            flags=flags,
            total=total,
            travel_points=points,
            rolls=rolls,
            at_seconds=_started_at(ctx, command),
        )
    )


def _started_at(ctx: StepContext, command: object) -> int:
    """When a day starts, as its start records it: now, or -1 for a day an older release started (``UNTIMED``)."""
    return -1 if isinstance(command, c.UNTIMED) else ctx.table.clock.seconds


def _weather(ctx: StepContext, trip: TravelState, given: str) -> tuple[str, tuple[str, ...], int, tuple[int, ...]]:
    """The day's weather, before anything else: the referee's, or 2d6 on the season's column (its name, its flags,
    the total and the roll; 0 and none when given)."""
    tables = ctx.part(TravelTables)
    flags_of = ctx.part(WildernessTables).weather_flags or {}
    rolls: tuple[int, ...] = ()
    total = 0
    if given:
        name = given
        if name not in flags_of:
            msg = f"weather {name!r} is not in tables.weather_flags: {', '.join(flags_of)}"
            raise UsageError(msg)
    else:
        which = ctx.part(TravelOptions).weather_table
        table = tables.weather.fallback if which is WeatherTable.FALLBACK else tables.weather.custom  # type: ignore[union-attr]
        if not table:
            msg = (
                f"the weather table {which} is empty; fill tables.weather.{which}, or name the day's weather instead "
                "(travel weather --set NAME; simulate travel --weather NAME)"
            )
            raise UsageError(msg)
        rolled = ctx.roll("2d6", "travel.weather")
        rolls, total = (rolled.nonce,), rolled.total
        row = max((r for r in table if r.at_least <= total), key=lambda r: r.at_least, default=table[0])
        name = getattr(row, trip.season)
    return name, tuple(flags_of.get(name, ())), total, rolls


def route(ctx: StepContext, command: c.DeclareRoute) -> None:
    """Record the route, then the referee's secret lost check and the die of the true heading, which decides it when
    the party is lost (§4.12): rolled every day, so that its secret roll does not tell the players they are lost.
    The check reads the row of the hex the party is in under the source in force, widened by fog or a blizzard and
    by darkness (§4.7, A20), a road's included."""
    _route(ctx, command.headings, night=command.night, heading_always=True)


def route_heading_when_lost(ctx: StepContext, command: c.DeclareRouteHeadingWhenLost) -> None:
    """A route as releases before ``travel.lost_checked`` version 2 recorded it: the heading's die rolled only when
    the party was lost, and a road never lost (the audit re-runs such a route with this)."""
    _route(ctx, command.headings, night=command.night, heading_always=False, road_never_lost=True)


def route_road_never_lost(ctx: StepContext, command: c.DeclareRouteRoadNeverLost) -> None:
    """A route as releases before ``travel.lost_checked`` version 3 recorded it: a party on a road hex read Dolmenwood's
    road row under either source, and its empty range stayed empty in fog and darkness (the audit re-runs such a
    route with this)."""
    _route(ctx, command.headings, night=command.night, heading_always=True, road_never_lost=True)


def _route(
    ctx: StepContext, declared: tuple[str, ...], *, night: bool, heading_always: bool, road_never_lost: bool = False
) -> None:
    trip = journey(ctx)
    headings = tuple(grid.heading(h) for h in declared)
    ctx.emit(ev.RouteDeclared(headings=headings, night=night))
    place = here(ctx)
    name, chances = (terrain.road_row if road_never_lost else terrain.row)(ctx.rules, place)
    lost_on = terrain.lost_range(ctx.rules, chances.lost, trip.weather, trip.flags, night=night)
    if road_never_lost and not chances.lost:
        lost_on = ()  # before version 3 an empty range stayed empty whatever the weather or the darkness
    rolled = ctx.roll("1d6", "travel.lost", made_for="party", visibility=Visibility.REFEREE)
    lost = terrain.is_lost(rolled.total, lost_on)
    nonces: tuple[int, ...] = (rolled.nonce,)
    heading = headings[0] if headings else ""
    true = headings
    table = ctx.part(TravelTables).lost_direction
    if lost or (heading_always and table is not None):
        faces = table.faces  # type: ignore[union-attr]
        direction = ctx.roll(f"1d{len(faces)}", "travel.lost.heading", visibility=Visibility.REFEREE)
        nonces = (*nonces, direction.nonce)
        if lost:
            heading = grid.heading(faces[direction.faces[0] - 1])
            true = terrain.true_route(headings, heading)
    ctx.emit(
        ev.LostChecked(
            row=name,
            lost_on=lost_on,
            lost=lost,
            heading=heading,
            true_route=true,
            declared=headings,
            night=night,
            referee_rolls=nonces,
        )
    )


def check(ctx: StepContext, command: c.CheckWandering) -> None:  # noqa: ARG001 - the step signature
    """The wandering check at the day's end (§4.12; afloat §4.7), the clock run on to it first; an encounter is handed
    off. The check is rolled in public, so it reads the row of the hex the party believes it is in: a lost party's
    true hex would tell the players its terrain. A ship continuously afloat meets a waterborne encounter on the seed's
    1-in-6 (§2.9: the vessels' evasion and the chase on water follow); under U&WA's two dice (``odd_two_dice``) the
    first die calls a waterborne encounter and the second a normal one, and when both call one the day meets both,
    the waterborne one first and the normal one once it concludes (``resumed`` hands it off); U&WA sets the
    waterborne one at midday, but both dice are rolled at the day's end, and it is met there."""
    _check(ctx, moves.seen(ctx))


def check_true_hex(ctx: StepContext, command: c.CheckWanderingTrueHex) -> None:  # noqa: ARG001 - the step signature
    """A wandering check as releases before ``travel.wandering_checked`` version 2 made it: on the row of the party's
    true hex, and a ship's encounter on the seed's rule set in the wilderness (the audit re-runs such a check with
    this; it takes the day on to dusk as ``check`` does)."""
    _check(ctx, here(ctx), follow=True, afloat_on_land=True, both=False)


def check_afloat_on_land(ctx: StepContext, command: c.CheckWanderingAfloatOnLand) -> None:  # noqa: ARG001 - the step signature
    """A wandering check as releases before ``travel.wandering_checked`` version 3 made it: a ship's encounter on the
    seed's 1-in-6 set in the wilderness (the audit re-runs such a check with this; it takes the day on to dusk as
    ``check`` does)."""
    _check(ctx, moves.seen(ctx), follow=True, afloat_on_land=True, both=False)


def check_one_afloat(ctx: StepContext, command: c.CheckWanderingOneAfloat) -> None:  # noqa: ARG001 - the step signature
    """A wandering check as releases before ``travel.wandering_checked`` version 4 made it: when both of U&WA's two
    dice afloat called an encounter, the waterborne one alone was met (the audit re-runs such a check with this; it
    takes the day on to dusk as ``check`` does)."""
    _check(ctx, moves.seen(ctx), follow=True, both=False)


def _check(
    ctx: StepContext, place: Hex, *, follow: bool = False, afloat_on_land: bool = False, both: bool = True
) -> None:
    """``both``: when U&WA's two dice afloat both call an encounter, the day meets the second die's too (version 4).
    First the clock runs on to the day's end (``_to_day_end``)."""
    _to_day_end(ctx)
    trip = journey(ctx)
    options, tables = ctx.part(TravelOptions), ctx.part(TravelTables)
    setting = "wilderness"
    second = ""
    if trip.afloat and tables.afloat is not None:
        name = f"afloat ({options.afloat_rule})"
        if options.afloat_rule is AfloatRule.SEED:
            on = tables.afloat.seed_encounter
            rolled = [ctx.roll("1d6", "travel.wandering")]
            meet = rolled[0].total in on
            setting = setting if afloat_on_land else "waterborne"
        else:
            on = tables.afloat.odd_second_die_normal
            rolled = [ctx.roll("1d6", "travel.wandering.waterborne"), ctx.roll("1d6", "travel.wandering")]
            waterborne = rolled[0].total in tables.afloat.odd_first_die_waterborne
            normal = rolled[1].total in on
            meet = waterborne or normal
            second = setting if waterborne and normal and both else ""
            setting = "waterborne" if waterborne else setting
    else:
        name, chances = terrain.row(ctx.rules, place)
        on = chances.encounter
        rolled = [ctx.roll("1d6", "travel.wandering")]
        meet = rolled[0].total in on
    divisor = _distance_divisor(ctx, trip)
    ctx.emit(
        ev.WanderingChecked(
            row=name,
            encounter_on=on,
            encounter=meet,
            setting=setting,
            distance_divisor=divisor,
            rolls=tuple(r.nonce for r in rolled),
            second=second,
        )
    )
    if follow:
        ctx.follow("check")
    if meet:
        ctx.hand_off(
            StartEncounter(setting=setting, name=f"day {trip.day}: wandering monsters", distance_divisor=divisor)
        )


def _distance_divisor(ctx: StepContext, trip: TravelState) -> int:
    """What the day's poor visibility divides an encounter's distance by (1: no change)."""
    effects = ctx.part(TravelTables).weather_effects
    return effects.poor_visibility_distance_divisor if effects is not None and "poor_visibility" in trip.flags else 1


def resumed(ctx: StepContext, command: object) -> None:
    """A procedure the day handed off to concluded: the day takes up where it was, ready to end.

    An encounter in the wilderness that ends with the party pursued hands off the pursuit with the
    encounter's facts (§4.14); each encounter rolled while the party rested after it is handed off in turn. A
    waterborne encounter that ends in pursuit hands off the chase on water (the vessels' evasion, OSE §2.9),
    as a delve hands off its chase underground. Once all that is over, the day's second encounter (both of U&WA's
    two dice afloat called one: the second die's, at the day's end) is handed off.
    """
    child = getattr(command, "child", "")
    if child == ENCOUNTER:
        found = pursuit_after(ctx) or chase.afloat(ctx.state(ENCOUNTER), ctx.part(ChaseTables))
        if found is not None:
            ctx.hand_off(found)
            return
    # an encounter the rest after an escape met concluded: the next one it met, if any
    if child in {ENCOUNTER, PURSUIT} and _after_pursuit(ctx, child):
        return
    _second_encounter(ctx)


def pursuit_after(ctx: StepContext) -> StartPursuit | None:
    """The pursuit an encounter that ended in the party's pursuit hands over (None: no such end)."""
    return handover.from_encounter(ctx.state(ENCOUNTER), ctx.part(EvasionOptions).evasion_rules)


def _after_pursuit(ctx: StepContext, child: str) -> bool:
    """An encounter rolled while the party rested after the pursuit, and not yet begun, is handed off (each in turn,
    as the one before concludes); whether one was."""
    if not handover.rest_encounter_due(ctx.table.procedures, child):
        return False
    trip = journey(ctx)
    ctx.hand_off(StartEncounter(setting="wilderness", name=f"day {trip.day}: wandering monsters while resting"))
    return True


def _second_encounter(ctx: StepContext) -> None:
    """The day's second encounter, once the first and all that followed it concluded: the check met it and the day
    has not handed it off yet."""
    trip = journey(ctx)
    if not trip.meets:
        return
    ctx.hand_off(
        StartEncounter(
            setting=trip.meets[0],
            name=f"day {trip.day}: wandering monsters at the day's end",
            distance_divisor=_distance_divisor(ctx, trip),
        )
    )


def _to_day_start(ctx: StepContext) -> None:
    """A travel day starts at the rules' hour (``day_start_hour``): before it, the clock runs on to it."""
    hour = ctx.part(ClockOptions).day_start_hour
    into = ctx.table.clock.seconds % DAY_SECONDS
    if into < hour * HOUR_SECONDS:
        ctx.advance(Span(seconds=hour * HOUR_SECONDS - into), reason=f"the travel day starts at {hour:02d}:00")


def _day_kind(trip: TravelState) -> str:
    return f"{'rest' if trip.rest else 'travel'} day {trip.day}"


def day_end(ctx: StepContext, trip: TravelState) -> int | None:
    """When the day under way ends, in seconds since the campaign began: the rules' hour (``day_end_hour``) of the day
    it started; None for a day whose start recorded no time (``travel.day_started`` before version 5)."""
    start = trip.day_started_at
    if start < 0:
        return None
    return start - start % DAY_SECONDS + ctx.part(TravelOptions).day_end_hour * HOUR_SECONDS


def hour_text(seconds: int) -> str:
    """An hour of the day in words: ``midnight``, ``20:00``."""
    into = seconds % DAY_SECONDS
    return "midnight" if not into else f"{into // HOUR_SECONDS:02d}:{into % HOUR_SECONDS // 60:02d}"


def _to_day_end(ctx: StepContext) -> None:
    """The day's wandering check falls at its end (§4.12, ``day_end``): the clock runs on to it first, unless it is
    past it already (a day started late). A day whose start recorded no time runs no clock here."""
    trip = journey(ctx)
    end = day_end(ctx, trip)
    now = ctx.table.clock.seconds
    if end is not None and now < end:
        ctx.advance(Span(seconds=end - now), reason=f"{_day_kind(trip)} goes on until {hour_text(end)}, its end")


def _to_next_day(ctx: StepContext, reason: str) -> None:
    seconds = ctx.table.clock.seconds
    ctx.advance(Span(seconds=DAY_SECONDS - seconds % DAY_SECONDS), reason=reason)


def end_day(ctx: StepContext, command: c.EndDay) -> None:  # noqa: ARG001 - the step signature
    """The day ends: unused points are lost, or with ``carry_partial_hex`` those spent on an unfinished hex count next
    day (A22: the points left when the next hex of the route costs more); the clock runs on to the next day: to the
    midnight after the day's start, unless it is past it already (an encounter after the check ran on), or, for a day
    whose start recorded no time (before ``travel.day_started`` version 5), to the next midnight. A rest day ends so
    too, once its wandering check is made, and its rest is recorded as it ends (after the day's end, before the clock
    runs on), unless a delve, a pursuit or a chase was under way in it (A28: a day with one is no rest; the rest after
    an escape, once it adds up to a full day, counts on its own) or its rest is recorded already (a rest day of
    ``travel.day_started`` version 5 recorded it as it started)."""
    trip = journey(ctx)
    options = ctx.part(TravelOptions)
    carried = terrain.unfinished(ctx.rules, the_map(ctx), trip) if options.carry_partial_hex else 0
    ctx.emit(
        ev.DayEnded(
            day=trip.day,
            hexes=trip.hexes_today,
            unused=trip.tp - carried,
            carried=carried,
            night_check=ctx.part(WildernessOptions).night_encounter_check,
        )
    )
    if trip.rest_due and not trip.exerted:
        exhaustion.rest_day(ctx, journey(ctx), day=trip.day)
    start = trip.day_started_at
    if start < 0:
        _to_next_day(ctx, f"{_day_kind(trip)} ends")
        return
    midnight = start - start % DAY_SECONDS + DAY_SECONDS
    now = ctx.table.clock.seconds
    if now < midnight:
        ctx.advance(Span(seconds=midnight - now), reason=f"{_day_kind(trip)} ends")


def rest(
    ctx: StepContext,
    command: c.RestDay | c.RestDayWhileExerting | c.RestDayPastCamp | c.RestDayWithoutCheck | c.RestDayRestedAtStart,
) -> None:
    """A full rest day (§4.16): it starts as every day does, at the rules' hour with its weather (rolled, or the
    referee's), recorded as a day of rest (nobody travels, no travel points). During a journey the day ends as a
    travel day does (§4.12: a wandering check at the end of each day): the check comes next (``travel check``, an
    encounter handed off on a hit), then ``travel end-day``, which records the rest (exhaustion and the owed rest
    cleared) unless a delve, a pursuit or a chase was under way in the day (A28: such a day is no rest), and runs the
    clock on to the next day. After the journey has ended there is no check: the rest is recorded at once, and the
    clock runs on to the next day. (The guard refuses it while a delve, pursuit or chase is under way; the audit
    re-runs one an older release let be with ``RestDayWhileExerting``, which no guard refuses, one before
    ``travel.day_started`` version 5, which had no check at its end, with the commands of ``REST_WITHOUT_CHECK``, and
    one of version 5, which recorded its rest as it started, with ``RestDayRestedAtStart``.)"""
    _to_day_start(ctx)
    trip = journey(ctx)
    name, flags, total, rolls = _weather(ctx, trip, command.weather)
    day = trip.day + 1
    at = _started_at(ctx, command)
    ctx.emit(
        ev.DayStarted(
            day=day, travellers=(), weather=name, flags=flags, total=total, rolls=rolls, rest=True, at_seconds=at
        )
    )
    as_before = isinstance(command, c.REST_WITHOUT_CHECK)
    if as_before or trip.phase is Phase.ENDED or isinstance(command, c.RESTED_AT_START):
        exhaustion.rest_day(ctx, journey(ctx), day=day)
    if as_before or trip.phase is Phase.ENDED:
        _to_next_day(ctx, "a full day of rest")
    if not isinstance(command, c.RestDay):  # the audit's re-run fires no trigger of its own: it takes the day on
        ctx.follow("rest")


def reveal_lost(ctx: StepContext, command: c.RevealLost) -> None:
    """The party learns it is lost, and where it truly is."""
    ctx.emit(ev.LostRevealed(hex=journey(ctx).hex, reason=command.reason))


def finish(ctx: StepContext, command: c.EndJourney) -> None:  # noqa: ARG001 - the step signature
    """The journey ends where the party truly is, now, named in public: a lost party, or one that fled not knowing
    which way, then knows where it is. A full day after it counts as a rest day (``exhaustion``)."""
    trip = journey(ctx)
    ctx.emit(ev.JourneyEnded(hex=trip.hex, days=trip.day, at_seconds=ctx.table.clock.seconds))


__all__ = [
    "check",
    "check_afloat_on_land",
    "check_one_afloat",
    "check_true_hex",
    "end_day",
    "finish",
    "rest",
    "resumed",
    "reveal_lost",
    "route",
    "route_heading_when_lost",
    "route_road_never_lost",
    "start",
    "the_map",
    "weather",
]
