"""Malformed input is a clean refusal, success means recorded, nothing leaks: one test per finding."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hexlog.events.chain import from_cloudevent, reseal
from hexlog.events.errors import StoreWriteError
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.store import NewEvent

from .conftest import secret_file

SECRET = "5e" * 32


def one_line(stderr: str) -> str:
    """The single line a refused command writes, failing the test on more, a traceback or an internal error."""
    assert "Traceback" not in stderr
    assert "internal error" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def events_of(db: Path) -> list[tuple[object, ...]]:
    """Every stored event row, in order (what a refused command must leave as it was)."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT * FROM events ORDER BY position").fetchall()


@pytest.fixture(scope="module")
def played_once(tmp_path_factory: pytest.TempPathFactory, play_once) -> Path:
    """A campaign with a closed session of two rolls, and its export, played once per module."""
    folder = tmp_path_factory.mktemp("played")
    play_once(
        folder,
        (
            ("init",),
            ("session", "open", "--secret-file", secret_file(folder, SECRET)),
            ("party", "add", "Ann"),
            ("roll", "2d6"),
            ("roll", "d20", "--secret"),
            ("session", "close"),
            ("export", "--out", "good.jsonl"),
        ),
    )
    return folder


@pytest.fixture
def played(played_once: Path, tmp_path: Path, copy_campaign) -> Path:
    """A copy of the campaign (./hexlog.db) and its export (./good.jsonl) in the test's folder."""
    (tmp_path / "good.jsonl").write_bytes((played_once / "good.jsonl").read_bytes())
    return copy_campaign(played_once, tmp_path)


def _lines(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "good.jsonl").read_text(encoding="utf-8").splitlines()]


def _resealed(objs: list[dict[str, object]]) -> str:
    """Lines of objects whose chain is sealed anew (a forger's export whose chain verifies)."""
    envelopes = [from_cloudevent(o) for o in objs]
    return "".join(json.dumps(e.to_cloudevent()) + "\n" for e in reseal(envelopes))


BAD_EXPORTS = {
    "a lone surrogate as a value": lambda text: text.replace('"campaign": "main"', '"campaign": "\\ud800"', 1),
    "a lone surrogate as a key": lambda text: text.replace('"campaign": "main"', '"\\udc00": "main"', 1),
    "a 5,000-digit integer": lambda text: text.replace(
        '"streamversion": 1,', '"streamversion": 1' + "0" * 5000 + ",", 1
    ),
    "JSON nested 700 deep": lambda text: text.replace('"data": {', '"data": {"x": ' + "[" * 700 + "]" * 700 + ",", 1),
    "JSON nested 980 deep": lambda text: "[" * 980 + "]" * 980 + "\n" + text,
    "duplicate keys": lambda text: text.replace('"streamversion": 1,', '"streamversion": 1, "streamversion": 1,', 1),
    "NaN": lambda text: text.replace('"streamversion": 1,', '"streamversion": NaN,', 1),
    "an empty file": lambda _: "",
    "a line of 2 MiB": lambda text: text.replace(
        '"campaign": "main"', '"campaign": "main", "x": "' + "a" * (2 << 20) + '"', 1
    ),
}


