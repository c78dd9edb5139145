"""The chase's folded state: its phase, the gap, the rounds run, who is exhausted; built from events only.

Exhaustion outlives the chase that caused it: a new chase keeps it, and it ends once the exhausted
have rested the rules' turns: the delve's rests (``dungeon.rested``) count turn by turn, and a full
day of rest on a journey (``travel.rested``) or a night in camp (``camp.broken``) ends it.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import camp as camp_ev
from hexlog.events import chase as ev
from hexlog.events import dungeon as dungeon_ev
from hexlog.events import travel as travel_ev
from hexlog.events.procedure import PhaseChanged

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

PROCEDURE = "chase"


class Phase(enum.Enum):
    """Where a chase stands."""

    IDLE = "idle"
    #: A18: surprise and distance are to be rolled again
    REPEAT = "repeat"
    #: dungeon: the sides run, round by round
    RUNNING = "running"
    #: waterborne: the fleeing vessel's evasion roll is due
    EVASION = "evasion"
    #: waterborne: the pursuers close the gap, round by round, until they catch it
    CLOSING = "closing"
    ESCAPED = "escaped"
    CAUGHT = "caught"


@attrs.frozen(kw_only=True)
class Exhaustion:
    """Characters exhausted by running, and the turns they have rested since."""

    members: tuple[str, ...]
    penalty: int
    recover_after_turns: int
    rested_turns: int = 0

    @property
    def over(self) -> bool:
        """Whether they have rested enough."""
        return self.rested_turns >= self.recover_after_turns


@attrs.frozen(kw_only=True)
class ChaseState:
    """The latest chase of a campaign, and the exhaustion left by running."""

    started: ev.ChaseStarted
    phase: Phase = Phase.IDLE
    gap_ft: int = 0
    rounds: int = 0
    repeated: ev.StepsRepeated | None = None
    #: the pursuers stopped for something dropped (the next round the fleeing side gets away)
    halted: ev.ItemDropped | None = None
    dropped: tuple[ev.ItemDropped, ...] = ()
    evasion: ev.WaterEvasionRolled | None = None
    ended: ev.ChaseEnded | None = None
    exhaustion: Exhaustion | None = None

    @property
    def exhausted(self) -> tuple[str, ...]:
        """The characters still exhausted."""
        e = self.exhaustion
        return () if e is None or e.over else e.members

    @property
    def lost_first_round(self) -> tuple[bool, bool]:
        """(fleeing, pursuers): A18's repeated surprise costs a surprised side the first round."""
        r = self.repeated
        if r is None or self.rounds > 0:
            return (False, False)
        party_flees = self.started.fleeing.value == "party"
        fleeing = r.party_surprised if party_flees else r.monsters_surprised
        pursuers = r.monsters_surprised if party_flees else r.party_surprised
        return (fleeing, pursuers)


#: the events ``evolve`` reads: it leaves the state as it is at any other
READS: tuple[type[Event], ...] = (
    ev.ChaseStarted,
    PhaseChanged,
    ev.StepsRepeated,
    ev.RoundRun,
    ev.ItemDropped,
    ev.WaterEvasionRolled,
    ev.ChaseExhausted,
    ev.ChaseEnded,
    dungeon_ev.PartyRested,
    travel_ev.Rested,
    camp_ev.CampBroken,
)


def evolve(state: ChaseState | None, event: Event) -> ChaseState | None:  # noqa: C901 - one case per event
    """The chase after one event; a new ``ChaseStarted`` replaces a concluded one and keeps its exhaustion."""
    if isinstance(event, ev.ChaseStarted):
        kept = state.exhaustion if state is not None and state.exhausted else None
        return ChaseState(started=event, gap_ft=event.gap_ft, exhaustion=kept)
    if state is None:
        return None
    changes: dict[str, Any] = {}
    match event:
        case PhaseChanged(procedure="chase", dest=dest):
            changes["phase"] = Phase[dest]
        case ev.StepsRepeated():
            changes.update(repeated=event, gap_ft=event.gap_ft)
        case ev.RoundRun():
            changes.update(rounds=event.round, gap_ft=event.gap_after)
        case ev.ItemDropped():
            changes["dropped"] = (*state.dropped, event)
            if event.stopped:
                changes["halted"] = event
        case ev.WaterEvasionRolled():
            changes["evasion"] = event
        case ev.ChaseExhausted():
            changes["exhaustion"] = Exhaustion(
                members=event.members, penalty=event.penalty, recover_after_turns=event.recover_after_turns
            )
        case ev.ChaseEnded():
            changes["ended"] = event
        case dungeon_ev.PartyRested(turns=turns) if state.exhaustion is not None and state.exhausted:
            changes["exhaustion"] = attrs.evolve(state.exhaustion, rested_turns=state.exhaustion.rested_turns + turns)
        case travel_ev.Rested() | camp_ev.CampBroken() if state.exhaustion is not None and state.exhausted:
            e = state.exhaustion
            changes["exhaustion"] = attrs.evolve(e, rested_turns=max(e.rested_turns, e.recover_after_turns))
    return attrs.evolve(state, **changes) if changes else state


def under_way(ctx: StepContext) -> ChaseState:
    """The chase a step works on (the kit has fired a trigger only a chase allows)."""
    state = ctx.state(PROCEDURE)
    assert isinstance(state, ChaseState)  # noqa: S101 - only ``start`` is allowed without a chase
    return state
