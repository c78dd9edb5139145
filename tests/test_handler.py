"""The command handler: idempotent retries, stale reads, and nothing written on refusal."""

from __future__ import annotations

import hashlib
import itertools
import json
import select
import subprocess
import sys
import textwrap
import uuid

import pytest

from hexlog.events.campaign import RulesChanged
from hexlog.events.errors import (
    Advice,
    ConcurrencyError,
    CorruptLogError,
    IdempotencyConflictError,
    IllegalTransitionError,
    NotFoundError,
    RuleRefusedError,
    UsageError,
)
from hexlog.events.memory import MemoryStore
from hexlog.events.session import SessionAbandoned
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import handler as handler_module
from hexlog.machine.handler import Handler, new_event_id
from hexlog.machine.hexmap import LoadMap
from hexlog.machine.keeper import FileKeeper, MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.audit import audit_store
from hexlog.service import render

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
        commitment = handler.load("c1").session.commitment
        assert handler.execute("c1", c.CloseSession()).events[0].secret == keeper.get("c1", "s1", commitment).hex()
        assert first.events[0].commitment == commitment

    def test_a_command_run_from_another_path_is_known_by_what_its_sender_sent(self, store, tmp_path):
        """The HTTP service runs a map's text from a folder made anew at each start: a retry after a restart runs it
        from another path, and was refused as another command; ``as_sent`` names it by the text sent."""
        handler = _started(store)
        text = '[hex]\n"3,1" = { terrain = "clear" }\n'
        paths = [tmp_path / "one" / "map.toml", tmp_path / "two" / "map.toml"]
        for path in paths:
            path.parent.mkdir()
            path.write_text(text, encoding="utf-8")
        first = handler.execute("c1", LoadMap(file=str(paths[0])), "map-1", as_sent=LoadMap(file=text))
        version = store.stream_version(STREAM)
        again = Handler(store, MemoryKeeper()).execute(
            "c1", LoadMap(file=str(paths[1])), "map-1", as_sent=LoadMap(file=text)
        )
        assert again.result.replayed
        assert again.result.event_ids == first.result.event_ids
        assert store.stream_version(STREAM) == version
        with pytest.raises(IdempotencyConflictError):
            handler.execute("c1", LoadMap(file=str(paths[1])), "map-1", as_sent=LoadMap(file=text + "\n"))
        assert store.stream_version(STREAM) == version


def _race_once(store, command: c.Command) -> None:
    """Another referee at the table gives ``command`` just before the store's next append: the slower command was
    decided on what it read, and loses the race."""
    other = Handler(store, MemoryKeeper())
    append = store.append
    raced: list[bool] = []

    def race_then_append(*args, **kwargs):
        if not raced:
            raced.append(True)
            other.execute("c1", command)
        return append(*args, **kwargs)

    store.append = race_then_append


