"""A camp is made on ground, and a pursuit from its night is handed ground it reads.

The night's wandering check reads a row of the chances in force (``options.lost_encounter_source``): under
``dolmenwood`` a difficulty (light, moderate, difficult) or the road or track row, under ``odd_p18`` an OD&D row (woods,
swamp). A pursuit reads ground: its OD&D row for the evasion and the catch, the ground itself for the rest. Before
``camp.made`` version 2 a camp recorded the row, so under ``dolmenwood`` a night encounter that ended with the party
pursued handed the pursuit "moderate", which it refused, and the referee could not conclude the encounter; and a camp
made with no terrain handed its pursuit none (clear ground) whatever ground its night's check was given. Since then the
camp and its checks take ground (``camp make --terrain tangled_forest``), record it, and hand it on; a row is refused.

``tests/golden/camp-ground-v1.jsonl`` was written before (release 34, ``dolmenwood``, on a secret hexlog drew and the
players' seed): a camp made with no terrain, checked on the row moderate, whose night encounter ended in a pursuit
through clear ground; a camp made on the row moderate; a camp on a journey, on the road row of its hex. It audits
VERIFIED, each check re-run on its row and the pursuit handed what that release handed.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from hexlog.events import camp as ev
from hexlog.events import pursuit as pev
from hexlog.events import travel as tev
from hexlog.events.memory import MemoryStore
from hexlog.machine import camp, encounter
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as pursuit
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import read_export
from hexlog.replay.verdict import Verdict

from .test_cli_camp import ok, stream_version

DOLMENWOOD = {"options": {"lost_encounter_source": "dolmenwood"}}
GOLDEN = Path(__file__).resolve().parent / "golden" / "camp-ground-v1.jsonl"
WATCHES = ("--watch", "1=Ann", "--watch", "2=Bo", "--watch", "3=Ann", "--watch", "4=Bo")
CAMPAIGN = "ground"
#: the night's encounter: surprise, distance, initiative, the party flees and rolls its evasion
FLIGHT = (
    encounter.CheckSurprise(),
    encounter.DetermineDistance(),
    encounter.RollInitiative(),
    encounter.Evade(),
    encounter.RollEvasion(),
)
ROW_REFUSED = (
    "hexlog: error: terrain 'moderate' is a row of the dolmenwood chances, not ground: the night's wandering check "
    "reads the row from the ground, and a pursuit from the camp needs ground; name one the rules know: bog, "
    "boggy_forest, city, clear, craggy_forest, desert, farmland, fungal_forest, hills, hilly_forest, meadow, "
    "mountains, open_forest, river, settlement, swamp, tangled_forest, thorny_forest, woods (--terrain)\n"
)


def _dolmenwood_party(hexlog, tmp_path: Path) -> None:
    """Explore rules under lost_encounter_source = dolmenwood, a session on a fixed secret, a party of two."""
    (tmp_path / "dolmenwood.toml").write_text('[options]\nlost_encounter_source = "dolmenwood"\n')
    ok(hexlog("init", "--ruleset", "explore", "--rules", "dolmenwood.toml"))
    ok(hexlog("session", "open", "--secret-file", "-", input_text="0e" * 32))
    ok(hexlog("party", "add", "Ann"))
    ok(hexlog("party", "add", "Bo"))


class TestThroughTheCommandLine:
    def test_a_dolmenwood_camp_on_tangled_forest_hands_its_night_s_pursuit_that_ground(self, hexlog, tmp_path):
        """The camp is made on tangled forest (moderate ground under dolmenwood: encounter on 1-2); the night's check
        meets an encounter, the party flees and its evasion fails (99): the pursuit starts on the OD&D row woods, and
        keeps the ground tangled_forest for its rest. Its release refused the ground, and a camp on its row, moderate,
        handed the pursuit "moderate", which it refused as the encounter concluded."""
        _dolmenwood_party(hexlog, tmp_path)
        assert "camp 1 is made: weather not given, terrain tangled_forest" in ok(
            hexlog("camp", "make", "--terrain", "tangled_forest")
        )
        ok(hexlog("camp", "watches", *WATCHES))
        out = ok(hexlog("camp", "check"))
        assert "night check 1 (tangled_forest, encounter on 1, 2): d6=1, an ENCOUNTER in watch 4" in out
        ok(hexlog("camp", "meet"))
        for step in ("check-surprise", "determine-distance", "roll-initiative", "evade"):
            ok(hexlog("encounter", step))
        out = ok(hexlog("encounter", "roll-evasion"))
        assert "d100=99, they are pursued" in out
        assert "camp hands off to pursuit" in out
        assert "terrain woods (tangled_forest); the evasion already failed" in out
        assert "camp: phase PURSUIT" in ok(hexlog("state"))

    def test_a_row_of_the_chances_is_refused_at_make_and_at_check_and_nothing_is_written(self, hexlog, tmp_path):
        """ "moderate" names a row, not ground: the refusal names the grounds the rules know and says why."""
        _dolmenwood_party(hexlog, tmp_path)
        before = stream_version(hexlog)
        refused = hexlog("camp", "make", "--terrain", "moderate")
        assert (refused.returncode, refused.stderr) == (2, ROW_REFUSED)
        assert stream_version(hexlog) == before
        ok(hexlog("camp", "make"))
        ok(hexlog("camp", "watches", *WATCHES))
        before = stream_version(hexlog)
        refused = hexlog("camp", "check", "--terrain", "moderate")
        assert (refused.returncode, refused.stderr) == (2, ROW_REFUSED)
        assert stream_version(hexlog) == before
        assert "night check 1 (hilly_forest, encounter on 1, 2)" in ok(
            hexlog("camp", "check", "--terrain", "hilly_forest")
        )


def _handler(secret: str, overrides: dict) -> Handler:
    handler = Handler(MemoryStore(), MemoryKeeper())
    for command in (
        c.StartCampaign(ruleset="explore", overrides=overrides),
        c.OpenSession(secret_hex=secret * 32),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
    ):
        handler.execute(CAMPAIGN, command)
    return handler


def _night(handler: Handler, make: camp.MakeCamp, check: camp.CheckNight) -> list[object]:
    """The camp made, its watches set, its check (which meets an encounter), the encounter fled: what it recorded."""
    out: list[object] = []
    for command in (make, camp.SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")), check, camp.MeetEncounter()):
        out += handler.execute(CAMPAIGN, command).events
    for command in FLIGHT:
        out += handler.execute(CAMPAIGN, command).events
    return out


class TestThePursuitIsHandedTheNightsGround:
    def test_a_camp_made_with_none_hands_the_ground_of_its_check(self):
        """odd_p18: a camp made with no terrain, checked on woods (encounter on 5-6): the pursuit runs in the woods,
        where its release handed it the camp's terrain alone, none, and it ran in clear ground."""
        handler = _handler("04", {})
        out = _night(handler, camp.MakeCamp(), camp.CheckNight(terrain="woods"))
        (checked,) = [e for e in out if isinstance(e, ev.NightChecked)]
        assert (checked.terrain, checked.encounter_on, checked.encounter) == ("woods", (5, 6), True)
        (started,) = [e for e in out if isinstance(e, pev.PursuitStarted)]
        assert (started.terrain, started.ground, started.evasion_failed) == ("woods", "", True)
        handler.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert any("night check 1 of camp 1 made on terrain woods by the referee" in line for line in report.by_hand)

    def test_a_dolmenwood_camp_made_with_none_hands_the_ground_of_its_check_not_its_row(self):
        """The pursuit's evasion and catch read the OD&D row of tangled forest (woods); its rest after the escape reads
        the ground's own row under dolmenwood, moderate (encounter on 1-2), not woods' (light)."""
        handler = _handler("0e", DOLMENWOOD)
        out = _night(handler, camp.MakeCamp(), camp.CheckNight(terrain="tangled_forest"))
        (checked,) = [e for e in out if isinstance(e, ev.NightChecked)]
        assert (checked.terrain, checked.encounter_on) == ("tangled_forest", (1, 2))
        (started,) = [e for e in out if isinstance(e, pev.PursuitStarted)]
        assert (started.terrain, started.ground) == ("woods", "tangled_forest")
        handler.execute(CAMPAIGN, pursuit.Flee())
        rested = [e for e in handler.execute(CAMPAIGN, pursuit.Rest()).events if isinstance(e, pev.PursuitRested)]
        assert [(e.terrain, e.row, e.encounter_on) for e in rested] == [("woods", "moderate", (1, 2))]
        handler.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_dolmenwood_camp_on_a_journey_records_its_hex_s_ground_and_its_pursuit_starts(self):
        """On a journey the camp takes the ground of the hex the party believes it is in (tangled forest), where its
        release took the hex's row (moderate) and handed the pursuit that, which it refused; the pursuit reads the
        hex itself, as ever."""
        handler = _handler("1f", DOLMENWOOD)
        for command in (
            SetHex(hex="1,1", terrain="tangled_forest"),
            t.StartJourney(hex="1,1"),
            t.RollWeather(weather="clear"),
            t.DeclareRoute(headings=()),
        ):
            handler.execute(CAMPAIGN, command)
        checked = handler.execute(CAMPAIGN, t.CheckWandering()).events
        assert not any(isinstance(e, tev.WanderingChecked) and e.encounter for e in checked)
        handler.execute(CAMPAIGN, t.EndDay())
        out = _night(handler, camp.MakeCamp(), camp.CheckNight())
        (made,) = [e for e in out if isinstance(e, ev.CampMade)]
        assert (made.terrain, made.terrain_is_ground) == ("tangled_forest", True)
        (night,) = [e for e in out if isinstance(e, ev.NightChecked)]
        assert (night.terrain, night.encounter_on, night.encounter) == ("tangled_forest", (1, 2), True)
        (started,) = [e for e in out if isinstance(e, pev.PursuitStarted)]
        assert (started.terrain, started.ground) == ("woods", "")
        handler.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(handler.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        assert not [line for line in report.by_hand if "camp 1 made" in line or "night check" in line]


class TestAnOlderReleasesCamps:
    def test_the_golden_log_audits_clean_each_check_on_its_row_and_its_pursuit_as_handed(self):
        events = read_export(GOLDEN.read_bytes().split(b"\n"))
        made = [e for e in events if e.type == "hexlog.camp.made"]
        assert [(e.schemaversion, e.data["terrain"]) for e in made] == [(1, ""), (1, "moderate"), (1, "road")]
        checks = [e for e in events if e.type == "hexlog.camp.night_checked"]
        assert [(e.schemaversion, e.data["terrain"]) for e in checks] == [(2, "moderate"), (2, "moderate"), (2, "road")]
        (started,) = [e for e in events if e.type == "hexlog.pursuit.started"]
        assert (started.data["terrain"], started.data["ground"]) == ("clear", "")
        report = audit_envelopes(events)
        assert (report.verdict, report.findings) == (Verdict.VERIFIED, ()), report.text()
        hand = [line.split(": ", 1)[1] for line in report.by_hand]
        assert "night check 1 of camp 1 made on terrain moderate by the referee" in hand
        assert "camp 2 made by the referee in terrain moderate (the night's wandering check reads it)" in hand
        assert not [line for line in hand if "camp 3" in line or "of camp 3" in line]

    def test_its_pursuit_is_handed_the_camp_s_terrain_as_its_release_handed_it(self):
        """A camp of release 34 (``camp.made`` version 1, read with ``terrain_is_ground`` false) made with no terrain
        hands its pursuit none, whatever its check was made on; a camp of today hands the check's ground."""
        checks = (ev.NightChecked(check=1, terrain="moderate", face=1, encounter_on=(1, 2), encounter=True),)
        older = camp.CampState(made=ev.CampMade(number=1, terrain_is_ground=False), checks=checks)
        assert older.pursuit_ground == ""
        today = camp.CampState(made=ev.CampMade(number=1), checks=(attrs.evolve(checks[0], terrain="tangled_forest"),))
        assert today.pursuit_ground == "tangled_forest"
        assert (
            camp.CampState(made=ev.CampMade(number=1, terrain="swamp"), checks=today.checks).pursuit_ground == "swamp"
        )
