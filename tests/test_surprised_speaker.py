"""A party surprised in the first round has no speaker in it (seed 000 §2.2, §2.5).

Seed 000: "Surprised sides cannot move or act in the first round", and the reaction's CHA modifier is that of a
character who "attempts to speak with the monsters". Under the one-round advantage (ose; explore's open country under
``wilderness_surprise_advantage = "round"``) a reaction rolled in the first round while the party is held in it is
rolled with nobody speaking; where surprise costs free segments (adnd) or a free single action (explore's dungeon)
the party is not held for the round, and its speaker's CHA counts. The audit holds a reaction to the rule from
``encounter.reaction_rolled`` version 2; one an older release recorded is re-run as it ran it.
"""

from __future__ import annotations

import pytest

from hexlog.events import encounter as ev
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.encounter.commands import RollReactionSpokenWhileSurprised
from hexlog.machine.encounter.machine import EncounterModel
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_store

from .test_encounter_rules import CAMPAIGN, only
from .test_encounter_texts import Table

HELD = "the party are surprised and cannot act in the first round, so Ann cannot speak to the monsters"


class TestTheSpeaker:
    def test_a_party_surprised_alone_has_no_speaker_in_the_first_round(self) -> None:
        """ose: the monsters' free round; react --speaker Ann is refused, naming why, and writes nothing; the reaction
        with nobody speaking is rolled as usual."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", monsters_aware=True))
        checked = only(t.run(enc.CheckSurprise(), 1), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.advantage) == (True, "monsters")
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative())
        assert t.refused(enc.RollReaction(speaker="Ann"), HELD) == 0
        table = t.handler.load(CAMPAIGN)
        assert not enc.party_may_speak(table)
        assert "react" in dict(REGISTRY.runner("encounter").allowed(table.procedures["encounter"], table))
        rolled = only(t.run(enc.RollReaction(), 3, 4), ev.ReactionRolled)
        assert (rolled.speaker, rolled.cha_modifier, rolled.total) == ("", 0, 7)

    def test_once_the_first_round_is_played_the_speaker_speaks(self) -> None:
        """After round 1 the party acts again, and Ann's CHA 13 (+1) counts."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", monsters_aware=True))
        t.run(enc.CheckSurprise(), 1)
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative())
        t.run(enc.PlayRound())
        rolled = only(t.run(enc.RollReaction(speaker="Ann"), 3, 4), ev.ReactionRolled)
        assert (rolled.speaker, rolled.cha_modifier, rolled.total, rolled.round) == ("Ann", 1, 8, 1)

    def test_after_mutual_surprise_nobody_speaks_in_the_first_round_either(self) -> None:
        """ose, both surprised ("a momentary confusion"): neither side acts in the first round, so the party's speaker
        is refused there too; under ``mutually_surprised_sides_act = true`` both act at once, and Ann speaks."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon"))
        t.run(enc.CheckSurprise(), 1, 2)
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative())
        assert t.refused(enc.RollReaction(speaker="Ann"), HELD) == 0
        acting = Table(overrides={"options": {"mutually_surprised_sides_act": True}})
        acting.run(enc.StartEncounter(setting="dungeon"))
        acting.run(enc.CheckSurprise(), 1, 2)
        acting.run(enc.DetermineDistance(value=30))
        acting.run(enc.RollInitiative())
        assert only(acting.run(enc.RollReaction(speaker="Ann"), 3, 4), ev.ReactionRolled).cha_modifier == 1

    def test_the_party_that_surprised_the_monsters_speaks(self) -> None:
        """ose: the party's free round; Ann speaks in it."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", party_aware=True))
        t.run(enc.CheckSurprise(), 1)
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative())
        assert only(t.run(enc.RollReaction(speaker="Ann"), 3, 4), ev.ReactionRolled).cha_modifier == 1

    @pytest.mark.parametrize(
        ("ruleset", "setting", "to_actions"),
        [
            # seed 001: the surprised party loses segments (here 1), not the round
            ("adnd", "indoors", ((enc.DetermineDistance(value=30), ()), (enc.TakeFreeAction(action="move"), ()))),
            # seed 004's dungeon: the monsters' one free single action, then initiative
            ("explore", "dungeon", ((enc.DetermineDistance(value=30), ()), (enc.TakeFreeAction(action="move"), ()))),
        ],
    )
    def test_where_surprise_costs_less_than_the_round_the_speaker_speaks(self, ruleset, setting, to_actions) -> None:
        """The ruleset's reading: the rule is the one-round advantage's; under free segments or a free single action
        the surprised party is not held for a round, and Ann's CHA counts."""
        t = Table(ruleset=ruleset)
        t.run(enc.StartEncounter(setting=setting, monsters_aware=True))
        checked = only(t.run(enc.CheckSurprise(), 1), ev.SurpriseChecked)
        assert (checked.party_surprised, checked.advantage, checked.advantage_kind) == (
            True,
            "monsters",
            "segments" if ruleset == "adnd" else "single_action",
        )
        for command, faces in to_actions:
            t.run(command, *faces)
        t.run(enc.RollInitiative(), 5, 2)
        assert t.state.rounds == 0
        rolled = only(t.run(enc.RollReaction(speaker="Ann"), 3, 4), ev.ReactionRolled)
        assert (rolled.speaker, rolled.cha_modifier) == ("Ann", 1)


AUDITED = "a1"
SECRET = "5e" * 32


