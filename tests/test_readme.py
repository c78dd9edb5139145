"""The README's promises: its offline verifier works, its commands are the real ones."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = ROOT / "tests" / "golden" / "sample-export.jsonl"


def _verifier(tmp_path: Path) -> Path:
    section = README[README.index("### Verify an export yourself"):]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None, "the README lost its verifier"
    path = tmp_path / "verify.py"
    path.write_text(code.group(1), encoding="utf-8")
    return path


def _run(script: Path, export: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own script
        [sys.executable, str(script), str(export)], capture_output=True, text=True, check=False, timeout=60
    )


class TestReadmeVerifier:
    def test_the_verifier_accepts_the_published_sample(self, tmp_path):
        """The README's script verifies the sample export."""
        result = _run(_verifier(tmp_path), SAMPLE)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "verified" in result.stdout

    def test_the_verifier_catches_a_fudged_roll(self, tmp_path):
        """A roll changed after the fact (even with its hash recomputed) is caught."""
        text = SAMPLE.read_text(encoding="utf-8").replace('"faces": [3, 4], "modifier": 1, "total": 8', '"faces": [6, 6], "modifier": 1, "total": 13')
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text, encoding="utf-8")
        result = _run(_verifier(tmp_path), bad)
        assert result.returncode == 1
        assert "hash does not match" in result.stdout
        assert "roll 0 should be [3, 4]" in result.stdout

    def test_the_sample_in_the_repository_is_the_shared_vector(self):
        """tests/golden keeps an exact copy of the published known-answer file when it is at hand."""
        shared = ROOT.parent / "shared" / "vectors" / "sample-export.jsonl"
        if shared.exists():
            assert shared.read_bytes() == SAMPLE.read_bytes()
        assert SAMPLE.read_bytes().count(b"\n") == 7


class TestReadmeCommands:
    def test_the_quick_start_commands_are_present(self):
        """The demo command and the test command stand near the top."""
        top = README[:README.index("## The published schemes")]
        assert ".venv/bin/hexlog demo" in top
        assert ".venv/bin/pytest" in top
        assert ".venv/bin/pytest" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
