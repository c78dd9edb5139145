"""A ship continuously afloat meets a waterborne encounter on the seed's 1-in-6 (seed 004 §4.7, OSE §2.9).

Under ``afloat_rule = "seed"`` (the default) a ship's wandering check at the day's end meets an encounter on a 1 on
1d6, and that encounter is on the water: ``setting`` waterborne, as U&WA's first die gives it under
``odd_two_dice``. The fleeing vessel's evasion is then the chase on water's (the vessels' speeds), not the land
table by the sizes of the sides, and no hex-by-hex pursuit follows (``travel.wandering_checked`` version 3).

``tests/golden/afloat-seed-v2.jsonl`` was written by hexlog at d1efada, whose seed-rule check set a ship's encounter
in the wilderness: a party of three afloat on its first day meets an encounter on a 1, flees, and rolls its evasion
on the land table (5 against 50 %, 3 fleeing 1), getting away. It still audits VERIFIED, its check re-run as its
release made it (``CheckWanderingAfloatOnLand``, the audit's own command), and exports byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import chase as chase_ev
from hexlog.events import encounter as enc_ev
from hexlog.events import pursuit as pursuit_ev
from hexlog.events import travel as ev
from hexlog.events.codec import decode
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff
from hexlog.events.streams import stream_for
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine.encounter import commands as enc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as tr
from hexlog.machine.travel.inverse import command_before
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay

CAMPAIGN = "ship"
V2_LOG = Path(__file__).resolve().parent / "golden" / "afloat-seed-v2.jsonl"


@attrs.define
class Voyage:
    """Ann (120) and Bo (60) afloat from a meadow's hex under explore (``afloat_rule`` seed unless ``options`` say
    otherwise), on a scripted roller: each command takes exactly the faces it is given."""

    options: dict[str, Any] = attrs.field(factory=dict)
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        overrides = {"options": self.options} if self.options else {}
        self.run(c.StartCampaign(ruleset="explore", overrides=overrides))
        self.run(c.OpenSession(secret_hex="5a" * 32))
        self.run(c.AddMember(name="Ann"))
        self.run(c.AddMember(name="Bo", speed=60))
        self.run(SetHex(hex="2,2", terrain="meadow"))
        self.run(SetHex(hex="1,2", terrain="river"))  # the ship sets out from a port beside it
        self.run(tr.StartJourney(hex="2,2", afloat=True))
        self.run(tr.RollWeather(weather="clear"))
        self.run(tr.DeclareRoute(), 6, 1)  # not lost

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    def flee(self) -> None:
        """Nobody surprised, 120 yd apart, the party first: it flees."""
        self.run(enc.CheckSurprise(), 6, 6)
        self.run(enc.DetermineDistance(), 3, 3, 3, 3)
        self.run(enc.RollInitiative(), 6, 1)
        self.run(enc.Evade())

    def events(self) -> list[Any]:
        return [decode(r.envelope) for r in self.handler.store.read_stream(stream_for(CAMPAIGN))]


def only(events: list[Any], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


class TestTheSeedRuleAfloat:
    def test_a_ships_encounter_on_the_seeds_one_in_six_is_waterborne(self) -> None:
        voyage = Voyage()
        out = voyage.run(tr.CheckWandering(), 1)
        checked = only(out, ev.WanderingChecked)
        assert (checked.row, checked.encounter_on, checked.encounter, checked.setting) == (
            "afloat (seed)",
            (1,),
            True,
            "waterborne",
        )
        started = only(out, enc_ev.EncounterStarted)
        assert started.setting == "waterborne"
        assert HandedOff(parent="travel", child="encounter") in out

    @pytest.mark.parametrize("face", [2, 6])
    def test_no_encounter_on_any_other_face(self, face: int) -> None:
        out = Voyage().run(tr.CheckWandering(), face)
        assert not only(out, ev.WanderingChecked).encounter
        assert [e for e in out if isinstance(e, enc_ev.EncounterStarted)] == []

    def test_the_encounter_is_at_the_waterborne_distance(self) -> None:
        voyage = Voyage()
        voyage.run(tr.CheckWandering(), 1)
        voyage.run(enc.CheckSurprise(), 6, 6)
        distance = only(voyage.run(enc.DetermineDistance(), 3, 3, 3, 3), enc_ev.DistanceDetermined)
        assert (distance.rule, distance.value) == ("explore.waterborne 4d6x10yd", 120)

    def test_the_fleeing_ship_is_chased_on_water_and_evades_by_the_vessels_speeds(self) -> None:
        """No land evasion by the sides' sizes: the pursuers give chase, the chase on water takes over, and the
        party's vessel (60, its slowest member's) 60 ft a round slower than the pursuers' (120) gets away on 40 %."""
        voyage = Voyage()
        voyage.run(tr.CheckWandering(), 1)
        voyage.flee()
        with pytest.raises(RuleRefusedError, match="decide-pursuit instead"):
            voyage.run(enc.RollEvasion(), 1)
        out = voyage.run(enc.DecidePursuit(pursue=True))
        started = only(out, chase_ev.ChaseStarted)
        assert (started.setting, started.fleeing_ft, started.pursuers_ft) == ("waterborne", 60, 120)
        evaded = only(voyage.run(ch.Evade(), 40), chase_ev.WaterEvasionRolled)
        facts = (evaded.slower_by, evaded.row, evaded.chance, evaded.roll, evaded.evaded)
        assert facts == (60, "31-60 ft/round slower", 40, 40, True)
        voyage.run(tr.EndDay())
        events = voyage.events()
        assert [e for e in events if isinstance(e, enc_ev.EvasionRolled)] == []
        assert [e for e in events if isinstance(e, pursuit_ev.PursuitStarted)] == []
        assert check_decision_events(events).issues == ()
        assert replay(voyage.handler.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(voyage.handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_under_odd_two_dice_a_first_die_of_five_is_still_waterborne(self) -> None:
        out = Voyage(options={"afloat_rule": "odd_two_dice"}).run(tr.CheckWandering(), 5, 1)
        checked = only(out, ev.WanderingChecked)
        assert (checked.row, checked.encounter, checked.setting) == ("afloat (odd_two_dice)", True, "waterborne")
        assert only(out, enc_ev.EncounterStarted).setting == "waterborne"


class TestTheAuditsCommand:
    def test_a_check_of_version_2_is_re_run_in_the_wilderness_and_one_of_version_1_on_the_true_hex(self) -> None:
        checked = ev.WanderingChecked(row="afloat (seed)", encounter_on=(1,), encounter=True, rolls=(1,))
        assert command_before(checked, 2) == tr.CheckWanderingAfloatOnLand()
        assert command_before(checked, 1) == tr.CheckWanderingTrueHex()

    def test_it_is_refused_to_the_referee(self) -> None:
        voyage = Voyage()
        with pytest.raises(RuleRefusedError, match="the audit's"):
            voyage.run(tr.CheckWanderingAfloatOnLand())


class TestALogOfVersion2:
    def lines(self) -> list[str]:
        return V2_LOG.read_text(encoding="utf-8").splitlines()

    def test_its_ships_encounter_was_set_in_the_wilderness_and_fled_by_the_land_table(self) -> None:
        events = [decode(e) for e in read_export(self.lines())]
        versions = {(r["type"], r["schemaversion"]) for r in map(json.loads, self.lines())}
        assert ("hexlog.travel.wandering_checked", 2) in versions
        assert only(events, ev.JourneyStarted).afloat
        checked = only(events, ev.WanderingChecked)
        assert (checked.row, checked.encounter, checked.setting) == ("afloat (seed)", True, "wilderness")
        assert only(events, enc_ev.EncounterStarted).setting == "wilderness"
        evaded = only(events, enc_ev.EvasionRolled)
        assert (evaded.fleeing_count, evaded.pursuers_count, evaded.chance, evaded.total, evaded.evaded) == (
            3,
            1,
            50,
            5,
            True,
        )

    def test_it_audits_verified_with_its_check_re_run_as_made(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict.name == "VERIFIED"
        assert (report.events, report.decisions, report.rolls, report.rolls_verified) == (52, 7, 10, 10)

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(self.lines())).campaign
        assert replay(store, campaign, REGISTRY).ok
        assert "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == V2_LOG.read_bytes()
