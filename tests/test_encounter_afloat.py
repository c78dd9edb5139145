"""A waterborne encounter hands its pursuit to the chase on water by itself (OSE §2.9), as a delve hands off its
chase underground: in the command whose pursuit decision has the pursuers give chase, with what the encounter
knows; when the chase ends the encounter resumes (a caught vessel is fought, one that got away ends it), and the
procedure that handed the encounter off (a ship's travel day) after it. Rules recorded without option
``waterborne_pursuit_hands_off`` keep concluding in pursuit, and the referee's ``chase start --from-encounter``
still works."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import chase as ev
from hexlog.events import encounter as enc_ev
from hexlog.events.codec import decode, from_data
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.events.vocabulary import Side
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import hexmap
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.encounter import afloat
from hexlog.machine.encounter.rules import EncounterOptions
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as tr
from hexlog.replay.audit import audit_store
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.procedure_audit import check_procedures
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict
from hexlog.service import render
from tests.test_chase_afloat import _afloat_encounter
from tests.test_chase_machine import CAMPAIGN, Table

STREAM = tables.stream_for(CAMPAIGN)
GOLDEN = Path(__file__).resolve().parent / "golden"
#: the option off: the encounter concludes in pursuit, as every ruleset recorded before the option does
OFF = {"waterborne_pursuit_hands_off": False}
HAND_OFF = HandedOff(parent="encounter", child="chase")
FOLLOWS_NO_DECISION = "procedure.handed_off follows no decision here, and the rules record it only after one"
#: U&WA's two dice afloat: a first die of 5 is a waterborne encounter
TWO_DICE = {"options": {"afloat_rule": "odd_two_dice"}}


def found(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def changes(events: list[Any], procedure: str) -> list[tuple[str, str, str]]:
    return [(e.trigger, e.source, e.dest) for e in events if isinstance(e, PhaseChanged) and e.procedure == procedure]


def flight(t: Table, *, setting: str = "waterborne", yards: int = 100, fleeing: str = "party", **start: Any) -> Table:
    """Both sides aware, ``yards`` apart; the pirates' ship (150) and the party's (Bo: 90); ``fleeing`` flees."""
    t.run(enc.StartEncounter(setting=setting, name="pirates", party_aware=True, monsters_aware=True, **start))
    t.run(enc.CheckSurprise())
    t.run(enc.DetermineDistance(value=yards))
    t.run(enc.RollInitiative(), 5, 2)
    t.run(enc.Evade(side=fleeing))
    return t


def at_sea(options: dict[str, Any] | None = None, **start: Any) -> Table:
    """An ose campaign whose party's ship flees the pirates: the pursuit decision is next."""
    return flight(Table("ose", options=options).party(), monster_speed=150, **start)


def surprised_pirates(yards: int = 20) -> Table:
    """The party, aware, surprises the pirates (their d6: 1) and flees in its free round."""
    t = Table("ose").party()
    t.run(enc.StartEncounter(setting="waterborne", name="pirates", party_aware=True, monster_speed=150))
    t.run(enc.CheckSurprise(), 1)
    t.run(enc.DetermineDistance(value=yards))
    t.run(enc.RollInitiative())
    t.run(enc.Evade(side="party"))
    return t


def chased(t: Table) -> Table:
    t.run(enc.DecidePursuit(pursue=True))
    return t


