"""The inverse audit uses: the command that made a recorded travel decision.

Only what the referee typed is taken from the record (the declared route and night, a guide); the
step decides the rest again from the recorded rolls: the weather (of a rest day too), the lost check and
the true heading, the search, the wandering check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import hexmap as mapev
from hexlog.events import travel as ev
from hexlog.events.errors import Advice, RuleRefusedError
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.kit.hand import told
from hexlog.machine.kit.procedure import Inverse
from hexlog.machine.kit.rules import RulesError
from hexlog.machine.travel import terrain
from hexlog.machine.travel.commands import (
    CheckWandering,
    CheckWanderingAfloatOnLand,
    CheckWanderingOneAfloat,
    CheckWanderingTrueHex,
    DeclareRoute,
    DeclareRouteHeadingWhenLost,
    DeclareRouteRoadNeverLost,
    EndDay,
    ForceMarch,
    MoveOneHex,
    MoveOneHexTrueCost,
    RestDay,
    RestDayPastCamp,
    RestDayRestedAtStart,
    RestDayWhileExerting,
    RestDayWithoutCheck,
    RollWeather,
    RollWeatherPastCamp,
    RollWeatherUntimed,
    SearchRoll,
    SearchRollHexDice,
    SearchRollOpenFinds,
)
from hexlog.machine.travel.day import FEET_PER_TURN_PER_SPEED, day_end, hour_text
from hexlog.machine.travel.moves import MISSED_LANDMARK
from hexlog.machine.travel.rules import TravelTables
from hexlog.machine.travel.state import EXERTION, PROCEDURE, TravelState, under_way

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.kit.hand import Fact
    from hexlog.machine.table import Table

#: the fields of a decision that the referee typed, by decision type
TYPED: dict[type[Event], frozenset[str]] = {
    ev.LostChecked: frozenset({"declared", "night"}),
    ev.SearchRolled: frozenset({"guide"}),
}


#: the steps no dice decide that the audit re-runs at their event all the same (``Inverse.reruns``): one hex of a move
#: (where a lost party truly went), a forced march, the day's end
RERUNS: dict[type[Event], type[Command]] = {ev.Moved: MoveOneHex, ev.ForcedMarch: ForceMarch, ev.DayEnded: EndDay}


def command_for(event: Event) -> Command | None:
    """The command that made a recorded decision (None: not a dice-driven decision of the travel day), or re-runs a
    step no dice decide (``RERUNS``)."""
    if type(event) in RERUNS:
        return RERUNS[type(event)]()
    match event:
        case ev.DayStarted(rolls=rolls):  # the referee's weather is taken from the record
            weather = "" if rolls else event.weather
            return RestDay(weather=weather) if event.rest else RollWeather(weather=weather)
        case ev.LostChecked():
            return DeclareRoute(headings=event.declared, night=event.night)
        case ev.SearchRolled():
            return SearchRoll(guide=event.guide)
        case ev.WanderingChecked():
            return CheckWandering()
    return None


#: the facts of a journey's start the referee may type (``travel start --season --afloat --mounted --vehicles``), each
#: with what it records untyped and its words: the weather's column, the wandering check and the moves read them
STARTED: tuple[Fact, ...] = (
    ("season", "summer", lambda season: f"in {season}"),
    ("afloat", False, lambda _: "afloat"),
    ("mounted", False, lambda _: "mounted"),
    ("vehicles", False, lambda _: "with carts or wagons"),
)


def by_hand(event: Event, ctx: StepContext) -> str | None:
    """What the referee decided by hand in a travel event, in words (None: nothing)."""
    match event:
        case ev.JourneyStarted():
            said = told(event, STARTED)
            if said:
                return (
                    f"the journey set out from {event.hex} by the referee's word: {', '.join(said)} (the weather's "
                    "column, the wandering check and the moves read them)"
                )
        case ev.DayStarted(rolls=()):
            rest = " (a rest day)" if event.rest else ""
            return f"the weather of day {event.day}{rest} set by the referee ({event.weather}) instead of rolled"
        case ev.LostRevealed() if not _missed_landmark(event, ctx):  # a missed landmark tells the party itself
            return f"the party told it is lost ({event.reason})"
        case ev.RouteDeclared(night=True):
            route = " ".join(event.headings)
            return f"the route {route} declared travelled in darkness (the lost check's range grows)"
        case ev.Searched(guide=True):
            return "a search declared helped by a local guide (the search's range widens)"
    return None


def _missed_landmark(event: ev.LostRevealed, ctx: StepContext) -> bool:
    """Whether a reveal is a move's own: the party, astray, stands in its true hex believing itself in a hex whose
    landmark it did not find, and the reveal says so in the move's words. A move reveals it there at once, so the
    referee's ``reveal-lost`` never meets that state, whatever its reason says."""
    trip = ctx.state(PROCEDURE)
    if not isinstance(trip, TravelState) or not trip.lost or trip.hex == trip.believed or event.hex != trip.hex:
        return False
    expected = ctx.table.procedures.get(MAP)
    place = expected.hex(trip.believed) if isinstance(expected, MapState) else None
    landmarks = place.landmarks if place is not None else ()
    return bool(landmarks) and event.reason == MISSED_LANDMARK.format(landmark=landmarks[0])


