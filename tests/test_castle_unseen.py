"""The players cannot tell from the castles' checks where a lost party truly went: the day's check rolls every
castle's die, the one the party truly passed and those it did not (for show), so what they see of a day is the
same whether the party strayed near a castle or kept to its road."""

from __future__ import annotations

from hexlog.events import castle as ev
from hexlog.events.memory import MemoryStore
from hexlog.machine import castle as k
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.service.render import timeline

CAMPAIGN = "t"


def day(*, lost: bool) -> tuple[Handler, ev.CastlesPassed]:
    """A day's march north from 0,4 to 0,2, a castle at 3,4 three hexes off the way: kept to (the lost die 6), or
    lost and truly heading SE towards the castle (the lost die 1, the heading die 3); the day's check, its close."""
    script: list[int] = []
    h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="cd" * 32), c.AddMember(name="Ann")):
        h.execute(CAMPAIGN, command)
    for col in range(6):
        for row in range(6):
            h.execute(CAMPAIGN, SetHex(hex=f"{col},{row}", terrain="meadow"))
    h.execute(CAMPAIGN, k.PlaceCastle(hex="3,4", castle_type="lord", disposition="neutral"))
    h.execute(CAMPAIGN, t.StartJourney(hex="0,4"))
    h.execute(CAMPAIGN, t.RollWeather(weather="clear"))
    script.extend([1 if lost else 6, 3])
    h.execute(CAMPAIGN, t.DeclareRoute(headings=("N", "N")))
    h.execute(CAMPAIGN, t.Move(hexes=2))
    assert h.load(CAMPAIGN).procedures["travel"].believed == "0,2"
    script.append(6)  # the garrison stays in, whatever its chance
    passed = next(e for e in h.execute(CAMPAIGN, k.PassCastles()).events if isinstance(e, ev.CastlesPassed))
    script.append(6)  # no wandering monsters
    h.execute(CAMPAIGN, t.CheckWandering())
    assert script == []
    return h, passed


def test_the_players_see_the_same_day_whether_the_party_passed_the_castle_or_not() -> None:
    seen = []
    checks = {}
    for lost in (True, False):
        h, passed = day(lost=lost)
        ((check,),) = [passed.passed]
        checks[lost] = check
        lines = [line.text for line in timeline(list(h.store.read_stream(stream_for(CAMPAIGN))), player=True)]
        seen.append(lines[next(i for i, text in enumerate(lines) if text.startswith("travel: route")) :])
    assert checks[True].ride_out_on  # the lost party truly passed within reach: its check counts
    assert checks[False].ride_out_on == ()  # the party on its road did not: the die is for show
    assert seen[0] == seen[1]
    assert any("castle.passed" in text for text in seen[0])
