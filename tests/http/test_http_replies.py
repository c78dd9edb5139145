"""The answers kept for an Idempotency-Key go once past their time (``hexlog serve --keep-replies``), so a client that
keys every command does not grow the database without end; a retry after that is still applied once (the store's
command id), answered from what it recorded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from hexlog.events.sqlite import SQLiteStore
from hexlog.service.http_replies import Replies, Reply

if TYPE_CHECKING:
    from pathlib import Path

START = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def _reply(n: int) -> Reply:
    return Reply(digest=f"d{n}", status=200, body={"version": n})


def test_an_answer_past_its_time_goes_at_the_next_sweep_and_the_others_stay(tmp_path: Path) -> None:
    db = tmp_path / "hexlog.db"
    SQLiteStore(db).close()
    replies = Replies(db, keep_hours=24)
    replies.put("main", "k1", _reply(1), now=START)
    replies.put("main", "k2", _reply(2), now=START + timedelta(hours=2))
    assert replies.get("main", "k1") == _reply(1)  # 2 hours old: kept
    replies.put("other", "k3", _reply(3), now=START + timedelta(hours=25))
    assert replies.get("main", "k1") is None  # 25 hours old: gone, whatever its campaign
    assert replies.get("main", "k2") == _reply(2)
    assert replies.get("other", "k3") == _reply(3)
    replies.close()


def test_a_sweep_is_made_at_most_once_an_hour(tmp_path: Path) -> None:
    db = tmp_path / "hexlog.db"
    SQLiteStore(db).close()
    replies = Replies(db, keep_hours=1)
    replies.put("main", "k0", _reply(0), now=START)  # the first answer sweeps (nothing yet)
    replies.put("main", "k1", _reply(1), now=START + timedelta(minutes=50))
    replies.put("main", "k2", _reply(2), now=START + timedelta(minutes=60))  # sweeps: k0 is just an hour old
    assert replies.get("main", "k0") == _reply(0)
    replies.put("main", "k3", _reply(3), now=START + timedelta(minutes=115))  # 55 minutes after the sweep: none
    assert replies.get("main", "k1") == _reply(1)  # past its hour, kept until the next sweep
    replies.put("main", "k4", _reply(4), now=START + timedelta(minutes=120))  # an hour on: sweeps
    assert (replies.get("main", "k0"), replies.get("main", "k1")) == (None, None)
    assert replies.get("main", "k2") == _reply(2)
    replies.close()
