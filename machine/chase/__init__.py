"""The chase (OSE §2.9, seed 004 §4.4): a pursuit in rounds in the dungeon, and a vessel's evasion on water.

``CHASE`` declares it for the kit; the modules of this package hold its parts: the transition
table and its conditions (``machine``), the folded state (``state``), the commands, the steps, the
arithmetic of a round (``rounds``), the typed rules it reads (``rules``), and the inverse audit uses
with the exhaustion it imposes on rolls (``inverse``). A delve's encounter and a waterborne one hand it off
themselves when their pursuers give chase (``encounter.afloat``), and resume when it ends (a side caught is
fought there); a delve whose encounter concluded in pursuit (as older releases recorded it) hands it on.
"""

from __future__ import annotations

from hexlog.events import chase as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.machine.chase import steps
from hexlog.machine.chase.commands import TRIGGERS, Drop, Evade, RepeatSteps, Run, StartChase
from hexlog.machine.chase.inverse import INVERSE, modifiers
from hexlog.machine.chase.machine import TRANSITIONS, ChaseModel, unavailable
from hexlog.machine.chase.rules import ChaseOptions, ChaseTables
from hexlog.machine.chase.state import PROCEDURE, READS, ChaseState, Phase, evolve
from hexlog.machine.kit.procedure import Procedure

#: the encounter knows each side's base rate, not a ship's
LIMIT_VESSEL_RATES = (
    "vessels' own speeds: a chase on water an encounter hands off starts from the encounter's rates (the party's "
    "slowest member, the monsters' --monster-speed). Give the pursuers' vessel as the encounter's --monster-speed, "
    "or conclude the encounter and start the chase by hand with --fleeing-ft and --pursuers-ft."
)

CHASE = Procedure(
    name=PROCEDURE,
    unavailable=unavailable,
    title="Run a pursuit: dungeon rounds of running, dropped treasure or food, obstacles, exhaustion; "
    "a vessel's evasion on water.",
    steps={
        StartChase: steps.start,
        RepeatSteps: steps.repeat,
        Run: steps.run,
        Drop: steps.drop,
        Evade: steps.evade,
    },
    triggers=TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.ESCAPED, Phase.CAUGHT}),
    model=ChaseModel,
    fold=evolve,
    reads=READS,
    state_type=ChaseState,
    rules=(ChaseTables, ChaseOptions),
    purposes=(steps.SURPRISE, steps.DISTANCE, steps.DROP, steps.EVASION),
    inverse=INVERSE,
    modifiers=(modifiers,),
    limits=(LIMIT_VESSEL_RATES,),
    needs_party="a chase is under way; end it first",
    events=(
        ev.ChaseStarted,
        ev.StepsRepeated,
        ev.RoundRun,
        ev.ItemDropped,
        ev.WaterEvasionRolled,
        ev.ChaseExhausted,
        ev.ChaseEnded,
        ClockAdvanced,
    ),
)

__all__ = [
    "CHASE",
    "PROCEDURE",
    "TRANSITIONS",
    "TRIGGERS",
    "ChaseState",
    "Drop",
    "Evade",
    "Phase",
    "RepeatSteps",
    "Run",
    "StartChase",
]