class TestStaleReads:
    def test_a_write_between_read_and_append_is_decided_again(self, store):
        """Two referees at one table: the slower command is decided again on the new state and recorded once."""
        handler = _started(store)
        _race_once(store, c.AddMember(name="Quick"))
        version = store.stream_version(STREAM)
        outcome = handler.execute("c1", c.AddMember(name="Slow"))
        assert outcome.result.first_version == version + 2
        assert store.stream_version(STREAM) == version + 2
        assert [m.name for m in Handler(store, MemoryKeeper()).load("c1").party.members] == ["Quick", "Slow"]

    def test_a_command_the_new_state_refuses_says_another_wrote_first(self, store):
        """Decided again, the slower command is refused there: the message says another command wrote first."""
        handler = _started(store)
        handler.execute("c1", c.CloseSession())
        _race_once(store, c.OpenSession(secret_hex="33" * 32))
        version = store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match=r"another command wrote to campaign 'c1' first.*still open"):
            handler.execute("c1", c.OpenSession(secret_hex="44" * 32))
        assert store.stream_version(STREAM) == version + 1

    def test_a_refusal_decided_again_keeps_its_advice_for_the_doors_to_name(self, store):
        """Decided again after another referee abandoned the session, a roll is refused as any refusal is: the command
        it advises stays the registry's (``OpenSession``), so each door names it in its own words, never as
        ``OpenSession()``."""
        handler = _started(store)
        _race_once(store, c.AbandonSession(reason="the power went"))
        with pytest.raises(RuleRefusedError) as caught:
            handler.execute("c1", c.RollDice(expression="1d6"))
        err = caught.value
        assert err.advice == Advice("OpenSession")
        assert err.said(lambda _advice: "hexlog session open") == (
            "another command wrote to campaign 'c1' first, and now this one is refused: no session is open, so "
            "nothing can be rolled (for free roll); run 'hexlog session open'"
        )

    def test_a_step_the_new_phase_refuses_keeps_the_steps_allowed_for_the_doors_to_name(self, store):
        """Decided again after another referee checked surprise first, the slower check is refused as a step the
        phase does not allow, saying another command wrote first: its steps allowed stay the procedure's triggers,
        so the command line names them as its subcommands (``determine-distance``) as for any refusal."""
        handler = _started(store)
        handler.execute("c1", c.AddMember(name="Ann"))
        handler.execute("c1", enc.StartEncounter(party_aware=True, monsters_aware=True))
        _race_once(store, enc.CheckSurprise())
        version = store.stream_version(STREAM)
        with pytest.raises(IllegalTransitionError) as caught:
            handler.execute("c1", enc.CheckSurprise())
        err = caught.value
        assert err.before == "another command wrote to campaign 'c1' first, and now this one is refused: "
        assert (err.procedure, err.state, err.trigger) == ("encounter", "DISTANCE", "check_surprise")
        assert "determine_distance" in err.allowed
        named = [render.subcommand(t) for t in err.allowed]
        told = IllegalTransitionError(err.procedure, err.state, "check-surprise", named, before=err.before)
        assert str(told).startswith(f"{err.before}encounter: 'check-surprise' is not allowed in state DISTANCE")
        assert "determine-distance" in str(told)
        assert "_" not in str(told).split("allowed now: ")[1]
        assert store.stream_version(STREAM) > version

    def test_a_command_expecting_a_version_is_not_decided_again_when_another_wrote_first(self, store):
        """A command sent with the version its sender saw (If-Match) that loses a race is refused, nothing written:
        it is never decided again on a state its sender has not seen."""
        handler = _started(store)
        version = store.stream_version(STREAM)
        _race_once(store, c.AddMember(name="Quick"))
        with pytest.raises(ConcurrencyError) as caught:
            handler.execute("c1", c.AddMember(name="Slow"), expected=version)
        assert str(caught.value) == (
            f"another command wrote to campaign 'c1' after version {version} while this one was decided; "
            "nothing was written"
        )
        assert store.stream_version(STREAM) == version + 1
        assert [m.name for m in Handler(store, MemoryKeeper()).load("c1").party.members] == ["Quick"]

    def test_a_command_expecting_a_version_the_campaign_has_left_is_refused(self, store):
        """Another handler (another process) wrote since the sender looked: refused, whatever this handler cached."""
        handler = _started(store)
        version = store.stream_version(STREAM)
        Handler(store, MemoryKeeper()).execute("c1", c.AddMember(name="Other"))
        with pytest.raises(ConcurrencyError) as caught:
            handler.execute("c1", c.AddMember(name="Late"), expected=version)
        assert str(caught.value) == f"campaign 'c1' is at version {version + 1}, not {version}; nothing was written"
        assert store.stream_version(STREAM) == version + 1
        handler.execute("c1", c.AddMember(name="Late"), expected=version + 1)
        assert store.stream_version(STREAM) == version + 2

    def test_a_race_lost_every_time_ends_in_a_plain_message(self, store, monkeypatch):
        """Retries are bounded: a command that loses every race is refused, saying so, with nothing written; it
        pauses before each retry, longer each time, so that writers that collided do not collide again in step."""
        paused: list[float] = []
        monkeypatch.setattr(handler_module.time, "sleep", paused.append)
        handler = _started(store)
        other = Handler(store, MemoryKeeper())
        append = store.append
        races: list[int] = []
        inside: list[bool] = []

        def race_then_append(*args, **kwargs):
            if not inside:  # every append of the slow handler finds that the quick one appended first
                inside.append(True)
                races.append(1)
                other.execute("c1", c.AddMember(name=f"Quick{len(races)}"))
                inside.clear()
            return append(*args, **kwargs)

        store.append = race_then_append
        with pytest.raises(ConcurrencyError, match="kept writing to campaign 'c1' first"):
            handler.execute("c1", c.AddMember(name="Slow"))
        assert len(races) == handler_module.RETRIES + 1
        assert len(paused) == handler_module.RETRIES
        assert all(0 < a < b for a, b in itertools.pairwise(paused[:6]))  # doubling, spread by a quarter, to a cap
        assert max(paused) <= handler_module.LONGEST_PAUSE * 1.25
        members = [m.name for m in Handler(store, MemoryKeeper()).load("c1").party.members]
        assert "Slow" not in members


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


