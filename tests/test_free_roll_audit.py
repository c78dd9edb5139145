"""The audit holds a free roll to the modifiers the state imposes on the one it is made for.

The kit applies the state's modifiers to every roll, a free roll the referee asks for too (an attack roll made for a
member after an hour of delving without rest is at -1), and records each with its source. A referee who owns the
database could take the penalty off, or add a modifier of their own under a source's name; the audit works out the
modifiers the state imposed just before the roll and names any difference.
"""

from __future__ import annotations

from typing import Any

import pytest

from hexlog.machine import commands as c
from hexlog.replay.audit import audit_envelopes

from .test_decisions import forge
from .test_due_audit import delve

ATTACK = "attack goblin"
TIRED = {"source": "an hour of delving without a turn of rest (until the party rests)", "value": -1}


def attacked(*, low_is_good: bool = False) -> list[Any]:
    """The due-audit delve of six turns (an hour without rest), then a free attack roll made for Ann."""
    return delve(6, then=(c.RollDice(expression="1d20", purpose=ATTACK, made_for="Ann", low_is_good=low_is_good),))


def roll_at(envelopes: list[Any]) -> int:
    return next(i for i, e in enumerate(envelopes) if e.type == "hexlog.dice.rolled" and e.data["purpose"] == ATTACK)


def findings(envelopes: list[Any]) -> list[tuple[int | None, str]]:
    return [(f.streamversion, f.reason) for f in audit_envelopes(envelopes).findings]


@pytest.mark.parametrize("low_is_good", [False, True])
def test_the_honest_roll_carries_the_penalty_and_is_no_finding(*, low_is_good: bool) -> None:
    """Where low is good the penalty counts the other way (+1), and is recorded so."""
    envelopes = attacked(low_is_good=low_is_good)
    at = roll_at(envelopes)
    value = 1 if low_is_good else -1
    assert envelopes[at].data["modifiers"] == [{**TIRED, "value": value}]
    assert findings(envelopes) == []


def test_the_penalty_taken_off_is_a_finding() -> None:
    envelopes = attacked()
    at = roll_at(envelopes)
    face = envelopes[at].data["faces"][0]
    forged = forge(envelopes, at, modifiers=[], modifier=0, total=face)
    assert findings(forged) == [
        (
            forged[at].streamversion,
            f'roll #0 for "{ATTACK}" made for Ann carries no modifier, but the state imposes -1 for {TIRED["source"]}',
        )
    ]


def test_a_modifier_of_the_referees_own_is_a_finding() -> None:
    envelopes = attacked()
    at = roll_at(envelopes)
    face = envelopes[at].data["faces"][0]
    blessing = {"source": "a blessing", "value": 5}
    forged = forge(envelopes, at, modifiers=[TIRED, blessing], modifier=4, total=face + 4)
    ((version, reason),) = findings(forged)
    assert version == forged[at].streamversion
    assert reason.endswith(
        f"carries -1 for {TIRED['source']}, +5 for a blessing, but the state imposes -1 for {TIRED['source']}"
    )
