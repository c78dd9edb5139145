"""A night in camp (seed 004 §4.16): setup, firewood, watches, the night's wandering check, sleep.

``CAMP`` declares it for the kit; the modules of this package hold its parts: the transition table
and its conditions (``machine``), the folded state (``state``), the commands and steps, the typed
rules it reads, the pure rules of the night (``night``) and the inverse audit uses (``inverse``).
An encounter in the night is handed to the encounter procedure; the camp resumes when it concludes, and
when it ended with the party pursued, hands the wilderness pursuit off and resumes when that concludes.
"""

from __future__ import annotations

from hexlog.events import camp as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.machine.camp import rules, steps
from hexlog.machine.camp.commands import (
    INTERNAL,
    TRIGGERS,
    BreakCamp,
    CheckNight,
    CheckNightByRow,
    CheckNightWatchOnEncounter,
    GatherFirewood,
    MakeCamp,
    MeetEncounter,
    SetWatches,
)
from hexlog.machine.camp.inverse import INVERSE
from hexlog.machine.camp.machine import TRANSITIONS, CampModel, guard, night_first, unavailable
from hexlog.machine.camp.rules import CampTables
from hexlog.machine.camp.state import PROCEDURE, READS, CampState, Phase, evolve
from hexlog.machine.hexmap.rules import MapTables, TerrainOptions
from hexlog.machine.kit.procedure import Procedure, Resume
from hexlog.machine.travel.rules import ChanceSource, TerrainChances, WildernessOptions, WildernessTables

CAMP = Procedure(
    name=PROCEDURE,
    unavailable=unavailable,
    title="Run a night in camp: setup, firewood, watches, the night's wandering check, sleep and healing.",
    steps={
        MakeCamp: steps.make,
        GatherFirewood: steps.firewood,
        SetWatches: steps.watches,
        CheckNight: steps.check,
        CheckNightByRow: steps.check_by_row,
        CheckNightWatchOnEncounter: steps.check_watch_on_encounter,
        MeetEncounter: steps.meet,
        BreakCamp: steps.break_camp,
    },
    triggers=TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.BROKEN}),
    model=CampModel,
    fold=evolve,
    reads=READS,
    state_type=CampState,
    rules=(CampTables, ChanceSource, WildernessOptions, TerrainChances, WildernessTables, TerrainOptions, MapTables),
    rules_check=rules.check,
    purposes=steps.PURPOSES,
    inverse=INVERSE,
    guards=(guard, night_first),
    internal=INTERNAL,
    modifiers=(steps.sleepers,),
    resume=Resume(trigger="encounter_over", step=steps.encounter_over),
    events=(
        ev.CampMade,
        ev.FirewoodGathered,
        ev.WatchesSet,
        ev.NightChecked,
        ev.NightEncounterEnded,
        ev.CampBroken,
        ClockAdvanced,
    ),
)

__all__ = [
    "CAMP",
    "PROCEDURE",
    "TRANSITIONS",
    "TRIGGERS",
    "BreakCamp",
    "CampState",
    "CheckNight",
    "GatherFirewood",
    "MakeCamp",
    "MeetEncounter",
    "Phase",
    "SetWatches",
]