def _sha(secret_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(secret_hex)).hexdigest()


class TestKeyFile:
    def test_secrets_are_kept_under_their_commitment(self, store, tmp_path):
        """The key file maps "<campaign>/<commitment>" to the secret in hex, and the commitment is its sha256."""
        keys = tmp_path / "keys"
        handler = Handler(store, FileKeeper(keys))
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
        assert json.loads(keys.read_text(encoding="utf-8")) == {f"c1/{_sha('11' * 32)}": "11" * 32}

    def test_a_key_file_of_the_old_layout_is_still_read(self, store, tmp_path):
        """A key file keyed "<campaign>/<session>" (before the commitment layout) still rolls and closes."""
        keys = tmp_path / "keys"
        handler = Handler(store, MemoryKeeper())
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
        keys.write_text(json.dumps({"c1/s1": "11" * 32}), encoding="utf-8")
        old = Handler(store, FileKeeper(keys))
        old.execute("c1", c.RollDice(expression="d6"))
        assert old.execute("c1", c.CloseSession()).events[0].secret == "11" * 32

    def test_a_kept_secret_that_fails_the_commitment_is_refused_for_rolls_and_close(self, store, tmp_path):
        """A secret that does not hash to the commitment never rolls a die nor is revealed; nothing is written."""
        keys = tmp_path / "keys"
        handler = Handler(store, MemoryKeeper())
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
        keys.write_text(json.dumps({"c1/s1": "22" * 32}), encoding="utf-8")  # another session's secret
        wrong = Handler(store, FileKeeper(keys))
        version = store.stream_version(STREAM)
        for command in (c.RollDice(expression="d6"), c.CloseSession()):
            with pytest.raises(RuleRefusedError, match="session s1 does not match its commitment"):
                wrong.execute("c1", command)
        assert store.stream_version(STREAM) == version

    def test_one_handler_asks_the_key_file_at_every_roll_though_it_derives_the_keys_once(self, store, tmp_path):
        """One handler makes a session's dice once, and rolls what a new handler for every roll rolls; yet a secret
        changed or lost in the key file between two of its rolls is refused at the next, and nothing is written."""
        keys = tmp_path / "keys"
        one = Handler(store, FileKeeper(keys))
        one.execute("c1", c.StartCampaign())
        one.execute("c1", c.OpenSession(secret_hex="11" * 32))
        one.execute("c1", c.SetClientSeed(client_seed="table"))
        rolls = [one.execute("c1", c.RollDice(expression="3d20")).events[0] for _ in range(4)]
        other, other_keys = MemoryStore(), tmp_path / "other-keys"
        Handler(other, FileKeeper(other_keys)).execute("c1", c.StartCampaign())
        Handler(other, FileKeeper(other_keys)).execute("c1", c.OpenSession(secret_hex="11" * 32))
        Handler(other, FileKeeper(other_keys)).execute("c1", c.SetClientSeed(client_seed="table"))
        anew = [
            Handler(other, FileKeeper(other_keys)).execute("c1", c.RollDice(expression="3d20")).events[0]
            for _ in range(4)
        ]
        assert [r.faces for r in rolls] == [r.faces for r in anew]
        assert len({r.faces for r in rolls}) > 1
        version = store.stream_version(STREAM)
        keys.write_text(json.dumps({f"c1/{_sha('11' * 32)}": "22" * 32}), encoding="utf-8")
        with pytest.raises(RuleRefusedError, match="session s1 does not match its commitment"):
            one.execute("c1", c.RollDice(expression="d6"))
        keys.write_text(json.dumps({}), encoding="utf-8")
        with pytest.raises(NotFoundError):
            one.execute("c1", c.RollDice(expression="d6"))
        assert store.stream_version(STREAM) == version

    @pytest.mark.parametrize("value", ["zz", 7, None])
    def test_a_corrupt_secret_in_the_key_file_names_the_key_file(self, store, tmp_path, value):
        """A value that is not hex is a CorruptLogError naming the key file, not a ValueError."""
        keys = tmp_path / "keys"
        handler = Handler(store, FileKeeper(keys))
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
        keys.write_text(json.dumps({f"c1/{_sha('11' * 32)}": value}), encoding="utf-8")
        for command in (c.RollDice(expression="d6"), c.CloseSession()):
            with pytest.raises(CorruptLogError, match=f"key file {keys}"):
                handler.execute("c1", command)

    def test_a_missing_secret_names_the_way_out(self, store, tmp_path):
        """Without its secret a session cannot roll or close; the error says to abandon it."""
        keys = tmp_path / "keys"
        handler = Handler(store, FileKeeper(keys))
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.OpenSession())
        keys.unlink()
        for command in (c.RollDice(expression="d6"), c.CloseSession()):
            with pytest.raises(NotFoundError, match="end the session with") as refused:
                handler.execute("c1", command)
            assert refused.value.advice == Advice("AbandonSession", (("reason", "TEXT"),))

    def test_writers_in_many_processes_lose_no_secret(self, tmp_path):
        """Concurrent puts from several processes keep every secret (a lock and a temp file of each writer's own)."""
        keys = tmp_path / "keys"
        script = tmp_path / "putter.py"
        script.write_text(
            textwrap.dedent(
                """
                import sys
                from hexlog.machine.keeper import FileKeeper
                keeper = FileKeeper(sys.argv[1])
                for i in range(25):
                    keeper.put("c1", bytes([int(sys.argv[2]), i]) * 16)
                """
            ),
            encoding="utf-8",
        )
        procs = [
            subprocess.Popen([sys.executable, str(script), str(keys), str(n)], stderr=subprocess.PIPE, text=True)  # noqa: S603
            for n in range(4)
        ]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
        kept = json.loads(keys.read_text(encoding="utf-8"))
        assert len(kept) == 4 * 25
        assert all(key == f"c1/{_sha(value)}" for key, value in kept.items())
        assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


