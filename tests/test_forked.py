"""Work shared among forked processes: each part's result in order, and None for a part that failed in any way."""

from __future__ import annotations

import multiprocessing
import os
import time

from hexlog.replay.forked import run_parts


def _square(part: int) -> int:
    return part * part


def test_each_part_runs_in_a_process_of_its_own_and_its_result_comes_back_in_order() -> None:
    assert run_parts(_square, 4) == [0, 1, 4, 9]
    pids = run_parts(lambda _part: os.getpid(), 3)
    assert len(set(pids)) == 3
    assert os.getpid() not in pids


def test_a_part_that_raises_dies_or_cannot_send_its_result_is_none() -> None:
    def work(part: int) -> object:
        if part == 0:
            msg = "a damaged row"
            raise ValueError(msg)
        if part == 1:
            os._exit(9)  # killed: it sends nothing
        if part == 2:
            nested: list[object] = []
            for _ in range(100_000):  # too deep to pickle
                nested = [nested]
            return nested
        return "sound"

    started = time.monotonic()
    assert run_parts(work, 4) == [None, None, None, "sound"]
    assert time.monotonic() - started < 30  # never waits for a part that died


def test_no_process_is_left_behind() -> None:
    run_parts(_square, 3)
    assert multiprocessing.active_children() == []
