"""The travel day's commands (imperative names), the trigger each fires, and what each argument means."""

from __future__ import annotations

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.commands import Command, arg


@attrs.frozen(kw_only=True)
class StartJourney(Command):
    """Set out from a hex of the map (the party's true position, which it knows)."""

    hex: str = arg(help="the hex the party sets out from, col,row", positional=True)
    season: str = arg("summer", help="spring, summer, autumn or winter (the weather table's column)")
    afloat: bool = arg(False, help="the party travels by ship, continuously afloat")  # noqa: FBT003 - a default
    mounted: bool = arg(False, help="the party rides (mounts are led or barred in rough terrain)")  # noqa: FBT003 - a default
    vehicles: bool = arg(False, help="the party brings carts or wagons")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class RollWeather(Command):
    """Start a travel day: roll 2d6 on the season's weather table, or set the weather."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class DeclareRoute(Command):
    """Declare the day's route, one heading per hex (N NE SE S SW NW); the secret lost check follows."""

    headings: tuple[str, ...] = arg((), help="the headings, in order", positional=True)
    night: bool = arg(False, help="travelling in darkness (the lost range grows, A20)")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class DeclareRouteHeadingWhenLost(Command):
    """Issued by the audit, never by a user: a route declared before ``travel.lost_checked`` version 2, whose
    releases rolled the true heading's die only when the party was lost (and read a road as never lost), is re-run
    as they ran it."""

    headings: tuple[str, ...] = arg((), help="the headings, in order", positional=True)
    night: bool = arg(False, help="travelling in darkness")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class DeclareRouteRoadNeverLost(Command):
    """Issued by the audit, never by a user: a route declared before ``travel.lost_checked`` version 3, whose releases
    read a road hex as Dolmenwood's road (never lost, whatever the source, the weather or the darkness), is re-run
    as they ran it."""

    headings: tuple[str, ...] = arg((), help="the headings, in order", positional=True)
    night: bool = arg(False, help="travelling in darkness")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class Move(Command):
    """Move along the route hex by hex while the travel points last."""

    hexes: int | None = arg(None, help="move at most this many hexes (default: as far as the points go)", least=1)


@attrs.frozen(kw_only=True)
class SearchHex(Command):
    """Search the hex: spend its cost again, then the referee's secret search roll."""

    guide: bool = arg(False, help="a local guide helps (the range widens)")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class MoveOneHex(Command):
    """Issued by the audit, never by a user: one hex of a move, re-run at its ``travel.moved`` (where the party
    believes it went, the points it spent, and where it truly went)."""


@attrs.frozen(kw_only=True)
class MoveOneHexTrueCost(Command):
    """Issued by the audit, never by a user: one hex of a move recorded before ``travel.moved`` version 2, whose
    releases spent the cost of the hex the party truly entered (and led its mounts as that hex asked)."""


@attrs.frozen(kw_only=True)
class SearchRoll(Command):
    """Issued by ``search`` once the points are spent, never by a user: the referee's secret search roll."""

    guide: bool = False


@attrs.frozen(kw_only=True)
class SearchRollHexDice(Command):
    """Issued by the audit, never by a user: a search recorded before ``travel.search_rolled`` version 2, whose
    releases rolled the dvdm table's dice for the searched hex's features alone, is re-run as they ran it."""

    guide: bool = False


@attrs.frozen(kw_only=True)
class SearchRollOpenFinds(Command):
    """Issued by the audit, never by a user: a search recorded at ``travel.search_rolled`` version 2, whose releases
    opened a find in public (``map.feature_found``), or held it back when the party was lost, is re-run so."""

    guide: bool = False


@attrs.frozen(kw_only=True)
class ForceMarch(Command):
    """Push on: +50 % travel points today; a full rest day is owed, or exhaustion follows."""


@attrs.frozen(kw_only=True)
class RevealLost(Command):
    """Tell the party it is lost (and where it truly is)."""

    reason: str = arg("the referee says so", help="how the party learns it")


@attrs.frozen(kw_only=True)
class CheckWandering(Command):
    """The wandering check at the day's end; an encounter is handed to the encounter procedure."""


