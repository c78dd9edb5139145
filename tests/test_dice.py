"""hexlog-dice-v1: known answers, uniformity, the rejection bound, expressions and session rules."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections import Counter

import pytest
from scipy.stats import chisquare

from hexlog.events.codec import from_data, to_data
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import DiceExpressionError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper

ZERO_SECRET = bytes(32)
SAMPLE_SECRET = bytes(range(32))
UNIFORM_ROLLS = 100_000
DICE = (4, 6, 8, 10, 12, 20, 100)


def make_handler() -> tuple[Handler, MemoryStore]:
    """A handler over a fresh memory store, with a fixed clock and counted event ids."""
    store = MemoryStore()
    ids = itertools.count(1)
    handler = Handler(
        store,
        MemoryKeeper(),
        clock=lambda: "2026-11-29T20:00:00Z",
        new_id=lambda: f"00000000-0000-0000-0000-{next(ids):012d}",
    )
    handler.execute("c1", c.StartCampaign())
    return handler, store


class TestKnownAnswers:
    """The published vectors of hexlog-dice-v1."""

    def test_the_commitment_of_the_zero_secret_is_the_published_hash(self) -> None:
        """sha256 of 32 zero bytes is the commitment the scheme publishes."""
        assert hexdice.commitment(ZERO_SECRET) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"

    def test_the_zero_secret_without_client_seed_rolls_the_published_d6_faces(self) -> None:
        """Nonces 0 to 5 of one d6 each give 1, 6, 1, 1, 4, 2."""
        key = hexdice.derive_key(ZERO_SECRET, "")
        assert [hexdice.die_face(key, n, 0, 6) for n in range(6)] == [1, 6, 1, 1, 4, 2]

    def test_the_sample_secret_and_client_seed_roll_the_published_faces(self) -> None:
        """bytes(range(32)) with seed table-7 gives 2d6 = 3, 4; d20 = 3; and nonce 3 as d3 = 3."""
        key = hexdice.derive_key(SAMPLE_SECRET, "table-7")
        assert hexdice.faces_for(key, 0, (6, 6)) == (3, 4)
        assert hexdice.faces_for(key, 1, (20,)) == (3,)
        assert hexdice.faces_for(key, 3, (3,)) == (3,)

    def test_the_key_is_hmac_of_the_secret_over_the_scheme_prefix_and_client_seed(self) -> None:
        """The key derivation is HMAC-SHA256(secret, b"hexlog-dice-v1|" + seed), computed by hand here."""
        expected = hmac.new(SAMPLE_SECRET, b"hexlog-dice-v1|table-7", hashlib.sha256).digest()
        assert hexdice.derive_key(SAMPLE_SECRET, "table-7") == expected

    def test_the_handler_rolls_the_published_faces_from_the_committed_secret(self) -> None:
        """A new session (hexlog-dice-v2) with the sample secret and seed records 2d6 as 1, 5 at public nonce 0."""
        handler, _ = make_handler()
        handler.execute("c1", c.OpenSession(secret_hex=SAMPLE_SECRET.hex()))
        handler.execute("c1", c.SetClientSeed(client_seed="table-7"))
        outcome = handler.execute("c1", c.RollDice(expression="2d6+1"))
        (rolled,) = outcome.events
        assert (rolled.nonce, rolled.faces, rolled.total) == (0, (1, 5), 7)


class TestUniformity:
    """Each die shows every face equally often."""

    @pytest.mark.parametrize("sides", DICE)
    def test_a_hundred_thousand_rolls_pass_a_chi_square_test(self, sides: int) -> None:
        """100,000 rolls from a fixed key are uniform at p > 0.001."""
        key = hexdice.derive_key(ZERO_SECRET, f"uniformity-d{sides}")
        counts = Counter(hexdice.die_face(key, n, 0, sides) for n in range(UNIFORM_ROLLS))
        observed = [counts[face] for face in range(1, sides + 1)]
        assert chisquare(observed).pvalue > 0.001

    @pytest.mark.parametrize("sides", DICE)
    def test_every_face_is_reachable_and_no_other(self, sides: int) -> None:
        """The faces rolled are exactly 1 to S."""
        key = hexdice.derive_key(ZERO_SECRET, f"reach-d{sides}")
        seen = {hexdice.die_face(key, 0, k, sides) for k in range(sides * 40)}
        assert seen == set(range(1, sides + 1))


class TestRejectionBound:
    """Draws at or above (2**64 // S) * S are rejected and the next draw is used."""

    @pytest.mark.parametrize("sides", [2, 3, 6, 7, 20, 100, 999, 1000])
    def test_the_bound_is_the_largest_multiple_of_s_within_64_bits(self, sides: int) -> None:
        """rejection_bound(S) is (2**64 // S) * S."""
        assert hexdice.rejection_bound(sides) == (2**64 // sides) * sides

    @pytest.mark.parametrize("sides", [3, 6, 7, 20, 100, 1000])
    def test_a_draw_just_below_the_bound_is_accepted(self, sides: int) -> None:
        """A draw of bound - 1 gives face S at once (bound - 1 is S - 1 modulo S)."""
        bound = hexdice.rejection_bound(sides)
        assert hexdice.face_from_draws([bound - 1, 0], sides) == sides

    @pytest.mark.parametrize("sides", [3, 6, 7, 20, 100, 1000])
    def test_a_draw_equal_to_the_bound_is_rejected_and_the_next_draw_used(self, sides: int) -> None:
        """A draw of exactly the bound is skipped; the next draw, 4, gives face 4 % S + 1."""
        bound = hexdice.rejection_bound(sides)
        assert hexdice.face_from_draws([bound, 4], sides) == 4 % sides + 1
        assert hexdice.face_from_draws([2**64 - 1, bound, 9], sides) == 9 % sides + 1

    def test_a_power_of_two_die_never_rejects(self) -> None:
        """For S = 4 the bound is 2**64, so even the largest 64-bit draw is accepted."""
        assert hexdice.face_from_draws([2**64 - 1], 4) == 4

    def test_draws_that_are_all_rejected_raise(self) -> None:
        """With no acceptable draw the helper raises instead of inventing a face."""
        with pytest.raises(ValueError, match="rejection bound"):
            hexdice.face_from_draws([hexdice.rejection_bound(6)] * 3, 6)

    def test_die_face_uses_the_draws_of_the_scheme(self) -> None:
        """die_face equals the helper over the scheme's HMAC draws, and the first draw is HMAC of n:k:0."""
        key = hexdice.derive_key(SAMPLE_SECRET, "table-7")
        first = next(hexdice.draws(key, 5, 2))
        digest = hmac.new(key, b"5:2:0", hashlib.sha256).digest()
        assert first == int.from_bytes(digest[:8], "big")
        for sides in (3, 6, 1000):
            assert hexdice.die_face(key, 5, 2, sides) == hexdice.face_from_draws(hexdice.draws(key, 5, 2), sides)


class TestExpressions:
    """NdS, NdS+K, NdS-K and dS, within 1..1000 dice of 2..1000 sides."""

    @pytest.mark.parametrize(
        ("text", "count", "sides", "modifier"),
        [
            ("2d6", 2, 6, 0),
            ("2d6+1", 2, 6, 1),
            ("3d8-2", 3, 8, -2),
            ("d20", 1, 20, 0),
            ("1d2", 1, 2, 0),
            ("1000d1000", 1000, 1000, 0),
            ("D100", 1, 100, 0),
        ],
    )
    def test_a_valid_expression_parses(self, text: str, count: int, sides: int, modifier: int) -> None:
        """The parsed spec has the count, sides and modifier written."""
        spec = hexdice.parse(text)
        assert (spec.count, spec.sides, spec.modifier) == (count, sides, modifier)

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            ("0d6", "number of dice"),
            ("1001d6", "number of dice"),
            ("d1", "sides"),
            ("d1001", "sides"),
            ("2d0", "sides"),
            ("2x6", "not a dice expression"),
            ("", "not a dice expression"),
            ("d", "not a dice expression"),
            ("2d", "not a dice expression"),
            ("2d6+", "not a dice expression"),
            ("-1d6", "not a dice expression"),
            ("2d-6", "not a dice expression"),
            ("2d6*2", "not a dice expression"),
            ("2d6+1000001", "modifier"),
        ],
    )
    def test_a_bad_expression_is_refused_naming_the_problem(self, text: str, problem: str) -> None:
        """DiceExpressionError says what is wrong with the expression."""
        with pytest.raises(DiceExpressionError, match=problem):
            hexdice.parse(text)

    @pytest.mark.parametrize(
        "text",
        [
            "\uff11d6",  # full-width 1
            "2d\uff16",  # full-width 6
            "2d6+\uff11",  # full-width modifier
            "\u0662d6",  # Arabic-Indic 2
            "1d\u0966\u0968",  # Devanagari 02
            "\U0001d7d0d6",  # mathematical bold 2
        ],
        ids=["fullwidth-count", "fullwidth-sides", "fullwidth-modifier", "arabic-indic", "devanagari", "math-bold"],
    )
    def test_non_ascii_digits_are_refused_naming_the_expression(self, text: str) -> None:
        """Only 0-9 are digits of an expression; ``int`` would read the others, so the pattern must not."""
        with pytest.raises(DiceExpressionError, match="not a dice expression") as err:
            hexdice.parse(text)
        assert repr(text) in str(err.value)

    def test_a_roll_of_a_full_width_digit_is_refused_and_writes_nothing(self) -> None:
        """RollDice("\uff11d6") raises DiceExpressionError and appends nothing."""
        handler, store = make_handler()
        handler.execute("c1", c.OpenSession(secret_hex=ZERO_SECRET.hex()))
        before = store.stream_version("campaign-c1")
        with pytest.raises(DiceExpressionError, match="not a dice expression"):
            handler.execute("c1", c.RollDice(expression="\uff11d6"))
        assert store.stream_version("campaign-c1") == before

    def test_the_cli_refuses_a_full_width_digit(self, hexlog) -> None:
        """``hexlog roll "\uff11d6"`` exits 2 naming the expression."""
        assert hexlog("init").returncode == 0
        assert hexlog("session", "open").returncode == 0
        result = hexlog("roll", "\uff11d6")
        assert result.returncode == 2
        assert "not a dice expression: '\uff11d6'" in result.stderr


