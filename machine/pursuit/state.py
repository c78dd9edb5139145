"""The pursuit's folded state: its phase, the facts it started with, and what its rolls decided."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import pursuit as ev
from hexlog.events.encounter import EncounterStarted
from hexlog.events.procedure import PhaseChanged

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "pursuit"
#: the outcome of a pursuit the party got away from
ESCAPED = "escaped"


class Phase(enum.Enum):
    """Where a pursuit stands; after a roll the next step depends on what it decided."""

    IDLE = "idle"
    #: the party's evasion roll is due
    EVASION = "evasion"
    #: the evasion was rolled: rest (evaded) or flee (failed)
    EVASION_ROLLED = "evasion_rolled"
    #: the party fled into a hex (a day): catch (faster pursuers), or rest / roll again
    FLED = "fled"
    #: the catch was rolled: caught (an encounter is handed off), or evasion / continue check / stop
    CATCH_ROLLED = "catch_rolled"
    #: a castle force's continue check was rolled: flee (it continues) or rest (it gave up)
    CONTINUE_ROLLED = "continue_rolled"
    #: OSE: the party stopped (an encounter is handed off)
    HALTED = "halted"
    CAUGHT = "caught"
    ESCAPED = "escaped"


@attrs.frozen(kw_only=True)
class PursuitState:
    """The latest pursuit of a campaign."""

    started: ev.PursuitStarted
    phase: Phase = Phase.IDLE
    evasion: ev.PursuitEvasionRolled | None = None
    hexes_fled: int = 0
    fled: ev.PursuitFled | None = None
    #: the referee's heading of the last flight during a journey (a player's view never shows it)
    heading: ev.HeadingRolled | None = None
    catch: ev.CatchRolled | None = None
    continued: ev.ContinueChecked | None = None
    rested: ev.PursuitRested | None = None
    ended: ev.PursuitEnded | None = None
    #: how many of the encounters the rest after the escape met have begun: the procedure that handed the pursuit
    #: off hands them to the encounter procedure one after another (seed 004 §4.14: an encounter roll per half day)
    resting_met: int = 0

    @property
    def resting_owed(self) -> int:
        """How many encounters the rest after the escape met have not begun yet (0 for a pursuit not escaped)."""
        rested, ended = self.rested, self.ended
        if rested is None or ended is None or ended.outcome != ESCAPED:
            return 0
        return max(0, rested.encounters - self.resting_met)

    @property
    def evaded(self) -> bool:
        """The last evasion roll passed (False before one, and when it was made by the encounter and failed)."""
        return self.evasion is not None and self.evasion.evaded

    @property
    def pursuers_faster(self) -> bool:
        """The pursuers' base rate is above the party's."""
        return self.started.pursuers_speed > self.started.party_speed

    @property
    def caught(self) -> bool:
        """The last catch roll caught the party."""
        return self.catch is not None and self.catch.caught


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.PursuitStarted,
    PhaseChanged,
    ev.PursuitEvasionRolled,
    ev.HeadingRolled,
    ev.PursuitFled,
    ev.CatchRolled,
    ev.ContinueChecked,
    ev.PursuitRested,
    ev.PursuitEnded,
    EncounterStarted,
)


def evolve(state: PursuitState | None, event: Event) -> PursuitState | None:  # noqa: C901 - one case per event
    """The pursuit after one event; a new ``PursuitStarted`` replaces the last pursuit."""
    if isinstance(event, ev.PursuitStarted):
        return PursuitState(started=event)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    match event:
        case PhaseChanged(procedure="pursuit", dest=dest):
            changes["phase"] = Phase[dest]
        case ev.PursuitEvasionRolled():
            changes.update(evasion=event, catch=None, continued=None)
        case ev.HeadingRolled():
            changes["heading"] = event
        case ev.PursuitFled():
            changes.update(fled=event, hexes_fled=event.hexes_fled, catch=None, continued=None)
            if not event.secret:
                changes["heading"] = None
        case ev.CatchRolled():
            changes["catch"] = event
        case ev.ContinueChecked():
            changes["continued"] = event
        case ev.PursuitRested():
            changes["rested"] = event
        case ev.PursuitEnded():
            changes["ended"] = event
        case EncounterStarted() if state.resting_owed:  # one the rest after the escape met
            changes["resting_met"] = state.resting_met + 1
    return attrs.evolve(state, **changes) if changes else state


def under_way(ctx: StepContext) -> PursuitState:
    """The pursuit a step works on (only ``start`` is allowed without one)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, PursuitState)  # noqa: S101 - only ``start`` is allowed without a pursuit
    return state
