"""The README's promises: its offline verifier works, its commands are the real ones."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from hexlog.events import releases
from hexlog.machine import dice as hexdice

from .conftest import secret_file

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SAMPLE = ROOT / "tests" / "golden" / "sample-export.jsonl"
SAMPLE_V2 = ROOT / "tests" / "golden" / "sample-export-v2.jsonl"
GOLDEN_LOGS = sorted((ROOT / "tests" / "golden" / "logs").glob("*.jsonl"))
#: the golden exports of single procedures (a flight, a castle, a rest), beside the samples
GOLDEN_EXPORTS = sorted(set((ROOT / "tests" / "golden").glob("*.jsonl")) - {SAMPLE, SAMPLE_V2})
VERDICTS = {"VERIFIED": 0, "INCOMPLETE": 3, "FAILED": 1}
SECRET = "00" * 32
#: the id of an event added to a log by hand (a UUID, as an export's ids are)
AGAIN = "aaaaaaaa-0000-4000-8000-000000000000"


def _verifier(tmp_path: Path) -> Path:
    section = README[README.index("### Verify an export yourself") :]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None, "the README lost its verifier"
    path = tmp_path / "verify.py"
    path.write_text(code.group(1), encoding="utf-8")
    return path


def _run(script: Path, export: Path, *receipts: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own script
        [sys.executable, str(script), str(export), *receipts], capture_output=True, text=True, check=False, timeout=60
    )


def _verdict(result: subprocess.CompletedProcess[str]) -> tuple[str, int]:
    """The verdict a run ended with (the first word of its verdict line) and its exit code."""
    words = [line.split(":")[0] for line in result.stdout.splitlines() if line.split(":")[0] in VERDICTS]
    assert len(words) == 1, result.stdout + result.stderr
    assert VERDICTS[words[0]] == result.returncode, result.stdout
    return words[0], result.returncode


def _reseal(events: list[dict[str, object]], path: Path) -> Path:
    """Write ``events`` to ``path`` with every stream version, link and hash recomputed (hexlog-chain-v1)."""
    prev = "0" * 64
    for number, event in enumerate(events, start=1):
        event["streamversion"], event["prevhash"] = number, prev
        body = {k: v for k, v in event.items() if k != "hash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        event["hash"] = prev = hashlib.sha256(text.encode("utf-8")).hexdigest()
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    return path


class TestReadmeVerifier:
    @pytest.mark.parametrize(
        "case",
        ["no arguments", "a missing file", "a folder", "not JSON", "not an export", "empty", "only newlines", "deep"],
    )
    def test_the_verifier_refuses_what_is_not_an_export_in_one_line(self, tmp_path, case):
        """Exit 2 and one line on standard error, never a traceback: an export cut to nothing is not VERIFIED (as
        `hexlog audit --file` refuses it), and JSON nested past Python's recursion limit is not an export."""
        files = {
            "not JSON": "this is not json\n",
            "not an export": '{"type": "x"}\n',
            "empty": "",
            "only newlines": "\n\n",
            "deep": "[" * 100_000 + "]" * 100_000 + "\n",
        }
        if case in files:
            (tmp_path / "given.jsonl").write_text(files[case], encoding="utf-8")
        given = {"no arguments": [], "a missing file": [str(tmp_path / "nowhere.jsonl")], "a folder": [str(tmp_path)]}
        args = given.get(case, [str(tmp_path / "given.jsonl")])
        result = subprocess.run(  # noqa: S603 - our own script
            [sys.executable, str(_verifier(tmp_path)), *args], capture_output=True, text=True, check=False, timeout=60
        )
        assert (result.returncode, result.stdout) == (2, ""), result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert ("usage: python3 verify.py EXPORT" if case == "no arguments" else "verify.py: ") in result.stderr

    def test_the_verifier_accepts_the_published_sample(self, tmp_path):
        """The README's script verifies the sample export."""
        result = _run(_verifier(tmp_path), SAMPLE)
        assert _verdict(result) == ("VERIFIED", 0)
        assert result.stdout.splitlines() == ["VERIFIED"]

    def test_the_verifier_accepts_the_published_v2_sample(self, tmp_path):
        """The README's script verifies the hexlog-dice-v2 sample, public and referee lanes interleaved."""
        result = _run(_verifier(tmp_path), SAMPLE_V2)
        assert result.stdout.splitlines() == ["VERIFIED"]
        assert result.returncode == 0

    def test_the_verifier_catches_a_referee_roll_moved_into_the_public_lane(self, tmp_path):
        """Under v2 a secret roll recorded as public takes a public nonce and another key: caught."""
        events = [json.loads(line) for line in SAMPLE_V2.read_text(encoding="utf-8").splitlines()]
        secret_rolls = [e for e in events if e["data"].get("visibility") == "referee"]
        secret_rolls[0]["data"]["visibility"] = "public"
        result = _run(_verifier(tmp_path), _reseal(events, tmp_path / "moved.jsonl"))
        assert _verdict(result) == ("FAILED", 1)
        assert "where" in result.stdout or "should be" in result.stdout

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

    def test_the_verifier_catches_an_event_id_given_twice(self, tmp_path):
        """Two events of one id (each sealed in the chain): hexlog's audit names it, and so does the script."""
        events = [json.loads(line) for line in SAMPLE_V2.read_text(encoding="utf-8").splitlines()]
        events[2]["id"] = events[1]["id"]
        result = _run(_verifier(tmp_path), _reseal(events, tmp_path / "twice.jsonl"))
        assert _verdict(result) == ("FAILED", 1)
        assert f"line 3: event id {events[1]['id']} is given twice" in result.stdout.splitlines()

    def test_the_verifier_refuses_a_key_given_twice(self, tmp_path):
        """A second ``data`` in a line, after the one its hash covers, would be the one a lenient reader keeps: the
        line is not an export's (exit 2), as hexlog's audit refuses it."""
        lines = SAMPLE_V2.read_text(encoding="utf-8").splitlines()
        lines[1] = lines[1][:-1] + ', "data": {"forged": true}}'
        path = tmp_path / "key-twice.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = _run(_verifier(tmp_path), path)
        assert (result.returncode, result.stdout) == (2, ""), result.stdout
        assert "a key is given twice in one object" in result.stderr

    def test_the_sample_in_the_repository_is_the_published_vector(self):
        """tests/golden keeps an exact copy of the published known-answer file (its SHA-256 is pinned)."""
        assert (
            hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
            == "16ee3068b9ebb711f66a0e9fa36162099d4c84c93d32787b91c30988ea658df8"
        )
        assert SAMPLE.read_bytes().count(b"\n") == 7
        assert (
            hashlib.sha256(SAMPLE_V2.read_bytes()).hexdigest()
            == "acf7448bcf92e5169f4f64346562eec1c4a0db4c2edbc8afbcecc76e00096158"
        )


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
        return _reseal(events, tmp_path / "forged.jsonl")

    def test_a_roll_forged_after_the_close_is_caught(self, tmp_path):
        """A resealed roll after the reveal is outside an open session."""

        def add_late_roll(events):
            late = dict(events[2], id=f"{'f' * 8}-0000-4000-8000-{'0' * 12}", data={**events[2]["data"], "nonce": 4})
            return [*events, late]

        result = _run(_verifier(tmp_path), self._forge(tmp_path, add_late_roll))
        assert result.returncode == 1
        assert "outside an open session" in result.stdout

    def test_a_second_opening_of_the_same_session_is_caught(self, tmp_path):
        """Reopening a session id (which would hide its earlier rolls) is refused."""

        def reopen(events):
            return [*events[:4], dict(events[0], id=AGAIN), *events[4:]]

        result = _run(_verifier(tmp_path), self._forge(tmp_path, reopen))
        assert result.returncode == 1
        assert "opened twice" in result.stdout

    def test_a_second_session_reusing_a_secret_is_caught(self, tmp_path):
        """A session committing to an earlier session's secret (its rolls known in advance) is refused."""

        def reuse(events):
            opened, closed = events[0], events[-1]
            return [
                *events,
                dict(opened, id=AGAIN, data={**opened["data"], "session": "s2"}),
                dict(closed, id=AGAIN.replace("a", "b"), data={**closed["data"], "session": "s2"}),
            ]

        result = _run(_verifier(tmp_path), self._forge(tmp_path, reuse))
        assert _verdict(result) == ("FAILED", 1)
        assert "a secret reused" in result.stdout

    def test_an_unrevealed_session_is_reported_as_not_verifiable(self, tmp_path):
        """Rolls of a session that never revealed its secret are named, not passed silently."""
        result = _run(_verifier(tmp_path), self._forge(tmp_path, lambda events: events[:-1]))
        assert _verdict(result) == ("INCOMPLETE", 3)
        assert "session s1 is still open: its rolls can be verified once it closes" in result.stdout

    def test_a_client_seed_used_again_is_named_as_hexlog_names_it(self, hexlog, tmp_path):
        """Words given again let the referee draw secrets until one suited them: the later session is named by the
        script and by ``hexlog audit`` alike (INCOMPLETE both)."""
        hexlog("init")
        for words in ("our words", "new words", "our words"):
            for args in (("session", "open"), ("session", "seed", words), ("roll", "1d6"), ("session", "close")):
                assert hexlog(*args).returncode == 0
        assert hexlog("export", "--out", "log.jsonl").returncode == 0
        result = _run(_verifier(tmp_path), tmp_path / "log.jsonl")
        assert _verdict(result) == ("INCOMPLETE", 3)
        assert result.stdout.splitlines() == ["session s3 uses the client seed of the earlier session s1", "INCOMPLETE"]
        assert "session s3 uses the client seed of the earlier session s1" in hexlog("audit").stdout


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
        printed = re.search(r"It prints:\n\n```text\n(.*?)```", section, re.DOTALL)
        assert printed is not None, "the README lost what its example prints"
        expected = printed.group(1).splitlines()
        assert len(expected) == 4
        lines = result.stdout.splitlines()
        assert len(lines) == len(expected), result.stdout
        for line, shown in zip(lines, expected, strict=True):
            assert re.fullmatch(".*".join(re.escape(part) for part in shown.split("...")), line), (line, shown)
        exported = (tmp_path / "main.jsonl").read_text(encoding="utf-8").splitlines()
        assert json.loads(exported[0])["type"] == "hexlog.campaign.started"

    def test_the_layout_names_every_top_level_folder_and_the_guide(self):
        """The layout section names each package folder and points to the contributors' guide."""
        layout = README[README.index("### Layout") : README.index("### Cost")]
        for folder in ("events/", "machine/", "projections/", "replay/", "service/", "kit/", "encounter/"):
            assert f"`{folder}`" in layout
        assert "CONTRIBUTING.md" in layout
        assert (ROOT / "CONTRIBUTING.md").exists()


