"""Exhaustion always counts against the one a roll is made for (seed 004 §4.16: "suffer -1 to all rolls").

Every source gives its modifiers as they count on a roll where high is good; a step that rolls a die where a
low total is good (an N-in-6, a percentage at most a chance) says so, and the kit counts the modifiers the
other way (``dice.rolled`` version 4 records ``low_is_good``). The rolls exhaustion reaches, made for the
party or a member: the lost check (lost on a low face: a penalty lowers it), the search (found on a low face:
raised), a castle's joust (the champion wins on a low face: lowered), a vessel's evasion (at most the chance:
raised), the surprise and initiative dice of an encounter or a chase (high is good), a camp's firewood (hours:
high is good), a delve's doors forced, picked or listened at and its secret doors sought (low is good), a
dropped item's temptation of a pursuing party (stopped on a low face: lowered), and a free roll (``roll --for``,
high is good unless ``--low-is-good``).

``tests/golden/exhaustion-v1.jsonl`` was written by hexlog at commit 4e71470, which added every modifier as
given: under house rules of -100 a level its exhausted party wins every joust, evades on water whatever the
die, and its searches, doors and listening read a penalty recorded as ``-100``. It still audits VERIFIED and
exports byte for byte: the audit re-runs those decisions with the modifiers as given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hexlog.events import castle as castle_ev
from hexlog.events import chase as chase_ev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled, RollModifier
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import castle as k
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine.castle.commands import JoustReadingTheTotal
from hexlog.machine.hexmap import SetHex
from hexlog.machine.kit.context import read_low
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

from .scripted_play import ScriptedPlay

CAMPAIGN = "low"
V1_LOG = Path(__file__).resolve().parent / "golden" / "exhaustion-v1.jsonl"
#: a rest day owed every travel day, -4 a level: the second travel day exhausts the party to -4
HARD = {"tables": {"rest": {"rest_every_travel_days": 1, "exhaustion_per_day": -4}}}


class Party(ScriptedPlay):
    """Explore under HARD; Al and Bo on a day of travel exhausted to -4 (the day's route declared), or on the
    first day, not yet exhausted."""

    def __init__(self, *, exhausted: bool = True) -> None:
        super().__init__(CAMPAIGN)
        self.run(c.StartCampaign(ruleset="explore", overrides=HARD))
        self.run(c.OpenSession(secret_hex="5a" * 32))
        self.run(c.AddMember(name="Al"))
        self.run(c.AddMember(name="Bo"))
        self.run(SetHex(hex="2,2", terrain="meadow"))
        self.run(t.StartJourney(hex="2,2"))
        self.run(t.RollWeather(weather="clear"))
        self.run(t.DeclareRoute(), 6, 1)
        if exhausted:
            self.run(t.CheckWandering(), 1)
            self.run(t.EndDay())
            self.run(t.RollWeather(weather="clear"))
            self.run(t.DeclareRoute(), 6, 1)


def only(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def party() -> Party:
    found = Party()
    assert found.h.load(CAMPAIGN).procedures["travel"].members["Al"].exhaustion == 1
    return found


class TestTheKit:
    def test_a_roll_where_high_is_good_takes_the_penalty_as_given(self, party: Party) -> None:
        """An attack roll made for Al: 1d20-4."""
        rolled = only(party.run(c.RollDice(expression="1d20", purpose="attack", made_for="Al"), 15), DiceRolled)
        assert (rolled.modifier, rolled.total, rolled.low_is_good) == (-4, 11, False)

    def test_a_roll_where_low_is_good_has_the_penalty_counted_against_it(self, party: Party) -> None:
        """A roll under a chance made for Al: d%+4, recorded with the source and the value it counted with."""
        events = party.run(c.RollDice(expression="d%", purpose="climb", made_for="Al", low_is_good=True), 47)
        rolled = only(events, DiceRolled)
        assert (rolled.modifier, rolled.total, rolled.low_is_good) == (4, 51, True)
        assert rolled.modifiers == (RollModifier(source="exhaustion (1 day of travel without the rest owed)", value=4),)
        assert read_low(rolled) == 51
        assert render.describe(rolled).endswith("(low is good: counted against it)")

    def test_a_roll_where_low_is_good_made_for_nobody_is_not_modified(self, party: Party) -> None:
        rolled = only(party.run(c.RollDice(expression="d%", low_is_good=True), 47), DiceRolled)
        assert (rolled.modifiers, rolled.total, rolled.low_is_good) == ((), 47, True)

    def test_an_earlier_release_s_roll_reads_its_penalty_against_the_faces(self) -> None:
        """dice.rolled before version 4 recorded a penalty as given (-4, total 43) and read 47 + 4."""
        old = DiceRolled(session="s1", nonce=0, purpose="x", sides=(100,), faces=(47,), modifier=-4, total=43)
        assert read_low(old) == 51


class TestEvasionOnWater:
    def test_an_exhausted_party_evades_less_often(self, party: Party) -> None:
        """40 % (60 ft a round slower): a 37 is 41 once the penalty counts against it, and the party is caught up."""
        party.run(ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=90, pursuers_ft=150))
        events = party.run(ch.Evade(), 37)
        rolled = only(events, DiceRolled)
        assert (rolled.made_for, rolled.modifier, rolled.total, rolled.low_is_good) == ("party", 4, 41, True)
        evaded = only(events, chase_ev.WaterEvasionRolled)
        assert (evaded.chance, evaded.roll, evaded.evaded) == (40, 41, False)
        report = audit_store(party.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_rested_party_evades_on_the_die_itself(self) -> None:
        fresh = Party(exhausted=False)
        fresh.run(ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=90, pursuers_ft=150))
        assert only(fresh.run(ch.Evade(), 40), chase_ev.WaterEvasionRolled).evaded


class TestTheJoust:
    """The joust is rolled for the fighter, high is good: the penalty lowers it, and below 1 it is the champion's."""

    def meet(self, party: Party) -> None:
        party.run(c.EditMember(name="Al", armor="chain"))
        party.run(k.PlaceCastle(hex="2,2", castle_type="lord", disposition="neutral"))
        party.run(k.HailCastle(hex="2,2"))
        party.run(k.MeetGarrison(riders=6))

    def test_an_exhausted_fighter_s_total_below_1_is_the_champion_s(self, party: Party) -> None:
        """Al at -4 rolls a 3: -1, read as 1, and the champion wins and takes his chain."""
        self.meet(party)
        events = party.run(k.Joust(fighter="Al"), 3)
        rolled = only(events, DiceRolled)
        assert (rolled.made_for, rolled.total, rolled.low_is_good) == ("Al", -1, False)
        fought = only(events, castle_ev.JoustFought)
        assert (fought.face, fought.winner, fought.armor) == (-1, "castle", "chain")
        assert render.describe(fought).startswith("the castle's champion defeats Al (d6=-1)")
        report = audit_store(party.h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_high_enough_die_still_wins(self, party: Party) -> None:
        """Al at -4 rolls a 6: 2, still the champion's; a rested fighter's 4 is his own."""
        self.meet(party)
        assert only(party.run(k.Joust(fighter="Al"), 6), castle_ev.JoustFought).winner == "castle"
        fresh = Party(exhausted=False)
        self.meet(fresh)
        assert only(fresh.run(k.Joust(fighter="Al"), 4), castle_ev.JoustFought).winner == "party"

    def test_the_audit_s_reading_of_an_earlier_release_is_not_the_referee_s(self, party: Party) -> None:
        self.meet(party)
        with pytest.raises(RuleRefusedError, match="audit alone"):
            party.run(JoustReadingTheTotal(fighter="Al"))


class TestTheLogOfAnEarlierRelease:
    def test_it_audits_verified_every_decision_re_run_with_the_modifiers_as_given(self) -> None:
        report = audit_envelopes(read_export(V1_LOG.read_bytes().split(b"\n")))
        assert report.findings == (), report.text()
        assert report.verdict == "VERIFIED"
        # 16 with dice, and a castle's meeting whose type and disposition were placed (no roll)
        assert (report.rolls, report.rolls_verified, report.decisions) == (21, 21, 17)

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        raw = V1_LOG.read_bytes()
        envelopes = read_export(raw.split(b"\n"))
        store = MemoryStore()
        import_envelopes(store, envelopes)
        assert replay(store, "gold", REGISTRY).ok
        streamed = audit_store(store, "gold", REGISTRY)
        assert (streamed.findings, streamed.decisions) == ((), 17)
        exported = "".join(line + "\n" for line in export_lines(store, "gold"))
        assert exported.encode() == raw

    def test_its_rolls_read_as_they_were_written(self) -> None:
        """Version 3 rolls: no roll where low is good, every penalty -100 as given, so the party won its joust
        and evaded on water."""
        events = [decode(env) for env in read_export(V1_LOG.read_bytes().split(b"\n"))]
        penalised = [e for e in events if isinstance(e, DiceRolled) and e.modifiers]
        assert {e.purpose for e in penalised} >= {"travel.search", "chase.evasion", "dungeon.door", "dungeon.listen"}
        assert all(e.modifier == -100 and not e.low_is_good for e in penalised)
        assert only(events, chase_ev.WaterEvasionRolled).evaded
        fought = only(events, castle_ev.JoustFought)
        assert (fought.face < 1, fought.winner) == (True, "party")
        rows = [json.loads(line) for line in V1_LOG.read_text(encoding="utf-8").splitlines()]
        assert {r["schemaversion"] for r in rows if r["type"] == "hexlog.castle.joust_fought"} == {2}


def test_rules_show_says_which_rolls_exhaustion_reaches_and_which_way_it_counts(hexlog: Any) -> None:
    """The choice the text leaves open is shown with the rules: every roll made for the party or a member, always
    against them, and the rolls made for nobody that it does not reach."""
    out = hexlog("rules", "show", "explore").stdout
    assert "not modelled (travel): exhaustion on all rolls: it reaches every roll made for the party" in out
    assert "an evasion on water, the wilderness evasion of an encounter or a pursuit" in out
    assert "the flight's heading, the pursuers' catch" in out
    assert "a roll where a low total is good (a search, an evasion on water, a wilderness evasion" in out
    assert "not modelled (travel): what the party does once its journey has ended: a full day of game time" in out
