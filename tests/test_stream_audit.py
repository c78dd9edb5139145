"""The full audit reads each stream as it comes (``hexlog.replay.stream_audit``) and gives the report of the audit
that holds the stream whole: for sound logs without reading any stream whole, for forged ones by auditing the
stream that holds a finding whole again. The reference here is the audit with the streaming left out."""

from __future__ import annotations

import contextlib
import sqlite3
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest import mock

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlog.events.chain import canonical_json, reseal
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.sqlite_schema import COLUMNS, EVENTS_TABLE, STREAM_PAGE_SIZE, table_differences
from hexlog.events.store import NewEvent
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.chase import commands as ch
from hexlog.machine.dungeon import commands as d
from hexlog.machine.encounter import commands as e
from hexlog.machine.hexmap import RevealHidden
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.replay import audit, row_audit, stream_audit
from hexlog.replay.audit import AuditReport, audit_store
from hexlog.replay.chain_audit import Item
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.receipts import Receipt
from hexlog.replay.verdict import Verdict
from hexlog.service.benchmark import campaign_events, write_campaign

from .test_forged_steps import CAMPAIGN as FORGED_CAMPAIGN
from .test_forged_steps import (
    FORCED_MARCH_DAY,
    MET,
    SECRET_FOR_A_FLIGHT,
    concluded_by_hand,
    delve_chase,
    edited,
    played,
    where,
)
from .test_hexmap_hidden import CAMPAIGN as MAP_CAMPAIGN
from .test_hexmap_hidden import found_campaign

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hexlog.events.chain import Envelope
    from hexlog.events.store import EventStore

GOLDEN = sorted((Path(__file__).parent / "golden" / "logs").glob("*.jsonl"))


def _whole(store: EventStore, campaign: str | None = None, expect: tuple[Receipt, ...] = ()) -> Any:
    """The audit with every stream held whole (what the audit did before it read streams as they come)."""
    with mock.patch.object(audit, "audit_stream", return_value=None):
        return _audited(store, campaign, expect)


def _audited(store: EventStore, campaign: str | None = None, expect: tuple[Receipt, ...] = ()) -> Any:
    try:
        return audit_store(store, campaign, expect=expect)
    except Exception as err:  # noqa: BLE001 - an error is compared like a report
        return f"{type(err).__name__}: {err}"


def _same(store: EventStore, campaign: str | None = None, expect: tuple[Receipt, ...] = ()) -> Any:
    """The audit as it reads now and held whole give the same report (and text)."""
    now, whole = _audited(store, campaign, expect), _whole(store, campaign, expect)
    assert now == whole
    if isinstance(now, AuditReport):
        assert now.text() == whole.text()
    return now


@contextlib.contextmanager
def _never_whole() -> Iterator[None]:
    """Fail the test if any stream is read whole: by ``read_stream`` or by the audit's own whole read."""

    def refuse(*_args: object, **_kwargs: object) -> None:
        msg = "a stream was read whole"
        raise AssertionError(msg)

    with (
        mock.patch.object(SQLiteStore, "read_stream", refuse),
        mock.patch.object(MemoryStore, "read_stream", refuse),
        mock.patch.object(row_audit, "_stream_items", refuse),
        mock.patch.object(audit, "audit_envelopes", refuse),
    ):
        yield


def _row(e: Envelope) -> tuple[Any, ...]:
    """An envelope as a row of the events table, its position left out."""
    return (
        e.subject,
        e.streamversion,
        e.id,
        e.type,
        e.schemaversion,
        e.source,
        e.time,
        canonical_json(e.data),
        e.prevhash,
        e.hash,
    )


def _write(path: Path, envelopes: list[Envelope]) -> SQLiteStore:
    """A SQLite store holding these envelopes as rows, at positions 1, 2, 3 ..., whatever they hold."""
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(i + 1, *_row(e)) for i, e in enumerate(envelopes)],
        )
    conn.close()
    return SQLiteStore(path, create=False)


def _new(e: Envelope) -> NewEvent:
    """An envelope as the store appends it (it seals it again)."""
    return NewEvent(e.id, e.source, e.type, e.time, e.schemaversion, e.data)