def _demo(run_hexlog, folder: Path, *args: str) -> Path:
    """Run the demo in ``folder`` and export it; the export."""
    for command in (("demo", *args), ("export", "--campaign", "demo", "--out", "demo.jsonl")):
        result = run_hexlog(folder, *command)
        assert result.returncode == 0, result.stdout + result.stderr
    return folder / "demo.jsonl"


def _played(run_hexlog, folder: Path, *scripts: tuple[str, ...]) -> Path:
    """A campaign played by ``scripts`` (each must succeed, "lose-key" deletes the key file), exported."""
    for command in (("init", "--campaign", "c"), *scripts, ("export", "--referee", "--out", "c.jsonl")):
        if command == ("lose-key",):
            (folder / "hexlog.db.keys").unlink()
            continue
        result = run_hexlog(folder, *command)
        assert result.returncode == 0, result.stdout + result.stderr
    return folder / "c.jsonl"


def _forged_roll(folder: Path, export: Path) -> Path:
    """``export`` with the faces of its first public roll changed and the chain resealed."""
    events = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    roll = next(e for e in events if e["type"] == "hexlog.dice.rolled")
    roll["data"]["faces"] = [(f % roll["data"]["sides"][k]) + 1 for k, f in enumerate(roll["data"]["faces"])]
    roll["data"]["total"] = sum(roll["data"]["faces"]) + roll["data"]["modifier"]
    return _reseal(events, folder / "forged.jsonl")


