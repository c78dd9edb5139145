"""The encounter's folded state: its phase and the facts recorded so far, built from events only."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import encounter as ev
from hexlog.events.procedure import PhaseChanged
from hexlog.events.vocabulary import FEET_PER_YARD, Side, Unit
from hexlog.machine.kit.changed import changed

if TYPE_CHECKING:
    from hexlog.machine.kit.context import StepContext

if TYPE_CHECKING:
    from hexlog.events.base import Event

PROCEDURE = "encounter"
#: the basis a pursuit decision records when no reaction was rolled (the referee decided without one)
NO_REACTION = "no reaction rolled"
#: the trigger the kit fires when the chase the encounter handed off ends
RESUME = "resume"


class Phase(enum.Enum):
    """Where an encounter stands."""

    IDLE = "idle"
    SURPRISE = "surprise"
    DISTANCE = "distance"
    FREE_ACTION = "free_action"
    INITIATIVE = "initiative"
    ACTIONS = "actions"
    EVASION = "evasion"
    #: on water: the pursuit was handed to the chase (the vessels' evasion), and the encounter waits for it
    CHASE = "chase"
    COMBAT = "combat"
    CONCLUDED = "concluded"


@attrs.frozen(kw_only=True)
class EncounterState:
    """The latest encounter of a campaign: its phase and the facts recorded so far."""

    started: ev.EncounterStarted
    phase: Phase = Phase.IDLE
    movement: ev.MovementRated | None = None
    surprise: ev.SurpriseChecked | None = None
    surrounded: ev.PartySurrounded | None = None
    distance: ev.DistanceDetermined | None = None
    free_action: ev.FreeActionTaken | None = None
    initiative: ev.InitiativeRolled | None = None
    #: the round the latest initiative was rolled for (1: the first; rolled again each round under OSE)
    initiative_round: int = 0
    #: the latest reaction roll, and how many were rolled
    reaction: ev.ReactionRolled | None = None
    reactions: int = 0
    actions: tuple[ev.ActionChosen, ...] = ()
    rounds: int = 0
    in_combat: bool = False
    pursuit: ev.PursuitDecided | None = None
    #: seed 004: the fleeing party's evasion roll in the wilderness
    evasion: ev.EvasionRolled | None = None
    concluded: ev.EncounterConcluded | None = None
    #: the chase it handed off has ended and the encounter took up again (the first round is long past)
    chased: bool = False
    #: set when the encounter was cancelled (started by mistake)
    cancelled: ev.EncounterCancelled | None = None

    @property
    def setting(self) -> ev.Setting:
        """Where it happens."""
        return self.started.setting

    @property
    def surprised(self) -> tuple[bool, bool]:
        """Whether (party, monsters) are surprised."""
        s = self.surprise
        return (s.party_surprised, s.monsters_surprised) if s is not None else (False, False)

    @property
    def advantage(self) -> ev.Advantage:
        """``party``, ``monsters`` or ``none``: who surprised the other alone."""
        return self.surprise.advantage if self.surprise is not None else ev.Advantage.NONE

    @property
    def advantage_kind(self) -> ev.AdvantageKind | None:
        """``round``, ``segments`` or ``single_action``; None before surprise."""
        return self.surprise.advantage_kind if self.surprise is not None else None

    def free_segments(self, side: Side) -> int:
        """AD&D: the segments ``side`` may act in before the other: what the other loses beyond its own loss.

        Under ``difference`` only one side loses segments; under ``face`` both lose their own face,
        so the free segments are the gap between the two losses, never the surprised side's whole loss.
        """
        s = self.surprise
        if s is None or s.advantage_kind is not ev.AdvantageKind.SEGMENTS:
            return 0
        own, other = (
            (s.party_segments, s.monsters_segments) if side is Side.PARTY else (s.monsters_segments, s.party_segments)
        )
        return max(0, other - own)

    @property
    def distance_ft(self) -> int:
        """The encounter distance in feet; 0 before it is known."""
        d = self.distance
        return 0 if d is None else d.value * (FEET_PER_YARD if d.unit is Unit.YD else 1)

    @property
    def fleeing(self) -> Side | None:
        """The side that chose evasion, if any."""
        return next((a.side for a in reversed(self.actions) if a.action is ev.Action.EVASION), None)


#: the events kept as the latest fact of their kind, by the state field that holds them
_LATEST: dict[type[Event], str] = {
    ev.MovementRated: "movement",
    ev.SurpriseChecked: "surprise",
    ev.PartySurrounded: "surrounded",
    ev.DistanceDetermined: "distance",
    ev.FreeActionTaken: "free_action",
    ev.InitiativeRolled: "initiative",
    ev.PursuitDecided: "pursuit",
    ev.EvasionRolled: "evasion",
    ev.EncounterConcluded: "concluded",
    ev.EncounterCancelled: "cancelled",
}


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.EncounterStarted,
    *_LATEST,
    PhaseChanged,
    ev.ReactionRolled,
    ev.ActionChosen,
    ev.RoundPlayed,
    ev.EncounterCorrected,
)


def _entered(state: EncounterState, change: PhaseChanged) -> dict[str, Any]:
    """What a phase change of the encounter changes: its phase; back from a chase (the kit's resume), a new
    initiative is due for the fight, whatever was rolled before it."""
    if change.trigger == RESUME:
        return {"phase": Phase[change.dest], "chased": True, "initiative_round": state.rounds}
    return {"phase": Phase[change.dest]}


def evolve(state: EncounterState | None, event: Event) -> EncounterState | None:
    """The encounter after one event; a new ``EncounterStarted`` replaces a concluded one."""
    if isinstance(event, ev.EncounterStarted):
        return EncounterState(started=event)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    latest = _LATEST.get(type(event))
    if latest is not None:
        changes[latest] = event
    match event:
        case PhaseChanged(procedure="encounter"):
            changes.update(_entered(state, event))
        case ev.InitiativeRolled():
            changes.update(initiative_round=state.rounds + 1)
        case ev.ReactionRolled():
            changes.update(reaction=event, reactions=state.reactions + 1)
        case ev.ActionChosen():
            combat = state.in_combat or event.action is ev.Action.COMBAT
            changes.update(actions=(*state.actions, event), in_combat=combat)
        case ev.RoundPlayed():
            changes.update(rounds=event.round, in_combat=state.in_combat or event.combat)
        case ev.EncounterCorrected(field="monster_count", now=now):
            changes["started"] = changed(state.started, monster_count=now)
    return changed(state, **changes) if changes else state


def under_way(ctx: StepContext) -> EncounterState:
    """The encounter a step works on (the kit has fired a trigger only a running encounter allows)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, EncounterState)  # noqa: S101 - only ``start`` is allowed without an encounter
    return state


def enters(ctx: StepContext, phase: Phase) -> bool:
    """Whether the step under way takes the encounter into ``phase``."""
    change = ctx.change
    return change is not None and change.dest == phase.name
