"""The workload the benchmarks share: an OSE campaign with a party of two, and one whole encounter.

The encounter is the dungeon sequence a referee runs most: start, check surprise, determine distance,
roll initiative, react, fight, one combat round, conclude (eight commands, about 22 events).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.machine import commands as c
from hexlog.machine import encounter as enc

if TYPE_CHECKING:
    from hexlog.machine.handler import Handler

ENCOUNTER = (
    enc.StartEncounter(monster_count=3, party_aware=True),
    enc.CheckSurprise(),
    enc.DetermineDistance(),
    enc.RollInitiative(),
    enc.RollReaction(speaker="Ann"),
    enc.Fight(),
    enc.PlayRound(),
    enc.ConcludeEncounter(outcome="slain"),
)

SETUP = (c.StartCampaign(ruleset="ose"), c.OpenSession(), c.AddMember(name="Ann", cha=13), c.AddMember(name="Bo"))


def set_up(handler: Handler, campaign: str) -> Handler:
    """Start the campaign with its session and party on ``handler``."""
    for command in SETUP:
        handler.execute(campaign, command)
    return handler