class TestTheHandOff:
    def test_pursuers_who_give_chase_on_water_hand_the_chase_off_in_the_same_command(self):
        """One append: the decision, the encounter into CHASE, the hand-off, the chase's start; nothing concludes."""
        t = at_sea()
        before = t.version
        events = t.run(enc.DecidePursuit(pursue=True))
        assert t.version == before + len(events)
        assert changes(events, "encounter") == [
            ("decide_pursuit", "EVASION", "EVASION"),
            ("settle", "EVASION", "CHASE"),
        ]
        kinds = [type(e) for e in events]
        assert kinds.index(HandedOff) == kinds.index(ev.ChaseStarted) - 1
        assert HAND_OFF in events
        assert changes(events, "chase") == [("start", "IDLE", "EVASION")]
        assert found(events, enc_ev.EncounterConcluded) == []
        table = t.table
        assert table.procedures["encounter"].phase is enc.Phase.CHASE
        assert table.procedures["chase"].phase is ch.Phase.EVASION
        assert table.handoffs == (("encounter", "chase"),)

    def test_in_the_wilderness_the_same_flight_concludes_in_pursuit_and_hands_nothing_off(self):
        """In the open the pursuit is not the chase's: the encounter concludes in pursuit, as it always did (in the
        dungeon it hands the dungeon chase off: ``test_hand_started_chase``)."""
        t = flight(Table("ose").party(), setting="wilderness", monster_speed=150)
        events = t.run(enc.DecidePursuit(pursue=True))
        assert [e.outcome for e in found(events, enc_ev.EncounterConcluded)] == ["pursuit"]
        assert found(events, HandedOff) == []
        assert changes(events, "encounter") == [("decide_pursuit", "EVASION", "CONCLUDED")]
        assert "chase" not in t.table.procedures
        assert t.table.handoffs == ()

    def test_pursuers_who_let_the_vessel_go_end_the_encounter_at_once(self):
        """Let go, the flight is an evasion: the encounter concludes in the same command and no chase starts."""
        t = at_sea()
        events = t.run(enc.DecidePursuit(pursue=False))
        assert changes(events, "encounter") == [
            ("decide_pursuit", "EVASION", "EVASION"),
            ("settle", "EVASION", "CONCLUDED"),
        ]
        (concluded,) = found(events, enc_ev.EncounterConcluded)
        assert (concluded.outcome, concluded.reason) == ("evaded", "the monsters let the party go")
        assert found(events, HandedOff) == []
        assert "chase" not in t.table.procedures

    @pytest.mark.parametrize(("faces", "handed_off"), [((1, 1), True), ((6, 6), False)])
    def test_the_monsters_reaction_decides_the_pursuit_and_so_the_hand_off(self, faces, handed_off):
        """No reaction yet: 2d6 at most 5 (A6) has them give chase and hand the chase off; 12 lets the ship go."""
        t = at_sea()
        events = t.run(enc.DecidePursuit(), *faces)
        (decision,) = found(events, enc_ev.PursuitDecided)
        assert (decision.pursue, decision.decided_by) == (handed_off, enc_ev.DecidedBy.REACTION)
        assert (HAND_OFF in events) is handed_off
        assert bool(found(events, enc_ev.EncounterConcluded)) is not handed_off

    def test_only_under_the_option_and_the_waterborne_evasion_table_is_the_pursuit_the_chases(self):
        """Without tables.evasion_waterborne (a chase there would be refused), or with the option off, no hand-off."""
        t = at_sea()
        state, rules = t.table.procedures["encounter"], t.table.rules
        assert afloat.hands_off(rules, state)
        content = copy.deepcopy(rules.content)
        del content["tables"]["evasion_waterborne"]
        assert not afloat.hands_off(rulesets.Ruleset(name="ose", content=content), state)
        assert not afloat.hands_off(rulesets.load("ose", {"options": OFF}), state)
        on_land = attrs.evolve(state, started=attrs.evolve(state.started, setting="wilderness"))
        assert not afloat.hands_off(rules, on_land)


