"""A lost joust costs the loser their armor, in the party's record (seed 004 U&WA p.15, REFERENCE §4.15).

The castle's champion takes the loser's armor: the joust's command records ``castle.joust_fought``
(version 2 names the armor taken) and, right after it, ``party.member_edited`` with the loser as they
were and as they are now (armor ``none``). The party folds that edit as it folds any other, so
``hexlog state`` and every later roll that reads armor (the noise of armor at surprise) see the change.
The audit re-runs a rolled joust with its edit. ``tests/golden/castle-joust-v1.jsonl`` was written by
hexlog at commit eae70ab, whose lost jousts changed no member's armor (``castle.joust_fought``
version 1): it still audits VERIFIED and exports byte for byte, its jousts are re-run as they were,
and its party keeps the armor it had.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import castle as ev
from hexlog.events.codec import decode, from_data
from hexlog.events.encounter import SurpriseChecked
from hexlog.events.errors import UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.party import MemberEdited, MemberSheet
from hexlog.machine import castle as k
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.table import stream_for
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

CAMPAIGN = "j"
STREAM = stream_for(CAMPAIGN)
LORD = k.PlaceCastle(hex="2,2", castle_type="lord", disposition="neutral")
V1_LOG = Path(__file__).resolve().parent / "golden" / "castle-joust-v1.jsonl"
#: explore with the AD&D armor noise laid over it: plate is plated, and plated armor is noisy
NOISY_ARMOR = {"options": {"noisy_armor": ["plated"]}, "tables": {"armor_kind": {"plate": "plated", "chain": "metal"}}}


def campaign(script: list[int], overrides: dict[str, Any] | None = None) -> Handler:
    """Explore rules; Ann in plate and Bo in chain; a castle of a neutral lord at 2,2, its garrison met."""
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=overrides or {}))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="cd" * 32))
    handler.execute(CAMPAIGN, c.AddMember(name="Ann", armor="plate"))
    handler.execute(CAMPAIGN, c.AddMember(name="Bo", armor="chain", strength=14))
    handler.execute(CAMPAIGN, SetHex(hex="2,2", terrain="hills"))
    for command in (LORD, k.HailCastle(hex="2,2"), k.MeetGarrison(riders=6, speed=240)):
        handler.execute(CAMPAIGN, command)
    return handler


def joust(
    command: k.Joust, *faces: int, script: list[int] | None = None, **overrides: Any
) -> tuple[Handler, list[Any]]:
    """The joust on ``faces``; ``script`` (kept) holds the faces of later commands."""
    script = [] if script is None else script
    handler = campaign(script, overrides or None)
    script.extend(faces)
    events = list(handler.execute(CAMPAIGN, command).events)
    assert script == []
    return handler, events


def armor(handler: Handler) -> dict[str, str]:
    return {m.name: m.armor for m in handler.load(CAMPAIGN).party.members}


def recorded(handler: Handler) -> list[Any]:
    return [decode(r.envelope) for r in handler.store.read_stream(STREAM)]


class TestTheLosersArmor:
    @pytest.mark.parametrize(
        ("command", "faces"), [(k.Joust(fighter="Ann"), (3,)), (k.Joust(fighter="Ann", winner="castle"), ())]
    )
    def test_the_champion_takes_the_losers_armor_and_the_party_record_shows_it(
        self, command: k.Joust, faces: tuple[int, ...]
    ) -> None:
        """Rolled (3: the champion's) or the referee's, Ann loses: the joust names her plate, and the same command
        records her member edit, plate to none, before the meeting ends; Bo keeps his chain."""
        handler, events = joust(command, *faces)
        fought = next(e for e in events if isinstance(e, ev.JoustFought))
        assert (fought.winner, fought.armor_lost_by, fought.armor) == ("castle", "Ann", "plate")
        edited = [e for e in events if isinstance(e, MemberEdited)]
        was = MemberSheet(name="Ann", cha=10, wis=10, dex=10, strength=10, speed=120, armor="plate", infravision_ft=0)
        assert [(e.was, e.now.armor, e.now.name) for e in edited] == [(was, "none", "Ann")]
        assert "the champion of the castle at 2,2" in edited[0].reason
        kinds = [type(e) for e in events]
        assert kinds.index(ev.JoustFought) < kinds.index(MemberEdited) < kinds.index(ev.MeetingEnded)
        assert armor(handler) == {"Ann": "none", "Bo": "chain"}
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok

    def test_a_won_joust_takes_no_armor(self) -> None:
        """4: Ann unhorses the champion; nobody's armor changes."""
        handler, events = joust(k.Joust(fighter="Ann"), 4)
        fought = next(e for e in events if isinstance(e, ev.JoustFought))
        assert (fought.winner, fought.armor_lost_by, fought.armor) == ("party", "", "")
        assert not [e for e in events if isinstance(e, MemberEdited)]
        assert armor(handler) == {"Ann": "plate", "Bo": "chain"}

    def test_a_loser_who_wears_no_armor_has_none_to_lose(self) -> None:
        """Ann jousts unarmored and loses: the joust takes nothing, and no edit is recorded."""
        script: list[int] = []
        handler = campaign(script)
        handler.execute(CAMPAIGN, c.EditMember(name="Ann", armor="none"))
        script.append(1)
        events = list(handler.execute(CAMPAIGN, k.Joust(fighter="Ann")).events)
        fought = next(e for e in events if isinstance(e, ev.JoustFought))
        assert (fought.winner, fought.armor_lost_by, fought.armor) == ("castle", "Ann", "none")
        assert not [e for e in events if isinstance(e, MemberEdited)]
        shown = render.describe(fought)
        assert shown == "the castle's champion defeats Ann (d6=1); Ann wears no armor to take [rolls #0]"

    def test_the_state_and_the_log_show_the_armor_taken(self) -> None:
        """The state lists Ann without armor; the joust's line names the plate taken, the edit's line the change."""
        handler, events = joust(k.Joust(fighter="Ann"), 2)
        lines = render.state_lines(CAMPAIGN, handler.load(CAMPAIGN))
        assert "  Ann: CHA 10 WIS 10 DEX 10 STR 10, speed 120, armor none" in lines
        assert "  Bo: CHA 10 WIS 10 DEX 10 STR 14, speed 120, armor chain" in lines
        text = [render.describe(e) for e in events]
        assert "the castle's champion defeats Ann (d6=2), and takes the loser's armor (plate) [rolls #0]" in text
        edit = "Ann corrected: armor plate -> none (taken by the champion of the castle at 2,2, who won the joust)"
        assert edit in text


class TestALaterRollReadsTheArmorLeft:
    def test_plate_lost_in_a_joust_no_longer_gives_the_party_away(self) -> None:
        """Under armor noise (plated armor is noisy, and noise blocks surprise), Ann's plate keeps the party from
        surprising anyone; once the champion has taken it, Bo's chain (metal, not noisy here) does not, and the
        monsters roll their surprise die."""
        found = {}
        for winner in ("party", "castle"):
            script: list[int] = []
            handler, _ = joust(k.Joust(fighter="Ann", winner=winner), script=script, **NOISY_ARMOR)
            handler.execute(CAMPAIGN, enc.StartEncounter(setting="wilderness", name="wolves"))
            script.extend([6, 5] if winner == "castle" else [6])
            events = handler.execute(CAMPAIGN, enc.CheckSurprise()).events
            assert script == []
            found[winner] = next(e for e in events if isinstance(e, SurpriseChecked))
        before, after = found["party"], found["castle"]
        blocked = "the party wear noisy armour (plate), so the monsters cannot be surprised by them"
        assert (before.monsters_rolled, before.monsters_reason) == (False, blocked)
        assert (after.monsters_rolled, after.monsters_face) == (True, 5)
        assert after.monsters_reason == "d6 = 5 > 2: not surprised"


class TestTheAudit:
    def test_a_lost_joust_and_its_edit_are_re_run_from_the_roll(self) -> None:
        """The decision check re-runs the rolled joust: the edit after it is the rules' own."""
        handler, _ = joust(k.Joust(fighter="Ann"), 1)
        assert check_decision_events(recorded(handler)).issues == ()

    def test_an_edit_left_out_or_forged_after_a_lost_joust_is_caught(self) -> None:
        """The same log without the edit, or with the armor left on, is a finding at the joust."""
        handler, _ = joust(k.Joust(fighter="Ann"), 1)
        events = recorded(handler)
        at = next(i for i, e in enumerate(events) if isinstance(e, MemberEdited))
        dropped = [e for i, e in enumerate(events) if i != at]
        kept_on = list(events)
        edit = events[at]
        kept_on[at] = MemberEdited(was=edit.was, now=edit.was, reason=edit.reason)
        for forged in (dropped, kept_on):
            issues = check_decision_events(forged).issues
            assert [type(forged[i.at]) for i in issues] == [ev.JoustFought], issues

    def test_on_committed_dice_lost_jousts_audit_verified(self) -> None:
        """Real dice: jousts until the champion has won one; replay and audit are clean, every roll verified."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore"))
        handler.execute(CAMPAIGN, c.OpenSession(secret_hex="e7" * 32))
        handler.execute(CAMPAIGN, c.AddMember(name="Ann", armor="plate"))
        handler.execute(CAMPAIGN, SetHex(hex="2,2", terrain="hills"))
        handler.execute(CAMPAIGN, LORD)
        winners = []
        while "castle" not in winners:
            handler.execute(CAMPAIGN, k.HailCastle(hex="2,2"))
            handler.execute(CAMPAIGN, k.MeetGarrison(riders=6))
            events = handler.execute(CAMPAIGN, k.Joust(fighter="Ann")).events
            winners.append(next(e for e in events if isinstance(e, ev.JoustFought)).winner)
        handler.execute(CAMPAIGN, c.CloseSession())
        assert armor(handler) == {"Ann": "none"}
        assert replay(handler.store, CAMPAIGN, REGISTRY).ok
        for campaign in (CAMPAIGN, None):  # read as it comes, and read whole
            report = audit_store(handler.store, campaign, REGISTRY)
            assert report.findings == (), report.text()
            # the armor a lost joust takes is the rules' edit, not the referee's
            assert report.by_hand[0] == "stream version 6: the castle at 2,2 placed as neutral lord"
            # each meeting's riders and speed are the referee's
            assert {line.split(": ", 1)[1] for line in report.by_hand[1:]} == {
                (
                    "the garrison of the castle at 2,2 met as 6 riders at 120 ft a turn, the referee's count and "
                    "speed (a fight, and a pursuit on a flight, read them)"
                )
            }
            assert len(report.by_hand) == 1 + len(winners)
        assert report.rolls_verified == report.rolls == len(winners)
        # each joust, and each meeting (the castle placed as a neutral lord: the rules roll nothing for it)
        assert report.decisions == 2 * len(winners)


class TestAVersion1Log:
    def lines(self) -> list[str]:
        return V1_LOG.read_text(encoding="utf-8").splitlines()

    def test_it_audits_verified_with_every_joust_re_run_as_recorded(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        # two jousts and the three meetings of a castle whose type and disposition were placed (no roll)
        assert (report.events, report.rolls, report.rolls_verified, report.decisions) == (33, 2, 2, 5)
        assert report.verdict.name == "VERIFIED"

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        assert replay(store, "joust", REGISTRY).ok
        assert list(export_lines(store, "joust")) == self.lines()

    def test_its_party_keeps_the_armor_its_lost_jousts_did_not_take(self) -> None:
        """Its two lost jousts (Ann's rolled, Bo's the referee's) changed no member's armor: folded now, nor do they."""
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        table = replay(store, "joust", REGISTRY).table
        assert {m.name: m.armor for m in table.party.members} == {"Ann": "plate", "Bo": "chain"}

    def test_its_jousts_decode_as_written_naming_no_armor(self) -> None:
        """Version 1 named who lost their armor, not which: it reads as version 2 with no armor named."""
        rows = [json.loads(line) for line in self.lines() if '"hexlog.castle.joust_fought"' in line]
        assert [row["schemaversion"] for row in rows] == [1, 1, 1]
        for row in rows:
            event = from_data(row["type"], row["schemaversion"], row["data"])
            assert (event.armor_lost_by, event.armor) == (row["data"]["armor_lost_by"], "")


class TestAMeetingWithoutItsRolls:
    """A castle placed with its type and disposition unknown leaves them to the dice when its garrison meets the
    party. The meeting recorded with no roll, its type and disposition the referee's, is re-run all the same: the
    rules roll there, so it is a finding, however its own fields read."""

    @staticmethod
    def hailed() -> Handler:
        """A castle of unknown type at 2,2, hailed, on scripted dice (type 1: a lord; disposition 5)."""
        handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller([1, 5]))
        handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore"))
        handler.execute(CAMPAIGN, c.OpenSession())
        handler.execute(CAMPAIGN, c.AddMember(name="Ann"))
        handler.execute(CAMPAIGN, SetHex(hex="2,2", terrain="hills"))
        handler.execute(CAMPAIGN, k.PlaceCastle(hex="2,2"))
        handler.execute(CAMPAIGN, k.HailCastle(hex="2,2"))
        return handler

    def met(self) -> list[Any]:
        """The castle's garrison met: six riders."""
        handler = self.hailed()
        handler.execute(CAMPAIGN, k.MeetGarrison(riders=6))
        return recorded(handler)

    @pytest.mark.parametrize(
        ("given", "words"),
        [
            ({"riders": 99_999_999}, "--riders must be 1 to 10000, not 99999999"),
            ({"speed": 481}, "--speed must be 1 to 480, not 481"),
        ],
    )
    def test_riders_or_speed_past_an_encounters_monsters_are_refused(self, given: dict[str, int], words: str) -> None:
        """A fight would make them an encounter's monsters, whose ranges they would break: refused at the referee's
        door, with nothing written, and the meeting can still be had."""
        handler = self.hailed()
        before = handler.store.stream_version(STREAM)
        with pytest.raises(UsageError, match=f"^{words}$"):
            handler.execute(CAMPAIGN, k.MeetGarrison(**given))
        assert handler.store.stream_version(STREAM) == before
        handler.execute(CAMPAIGN, k.MeetGarrison(riders=10_000, speed=480))

    def test_the_meeting_on_its_rolls_is_re_run_clean(self) -> None:
        events = self.met()
        met = next(e for e in events if isinstance(e, ev.GarrisonMet))
        assert len(met.rolls) == 2
        assert check_decision_events(events).issues == ()

    def test_a_meeting_an_earlier_release_let_past_those_ranges_is_re_run_as_it_was(self) -> None:
        """The ranges are the referee's door's: a log of a release that took 99999 riders still audits clean."""
        events = self.met()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.GarrisonMet))
        events[at] = attrs.evolve(events[at], riders=99_999, speed=999)
        assert check_decision_events(events).issues == ()

    def test_the_meeting_with_its_rolls_taken_away_is_a_finding(self) -> None:
        events = self.met()
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.GarrisonMet))
        forged = list(events)
        forged[at] = attrs.evolve(events[at], rolls=(), type_face=0, disposition_face=0)
        reasons = [(i.at, i.reason) for i in check_decision_events(forged).issues]
        assert (
            at,
            "castle.garrison_met: the rules roll 1d6 here (roll 1 of this decision), but the decision names no roll",
        ) in reasons