def _surprised_alone() -> Handler:
    """An ose campaign whose party (surprised on 1-6, so surely) is surprised alone by the monsters 30 ft away, at the
    sides' actions of the first round."""
    handler = Handler(MemoryStore(), MemoryKeeper())
    for command in (c.StartCampaign(ruleset="ose"), c.OpenSession(secret_hex=SECRET), c.AddMember(name="Ann", cha=18)):
        handler.execute(AUDITED, command)
    for command in (
        enc.StartEncounter(monsters_aware=True, party_surprise_on=6),
        enc.CheckSurprise(),
        enc.DetermineDistance(value=30),
        enc.RollInitiative(),
    ):
        handler.execute(AUDITED, command)
    return handler


def _spoken_while_surprised(monkeypatch: pytest.MonkeyPatch) -> Handler:
    """An ose campaign whose party (surprised on 1-6, so surely) is surprised alone, and whose reaction in the first
    round is spoken by Ann, as the releases before the rule let a referee: the machine's ``speaker_may_speak`` let
    it be. The encounter is concluded and the session closed (its secret revealed)."""
    handler = _surprised_alone()
    with monkeypatch.context() as old:
        old.setattr(EncounterModel, "speaker_may_speak", lambda _self: True)
        handler.execute(AUDITED, enc.RollReaction(speaker="Ann"))
    handler.execute(AUDITED, enc.ConcludeEncounter())
    handler.execute(AUDITED, c.CloseSession())
    return handler


def _reactions(handler: Handler) -> list[tuple[int, str, int]]:
    """Each reaction's schema version, speaker and CHA modifier, as recorded."""
    records = handler.store.read_stream(f"campaign-{AUDITED}")
    found = [r for r in records if r.envelope.type.endswith(".reaction_rolled")]
    return [(r.envelope.schemaversion, r.envelope.data["speaker"], r.envelope.data["cha_modifier"]) for r in found]


class TestTheAudit:
    def test_an_honest_log_audits_clean(self) -> None:
        """The surprised party's reaction rolled with nobody speaking, then a round, then the conclusion."""
        handler = Handler(MemoryStore(), MemoryKeeper())
        for command in (
            c.StartCampaign(ruleset="ose"),
            c.OpenSession(secret_hex=SECRET),
            c.AddMember(name="Ann", cha=18),
            enc.StartEncounter(monsters_aware=True, party_surprise_on=6),
            enc.CheckSurprise(),
            enc.DetermineDistance(value=30),
            enc.RollInitiative(),
            enc.RollReaction(),
            enc.PlayRound(),
            enc.ConcludeEncounter(),
            c.CloseSession(),
        ):
            handler.execute(AUDITED, command)
        report = audit_store(handler.store, AUDITED, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_log_of_today_with_the_surprised_party_speaking_is_a_finding(self, monkeypatch) -> None:
        """Written at version 2 (as a referee owning the database could append it): the audit's re-run is refused by
        the rule, and the finding names it."""
        handler = _spoken_while_surprised(monkeypatch)
        assert _reactions(handler) == [(2, "Ann", 2)]
        report = audit_store(handler.store, AUDITED, REGISTRY)
        said = [(f.check, f.reason) for f in report.findings]
        assert said == [
            (
                "decision",
                (
                    "encounter.reaction_rolled: the rules cannot re-run this decision here: encounter: 'react' refused "
                    f"in phase ACTIONS: {HELD}: roll the reaction with nobody speaking (encounter react, no CHA "
                    "modifier), or play the round first"
                ),
            )
        ]

    def test_a_log_an_older_release_wrote_audits_clean(self, monkeypatch, unraised) -> None:
        """The same play at version 1, by a release that let the surprised party's speaker speak (its CHA +2
        counted): the audit re-runs it as that release did, and finds nothing."""
        unraised("encounter.reaction_rolled")
        with monkeypatch.context() as old:
            old.setattr(ev.ReactionRolled, "schema_version", 1)
            handler = _spoken_while_surprised(monkeypatch)
        assert _reactions(handler) == [(1, "Ann", 2)]
        report = audit_store(handler.store, AUDITED, REGISTRY)
        assert report.findings == (), report.text()

    def test_an_older_release_s_second_reaction_is_still_a_finding(self, monkeypatch, unraised) -> None:
        """The re-run of an older release's spoken reaction is held to every other rule of ``react``: a second reaction
        spoken straight after the first, at version 1, is a finding naming the one already rolled."""
        unraised("encounter.reaction_rolled")
        handler = _surprised_alone()
        with monkeypatch.context() as old:
            old.setattr(ev.ReactionRolled, "schema_version", 1)
            old.setattr(EncounterModel, "speaker_may_speak", lambda _self: True)
            old.setattr(EncounterModel, "no_reaction_yet", lambda _self: True)
            handler.execute(AUDITED, enc.RollReaction(speaker="Ann"))
            handler.execute(AUDITED, enc.RollReaction(speaker="Ann"))
        handler.execute(AUDITED, enc.ConcludeEncounter())
        handler.execute(AUDITED, c.CloseSession())
        assert [version for version, _, _ in _reactions(handler)] == [1, 1]
        report = audit_store(handler.store, AUDITED, REGISTRY)
        said = [f.reason for f in report.findings]
        assert len(said) == 1, said
        assert "the monsters' reaction was already rolled" in said[0]

    def test_the_audits_re_run_is_no_command_a_referee_gives(self) -> None:
        """``RollReactionSpokenWhileSurprised`` is refused at the door, naming the step to use."""
        t = Table()
        t.run(enc.StartEncounter(setting="dungeon", monsters_aware=True))
        t.run(enc.CheckSurprise(), 1)
        t.run(enc.DetermineDistance(value=30))
        t.run(enc.RollInitiative())
        with pytest.raises(RuleRefusedError, match="is the audit's, re-running a reaction an older release recorded"):
            t.handler.execute(CAMPAIGN, RollReactionSpokenWhileSurprised(speaker="Ann"))
