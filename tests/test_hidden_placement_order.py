"""Where a map's hidden features lie is not told by where their commitments sit in the log.

A map file's hexes are recorded one after another; if each hex's commitments followed its own ``HexSet``,
a player reading the log would know which hexes hide something, and how many things. They follow the
last hex instead (in the order of the placements, which a player cannot tie to the hexes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import hexmap as ev
from hexlog.events.codec import decode
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import LoadMap
from hexlog.machine.keeper import MemoryKeeper

if TYPE_CHECKING:
    from pathlib import Path

CAMPAIGN = "m"
#: hidden things in the first and the middle hex of five, none in the others
HIDDEN = 'hidden = ["a chapel", "a crypt"]\nlairs = ["a den"]\n'
MAP = "\n".join(f'[hex."{n},1"]\nterrain = "meadow"\n' + (HIDDEN if n in {0, 2} else "") for n in range(5))


def test_the_commitments_of_a_map_file_follow_its_last_hex(tmp_path: Path) -> None:
    path = tmp_path / "map.toml"
    path.write_text(MAP)
    handler = Handler(MemoryStore(), MemoryKeeper())
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore"))
    handler.execute(CAMPAIGN, LoadMap(file=str(path)))
    events = [decode(r.envelope) for r in handler.store.read_stream(tables.stream_for(CAMPAIGN))]
    mapped = [e for e in events if isinstance(e, ev.HexSet | ev.HiddenFeaturePlaced)]
    kinds = [type(e).__name__ for e in mapped]
    assert kinds == ["HexSet"] * 5 + ["HiddenFeaturePlaced"] * 6
