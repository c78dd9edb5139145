"""A wilderness pursuit's lines say what it counts: hexes fled under seed 004, days of flight under OSE (§2.9: the
pursuit is resolved one day at a time). A flight's, a rest's and an end's event name no rules; the pursuit's start
does, and the line of each later event reads it back: in the timeline, the live stream, a command's output."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hexlog.events import pursuit as ev
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.table import stream_for
from hexlog.service import render
from hexlog.service.http_events import seen

from .conftest import secret_file

CAMPAIGN = "pt"
STREAM = stream_for(CAMPAIGN)


@attrs.define
class Table:
    ruleset: str
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        for command in (c.StartCampaign(ruleset=self.ruleset), c.OpenSession(secret_hex="a7" * 32)):
            self.handler.execute(CAMPAIGN, command)
        self.handler.execute(CAMPAIGN, c.AddMember(name="Ann"))

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events


def escaped_after_two_flights(ruleset: str) -> Table:
    """A party of one flees one slower pursuer: its first roll fails, it flees, fails, flees, then gets away."""
    t = Table(ruleset)
    t.run(p.StartPursuit(pursuers_speed=60))
    t.run(p.RollEvasion(), 99)
    t.run(p.Flee(), 4)
    if ruleset == "ose":  # OSE: slower pursuers do not give up; the party rolls again
        t.run(p.RollEvasion(), 99)
        t.run(p.Flee(), 1)
        t.run(p.RollEvasion(), 1)
        t.run(p.Rest())
    else:  # seed 004: slower pursuers give up after the first hex
        t.run(p.Rest(), 6)
    return t


#: the words of each ruleset: a flight's, the end's
WORDS = {
    "ose": ("1 day of flight so far", "pursuit 1 ends: escaped after 2 days of flight"),
    "explore": ("1 fled so far", "pursuit 1 ends: escaped after 1 hex"),
}


@pytest.mark.parametrize("ruleset", ["ose", "explore"])
def test_the_timeline_counts_in_the_pursuits_own_words(ruleset: str) -> None:
    t = escaped_after_two_flights(ruleset)
    text = "\n".join(line.text for line in render.timeline(t.handler.store.read_stream(STREAM)))
    flight, end = WORDS[ruleset]
    assert flight in text
    assert end in text
    if ruleset == "ose":
        assert "hex" not in text.split("pursuit 1 begins")[1]


@pytest.mark.parametrize("player", [False, True])
def test_the_live_stream_counts_an_ose_pursuit_in_days(player: bool) -> None:  # noqa: FBT001 - a parameter
    t = escaped_after_two_flights("ose")
    lines = [text for _, text in seen(t.handler.store.read_stream(STREAM), player=player)]
    assert any(WORDS["ose"][0] in line for line in lines)
    assert WORDS["ose"][1] in lines


def test_a_flight_told_on_its_own_reads_its_pursuits_start_from_the_table() -> None:
    """A command's door tells the events it recorded from the table it left, which holds the pursuit's start."""
    t = Table("ose")
    t.run(p.StartPursuit(pursuers_speed=60))
    t.run(p.RollEvasion(), 99)
    t.script[:] = [4]
    outcome = t.handler.execute(CAMPAIGN, p.Flee())
    context = render.context(outcome.table)
    fled = [render.describe(e, context) for e in outcome.events if isinstance(e, ev.PursuitFled)]
    assert fled == ["the party flees S (d6=4): 1 day of flight so far; the pursuers are not faster [rolls #1]"]


def test_the_command_line_counts_an_ose_pursuit_in_days(hexlog, tmp_path) -> None:
    """Under OSE a surprised party has no chance (the referee allows none): it flees a day, stops and is caught."""
    opened = ("session", "open", "--secret-file", secret_file(tmp_path, "2e" * 32))
    for args in (("init", "--ruleset", "ose"), opened, ("party", "add", "Ann")):
        assert hexlog(*args).returncode == 0
    assert hexlog("pursuit", "start", "--party-surprised").returncode == 0
    assert hexlog("pursuit", "roll-evasion").returncode == 0
    fled = hexlog("pursuit", "flee")
    assert fled.returncode == 0, fled.stderr
    assert ": 1 day of flight so far; the pursuers are not faster" in fled.stdout
    for args in (("pursuit", "stop"), ("encounter", "check-surprise"), ("encounter", "determine-distance")):
        done = hexlog(*args)
        assert done.returncode == 0, done.stderr
    assert hexlog("encounter", "roll-initiative").returncode == 0
    concluded = hexlog("encounter", "conclude")
    assert concluded.returncode == 0, concluded.stderr
    assert "pursuit 1 ends: caught after 1 day of flight" in concluded.stdout
    log = hexlog("log")
    assert "1 day of flight so far" in log.stdout
    assert "pursuit 1 ends: caught after 1 day of flight" in log.stdout


def test_rules_show_says_a_pursuit_is_always_of_the_party(hexlog: Any) -> None:
    """OSE §2.8: "If one side decides to flee" - either side; monsters fleeing a pursuing party have no pursuit
    procedure, and rules show says so, with what to do instead."""
    out = hexlog("rules", "show", "ose").stdout
    assert "not modelled (pursuit): a fleeing party only: OSE lets either side flee" in out
    assert "roll it as a free roll (hexlog roll 1d100)" in out