def _campaigns(run_hexlog, root: Path) -> dict[str, tuple[Path, tuple[str, ...]]]:
    """Every kind of test campaign, each an export and the receipts to check with it."""
    made: dict[str, tuple[Path, tuple[str, ...]]] = {}

    def folder(name: str) -> Path:
        path = root / name
        path.mkdir()
        return path

    for log in (*GOLDEN_LOGS, *GOLDEN_EXPORTS):
        made[f"golden {log.stem}"] = (log, ())
    made["sample v1"], made["sample v2"] = (SAMPLE, ()), (SAMPLE_V2, ())
    demo = _demo(run_hexlog, folder("demo"))
    made["demo"] = (demo, ())
    supplied = folder("supplied")
    made["demo, supplied secret"] = (_demo(run_hexlog, supplied, "--secret-file", secret_file(supplied, SECRET)), ())
    made["demo, forged roll"] = (_forged_roll(root / "demo", demo), ())
    first = json.loads(demo.read_text(encoding="utf-8").splitlines()[0])
    fingerprint = first["hash"][:16]
    made["demo, receipt kept"] = (demo, (f"demo@1:{fingerprint}",))
    made["demo, receipt not held"] = (demo, (f"demo@1:{'0' * 16}",))
    open_session = ("session", "open"), ("session", "seed", "table-7")
    rolls = ("roll", "2d6", "--purpose", "test"), ("roll", "1d20", "--purpose", "hidden", "--secret")
    made["open session"] = (_played(run_hexlog, folder("open"), *open_session, *rolls), ())
    made["no client seed"] = (
        _played(run_hexlog, folder("unseeded"), ("session", "open"), *rolls, ("session", "close")),
        (),
    )
    made["abandoned"] = (
        _played(
            run_hexlog,
            folder("abandoned"),
            *open_session,
            *rolls,
            ("lose-key",),
            ("session", "abandon", "--reason", "lost"),
        ),
        (),
    )
    lose = ("lose-key",), ("session", "abandon", "--reason", "lost")
    decoy = ("session", "open"), ("session", "seed", "decoy"), *lose
    reused = *open_session, *lose, *decoy, *open_session, *rolls, ("session", "close")
    made["seed of an abandoned session"] = (_played(run_hexlog, folder("reused"), *reused), ())
    made["closed, v2 lanes"] = (
        _played(run_hexlog, folder("closed"), *open_session, *rolls, *rolls, ("session", "close")),
        (),
    )
    return made


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory, hexlog_in):
    """The test campaigns, built once for the module."""
    return _campaigns(hexlog_in, tmp_path_factory.mktemp("campaigns"))


AGREEMENT = {
    "demo": "VERIFIED",
    "demo, supplied secret": "INCOMPLETE",
    "demo, forged roll": "FAILED",
    "demo, receipt kept": "VERIFIED",
    "demo, receipt not held": "FAILED",
    "open session": "INCOMPLETE",
    "no client seed": "INCOMPLETE",
    "abandoned": "INCOMPLETE",
    "seed of an abandoned session": "INCOMPLETE",
    "closed, v2 lanes": "VERIFIED",
    "sample v1": "VERIFIED",
    "sample v2": "VERIFIED",
}


class TestReadmeVerifierAgreesWithAudit:
    def test_every_test_campaign_gets_the_same_verdict_from_both(self, campaigns, hexlog_in, tmp_path):
        """On every test campaign, v1 and v2, the README's script and ``hexlog audit --file`` agree."""
        script = _verifier(tmp_path)
        seen = {}
        for name, (export, receipts) in campaigns.items():
            expect = [arg for receipt in receipts for arg in ("--expect", receipt)]
            audit = hexlog_in(tmp_path, "audit", "--file", str(export), *expect)
            offline = _run(script, export, *receipts)
            assert _verdict(audit) == _verdict(offline), (name, audit.stdout, offline.stdout)
            seen[name] = _verdict(audit)[0]
        assert {name: seen[name] for name in AGREEMENT} == AGREEMENT
        assert {seen[f"golden {log.stem}"] for log in (*GOLDEN_LOGS, *GOLDEN_EXPORTS)} <= {"VERIFIED", "INCOMPLETE"}

    def test_the_campaigns_cover_both_schemes(self, campaigns):
        """The agreement above is measured on hexlog-dice-v1 logs and hexlog-dice-v2 logs alike."""
        schemes = set()
        for export, _ in campaigns.values():
            for line in export.read_text(encoding="utf-8").splitlines():
                event = json.loads(line)
                if event["type"] == "hexlog.session.opened":
                    schemes.add(event["data"]["scheme"])
        assert schemes == {"hexlog-dice-v1", "hexlog-dice-v2"}


