"""The situation a referee describes at ``encounter start`` is checked against the rules in force,
and the referee's word overrides what a reaction suggests."""

from __future__ import annotations

import pytest

from hexlog.events import encounter as ev
from hexlog.events.errors import UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller

CAMPAIGN = "s"


def table(ruleset: str, faces: list[int] | None = None) -> Handler:
    """A campaign with a session and one member, its dice a script."""
    script = faces if faces is not None else []
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(script))
    for command in (c.StartCampaign(ruleset=ruleset), c.OpenSession(secret_hex="ab" * 32), c.AddMember(name="Ann")):
        handler.execute(CAMPAIGN, command)
    return handler


def refused(handler: Handler, command: c.Command, pattern: str) -> int:
    """The command is refused with a usage error matching ``pattern``; the number of events it wrote (none)."""
    before = handler.store.stream_version(stream_for(CAMPAIGN))
    with pytest.raises(UsageError, match=pattern):
        handler.execute(CAMPAIGN, command)
    return handler.store.stream_version(stream_for(CAMPAIGN)) - before


class TestSituation:
    def test_terrain_outside_the_adnd_outdoors_is_refused(self):
        """Terrain changes the distance only in the AD&D outdoor rules; under OSE it is refused."""
        assert (
            refused(
                table("ose"), enc.StartEncounter(terrains=("forest",)), "terrain changes the distance only under adnd"
            )
            == 0
        )

    def test_a_setting_the_ruleset_does_not_have_is_refused_naming_its_settings(self):
        """AD&D has indoors and outdoors; OSE's dungeon is not one of its settings."""
        assert (
            refused(
                table("adnd"), enc.StartEncounter(setting="dungeon"), "not one of the adnd settings: indoors, outdoors"
            )
            == 0
        )

    @pytest.mark.parametrize("speed", [0, 481])
    def test_a_monster_speed_outside_1_to_480_is_refused(self, speed: int):
        """The fastest base rate in the texts is 480 feet per turn."""
        assert refused(table("ose"), enc.StartEncounter(monster_speed=speed), "1 to 480 feet per turn") == 0

    def test_an_indoor_fact_outside_the_adnd_indoors_is_refused(self):
        """An area size is read only by the AD&D indoor distance."""
        assert (
            refused(table("ose"), enc.StartEncounter(area_ft=20), "area: used only by the adnd indoors distance") == 0
        )


class TestNoise:
    def test_a_noisy_party_cannot_surprise_the_monsters(self):
        """The monsters do not roll (they are aware of the noisy party); only the party rolls."""
        handler = table("ose", [4])
        handler.execute(CAMPAIGN, enc.StartEncounter(party_noisy=True))
        checked = [
            e for e in handler.execute(CAMPAIGN, enc.CheckSurprise()).events if isinstance(e, ev.SurpriseChecked)
        ]
        (surprise,) = checked
        assert surprise.party_rolled
        assert not surprise.monsters_rolled
        assert "the party make noise" in surprise.monsters_reason


class TestPursuitOverride:
    def test_the_referee_lets_the_party_go_although_the_reaction_suggests_pursuit(self):
        """A reaction of 2 + 1 = 3 suggests pursuit; the referee lets the party go, and the suggestion is kept."""
        handler = table("ose", [5, 2, 2, 1])  # initiative 5 against 2, then the reaction
        for command in (
            enc.StartEncounter(party_aware=True, monsters_aware=True),
            enc.CheckSurprise(),
            enc.DetermineDistance(value=60),
            enc.RollInitiative(),
        ):
            handler.execute(CAMPAIGN, command)
        handler.execute(CAMPAIGN, enc.RollReaction())
        handler.execute(CAMPAIGN, enc.Evade())
        events = handler.execute(CAMPAIGN, enc.DecidePursuit(pursue=False)).events
        (decided,) = [e for e in events if isinstance(e, ev.PursuitDecided)]
        assert (decided.pursue, decided.suggested, decided.decided_by) == (False, True, ev.DecidedBy.REFEREE)
        assert decided.note == "reaction 3 <= 5"
        (concluded,) = [e for e in events if isinstance(e, ev.EncounterConcluded)]
        assert concluded.outcome == "evaded"
