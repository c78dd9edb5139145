"""The rules of a night in camp (seed 004 §4.16) on chosen dice: known answers, and each table entry's effect."""

from __future__ import annotations

from typing import Any

import pytest

from hexlog.events import camp as ev
from hexlog.events import encounter as enc_ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import camp
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables_of
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.projections.visibility import PlayerView

CAMPAIGN = "t"
MEMBERS = ("Aldric", "Brom", "Cara", "Dain")
#: Aldric stands two watches (4 h of sleep), each other member one (6 h)
WATCHES = camp.SetWatches(watches=("1=Aldric", "2=Brom", "3=Cara", "4=Dain,Aldric"))
HOUR = 3600

Step = tuple[Any, tuple[int, ...]]


def do(command: Any, *faces: int) -> Step:
    """One command and the faces it rolls."""
    return command, faces


class Night:
    """A campaign under explore (with house rules) with four members, run step by step on scripted dice."""

    def __init__(self, overrides: dict[str, Any] | None = None, members: tuple[str, ...] = MEMBERS) -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(self.script))
        self.handler.execute(CAMPAIGN, c.StartCampaign(ruleset="explore", overrides=overrides or {}))
        self.handler.execute(CAMPAIGN, c.OpenSession(secret_hex="ab" * 32))
        for member in members:
            self.handler.execute(CAMPAIGN, c.AddMember(name=member))

    def run(self, *steps: Step) -> list[Any]:
        """Run the steps; the events they recorded, in order (every face used)."""
        events: list[Any] = []
        for command, faces in steps:
            self.script[:] = faces
            events.extend(self.handler.execute(CAMPAIGN, command).events)
            assert self.script == [], f"{command} left faces {self.script}"
        return events

    @property
    def state(self) -> Any:
        return self.handler.load(CAMPAIGN).procedures["camp"]


