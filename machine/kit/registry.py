"""The registry: the one list of procedures that the handler, the fold, replay, audit, render and the
command line read. It is built explicitly (``hexlog.machine.registry``); nothing registers itself."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from hexlog.events.errors import NotFoundError, RuleRefusedError, UsageError
from hexlog.machine.commands import spoken
from hexlog.machine.kit.rules import keys_of
from hexlog.machine.kit.runner import Runner
from hexlog.machine.text import skeleton

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hexlog.events.base import Event
    from hexlog.events.errors import Advice
    from hexlog.machine.commands import Command
    from hexlog.machine.kit.procedure import DueCheck, Fold, Guard, ModifierSource, Procedure
    from hexlog.machine.ruleset import Ruleset
    from hexlog.machine.table import Table


class Route(NamedTuple):
    """Where a command goes: its procedure, and the trigger it fires (None: no machine)."""

    procedure: Procedure
    trigger: str | None


#: the purposes whose answer ``Registry.reserved`` remembers (free text: bounded)
RESERVED_CACHE = 4096


class Registry:
    """The procedures hexlog runs, in order (which is also the order of their due checks and modifiers)."""

    def __init__(self, procedures: tuple[Procedure, ...]) -> None:
        self.procedures = procedures
        self._by_name: dict[str, Procedure] = {}
        self._routes: dict[type[Command], Route] = {}
        self.runners: dict[str, Runner] = {}
        for procedure in procedures:
            if procedure.name in self._by_name:
                msg = f"two procedures are named {procedure.name}"
                raise TypeError(msg)
            self._by_name[procedure.name] = procedure
            for command in procedure.steps:
                if command in self._routes:
                    msg = f"{command.__name__} is a command of two procedures"
                    raise TypeError(msg)
                self._routes[command] = Route(procedure, procedure.triggers.get(command))
            if procedure.has_machine:
                self.runners[procedure.name] = Runner(procedure)  # checks a declared resume, too
            elif procedure.resume is not None:
                msg = f"procedure {procedure.name} declares a resume but no machine to resume"
                raise TypeError(msg)
        purposes = [p for proc in procedures for p in proc.purposes]
        if len(purposes) != len(set(purposes)):
            msg = "two procedures reserve the same roll purpose"
            raise TypeError(msg)
        #: each reserved purpose with its skeleton, made once
        self._skeletons = [(p, skeleton(p)) for p in purposes]
        #: what ``reserved`` answered for each purpose asked (a log asks of the same few purposes again and again)
        self._reserved: dict[str, str | None] = {}
        #: what every command, roll, clock advance and event reads, gathered once in registry order
        self._guards = tuple(g for p in procedures for g in p.guards)
        self._internal = {cls: words for p in procedures for cls, words in p.internal.items()}
        self._due_checks = tuple(c for p in procedures for c in p.due_checks)
        self._modifier_sources = tuple(m for p in procedures for m in p.modifiers)
        self.folds: tuple[tuple[str, Fold], ...] = tuple((p.name, p.fold) for p in procedures if p.fold is not None)
        #: the folds that read each event class asked of (a campaign's log holds a few dozen classes)
        self._readers: dict[type[Event], tuple[tuple[str, Fold], ...]] = {}

    def folds_of(self, cls: type[Event]) -> tuple[tuple[str, Fold], ...]:
        """The folds (name, fold) that read events of ``cls``, in registry order: every other fold leaves its state
        as it is at such an event (what its procedure's ``reads`` declares)."""
        found = self._readers.get(cls)
        if found is None:
            found = tuple(
                (p.name, p.fold)
                for p in self.procedures
                if p.fold is not None and (p.reads is None or issubclass(cls, p.reads))
            )
            self._readers[cls] = found
        return found

    def __iter__(self) -> Iterator[Procedure]:
        return iter(self.procedures)

    def procedure(self, name: str) -> Procedure:
        """The procedure of this name; ``NotFoundError`` naming the known ones."""
        try:
            return self._by_name[name]
        except KeyError:
            known = ", ".join(self._by_name)
            msg = f"no procedure named {name!r}; known: {known}"
            raise NotFoundError(msg) from None

    def knows(self, name: str) -> bool:
        """Whether a procedure of this name is registered."""
        return name in self._by_name

    def route(self, command: type[Command]) -> Route:
        """The procedure (and trigger) of a command class; ``UsageError`` for a command none declares."""
        try:
            return self._routes[command]
        except KeyError:
            msg = f"unknown command '{spoken(command)}'"
            raise UsageError(msg) from None

    def runner(self, name: str) -> Runner:
        """The machine of a procedure that has one."""
        return self.runners[name]

    @property
    def machines(self) -> list[Procedure]:
        """The procedures that run a state machine, in order."""
        return [p for p in self.procedures if p.has_machine]

    @property
    def guards(self) -> tuple[Guard, ...]:
        """Every invariant any procedure owns, in order."""
        return self._guards

    def step_words(self, advice: Advice) -> str:
        """The step a refusal advises in no door's words, as the audit quotes it in a finding both doors show:
        ``dungeon leave`` (the command line adds ``hexlog``, the HTTP service serves ``dungeon/leave``); the class's
        name (``Advice.plain``) for a command without a step."""
        for procedure in self:
            if advice.procedure in ("", procedure.name):
                for cls in procedure.steps:
                    if cls.__name__ == advice.command:  # a step without a trigger by its class (open-session)
                        trigger = procedure.triggers.get(cls) or re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
                        return f"{procedure.name} {trigger.replace('_', '-')}"
        return advice.plain()

    def refuse_internal(self, command: Command) -> None:
        """Refuse a command hexlog alone gives (``Procedure.internal``), naming what the referee uses instead."""
        words = self._internal.get(type(command))
        if words is not None:
            msg = f"'{spoken(command)}' "
            raise RuleRefusedError.saying(msg, *((words,) if isinstance(words, str) else words))

    @property
    def due_checks(self) -> tuple[DueCheck, ...]:
        """Every check that falls due with game time, in order."""
        return self._due_checks

    @property
    def modifier_sources(self) -> tuple[ModifierSource, ...]:
        """Every source of roll modifiers, in order."""
        return self._modifier_sources

    @property
    def rule_parts(self) -> list[type]:
        """Every typed part of a ruleset some procedure reads (each once)."""
        return list(dict.fromkeys(part for p in self.procedures for part in p.rules))

    def used_keys(self) -> set[tuple[str, str]]:
        """(section, key) of every option and table some procedure reads."""
        return {(part.section, key) for part in self.rule_parts for key in keys_of(part)}  # type: ignore[attr-defined]

    def check_rules(self, rules: Ruleset) -> None:
        """Structure every part procedures read and run their checks: a bad key is refused by name."""
        rules.check(self.rule_parts)
        for procedure in self.procedures:
            if procedure.rules_check is not None:
                procedure.rules_check(rules)

    def readers(self, section: str, key: str) -> list[str]:
        """The procedures that read an option or table."""
        return [
            p.name
            for p in self.procedures
            if any(part.section == section and key in keys_of(part) for part in p.rules)  # type: ignore[attr-defined]
        ]

    @property
    def purposes(self) -> list[str]:
        """Every roll purpose a procedure reserves for its steps."""
        return [p for proc in self.procedures for p in proc.purposes]

    def reserved(self, purpose: str) -> str | None:
        """The reserved purpose that ``purpose`` is, extends, or looks like (case, spaces, look-alike letters)."""
        if purpose in self._reserved:
            return self._reserved[purpose]
        seen = skeleton(purpose)
        found = next((p for p, form in self._skeletons if seen == form or seen.startswith(form + ".")), None)
        if len(self._reserved) < RESERVED_CACHE:
            self._reserved[purpose] = found
        return found

    def open_procedures(self, table: Table) -> list[tuple[Procedure, Any]]:
        """The procedures under way at a table, with their states."""
        out = []
        for p in self.machines:
            state = table.procedures.get(p.name)
            if p.is_open(state):
                out.append((p, state))
        return out