class TestTheChaseStart:
    def test_the_chase_starts_with_what_the_encounter_knows(self):
        """Who flees, the distance (100 yd: 300 ft), each side's rate, the monsters, the name and the runners."""
        events = at_sea().run(enc.DecidePursuit(pursue=True))
        (started,) = found(events, ev.ChaseStarted)
        assert started == ev.ChaseStarted(
            number=1,
            name="pirates",
            setting=ev.ChaseSetting.WATERBORNE,
            fleeing=Side.PARTY,
            from_encounter=1,
            gap_ft=300,
            fleeing_ft=90,
            pursuers_ft=150,
            runners=("Ann", "Bo"),
            intelligent=True,
        )

    def test_the_pursuers_surprise_and_their_wits_are_carried_over(self):
        """The party surprised the pirates (1d4 x 10 yd: the referee's 20 yd, 60 ft): the start says so."""
        t = surprised_pirates()
        assert t.table.procedures["encounter"].surprised == (False, True)
        (started,) = found(t.run(enc.DecidePursuit(pursue=True)), ev.ChaseStarted)
        assert (started.fleeing_surprised, started.pursuers_surprised, started.gap_ft) == (False, True, 60)
        assert "the encounter surprised the pursuers" in render.describe(started)

    def test_fleeing_monsters_pursued_by_the_party_run_at_their_own_rate(self):
        """The monsters flee (150) and the players give chase (Bo: 90): the sides and rates swap."""
        t = flight(Table("ose").party(), fleeing="monsters", monster_speed=150, intelligent=False)
        (started,) = found(t.run(enc.DecidePursuit(pursue=True)), ev.ChaseStarted)
        assert (started.fleeing, started.fleeing_ft, started.pursuers_ft) == (Side.MONSTERS, 150, 90)
        assert not started.intelligent


class TestAfterTheChase:
    def test_a_vessel_that_gets_away_ends_the_encounter_in_the_same_command(self):
        """The evasion roll (1 on d100) ends the chase; the encounter resumes and concludes, a turn passes."""
        t = chased(at_sea())
        clock = t.table.clock.seconds
        events = t.run(ch.Evade(), 1)
        kinds = [type(e) for e in events]
        assert kinds.index(ev.ChaseEnded) < kinds.index(Resumed) < kinds.index(enc_ev.EncounterConcluded)
        assert Resumed(parent="encounter", child="chase") in events
        assert changes(events, "encounter") == [("resume", "CHASE", "CONCLUDED")]
        (concluded,) = found(events, enc_ev.EncounterConcluded)
        assert concluded.outcome == "evaded"
        assert concluded.reason.startswith("the party got away on the water: 1 <= 40 %")
        assert t.table.handoffs == ()
        assert t.table.clock.seconds == clock + 600

    def test_a_caught_vessel_is_fought_and_the_encounter_goes_on(self):
        """30 ft apart, the evasion fails (90) and one round closes 60 ft: the encounter resumes in combat."""
        t = chased(at_sea(yards=10))
        t.run(ch.Evade(), 90)
        events = t.run(ch.Run())
        assert [e.outcome for e in found(events, ev.ChaseEnded)] == [ev.Outcome.CAUGHT]
        assert changes(events, "encounter") == [("resume", "CHASE", "COMBAT")]
        assert found(events, enc_ev.EncounterConcluded) == []
        assert t.table.procedures["encounter"].phase is enc.Phase.COMBAT
        assert t.table.handoffs == ()
        t.run(enc.RollInitiative(), 3, 4)  # OSE rolls it again for the fight after the chase
        (round_played,) = found(t.run(enc.PlayRound()), enc_ev.RoundPlayed)
        assert (round_played.combat, round_played.acting) == (True, (Side.PARTY, Side.MONSTERS))
        (concluded,) = found(t.run(enc.ConcludeEncounter(outcome="boarded")), enc_ev.EncounterConcluded)
        assert (concluded.outcome, concluded.rounds) == ("boarded", 1)

    def test_after_the_chase_the_surprise_of_the_first_round_is_long_past(self):
        """The pirates were surprised at the start; caught after the chase, both sides roll initiative and act."""
        t = chased(surprised_pirates(yards=10))
        t.run(ch.Evade(), 90)
        t.run(ch.Run())
        (initiative,) = found(t.run(enc.RollInitiative(), 3, 4), enc_ev.InitiativeRolled)
        assert (initiative.party_face, initiative.monsters_face, initiative.free_round) == (3, 4, "")
        (round_played,) = found(t.run(enc.PlayRound()), enc_ev.RoundPlayed)
        assert (round_played.acting, round_played.reason) == ((Side.PARTY, Side.MONSTERS), "")

    def test_on_a_ship_travel_day_the_day_waits_for_both_and_goes_on_after_them(self):
        """Travel hands off the encounter, the encounter the chase; the ship gets away and both resume at once."""
        script: list[int] = []
        handler = _afloat_encounter(script, TWO_DICE)
        script.extend([6, 2, 6, 2])  # surprise: the pirates alone surprised; the initiative: the party first
        for command in (enc.CheckSurprise(), enc.DetermineDistance(value=100), enc.RollInitiative(), enc.Evade()):
            handler.execute("afloat", command)
        events = handler.execute("afloat", enc.DecidePursuit(pursue=True)).events
        assert HAND_OFF in events
        assert HandedOff(parent="travel", child="chase") not in events
        assert handler.load("afloat").handoffs == (("travel", "encounter"), ("encounter", "chase"))
        script.append(1)  # the vessel's evasion roll
        ended = handler.execute("afloat", ch.Evade()).events
        resumed = [(e.parent, e.child) for e in ended if isinstance(e, Resumed)]
        assert resumed == [("encounter", "chase"), ("travel", "encounter")]
        assert found(ended, HandedOff) == []  # the day hands no second chase off
        assert handler.load("afloat").handoffs == ()
        handler.execute("afloat", tr.EndDay())
        assert script == []
        stored = [decode(r.envelope) for r in handler.store.read_stream(tables.stream_for("afloat"))]
        assert len(found(stored, ev.ChaseStarted)) == 1
        assert check_procedures(stored, REGISTRY) == []
        assert replay(handler.store, "afloat", REGISTRY).ok
        assert audit_store(handler.store, "afloat", REGISTRY).findings == ()

    def test_a_ship_caught_keeps_the_day_waiting_until_the_fight_ends(self):
        """Caught, the encounter fights on and the day waits for it; its conclusion resumes the day."""
        script: list[int] = []
        handler = _afloat_encounter(script, TWO_DICE)
        script.extend([6, 2, 6, 2, 90])  # surprise, the initiative, then a failed evasion
        for command in (
            enc.CheckSurprise(),
            enc.DetermineDistance(value=10),
            enc.RollInitiative(),
            enc.Evade(),
            enc.DecidePursuit(pursue=True),
            ch.Evade(),
        ):
            handler.execute("afloat", command)
        caught = handler.execute("afloat", ch.Run()).events
        assert [(e.parent, e.child) for e in caught if isinstance(e, Resumed)] == [("encounter", "chase")]
        assert handler.load("afloat").handoffs == (("travel", "encounter"),)
        over = handler.execute("afloat", enc.ConcludeEncounter(outcome="repelled")).events
        assert Resumed(parent="travel", child="encounter") in over
        assert found(over, HandedOff) == []
        assert handler.load("afloat").handoffs == ()
        assert script == []


