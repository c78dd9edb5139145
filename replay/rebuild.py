"""Rebuild the live projections from the log, compare them with the stored ones, and travel in time."""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.chain import canonical_json
from hexlog.events.errors import NotFoundError, UsageError
from hexlog.events.streams import stream_for
from hexlog.machine import table as tables
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.projections import live
from hexlog.projections.ledger import LEDGER
from hexlog.replay.rebuilt_rows import RebuiltRows

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from hexlog.events.base import Event
    from hexlog.events.store import LiveStore, Recorded, StoredEvent
    from hexlog.machine.kit.registry import Registry

#: how many differing rows a report names
SHOWN = 3
EQUAL = "equal"
DIFFERS = "differs"
MISSING = "missing"
#: saved by a hexlog whose saved form was another revision: a cache the next command builds anew
OUTDATED = "outdated"


def projections(registry: Registry = REGISTRY) -> tuple[live.Projection[Any], ...]:
    """The live projections of a campaign: the table (what commands decide on) and the roll ledger."""
    return (tables.TableProjection(registry), LEDGER)


@attrs.frozen(kw_only=True)
class ProjectionCheck:
    """How one live projection's stored rows compare with the same rows rebuilt from the log."""

    name: str
    #: ``equal``, ``differs``, ``missing`` (never saved: no row at all) or ``outdated`` (saved in another revision)
    status: str
    #: the stream version the stored rows were folded to (0 when missing)
    live_version: int
    #: whether the stored rows have folded every event of the stream
    up_to_date: bool
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Whether nothing stored differs from the log: rows equal to the rebuilt ones, or no rows yet.

        Rows never written, or written in the saved form of another release, are no difference: they
        are a cache of the log (a database written by hexlog 0.1.0 has none) that no command decides
        on, built anew by the next command or by ``replay --repair``.
        """
        return self.status in {EQUAL, MISSING, OUTDATED}

    def line(self) -> str:
        """The check as one line of the report."""
        if self.status == MISSING:
            return f"{self.name}: not saved yet (a cache of the log, written by the next command)"
        if self.status == OUTDATED:
            return f"{self.name}: outdated ({self.reason}): a cache of the log, written anew by the next command"
        where = "up to date" if self.up_to_date else f"at version {self.live_version}"
        return f"{self.name}: {self.status} ({where}){': ' + self.reason if self.reason else ''}"


@attrs.frozen(kw_only=True)
class ReplayReport:
    """A campaign rebuilt from its log: the projections, the machine's table and the comparisons."""

    campaign: str
    stream_id: str
    version: int
    projections: dict[str, Any]
    table: tables.Table
    checks: tuple[ProjectionCheck, ...]
    #: the id of the log's last event
    event: str = ""

    @property
    def ok(self) -> bool:
        """Whether every live projection equals its rebuild."""
        return all(check.ok for check in self.checks)

    def text(self) -> str:
        """A short readable account of the replay."""
        lines = [f"replayed {self.stream_id}: {counted(self.version, 'event')}"]
        lines.extend(f"  {check.line()}" for check in self.checks)
        return "\n".join(lines)


def records(store: LiveStore, campaign: str, version: int | None = None) -> Iterator[Recorded]:
    """The campaign's records up to ``version`` (all when ``None``), read page by page as they are used.

    ``NotFoundError`` if the campaign has no events, ``UsageError`` for a version outside its stream (both
    raised here, before the first record is read).
    """
    end = _end(store, campaign, version)
    return itertools.takewhile(lambda record: record.version <= end, store.iter_stream(stream_for(campaign)))


def _end(store: LiveStore, campaign: str, version: int | None) -> int:
    """The last version a read of the campaign up to ``version`` gives; ``NotFoundError`` if it has no events,
    ``UsageError`` for a version outside its stream."""
    stream_id = stream_for(campaign)
    length = store.stream_version(stream_id)
    if not length:
        msg = f"campaign {campaign!r} has no events"
        raise NotFoundError(msg)
    if version is not None and not 0 <= version <= length:
        msg = f"version {version} is outside {stream_id}, which holds versions 1 to {length}"
        raise UsageError(msg)
    return length if version is None else version


def stored_pages(store: LiveStore, campaign: str, version: int | None = None) -> Iterator[list[StoredEvent]]:
    """The campaign's stored events (version, id, event) up to ``version`` (all when ``None``, as many as the stream
    holds when asked), a page at a time as they are read: what a fold reads (raised as ``records`` raises)."""
    end = _end(store, campaign, version)
    return store.event_pages(stream_for(campaign), 1, end)


def event_pages(store: LiveStore, campaign: str, version: int | None = None) -> Iterator[list[Event]]:
    """The campaign's decoded events up to ``version`` (all when ``None``), a page at a time as they are read."""
    return ([stored[2] for stored in page] for page in stored_pages(store, campaign, version))


