"""Rest in a delve (REFERENCE §1, OSE; seed 004 §4.2): one turn in each hour, or a penalty until the party rests.

An hour of delving since the party last rested (or entered) without its turn of rest imposes
``tables.dungeon.unrested_penalty`` on the attack and damage rolls made for a member of the party (a
roll's purpose ``attack`` or ``damage``, alone or followed by a word: ``attack goblin``,
``damage.sword``), while the delve lasts. The kit applies it as a modifier source, so each such roll
records it with its source; resting clears it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.dice import RollModifier
from hexlog.machine.dungeon.rules import DungeonTables
from hexlog.machine.dungeon.state import PROCEDURE, DelveState, Phase

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.machine.table import Table

HOUR_SECONDS = 3600
#: the purposes the penalty falls on
PENALISED = ("attack", "damage")


def penalised(purpose: str) -> bool:
    """Whether a roll's purpose is an attack or damage roll."""
    word = purpose.strip().lower()
    return any(word == p or word.startswith((f"{p} ", f"{p}.")) for p in PENALISED)


def unrested(state: DelveState, now: int) -> bool:
    """Whether the party has delved a whole hour since it last rested (or entered)."""
    return state.phase in {Phase.EXPLORING, Phase.ENCOUNTER} and now - state.rested_at >= HOUR_SECONDS


def penalty(table: Table) -> int:
    """The penalty the delve under way imposes now (0: none)."""
    state = table.procedures.get(PROCEDURE)
    if not isinstance(state, DelveState) or table.rules is None or not unrested(state, table.clock.seconds):
        return 0
    rules = table.rules.part(DungeonTables).dungeon
    return rules.unrested_penalty if rules is not None else 0


def modifiers(table: Table, made_for: str, purpose: str) -> Sequence[RollModifier]:
    """The modifier source: the penalty on an attack or damage roll made for a member of an unrested party."""
    if not made_for or table.party.member(made_for) is None or not penalised(purpose):
        return ()
    value = penalty(table)
    if not value:
        return ()
    return (RollModifier(source="an hour of delving without a turn of rest (until the party rests)", value=value),)