class TestMalformedExports:
    @pytest.mark.usefixtures("played")
    @pytest.mark.parametrize("name", sorted(BAD_EXPORTS))
    def test_import_and_audit_refuse_it_in_one_line_and_write_nothing(self, hexlog, tmp_path: Path, name):
        """Each is not an export at all: a malformed file (exit 2), named in one line by import and audit --file;
        import leaves no database behind."""
        text = (tmp_path / "good.jsonl").read_text(encoding="utf-8")
        (tmp_path / "bad.jsonl").write_text(BAD_EXPORTS[name](text), encoding="utf-8")
        audited = hexlog("audit", "--file", "bad.jsonl")
        assert audited.returncode == 2, (audited.stdout, audited.stderr)
        assert one_line(audited.stderr).startswith("hexlog: error: bad.jsonl is not a hexlog export: ")
        imported = hexlog("import", "bad.jsonl", "--db", "copy.db")
        assert imported.returncode == 2, imported.stderr
        assert one_line(imported.stderr).startswith("hexlog: error: bad.jsonl is not a hexlog export: ")
        assert not list(tmp_path.glob("copy.db*"))

    @pytest.mark.usefixtures("played")
    @pytest.mark.parametrize(
        ("content", "says"),
        [("hello\n", "line 1: bad JSON"), ('{"a": 1}\n', "line 1: missing attributes: data, ")],
        ids=["not JSON", "no attributes"],
    )
    def test_a_file_that_is_no_export_is_a_malformed_file(self, hexlog, tmp_path, content, says):
        (tmp_path / "bad.jsonl").write_text(content, encoding="utf-8")
        for args in (("import", "bad.jsonl", "--db", "copy.db"), ("audit", "--file", "bad.jsonl")):
            result = hexlog(*args)
            assert result.returncode == 2, result.stderr
            assert f"bad.jsonl is not a hexlog export: {says}" in one_line(result.stderr)
        assert not list(tmp_path.glob("copy.db*"))

    @pytest.mark.usefixtures("played")
    def test_an_export_that_does_not_verify_is_refused(self, hexlog, tmp_path):
        """An export whose chain breaks is an export all the same: import refuses it (exit 1), audit FAILED (1)."""
        objs = _lines(tmp_path)
        objs[1] = {**objs[1], "time": "2020-01-01T00:00:00Z"}  # not resealed: its hash no longer holds
        (tmp_path / "forged.jsonl").write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
        imported = hexlog("import", "forged.jsonl", "--db", "copy.db")
        assert imported.returncode == 1, imported.stderr
        assert "does not verify at line 2" in one_line(imported.stderr)
        assert hexlog("audit", "--file", "forged.jsonl").returncode == 1
        assert not list(tmp_path.glob("copy.db*"))

    @pytest.mark.usefixtures("played")
    @pytest.mark.parametrize(
        ("field", "value", "says"),
        [
            ("id", "not-a-uuid", "is not a UUID"),
            ("time", "yesterday at noon", "is not an RFC 3339 date-time"),
            ("time", "2026-13-01T00:00:00Z", "is not an RFC 3339 date-time"),
            ("time", "\uff12\uff10\uff12\uff16-01-01T00:00:00Z", "is not an RFC 3339 date-time"),
        ],
    )
    def test_a_resealed_export_with_a_bad_id_or_time_is_refused(self, hexlog, tmp_path, field, value, says):
        """The chain of a resealed export verifies; its id must still be a UUID and its time RFC 3339."""
        objs = _lines(tmp_path)
        objs[1] = {**objs[1], field: value}
        (tmp_path / "forged.jsonl").write_text(_resealed(objs), encoding="utf-8")
        for args in (("audit", "--file", "forged.jsonl"), ("import", "forged.jsonl", "--db", "copy.db")):
            result = hexlog(*args)
            assert result.returncode == 2  # not an export: an event's id or time is not one
            assert says in one_line(result.stderr)
        assert not list(tmp_path.glob("copy.db*"))

    def test_dev_zero_and_a_fifo_are_refused_without_reading(self, hexlog, tmp_path: Path) -> None:
        """Only regular files are read: a device and a FIFO (which would hang) are refused at once."""
        os.mkfifo(tmp_path / "fifo")
        for path in ("/dev/zero", "fifo", "."):
            for args in (("audit", "--file", path), ("import", path)):
                result = hexlog(*args)
                assert result.returncode == 2, result.stderr
                assert "not a regular file" in one_line(result.stderr) or "directory" in result.stderr
        assert not (tmp_path / "hexlog.db").exists()