def unsure(event: Event, hidden: Sequence[tuple[str, str] | None]) -> bool:
    """Whether a search may have been decided by a feature hidden at the time that the log never opens (``hidden``:
    the features still hidden then, in the order they were placed, each ``(hex, feature)`` or None where never
    opened). One that found nothing may have missed it, as may one of several rolls (the dvdm table rolls for
    every feature of the hex, or since version 2 one die for every hidden feature of the map). One roll that found
    a feature found the first feature of its hex still hidden: only one placed before it can have been found
    instead, so one never opened placed after it changed nothing."""
    if not isinstance(event, ev.SearchRolled):
        return False
    if not event.found or event.per_feature or len(event.rolls) + len(event.referee_rolls) > 1:
        return True
    for feature in hidden:
        if feature is None:
            return True
        if feature == (event.hex, event.found[0]):
            return False
    return True


#: the schema version of ``travel.lost_checked`` since which the true heading's die is rolled every day
HEADING_EVERY_DAY_SINCE = 2
#: the schema version of ``travel.lost_checked`` since which each source reads a road its own way (and fog and
#: darkness raise a road's lost chance)
ROAD_BY_SOURCE_SINCE = 3
#: the schema version of ``travel.search_rolled`` since which the dvdm table rolls a die for every hidden feature
MAP_DICE_SINCE = 2
#: the schema version of ``travel.search_rolled`` since which a find is told without its hex and located in secret
FINDS_KEPT_SINCE = 3
#: the schema version of ``travel.wandering_checked`` since which the check reads the hex the party believes it is in
BELIEVED_HEX_SINCE = 2
#: the schema version of ``travel.wandering_checked`` since which a ship's encounter on the seed's rule is waterborne
AFLOAT_WATERBORNE_SINCE = 3
#: the schema version of ``travel.wandering_checked`` since which a ship whose two dice both call an encounter meets
#: both
BOTH_DICE_SINCE = 4
#: the schema version of ``travel.moved`` since which a lost party pays the cost of the hex it believes it enters
BELIEVED_COST_SINCE = 2
#: the schema version of ``travel.day_started`` since which a rest day is never taken while a delve, a pursuit or a
#: chase is under way
NO_REST_WHILE_EXERTING_SINCE = 3
#: the schema version of ``travel.day_started`` since which a day (of travel or rest) never starts while a camp's
#: night is not over
NIGHT_FIRST_SINCE = 4
#: the schema version of ``travel.day_started`` since which a rest day during a journey ends with the day's wandering
#: check (before it, the clock ran on to the next day at once), and a day records when it started, its check running
#: the clock on to the day's end
REST_DAY_CHECKED_SINCE = 5
#: the schema version of ``travel.day_started`` since which a rest day during a journey records its rest at the day's
#: end, and none when a delve, a pursuit or a chase was under way in it
REST_AT_DAY_END_SINCE = 6


