"""The steps an encounter offers next: the phase's triggers whose conditions hold now."""

from __future__ import annotations

from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller

CAMPAIGN = "t"
RUNNER = REGISTRY.runner("encounter")


class Table:
    """A campaign on scripted dice with one party member."""

    def __init__(self, ruleset: str = "ose") -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        for command in (
            c.StartCampaign(ruleset=ruleset),
            c.OpenSession(secret_hex="ab" * 32),
            c.AddMember(name="Ann", cha=10),
        ):
            self.handler.execute(CAMPAIGN, command)

    def run(self, command: c.Command, *faces: int) -> None:
        """Execute a command on the given faces."""
        self.script.extend(faces)
        self.handler.execute(CAMPAIGN, command)
        assert not self.script

    def steps(self) -> list[tuple[str, tuple[str, ...]]]:
        """What the encounter offers now, with the sides that may take each step."""
        table = self.handler.load(CAMPAIGN)
        assert table.rules is not None
        return RUNNER.allowed(table.procedures.get("encounter"), table)

    def available(self) -> list[str]:
        """What the encounter offers now."""
        table = self.handler.load(CAMPAIGN)
        assert table.rules is not None
        return [trigger for trigger, _ in RUNNER.allowed(table.procedures.get("encounter"), table)]


class TestAvailableTriggers:
    def test_before_any_encounter_only_start_is_offered(self):
        """An idle campaign with a party may start an encounter."""
        assert Table().available() == ["start"]

    def test_an_empty_party_cannot_start(self):
        """The has_party condition hides start."""
        t = Table()
        t.run(c.RemoveMember(name="Ann"))
        assert t.available() == []

    def test_a_reroll_is_offered_only_after_a_round_since_an_uncertain_reaction(self):
        """reroll_reaction appears after the round passes, and is gone once used."""
        t = Table()
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 4, 4)
        t.run(enc.DetermineDistance(), 3, 3)
        t.run(enc.RollInitiative(), 5, 2)
        t.run(enc.RollReaction(speaker="Ann"), 3, 4)
        assert "reroll_reaction" not in t.available()
        assert "react" not in t.available()  # a further roll needs the rules' reason: reroll_reaction
        t.run(enc.PlayRound())
        assert "reroll_reaction" in t.available()
        t.run(enc.RerollReaction(), 6, 6)
        assert "reroll_reaction" not in t.available()

    def test_a_surprised_party_is_not_offered_actions_in_the_lost_round(self):
        """Under OSE only the monsters may fight in the first round when the party is surprised."""
        t = Table()
        t.run(enc.StartEncounter())
        t.run(enc.CheckSurprise(), 1, 5)
        t.run(enc.DetermineDistance(), 3, 3)
        t.run(enc.RollInitiative())
        steps = dict(t.steps())
        assert steps["fight"] == ("monsters",)
        assert "evade" not in steps or steps["evade"] == ("monsters",)
        assert steps["round"] == ()
        t.run(enc.PlayRound())
        t.run(enc.RollInitiative(), 4, 2)  # round 2 starts with its own initiative (initiative_each_round)
        assert dict(t.steps())["fight"] == ("party", "monsters")

    def test_every_offered_trigger_is_allowed_by_the_phase(self):
        """What is offered is always a subset of the machine's triggers for the phase."""
        t = Table()
        t.run(enc.StartEncounter())
        state = t.handler.load(CAMPAIGN).procedures["encounter"]
        assert set(t.available()) <= set(RUNNER.triggers(enc.ENCOUNTER.phase_of(state)))
