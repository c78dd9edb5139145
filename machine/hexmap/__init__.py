"""The hex map (seed 004, REFERENCE §4.8-4.12): the referee draws it, a search reveals its hidden features.

A small machine (``EMPTY`` -> ``DRAWN``, where ``DRAWN`` is final, so a map never blocks a change of
rules): ``load`` records a map file (``mapfile``), ``set`` sets or changes one hex. Hexes are named
``col,row`` (``grid``). A hidden feature is kept by the referee's key keeper and only committed to in
the log (``HiddenFeaturePlaced``, see ``hidden``); a search by the travel procedure opens it
(``FeatureFound``), and ``reveal`` opens every one still hidden (``FeatureRevealed``), at a campaign's end.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from hexlog.events import castle as castle_ev
from hexlog.events import hexmap as ev
from hexlog.events.errors import RuleRefusedError, UsageError
from hexlog.machine.castle.rules import CastleTables, placement_problem
from hexlog.machine.castle.state import PROCEDURE as CASTLES
from hexlog.machine.castle.state import CastleState
from hexlog.machine.commands import Command, arg
from hexlog.machine.hexmap import grid, hidden, mapfile
from hexlog.machine.hexmap.hidden import Placement
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.hexmap.state import PROCEDURE, READS, MapState, Phase, evolve
from hexlog.machine.kit.model import Model
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.text import counted

if TYPE_CHECKING:
    from transitions.core import TransitionConfigDict

    from hexlog.events.base import Event
    from hexlog.machine.kit.context import StepContext

TRANSITIONS: list[TransitionConfigDict] = [
    {"trigger": "load", "source": [Phase.EMPTY, Phase.DRAWN], "dest": Phase.DRAWN},
    {"trigger": "set", "source": [Phase.EMPTY, Phase.DRAWN], "dest": Phase.DRAWN},
    {"trigger": "reveal", "source": Phase.DRAWN, "dest": Phase.DRAWN, "conditions": "something_hidden"},
]


@attrs.define(slots=False)
class MapModel(Model):
    """Any hex may be drawn at any time; the hidden features can be revealed while one is left."""

    def something_hidden(self) -> bool:
        """Some hidden feature's commitment is still unopened."""
        left = isinstance(self.proc, MapState) and bool(self.proc.unopened)
        return left or self.refuse("no hidden feature of the map is left to reveal")


@attrs.frozen(kw_only=True)
class LoadMap(Command):
    """Record a map file (TOML: one [hex."col,row"] table per hex; see the README)."""

    file: str = arg(help="the map file (TOML)", positional=True)


@attrs.frozen(kw_only=True)
class SetHex(Command):
    """Set or change one hex: its terrain, road or track, landmarks; add hidden features."""

    hex: str = arg(help="the hex, col,row (e.g. 3,4)", positional=True)
    terrain: str = arg("", help="its terrain (a key of tables.terrain_difficulty or terrain_odd_row); default: kept")
    road: bool | None = arg(None, help="a road runs through it (default: kept)", flag="--road/--no-road")
    track: bool | None = arg(None, help="a track runs through it (default: kept)", flag="--track/--no-track")
    landmarks: tuple[str, ...] = arg((), help="a landmark (repeat; replaces the hex's landmarks)", flag="--landmark")
    hidden: tuple[str, ...] = arg((), help="a hidden feature, the referee's secret (repeat)", flag="--hidden")
    lairs: tuple[str, ...] = arg((), help="a hidden lair, the referee's secret (repeat)", flag="--lair")


@attrs.frozen(kw_only=True)
class RevealHidden(Command):
    """Reveal every hidden feature no search has found (at a campaign's end): the audit can then check every search."""


def the_map(ctx: StepContext) -> MapState:
    """The map drawn so far (an empty one before any hex)."""
    state = ctx.state(PROCEDURE)
    return state if isinstance(state, MapState) else MapState()


def load(ctx: StepContext, command: LoadMap) -> None:
    """Read the file and record its hexes."""
    ctx.emit(*_committed(ctx, mapfile.read(Path(command.file), ctx.part(MapTables).terrains())))