class TestSessionRules:
    """Rolls need an open session, and the client seed must come before the first roll."""

    def test_a_roll_with_no_open_session_is_refused_and_writes_nothing(self) -> None:
        """RollDice before any session raises RuleRefusedError and leaves the stream as it was."""
        handler, store = make_handler()
        before = store.stream_version("campaign-c1")
        with pytest.raises(RuleRefusedError, match="no session is open"):
            handler.execute("c1", c.RollDice(expression="d20"))
        assert store.stream_version("campaign-c1") == before

    def test_a_roll_after_the_session_closed_is_refused_and_writes_nothing(self) -> None:
        """RollDice after CloseSession raises RuleRefusedError and appends nothing."""
        handler, store = make_handler()
        handler.execute("c1", c.OpenSession(secret_hex=ZERO_SECRET.hex()))
        handler.execute("c1", c.CloseSession())
        before = store.stream_version("campaign-c1")
        with pytest.raises(RuleRefusedError):
            handler.execute("c1", c.RollDice(expression="d6"))
        assert store.stream_version("campaign-c1") == before

    def test_a_client_seed_after_the_first_roll_is_refused(self) -> None:
        """SetClientSeed once the session has rolled raises RuleRefusedError and appends nothing."""
        handler, store = make_handler()
        handler.execute("c1", c.OpenSession(secret_hex=ZERO_SECRET.hex()))
        handler.execute("c1", c.RollDice(expression="d6"))
        before = store.stream_version("campaign-c1")
        with pytest.raises(RuleRefusedError, match="before the first roll"):
            handler.execute("c1", c.SetClientSeed(client_seed="late"))
        assert store.stream_version("campaign-c1") == before


