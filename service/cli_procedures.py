"""One command-line group per procedure with a machine, built from the registry: nothing here names one.

Each command of a procedure becomes a subcommand named after its trigger (``check_surprise`` ->
``check-surprise``); its fields become options, spelled and explained as the command declares them
(``hexlog.machine.commands.arg``). After a step the subcommand prints what was recorded, the phase
and the steps allowed next (by side), for a procedure waiting on one it handed off to, that one's
phase and steps, and for a procedure the step's conclusion resumed, its phase and steps (the concluded one's own
line offers none: it is over), and what the referee does next elsewhere (``render.after``); a refusal names the
steps allowed now as subcommands.
"""

from __future__ import annotations

import inspect
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import attrs
import typer

from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.events.procedure import HandedOff, PhaseChanged
from hexlog.machine.commands import FLAG, LEAST, NEGATE, POSITIONAL, field_limits, help_of_flag, unset_when_empty
from hexlog.service import console, render
from hexlog.service.door import CampaignOption, DbOption, Door, refuse_blank

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.machine.commands import Command
    from hexlog.machine.handler import Outcome
    from hexlog.machine.kit.procedure import Procedure
    from hexlog.machine.kit.registry import Registry

out = console.plain()


def run(db: Path, campaign: str | None, procedure: Procedure, command: Command) -> None:
    """Run one step and print what it recorded, the phase, and the steps allowed next."""
    door = Door.open(db, campaign)
    registry = door.handler.registry
    trigger = procedure.triggers[type(command)]
    try:
        outcome = door.run(command)
    except IllegalTransitionError as err:
        allowed = [render.subcommand(t) for t in err.allowed]
        trigger = render.subcommand(err.trigger)
        raise IllegalTransitionError(err.procedure, err.state, trigger, allowed, before=err.before).telling(
            *err.told
        ) from None
    except RuleRefusedError as err:
        raise err.reworded(err.lead.replace(f"'{trigger}'", f"'{render.subcommand(trigger)}'")) from None
    told = render.context(outcome.table)
    for event in outcome.events:
        told.note(event)
        if not isinstance(event, PhaseChanged):
            out.print(render.describe(event, told))
    if any(isinstance(e, DiceRolled) and e.visibility is Visibility.PUBLIC for e in outcome.events):
        out.print(door.receipt())
    _stands(procedure, outcome, registry)


def _stands(procedure: Procedure, outcome: Outcome, registry: Registry) -> None:
    """Where a step left its procedure, each one its conclusion resumed, and each one a procedure waits for."""
    state = outcome.table.procedures.get(procedure.name)
    if state is not None:
        allowed = render.steps_now(procedure.name, state, outcome.table, registry)
        phase = procedure.phase_of(state)
        shown = phase.name if phase is not None else "-"
        out.print(f"-> {shown}; next: {', '.join(allowed) if allowed else render.over(procedure.name, outcome.table)}")
        for line in render.after(procedure.name, state, outcome.table, outcome.events):
            out.print(f"   {line}")
    # each parent the step's conclusion resumed (a caught party back in its encounter), where it stands now
    for parent, phase_name, steps in render.resumed(procedure.name, outcome.table, outcome.events, registry):
        out.print(f"   {parent} resumes -> {phase_name or '-'}; next: {_next(parent, steps)}")
    # the procedure's own waiting, and any hand-off this step led to (a resumed parent handing on)
    made = {(e.parent, e.child) for e in outcome.events if isinstance(e, HandedOff)}
    for parent, child in outcome.table.handoffs:
        if parent == procedure.name or (parent, child) in made:
            waited = registry.procedure(child)
            state = outcome.table.procedures.get(child)
            steps = render.steps_now(child, state, outcome.table, registry)
            phase = waited.phase_of(state)
            shown = phase.name if phase is not None else "-"
            who = "" if parent == procedure.name else f"{parent} "
            out.print(f"   {who}waits for {child} -> {shown}; next: {_next(child, steps)}")


def _next(name: str, steps: list[str]) -> str:
    """A procedure's next steps as commands to type (``nothing``: it waits for another)."""
    return f"hexlog {name} {' | '.join(steps)}" if steps else "nothing"