class TestTheManualRoute:
    def test_rules_without_the_option_conclude_in_pursuit_and_the_referee_starts_the_chase(self):
        """The old route: the encounter concludes in pursuit; ``chase start --setting waterborne --from-encounter 1``
        takes its facts; the chase's end resumes nothing."""
        t = at_sea(OFF)
        events = t.run(enc.DecidePursuit(pursue=True))
        assert [e.outcome for e in found(events, enc_ev.EncounterConcluded)] == ["pursuit"]
        assert found(events, HandedOff) == []
        (started,) = found(t.run(ch.StartChase(setting="waterborne", from_encounter=1)), ev.ChaseStarted)
        assert (started.from_encounter, started.gap_ft, started.fleeing_ft, started.pursuers_ft) == (1, 300, 90, 150)
        ended = t.run(ch.Evade(), 1)
        assert found(ended, Resumed) == []
        assert t.table.procedures["encounter"].phase is enc.Phase.CONCLUDED

    def test_under_the_option_a_concluded_encounter_still_gives_a_chase_by_hand(self):
        """The referee may still start a chase on water from an encounter concluded otherwise (they fled later)."""
        t = Table("ose").party()
        t.run(enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True, monster_speed=150))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=50))
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.ConcludeEncounter(outcome="parted"))
        (started,) = found(t.run(ch.StartChase(setting="waterborne", from_encounter=1)), ev.ChaseStarted)
        assert (started.gap_ft, started.fleeing_ft, started.pursuers_ft) == (150, 90, 150)

    @pytest.mark.parametrize(("options", "refused"), [(None, True), (OFF, False)], ids=["option", "without"])
    def test_under_the_option_the_referee_cannot_conclude_in_pursuit(self, options, refused):
        """Under the option the pursuit on water is decided (its chase fights a caught vessel in this encounter): a
        conclusion in pursuit is refused, naming those steps, and nothing is written; without it, it concludes."""
        t = Table("ose", options=options).party()
        t.run(enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True, monster_speed=150))
        t.run(enc.CheckSurprise())
        t.run(enc.DetermineDistance(value=50))
        t.run(enc.RollInitiative(), 5, 2)
        before = t.version
        if not refused:
            assert [
                e.outcome for e in found(t.run(enc.ConcludeEncounter(outcome="pursuit")), enc_ev.EncounterConcluded)
            ] == ["pursuit"]
            return
        with pytest.raises(RuleRefusedError, match="on water an encounter ends in pursuit only by its pursuers'") as e:
            t.run(enc.ConcludeEncounter(outcome="pursuit"))
        assert "DecidePursuit()" in str(e.value)
        assert "StartChase(setting waterborne, from_encounter 1)" in str(e.value)
        assert t.version == before

    def test_no_chase_is_started_by_hand_while_the_encounter_waits_for_its_own(self):
        """The chase the encounter handed off is under way: another start is refused and nothing is written."""
        t = chased(at_sea())
        before = t.version
        with pytest.raises(IllegalTransitionError, match="EVASION"):
            t.run(ch.StartChase(setting="waterborne", from_encounter=1))
        assert t.version == before


