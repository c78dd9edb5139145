"""The audit of a whole SQLite database shared by several processes gives the report one process gives.

Each process audits its share of the campaigns (the n-th stream the log meets to process n modulo their number)
and reads the rows up to the last position the audit began with. The logs here mix campaigns the kit played
(procedures, decisions: each audited in full) with plain sessions and rolls (proved from their rows), sound and
tampered; ``tests/test_plain_audit.py`` holds every tampered log it tries to the same on two processes.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hexlog.events import sqlite as sqlite_store
from hexlog.events.errors import CorruptLogError
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.sqlite_schema import PAGE_SIZE
from hexlog.replay import row_audit
from hexlog.replay.audit import AuditReport, audit_store
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.receipts import Receipt
from hexlog.replay.verdict import Verdict
from hexlog.service.benchmark import stream_events, write_campaign, write_log
from hexlog.service.cli import app

GOLDEN = Path(__file__).parent / "golden"
#: campaigns the kit played, each of another name
PLAYED = [GOLDEN / "logs" / "ose.jsonl", GOLDEN / "logs" / "demo_ose.jsonl", GOLDEN / "pursuit-v1.jsonl"]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three played campaigns between plain streams (the benchmark's sessions and rolls)."""
    path = tmp_path_factory.mktemp("jobs") / "mixed.db"
    store = SQLiteStore(path)
    write_log(store, 300, 100, 100)
    for log in PLAYED:
        import_envelopes(store, read_export(log.read_bytes().split(b"\n")))
    rng = random.Random(7)  # noqa: S311 - a fixed log, not a secret
    for number in range(3):  # the plain campaigns go on after the played ones
        write_campaign(store, f"b{number}", stream_events(10 + number, 30, rng, session="s2"), batch=10)
    for number in range(2):
        write_campaign(store, f"c{number}", stream_events(20 + number, 40, rng))
    store.close()
    return path


def _audits(path: Path, jobs: tuple[int, ...] = (1, 2, 3), expect: tuple[Receipt, ...] = ()) -> list[object]:
    """The audit of the file on each number of processes: a report, or the error it raised."""
    out: list[object] = []
    for count in jobs:
        store = SQLiteStore(path, create=False)
        try:
            out.append(audit_store(store, expect=expect, jobs=count))
        except CorruptLogError as err:
            out.append(f"CorruptLogError: {err}")
        finally:
            store.close()
    return out


