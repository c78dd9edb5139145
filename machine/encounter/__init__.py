"""The encounter (seeds 000, 001 and 004): surprise, distance, initiative, reaction, actions, conclusion.

``ENCOUNTER`` declares it for the kit; the modules of this package hold its parts: the transition
table and its conditions (``machine``), the folded state (``state``), the commands and steps, the
typed rules it reads, the pure rules of surprise and distance, the invariants it owns (``guards``)
and the inverse audit uses to re-run its decisions (``inverse``). On water, and in a delve, it hands its pursuit to
the chase and resumes when that ends (``afloat``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import encounter as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.procedure import HandedOff
from hexlog.machine.encounter import afloat, positions, rules, surprise
from hexlog.machine.encounter.commands import (
    INTERNAL,
    TRIGGERS,
    Avoid,
    CancelEncounter,
    CheckSurprise,
    ConcludeEncounter,
    CorrectEncounter,
    DecidePursuit,
    DetermineDistance,
    Encircle,
    Evade,
    Fight,
    Parley,
    PlayRound,
    RerollReaction,
    RollEvasion,
    RollInitiative,
    RollReaction,
    StartEncounter,
    TakeFreeAction,
    Wait,
)
from hexlog.machine.encounter.guards import OWN_TIME, guard
from hexlog.machine.encounter.inverse import INVERSE
from hexlog.machine.encounter.machine import (
    RUNNING,
    TRANSITIONS,
    EncounterModel,
    party_may_speak,
    side_of,
    situation_of,
)
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables
from hexlog.machine.encounter.state import PROCEDURE, READS, RESUME, EncounterState, Phase, evolve
from hexlog.machine.encounter.steps import STEPS
from hexlog.machine.evasion import EvasionOptions, EvasionTables
from hexlog.machine.kit.procedure import Procedure, Resume

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset

#: seed 000 §2.4 allows more than two sides; hexlog runs two
LIMIT_TWO_SIDES = (
    "two sides only: the party and one group of monsters. Seed 000's further sides (followed by other "
    "sides in order from highest to lowest initiative) are not modelled: fold a third group into the "
    "monsters' side (one surprise roll, one initiative die, one reaction for them all) or run it as an "
    "encounter of its own after this one concludes."
)

#: seed 001 says nothing of light and surprise (REFERENCE A5 is seed 000's)
LIMIT_LIGHT_AND_SURPRISE = (
    "light and surprise under seed 001 (adnd): its text gives light a say only in the indoor distance (at most twice "
    "the light radius; a light without --light-radius lights default_light_radius_ft, 30 ft) and none in surprise, "
    "so light_blocks_surprise is false there and a side carrying light may still surprise the other. Set it true as a "
    "house rule for seed 000's reading (A5: a side carrying light in darkness cannot surprise), or give the side "
    "facing the light a surprise modifier (--party-surprise-mod, --monsters-surprise-mod)."
)


def check_rules(ruleset: Ruleset) -> None:
    """The checks across the encounter's typed rules: named entries exist, the distance rules can run."""
    rules.check(ruleset)
    positions.check(ruleset)


ENCOUNTER = Procedure(
    name=PROCEDURE,
    title="Run an encounter step by step: surprise, distance, initiative, reaction, actions, conclusion.",
    steps=STEPS,
    triggers=TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.CONCLUDED}),
    model=EncounterModel,
    fold=evolve,
    reads=READS,
    state_type=EncounterState,
    rules=(EncounterOptions, EncounterTables, EvasionOptions, EvasionTables),
    rules_check=check_rules,
    purposes=(surprise.PURPOSE, positions.PURPOSE, "encounter.initiative", "encounter.reaction", "encounter.evasion"),
    inverse=INVERSE,
    guards=(guard,),
    due_checks=(OWN_TIME,),
    internal=INTERNAL,
    resume=Resume(trigger=RESUME, step=afloat.resumed),
    limits=(LIMIT_TWO_SIDES, LIMIT_LIGHT_AND_SURPRISE),
    corrections=frozenset({"cancel", "correct"}),
    needs_party="an encounter is under way; conclude it first",
    events=(
        ev.EncounterStarted,
        ev.MovementRated,
        ev.SurpriseChecked,
        ev.PartySurrounded,
        ev.DistanceDetermined,
        ev.FreeActionTaken,
        ev.InitiativeRolled,
        ev.ReactionRolled,
        ev.ActionChosen,
        ev.PursuitDecided,
        ev.EvasionRolled,
        ev.RoundPlayed,
        ev.EncounterConcluded,
        ev.EncounterCancelled,
        ev.EncounterCorrected,
        ClockAdvanced,
        HandedOff,
    ),
)

__all__ = [
    "ENCOUNTER",
    "PROCEDURE",
    "RUNNING",
    "TRANSITIONS",
    "TRIGGERS",
    "Avoid",
    "CancelEncounter",
    "CheckSurprise",
    "ConcludeEncounter",
    "CorrectEncounter",
    "DecidePursuit",
    "DetermineDistance",
    "Encircle",
    "EncounterState",
    "Evade",
    "Fight",
    "Parley",
    "Phase",
    "PlayRound",
    "RerollReaction",
    "RollEvasion",
    "RollInitiative",
    "RollReaction",
    "StartEncounter",
    "TakeFreeAction",
    "Wait",
    "party_may_speak",
    "side_of",
    "situation_of",
]
