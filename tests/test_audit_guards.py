"""The audit holds every decision it re-runs to the guards, the invariants the procedures own over other commands.

The handler refuses a command that would break one (a travel day's weather while a pursuit runs, the journey going
on past a castle whose ride-out is unchecked). A referee who owns the database can write such a decision anyway,
past the handler: the audit re-runs each decision through the same guards the referee's door holds it to, so the
forgery is a finding naming the guard's reason. The commands hexlog alone gives (the audit's re-runs of decisions
an older release recorded) are refused at the referee's door, not by the guards, so the audit can still run them.
"""

from __future__ import annotations

import functools
import re

import pytest

from hexlog.events.errors import RuleRefusedError
from hexlog.machine import commands as c
from hexlog.machine.castle import commands as k
from hexlog.machine.castle.machine import guard as castle_guard
from hexlog.machine.hexmap import SetHex
from hexlog.machine.kit.registry import Registry
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.pursuit.guard import OWN_TIME
from hexlog.machine.pursuit.guard import guard as pursuit_guard
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_store
from hexlog.service.cli_advice import cli_words
from hexlog.service.http_commands import route_words

from .scripted_play import ScriptedPlay

CAMPAIGN = "guards"
WAITS = "a pursuit is under way; RollWeather waits until it ends (caught or escaped)"


def fleeing(*, pursued: bool = True) -> ScriptedPlay:
    """Explore on committed dice: Al and Bo set out from a meadow, and a pursuit starts before the day's weather
    (unless not ``pursued``)."""
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    play.run(c.StartCampaign(ruleset="explore"))
    play.run(c.OpenSession(secret_hex="5a" * 32))
    play.run(c.AddMember(name="Al"))
    play.run(c.AddMember(name="Bo"))
    play.run(SetHex(hex="2,2", terrain="meadow"))
    play.run(t.StartJourney(hex="2,2", season="winter"))
    if pursued:
        play.run(pu.StartPursuit(pursuers=2, pursuers_speed=60, evasion_failed=True))
    return play


def audited(play: ScriptedPlay) -> tuple[list[tuple[int | None, str, str]], int]:
    """The audit's findings (stream version, check, reason) and the stream version of the last day's weather."""
    play.run(c.CloseSession())
    report = audit_store(play.h.store, CAMPAIGN, REGISTRY)
    weather = max(
        r.version for r in play.h.store.read_stream(stream_for(CAMPAIGN)) if r.envelope.type.endswith("day_started")
    )
    return [(f.streamversion, f.check, f.reason) for f in report.findings], weather


