"""A writer killed with SIGKILL at random moments never leaves a broken or half-written log."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from typing import TYPE_CHECKING

import pytest

from hexlog.events.chain import verify_stream
from hexlog.events.sqlite import SQLiteStore, integrity_check

if TYPE_CHECKING:
    from pathlib import Path

BATCH = 5
KILLS = 40
STREAM = "campaign"

_WRITER = f"""
import sys, uuid
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent

store = SQLiteStore(sys.argv[1])
version = store.stream_version("campaign")
print("ready", version, flush=True)
number = version // {BATCH}
while number < 1_000_000:
    number += 1
    events = [
        NewEvent(id=str(uuid.uuid4()), source="hexlog:crash", type="hexlog.test.thing",
                 time="2024-05-01T12:00:00Z", schemaversion=1, data={{"batch": number, "i": i}})
        for i in range({BATCH})
    ]
    store.append("campaign", events, expected_version=version,
                 command_id=f"batch-{{number}}", command_digest="crash")
    version += {BATCH}
    print(f"committed {{number}}", flush=True)
"""


def _reported(out: Path) -> list[int]:
    """The batch numbers a writer said were committed, from its output file."""
    lines = out.read_text().splitlines() if out.exists() else []
    return [int(line.split()[1]) for line in lines if line.startswith("committed ")]


def _wait_until_ready(out: Path, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Wait until the writer has opened the store and said so."""
    deadline = time.monotonic() + timeout
    while not out.read_text().startswith("ready"):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"writer never became ready: {out.read_text()!r}")
        time.sleep(0.002)


def _wait_until_committed(out: Path, proc: subprocess.Popen[bytes], count: int) -> None:
    """Wait until the writer has reported ``count`` batches committed in this run.

    The kill then lands while the writer is appending however slow the machine's disk is.
    """
    deadline = time.monotonic() + 60.0
    while len(_reported(out)) < count:
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"writer committed too little: {out.read_text()!r}")
        time.sleep(0.002)


def _check_log(path: Path, promised: int) -> int:
    """Assert the log is sound, in whole batches and holds every promised one; count batches."""
    if not path.exists():
        assert promised == 0, "the database file is gone"
        return 0
    assert integrity_check(path) == "ok"
    store = SQLiteStore(path)
    try:
        read = store.read_stream(STREAM)
        fault = verify_stream([r.envelope for r in read])
        assert fault is None, fault
        assert [r.position for r in read] == list(range(1, len(read) + 1))
        members: defaultdict[int, list[int]] = defaultdict(list)
        for r in read:
            members[r.envelope.data["batch"]].append(r.envelope.data["i"])
        batches = len(members)
        assert sorted(members) == list(range(1, batches + 1)), "a batch is missing"
        half = {b: i for b, i in members.items() if i != list(range(BATCH))}
        assert not half, f"half-written batches: {half}"
        assert batches >= promised, f"batch {promised} was reported committed but is gone"
        assert store.stream_version(STREAM) == BATCH * batches
        if batches:
            assert store.command_result(f"batch-{batches}", "crash") is not None
        assert store.command_result(f"batch-{batches + 1}", "crash") is None
    finally:
        store.close()
    return batches


@pytest.mark.slow
class TestKilledWriter:
    """A writer process appending batches, killed again and again on one database file."""

    def test_every_kill_leaves_a_sound_log_with_every_committed_batch(self, tmp_path: Path) -> None:
        """After each SIGKILL the file checks ok, the chain verifies and batches are whole."""
        rng = random.Random(1234)  # noqa: S311 - a fixed seed for kill times, not a secret
        path = tmp_path / "crash.db"
        before = 0
        mid_run = 0
        for kill in range(KILLS):
            out = tmp_path / f"writer-{kill}.out"
            early = rng.random() < 0.2
            delay = rng.uniform(0.0, 0.08) if early else rng.uniform(0.0, 0.02)
            committed = rng.randint(1, 3)
            with out.open("wb") as sink:
                proc = subprocess.Popen(  # noqa: S603 - our own writer script
                    [sys.executable, "-c", _WRITER, str(path)],
                    stdout=sink,
                    stderr=subprocess.PIPE,
                    cwd=tmp_path,
                )
                try:
                    if not early:
                        _wait_until_ready(out, proc)
                        _wait_until_committed(out, proc, committed)
                    time.sleep(delay)
                    assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
                    proc.send_signal(signal.SIGKILL)
                    proc.wait(timeout=10)
                finally:
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
                    if proc.stderr:
                        proc.stderr.close()
            assert proc.returncode == -signal.SIGKILL
            reported = _reported(out)
            if reported:
                mid_run += 1
                assert reported == list(range(before + 1, reported[-1] + 1)), "not resumed"
            before = _check_log(path, reported[-1] if reported else before)
        assert mid_run >= KILLS // 2, "too few kills landed while the writer was appending"
        assert before >= mid_run