class TestReadmeVerifierNewDice:
    def _export(self, hexlog, tmp_path):
        for args in (
            ("init",),
            ("session", "open"),
            ("session", "seed", "our words"),
            ("party", "add", "Aldric"),
            ("roll", "4d6kh3"),
            ("roll", "2d20kl1", "--for", "Aldric"),
            ("roll", "1d8+1d6+2"),
            ("roll", "d%", "--secret"),
            ("roll", "4d6dl1+1d4-1"),
            ("session", "close"),
            ("export", "--out", "new.jsonl"),
        ):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stderr)
        return tmp_path / "new.jsonl"

    def test_the_verifier_re_derives_keep_drop_and_several_terms(self, hexlog, tmp_path):
        """Every die of every new form is re-derived offline, and the dropped dice and totals checked."""
        export = self._export(hexlog, tmp_path)
        result = _run(_verifier(tmp_path), export)
        assert result.stdout.splitlines() == ["VERIFIED"], result.stdout

    def test_the_verifier_catches_a_keep_that_dropped_the_wrong_die(self, hexlog, tmp_path):
        events = [json.loads(line) for line in self._export(hexlog, tmp_path).read_text(encoding="utf-8").splitlines()]
        keep = next(e for e in events if e["data"].get("notation") == "4d6kh3")
        faces = keep["data"]["faces"]
        best = max(range(4), key=lambda k: faces[k])
        keep["data"]["dropped"] = [best]
        keep["data"]["total"] = sum(f for k, f in enumerate(faces) if k != best)
        result = _run(_verifier(tmp_path), _reseal(events, tmp_path / "forged.jsonl"))
        assert _verdict(result) == ("FAILED", 1)
        assert "should be" in result.stdout


class TestReadmeVerifierRefusesForgedRolls:
    """Rolls no hexlog session can make, sealed into a real export's chain: each is a finding naming its line."""

    def _export(self, hexlog, tmp_path) -> list[dict[str, object]]:
        """A hexlog-dice-v2 session on a fixed secret and client seed: public and secret rolls, a keep."""
        for args in (
            ("init",),
            ("session", "open", "--secret-file", secret_file(tmp_path, SECRET)),
            ("session", "seed", "table-7"),
            ("roll", "2d6"),
            ("roll", "1d20", "--secret"),
            ("roll", "4d6kh3"),
            ("roll", "1d8+1"),
            ("session", "close"),
            ("export", "--out", "played.jsonl"),
        ):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stdout + done.stderr)
        return [json.loads(line) for line in (tmp_path / "played.jsonl").read_text(encoding="utf-8").splitlines()]

    @staticmethod
    def _roll(events, notation):
        """The line number and the data of the roll written ``notation`` (by its sides and modifier)."""
        sides, modifier = {"2d6": ([6, 6], 0), "4d6kh3": ([6] * 4, 0), "1d8+1": ([8], 1)}[notation]
        for number, event in enumerate(events, start=1):
            data = event["data"]
            if event["type"] == "hexlog.dice.rolled" and (data["sides"], data["modifier"]) == (sides, modifier):
                return number, data
        raise AssertionError(notation)

    def test_the_played_session_is_verified_but_for_its_supplied_secret(self, hexlog, tmp_path):
        """The export the forgeries start from: every roll re-derived, its one caveat the supplied secret."""
        export = _reseal(self._export(hexlog, tmp_path), tmp_path / "honest.jsonl")
        result = _run(_verifier(tmp_path), export)
        assert _verdict(result) == ("INCOMPLETE", 3)
        assert result.stdout.splitlines() == [
            "session s1's secret was supplied, not drawn: it could have been chosen",
            "INCOMPLETE",
        ]

    @pytest.mark.parametrize("lane", ["xyz", "public ", "Public", ""])
    def test_a_roll_moved_to_a_lane_of_the_referees_choosing_is_caught(self, hexlog, tmp_path, lane):
        """A public roll rewritten into another lane, as its nonce 0 with the faces that lane's key gives and the
        chain resealed, would let the referee pick among endless lanes: only public and referee are lanes."""
        events = self._export(hexlog, tmp_path)
        number, roll = self._roll(events, "1d8+1")
        seed = next(e["data"]["client_seed"] for e in events if e["type"] == "hexlog.session.client_seed_set")
        label = b"hexlog-dice-v2|" + lane.encode() + b"|" + seed.encode()
        key = hmac.new(bytes.fromhex(SECRET), label, hashlib.sha256).digest()
        roll["visibility"], roll["nonce"] = lane, 0
        roll["faces"] = list(hexdice.faces_for(key, 0, tuple(roll["sides"])))
        roll["total"] = sum(roll["faces"]) + roll["modifier"]
        forged = _reseal(events, tmp_path / "lane.jsonl")
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        problems = [line for line in result.stdout.splitlines() if line.startswith("line ")]
        assert problems == [f"line {number}: roll 0 is malformed: visibility {lane!r} is neither public nor referee"]
        assert _verdict(hexlog("audit", "--file", str(forged))) == ("FAILED", 1)

    @pytest.mark.parametrize(
        ("notation", "change", "says"),
        [
            ("1d8+1", {"sides": [0], "faces": [1], "total": 2}, "faces [1] on dice of sides [0] (2 to 1000)"),
            ("1d8+1", {"sides": [], "faces": [], "total": 1}, "0 faces for 0 dice (1 to 1000)"),
            ("1d8+1", {"sides": [1], "faces": [1], "total": 2}, "faces [1] on dice of sides [1] (2 to 1000)"),
            ("2d6", {"faces": [1, 2, 3], "total": 6}, "3 faces for 2 dice (1 to 1000)"),
            ("2d6", {"modifier": "0"}, "a nonce, side, face, dropped die, modifier or total that is not a whole"),
            ("2d6", {"sides": [6.0, 6]}, "a nonce, side, face, dropped die, modifier or total that is not a whole"),
            ("4d6kh3", {"notation": "9999d6kh3"}, "notation '9999d6kh3' does not fit its dice [6, 6, 6, 6]"),
            ("4d6kh3", {"notation": "4d8kh3"}, "notation '4d8kh3' does not fit its dice [6, 6, 6, 6]"),
            ("4d6kh3", {"notation": "4d6kh0"}, "notation '4d6kh0' does not fit its dice [6, 6, 6, 6]"),
            ("4d6kh3", {"notation": "4d6dl4"}, "notation '4d6dl4' does not fit its dice [6, 6, 6, 6]"),
        ],
    )
    def test_a_malformed_roll_is_a_finding_never_a_traceback(self, hexlog, tmp_path, notation, change, says):
        """A roll no scheme can derive (no dice, a die below two sides, a notation of other dice, a value that is
        not a whole number) fails, naming its line, where the script once crashed or verified it."""
        events = self._export(hexlog, tmp_path)
        number, roll = self._roll(events, notation)
        roll.update(change)
        forged = _reseal(events, tmp_path / "malformed.jsonl")
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        assert result.stderr == ""
        assert result.stdout.splitlines()[0].startswith(f"line {number}: roll {roll['nonce']} is malformed: {says}")
        assert _verdict(hexlog("audit", "--file", str(forged))) == ("FAILED", 1)

    def test_an_event_of_another_campaigns_source_is_caught(self, hexlog, tmp_path):
        """hexlog-chain-v1: an event's subject is the stream of its source's campaign."""
        events = self._export(hexlog, tmp_path)
        events[2]["source"] = "hexlog:other"
        forged = _reseal(events, tmp_path / "source.jsonl")
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        stream = events[2]["subject"]
        assert result.stdout.splitlines()[0] == f"line 3: subject {stream} is not the stream of source hexlog:other"
        assert _verdict(hexlog("audit", "--file", str(forged))) == ("FAILED", 1)

    @pytest.mark.parametrize(("attribute", "value"), [("specversion", "0.3"), ("datacontenttype", "text/plain")])
    def test_an_envelope_of_another_kind_is_not_an_export(self, hexlog, tmp_path, attribute, value):
        """An event that is not a CloudEvents 1.0 JSON event is refused as hexlog's audit refuses it (exit 2)."""
        events = self._export(hexlog, tmp_path)
        events[1][attribute] = value
        forged = _reseal(events, tmp_path / "envelope.jsonl")
        result = _run(_verifier(tmp_path), forged)
        assert (result.returncode, result.stdout) == (2, ""), result.stdout
        why = "specversion must be '1.0' and datacontenttype 'application/json'"
        assert result.stderr.splitlines() == [f"verify.py: {forged} is not a hexlog export (ValueError: line 2: {why})"]
        assert hexlog("audit", "--file", str(forged)).returncode == 2


