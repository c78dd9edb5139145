"""An encounter the referee started in the dungeon hands its chase off itself (``encounter.pursuit_decided`` v3).

OSE §2.9 and seed 004 §4.4: the pursuit follows the flight at once. A delve's encounter has handed its chase off
since version 2; one the referee started in the dungeon setting with no procedure waiting for it concluded in pursuit,
its turn passing before the chase the referee then started by hand. Since version 3 it hands the chase off and waits
for it: caught, the sides fight in it; got away, it ends evaded and its turn passes then. A decision recorded at
version 2 or 1 is re-run as its release made it (concluded in pursuit), so older logs audit as they were played, and
a decision relabelled to the other release's way is a finding.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hexlog.events import chase as ch_ev
from hexlog.events import encounter as enc_ev
from hexlog.events import releases
from hexlog.events.chain import reseal
from hexlog.events.clock import ClockAdvanced
from hexlog.events.errors import UsageError
from hexlog.events.procedure import HandedOff, Resumed
from hexlog.machine import chase as ch
from hexlog.machine import encounter as enc
from hexlog.machine.encounter import afloat
from hexlog.machine.encounter import commands as enc_commands
from hexlog.machine.encounter.inverse import command_before
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict
from hexlog.service import render

from .test_chase_machine import CAMPAIGN, Table, changes, delve_to_pursuit

STREAM = f"campaign-{CAMPAIGN}"


def fled(ruleset: str = "ose", **start: Any) -> Table:
    """A dungeon encounter the referee started, 30 ft away, both sides aware; the party (Bo, 90 ft) flees the
    monsters (120 ft)."""
    t = Table(ruleset).party()
    t.run(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True, monster_speed=120, **start))
    t.run(enc.CheckSurprise())
    t.run(enc.DetermineDistance(value=30))
    t.run(enc.RollInitiative(), 5, 2)
    t.run(enc.Evade(side="party"))
    return t


def seconds(t: Table) -> int:
    """The seconds on the campaign's clock."""
    return t.table.clock.seconds


class TestTheHandOff:
    @pytest.mark.parametrize("ruleset", ["ose", "explore"])
    def test_the_pursuers_giving_chase_start_it_at_once_and_no_turn_passes(self, ruleset: str) -> None:
        """The decision hands the chase off in the same command: no conclusion, no turn on the clock, the encounter
        waits in CHASE with the chase running from its 30 ft."""
        t = fled(ruleset, name="ghouls")
        before = seconds(t)
        events = t.run(enc.DecidePursuit(pursue=True, hungry=True))
        handed = [("decide_pursuit", "EVASION", "EVASION"), ("settle", "EVASION", "CHASE")]
        assert changes(events, "encounter") == handed
        assert HandedOff(parent="encounter", child="chase") in events
        assert not [e for e in events if isinstance(e, enc_ev.EncounterConcluded | ClockAdvanced)]
        (started,) = [e for e in events if isinstance(e, ch_ev.ChaseStarted)]
        assert (started.from_encounter, started.gap_ft, started.name, started.hungry) == (1, 30, "ghouls", True)
        assert seconds(t) == before
        assert t.table.handoffs == (("encounter", "chase"),)
        assert t.table.procedures["encounter"].phase is enc.Phase.CHASE

    def test_a_party_that_gets_away_ends_the_encounter_evaded_and_its_turn_passes_then(self) -> None:
        """A door slammed behind the party stops the pursuers in the first round: the chase ends escaped, the
        encounter resumes and concludes evaded; the clock holds the chase's round and then the encounter's turn, not
        a turn before the chase."""
        t = fled()
        t.run(enc.DecidePursuit(pursue=True))
        events = t.run(ch.Run(obstacle="a door slammed", stops=True))
        assert Resumed(parent="encounter", child="chase") in events
        (concluded,) = [e for e in events if isinstance(e, enc_ev.EncounterConcluded)]
        assert concluded.outcome == "evaded"
        assert [e.seconds for e in events if isinstance(e, ClockAdvanced)] == [10, 600]
        assert t.table.handoffs == ()
        assert audit_store(t.handler.store, CAMPAIGN).findings == ()

    def test_a_party_caught_fights_the_encounter_it_fled(self) -> None:
        """The monsters (120) close the 30 ft on Bo (90) in one round: the encounter resumes in COMBAT."""
        t = fled()
        t.run(enc.DecidePursuit(pursue=True))
        events = t.run(ch.Run())
        assert next(e for e in events if isinstance(e, ch_ev.ChaseEnded)).outcome == "caught"
        assert changes(events, "encounter") == [("resume", "CHASE", "COMBAT")]
        t.run(enc.RollInitiative(), 5, 2)  # OSE rolls it at the start of every round
        t.run(enc.PlayRound())
        t.run(enc.ConcludeEncounter(outcome="ghouls slain"))
        assert t.table.procedures["encounter"].phase is enc.Phase.CONCLUDED
        assert audit_store(t.handler.store, CAMPAIGN).findings == ()

    def test_pursuers_who_let_the_party_go_end_the_encounter_at_once(self) -> None:
        t = fled()
        events = t.run(enc.DecidePursuit(pursue=False))
        (concluded,) = [e for e in events if isinstance(e, enc_ev.EncounterConcluded)]
        assert concluded.outcome == "evaded"
        assert not [e for e in events if isinstance(e, HandedOff)]

    def test_the_referee_may_still_conclude_it_in_pursuit_by_hand(self) -> None:
        """No pursuit decided (nobody fled yet): the conclusion by hand ends it in pursuit, its turn passing, and the
        chase is started by hand, as before."""
        t = Table("ose").party()
        t.run(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative(), 5, 2)
        events = t.run(enc.ConcludeEncounter(outcome="pursuit"))
        assert [e.seconds for e in events if isinstance(e, ClockAdvanced)] == [600]
        started = t.run(ch.StartChase(from_encounter=1))
        assert [e.from_encounter for e in started if isinstance(e, ch_ev.ChaseStarted)] == [1]

    def test_in_the_wilderness_and_under_rules_without_a_dungeon_chase_it_concludes_in_pursuit(self) -> None:
        """Only the dungeon chase is handed off so: in the open (OSE) the encounter concludes in pursuit, and the
        rules' tastes of pursuers are refused there, naming the chase by hand."""
        t = Table("ose").party()
        t.run(enc.StartEncounter(setting="wilderness", party_aware=True, monsters_aware=True))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=60))
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.Evade(side="party"))
        with pytest.raises(UsageError, match="hands no chase off"):
            t.run(enc.DecidePursuit(pursue=True, hungry=True))
        events = t.run(enc.DecidePursuit(pursue=True))
        assert [e.outcome for e in events if isinstance(e, enc_ev.EncounterConcluded)] == ["pursuit"]


