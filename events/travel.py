"""Travel events: the wilderness travel day of seed 004 (REFERENCE §4.5-4.12, §4.16).

The party's true position and the one it believes it holds are kept apart: events a player may not
see (the true hex while the party may be lost) are ``referee_only``; secret rolls are named in
``referee_rolls`` and hidden until their session ends, like every secret roll.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from hexlog.events.base import Event


@attrs.frozen(kw_only=True)
class JourneyStarted(Event):
    """The party sets out from a hex (its true position, which it knows), with the delves, pursuits and chases under
    way as it does (version 2: a day in which one goes on is no rest, whenever it began)."""

    type_name: ClassVar[str] = "travel.started"
    schema_version: ClassVar[int] = 2
    hex: str
    season: str
    party: tuple[str, ...]
    #: the slowest member's speed (Dolmenwood scale) and the travel points a day it gives
    speed: int
    travel_points: int
    afloat: bool = False
    mounted: bool = False
    vehicles: bool = False
    #: the procedures of exertion under way as the party sets out (``dungeon``, ``pursuit``, ``chase``; version 2)
    exerting: tuple[str, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 recorded none: a delve, pursuit or chase begun before the campaign's first journey went uncounted,
        as its release ran it."""
        return {**data, "exerting": []}


@attrs.frozen(kw_only=True)
class DayStarted(Event):
    """A travel day begins: the weather is rolled (or set) before anything else.

    A full day of rest begins so too (``rest``, since version 2): nobody travels, and it has no travel points.
    Before version 2 a rest day rolled no weather, and the day before's held on. Since version 3 a rest day is
    never taken while a delve, a pursuit or a chase is under way (before it, releases let one be). Since version 4 no
    day (of travel or rest) starts while a camp's night is not over: its wandering check rolled and the camp broken
    (before it, releases let one start). Since version 5 a rest day during a journey ends as a travel day does, with
    the day's wandering check (``travel check``) and then ``travel end-day`` (before it, the clock ran on to the next
    day at once, with no check); and it records when the day started (``at_seconds``), from which its wandering check
    runs the clock on to the day's end (``options.day_end_hour``) before it is rolled, so that the encounter it meets,
    a pursuit after it and a camp made then take their time from there (before it, the check fell at the day's
    start). Since version 6 the rest of a rest day during a journey is recorded at the day's end (``travel end-day``),
    and only when no delve, pursuit or chase was under way in the day (A28: a day with one is no rest; the rest after
    an escape counts on its own once it adds up to a full day): before it, the rest was recorded as the day started,
    and a pursuit after the day's check recorded a second rest that day (the audit re-runs an older rest day as its
    release ran it)."""

    type_name: ClassVar[str] = "travel.day_started"
    schema_version: ClassVar[int] = 6
    day: int
    travellers: tuple[str, ...]
    weather: str
    flags: tuple[str, ...] = ()
    #: the 2d6 total on the seasonal table (0: the referee set the weather)
    total: int = 0
    #: travel points for the day: the base, the weather's change, any carried from yesterday
    travel_points: int = 0
    rolls: tuple[int, ...] = ()
    #: a full day of rest, not of travel (version 2)
    rest: bool = False
    #: when the day started, in seconds since the campaign began (version 5); -1 before version 5, whose releases
    #: rolled the day's wandering check at whatever time the clock showed
    at_seconds: int = -1

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 started travel days alone: each was one."""
        return {**data, "rest": False}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 records the same fields: only what the rules let a rest day be changed (the audit re-runs an
        older rest day as its release ran it)."""
        return data

    @staticmethod
    def upcast_v3_v4(data: dict[str, Any]) -> dict[str, Any]:
        """Version 4 records the same fields: only when the rules let a day start changed (the audit re-runs an
        older day as its release ran it)."""
        return data

    @staticmethod
    def upcast_v4_v5(data: dict[str, Any]) -> dict[str, Any]:
        """Version 4 kept no time of the day's start: its wandering check ran no clock (-1), and a rest day had none
        (the audit re-runs an older rest day as its release ran it)."""
        return {**data, "at_seconds": -1}

    @staticmethod
    def upcast_v5_v6(data: dict[str, Any]) -> dict[str, Any]:
        """Version 6 records the same fields: only when a rest day during a journey records its rest changed (the
        audit re-runs an older rest day as its release ran it)."""
        return data


@attrs.frozen(kw_only=True)
class ExhaustionChanged(Event):
    """A member's exhaustion level changed (0: rested); each level is -1 to all rolls (§4.16)."""

    type_name: ClassVar[str] = "travel.exhaustion_changed"
    member: str
    level: int
    reason: str


@attrs.frozen(kw_only=True)
class RouteDeclared(Event):
    """The players declare the day's route, one heading per hex to enter."""

    type_name: ClassVar[str] = "travel.route_declared"
    headings: tuple[str, ...]
    night: bool = False


