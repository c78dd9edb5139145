"""The dungeon turn (seed 004 §4.2, light from OSE §1): a delve from its entry to its exit.

``DUNGEON`` declares it for the kit; the modules of this package hold its parts: the transition
table and its conditions (``machine``), the folded state (``state``), the commands, the steps
(``steps``, ``doors``), what falls due as time passes (``due``: lights burning down, wandering
checks), the penalty of an hour without rest on attack and damage rolls (``rest``, a modifier
source), the typed rules it reads (``rules``) and the inverse audit uses (``inverse``).
"""

from __future__ import annotations

from hexlog.events import dungeon as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.machine.dungeon import doors, due, rest, steps
from hexlog.machine.dungeon.commands import (
    INTERNAL,
    TRIGGERS,
    CheckWandering,
    EnterDungeon,
    LeaveDungeon,
    LightSource,
    Listen,
    Meet,
    Move,
    OpenDoor,
    RefillLantern,
    Rest,
    Search,
    SearchRoll,
    SpikeDoor,
)
from hexlog.machine.dungeon.inverse import INVERSE
from hexlog.machine.dungeon.machine import TRANSITIONS, DungeonModel, unavailable
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.dungeon.state import PROCEDURE, READS, DelveState, Light, Phase, evolve
from hexlog.machine.kit.procedure import DueCheck, Procedure, Resume

DUNGEON = Procedure(
    name=PROCEDURE,
    unavailable=unavailable,
    title="Run a delve turn by turn: light, movement, doors, searching, rest, wandering monsters.",
    steps={
        EnterDungeon: steps.enter,
        LightSource: steps.light,
        RefillLantern: steps.refill,
        Move: steps.move,
        OpenDoor: doors.open_door,
        Listen: doors.listen,
        Search: steps.search,
        SpikeDoor: doors.spike,
        Rest: steps.rest,
        Meet: steps.meet,
        LeaveDungeon: steps.leave,
        CheckWandering: due.check_wandering,
        SearchRoll: steps.search_roll,
    },
    triggers=TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.OUTSIDE,
    final=frozenset({Phase.LEFT}),
    model=DungeonModel,
    fold=evolve,
    reads=READS,
    state_type=DelveState,
    rules=(DungeonTables,),
    purposes=(due.WANDERING, steps.SEARCH, doors.OPEN, doors.LISTEN, doors.SPIKE),
    inverse=INVERSE,
    internal=INTERNAL,
    due_checks=(
        DueCheck(name="light", run=due.burn, records=(ev.LightBurnedOut,), sole=True),
        DueCheck(name="wandering", run=due.wander, records=(ev.WanderingChecked,), sole=True),
    ),
    modifiers=(rest.modifiers,),
    guards=(due.guard,),
    resume=Resume(trigger="resume", step=steps.resume),
    needs_party="a delve is under way; leave the dungeon first",
    events=(
        ev.DelveEntered,
        ev.LightLit,
        ev.LanternRefilled,
        ev.LightBurnedOut,
        ev.PartyMoved,
        ev.WanderingChecked,
        ev.DoorOpened,
        ev.DoorListened,
        ev.SecretDoorSearched,
        ev.DoorSpiked,
        ev.PartyRested,
        ev.DelveLeft,
        ClockAdvanced,
    ),
)

__all__ = [
    "DUNGEON",
    "PROCEDURE",
    "TRANSITIONS",
    "TRIGGERS",
    "CheckWandering",
    "DelveState",
    "EnterDungeon",
    "LeaveDungeon",
    "Light",
    "LightSource",
    "Listen",
    "Meet",
    "Move",
    "OpenDoor",
    "Phase",
    "RefillLantern",
    "Rest",
    "Search",
    "SearchRoll",
    "SpikeDoor",
]
