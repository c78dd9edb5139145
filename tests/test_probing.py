"""The probing as tests: random argument lists at every command, mutated exports at import and audit,
commands killed at random, two writers at once, and a file-size limit.

Every refusal is one line and a non-zero exit other than 70, with no traceback and the database as it
was; every command that says it succeeded is in the log. Property tests are seeded and bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlog.events.sqlite import SQLiteStore
from hexlog.replay.audit import audit_store
from hexlog.service import cli

from .conftest import secret_file

if TYPE_CHECKING:
    from collections.abc import Callable

SECRET = "3a" * 32
HEXLOG = Path(sys.executable).parent / "hexlog"
PROBE = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)


def check_refusal(result: subprocess.CompletedProcess[str]) -> None:
    """What any command, however malformed its input, must give: no crash, no traceback, and a refusal
    in one line."""
    assert result.returncode != 70, result.stderr
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    if result.returncode not in {0, 3}:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def rows(db: Path) -> list[tuple[object, ...]]:
    """Every event row of a database (none when it does not exist)."""
    if not db.exists():
        return []
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT * FROM events ORDER BY position").fetchall()


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory, play_once) -> Path:
    """A campaign on the exploration rules with a map, a member and an open session, and its export."""
    folder = tmp_path_factory.mktemp("table")
    (folder / "map.toml").write_text('[hex."1,1"]\nterrain = "meadow"\n', encoding="utf-8")
    play_once(
        folder,
        (
            ("init", "--ruleset", "explore"),
            ("session", "open", "--secret-file", secret_file(folder, SECRET)),
            ("party", "add", "Ann"),
            ("map", "load", "map.toml"),
            ("roll", "2d6"),
            ("roll", "d20", "--secret"),
            ("export", "--referee", "--out", "good.jsonl"),
        ),
    )
    return folder


def _commands() -> list[tuple[tuple[str, ...], list[str]]]:
    """Every leaf command of the command line, with its option names (the demo left out: a whole session)."""
    import typer.main  # noqa: PLC0415

    found: list[tuple[tuple[str, ...], list[str]]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in sorted(subcommands.items()):
                walk(sub, (*path, name))
            return
        if path and path[0] != "demo":
            names = [
                opt for p in getattr(command, "params", []) for opt in getattr(p, "opts", []) if opt.startswith("-")
            ]
            found.append((path, names))

    walk(typer.main.get_command(cli.app), ())
    return found


COMMANDS = _commands()
#: the commands random argument lists are thrown at: not those that run until stopped or for minutes by
#: design (``serve`` serves until interrupted, ``bench`` measures for minutes); their arguments are probed
#: by their own tests, and each still meets a FIFO and a bad campaign in ``TestEveryCommand``
LONG_RUNNING = {("serve",), ("bench",)}
PROBED = [(path, options) for path, options in COMMANDS if path not in LONG_RUNNING]
WORDS = [
    "", "-", "--", "0", "-1", "1", "7", "99999999999999999999999999", "1e308", "nan", "d6", "1d6+2", "100d1000",
    "3 turns", "1 day", "day 2 14:30", "N", "NE", "1,1", "9,9", "main", "other", "ose", "explore", "referee",
    "player", "Ann", "Bo", "m\udcffain", "a\nb", "a\x00b", "\u202e", "x" * 300, "good.jsonl", "map.toml",
    "/dev/zero", "fifo", ".", "missing.toml", "hexlog.db", "deep.toml", "--help-me",
]  # fmt: skip


@st.composite
def argument_lists(draw: st.DrawFn) -> list[str]:
    """A command's words followed by a few of its options and random values."""
    path, options = draw(st.sampled_from(PROBED))
    tokens = st.one_of(st.sampled_from(WORDS), st.sampled_from(options or ["--db"]), st.text(max_size=6))
    return [*path, *draw(st.lists(tokens, max_size=5))]


@pytest.fixture(scope="module")
def arena(table: Path, tmp_path_factory: pytest.TempPathFactory, copy_campaign) -> Path:
    """A folder with a copy of the table, a FIFO and a deeply nested TOML file, for random commands."""
    folder = tmp_path_factory.mktemp("arena")
    copy_campaign(table, folder)
    for name in ("good.jsonl", "map.toml"):
        (folder / name).write_bytes((table / name).read_bytes())
    (folder / "deep.toml").write_text("x = " + "[" * 900 + "]" * 900 + "\n", encoding="utf-8")
    os.mkfifo(folder / "fifo")
    return folder