class TestMalformedArguments:
    @pytest.mark.parametrize(
        "args",
        [("state",), ("log",), ("replay",), ("export",), ("rules", "show"), ("audit",), ("receipt",), ("roll", "d6")],
        ids=" ".join,
    )
    def test_a_campaign_that_is_not_utf8_is_refused_in_one_line(self, hexlog, played, args) -> None:
        """Bytes that are not UTF-8 (argv gives them as lone surrogates) are a usage error, never a crash."""
        before = events_of(played)
        result = hexlog(*args, "--campaign", "m\udcffain")
        assert result.returncode == 2, result.stderr
        assert "--campaign is not valid Unicode" in one_line(result.stderr)
        assert events_of(played) == before

    @pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where no folder can be made")
    def test_a_folder_the_system_will_not_make_is_named(self, hexlog) -> None:
        """init makes a missing folder for its database; where the system refuses, its words and the path they are
        about, exit 1 (the environment), nothing made."""
        missing = Path("/proc/nowhere/campaign.db")
        done = hexlog("--db", str(missing), "init")
        assert done.returncode == 1, done.stderr
        assert done.stderr == f"hexlog: error: No such file or directory: {missing.parent}\n"
        assert not missing.parent.exists()

    def test_deeply_nested_house_rules_are_refused(self, hexlog, tmp_path: Path) -> None:
        """A house-rules TOML nested 900 deep is refused by init and rules show; init creates nothing."""
        (tmp_path / "deep.toml").write_text("[options]\nx = " + "[" * 900 + "]" * 900 + "\n", encoding="utf-8")
        for args in (("init", "--rules", "deep.toml"), ("rules", "show", "ose", "--rules", "deep.toml")):
            result = hexlog(*args)
            assert result.returncode == 2, result.stderr
            assert "nested more than 64 deep" in one_line(result.stderr)
        assert not (tmp_path / "hexlog.db").exists()

    @pytest.mark.parametrize(
        "content",
        ['{"a": ' * 900 + "1" + "}" * 900, "[[[[", '{"c1/x": "ab", "c1/x": "cd"}', "\udcff"],
        ids=["deep", "bad JSON", "duplicate keys", "not UTF-8"],
    )
    def test_a_malformed_key_file_is_refused_and_nothing_written(self, hexlog, played, content) -> None:
        """session open and close read the key file: a malformed one is named in one line; the log is unchanged."""
        keys = played.with_name("hexlog.db.keys")
        keys.write_bytes(content.encode("utf-8", "surrogateescape"))
        before = events_of(played)
        for args in (("session", "open"), ("map", "show")):
            result = hexlog(*args)
            assert result.returncode == 1, result.stderr
            assert "key file" in one_line(result.stderr)
        assert events_of(played) == before


