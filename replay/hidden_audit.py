"""The audit's check of the map's hidden features: every opening against an earlier commitment.

The log commits to each hidden feature (``map.hidden_placed``) and opens a commitment when a search
finds the feature or the referee reveals it. Each opening must match a commitment placed before it and
not opened yet; one that does not is a finding naming it. The features the log opens anywhere are
what the audit's re-run of a search knows (a keeper holding them); a commitment never opened leaves
the searches that found nothing unchecked, which the verdict names as a caveat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events import hexmap as ev
from hexlog.machine.hexmap import hidden
from hexlog.machine.keeper import MemoryKeeper
from hexlog.replay.dice_audit import Issue

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event

CHECK = "hidden feature"
#: the campaign the audit's keeper keeps the opened features under (the re-run's context names none)
CAMPAIGN = ""


@attrs.frozen
class HiddenCheck:
    """What the openings of one stream found: the findings, a keeper of the opened features, what stays hidden."""

    issues: tuple[Issue, ...]
    keeper: MemoryKeeper
    never_revealed: int


def check_hidden(events: Sequence[Event | None]) -> HiddenCheck:
    """Check each opening of one stream's decoded events against the commitments before it."""
    keeper = MemoryKeeper()
    issues: list[Issue] = []
    unopened: list[str] = []
    for at, event in enumerate(events):
        if isinstance(event, ev.HiddenFeaturePlaced):
            unopened.append(event.commitment)
        elif isinstance(event, ev.FeatureFound | ev.FeatureFoundLost | ev.FeatureRevealed):
            what = "found" if isinstance(event, ev.FINDS) else "revealed"
            key = event.commitment
            if key not in unopened:
                reason = (
                    f"{event.type_name}: the feature {what} in {event.hex} ({event.feature!r}) matches no earlier "
                    "commitment of a hidden feature still hidden"
                )
                issues.append(Issue(at, CHECK, reason))
                continue
            unopened.remove(key)
            opened = hidden.Hidden(hex=event.hex, feature=event.feature, lair=event.lair, salt=event.salt)
            hidden.keep(keeper, CAMPAIGN, opened)
    return HiddenCheck(tuple(issues), keeper, len(unopened))


def caveat(never_revealed: int) -> str:
    """The verdict's caveat for commitments never opened."""
    return (
        f"{never_revealed} hidden map feature{'s' if never_revealed != 1 else ''} never revealed: "
        "searches that found nothing cannot be checked"
    )
