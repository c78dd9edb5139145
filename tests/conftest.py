"""Shared fixtures: the installed ``hexlog`` command run as a real subprocess."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings
from jsonschema import Draft202012Validator

import hexlog.machine.handler  # registers every procedure and its events
from hexlog.events import chain, codec, memory, releases, sqlite
from hexlog.events.base import TYPE_PREFIX
from hexlog.events.errors import CorruptLogError
from hexlog.events.sqlite_schema import COLUMNS
from hexlog.replay.export import read_export
from hexlog.service import cli

if TYPE_CHECKING:
    from collections.abc import Iterable

HEXLOG = Path(sys.executable).parent / "hexlog"

#: property tests draw the same examples in every run (a fixed seed per test, no example database):
#: ``HYPOTHESIS_PROFILE=explore`` draws new ones, to search further by hand
settings.register_profile("fixed", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fixed"))


#: ``HEXLOG_TEST_SUBPROCESS=1`` runs every command of the suite as its own process, as a user's shell does
#: (slower); by default they run in this process, through the same entry point, and the end-to-end scripts
#: (``test_cli_encounter``, ``test_demo``, ``test_crash``, the README's) keep their real processes.
IN_PROCESS = os.environ.get("HEXLOG_TEST_SUBPROCESS", "") != "1"


def run_hexlog(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the command line in ``cwd`` and capture what a user would see."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    full_env["XDG_DATA_HOME"] = str(cwd / ".data")  # a PostgreSQL database's key file stays in the test's folder
    full_env.update(env or {})
    if IN_PROCESS:
        return _run_in_process(args, cwd=cwd, env=full_env, input_text=input_text)
    return subprocess.run(  # noqa: S603 - our own console script
        [str(HEXLOG), *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        input=input_text,
        timeout=120,
        check=False,
    )


def simulated_json(*args: str, cwd: Path) -> Any:
    """``hexlog simulate ARGS --json`` on one process and on two: the same output, parsed."""
    one = run_hexlog(*args, "--json", "--jobs", "1", cwd=cwd)
    two = run_hexlog(*args, "--json", "--jobs", "2", cwd=cwd)
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    assert one.stdout == two.stdout
    return json.loads(one.stdout)


def _run_in_process(
    args: tuple[str, ...], *, cwd: Path, env: dict[str, str], input_text: str | None
) -> subprocess.CompletedProcess[str]:
    """``hexlog ARGS`` through its entry point in this process: its own folder, environment and streams."""
    streams = {name: io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n") for name in ("stdout", "stderr")}
    stdin = io.TextIOWrapper(io.BytesIO((input_text or "").encode("utf-8")), encoding="utf-8")
    saved = (dict(os.environ), Path.cwd(), sys.argv, sys.stdin, sys.stdout, sys.stderr, sys.excepthook)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv, sys.stdin, sys.stdout, sys.stderr = ["hexlog", *args], stdin, streams["stdout"], streams["stderr"]
    try:
        cli.main()
        code = 0
    except SystemExit as ended:
        if isinstance(ended.code, str):
            sys.stderr.write(ended.code + "\n")
        code = ended.code if isinstance(ended.code, int) else (0 if ended.code is None else 1)
    finally:
        os.environ.clear()
        os.environ.update(saved[0])
        os.chdir(saved[1])
        sys.argv, sys.stdin, sys.stdout, sys.stderr, sys.excepthook = saved[2:]
    text = {}
    for name, stream in streams.items():
        stream.flush()
        raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
        text[name] = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return subprocess.CompletedProcess([str(HEXLOG), *args], code, text["stdout"], text["stderr"])


@pytest.fixture
def hexlog(tmp_path: Path):
    """A function running ``hexlog ARGS`` in a fresh folder (the database is ./hexlog.db there)."""

    def run(
        *args: str, env: dict[str, str] | None = None, input_text: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run_hexlog(*args, cwd=tmp_path, env=env, input_text=input_text)

    yield run
    for db in sorted(tmp_path.rglob("*.db")):
        problems = schema_problems(written_events(db))
        assert not problems, f"{db.name}: events that break their published schema: {problems}"


@pytest.fixture
def unraised(monkeypatch: pytest.MonkeyPatch):
    """``unraised(TYPE)``: the releases' history (``hexlog.events.releases``) without the versions after the first of
    event type ``TYPE`` (``camp.night_checked``), for a test that writes that type at an older version in a log that
    is otherwise today's release's, to see the audit re-run it as that release ran it (a real log of that release
    writes every other type at its older versions too)."""

    def forget(name: str) -> None:
        kept = {key: number for key, number in releases.FIRST_WRITTEN.items() if key[0] != TYPE_PREFIX + name}
        assert len(kept) < len(releases.FIRST_WRITTEN), f"{name} was never raised"
        monkeypatch.setattr(releases, "FIRST_WRITTEN", kept)

    return forget


@pytest.fixture(scope="session")
def hexlog_in():
    """A function running ``hexlog ARGS`` in a given folder: ``hexlog_in(cwd, *args)``."""

    def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_hexlog(*args, cwd=cwd, env=env)

    return run


GOLDEN = Path(__file__).resolve().parent / "golden"


@functools.cache
def golden_payloads() -> tuple[tuple[str, int, dict[str, Any]], ...]:
    """(type, schema version, data) of every event of every golden log and every published event sample."""
    out = []
    for path in sorted((GOLDEN / "logs").glob("*.jsonl")):
        out += [(e.type, e.schemaversion, e.data) for e in read_export(path.read_bytes().split(b"\n"))]
    for path in sorted((GOLDEN / "events").glob("*.json")):
        sample = json.loads(path.read_text())
        out.append((sample["type"], sample["schemaversion"], sample["data"]))
    return tuple(out)


def secret_file(folder: Path, secret: str) -> str:
    """Keep ``secret`` in ``folder`` as a referee keeps one (a file its owner alone may read); the file's
    path, for ``--secret-file`` (a secret never goes on a command line, where other users can read it)."""
    path = folder / "session.secret"
    path.unlink(missing_ok=True)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as kept:
        kept.write(secret + "\n")
    return str(path)


def _copy_campaign(source: Path, target: Path) -> Path:
    """Copy a folder's ./hexlog.db (with its WAL files, if any) and key file into ``target``; the database path."""
    for name in ("hexlog.db", "hexlog.db-wal", "hexlog.db-shm", "hexlog.db.keys"):
        if (source / name).exists():
            shutil.copy2(source / name, target / name)
    return target / "hexlog.db"


