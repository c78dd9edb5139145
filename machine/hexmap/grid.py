"""The hex grid: flat-topped hexes six miles across, named by offset coordinates ``"col,row"``.

Columns run west to east, rows north to south; odd columns sit half a hex lower than even ones
("odd-q" offset layout). A flat-topped hex has a face to the north and to the south, so its six
neighbours lie N, NE, SE, S, SW and NW (the headings of REFERENCE §4.12).
"""

from __future__ import annotations

import re

from hexlog.events.errors import UsageError

#: the six headings, clockwise from north (the order of the lost-direction die, §4.12)
HEADINGS = ("N", "NE", "SE", "S", "SW", "NW")
#: the largest column or row a hex may have
MAX_COORD = 9999
#: ASCII digits and spaces only (0-9, as every number hexlog reads): ``\d`` would take full-width digits for 3,4
_HEX = re.compile(r"^\s*(\d{1,4})\s*,\s*(\d{1,4})\s*$", re.ASCII)

#: (column step, row step) of each heading from an even column, then from an odd column
_EVEN = {"N": (0, -1), "NE": (1, -1), "SE": (1, 0), "S": (0, 1), "SW": (-1, 0), "NW": (-1, -1)}
_ODD = {"N": (0, -1), "NE": (1, 0), "SE": (1, 1), "S": (0, 1), "SW": (-1, 1), "NW": (-1, 0)}


def parse(text: str) -> tuple[int, int]:
    """``"col,row"`` as two numbers; ``UsageError`` naming the form."""
    found = _HEX.match(text)
    if found is None:
        msg = f"a hex is written col,row (two numbers 0 to {MAX_COORD}, e.g. 3,4), not {text!r}"
        raise UsageError(msg)
    return int(found[1]), int(found[2])


def name(col: int, row: int) -> str:
    """The hex written ``"col,row"``."""
    return f"{col},{row}"


def normal(text: str) -> str:
    """A hex's canonical name (``" 3 , 04"`` -> ``"3,4"``)."""
    return name(*parse(text))


def heading(text: str) -> str:
    """A heading in capitals; ``UsageError`` naming the six."""
    upper = text.strip().upper()
    if upper not in HEADINGS:
        msg = f"a heading is one of {', '.join(HEADINGS)}, not {text!r}"
        raise UsageError(msg)
    return upper


def neighbour(hex_name: str, towards: str) -> str | None:
    """The hex next to ``hex_name`` across its ``towards`` face (None: off the grid)."""
    col, row = parse(hex_name)
    dc, dr = (_ODD if col % 2 else _EVEN)[heading(towards)]
    col, row = col + dc, row + dr
    if not (0 <= col <= MAX_COORD and 0 <= row <= MAX_COORD):
        return None
    return name(col, row)


def turn(towards: str, by: int) -> str:
    """The heading ``by`` sixth-turns clockwise of ``towards``."""
    return HEADINGS[(HEADINGS.index(towards) + by) % len(HEADINGS)]


def turn_between(first: str, second: str) -> int:
    """The sixth-turns clockwise from ``first`` to ``second`` (0 to 5)."""
    return (HEADINGS.index(second) - HEADINGS.index(first)) % len(HEADINGS)


def distance(first: str, second: str) -> int:
    """The number of hexes between two hexes (0: the same hex; a neighbour is 1 away)."""
    (c1, r1), (c2, r2) = parse(first), parse(second)
    # odd-q offset to cube coordinates: x is the column, z the row shifted up half a hex per column pair
    x1, z1 = c1, r1 - (c1 - (c1 & 1)) // 2
    x2, z2 = c2, r2 - (c2 - (c2 & 1)) // 2
    dx, dz = x1 - x2, z1 - z2
    return max(abs(dx), abs(dz), abs(dx + dz))