def _golden(path: Path) -> list[Envelope]:
    return read_export(path.read_bytes().split(b"\n"))


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_a_golden_log_is_audited_without_reading_a_stream_whole(path: Path, backend: str, tmp_path: Path) -> None:
    store = MemoryStore() if backend == "memory" else SQLiteStore(tmp_path / "golden.db")
    campaign = import_envelopes(store, _golden(path)).campaign
    whole, whole_store = _whole(store, campaign), _whole(store)
    with _never_whole():
        streamed, streamed_store = audit_store(store, campaign), audit_store(store)
    assert streamed == whole
    assert streamed.text() == whole.text()
    assert streamed_store == whole_store
    assert streamed.findings == ()
    assert streamed.decisions > 0


def _hidden_campaigns() -> dict[str, Any]:
    found = found_campaign(search_face=1)
    revealed = found_campaign(search_face=1)
    revealed.execute(MAP_CAMPAIGN, RevealHidden())
    return {"found one": found, "found none": found_campaign(search_face=6), "all revealed": revealed}


@pytest.mark.parametrize("name", ["found one", "found none", "all revealed"])
def test_a_stream_with_hidden_features_reads_their_openings_first_and_is_still_not_read_whole(name: str) -> None:
    store = _hidden_campaigns()[name].store
    whole = _whole(store, MAP_CAMPAIGN)
    read = mock.patch.object(stream_audit, "_hidden", wraps=stream_audit._hidden)
    with _never_whole(), read as hidden:
        streamed = audit_store(store, MAP_CAMPAIGN)
    assert hidden.call_count == 1
    assert streamed == whole
    assert streamed.text() == whole.text()
    assert any("never revealed" in line for line in streamed.caveats) == (name == "found none")


def test_receipts_are_matched_from_a_stream_read_as_it_comes(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "golden.db")
    envelopes = _golden(GOLDEN[0])
    campaign = import_envelopes(store, envelopes).campaign
    good = Receipt(campaign=campaign, version=5, fingerprint=envelopes[4].hash[:12])
    wrong = Receipt(campaign=campaign, version=6, fingerprint="0" * 12)
    late = Receipt(campaign=campaign, version=len(envelopes) + 3, fingerprint="0" * 12)
    for expect in ((good,), (good, wrong), (late,)):
        with _never_whole():
            streamed = audit_store(store, campaign, expect=expect)
        assert streamed == _whole(store, campaign, expect)
        assert streamed == _whole(store, None, expect) or len(store.streams()) > 1
    assert _same(store, campaign, (good,)).receipts == (str(good),)
    assert "ends at version" in _same(store, campaign, (late,)).findings[0].reason


def _peak(events: int, tmp_path: Path) -> int:
    """The peak bytes Python allocates to audit a campaign of ``events`` events (sessions of 100)."""
    store = SQLiteStore(tmp_path / f"c{events}.db")
    write_campaign(store, "long", campaign_events(events))
    audit_store(store, "long")  # once first, so that what a process builds once is not counted
    tracemalloc.start()
    try:
        report = audit_store(store, "long")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        store.close()
    assert report.ok
    assert report.rolls == report.rolls_verified == events // 100 * 98
    return peak


def test_the_memory_of_a_campaign_s_audit_does_not_grow_with_its_length(tmp_path: Path) -> None:
    """Three times the events, about the same peak (both longer than the two pages of the stream that are read at
    once, at most); held whole, a stream takes some KB an event."""
    small = _peak(2 * STREAM_PAGE_SIZE + 1_000, tmp_path)
    large = _peak(3 * (2 * STREAM_PAGE_SIZE + 1_000), tmp_path)
    assert large < small * 1.25, (small, large)


_SOURCES = {path.stem: path for path in GOLDEN}
_VALUES = st.one_of(
    st.integers(-2, 30), st.sampled_from([None, True, "", "s1", "public", "referee", "Ann", [], [1], [6, 6]])
)
_EDIT = st.one_of(
    st.tuples(st.just("field"), st.integers(0, 200), st.integers(0, 12), _VALUES),
    st.tuples(st.just("delete"), st.integers(0, 200)),
    st.tuples(st.just("swap"), st.integers(0, 200), st.integers(0, 200)),
    st.tuples(st.just("copy"), st.integers(0, 200), st.integers(0, 200)),
)