def _committed(ctx: StepContext, items: list[Event | Placement]) -> list[Event]:
    """The events, each castle checked against the rules (one already standing is kept, with what is known of
    it), then the hidden features' commitments (the keeper keeps them all in one write).

    The commitments follow the last hex, not each its own hex: where they sit in the log must not say which
    hexes hide something (they keep the order of the placements, which is the order a search finds them in).
    """
    placements = [item for item in items if isinstance(item, Placement)]
    commitments = hidden.place(ctx, placements, len(the_map(ctx).placed))
    castles = ctx.state(CASTLES)
    standing = set(castles.castles) if isinstance(castles, CastleState) else set()
    out: list[Event] = []
    for item in items:
        if isinstance(item, castle_ev.CastlePlaced):
            problem = placement_problem(ctx.part(CastleTables).castle, item.castle_type, item.disposition)
            if problem:
                msg = f"hex {item.hex}: {problem}"
                raise UsageError(msg)
            if item.hex in standing:  # a map loaded again keeps the castle and what is known of it
                continue
            standing.add(item.hex)
            out.append(item)
        elif not isinstance(item, Placement):
            out.append(item)
    return [*out, *commitments]


def reveal(ctx: StepContext, command: RevealHidden) -> None:  # noqa: ARG001 - the step signature
    """Open every still-hidden feature's commitment; refused when the keeper lacks one."""
    missing = hidden.lost(ctx)
    if missing:
        msg = f"the key keeper lacks {counted(missing, 'hidden feature')} of this map: they cannot be revealed"
        raise RuleRefusedError(msg)
    if not hidden.still_hidden(ctx):
        msg = "no hidden feature of the map is left to reveal"
        raise RuleRefusedError(msg)
    ctx.emit(*(hidden.opening(feature, found=False) for feature in hidden.still_hidden(ctx)))


def set_hex(ctx: StepContext, command: SetHex) -> None:
    """Record one hex, keeping what the command does not change."""
    name = grid.normal(command.hex)
    old = the_map(ctx).hex(name)
    terrain = command.terrain or (old.terrain if old is not None else "")
    if not terrain:
        msg = f"hex {name} is not on the map yet: give its --terrain"
        raise UsageError(msg)
    road = command.road if command.road is not None else (old.road if old is not None else False)
    track = command.track if command.track is not None else (old.track if old is not None else False)
    if command.road and command.track is None:
        track = False
    if command.track and command.road is None:
        road = False
    landmarks = command.landmarks or (old.landmarks if old is not None else ())
    unchanged = old is not None and (old.terrain, old.road, old.track, old.landmarks) == (
        terrain,
        road,
        track,
        landmarks,
    )
    if unchanged and not command.hidden and not command.lairs:
        msg = (
            f"hex {name} is already so: nothing to change (give a new --terrain, --road or --no-road, --track or "
            "--no-track, --landmark, --hidden or --lair)"
        )
        raise UsageError(msg)
    ctx.emit(
        *_committed(
            ctx,
            mapfile.hex_events(
                name,
                terrain,
                ctx.part(MapTables).terrains(),
                road=road,
                track=track,
                landmarks=landmarks,
                hidden=command.hidden,
                lairs=command.lairs,
            ),
        )
    )


HEXMAP = Procedure(
    name=PROCEDURE,
    title="The hex map: load a map file, set or change a hex (col,row; flat-topped, 6 miles), reveal what is hidden.",
    steps={LoadMap: load, SetHex: set_hex, RevealHidden: reveal},
    triggers={LoadMap: "load", SetHex: "set", RevealHidden: "reveal"},
    phases=Phase,
    transitions=TRANSITIONS,
    initial=Phase.EMPTY,
    final=frozenset({Phase.DRAWN}),
    model=MapModel,
    fold=evolve,
    reads=READS,
    state_type=MapState,
    rules=(MapTables, CastleTables),
    events=(
        ev.MapLoaded,
        ev.HexSet,
        ev.HiddenFeaturePlaced,
        ev.FeatureFound,
        ev.FeatureFoundLost,
        ev.FeatureLocated,
        ev.FeatureRevealed,
        castle_ev.CastlePlaced,
    ),
)

__all__ = ["HEXMAP", "PROCEDURE", "TRANSITIONS", "LoadMap", "MapState", "Phase", "RevealHidden", "SetHex"]
