"""Undo a mistake without breaking history: a cancelled encounter, a corrected count, an edited member.

Nothing is ever deleted: each correction is a new event that says what it corrects, and the log only grows.
"""

from __future__ import annotations

import pytest

from hexlog.events import encounter as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.errors import IllegalTransitionError, NotFoundError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.party import MemberEdited
from hexlog.events.procedure import PhaseChanged, Resumed
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay

CAMPAIGN = "fix"
AWARE = enc.StartEncounter(party_aware=True, monsters_aware=True, monster_count=3)
#: the steps to each phase of an aware encounter (OSE), with the faces they roll
TO_PHASE = {
    "SURPRISE": ((), ()),
    "DISTANCE": ((enc.CheckSurprise(),), ()),
    "INITIATIVE": ((enc.CheckSurprise(), enc.DetermineDistance()), (3, 4)),
    "ACTIONS": ((enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative()), (3, 4, 5, 2)),
    "COMBAT": ((enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative(), enc.Fight()), (3, 4, 5, 2)),
    "EVASION": ((enc.CheckSurprise(), enc.DetermineDistance(), enc.RollInitiative(), enc.Evade()), (3, 4, 5, 2)),
}


class Table:
    """A campaign on scripted dice."""

    def __init__(self, ruleset: str = "ose") -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset=ruleset))
        self.run(c.OpenSession(secret_hex="5a" * 32))
        self.run(c.AddMember(name="Aldirc", cha=13))
        self.run(c.AddMember(name="Bo"))

    def run(self, command: c.Command, *faces: int) -> list:
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == []
        return events

    @property
    def table(self) -> tables.Table:
        return self.handler.load(CAMPAIGN)

    @property
    def version(self) -> int:
        return self.handler.store.stream_version(tables.stream_for(CAMPAIGN))

    def encounter(self) -> enc.EncounterState:
        return self.table.procedures["encounter"]


class TestCancel:
    @pytest.mark.parametrize("phase", list(TO_PHASE))
    def test_an_encounter_is_cancelled_at_any_phase_with_no_game_time_passing(self, phase):
        t = Table()
        t.run(AWARE)
        commands, faces = TO_PHASE[phase]
        script = list(faces)
        for command in commands:
            t.script.extend(script)
            t.handler.execute(CAMPAIGN, command)
            script = t.script[:]
            t.script.clear()
        assert t.encounter().phase is enc.Phase[phase]
        before, clock = t.version, t.table.clock.seconds
        events = t.run(enc.CancelEncounter(reason="started by mistake"))
        cancelled = next(e for e in events if isinstance(e, ev.EncounterCancelled))
        assert (cancelled.number, cancelled.phase, cancelled.reason) == (1, phase.lower(), "started by mistake")
        assert not any(isinstance(e, ClockAdvanced | ev.EncounterConcluded) for e in events)
        assert t.table.clock.seconds == clock
        assert t.encounter().phase is enc.Phase.CONCLUDED
        assert t.encounter().cancelled == cancelled
        assert t.version == before + len(events)  # nothing removed: the log only grows
        assert replay(t.handler.store, CAMPAIGN).ok
        report = audit_store(t.handler.store, CAMPAIGN)
        assert not report.findings, report.text()
        t.run(AWARE)  # a new encounter may start
        assert t.encounter().started.number == 2

    def test_a_cancel_needs_a_reason_and_an_encounter_under_way(self):
        t = Table()
        with pytest.raises(IllegalTransitionError):
            t.run(enc.CancelEncounter(reason="oops"))
        t.run(AWARE)
        before = t.version
        with pytest.raises(UsageError, match="why the encounter is cancelled"):
            t.run(enc.CancelEncounter(reason="  "))
        assert t.version == before
        t.run(enc.CancelEncounter(reason="oops"))
        with pytest.raises(IllegalTransitionError):
            t.run(enc.CancelEncounter(reason="again"))

    def test_the_procedure_that_handed_off_resumes(self):
        """A delve's wandering monster, started by mistake: cancelling it resumes the delve."""
        t = Table("explore")
        t.run(dg.EnterDungeon())
        t.run(dg.LightSource(kind="torch", by="Aldirc"))
        t.run(dg.Move())
        t.run(dg.Move(), 1)
        t.run(dg.Meet())
        assert t.table.procedures["dungeon"].phase is dg.Phase.ENCOUNTER
        events = t.run(enc.CancelEncounter(reason="no monster was due after all"))
        assert any(isinstance(e, Resumed) for e in events)
        assert any(isinstance(e, PhaseChanged) and e.procedure == "dungeon" for e in events)
        assert t.table.procedures["dungeon"].phase is dg.Phase.EXPLORING
        assert not audit_store(t.handler.store, CAMPAIGN).findings

    def test_the_command_line_cancels_and_the_log_shows_it(self, hexlog):
        for args in (("init",), ("session", "open"), ("party", "add", "Ann"), ("encounter", "start")):
            assert hexlog(*args).returncode == 0
        done = hexlog("encounter", "cancel", "--reason", "started by mistake")
        assert done.returncode == 0, done.stderr
        assert "encounter 1 cancelled in phase surprise: started by mistake" in done.stdout
        assert "cancelled" in hexlog("log").stdout
        assert hexlog("audit").returncode in {0, 3}