def command_before(event: Event, version: int) -> Command | None:
    """The command that made a decision recorded at an earlier schema version of its event: a lost check before
    ``travel.lost_checked`` version 2 rolled the heading's die only when the party was lost, and one before version
    3 read a road hex as Dolmenwood's road whatever the source, never lost in fog or darkness; a search before
    ``travel.search_rolled`` version 2 rolled the dvdm table's dice for the searched hex's features alone, one before
    version 3 opened a find in public unless the party was lost, and a
    wandering check before ``travel.wandering_checked`` version 2 read the row of the party's true hex, and one
    before version 3 set a ship's encounter on the seed's 1-in-6 in the wilderness, and one before version 4 met the
    waterborne encounter alone when both of U&WA's two dice afloat called one; a rest day before
    ``travel.day_started`` version 3 was let be while a delve, a pursuit or a chase went on, and a day (of travel or
    rest) before version 4 while a camp's night was not over, and a rest day before version 5 ran the clock on to the
    next day at once, with no wandering check at its end, and a day before version 5 kept no time of its start, and a
    rest day before version 6 recorded its rest as it started, whatever the day held after it; and a move before
    ``travel.moved`` version 2 paid the true hex's cost."""
    if isinstance(event, ev.LostChecked) and version < ROAD_BY_SOURCE_SINCE:
        route = DeclareRouteHeadingWhenLost if version < HEADING_EVERY_DAY_SINCE else DeclareRouteRoadNeverLost
        return route(headings=event.declared, night=event.night)
    if isinstance(event, ev.SearchRolled) and version < FINDS_KEPT_SINCE:
        return (SearchRollHexDice if version < MAP_DICE_SINCE else SearchRollOpenFinds)(guide=event.guide)
    if isinstance(event, ev.WanderingChecked) and version < BOTH_DICE_SINCE:
        return _check_before(version)
    if isinstance(event, ev.Moved) and version < BELIEVED_COST_SINCE:
        return MoveOneHexTrueCost()
    if isinstance(event, ev.DayStarted) and version < (REST_AT_DAY_END_SINCE if event.rest else REST_DAY_CHECKED_SINCE):
        return _day_before(event, version)
    return command_for(event)


def _day_before(event: ev.DayStarted, version: int) -> Command:
    """A day (of travel or rest) as the release that recorded ``travel.day_started`` at ``version`` started it."""
    weather = "" if event.rolls else event.weather
    if not event.rest:
        return (RollWeatherPastCamp if version < NIGHT_FIRST_SINCE else RollWeatherUntimed)(weather=weather)
    if version < NO_REST_WHILE_EXERTING_SINCE:
        return RestDayWhileExerting(weather=weather)
    if version >= REST_DAY_CHECKED_SINCE:
        return RestDayRestedAtStart(weather=weather)
    return (RestDayPastCamp if version < NIGHT_FIRST_SINCE else RestDayWithoutCheck)(weather=weather)


def _check_before(version: int) -> Command:
    """The wandering check as the release that recorded ``travel.wandering_checked`` at ``version`` made it."""
    if version < BELIEVED_HEX_SINCE:
        return CheckWanderingTrueHex()
    return CheckWanderingAfloatOnLand() if version < AFLOAT_WATERBORNE_SINCE else CheckWanderingOneAfloat()


#: the schema version of ``travel.started`` since which it records the delves, pursuits and chases under way
EXERTING_SINCE = 2


