"""An encounter hands its pursuit to the chase (OSE §2.9, seed 004 §4.4), and takes up again when it ends.

On water: under option ``waterborne_pursuit_hands_off`` and rules with the chase's ``tables.evasion_waterborne``, an
encounter on water whose pursuers give chase does not conclude in pursuit: the pursuit decision's step
settles it (``ctx.follow``) and hands the chase off in the same command, with what the encounter knows
(who flees, the distance, each side's rate, the monsters, who was surprised). The chase is the vessels'
evasion by the difference of their speeds, then rounds in which the gap closes. Underground: the encounter a
delve waits for, under rules with the chase's ``tables.dungeon_pursuit``, does the same with the chase in the
dungeon (since ``encounter.pursuit_decided`` version 2), and so does one the referee started in the dungeon setting
with no procedure waiting for it (since version 3), so the chase starts at once, no turn passing before it.
The encounter waits in phase CHASE; when the chase ends the kit resumes it: a side caught is fought (COMBAT, the
encounter goes on, and the delve with it waits for its end), one that got away ends the encounter (evaded). Pursuers
who let the fleeing side go conclude it at once, as on land.

Without the option (every ruleset recorded before it) the encounter on water concludes in pursuit as it always did,
and the procedure that handed it off (a ship's travel day) or the referee (``chase start --setting
waterborne --from-encounter N``) starts the chase; a delve's encounter whose pursuit was decided before version 2
concluded in pursuit, and the delve handed the chase on; one the referee started, decided before version 3,
concluded in pursuit, and the referee started the chase (``chase start --from-encounter N``). The chase package
reads the encounter, so it is imported here only when a step or condition needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.vocabulary import Setting
from hexlog.machine.encounter.conclusion import conclude_encounter
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.encounter.state import EncounterState, Phase, enters, under_way

if TYPE_CHECKING:
    from hexlog.events import encounter as ev
    from hexlog.machine.kit.context import StepContext
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

#: the trigger the pursuit decision's step fires once the decision is recorded
SETTLE = "settle"
#: the procedure handed off to, and how its ending reads (``chase.ended``'s outcome)
CHASE = "chase"
CAUGHT = "caught"
#: the encounter's outcome when the fleeing side got away from the chase
EVADED = "evaded"
#: the procedure whose encounter hands its chase off underground, and the encounter as procedures know it
DELVE = "dungeon"
ENCOUNTER = "encounter"


def underground(rules: Ruleset, table: Table, state: EncounterState, *, delve_only: bool = False) -> bool:
    """Whether the encounter under way hands its pursuit to the dungeon chase itself: a delve waits for it or (unless
    ``delve_only``, as releases before ``encounter.pursuit_decided`` version 3 had it) the referee started it in the
    dungeon setting and no procedure waits for it; under rules whose chase has the dungeon pursuit table (without it
    the delve simply goes on when the encounter ends)."""
    if (DELVE, ENCOUNTER) not in table.handoffs and (delve_only or not started_in_the_dungeon(table, state)):
        return False
    from hexlog.machine.chase.rules import ChaseTables  # noqa: PLC0415 - the chase imports the encounter

    return rules.part(ChaseTables).dungeon_pursuit is not None


def started_in_the_dungeon(table: Table, state: EncounterState) -> bool:
    """Whether the referee started the encounter in the dungeon setting, with no procedure waiting for it (a journey
    or a camp that meets it goes on after it as its own rules say)."""
    return state.setting is Setting.DUNGEON and all(child != ENCOUNTER for _, child in table.handoffs)


def hands_off(rules: Ruleset, state: EncounterState) -> bool:
    """Whether the pursuit of this encounter is the chase on water's: a waterborne encounter, under the option
    and rules whose chase has the waterborne evasion table (without it a chase there would be refused)."""
    if state.setting is not Setting.WATERBORNE or not rules.part(EncounterOptions).waterborne_pursuit_hands_off:
        return False
    from hexlog.machine.chase.rules import ChaseTables  # noqa: PLC0415 - the chase imports the encounter

    return rules.part(ChaseTables).evasion_waterborne is not None


def caught(table: Table) -> bool:
    """Whether the chase the encounter waited for ended with the fleeing side caught."""
    ended = getattr(table.procedures.get(CHASE), "ended", None)
    return ended is not None and str(ended.outcome) == CAUGHT


def settle(ctx: StepContext, decision: ev.PursuitDecided) -> None:
    """After the pursuit decision on water: pursued, the chase takes over (the encounter waits for it); let go,
    the encounter ends."""
    ctx.follow(SETTLE)
    state = under_way(ctx)
    if state.phase is Phase.CHASE:
        from hexlog.machine.chase import handover  # noqa: PLC0415 - the chase imports the encounter

        afloat = state.setting is Setting.WATERBORNE and hands_off(ctx.rules, state)
        chase = handover.from_encounter(state, Setting.WATERBORNE if afloat else Setting.DUNGEON)
        assert chase is not None  # noqa: S101 - the row into CHASE is taken only when pursued
        ctx.hand_off(chase)
        return
    conclude_encounter(ctx, state, EVADED, f"the {decision.pursuer} let the {decision.fleeing} go")


def resumed(ctx: StepContext, command: object) -> None:  # noqa: ARG001 - the resume signature
    """The chase is over: caught, the sides fight and the encounter goes on; escaped, it ends."""
    if not enters(ctx, Phase.CONCLUDED):
        return
    state = under_way(ctx)
    chase = ctx.state(CHASE)
    ended = getattr(chase, "ended", None)
    fled = state.fleeing or "party"
    why = f": {ended.reason}" if ended is not None and ended.reason else ""
    started = getattr(chase, "started", None)
    where = " on the water" if getattr(started, "setting", "") == Setting.WATERBORNE else ""
    conclude_encounter(ctx, state, EVADED, f"the {fled} got away{where}{why}")


__all__ = [
    "CAUGHT",
    "EVADED",
    "SETTLE",
    "caught",
    "hands_off",
    "resumed",
    "settle",
    "started_in_the_dungeon",
    "underground",
]
