"""The chart of a simulation (``hexlog simulate --plot FILE.png``): one panel per measure, the sides side by side.

A rate is a bar with its 95 % interval, a category a bar per value, a number a bar per value (or its
percentiles when it takes many values). Needs matplotlib (``pip install 'hexlog[plot]'``).
"""

from __future__ import annotations

import math
import struct
import textwrap
from typing import TYPE_CHECKING, Any

from hexlog.events.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from hexlog.service.simulation import Measure

COLUMNS = 2
WIDTH = 0.8
#: the most characters of the title on one line (a 12-inch figure, 9-point type)
TITLE_CHARACTERS = 150


def _bars(
    measure: Measure, *, percentiles: bool = False
) -> tuple[list[str], list[float], list[tuple[float, float]] | None, str]:
    """A measure's bars: labels, heights, intervals (rates), and the y axis label; a number's percentiles when it took
    too many values to show each, or ``percentiles`` says so (the other side's did)."""
    if measure.kind == "number" and measure.counts and not percentiles:
        labels = list(measure.counts)
        return labels, [count / measure.n for count in measure.counts.values()], None, "share of trials"
    if measure.kind == "number":
        labels = [f"p{p}" for p in measure.percentiles]
        return labels, list(measure.percentiles.values()), None, measure.name
    labels = [rate.label for rate in measure.rates]
    return labels, [rate.rate for rate in measure.rates], [rate.interval for rate in measure.rates], "rate (95% CI)"


def _panel(ax: Any, name: str, sides: Sequence[tuple[str, list[Measure]]]) -> None:
    """One measure's panel: each side's bars beside the other's, on the values either side gave; a side without
    the measure takes no room (the other's bars stand on their ticks), and each side keeps its colour."""
    present = [
        (colour, label, measure)
        for colour, (label, measures) in enumerate(sides)
        if (measure := next((m for m in measures if m.name == name), None)) is not None
    ]
    width = WIDTH / len(present)
    # one scale for both sides: a number's shares of each value only if every side has them, else its percentiles
    percentiles = any(one.kind == "number" and not one.counts for _, _, one in present)
    order: list[str] = []
    for _, _, one in present:
        order += [label for label in _bars(one, percentiles=percentiles)[0] if label not in order]
    if all(one.kind == "number" and one.counts for _, _, one in present):  # values either side gave, in order
        order.sort(key=float)
    ylabel = ""
    for offset, (colour, label, measure) in enumerate(present):
        labels, heights, intervals, ylabel = _bars(measure, percentiles=percentiles)
        at = dict(zip(labels, heights, strict=True))
        xs = [i + (offset - (len(present) - 1) / 2) * width for i in range(len(order))]
        ys = [at.get(lab, 0.0) for lab in order]
        errors = None
        if intervals is not None:
            spans = dict(zip(labels, intervals, strict=True))
            low = [max(0.0, y - spans[lab][0]) if lab in spans else 0.0 for lab, y in zip(order, ys, strict=True)]
            high = [max(0.0, spans[lab][1] - y) if lab in spans else 0.0 for lab, y in zip(order, ys, strict=True)]
            errors = [low, high]
        ax.bar(xs, ys, width=width, yerr=errors, capsize=3, label=label or None, color=f"C{colour}")
    ax.set_xticks(range(len(order)))
    ax.set_xticklabels(order, rotation=30 if len(order) > 6 else 0, fontsize=8)  # noqa: PLR2004 - a crowded axis
    # each bar a value's share of the trials, a category's rate, or (a number of many values) a percentile of it
    ax.set_xlabel(f"{name}: percentile of the trials" if ylabel == name else name)
    ax.set_ylabel(ylabel)
    if len(sides) > 1:
        ax.legend(fontsize=7)


def pyplot() -> Any:
    """matplotlib's ``pyplot`` drawing off screen; ``UsageError`` naming the extra to install when it is missing
    (asked before any trial is run, so a simulation never runs to lose its plot)."""
    try:
        import matplotlib as mpl  # noqa: PLC0415 - only when a plot is asked for

        mpl.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        msg = "--plot needs matplotlib: pip install 'hexlog[plot]'"
        raise UsageError(msg) from None
    return plt


def _title_lines(title: str) -> str:
    """The title in lines that fit the figure's width: each side's rules (``A: ...; B: ...``) on a line of its own,
    a line longer than the figure broken between words (the rules' names of a ``compare`` ran off both edges)."""
    parts = title.split("; ")
    return "\n".join(
        textwrap.fill(part + (";" if i < len(parts) - 1 else ""), TITLE_CHARACTERS, break_long_words=False)
        for i, part in enumerate(parts)
    )


def chart(title: str, sides: Sequence[tuple[str, list[Measure]]]) -> Any:
    """The figure of every measure of every side, the rules named in its title."""
    plt = pyplot()
    names = list(dict.fromkeys(m.name for _, measures in sides for m in measures))
    rows = max(1, math.ceil(len(names) / COLUMNS))
    figure, axes = plt.subplots(rows, COLUMNS, figsize=(6 * COLUMNS, 3.2 * rows), squeeze=False)
    for index, name in enumerate(names):
        _panel(axes[index // COLUMNS][index % COLUMNS], name, sides)
    for index in range(len(names), rows * COLUMNS):
        axes[index // COLUMNS][index % COLUMNS].axis("off")
    figure.suptitle(_title_lines(title), fontsize=9)
    figure.tight_layout()
    return figure


def write(path: Path, title: str, sides: Sequence[tuple[str, list[Measure]]]) -> None:
    """Write the chart of every measure of every side to ``path`` (PNG), which says hexlog wrote it (``SOFTWARE``)."""
    figure = chart(title, sides)
    try:
        figure.savefig(path, format="png", dpi=100, metadata={"Software": SOFTWARE})
    finally:
        pyplot().close(figure)


#: what a plot's PNG says wrote it (its ``Software`` text chunk): a file that says so may be written over
SOFTWARE = "hexlog simulate"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: the most of a file read to find what wrote it (the text chunks come before the image's data)
HEAD_BYTES = 65_536


def written_by_hexlog(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a plot hexlog wrote: a PNG whose ``Software`` text chunk, before
    its image data, is ``SOFTWARE``."""
    if not head.startswith(PNG_SIGNATURE):
        return False
    at = len(PNG_SIGNATURE)
    while at + 8 <= len(head):
        (length,) = struct.unpack(">I", head[at : at + 4])
        kind, data = head[at + 4 : at + 8], head[at + 8 : at + 8 + length]
        if kind in {b"IDAT", b"IEND"} or len(data) < length:
            return False
        if kind == b"tEXt" and data == b"Software\x00" + SOFTWARE.encode("latin-1"):
            return True
        at += 12 + length
    return False
