"""The castles' folded state: the castles on the map and what is known of each, the party's path on the
current travel day and the castles already checked on it, the garrisons riding out, and the meeting under way.

The path is folded from the travel day's own events (``travel.true_position``: where the party truly
is, lost or not), so the ride-out check owed is judged on the party's true hexes.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import castle as ev
from hexlog.events import travel as tev
from hexlog.events.procedure import PhaseChanged

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "castle"


class Phase(enum.Enum):
    """Where a meeting with a castle's garrison stands."""

    IDLE = "idle"
    #: the garrison faces the party and makes its demand
    MET = "met"
    #: a toll (or the tithe) is named: pay it, or refuse
    TOLL = "toll"
    #: the party refused: fight, flee, or part if the garrison lets it
    REFUSED = "refused"
    #: the garrison fights (handed to the encounter); the castle resumes when it concludes
    FIGHTING = "fighting"
    #: the party fled: the forces' pursue roll is recorded, and decides the next phase at once
    FLED = "fled"
    #: the forces pursue (handed to the wilderness pursuit), or, the meeting over, an encounter the rest after the
    #: escape met ended with the party pursued again (handed off likewise); the castle resumes when it concludes
    PURSUED = "pursued"
    #: the party escaped and the meeting is over, but the rest after the escape met an encounter: handed to
    #: the encounter, and the castle waits for it (the travel day with it)
    RESTING = "resting"
    DONE = "done"


#: the phases of a meeting under way
MEETING = frozenset({Phase.MET, Phase.TOLL, Phase.REFUSED, Phase.FIGHTING, Phase.FLED, Phase.PURSUED})


@attrs.frozen(kw_only=True)
class Castle:
    """One castle: its type and disposition once known ("" while still to be rolled)."""

    castle_type: str = ""
    disposition: str = ""
    name: str = ""
    #: checked every travel day (``castle.placed`` version 2), for show when out of reach
    daily: bool = False


@attrs.frozen(kw_only=True)
class Coming:
    """A garrison that rode out and has not met the party yet."""

    hex: str
    how: str


@attrs.frozen(kw_only=True)
class CastleState:
    """The castles of the campaign and the meeting under way (or the last one)."""

    phase: Phase = Phase.IDLE
    castles: dict[str, Castle] = attrs.field(factory=dict)
    #: the party's true hex on its journey, the travel day, and the hexes it was truly in on that day
    #: (none between days: a castle is passed on a travel day, from the weather to the day's end)
    where: str = ""
    day: int = 0
    path: tuple[str, ...] = ()
    #: the castles whose garrison was checked (passed or hailed) on this travel day
    checked: tuple[str, ...] = ()
    #: the party's moves on the travel day under way (counted even by a castle state begun during the day)
    moves: int = 0
    #: one more than ``moves`` at the travel day's last ride-out check (0: none today)
    passed_at: int = 0
    coming: tuple[Coming, ...] = ()
    meetings: int = 0
    met: ev.GarrisonMet | None = None
    toll: ev.TollDemanded | None = None
    #: the party's flight from the meeting under way, once it fled
    fled: ev.GarrisonFled | None = None
    ended: ev.MeetingEnded | None = None

    def castle(self, hex_name: str) -> Castle | None:
        """The castle on a hex, or None."""
        return self.castles.get(hex_name)


def _travel(state: CastleState, event: Event) -> CastleState:
    match event:
        case tev.JourneyStarted():
            return attrs.evolve(state, where=event.hex, day=0, path=(), checked=(), moves=0, passed_at=0)
        case tev.DayStarted(rest=True):  # the party stays where it is: it passes no castle
            return attrs.evolve(state, day=event.day, path=(), checked=(), moves=0, passed_at=0)
        case tev.DayStarted():
            path = (state.where,) if state.where else ()
            return attrs.evolve(state, day=event.day, path=path, checked=(), moves=0, passed_at=0)
        case tev.TruePosition():
            trail = (*state.path, event.hex) if state.path else ()
            return attrs.evolve(state, where=event.hex, path=trail, moves=state.moves + 1)
        case tev.DayEnded() | tev.JourneyEnded():
            return attrs.evolve(state, path=(), checked=(), moves=0, passed_at=0)
    return state


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.CastlePlaced,
    PhaseChanged,
    ev.CastlesPassed,
    ev.CastleHailed,
    ev.GarrisonMet,
    ev.TollDemanded,
    ev.GarrisonFled,
    ev.MeetingEnded,
    tev.JourneyStarted,
    tev.DayStarted,
    tev.TruePosition,
    tev.DayEnded,
    tev.JourneyEnded,
)


def evolve(state: CastleState | None, event: Event) -> CastleState | None:
    """The castles after one event (None until the first castle is placed)."""
    if isinstance(event, ev.CastlePlaced):
        before = state or CastleState()
        castle = Castle(
            castle_type=event.castle_type, disposition=event.disposition, name=event.name, daily=event.daily
        )
        # a castle checked every day, placed after the day's check, is checked before the day closes too
        passed_at = 0 if event.daily else before.passed_at
        return attrs.evolve(before, castles={**before.castles, event.hex: castle}, passed_at=passed_at)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    match event:
        case PhaseChanged(procedure="castle", dest=dest):
            changes["phase"] = Phase[dest]
        case ev.CastlesPassed():
            coming = tuple(Coming(hex=p.hex, how="passing") for p in event.passed if p.rides_out)
            checked = (*state.checked, *(p.hex for p in event.passed if p.ride_out_on))  # not those rolled for show
            changes.update(checked=checked, coming=(*state.coming, *coming), passed_at=state.moves + 1)
        case ev.CastleHailed():
            coming = (Coming(hex=event.hex, how="hailed"),) if event.rides_out else ()
            changes.update(checked=(*state.checked, event.hex), coming=(*state.coming, *coming))
        case ev.GarrisonMet():
            old = state.castles.get(event.hex, Castle())
            known = attrs.evolve(old, castle_type=event.castle_type, disposition=event.disposition)
            changes.update(
                castles={**state.castles, event.hex: known},
                coming=tuple(c for c in state.coming if c.hex != event.hex),
                checked=(*state.checked, event.hex),
                meetings=event.number,
                met=event,
                toll=None,
                fled=None,
            )
        case ev.TollDemanded():
            changes["toll"] = event
        case ev.GarrisonFled():
            changes["fled"] = event
        case ev.MeetingEnded():
            changes["ended"] = event
        case _:
            return _travel(state, event)
    return attrs.evolve(state, **changes)


def castles(ctx: StepContext) -> CastleState:
    """The castles a step works on (an empty state before the first is placed)."""
    state = ctx.state(PROCEDURE)
    return state if isinstance(state, CastleState) else CastleState()