def derived(ctx: StepContext, event: Event, version: int) -> str | None:
    """How a journey's start differs from the state before it: the delves, pursuits and chases it records under way
    (since ``travel.started`` version 2; before it, none was recorded) are those the log has under way there. A
    search's cost and the points it leaves are the rules' (``_searched``). A find's place is the hex the party truly
    searched, and it was lost when that is not the one it believed. A day ends only once every encounter its
    wandering check met was met: the second of U&WA's two dice afloat too. A day's wandering check is rolled at its
    end."""
    if isinstance(event, mapev.FeatureLocated | ev.DayEnded):
        return _located(ctx, event) if isinstance(event, mapev.FeatureLocated) else _unmet(ctx)
    if isinstance(event, ev.WanderingChecked):
        return _before_day_end(ctx)
    if isinstance(event, ev.JourneyEnded):
        return _ended(ctx, event, version)
    if isinstance(event, ev.Searched):
        return _searched(ctx, event, version)
    if not isinstance(event, ev.JourneyStarted):
        return None
    said = _set_out(ctx, event)
    found = under_way(ctx)
    if version >= EXERTING_SINCE and event.exerting != found:
        said.append(f"exerting {_names(event.exerting)} recorded, but {_names(found)} under way here")
    return "; ".join(said) or None


def _set_out(ctx: StepContext, event: ev.JourneyStarted) -> list[str]:
    """The party a journey sets out with, its slowest member's speed and the travel points a day that gives: a party
    forged faster covers more hexes a day, and every move after it is re-run on the forged speed."""
    members = ctx.table.party.members
    if not members:
        return ["a journey set out with a party that has no members"]
    speed = min(m.speed for m in members) // FEET_PER_TURN_PER_SPEED
    said = []
    if event.party != tuple(m.name for m in members):
        said.append(f"party {_names(event.party)} recorded, but the party is {_names([m.name for m in members])}")
    if event.speed != speed:
        said.append(f"speed {event.speed} recorded, but the party's slowest member gives {speed}")
    try:
        points = ctx.part(TravelTables).travel_points
    except RulesError:  # rules an earlier build accepted and this one refuses: the speed is still held
        return said
    if points is not None and event.travel_points != points.per_day(event.speed)[0]:
        given = points.per_day(event.speed)[0]
        said.append(f"travel_points {event.travel_points} recorded, but speed {event.speed} gives {given}")
    return said


#: the schema versions of ``travel.ended`` since which it records when the journey ended, and since which a delve's,
#: a pursuit's or a chase's day after it is no rest (every release since writes it true)
ENDED_AT_SINCE, EXERTION_SINCE = 2, 3


def _ended(ctx: StepContext, event: ev.JourneyEnded, version: int) -> str | None:
    """A journey ends where the party truly is, after the days it counted, at the time on the clock (version 2), and
    a day of exertion after it is no rest (version 3): the rest day it owes falls due from these, so a journey's end
    forged earlier, or read as letting a day in a delve count as rest, would clear the rest it owes too soon."""
    trip = ctx.state(PROCEDURE)
    if not isinstance(trip, TravelState):
        return None  # no journey under way: the procedure audit names the transition
    said = [
        f"{name} {recorded} recorded, but the rules give {given}"
        for name, recorded, given, since in (
            ("hex", event.hex, trip.hex, 1),
            ("days", event.days, trip.day, 1),
            ("at_seconds", event.at_seconds, ctx.table.clock.seconds, ENDED_AT_SINCE),
            ("exertion_breaks_rest", event.exertion_breaks_rest, True, EXERTION_SINCE),
        )
        if version >= since and recorded != given
    ]
    return "; ".join(said) or None


#: the schema version of ``travel.searched`` since which a search costs the hex the party believes it is in
SEARCH_BELIEVED_SINCE = 2


def _searched(ctx: StepContext, event: ev.Searched, version: int) -> str | None:
    """A search spends the search cost of the hex the party believes it is in (before version 2, of the hex it truly
    is in) from the day's points: no one types it, and a cost forged lower, or points forged higher, would let the
    party search and travel further that day than the rules do."""
    trip = ctx.state(PROCEDURE)
    found = ctx.state(MAP)
    if not isinstance(trip, TravelState) or not isinstance(found, MapState):
        return None  # no journey under way: the procedure audit names the transition
    place = terrain.seen(found, trip) if version >= SEARCH_BELIEVED_SINCE else found.hex(trip.hex)
    if place is None:
        return None
    try:
        cost = terrain.search_cost(ctx.rules, place)
    except RulesError:  # rules an earlier build accepted and this one refuses
        return None
    said = [
        f"{name} {recorded} recorded, but the rules give {given}"
        for name, recorded, given in (
            ("cost", event.cost, cost),
            ("travel_points", event.travel_points, trip.tp - cost),
        )
        if recorded != given
    ]
    return "; ".join(said) or None


