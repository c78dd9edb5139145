"""Work shared among forked processes, each part's result sent back whole, and any part that fails told apart.

``run_parts`` forks one process per part (each starts as a copy of this one, so the work needs no pickling, only
its result does), ignoring Ctrl-C there (the caller's process hears it, and ends the parts), and gives each
part's result in order, or None for a part that raised, died (killed, out of memory) or whose result could not be
sent. A caller that needs every part does the work itself when any is None: the shared run is only ever faster,
never different.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

__all__ = ["run_parts"]

T = TypeVar("T")


def _child(work: Callable[[int], T], part: int, sent: Connection) -> None:
    """One part in its own process: its result sent, or None when the work raised or the result cannot be sent
    (Ctrl-C, blocked while it was forked, is ignored before it is let through)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        try:
            result: T | None = work(part)
        except Exception:  # noqa: BLE001 - any failure of a part is told by None; the caller does the work itself
            result = None
        try:
            sent.send(result)
        except Exception:  # noqa: BLE001 - a result that cannot be pickled (too deep, too large)
            sent.send(None)
    finally:
        sent.close()


def run_parts(work: Callable[[int], T], parts: int) -> list[T | None]:
    """``work(part)`` for each part 0 to ``parts - 1``, each in a forked process of its own; the results in order,
    None for a part that failed. The processes are ended when this returns or raises (Ctrl-C included)."""
    forks = multiprocessing.get_context("fork")
    started: list[tuple[Connection, BaseProcess]] = []
    try:
        # Ctrl-C waits until every part is forked and known here (one heard within a fork would be lost, and a
        # part forked but not yet known would be left running): then it is heard, and every part is ended
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            for part in range(parts):
                heard, sent = forks.Pipe(duplex=False)
                child = forks.Process(target=_child, args=(work, part, sent), daemon=True)
                started.append((heard, child))
                child.start()
                sent.close()  # this process's copy: the pipe ends when the part's process does
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        results: list[T | None] = []
        for heard, _process in started:
            try:
                results.append(heard.recv())
            except (EOFError, OSError):  # the part's process died before it sent anything
                results.append(None)
        return results
    finally:
        for heard, process in started:
            if process.pid is None:  # never started
                continue
            if process.is_alive():
                process.terminate()
            process.join()
            with contextlib.suppress(OSError):
                heard.close()
