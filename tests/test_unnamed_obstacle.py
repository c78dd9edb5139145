"""A chase round whose pursuers an earlier release let the referee slow or stop without naming the obstacle (release 34
took ``chase run --slows-ft 120`` alone): the audit re-runs it as it was played, and names it the referee's hand, which
it did not, so a player reading the audit sees the round the referee decided."""

from __future__ import annotations

from unittest import mock

from hexlog.machine import commands as c
from hexlog.machine.chase import commands as ch
from hexlog.machine.chase import steps
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay

CAMPAIGN = "unnamed"


def test_an_unnamed_slowing_and_stop_audit_as_played_and_are_named_the_referee_s_hand() -> None:
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex="5a" * 32),
        c.SetClientSeed(client_seed="our words"),
        c.AddMember(name="Ann"),
        ch.StartChase(gap_ft=30, fleeing_ft=90, pursuers_ft=120),
    ):
        play.run(command)
    with mock.patch.object(steps, "obstacle_named", return_value=None):
        play.run(ch.Run(slows_ft=120))
        play.run(ch.Run(stops=True))
    play.run(c.CloseSession())
    report = audit_envelopes(read_export(list(export_lines(play.h.store, CAMPAIGN))))
    assert report.findings == (), report.text()
    text = report.text()
    assert "the pursuers slowed by 120 ft in round 1 by the referee's word, naming no obstacle" in text
    assert "the pursuers stopped in round 2 by the referee's word, naming no obstacle" in text
