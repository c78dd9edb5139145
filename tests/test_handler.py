"""The command handler: idempotent retries, stale reads, and nothing written on refusal."""

from __future__ import annotations

import pytest

from hexlog.events.errors import ConcurrencyError, IdempotencyConflictError, NotFoundError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper, MemoryKeeper
from hexlog.machine.table import stream_for

STREAM = stream_for("c1")


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    """Each store the handler runs on."""
    made = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "h.db")
    yield made
    made.close()


def _started(store) -> Handler:
    handler = Handler(store, MemoryKeeper())
    handler.execute("c1", c.StartCampaign())
    handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
    return handler


class TestIdempotency:
    def test_a_retry_with_the_same_command_id_returns_the_original_and_writes_nothing(self, store):
        """The second execution of a roll with the same id does not roll again."""
        handler = _started(store)
        first = handler.execute("c1", c.RollDice(expression="3d6"), command_id="cmd-1")
        version = store.stream_version(STREAM)
        again = handler.execute("c1", c.RollDice(expression="3d6"), command_id="cmd-1")
        assert again.result.replayed
        assert again.result.event_ids == first.result.event_ids
        assert store.stream_version(STREAM) == version

    def test_the_same_command_id_for_another_command_is_refused(self, store):
        """A reused id with a different payload is an error, and nothing is written."""
        handler = _started(store)
        handler.execute("c1", c.RollDice(expression="3d6"), command_id="cmd-1")
        version = store.stream_version(STREAM)
        with pytest.raises(IdempotencyConflictError):
            handler.execute("c1", c.RollDice(expression="1d20"), command_id="cmd-1")
        assert store.stream_version(STREAM) == version

    def test_a_retried_session_open_keeps_its_first_secret(self, store, tmp_path):
        """Opening twice with one id commits once; the kept secret is still the committed one."""
        keeper = FileKeeper(tmp_path / "keys")
        handler = Handler(store, keeper)
        handler.execute("c1", c.StartCampaign())
        first = handler.execute("c1", c.OpenSession(), command_id="open-1")
        handler.execute("c1", c.OpenSession(), command_id="open-1")
        assert store.stream_version(STREAM) == 2
        assert handler.execute("c1", c.CloseSession()).events[0].secret == keeper.get("c1", "s1").hex()
        assert first.events[0].commitment == handler.load("c1").session.commitment


class TestStaleReads:
    def test_a_write_between_read_and_append_is_a_concurrency_error(self, store):
        """Two referees at one table: the slower command is refused, not merged."""
        handler = _started(store)
        other = Handler(store, MemoryKeeper())
        load = handler.load

        def load_then_race(campaign):
            table = load(campaign)
            other.execute("c1", c.AddMember(name="Quick"))
            return table

        handler.load = load_then_race  # type: ignore[method-assign]
        version = store.stream_version(STREAM)
        with pytest.raises(ConcurrencyError):
            handler.execute("c1", c.AddMember(name="Slow"))
        assert store.stream_version(STREAM) == version + 1
        assert [m.name for m in Handler(store, MemoryKeeper()).load("c1").party.members] == ["Quick"]


class TestRefusals:
    def test_commands_on_a_campaign_that_does_not_exist_are_refused(self, store):
        """Only init may create a campaign."""
        with pytest.raises(NotFoundError, match="does not exist"):
            Handler(store, MemoryKeeper()).execute("nope", c.AddMember(name="A"))
        assert store.stream_version(stream_for("nope")) == 0

    def test_a_second_open_session_is_refused(self, store):
        """One session at a time: close before opening the next."""
        handler = _started(store)
        with pytest.raises(RuleRefusedError, match="still open"):
            handler.execute("c1", c.OpenSession())

    def test_sessions_are_numbered_and_nonces_restart(self, store):
        """A campaign holds many sessions; each counts its nonces from 0."""
        handler = _started(store)
        handler.execute("c1", c.RollDice(expression="d6"))
        handler.execute("c1", c.CloseSession())
        handler.execute("c1", c.OpenSession(secret_hex="22" * 32))
        rolled = handler.execute("c1", c.RollDice(expression="d6")).events[0]
        assert (rolled.session, rolled.nonce) == ("s2", 0)


class TestSecrets:
    def test_a_secret_already_revealed_cannot_open_another_session(self, store):
        """Reusing a revealed secret would make every roll predictable: refused, nothing written."""
        handler = _started(store)
        handler.execute("c1", c.CloseSession())
        version = store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="already used"):
            handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
        assert store.stream_version(STREAM) == version


class TestCachedFolds:
    def test_two_handlers_on_one_store_see_each_others_commands(self, store):
        """A handler's cached table catches up with events another handler appended."""
        first = _started(store)
        second = Handler(store, first.keeper)
        first.execute("c1", c.AddMember(name="Ann"))
        second.execute("c1", c.AddMember(name="Bo"))
        rolled = first.execute("c1", c.RollDice(expression="d6")).events[0]
        assert [m.name for m in first.load("c1").party.members] == ["Ann", "Bo"]
        assert second.execute("c1", c.RollDice(expression="d6")).events[0].nonce == rolled.nonce + 1

    def test_the_cached_table_equals_a_fresh_fold(self, store):
        """Folding only the tail gives the same table as folding the whole stream."""
        handler = _started(store)
        for name in ("Ann", "Bo"):
            handler.execute("c1", c.AddMember(name=name))
            handler.execute("c1", c.RollDice(expression="2d6"))
        assert handler.load("c1") == Handler(store, MemoryKeeper()).load("c1")
