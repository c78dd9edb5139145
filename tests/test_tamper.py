"""A tamperer with the SQLite file drops the triggers and edits rows: the audit names the first bad event."""

from __future__ import annotations

import itertools
import json
import sqlite3
from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events.errors import CorruptLogError
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.replay.audit import AuditReport, audit_store

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

COLUMNS = (
    "position",
    "stream_id",
    "stream_version",
    "id",
    "type",
    "schema_version",
    "source",
    "time",
    "data",
    "prevhash",
    "hash",
)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite log written through the handler: a closed session with several rolls, then more."""
    path = tmp_path_factory.mktemp("tamper") / "pristine.db"
    store = SQLiteStore(path)
    ids = itertools.count(1)
    handler = Handler(
        store,
        MemoryKeeper(),
        clock=lambda: "2026-11-29T20:00:00Z",
        new_id=lambda: f"00000000-0000-0000-0000-{next(ids):012d}",
    )
    handler.execute("c1", c.StartCampaign())
    handler.execute("c1", c.OpenSession(secret_hex=bytes(range(32)).hex()))
    handler.execute("c1", c.SetClientSeed(client_seed="table-7"))
    handler.execute("c1", c.AddMember(name="Ann"))
    for expression in ("2d6", "d20", "3d4+1", "d8", "d100"):
        handler.execute("c1", c.RollDice(expression=expression, secret=expression == "d20"))
    handler.execute("c1", c.CloseSession())
    handler.execute("c1", c.OpenSession(secret_hex=bytes(32).hex()))
    handler.execute("c1", c.RollDice(expression="2d6"))
    handler.execute("c1", c.CloseSession())
    store.close()
    return path


def copy_of(pristine: Path, target: Path) -> Path:
    """A fresh copy of the pristine database, made with SQLite's backup."""
    source = sqlite3.connect(pristine)
    dest = sqlite3.connect(target)
    source.backup(dest)
    dest.close()
    source.close()
    return target


def tampered(
    pristine: Path, tmp_path: Path, edit: Callable[[sqlite3.Connection], None], name: str = "tampered.db"
) -> AuditReport:
    """Drop the triggers of a fresh copy, apply ``edit`` with a raw connection, and audit the whole store.

    Auditing campaign c1 alone must fail as well, unless the edit only moved an event out of the
    stream's view (a new global position, another stream id), which only the whole store shows.
    """
    path = copy_of(pristine, tmp_path / name)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("DROP TRIGGER events_no_update")
    raw.execute("DROP TRIGGER events_no_delete")
    edit(raw)
    raw.close()
    store = SQLiteStore(path)
    try:
        report = audit_store(store)
        campaign_ok = audit_store(store, "c1").ok
    finally:
        store.close()
    moved_away = any(f.check == "positions" or f.stream != "campaign-c1" for f in report.findings)
    assert moved_away or not campaign_ok, report.text()
    return report


def rows(pristine: Path) -> list[dict[str, Any]]:
    """Every stored event row, in position order, as column -> value dicts."""
    conn = sqlite3.connect(pristine)
    try:
        found = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM events ORDER BY position").fetchall()  # noqa: S608 - fixed column names
    finally:
        conn.close()
    return [dict(zip(COLUMNS, r, strict=True)) for r in found]


def row(pristine: Path, type_name: str, nth: int) -> dict[str, Any]:
    """The ``nth`` stored row of a CloudEvents type, as a column -> value dict."""
    conn = sqlite3.connect(pristine)
    try:
        rows = conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM events WHERE type = ? ORDER BY position",  # noqa: S608 - constant columns
            (type_name,),
        ).fetchall()
    finally:
        conn.close()
    return dict(zip(COLUMNS, rows[nth], strict=True))


def changed_value(column: str, target: dict[str, Any]) -> Any:
    """A different value for one column of the target row."""
    if column == "data":
        data = json.loads(target["data"])
        if "faces" in data:  # a roll: show another face, with a total to match
            data["faces"] = [data["faces"][0] % data["sides"][0] + 1, *data["faces"][1:]]
            data["total"] = sum(data["faces"]) + data["modifier"]
        else:
            data["tampered"] = True
        return json.dumps(data)
    if column == "schema_version":  # another version than the row's (rolls are written at version 2 now)
        return target["schema_version"] + 1
    return {
        "position": 1000,
        "stream_id": "campaign-elsewhere",
        "stream_version": 1000,
        "id": "forged-id",
        "type": "hexlog.dice.forged",
        "source": "hexlog:elsewhere",
        "time": "2030-01-01T00:00:00Z",
        "prevhash": "f" * 64,
        "hash": "e" * 64,
    }[column]


class TestUntouched:
    """The log as the handler wrote it."""

    def test_an_untouched_log_audits_clean(self, pristine: Path, tmp_path: Path) -> None:
        """A copy of the database with nothing changed has no findings and re-derives every roll."""
        store = SQLiteStore(copy_of(pristine, tmp_path / "copy.db"))
        try:
            report = audit_store(store)
        finally:
            store.close()
        assert report.ok, report.text()
        assert report.rolls == report.rolls_verified == 6