_RACER = textwrap.dedent(
    """
    import json, sys
    from hexlog.events.sqlite import SQLiteStore
    from hexlog.machine import commands as c
    from hexlog.machine.handler import Handler
    from hexlog.machine.keeper import FileKeeper

    store = SQLiteStore(sys.argv[1])
    append = store.append

    def decide_then_wait(*args, **kwargs):
        print("loaded", flush=True)
        sys.stdin.readline()  # both racers have read the same version and decided: now append
        return append(*args, **kwargs)

    store.append = decide_then_wait
    while sys.stdin.readline().strip() == "go":
        handler = Handler(store, FileKeeper(sys.argv[2]))
        try:
            outcome = handler.execute("c1", c.OpenSession())
            print(json.dumps({"won": outcome.events[0].commitment}), flush=True)
        except Exception as err:
            print(json.dumps({"lost": type(err).__name__, "why": str(err)}), flush=True)
    """
)


def _line(proc: subprocess.Popen[str]) -> str:
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready, "a racer did not answer"
    assert proc.stdout is not None
    return proc.stdout.readline().strip()


class TestSessionOpenRace:
    def test_two_processes_opening_a_session_at_once_never_break_the_campaign(self, tmp_path):
        """Two processes race OpenSession on one database and key file: one wins, and its secret is the kept one.

        Each round both racers read the same stream version and decide before either appends; the loser,
        decided again on the new state, is refused (a session is open) saying that another command wrote
        first; it leaves the winner's secret in place, so rolls and the reveal verify, and takes its own
        secret back out of the key file.
        """
        db, keys = tmp_path / "race.db", tmp_path / "race.db.keys"
        referee_store = SQLiteStore(db)
        referee = Handler(referee_store, FileKeeper(keys))
        referee.execute("c1", c.StartCampaign())
        script = tmp_path / "racer.py"
        script.write_text(_RACER, encoding="utf-8")
        racers = [
            subprocess.Popen(  # noqa: S603 - our own script
                [sys.executable, "-u", str(script), str(db), str(keys)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=(tmp_path / f"racer{n}.err").open("w"),
                text=True,
            )
            for n in range(2)
        ]
        rounds = 12
        try:
            for _ in range(rounds):
                for racer in racers:
                    racer.stdin.write("go\n")
                    racer.stdin.flush()
                assert [_line(racer) for racer in racers] == ["loaded", "loaded"]
                for racer in racers:
                    racer.stdin.write("append\n")
                    racer.stdin.flush()
                results = [json.loads(_line(racer)) for racer in racers]
                winners = [r["won"] for r in results if "won" in r]
                assert len(winners) == 1, results
                lost = [r for r in results if "lost" in r]
                assert [r["lost"] for r in lost] == ["RuleRefusedError"], results
                assert "another command wrote to campaign 'c1' first" in lost[0]["why"], results
                assert referee.load("c1").session.commitment == winners[0]
                referee.execute("c1", c.RollDice(expression="2d6"))
                referee.execute("c1", c.RollDice(expression="d20", secret=True))
                revealed = referee.execute("c1", c.CloseSession()).events[0].secret
                assert _sha(revealed) == winners[0]
        finally:
            for racer in racers:
                racer.stdin.close()
                racer.wait(timeout=60)
        report = audit_store(referee_store)
        assert report.ok, report.text()
        assert (report.sessions, report.rolls_verified) == (rounds, 2 * rounds)
        assert len([k for k in json.loads(keys.read_text()) if k.startswith("c1/")]) == rounds
        referee_store.close()


class TestAbandon:
    def test_abandon_ends_the_session_without_a_reveal_and_a_new_one_may_open(self, store):
        """A session whose secret is lost is abandoned (no secret in the event); the next session opens and rolls."""
        handler = Handler(store, MemoryKeeper())
        handler.execute("c1", c.StartCampaign())
        handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
        handler.execute("c1", c.RollDice(expression="d6"))
        lost = Handler(store, MemoryKeeper())  # a database copied without its key file
        with pytest.raises(NotFoundError):
            lost.execute("c1", c.CloseSession())
        with pytest.raises(RuleRefusedError, match="still open"):
            lost.execute("c1", c.OpenSession())
        outcome = lost.execute("c1", c.AbandonSession(reason="  key file lost  "))
        assert outcome.events == (SessionAbandoned(session="s1", reason="key file lost"),)
        assert (outcome.table.session.open, outcome.table.session.abandoned) == (False, True)
        with pytest.raises(RuleRefusedError, match="no session is open"):
            lost.execute("c1", c.RollDice(expression="d6"))
        lost.execute("c1", c.OpenSession())
        rolled = lost.execute("c1", c.RollDice(expression="d6")).events[0]
        assert (rolled.session, rolled.nonce) == ("s2", 0)
        lost.execute("c1", c.CloseSession())

    def test_abandon_without_an_open_session_or_reason_is_refused(self, store):
        """Nothing to abandon, or no reason given: refused, nothing written (the key file is lost in both)."""
        handler = _started(store)
        lost = Handler(store, MemoryKeeper())  # a database copied without its key file: abandon may be asked
        version = store.stream_version(STREAM)
        with pytest.raises(UsageError, match="abandoning a session needs a reason"):
            lost.execute("c1", c.AbandonSession(reason="   "))
        assert store.stream_version(STREAM) == version
        assert lost.load("c1").session.open
        handler.execute("c1", c.CloseSession())
        version = store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="no session is open"):
            lost.execute("c1", c.AbandonSession(reason="why not"))
        assert store.stream_version(STREAM) == version


