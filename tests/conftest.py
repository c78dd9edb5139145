"""Shared fixtures: the installed ``hexlog`` command run as a real subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HEXLOG = Path(sys.executable).parent / "hexlog"


def run_hexlog(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed command line in ``cwd`` and capture what a user would see."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    full_env.update(env or {})
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


@pytest.fixture
def hexlog(tmp_path: Path):
    """A function running ``hexlog ARGS`` in a fresh folder (the database is ./hexlog.db there)."""

    def run(
        *args: str, env: dict[str, str] | None = None, input_text: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return run_hexlog(*args, cwd=tmp_path, env=env, input_text=input_text)

    return run


@pytest.fixture
def hexlog_in():
    """A function running ``hexlog ARGS`` in a given folder: ``hexlog_in(cwd, *args)``."""

    def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_hexlog(*args, cwd=cwd, env=env)

    return run


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
