"""The machine layer of the kit: one shared ``transitions.Machine`` per procedure, and one resident model.

The machine is built once from the procedure's transition table with ``auto_transitions=False``.
One model stays attached to it; a command loads the folded state, the table and itself into that
model, sets the phase and fires the trigger (under a lock), so a command costs one trigger, not an
attach and a detach. Firing, the steps allowed now (by side), refusals that name the reason and
the allowed steps, and the check of a recorded transition all live here, once for every procedure.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import attrs
from transitions import Machine, MachineError

from hexlog.events.errors import HexlogError, IllegalTransitionError, RuleRefusedError
from hexlog.events.procedure import PhaseChanged
from hexlog.events.vocabulary import SIDES

if TYPE_CHECKING:
    import enum

    from hexlog.machine.commands import Command
    from hexlog.machine.kit.model import Model
    from hexlog.machine.kit.procedure import Procedure
    from hexlog.machine.table import Table

#: a step allowed now: its trigger and the sides that may take it (``()`` for a command without a side)
Allowed = tuple[str, tuple[str, ...]]


class Runner:
    """Fires one procedure's triggers on folded states."""

    def __init__(self, procedure: Procedure) -> None:
        if procedure.phases is None or procedure.model is None or procedure.initial is None:
            msg = f"procedure {procedure.name} declares no machine"
            raise TypeError(msg)
        self.procedure = procedure
        self.machine = Machine(
            model=None,
            states=procedure.phases,
            transitions=list(procedure.transitions),
            initial=procedure.initial,
            auto_transitions=False,
            name=procedure.name,
        )
        self.commands = {trigger: cls for cls, trigger in procedure.triggers.items()}
        self._model: Model = procedure.model(state=procedure.initial)
        self.machine.add_model(self._model, initial=procedure.initial)
        self._lock = threading.Lock()
        self._by_trigger = {
            name: {(t.source, t.dest) for ts in event.transitions.values() for t in ts}
            for name, event in self.machine.events.items()
        }

    def _load(self, phase: enum.Enum, proc: Any, table: Table, command: Command | None) -> Model:
        model = self._model
        model.proc, model.table, model.command, model.refusals = proc, table, command, []
        self.machine.set_state(phase, model=model)
        return model

    def triggers(self, phase: enum.Enum) -> list[str]:
        """The triggers the transition table has from ``phase`` (conditions aside), in table order."""
        return list(self.machine.get_triggers(phase))

    def fire(self, trigger: str, proc: Any, table: Table, command: Command) -> PhaseChanged:
        """Fire ``trigger`` on the folded state and give the ``PhaseChanged`` to record.

        ``IllegalTransitionError`` when the phase has no such trigger, naming the steps allowed now;
        ``RuleRefusedError`` with the reasons when every row's conditions fail.
        """
        source = self.procedure.phase_of(proc)
        assert source is not None  # noqa: S101 - a procedure with a machine has an initial phase
        with self._lock:
            model = self._load(source, proc, table, command)
            try:
                done = model.trigger(trigger)
            except MachineError:
                done = None
            dest, refusals = model.state, list(model.refusals)
        name = self.procedure.name
        if done is None:
            offered = [t for t, _ in self.allowed(proc, table)]
            raise IllegalTransitionError(name, source.name, trigger, offered)
        if not done:
            why = "; ".join(dict.fromkeys(refusals)) or "its conditions do not hold"
            msg = f"{name}: '{trigger}' refused in phase {source.name}: {why}"
            raise RuleRefusedError(msg)
        return PhaseChanged(procedure=name, trigger=trigger, source=source.name, dest=dest.name)

    def allowed(self, proc: Any, table: Table) -> list[Allowed]:
        """Each step whose conditions hold now for a command with default arguments, with its sides."""
        phase = self.procedure.phase_of(proc)
        assert phase is not None  # noqa: S101 - a procedure with a machine has an initial phase
        found: list[Allowed] = []
        with self._lock:
            for trigger in self.triggers(phase):
                cls = self.commands.get(trigger)
                if cls is None:
                    continue  # a trigger the kit fires itself (a parent resuming)
                if "side" in attrs.fields_dict(cls):
                    with_side: Any = cls  # a command class with a side field
                    sides = tuple(str(s) for s in SIDES if self._may(phase, proc, table, with_side(side=s), trigger))
                    if sides:
                        found.append((trigger, sides))
                elif self._may(phase, proc, table, cls(), trigger):
                    found.append((trigger, ()))
        return found

    def _may(self, phase: enum.Enum, proc: Any, table: Table, command: Command, trigger: str) -> bool:
        model = self._load(phase, proc, table, command)
        try:
            return bool(model.may_trigger(trigger))
        except HexlogError:
            return False

    def recorded_ok(self, trigger: str, source: str, dest: str) -> bool:
        """Whether the transition table has a row taking ``trigger`` from phase ``source`` to ``dest``."""
        return (source, dest) in self._by_trigger.get(trigger, set())