def option(field: attrs.Attribute[Any], kind: Any) -> inspect.Parameter:
    """The option that sets one field of a command."""
    meta = field.metadata
    flag = meta.get(FLAG) or "--" + field.name.replace("_", "-")
    least = meta.get(LEAST)
    help_text = help_of_flag(field)
    default = field.default
    args = typing.get_args(kind)
    if meta.get(POSITIONAL):
        many = typing.get_origin(kind) is tuple
        annotation: Any = list[args[0]] if many else kind  # type: ignore[valid-type]
        required = default is attrs.NOTHING
        info: Any = typer.Argument(help=help_text, show_default=not required)
        default = inspect.Parameter.empty if required else (list(default or ()) if many else default)
    elif kind is bool:
        info = typer.Option(flag, help=help_text)
        annotation = bool
        default = (not default) if meta.get(NEGATE) else default
    elif kind == bool | None:
        info = typer.Option(flag, help=help_text)
        annotation = bool | None
    elif typing.get_origin(kind) is tuple:
        info = typer.Option(flag, help=help_text)
        annotation, default = list[args[0]] | None, None  # type: ignore[valid-type]
    else:
        annotation = kind
        low, high = field_limits(field) or (least, None)
        check = refuse_blank if unset_when_empty(field) else None  # empty text would read as the option left out
        info = typer.Option(flag, help=help_text, min=low, max=high, callback=check)
    if default is attrs.NOTHING:  # a field the command cannot do without: an option the command line asks for
        default = inspect.Parameter.empty
    return inspect.Parameter(
        field.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[annotation, info]
    )


def options(cls: type) -> list[inspect.Parameter]:
    """The options that set the fields of an attrs class declared with ``machine.commands.arg``."""
    hints = typing.get_type_hints(cls)
    return [option(f, hints[f.name]) for f in attrs.fields(cls)]


def values(cls: type, given: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``cls`` the options ``given`` set (a negated flag turned back, a repeated option a tuple)."""
    hints = typing.get_type_hints(cls)
    negated = {f.name for f in attrs.fields(cls) if f.metadata.get(NEGATE)}
    out = {}
    for name, value in given.items():
        if name in negated:
            value = not value  # noqa: PLW2901 - the flag says the opposite of the field
        elif isinstance(value, list):
            value = tuple(value)  # noqa: PLW2901 - a repeated option is a tuple field
        elif value is None and not _optional(hints[name]):
            continue  # a repeated option given no times: the field's own default
        out[name] = value
    return out


def _callback(procedure: Procedure, cls: type[Command]) -> Callable[..., None]:
    """The subcommand of one command class: its options, then the step."""

    def callback(**given: Any) -> None:
        db, campaign = given.pop("db"), given.pop("campaign")
        run(db, campaign, procedure, cls(**values(cls, given)))

    params = [
        inspect.Parameter("db", inspect.Parameter.KEYWORD_ONLY, default=Path("hexlog.db"), annotation=DbOption),
        inspect.Parameter("campaign", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=CampaignOption),
        *options(cls),
    ]
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__doc__ = cls.__doc__
    return callback


def _optional(kind: Any) -> bool:
    return type(None) in typing.get_args(kind)


def app_for(procedure: Procedure) -> typer.Typer:
    """The command group of one procedure, its subcommands in the order its commands are declared."""
    names = ", ".join(render.subcommand(t) for t in procedure.triggers.values())
    app = typer.Typer(help=f"{procedure.title} Steps: {names}.", no_args_is_help=True)
    for cls, trigger in procedure.triggers.items():
        app.command(render.subcommand(trigger))(_callback(procedure, cls))
    return app


def install(app: typer.Typer, registry: Registry) -> dict[str, typer.Typer]:
    """Add a command group for every procedure that runs a machine; give the groups by procedure name."""
    groups = {}
    for procedure in registry.machines:
        groups[procedure.name] = app_for(procedure)
        app.add_typer(groups[procedure.name], name=procedure.name)
    return groups