class TestRandomArguments:
    @PROBE
    @given(args=argument_lists())
    def test_no_argument_list_crashes_or_half_writes(self, hexlog_in, arena: Path, args: list[str]) -> None:
        """No exit 70, no traceback, one-line errors; a refused command leaves the database as it was."""
        db = arena / "hexlog.db"
        before = rows(db)
        result = hexlog_in(arena, *args, env={"HEXLOG_BUSY_TIMEOUT": "0"})
        check_refusal(result)
        if result.returncode not in {0, 3}:
            assert rows(db) == before, args


class TestEveryCommand:
    def test_every_command_refuses_a_fifo_database_and_a_campaign_not_utf8(self, hexlog_in, arena: Path) -> None:
        """Each command, given a FIFO as its database (or as its word) or a campaign that is not UTF-8: a
        one-line refusal or its usual answer, never a hang, a crash or a change to the database."""
        db = arena / "hexlog.db"
        before = rows(db)
        for path, options in COMMANDS:
            tries = [[*path, "--db", "fifo"] if "--db" in options else [*path, "fifo"]]
            if "--campaign" in options:
                tries.append([*path, "--campaign", "m\udcffain"])
            for args in tries:
                result = hexlog_in(arena, *args, env={"HEXLOG_BUSY_TIMEOUT": "0"})
                check_refusal(result)
                assert result.returncode in {1, 2}, (args, result.stdout)
        assert rows(db) == before


def _mutations(lines: list[str]) -> st.SearchStrategy[bytes]:
    """An export with one of its lines, bytes or JSON values changed."""
    text = "".join(line + "\n" for line in lines).encode("utf-8")
    n = len(lines)
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=6,
    )

    def with_value(index: int, key: str, value: object) -> bytes:
        objs = [json.loads(line) for line in lines]
        target = objs[index]["data"] if key.startswith("data.") else objs[index]
        target[key.removeprefix("data.")] = value
        return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs).encode("utf-8", "surrogatepass")

    keys = st.sampled_from(["id", "time", "type", "subject", "source", "hash", "prevhash", "streamversion",
                            "schemaversion", "data", "data.session", "data.nonce", "data.faces", "data.x"])  # fmt: skip
    split = text.split(b"\n")[:n]
    at, line = st.integers(0, len(text) - 1), st.integers(0, n - 1)
    return st.one_of(
        st.builds(lambda i, b: text[:i] + bytes([b]) + text[i + 1 :], at, st.integers(0, 255)),  # a byte changed
        st.builds(lambda i: text[:i], at),  # cut short
        st.builds(lambda i: b"".join(x + b"\n" for j, x in enumerate(split) if j != i), line),  # a line left out
        st.builds(lambda i: text + split[i] + b"\n", line),  # a line again at the end
        st.builds(with_value, line, keys, json_values),  # a value replaced
        st.builds(lambda i, junk: text[:i] + junk + text[i:], at, st.binary(max_size=12)),  # bytes inserted
    )


class TestMutatedExports:
    @settings(PROBE, max_examples=25)
    @given(data=st.data())
    def test_import_and_audit_of_a_mutated_export_never_crash(
        self, hexlog_in, table: Path, tmp_path: Path, data
    ) -> None:
        """import refuses (one line, no database left) or imports a campaign that audits as the file does;
        audit --file gives a verdict or a one-line refusal."""
        lines = (table / "good.jsonl").read_text(encoding="utf-8").splitlines()
        mutated = data.draw(_mutations(lines))
        folder = tmp_path / f"m{len(list(tmp_path.iterdir()))}"
        folder.mkdir()
        (folder / "x.jsonl").write_bytes(mutated)
        audited = hexlog_in(folder, "audit", "--file", "x.jsonl")
        check_refusal(audited)
        imported = hexlog_in(folder, "import", "x.jsonl", "--db", "new.db")
        check_refusal(imported)
        if imported.returncode != 0:
            assert not list(folder.glob("new.db*")), imported.stderr
        else:
            assert audited.returncode in {0, 3}


