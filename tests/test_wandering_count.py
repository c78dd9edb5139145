"""The players cannot count a delve's secret wandering checks to learn that a monster came.

Checks fall due every second turn while the party explores, and none is rolled while a monster that came waits to
be met. A command that let time pass beyond the check a monster came on (``clock advance "6 turns"``, a travel day's
weather during a delve) recorded that check and then let the later boundaries pass unrolled: one hidden check where
a quiet span shows three, so the players knew a monster was coming, and on which turn, before the referee met it.
Such a command is refused at the referee's door and writes nothing; a log an earlier release wrote so still audits.
"""

from __future__ import annotations

import pytest

from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import to_data
from hexlog.events.errors import RuleRefusedError
from hexlog.events.store import NewEvent
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine.hexmap import SetHex
from hexlog.machine.registry import REGISTRY
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_store

from .test_dungeon_machine import CAMPAIGN, Delve, exploring

TURN = 600


def _checks(d: Delve) -> int:
    return sum(r.envelope.type == "hexlog.dungeon.wandering_checked" for r in d.handler.store.read_all())


class TestAtTheReferee:
    def test_an_advance_past_the_check_a_monster_comes_on_is_refused_and_writes_nothing(self) -> None:
        d = exploring()
        before = d.version
        with pytest.raises(RuleRefusedError, match=r"a wandering monster comes at turn 2 .* check due at turn 4"):
            d.run(AdvanceClock(duration="6 turns"), 1)
        d.script.clear()
        assert d.version == before
        assert _checks(d) == 0

    def test_a_quiet_advance_rolls_every_check_and_one_to_the_monsters_check_is_allowed(self) -> None:
        quiet = exploring()
        quiet.run(AdvanceClock(duration="6 turns"), 6, 6, 6)
        assert _checks(quiet) == 3
        d = exploring()
        d.run(AdvanceClock(duration="2 turns"), 1)
        assert d.state.monster_due
        d.run(dg.Meet())

    def test_a_travel_days_weather_during_a_delve_is_refused_so_too(self) -> None:
        """The first day's weather runs the clock on to 08:00 (48 turns): a monster on the first check would leave
        23 checks unrolled."""
        d = Delve()
        d.run(SetHex(hex="1,1", terrain="meadow"))
        d.run(dg.EnterDungeon())
        d.run(dg.LightSource(kind="torch", by="Ann"))
        d.run(t.StartJourney(hex="1,1"))
        before = d.version
        with pytest.raises(RuleRefusedError, match="a wandering monster comes at turn 2"):
            d.run(t.RollWeather(weather="clear"), 1)
        d.script.clear()
        assert d.version == before


def test_a_log_whose_advance_passed_checks_unrolled_still_audits_clean() -> None:
    """An earlier release recorded the monster's check, then two more turns with the turn-4 check unrolled: the audit
    takes the log as that release recorded it."""
    d = exploring()
    d.run(AdvanceClock(duration="2 turns"), 1)
    store = d.handler.store
    stream = f"campaign-{CAMPAIGN}"
    last = store.read_stream(stream)[-1].envelope
    turn = ClockAdvanced(seconds=TURN, rounds=10, turns=1, reason="searching")
    new = [
        NewEvent(f"00000000-0000-4000-8000-00000000000{i}", last.source, turn.cloud_type(), last.time, 1, to_data(turn))
        for i in range(2)
    ]
    store.append(stream, new, expected_version=d.version)
    d.run(dg.Meet())
    d.run(c.CloseSession())
    report = audit_store(store, CAMPAIGN, REGISTRY)
    assert report.findings == (), report.text()


def test_an_encounters_own_time_is_not_refused() -> None:
    """An encounter run while the party explores (not one the delve met) ends with its rounds on the clock, which the
    referee cannot let pass in steps: the monster's check is rolled and the boundaries after it pass unrolled."""
    d = Delve()
    d.run(dg.EnterDungeon(danger=True))
    d.run(dg.LightSource(kind="torch", by="Ann"))
    steps = [
        enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True, intelligent=False),
        enc.CheckSurprise(),
        enc.DetermineDistance(value=10),
        enc.RollInitiative(),
        enc.Fight(),
        *[enc.PlayRound()] * 12,
    ]
    for step in steps:  # the encounter's own dice: whatever they are, sixes
        d.script[:] = [6] * 4
        d.handler.execute(CAMPAIGN, step)
    d.script[:] = [1]
    d.handler.execute(CAMPAIGN, enc.ConcludeEncounter())  # two turns: a check on each, the second passed unrolled
    assert d.script == []
    assert _checks(d) == 1
    assert d.state.monster_due


def test_a_monster_that_came_before_holds_a_travel_days_weather_too() -> None:
    """The referee's advance waits for a monster that has come (the delve's guard); a travel day's weather, which
    would let its checks pass unrolled too, is refused so."""
    d = Delve()
    d.run(SetHex(hex="1,1", terrain="meadow"))
    d.run(dg.EnterDungeon())
    d.run(dg.LightSource(kind="torch", by="Ann"))
    d.run(dg.Move())
    d.run(dg.Move(), 1)
    assert d.state.monster_due
    d.run(t.StartJourney(hex="1,1"))
    before = d.version
    with pytest.raises(RuleRefusedError, match="a wandering monster has come while this lets time pass on"):
        d.run(t.RollWeather(weather="clear"))
    assert d.version == before
