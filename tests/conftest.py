"""Shared fixtures: the installed ``hexlog`` command run as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEXLOG = Path(sys.executable).parent / "hexlog"


def run_hexlog(*args: str, cwd: Path, env: dict[str, str] | None = None, input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed command line in ``cwd`` and capture what a user would see."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("HEXLOG_")}
    full_env.update(env or {})
    return subprocess.run(  # noqa: S603 - our own console script
        [str(HEXLOG), *args], cwd=cwd, env=full_env, capture_output=True, text=True,
        input=input_text, timeout=120, check=False,
    )


@pytest.fixture
def hexlog(tmp_path: Path):
    """A function running ``hexlog ARGS`` in a fresh folder (the database is ./hexlog.db there)."""

    def run(*args: str, env: dict[str, str] | None = None, input_text: str | None = None) -> subprocess.CompletedProcess[str]:
        return run_hexlog(*args, cwd=tmp_path, env=env, input_text=input_text)

    return run


@pytest.fixture
def hexlog_in():
    """A function running ``hexlog ARGS`` in a given folder: ``hexlog_in(cwd, *args)``."""

    def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run_hexlog(*args, cwd=cwd, env=env)

    return run