def one(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def firewood(overrides: dict[str, Any] | None, make: camp.MakeCamp, *faces: int) -> ev.FirewoodGathered:
    night = Night(overrides)
    night.run(do(make))
    return one(night.run(do(camp.GatherFirewood(gatherers=("Aldric", "Brom")), *faces)), ev.FirewoodGathered)


def tables(**camp_entries: Any) -> dict[str, Any]:
    return {"tables": {"camp": camp_entries}}


class TestFirewood:
    @pytest.mark.parametrize(
        ("make", "hours", "divisor"),
        [
            (camp.MakeCamp(terrain="woods"), (6, 3), 1),
            (camp.MakeCamp(terrain="woods", weather="clear"), (6, 3), 1),
            (camp.MakeCamp(terrain="woods", weather="fog"), (6, 3), 1),
            (camp.MakeCamp(terrain="woods", weather="rain"), (3, 1), 2),
            (camp.MakeCamp(terrain="woods", weather="storm"), (3, 1), 2),
            (camp.MakeCamp(terrain="woods", winter=True), (3, 1), 2),
            (camp.MakeCamp(terrain="woods", weather="snow", winter=True), (1, 0), 4),
        ],
        ids=["none-given", "clear", "fog", "rain", "storm", "winter", "snow-winter"],
    )
    def test_each_gatherer_brings_a_d6_of_hours_divided_for_wet_weather_and_winter(self, make, hours, divisor):
        """6 and 3: as rolled; wet halves each (3, 1); winter halves again (1, 0), rounded down per gatherer."""
        found = firewood(None, make, 6, 3)
        assert tuple(g.hours for g in found.gathered) == hours
        assert tuple(g.rolled for g in found.gathered) == (6, 3)
        assert found.divisor == divisor
        assert found.hours == sum(hours)
        assert found.fire is (sum(hours) > 0)
        assert found.fire_hours == min(sum(hours), 8)

    def test_each_roll_is_made_for_its_gatherer(self) -> None:
        """The kit learns whom each roll is for (so exhaustion and the like apply to it)."""
        night = Night()
        night.run(do(camp.MakeCamp(terrain="woods")))
        events = night.run(do(camp.GatherFirewood(gatherers=("Cara", "Aldric")), 2, 5))
        rolls = [e for e in events if isinstance(e, DiceRolled)]
        assert [(r.made_for, r.purpose, r.total) for r in rolls] == [
            ("Cara", "camp.firewood", 2),
            ("Aldric", "camp.firewood", 5),
        ]
        assert one(events, ev.FirewoodGathered).rolls == tuple(r.nonce for r in rolls)

    def test_no_fuel_means_no_fire(self) -> None:
        """Two 1s in snow in winter: nothing to burn."""
        found = firewood(None, camp.MakeCamp(terrain="woods", weather="snow", winter=True), 1, 1)
        assert (found.hours, found.fire, found.fire_hours) == (0, False, 0)

    def test_the_firewood_dice_are_the_tables(self) -> None:
        """House rule 2d6: each gatherer rolls two dice."""
        found = firewood(tables(firewood_dice="2d6"), camp.MakeCamp(terrain="woods"), 6, 5, 1, 2)
        assert [g.hours for g in found.gathered] == [11, 3]

    def test_the_wet_divisor_is_the_tables(self) -> None:
        """House rule: wet weather divides by 3 (6 -> 2, 3 -> 1) instead of 2 (3, 1)."""
        found = firewood(tables(firewood_wet_divisor=3), camp.MakeCamp(terrain="woods", weather="rain"), 6, 5)
        assert [g.hours for g in found.gathered] == [2, 1]

    def test_the_winter_divisor_is_the_tables(self) -> None:
        """House rule: winter does not cut the firewood (divisor 1)."""
        found = firewood(tables(firewood_winter_divisor=1), camp.MakeCamp(terrain="woods", winter=True), 6, 3)
        assert [g.hours for g in found.gathered] == [6, 3]

    def test_the_wet_flag_is_the_weather_tables(self) -> None:
        """House rule: fog counts as wet, so it halves the firewood."""
        found = firewood(
            {"tables": {"weather_flags": {"fog": ["poor_visibility", "wet"]}}},
            camp.MakeCamp(terrain="woods", weather="fog"),
            6,
            3,
        )
        assert [g.hours for g in found.gathered] == [3, 1]


class TestWatches:
    def test_the_watches_are_recorded_in_order(self) -> None:
        """Given in any order, recorded watch by watch, names trimmed."""
        night = Night()
        night.run(do(camp.MakeCamp(terrain="woods")))
        given = camp.SetWatches(watches=("3=Cara", "1=Aldric, Brom", "4=Dain", "2=Brom"))
        found = one(night.run(do(given)), ev.WatchesSet)
        assert [(w.number, w.guards) for w in found.watches] == [
            (1, ("Aldric", "Brom")),
            (2, ("Brom",)),
            (3, ("Cara",)),
            (4, ("Dain",)),
        ]
        assert found.watch_hours == 2

    def test_the_number_of_watches_is_the_tables(self) -> None:
        """House rule: two 4-hour watches picked by 1d2; a third watch is not a watch of that night."""
        rules = tables(watches=2, watch_hours=4, watch_dice="1d2")
        night = Night(rules)
        night.run(do(camp.MakeCamp(terrain="woods")))
        with pytest.raises(Exception, match="watch 3 is not a watch of the night: watches are 1 to 2"):
            night.run(do(camp.SetWatches(watches=("1=Aldric", "2=Brom", "3=Cara"))))
        found = one(night.run(do(camp.SetWatches(watches=("1=Aldric", "2=Brom")))), ev.WatchesSet)
        assert (len(found.watches), found.watch_hours) == (2, 4)

    @pytest.mark.parametrize(
        ("entries", "needle"),
        [
            ({"watches": 3}, "tables.camp.watches: 3 watches of 2 hours do not fill a night of 8 hours"),
            ({"watch_hours": 3}, "tables.camp.watches: 4 watches of 3 hours do not fill a night of 8 hours"),
            ({"night_hours": 10}, "tables.camp.watches: 4 watches of 2 hours do not fill a night of 10 hours"),
            ({"watch_dice": "1d6"}, "tables.camp.watch_dice: '1d6' must show 1 to 4"),
            ({"min_sleep_hours": 9}, "tables.camp.min_sleep_hours: 9 is more than the night"),
        ],
        ids=["watches", "watch-hours", "night-hours", "watch-dice", "min-sleep"],
    )
    def test_a_camp_table_that_cannot_run_a_night_is_refused_at_load(self, entries, needle) -> None:
        """The check across the camp's rules names the key."""
        with pytest.raises(rulesets.RulesError, match=needle.replace("(", r"\(")):
            REGISTRY.check_rules(rulesets.load("explore", tables(**entries), used=REGISTRY.used_keys()))


def _to_check(night: Night, make: camp.MakeCamp | None = None, fuel: tuple[int, ...] = ()) -> None:
    night.run(do(make or camp.MakeCamp(terrain="woods")))
    if fuel:
        night.run(do(camp.GatherFirewood(gatherers=("Brom",)), *fuel))
    night.run(do(WATCHES))


class TestNightCheck:
    @pytest.mark.parametrize(
        ("terrain", "face", "hit"),
        [("woods", 4, False), ("woods", 5, True), ("clear", 5, False), ("clear", 6, True), ("swamp", 4, True)],
    )
    def test_the_check_is_a_secret_d6_on_the_terrains_encounter_range(self, terrain, face, hit) -> None:
        """OD&D p.18: woods 5-6, clear 6, swamp 4-6; the watch die is rolled too, encounter or not (a player sees the
        same two hidden rolls either way), and read only on an encounter."""
        night = Night()
        _to_check(night, camp.MakeCamp(terrain=terrain))
        events = night.run(do(camp.CheckNight(), face, 2))
        found = one(events, ev.NightChecked)
        assert (found.face, found.encounter) == (face, hit)
        rolls = [e for e in events if isinstance(e, DiceRolled)]
        assert all(r.visibility is Visibility.REFEREE for r in rolls)
        assert [r.purpose for r in rolls] == ["camp.night_check", "camp.watch"]
        assert found.watch == (2 if hit else 0)
        assert found.referee_rolls == tuple(r.nonce for r in rolls)
        assert found.rolls == ()

    def test_the_terrain_may_be_given_at_the_check(self) -> None:
        """A camp made without a terrain is checked on the one the check names; a terrain given there wins."""
        night = Night()
        night.run(do(camp.MakeCamp(weather="rain")), do(WATCHES))
        found = one(night.run(do(camp.CheckNight(terrain="clear"), 5, 1)), ev.NightChecked)
        assert (found.terrain, found.encounter_on, found.encounter) == ("clear", (6,), False)
        other = Night()
        _to_check(other, camp.MakeCamp(terrain="clear"))
        found = one(other.run(do(camp.CheckNight(terrain="swamp"), 5, 1)), ev.NightChecked)
        assert (found.terrain, found.encounter) == ("swamp", True)

    def test_the_encounter_range_is_the_terrain_table(self) -> None:
        """House rule: woods meet an encounter on 1 only; the 5 that meets one by OD&D p.18 is quiet."""
        rules = {"tables": {"lost_encounter": {"odd_p18": {"woods": {"lost": [1, 2], "encounter": [1]}}}}}
        for overrides, face, hit in ((None, 5, True), (rules, 5, False), (rules, 1, True)):
            night = Night(overrides)
            _to_check(night)
            found = one(night.run(do(camp.CheckNight(), face, 2)), ev.NightChecked)
            assert found.encounter is hit

    @pytest.mark.parametrize(
        ("watch", "awake"), [(1, ("Aldric",)), (2, ("Brom",)), (3, ("Cara",)), (4, ("Dain", "Aldric"))]
    )
    def test_the_watch_die_says_who_is_awake_and_who_sleeps(self, watch, awake) -> None:
        """1d4 picks the watch: its guards are awake, everyone else asleep."""
        night = Night()
        _to_check(night)
        found = one(night.run(do(camp.CheckNight(), 6, watch)), ev.NightChecked)
        assert (found.watch, found.awake) == (watch, awake)
        assert found.asleep == tuple(m for m in MEMBERS if m not in awake)

    def test_the_check_and_what_it_found_are_hidden_from_the_players(self) -> None:
        """The roll and the decision naming it are the referee's until the session closes."""
        night = Night()
        _to_check(night)
        night.run(do(camp.CheckNight(), 6, 2))
        view = PlayerView(ended=())
        stream = [decode(r.envelope) for r in night.handler.store.read_stream(tables_of.stream_for(CAMPAIGN))]
        hidden = [type(e).__name__ for e in stream if view.hides(e)]
        assert hidden == ["DiceRolled", "DiceRolled", "NightChecked"]
        after_reveal = PlayerView(ended=("s1",))
        assert [e for e in stream if after_reveal.hides(e)] == []

    def test_without_the_night_check_option_the_night_is_quiet(self) -> None:
        """night_encounter_check = false (A19): no check is rolled and the camp breaks after the watches."""
        night = Night({"options": {"night_encounter_check": False}})
        night.run(do(camp.MakeCamp()))
        night.run(do(WATCHES))
        with pytest.raises(RuleRefusedError, match="roll no wandering check at night"):
            night.run(do(camp.CheckNight(), 6, 1))
        broken = one(night.run(do(camp.BreakCamp())), ev.CampBroken)
        assert broken.number == 1

    def test_the_number_of_checks_is_the_tables(self) -> None:
        """House rule night_checks = 2: a second check before morning; 0: none at all."""
        night = Night(tables(night_checks=2))
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        with pytest.raises(RuleRefusedError, match=r"check is not rolled yet \(1 of 2\)"):
            night.run(do(camp.BreakCamp()))
        assert one(night.run(do(camp.CheckNight(), 1, 1)), ev.NightChecked).check == 2
        with pytest.raises(RuleRefusedError, match="2 wandering check"):
            night.run(do(camp.CheckNight(), 1, 1))
        none = Night(tables(night_checks=0))
        _to_check(none)
        with pytest.raises(RuleRefusedError, match="roll no wandering check at night"):
            none.run(do(camp.CheckNight(), 1, 1))

    def test_the_watch_die_is_the_tables(self) -> None:
        """House rule: two 4-hour watches picked by 1d2."""
        night = Night(tables(watches=2, watch_hours=4, watch_dice="1d2"))
        night.run(do(camp.MakeCamp(terrain="woods")))
        night.run(do(camp.SetWatches(watches=("1=Aldric,Brom", "2=Cara,Dain"))))
        events = night.run(do(camp.CheckNight(), 6, 2))
        assert [e.sides for e in events if isinstance(e, DiceRolled)] == [(6,), (2,)]
        assert one(events, ev.NightChecked).awake == ("Cara", "Dain")


def _meet(night: Night, check: tuple[int, int], **meet: Any) -> list[Any]:
    night.run(do(camp.CheckNight(), *check))
    return night.run(do(camp.MeetEncounter(**meet)))


class TestNightEncounter:
    def test_the_encounter_is_a_wilderness_encounter_the_fire_lights(self) -> None:
        """Handed off in the same append; the fire (5 hours of fuel) still burns in watch 3, not in watch 4."""
        for watch, lit in ((3, True), (4, False)):
            night = Night()
            _to_check(night, fuel=(5,))
            events = _meet(night, (6, watch), monster_count=3, intelligent=False, monster_speed=90)
            started = one(events, enc_ev.EncounterStarted)
            assert (started.setting, started.party_light, started.monster_count) == ("wilderness", lit, 3)
            assert (started.intelligent, started.monster_speed, started.name) == (False, 90, f"camp 1, watch {watch}")
            assert night.state.phase is camp.Phase.ENCOUNTER

    @pytest.mark.parametrize(
        ("face", "party_surprised", "surprised"),
        [(1, True, ("Aldric", "Brom", "Dain", "Cara")), (3, True, ("Aldric", "Brom", "Dain")), (5, False, ())],
    )
    def test_sleepers_are_surprised_on_1_to_4_and_the_guards_on_1_to_2(self, face, party_surprised, surprised):
        """The party's one d6 carries -2 while members sleep: 3 catches the sleepers only, and the party with them."""
        night = Night()
        _to_check(night)
        _meet(night, (6, 3))
        events = night.run(do(enc.CheckSurprise(), face, 6))
        party_roll = next(e for e in events if isinstance(e, DiceRolled) and e.purpose == "encounter.surprise.party")
        assert [(m.value, m.source) for m in party_roll.modifiers] == [
            (-2, "asleep in watch 3 (Aldric, Brom, Dain): surprised on 1-4")
        ]
        assert one(events, enc_ev.SurpriseChecked).party_surprised is party_surprised
        night.run(do(enc.DetermineDistance(value=30)))
        if night.handler.load(CAMPAIGN).procedures["encounter"].phase is enc.Phase.FREE_ACTION:
            night.run(do(enc.TakeFreeAction(action="attack")))
        # in the open surprise gives no free action under explore: both sides roll initiative
        night.run(do(enc.RollInitiative(), 4, 2))
        events = night.run(do(enc.ConcludeEncounter()))
        ended = one(events, ev.NightEncounterEnded)
        assert ended.surprised == surprised
        assert ended.woken == ("Aldric", "Brom", "Dain")
        assert night.state.phase is camp.Phase.NIGHT

    def test_the_sleepers_range_is_the_tables(self) -> None:
        """House rule sleepers_surprised_on = 2: no modifier, a 3 surprises nobody."""
        night = Night(tables(sleepers_surprised_on=2))
        _to_check(night)
        _meet(night, (6, 3))
        events = night.run(do(enc.CheckSurprise(), 3, 6))
        party_roll = next(e for e in events if isinstance(e, DiceRolled) and e.purpose == "encounter.surprise.party")
        assert party_roll.modifiers == ()
        assert one(events, enc_ev.SurpriseChecked).party_surprised is False

    def test_an_encounter_outside_the_camp_is_not_modified(self) -> None:
        """The sleepers' modifier applies only while the camp waits on its own encounter."""
        night = Night()
        events = night.run(do(enc.StartEncounter(setting="wilderness")), do(enc.CheckSurprise(), 3, 6))
        party_roll = next(e for e in events if isinstance(e, DiceRolled) and e.purpose == "encounter.surprise.party")
        assert party_roll.modifiers == ()


def _break(night: Night) -> ev.CampBroken:
    return one(night.run(do(camp.BreakCamp())), ev.CampBroken)


def _rests(broken: ev.CampBroken) -> dict[str, tuple[int, int, bool]]:
    return {r.name: (r.slept_hours, r.healed_hp, r.can_memorise) for r in broken.rests}


class TestSleep:
    def test_six_hours_heal_one_hp_and_allow_spells_four_do_not(self) -> None:
        """One watch stood: 6 h, heals 1 and memorises; two watches (Aldric): 4 h, no benefit."""
        night = Night()
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        assert _rests(_break(night)) == {
            "Aldric": (4, 0, False),
            "Brom": (6, 1, True),
            "Cara": (6, 1, True),
            "Dain": (6, 1, True),
        }

    def test_a_member_who_stands_no_watch_sleeps_the_whole_night(self) -> None:
        """Eryn joins after the watches: 8 h of sleep."""
        night = Night(members=(*MEMBERS, "Eryn"))
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        assert _rests(_break(night))["Eryn"] == (8, 1, True)

    def test_an_encounter_breaks_the_sleep_of_the_sleepers_in_its_watch(self) -> None:
        """Watch 3: Brom and Dain (one watch each) drop to 4 h and lose the benefit; Cara was awake anyway."""
        night = Night(members=(*MEMBERS, "Eryn"))
        _to_check(night)
        _meet(night, (6, 3))
        night.run(do(enc.CheckSurprise(), 6, 6), do(enc.DetermineDistance(value=30)), do(enc.RollInitiative(), 4, 2))
        night.run(do(enc.ConcludeEncounter()))
        broken = _break(night)
        assert _rests(broken) == {
            "Aldric": (2, 0, False),
            "Brom": (4, 0, False),
            "Cara": (6, 1, True),
            "Dain": (4, 0, False),
            "Eryn": (6, 1, True),
        }
        assert {r.name: r.woken for r in broken.rests}["Brom"] == (3,)

    def test_the_healing_and_the_least_sleep_are_the_tables(self) -> None:
        """House rules heal_hp = 2 and min_sleep_hours = 7: the one-watch guards no longer rest."""
        night = Night(tables(heal_hp=2, min_sleep_hours=7), members=(*MEMBERS, "Eryn"))
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        rests = _rests(_break(night))
        assert rests["Brom"] == (6, 0, False)
        assert rests["Eryn"] == (8, 2, True)

    def test_the_night_and_watch_hours_are_the_tables(self) -> None:
        """House rule: a 12-hour night of four 3-hour watches (the clock's watch 3 hours too): a guard sleeps 9."""
        rules = {"options": {"watch_seconds": 3 * HOUR}, **tables(night_hours=12, watch_hours=3)}
        night = Night(rules)
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        events = night.run(do(camp.BreakCamp()))
        assert _rests(one(events, ev.CampBroken))["Brom"] == (9, 1, True)
        assert [e.seconds for e in events if isinstance(e, ClockAdvanced)] == [3 * HOUR] * 4

    def test_the_clocks_watch_is_the_options(self) -> None:
        """options.watch_seconds = 1 hour: the night passes as four 1-hour watches; the sleep is still counted in
        the camp table's 2-hour watches."""
        night = Night({"options": {"watch_seconds": HOUR}})
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        events = night.run(do(camp.BreakCamp()))
        assert [e.seconds for e in events if isinstance(e, ClockAdvanced)] == [HOUR] * 4
        assert _rests(one(events, ev.CampBroken))["Brom"] == (6, 1, True)

    def test_the_clock_passes_the_rest_of_the_night_a_watch_at_a_time(self) -> None:
        """Four 2-hour watches; an encounter in watch 2 runs the night on to that watch (2 hours), and after its 1 turn
        the night's last 1 h 50 min pass after the two watches left."""
        night = Night()
        _to_check(night)
        night.run(do(camp.CheckNight(), 1, 1))
        events = night.run(do(camp.BreakCamp()))
        assert [e.seconds for e in events if isinstance(e, ClockAdvanced)] == [2 * HOUR] * 4
        assert night.handler.load(CAMPAIGN).clock.seconds == 8 * HOUR
        other = Night()
        _to_check(other)
        _meet(other, (6, 2))
        other.run(do(enc.CheckSurprise(), 6, 6), do(enc.DetermineDistance(value=30)), do(enc.RollInitiative(), 4, 2))
        other.run(do(enc.ConcludeEncounter()))
        events = other.run(do(camp.BreakCamp()))
        assert [e.seconds for e in events if isinstance(e, ClockAdvanced)] == [2 * HOUR] * 2 + [2 * HOUR - 600]
        assert other.handler.load(CAMPAIGN).clock.seconds == 8 * HOUR

    def test_the_healing_is_a_running_total_over_nights(self) -> None:
        """Two nights: Brom heals 1 each (2 in all), Aldric none; the state keeps the latest night's rests."""
        night = Night()
        for number in (1, 2):
            _to_check(night)
            night.run(do(camp.CheckNight(), 1, 1))
            assert _break(night).number == number
        state = night.state
        assert [(name, state.healed_hp(name)) for name in MEMBERS] == [
            ("Aldric", 0),
            ("Brom", 2),
            ("Cara", 2),
            ("Dain", 2),
        ]
        assert state.last_night is not None
        assert state.last_night.number == 2


class TestRulesRead:
    def test_the_camp_reads_its_table_and_options(self) -> None:
        """rules show names the camp as the reader of what it reads; the clock's watch is the campaign's unit."""
        assert REGISTRY.readers("tables", "camp") == ["camp"]
        for section, key in (("tables", "weather_flags"), ("options", "night_encounter_check")):
            assert sorted(REGISTRY.readers(section, key)) == ["camp", "travel"], key
        for section, key in (("tables", "lost_encounter"), ("options", "lost_encounter_source")):
            assert sorted(REGISTRY.readers(section, key)) == ["camp", "pursuit", "travel"], key  # and a pursuit's rest
        assert REGISTRY.readers("options", "watch_seconds") == ["campaign"]