class TestTheVerifierReadsLinesAsImportDoes:
    """``hexlog import`` and ``hexlog audit --file`` read an export's lines as UTF-8 JSON, one event a line, with
    nothing between two events: the script refuses what they refuse (exit 2, one line naming it), where it once
    read past a byte order mark and skipped empty lines, and takes the empty lines after the last event they take."""

    @staticmethod
    def _lines() -> list[bytes]:
        return SAMPLE.read_bytes().split(b"\n")[:-1]

    @pytest.mark.parametrize(
        ("case", "why"),
        [
            ("a byte order mark", "JSONDecodeError: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1"),
            ("an empty line inside", "ValueError: line 4: an empty line inside the export"),
            ("two empty lines inside", "ValueError: line 2: an empty line inside the export"),
            ("latin-1 text", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9"),
        ],
    )
    def test_what_import_refuses_the_script_refuses(self, hexlog, tmp_path, case, why):
        lines = self._lines()
        if case == "a byte order mark":
            lines[0] = b"\xef\xbb\xbf" + lines[0]
        elif case == "an empty line inside":
            lines.insert(3, b"")
        elif case == "two empty lines inside":
            lines[1:1] = [b"", b""]
        else:
            lines[0] = lines[0].replace(b'"source"', '"sourcé"'.encode("latin-1"))
        path = tmp_path / "given.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        result = _run(_verifier(tmp_path), path)
        assert (result.returncode, result.stdout) == (2, ""), result.stdout
        assert result.stderr.startswith(f"verify.py: {path} is not a hexlog export ({why}"), result.stderr
        assert len(result.stderr.splitlines()) == 1
        for refused in (
            hexlog("import", str(path), "--db", str(tmp_path / "x.db")),
            hexlog("audit", "--file", str(path)),
        ):
            assert refused.returncode == 2, refused.stdout + refused.stderr
            assert "is not a hexlog export" in refused.stderr

    @pytest.mark.parametrize(
        ("attribute", "value"),
        [
            ("id", "forged"),
            ("id", "00000000-0000-0000-0000-00000000001"),
            ("time", "yesterday at noon"),
            ("time", "2026-13-01T00:00:00Z"),
            ("time", "2026-11-29T20:00:00+24:00"),
            ("time", "\uff12\uff10\uff12\uff16-11-29T20:00:00Z"),
        ],
    )
    def test_an_id_not_a_uuid_or_a_time_not_a_date_time_is_refused(self, hexlog, tmp_path, attribute, value):
        """An export's ids are UUIDs and its times RFC 3339 date-times (a real day and time, an offset of at most
        23:59), sealed in the chain or not: the script refuses any other as hexlog import refuses it (exit 2)."""
        events = [json.loads(line) for line in self._lines()]
        events[2][attribute] = value
        path = _reseal(events, tmp_path / "given.jsonl")
        result = _run(_verifier(tmp_path), path)
        assert (result.returncode, result.stdout) == (2, ""), result.stdout
        why = "is not a UUID" if attribute == "id" else "is not an RFC 3339 date-time"
        assert (
            result.stderr
            == f"verify.py: {path} is not a hexlog export (ValueError: line 3: {attribute} {value!r} {why})\n"
        )
        for refused in (
            hexlog("import", str(path), "--db", str(tmp_path / "x.db")),
            hexlog("audit", "--file", str(path)),
        ):
            assert refused.returncode == 2, refused.stdout + refused.stderr
            assert f"line 3: {attribute} {value!r} {why}" in refused.stderr

    def test_empty_lines_after_the_last_event_are_taken_by_both(self, hexlog, tmp_path):
        path = tmp_path / "trailing.jsonl"
        path.write_bytes(b"\n".join(self._lines()) + b"\n\n\n")
        assert _run(_verifier(tmp_path), path).stdout.splitlines() == ["VERIFIED"]
        assert _verdict(hexlog("audit", "--file", str(path))) == ("VERIFIED", 0)

    def test_an_id_given_again_in_capitals_is_given_twice(self, hexlog, tmp_path):
        """An event id is a UUID, the same in capitals or not, as hexlog's audit reads it."""
        events = [json.loads(line) for line in self._lines()]
        events[1]["id"] = "abcdef01-0000-4000-8000-0000000000aa"
        events[2]["id"] = events[1]["id"].upper()
        forged = _reseal(events, tmp_path / "capitals.jsonl")
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        assert f"line 3: event id {events[2]['id']} is given twice" in result.stdout.splitlines()
        assert _verdict(hexlog("audit", "--file", str(forged))) == ("FAILED", 1)


#: a journey of the lost-day golden export: hexes started from and believed, a campaign started
JOURNEY = ROOT / "tests" / "golden" / "lost-day-v1.jsonl"


def _edited(export: Path, folder: Path, edit) -> tuple[Path, list[dict[str, object]]]:
    """``export`` with its events changed by ``edit`` (in place) and the chain resealed; the file and its events."""
    events = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    edit(events)
    return _reseal(events, folder / "forged.jsonl"), events


def _first(events: list[dict[str, object]], kind: str) -> tuple[int, dict[str, object]]:
    """The line number and the data of the first event of type ``hexlog.<kind>``."""
    return next((n, e["data"]) for n, e in enumerate(events, start=1) if e["type"] == f"hexlog.{kind}")


class TestReadmeVerifierFindsWhatTheAuditFinds:
    """What ``hexlog audit --file`` finds (and ``hexlog import`` refuses) beyond the dice, sealed into a real export's
    chain: the script finds it too, where it once said VERIFIED."""

    @pytest.mark.parametrize(
        ("field", "written", "audit_says"),
        [
            ("hex", "02,2", "is not written as the map writes it ('2,2')"),
            ("hex", "0,0x", "is not a hex"),
            ("hex", "10000,1", "is not a hex"),
            ("believed", "1 ,3", "is not written as the map writes it ('1,3')"),
            ("believed", "1,3\n", "is not written as the map writes it ('1,3')"),
        ],
    )
    def test_a_hex_not_written_as_the_map_writes_it(self, hexlog, tmp_path, field, written, audit_says):
        """The hex a journey starts from, or the one the party believes it moved into, written by hand."""
        kind = {"hex": "travel.started", "believed": "travel.moved"}[field]

        def edit(events):
            _first(events, kind)[1][field] = written

        forged, events = _edited(JOURNEY, tmp_path, edit)
        number = _first(events, kind)[0]
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        why = "is not a hex as the map writes it (col,row: two numbers 0 to 9999, no 0 before them, e.g. 3,4)"
        assert result.stdout.splitlines()[0] == f"line {number}: {field} {written!r} {why}"
        audit = hexlog("audit", "--file", str(forged))
        assert _verdict(audit) == ("FAILED", 1)
        assert f"{field} {written!r} {audit_says}" in audit.stdout

    def test_a_campaign_started_copied_from_another_campaign(self, hexlog, tmp_path):
        """The start of one campaign (its rules) copied into another's stream names the other campaign."""

        def edit(events):
            _first(events, "campaign.started")[1]["campaign"] = "other"

        forged, events = _edited(JOURNEY, tmp_path, edit)
        number, campaign = 1, events[0]["subject"].removeprefix("campaign-")
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        why = f"campaign.started names campaign 'other', but it is in the stream of campaign {campaign!r}"
        assert result.stdout.splitlines()[0] == f"line {number}: {why}"
        audit = hexlog("audit", "--file", str(forged))
        assert _verdict(audit) == ("FAILED", 1)
        assert why in audit.stdout

    @pytest.mark.parametrize(
        ("times", "says"),
        [
            ({4: "2020-01-01T00:00:00.000000Z"}, "at stream version 4 (2020-01-01T00:00:00.000000Z, before version 3"),
            (
                {5: "2026-11-29T20:00:00.5+00:00", 6: "2026-11-29T21:00:00+01:00", 8: "2026-11-29T19:00:00Z"},
                "at stream version 6 (2026-11-29T21:00:00+01:00, before version 5's 2026-11-29T20:00:00.5+00:00), and",
            ),
        ],
    )
    def test_a_wall_clock_going_back_is_noted_as_the_audit_notes_it(self, hexlog, tmp_path, times, says):
        """A clock set back (or events written by hand): the chain, not the time, orders the log, so the script notes
        it in the audit's words and its verdict stays as it is."""

        def edit(events):
            for version, time in times.items():
                events[version - 1]["time"] = time

        forged, _ = _edited(SAMPLE_V2, tmp_path, edit)
        result = _run(_verifier(tmp_path), forged)
        audit = hexlog("audit", "--file", str(forged))
        notes = [line for line in result.stdout.splitlines() if line.startswith("note: ")]
        assert notes == [line for line in audit.stdout.splitlines() if "wall-clock" in line]
        assert len(notes) == 1
        assert notes[0].startswith(f"note: the wall-clock time of its events goes back {says}")
        assert _verdict(result) == _verdict(audit) == ("VERIFIED", 0)

    def test_a_note_names_its_stream_where_the_file_holds_several(self, hexlog, tmp_path):
        """Two campaigns in one file (no export holds two, but a file may): the note names the stream, as the audit's
        does."""
        forged, _ = _edited(SAMPLE_V2, tmp_path, lambda events: events[3].update(time="2020-01-01T00:00:00Z"))
        both = tmp_path / "both.jsonl"
        both.write_text(JOURNEY.read_text(encoding="utf-8") + forged.read_text(encoding="utf-8"), encoding="utf-8")
        notes = [line for line in _run(_verifier(tmp_path), both).stdout.splitlines() if line.startswith("note: ")]
        audit = hexlog("audit", "--file", str(both)).stdout.splitlines()
        assert notes == [line for line in audit if "wall-clock" in line]
        assert notes[0].startswith("note: campaign-c1: the wall-clock time of its events goes back at stream version 4")


def _script_module(tmp_path: Path) -> dict[str, object]:
    """The README's script read as a module (its ``__main__`` part left alone): its names and values."""
    return runpy.run_path(str(_verifier(tmp_path)))


class TestReadmeVerifierHoldsTheReleaseOrder:
    """The releases that wrote a stream never go back (``hexlog.events.releases``): a session naming an earlier
    release than the stream shows, or an event re-labelled at a version its type had left behind, to be judged by
    older rules, is a finding of the script as of ``hexlog audit``."""

    @pytest.fixture
    def played(self, hexlog, tmp_path) -> list[dict[str, object]]:
        """A campaign of today's release with two sessions, each rolling."""

        def session(words: str) -> tuple[tuple[str, ...], ...]:
            return ("session", "open"), ("session", "seed", words), ("roll", "1d6"), ("session", "close")

        for args in (("init",), *session("our words"), *session("new words")):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stdout + done.stderr)
        assert hexlog("export", "--out", "played.jsonl").returncode == 0
        return [json.loads(line) for line in (tmp_path / "played.jsonl").read_text(encoding="utf-8").splitlines()]

    def test_the_script_knows_every_release_hexlog_knows(self, tmp_path):
        """Its table of the versions each release raised is hexlog's own (``RAISED``): a release that raises a
        version gives the README's script the new line too."""
        script = _script_module(tmp_path)
        assert script["FIRST_WRITTEN"] == releases.FIRST_WRITTEN
        assert script["LATEST"] == releases.CURRENT

    def test_the_played_campaign_is_verified(self, played, tmp_path):
        opened = [e["data"] for e in played if e["type"] == "hexlog.session.opened"]
        assert [data["release"] for data in opened] == [releases.CURRENT] * 2
        result = _run(_verifier(tmp_path), _reseal(played, tmp_path / "honest.jsonl"))
        assert result.stdout.splitlines() == ["VERIFIED"]

    @pytest.mark.parametrize(
        ("target", "edit"),
        [
            (("session.opened", 1), {"release": releases.CURRENT - 1}),
            (("session.opened", 0), {"release": 0}),
            (("session.opened", 0), {"release": releases.CURRENT + 1}),
            (("session.opened", 1), {"schemaversion": 2}),
            (("dice.rolled", 0), {"schemaversion": 3}),
        ],
    )
    def test_a_release_gone_back_is_a_finding(self, hexlog, played, tmp_path, target, edit):
        """A session naming the release before today's after one naming today's, or naming release 0 (before the
        release that raised ``session.opened`` to version 3), or one after the latest; a session re-labelled as of
        the releases that named none; a roll re-labelled at the version before, which today's release left behind."""
        kind, which = target
        at = [n for n, e in enumerate(played) if e["type"] == f"hexlog.{kind}"][which]
        event = played[at]
        if "release" in edit:
            event["data"].update(edit)
        else:
            event.update(edit)
            event["data"].pop("release", None)
        forged = _reseal(played, tmp_path / "forged.jsonl")
        result = _run(_verifier(tmp_path), forged)
        assert _verdict(result) == ("FAILED", 1)
        today, opened = releases.CURRENT, "hexlog.session.opened"
        says = {
            today - 1: f"names release {today - 1}, before release {today}, which the {opened} naming release {today} "
            "(at stream version 2) shows wrote the stream: an upgrade never goes back to an earlier release",
            0: f"names release 0, before release {releases.raised_at(opened, 3)}, which {opened} schema version 3 (at "
            "stream version 2) shows wrote the stream: an upgrade never goes back to an earlier release",
            today + 1: f"names release {today + 1}, after release {today}, the latest this script knows",
            2: "schema version 2 after schema version 3 (at stream version 2): older than a version this stream "
            "already holds",
            3: f"schema version 3 after the {opened} naming release {today} (at stream version 2), of release {today} "
            f"or later: every release from {releases.raised_at('hexlog.dice.rolled', 4)} on writes hexlog.dice.rolled "
            "at schema version 4 or later",
        }[next(iter(edit.values()))]
        assert result.stdout.splitlines()[0].startswith(f"line {at + 1}: hexlog.{kind} {says}"), result.stdout
        audit = hexlog("audit", "--file", str(forged))
        assert _verdict(audit) == ("FAILED", 1)
        assert f"version {at + 1}, event {event['id']}: schema: hexlog.{kind} " in audit.stdout


