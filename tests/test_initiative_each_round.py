"""Initiative rolled at the start of every round (option ``initiative_each_round``, seed 000 under ``ose``).

A round after the first, and a side's choice in it, wait for that round's initiative: the command line refuses them
naming the roll, appends nothing, and offers ``roll-initiative`` as the next step. Where initiative is rolled once
(``explore``, ``adnd``) round follows round as before. The audit holds a round or a choice recorded since
``encounter.round_played`` and ``encounter.action_chosen`` version 2 to the rule; one an older release recorded (it
let the round go on on the last initiative) audits clean.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable
    from subprocess import CompletedProcess

NEXT = re.compile(r"^-> ([A-Z_]+); next: (.*)$", re.MULTILINE)
#: both sides aware (no surprise dice), the referee's distance: straight on to the initiative
OPENING = (
    ("encounter", "start", "--party-aware", "--monsters-aware"),
    ("encounter", "check-surprise"),
    ("encounter", "determine-distance", "--value", "30"),
    ("encounter", "roll-initiative"),
)
REFUSAL = (
    "hexlog: error: encounter: '{step}' refused in phase ACTIONS: the rules in force (ose) roll initiative at the "
    "start of every round; roll initiative for round 2 first (hexlog encounter roll-initiative)"
)


def _ok(hexlog: Callable[..., CompletedProcess[str]], *args: str) -> str:
    result = hexlog(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _after_round_one(hexlog: Callable[..., CompletedProcess[str]], ruleset: str) -> str:
    """A campaign under ``ruleset`` with one member, an encounter through its first round; what that round printed."""
    for args in (("init", "--ruleset", ruleset), ("session", "open"), ("party", "add", "Ann"), *OPENING):
        _ok(hexlog, *args)
    return _ok(hexlog, "encounter", "round")


def _next(printed: str) -> list[str]:
    """The steps a command's output offers next."""
    (found,) = NEXT.findall(printed)
    return found[1].split(", ")


class TestTheCommandLine:
    @pytest.mark.parametrize("step", ["round", "parley", "wait", "fight", "evade"])
    def test_under_ose_a_later_round_waits_for_its_initiative(self, hexlog, step: str) -> None:
        """After round 1 the round, or a side's action in round 2, is refused naming the roll; nothing is appended."""
        _after_round_one(hexlog, "ose")
        before = _ok(hexlog, "export")
        result = hexlog("encounter", step)
        assert result.returncode == 1
        assert result.stderr.strip() == REFUSAL.format(step=step)
        assert "Traceback" not in result.stdout + result.stderr
        assert _ok(hexlog, "export") == before

    def test_under_ose_the_next_steps_offer_the_initiative_not_the_round(self, hexlog) -> None:
        """What the round prints and ``state`` shows next: roll-initiative (and the reaction, the conclusion), never
        the round or an action; once it is rolled, the round and the actions are offered again and round 2 plays."""
        offered = _next(_after_round_one(hexlog, "ose"))
        assert offered == ["roll-initiative", "react", "conclude"]
        assert "next: hexlog encounter roll-initiative | react | conclude" in _ok(hexlog, "state")
        rolled = _ok(hexlog, "encounter", "roll-initiative")
        assert "\ninitiative: party d6=" in rolled
        assert {"round", "parley", "wait", "fight", "evade"} <= set(_next(rolled))
        assert "roll-initiative" not in _next(rolled)
        assert "round 2: party, monsters may act" in _ok(hexlog, "encounter", "round")

    @pytest.mark.parametrize("ruleset", ["explore", "adnd"])
    def test_where_initiative_is_rolled_once_round_follows_round(self, hexlog, ruleset: str) -> None:
        """explore and adnd roll initiative once per encounter: the round is offered and plays, and a second
        initiative is refused as before."""
        offered = _next(_after_round_one(hexlog, ruleset))
        assert "round" in offered
        assert "roll-initiative" not in offered
        assert "round 2:" in _ok(hexlog, "encounter", "round")
        again = hexlog("encounter", "roll-initiative")
        assert again.returncode == 1
        assert f"the rules in force ({ruleset}) roll initiative once per encounter" in again.stderr
