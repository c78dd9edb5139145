"""A waterborne encounter met on a ship's travel day that ends in pursuit hands the chase on water off
(OSE §2.9), as a delve hands off its chase underground: the day waits for it and goes on when it ends.

This is the route of rules without option ``waterborne_pursuit_hands_off`` (every ruleset recorded before
it): the encounter concludes in pursuit and the day hands the chase off. Under the option the encounter
hands it off itself (``tests/test_encounter_afloat.py``)."""

from __future__ import annotations

import attrs

from hexlog.events import chase as ev
from hexlog.events.encounter import EncounterStarted
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, Resumed
from hexlog.events.vocabulary import Setting
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import hexmap
from hexlog.machine.chase import handover as chase_handover
from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as tr
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay

CAMPAIGN = "afloat"
#: U&WA's two dice afloat: a first die of 5 is a waterborne encounter; the encounter concludes in pursuit
AFLOAT = {"options": {"afloat_rule": "odd_two_dice", "waterborne_pursuit_hands_off": False}}


def _afloat_encounter(script: list[int], overrides: dict) -> Handler:
    """A ship's travel day whose wandering check meets a waterborne encounter (handed off, not yet played)."""
    handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=overrides))
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="ab" * 32))
    for name in ("Ann", "Bo"):
        handler.execute(CAMPAIGN, c.AddMember(name=name))
    handler.execute(CAMPAIGN, hexmap.SetHex(hex="1,2", terrain="hills"))
    handler.execute(CAMPAIGN, hexmap.SetHex(hex="0,2", terrain="river"))  # the ship sets out from a port beside it
    handler.execute(CAMPAIGN, tr.StartJourney(hex="1,2", afloat=True))
    handler.execute(CAMPAIGN, tr.RollWeather(weather="clear"))
    # no lost ship (its heading's die read by none); the wandering dice: a waterborne encounter
    script.extend([6, 1, 5, 1])
    handler.execute(CAMPAIGN, tr.DeclareRoute())
    out = handler.execute(CAMPAIGN, tr.CheckWandering()).events
    assert next(e for e in out if isinstance(e, EncounterStarted)).setting == "waterborne"
    return handler


def _flee(handler: Handler, script: list[int]) -> list:
    """The pirates alone surprised, 100 yd apart; the party's ship flees and the pirates pursue."""
    script.extend([6, 2, 6, 2])  # surprise: the pirates alone surprised; the initiative: the party first
    events: list = []
    for command in (
        enc.CheckSurprise(),
        enc.DetermineDistance(value=100),
        enc.RollInitiative(),
        enc.Evade(),
        enc.DecidePursuit(pursue=True),
    ):
        events += handler.execute(CAMPAIGN, command).events
    return events


def test_a_waterborne_pursuit_hands_the_chase_on_water_off_and_the_day_goes_on_after_it():
    script: list[int] = []
    handler = _afloat_encounter(script, AFLOAT)
    out = _flee(handler, script)
    assert HandedOff(parent="travel", child="chase") in out
    started = next(e for e in out if isinstance(e, ev.ChaseStarted))
    facts = (started.setting, started.fleeing, started.from_encounter, started.gap_ft)
    assert facts == (ev.ChaseSetting.WATERBORNE, "party", 1, 300)  # 100 ft afloat is 100 yards: 300 ft
    assert handler.load(CAMPAIGN).handoffs == (("travel", "chase"),)
    script.append(1)  # the vessel's evasion roll: 1 on d100 evades
    ended = handler.execute(CAMPAIGN, ch.Evade()).events
    assert Resumed(parent="travel", child="chase") in ended
    assert handler.load(CAMPAIGN).handoffs == ()
    handler.execute(CAMPAIGN, tr.EndDay())
    assert script == []
    assert replay(handler.store, CAMPAIGN, REGISTRY).ok
    report = audit_store(handler.store, CAMPAIGN, REGISTRY)
    assert report.findings == (), report.text()


def test_without_the_waterborne_evasion_table_no_chase_is_handed_off():
    """Rules without tables.evasion_waterborne hand off nothing (a chase there would be refused): the day goes on."""
    script: list[int] = []
    handler = _afloat_encounter(script, AFLOAT)
    _flee(handler, script)
    table = handler.load(CAMPAIGN)
    encounter = table.procedures["encounter"]
    assert chase_handover.afloat(encounter, ChaseTables()) is None
    assert chase_handover.afloat(encounter, table.rules.part(ChaseTables)) is not None


def test_only_a_waterborne_encounter_hands_off_a_chase_on_water():
    """A wilderness encounter concluded in pursuit is the wilderness pursuit's, not a chase on water."""
    script: list[int] = []
    handler = _afloat_encounter(script, AFLOAT)
    _flee(handler, script)
    encounter = handler.load(CAMPAIGN).procedures["encounter"]
    on_land = attrs.evolve(encounter, started=attrs.evolve(encounter.started, setting=Setting.WILDERNESS))
    assert chase_handover.afloat(on_land, handler.load(CAMPAIGN).rules.part(ChaseTables)) is None