def _relabelled(envelopes: list[Any], version: int) -> list[Any]:
    """The log with its pursuit decisions labelled ``version`` (their data kept, the chain sealed again)."""
    labelled = [
        attrs.evolve(e, schemaversion=version) if e.type == "hexlog.encounter.pursuit_decided" else e for e in envelopes
    ]
    return reseal(labelled)


class TestTheAudit:
    def test_a_decision_is_re_run_as_the_release_that_recorded_it(self) -> None:
        """Version 2 handed a chase off only in a delve; version 3 from an encounter the referee started too."""
        decided = enc_ev.PursuitDecided(
            pursuer=enc_ev.Side.MONSTERS,
            fleeing=enc_ev.Side.PARTY,
            pursue=True,
            decided_by=enc_ev.DecidedBy.REFEREE,
            likes_treasure=True,
        )
        before = command_before(decided, 2)
        assert before == enc_commands.DecidePursuitBeforeHandOff(pursue=True, likes_treasure=True, delve_hands_off=True)
        assert command_before(decided, 3) == enc.DecidePursuit(pursue=True, likes_treasure=True)

    def test_the_hand_off_audits_verified_and_relabelled_to_version_2_is_a_finding(self) -> None:
        """The release that wrote version 2 concluded this encounter in pursuit: a hand-off labelled so was not
        written by it."""
        t = fled()
        t.run(enc.DecidePursuit(pursue=True))
        t.run(ch.Run(obstacle="a door slammed", stops=True))
        envelopes = [r.envelope for r in t.handler.store.read_stream(STREAM)]
        assert audit_envelopes(envelopes).findings == ()
        report = audit_envelopes(_relabelled(envelopes, 2))
        assert report.verdict is not Verdict.VERIFIED
        text = report.text()
        assert "hexlog.encounter.pursuit_decided schema version 2 after the hexlog.session.opened naming" in text
        assert 'after it the rules record encounter.concluded number=1, outcome="pursuit"' in text


