"""The encounter's steps: where the rules roll the dice and decide, one per command.

The kit fires each command's trigger before its step runs (a refusal writes nothing) and records the
phase change after it. A step rolls with ``ctx.roll`` and emits the decision events, each naming the
nonces of the rolls it used. The opening steps are in ``opening``, the rest in ``resolution``;
surprise and distance are the pure rules of ``surprise`` and ``positions``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import encounter as ev
from hexlog.machine.encounter.commands import (
    Avoid,
    CancelEncounter,
    CheckSurprise,
    ConcludeEncounter,
    CorrectEncounter,
    DecidePursuit,
    DecidePursuitBeforeHandOff,
    DetermineDistance,
    Encircle,
    Evade,
    Fight,
    Parley,
    PlayRound,
    RerollReaction,
    RollEvasion,
    RollEvasionBothAsPartySurprised,
    RollEvasionForNobody,
    RollInitiative,
    RollReaction,
    RollReactionSpokenWhileSurprised,
    StartEncounter,
    TakeFreeAction,
    Wait,
)
from hexlog.machine.encounter.opening import check_surprise, determine_distance, encircle, start, take_free_action
from hexlog.machine.encounter.resolution import (
    avoid,
    cancel,
    choose,
    conclude,
    correct,
    decide_pursuit,
    play_round,
    react,
    react_as_spoken,
    reroll_reaction,
    roll_evasion,
    roll_initiative,
)

if TYPE_CHECKING:
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.procedure import Step

STEPS: dict[type[Command], Step] = {
    StartEncounter: start,
    CheckSurprise: check_surprise,
    Encircle: encircle,
    DetermineDistance: determine_distance,
    TakeFreeAction: take_free_action,
    RollInitiative: roll_initiative,
    RollReaction: react,
    RollReactionSpokenWhileSurprised: react_as_spoken,
    RerollReaction: reroll_reaction,
    Parley: choose(ev.Action.PARLEY),
    Wait: choose(ev.Action.WAIT),
    PlayRound: play_round,
    Fight: choose(ev.Action.COMBAT),
    Evade: choose(ev.Action.EVASION),
    DecidePursuit: decide_pursuit,
    DecidePursuitBeforeHandOff: decide_pursuit,
    RollEvasion: roll_evasion,
    RollEvasionBothAsPartySurprised: roll_evasion,
    RollEvasionForNobody: roll_evasion,
    Avoid: avoid,
    ConcludeEncounter: conclude,
    CancelEncounter: cancel,
    CorrectEncounter: correct,
}
