"""A party a wilderness pursuit catches (seed 004 §4.14 "Caught: resolve encounter", OSE §2.9 caught or stopped)
meets its pursuers where the chase put them: the texts give the encounter no new distance roll for it, and in A18's
spirit (no new surprise or distance roll where the situation gives them) the encounter starts at melee range under
``options.caught_distance = melee`` (explore and ose). ``rolled``, as rules recorded before the option was read, rolls
a fresh meeting's distance. Every other encounter (the rest's after an escape, a wandering one) rolls as ever."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hexlog.events import encounter as enc_ev
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.audit import audit_store

CAMPAIGN = "caught"


@attrs.define
class Table:
    ruleset: str = "explore"
    overrides: dict[str, Any] = attrs.field(factory=dict)
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset=self.ruleset, overrides=self.overrides))
        self.run(c.OpenSession(secret_hex="e1" * 32))
        self.run(c.AddMember(name="Ann"))
        self.run(c.AddMember(name="Bo"))

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events


def _distance(events: list[Any]) -> enc_ev.DistanceDetermined:
    (found,) = [e for e in events if isinstance(e, enc_ev.DistanceDetermined)]
    return found


def _caught(ruleset: str, overrides: dict[str, Any] | None = None) -> Table:
    """Faster pursuers (240) catch the party: seed 004 on a d6 of 1, OSE on 50 % (a d100 of 1)."""
    t = Table(ruleset=ruleset, overrides=overrides or {})
    t.run(p.StartPursuit(pursuers_speed=240))
    t.run(p.RollEvasion(), 99)
    t.run(p.Flee(), 1)
    t.run(p.Catch(), 1)
    t.run(enc.CheckSurprise())  # both sides aware: nobody rolls
    return t


@pytest.mark.parametrize("ruleset", ["explore", "ose"])
def test_a_caught_party_meets_its_pursuers_at_melee_range(ruleset: str) -> None:
    t = _caught(ruleset)
    distance = _distance(t.run(enc.DetermineDistance()))  # no die: the script is empty
    assert (distance.value, distance.unit, distance.melee, distance.rolls) == (0, "yd", True, ())
    assert distance.rule == f"{ruleset}.wilderness caught"
    assert "options.caught_distance" in distance.steps[0]
    t.run(enc.RollInitiative(), 5, 2)
    t.run(enc.ConcludeEncounter(outcome="fought"))
    assert audit_store(t.handler.store, CAMPAIGN, REGISTRY).findings == ()


def test_an_ose_party_that_stops_is_met_at_melee_range() -> None:
    t = Table(ruleset="ose")
    t.run(p.StartPursuit(pursuers_speed=60))
    t.run(p.RollEvasion(), 99)
    t.run(p.Flee(), 1)
    t.run(p.Stop())
    t.run(enc.CheckSurprise())
    assert _distance(t.run(enc.DetermineDistance())).melee


def test_rolled_keeps_a_fresh_meetings_distance() -> None:
    t = _caught("explore", {"options": {"caught_distance": "rolled"}})
    distance = _distance(t.run(enc.DetermineDistance(), 3, 3, 3, 3))
    assert (distance.value, distance.melee) == (120, False)


def test_an_encounter_no_pursuit_caught_rolls_its_distance() -> None:
    t = Table()
    t.run(enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True))
    t.run(enc.CheckSurprise())
    assert _distance(t.run(enc.DetermineDistance(), 3, 3, 3, 3)).value == 120
