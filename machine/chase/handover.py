"""The chase an encounter hands over when it ends with one side pursued (OSE §2.9, seed 004 §4.4).

A procedure that handed an encounter off (the delve, for a pursuit underground; the travel day, for a
pursuit on water) reads this when it resumes: the encounter concluded in pursuit becomes the chase's
start, which takes the encounter's facts (its distance, each side's rate, who flees, the monsters).
Pure: it reads the folded encounter and the rules' chase tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.vocabulary import Setting, Side
from hexlog.machine.chase.commands import StartChase
from hexlog.machine.encounter.state import EncounterState

if TYPE_CHECKING:
    from hexlog.machine.chase.rules import ChaseTables

#: the outcome of an encounter whose pursuers chose to pursue (``encounter decide-pursuit``)
PURSUIT = "pursuit"


def ended_in_pursuit(state: object) -> bool:
    """Whether the encounter concluded with the side fled from pursuing."""
    return isinstance(state, EncounterState) and state.concluded is not None and state.concluded.outcome == PURSUIT


def from_encounter(state: object, setting: Setting) -> StartChase | None:
    """The chase (``setting``: dungeon or waterborne) that follows an encounter concluded in pursuit, else None."""
    if not isinstance(state, EncounterState) or not ended_in_pursuit(state):
        return None
    pursuit = state.pursuit
    fleeing = pursuit.fleeing if pursuit is not None else (state.fleeing or Side.PARTY)
    return StartChase(
        setting=str(setting),
        fleeing=str(fleeing),
        from_encounter=state.started.number,
        name=state.started.name,
    )


def afloat(state: object, tables: ChaseTables) -> StartChase | None:
    """The chase on water a waterborne encounter concluded in pursuit hands over, under rules with the
    waterborne evasion table (else None: the referee runs it)."""
    if not isinstance(state, EncounterState) or state.setting is not Setting.WATERBORNE:
        return None
    if tables.evasion_waterborne is None:
        return None
    return from_encounter(state, Setting.WATERBORNE)


__all__ = ["PURSUIT", "afloat", "ended_in_pursuit", "from_encounter"]