class TestADecisionPastAGuard:
    def test_the_handler_refuses_the_weather_while_a_pursuit_runs(self) -> None:
        play = fleeing()
        before = play.h.store.stream_version(stream_for(CAMPAIGN))
        with pytest.raises(RuleRefusedError, match=f"^{re.escape(WAITS)}$"):
            play.run(t.RollWeather())
        assert play.h.store.stream_version(stream_for(CAMPAIGN)) == before

    def test_written_past_the_handler_it_is_a_finding_naming_the_guard(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The weather rolled while the pursuit runs, the pursuit's guard (and its hold on game time) switched off as a
        forger's own copy of hexlog would: the audit re-runs the roll's decision through the guards and names the one
        it breaks."""
        play = fleeing()
        unguarded = Registry(REGISTRY.procedures)
        monkeypatch.setattr(unguarded, "_guards", tuple(g for g in REGISTRY.guards if g is not pursuit_guard))
        monkeypatch.setattr(play.h, "registry", unguarded)
        # the day's start lets time pass, which the pursuit's hold on game time refuses too
        monkeypatch.setattr(unguarded, "_due_checks", tuple(d for d in REGISTRY.due_checks if d is not OWN_TIME))
        play.run(t.RollWeather())
        monkeypatch.undo()
        findings, weather = audited(play)
        assert findings == [
            (weather, "decision", f"travel.day_started: the rules refuse this decision here: {WAITS}"),
        ]

    def test_the_same_decision_where_the_guard_lets_it_be_audits_clean(self) -> None:
        """The control: with no pursuit under way, the same weather is no finding."""
        play = fleeing(pursued=False)
        play.run(t.RollWeather())
        findings, _ = audited(play)
        assert findings == []


class TestACastlePassed:
    def test_the_wandering_check_past_an_unchecked_ride_out_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Two hexes east along a road, a lord's castle two hexes off owes its ride-out check (``castle pass``) before
        the day closes. The day's wandering check written past the castle's guard is a finding naming the check."""
        play = ScriptedPlay(CAMPAIGN, scripted=False)
        play.run(c.StartCampaign(ruleset="explore"))
        play.run(c.OpenSession(secret_hex="5a" * 32))
        play.run(c.AddMember(name="Al"))
        for col in range(4):
            play.run(SetHex(hex=f"{col},0", terrain="meadow", road=True))
        play.run(SetHex(hex="2,2", terrain="hills"))
        play.run(k.PlaceCastle(hex="2,2", castle_type="lord", disposition="hostile"))
        play.run(t.StartJourney(hex="0,0"))
        play.run(t.RollWeather(weather="clear"))
        play.run(t.DeclareRoute(headings=("SE", "NE")))
        play.run(t.Move(hexes=2))
        owed = "the castles' garrisons are checked each travel day before it closes, wherever the party is"
        with pytest.raises(RuleRefusedError, match=re.escape(owed)):
            play.run(t.CheckWandering())
        unguarded = Registry(REGISTRY.procedures)
        monkeypatch.setattr(unguarded, "_guards", tuple(g for g in REGISTRY.guards if g is not castle_guard))
        monkeypatch.setattr(play.h, "registry", unguarded)
        play.run(t.CheckWandering())
        monkeypatch.undo()
        play.run(c.CloseSession())
        report = audit_store(play.h.store, CAMPAIGN, REGISTRY)
        check = max(
            r.version
            for r in play.h.store.read_stream(stream_for(CAMPAIGN))
            if r.envelope.type.endswith("wandering_checked")
        )
        assert [(f.streamversion, f.check) for f in report.findings] == [(check, "decision")], report.text()
        assert report.findings[0].reason.startswith(
            f"travel.wandering_checked: the rules refuse this decision here: {owed}"
        ), report.findings[0].reason


class TestTheCommandsHexlogAloneGives:
    @pytest.mark.parametrize(
        ("command", "words", "said"),
        [
            (
                t.RestDayWhileExerting(),
                "'rest day while exerting' is the audit's, re-running a rest day an older release recorded; use {}",
                ("hexlog travel rest", "POST /campaigns/main/travel/rest"),
            ),
            (
                pu.RestTrueHex(),
                "'rest true hex' is made by hexlog's audit alone; use {}",
                ("hexlog pursuit rest", "POST /campaigns/main/pursuit/rest"),
            ),
            (
                t.SearchRoll(),
                "'search roll' is made by hexlog when a search goes on; use {}",
                ("hexlog travel search", "POST /campaigns/main/travel/search"),
            ),
        ],
    )
    def test_the_referee_s_door_refuses_them_and_writes_nothing(
        self, command: c.Command, words: str, said: tuple[str, str]
    ) -> None:
        """The refusal names the step to use instead, each door in its own words (a pursuit's ``rest``, not the
        dungeon's: two procedures have a ``Rest``)."""
        play = fleeing()
        before = play.h.store.stream_version(stream_for(CAMPAIGN))
        with pytest.raises(RuleRefusedError) as refused:
            play.run(command)
        assert play.h.store.stream_version(stream_for(CAMPAIGN)) == before
        cli, http = said
        assert refused.value.said(cli_words) == words.format(cli)
        assert refused.value.said(functools.partial(route_words, registry=REGISTRY, campaign="main")) == words.format(
            http
        )

    def test_every_one_is_declared_by_the_procedure_that_runs_it(self) -> None:
        """Each procedure's ``internal`` names commands of its own steps, and no command a user gives (a trigger)."""
        for procedure in REGISTRY:
            for command in procedure.internal:
                assert command in procedure.steps, (procedure.name, command)
                assert command not in procedure.triggers, (procedure.name, command)