class TestDamagedFiles:
    def test_a_database_file_damaged_on_disk_is_named_in_one_line(self, hexlog, played: Path) -> None:
        """Pages overwritten with junk: every reader says the database cannot be used (exit 1), no crash."""
        with contextlib.closing(sqlite3.connect(played)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = played.stat().st_size
        with played.open("r+b") as handle:
            handle.seek(4096)
            handle.write(b"\xff" * (size - 4096))
        for args in (("log",), ("state",), ("audit",), ("roll", "d6")):
            result = hexlog(*args)
            assert result.returncode == 1, (args, result.stderr)
            one_line(result.stderr)

    def test_output_to_a_full_device_is_one_line(self, played: Path) -> None:
        """Standard output on a full disk: one line and exit 1, not a crash."""
        with Path("/dev/full").open("w") as full:
            result = subprocess.run(  # noqa: S603 - our own console script
                [str(Path(sys.executable).parent / "hexlog"), "state"],
                cwd=played.parent,
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                check=False,
            )
        assert result.returncode == 1
        assert "No space left" in one_line(result.stderr)


class TestNewDatabases:
    def test_a_database_with_no_table_is_set_up_by_init_and_demo(self, hexlog, tmp_path: Path) -> None:
        """A 4,096-byte WAL file with no table (a creation killed early) is a new database, not a foreign one."""
        for name in ("hexlog.db", "demo.db"):
            with contextlib.closing(sqlite3.connect(tmp_path / name)) as conn:
                conn.execute("PRAGMA journal_mode = WAL")
        refused = hexlog("roll", "d6")
        assert refused.returncode == 1
        assert "'hexlog init' sets it up" in one_line(refused.stderr)
        assert "does not exist" in one_line(hexlog("state").stderr)  # read-only: an empty database, no campaign
        assert hexlog("init").returncode == 0
        assert hexlog("demo", "--db", "demo.db").returncode == 0

    def test_new_files_that_hold_secrets_are_readable_by_their_owner_only(self, hexlog, tmp_path: Path) -> None:
        """The database, its WAL and shared-memory files, the key file and a referee's export: mode 0600."""
        assert hexlog("init").returncode == 0
        assert hexlog("session", "open").returncode == 0
        assert hexlog("roll", "d6", "--secret").returncode == 0
        (tmp_path / "export.jsonl").write_text("old\n", encoding="utf-8")
        (tmp_path / "export.jsonl").chmod(0o644)
        assert hexlog("export", "--referee", "--out", "export.jsonl").returncode == 0
        store = SQLiteStore(tmp_path / "hexlog.db")  # held open: the WAL and shared-memory files stay
        try:
            store.stream_version("campaign-main")
            names = ["hexlog.db", "hexlog.db-wal", "hexlog.db-shm", "hexlog.db.keys", "export.jsonl"]
            modes = {name: stat.S_IMODE((tmp_path / name).stat().st_mode) for name in names}
        finally:
            store.close()
        assert modes == dict.fromkeys(names, 0o600)

    def test_a_store_created_new_is_private(self, tmp_path: Path) -> None:
        """The store itself creates its file 0600, whatever the umask."""
        old = os.umask(0)
        try:
            SQLiteStore(tmp_path / "x.db").close()
        finally:
            os.umask(old)
        assert stat.S_IMODE((tmp_path / "x.db").stat().st_mode) == 0o600


class TestSecrets:
    def test_a_secret_file_or_standard_input_opens_a_session(self, hexlog, tmp_path: Path) -> None:
        """--secret-file FILE and --secret-file - give the secret; the commitment is its sha256."""
        assert hexlog("init").returncode == 0
        (tmp_path / "secret.hex").write_text(SECRET + "\n", encoding="utf-8")
        opened = hexlog("session", "open", "--secret-file", "secret.hex")
        assert opened.returncode == 0, opened.stderr
        assert hashlib.sha256(bytes.fromhex(SECRET)).hexdigest() in opened.stdout
        assert hexlog("session", "close").returncode == 0
        other = "6f" * 32
        opened = hexlog("session", "open", "--secret-file", "-", input_text=other)
        assert opened.returncode == 0, opened.stderr
        assert hashlib.sha256(bytes.fromhex(other)).hexdigest() in opened.stdout

    @pytest.mark.parametrize("command", [("session", "open"), ("demo",)], ids=["session open", "demo"])
    def test_a_secret_on_the_command_line_is_an_unknown_option(self, hexlog, tmp_path: Path, command) -> None:
        """There is no --secret-hex (other users can read a command line): exit 2, one line, nothing written."""
        assert hexlog("init").returncode == 0
        before = events_of(tmp_path / "hexlog.db")
        result = hexlog(*command, "--secret-hex", SECRET)
        assert result.returncode == 2
        assert "No such option: --secret-hex" in one_line(result.stderr)
        assert SECRET not in result.stdout + result.stderr
        assert events_of(tmp_path / "hexlog.db") == before
        assert not (tmp_path / "hexlog.db.keys").exists()

    def test_no_option_of_any_command_takes_a_secret_but_secret_file(self) -> None:
        """Every option naming a secret is a flag (``roll --secret``) or ``--secret-file``, which takes a path."""
        import typer.main  # noqa: PLC0415

        from hexlog.service import cli  # noqa: PLC0415

        taking: list[str] = []

        def walk(command: object, path: tuple[str, ...]) -> None:
            for name, sub in sorted(getattr(command, "commands", {}).items()):
                walk(sub, (*path, name))
            for param in getattr(command, "params", []):
                named = [opt for opt in param.opts if opt.startswith("-") and "secret" in opt]
                if named and not param.is_flag:
                    taking.extend(f"{' '.join(path)} {opt}" for opt in named)

        walk(typer.main.get_command(cli.app), ())
        assert taking
        assert {entry.rsplit(" ", 1)[1] for entry in taking} == {"--secret-file"}, taking
        assert "session open --secret-file" in taking
        assert "demo --secret-file" in taking

    @pytest.mark.parametrize("content", ["abc", "zz" * 32, SECRET * 100], ids=["short", "not hex", "long"])
    def test_a_bad_secret_file_is_refused(self, hexlog, tmp_path: Path, content: str) -> None:
        assert hexlog("init").returncode == 0
        (tmp_path / "secret.hex").write_text(content, encoding="utf-8")
        result = hexlog("session", "open", "--secret-file", "secret.hex")
        assert result.returncode == 2
        one_line(result.stderr)

    def test_a_secret_revealed_in_one_campaign_is_refused_in_another(self, hexlog, tmp_path: Path) -> None:
        """Its rolls would be known in advance: refused, nothing written, nothing kept."""
        (tmp_path / "secret.hex").write_text(SECRET, encoding="utf-8")
        for args in (
            ("init", "--campaign", "one"),
            ("session", "open", "--campaign", "one", "--secret-file", "secret.hex"),
            ("session", "close", "--campaign", "one"),
            ("init", "--campaign", "two"),
        ):
            assert hexlog(*args).returncode == 0
        with contextlib.closing(sqlite3.connect(tmp_path / "hexlog.db", isolation_level=None)) as raw:
            raw.execute("DELETE FROM projection_rows WHERE stream_id = 'campaign-one'")  # its ledger is folded anew
        keys = (tmp_path / "hexlog.db.keys").read_bytes()
        before = events_of(tmp_path / "hexlog.db")
        result = hexlog("session", "open", "--campaign", "two", "--secret-file", "secret.hex")
        assert result.returncode == 1
        assert "already used by an earlier session" in one_line(result.stderr)
        assert events_of(tmp_path / "hexlog.db") == before
        assert (tmp_path / "hexlog.db.keys").read_bytes() == keys


class TestDamagedLog:
    def test_a_write_on_a_damaged_tail_is_refused_naming_audit(self, hexlog, played: Path) -> None:
        """An edited last event: roll refuses (nothing written); log and state warn in one line and go on."""
        with contextlib.closing(sqlite3.connect(played, isolation_level=None)) as raw:
            raw.execute("DROP TRIGGER events_no_update")
            (last,) = raw.execute("SELECT MAX(stream_version) FROM events").fetchone()
            raw.execute(
                "UPDATE events SET data = replace(data, 'Ann', 'Bob') WHERE stream_version = 3 OR stream_version = ?",
                (last,),
            )
            raw.execute("UPDATE events SET time = '2026-01-01T00:00:00Z' WHERE stream_version = ?", (last,))
        before = events_of(played)
        for args in (("party", "add", "Cy"), ("session", "open")):
            result = hexlog(*args)
            assert result.returncode == 1
            line = one_line(result.stderr)
            assert "damaged" in line
            assert "hexlog audit" in line
        assert events_of(played) == before
        for args in (("log",), ("state",)):
            result = hexlog(*args)
            assert result.returncode == 0, result.stderr
            assert "warning" in one_line(result.stderr)
            assert "hexlog audit" in result.stderr

    @pytest.mark.usefixtures("played")
    def test_a_sound_log_gives_no_warning(self, hexlog) -> None:
        for args in (("log",), ("state",)):
            result = hexlog(*args)
            assert (result.returncode, result.stderr) == (0, "")


class TestLocks:
    def test_a_held_key_file_lock_is_waited_for_a_bounded_time(self, hexlog, played: Path) -> None:
        """session open waits at most the busy timeout for the key file's lock, and says what it waited for."""
        lock = os.open(played.with_name("hexlog.db.keys.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            before = events_of(played)
            result = hexlog("session", "open", env={"HEXLOG_BUSY_TIMEOUT": "0.1"})
        finally:
            os.close(lock)
        assert result.returncode == 1
        assert "key file lock" in one_line(result.stderr)
        assert events_of(played) == before


class TestCommitted:
    def test_a_commit_that_reports_an_error_after_committing_is_a_success(self, tmp_path: Path) -> None:
        """SQLite may report an error from COMMIT once the transaction is committed (a checkpoint that
        failed): the append returns its result, and the events are in the log."""
        store = SQLiteStore(tmp_path / "x.db")
        real = store._conn

        class CheckpointFails:
            def __getattr__(self, name: str) -> object:
                return getattr(real, name)

            def execute(self, sql: str, *args: object) -> object:
                cursor = real.execute(sql, *args)
                if sql == "COMMIT":
                    msg = "database or disk is full"
                    raise sqlite3.OperationalError(msg)
                return cursor

        store._conn = CheckpointFails()  # type: ignore[assignment]
        new = NewEvent(
            id="0" * 8 + "-0000-0000-0000-" + "0" * 12, source="s", type="t", time="t", schemaversion=1, data={}
        )
        result = store.append("s", [new], expected_version=0)
        store._conn = real
        assert result.last_version == 1
        assert store.stream_version("s") == 1
        store.close()

    def test_a_commit_that_fails_is_a_clean_refusal(self, tmp_path: Path) -> None:
        """A COMMIT that fails before committing: StoreWriteError, nothing in the log."""
        store = SQLiteStore(tmp_path / "x.db")
        real = store._conn

        class CommitFails:
            def __getattr__(self, name: str) -> object:
                return getattr(real, name)

            def execute(self, sql: str, *args: object) -> object:
                if sql == "COMMIT":
                    real.execute("ROLLBACK")
                    msg = "database or disk is full"
                    raise sqlite3.OperationalError(msg)
                return real.execute(sql, *args)

        store._conn = CommitFails()  # type: ignore[assignment]
        new = NewEvent(
            id="1" * 8 + "-0000-0000-0000-" + "0" * 12, source="s", type="t", time="t", schemaversion=1, data={}
        )
        with pytest.raises(StoreWriteError, match="disk is full"):
            store.append("s", [new], expected_version=0)
        store._conn = real
        assert store.stream_version("s") == 0
        store.close()


def _as_nobody(run, folder: Path, commands: list[tuple[str, ...]]) -> list[tuple[int, str, str]]:
    """Run commands in ``folder`` as the user nobody (a forked child that drops root), in process."""
    for args in commands:  # import every module the commands need while still root
        run(folder, *args[:1], "--help")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            os.setgid(65534)
            os.setuid(65534)
            results = []
            for args in commands:
                done = run(folder, *args)
                results.append((done.returncode, done.stdout, done.stderr))
            os.write(write, json.dumps(results).encode())
        except BaseException as err:  # noqa: BLE001 - told to the parent
            os.write(write, json.dumps([[99, "", repr(err)]]).encode())
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return [tuple(r) for r in json.loads(b"".join(chunks) or b"[]")]


@pytest.fixture
def public_folder():
    """A folder other users can reach (the test's own is under a folder only its owner may enter)."""
    folder = Path(tempfile.mkdtemp(prefix="hexlog-share-"))
    folder.chmod(0o755)
    yield folder
    for path in (folder, *folder.rglob("*")):
        with contextlib.suppress(OSError):
            path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to act as another user")
@pytest.mark.skipif(
    os.environ.get("HEXLOG_TEST_SUBPROCESS") == "1", reason="the other user runs hexlog in the forked test process"
)
class TestReadOnlyCopies:
    def test_a_copy_in_a_folder_the_user_may_not_write_can_be_read(self, hexlog_in, played, public_folder) -> None:
        """A player's copy (another user's folder, read-only files): audit, log, export, state and replay
        read it; a write command is refused in one line and nothing changes."""
        share = public_folder / "share"
        share.mkdir()
        names = [n for n in ("hexlog.db", "hexlog.db-wal") if played.with_name(n).exists()]
        for name in names:
            (share / name).write_bytes(played.with_name(name).read_bytes())
            (share / name).chmod(0o444)
        share.chmod(0o555)
        before = events_of(played)
        results = _as_nobody(
            hexlog_in,
            share,
            [("audit",), ("log",), ("export",), ("state",), ("replay",), ("rules", "show"), ("party", "add", "Zed")],
        )
        assert len(results) == 7, results
        assert results[0][0] == 3  # audit: INCOMPLETE (a supplied secret), nothing wrong
        for code, _, stderr in results[1:-1]:
            assert code == 0, stderr
            assert stderr == ""
        code, _, stderr = results[-1]
        assert code == 1
        assert "read-only" in one_line(stderr)
        assert sorted(p.name for p in share.iterdir()) == sorted(names)  # nothing written beside them either
        assert events_of(share / "hexlog.db") == before

    def test_session_open_on_a_read_only_database_keeps_no_secret(self, hexlog_in, played, public_folder) -> None:
        """The key file may be written but the database may not: the secret is taken back, nothing is recorded."""
        folder = public_folder / "mine"
        folder.mkdir()
        (folder / "hexlog.db").write_bytes(played.read_bytes())
        (folder / "hexlog.db").chmod(0o444)
        os.chown(folder, 65534, 65534)
        ((code, _, stderr),) = _as_nobody(hexlog_in, folder, [("session", "open")])
        assert code == 1, stderr
        assert "read-only" in one_line(stderr)
        keys = folder / "hexlog.db.keys"
        assert not keys.exists() or [k for k in json.loads(keys.read_text()) if "/" in k] == []


def test_the_entry_point_keeps_exit_70_for_bugs(monkeypatch) -> None:
    """A genuine bug still ends in one "internal error" line and exit 70 (the README documents it)."""
    from hexlog.service import cli  # noqa: PLC0415

    def broken(*_: object, **__: object) -> None:
        msg = "a bug"
        raise RuntimeError(msg)

    monkeypatch.setattr(cli, "app", broken)
    monkeypatch.setattr(sys, "argv", ["hexlog"])
    with pytest.raises(SystemExit) as ended:
        cli.main()
    assert ended.value.code == 70
