"""An encounter's avoid forged past the dice: a referee who owns the database rewrites an avoid and reseals the chain.

No dice decide an avoid, but the surprise and the distance before it do, and the rules decide who may slip away and
from how far (AD&D §3.2-3.4). Since ``encounter.action_chosen`` version 3, which records what the referee gave for it,
the audit runs the avoid again on the state before it: one the rules refuse there is a finding. An avoid an earlier
release recorded is let be (it did not record what the referee gave), and one relabelled to look like it is a finding
of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
import pytest

from hexlog.events.chain import reseal
from hexlog.machine import commands as c
from hexlog.machine.encounter import commands as e
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay
from .test_forged_steps import edited, findings, version_of, where

if TYPE_CHECKING:
    from hexlog.events.chain import Envelope

CAMPAIGN = "avoided"
#: the party's surprise d6 rolls 1 on these dice, the monsters' 4: the monsters alone surprise the party
SECRET = "5a" * 32


def played(*commands: c.Command, overrides: dict[str, Any] | None = None) -> list[Envelope]:
    """The log of Al and Bo under adnd on committed dice: ``commands``, then the session closes."""
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    for command in (
        c.StartCampaign(ruleset="adnd", overrides=overrides or {}),
        c.OpenSession(secret_hex=SECRET),
        c.SetClientSeed(client_seed="dice we trust"),
        c.AddMember(name="Al"),
        c.AddMember(name="Bo"),
        *commands,
        c.CloseSession(),
    ):
        play.run(command)
    return read_export(list(export_lines(play.h.store, CAMPAIGN)))


def avoided(*, distance: int = 30, avoid: e.Avoid | None = None, **overrides: Any) -> list[Envelope]:
    """Orcs met indoors, ``distance`` ft away as the referee sets it; the monsters, who alone surprised the party,
    slip away."""
    return played(
        e.StartEncounter(setting="indoors", name="orcs"),
        e.CheckSurprise(),
        e.DetermineDistance(value=distance),
        avoid or e.Avoid(side="monsters"),
        overrides=overrides or None,
    )


@pytest.fixture(scope="module")
def log() -> list[Envelope]:
    return avoided()


def test_the_honest_avoid_is_clean(log: list[Envelope]) -> None:
    chosen = log[where(log, "encounter.action_chosen")]
    assert chosen.schemaversion == 3
    assert chosen.data == {
        "side": "monsters",
        "action": "avoid",
        "note": "add20: the monsters are 30 ft away (need 20 ft): they slip away unnoticed",
        "rate_inches": None,
        "detection_range_ft": None,
    }
    assert findings(log) == []


def test_an_avoid_from_too_close_is_a_finding(log: list[Envelope]) -> None:
    """The distance the referee set rewritten to 10 ft, the avoid kept: add20 lets the monsters slip away only from
    20 ft indoors, so the rules refuse the avoid there."""
    distance = where(log, "encounter.distance_determined")
    forged = edited(log, distance, value=10, steps=["the referee set 10 ft"])
    chosen = where(forged, "encounter.action_chosen")
    assert findings(forged) == [
        (
            version_of(chosen),
            "decision",
            (
                "encounter.action_chosen: the rules cannot re-run this decision here: encounter: 'avoid' refused in "
                "phase FREE_ACTION: add20: the monsters are 10 ft away (need 20 ft): too close to slip away"
            ),
        )
    ]


def test_an_avoid_by_the_side_surprised_is_a_finding(log: list[Envelope]) -> None:
    """The party, which the monsters surprised, said to slip away instead."""
    chosen = where(log, "encounter.action_chosen")
    assert findings(edited(log, chosen, side="party")) == [
        (
            version_of(chosen),
            "decision",
            (
                "encounter.action_chosen: the rules cannot re-run this decision here: encounter: 'avoid' refused in "
                "phase FREE_ACTION: only a side that alone surprised the other, or faces a noisy one, may avoid it "
                "(advantage: monsters)"
            ),
        )
    ]


def test_an_avoids_verdict_rewritten_is_a_finding(log: list[Envelope]) -> None:
    chosen = where(log, "encounter.action_chosen")
    forged = edited(log, chosen, note="add20: the monsters are 90 ft away (need 20 ft): they slip away unnoticed")
    found = findings(forged)
    assert [(v, check) for v, check, _ in found] == [(version_of(chosen), "decision")]
    assert found[0][2].startswith('note "add20: the monsters are 90 ft away')


def test_an_avoid_relabelled_as_an_earlier_releases_is_a_finding(log: list[Envelope]) -> None:
    """An avoid of ``encounter.action_chosen`` version 2 is let be, as its release recorded nothing the referee gave;
    one relabelled so after a session of a later release names it is a finding of the release order."""
    chosen = where(log, "encounter.action_chosen")
    older = {key: log[chosen].data[key] for key in ("side", "action", "note")}
    forged = [*log[:chosen], attrs.evolve(log[chosen], schemaversion=2, data=older), *log[chosen + 1 :]]
    report = audit_envelopes(reseal(forged))
    assert [(f.streamversion, f.check) for f in report.findings] == [(version_of(chosen), "schema")]


def test_an_avoid_judged_on_the_referees_numbers_is_their_hand() -> None:
    """Under the movement rule the avoid reads the rate and the detection range the referee gives: recorded, re-run
    with them, and named under the referee's hand."""
    log = avoided(
        avoid=e.Avoid(side="monsters", rate_inches=3, detection_range_ft=30), options={"avoid_rule": "movement"}
    )
    chosen = log[where(log, "encounter.action_chosen")]
    assert (chosen.data["rate_inches"], chosen.data["detection_range_ft"]) == (3, 30)
    report = audit_envelopes(log)
    assert report.findings == ()
    assert any(
        "the monsters avoiding the encounter, judged on a movement rate of 3 inches and a detection range of 30 ft "
        "given by the referee" in line
        for line in report.by_hand
    ), report.by_hand
    at = where(log, "encounter.action_chosen")
    assert [(v, check) for v, check, _ in findings(edited(log, at, detection_range_ft=400))] == [
        (version_of(at), "decision")
    ]