class TestUnicode:
    @pytest.mark.parametrize(
        ("campaign", "command"),
        [
            ("c1", c.SetClientSeed(client_seed="\udcff")),
            ("c1", c.AddMember(name="A\ud800")),
            ("c1", c.RollDice(expression="d6", purpose="\udce9t\udce9")),
            ("c1", c.ChangeRules(ruleset="ose", overrides={"k\udcff": 1})),
            ("c\udcff", c.StartCampaign()),
        ],
    )
    def test_text_that_is_not_unicode_is_a_usage_error_and_writes_nothing(self, store, campaign, command):
        """Lone surrogates (argv bytes that were not UTF-8) are refused before anything is written."""
        handler = _started(store)
        version = store.stream_version(STREAM)
        with pytest.raises(UsageError, match="is not valid Unicode"):
            handler.execute(campaign, command)
        assert store.stream_version(STREAM) == version

    @pytest.mark.parametrize(
        "command",
        [
            c.AddMember(name="A\ud800"),
            c.RollDice(expression="d6", purpose="\udce9t\udce9"),
            c.ChangeRules(ruleset="ose", overrides={"k\udcff": 1}),
            c.ChangeRules(ruleset="ose", overrides={"k": {"deep": ["x", "\udcff"]}}),
        ],
    )
    def test_text_that_is_not_unicode_is_refused_alike_with_and_without_a_command_id(self, store, command):
        """The digest is made only for a command id, and the refusal of text that is not Unicode is the same
        sentence either way."""
        handler = _started(store)
        messages = []
        for command_id in (None, "cmd-1"):
            with pytest.raises(UsageError, match="is not valid Unicode") as refused:
                handler.execute("c1", command, command_id=command_id)
            messages.append(str(refused.value))
        assert messages[0] == messages[1]
        assert store.stream_version(STREAM) == 2


