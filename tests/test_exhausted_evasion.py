"""An exhausted party flees worse (seed 004 §4.16: "Exhausted characters suffer -1 to all rolls, cumulative").

The wilderness evasion is the fleeing party's roll, whether the encounter rolls it (seed 004's flight, §4.5 6a)
or the pursuit (§4.14 4b): its d100 is made for the party (``made_for``), a roll where a low total is good, so the
party's exhaustion raises the total, counted against it (``encounter.evasion_rolled`` version 4,
``pursuit.evasion_rolled`` version 3). The pursuit's other dice are not the party's and stay made for nobody.

``tests/golden/exhausted-evasion-v3.jsonl`` was written by hexlog at 17df72b, whose evasion rolls were made for
nobody: a party exhausted two levels fled an encounter (47 against 50 %) and rolled a pursuit's evasion (77 against
75 %), each without the penalty. It audits VERIFIED, the audit re-running those rolls as that release made them
(``RollEvasionForNobody``, the audit's own command in each procedure), and exports byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.events import pursuit as pev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.encounter import commands as enc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as tr
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay

CAMPAIGN = "tired"
STREAM = stream_for(CAMPAIGN)
V3_LOG = Path(__file__).resolve().parent / "golden" / "exhausted-evasion-v3.jsonl"
#: a rest day owed every travel day: the second day of travel is a first level of exhaustion, the third a second
EVERY_DAY = {"tables": {"rest": {"rest_every_travel_days": 1}}}


@attrs.define
class Party:
    """Ann, Bo and Cy under explore on a scripted roller, home from a journey of ``days`` days on a meadow."""

    days: int = 1
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset="explore", overrides=EVERY_DAY))
        self.run(c.OpenSession(secret_hex="e7" * 32))
        for name in ("Ann", "Bo", "Cy"):
            self.run(c.AddMember(name=name))
        self.run(SetHex(hex="2,2", terrain="meadow"))
        self.run(tr.StartJourney(hex="2,2"))
        for _ in range(self.days):
            self.run(tr.RollWeather(weather="clear"))
            self.run(tr.DeclareRoute(), 6, 1)
            self.run(tr.CheckWandering(), 1)
            self.run(tr.EndDay())
        self.run(tr.EndJourney())

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    @property
    def level(self) -> int:
        return int(self.handler.load(CAMPAIGN).procedures["travel"].exhaustion("Ann"))

    def flee_an_encounter(self, face: int) -> list[Any]:
        """Met by one monster, both sides aware (no surprise: the table's 50 % for 3 fleeing 1); the party wins the
        initiative, flees and rolls ``face`` on the d100."""
        self.run(enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True))
        self.run(enc.CheckSurprise())
        self.run(enc.DetermineDistance(), 3, 3, 3, 3)
        self.run(enc.RollInitiative(), 6, 1)
        self.run(enc.Evade())
        return self.run(enc.RollEvasion(), face)

    def events(self) -> list[Any]:
        return [decode(r.envelope) for r in self.handler.store.read_stream(STREAM)]


def only(events: list[Any], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


class TestTheEncountersEvasion:
    @pytest.mark.parametrize(("days", "level"), [(1, 0), (2, 1), (3, 2)])
    def test_the_d100_is_the_partys_and_carries_its_exhaustion_against_it(self, days: int, level: int) -> None:
        """49 against 50 %: a fresh party gets away; exhausted, each level adds 1 to the total (cumulative)."""
        party = Party(days=days)
        assert party.level == level
        events = party.flee_an_encounter(49)
        rolled = only(events, DiceRolled)
        assert (rolled.purpose, rolled.made_for, rolled.low_is_good) == ("encounter.evasion", "party", True)
        assert rolled.modifier == level
        assert [m.value for m in rolled.modifiers] == ([level] if level else [])
        evaded = only(events, ev.EvasionRolled)
        assert (evaded.chance, evaded.total, evaded.evaded) == (50, 49 + level, level <= 1)
        assert check_decision_events(party.events()).issues == ()

    def test_the_audits_command_for_an_evasion_made_for_nobody_is_refused_to_the_referee(self) -> None:
        party = Party()
        party.run(enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True))
        with pytest.raises(RuleRefusedError, match="the audit's"):
            party.run(enc.RollEvasionForNobody())


class TestThePursuitsEvasion:
    @pytest.mark.parametrize(("days", "level"), [(1, 0), (3, 2)])
    def test_the_d100_is_the_partys_and_carries_its_exhaustion_against_it(self, days: int, level: int) -> None:
        """74 against 75 % (3 fleeing 1 at twice its speed): a fresh party gets away, one exhausted two levels
        rolls 76 and is still pursued."""
        party = Party(days=days)
        party.run(p.StartPursuit(pursuers=1, pursuers_speed=60))
        events = party.run(p.RollEvasion(), 74)
        rolled = only(events, DiceRolled)
        assert (rolled.purpose, rolled.made_for, rolled.low_is_good, rolled.modifier) == (
            "pursuit.evasion",
            "party",
            True,
            level,
        )
        evaded = only(events, pev.PursuitEvasionRolled)
        assert (evaded.chance, evaded.total, evaded.evaded) == (75, 74 + level, not level)
        assert check_decision_events(party.events()).issues == ()

    def test_the_pursuers_dice_stay_made_for_nobody(self) -> None:
        """The flight's heading and the catch of faster pursuers are not the party's rolls."""
        party = Party(days=3)
        party.run(p.StartPursuit(pursuers=1, pursuers_speed=240, evasion_failed=True))
        fled = party.run(p.Flee(), 1)
        caught = party.run(p.Catch(), 6)
        for rolled in (only(fled, DiceRolled), only(caught, DiceRolled)):
            assert (rolled.made_for, rolled.modifier, rolled.modifiers) == ("", 0, ())
        assert check_decision_events(party.events()).issues == ()

    def test_the_audits_command_for_an_evasion_made_for_nobody_is_refused_to_the_referee(self) -> None:
        party = Party()
        party.run(p.StartPursuit(pursuers=1, pursuers_speed=60))
        with pytest.raises(RuleRefusedError, match="audit"):
            party.run(p.RollEvasionForNobody())


class TestALogOfTheReleaseBefore:
    def lines(self) -> list[bytes]:
        return V3_LOG.read_bytes().split(b"\n")

    def test_its_evasions_were_made_for_nobody_by_an_exhausted_party(self) -> None:
        events = [decode(e) for e in read_export(self.lines())]
        rolls = [e for e in events if isinstance(e, DiceRolled) and e.purpose.endswith(".evasion")]
        assert [(r.purpose, r.made_for, r.modifier) for r in rolls] == [
            ("encounter.evasion", "", 0),
            ("pursuit.evasion", "", 0),
        ]
        assert (only(events, ev.EvasionRolled).total, only(events, pev.PursuitEvasionRolled).total) == (47, 77)

    def test_it_audits_verified_with_its_evasions_re_run_as_its_release_rolled_them(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert (report.events, report.decisions, report.rolls, report.rolls_verified) == (132, 11, 14, 14)

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(self.lines())).campaign
        assert replay(store, campaign, REGISTRY).ok
        assert "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == V3_LOG.read_bytes()
