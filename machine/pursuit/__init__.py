"""The wilderness pursuit (seed 004 §4.14, hex by hex; OSE §2.9, day by day).

``PURSUIT`` declares it for the kit: the transition table and its conditions (``machine``), the
folded state (``state``), the commands, the steps, and the inverse audit uses to re-run its
decisions. The evasion chance is the pure rule of ``machine.evasion``. A travel day hands a pursuit
off when an encounter it handed off ends in pursuit, and resumes when the pursuit concludes; the
referee may also start one directly.
"""

from __future__ import annotations

from hexlog.events import pursuit as ev
from hexlog.events import travel as travel_ev
from hexlog.events.clock import ClockAdvanced
from hexlog.machine import evasion
from hexlog.machine.evasion import EvasionOptions, EvasionTables
from hexlog.machine.hexmap.rules import TerrainOptions
from hexlog.machine.kit.procedure import Procedure, Resume
from hexlog.machine.pursuit import commands as c
from hexlog.machine.pursuit import steps
from hexlog.machine.pursuit.guard import OWN_TIME, guard
from hexlog.machine.pursuit.inverse import INVERSE
from hexlog.machine.pursuit.machine import TRANSITIONS, PursuitModel, unavailable
from hexlog.machine.pursuit.state import PROCEDURE, READS, Phase, PursuitState, evolve
from hexlog.machine.travel.rules import ChanceSource, TerrainChances

#: OSE lets either side flee (§2.8); the pursuit is the fleeing party's
LIMIT_FLEEING_PARTY = (
    "a fleeing party only: OSE lets either side flee and the other pursue (§2.8-2.9), but a wilderness pursuit here "
    "is always of the party. Monsters that flee in the wilderness from a party that gives chase end their encounter "
    "in pursuit and no pursuit follows it: read the table's chance for the fleeing monsters (tables.evasion, their "
    "number against the party's) and roll it as a free roll (hexlog roll 1d100), then play the day's pursuit in words."
)

PURSUIT = Procedure(
    name=PROCEDURE,
    unavailable=unavailable,
    title="Wilderness pursuit: the evasion roll, flight hex by hex (day by day in OSE), catch, escape and rest.",
    steps={
        c.StartPursuit: steps.start,
        c.RollEvasion: steps.roll_evasion,
        c.RollEvasionTrueHex: steps.roll_evasion_true_hex,
        c.RollEvasionForNobody: steps.roll_evasion_for_nobody,
        c.Flee: steps.flee,
        c.FleeInPublic: steps.flee_in_public,
        c.FleeHeldUnrecorded: steps.flee_held_unrecorded,
        c.Catch: steps.catch,
        c.CatchTrueHex: steps.catch_true_hex,
        c.ContinueCheck: steps.continue_check,
        c.Stop: steps.stop,
        c.Rest: steps.rest,
        c.RestTrueHex: steps.rest_true_hex,
        c.RestByName: steps.rest_by_name,
        c.RestByRow: steps.rest_by_row,
    },
    triggers=c.TRIGGERS,
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.IDLE,
    final=frozenset({Phase.CAUGHT, Phase.ESCAPED}),
    model=PursuitModel,
    fold=evolve,
    reads=READS,
    state_type=PursuitState,
    rules=(EvasionOptions, EvasionTables, ChanceSource, TerrainChances, TerrainOptions),
    rules_check=evasion.check,
    purposes=("pursuit.evasion", "pursuit.flight", "pursuit.catch", "pursuit.continue", "pursuit.rest"),
    inverse=INVERSE,
    guards=(guard,),
    due_checks=(OWN_TIME,),
    internal=c.INTERNAL,
    resume=Resume(trigger="resume", step=steps.resumed),
    needs_party="a pursuit is under way; it ends when the party is caught or gets away",
    limits=(LIMIT_FLEEING_PARTY,),
    events=(
        ev.PursuitStarted,
        ev.PursuitEvasionRolled,
        ev.HeadingRolled,
        ev.PursuitFled,
        travel_ev.TruePosition,
        ev.CatchRolled,
        ev.ContinueChecked,
        ev.PursuitStopped,
        ev.PursuitRested,
        ev.PursuitEnded,
        ClockAdvanced,
    ),
)

__all__ = ["PROCEDURE", "PURSUIT", "TRANSITIONS", "Phase", "PursuitState"]