def _golden(name: str) -> list[Any]:
    lines = (GOLDEN / "logs" / name).read_bytes().split(b"\n")
    return read_export(lines)


class TestOldLogs:
    def test_the_golden_logs_pursuit_on_water_stays_concluded_in_pursuit_and_audits_clean(self):
        """ose 0.1.0's waterborne encounter ended in pursuit under rules without the option: so it reads, and
        re-running that decision today gives the same conclusion (no finding)."""
        store = MemoryStore()
        result = import_envelopes(store, _golden("ose.jsonl"))
        events = [decode(r.envelope) for r in store.read_stream(result.stream_id)]
        started = next(e for e in events if isinstance(e, enc_ev.EncounterStarted) and e.setting == "waterborne")
        after = events[events.index(started) :]
        assert next(e.outcome for e in after if isinstance(e, enc_ev.EncounterConcluded)) == "pursuit"
        assert [e for e in found(events, HandedOff) if e.parent == "encounter"] == []
        assert audit_store(store, result.campaign, REGISTRY).findings == ()

    def test_a_campaign_under_rules_recorded_before_the_option_keeps_concluding_in_pursuit(self):
        """Played on from the golden log: its recorded rules read the option as off, so a new flight on water
        concludes in pursuit and hands nothing off."""
        store = MemoryStore()
        campaign = import_envelopes(store, _golden("ose.jsonl")).campaign
        script: list[int] = []
        handler = Handler(store, MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
        assert not handler.load(campaign).rules.part(EncounterOptions).waterborne_pursuit_hands_off
        handler.execute(campaign, c.OpenSession(secret_hex="cd" * 32))
        handler.execute(campaign, enc.StartEncounter(setting="waterborne", party_aware=True, monsters_aware=True))
        handler.execute(campaign, enc.CheckSurprise())
        handler.execute(campaign, enc.DetermineDistance(value=50))
        script.extend([5, 2])
        handler.execute(campaign, enc.RollInitiative())
        handler.execute(campaign, enc.Evade())
        events = handler.execute(campaign, enc.DecidePursuit(pursue=True)).events
        assert [e.outcome for e in found(events, enc_ev.EncounterConcluded)] == ["pursuit"]
        assert found(events, HandedOff) == []

    def test_a_version_1_chase_start_reads_as_neither_side_surprised(self):
        """chase.started v1 recorded no surprise: upcast, both fields are false and the rest is as written."""
        golden = json.loads((GOLDEN / "events" / "chase.started.v1.json").read_text(encoding="utf-8"))
        started = from_data(golden["type"], 1, golden["data"])
        assert (started.fleeing_surprised, started.pursuers_surprised) == (False, False)
        assert (started.name, started.gap_ft) == ("ghouls", 30)


def committed_flight(secret_hex: str | None = None) -> Handler:
    """A flight on water on committed dice (the pirates' reaction decides), to the chase's end, session closed; on the
    secret given (the same dice every run), else on one drawn."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    for command in (
        c.StartCampaign(ruleset="ose"),
        c.OpenSession(secret_hex=secret_hex),
        c.SetClientSeed(client_seed="crew"),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo", speed=90),
    ):
        handler.execute(CAMPAIGN, command)
    for number in range(1, 4):
        handler.execute(
            CAMPAIGN,
            enc.StartEncounter(setting="waterborne", name=f"sail {number}", party_aware=True, monster_speed=150),
        )
        for command in (enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative(), enc.Evade()):
            handler.execute(CAMPAIGN, command)
        handler.execute(CAMPAIGN, enc.DecidePursuit(pursue=True))
        handler.execute(CAMPAIGN, ch.Evade())
        while handler.load(CAMPAIGN).procedures["chase"].phase is ch.Phase.CLOSING:
            handler.execute(CAMPAIGN, ch.Run())
        if handler.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.COMBAT:
            handler.execute(CAMPAIGN, enc.RollInitiative())  # OSE rolls it again for the fight after the chase
            handler.execute(CAMPAIGN, enc.PlayRound())
            handler.execute(CAMPAIGN, enc.ConcludeEncounter(outcome="boarded"))
    handler.execute(CAMPAIGN, c.CloseSession())
    return handler


class TestAudit:
    def test_a_log_with_the_hand_off_on_committed_dice_audits_verified(self):
        """Every roll and decision re-derives, the hand-off with its pursuit decision; the log replays."""
        handler = committed_flight()
        events = [decode(r.envelope) for r in handler.store.read_stream(STREAM)]
        assert events.count(HAND_OFF) == 3
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.verdict is Verdict.VERIFIED, report.text()
        assert report.decisions >= 3 * 3

    def _events(self) -> list[Any]:
        events = [decode(r.envelope) for r in committed_flight().store.read_stream(STREAM)]
        assert check_decision_events(events).issues == ()
        return events

    @pytest.mark.parametrize(
        ("field", "change"),
        [
            ("gap_ft", lambda e: e.gap_ft * 10),
            ("pursuers_ft", lambda e: e.pursuers_ft - 90),
            ("fleeing", lambda e: e.fleeing.other),
            ("pursuers_surprised", lambda e: not e.pursuers_surprised),
        ],
    )
    def test_a_chase_start_that_does_not_follow_from_the_encounter_is_a_finding(self, field, change):
        """The pursuit decision re-run hands the chase off again: a start recorded otherwise differs from it."""
        events = self._events()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.ChaseStarted))
        events[at] = attrs.evolve(events[at], **{field: change(events[at])})
        decision = max(i for i, e in enumerate(events[:at]) if isinstance(e, enc_ev.PursuitDecided))
        issues = check_decision_events(events).issues
        assert issues, "the forged start went unseen"
        assert issues[0].at == decision, issues
        assert issues[0].reason.startswith(f"the chase.started after it differs: {field} "), issues[0].reason

    def test_a_hand_off_the_pursuit_decision_did_not_make_is_a_finding(self):
        """Recorded as the pursuers letting the ship go, the decision re-run ends the encounter: no hand-off."""
        events = self._events()
        at = next(i for i, e in enumerate(events) if isinstance(e, enc_ev.PursuitDecided))
        events[at] = attrs.evolve(events[at], pursue=False)
        issues = check_decision_events(events).issues
        handed = events.index(HAND_OFF, at)
        assert [i.at for i in issues] == [at, handed], issues
        assert 'the procedure.phase_changed after it differs: dest "CHASE" where the rules give "CONCLUDED"' in (
            issues[0].reason
        )
        assert (
            issues[1].reason == "procedure.handed_off follows no decision here, and the rules record it only after one"
        )

    def test_a_hand_off_that_follows_no_pursuit_decision_is_a_finding(self):
        """A hand-off to the chase recorded anywhere but right after its decision was not written by the rules."""
        events = self._events()
        forged = [*events[:-1], HAND_OFF, events[-1]]
        issues = check_decision_events(forged).issues
        assert [(i.at, i.reason) for i in issues] == [(len(events) - 1, FOLLOWS_NO_DECISION)]

    def test_other_hand_offs_are_not_asked_to_follow_a_decision(self):
        """A ship's travel day hands its encounter off in its own steps: that hand-off is no finding."""
        script: list[int] = []
        handler = _afloat_encounter(script, TWO_DICE)
        events = [decode(r.envelope) for r in handler.store.read_stream(tables.stream_for("afloat"))]
        assert HandedOff(parent="travel", child="encounter") in events
        assert check_decision_events(events).issues == ()


def lost_ship() -> Handler:
    """A ship's travel day that is secretly lost (1 on the lost die, heading 3), then a waterborne encounter whose
    pirates give chase: the chase on water waits for the vessel's evasion."""
    script: list[int] = []
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=TWO_DICE))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="ab" * 32))
    for name in ("Ann", "Bo"):
        handler.execute(CAMPAIGN, c.AddMember(name=name))
    handler.execute(CAMPAIGN, hexmap.SetHex(hex="1,2", terrain="hills"))
    handler.execute(CAMPAIGN, hexmap.SetHex(hex="0,2", terrain="river"))  # the ship sets out from a port beside it
    handler.execute(CAMPAIGN, tr.StartJourney(hex="1,2", afloat=True))
    handler.execute(CAMPAIGN, tr.RollWeather(weather="clear"))
    script.extend([1, 3])
    handler.execute(CAMPAIGN, tr.DeclareRoute(headings=("N",)))
    script.extend([5, 1, 6, 2, 6, 2])  # a waterborne encounter; surprise; the initiative: the party first
    handler.execute(CAMPAIGN, tr.CheckWandering())
    for command in (
        enc.CheckSurprise(),
        enc.DetermineDistance(value=100),
        enc.RollInitiative(),
        enc.Evade(),
        enc.DecidePursuit(pursue=True),
    ):
        handler.execute(CAMPAIGN, command)
    assert script == []
    return handler