@attrs.frozen(kw_only=True)
class LostChecked(Event):
    """The referee's secret lost check at the day's start, and the true heading when lost (its die rolled every day,
    lost or not, since version 2: a heading rolled only when lost told the players so).

    Since version 3 each source reads a road its own way (the OD&D table, which has no road row, the terrain's row;
    Dolmenwood's its road row) and fog, a blizzard and darkness raise a road's chance too: before, a road hex read
    Dolmenwood's road row under either source and was never lost, whatever the weather or the darkness."""

    type_name: ClassVar[str] = "travel.lost_checked"
    schema_version: ClassVar[int] = 3
    #: the row of the lost table read (an OD&D row, a Dolmenwood difficulty, road or track)
    row: str
    #: the totals that mean lost, after weather and darkness (a road's too, since version 3)
    lost_on: tuple[int, ...]
    lost: bool
    #: the true heading (lost) or the declared one
    heading: str = ""
    #: the true headings of the route, after the one direction change a lost party may make
    true_route: tuple[str, ...] = ()
    #: the route as declared, and whether by night (what the referee typed)
    declared: tuple[str, ...] = ()
    night: bool = False
    #: public rolls (none: the check is the referee's) and the secret ones
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 rolled the heading's die only when the party was lost: its data reads as version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 read a road hex as Dolmenwood's road, never lost: its data reads as version 3 unchanged."""
        return dict(data)


@attrs.frozen(kw_only=True)
class ForcedMarch(Event):
    """The party pushes on: +50 % travel points today, and a full rest day owed."""

    type_name: ClassVar[str] = "travel.forced_march"
    added: int
    travel_points: int


@attrs.frozen(kw_only=True)
class Moved(Event):
    """The party entered a hex, as it believes: the hex it thinks it is in, and the points left.

    Since version 2 a lost party that does not know it spends the cost of the hex it believes it enters, and leads
    its mounts as that hex asks: before, the cost and ``led`` were the true hex's, which told the players its terrain.
    """

    type_name: ClassVar[str] = "travel.moved"
    schema_version: ClassVar[int] = 2
    believed: str
    heading: str
    #: the points the move spent: the cost of entering the hex the party believes it enters (version 2)
    cost: int
    travel_points: int
    #: mounts are led on foot through this hex (§4.8): the hex the party believes it enters (version 2)
    led: bool = False

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 recorded the true hex's cost and ``led`` (the same hex unless the party was lost): its data reads
        as version 2 unchanged."""
        return dict(data)


@attrs.frozen(kw_only=True)
class TruePosition(Event):
    """Where the party truly is after a move (the referee's: a lost party does not know)."""

    type_name: ClassVar[str] = "travel.true_position"
    #: hidden from players like a secret roll, until the session ends
    referee_only: ClassVar[str] = "session"
    hex: str
    terrain: str
    lost: bool = False


@attrs.frozen(kw_only=True)
class LostRevealed(Event):
    """The party learns it is lost: it missed a landmark, or the referee says so; it now knows where it is."""

    type_name: ClassVar[str] = "travel.lost_revealed"
    hex: str
    reason: str


