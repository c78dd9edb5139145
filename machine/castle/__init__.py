"""Castle encounters (seed 004, U&WA p.15, REFERENCE §4.15): castles on the map, their garrisons riding
out to a party that passes within two hexes or hails them, the castle's type and disposition (rolled
when first met and remembered), its demands by kind with their outcomes, a fight handed to the
encounter procedure, and the pursuit roll when the party flees.

``CASTLE`` declares it for the kit; the modules of this package hold its parts: the transition table,
its conditions and the guard on the travel day (``machine``), the folded state (``state``), the
castles in reach of the party's path (``reach``), the commands and steps, the typed rules it reads,
and the inverse audit uses (``inverse``).
"""

from __future__ import annotations

from hexlog.events import castle as ev
from hexlog.events.party import MemberEdited
from hexlog.machine.castle import rules, steps
from hexlog.machine.castle.commands import (
    INTERNAL,
    TRIGGERS,
    AcceptQuest,
    DemandToll,
    FightGarrison,
    FleeGarrison,
    HailCastle,
    Joust,
    JoustKeepingArmor,
    JoustReadingTheTotal,
    MeetGarrison,
    PartWays,
    PassCastles,
    PayToll,
    PlaceCastle,
    RefuseDemand,
)
from hexlog.machine.castle.inverse import INVERSE
from hexlog.machine.castle.machine import TRANSITIONS, CastleModel, guard, unavailable
from hexlog.machine.castle.rules import CastleTables
from hexlog.machine.castle.state import PROCEDURE, READS, CastleState, Phase, evolve
from hexlog.machine.kit.procedure import Procedure, Resume

CASTLE = Procedure(
    name=PROCEDURE,
    unavailable=unavailable,
    title="Castles: place them, the garrison riding out as the party passes or hails, demands, tolls, fight or flight.",
    steps={
        PlaceCastle: steps.place,
        PassCastles: steps.pass_by,
        HailCastle: steps.hail,
        MeetGarrison: steps.meet,
        Joust: steps.joust,
        JoustKeepingArmor: steps.joust_keeping_armor,
        JoustReadingTheTotal: steps.joust_reading_the_total,
        DemandToll: steps.toll,
        PayToll: steps.pay,
        AcceptQuest: steps.quest,
        RefuseDemand: steps.refuse,
        FightGarrison: steps.fight,
        FleeGarrison: steps.flee,
        PartWays: steps.part,
    },
    triggers=TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.DONE}),
    model=CastleModel,
    fold=evolve,
    reads=READS,
    state_type=CastleState,
    rules=(CastleTables,),
    rules_check=rules.check,
    purposes=steps.PURPOSES,
    inverse=INVERSE,
    guards=(guard,),
    internal=INTERNAL,
    resume=Resume(trigger="fight_over", step=steps.fight_over),
    events=(
        ev.CastlePlaced,
        ev.CastlesPassed,
        ev.CastleHailed,
        ev.GarrisonMet,
        ev.JoustFought,
        MemberEdited,
        ev.TollDemanded,
        ev.TollPaid,
        ev.QuestAccepted,
        ev.DemandRefused,
        ev.GarrisonFled,
        ev.MeetingEnded,
    ),
)

__all__ = [
    "CASTLE",
    "PROCEDURE",
    "TRANSITIONS",
    "TRIGGERS",
    "AcceptQuest",
    "CastleState",
    "DemandToll",
    "FightGarrison",
    "FleeGarrison",
    "HailCastle",
    "Joust",
    "MeetGarrison",
    "PartWays",
    "PassCastles",
    "PayToll",
    "Phase",
    "PlaceCastle",
    "RefuseDemand",
]