class TestEditedColumns:
    """Every stored column of an event row, changed one at a time."""

    @pytest.mark.parametrize("column", COLUMNS)
    def test_changing_a_column_of_any_row_names_that_event_as_first_bad(
        self, pristine: Path, tmp_path: Path, column: str
    ) -> None:
        """For every row, the first bad event is the edited one (stream version and id as now stored), with a reason."""
        wrong: list[str] = []
        for target in rows(pristine):
            value = changed_value(column, target)
            report = tampered(
                pristine,
                tmp_path,
                lambda raw, t=target, v=value: raw.execute(
                    f"UPDATE events SET {column} = ? WHERE position = ?",  # noqa: S608 - a column of the test's own list
                    (v, t["position"]),
                ),
                name=f"row{target['position']}.db",
            )
            expected = (
                value if column == "stream_version" else target["stream_version"],
                value if column == "id" else target["id"],
            )
            bad = report.first_bad
            if bad is None or (bad.streamversion, bad.event_id) != expected or not bad.reason:
                wrong.append(f"row {target['position']}: expected {expected}, got {bad}")
        assert wrong == []

    @pytest.mark.parametrize("column", ["stream_version", "schema_version", "data"])
    def test_a_value_of_the_wrong_kind_is_caught(self, pristine: Path, tmp_path: Path, column: str) -> None:
        """Text where a number belongs, or JSON that is not an object, is a finding on that event."""
        target = row(pristine, "hexlog.dice.rolled", 2)
        value = "[1, 2]" if column == "data" else "three"
        report = tampered(
            pristine,
            tmp_path,
            lambda raw: raw.execute(f"UPDATE events SET {column} = ? WHERE position = ?", (value, target["position"])),  # noqa: S608 - fixed column names
        )
        bad = report.first_bad
        assert bad is not None
        assert (bad.event_id, bad.position) == (target["id"], target["position"])
        assert bad.check == "envelope"

    def test_data_that_is_not_json_cannot_be_read_and_is_refused(self, pristine: Path, tmp_path: Path) -> None:
        """A data column that no longer parses makes the audit raise CorruptLogError."""
        target = row(pristine, "hexlog.dice.rolled", 0)
        with pytest.raises(CorruptLogError, match="could not read"):
            tampered(
                pristine,
                tmp_path,
                lambda raw: raw.execute(
                    "UPDATE events SET data = 'not json' WHERE position = ?", (target["position"],)
                ),
            )


class TestRemovedAndSwappedRows:
    """Rows taken out or put in another place."""

    def test_deleting_any_row_but_the_last_names_the_event_after_it(self, pristine: Path, tmp_path: Path) -> None:
        """With one row deleted, the next event of the stream is the first bad one, with a reason.

        (Removing the very last event is a truncation that only a published head hash can reveal.)
        """
        stored = rows(pristine)
        wrong: list[str] = []
        for target, after in itertools.pairwise(stored):
            report = tampered(
                pristine,
                tmp_path,
                lambda raw, t=target: raw.execute("DELETE FROM events WHERE position = ?", (t["position"],)),
                name=f"deleted{target['position']}.db",
            )
            bad = report.first_bad
            if (
                bad is None
                or (bad.streamversion, bad.event_id) != (after["stream_version"], after["id"])
                or not bad.reason
            ):
                wrong.append(f"row {target['position']}: got {bad}")
        assert wrong == []

    def test_swapping_two_rows_positions_names_one_of_them(self, pristine: Path, tmp_path: Path) -> None:
        """Two events exchanging their positions put one of them first bad, as out of order."""
        first = row(pristine, "hexlog.dice.rolled", 1)
        second = row(pristine, "hexlog.dice.rolled", 3)

        def swap(raw: sqlite3.Connection) -> None:
            raw.execute("UPDATE events SET position = -1 WHERE position = ?", (first["position"],))
            raw.execute("UPDATE events SET position = ? WHERE position = ?", (first["position"], second["position"]))
            raw.execute("UPDATE events SET position = ? WHERE position = -1", (second["position"],))

        report = tampered(pristine, tmp_path, swap)
        bad = report.first_bad
        assert bad is not None
        assert (bad.streamversion, bad.event_id) in {
            (first["stream_version"], first["id"]),
            (second["stream_version"], second["id"]),
        }
        assert bad.check == "order"

    def test_swapping_two_rows_contents_names_the_earlier(self, pristine: Path, tmp_path: Path) -> None:
        """Two rolls exchanging their data fail their hashes; the earlier one is first bad."""
        first = row(pristine, "hexlog.dice.rolled", 0)
        second = row(pristine, "hexlog.dice.rolled", 2)

        def swap(raw: sqlite3.Connection) -> None:
            raw.execute("UPDATE events SET data = ? WHERE position = ?", (second["data"], first["position"]))
            raw.execute("UPDATE events SET data = ? WHERE position = ?", (first["data"], second["position"]))

        report = tampered(pristine, tmp_path, swap)
        bad = report.first_bad
        assert bad is not None
        assert (bad.streamversion, bad.event_id) == (first["stream_version"], first["id"])
        assert any(f.event_id == second["id"] for f in report.findings)
