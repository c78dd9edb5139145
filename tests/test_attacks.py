"""Issue 7's attacks, tried as a referee who owns the database and the key file would, through the command line.

Each class is one attack of the issue; each test shows it caught (a receipt fails, a verdict is
INCOMPLETE and names why, a command is refused and writes nothing) or made impossible (a secret roll
cannot move a public one). Where the players' side of a check matters, it is re-derived here from the
published schemes (``hexlog-dice-v1``, ``hexlog-dice-v2``, ``hexlog-chain-v1``), not from hexlog's code.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events import releases
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import FileKeeper, key_file_for

from .conftest import secret_file

if TYPE_CHECKING:
    from pathlib import Path

SECRET = bytes(range(32)).hex()
SEED = "table-7"
#: a receipt as the commands print it, with what the players read beside it
RECEIPT = re.compile(r"^receipt (\S+@\d+:[0-9a-f]{16}) \(", re.MULTILINE)
#: the last line of an encounter step: the phase reached and the steps offered next
NEXT = re.compile(r"^-> ([A-Z_]+); next: (.*)$", re.MULTILINE)
REACTION = re.compile(r"roll s\d+#(\d+) 2d6 -> (\d+)\+(\d+) = \d+ for encounter\.reaction \(for monsters\)")
SECRET_ROLL = re.compile(r"roll s\d+#r(\d+) 1d6 -> (\d+) = \d+ for wandering check \[secret\]")
#: a line of ``hexlog log``: its stream version, its time, then the event in words
VIEW_LINE = re.compile(r"^ *\d+  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  (?P<text>\S.*)$")
#: steps that move an encounter on towards its actions, in the order they are taken when offered
MOVING_ON = ("check-surprise", "determine-distance", "roll-initiative", "take-free-action")
#: the start of an encounter that the fixed secret and client seed take to ACTIONS in these steps
TO_ACTIONS = (
    ("encounter", "start", "--monsters", "3"),
    ("encounter", "check-surprise"),
    ("encounter", "determine-distance"),
    ("encounter", "roll-initiative"),
)


def at_the_table_in(folder: Path) -> tuple[tuple[str, ...], ...]:
    """The script that sits the table in ``folder``: the fixed secret (kept in a file there) and client
    seed, Ayla (CHA 9), an encounter taken to its actions (the party is surprised there: in the first round nobody of
    it speaks, so its reaction is rolled with no speaker)."""
    return (
        ("init",),
        ("session", "open", "--secret-file", secret_file(folder, SECRET)),
        ("session", "seed", SEED),
        ("party", "add", "Ayla", "--cha", "9"),
        *TO_ACTIONS,
    )


# ------------------------------------------------------------------------------------------------
# The players' side: the published schemes, written from the README's description of them
# ------------------------------------------------------------------------------------------------


def lane_key(secret_hex: str, client_seed: str, lane: str | None) -> bytes:
    """hexlog-dice-v2's key of ``lane`` (``public`` or ``referee``), or hexlog-dice-v1's one key (``None``)."""
    secret = bytes.fromhex(secret_hex)
    if lane is None:
        message = b"hexlog-dice-v1|" + client_seed.encode("utf-8")
    else:
        message = b"hexlog-dice-v2|" + lane.encode("ascii") + b"|" + client_seed.encode("utf-8")
    return hmac.new(secret, message, hashlib.sha256).digest()


def face(key: bytes, nonce: int, index: int, sides: int) -> int:
    """Die ``index`` of roll ``nonce``: the first 64-bit draw below the rejection bound, as a face."""
    counter = 0
    while True:
        digest = hmac.new(key, f"{nonce}:{index}:{counter}".encode(), hashlib.sha256).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < (2**64 // sides) * sides:
            return x % sides + 1
        counter += 1


def reseal(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with their chain recomputed by hexlog-chain-v1, as a referee rewriting the log would."""
    previous = "0" * 64
    sealed = []
    for event in events:
        envelope = {k: v for k, v in event.items() if k != "hash"} | {"prevhash": previous}
        canonical = json.dumps(envelope, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        previous = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
        sealed.append(envelope | {"hash": previous})
    return sealed


def read_export(path: Path) -> list[dict[str, Any]]:
    """The CloudEvents objects of an export, one a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def write_export(path: Path, events: list[dict[str, Any]]) -> None:
    """Write events as an export: one JSON object a line."""
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")


# ------------------------------------------------------------------------------------------------
# The database and what the commands print
# ------------------------------------------------------------------------------------------------


def count_events(db: Path) -> int:
    """How many events the database holds."""
    with closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def tamper(db: Path, sql: str) -> None:
    """Change the events table as its owner can: the guard triggers dropped first."""
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        conn.execute(sql)


def receipt_of(stdout: str) -> str:
    """The one receipt a command printed."""
    found = RECEIPT.findall(stdout)
    assert len(found) == 1, stdout
    return found[0]


def reach(hexlog, wanted: str, *start: str) -> list[str]:
    """Start an encounter and take the steps that move it on until ``wanted`` is offered; its offer."""
    ran = hexlog("encounter", "start", *start)
    for _ in range(8):
        assert ran.returncode == 0, ran.stdout + ran.stderr
        offered = NEXT.findall(ran.stdout)[-1][1]
        offer = {entry.split()[0]: entry.split() for entry in offered.split(", ")}
        if wanted in offer:
            return offer[wanted]
        step = next(s for s in MOVING_ON if s in offer)
        ran = hexlog("encounter", *offer[step])
    msg = f"{wanted} was never offered"
    raise AssertionError(msg)


def ok(result) -> str:
    """The standard output of a command that must succeed."""
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


# ------------------------------------------------------------------------------------------------
# Campaigns played once per module
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def at_the_table_once(tmp_path_factory, play_once):
    """A fixed secret and client seed, Ayla (CHA 9), an encounter taken to its actions; the session open."""
    folder = tmp_path_factory.mktemp("table")
    return play_once(folder, at_the_table_in(folder))


@pytest.fixture
def at_the_table(at_the_table_once, tmp_path, copy_campaign):
    """A copy of that campaign in the test's own folder."""
    return copy_campaign(at_the_table_once, tmp_path)


@pytest.fixture(scope="module")
def before_close_once(tmp_path_factory, play_once):
    """A drawn secret, the client seed, a public, a secret and a public roll; the session still open."""
    script = (
        ("init",),
        ("session", "open"),
        ("session", "seed", SEED),
        ("party", "add", "Ayla", "--cha", "9"),
        ("roll", "2d6", "--purpose", "reaction of the innkeeper"),
        ("roll", "d20", "--secret", "--purpose", "wandering check"),
        ("roll", "d20", "--purpose", "save vs dragon breath"),
    )
    return play_once(tmp_path_factory.mktemp("before-close"), script)


@pytest.fixture
def before_close(before_close_once, tmp_path, copy_campaign):
    """A copy of that campaign in the test's own folder."""
    return copy_campaign(before_close_once, tmp_path)


@pytest.fixture(scope="module")
def a_save_rolled_once(tmp_path_factory, play_once):
    """A drawn secret, the client seed and the dragon's saving throw; the session open, its key file kept."""
    script = (
        ("init",),
        ("session", "open"),
        ("session", "seed", SEED),
        ("roll", "d20", "--purpose", "the dragon's save"),
    )
    return play_once(tmp_path_factory.mktemp("save"), script)


@pytest.fixture
def a_save_rolled(a_save_rolled_once, tmp_path, copy_campaign):
    """A copy of that campaign in the test's own folder."""
    return copy_campaign(a_save_rolled_once, tmp_path)


# ------------------------------------------------------------------------------------------------
# The attacks
# ------------------------------------------------------------------------------------------------


class TestRewrittenHistory:
    """A whole alternative history: rewritten, resealed, imported; only a receipt kept at the table can tell."""

    @pytest.fixture
    def rewritten(self, hexlog, tmp_path):
        """A session with a drawn secret played and closed, then its two saving throws swapped and the chain resealed.

        The rewrite is what the issue's referee did: every face still re-derives from the revealed
        secret, every decision re-runs, the chain is whole; only the history differs (the bad save is
        now the good one). Returns the receipts the players noted and the honest and forged exports.
        """
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        noted = {"seed": receipt_of(ok(hexlog("session", "seed", SEED)))}
        ok(hexlog("party", "add", "Ayla", "--cha", "9"))
        noted["save"] = receipt_of(ok(hexlog("roll", "d20", "--purpose", "save vs dragon breath")))
        ok(hexlog("roll", "d20", "--purpose", "save vs poison"))
        react = reach(hexlog, "react", "--monsters", "3")
        # nobody speaks: the drawn secret may have the party surprised, and a surprised party has no speaker
        assert "encounter.reaction" in ok(hexlog("encounter", *react))
        noted["close"] = receipt_of(ok(hexlog("session", "close")))
        assert receipt_of(ok(hexlog("receipt"))) == noted["close"]
        ok(hexlog("export", "--out", "honest.jsonl"))
        events = read_export(tmp_path / "honest.jsonl")
        saves = [e for e in events if e["type"] == "hexlog.dice.rolled" and e["data"]["purpose"].startswith("save")]
        assert len(saves) == 2
        saves[0]["data"]["purpose"], saves[1]["data"]["purpose"] = "save vs poison", "save vs dragon breath"
        write_export(tmp_path / "forged.jsonl", reseal(events))
        return noted

    def test_only_a_receipt_kept_at_the_table_catches_the_resealed_rewrite(self, hexlog, rewritten):
        """The forged export imports and audits VERIFIED: the chain, the faces and the decisions all check out.

        audit --expect with the receipt of the rewritten roll, or of the close, fails naming that version,
        in the imported database and in the forged file (audit --file) alike. The honest log holds every
        receipt; the forged one still holds the receipt noted before the rewritten rolls (a receipt pins
        the history up to it, no further).
        """
        given = [arg for receipt in rewritten.values() for arg in ("--expect", receipt)]
        honest = hexlog("audit", *given)
        assert honest.returncode == 0, honest.stdout + honest.stderr
        assert "VERIFIED" in honest.stdout
        for receipt in rewritten.values():
            assert f"receipt {receipt}: held" in honest.stdout
        honest_file = hexlog("audit", "--file", "honest.jsonl", "--expect", rewritten["close"])
        assert honest_file.returncode == 0, honest_file.stdout + honest_file.stderr
        imported = hexlog("import", "forged.jsonl", "--db", "forged.db")
        assert imported.returncode == 0, imported.stderr
        unchecked = hexlog("audit", "--db", "forged.db")
        assert unchecked.returncode == 0, unchecked.stdout + unchecked.stderr
        assert "VERIFIED" in unchecked.stdout
        before = hexlog("audit", "--db", "forged.db", "--expect", rewritten["seed"])
        assert before.returncode == 0, before.stdout + before.stderr
        assert f"receipt {rewritten['seed']}: held" in before.stdout
        for noted in (rewritten["save"], rewritten["close"]):
            version = noted.split("@")[1].split(":")[0]
            for where in (("--db", "forged.db"), ("--file", "forged.jsonl")):
                result = hexlog("audit", *where, "--expect", noted)
                assert result.returncode == 1, result.stdout + result.stderr
                assert "FAILED" in result.stdout
                assert f"audit FAILED at campaign-main version {version}: receipt {noted}: " in result.stderr
                assert f"receipt {noted}: version {version} of main has fingerprint" in result.stderr
                assert f"campaign-main version {version}: receipt: receipt {noted}: " in result.stdout
                assert "event :" not in result.stdout
                assert "the history up to it was rewritten" in result.stderr
                assert "Traceback" not in result.stderr


class TestSharedId:
    def test_an_export_whose_events_share_an_id_is_refused_in_one_line_naming_both(self, hexlog, tmp_path):
        """It was refused with the store's words ('another append recorded these events first (UNIQUE constraint
        failed: events.id)'), which name neither event."""
        ok(hexlog("init"))
        ok(hexlog("party", "add", "Ayla"))
        ok(hexlog("party", "add", "Bran"))
        ok(hexlog("export", "--out", "honest.jsonl"))
        events = read_export(tmp_path / "honest.jsonl")
        events[-1]["id"] = events[1]["id"]
        write_export(tmp_path / "forged.jsonl", reseal(events))
        imported = hexlog("import", "forged.jsonl", "--db", "forged.db")
        assert imported.returncode == 1
        assert imported.stdout == ""
        shared = events[1]["id"]
        assert imported.stderr == (
            f"hexlog: error: forged.jsonl does not verify at line {len(events)} (event {shared}): "
            f"event id {shared!r} is also the id of version 2; nothing imported\n"
        )
        assert not (tmp_path / "forged.db").exists() or count_events(tmp_path / "forged.db") == 0


class TestCutTail:
    """A cut tail: the last events, the reveal among them, deleted (and re-rolled)."""

    @pytest.mark.usefixtures("before_close")
    def test_a_cut_export_fails_the_receipt_printed_at_close(self, hexlog, tmp_path):
        """Cut after the close: --expect names the missing version; without it the verdict is INCOMPLETE."""
        closed = receipt_of(ok(hexlog("session", "close")))
        assert closed.startswith("main@8:")
        ok(hexlog("export", "--out", "full.jsonl"))
        full = hexlog("audit", "--file", "full.jsonl", "--expect", closed)
        assert full.returncode == 0, full.stdout + full.stderr
        assert "VERIFIED" in full.stdout
        write_export(tmp_path / "cut.jsonl", read_export(tmp_path / "full.jsonl")[:-2])
        caught = hexlog("audit", "--file", "cut.jsonl", "--expect", closed)
        assert caught.returncode == 1
        assert "audit FAILED at campaign-main version 8" in caught.stderr
        assert f"receipt {closed}: the log of main ends at version 6, before 8" in caught.stderr
        unchecked = hexlog("audit", "--file", "cut.jsonl")
        assert unchecked.returncode == 3, unchecked.stdout + unchecked.stderr
        assert "INCOMPLETE" in unchecked.stdout
        assert "VERIFIED" not in unchecked.stdout
        assert "session s1 is still open: its 2 rolls can be verified once it closes" in unchecked.stdout

    def test_a_cut_and_rerolled_database_fails_the_receipts_the_players_kept(self, hexlog, before_close):
        """The owner deletes the save and the reveal, rolls the save again: both receipts kept fail."""
        save = receipt_of(ok(hexlog("receipt", "--at", "7")))
        closed = receipt_of(ok(hexlog("session", "close")))
        tamper(before_close, "DELETE FROM events WHERE stream_version >= 7")
        ok(hexlog("roll", "d20", "--purpose", "save vs dragon breath"))
        unchecked = hexlog("audit")
        assert unchecked.returncode == 3, unchecked.stdout + unchecked.stderr
        assert "INCOMPLETE" in unchecked.stdout
        assert "VERIFIED" not in unchecked.stdout
        assert "session s1 is still open" in unchecked.stdout
        missing = hexlog("audit", "--expect", closed)
        assert missing.returncode == 1
        assert f"receipt {closed}: the log of main ends at version 7, before 8" in missing.stderr
        rerolled = hexlog("audit", "--expect", save)
        assert rerolled.returncode == 1
        assert f"receipt {save}: version 7 of main has fingerprint" in rerolled.stderr
        assert "Traceback" not in missing.stderr + rerolled.stderr


class TestSteeringWithSecretRolls:
    """Secret rolls cannot move a public roll to another nonce under hexlog-dice-v2."""

    def test_three_secret_rolls_leave_the_reaction_unchanged(
        self, hexlog, hexlog_in, at_the_table_once, tmp_path, copy_campaign
    ):
        """Same secret, same client seed, two campaigns: with and without three secret d6 before the reaction.

        The reaction's 2d6 come out the same, from public nonce 3 (two surprise d6 that surprise both
        sides, so that neither rolls initiative, and the distance before it), as hexlog-dice-v2's public
        lane gives them; the secret rolls take the referee lane's nonces 0 to 2. Under hexlog-dice-v1's
        single lane the reaction would have taken nonce 6 and other faces: the steering the issue describes.
        """
        copy_campaign(at_the_table_once, tmp_path)
        steered = tmp_path / "steered"
        steered.mkdir()
        copy_campaign(at_the_table_once, steered)
        secret_faces = []
        for _ in range(3):
            rolled = SECRET_ROLL.search(
                ok(hexlog_in(steered, "roll", "d6", "--secret", "--purpose", "wandering check"))
            )
            assert rolled is not None
            secret_faces.append((int(rolled[1]), int(rolled[2])))
        plain = REACTION.search(ok(hexlog("encounter", "react")))
        after_secrets = REACTION.search(ok(hexlog_in(steered, "encounter", "react")))
        assert plain is not None
        assert after_secrets is not None
        assert after_secrets.groups() == plain.groups()
        public = lane_key(SECRET, SEED, "public")
        assert plain.groups() == ("3", str(face(public, 3, 0, 6)), str(face(public, 3, 1, 6)))
        referee = lane_key(SECRET, SEED, "referee")
        assert secret_faces == [(n, face(referee, n, 0, 6)) for n in range(3)]
        one_lane = lane_key(SECRET, SEED, None)
        assert [face(one_lane, 3, k, 6) for k in range(2)] != [face(one_lane, 6, k, 6) for k in range(2)]

    @pytest.mark.usefixtures("at_the_table")
    def test_the_audit_re_derives_both_lanes(self, hexlog):
        """Once the session closes, the secret rolls and the reaction all re-derive, each from its own lane.

        The only caveat left is the supplied secret these tests need.
        """
        for _ in range(3):
            ok(hexlog("roll", "d6", "--secret", "--purpose", "wandering check"))
        ok(hexlog("encounter", "react"))
        ok(hexlog("session", "close"))
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        assert "7 of 7 rolls re-derived" in result.stdout
        said, hand = result.stdout.split("decided by the referee's hand:\n")
        started, hand = hand.split("\n", 1)  # the encounter's monsters, as the referee gave them
        assert started.endswith(
            "encounter 1 met 3 monsters at 120 ft a turn, the referee's count and speed (the "
            "evasion, a pursuit and a chase read them)"
        ), started
        caveats = [line for line in said.splitlines() if line.startswith("  - ")]
        supplied = (
            "  - session s1's secret was supplied to hexlog, not drawn by it: "
            "whoever supplied it could have chosen its 7 rolls"
        )
        assert caveats == [supplied]
        # the secret rolls no step made are the referee's: each could have been spent to pass over a step's roll
        assert re.match(
            r"  - stream version \d+: 3 free rolls of session s1 made by the referee outside any procedure step "
            r"\(#r0, #r1, #r2\)",  # a secret roll's purpose is the referee's
            hand,
        ), hand
        secret_roll = ok(hexlog("audit", "--roll", "0", "--secret"))
        assert 'key = HMAC-SHA256(secret, "hexlog-dice-v2|referee|table-7")' in secret_roll
        assert 'HMAC-SHA256(key, "0:0:0")' in secret_roll
        reaction = ok(hexlog("audit", "--roll", "3"))
        assert "encounter.reaction" in reaction
        assert 'key = HMAC-SHA256(secret, "hexlog-dice-v2|public|table-7")' in reaction
        assert 'HMAC-SHA256(key, "3:0:0")' in reaction


class TestChosenSecret:
    """A secret the referee could have chosen: supplied, chosen after seeing the seed, or without a seed at all."""

    def test_a_supplied_secret_is_reported_incomplete_naming_it(self, hexlog):
        """A secret from --secret-file is recorded as supplied: the audit is INCOMPLETE (exit 3) naming it;
        --strict exit 1."""
        ok(hexlog("init"))
        ok(hexlog("session", "open", "--secret-file", "-", input_text=SECRET))
        ok(hexlog("session", "seed", SEED))
        ok(hexlog("roll", "3d20", "--purpose", "three saves"))
        ok(hexlog("session", "close"))
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        assert "INCOMPLETE" in result.stdout
        assert "VERIFIED" not in result.stdout
        assert (
            "session s1's secret was supplied to hexlog, not drawn by it: "
            "whoever supplied it could have chosen its 1 roll"
        ) in result.stdout
        strict = hexlog("audit", "--strict")
        assert strict.returncode == 1
        assert "audit INCOMPLETE, a failure under --strict" in strict.stderr
        ok(hexlog("export", "--out", "supplied.jsonl"))
        offline = hexlog("audit", "--file", "supplied.jsonl")
        assert offline.returncode == 3
        assert "secret was supplied" in offline.stdout

    def test_a_drawn_secret_with_a_client_seed_is_verified(self, hexlog):
        """The same session with the secret drawn by hexlog is VERIFIED (exit 0, even under --strict).

        So the caveat above is the supplied secret's.
        """
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        ok(hexlog("session", "seed", SEED))
        ok(hexlog("roll", "3d20", "--purpose", "three saves"))
        ok(hexlog("session", "close"))
        result = hexlog("audit", "--strict")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "VERIFIED" in result.stdout

    @pytest.mark.parametrize("decoys", [0, 2])
    def test_a_session_using_the_seed_of_an_abandoned_one_is_reported(self, hexlog, tmp_path, decoys):
        """Abandon a session once the players' seed is known, open another (even after decoy sessions with other
        seeds in between), set the same seed: INCOMPLETE, named."""
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        ok(hexlog("session", "seed", SEED))
        (tmp_path / "hexlog.db.keys").unlink()
        ok(hexlog("session", "abandon", "--reason", "key file lost"))
        for n in range(decoys):
            ok(hexlog("session", "open"))
            ok(hexlog("session", "seed", f"decoy {n}"))
            (tmp_path / "hexlog.db.keys").unlink()
            ok(hexlog("session", "abandon", "--reason", "key file lost again"))
        ok(hexlog("session", "open"))
        ok(hexlog("session", "seed", SEED))
        ok(hexlog("roll", "3d20", "--purpose", "three saves"))
        ok(hexlog("session", "close"))
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        assert "INCOMPLETE" in result.stdout
        assert (
            f"session s{2 + decoys} uses the client seed of the abandoned session s1: "
            "its secret could have been chosen knowing that seed"
        ) in result.stdout
        assert hexlog("audit", "--strict").returncode == 1

    def test_a_session_without_a_client_seed_is_reported(self, hexlog):
        """No client seed: the referee could have picked the secret; INCOMPLETE, named, never VERIFIED."""
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        ok(hexlog("roll", "d20", "--purpose", "save"))
        ok(hexlog("session", "close"))
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        assert "VERIFIED" not in result.stdout
        assert (
            "session s1 has no client seed from the players: "
            "the referee could have chosen its secret, and so its 1 roll"
        ) in result.stdout

    @pytest.mark.parametrize(
        ("seed", "letter"),
        [("t\u0430ble-7", "U+0430"), ("tabl\u0435-7", "U+0435"), ("\u0442able-7", "U+0442")],
        ids=["cyrillic-a", "cyrillic-ie", "cyrillic-te"],
    )
    def test_a_client_seed_with_look_alike_letters_is_refused(self, hexlog, tmp_path, seed, letter):
        """A seed typed with Cyrillic look-alikes is refused and nothing is written; the ASCII seed is then taken."""
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        before = count_events(tmp_path / "hexlog.db")
        result = hexlog("session", "seed", seed)
        assert result.returncode == 2
        assert "client seed must be printable ASCII" in result.stderr
        assert letter in result.stderr
        assert "Traceback" not in result.stderr
        assert count_events(tmp_path / "hexlog.db") == before
        assert "client seed none" in hexlog("receipt").stdout
        assert f"client seed '{SEED}'" in ok(hexlog("session", "seed", SEED))

    @pytest.mark.parametrize("seed", [f"{SEED} ", f" {SEED}", "table  7", "  "])
    def test_a_client_seed_with_spaces_nobody_can_see_is_refused(self, hexlog, tmp_path, seed):
        """Spaces before, after or doubled between the words would give whoever types the seed variants to choose
        among: refused (exit 2), nothing written; the words as said are then taken."""
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        before = count_events(tmp_path / "hexlog.db")
        result = hexlog("session", "seed", seed)
        assert result.returncode == 2, result.stdout + result.stderr
        assert result.stderr == (
            f"hexlog: error: a client seed has one space between words and none before or after them ({seed!r})\n"
        )
        assert count_events(tmp_path / "hexlog.db") == before
        assert f"client seed '{SEED}'" in ok(hexlog("session", "seed", SEED))


class TestWithheldReveal:
    """Abandoning a session to hide a roll one dislikes."""

    def test_abandon_is_refused_while_the_key_file_holds_the_secret(self, hexlog, a_save_rolled):
        """Refused, nothing appended, the session still open: the referee must close, which reveals the secret."""
        before = receipt_of(ok(hexlog("receipt")))
        count = count_events(a_save_rolled)
        result = hexlog("session", "abandon", "--reason", "I don't like that roll")
        assert result.returncode == 1
        assert "the key file still holds the secret of session s1: close the session" in result.stderr
        assert "Traceback" not in result.stderr
        assert count_events(a_save_rolled) == count
        assert receipt_of(ok(hexlog("receipt"))) == before
        assert "session s1: open" in ok(hexlog("state"))

    @pytest.mark.usefixtures("a_save_rolled")
    def test_once_the_key_file_is_lost_the_abandonment_is_a_withheld_reveal(self, hexlog, tmp_path):
        """The abandon works, and every verdict names the withheld reveal: INCOMPLETE, never VERIFIED."""
        (tmp_path / "hexlog.db.keys").unlink()
        ok(hexlog("session", "abandon", "--reason", "key file lost"))
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        assert "VERIFIED" not in result.stdout
        assert "session s1 was abandoned, a withheld reveal: its 1 roll can never be verified" in result.stdout
        assert hexlog("audit", "--strict").returncode == 1
        assert "a withheld reveal (key file lost)" in ok(hexlog("log", "--view", "player"))
        ok(hexlog("export", "--out", "abandoned.jsonl"))
        offline = hexlog("audit", "--file", "abandoned.jsonl")
        assert offline.returncode == 3
        assert "withheld reveal" in offline.stdout


class TestQuietOk:
    """An open session of many rolls: one short summary and INCOMPLETE, not OK and a line per roll."""

    def test_an_open_session_of_200_rolls_is_summed_up_in_a_few_lines(self, hexlog, tmp_path):
        """200 public rolls (made through the Python API on the same database and key file): exit 3, under 15 lines."""
        ok(hexlog("init"))
        ok(hexlog("session", "open"))
        ok(hexlog("session", "seed", SEED))
        db = tmp_path / "hexlog.db"
        store = SQLiteStore(db)
        try:
            handler = Handler(store, FileKeeper(key_file_for(db)))
            for n in range(200):
                handler.execute("main", c.RollDice(expression="d20", purpose=f"attack {n}"))
        finally:
            store.close()
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        lines = result.stdout.splitlines()
        assert len(lines) < 15, result.stdout
        assert "0 of 200 rolls re-derived" in result.stdout
        assert "session s1 is still open: its 200 rolls can be verified once it closes" in result.stdout
        assert "VERIFIED" not in result.stdout


class TestOverridesAndLookAlikes:
    """What the referee decides by hand is shown, and a free roll cannot pass for a procedure's."""

    @pytest.mark.parametrize(
        "purpose",
        [
            "encounter.reaction",
            "encounter.reaction ",
            "\u0435ncounter.reaction",
            "encounter.r\u0435action",
            "Encounter.Reaction",
            "ENCOUNTER.REACTION",
            "encounter.surprise.party",
        ],
        ids=["exact", "trailing-space", "cyrillic-ie-first", "cyrillic-ie-inside", "title-case", "upper-case", "other"],
    )
    def test_a_free_roll_cannot_take_a_procedures_purpose_or_a_look_alike(self, hexlog, at_the_table, purpose):
        """Refused with the reserved name, nothing appended."""
        before = count_events(at_the_table)
        result = hexlog("roll", "2d6", "--purpose", purpose)
        assert result.returncode == 2
        assert "belongs to a procedure's own rolls" in result.stderr
        assert "Traceback" not in result.stderr
        assert count_events(at_the_table) == before

    @pytest.mark.usefixtures("at_the_table")
    def test_a_free_roll_of_its_own_name_is_taken(self, hexlog):
        """A free roll named otherwise is rolled as usual."""
        assert "for reaction of the innkeeper" in ok(hexlog("roll", "2d6", "--purpose", "reaction of the innkeeper"))

    @pytest.mark.usefixtures("at_the_table")
    def test_a_modifier_and_a_distance_given_by_hand_show_in_the_audit(self, hexlog, hexlog_in, tmp_path, play_once):
        """The audit's account of the referee's hand names the distance set and the +10; a plain encounter only the
        monsters the referee gave it."""
        ok(hexlog("encounter", "react"))
        by_hand = tmp_path / "by-hand"
        by_hand.mkdir()
        play_once(by_hand, (*at_the_table_in(by_hand)[:5], ("encounter", "check-surprise")))
        assert "by referee: the referee set 30 ft" in ok(
            hexlog_in(by_hand, "encounter", "determine-distance", "--value", "30")
        )
        ok(hexlog_in(by_hand, "encounter", "roll-initiative"))
        assert "+10 situational" in ok(hexlog_in(by_hand, "encounter", "react", "--modifier", "10"))
        unmarked = hexlog("audit")
        assert unmarked.returncode == 3, unmarked.stdout + unmarked.stderr
        started = "the referee's count and speed"  # the encounter's monsters: the referee's in either
        (plain,) = unmarked.stdout.split("decided by the referee's hand:\n", 1)[1].splitlines()
        assert started in plain, unmarked.stdout
        result = hexlog_in(by_hand, "audit")
        assert result.returncode == 3, result.stdout + result.stderr
        hand = result.stdout.split("decided by the referee's hand:\n", 1)[1].splitlines()
        assert len(hand) == 3, result.stdout
        assert started in hand[0], hand
        assert re.fullmatch(
            r"  - stream version \d+: a distance of 30 ft set by the referee instead of rolled", hand[1]
        ), hand
        assert re.fullmatch(
            r"  - stream version \d+: a reaction modifier of \+10 given by the referee \(reaction total \d+\)", hand[2]
        ), hand

    def test_house_rules_are_named_as_such_in_state_receipts_and_the_audit(self, hexlog, tmp_path):
        """rules change with a house-rules file: "ose + house rules, hash ..." wherever the name is shown."""
        (tmp_path / "house.toml").write_text('[options]\ninitiative_tie = "reroll"\n', encoding="utf-8")
        ok(hexlog("init"))
        assert "rules: Old-School Essentials (seed 000) [ose], hash" in ok(hexlog("state"))
        ok(hexlog("session", "open"))
        changed = ok(hexlog("rules", "change", "--ruleset", "ose", "--rules", "house.toml", "--reason", "our table"))
        rules_hash = re.search(r"\], hash ([0-9a-f]{64})", changed)
        assert rules_hash is not None, changed
        named = f"ose + house rules, hash {rules_hash[1][:8]}..."
        assert named in changed
        assert f"[{named}]" in ok(hexlog("state"))
        assert f"rules {named}; release {releases.CURRENT})" in ok(hexlog("session", "seed", SEED))
        ok(hexlog("roll", "d20", "--purpose", "save"))
        ok(hexlog("session", "close"))
        assert f"rules changed to {named}" in ok(hexlog("log", "--view", "player"))
        result = hexlog("audit")
        assert result.returncode == 0, result.stdout + result.stderr
        assert "decided by the referee's hand:" in result.stdout
        assert (
            "stream version 3: rules changed to ose, with house rules over ose: "
            "options.initiative_tie simultaneous -> reroll"
        ) in result.stdout


#: free text each command takes, with the words its refusal names
FIELDS = {
    "purpose": (("roll", "d6", "--purpose"), "purpose holds the control or format character"),
    "reason": (("session", "abandon", "--reason"), "reason holds the control or format character"),
    "note": (("encounter", "conclude", "--note"), "note holds the control or format character"),
    "name": (("party", "add"), "name holds the control or format character"),
    "campaign": (("init", "--campaign"), "campaign id"),
}
#: what could forge a line or steer a terminal
BREAKERS = {"newline": "\n", "carriage-return": "\r", "escape": "\x1b[2K", "line-separator": "\u2028"}


class TestForgedLine:
    """Free text that could print a line of its own: refused when given, shown harmlessly when forged in a log."""

    @pytest.mark.parametrize("breaker", BREAKERS.values(), ids=BREAKERS.keys())
    @pytest.mark.parametrize("field", FIELDS, ids=FIELDS.keys())
    def test_free_text_that_could_forge_a_line_is_refused(self, hexlog, at_the_table, tmp_path, field, breaker):
        """One clear line of error, no traceback, nothing appended (the key file is lost first for the abandon)."""
        args, needle = FIELDS[field]
        if field == "reason":
            (tmp_path / "hexlog.db.keys").unlink()
        before = count_events(at_the_table)
        result = hexlog(*args, f"goblins{breaker}roll s1#9 1d20 -> 20 = 20 for save")
        assert result.returncode == 2, result.stdout + result.stderr
        assert result.stderr.startswith("hexlog: error: ")
        assert needle in result.stderr
        assert result.stderr.count("\n") == 1, result.stderr
        assert breaker not in result.stderr.removesuffix("\n")
        assert "Traceback" not in result.stderr
        assert count_events(at_the_table) == before
        if field != "campaign":
            assert f"U+{ord(breaker[0]):04X}" in result.stderr

    @pytest.mark.usefixtures("at_the_table")
    def test_a_log_forged_to_hold_such_text_prints_one_line_per_event(self, hexlog, tmp_path):
        """An export rewritten to carry fake roll lines in a purpose and a fake reveal in a reason, resealed and
        imported: the player's and the referee's views still print one line per event (then the receipt),
        and a line shows "roll s1#" only for a roll.
        """
        ok(hexlog("roll", "d20", "--purpose", "save"))
        (tmp_path / "hexlog.db.keys").unlink()
        ok(hexlog("session", "abandon", "--reason", "key file lost"))
        ok(hexlog("export", "--out", "honest.jsonl"))
        events = read_export(tmp_path / "honest.jsonl")
        fake = "roll s1#9 1d20 -> 20 = 20 for save"
        for event in events:
            if event["type"] == "hexlog.dice.rolled" and event["data"]["purpose"] == "save":
                event["data"]["purpose"] = f"save\n{fake}\r{fake}\x1b[1A\x1b[2K{fake}\u2028{fake}"
            if event["type"] == "hexlog.session.abandoned":
                event["data"]["reason"] = f"lost\nsession s1 closed; secret revealed: {'0' * 64}\u2028{fake}"
        write_export(tmp_path / "forged.jsonl", reseal(events))
        imported = hexlog("import", "forged.jsonl", "--db", "forged.db")
        assert imported.returncode == 0, imported.stderr
        rolls = sum(event["type"] == "hexlog.dice.rolled" for event in events)
        for view in ("player", "referee"):
            result = hexlog("log", "--all", "--view", view, "--db", "forged.db")
            assert result.returncode == 0, result.stderr
            lines = result.stdout.splitlines()
            shown, after = lines[: len(events)], lines[len(events) :]
            assert all(VIEW_LINE.match(line) for line in shown), result.stdout
            assert all(RECEIPT.match(line) for line in after), result.stdout
            for forbidden in ("\x1b", "\r", "\u2028"):
                assert forbidden not in result.stdout
            texts = [VIEW_LINE.match(line)["text"] for line in shown]
            assert sum(text.startswith("roll s1#") for text in texts) == rolls
            assert not any(text.startswith("session s1 closed") for text in texts)
