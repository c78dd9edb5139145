"""The hex map's read-only command (``hexlog map show``) and the referee's or a player's view."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hexlog.events.errors import NotFoundError, UsageError
from hexlog.machine.hexmap import grid, hidden
from hexlog.machine.hexmap.state import PROCEDURE, MapState
from hexlog.machine.text import counted, shown
from hexlog.service import console, render_travel
from hexlog.service.door import CampaignOption, DbOption, Door

out = console.plain()

VIEWS = ("referee", "player")
ViewOption = Annotated[str, typer.Option(help="referee (everything) or player (nothing only the referee may know)")]


def is_player(view: str) -> bool:
    """Whether a ``--view`` asks for the player's view; ``UsageError`` for another word."""
    if view not in VIEWS:
        msg = f"--view must be referee or player, not {view!r}"
        raise UsageError(msg)
    return view == "player"


def show(
    hex_name: Annotated[str | None, typer.Argument(metavar="HEX", help="one hex, col,row (default: every hex)")] = None,
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    view: ViewOption = "referee",
) -> None:
    """Show the map, or one hex; hidden features (read from the key file) only in the referee's view, until found."""
    player = is_player(view)
    for line in map_lines(Door.open(db, campaign, readonly=True), hex_name, player=player):
        out.print(line)


def map_lines(door: Door, hex_name: str | None, *, player: bool) -> list[str]:
    """The map, or one hex, as ``hexlog map show`` prints it (the HTTP service says the same)."""
    state = door.table().procedures.get(PROCEDURE)
    the_map = state if isinstance(state, MapState) else MapState()
    if hex_name is not None:
        name = grid.normal(hex_name)
        place = the_map.hex(name)
        if place is None:
            msg = f"hex {name} is not on the map"
            raise NotFoundError(msg)
        chosen = [(name, place)]
    else:
        chosen = sorted(the_map.hexes.items(), key=lambda item: grid.parse(item[0]))
    lines = [] if chosen else ["the map is empty (hexlog map load FILE, or hexlog map set HEX --terrain ...)"]
    kept = [] if player else hidden.kept(door.handler.keeper, door.campaign, the_map)
    for name, place in chosen:
        here = [f for f in kept if f.hex == name]
        lines.extend(shown(line) for line in render_travel.hex_lines(name, place, here, player=player))
    missing = 0 if player else len(the_map.unopened) - len(kept)
    if missing:
        lines.append(
            f"{counted(missing, 'hidden feature')} of the map {'is' if missing == 1 else 'are'} not in the key file: "
            "only their commitments are known"
        )
    return lines


def install(groups: dict[str, typer.Typer]) -> None:
    """Add ``show`` to the map's command group."""
    groups[PROCEDURE].command("show")(show)
