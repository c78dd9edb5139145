"""The pursuit's folded state: its phase, the facts it started with, and what its rolls decided."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import pursuit as ev
from hexlog.events.encounter import EncounterStarted
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "pursuit"
#: the outcome of a pursuit the party got away from
ESCAPED = "escaped"


class RestingStep(enum.IntEnum):
    """How far the hand-off of the next encounter the rest after an escape met has come within one command: the
    procedure that handed the pursuit off resumes (after the pursuit, or after an encounter), moves, hands an
    encounter off, and that encounter begins. Any other event the pursuit reads in between ends the run."""

    NONE = 0
    RESUMED = 1
    MOVED = 2
    HANDED_OFF = 3


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
    #: the number of the latest of them to begin (0 before one)
    resting_last: int = 0
    #: the procedure that handed the pursuit off, once it has resumed after the escape ("" until then, and for a
    #: pursuit started on its own, whose rest nobody hands off)
    resting_parent: str = ""
    #: where the hand-off of the next of them stands (``RestingStep``): only an encounter that procedure hands off
    #: as it resumes, after the pursuit or after the latest of them, is one the rest met
    resting_step: int = 0

    @property
    def resting_owed(self) -> int:
        """How many encounters the rest after the escape met have not begun yet (0 for a pursuit not escaped)."""
        rested, ended = self.rested, self.ended
        if rested is None or ended is None or ended.outcome != ESCAPED:
            return 0
        return max(0, rested.encounters - self.resting_met)

    def resting_due(self, concluded: object) -> bool:
        """Whether the next encounter the rest after the escape met is due now, as the procedure that handed the
        pursuit off resumes: after the pursuit itself (``concluded`` is then the pursuit), or after the latest of them
        (``concluded``, the encounter that concluded, is it)."""
        if not self.resting_owed or self.resting_step != RestingStep.RESUMED:
            return False
        if concluded is self:
            return self.resting_met == 0
        number = getattr(getattr(concluded, "started", None), "number", None)
        return self.resting_met > 0 and number == self.resting_last

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
    Resumed,
    HandedOff,
    EncounterStarted,
)


def evolve(state: PursuitState | None, event: Event) -> PursuitState | None:  # noqa: C901 - one case per event
    """The pursuit after one event; a new ``PursuitStarted`` replaces the last pursuit."""
    if isinstance(event, ev.PursuitStarted):
        return PursuitState(started=event)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    if state.resting_owed and isinstance(event, Resumed | PhaseChanged | HandedOff | EncounterStarted):
        changes.update(_resting(state, event))
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
    return attrs.evolve(state, **changes) if changes else state


def _resting(state: PursuitState, event: Event) -> dict[str, Any]:
    """What an event changes of the hand-off of the encounters the rest after the escape met:
    the procedure that handed the pursuit off resumes, after the pursuit (it is noted then) or after an encounter;
    it moves; it hands an encounter off; that encounter begins, and is counted. Any other event read in between
    ends the run, so that an encounter handed off otherwise, or a pursuit started on its own, counts for nothing."""
    step, parent = state.resting_step, state.resting_parent
    match event:
        case Resumed(child="pursuit"):
            return {"resting_parent": event.parent, "resting_step": int(RestingStep.RESUMED)}
        case Resumed() if parent and event.parent == parent:
            return {"resting_step": int(RestingStep.RESUMED)}
        case PhaseChanged() if step == RestingStep.RESUMED and event.procedure == parent:
            return {"resting_step": int(RestingStep.MOVED)}
        case HandedOff(child="encounter") if step == RestingStep.MOVED and event.parent == parent:
            return {"resting_step": int(RestingStep.HANDED_OFF)}
        case EncounterStarted() if step == RestingStep.HANDED_OFF:
            return {"resting_met": state.resting_met + 1, "resting_last": event.number, "resting_step": 0}
    return {"resting_step": int(RestingStep.NONE)} if step else {}


def under_way(ctx: StepContext) -> PursuitState:
    """The pursuit a step works on (only ``start`` is allowed without one)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, PursuitState)  # noqa: S101 - only ``start`` is allowed without a pursuit
    return state