def _edited(envelopes: list[Envelope], edit: tuple[Any, ...]) -> list[Envelope]:
    """One edit of a log's events: a field of one event's data set, an event deleted, two swapped, one copied."""
    out = list(envelopes)
    kind, at, *args = edit
    at %= len(out)
    if kind == "field":
        data = dict(out[at].data)
        if data:
            key = sorted(data)[args[0] % len(data)]
            data[key] = args[1]
            out[at] = attrs.evolve(out[at], data=data)
    elif kind == "delete":
        del out[at]
    elif kind == "swap":
        other = args[0] % len(out)
        out[at], out[other] = out[other], out[at]
    else:
        out.insert(args[0] % len(out), attrs.evolve(out[at], id=out[at].id + "+"))
    return out


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    source=st.sampled_from(sorted(_SOURCES)),
    edits=st.lists(_EDIT, min_size=1, max_size=2),
    sealed=st.booleans(),
)
def test_a_forged_campaign_audits_as_the_whole_audit_does(
    source: str, edits: list[tuple[Any, ...]], *, sealed: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Events edited, deleted, swapped or copied, then resealed (so that only the checks beyond the chain can tell)
    or left as they are: each campaign and whole-store audit is the one of the streams held whole."""
    envelopes = _golden(_SOURCES[source])
    for edit in edits:
        envelopes = _edited(envelopes, edit)
    if sealed:
        envelopes = reseal(envelopes)
    store = _write(tmp_path_factory.mktemp("forged") / "forged.db", envelopes)
    try:
        campaign = envelopes[0].subject.removeprefix("campaign-")
        _same(store, campaign)
        _same(store)
    finally:
        store.close()


# -- an events table rebuilt by hand ---------------------------------------------------------------------------


def _rebuilt(path: Path, columns: str, then: str = "") -> SQLiteStore:
    """The store at ``path`` with its events table rebuilt by hand with these columns, then ``then`` run on it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute(f"CREATE TABLE rebuilt ({columns})")
    conn.execute("INSERT INTO rebuilt SELECT * FROM events")
    conn.execute("DROP TABLE events")
    conn.execute("ALTER TABLE rebuilt RENAME TO events")
    conn.executescript(then)
    conn.close()
    return SQLiteStore(path, create=False)


KEYLESS = COLUMNS.replace("position", "position INTEGER")
NOCASE = COLUMNS.replace("position", "position INTEGER PRIMARY KEY").replace(
    "stream_id", "stream_id TEXT COLLATE NOCASE"
)
#: a second event at version 4 of the campaign, after every other row
FORK = (
    "INSERT INTO events SELECT (SELECT MAX(position) + 1 FROM events), stream_id, stream_version, id || '-forked', "
    "type, schema_version, source, time, data, prevhash, hash FROM events WHERE stream_version = 4"
)


def test_hexlog_s_own_events_table_differs_in_nothing() -> None:
    assert table_differences(EVENTS_TABLE) == []
    assert table_differences(EVENTS_TABLE.replace(",\n", " ,\n  ")) == []


@pytest.mark.parametrize(
    ("columns", "words"),
    [
        (KEYLESS, "position is not declared INTEGER PRIMARY KEY"),
        (NOCASE, "'stream_id TEXT COLLATE NOCASE' compares by its own collation"),
        (COLUMNS.replace("position", "position INTEGER PRIMARY KEY"), "no UNIQUE (stream_id, stream_version)"),
    ],
)
def test_a_rebuilt_events_table_s_differences_name_what_readers_depend_on(columns: str, words: str) -> None:
    assert words in table_differences(f"CREATE TABLE events ({columns})")
    assert "'WITHOUT ROWID' follows its columns" in table_differences(EVENTS_TABLE + " WITHOUT ROWID")


def test_unique_indexes_where_the_constraints_were_stand_for_them(tmp_path: Path) -> None:
    """A table rebuilt without its UNIQUE declarations but with unique indexes keyed on the same columns keeps the same
    rows out: nothing is named of it. An index over part of the rows, or keyed on more columns, is not such a key."""
    store = SQLiteStore(tmp_path / "indexed.db")
    import_envelopes(store, _golden(GOLDEN[0]))
    store.close()
    body = EVENTS_TABLE[EVENTS_TABLE.index("(") + 1 : EVENTS_TABLE.rindex(")")]
    plain = body.replace("id TEXT NOT NULL UNIQUE", "id TEXT NOT NULL").replace(
        ",\n    UNIQUE (stream_id, stream_version)", ""
    )
    assert "UNIQUE" not in plain
    store = _rebuilt(
        tmp_path / "indexed.db",
        plain,
        "CREATE UNIQUE INDEX by_version ON events (stream_version, stream_id);"
        "CREATE UNIQUE INDEX by_id ON events (id COLLATE NOCASE);",
    )
    assert store.events_differences() == []
    assert not store.events_as_made()
    store.close()
    conn = sqlite3.connect(tmp_path / "indexed.db", isolation_level=None)
    conn.executescript(
        "DROP INDEX by_id; CREATE UNIQUE INDEX by_id ON events (id) WHERE position > 5;"
        "DROP INDEX by_version; CREATE UNIQUE INDEX by_version ON events (stream_id, stream_version, type);"
    )
    conn.close()
    store = SQLiteStore(tmp_path / "indexed.db", create=False)
    assert store.events_differences() == ["no UNIQUE (stream_id, stream_version)", "id is not declared UNIQUE"]
    store.close()


def _one_table_finding(report: AuditReport, *hazard: str) -> str:
    """The report's first finding is about the events table, and no other is; its reason."""
    assert [f.check for f in report.findings].count("events table") == 1
    first = report.findings[0]
    assert first.check == "events table"
    assert "the events table is not as hexlog made it" in first.reason
    assert all(words in first.reason for words in hazard)
    assert report.text().splitlines()[2] == f"  events table: {first.reason}"
    return first.reason


def test_a_campaign_forked_in_a_rebuilt_table_is_read_whole_and_the_report_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream read page by page by version would skip the fork at a page boundary: the campaign's audit reads a
    rebuilt table's stream whole, finds the fork, and says first that the table is not as hexlog made it."""
    monkeypatch.setattr("hexlog.events.sql_pages.STREAM_PAGE_SIZE", 4)
    store = SQLiteStore(tmp_path / "forked.db")
    campaign = import_envelopes(store, _golden(GOLDEN[0])).campaign
    store.close()
    store = _rebuilt(tmp_path / "forked.db", KEYLESS, FORK)
    report = audit_store(store, campaign)
    reason = _one_table_finding(report, f"2 rows at version 4 of 'campaign-{campaign}'")
    assert "position is not declared INTEGER PRIMARY KEY" in reason
    assert any(f.check == "chain" and "appears more than once" in f.reason for f in report.findings)
    whole = audit_store(store)
    _one_table_finding(whole, "2 rows at version 4")
    assert whole.verdict is report.verdict is Verdict.FAILED


def test_streams_mixed_by_a_rebuilt_table_s_collation_are_named_in_its_finding(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "twins.db")
    envelopes = _golden(GOLDEN[0])
    import_envelopes(store, envelopes)
    twin = [attrs.evolve(e, id=e.id + "-twin", subject=e.subject.upper()) for e in envelopes]
    store.close()
    conn = sqlite3.connect(tmp_path / "twins.db")
    with conn:
        conn.executemany(
            "INSERT INTO events (stream_id, stream_version, id, type, schema_version, source, time, data, prevhash, "
            "hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_row(e) for e in twin],
        )
    conn.close()
    store = _rebuilt(tmp_path / "twins.db", NOCASE)
    campaign = envelopes[0].subject.removeprefix("campaign-")
    for report in (audit_store(store), audit_store(store, campaign)):
        reason = _one_table_finding(report, f"the stream ids {envelopes[0].subject.upper()!r} and")
        assert "COLLATE NOCASE" in reason
        assert report.verdict is Verdict.FAILED


def test_a_rebuilt_table_that_holds_nothing_a_reader_could_skip_audits_as_hexlog_s_does(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "keyless.db")
    campaign = import_envelopes(store, _golden(GOLDEN[0])).campaign
    made = audit_store(store), audit_store(store, campaign)
    store.close()
    store = _rebuilt(tmp_path / "keyless.db", KEYLESS)
    assert not store.events_as_made()
    assert store.events_hazards() == []
    assert (audit_store(store), audit_store(store, campaign)) == made
    assert made[0].ok


def test_the_command_line_s_audit_of_a_forked_rebuilt_table_names_the_table_first(tmp_path: Path, hexlog: Any) -> None:
    store = SQLiteStore(tmp_path / "hexlog.db")
    campaign = import_envelopes(store, _golden(GOLDEN[0])).campaign
    store.close()
    _rebuilt(tmp_path / "hexlog.db", KEYLESS, FORK).close()
    for args in (("audit",), ("audit", "--campaign", campaign)):
        result = hexlog(*args)
        assert result.returncode == 1, result.stdout + result.stderr
        lines = result.stdout.splitlines()
        first = next(i for i, line in enumerate(lines) if "first bad event" in line)
        assert lines[first + 1].startswith("  events table: the events table is not as hexlog made it")
        assert "2 rows at version 4" in lines[first + 1]


# -- a flight's heading in secret (pursuit.heading_rolled, and what only follows it) -------------------------------


def _secret_flight() -> list[Envelope]:
    """A lost party's campaign through a flight whose heading is the referee's, and a rest after it."""
    from hexlog.machine.pursuit import commands as pursuit_commands  # noqa: PLC0415 - this section's alone

    from .test_pursuit_heading import STREAM, fled, lost_party  # noqa: PLC0415 - as above

    table = lost_party()
    fled(table)
    table.run(pursuit_commands.Rest(), 6)
    return [r.envelope for r in table.handler.store.read_stream(STREAM)]


def _at(envelopes: list[Envelope], kind: str) -> int:
    return next(i for i, e in enumerate(envelopes) if e.type == f"hexlog.{kind}")


def _secret_flight_forged(how: str) -> list[Envelope]:
    envelopes = _secret_flight()
    heading = _at(envelopes, "pursuit.heading_rolled")
    if how == "heading":
        envelopes[heading] = attrs.evolve(envelopes[heading], data={**envelopes[heading].data, "heading": "SW"})
    elif how == "unheaded":  # the roll and the heading taken out: the public flight follows no decision
        del envelopes[heading - 1 : heading + 1]
    elif how == "fled":
        at = _at(envelopes, "pursuit.fled")
        envelopes[at] = attrs.evolve(envelopes[at], data={**envelopes[at].data, "hexes_fled": 2})
    return reseal(envelopes)


@pytest.mark.parametrize("how", ["none", "heading", "unheaded", "fled"])
def test_a_secret_flight_and_its_forgeries_audit_as_the_whole_audit_does(how: str, tmp_path: Path) -> None:
    """The heading decision, the public flight only it records, and what it decides after: streamed, the same."""
    envelopes = _secret_flight() if how == "none" else _secret_flight_forged(how)
    store = _write(tmp_path / "flight.db", envelopes)
    try:
        if how == "none":
            with _never_whole():
                streamed = audit_store(store, "main")
            assert streamed == _whole(store, "main")
            assert streamed.findings == ()  # INCOMPLETE: the session, its dice scripted, never reveals a secret
            assert streamed.decisions >= 3  # the lost check, the heading, the rest
        else:
            assert _same(store, "main").verdict is Verdict.FAILED
        _same(store)
    finally:
        store.close()


def test_two_events_of_one_id_in_a_table_rebuilt_without_its_unique_id_are_findings(tmp_path: Path, hexlog) -> None:
    """hexlog's table keeps event ids unique (an import refuses an export that repeats one); a table rebuilt without
    that key may hold two rows of one id, which the audit passed as sound."""
    store = SQLiteStore(tmp_path / "shared.db")
    store.close()
    body = EVENTS_TABLE[EVENTS_TABLE.index("(") + 1 : EVENTS_TABLE.rindex(")")]
    store = _rebuilt(tmp_path / "shared.db", body.replace("id TEXT NOT NULL UNIQUE", "id TEXT NOT NULL"))
    store.close()
    envelopes = _golden(GOLDEN[0])
    shared = envelopes[2].id
    forged = reseal([*envelopes[:5], attrs.evolve(envelopes[5], id=shared), *envelopes[6:]])
    conn = sqlite3.connect(tmp_path / "shared.db")
    with conn:
        conn.executemany(
            "INSERT INTO events (stream_id, stream_version, id, type, schema_version, source, time, data, prevhash, "
            "hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_row(e) for e in forged],
        )
    conn.close()
    store = SQLiteStore(tmp_path / "shared.db", create=False)
    campaign = envelopes[0].subject.removeprefix("campaign-")
    whole, one = audit_store(store), audit_store(store, campaign)
    for report in (whole, one):
        reason = _one_table_finding(report, f"2 rows with the event id {shared!r}")
        assert "id is not declared UNIQUE" in reason
        assert report.verdict is Verdict.FAILED
    (found,) = [f for f in one.findings if f.check == "id"]
    assert (found.streamversion, found.event_id) == (6, shared)
    assert found.reason == f"event id {shared!r} is also the id of version 3"
    store.close()
    audited = hexlog("audit", "--db", "shared.db")
    assert audited.returncode == 1
    (line,) = audited.stderr.splitlines()  # it said 'FAILED at  version None' of the table's finding
    assert line.startswith("hexlog: audit FAILED: the events table is not as hexlog made it (id is not declared")
    assert f"2 rows with the event id {shared!r}" in line


def test_an_export_whose_events_share_an_id_fails_its_audit_naming_both() -> None:
    envelopes = _golden(GOLDEN[0])
    shared = envelopes[2].id
    report = audit.audit_envelopes(reseal([*envelopes[:5], attrs.evolve(envelopes[5], id=shared), *envelopes[6:]]))
    assert report.first_bad is not None
    assert report.first_bad.text() == (
        f"{envelopes[0].subject} version 6, event {shared}: id: event id {shared!r} is also the id of version 3"
    )


def test_a_delves_moves_are_re_run_as_they_come_and_their_forgeries_audit_as_the_whole_audit_does(
    tmp_path: Path,
) -> None:
    """A move whose turn makes a wandering check due: read as it comes, what the move's re-run records after its
    clock event is met past the check's events; the honest delve is never read whole, and a move's rate or its phase
    change past the check rewritten is the finding the whole audit names."""
    log = played(
        c.EditMember(name="Bo", speed=90),
        d.EnterDungeon(name="crypt"),
        d.LightSource(kind="torch", by="Al"),
        d.Move(),
        d.Move(),
        d.Move(feet=60),
        d.LeaveDungeon(),
    )
    store = _write(tmp_path / "honest.db", log)
    try:
        with _never_whole():
            assert audit_store(store, FORGED_CAMPAIGN).findings == ()
    finally:
        store.close()
    checked = where(log, "dungeon.wandering_checked")
    moved = [i for i, env in enumerate(log) if env.type == "hexlog.dungeon.moved"]
    forgeries = (edited(log, checked + 1, trigger="search"), edited(log, moved[2], rate=60, slowest_member="Al"))
    for n, forged in enumerate(forgeries):
        store = _write(tmp_path / f"forged{n}.db", reseal(forged))
        try:
            report = _same(store, FORGED_CAMPAIGN)
            assert isinstance(report, AuditReport)
            assert [f.check for f in report.findings] == ["decision"]
        finally:
            store.close()


def test_a_rest_forged_in_after_a_moves_turn_is_found_as_the_stream_is_read(tmp_path: Path) -> None:
    """An exhaustion cleared between a move's clock event and its phase change, where the move's re-run looks past the
    due checks' events: the stream audit meets it as the whole audit does."""
    log = played(
        *FORCED_MARCH_DAY,
        t.RollWeather(weather="clear"),
        d.EnterDungeon(name="crypt"),
        d.Move(),
    )
    moved = where(log, "dungeon.moved")
    exhausted = where(log, "travel.exhaustion_changed", member="Al")
    rested = attrs.evolve(log[exhausted], id="forged-rest", data=log[exhausted].data | {"level": 0})
    forged = [*log[: moved + 2], rested, *log[moved + 2 :]]
    for name, envelopes, found in (("honest", log, 0), ("forged", forged, 1)):
        store = _write(tmp_path / f"{name}.db", reseal(envelopes))
        try:
            report = _same(store, FORGED_CAMPAIGN)
            assert [(f.streamversion, f.check) for f in report.findings] == [(moved + 3, "decision")] * found
        finally:
            store.close()


def _streamed(store: EventStore, campaign: str) -> stream_audit.StreamResult | None:
    """The stream audit of a campaign read as it comes, alone (None: it found something, and the stream is audited
    whole)."""
    stream = stream_for(campaign)

    def items() -> Iterator[Item]:
        for index, record in enumerate(store.iter_stream(stream)):
            yield Item(index=index, env=record.envelope, position=record.position)

    return stream_audit.audit_stream(stream, items, REGISTRY)


def _resumes_and_conclusions() -> dict[str, tuple[list[Envelope], list[Envelope]]]:
    """Honest logs, and each forged: a resume naming another parent or child than the kit's, and a delve's encounter
    concluded in pursuit by the referee (with all the kit would record after it)."""
    escaped = delve_chase(60, ch.Run(out_of_sight=True))
    at = where(escaped, "procedure.resumed", parent="dungeon")
    parley = played(*MET, e.ConcludeEncounter(outcome="parley"), secret=SECRET_FOR_A_FLIGHT)
    return {
        "resume parent": (escaped, edited(escaped, at, parent="travel")),
        "resume child": (escaped, edited(escaped, at, child="chase")),
        "conclusion": (parley, concluded_by_hand(*MET, e.ConcludeEncounter(outcome="pursuit"))),
    }


@pytest.mark.parametrize("how", ["resume parent", "resume child", "conclusion"])
def test_a_forged_resume_or_conclusion_is_found_as_the_stream_is_read(how: str, tmp_path: Path) -> None:
    """The honest delve is never read whole; its forgery is found by the stream audit itself, and the report is the
    whole audit's."""
    honest, forged = _resumes_and_conclusions()[how]
    store = _write(tmp_path / "honest.db", honest)
    try:
        with _never_whole():
            assert audit_store(store, FORGED_CAMPAIGN).findings == ()
    finally:
        store.close()
    store = _write(tmp_path / "forged.db", reseal(forged))
    try:
        assert _streamed(store, FORGED_CAMPAIGN) is None
        report = _same(store, FORGED_CAMPAIGN)
        assert isinstance(report, AuditReport)
        assert report.verdict is Verdict.FAILED
        whole = audit.audit_envelopes(reseal(forged)).findings
        assert [(f.streamversion, f.check, f.reason) for f in report.findings] == [
            (f.streamversion, f.check, f.reason) for f in whole
        ]
    finally:
        store.close()


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_an_id_repeated_in_capitals_in_a_store_is_a_finding(backend: str, tmp_path: Path) -> None:
    """Version 6 given version 3's id in capitals and the chain resealed: the stores' unique ids compare case and
    append it, and a stream read as it comes used to check no id at all (VERIFIED, or only its caveats). An id hexlog
    did not write (it writes them in small letters) now sends the stream to the whole audit, which names it."""
    envelopes = _golden(GOLDEN[0])
    forged = reseal([*envelopes[:5], attrs.evolve(envelopes[5], id=envelopes[2].id.upper()), *envelopes[6:]])
    store = MemoryStore() if backend == "memory" else _write(tmp_path / "capitals.db", forged)
    if backend == "memory":
        store.append(forged[0].subject, [_new(e) for e in forged], expected_version=0)
    campaign = forged[0].subject.removeprefix("campaign-")
    for report in (_same(store), _same(store, campaign)):
        assert isinstance(report, AuditReport)
        assert [(f.check, f.streamversion) for f in report.findings] == [("id", 6)]
        assert report.findings[0].reason == f"event id {envelopes[2].id.upper()!r} is also the id of version 3"