def _rolled_again(events: list[dict[str, object]], scheme: str, secret: bytes) -> None:
    """Every roll of ``events`` (one session's, plain dice) made again under ``scheme`` on ``secret``, as a referee
    who knows the secret would write them to change the scheme: faces, totals and the secret revealed."""
    seed = next(e["data"]["client_seed"] for e in events if e["type"] == "hexlog.session.client_seed_set")
    for event in events:
        data = event["data"]
        if event["type"] == "hexlog.dice.rolled":
            lane = hexdice.lane_of(scheme, data["visibility"])
            key = hexdice.lane_key(scheme, secret, seed, lane)
            data["faces"] = list(hexdice.faces_for(key, data["nonce"], tuple(data["sides"])))
            data["total"] = sum(data["faces"]) + data["modifier"]
        elif event["type"] == "hexlog.session.closed":
            data["secret"] = secret.hex()


class TestReadmeVerifierHoldsTheScheme:
    """A session rolls ``hexlog-dice-v1`` (one lane, where a secret roll moves the next public one) only as the
    releases that wrote it did: the script holds a session's scheme to the release its ``session.opened`` shows, as
    ``hexlog audit`` does, the rolls made again on the secret so that every one re-derives."""

    @pytest.fixture
    def played(self, hexlog, tmp_path) -> list[dict[str, object]]:
        """A campaign of today's release, one session on a given secret, two public rolls."""
        for args in (
            ("init",),
            ("session", "open", "--secret-file", secret_file(tmp_path, SECRET)),
            ("session", "seed", "table-7"),
            ("roll", "2d6"),
            ("roll", "1d20+1"),
            ("session", "close"),
            ("export", "--out", "played.jsonl"),
        ):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stdout + done.stderr)
        return [json.loads(line) for line in (tmp_path / "played.jsonl").read_text(encoding="utf-8").splitlines()]

    def _both(self, hexlog, tmp_path, events) -> tuple[list[str], str]:
        forged = _reseal(events, tmp_path / "forged.jsonl")
        result, audit = _run(_verifier(tmp_path), forged), hexlog("audit", "--file", str(forged))
        assert _verdict(result) == _verdict(audit) == ("FAILED", 1), result.stdout + audit.stdout
        return result.stdout.splitlines(), audit.stdout

    def test_one_lane_under_a_session_of_today(self, hexlog, tmp_path, played):
        opened = next(n for n, e in enumerate(played) if e["type"] == "hexlog.session.opened")
        played[opened]["data"]["scheme"] = hexdice.V1
        _rolled_again(played, hexdice.V1, bytes.fromhex(SECRET))
        found, audit = self._both(hexlog, tmp_path, played)
        why = (
            "session s1 rolls hexlog-dice-v1 (one lane for public and secret rolls), but its session.opened is of "
            "schema version 3, which every release writes with hexlog-dice-v2"
        )
        supplied = "session s1's secret was supplied, not drawn: it could have been chosen"
        assert found == [f"line {opened + 1}: {why}", supplied, "FAILED"]
        assert why in audit

    def test_a_session_of_today_relabelled_as_the_first_version(self, hexlog, tmp_path, played):
        """Version 1 does not say that the secret was supplied: the caveat would be gone."""
        opened = next(n for n, e in enumerate(played) if e["type"] == "hexlog.session.opened")
        played[opened]["schemaversion"] = 1
        for key in ("supplied", "release"):
            played[opened]["data"].pop(key)
        found, audit = self._both(hexlog, tmp_path, played)
        why = (
            "session s1 rolls hexlog-dice-v2, but its session.opened is of schema version 1, which no release that "
            "rolls hexlog-dice-v2 writes (they record whether the secret was supplied)"
        )
        assert found == [f"line {opened + 1}: {why}", "FAILED"]
        assert why in audit

    def test_one_lane_after_a_session_of_two(self, hexlog, tmp_path):
        """The v2 sample, then a session of one lane on its own secret and words: no release goes back to one lane."""
        first = [json.loads(line) for line in SAMPLE_V2.read_text(encoding="utf-8").splitlines()]
        second = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
        secret = bytes(range(1, 33))
        for number, event in enumerate(second, start=1):
            event["id"] = f"00000000-0000-4000-8000-{number:012d}"
            event["data"]["session"] = "s2"
        second[0]["data"]["commitment"] = hashlib.sha256(secret).hexdigest()
        second[1]["data"]["client_seed"] = "table-8"
        _rolled_again(second, hexdice.V1, secret)
        found, audit = self._both(hexlog, tmp_path, [*first, *second])
        why = (
            "session s2 rolls hexlog-dice-v1 (one lane for public and secret rolls) after a session of the campaign "
            "rolled hexlog-dice-v2: no release goes back to one lane"
        )
        assert found == [f"line {len(first) + 1}: {why}", "FAILED"]
        assert why in audit