def _tampered(source: Path, tmp_path: Path, statement: str) -> Path:
    path = tmp_path / "tampered.db"
    shutil.copy(source, path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")
    conn.execute(statement)
    conn.close()
    return path


def test_a_sound_log_of_many_campaigns_audits_the_same_on_one_two_or_three_processes(mixed: Path) -> None:
    one, two, three = _audits(mixed)
    assert isinstance(one, AuditReport)
    assert one.findings == ()
    assert one.decisions > 0  # the played campaigns were audited in full
    assert len(one.streams) == 8  # five plain campaigns, three played
    assert one.sessions > 8
    assert two == one
    assert three == one
    assert isinstance(two, AuditReport)
    assert two.text() == one.text()


#: tampering with a played campaign (audited in full by the process whose share it is) and with a plain one
TAMPERED: dict[str, str] = {
    "a played roll's faces": (
        "UPDATE events SET data = replace(data, '\"faces\":[', '\"faces\":[1,') "
        "WHERE position = (SELECT min(position) FROM events WHERE stream_id = 'campaign-demo' "
        "AND type = 'hexlog.dice.rolled')"
    ),
    "a played event deleted": ("DELETE FROM events WHERE stream_id = 'campaign-pursuit' AND stream_version = 5"),
    "a plain roll's total": (
        "UPDATE events SET data = replace(data, '\"total\":', '\"total\":1') "
        "WHERE stream_id = 'campaign-b2' AND stream_version = 7"
    ),
    "a plain row moved to another campaign": (
        "UPDATE events SET stream_id = 'campaign-c0', stream_version = 99 "
        "WHERE stream_id = 'campaign-b1' AND stream_version = 9"
    ),
    "the first row's position": "UPDATE events SET position = 100000 WHERE position = 1",
}


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_a_tampered_log_fails_the_same_on_one_two_or_three_processes(name: str, mixed: Path, tmp_path: Path) -> None:
    one, two, three = _audits(_tampered(mixed, tmp_path, TAMPERED[name]))
    assert isinstance(one, AuditReport)
    assert one.findings
    assert two == one
    assert three == one


def test_a_share_that_cannot_be_read_is_refused_as_one_process_refuses_it(mixed: Path, tmp_path: Path) -> None:
    path = _tampered(
        mixed, tmp_path, "UPDATE events SET data = '{' WHERE stream_id = 'campaign-c1' AND stream_version = 4"
    )
    one, two, three = _audits(path)
    assert isinstance(one, str)
    assert "campaign-c1" in one
    assert "not JSON" in one
    assert two == one
    assert three == one


def test_receipts_are_matched_the_same_on_two_processes(mixed: Path) -> None:
    with sqlite3.connect(mixed) as conn:
        (hash_,) = conn.execute(
            "SELECT hash FROM events WHERE stream_id = 'campaign-pursuit' AND stream_version = 3"
        ).fetchone()
    expect = (Receipt("pursuit", 3, hash_[:16]), Receipt("b1", 9, "0" * 16))
    one, two = _audits(mixed, (1, 2), expect)
    assert isinstance(one, AuditReport)
    assert one.receipts == (f"pursuit@3:{hash_[:16]}",)
    assert [f.check for f in one.findings] == ["receipt"]
    assert two == one


def _bounded(store: SQLiteStore, upto: int) -> list[int]:
    return [row[0] for page in store.read_event_rows(upto) for row in page]


def test_the_rows_read_stop_at_the_position_the_audit_began_with(tmp_path: Path) -> None:
    """What is appended after an audit began is not part of it, in any of its processes: each reads up to the
    last position there was (across page boundaries too)."""
    store = SQLiteStore(tmp_path / "log.db")
    write_log(store, 2 * PAGE_SIZE + 100, 100, 100)
    last = store.last_position()
    assert last == 2 * PAGE_SIZE + 100
    assert _bounded(store, last) == list(range(1, last + 1))
    for upto in (1, PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1, 2 * PAGE_SIZE, last - 1):
        assert _bounded(store, upto) == list(range(1, upto + 1))
    store.close()


def test_an_audit_reads_no_row_appended_after_it_began(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "log.db"
    store = SQLiteStore(path)
    write_log(store, 400, 100, 100)
    began = store.last_position()
    rng = random.Random(3)  # noqa: S311 - a fixed log, not a secret
    write_campaign(store, "b0", stream_events(9, 20, rng, session="s2"))  # a campaign read goes on
    write_campaign(store, "late", stream_events(8, 20, rng))  # a campaign begun since
    store.close()
    reports: list[AuditReport] = []
    for jobs in (1, 2):
        store = SQLiteStore(path, create=False)
        monkeypatch.setattr(store, "last_position", lambda: began)
        reports.append(audit_store(store, jobs=jobs))
        store.close()
    assert reports[0].events == began
    assert reports[0].findings == ()
    assert "campaign-late" not in reports[0].streams
    assert reports[1] == reports[0]


def _cli(path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["audit", "--db", str(path), *args])
    return result.exit_code, result.output


def test_the_audit_command_on_two_processes_says_what_it_says_on_one(mixed: Path, tmp_path: Path) -> None:
    assert _cli(mixed, "--jobs", "2") == _cli(mixed)
    code, output = _cli(mixed, "--jobs", "2")
    assert code == 3  # INCOMPLETE: the plain sessions have no client seed
    assert "0 findings" not in output
    assert "8 streams" in output
    failed = _tampered(mixed, tmp_path, TAMPERED["a played roll's faces"])
    assert _cli(failed, "--jobs", "3") == _cli(failed)
    assert _cli(failed, "--jobs", "3")[0] == 1


@pytest.mark.parametrize("jobs", ["0", "-1", "65", "two"])
def test_the_audit_command_refuses_a_number_of_processes_it_cannot_run(mixed: Path, jobs: str) -> None:
    code, output = _cli(mixed, "--jobs", jobs)
    assert code == 2
    assert "--jobs" in output


def test_the_rows_of_some_streams_are_read_alone_in_log_order(mixed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_store, "PAGE_SIZE", 100)
    store = SQLiteStore(mixed, create=False)
    every = [row for page in store.read_event_rows() for row in page]
    streams = store.streams_met(store.last_position())
    assert streams == list(dict.fromkeys(row[1] for row in every))  # the order the log first meets them
    for chosen in ({"campaign-b1", "campaign-demo"}, {"campaign-c1"}, set(streams), set()):
        rows = [row for page in store.read_event_rows(None, chosen) for row in page]
        assert rows == [row for row in every if row[1] in chosen]
    upto = every[len(every) // 2][0]
    rows = [row for page in store.read_event_rows(upto, {"campaign-b0", "campaign-main"}) for row in page]
    assert rows == [row for row in every if row[1] in {"campaign-b0", "campaign-main"} and row[0] <= upto]
    assert len(every) > 8 * sqlite_store.PAGE_SIZE  # pages after the first are read too
    assert [row for page in store.read_event_rows() for row in page] == every  # the connection reads all again
    store.close()


def test_a_log_whose_positions_do_not_run_from_one_is_audited_in_one_pass(mixed: Path, tmp_path: Path) -> None:
    """Only a log whose positions run 1, 2, 3 ... is shared out (its positions hold no finding); any other is read
    whole by one process, which words each finding of the positions as it always has."""
    store = SQLiteStore(mixed, create=False)
    assert store.runs_to(store.last_position())
    store.close()
    for statement in (TAMPERED["a played event deleted"], TAMPERED["the first row's position"]):
        path = _tampered(mixed, tmp_path, statement)
        store = SQLiteStore(path, create=False)
        assert not store.runs_to(store.last_position())
        store.close()
        one, two = _audits(path, (1, 2))
        assert isinstance(one, AuditReport)
        assert any(finding.check == "positions" for finding in one.findings)
        assert two == one
        path.unlink()


def test_two_unreadable_rows_in_two_shares_are_refused_as_one_process_refuses_them(mixed: Path, tmp_path: Path) -> None:
    """The first process to fail is not the first row in log order: any part that fails leaves the audit to one
    process, which names the row it always names."""
    path = _tampered(
        mixed,
        tmp_path,
        "UPDATE events SET data = '{' WHERE (stream_id = 'campaign-c1' AND stream_version = 4) "
        "OR (stream_id = 'campaign-b0' AND stream_version = 101)",
    )
    one, two, three = _audits(path)
    assert isinstance(one, str)
    assert two == one
    assert three == one


def test_rows_of_a_stream_id_that_is_not_text_are_findings_on_any_number_of_processes(
    mixed: Path, tmp_path: Path
) -> None:
    """A referee who owns the file gives a campaign's rows a NULL stream id (the table's statement restored, so it
    reads as hexlog's): no stream can be read by it, and each of its rows is a finding."""
    path = tmp_path / "null.db"
    shutil.copy(mixed, path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("PRAGMA writable_schema = ON")
    (made,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()
    loose = made.replace("stream_id TEXT NOT NULL", "stream_id TEXT")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (loose,))
    conn.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE events SET stream_id = NULL WHERE stream_id = 'campaign-c0'")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (made,))
    conn.close()
    one, two = _audits(path, (1, 2))
    assert isinstance(one, AuditReport)
    assert one.verdict is Verdict.FAILED
    assert len(one.findings) == 40  # each of c0's rows
    assert {f.reason for f in one.findings} == {
        "the stream id None is not text: the row cannot be read as any stream's"
    }
    assert two == one


def test_a_share_whose_process_dies_is_audited_in_one_process(mixed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process killed (out of memory, by hand) sends nothing: the audit is made again in one process, never
    waiting for it."""
    own_pass = row_audit._own_pass

    def dying(store: SQLiteStore, job: object, part: int) -> object:
        if part == 1:
            os._exit(9)
        return own_pass(store, job, part)  # type: ignore[arg-type]

    (one,) = _audits(mixed, (1,))
    monkeypatch.setattr(row_audit, "_own_pass", dying)
    passes: list[int] = []
    one_pass = row_audit._pass
    monkeypatch.setattr(row_audit, "_pass", lambda *args: passes.append(1) or one_pass(*args))
    (two,) = _audits(mixed, (2,))
    assert two == one
    assert passes == [1]  # made again in one process


def test_a_file_replaced_after_the_store_opened_is_audited_as_the_store_reads_it(tmp_path: Path) -> None:
    """The workers open the store's path: when it names another file than the one the store opened (a backup
    restored over it), the audit is made in one process, on the file the store reads."""
    first, second = tmp_path / "log.db", tmp_path / "other.db"
    for path, events in ((first, 300), (second, 200)):
        made = SQLiteStore(path)
        write_log(made, events, 100, 100)
        made.close()
    store = SQLiteStore(first, create=False, readonly=True)
    assert store.file_id() is not None
    second.replace(first)
    assert store.file_id() is None
    reports = [audit_store(store, jobs=jobs) for jobs in (1, 2)]
    store.close()
    assert reports[0].events == 300
    assert reports[1] == reports[0]


def test_two_reads_of_some_streams_on_one_connection_read_each_its_own(
    mixed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two reads of some streams, their pages read in turn on one connection: each reads its own streams' rows."""
    monkeypatch.setattr(sqlite_store, "PAGE_SIZE", 20)
    store = SQLiteStore(mixed, create=False)
    every = [row for page in store.read_event_rows() for row in page]
    reads = {
        "campaign-b0": store.read_event_rows(None, {"campaign-b0"}),
        "c": store.read_event_rows(None, {"campaign-c1"}),
    }
    got: dict[str, list[tuple[object, ...]]] = {name: [] for name in reads}
    while reads:
        for name, pages in list(reads.items()):
            page = next(pages, None)
            if page is None:
                del reads[name]
            else:
                got[name].extend(page)
    store.close()
    assert got["campaign-b0"] == [row for row in every if row[1] == "campaign-b0"]
    assert got["c"] == [row for row in every if row[1] == "campaign-c1"]
    assert len(got["campaign-b0"]) > 3 * 20  # read in pages, in turn with the other read's
