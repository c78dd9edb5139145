"""replay: rows never saved are no difference, and --repair rewrites rows that differ from the log."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events.errors import ConcurrencyError
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent, ProjectionRow
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.rebuild import projections, replay, replay_records, stored_pages
from hexlog.replay.repair import repair

if TYPE_CHECKING:
    from collections.abc import Iterator

STREAM = "campaign-c1"
GOLDEN = Path(__file__).resolve().parent / "golden" / "logs" / "ose.jsonl"


def played(store: Any) -> Handler:
    """A campaign with a session, a party of two and a roll, on ``store``."""
    ids = itertools.count(1)
    handler = Handler(store, MemoryKeeper(), new_id=lambda: f"00000000-0000-0000-0000-{next(ids):012d}")
    for command in (
        c.StartCampaign(),
        c.OpenSession(),
        c.AddMember(name="Aldric"),
        c.AddMember(name="Bo"),
        c.RollDice(expression="2d6"),
    ):
        handler.execute("c1", command)
    return handler


def edit(path: Path, sql: str) -> None:
    """Change the database behind hexlog's back."""
    with sqlite3.connect(path) as raw:
        raw.execute(sql)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[Path, SQLiteStore]]:
    """A played campaign in a SQLite database, and its path."""
    path = tmp_path / "hexlog.db"
    store = SQLiteStore(path)
    played(store)
    yield path, store
    store.close()


def golden_without_rows(path: Path) -> str:
    """A database as hexlog 0.1.0 left it: the events of a released log, and no projection row; its campaign."""
    store = SQLiteStore(path)
    try:
        return import_envelopes(store, read_export(GOLDEN.read_bytes().split(b"\n"))).campaign
    finally:
        store.close()


class TestNeverSaved:
    """Rows no command has written yet are a cache still to build, not a difference."""

    def test_a_campaign_without_rows_replays_ok_naming_them_not_saved_yet(self, tmp_path: Path) -> None:
        """A released log imported without rows: every check is missing, and the replay is ok."""
        campaign = golden_without_rows(tmp_path / "old.db")
        store = SQLiteStore(tmp_path / "old.db")
        try:
            report = replay(store, campaign)
        finally:
            store.close()
        assert [check.status for check in report.checks] == ["missing", "missing"]
        assert report.ok
        assert "table: not saved yet (a cache of the log, written by the next command)" in report.text()

    def test_hexlog_replay_on_a_database_of_0_1_0_exits_0(self, hexlog: Any, tmp_path: Path) -> None:
        """After upgrading, ``hexlog replay`` on an old database says the rows are not saved yet, and exits 0."""
        golden_without_rows(tmp_path / "hexlog.db")
        result = hexlog("replay")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "DIFFERS" not in result.stdout
        assert "not saved yet" in result.stdout
        assert "replay matches: no stored row differs from the log" in result.stdout
        repaired = hexlog("replay", "--repair")
        assert repaired.returncode == 0, repaired.stdout + repaired.stderr
        assert "repaired table (missing: never saved)" in repaired.stdout
        after = hexlog("replay")
        assert after.returncode == 0
        assert "replay matches the stored state" in after.stdout

    def test_rows_saved_in_an_earlier_revision_are_outdated_not_differing(self) -> None:
        """Rows of an older saved form (an upgrade) are reported outdated and ok; the next command writes them anew."""
        store = MemoryStore()
        handler = played(store)
        version = store.stream_version(STREAM)
        for projection in projections():
            _, mark = store.read_rows(STREAM, projection.name, ["@"])["@"]
            old = ProjectionRow(projection=projection.name, key="@", version=version, data={"revision": 1})
            assert store.write_rows(STREAM, [old], at_version=version)
            assert mark["revision"] > 1
        report = replay(store, "c1")
        assert [check.status for check in report.checks] == ["outdated", "outdated"]
        assert report.ok
        handler.execute("c1", c.AddMember(name="Cy"))
        assert [check.status for check in replay(store, "c1").checks] == ["equal", "equal"]