def _as_release_31(monkeypatch: pytest.MonkeyPatch) -> Table:
    """The flight decided and got away from as release 31 played it: its session names release 31, its decision is
    version 2, and the encounter the referee started concluded in pursuit (the chase started by hand, then)."""
    with monkeypatch.context() as old:
        old.setattr(releases, "CURRENT", 31)
        old.setattr(enc_ev.PursuitDecided, "schema_version", 2)
        old.setattr(enc_ev.ActionChosen, "schema_version", 2)
        old.setattr(afloat, "started_in_the_dungeon", lambda _table, _state: False)
        t = fled()
        events = t.run(enc.DecidePursuit(pursue=True))
        assert [e.outcome for e in events if isinstance(e, enc_ev.EncounterConcluded)] == ["pursuit"]
    t.run(ch.StartChase(from_encounter=1))
    t.run(ch.Run(obstacle="a door slammed", stops=True))
    return t


class TestAnOlderRelease:
    def test_its_conclusion_in_pursuit_audits_verified_and_replays(self, monkeypatch: pytest.MonkeyPatch) -> None:
        t = _as_release_31(monkeypatch)
        envelopes = [r.envelope for r in t.handler.store.read_stream(STREAM)]
        assert [e.schemaversion for e in envelopes if e.type == "hexlog.encounter.pursuit_decided"] == [2]
        report = audit_envelopes(envelopes)
        assert report.findings == (), report.text()
        assert replay(t.handler.store, CAMPAIGN, REGISTRY).ok

    def test_its_conclusion_labelled_version_3_is_a_finding(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Version 3 hands this chase off: a conclusion in pursuit under it was not written by the kit."""
        t = _as_release_31(monkeypatch)
        envelopes = [r.envelope for r in t.handler.store.read_stream(STREAM)]
        report = audit_envelopes(_relabelled(envelopes, 3))
        assert report.verdict is not Verdict.VERIFIED
        assert "the rules record procedure.phase_changed" in report.text()
        assert "but the log has encounter.concluded there" in report.text()


class TestTheChaseLineAfterward:
    def test_it_names_the_encounter_resumed_until_that_ends_then_offers_a_fresh_start_once_another_begins(
        self,
    ) -> None:
        """Caught, the chase's line names the encounter's fight; once the encounter concludes, that it has ended (not
        its fresh start, which would read as the encounter resuming); once another encounter starts, the chase is a
        procedure of its own again, its own start offered."""
        t = fled()
        t.run(enc.DecidePursuit(pursue=True))
        t.run(ch.Run())

        def chase_next() -> str:
            table = t.table
            return render.procedure_lines("chase", table.procedures["chase"], table)[-1]

        assert chase_next().startswith("  next: nothing (the chase is over; the encounter resumed: hexlog encounter ")
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.PlayRound())
        t.run(enc.ConcludeEncounter(outcome="ghouls slain"))
        assert chase_next() == "  next: nothing (the chase is over; the encounter it resumed has ended since)"
        assert t.table.concluded_into("chase") == "encounter"
        t.run(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True))
        assert t.table.concluded_into("chase") == ""
        assert chase_next() == "  next: hexlog chase start"


class TestADelvesHandOffAtVersion2:
    def test_it_audits_verified_as_release_31_wrote_it_and_its_rewritten_tastes_are_a_finding(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Release 31 handed a delve's chase off from its encounter (version 2), with what the referee said of the
        pursuers: re-run as that release made it (a hand-off, the referee's words kept), it holds; the referee's word
        on the pursuers rewritten after the chase started with it is a finding."""
        with monkeypatch.context() as old:
            old.setattr(releases, "CURRENT", 31)
            old.setattr(enc_ev.PursuitDecided, "schema_version", 2)
            old.setattr(enc_ev.ActionChosen, "schema_version", 2)
            t = delve_to_pursuit()
            events = t.run(enc.DecidePursuit(pursue=True, likes_treasure=True))
            assert HandedOff(parent="encounter", child="chase") in events
            t.run(ch.Run(obstacle="a portcullis dropped", stops=True))
        envelopes = [r.envelope for r in t.handler.store.read_stream(STREAM)]
        assert [e.schemaversion for e in envelopes if e.type == "hexlog.encounter.pursuit_decided"] == [2]
        report = audit_envelopes(envelopes)
        assert report.findings == (), report.text()
        forged = [
            attrs.evolve(e, data={**e.data, "likes_treasure": False})
            if e.type == "hexlog.encounter.pursuit_decided"
            else e
            for e in envelopes
        ]
        assert "likes_treasure" in audit_envelopes(reseal(forged)).text()
