"""Both sides surprised, and the party flees in the wilderness.

``tests/golden/both-surprised-evasion-v1.jsonl`` was written by hexlog at commit 26d036b, on a session whose
secret it drew: a campaign under ``explore`` whose travel day ends in a wandering encounter where both sides are
surprised; the party flees and rolls its evasion (seed 004), which that release read as the party surprised (no
chance in the open); the pursuit the day handed over recorded the party surprised, and it got away. Then under
house rules giving OSE's evasion the same happens again: the monsters pursue, and the pursuit the day handed over
recorded the party surprised, so its first evasion roll had no chance. It still imports, replays, audits VERIFIED
and exports byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.events import pursuit as pev
from hexlog.events.codec import decode
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.encounter.commands import RollEvasionBothAsPartySurprised
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as tr
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay

V1_LOG = Path(__file__).resolve().parent / "golden" / "both-surprised-evasion-v1.jsonl"
V1_CAMPAIGN = "both"


class TestALogOfVersion1:
    def lines(self) -> list[str]:
        return V1_LOG.read_text(encoding="utf-8").splitlines()

    def rows(self, kind: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines() if f'"hexlog.{kind}"' in line]

    def test_it_holds_two_meetings_where_both_sides_were_surprised(self) -> None:
        surprise = [row["data"] for row in self.rows("encounter.surprise_checked")]
        assert [(s["party_surprised"], s["monsters_surprised"], s["advantage"]) for s in surprise] == [
            (True, True, "none"),
            (True, True, "none"),
        ]
        (evasion,) = self.rows("encounter.evasion_rolled")
        assert evasion["schemaversion"] == 1
        assert evasion["data"]["steps"][-1] == "surprised, not in woods and no magic: no chance"
        started = [row["data"] for row in self.rows("pursuit.started")]
        assert [(s["party_surprised"], s["rules"]) for s in started] == [(True, "odd"), (True, "ose")]

    def test_it_audits_verified(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict.name == "VERIFIED"
        assert (report.events, report.rolls, report.rolls_verified, report.decisions) == (177, 21, 21, 18)

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        assert replay(store, V1_CAMPAIGN, REGISTRY).ok
        assert list(export_lines(store, V1_CAMPAIGN)) == self.lines()

    def test_its_evasion_reads_as_version_2_with_the_advantage_its_release_read(self) -> None:
        """Its release read both sides surprised as the monsters' advantage (the party surprised: no chance)."""
        (rolled,) = [e for e in map(decode, read_export(self.lines())) if isinstance(e, ev.EvasionRolled)]
        assert (rolled.advantage, rolled.chance, rolled.rolls) == (ev.Advantage.MONSTERS, 0, ())

    def test_its_evasion_is_re_run_as_its_release_rolled_it(self) -> None:
        """Re-run by today's rules, its evasion would roll the table's 50 % and record no advantage: the audit
        re-runs it as its release did (its schema version says which)."""
        envelopes = read_export(self.lines())
        events = [decode(e) for e in envelopes]
        schemas = [e.schemaversion for e in envelopes]
        assert check_decision_events(events, schemas=schemas).issues == ()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.EvasionRolled))
        as_today = check_decision_events(events, schemas=[*schemas[:at], 2, *schemas[at + 1 :]]).issues
        assert [i.at for i in as_today] == [at]


@pytest.mark.parametrize(
    ("steps", "advantage"),
    [
        (["base 50 % (3 fleeing, 1 pursuing)"], "none"),
        (["base 50 % (3 fleeing, 1 pursuing)", "surprised, not in woods and no magic: no chance"], "monsters"),
        (["base 50 % (3 fleeing, 1 pursuing)", "surprised in woods: a flat 10 %"], "monsters"),
        (["base 50 % (3 fleeing, 1 pursuing)", "surprised, but magic is used: as if unsurprised"], "monsters"),
        (["base 50 % (3 fleeing, 1 pursuing)", "the party surprised the enemy: x2 = 100 %"], "party"),
        ("not a list", "none"),
    ],
)
def test_a_version_1_evasion_reads_the_advantage_from_its_steps(steps: object, advantage: str) -> None:
    """Version 1 recorded how it read surprise only in its steps; an upcaster copies, never rewrites what it read."""
    data = {"steps": steps, "chance": 0}
    upcast = ev.EvasionRolled.upcast_v1_v2(data)
    assert upcast == {**data, "advantage": advantage}
    assert data == {"steps": steps, "chance": 0}