def events(store: LiveStore, campaign: str, version: int | None = None) -> Iterator[Event]:
    """The events of ``event_pages`` one by one."""
    return itertools.chain.from_iterable(event_pages(store, campaign, version))


def recorded(store: LiveStore, campaign: str, version: int | None = None) -> list[Recorded]:
    """The campaign's records up to ``version`` (all when ``None``) as a list; see ``records``."""
    return list(records(store, campaign, version))


@attrs.define
class _Scan:
    """What one pass over a projection's stored rows (in key order) found, each list in key order and cut
    after ``SHOWN + 1`` keys (enough to name ``SHOWN`` and say there are more)."""

    #: rows written at a later stream version than the mark's
    newer: list[str] = attrs.field(factory=list)
    #: rows the fold of the log has and the store has not
    missing: list[str] = attrs.field(factory=list)
    #: rows the store has and the fold of the log has not
    extra: list[str] = attrs.field(factory=list)
    #: rows both have, with other data
    changed: list[str] = attrs.field(factory=list)

    @staticmethod
    def note(keys: list[str], key: str) -> None:
        if len(keys) <= SHOWN:
            keys.append(key)


def _scan(stored: Iterator[tuple[str, int, Any]], rebuilt: Iterator[tuple[str, Any]] | None, at: int) -> _Scan:
    """The stored rows (the mark left out) walked once, in key order, beside the rebuilt rows (in key order too)
    when they are compared (``rebuilt`` None: only the rows newer than the mark ``at`` are looked for). Each
    pair is made JSON as it is compared; neither side is ever held whole."""
    found = _Scan()
    mine = iter(rebuilt if rebuilt is not None else ())
    next_mine = next(mine, None)
    for key, version, data in stored:
        if version > at:
            found.note(found.newer, key)
        if rebuilt is None:
            continue
        while next_mine is not None and next_mine[0] < key:
            found.note(found.missing, next_mine[0])
            next_mine = next(mine, None)
        if next_mine is not None and next_mine[0] == key:
            if _as_stored(next_mine[1]) != _as_stored(data):
                found.note(found.changed, key)
            next_mine = next(mine, None)
        else:
            found.note(found.extra, key)
    while next_mine is not None:
        found.note(found.missing, next_mine[0])
        next_mine = next(mine, None)
    return found


def _listed(keys: list[str]) -> str:
    return ", ".join(keys[:SHOWN]) + (" ..." if len(keys) > SHOWN else "")


def _other_event(mark: tuple[int, Any], read: live.Reading) -> str | None:
    """Why a mark names another event than the log's at its version (None when it names the log's)."""
    at, data = mark
    held = read.ids.get(at, "") if at else ""
    if data["event"] != held:
        return f"its mark names event {data['event'] or '(none)'} at version {at}, but the log's event there is {held}"
    return None


def _stored(store: LiveStore, stream_id: str, name: str) -> Iterator[tuple[str, int, Any]]:
    """A projection's stored rows but its mark, in key order, read page by page."""
    return (row for row in store.iter_rows(stream_id, name) if row[0] != live.MARK)


def _check(
    projection: live.Projection[Any],
    rebuilt: RebuiltRows,
    mark: tuple[int, Any] | None,
    stored: Iterator[tuple[str, int, Any]],
    read: live.Reading,
) -> ProjectionCheck:
    """Compare a projection's stored rows (the mark left out, in key order) with the rows a fold of the whole
    log gives, when its mark says they are to be compared; ``mark`` is the stored mark the fold noted ids for.

    A mark that cannot be trusted is one a command would fold the log again for (see ``live.load``).
    """
    name, version = projection.name, read.version
    if mark is None:
        status, reason = (MISSING, "never saved") if next(stored, None) is None else (DIFFERS, "rows without a mark")
        return ProjectionCheck(name=name, status=status, live_version=0, up_to_date=False, reason=reason)
    at, saved = mark
    revision = saved.get("revision") if isinstance(saved, dict) else None
    if isinstance(revision, int) and not isinstance(revision, bool) and 0 < revision < projection.revision:
        reason = f"saved in revision {revision}, this hexlog saves revision {projection.revision}"
        return ProjectionCheck(name=name, status=OUTDATED, live_version=at, up_to_date=at == version, reason=reason)
    problem = live.mark_problem(projection, mark, version) or _other_event(mark, read)
    found = _Scan()
    if problem is None:
        found = _scan(stored, rebuilt.ordered() if at == version else None, at)
        if found.newer:
            problem = f"rows newer than their mark at version {at}: {_listed(found.newer)}"
    if problem is not None:
        return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=at == version, reason=problem)
    if at != version:
        reason = f"its rows were folded to version {at}, not the log's {version}"
        return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=False, reason=reason)
    parts = [
        f"{label} {_listed(keys)}"
        for label, keys in (("missing", found.missing), ("not in the log", found.extra), ("differ", found.changed))
        if keys
    ]
    if not parts:
        return ProjectionCheck(name=name, status=EQUAL, live_version=at, up_to_date=True)
    reason = "rows " + "; ".join(parts)
    return ProjectionCheck(name=name, status=DIFFERS, live_version=at, up_to_date=True, reason=reason)


