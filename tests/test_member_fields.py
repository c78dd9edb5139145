"""A command field that names party members is declared so (``arg(member=True)``): the kit then refuses a name the
party does not have, in one wording, before the procedure looks at the command (a usage error: exit 2, HTTP 422)."""

from __future__ import annotations

from unittest import mock

import attrs
import pytest

from hexlog.events.errors import UnknownMemberError
from hexlog.machine import commands as c
from hexlog.machine.commands import MEMBER, named_members
from hexlog.machine.dungeon import commands as dc
from hexlog.machine.dungeon.commands import Listen, Search
from hexlog.machine.encounter.commands import RerollReaction, RollReaction
from hexlog.machine.kit import context
from hexlog.machine.registry import REGISTRY
from hexlog.projections.party import Member, Party
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay

#: every field of a procedure's command, with whether it is declared to name members
FIELDS = sorted(
    {
        (procedure.name, cls.__name__, field.name): bool(field.metadata.get(MEMBER))
        for procedure in REGISTRY
        for cls in procedure.steps
        if attrs.has(cls)
        for field in attrs.fields(cls)
    }.items()
)

#: the words a field's help uses when it names a member
NAMES_A_MEMBER = ("party member", "who speaks")


def _help(procedure: str, cls_name: str, field_name: str) -> str:
    (cls,) = [c for p in REGISTRY if p.name == procedure for c in p.steps if c.__name__ == cls_name]
    (field,) = [f for f in attrs.fields(cls) if f.name == field_name]
    return str(field.metadata.get("help", ""))


def test_every_field_whose_help_names_a_member_is_declared_to() -> None:
    undeclared = [key for key, declared in FIELDS if not declared and any(w in _help(*key) for w in NAMES_A_MEMBER)]
    declared = [key for key, is_member in FIELDS if is_member]
    assert undeclared == []
    assert ("dungeon", "Listen", "by") in declared
    assert ("castle", "Joust", "fighter") in declared
    assert ("camp", "GatherFirewood", "gatherers") in declared
    assert len(declared) >= 10  # the delve's five, the speakers, the gatherers, the jousts


def test_the_names_a_command_gives_are_read_from_its_declared_fields() -> None:
    assert named_members(Search(searchers=("Ann", "Zed"))) == ("Ann", "Zed")
    assert named_members(Search()) == ()
    assert named_members(RerollReaction()) == ()  # no speaker given: the same as before
    assert named_members(RerollReaction(speaker="Bo")) == ("Bo",)


def test_a_field_the_command_must_give_names_its_empty_text_when_asked() -> None:
    """``--by ""`` is a name the party refuses; an empty speaker (a field with a default) is nobody speaking."""
    assert named_members(Listen(by="")) == ()  # a log's record, as its release took it
    assert named_members(Listen(by=""), required_blank=True) == ("",)
    assert named_members(Listen(by="Bo"), required_blank=True) == ("Bo",)
    assert named_members(RollReaction(speaker=""), required_blank=True) == ()
    assert named_members(RerollReaction(speaker=""), required_blank=True) == ()
    assert named_members(Search(), required_blank=True) == ()


@pytest.mark.parametrize(
    ("members", "wording"),
    [
        ((Member(name="Ann"), Member(name="Bo")), "the party has no member called Zed (its members: Ann, Bo)"),
        ((), "the party has no member called Zed (the party has no members)"),
    ],
)
def test_one_wording_names_the_members_there_are(members: tuple[Member, ...], wording: str) -> None:
    party = Party(members=members)
    with pytest.raises(UnknownMemberError) as caught:
        party.named("Zed")
    assert str(caught.value) == wording
    if members:
        assert party.named("Bo") is members[1]


def test_a_step_recorded_by_nobody_audits_as_its_release_took_it() -> None:
    """Release 34 let ``--by ""`` through for a listening, a light and a refill: the audit finds nothing in such a
    log, and the same step typed today is refused."""
    play = ScriptedPlay("nobody", scripted=False)
    nobody = (dc.LightSource(kind="lantern", by=""), dc.RefillLantern(by=""), dc.Listen(by="", skill_in_6=2))
    opening = (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex="5a" * 32),
        c.SetClientSeed(client_seed="the players' words"),
        c.AddMember(name="Ann"),
        dc.EnterDungeon(name="crypt"),
    )
    for command in opening:
        play.run(command)
    with mock.patch.object(context, "named_members", lambda command, **_: named_members(command)):
        for command in nobody:
            play.run(command)
    for command in nobody:
        with pytest.raises(UnknownMemberError, match="no member with an empty name"):
            play.run(command)
    play.run(dc.LeaveDungeon())
    play.run(c.CloseSession())
    report = audit_envelopes(read_export(list(export_lines(play.h.store, "nobody"))))
    assert report.findings == (), report.text()
    assert report.rolls_verified == 1