class TestLogMovedOn:
    """A replay reads the log as it stood when it began, even when another writer appends meanwhile."""

    def test_an_append_without_rows_while_replay_reads_leaves_the_rows_compared_and_equal(self) -> None:
        """Rows up to date at the version the replay reads to are compared with the fold (folded again to keep
        them, as the log's length the replay first saw had moved on), not reported missing."""
        store = MemoryStore()
        played(store)
        version = store.stream_version(STREAM)
        stream = stored_pages(store, "c1")  # the log as it stands: ``version`` events
        events = store.read_stream(STREAM, version)
        late = NewEvent(
            id="late",
            source=events[0].envelope.source,
            type="hexlog.clock.advanced",
            time=events[0].envelope.time,
            schemaversion=1,
            data={"seconds": 60, "rounds": 0, "turns": 1, "reason": "late"},
        )
        store.append(STREAM, [late], expected_version=version)  # another writer, without rows
        report, rows = replay_records(store, "c1", stream)
        assert report.version == version
        assert [(check.name, check.status) for check in report.checks] == [("table", "equal"), ("ledger", "equal")]
        assert all(rows[name] for name in ("table", "ledger"))


class TestRepair:
    """``repair`` writes anew from the log every projection whose rows are not equal to it, and says what it fixed."""

    def test_an_edited_part_is_rewritten_and_commands_decide_on_the_log_again(
        self, db: tuple[Path, SQLiteStore]
    ) -> None:
        """A clock edited to 999999 s is used until repaired; the repair names it, and the clock is the log's again."""
        path, store = db
        edit(
            path,
            'UPDATE projection_rows SET data = \'{"v":{"rounds":0,"seconds":999999,"turns":0}}\' '
            "WHERE projection = 'table' AND key = 'clock'",
        )
        handler = Handler(store, MemoryKeeper())
        assert handler.load("c1").clock.seconds == 999999  # a part edited in place: only replay can tell
        done = repair(store, "c1")
        assert [(check.name, check.reason) for check in done.fixed] == [("table", "rows differ clock")]
        assert done.text() == (
            "repaired table (differs: rows differ clock): its rows were written anew from the log at version 5"
        )
        assert done.after.ok
        assert [check.status for check in done.after.checks] == ["equal", "equal"]
        assert Handler(store, MemoryKeeper()).load("c1").clock.seconds == 0

    def test_nothing_is_written_when_every_projection_is_equal(self) -> None:
        """A sound campaign needs no repair, and none is written."""
        store = MemoryStore()
        played(store)
        before = {p.name: store.read_rows(STREAM, p.name) for p in projections()}
        done = repair(store, "c1")
        assert done.fixed == ()
        assert done.text() == "nothing to repair: every projection's rows equal a fold of the log"
        assert {p.name: store.read_rows(STREAM, p.name) for p in projections()} == before

    def test_a_repair_of_a_log_that_moved_on_writes_nothing(self) -> None:
        """When another writer appends while the repair folds, nothing is written and the repair says so."""
        store = MemoryStore()
        handler = played(store)
        version = store.stream_version(STREAM)
        forged = ProjectionRow(projection="table", key="party", version=version, data={"v": {"members": []}})
        assert store.write_rows(STREAM, [forged], at_version=version)
        write_rows = store.write_rows

        def late(stream_id: str, rows: Any, *, at_version: int) -> bool:
            handler.execute("c1", c.AddMember(name="Cy"))  # another writer, just before the repair writes
            return write_rows(stream_id, rows, at_version=at_version)

        store.write_rows = late  # type: ignore[method-assign]
        with pytest.raises(ConcurrencyError, match="moved on"):
            repair(store, "c1")

    def test_hexlog_replay_repair_says_what_it_fixed_and_exits_0(self, hexlog: Any, tmp_path: Path) -> None:
        """``hexlog replay`` fails naming the edited clock; ``--repair`` rewrites it and says so; then it matches."""
        for args in (("init",), ("session", "open"), ("party", "add", "Aldric")):
            assert hexlog(*args).returncode == 0
        edit(
            tmp_path / "hexlog.db",
            "UPDATE projection_rows SET data = replace(data, '\"seconds\":0', "
            "'\"seconds\":999999') WHERE projection = 'table' AND key = 'clock'",
        )
        assert "day 12" in hexlog("state").stdout
        before = hexlog("replay")
        assert before.returncode == 1
        assert "table: differs (up to date): rows differ clock" in before.stdout
        assert "hexlog replay --repair rewrites it from the log" in before.stdout
        repaired = hexlog("replay", "--repair")
        assert repaired.returncode == 0, repaired.stdout + repaired.stderr
        assert "repaired table (differs: rows differ clock): its rows were written anew from the log" in repaired.stdout
        assert "replay matches the stored state" in repaired.stdout
        assert "day 1 00:00" in hexlog("state").stdout