def _compared(projection: live.Projection[Any], mark: tuple[int, Any] | None, version: int) -> bool:
    """Whether a projection's stored rows are to be compared one by one with a fold of the log of ``version``
    events: a sound mark of this revision at that version (the event it names is checked once the log is read)."""
    return mark is not None and live.mark_problem(projection, mark, version) is None and mark[0] == version


def _as_stored(value: Any) -> Any:
    """Row data as a database gives it back (JSON, so tuples are lists; the memory store keeps it as given)."""
    return json.loads(canonical_json(value))


def replay(store: LiveStore, campaign: str, registry: Registry = REGISTRY) -> ReplayReport:
    """Rebuild every live projection of a campaign from its log and compare it with its stored rows."""
    return replay_records(store, campaign, stored_pages(store, campaign), registry)[0]


def replay_records(
    store: LiveStore,
    campaign: str,
    stream: Iterable[Sequence[StoredEvent]],
    registry: Registry = REGISTRY,
    *,
    every_row: bool = False,
) -> tuple[ReplayReport, dict[str, RebuiltRows]]:
    """The replay of a campaign's pages of stored events in ``stream`` (its whole stream, read as they come: never held
    whole), and each projection's rebuilt rows by name: those of every projection with ``every_row`` (what a
    repair writes), otherwise only those compared with stored rows (``{}`` for the others, which the fold
    does not build)."""
    stream_id = stream_for(campaign)
    folds = projections(registry)
    # the marks first (the fold notes the log's event at each), every other row only when it is compared
    marks = {p.name: store.read_rows(stream_id, p.name, [live.MARK]).get(live.MARK) for p in folds}
    read = live.Reading(wanted={mark[0] for mark in marks.values() if mark is not None and isinstance(mark[0], int)})
    length = store.stream_version(stream_id)
    wanted = [every_row or _compared(p, marks[p.name], length) for p in folds]
    rebuilt = live.rebuild_all(folds, read.pages(stream), wanted, RebuiltRows)
    if not read.version:
        msg = f"campaign {campaign!r} has no events"
        raise NotFoundError(msg)
    if read.version != length:  # the log moved on meanwhile: fold again if rows now to be compared were not kept
        again = [every_row or _compared(p, marks[p.name], read.version) for p in folds]
        if any(now and not before for now, before in zip(again, wanted, strict=True)):
            rebuilt = live.rebuild_all(folds, event_pages(store, campaign, read.version), again, RebuiltRows)
    states: dict[str, Any] = {}
    rows: dict[str, RebuiltRows] = {}
    checks = []
    for projection, (state, data) in zip(folds, rebuilt, strict=True):
        assert isinstance(data, RebuiltRows)  # noqa: S101 - the holder given above
        states[projection.name], rows[projection.name] = state, data
        stored = _stored(store, stream_id, projection.name)
        checks.append(_check(projection, data, marks[projection.name], stored, read))
    table = attrs.evolve(states["table"], version=read.version)
    report = ReplayReport(
        campaign=campaign,
        stream_id=stream_id,
        version=read.version,
        projections=states,
        table=table,
        checks=tuple(checks),
        event=read.event,
    )
    return report, rows


def state_at(store: LiveStore, campaign: str, version: int, registry: Registry = REGISTRY) -> dict[str, Any]:
    """The live projections of a campaign as of a stream version (0 gives the initial states)."""
    folds = projections(registry)
    folded = live.rebuild_all(folds, event_pages(store, campaign, version), [False] * len(folds))
    return {p.name: state for p, (state, _) in zip(folds, folded, strict=True)}


def table_at(store: LiveStore, campaign: str, version: int, registry: Registry = REGISTRY) -> tables.Table:
    """The machine's table of a campaign as of a stream version."""
    return tables.fold(events(store, campaign, version), registry, version)


def version_at_time(store: LiveStore, campaign: str, seconds: int, registry: Registry = REGISTRY) -> int:
    """The last stream version at which game time had not passed ``seconds``: the log as it stood then.

    Every event up to the clock's first advance beyond that moment counts, so the checks that fell
    due at the moment itself are in it. A moment before the campaign's first event is refused.
    """
    table = tables.Table()
    reached = 0
    for version, _, event in itertools.chain.from_iterable(stored_pages(store, campaign)):
        table = tables.evolve(table, event, registry)
        if table.clock.seconds > seconds:
            break
        reached = version
    if reached == 0:
        msg = f"campaign {campaign!r} had not begun by then"
        raise UsageError(msg)
    return reached
