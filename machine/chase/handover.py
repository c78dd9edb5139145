"""The chase an encounter hands over when one side is pursued (OSE §2.9, seed 004 §4.4).

A procedure that handed an encounter off (the delve, for an encounter concluded in pursuit underground as
releases before ``encounter.pursuit_decided`` version 2 recorded it; the travel day, for a pursuit on water under
rules recorded before option ``waterborne_pursuit_hands_off``) reads this when it resumes: the encounter concluded
in pursuit becomes the chase's start, which takes the encounter's facts (its distance, each side's rate, who flees,
the monsters, who was surprised). An encounter on water under that option, and one a delve waits for, hands the
chase off itself when its pursuers give chase (``encounter.afloat``), and waits for it. Pure: it reads the folded
encounter and the rules' chase tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.vocabulary import Setting, Side
from hexlog.machine.chase.commands import StartChase
from hexlog.machine.encounter.state import EncounterState
from hexlog.machine.encounter.state import Phase as EncounterPhase

if TYPE_CHECKING:
    from hexlog.machine.chase.rules import ChaseTables

#: the outcome of an encounter whose pursuers chose to pursue (``encounter decide-pursuit``)
PURSUIT = "pursuit"


def ended_in_pursuit(state: object) -> bool:
    """Whether the encounter concluded with the side fled from pursuing."""
    return isinstance(state, EncounterState) and state.concluded is not None and state.concluded.outcome == PURSUIT


def pursued_afloat(state: object) -> bool:
    """Whether the encounter waits for the chase its pursuers gave (it handed the pursuit off: on water, or in a
    delve)."""
    return (
        isinstance(state, EncounterState)
        and state.phase is EncounterPhase.CHASE
        and state.pursuit is not None
        and state.pursuit.pursue
    )


def from_encounter(state: object, setting: Setting) -> StartChase | None:
    """The chase (``setting``: dungeon or waterborne) that follows an encounter concluded in pursuit, or that an
    encounter on water or in a delve hands off when its pursuers give chase; else None."""
    if not isinstance(state, EncounterState) or not (ended_in_pursuit(state) or pursued_afloat(state)):
        return None
    pursuit = state.pursuit
    fleeing = pursuit.fleeing if pursuit is not None else (state.fleeing or Side.PARTY)
    return StartChase(
        setting=str(setting),
        fleeing=str(fleeing),
        from_encounter=state.started.number,
        name=state.started.name,
        # what the referee said of the pursuers when they gave chase (``decide-pursuit``; only in a chase handed off)
        likes_treasure=pursuit is not None and pursuit.likes_treasure,
        hungry=pursuit is not None and pursuit.hungry,
    )


def afloat(state: object, tables: ChaseTables) -> StartChase | None:
    """The chase on water a waterborne encounter concluded in pursuit hands over, under rules with the
    waterborne evasion table (else None: the referee runs it)."""
    if not isinstance(state, EncounterState) or state.setting is not Setting.WATERBORNE:
        return None
    if tables.evasion_waterborne is None:
        return None
    return from_encounter(state, Setting.WATERBORNE)


__all__ = ["PURSUIT", "afloat", "ended_in_pursuit", "from_encounter", "pursued_afloat"]
