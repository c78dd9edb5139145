"""An encounter's time runs in rounds, and a pursuit's is its own: while one is under way, another procedure's step that
would let game time pass (a delve's turn, a camp's night, a travel day run on to its end) is refused and writes nothing,
as the referee's own advance of the clock is; their own steps, and those of a procedure they hand off to, pass their
time. A log an earlier release recorded so audits as it was played."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from hexlog.events.errors import RuleRefusedError
from hexlog.machine import commands as c
from hexlog.machine.camp import commands as cc
from hexlog.machine.dungeon import commands as dc
from hexlog.machine.encounter import commands as ec
from hexlog.machine.kit.context import StepContext
from hexlog.machine.pursuit import commands as pc
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay

CAMPAIGN = "rounds"
REFUSED = "an encounter is under way and its time runs in rounds; this {} step would let time pass meanwhile"
PURSUED = "a pursuit is under way and game time is the pursuit's; this {} step would let time pass meanwhile"


def _play(*, meeting: c.Command | None = None) -> ScriptedPlay:
    """Ann and Bo under explore on committed dice, inside a delve, an encounter started by hand (or ``meeting``)."""
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex="5a" * 32),
        c.SetClientSeed(client_seed="our words"),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
        dc.EnterDungeon(name="crypt"),
        meeting or ec.StartEncounter(setting="dungeon", monster_count=2, party_aware=True, monsters_aware=True),
    ):
        play.run(command)
    return play


def _count(play: ScriptedPlay) -> int:
    return len(list(export_lines(play.h.store, CAMPAIGN)))


@pytest.mark.parametrize("step", [dc.Move(), dc.Search(), dc.Rest()])
def test_a_delve_turn_waits_for_the_encounter_under_way(step: Any) -> None:
    play = _play()
    before = _count(play)
    with pytest.raises(RuleRefusedError, match=REFUSED.format("dungeon")):
        play.run(step)
    assert _count(play) == before
    play.run(ec.CancelEncounter(reason="started by mistake"))
    assert play.run(step)  # once it is over, the delve's time passes


def test_a_camp_night_waits_for_the_encounter_under_way() -> None:
    play = _play()
    for command in (
        cc.MakeCamp(weather="clear", terrain="clear"),
        cc.SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")),
        cc.CheckNight(),  # a quiet night on these dice
    ):
        play.run(command)
    before = _count(play)
    with pytest.raises(RuleRefusedError, match=REFUSED.format("camp")):
        play.run(cc.BreakCamp())
    assert _count(play) == before


@pytest.mark.parametrize("step", [dc.Move(), dc.Rest()])
def test_a_delve_turn_waits_for_a_pursuit_under_way(step: Any) -> None:
    play = _play(meeting=pc.StartPursuit(terrain="swamp", evasion_failed=True))
    before = _count(play)
    with pytest.raises(RuleRefusedError, match=PURSUED.format("dungeon")):
        play.run(step)
    assert _count(play) == before
    assert play.run(pc.Flee())  # the pursuit's own time passes


def test_the_encounter_s_own_steps_pass_its_time() -> None:
    play = _play()
    for command in (ec.CheckSurprise(), ec.DetermineDistance(), ec.RollInitiative(), ec.PlayRound()):
        play.run(command)
    assert play.run(ec.ConcludeEncounter())


def test_a_log_that_let_a_delve_turn_pass_in_an_encounter_audits_as_played() -> None:
    """Release 34 let a delve's turns pass while an encounter started by hand was under way: no finding."""
    play = _play()
    with mock.patch.object(StepContext, "running", property(lambda _ctx: None)):
        play.run(dc.Move())
        play.run(dc.Rest())
    play.run(ec.CancelEncounter(reason="started by mistake"))
    play.run(dc.LeaveDungeon())
    play.run(c.CloseSession())
    report = audit_envelopes(read_export(list(export_lines(play.h.store, CAMPAIGN))))
    assert report.findings == (), report.text()