class TestInfravision:
    @pytest.mark.parametrize("feet", [-10, -1, 1001, 99999999999999999999999])
    def test_infravision_outside_0_to_1000_feet_is_refused(self, store, feet):
        """A negative or absurd infravision is a usage error naming the field; nothing is written."""
        handler = _started(store)
        version = store.stream_version(STREAM)
        with pytest.raises(UsageError, match=f"infravision must be 0 to 1000 feet, not {feet}"):
            handler.execute("c1", c.AddMember(name="Elf", infravision_ft=feet))
        assert store.stream_version(STREAM) == version

    @pytest.mark.parametrize("feet", [0, 60, 1000])
    def test_infravision_from_0_to_1000_feet_is_recorded(self, store, feet):
        """The bounds themselves are accepted."""
        handler = _started(store)
        assert handler.execute("c1", c.AddMember(name="Elf", infravision_ft=feet)).events[0].infravision_ft == feet


def _at_table(store, ruleset: str = "ose", *members: str) -> Handler:
    """A campaign under ``ruleset`` on dice that always show 3, with an open session and the named members."""
    handler = Handler(store, MemoryKeeper(), roller=lambda _table: ScriptedRoller([3] * 100))
    handler.execute("c1", c.StartCampaign(ruleset=ruleset))
    handler.execute("c1", c.OpenSession(secret_hex="11" * 32))
    for name in members:
        handler.execute("c1", c.AddMember(name=name))
    return handler


