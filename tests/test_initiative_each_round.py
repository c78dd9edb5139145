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

from hexlog.events import encounter as ev
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.encounter.machine import EncounterModel
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_store

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
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


CAMPAIGN = "c1"


def _campaign(ruleset: str) -> Handler:
    """A campaign under ``ruleset`` with one member and an encounter whose first initiative is rolled."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    for command in (c.StartCampaign(ruleset=ruleset), c.OpenSession(), c.AddMember(name="Ann")):
        handler.execute(CAMPAIGN, command)
    for command in (
        enc.StartEncounter(party_aware=True, monsters_aware=True),
        enc.CheckSurprise(),
        enc.DetermineDistance(value=30),
        enc.RollInitiative(),
    ):
        handler.execute(CAMPAIGN, command)
    return handler


def _without_the_roll(handler: Handler, steps: Sequence[c.Command], monkeypatch: pytest.MonkeyPatch) -> None:
    """``steps`` recorded as a release before the rule recorded them: the machine lets a later round go on on the last
    initiative."""
    with monkeypatch.context() as old:
        old.setattr(EncounterModel, "initiative_rolled", lambda _self: True)
        for step in steps:
            handler.execute(CAMPAIGN, step)
    handler.execute(CAMPAIGN, enc.ConcludeEncounter())
    handler.execute(CAMPAIGN, c.CloseSession())


#: round 1, then rounds 2 and 3 with a parley in round 2, on the first round's initiative alone
LATER = (enc.PlayRound(), enc.PlayRound(), enc.Parley(), enc.PlayRound())


class TestTheAudit:
    def test_an_honest_log_with_the_rolls_audits_clean(self) -> None:
        """Round, initiative, a parley, round: every round on its own initiative."""
        handler = _campaign("ose")
        for step in (enc.PlayRound(), enc.RollInitiative(), enc.Parley(), enc.PlayRound(), enc.ConcludeEncounter()):
            handler.execute(CAMPAIGN, step)
        handler.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_log_of_today_that_skips_the_roll_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Rounds 2 and 3 and a parley in round 2 written at today's versions with no initiative after round 1 (as a
        referee owning the database could append them): each is a finding naming the round whose roll is missing."""
        handler = _campaign("ose")
        _without_the_roll(handler, LATER, monkeypatch)
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        said = [(f.check, f.reason) for f in report.findings]
        tail = "which the rules in force (ose) roll at the start of every round"
        assert said == [
            (
                "decision",
                f"encounter.round_played: round 2 played before the initiative for round 2 was rolled, {tail}",
            ),
            (
                "decision",
                f"encounter.action_chosen: parley chosen before the initiative for round 3 was rolled, {tail}",
            ),
            (
                "decision",
                f"encounter.round_played: round 3 played before the initiative for round 3 was rolled, {tail}",
            ),
        ]

    def test_a_log_an_older_release_wrote_audits_clean(self, monkeypatch: pytest.MonkeyPatch, unraised) -> None:
        """The same play recorded at version 1 of both events, by a release that let a round go on on the last
        initiative, under today's ose (whose builds wrote version 1 until this rule): no finding."""
        unraised("encounter.round_played")
        unraised("encounter.action_chosen")
        handler = _campaign("ose")
        with monkeypatch.context() as old:
            old.setattr(ev.RoundPlayed, "schema_version", 1)
            old.setattr(ev.ActionChosen, "schema_version", 1)
            _without_the_roll(handler, LATER, monkeypatch)
        records = handler.store.read_stream(f"campaign-{CAMPAIGN}")
        played = [r.envelope.schemaversion for r in records if r.envelope.type.endswith(".round_played")]
        assert played == [1, 1, 1]
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_where_initiative_is_rolled_once_no_round_is_a_finding(self) -> None:
        """explore: round after round on the one initiative, at today's versions, audits clean."""
        handler = _campaign("explore")
        for step in (*LATER, enc.ConcludeEncounter(), c.CloseSession()):
            handler.execute(CAMPAIGN, step)
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