@attrs.frozen(kw_only=True)
class CheckWanderingTrueHex(Command):
    """Issued by the audit, never by a user: a wandering check recorded before ``travel.wandering_checked`` version 2,
    whose releases read the row of the party's true hex (and set a ship's encounter on the seed's 1-in-6 in the
    wilderness), is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class CheckWanderingAfloatOnLand(Command):
    """Issued by the audit, never by a user: a wandering check recorded at ``travel.wandering_checked`` version 2,
    whose releases set a ship's encounter on the seed's 1-in-6 in the wilderness, is re-run as they ran it."""


@attrs.frozen(kw_only=True)
class CheckWanderingOneAfloat(Command):
    """Issued by the audit, never by a user: a wandering check recorded at ``travel.wandering_checked`` version 3,
    whose releases met the waterborne encounter alone when both of U&WA's two dice afloat called one, is re-run as
    they ran it."""


@attrs.frozen(kw_only=True)
class EndDay(Command):
    """End the travel day: the clock runs on to the next day."""


@attrs.frozen(kw_only=True)
class RestDay(Command):
    """A full day of rest instead of travel: its weather first (rolled, or set), then exhaustion and the owed rest
    are cleared; during a journey the day ends with its wandering check (check, then end-day), as a travel day
    does."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class RestDayWhileExerting(Command):
    """Issued by the audit, never by a user: a rest day recorded before ``travel.day_started`` version 3, whose
    releases let a party rest while a delve, a pursuit or a chase went on, is re-run as they ran it."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class RollWeatherPastCamp(Command):
    """Issued by the audit, never by a user: a travel day recorded before ``travel.day_started`` version 4, whose
    releases let the day start while a camp's night was not over, is re-run as they ran it."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class RollWeatherUntimed(Command):
    """Issued by the audit, never by a user: a travel day recorded at ``travel.day_started`` version 4, whose release
    kept no time of the day's start (its wandering check ran no clock), is re-run as it ran it (a camp's night not over
    still refuses it)."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class RestDayPastCamp(Command):
    """Issued by the audit, never by a user: a rest day recorded at ``travel.day_started`` version 3, whose release
    let it start while a camp's night was not over, is re-run as it ran it (a delve, a pursuit or a chase under way
    still refuses it)."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class RestDayWithoutCheck(Command):
    """Issued by the audit, never by a user: a rest day recorded at ``travel.day_started`` version 4, whose release
    ran the clock on to the next day at once, with no wandering check at its end, is re-run as it ran it (a delve, a
    pursuit or a chase under way, or a camp's night not over, still refuses it)."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


@attrs.frozen(kw_only=True)
class RestDayRestedAtStart(Command):
    """Issued by the audit, never by a user: a rest day recorded at ``travel.day_started`` version 5, whose release
    recorded its rest as the day started (a pursuit after the day's check then recorded a second rest that day), is
    re-run as it ran it (a delve, a pursuit or a chase under way, or a camp's night not over, still refuses it)."""

    weather: str = arg("", help="the referee's weather instead of a roll (a key of tables.weather_flags)", flag="--set")


#: the rest days the audit re-runs as the releases before ``travel.day_started`` version 5 made them: the clock runs on
#: to the next day at once, no wandering check at the day's end (the machine takes them from dawn to dawn)
REST_WITHOUT_CHECK: tuple[type[Command], ...] = (RestDayWhileExerting, RestDayPastCamp, RestDayWithoutCheck)
#: the rest days the audit re-runs as release 33 made them (``travel.day_started`` version 5): the rest recorded as the
#: day starts, whatever the day holds after it (as the releases before, whose rest days are ``REST_WITHOUT_CHECK``, did)
RESTED_AT_START: tuple[type[Command], ...] = (RestDayRestedAtStart,)
#: the days (of travel or rest) the audit re-runs as the releases before ``travel.day_started`` version 5 started them:
#: no time of the start kept (``at_seconds`` -1), so the day's wandering check runs no clock
UNTIMED: tuple[type[Command], ...] = (*REST_WITHOUT_CHECK, RollWeatherPastCamp, RollWeatherUntimed)


@attrs.frozen(kw_only=True)
class EndJourney(Command):
    """The journey is over."""


#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    StartJourney: "start",
    RollWeather: "weather",
    DeclareRoute: "route",
    Move: "move",
    SearchHex: "search",
    ForceMarch: "forced_march",
    RevealLost: "reveal_lost",
    CheckWandering: "check",
    EndDay: "end_day",
    RestDay: "rest",
    EndJourney: "finish",
}


def _rerun(what: str, step: type[Command]) -> tuple[str | Advice, ...]:
    return f"is the audit's, re-running a {what} an older release recorded; use ", Advice(step.__name__, (), "travel")


#: the commands only hexlog gives, each with the refusal's words to a referee who gives one (and the command to use)
INTERNAL: dict[type[Command], tuple[str | Advice, ...]] = {
    MoveOneHex: ("is the audit's, re-running one hex of a move; use ", Advice(Move.__name__, (), "travel")),
    MoveOneHexTrueCost: _rerun("move", Move),
    SearchRoll: ("is made by hexlog when a search goes on; use ", Advice(SearchHex.__name__, (), "travel")),
    SearchRollHexDice: _rerun("search", SearchHex),
    SearchRollOpenFinds: _rerun("search", SearchHex),
    DeclareRouteHeadingWhenLost: _rerun("route", DeclareRoute),
    DeclareRouteRoadNeverLost: _rerun("route", DeclareRoute),
    CheckWanderingTrueHex: _rerun("check", CheckWandering),
    CheckWanderingAfloatOnLand: _rerun("check", CheckWandering),
    CheckWanderingOneAfloat: _rerun("check", CheckWandering),
    RestDayWhileExerting: _rerun("rest day", RestDay),
    RollWeatherPastCamp: _rerun("travel day", RollWeather),
    RollWeatherUntimed: _rerun("travel day", RollWeather),
    RestDayPastCamp: _rerun("rest day", RestDay),
    RestDayWithoutCheck: _rerun("rest day", RestDay),
    RestDayRestedAtStart: _rerun("rest day", RestDay),
}
