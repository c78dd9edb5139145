"""Rebuild the read models from the log, compare them with the live ones, and travel in time."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.errors import CorruptLogError, NotFoundError, UsageError
from hexlog.machine import table as tables
from hexlog.projections import live

if TYPE_CHECKING:
    from hexlog.projections.live import LiveStore

EQUAL = "equal"
DIFFERS = "differs"
MISSING = "missing"


@attrs.frozen(kw_only=True)
class ProjectionCheck:
    """How one live projection compares with the same projection rebuilt from the log."""

    name: str
    #: ``equal``, ``differs`` or ``missing`` (never saved)
    status: str
    #: the stream version the live state was saved at (0 when missing)
    live_version: int
    #: whether the live state has folded every event of the stream
    up_to_date: bool
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Whether the live state equals the rebuilt one."""
        return self.status == EQUAL


@attrs.frozen(kw_only=True)
class ReplayReport:
    """A campaign rebuilt from its log: the projections, the machine's table and the comparisons."""

    campaign: str
    stream_id: str
    version: int
    projections: dict[str, Any]
    table: tables.Table
    checks: tuple[ProjectionCheck, ...]

    @property
    def ok(self) -> bool:
        """Whether every live projection equals its rebuild."""
        return all(check.ok for check in self.checks)

    def text(self) -> str:
        """A short readable account of the replay."""
        lines = [f"replayed {self.stream_id}: {self.version} events"]
        for check in self.checks:
            where = "up to date" if check.up_to_date else f"at version {check.live_version}"
            lines.append(f"  {check.name}: {check.status} ({where}){': ' + check.reason if check.reason else ''}")
        return "\n".join(lines)


def _recorded(store: LiveStore, campaign: str, version: int | None = None) -> list[Any]:
    """The campaign's records up to ``version`` (all when ``None``); ``NotFoundError`` if none."""
    stream_id = tables.stream_for(campaign)
    records = store.read_stream(stream_id)
    if not records:
        msg = f"campaign {campaign!r} has no events"
        raise NotFoundError(msg)
    if version is None:
        return records
    if not 0 <= version <= len(records):
        msg = f"version {version} is outside {stream_id}, which holds versions 1 to {len(records)}"
        raise UsageError(msg)
    return [r for r in records if r.version <= version]


def _check(name: str, store: LiveStore, stream_id: str, events: list[Any], version: int) -> ProjectionCheck:
    """Compare one saved live projection with its rebuild as of the version it was saved at."""
    saved = store.load_projection(live.projection_key(stream_id, name))
    if saved is None:
        return ProjectionCheck(name=name, status=MISSING, live_version=0, up_to_date=False, reason="never saved")
    at, text = saved
    if not 0 <= at <= version:
        reason = f"saved at version {at}, beyond the log's {version}"
        return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=False, reason=reason)
    initial, evolve = live.PROJECTIONS[name]
    rebuilt = initial
    for event in events[:at]:
        rebuilt = evolve(rebuilt, event)
    try:
        stored = live.from_json(name, text)
    except CorruptLogError as err:
        return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=at == version, reason=str(err))
    same = stored == rebuilt and json.loads(text) == json.loads(live.to_json(rebuilt))
    reason = "" if same else f"the saved state differs from the state rebuilt to version {at}"
    return ProjectionCheck(
        name=name, status=EQUAL if same else DIFFERS, live_version=at, up_to_date=at == version, reason=reason
    )


def replay(store: LiveStore, campaign: str) -> ReplayReport:
    """Rebuild every projection and the table of a campaign and compare with the live states."""
    records = _recorded(store, campaign)
    events = [live.decode_recorded(r) for r in records]
    version = records[-1].version
    stream_id = tables.stream_for(campaign)
    return ReplayReport(
        campaign=campaign,
        stream_id=stream_id,
        version=version,
        projections=live.rebuild(events),
        table=tables.fold(events, version),
        checks=tuple(_check(name, store, stream_id, events, version) for name in live.PROJECTIONS),
    )


def state_at(store: LiveStore, campaign: str, version: int) -> dict[str, Any]:
    """The projections of a campaign as of a stream version (0 gives the initial states)."""
    records = _recorded(store, campaign, version)
    return live.rebuild(live.decode_recorded(r) for r in records)


def table_at(store: LiveStore, campaign: str, version: int) -> tables.Table:
    """The machine's table of a campaign as of a stream version."""
    records = _recorded(store, campaign, version)
    return tables.fold((live.decode_recorded(r) for r in records), version)
