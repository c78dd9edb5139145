"""``hexlog bench``: its quick mode prints the result line with every key (the figures are the benchmark's to judge)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import psycopg

from hexlog.events.codec import decode_record
from hexlog.events.sqlite import SQLiteStore
from hexlog.service import benchmark

from .conftest import run_hexlog
from .postgres_db import PG_URL, needs_postgres

if TYPE_CHECKING:
    from pathlib import Path

TOP = {"name", "schema", "events", "repeat", "nproc", "versions", "unit", "rates", "spread", "params", "store"}
RATES = {
    "append_tx1_eps",
    "append_batch100_eps",
    "read_stream_eps",
    "read_stream_records_eps",
    "read_log_eps",
    "read_log_records_eps",
    "read_log_raw_eps",
    "replay_eps",
    "audit_eps",
    "audit_one_process_eps",
    "command_tx1_eps",
    "encounters_per_s",
    "travel_days_per_s",
    "project_trigger_per_s",
    "project_create_shared_per_s",
    "project_attach_detach_per_s",
    "peak_rss_mb",
}


def test_quick_bench_prints_every_key_as_the_last_line(tmp_path: Path) -> None:
    done = run_hexlog("bench", "--quick", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(result) >= TOP
    assert result["name"] == "project_sqlite"
    assert result["schema"] == 1
    assert result["unit"] == "per second; median of repeats"
    assert set(result["rates"]) >= RATES
    assert all(isinstance(v, float | int) and v > 0 for v in result["rates"].values())
    assert set(result["spread"]) == set(result["rates"])
    assert all(low <= result["rates"][k] <= high for k, (low, high) in result["spread"].items())
    assert {"tx1_events", "stream_len", "batch"} <= set(result["params"])
    assert {"journal_mode", "synchronous"} <= set(result["store"])
    assert result["store"]["journal_mode"] == "wal"
    assert "python" in result["versions"]
    assert "hexlog bench: sample 1/1" in done.stderr  # progress on stderr, never on stdout


def test_bench_refuses_a_store_hexlog_does_not_have(tmp_path: Path) -> None:
    done = run_hexlog("bench", "--db", "mysql://localhost/hexlog", cwd=tmp_path)
    assert done.returncode == 2
    assert "no mysql store" in done.stderr
    assert not done.stdout


@needs_postgres
def test_quick_bench_on_postgresql_runs_the_store_figures_there_and_leaves_no_schema(tmp_path: Path) -> None:
    done = run_hexlog("bench", "--quick", "--db", PG_URL, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["name"] == "project_postgres"
    assert set(result["rates"]) >= RATES
    assert all(isinstance(v, float | int) and v > 0 for v in result["rates"].values())
    store = result["store"]
    assert store["server"] == "postgresql"
    assert store["synchronous_commit"] in {"on", "off", "local", "remote_write", "remote_apply"}
    assert store["server_version"]
    assert store["payload_bytes_avg"] > 0
    with psycopg.connect(PG_URL) as conn:
        left = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'hexlog_bench_%'").fetchall()
    assert left == []


def test_the_stream_and_log_reads_decode_every_event_of_the_log(tmp_path: Path) -> None:
    """``read_stream`` (each stream's decoded events, a page at a time) and ``read_stream_records`` (each stream's
    records, each record's event decoded) read every event of the workload's log, and decode the same events; so do
    ``read_log`` (the log's decoded events, a page at a time) and ``read_log_records`` (the log's records)."""
    store = SQLiteStore(tmp_path / "bench.db")
    try:
        benchmark.write_log(store, 1000, 100, 100)
        assert benchmark.read_streams(store) == benchmark.read_stream_records(store) == 1000
        assert benchmark.read_log(store) == benchmark.read_log_records(store) == benchmark.read_log_raw(store) == 1000
        logged = [logged[4] for page in store.log_pages() for logged in page]
        assert logged == [decode_record(record) for record in store.read_all()]
        for stream in store.streams():
            paged = [stored[2] for page in store.event_pages(stream) for stored in page]
            assert paged == [decode_record(record) for record in store.read_stream(stream)]
            assert {type(event).__name__ for event in paged} == {"SessionOpened", "DiceRolled", "SessionClosed"}
    finally:
        store.close()
