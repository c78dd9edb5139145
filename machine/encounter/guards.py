"""Invariants the encounter owns over the campaign's commands.

While an encounter is under way the referee cannot let game time pass by the clock (its time runs in rounds;
its party is kept from being emptied by the kit: ``Procedure.needs_party``), nor by another procedure's step: a
delve's turn, a camp's night or a travel day's hours pass only by the encounter's own steps and those of the
procedures it handed off to (``own_time``). A
member's armor is a fact the rules read (the AD&D noise rule), so an armor name the
rules in force do not know is refused when it is given, and a change to rules that would not know a
member's armor is refused too. The audit's own command is nobody's to give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.machine import commands as c
from hexlog.machine import ruleset as rulesets
from hexlog.machine.encounter.rules import EncounterTables
from hexlog.machine.encounter.state import PROCEDURE, EncounterState, Phase
from hexlog.machine.encounter.surprise import armor_kind
from hexlog.machine.kit.procedure import own_time
from hexlog.machine.timekeeping import AdvanceClock

if TYPE_CHECKING:
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table

NO_ARMOR = frozenset({"", "none"})


def _unknown_armor(rules: Ruleset, armor: str) -> str | None:
    """Why the rules cannot use this armor name, or None when they can (or read no armor at all)."""
    kinds = rules.part(EncounterTables).armor_kind
    if kinds is None or armor in NO_ARMOR or armor_kind(rules, armor) is not None:
        return None
    known = ", ".join(kinds)
    kind_names = ", ".join(sorted(set(kinds.values())))
    return (
        f"armor {armor!r} is not known to the rules in force ({rules.name}): "
        f"use none, a suit ({known}) or a kind ({kind_names})"
    )


def guard(table: Table, command: c.Command) -> None:
    """Refuse a command that would break an encounter under way, or give the rules a fact they cannot read."""
    rules = table.rules
    if isinstance(command, c.AddMember | c.EditMember) and command.armor is not None and rules is not None:
        why = _unknown_armor(rules, command.armor)
        if why is not None:
            raise UsageError(why)
    if isinstance(command, c.ChangeRules) and table.party.members:
        _check_members_under(table, command)
    if isinstance(command, AdvanceClock) and under_way(table):
        msg = "an encounter is under way and its time runs in rounds; conclude it before letting time pass"
        raise RuleRefusedError(msg)


def under_way(table: Table) -> bool:
    state = table.procedures.get(PROCEDURE)
    return isinstance(state, EncounterState) and state.phase not in {Phase.IDLE, Phase.CONCLUDED}


def _check_members_under(table: Table, command: c.ChangeRules) -> None:
    try:
        new = rulesets.load(command.ruleset, dict(command.overrides))
        whys = [(member.name, _unknown_armor(new, member.armor)) for member in table.party.members]
    except UsageError:
        return  # the change itself is refused by its step, naming what is wrong
    for name, why in whys:
        if why is not None:
            msg = f"{name}'s {why}; change the member first"
            raise RuleRefusedError(msg)


#: the encounter's hold on game time (``kit.procedure.own_time``): its time runs in rounds
OWN_TIME = own_time(
    PROCEDURE,
    under_way,
    "an encounter is under way and its time runs in rounds; this {running} step would let time pass meanwhile: "
    "conclude the encounter (or cancel it) first",
)
