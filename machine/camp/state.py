"""The camp's folded state: the night under way, and what every night so far has healed, from events only."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import camp as ev
from hexlog.events.procedure import PhaseChanged

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "camp"


class Phase(enum.Enum):
    """Where a night in camp stands."""

    IDLE = "idle"
    PITCHED = "pitched"
    FUELLED = "fuelled"
    WATCHED = "watched"
    NIGHT = "night"
    ENCOUNTER = "encounter"
    #: the night's encounter ended with the party pursued: the pursuit runs, the camp waits
    PURSUIT = "pursuit"
    BROKEN = "broken"


@attrs.frozen(kw_only=True)
class CampState:
    """The latest camp of a campaign, and the hit points each member has healed in camp so far."""

    phase: Phase = Phase.IDLE
    made: ev.CampMade | None = None
    firewood: ev.FirewoodGathered | None = None
    watches: ev.WatchesSet | None = None
    checks: tuple[ev.NightChecked, ...] = ()
    encounters: tuple[ev.NightEncounterEnded, ...] = ()
    #: the latest night's rests (kept after the camp is broken, until the next one is)
    last_night: ev.CampBroken | None = None
    #: (member, hit points) healed in camp, a running total over every night
    healed: tuple[tuple[str, int], ...] = ()

    @property
    def number(self) -> int:
        """The number of the latest camp (0 before the first)."""
        return self.made.number if self.made is not None else 0

    @property
    def pending(self) -> ev.NightChecked | None:
        """The night check whose encounter has not been met and concluded yet."""
        met = len(self.encounters)
        hits = [c for c in self.checks if c.encounter]
        return hits[met] if len(hits) > met else None

    @property
    def pursuit_ground(self) -> str:
        """The ground a pursuit from the camp is handed (off a journey its terrain; on one, the pursuit reads the hex
        the party believes it is in): the camp's, or when it names none, the ground of the latest night check that
        met an encounter. A camp made before ``camp.made`` version 2 hands its terrain alone, as its release did."""
        made = self.made
        if made is None:
            return ""
        if made.terrain or not made.terrain_is_ground:
            return made.terrain
        met = [c for c in self.checks if c.encounter]
        return met[-1].terrain if met else ""

    def guards_of(self, watch: int) -> tuple[str, ...]:
        """Who stands watch ``watch`` (1 for the first)."""
        if self.watches is None:
            return ()
        return next((w.guards for w in self.watches.watches if w.number == watch), ())

    def healed_hp(self, name: str) -> int:
        """The hit points ``name`` has healed in camp so far."""
        return dict(self.healed).get(name, 0)


def _healed(state: CampState, broken: ev.CampBroken) -> tuple[tuple[str, int], ...]:
    totals = dict(state.healed)
    for rest in broken.rests:
        totals[rest.name] = totals.get(rest.name, 0) + rest.healed_hp
    return tuple(totals.items())


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.CampMade,
    PhaseChanged,
    ev.FirewoodGathered,
    ev.WatchesSet,
    ev.NightChecked,
    ev.NightEncounterEnded,
    ev.CampBroken,
)


def evolve(state: CampState | None, event: Event) -> CampState | None:
    """The camp after one event; a new ``CampMade`` starts a night and keeps the running totals."""
    if isinstance(event, ev.CampMade):
        before = state or CampState()
        return CampState(phase=before.phase, made=event, last_night=before.last_night, healed=before.healed)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    match event:
        case PhaseChanged(procedure="camp", dest=dest):
            changes["phase"] = Phase[dest]
        case ev.FirewoodGathered():
            changes["firewood"] = event
        case ev.WatchesSet():
            changes["watches"] = event
        case ev.NightChecked():
            changes["checks"] = (*state.checks, event)
        case ev.NightEncounterEnded():
            changes["encounters"] = (*state.encounters, event)
        case ev.CampBroken():
            changes.update(last_night=event, healed=_healed(state, event))
    return attrs.evolve(state, **changes) if changes else state


def under_way(ctx: StepContext) -> CampState:
    """The camp a step works on (the kit has fired a trigger only a camp under way allows)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, CampState)  # noqa: S101 - only ``make`` is allowed without a camp
    return state