class TestReadmeVerifierHoldsTheSessions:
    """A session's life as ``hexlog audit`` holds it: one open at a time, a ``hexlog-dice-v2`` client seed of 1 to 200
    printable ASCII characters (the rolls made again on the secret, so that every one re-derives)."""

    def test_a_session_opened_while_another_is_open(self, hexlog, tmp_path):
        """A second session opened inside the first, its secret its own: found, where it once passed unseen."""
        events = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
        inside = dict(events[0], id=AGAIN)
        inside["data"] = {**events[0]["data"], "session": "s2", "commitment": hashlib.sha256(b"other").hexdigest()}
        forged = _reseal([*events[:3], inside, *events[3:]], tmp_path / "forged.jsonl")
        result, audit = _run(_verifier(tmp_path), forged), hexlog("audit", "--file", str(forged))
        assert _verdict(result) == _verdict(audit) == ("FAILED", 1), result.stdout + audit.stdout
        assert result.stdout.splitlines()[0] == "line 4: session s2 opened while s1 is open"
        assert "session s2 opened while s1 is open" in audit.stdout

    @pytest.mark.parametrize("seed", ["tablé-7", "table\t7", "x" * 201])
    def test_a_client_seed_hexlog_dice_v2_does_not_take(self, hexlog, tmp_path, seed):
        events = [json.loads(line) for line in SAMPLE_V2.read_text(encoding="utf-8").splitlines()]
        at = next(n for n, e in enumerate(events) if e["type"] == "hexlog.session.client_seed_set")
        events[at]["data"]["client_seed"] = seed
        closed = next(e for e in events if e["type"] == "hexlog.session.closed")
        _rolled_again(events, hexdice.V2, bytes.fromhex(closed["data"]["secret"]))
        forged = _reseal(events, tmp_path / "forged.jsonl")
        result, audit = _run(_verifier(tmp_path), forged), hexlog("audit", "--file", str(forged))
        assert _verdict(result) == _verdict(audit) == ("FAILED", 1), result.stdout + audit.stdout
        why = "a hexlog-dice-v2 client seed must be 1 to 200 printable ASCII characters"
        assert result.stdout.splitlines() == [f"line {at + 1}: {why}", "FAILED"]
        assert why in audit.stdout