class TestWhoSeesIt:
    def test_a_player_sees_the_hand_off_and_the_chase_but_not_the_secret_lost_check(self):
        """The player's log shows the hand-off and the chase's start, hides the lost check; the player's state shows
        the chase under way and the encounter waiting for it, with no next steps."""
        handler = lost_ship()
        recorded = list(handler.store.read_stream(STREAM))
        lines = render.timeline(recorded, player=True)
        shown = "\n".join(line.text for line in lines if not line.hidden)
        assert "encounter hands off to chase" in shown
        assert "chase 1 'day 1: wandering monsters' (waterborne) from encounter 1" in shown
        assert [decode(r.envelope).lost for r in recorded if r.envelope.type == "hexlog.travel.lost_checked"] == [True]
        hidden = [line for line in lines if line.hidden]
        assert {line.kind for line in hidden} == {DiceRolled.type_name, "travel.lost_checked"}
        assert "travel.lost" not in shown
        assert "lost" not in "\n".join(line.text for line in lines if line.kind == PhaseChanged.type_name)
        referee = "\n".join(line.text for line in render.timeline(recorded))
        assert "travel.lost" in referee
        table = handler.load(CAMPAIGN)
        player = "\n".join(render.state_lines(CAMPAIGN, table, player=True))
        assert "encounter: phase CHASE" in player
        assert "it waits for the chase (caught, the sides fight; got away, it ends)" in player
        assert "chase: phase EVASION" in player
        assert "  chase 1 (waterborne): round 0, gap 300 ft" in player
        assert "next:" not in player
        assert "LOST" not in player
        state = "\n".join(render.state_lines(CAMPAIGN, table))
        assert "next: hexlog chase evade" in state
        assert "next: nothing until its chase concludes" in state
        document = render.state_document(CAMPAIGN, table, player=True)
        assert document["procedures"]["chase"]["next"] == []