def _before_day_end(ctx: StepContext) -> str | None:
    """A day's wandering check is rolled at its end (since ``travel.day_started`` version 5, which records when the
    day started): a check forged in with the clock before it, the time it ran on taken out, would set the encounter,
    a pursuit after it and the night's camp at the day's start."""
    trip = ctx.state(PROCEDURE)
    if not isinstance(trip, TravelState):
        return None
    end = day_end(ctx, trip)
    now = ctx.table.clock.seconds
    if end is None or now >= end:
        return None
    return f"the day's wandering check is rolled at its end ({hour_text(end)}), but the clock shows {hour_text(now)}"


def _unmet(ctx: StepContext) -> str | None:
    trip = ctx.state(PROCEDURE)
    if not isinstance(trip, TravelState) or not trip.meets:
        return None
    return f"the day ends, but the {' and '.join(trip.meets)} encounter its wandering check met was never handed off"


def _located(ctx: StepContext, event: mapev.FeatureLocated) -> str | None:
    trip = ctx.state(PROCEDURE)
    if not isinstance(trip, TravelState):
        return "a find recorded with no journey under way"
    lost = trip.hex != trip.believed
    if (event.hex, event.lost) == (trip.hex, lost):
        return None
    return f"the find is recorded in {event.hex}, lost={event.lost}; the party searched {trip.hex}, lost={lost}"


def follows_only(event: Event) -> bool:
    """A find is recorded only right after the search that made it: told, then located (or, before
    ``travel.search_rolled`` version 3, opened in public or held back); and where the party truly is, only right
    after the move (or the flight) that took it there."""
    return isinstance(event, (*mapev.FINDS, mapev.FeatureTold, ev.TruePosition))


def _names(names: Sequence[str]) -> str:
    return "[" + ", ".join(f'"{name}"' for name in names) + "]"


INVERSE = Inverse(
    command_for=command_for,
    typed=TYPED,
    by_hand=by_hand,
    unsure=unsure,
    command_before=command_before,
    derived=derived,
    follows_only=follows_only,
    decides={
        "weather": (ev.DayStarted,),
        "route": (ev.LostChecked,),
        "search": (ev.SearchRolled,),
        "check": (ev.WanderingChecked,),
    },
    reruns=frozenset(RERUNS),
)


#: each procedure of exertion in words, and how it ends (words, and the command that ends it)
_EXERTION_WORDS: dict[str, tuple[str, tuple[str | Advice, ...]]] = {
    "dungeon": ("a delve", ("leave the dungeon first (", Advice("LeaveDungeon"), ")")),
    "pursuit": ("a pursuit", ("it ends when the party is caught or escapes",)),
    "chase": ("a chase", ("it ends when the quarry is caught or escapes",)),
}


def guard(table: Table, command: Command) -> None:
    """A day in which a delve, a pursuit or a chase goes on is no rest (§4.16, A28), so a rest day waits until none
    is under way."""
    if isinstance(command, RestDay | RestDayPastCamp | RestDayWithoutCheck | RestDayRestedAtStart):
        _no_rest_while_exerting(table)


def _no_rest_while_exerting(table: Table) -> None:
    trip = table.procedures.get(PROCEDURE)
    if not isinstance(trip, TravelState) or not trip.exerting:
        return
    busy = [_EXERTION_WORDS[name] for name in EXERTION if name in trip.exerting]
    what = " and ".join(words for words, _ in busy)
    how = [part for i, (_, end) in enumerate(busy) for part in ((*(("; ",) if i else ()), *end))]
    msg = f"{what} {'is' if len(busy) == 1 else 'are'} under way, and a day in which one goes on is no rest; "
    raise RuleRefusedError.saying(msg, *how)
