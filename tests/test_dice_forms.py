"""Dice that tables use: d%, keep and drop, several terms, and a roll made for a character.

Every form keeps the published schemes: die ``k`` of a roll, whatever its group, takes index ``k``
within the roll's nonce, so its face is ``die_face(key, nonce, k, sides)`` as before.
"""

from __future__ import annotations

import attrs
import pytest

from hexlog.events.dice import DiceRolled, RollModifier
from hexlog.events.errors import DiceExpressionError, NotFoundError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.kit.registry import Registry
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_store
from hexlog.replay.dice_audit import roll_shape

SECRET = bytes(range(1, 33))
CAMPAIGN = "d"


class TestParsing:
    @pytest.mark.parametrize(
        ("text", "sides", "modifier", "shown"),
        [
            ("d%", (100,), 0, "1d100"),
            ("2d%+1", (100, 100), 1, "2d100+1"),
            ("4d6kh3", (6, 6, 6, 6), 0, "4d6kh3"),
            ("2d20kl1", (20, 20), 0, "2d20kl1"),
            ("4d6dl1", (6, 6, 6, 6), 0, "4d6kh3"),
            ("4d6d1", (6, 6, 6, 6), 0, "4d6kh3"),
            ("3d6dh1", (6, 6, 6), 0, "3d6kl2"),
            ("1d8+1d6+2", (8, 6), 2, "1d8+1d6+2"),
            ("1d8 + 1d6 - 3 + 1", (8, 6), -2, "1d8+1d6-2"),
            ("2d6+1+1", (6, 6), 2, "2d6+2"),
        ],
    )
    def test_each_form_reads_its_dice_in_the_order_written(self, text, sides, modifier, shown):
        spec = hexdice.parse(text)
        assert spec.sides_tuple == sides
        assert spec.modifier == modifier
        assert str(spec) == shown

    @pytest.mark.parametrize(
        ("text", "faces", "dropped", "total"),
        [
            ("4d6kh3", (1, 5, 5, 2), (0,), 12),
            ("4d6kh3", (3, 3, 3, 3), (3,), 9),  # ties keep the earlier die
            ("2d20kl1", (17, 4), (0,), 4),
            ("2d20kl1", (9, 9), (1,), 9),
            ("3d6dh1", (6, 2, 6), (2,), 8),
            ("4d6kh3+1d4+1", (1, 5, 5, 2, 4), (0,), 17),
            ("1d8+1d6+2", (8, 6), (), 16),
        ],
    )
    def test_keep_and_drop_leave_out_the_right_dice(self, text, faces, dropped, total):
        spec = hexdice.parse(text)
        assert spec.dropped(faces) == dropped
        assert spec.total(faces) == total

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            ("4d6kh5", "keeps 5 of 4 dice"),
            ("4d6kh0", "keeps 0 of 4 dice"),
            ("4d6dl4", "drops 4 of 4 dice"),
            ("1d6-1d4", "dice are added, never subtracted"),
            ("600d6+600d6", "the number of dice must be 1 to 1000, not 1200"),
            ("1d6+" + "+".join(["1"] * 20), "at most 20 terms"),
            ("1d" + "9" * 5000, "past 1000000"),
            ("5", "rolls no dice"),
            ("2d1001", "2 to 1000 sides"),
            ("1d6+" + "9" * 7, "within ±1000000"),
            ("4d6k", "not a dice expression"),
            ("d%%", "not a dice expression"),
        ],
    )
    def test_limits_are_refused_with_a_clear_message(self, text, problem):
        with pytest.raises(DiceExpressionError, match=problem):
            hexdice.parse(text)

    @pytest.mark.parametrize("text", ["2d6+3", "1d8+1d6-2", "4d6kh3+1"])
    def test_a_spec_reads_its_dice_once_and_stays_a_value(self, text):
        """The sides and whether some dice may not count are read once per spec; an equal spec is equal still."""
        spec = hexdice.parse(text)
        assert spec.sides_tuple is spec.sides_tuple
        assert spec.keeps == ("k" in text)
        again = attrs.evolve(spec)
        assert again == spec
        assert hash(again) == hash(spec)
        assert again.sides_tuple == spec.sides_tuple

    def test_totals_of_a_keep_count_only_the_kept_dice(self):
        spec = hexdice.parse("4d6kh3+1")
        assert (spec.lowest, spec.highest) == (4, 19)


