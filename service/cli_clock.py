"""``hexlog clock``: what time it is in the game, and letting time pass (every check that falls due runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hexlog.events.dice import DiceRolled, Visibility
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.service import console, render
from hexlog.service.door import CampaignOption, DbOption, Door, refuse_blank

out = console.plain()
clock_app = typer.Typer(help="Game time: what time it is, and letting time pass.", no_args_is_help=True)


@clock_app.command("show")
def show(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None) -> None:
    """The game time: day, time of day, and the time since the campaign began, in seconds, turns and rounds."""
    door = Door.open(db, campaign, readonly=True)
    table = door.table()
    out.print(render.clock_line(table))


@clock_app.command("advance")
def advance(
    duration: Annotated[str, typer.Argument(help="how long: '3 turns', '2h', '1 day', '1 watch', '10 rounds'")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    reason: Annotated[
        str, typer.Option("--reason", help="why time passes (shown in the log)", callback=refuse_blank)
    ] = "",
) -> None:
    """Let game time pass one unit at a time; every check that falls due runs, in order, as events."""
    door = Door.open(db, campaign)
    outcome = door.run(AdvanceClock(duration=duration, reason=reason))
    for event in outcome.events:
        out.print(render.describe(event))
    if any(isinstance(e, DiceRolled) and e.visibility is Visibility.PUBLIC for e in outcome.events):
        out.print(door.receipt())
    table = outcome.table
    out.print(render.clock_line(table))


def install(app: typer.Typer) -> None:
    """Add ``hexlog clock``."""
    app.add_typer(clock_app, name="clock")