def _forked(work: Callable[[], object]) -> tuple[int, int]:
    """Run ``work`` in a forked child, which has every module imported already (a command starts at
    once); the child's pid and the pipe its JSON result comes back through."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            os.write(write, json.dumps(work()).encode())
        finally:
            os._exit(0)
    os.close(write)
    return pid, read


def _result(pid: int, read: int) -> object:
    """What a forked child sent back (None when it was killed first)."""
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks)) if chunks else None


def _rolls(db: Path) -> list[dict[str, object]]:
    """The data of every roll in the log."""
    return [json.loads(r[8]) for r in rows(db) if r[4] == "hexlog.dice.rolled"]


def _audit_clean(db: Path) -> None:
    store = SQLiteStore(db, create=False)
    try:
        report = audit_store(store)
    finally:
        store.close()
    assert report.first_bad is None, report.text()


@pytest.mark.slow
class TestKilled:
    def test_roll_commands_killed_at_random_lose_nothing_acknowledged(self, tmp_path, play_once, hexlog_in) -> None:
        """Roll commands SIGKILLed at random moments: every roll a command acknowledged is in the log, none
        twice, the log audits clean, and the next command works."""
        play_once(tmp_path, (("init",), ("session", "open", "--secret-file", secret_file(tmp_path, SECRET))))
        chance = random.Random(11)  # noqa: S311 - when to kill, not a secret
        spans = []
        for probe in range(3):  # how long one command runs here (the longest of three, on a busy host too)
            started = time.monotonic()
            ran = _forked(
                lambda probe=probe: hexlog_in(tmp_path, "roll", "d6", "--purpose", f"probe {probe}").returncode
            )
            assert _result(*ran) == 0
            spans.append(time.monotonic() - started)
        takes = max(spans)  # kills fall within twice that: before, during and after the append
        acknowledged: list[str] = []
        for n in range(25):
            purpose = f"roll {n}"
            pid, read = _forked(
                lambda purpose=purpose: hexlog_in(tmp_path, "roll", "d20", "--purpose", purpose).returncode
            )
            time.sleep(chance.uniform(0, 2 * takes))
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            if _result(pid, read) == 0:
                acknowledged.append(purpose)
        db = tmp_path / "hexlog.db"
        recorded = [r["purpose"] for r in _rolls(db)]
        assert set(acknowledged) <= set(recorded)
        assert len(recorded) == len(set(recorded))
        assert 0 < len(acknowledged) < 25, "every command finished, or none did: no kill was probed"
        assert hexlog_in(tmp_path, "roll", "d6").returncode == 0
        _audit_clean(db)


@pytest.mark.slow
class TestTwoWriters:
    def test_two_processes_rolling_at_once_lose_and_double_nothing(self, tmp_path, play_once, hexlog_in) -> None:
        """Two processes roll into one campaign at once: every command succeeds, each roll once, nonces in order."""
        play_once(tmp_path, (("init",), ("session", "open", "--secret-file", secret_file(tmp_path, SECRET))))
        count = 25

        def writer(name: str) -> list[tuple[int, str]]:
            done = [hexlog_in(tmp_path, "roll", "d6", "--purpose", f"{name} {n}") for n in range(count)]
            return [(r.returncode, r.stderr) for r in done]

        children = [_forked(lambda name=name: writer(name)) for name in ("left", "right")]
        for pid, read in children:
            assert _result(pid, read) == [[0, ""]] * count
        recorded = _rolls(tmp_path / "hexlog.db")
        expected = sorted(f"{side} {n}" for side in ("left", "right") for n in range(count))
        assert sorted(r["purpose"] for r in recorded) == expected
        assert [r["nonce"] for r in recorded] == list(range(2 * count))
        _audit_clean(tmp_path / "hexlog.db")


class TestFileSizeLimit:
    def test_under_a_file_size_limit_a_command_is_recorded_iff_it_says_so(self, tmp_path, play_once, hexlog_in) -> None:
        """Commands run with RLIMIT_FSIZE near the database's size: one that fails wrote nothing, one that
        succeeds is in the log; none crashes."""
        play_once(tmp_path, (("init",), ("session", "open", "--secret-file", secret_file(tmp_path, SECRET))))
        db = tmp_path / "hexlog.db"
        outcomes = set()

        def limited(limit: int, args: tuple[str, ...]) -> tuple[int, str]:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
            done = hexlog_in(tmp_path, *args)
            return done.returncode, done.stderr

        for n in range(8):
            size = max(p.stat().st_size for p in tmp_path.glob("hexlog.db*"))
            limit = max(size + (n % 4) * 4096 - 4096, 1)
            args = ("roll", "d8", "--purpose", f"limited {n}") if n % 3 else ("party", "add", f"M{n}")
            before = rows(db)
            code, stderr = _result(*_forked(lambda limit=limit, args=args: limited(limit, args)))
            check_refusal(subprocess.CompletedProcess(args, code, "", stderr))
            after = rows(db)
            if code == 0:
                assert len(after) == len(before) + 1, stderr
            else:
                assert after == before, stderr
            outcomes.add(code)
        assert 0 in outcomes
        assert outcomes - {0}, "no command hit the limit"
        assert hexlog_in(tmp_path, "roll", "d6").returncode == 0
        store = SQLiteStore(db, create=False)
        try:
            assert audit_store(store).first_bad is None
        finally:
            store.close()
