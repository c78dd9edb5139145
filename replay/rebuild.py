"""Rebuild the live projections from the log, compare them with the stored ones, and travel in time."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.chain import canonical_json
from hexlog.events.errors import NotFoundError, UsageError
from hexlog.events.streams import stream_for
from hexlog.machine import table as tables
from hexlog.machine.registry import REGISTRY
from hexlog.projections import live
from hexlog.projections.ledger import LEDGER

if TYPE_CHECKING:
    from hexlog.events.base import Event
    from hexlog.events.store import LiveStore, Recorded
    from hexlog.machine.kit.registry import Registry

#: how many differing rows a report names
SHOWN = 3
EQUAL = "equal"
DIFFERS = "differs"
MISSING = "missing"


def projections(registry: Registry = REGISTRY) -> tuple[live.Projection[Any], ...]:
    """The live projections of a campaign: the table (what commands decide on) and the roll ledger."""
    return (tables.TableProjection(registry), LEDGER)


@attrs.frozen(kw_only=True)
class ProjectionCheck:
    """How one live projection's stored rows compare with the same rows rebuilt from the log."""

    name: str
    #: ``equal``, ``differs`` or ``missing`` (never saved)
    status: str
    #: the stream version the stored rows were folded to (0 when missing)
    live_version: int
    #: whether the stored rows have folded every event of the stream
    up_to_date: bool
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Whether the stored rows equal the rebuilt ones."""
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


def _recorded(store: LiveStore, campaign: str, version: int | None = None) -> list[Recorded]:
    """The campaign's records up to ``version`` (all when ``None``); ``NotFoundError`` if none."""
    stream_id = stream_for(campaign)
    records = store.read_stream(stream_id)
    if not records:
        msg = f"campaign {campaign!r} has no events"
        raise NotFoundError(msg)
    if version is None:
        return records
    if not 0 <= version <= len(records):
        msg = f"version {version} is outside {stream_id}, which holds versions 1 to {len(records)}"
        raise UsageError(msg)
    return records[:version]


def _check(
    projection: live.Projection[Any], rebuilt: dict[str, Any], store: LiveStore, stream_id: str, version: int
) -> ProjectionCheck:
    """Compare a projection's stored rows with the rows a fold of the whole log gives."""
    name = projection.name
    stored = store.read_rows(stream_id, name)
    mark = stored.pop(live.MARK, None)
    if mark is None:
        return ProjectionCheck(name=name, status=MISSING, live_version=0, up_to_date=False, reason="never saved")
    at = mark[0]
    if at != version:
        reason = f"its rows were folded to version {at}, not the log's {version}"
        return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=False, reason=reason)
    if not isinstance(mark[1], dict) or mark[1].get("revision") != projection.revision:
        reason = f"its rows are of revision {mark[1]!r}, not {projection.revision}"
        return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=True, reason=reason)
    data = _canonical({key: value for key, (_, value) in stored.items()})
    missing = sorted(rebuilt.keys() - data.keys())
    extra = sorted(data.keys() - rebuilt.keys())
    changed = sorted(k for k in rebuilt.keys() & data.keys() if rebuilt[k] != data[k])
    if not (missing or extra or changed):
        return ProjectionCheck(name=name, status=EQUAL, live_version=at, up_to_date=True)
    parts = [
        f"{label} {', '.join(keys[:SHOWN])}{' ...' if len(keys) > SHOWN else ''}"
        for label, keys in (("missing", missing), ("not in the log", extra), ("differ", changed))
        if keys
    ]
    reason = "rows " + "; ".join(parts)
    return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=True, reason=reason)


def _canonical(data: dict[str, Any]) -> dict[str, Any]:
    """Row data as the store gives it back (JSON, so tuples are lists)."""
    return {key: json.loads(canonical_json(value)) for key, value in data.items()}


def replay(store: LiveStore, campaign: str, registry: Registry = REGISTRY) -> ReplayReport:
    """Rebuild every live projection of a campaign from its log and compare it with its stored rows."""
    records = _recorded(store, campaign)
    events: list[Event] = [live.decode_recorded(r) for r in records]
    version = records[-1].version
    stream_id = stream_for(campaign)
    states: dict[str, Any] = {}
    checks = []
    for projection in projections(registry):
        state, data = live.rebuild(projection, events)
        states[projection.name] = state
        checks.append(_check(projection, _canonical(data), store, stream_id, version))
    table = attrs.evolve(states["table"], version=version)
    return ReplayReport(
        campaign=campaign,
        stream_id=stream_id,
        version=version,
        projections=states,
        table=table,
        checks=tuple(checks),
    )


def state_at(store: LiveStore, campaign: str, version: int, registry: Registry = REGISTRY) -> dict[str, Any]:
    """The live projections of a campaign as of a stream version (0 gives the initial states)."""
    events = [live.decode_recorded(r) for r in _recorded(store, campaign, version)]
    return {p.name: live.rebuild(p, events)[0] for p in projections(registry)}


def table_at(store: LiveStore, campaign: str, version: int, registry: Registry = REGISTRY) -> tables.Table:
    """The machine's table of a campaign as of a stream version."""
    records = _recorded(store, campaign, version)
    return tables.fold((live.decode_recorded(r) for r in records), registry, version)