class TestEncounterInvariants:
    """Invariants the encounter owns over the campaign's commands (its guards, and the rules change)."""

    def test_the_rules_cannot_change_while_an_encounter_is_under_way(self, store):
        """rules change is refused in the middle of an encounter, naming it and its phase, and writes nothing."""
        handler = _at_table(store, "ose", "Ann")
        handler.execute("c1", enc.StartEncounter(party_aware=True, monsters_aware=True))
        handler.execute("c1", enc.CheckSurprise())
        version = store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match=r"under way: encounter \(phase DISTANCE\)"):
            handler.execute("c1", c.ChangeRules(ruleset="explore"))
        assert store.stream_version(STREAM) == version
        assert handler.load("c1").rules.name == "ose"

    def test_the_rules_change_once_the_encounter_concludes(self, store):
        """After the conclusion the same rules change is recorded and in force."""
        handler = _at_table(store, "ose", "Ann")
        handler.execute("c1", enc.StartEncounter(party_aware=True, monsters_aware=True))
        handler.execute("c1", enc.CheckSurprise())
        handler.execute("c1", enc.DetermineDistance(value=30))
        handler.execute("c1", enc.RollInitiative())
        handler.execute("c1", enc.ConcludeEncounter())
        outcome = handler.execute("c1", c.ChangeRules(ruleset="explore", reason="to the wilderness"))
        assert [type(e) for e in outcome.events] == [RulesChanged]
        assert (outcome.events[0].ruleset, outcome.events[0].reason) == ("explore", "to the wilderness")
        assert handler.load("c1").rules.name == "explore"

    def test_the_last_member_cannot_leave_during_an_encounter(self, store):
        """Removing the only member while an encounter is under way is refused; another member may go."""
        handler = _at_table(store, "ose", "Ann", "Bo")
        handler.execute("c1", enc.StartEncounter(party_aware=True, monsters_aware=True))
        handler.execute("c1", c.RemoveMember(name="Bo"))
        version = store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="Ann is the last member of the party while an encounter"):
            handler.execute("c1", c.RemoveMember(name="Ann"))
        assert store.stream_version(STREAM) == version
        assert [m.name for m in handler.load("c1").party.members] == ["Ann"]

    def test_the_last_member_may_leave_once_the_encounter_concludes(self, store):
        """With no encounter under way the party may be emptied."""
        handler = _at_table(store, "ose", "Ann")
        handler.execute("c1", enc.StartEncounter(party_aware=True, monsters_aware=True))
        handler.execute("c1", enc.CheckSurprise())
        handler.execute("c1", enc.DetermineDistance(value=30))
        handler.execute("c1", enc.RollInitiative())
        handler.execute("c1", enc.ConcludeEncounter())
        handler.execute("c1", c.RemoveMember(name="Ann"))
        assert handler.load("c1").party.members == ()

    def test_an_armor_the_rules_in_force_do_not_know_is_refused_at_once(self, store):
        """Under adnd, party add with an unknown armor is a usage error naming it; nothing is written."""
        handler = _at_table(store, "adnd")
        version = store.stream_version(STREAM)
        with pytest.raises(UsageError, match=r"armor 'mithril_shirt' is not known to the rules in force \(adnd\)"):
            handler.execute("c1", c.AddMember(name="Ann", armor="mithril_shirt"))
        assert store.stream_version(STREAM) == version
        assert handler.load("c1").party.members == ()

    @pytest.mark.parametrize("armor", ["chain_mail", "chain", "metal", "none"])
    def test_an_armor_adnd_knows_is_accepted(self, store, armor):
        """A suit, a short name, a kind, or none: the member is added with that armor."""
        handler = _at_table(store, "adnd")
        assert handler.execute("c1", c.AddMember(name="Ann", armor=armor)).events[0].armor == armor

    def test_under_ose_any_armor_name_is_accepted(self, store):
        """OSE reads no armor, so a name adnd would refuse is recorded as given."""
        handler = _at_table(store, "ose")
        assert handler.execute("c1", c.AddMember(name="Ann", armor="mithril_shirt")).events[0].armor == "mithril_shirt"

    def test_a_change_to_rules_that_do_not_know_a_members_armor_is_refused(self, store):
        """From ose to adnd with a member in mithril: refused naming the member, nothing written; then allowed."""
        handler = _at_table(store, "ose")
        handler.execute("c1", c.AddMember(name="Ann", armor="mithril_shirt"))
        version = store.stream_version(STREAM)
        unknown = r"Ann's armor 'mithril_shirt' is not known to the rules in force \(adnd\)"
        with pytest.raises(RuleRefusedError, match=unknown):
            handler.execute("c1", c.ChangeRules(ruleset="adnd"))
        assert store.stream_version(STREAM) == version
        assert handler.load("c1").rules.name == "ose"
        handler.execute("c1", c.RemoveMember(name="Ann"))
        handler.execute("c1", c.AddMember(name="Ann", armor="chain_mail"))
        handler.execute("c1", c.ChangeRules(ruleset="adnd"))
        assert handler.load("c1").rules.name == "adnd"


def test_event_ids_are_random_rfc_4122_version_4_uuids_as_uuid_writes_them():
    """Each id parses as a version 4 UUID of the RFC 4122 variant and reads back as the same text; none repeats."""
    ids = [new_event_id() for _ in range(2000)]
    for one in ids:
        parsed = uuid.UUID(one)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, one)
    assert len(set(ids)) == len(ids)
    assert {one[19] for one in ids} == set("89ab")  # every variant digit turns up
