"""A procedure that runs for a party keeps its last member while it is under way.

Each one declares it (``Procedure.needs_party``) and the kit refuses the removal of the party's last member while it
runs, naming it and how to end it, with nothing written: a delve moved or searched for nobody, a journey or a
pursuit for nobody, would roll for no one (and a delve's move had no slowest member to take its rate from). Another
member may go; once the procedure ends, the last one may too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import pytest

from hexlog.events.errors import RuleRefusedError
from hexlog.machine import commands as c
from hexlog.machine.chase import commands as ch
from hexlog.machine.dungeon import commands as d
from hexlog.machine.encounter import StartEncounter
from hexlog.machine.hexmap import SetHex
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.kit.registry import Registry
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t

from .scripted_play import ScriptedPlay

if TYPE_CHECKING:
    from hexlog.machine.commands import Command

CAMPAIGN = "last"
#: each procedure that runs for a party, the command that starts it, and the one that ends it
UNDER_WAY: dict[str, tuple[Command, Command | None]] = {
    "encounter": (StartEncounter(party_aware=True, monsters_aware=True), None),
    "dungeon": (d.EnterDungeon(name="crypt"), d.LeaveDungeon()),
    "travel": (t.StartJourney(hex="2,2"), t.EndJourney()),
    "pursuit": (pu.StartPursuit(pursuers=2, pursuers_speed=60, evasion_failed=True), None),
    "chase": (ch.StartChase(gap_ft=30, fleeing_ft=40, pursuers_ft=120, relentless=True), None),
}


def started(procedure: str, *members: str) -> ScriptedPlay:
    """Explore on committed dice, the party of ``members`` in a meadow, ``procedure`` started."""
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    play.run(c.StartCampaign(ruleset="explore"))
    play.run(c.OpenSession())
    for name in members:
        play.run(c.AddMember(name=name))
    play.run(SetHex(hex="2,2", terrain="meadow"))
    play.run(UNDER_WAY[procedure][0])
    return play


def test_every_procedure_that_runs_for_a_party_says_so() -> None:
    declared = {p.name for p in REGISTRY if isinstance(p, Procedure) and p.needs_party}
    assert declared == set(UNDER_WAY)


@pytest.mark.parametrize("procedure", sorted(UNDER_WAY))
def test_the_last_member_is_kept_while_it_runs(procedure: str) -> None:
    play = started(procedure, "Ann", "Bo")
    play.run(c.RemoveMember(name="Bo"))
    before = play.h.store.stream_version(stream_for(CAMPAIGN))
    words = REGISTRY.procedure(procedure).needs_party
    with pytest.raises(RuleRefusedError, match=f"^Ann is the last member of the party while {words}$"):
        play.run(c.RemoveMember(name="Ann"))
    assert play.h.store.stream_version(stream_for(CAMPAIGN)) == before
    assert [m.name for m in play.h.load(CAMPAIGN).party.members] == ["Ann"]


@pytest.mark.parametrize("procedure", ["dungeon", "travel"])
def test_once_it_ends_the_last_member_may_go(procedure: str) -> None:
    play = started(procedure, "Ann")
    end = UNDER_WAY[procedure][1]
    assert end is not None
    play.run(end)
    play.run(c.RemoveMember(name="Ann"))
    assert play.h.load(CAMPAIGN).party.members == ()


def test_a_delve_of_an_earlier_release_left_with_nobody_refuses_to_move_or_search() -> None:
    """A log written before the rule may hold a delve with no member: its move and search refuse, nothing written."""
    play = started("dungeon", "Ann")
    play.h.registry = Registry([attrs.evolve(p, needs_party="") for p in REGISTRY.procedures])
    play.run(c.RemoveMember(name="Ann"))
    play.h.registry = REGISTRY
    before = play.h.store.stream_version(stream_for(CAMPAIGN))
    for command, verb in ((d.Move(), "move"), (d.Search(), "search")):
        with pytest.raises(RuleRefusedError, match=f"^the party has no members to {verb}; add one with"):
            play.run(command)
    assert play.h.store.stream_version(stream_for(CAMPAIGN)) == before
