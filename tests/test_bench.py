"""``hexlog bench``: its quick mode prints the result line with every key (the figures are the benchmark's to judge)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .conftest import run_hexlog

if TYPE_CHECKING:
    from pathlib import Path

TOP = {"name", "schema", "events", "repeat", "nproc", "versions", "unit", "rates", "spread", "params", "store"}
RATES = {
    "append_tx1_eps",
    "append_batch100_eps",
    "read_stream_eps",
    "read_log_eps",
    "read_log_raw_eps",
    "replay_eps",
    "audit_eps",
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
    done = run_hexlog("bench", "--db", "postgresql://localhost/hexlog", cwd=tmp_path)
    assert done.returncode == 2
    assert "no postgresql store" in done.stderr
    assert not done.stdout
