"""The travel day's folded state: where the party truly is and where it believes it is (and how many hexes it fled
since it last knew, the way it ran unknown to it), the day's travel points, and each member's rest and exhaustion."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.procedure import HandedOff, PhaseChanged
from hexlog.events.pursuit import PursuitFled, PursuitRested
from hexlog.machine.kit.changed import changed

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "travel"
PURSUIT = "pursuit"
#: the procedures whose time under way is no rest (a delve, a pursuit, a chase), each with the phases that end it
EXERTION: dict[str, frozenset[str]] = {
    "dungeon": frozenset({"LEFT"}),
    PURSUIT: frozenset({"CAUGHT", "ESCAPED"}),
    "chase": frozenset({"CAUGHT", "ESCAPED"}),
}


def under_way(ctx: StepContext) -> tuple[str, ...]:
    """The procedures of exertion under way (``EXERTION``'s order), as a journey records them when it sets out."""
    return tuple(name for name in EXERTION if ctx.registry.procedure(name).is_open(ctx.state(name)))


class Phase(enum.Enum):
    """Where the travel day stands."""

    IDLE = "idle"
    #: between days: roll the weather (a travel day) or rest a full day
    DAWN = "dawn"
    #: the weather is known: declare the route
    ROUTE = "route"
    #: the route is declared and the lost check made: move, search, force the march, then the check
    TRAVEL = "travel"
    #: a full day of rest during the journey: its wandering check at the day's end comes next
    RESTING = "resting"
    #: the wandering check is made (any encounter handed off): end the day
    DUSK = "dusk"
    ENDED = "ended"


@attrs.frozen(kw_only=True)
class Member:
    """A member's rest: travel days since the last full rest, a rest owed by a forced march, exhaustion."""

    travel_days: int = 0
    owed: bool = False
    exhaustion: int = 0


@attrs.frozen(kw_only=True)
class TravelState:
    """The journey under way (or the last one)."""

    phase: Phase = Phase.IDLE
    #: the party's true hex, and the hex it believes it is in
    hex: str = ""
    believed: str = ""
    season: str = "summer"
    speed: int = 0
    base_tp: int = 0
    afloat: bool = False
    mounted: bool = False
    vehicles: bool = False
    day: int = 0
    weather: str = ""
    flags: tuple[str, ...] = ()
    night: bool = False
    #: the route still to travel: declared headings, and the true ones (they differ when lost)
    route: tuple[str, ...] = ()
    true_route: tuple[str, ...] = ()
    lost: bool = False
    #: hexes fled in secret flights since the party last knew where it was (told by ``travel reveal-lost``, or at
    #: the journey's end): it does not know which way it ran, so its true hex may be as far from the one it believes
    #: (the count is public, as ``pursuit.fled`` is)
    fled: int = 0
    tp: int = 0
    #: the day under way (or the last) is a full day of rest, not of travel: the party passes nothing on its way
    rest: bool = False
    #: the rest of the rest day under way is yet to be recorded: at the day's end, unless the day was exerted
    rest_due: bool = False
    #: a delve, a pursuit or a chase was under way in the day under way (A28: a day with one is no rest)
    exerted: bool = False
    #: when the day under way started (seconds since the campaign began); -1 for a day whose start recorded none
    #: (``travel.day_started`` before version 5): its check runs no clock, its end runs it on to the next midnight
    day_started_at: int = -1
    forced: bool = False
    hexes_today: int = 0
    carried: int = 0
    encounter: bool = False
    #: where each encounter the day's wandering check met and the day has not handed off yet happens: the second of
    #: U&WA's two dice afloat waits here until the first concludes
    meets: tuple[str, ...] = ()
    #: days of rest after pursuits not yet counted as a rest day (A28: a full day counts)
    rest_credit: float = 0.0
    #: when the journey ended (seconds since the campaign began); -1 while under way, or ended by a release that
    #: let no time after a journey count as rest
    ended_at: int = -1
    #: whether a delve, a pursuit or a chase since the journey ended keeps its days from counting as rest (a journey
    #: ended since ``travel.ended`` version 3); false: any full day counts, as the releases before ran it
    exertion_breaks_rest: bool = False
    #: the game time since the journey ended, or since the party last delved, fled or chased, in seconds
    quiet: int = 0
    #: the procedures of exertion under way (``EXERTION``)
    exerting: frozenset[str] = frozenset()
    members: dict[str, Member] = attrs.field(factory=dict)

    def exhaustion(self, name: str) -> int:
        """A member's exhaustion level (0: none)."""
        member = self.members.get(name)
        return member.exhaustion if member is not None else 0

    @property
    def owes_rest(self) -> bool:
        """Whether a member has anything a rest day clears: exhaustion, an owed rest, travel days counted."""
        return any(m != Member() for m in self.members.values())


def _members(state: TravelState, names: tuple[str, ...], change: Any) -> dict[str, Member]:
    members = dict(state.members)
    for name in names:
        members[name] = change(members.get(name, Member()))
    return members


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.JourneyStarted,
    PhaseChanged,
    ev.DayStarted,
    ev.ExhaustionChanged,
    ev.RouteDeclared,
    ev.LostChecked,
    ev.ForcedMarch,
    ev.Moved,
    ev.TruePosition,
    ev.LostRevealed,
    ev.Searched,
    ev.WanderingChecked,
    HandedOff,
    ev.DayEnded,
    ev.Rested,
    ev.JourneyEnded,
    PursuitFled,
    PursuitRested,
    ClockAdvanced,
)


