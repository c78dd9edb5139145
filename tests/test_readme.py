"""The README's promises: its offline verifier works, its commands are the real ones."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = ROOT / "tests" / "golden" / "sample-export.jsonl"


def _verifier(tmp_path: Path) -> Path:
    section = README[README.index("### Verify an export yourself") :]
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
        text = SAMPLE.read_text(encoding="utf-8").replace(
            '"faces": [3, 4], "modifier": 1, "total": 8', '"faces": [6, 6], "modifier": 1, "total": 13'
        )
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text, encoding="utf-8")
        result = _run(_verifier(tmp_path), bad)
        assert result.returncode == 1
        assert "hash does not match" in result.stdout
        assert "roll 0 should be [3, 4]" in result.stdout

    def test_the_sample_in_the_repository_is_the_published_vector(self):
        """tests/golden keeps an exact copy of the published known-answer file (its SHA-256 is pinned)."""
        assert (
            hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
            == "16ee3068b9ebb711f66a0e9fa36162099d4c84c93d32787b91c30988ea658df8"
        )
        assert SAMPLE.read_bytes().count(b"\n") == 7


class TestReadmeCommands:
    def test_the_quick_start_commands_are_present(self):
        """The demo command and the test command stand near the top."""
        top = README[: README.index("## The published schemes")]
        assert ".venv/bin/hexlog demo" in top
        assert ".venv/bin/pytest" in top
        assert ".venv/bin/pytest" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


class TestReadmeVerifierSessions:
    def _forge(self, tmp_path, transform):
        """A copy of the sample with its events changed by ``transform`` and the chain resealed."""
        events = transform([json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()])
        prev = "0" * 64
        for number, event in enumerate(events, start=1):
            event["streamversion"], event["prevhash"] = number, prev
            body = {k: v for k, v in event.items() if k != "hash"}
            text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            event["hash"] = prev = hashlib.sha256(text.encode("utf-8")).hexdigest()
        path = tmp_path / "forged.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        return path

    def test_a_roll_forged_after_the_close_is_caught(self, tmp_path):
        """A resealed roll after the reveal is outside an open session."""

        def add_late_roll(events):
            late = dict(events[2], id="forged", data={**events[2]["data"], "nonce": 4})
            return [*events, late]

        result = _run(_verifier(tmp_path), self._forge(tmp_path, add_late_roll))
        assert result.returncode == 1
        assert "outside an open session" in result.stdout

    def test_a_second_opening_of_the_same_session_is_caught(self, tmp_path):
        """Reopening a session id (which would hide its earlier rolls) is refused."""

        def reopen(events):
            return [*events[:4], dict(events[0], id="again"), *events[4:]]

        result = _run(_verifier(tmp_path), self._forge(tmp_path, reopen))
        assert result.returncode == 1
        assert "opened twice" in result.stdout

    def test_an_unrevealed_session_is_reported_as_not_verifiable(self, tmp_path):
        """Rolls of a session that never revealed its secret are named, not passed silently."""
        result = _run(_verifier(tmp_path), self._forge(tmp_path, lambda events: events[:-1]))
        assert result.returncode == 0
        assert "not verifiable yet (secret not revealed): session s1" in result.stdout


class TestReadmePython:
    def test_the_python_example_for_tool_authors_runs_as_printed(self, tmp_path):
        """The example under "For tool authors" runs in a fresh folder and prints what its comment says."""
        section = README[README.index("### For tool authors") :]
        code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
        assert code is not None, "the README lost its Python example"
        script = tmp_path / "example.py"
        script.write_text(code.group(1), encoding="utf-8")
        result = subprocess.run(  # noqa: S603 - our own script
            [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "[('check_surprise', ())]"

    def test_the_layout_names_every_top_level_folder_and_the_guide(self):
        """The layout section names each package folder and points to the contributors' guide."""
        layout = README[README.index("### Layout") : README.index("### Cost")]
        for folder in ("events/", "machine/", "projections/", "replay/", "service/", "kit/", "encounter/"):
            assert f"`{folder}`" in layout
        assert "CONTRIBUTING.md" in layout
        assert (ROOT / "CONTRIBUTING.md").exists()