class TestRollRecord:
    """A roll records whom it was made for and the modifiers the state imposed (schema version 2)."""

    def test_a_free_roll_is_made_for_nobody_and_carries_only_its_own_modifier(self) -> None:
        """RollDice 2d6+1 is made for "" with no imposed modifiers; the total is the faces plus 1."""
        handler, store = make_handler()
        handler.execute("c1", c.OpenSession(secret_hex=SAMPLE_SECRET.hex()))
        (rolled,) = handler.execute("c1", c.RollDice(expression="2d6+1", secret=True)).events
        assert (rolled.made_for, rolled.modifiers, rolled.modifier) == ("", (), 1)
        assert rolled.total == sum(rolled.faces) + 1
        assert rolled.visibility is Visibility.REFEREE
        envelope = store.read_stream("campaign-c1")[-1].envelope
        assert (envelope.type, envelope.schemaversion) == ("hexlog.dice.rolled", DiceRolled.schema_version)
        assert DiceRolled.schema_version == 4
        assert (rolled.notation, rolled.dropped, rolled.low_is_good) == ("", (), False)

    def test_a_version_1_roll_is_read_as_made_for_nobody_and_unmodified(self) -> None:
        """A payload written before made_for and modifiers existed decodes with "" and no modifiers."""
        rolled = DiceRolled(session="s1", nonce=3, purpose="free", sides=(6, 6), faces=(3, 4), modifier=1, total=8)
        old = {k: v for k, v in to_data(rolled).items() if k not in {"made_for", "modifiers"}}
        assert from_data("hexlog.dice.rolled", 1, old) == rolled