def evolve(state: TravelState | None, event: Event) -> TravelState | None:  # noqa: C901, PLR0911, PLR0912 - one case per event
    """The journey after one event."""
    match event:
        case ev.JourneyStarted():
            kept = state.members if state is not None else {}
            return TravelState(
                hex=event.hex,
                believed=event.hex,
                season=event.season,
                speed=event.speed,
                base_tp=event.travel_points,
                afloat=event.afloat,
                mounted=event.mounted,
                vehicles=event.vehicles,
                members={name: kept.get(name, Member()) for name in event.party},
                exerting=(state.exerting if state is not None else frozenset()) | frozenset(event.exerting),
            )
    if state is None:
        return None
    match event:
        case PhaseChanged(procedure="travel", dest=dest):
            return changed(state, phase=Phase[dest])
        case PhaseChanged(procedure=name, dest=dest) if name in EXERTION:
            ended = dest in EXERTION[name]
            exerting = state.exerting - {name} if ended else state.exerting | {name}
            if exerting == state.exerting and state.exerted:
                return state
            return changed(state, exerting=exerting, exerted=True)
        case ClockAdvanced() if state.phase is Phase.ENDED:
            return changed(state, quiet=0 if state.exerting else state.quiet + event.seconds)
        case ev.DayStarted():
            members = _members(state, event.travellers, lambda m: changed(m, travel_days=m.travel_days + 1))
            return changed(
                state,
                day=event.day,
                weather=event.weather,
                flags=event.flags,
                tp=event.travel_points,
                rest=event.rest,
                rest_due=event.rest,
                exerted=bool(state.exerting),
                day_started_at=event.at_seconds,
                carried=0,
                forced=False,
                hexes_today=0,
                encounter=False,
                meets=(),
                lost=False,
                night=False,
                route=(),
                true_route=(),
                members=members,
            )
        case ev.ExhaustionChanged():
            members = _members(state, (event.member,), lambda m: changed(m, exhaustion=event.level, owed=False))
            return changed(state, members=members)
        case ev.RouteDeclared():
            return changed(state, route=event.headings, true_route=event.headings, night=event.night)
        case ev.LostChecked():
            return changed(state, lost=event.lost, true_route=event.true_route)
        case ev.ForcedMarch():
            members = _members(state, tuple(state.members), lambda m: changed(m, owed=True))
            return changed(state, forced=True, tp=event.travel_points, members=members)
        case ev.Moved():
            return changed(
                state,
                believed=event.believed,
                tp=event.travel_points,
                route=state.route[1:],
                true_route=state.true_route[1:],
                hexes_today=state.hexes_today + 1,
            )
        case ev.TruePosition():
            return changed(state, hex=event.hex)
        case ev.LostRevealed():
            return changed(state, lost=False, believed=event.hex, true_route=state.route, fled=0)
        case ev.Searched():
            return changed(state, tp=event.travel_points)
        case ev.WanderingChecked():
            meets = ((event.setting,) if event.encounter else ()) + ((event.second,) if event.second else ())
            return changed(state, encounter=event.encounter, meets=meets)
        case HandedOff(parent="travel", child="encounter") if state.meets:
            return changed(state, meets=state.meets[1:])
        case ev.DayEnded():
            return changed(state, carried=event.carried, tp=0, route=(), true_route=())
        case ev.Rested():
            return changed(
                state,
                members=_members(state, event.members, lambda _: Member()),
                day=event.day,
                carried=0,
                rest_credit=0.0,
                rest_due=False,
            )
        case PursuitFled() if event.believed:  # told which way it ran, its belief moves that way
            return changed(state, believed=event.believed)
        case PursuitFled() if event.secret:  # a flight during a journey: its heading is the referee's
            return changed(state, fled=state.fled + 1)
        case PursuitRested():  # the rest after an escape is rest (A28): the pursuit's exertion is over
            return changed(state, rest_credit=state.rest_credit + event.days, exerting=state.exerting - {PURSUIT})
        case ev.JourneyEnded():  # it ends where the party truly is, named in public: the party knows where it is
            return changed(
                state,
                hex=event.hex,
                believed=event.hex,
                lost=False,
                fled=0,
                ended_at=event.at_seconds,
                exertion_breaks_rest=event.exertion_breaks_rest,
                quiet=0,
            )
    return state


def journey(ctx: StepContext) -> TravelState:
    """The journey a step works on (the kit fired a trigger only a journey under way allows)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, TravelState)  # noqa: S101 - only ``start`` is allowed without a journey
    return state
