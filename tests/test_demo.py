"""``hexlog demo``: a whole session end to end, reproducible, and drawing on no randomness but the dice."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from hexlog.replay.rebuild import projections

if TYPE_CHECKING:
    from pathlib import Path

SECRET = bytes(range(32)).hex()
VOLATILE = ("id", "time", "hash", "prevhash")

#: runs the real command line with every source of randomness but the committed dice guarded from
#: the start, before hexlog is imported (so a ``from random import ...`` in rule code is caught too):
#: a call made from hexlog's own files raises; libraries may still use randomness for themselves
#: (rich seeds an id counter at import). uuid4 (os.urandom) makes event ids, not rules.
NO_RANDOMNESS = """
import importlib.util, os, random, secrets, sys

HEXLOG = tuple(
    path for name in ("events", "machine", "projections", "replay", "service")
    for path in importlib.util.find_spec(f"hexlog.{name}").submodule_search_locations
)

def guard(module, name):
    original = getattr(module, name)

    def guarded(*args, **kwargs):
        if os.path.abspath(sys._getframe(1).f_code.co_filename).startswith(HEXLOG):
            raise AssertionError(f"rule code drew randomness outside the committed dice: {module.__name__}.{name}")
        return original(*args, **kwargs)

    setattr(module, name, guarded)

for name in ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform",
             "getrandbits", "gauss", "triangular", "betavariate", "expovariate", "seed", "Random", "SystemRandom"):
    guard(random, name)
for name in ("token_bytes", "token_hex", "token_urlsafe", "choice", "randbelow", "randbits", "SystemRandom"):
    guard(secrets, name)

from hexlog.service.cli import main

sys.argv = ["hexlog", *sys.argv[1:]]
main()
"""


def _export(run, cwd: Path) -> list[dict]:
    result = run(cwd, "export", "--campaign", "demo")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def _demo(run, cwd: Path, seed: str = "table-7") -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    return run(cwd, "demo", "--secret-hex", SECRET, "--client-seed", seed)


class TestDemo:
    def test_the_demo_runs_a_whole_session_and_audits_clean(self, hexlog_in, tmp_path):
        """Open, a party of four, two encounters of different settings, close: audited and replayed."""
        result = _demo(hexlog_in, tmp_path)
        assert result.returncode == 0, result.stderr
        assert "Encounter 1" in result.stdout
        assert "dungeon" in result.stdout
        assert "wilderness" in result.stdout
        assert result.stdout.count("joins the party") == 4
        # the demo's secret is given, so the verdict says the rolls do not protect the players
        counts = re.search(r"audit: INCOMPLETE: (\d+) of (\d+) rolls re-derived", result.stdout)
        assert counts is not None, result.stdout
        assert counts.group(1) == counts.group(2) != "0"
        assert "session s1's secret was supplied to hexlog, not drawn by it" in result.stdout
        assert "replay: matches" in result.stdout
        assert "Traceback" not in result.stderr

    def test_the_demo_with_a_drawn_secret_is_verified_and_gives_a_receipt_that_holds(self, hexlog):
        """The README's demo command (secret drawn): VERIFIED, and its receipt checks with audit --expect."""
        result = hexlog("demo")
        assert result.returncode == 0, result.stderr
        assert "audit: VERIFIED:" in result.stdout
        receipt = re.search(r"receipt for the players: (demo@\d+:[0-9a-f]{16})", result.stdout)
        assert receipt is not None, result.stdout
        checked = hexlog("audit", "--campaign", "demo", "--expect", receipt.group(1))
        assert checked.returncode == 0, checked.stdout
        assert f"receipt {receipt.group(1)}: held" in checked.stdout

    def test_replay_after_the_demo_equals_the_live_projections(self, hexlog_in, tmp_path):
        """hexlog replay rebuilds every projection and finds it equal."""
        _demo(hexlog_in, tmp_path)
        result = hexlog_in(tmp_path, "replay", "--campaign", "demo")
        assert result.returncode == 0, result.stdout
        names = [projection.name for projection in projections()]
        assert names == ["table", "ledger"]
        assert result.stdout.count("equal (up to date)") == len(names)
        for name in names:
            assert f"  {name}: equal (up to date)" in result.stdout

    def test_twice_with_the_same_secret_and_seed_gives_the_same_events(self, hexlog_in, tmp_path):
        """Same event types and the same event data, ids, times and hashes aside."""
        _demo(hexlog_in, tmp_path / "one")
        _demo(hexlog_in, tmp_path / "two")
        one, two = _export(hexlog_in, tmp_path / "one"), _export(hexlog_in, tmp_path / "two")
        strip = lambda events: [{k: v for k, v in e.items() if k not in VOLATILE} for e in events]  # noqa: E731
        assert [e["type"] for e in one] == [e["type"] for e in two]
        assert strip(one) == strip(two)
        assert {e["id"] for e in one}.isdisjoint({e["id"] for e in two})

    def test_a_second_demo_in_the_same_database_gets_its_own_campaign(self, hexlog_in, tmp_path):
        """The README command can be run again without an error."""
        assert _demo(hexlog_in, tmp_path).returncode == 0
        again = _demo(hexlog_in, tmp_path)
        assert again.returncode == 0, again.stderr
        assert "campaign demo-2" in again.stdout

    def test_a_different_client_seed_changes_the_rolls(self, hexlog_in, tmp_path):
        """The players' seed really enters every roll."""
        _demo(hexlog_in, tmp_path / "one")
        _demo(hexlog_in, tmp_path / "two", "other words")
        faces = lambda events: [e["data"]["faces"] for e in events if e["type"] == "hexlog.dice.rolled"]  # noqa: E731
        assert faces(_export(hexlog_in, tmp_path / "one")) != faces(_export(hexlog_in, tmp_path / "two"))

    @pytest.mark.parametrize("secret", [SECRET, None])
    def test_no_rule_draws_randomness_but_the_committed_dice(self, tmp_path, secret):
        """With random and secrets made to raise, a whole demo still runs (given its secret)."""
        script = tmp_path / "guarded.py"
        script.write_text(NO_RANDOMNESS, encoding="utf-8")
        args = ["demo", "--client-seed", "table-7"] + (["--secret-hex", secret] if secret else [])
        result = subprocess.run(  # noqa: S603 - our own script
            [sys.executable, str(script), *args], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120
        )
        if secret is None:
            # without a given secret, only the session secret itself may (and must) come from secrets
            assert result.returncode != 0
            assert "outside the committed dice" in result.stderr
        else:
            assert result.returncode == 0, result.stderr
            assert "audit: INCOMPLETE" in result.stdout