@attrs.frozen(kw_only=True)
class Searched(Event):
    """The party spent the hex's cost again to search it; the secret roll decides what it finds.

    Since version 2 the cost is that of the hex the party believes it is in: before, a lost party's was its true
    hex's, which told the players its terrain."""

    type_name: ClassVar[str] = "travel.searched"
    schema_version: ClassVar[int] = 2
    #: the points the search spent: the search cost of the hex the party believes it is in (version 2)
    cost: int
    travel_points: int
    guide: bool = False

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 recorded the true hex's cost (the same hex unless the party was lost): its data reads as version
        2 unchanged."""
        return dict(data)


@attrs.frozen(kw_only=True)
class SearchRolled(Event):
    """The referee's search roll for the hex the party truly searched, and what it found.

    On the dvdm table (``per_feature``, since version 2) one secret roll holds a die for every still-hidden
    feature of the whole map, in the order they were placed, and each feature of the searched hex is found on
    its own die: before version 2 a die was rolled for each feature of the hex, so the count of hidden rolls
    told the players how many features the hex still hid. Since version 3 each find is ``map.feature_told`` and
    ``map.feature_located`` (the referee's), lost or not: before, a find was ``map.feature_found`` in public, or
    ``map.feature_found_lost`` held back when the party was lost, whose kind told the players so."""

    type_name: ClassVar[str] = "travel.search_rolled"
    schema_version: ClassVar[int] = 3
    hex: str
    found_on: tuple[int, ...]
    found: tuple[str, ...] = ()
    #: a local guide helped (what the referee typed)
    guide: bool = False
    #: public rolls (none: the search roll is the referee's) and the secret ones
    rolls: tuple[int, ...] = ()
    referee_rolls: tuple[int, ...] = ()
    #: the dvdm table's search: a die for each still-hidden feature of the map (version 2)
    per_feature: bool = False

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 rolled the dvdm table's dice for the hex's features alone: it reads as version 2 without
        ``per_feature`` (the audit re-runs it as its release ran it)."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 was followed by its finds opened as ``map.feature_found`` or ``map.feature_found_lost``: it
        reads as version 3 unchanged (the audit re-runs it as its release ran it)."""
        return dict(data)


@attrs.frozen(kw_only=True)
class WanderingChecked(Event):
    """The wandering check at the day's end, on the terrain's encounter range (or afloat).

    Since version 2 the check reads the row of the hex the party believes it is in: before, a lost party's was its
    true hex's, which told the players its terrain (the audit re-runs a version 1 check as its release made it).
    Since version 3 a ship's encounter on the seed's 1-in-6 (``afloat_rule`` seed) is waterborne: before, it was set
    in the wilderness (the audit re-runs a check of version 1 or 2 as its release made it). Since version 4 a ship
    whose two dice (``afloat_rule`` odd_two_dice) both call an encounter meets both, the waterborne one first and then
    the second die's normal one (``second``): before, it met the waterborne one alone (the audit re-runs a check of
    an earlier version as its release made it)."""

    type_name: ClassVar[str] = "travel.wandering_checked"
    schema_version: ClassVar[int] = 4
    #: the row of the lost and encounter table read: the hex the party believes it is in (version 2), or afloat
    row: str
    encounter_on: tuple[int, ...]
    encounter: bool
    #: where an encounter happens: wilderness, or waterborne (a ship's, since version 3 on the seed's rule too)
    setting: str = "wilderness"
    #: poor visibility divides the encounter distance by this (1: no change)
    distance_divisor: int = 1
    rolls: tuple[int, ...] = ()
    #: where the day's second encounter happens, met once the first concludes (version 4): wilderness, when U&WA's
    #: two dice afloat both call one (the first die's is the waterborne one); empty when the day meets one or none
    second: str = ""

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 read the row of the party's true hex (the same hex unless the party was lost): its data reads as
        version 2 unchanged."""
        return dict(data)

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 set a ship's encounter on the seed's 1-in-6 in the wilderness: its data reads as version 3
        unchanged (the audit re-runs it as its release made it)."""
        return dict(data)

    @staticmethod
    def upcast_v3_v4(data: dict[str, Any]) -> dict[str, Any]:
        """Version 3 met the waterborne encounter alone when both of U&WA's two dice afloat called one: no second
        encounter (the audit re-runs it as its release made it)."""
        return {**data, "second": ""}


@attrs.frozen(kw_only=True)
class DayEnded(Event):
    """The travel day is over; unused travel points are lost or carried (A22)."""

    type_name: ClassVar[str] = "travel.day_ended"
    day: int
    hexes: int
    unused: int
    #: with ``carry_partial_hex``, the points spent on an unfinished hex, which count next day (A22)
    carried: int = 0
    #: a wandering check in camp follows tonight (A19)
    night_check: bool = True


@attrs.frozen(kw_only=True)
class Rested(Event):
    """A full day of rest: exhaustion and the owed rest are cleared."""

    type_name: ClassVar[str] = "travel.rested"
    day: int
    members: tuple[str, ...]


@attrs.frozen(kw_only=True)
class JourneyEnded(Event):
    """The journey is over. Its members rest off what it left them (exhaustion, an owed rest, the travel days
    counted) on a rest day, or once a full day has passed on the clock with no journey under way (version 2) in
    which the party neither delved nor fled nor chased (version 3: before, a delve's day or a flight's counted too).
    """

    type_name: ClassVar[str] = "travel.ended"
    schema_version: ClassVar[int] = 3
    hex: str
    days: int
    #: when it ended, in seconds since the campaign began (version 2); -1 before version 2, whose releases let no
    #: time after a journey count as rest
    at_seconds: int = -1
    #: a day on the clock counts as rest only if no delve, pursuit or chase was under way in it (version 3); false
    #: before version 3, whose releases counted any full day after the journey, whatever filled it
    exertion_breaks_rest: bool = True

    @staticmethod
    def upcast_v1_v2(data: dict[str, Any]) -> dict[str, Any]:
        """Version 1 kept no time: no day after it counts as rest (-1), as its release ran it."""
        return {**data, "at_seconds": -1}

    @staticmethod
    def upcast_v2_v3(data: dict[str, Any]) -> dict[str, Any]:
        """Version 2 counted any full day after the journey as rest, a delve's or a flight's too, as its release ran
        it."""
        return {**data, "exertion_breaks_rest": False}


for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, Event) and _cls.__module__ == __name__:
        attrs.resolve_types(_cls)  # field types as classes, not strings, for every reader
del _cls
