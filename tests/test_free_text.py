"""Free text: refused when it could forge a line, shown harmlessly when an old log holds it, names kept apart."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hexlog.events.errors import UsageError
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import LIMITS, check, problem, shown, skeleton


class TestRefused:
    @pytest.mark.parametrize("bad", ["\n", "\r", "\x1b[2J", "\u2028", "\u2029", "\u202e", "\u200b", "\x00"])
    def test_a_control_or_format_character_is_refused_naming_it(self, bad):
        """Newlines, escapes, separators, direction overrides and zero-width marks are refused by code point."""
        found = problem(f"a{bad}b", "purpose")
        assert found is not None
        assert f"U+{ord(bad[0]):04X}" in found

    def test_each_field_has_its_length_limit(self):
        """A purpose of 100 characters is taken, 101 is refused naming the limit; unknown fields take 200."""
        assert problem("x" * LIMITS["purpose"], "purpose") is None
        assert problem("x" * (LIMITS["purpose"] + 1), "purpose") == "purpose is 101 characters long; at most 100"
        assert problem("x" * 200, "whatever") is None
        assert problem("x" * 201, "whatever") is not None

    def test_a_command_is_checked_field_by_field_with_its_path(self):
        """The first bad text inside nested data is named by its path; a secret in hex is not text."""
        with pytest.raises(UsageError, match=r"members\[1\]\.name holds"):
            check({"members": [{"name": "Aldric"}, {"name": "Bo\nroll #1 1d20 -> 20"}]})
        check({"secret_hex": "\n", "name": "Åsa ✓"})  # any printable Unicode is welcome


class TestShown:
    def test_a_forged_line_is_printed_as_one_line_with_escapes(self):
        """Text an old log holds is printed with ``\\uXXXX`` in place of each dangerous character."""
        assert shown("a\nroll #1") == "a\\u000aroll #1"
        assert shown("\x1b[2J") == "\\u001b[2J"
        assert shown("tåble ✓") == "tåble ✓"

    @given(st.text())
    def test_shown_text_never_holds_a_character_that_is_refused(self, text):
        """Whatever a log holds, what a view prints passes the free-text check and is one line."""
        printed = shown(text)
        assert problem(printed[: LIMITS["note"]], "note") is None
        assert "\n" not in printed
        assert "\r" not in printed


class TestLookAlikes:
    @pytest.mark.parametrize(
        "purpose",
        [
            "encounter.reaction",
            "Encounter Reaction",
            "encounter_reaction",
            "encounter-reaction",
            "encounter\u00b7reaction",
            "encounter..reaction",
            " encounter.reaction.",
            "\u0435ncounter.r\u0435action",
            "\uff45\uff4e\uff43\uff4f\uff55\uff4e\uff54\uff45\uff52.reaction",  # full-width letters
            "encounter.reaction.again",
        ],
    )
    def test_a_reserved_purpose_is_known_however_it_is_dressed(self, purpose):
        """Case, spaces, other separators, look-alike letters and full-width forms all name the reserved purpose."""
        assert REGISTRY.reserved(purpose) == "encounter.reaction"

    @pytest.mark.parametrize("purpose", ["reaction", "encounters", "wandering check", "free roll", "encounter check"])
    def test_other_purposes_are_free(self, purpose):
        """A purpose that only shares a word with a reserved one is not reserved."""
        assert REGISTRY.reserved(purpose) is None

    def test_the_skeleton_joins_runs_of_separators(self):
        """Every run of non-letters becomes one dot, none at the ends."""
        assert skeleton("  A -_ b··c ") == "a.b.c"


class TestCampaignIds:
    @pytest.mark.parametrize("campaign", ["a\nb", "-x", "a b", "tåble", "x" * 65])
    def test_a_bad_campaign_id_is_refused_before_any_file_is_made(self, hexlog, tmp_path, campaign):
        """``init`` names the form a campaign id takes and leaves no database behind."""
        result = hexlog("init", "--campaign", campaign, "--db", "new.db")
        assert result.returncode == 2
        assert "campaign id" in result.stderr
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "new.db").exists()
