"""The map file: a TOML file of hexes, read into the events that record them.

The format (one table per hex, named ``col,row``; flat-topped hexes, odd columns half a hex lower)::

    [hex."3,4"]
    terrain = "meadow"          # a key of tables.terrain_difficulty or tables.terrain_odd_row
    road = true                 # or track = true (optional)
    landmarks = ["standing stones"]
    hidden = ["ruined chapel"]  # the referee's: found only by a search
    lairs = ["wolf den"]        # hidden lairs (the dvdm search table finds them on their own faces)
    castle = { type = "wizard", disposition = "neutral", name = "Blackspire" }
                                # a castle (rules with tables.castle): type and disposition may be left out
                                # to be rolled when its garrison is first met; castle = {} leaves both

Every other key is refused, naming it. Hidden features and lairs never reach the log in plaintext: the
step that records the map keeps them in the key keeper and records a commitment to each (``hidden``).
"""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING, Any

from hexlog.events import castle as castle_ev
from hexlog.events import files
from hexlog.events import hexmap as ev
from hexlog.events.errors import UsageError
from hexlog.machine import text
from hexlog.machine.hexmap import grid
from hexlog.machine.hexmap.hidden import Placement

if TYPE_CHECKING:
    from pathlib import Path

    from hexlog.events.base import Event

#: the most hexes one file may hold
MAX_HEXES = 10_000
_KEYS = frozenset({"terrain", "road", "track", "landmarks", "hidden", "lairs", "castle"})
_CASTLE_KEYS = {"type": "castle_type", "disposition": "disposition", "name": "name"}


def hex_events(  # noqa: PLR0913 - the facts of one hex
    name: str,
    terrain: str,
    terrains: list[str],
    *,
    road: bool = False,
    track: bool = False,
    landmarks: tuple[str, ...] = (),
    hidden: tuple[str, ...] = (),
    lairs: tuple[str, ...] = (),
    castle: castle_ev.CastlePlaced | None = None,
) -> list[Event | Placement]:
    """The events that set one hex, then its hidden features to place; ``UsageError`` for a terrain the
    rules lack or unusable text."""
    hex_name = grid.normal(name)
    if terrain not in terrains:
        msg = f"hex {hex_name}: terrain {terrain!r} is not one the rules in force know: {', '.join(terrains)}"
        raise UsageError(msg)
    if road and track:
        msg = f"hex {hex_name}: a hex has a road or a track, not both"
        raise UsageError(msg)
    for label, values in (("landmark", landmarks), ("hidden feature", hidden), ("lair", lairs)):
        for value in values:
            found = text.problem(value, label) or ("" if value.strip() else f"a {label} may not be empty")
            if found:
                msg = f"hex {hex_name}: {found}"
                raise UsageError(msg)
    events: list[Event | Placement] = [
        ev.HexSet(hex=hex_name, terrain=terrain, road=road, track=track, landmarks=tuple(landmarks))
    ]
    events += [Placement(hex=hex_name, feature=f) for f in hidden]
    events += [Placement(hex=hex_name, feature=f, lair=True) for f in lairs]
    if castle is not None:
        events.append(castle)
    return events


def read(path: Path, terrains: list[str]) -> list[Event | Placement]:
    """The events of a map file: ``MapLoaded``, then each hex's (with its hidden features to place);
    ``UsageError`` naming what is wrong."""
    text = files.decode_utf8(files.read_regular(path, limit=files.MAX_SMALL_FILE_BYTES, what="the map"), what=str(path))
    try:
        data = files.loads_toml(text)
    except (tomllib.TOMLDecodeError, files.FileContentError) as err:
        msg = f"the map {path} is not TOML hexlog reads: {err}"
        raise UsageError(msg) from err
    extra = sorted(set(data) - {"hex"})
    hexes = data.get("hex")
    if extra or not isinstance(hexes, dict) or not hexes:
        msg = f'the map {path} must hold [hex."col,row"] tables and nothing else' + (
            f" (unknown: {', '.join(extra)})" if extra else ""
        )
        raise UsageError(msg)
    if len(hexes) > MAX_HEXES:
        msg = f"the map {path} has {len(hexes)} hexes; at most {MAX_HEXES}"
        raise UsageError(msg)
    events: list[Event | Placement] = [ev.MapLoaded(source=path.name, hexes=len(hexes))]
    seen: set[str] = set()
    for name, entry in hexes.items():
        hex_name = grid.normal(name)
        if hex_name in seen:
            msg = f"the map {path} gives hex {hex_name} twice"
            raise UsageError(msg)
        seen.add(hex_name)
        events += hex_events(hex_name, terrains=terrains, **_entry(hex_name, entry))
    return events


def _entry(hex_name: str, entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict):
        msg = f"hex {hex_name}: expected a table with terrain = ..."
        raise UsageError(msg)
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        msg = f"hex {hex_name}: unknown key {', '.join(unknown)}; allowed {', '.join(sorted(_KEYS))}"
        raise UsageError(msg)
    terrain = entry.get("terrain")
    if not isinstance(terrain, str):
        msg = f"hex {hex_name}: terrain must be given as a string"
        raise UsageError(msg)
    out: dict[str, Any] = {"terrain": terrain}
    for key in ("road", "track"):
        if not isinstance(entry.get(key, False), bool):
            msg = f"hex {hex_name}: {key} must be true or false"
            raise UsageError(msg)
        out[key] = entry.get(key, False)
    for key in ("landmarks", "hidden", "lairs"):
        values = entry.get(key, [])
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            msg = f"hex {hex_name}: {key} must be a list of strings"
            raise UsageError(msg)
        out[key] = tuple(values)
    if "castle" in entry:
        out["castle"] = _castle(hex_name, entry["castle"])
    return out


def _castle(hex_name: str, entry: Any) -> castle_ev.CastlePlaced:
    """A hex's castle (its type and disposition are checked against the rules when the map is recorded)."""
    if not isinstance(entry, dict):
        msg = f"hex {hex_name}: castle must be a table ({{}} for a castle whose type and disposition are rolled)"
        raise UsageError(msg)
    unknown = sorted(set(entry) - set(_CASTLE_KEYS))
    if unknown:
        msg = f"hex {hex_name}: unknown castle key {', '.join(unknown)}; allowed {', '.join(_CASTLE_KEYS)}"
        raise UsageError(msg)
    values = {}
    for key, field in _CASTLE_KEYS.items():
        value = entry.get(key, "")
        found = text.problem(value, f"castle {key}") if isinstance(value, str) else f"castle {key} must be a string"
        if found:
            msg = f"hex {hex_name}: {found}"
            raise UsageError(msg)
        values[field] = value
    return castle_ev.CastlePlaced(hex=hex_name, **values)