CAMPAIGN = "bs"
STREAM = stream_for(CAMPAIGN)
THREE = tuple(c.AddMember(name=name) for name in ("Ann", "Bo", "Cy"))
#: both sides' surprise dice (1 and 2: both surprised), the 1d3 distance, the initiative both roll
BOTH_SURPRISED: tuple[tuple[c.Command, tuple[int, ...]], ...] = (
    (enc.CheckSurprise(), (1, 2)),
    (enc.DetermineDistance(), (2,)),
    (enc.RollInitiative(), (5, 2)),
    (enc.Evade(), ()),
)
#: seed 004's house rules giving OSE's wilderness evasion and pursuit (the travel day is seed 004's)
OSE_EVASION = {"options": {"evasion_rules": "ose"}}


@attrs.define
class Table:
    """A campaign under explore (house rules ``overrides``) on a scripted roller: ``run`` gives a command its faces."""

    overrides: dict[str, Any] = attrs.field(factory=dict)
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        start = c.StartCampaign(ruleset="explore", overrides=self.overrides)
        for command in (start, c.OpenSession(secret_hex="b5" * 32), *THREE):
            self.handler.execute(CAMPAIGN, command)

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    def meet(self, meeting: tuple[tuple[c.Command, tuple[int, ...]], ...] = BOTH_SURPRISED) -> None:
        for command, faces in meeting:
            self.run(command, *faces)

    def on_a_journey(self) -> None:
        """A travel day on meadows whose wandering check meets monsters (handed to the encounter procedure)."""
        for col in range(5):
            for row in range(5):
                self.run(SetHex(hex=f"{col},{row}", terrain="meadow"))
        self.run(tr.StartJourney(hex="2,2"))
        self.run(tr.RollWeather(weather="clear"))
        self.run(tr.DeclareRoute(headings=("N",)), 6, 1)
        assert only(self.run(tr.CheckWandering(), 6), HandedOff).child == "encounter"

    def events(self) -> list[Any]:
        return [decode(r.envelope) for r in self.handler.store.read_stream(STREAM)]


def only(events: list[Any], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


class TestTheEncountersEvasion:
    """Seed 004 step 1a: the advantage of surprise goes to the surprising side "unless both sides are surprised";
    OSE §2.2: both surprised, "no advantage to anyone". So in the wilderness (§4.13) a party that flees after both
    sides were surprised rolls the table's chance, neither without one (a surprised party's) nor doubled (the
    chance of a party that surprised the enemy). Both were read as the party surprised: no chance in the open."""

    @pytest.mark.parametrize(
        ("woods", "magic", "chance", "steps"),
        [
            # 3 fleeing 1: the table's 50 %
            (False, False, 50, ("base 50 % (3 fleeing, 1 pursuing)",)),
            # in woods +25 % (a surprised party in woods had a flat 10 %)
            (True, False, 75, ("base 50 % (3 fleeing, 1 pursuing)", "evading in woods: +25 %")),
            # magic only lifts a party's own surprise: nothing to lift
            (False, True, 50, ("base 50 % (3 fleeing, 1 pursuing)",)),
        ],
    )
    @pytest.mark.parametrize("over", [0, 1])
    def test_the_party_rolls_the_tables_chance(
        self,
        woods: bool,  # noqa: FBT001 - a parameter
        magic: bool,  # noqa: FBT001 - a parameter
        chance: int,
        steps: tuple[str, ...],
        over: int,
    ) -> None:
        """d100 at most the chance evades: a roll of exactly the chance gets away, one more is pursued."""
        t = Table()
        t.run(enc.StartEncounter(setting="wilderness"))
        t.meet()
        events = t.run(enc.RollEvasion(woods=woods, magic=magic), chance + over)
        rolled = only(events, ev.EvasionRolled)
        assert (rolled.chance, rolled.steps, rolled.advantage) == (chance, steps, ev.Advantage.NONE)
        assert (rolled.total, rolled.evaded) == (chance + over, not over)
        assert only(events, ev.EncounterConcluded).outcome == ("pursuit" if over else "evaded")
        assert check_decision_events(t.events()).issues == ()

    def test_a_recorded_advantage_the_rules_do_not_give_is_a_finding(self) -> None:
        """The audit re-runs the evasion: one recorded as the monsters' advantage (the party surprised) is not the
        rules' when both sides were surprised."""
        t = Table()
        t.run(enc.StartEncounter(setting="wilderness"))
        t.meet()
        t.run(enc.RollEvasion(woods=False), 99)
        events = t.events()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.EvasionRolled))
        forged = [*events]
        forged[at] = attrs.evolve(events[at], advantage=ev.Advantage.MONSTERS)
        issues = check_decision_events(forged).issues
        assert [i.at for i in issues] == [at]
        assert "advantage" in issues[0].reason

    def test_the_audits_command_for_an_old_evasion_is_refused_to_the_referee(self) -> None:
        t = Table()
        t.run(enc.StartEncounter(setting="wilderness"))
        t.meet()
        version = t.handler.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="audit"):
            t.run(RollEvasionBothAsPartySurprised())
        assert t.handler.store.stream_version(STREAM) == version


