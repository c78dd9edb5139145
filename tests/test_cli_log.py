"""The log commands through a real subprocess: log, replay, audit, export and import."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3

import pytest

from hexlog.machine.keeper import key_file_for
from hexlog.replay.rebuild import projections

from .conftest import secret_file

SECRET = bytes(range(32)).hex()
SAMPLE_LINES = 7
#: the one caveat of the played session once closed: it was opened with a secret from --secret-file
SUPPLIED = (
    "session s1's secret was supplied to hexlog, not drawn by it: whoever supplied it could have chosen its 2 rolls"
)


@pytest.fixture(scope="module")
def played_once(tmp_path_factory, play_once):
    """A short open session (seed, a member, a public and a secret roll), played once per module."""
    folder = tmp_path_factory.mktemp("played")
    script = (
        ("init",),
        ("session", "open", "--secret-file", secret_file(folder, SECRET)),
        ("session", "seed", "table-7"),
        ("party", "add", "Ayla", "--cha", "16"),
        ("roll", "2d6+1", "--purpose", "test"),
        ("roll", "d20", "--secret", "--purpose", "wandering check"),
    )
    return play_once(folder, script)


@pytest.fixture
def played(played_once, tmp_path, copy_campaign):
    """A copy of that session in the test's own folder (./hexlog.db, where ``hexlog`` runs)."""
    return copy_campaign(played_once, tmp_path)