def _handler(registry: Registry = REGISTRY) -> Handler:
    handler = Handler(MemoryStore(), MemoryKeeper(), registry=registry)
    handler.execute(CAMPAIGN, c.StartCampaign())
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex=SECRET.hex()))
    handler.execute(CAMPAIGN, c.SetClientSeed(client_seed="table"))
    handler.execute(CAMPAIGN, c.AddMember(name="Aldric"))
    return handler


def _rolled(handler: Handler, expression: str, **more: object) -> DiceRolled:
    (event,) = handler.execute(CAMPAIGN, c.RollDice(expression=expression, **more)).events  # type: ignore[arg-type]
    assert isinstance(event, DiceRolled)
    return event


class TestCommittedRolls:
    @pytest.mark.parametrize("expression", ["d%", "4d6kh3", "2d20kl1", "1d8+1d6+2", "4d6dl1+1d4-1"])
    def test_each_die_takes_its_index_within_the_nonce(self, expression):
        """The faces are the published scheme's: die k of roll n is die_face(key, n, k, sides)."""
        handler = _handler()
        rolled = _rolled(handler, expression)
        key = hexdice.lane_key(hexdice.SCHEME, SECRET, "table", hexdice.PUBLIC_LANE)
        spec = hexdice.parse(expression)
        assert rolled.sides == spec.sides_tuple
        assert rolled.faces == tuple(hexdice.die_face(key, rolled.nonce, k, s) for k, s in enumerate(rolled.sides))
        assert rolled.dropped == spec.dropped(rolled.faces)
        assert rolled.total == spec.total(rolled.faces)
        assert rolled.notation == (str(spec) if spec.keeps else "")
        assert roll_shape(rolled) is None

    def test_a_session_of_keep_and_drop_rolls_audits_verified_once_closed(self):
        handler = _handler()
        for expression in ("4d6kh3", "2d20kl1", "1d8+1d6+2", "d%"):
            _rolled(handler, expression)
        handler.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(handler.store, CAMPAIGN)
        assert report.ok, report.text()
        assert report.rolls_verified == report.rolls == 4

    @pytest.mark.parametrize(
        "forge",
        [
            {"dropped": ()},
            {"notation": "4d6kl3"},
            {"notation": ""},
            {"total": -1},
        ],
    )
    def test_a_keep_recorded_otherwise_than_it_fell_is_impossible(self, forge):
        handler = _handler()
        rolled = _rolled(handler, "4d6kh3")
        assert roll_shape(attrs.evolve(rolled, **forge)) is not None


class TestRollFor:
    def test_a_roll_for_a_member_records_whom_and_the_modifiers_on_them(self):
        """The kit's modifier sources apply to the character's roll and are recorded with their source."""

        def tired(table, made_for, purpose):  # noqa: ARG001 - the modifier signature
            return [RollModifier(source="exhaustion (test)", value=-2)] if made_for == "Aldric" else []

        extra = Procedure(name="tired", title="A test source of modifiers.", steps={}, modifiers=(tired,))
        handler = _handler(Registry((*REGISTRY.procedures, extra)))
        rolled = _rolled(handler, "1d20", made_for="Aldric")
        assert rolled.made_for == "Aldric"
        assert rolled.modifiers == (RollModifier(source="exhaustion (test)", value=-2),)
        assert rolled.total == rolled.faces[0] - 2
        free = _rolled(handler, "1d20")
        assert (free.made_for, free.modifiers) == ("", ())

    def test_a_roll_for_someone_outside_the_party_is_refused(self):
        handler = _handler()
        with pytest.raises(NotFoundError, match="no member called Nobody"):
            _rolled(handler, "1d20", made_for="Nobody")

    def test_the_command_line_rolls_for_a_member(self, hexlog):
        assert hexlog("init").returncode == 0
        assert hexlog("session", "open").returncode == 0
        assert hexlog("party", "add", "Aldric").returncode == 0
        rolled = hexlog("roll", "4d6kh3", "--for", "Aldric")
        assert rolled.returncode == 0, rolled.stderr
        assert "4d6kh3 -> " in rolled.stdout
        assert "(dropped " in rolled.stdout
        assert "(for Aldric)" in rolled.stdout
        assert hexlog("roll", "1d6", "--for", "Bo").returncode == 2