class TestThePursuitHandedOver:
    """The pursuit a travel day hands over after such an encounter records neither side as surprised."""

    def test_after_seed_004s_evasion_failed(self) -> None:
        t = Table()
        t.on_a_journey()
        t.meet()
        events = t.run(enc.RollEvasion(), 51)
        assert only(events, ev.EvasionRolled).chance == 50
        started = only(events, pev.PursuitStarted)
        assert (started.party_surprised, started.pursuers_surprised, started.evasion_failed) == (False, False, True)

    @pytest.mark.parametrize("over", [0, 1])
    def test_under_oses_evasion_the_party_rolls_the_tables_chance(self, over: int) -> None:
        """OSE §2.9: a surprised side has no chance but the referee's, the side that surprised evades at once, and
        neither surprised rolls the table: both surprised is neither (§2.2), 50 % for 3 fleeing 1."""
        t = Table(overrides=OSE_EVASION)
        t.on_a_journey()
        t.meet()
        started = only(t.run(enc.DecidePursuit(pursue=True)), pev.PursuitStarted)
        assert (started.party_surprised, started.pursuers_surprised, started.evasion_failed) == (False, False, False)
        rolled = only(t.run(p.RollEvasion(), 50 + over), pev.PursuitEvasionRolled)
        assert (rolled.chance, rolled.steps) == (50, ("base 50 % (3 fleeing, 1 pursuing)",))
        assert rolled.evaded is not bool(over)
        assert check_decision_events(t.events()).issues == ()

    @pytest.mark.parametrize(
        ("faces", "surprised", "chance", "said"),
        [
            # the monsters alone surprised the party: no chance but the referee's
            ((1, 5), (True, False), 0, "surprised: no chance (the referee allows none)"),
            # the party alone surprised the monsters: it evades at once
            ((5, 1), (False, True), 100, "the fleeing side surprised the pursuers: it evades automatically"),
        ],
    )
    def test_one_side_alone_surprised_keeps_its_advantage(
        self, faces: tuple[int, int], surprised: tuple[bool, bool], chance: int, said: str
    ) -> None:
        t = Table(overrides=OSE_EVASION)
        t.on_a_journey()
        t.run(enc.CheckSurprise(), *faces)
        t.run(enc.DetermineDistance(), 2)
        t.run(enc.RollInitiative(), 5, 2)  # in the open surprise gives no free action under explore: both roll
        t.run(enc.Evade())
        started = only(t.run(enc.DecidePursuit(pursue=True)), pev.PursuitStarted)
        assert (started.party_surprised, started.pursuers_surprised) == surprised
        rolled = only(t.run(p.RollEvasion()), pev.PursuitEvasionRolled)
        assert (rolled.chance, rolled.steps[-1], rolled.rolls) == (chance, said, ())
