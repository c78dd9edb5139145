"""The machine layer of the kit: one shared ``transitions.Machine`` per procedure, and one resident model.

The machine is built once from the procedure's transition table with ``auto_transitions=False``.
One model stays attached to it; a command loads the folded state, the table and itself into that
model, sets the phase and fires the trigger (under a lock), so a command costs one trigger, not an
attach and a detach. Firing, the steps allowed now (by side), refusals that name the reason and
the allowed steps, and the check of a recorded transition all live here, once for every procedure.

The steps allowed now are judged on a sketch of each command (its defaults, and each side in turn),
never by constructing one, so a command whose arguments the referee must give is judged too. A
procedure that declares a resume is checked here when it is registered: the resume trigger is in
its table, no command fires it, and from each phase its last row has no conditions (rows before it
may choose another way on), so a child's conclusion can always resume the parent.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import attrs
from transitions import Machine, MachineError, State

from hexlog.events.errors import Advice, HexlogError, IllegalTransitionError, RuleRefusedError
from hexlog.events.procedure import PhaseChanged
from hexlog.events.vocabulary import SIDES, Side

if TYPE_CHECKING:
    import enum

    from hexlog.machine.commands import Command
    from hexlog.machine.kit.model import Model
    from hexlog.machine.kit.procedure import Procedure
    from hexlog.machine.table import Table

#: a step allowed now: its trigger and the sides that may take it (``()`` for a command without a side)
Allowed = tuple[str, tuple[str, ...]]


class _Machine(Machine):
    """A ``transitions.Machine`` that looks up the triggers from a state instead of searching every trigger's rows
    (``may_trigger`` asks for them each time, and ``Runner.allowed`` asks once per step it judges); a row added
    or removed forgets what was looked up."""

    def __init__(self, **kwargs: Any) -> None:
        #: the triggers from each state (by name) looked up so far
        self._triggers_from: dict[str, list[str]] = {}
        super().__init__(**kwargs)

    def get_triggers(self, *args: str | enum.Enum | State) -> list[str]:
        """The triggers that have a row from any of the states, in table order (as ``Machine.get_triggers``)."""
        if len(args) != 1:
            return super().get_triggers(*args)
        name = args[0] if isinstance(args[0], str) else args[0].name
        found = self._triggers_from.get(name)
        if found is None:
            found = self._triggers_from[name] = super().get_triggers(name)
        return list(found)

    def add_transition(self, *args: Any, **kwargs: Any) -> None:
        """Add a row (``Machine.add_transition``), forgetting the triggers looked up."""
        self._triggers_from.clear()
        super().add_transition(*args, **kwargs)

    def remove_transition(self, *args: Any, **kwargs: Any) -> None:
        """Remove rows (``Machine.remove_transition``), forgetting the triggers looked up."""
        self._triggers_from.clear()
        super().remove_transition(*args, **kwargs)


class Runner:
    """Fires one procedure's triggers on folded states."""

    def __init__(self, procedure: Procedure) -> None:
        if procedure.phases is None or procedure.model is None or procedure.initial is None:
            msg = f"procedure {procedure.name} declares no machine"
            raise TypeError(msg)
        self.procedure = procedure
        #: the machine runs on the phases' names: ``transitions`` reads a state's name several times a
        #: trigger, and an Enum member's name costs it more than a string does
        self.machine = _Machine(
            model=None,
            states=[phase.name for phase in procedure.phases],
            transitions=list(procedure.transitions),
            initial=procedure.initial.name,
            auto_transitions=False,
            name=procedure.name,
        )
        self.commands = {trigger: cls for cls, trigger in procedure.triggers.items()}
        #: per trigger, the sketches ``allowed`` judges: one per side for a command with a side
        self._sketches = {trigger: _sketches(cls) for trigger, cls in self.commands.items()}
        self._initial = procedure.initial
        self._model: Model = procedure.model(state=procedure.initial.name)
        self.machine.add_model(self._model, initial=procedure.initial.name)
        self._lock = threading.Lock()
        self._events = dict(self.machine.events)
        self._by_trigger = {
            name: {(t.source, t.dest) for ts in event.transitions.values() for t in ts}
            for name, event in self._events.items()
        }
        #: each phase change made so far, by (trigger, source, dest): an event is a value, so one serves every fire
        self._changes: dict[tuple[str, str, str], PhaseChanged] = {}
        self._check_resume()

    def _check_resume(self) -> None:
        """A declared resume must always be possible once the parent waits in a phase that has it.

        Rows of the resume trigger from one phase are tried in order; the last must have no conditions.
        """
        resume, name = self.procedure.resume, self.procedure.name
        if resume is None:
            return
        event = self.machine.events.get(resume.trigger)
        if event is None:
            msg = f"procedure {name} resumes with '{resume.trigger}', which its transition table does not have"
            raise TypeError(msg)
        if resume.trigger in self.commands:
            msg = f"procedure {name}: '{resume.trigger}' is the kit's to fire on a resume; no command may fire it"
            raise TypeError(msg)
        for source, rows in event.transitions.items():
            if not rows or rows[-1].conditions:
                msg = (
                    f"procedure {name}: its resume trigger '{resume.trigger}' has no row without conditions "
                    f"last from {source}; a resume cannot be refused, or the child's conclusion would be"
                )
                raise TypeError(msg)

    def _load(self, phase: str, proc: Any, table: Table, command: Command | None) -> Model:
        """The resident model holding the state, the table and the command, in phase ``phase`` (named), with an
        empty list of refusals (a list a condition wrote to is replaced: whoever read it keeps it)."""
        model = self._model
        model.proc, model.table, model.command = proc, table, command
        if model.refusals:
            model.refusals = []
        model.state = phase  # what set_state writes, without looking the phase up again
        return model

    def attach(self, proc: Any, table: Table) -> Model:
        """Load a folded state and the table into the shared machine's resident model (what a command does
        before its trigger), in the state's phase."""
        phase = self.procedure.phase_of(proc)
        assert phase is not None  # noqa: S101 - a procedure with a machine has an initial phase
        with self._lock:
            return self._load(phase.name, proc, table, None)

    def detach(self) -> None:
        """Let go of what the resident model holds (the state, the table, the command)."""
        with self._lock:
            model = self._model
            model.proc, model.table, model.command, model.refusals = None, None, None, []

    def triggers(self, phase: enum.Enum) -> list[str]:
        """The triggers the transition table has from ``phase`` (conditions aside), in table order."""
        return list(self.machine.get_triggers(phase))

    def resumes_from(self, phase: str) -> bool:
        """Whether the procedure can resume in phase ``phase`` (named): its resume trigger has a row from it."""
        resume = self.procedure.resume
        return resume is not None and any(source == phase for source, _ in self._by_trigger.get(resume.trigger, ()))

    def fire(self, trigger: str, proc: Any, table: Table, command: Command) -> PhaseChanged:
        """Fire ``trigger`` on the folded state and give the ``PhaseChanged`` to record.

        ``IllegalTransitionError`` when the phase has no such trigger, naming the steps allowed now;
        ``RuleRefusedError`` with the reasons when every row's conditions fail.
        """
        source = (self._initial if proc is None else proc.phase).name  # the procedure's phase_of, without a call
        event = self._events.get(trigger)
        with self._lock:
            model = self._model  # loaded as ``_load`` loads it, keeping a list no condition has written to
            model.proc, model.table, model.command, model.state = proc, table, command, source
            if model.refusals:
                model.refusals = []
            try:
                done = model.trigger(trigger) if event is None else event.trigger(model)
            except MachineError:
                done = None
            dest, refusals = model.state, model.refusals  # a list written to is replaced at the next load
        if done:
            change = self._changes.get((trigger, source, dest))
            return self._change(trigger, source, dest) if change is None else change
        name = self.procedure.name
        if done is None:
            offered = [t for t, _ in self.allowed(proc, table)]
            raise IllegalTransitionError(name, source, trigger, offered)
        why: list[str | Advice] = []
        for reason in dict.fromkeys(refusals) or [("its conditions do not hold",)]:
            why += [*(["; "] if why else []), *reason]
        msg = f"{name}: '{trigger}' refused in phase {source}: "
        raise RuleRefusedError.saying(msg, *why)

    def _change(self, trigger: str, source: str, dest: str) -> PhaseChanged:
        key = (trigger, source, dest)
        change = self._changes.get(key)
        if change is None:
            change = PhaseChanged(procedure=self.procedure.name, trigger=trigger, source=source, dest=dest)
            self._changes[key] = change
        return change

    def allowed(self, proc: Any, table: Table) -> list[Allowed]:
        """Each step whose conditions hold now for a command with default arguments, with its sides.

        The procedure's corrections (cancel, correct) are always at hand and never listed.

        A parent waiting for the procedure it handed off to allows none. A condition that reads an
        argument the referee must give (a field without a default) cannot be judged without it: that
        step is offered, and the command itself is judged when it is given.
        """
        if any(parent == self.procedure.name for parent, _ in table.handoffs):
            return []
        phase = self.procedure.phase_of(proc)
        assert phase is not None  # noqa: S101 - a procedure with a machine has an initial phase
        found: list[Allowed] = []
        with self._lock:
            for trigger in self.triggers(phase):
                sides = self._sides(phase, proc, table, trigger)
                if sides:
                    found.append((trigger, () if sides == ("",) else sides))
        return found

    def offered(self, proc: Any, table: Table) -> list[Allowed]:
        """The steps a referee is offered next (a command's answer and the campaign's state name the same): those
        ``allowed``, but none for a procedure that concluded into the parent that had handed it off, which resumed
        (a caught party's chase: its encounter's steps come next, not a fresh chase), until it runs again."""
        if table.concluded_into(self.procedure.name):
            return []
        return self.allowed(proc, table)

    def allows(self, trigger: str, proc: Any, table: Table) -> bool:
        """Whether ``allowed`` lists ``trigger`` now (judging that step alone)."""
        if any(parent == self.procedure.name for parent, _ in table.handoffs):
            return False
        phase = self.procedure.phase_of(proc)
        assert phase is not None  # noqa: S101 - a procedure with a machine has an initial phase
        if trigger not in self.machine.get_triggers(phase):
            return False
        with self._lock:
            return bool(self._sides(phase, proc, table, trigger))

    def _sides(self, phase: enum.Enum, proc: Any, table: Table, trigger: str) -> tuple[str, ...]:
        """The sides for which ``trigger``'s conditions hold now (``("",)`` for a step without sides)."""
        sketches = self._sketches.get(trigger)
        if sketches is None or trigger in self.procedure.corrections:
            return ()  # a trigger the kit fires itself (a parent resuming), or a correction
        return tuple(side for side, sketch in sketches if self._may(phase, proc, table, sketch, trigger))

    def _may(self, phase: enum.Enum, proc: Any, table: Table, command: Command, trigger: str) -> bool:
        model = self._load(phase.name, proc, table, command)
        try:
            return bool(model.may_trigger(trigger))
        except HexlogError:
            return False
        except AttributeError as err:
            if err.obj is command and err.name in attrs.fields_dict(type(command)):
                return True  # an argument the referee must give: only the command can be judged
            raise

    def recorded_ok(self, trigger: str, source: str, dest: str) -> bool:
        """Whether the transition table has a row taking ``trigger`` from phase ``source`` to ``dest``."""
        return (source, dest) in self._by_trigger.get(trigger, set())


def _sketches(cls: type[Command]) -> list[tuple[str, Command]]:
    """The sketches of a command class that ``allowed`` judges: one per side, or one (side ``""``)."""
    if "side" in attrs.fields_dict(cls):
        return [(str(side), _sketch(cls, side)) for side in SIDES]
    return [("", _sketch(cls, None))]


def _sketch(cls: type[Command], side: Side | None) -> Command:
    """A ``cls`` holding its defaults (and ``side``), made without its initialiser.

    No argument the referee must give is invented: a field without a default stays unset, so a
    condition that reads it raises ``AttributeError`` (and ``getattr(command, name, default)`` gives
    ``default``).
    """
    sketch = object.__new__(cls)
    for field in attrs.fields(cls):
        default = field.default
        if field.name == "side" and side is not None:
            value = side
        elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            value = default.factory(sketch) if default.takes_self else default.factory()
        elif default is attrs.NOTHING:
            continue
        else:
            value = default
        object.__setattr__(sketch, field.name, value)
    return sketch
