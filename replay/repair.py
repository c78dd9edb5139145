"""Repair: write a campaign's live projections anew from its log, and say what was wrong with them.

The rows a command decides on are a cache of the log. A row edited in place (its version and mark
kept) is one a command cannot tell from a sound one; ``hexlog replay`` names it, and a repair
rewrites every projection whose rows differ from a fold of the log (or were never saved), in one
transaction, only if the log has not moved on meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.errors import ConcurrencyError
from hexlog.events.streams import stream_for
from hexlog.machine.registry import REGISTRY
from hexlog.projections import live
from hexlog.replay.rebuild import EQUAL, ProjectionCheck, ReplayReport, projections, replay_records, stored_pages

if TYPE_CHECKING:
    from hexlog.events.store import LiveStore, ProjectionRow
    from hexlog.machine.kit.registry import Registry


@attrs.frozen(kw_only=True)
class Repair:
    """What a repair found, what it wrote anew, and the replay after it."""

    before: ReplayReport
    #: the checks of the projections written anew, as they stood before
    fixed: tuple[ProjectionCheck, ...]
    after: ReplayReport

    def text(self) -> str:
        """One line per projection written anew (with what was wrong), or that nothing needed it."""
        if not self.fixed:
            return "nothing to repair: every projection's rows equal a fold of the log"
        version = self.before.version
        return "\n".join(
            f"repaired {check.name} ({check.status}: {check.reason}): its rows were written anew from the log "
            f"at version {version}"
            for check in self.fixed
        )


def repair(store: LiveStore, campaign: str, registry: Registry = REGISTRY) -> Repair:
    """Rewrite from the log every live projection of ``campaign`` whose stored rows are not equal to it.

    ``ConcurrencyError`` when another writer appended meanwhile (or held the database past its busy
    timeout): nothing is written then, and the repair may simply be run again.
    """
    before, rebuilt = replay_records(store, campaign, stored_pages(store, campaign), registry, every_row=True)
    event = before.event
    rows: list[ProjectionRow] = []
    fixed = []
    for projection, check in zip(projections(registry), before.checks, strict=True):
        if check.status == EQUAL:
            continue
        rows.extend(live.anew(projection, rebuilt[projection.name], before.version, event))
        fixed.append(check)
    stream_id = stream_for(campaign)
    if rows and not store.write_rows(stream_id, rows, at_version=before.version):
        msg = (
            f"{stream_id} moved on (or the database stayed busy, or could not be written) while it was repaired; "
            "nothing written, run it again"
        )
        raise ConcurrencyError(msg)
    after = replay_records(store, campaign, stored_pages(store, campaign), registry)[0] if rows else before
    return Repair(before=before, fixed=tuple(fixed), after=after)