class TestCorrectEncounter:
    def test_a_wrong_monster_count_is_corrected_by_an_event_naming_the_earlier_value(self):
        t = Table()
        t.run(AWARE)
        t.run(enc.CheckSurprise())
        before = t.version
        events = t.run(enc.CorrectEncounter(monster_count=4, reason="four goblins, not three"))
        fix = next(e for e in events if isinstance(e, ev.EncounterCorrected))
        assert (fix.field, fix.was, fix.now) == ("monster_count", 3, 4)
        assert t.encounter().started.monster_count == 4
        assert t.encounter().phase is enc.Phase.DISTANCE  # the encounter goes on where it was
        assert t.version == before + len(events)
        first = t.handler.store.read_stream(tables.stream_for(CAMPAIGN))
        assert any(
            r.envelope.type == "hexlog.encounter.started" and r.envelope.data["monster_count"] == 3 for r in first
        )
        assert replay(t.handler.store, CAMPAIGN).ok

    def test_a_correction_that_changes_nothing_is_refused(self):
        t = Table()
        t.run(AWARE)
        with pytest.raises(RuleRefusedError, match="already has 3 monsters"):
            t.run(enc.CorrectEncounter(monster_count=3))
        with pytest.raises(UsageError):
            t.run(enc.CorrectEncounter(monster_count=0))


class TestEditMember:
    def test_an_edit_records_what_was_and_what_is(self):
        t = Table()
        before = t.version
        (edited,) = t.run(c.EditMember(name="Aldirc", new_name="Aldric", cha=14, reason="misspelt"))
        assert isinstance(edited, MemberEdited)
        assert (edited.was.name, edited.was.cha) == ("Aldirc", 13)
        assert (edited.now.name, edited.now.cha, edited.now.wis) == ("Aldric", 14, 10)
        assert [m.name for m in t.table.party.members] == ["Aldric", "Bo"]
        assert t.table.party.member("Aldric").cha == 14
        assert t.version == before + 1
        assert replay(t.handler.store, CAMPAIGN).ok

    @pytest.mark.parametrize(
        ("command", "error", "needle"),
        [
            (c.EditMember(name="Nobody", cha=12), NotFoundError, "no member called Nobody"),
            (c.EditMember(name="Bo"), UsageError, "nothing to correct"),
            (c.EditMember(name="Bo", cha=19), UsageError, "cha must be 3 to 18"),
            (c.EditMember(name="Bo", new_name="Aldirc"), RuleRefusedError, "already has a member called Aldirc"),
            (c.EditMember(name="Bo", new_name="!!"), UsageError, "member name"),
            (c.EditMember(name="Bo", new_name="Aldirc "), UsageError, "so it looks like 'Aldirc'"),
            (c.EditMember(name="Bo", new_name="\uff21ldirc"), RuleRefusedError, "called Aldirc, which '\uff21ldirc'"),
        ],
    )
    def test_a_bad_edit_is_refused_and_writes_nothing(self, command, error, needle):
        t = Table()
        before = t.version
        with pytest.raises(error, match=needle):
            t.run(command)
        assert t.version == before

    @pytest.mark.parametrize(
        ("name", "error", "needle"),
        [
            ("Bo ", UsageError, "has a space at its end or two spaces together, so it looks like 'Bo'"),
            ("Al  Bo", UsageError, "so it looks like 'Al Bo'"),
            ("\uff22o", RuleRefusedError, "already has a member called Bo, which '\uff22o' looks like"),
        ],
    )
    def test_a_member_added_under_a_name_that_looks_like_anothers_is_refused(self, name, error, needle):
        """A name that shows as another (a space at its end, full-width letters) is refused: a roll made for it, or a
        reaction it speaks, would be read as the other member's, with other scores."""
        t = Table()
        before = t.version
        with pytest.raises(error, match=needle):
            t.run(c.AddMember(name=name, cha=18))
        assert t.version == before
        assert [m.name for m in t.table.party.members] == ["Aldirc", "Bo"]

    def test_a_member_is_not_renamed_while_a_procedure_is_under_way(self):
        t = Table()
        t.run(AWARE)
        with pytest.raises(RuleRefusedError, match="renamed while a procedure is under way"):
            t.run(c.EditMember(name="Aldirc", new_name="Aldric"))
        t.run(c.EditMember(name="Aldirc", cha=15))  # a score may be corrected at any time

    def test_the_command_line_edits_and_lists(self, hexlog):
        for args in (("init",), ("party", "add", "Aldirc", "--cha", "13")):
            assert hexlog(*args).returncode == 0
        done = hexlog("party", "edit", "Aldirc", "--name", "Aldric", "--cha", "14")
        assert done.returncode == 0, done.stderr
        assert "Aldirc corrected: name Aldirc -> Aldric, cha 13 -> 14" in done.stdout
        assert "Aldric: CHA 14" in hexlog("party", "list").stdout