def _play_once(folder: Path, script: tuple[tuple[str, ...], ...]) -> Path:
    """Run each invocation of ``script`` in ``folder`` (each must succeed); the folder."""
    for args in script:
        result = run_hexlog(*args, cwd=folder)
        assert result.returncode == 0, result.stderr
    return folder


@pytest.fixture(scope="session")
def copy_campaign():
    """``copy_campaign(source, target)``: copy a folder's database and key file; the new database path."""
    return _copy_campaign


@pytest.fixture(scope="session")
def play_once():
    """``play_once(folder, script)``: run a script of invocations there, each of which must succeed."""
    return _play_once


@functools.cache
def _validators() -> dict[str, tuple[int, Draft202012Validator]]:
    """The schema version and a validator of each published event type (events/schemas), by CloudEvents type."""
    found = {}
    for path in sorted((Path(__file__).resolve().parents[1] / "events" / "schemas").glob("*.json")):
        body = json.loads(path.read_text(encoding="utf-8"))
        found[body["x-hexlog-type"]] = (body["x-hexlog-schema-version"], Draft202012Validator(body))
    return found


def schema_problems(events: Iterable[tuple[str, int, dict[str, Any]]]) -> list[str]:
    """What breaks the published schemas among ``(type, schema version, data)`` triples.

    Data of an older schema version is checked as hexlog reads it (upcast to the current version);
    types outside the catalogue (the tests' own ``hexlog.test.*``) are left alone.
    """
    problems = []
    for kind, version, data in events:
        if kind not in _validators():
            continue
        current, validator = _validators()[kind]
        if version != current:
            try:
                data = codec.to_data(codec.from_data(kind, version, data))  # noqa: PLW2901 - as hexlog reads it
            except CorruptLogError as err:
                problems.append(f"{kind} v{version}: {err}")
                continue
        problems += [f"{kind} v{version} {e.json_path}: {e.message}" for e in validator.iter_errors(data)]
    return problems


def written_events(db: Path) -> list[tuple[str, int, dict[str, Any]]]:
    """``(type, schema version, data)`` of every event in a database whose hash still matches: the
    events hexlog wrote there (a test's deliberate damage, or a database that will not open, is left out)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            rows = conn.execute(f"SELECT {COLUMNS} FROM events ORDER BY position").fetchall()  # noqa: S608
    except sqlite3.Error:
        return []
    found = []
    for _, stream, version, event_id, kind, schema, source, time, data, prevhash, stored in rows:
        try:
            payload = json.loads(data)
            envelope = chain.seal(
                id=event_id,
                source=source,
                type=kind,
                subject=stream,
                time=time,
                data=payload,
                streamversion=version,
                schemaversion=schema,
                prevhash=prevhash,
            )
        except (ValueError, TypeError, RecursionError):
            continue
        if envelope.hash == stored and isinstance(payload, dict):
            found.append((kind, schema, payload))
    return found


@pytest.fixture(scope="session", autouse=True)
def _every_event_written_meets_its_schema():
    """Every event any test appends in this process is checked against its published JSON Schema."""

    def checking(sealing):
        def checked(stream_id, version, prevhash, events):
            problems = schema_problems((new.type, new.schemaversion, new.data) for new in events)
            assert not problems, problems
            return sealing(stream_id, version, prevhash, events)

        return checked

    def checking_appends(append):  # the memory store seals a batch when the log is read, not in its append
        def checked(store, stream_id, events, **kwargs):
            problems = schema_problems((new.type, new.schemaversion, new.data) for new in events)
            assert not problems, problems
            return append(store, stream_id, events, **kwargs)

        return checked

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memory.MemoryStore, "append", checking_appends(memory.MemoryStore.append))
        patch.setattr(sqlite, "sealed_rows", checking(chain.sealed_rows))
        yield


@pytest.fixture(scope="session")
def check_schemas():
    """``check_schemas(triples)``: what breaks the published schemas among ``(type, version, data)``."""
    return schema_problems


@pytest.fixture(scope="session")
def events_in():
    """``events_in(db)``: ``(type, version, data)`` of every event hexlog wrote in a database."""
    return written_events