def _reseal(lines, index, **data):
    """Export lines with ``data`` set in line ``index``'s data, it and the rest re-hashed (hexlog-chain-v1)."""
    objects = [json.loads(line) for line in lines]
    objects[index]["data"].update(data)
    for i in range(index, len(objects)):
        if i:
            objects[i]["prevhash"] = objects[i - 1]["hash"]
        unhashed = {k: v for k, v in objects[i].items() if k != "hash"}
        canonical = json.dumps(unhashed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        objects[i]["hash"] = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return [json.dumps(o, ensure_ascii=False) for o in objects]


def _tamper(db, sql, params=()):
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_no_update")
        conn.execute("DROP TRIGGER IF EXISTS events_no_delete")
        conn.execute(sql, params)


class TestLogView:
    @pytest.mark.usefixtures("played")
    def test_the_referee_sees_every_roll_with_its_purpose(self, hexlog):
        """The timeline names each roll, its faces and what it was for."""
        result = hexlog("log")
        assert result.returncode == 0
        assert "roll s1#0 2d6+1 -> 1+5+1 = 7 for test" in result.stdout
        assert "for wandering check [secret]" in result.stdout

    @pytest.mark.usefixtures("played")
    def test_the_player_view_hides_a_secret_roll_until_the_session_closes(self, hexlog):
        """Nothing leaks: the secret roll's faces are hidden, then shown once revealed."""
        hidden = hexlog("log", "--view", "player")
        assert "roll s1#r0 (hidden by the referee" in hidden.stdout
        assert "wandering check" not in hidden.stdout
        hexlog("session", "close")
        shown = hexlog("log", "--view", "player")
        assert "for wandering check [secret]" in shown.stdout

    @pytest.mark.usefixtures("played")
    def test_the_player_view_ends_with_the_receipt_of_the_latest_event(self, hexlog):
        """The players read a receipt under the timeline, the same one ``hexlog receipt`` gives."""
        shown = hexlog("log", "--view", "player", "--last", "1")
        receipt = hexlog("receipt")
        line = shown.stdout.splitlines()[-1]
        assert line.startswith("receipt main@")
        assert line == receipt.stdout.splitlines()[0]
        assert hexlog("audit", "--expect", line.split()[1]).returncode == 3  # held; the session is still open

    @pytest.mark.usefixtures("played")
    def test_a_player_cannot_have_a_secret_roll_explained_while_it_is_secret(self, hexlog):
        """audit --roll --secret refuses a hidden roll without --referee."""
        refused = hexlog("audit", "--roll", "0", "--secret")
        assert refused.returncode == 1
        assert "secret until the session closes" in refused.stderr
        allowed = hexlog("audit", "--roll", "0", "--secret", "--referee")
        assert allowed.returncode == 0
        assert "not revealed yet" in allowed.stdout

    @pytest.mark.usefixtures("played")
    def test_an_unknown_view_is_a_usage_error(self, hexlog):
        """--view takes referee or player."""
        result = hexlog("log", "--view", "god")
        assert result.returncode == 2
        assert "--view must be referee or player" in result.stderr


class TestReplayAndAudit:
    @pytest.mark.usefixtures("played")
    def test_replay_equals_the_live_projections(self, hexlog):
        """Every projection rebuilt from the log equals the stored one."""
        result = hexlog("replay")
        assert result.returncode == 0, result.stdout
        assert "replay matches the stored state" in result.stdout
        names = [projection.name for projection in projections()]
        assert result.stdout.count(": equal (up to date)") == len(names) == 2
        for name in names:
            assert f"  {name}: equal (up to date)" in result.stdout

    def test_replay_notices_a_stored_projection_that_differs(self, hexlog, played):
        """A projection row edited behind hexlog's back is reported, naming the row."""
        with sqlite3.connect(played) as conn:
            changed = conn.execute(
                "UPDATE projection_rows SET data = replace(data, 'Ayla', 'Zed') "
                "WHERE projection = 'table' AND key = 'party'"
            ).rowcount
        assert changed == 1
        result = hexlog("replay")
        assert result.returncode == 1
        assert "table: differs (up to date): rows differ party" in result.stdout
        assert "ledger: equal (up to date)" in result.stdout
        assert "replay DIFFERS from the stored state" in result.stdout

    def test_replay_notices_a_roll_row_that_differs(self, hexlog, played):
        """A ledger row of one roll edited in the database is named by its session and nonce."""
        with sqlite3.connect(played) as conn:
            changed = conn.execute(
                "UPDATE projection_rows SET data = replace(data, '\"faces\":[1,5]', '\"faces\":[6,6]') "
                "WHERE projection = 'ledger' AND data LIKE '%\"faces\":[1,5]%'"
            ).rowcount
        assert changed == 1
        result = hexlog("replay")
        assert result.returncode == 1
        assert "ledger: differs (up to date): rows differ roll/s1/000000000" in result.stdout
        assert "table: equal (up to date)" in result.stdout

    @pytest.mark.usefixtures("played")
    def test_an_untouched_log_audits_clean(self, hexlog):
        """Audit of a closed session re-derives every roll; only the supplied secret keeps it INCOMPLETE."""
        hexlog("session", "close")
        result = hexlog("audit")
        assert result.returncode == 3, result.stdout + result.stderr
        assert "2 of 2 rolls re-derived" in result.stdout
        assert "INCOMPLETE: nothing is wrong" in result.stdout
        said, hand = result.stdout.split("decided by the referee's hand:\n")
        assert [line for line in said.splitlines() if line.startswith("  - ")] == [f"  - {SUPPLIED}"]
        assert hand.startswith(
            "  - stream version 7: 2 free rolls of session s1 made by the referee outside any "
            'procedure step (#0 for "test", #r0); '
        )
        assert result.stderr == ""

    @pytest.mark.usefixtures("played")
    def test_audit_roll_explains_the_derivation(self, hexlog):
        """The explanation shows the HMAC messages and the faces."""
        hexlog("session", "close")
        result = hexlog("audit", "--roll", "0")
        assert result.returncode == 0
        assert 'HMAC-SHA256(key, "0:0:0")' in result.stdout
        assert "derived faces [1, 5] match the record" in result.stdout

    @pytest.mark.parametrize(
        ("sql", "version"),
        [
            (
                "UPDATE events SET data = replace(data, '\"faces\":[1,5]', '\"faces\":[6,6]') WHERE stream_version = 5",
                5,
            ),
            ("UPDATE events SET time = '2020-01-01T00:00:00Z' WHERE stream_version = 4", 4),
            ("UPDATE events SET type = 'hexlog.party.member_removed' WHERE stream_version = 4", 4),
            ("UPDATE events SET source = 'hexlog:other' WHERE stream_version = 3", 3),
            ("UPDATE events SET id = 'forged' WHERE stream_version = 2", 2),
            ("UPDATE events SET schema_version = 1 WHERE stream_version = 2", 2),
            ("UPDATE events SET prevhash = hash WHERE stream_version = 3", 3),
            ("DELETE FROM events WHERE stream_version = 4", 5),
        ],
    )
    def test_tampering_makes_audit_exit_1_naming_the_first_bad_event(self, hexlog, played, sql, version):
        """Any edit, even with the guard triggers dropped, is found and named."""
        hexlog("session", "close")
        _tamper(played, sql)
        result = hexlog("audit")
        assert result.returncode == 1
        assert f"audit FAILED at campaign-main version {version} (event" in result.stderr
        assert "Traceback" not in result.stderr


class TestExportImport:
    @pytest.mark.usefixtures("played")
    def test_export_refuses_to_show_unrevealed_secret_rolls(self, hexlog):
        """Nothing leaks: while a secret roll is unrevealed, export needs --referee."""
        refused = hexlog("export")
        assert refused.returncode == 1
        assert "secret rolls" in refused.stderr
        assert refused.stdout == ""
        assert "wandering check" in hexlog("export", "--referee").stdout

    @pytest.mark.usefixtures("played")
    def test_a_line_separator_inside_a_string_is_not_a_line_break(self, hexlog, tmp_path):
        """U+2028 and U+0085 in a sealed log's text survive export, audit --file and import.

        hexlog refuses them in new text, so the log is one sealed elsewhere: the export with a purpose
        edited and the chain re-hashed.
        """
        refused = hexlog("roll", "d6", "--purpose", "x\u2028y\u0085z")
        assert refused.returncode == 2
        assert "U+2028" in refused.stderr
        hexlog("session", "close")
        assert hexlog("export", "--out", "one.jsonl").returncode == 0
        lines = (tmp_path / "one.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
        odd = "".join(line + "\n" for line in _reseal(lines, 4, purpose="x\u2028y\u0085z"))
        assert "\u2028" in odd
        (tmp_path / "odd.jsonl").write_text(odd, encoding="utf-8")
        audited = hexlog("audit", "--file", "odd.jsonl")
        assert audited.returncode == 3, audited.stdout + audited.stderr
        assert f"{len(lines)} events in 1 stream" in audited.stdout
        assert "2 of 2 rolls re-derived" in audited.stdout
        assert hexlog("import", "odd.jsonl", "--db", "odd.db").returncode == 0
        assert hexlog("export", "--db", "odd.db").stdout == odd

    @pytest.mark.usefixtures("played")
    def test_export_import_round_trip_is_byte_identical(self, hexlog, tmp_path):
        """What is exported, imported elsewhere and exported again does not change."""
        hexlog("session", "close")
        assert hexlog("export", "--out", "one.jsonl").returncode == 0
        imported = hexlog("import", "one.jsonl", "--db", "copy.db")
        assert imported.returncode == 0, imported.stderr
        again = hexlog("export", "--db", "copy.db")
        assert again.stdout == (tmp_path / "one.jsonl").read_text(encoding="utf-8")
        assert hexlog("replay", "--db", "copy.db").returncode == 0

    @pytest.mark.usefixtures("played")
    @pytest.mark.parametrize("out", ["hexlog.db", "./hexlog.db.keys", "hexlog.db-wal", "link.db"])
    def test_export_is_not_written_over_the_database_or_its_key_file(self, hexlog, tmp_path, out):
        """`--out hexlog.db` wrote the export over the database itself (and `hexlog.db.keys` over the open session's
        secret): refused by name (another name for the same file too), exit 2, nothing written, the campaign whole."""
        (tmp_path / "link.db").hardlink_to(tmp_path / "hexlog.db")
        kept_files = ("hexlog.db", "hexlog.db.keys")
        before = [(tmp_path / name).read_bytes() for name in kept_files]
        refused = hexlog("export", "--referee", "--out", out)
        assert refused.returncode == 2, refused.stderr
        kept = "hexlog.db" if out == "link.db" else out.removeprefix("./")
        named = out.removeprefix("./")
        assert refused.stderr == (
            f"hexlog: error: cannot write {named}: it is {kept}, in which the database keeps its log or its secrets; "
            "name another file\n"
        )
        assert [(tmp_path / name).read_bytes() for name in kept_files] == before
        assert hexlog("audit", "--referee").returncode in {0, 3}

    @pytest.mark.usefixtures("played")
    def test_export_writes_cloudevents_lines_to_standard_output(self, hexlog):
        """Each line is one CloudEvents object with the chain attributes (the referee's own copy)."""
        result = hexlog("export", "--referee")
        events = [json.loads(line) for line in result.stdout.splitlines()]
        assert [e["streamversion"] for e in events] == list(range(1, len(events) + 1))
        assert events[0]["type"] == "hexlog.campaign.started"
        assert "still open" in result.stderr

    def test_the_published_sample_imports_and_verifies(self, hexlog, tmp_path):
        """The shared known-answer export imports into a fresh database."""
        sample = tmp_path / "sample.jsonl"
        shutil.copy(__import__("pathlib").Path(__file__).parent / "golden" / "sample-export.jsonl", sample)
        result = hexlog("import", "sample.jsonl")
        assert result.returncode == 0, result.stderr
        assert f"imported {SAMPLE_LINES} events of campaign c1" in result.stdout
        assert hexlog("audit", "--file", "sample.jsonl").returncode == 0

    @pytest.mark.usefixtures("played")
    def test_an_edited_export_is_refused_and_nothing_is_written(self, hexlog, tmp_path):
        """A changed byte fails verification and the target database is not created."""
        hexlog("session", "close")
        hexlog("export", "--out", "one.jsonl")
        path = tmp_path / "one.jsonl"
        path.write_text(path.read_text(encoding="utf-8").replace('"Ayla"', '"Ayle"'), encoding="utf-8")
        result = hexlog("import", "one.jsonl", "--db", "copy.db")
        assert result.returncode == 1
        assert "line 4" in result.stderr
        assert not (tmp_path / "copy.db").exists()
        assert hexlog("audit", "--file", "one.jsonl").returncode == 1

    @pytest.mark.usefixtures("played")
    def test_importing_over_an_existing_campaign_is_refused(self, hexlog):
        """The same campaign cannot be imported twice into one database."""
        hexlog("session", "close")
        hexlog("export", "--out", "one.jsonl")
        result = hexlog("import", "one.jsonl")
        assert result.returncode == 2
        assert "Traceback" not in result.stderr

    def test_a_missing_or_garbage_file_is_named(self, hexlog, tmp_path):
        """Import names the unreadable file or the bad line."""
        missing = hexlog("import", "nope.jsonl")
        assert missing.returncode == 2
        assert "cannot read nope.jsonl" in missing.stderr
        (tmp_path / "junk.jsonl").write_text("{not json\n", encoding="utf-8")
        junk = hexlog("import", "junk.jsonl")
        assert junk.returncode != 0
        assert "line 1" in junk.stderr


class TestAbandonedSessionsInViews:
    def test_secret_rolls_of_an_abandoned_session_show_once_it_has_ended(self, hexlog, played):
        """An abandoned session is over: its secret rolls are no longer hidden and export works again."""
        key_file_for(played).unlink()
        assert hexlog("session", "abandon", "--reason", "key file lost").returncode == 0
        assert "for wandering check [secret]" in hexlog("log", "--view", "player").stdout
        assert hexlog("export").returncode == 0
        assert "session s1: abandoned" in hexlog("state").stdout


def test_a_receipt_of_another_campaign_than_the_one_audited_is_named_as_such(hexlog):
    """``audit --campaign main --expect keep@1:...``: the receipt is of campaign keep, which the database holds; the
    audit of main says so rather than that the log holds no campaign keep."""
    for campaign in ("keep", "main"):
        assert hexlog("init", "--campaign", campaign).returncode == 0
    receipt = hexlog("receipt", "--campaign", "keep").stdout.split()[1]
    assert receipt.startswith("keep@1:")
    refused = hexlog("audit", "--campaign", "main", "--expect", receipt)
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr == (
        f"hexlog: error: receipt {receipt} is of campaign 'keep', not of 'main', the one audited: "
        "check it with --campaign keep (or without --campaign, the whole database)\n"
    )
    assert hexlog("audit", "--campaign", "keep", "--expect", receipt).returncode == 0
    assert hexlog("audit", "--expect", receipt).returncode == 0
