"""A camp made on a journey takes what the referee leaves out from it: today's weather, the season, the hex's ground."""

from __future__ import annotations

import pytest

from hexlog.events import camp as ev
from hexlog.events import travel as tev
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.camp import machine as camp_machine
from hexlog.machine.camp.commands import BreakCamp, CheckNight, MakeCamp, SetWatches
from hexlog.machine.encounter import CancelEncounter
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as t
from hexlog.machine.travel.state import Phase as TravelPhase
from hexlog.replay.audit import audit_envelopes, audit_store

from .test_forged_steps import played, where

CAMPAIGN = "cj"


def campaign(*, journey: bool, season: str = "summer", weather: str = "rain") -> Handler:
    """Explore rules, a party of two, a tangled forest (OD&D row: woods) at 2,0 beside meadows (clear)."""
    h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller([3] * 50))
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex="4d" * 32),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
        SetHex(hex="2,0", terrain="tangled_forest"),
        SetHex(hex="2,1", terrain="meadow"),
    ):
        h.execute(CAMPAIGN, command)
    if journey:
        h.execute(CAMPAIGN, t.StartJourney(hex="2,0", season=season))
        # the day is done (its wandering check made, at dusk) before the party camps
        for command in (t.RollWeather(weather=weather), t.DeclareRoute(headings=()), t.CheckWandering()):
            h.execute(CAMPAIGN, command)
    return h


def made(h: Handler, command: MakeCamp) -> ev.CampMade:
    found = [e for e in h.execute(CAMPAIGN, command).events if isinstance(e, ev.CampMade)]
    assert len(found) == 1
    return found[0]


class TestACampOnAJourney:
    def test_the_weather_and_the_ground_come_from_the_journey(self):
        """The ground of the hex the party believes it is in (tangled forest, whose OD&D row is woods), not its row."""
        camp = made(campaign(journey=True), MakeCamp())
        assert (camp.weather, camp.wet, camp.winter, camp.terrain) == ("rain", True, False, "tangled_forest")

    def test_a_winter_journey_makes_a_winter_camp(self):
        camp = made(campaign(journey=True, season="winter", weather="snow"), MakeCamp())
        assert (camp.weather, camp.wet, camp.winter) == ("snow", True, True)

    @pytest.mark.parametrize(
        ("given", "expected"),
        [({"weather": "clear"}, ("clear", False, "tangled_forest")), ({"terrain": "swamp"}, ("rain", True, "swamp"))],
    )
    def test_what_the_referee_gives_wins(self, given, expected):
        camp = made(campaign(journey=True), MakeCamp(**given))
        assert (camp.weather, camp.wet, camp.terrain) == expected

    def test_without_a_journey_nothing_is_assumed(self):
        camp = made(campaign(journey=False), MakeCamp())
        assert (camp.weather, camp.wet, camp.winter, camp.terrain) == ("", False, False, "")


def _day_in_the_woods(h: Handler) -> None:
    """Day 1 of the journey (its weather rolled already): no route, the wandering check (3: none in the woods), unless
    made already, and its end at midnight."""
    if h.load(CAMPAIGN).procedures["travel"].phase is TravelPhase.ROUTE:
        for command in (t.DeclareRoute(headings=()), t.CheckWandering()):
            h.execute(CAMPAIGN, command)
    h.execute(CAMPAIGN, t.EndDay())


def _stream_version(h: Handler) -> int:
    return h.store.stream_version(stream_for(CAMPAIGN))


class TestTheNightComesBeforeTheNextDay:
    """The seed's day ends with the night at camp and its wandering check (§4.12): no day of travel or rest starts
    while a camp's night is not over, and the refusal names the camp's next step."""

    @pytest.mark.parametrize("start", [t.RollWeather(), t.RestDay()], ids=["weather", "rest"])
    def test_a_day_waits_for_the_camp_to_be_broken(self, start):
        h = campaign(journey=True)
        _day_in_the_woods(h)
        steps = (
            (MakeCamp(), "set its watches (SetWatches())"),
            (SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")), "roll the night's wandering check (CheckNight())"),
            (CheckNight(), "break it in the morning (BreakCamp())"),
        )
        for step, words in steps:
            h.execute(CAMPAIGN, step)
            before = _stream_version(h)
            with pytest.raises(RuleRefusedError) as refused:
                h.execute(CAMPAIGN, start)
            assert str(refused.value) == f"camp 1's night is not over, and the next day starts once it is: {words}"
            assert _stream_version(h) == before
        h.execute(CAMPAIGN, BreakCamp())
        started = [e for e in h.execute(CAMPAIGN, start).events if isinstance(e, tev.DayStarted)]
        assert [(e.day, e.rest) for e in started] == [(2, isinstance(start, t.RestDay))]

    def test_a_night_encounter_not_met_is_named(self):
        script = [3, 3, 3, 6, 2]
        h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
        for command in (
            c.StartCampaign(ruleset="explore"),
            c.OpenSession(secret_hex="4d" * 32),
            c.AddMember(name="Ann"),
            SetHex(hex="2,0", terrain="tangled_forest"),
            t.StartJourney(hex="2,0", season="summer"),
            t.RollWeather(weather="rain"),
        ):
            h.execute(CAMPAIGN, command)
        _day_in_the_woods(h)  # the lost check's two dice, the wandering check: 3, 3, 3
        for command in (MakeCamp(), SetWatches(watches=("1=Ann", "2=Ann", "3=Ann", "4=Ann")), CheckNight()):
            h.execute(CAMPAIGN, command)  # the night's check 6 (an encounter), its watch 2
        assert script == []
        with pytest.raises(RuleRefusedError, match="meet the encounter its check brought \\(MeetEncounter\\(\\)\\)"):
            h.execute(CAMPAIGN, t.RollWeather())


def _committed() -> Handler:
    """Explore rules on the committed dice of a session, a party of two set out in the tangled forest."""
    h = Handler(MemoryStore(), MemoryKeeper())
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(secret_hex="5e" * 32),
        c.AddMember(name="Ann"),
        c.AddMember(name="Bo"),
        SetHex(hex="2,0", terrain="tangled_forest"),
        t.StartJourney(hex="2,0", season="summer"),
        t.RollWeather(weather="clear"),
    ):
        h.execute(CAMPAIGN, command)
    return h


def _day_past_the_camp(h: Handler) -> None:
    """A day ends (its wandering check met nothing, or the encounter is cancelled), a camp is made and its watches
    set, and the next day starts with the night's check never rolled (as releases before the rule let it)."""
    h.execute(CAMPAIGN, t.DeclareRoute(headings=()))
    checked = h.execute(CAMPAIGN, t.CheckWandering()).events
    if any(isinstance(e, tev.WanderingChecked) and e.encounter for e in checked):
        h.execute(CAMPAIGN, CancelEncounter(reason="a test of the night"))
    h.execute(CAMPAIGN, t.EndDay())
    h.execute(CAMPAIGN, MakeCamp())
    h.execute(CAMPAIGN, SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")))
    h.execute(CAMPAIGN, t.RollWeather())


class TestTheAuditOfADayPastTheCamp:
    def test_a_day_an_older_release_started_past_the_camp_audits_clean(self, monkeypatch, unraised):
        """``travel.day_started`` version 3: its release let the day start with the camp's night not over, and the
        audit re-runs it as that release did."""
        unraised("travel.day_started")
        with monkeypatch.context() as old:
            old.setattr(tev.DayStarted, "schema_version", 3)
            old.setattr(t, "UNTIMED", (*t.UNTIMED, t.RollWeather))  # its release kept no time of a day's start
            old.setattr(camp_machine, "_DAY_STARTS", ())
            h = _committed()
            _day_past_the_camp(h)
        h.execute(CAMPAIGN, c.CloseSession())
        days = [r for r in h.store.read_stream(stream_for(CAMPAIGN)) if r.envelope.type.endswith("day_started")]
        assert [r.envelope.schemaversion for r in days] == [3, 3]
        report = audit_store(h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()

    def test_a_day_written_past_the_camp_since_version_4_is_a_finding(self, monkeypatch):
        h = _committed()
        with monkeypatch.context() as forged:
            forged.setattr(camp_machine, "_DAY_STARTS", ())
            _day_past_the_camp(h)
        h.execute(CAMPAIGN, c.CloseSession())
        report = audit_store(h.store, CAMPAIGN, REGISTRY)
        reasons = [f.reason for f in report.findings]
        assert len(reasons) == 1, report.text()
        assert "camp 1's night is not over, and the next day starts once it is" in reasons[0]


def _hand(*camp: c.Command) -> list[str]:
    """What the audit lists under the referee's hand for a day's camp in the tangled forest (row: woods), in rain."""
    log = played(
        SetHex(hex="2,0", terrain="tangled_forest"),
        t.StartJourney(hex="2,0"),
        t.RollWeather(weather="rain"),
        t.DeclareRoute(headings=()),
        t.CheckWandering(),
        *camp,
        SetWatches(watches=("1=Al", "2=Bo", "3=Al", "4=Bo")),
        CheckNight(),
    )
    report = audit_envelopes(log)
    assert report.findings == ()
    return [line.split(": ", 1)[1] for line in report.by_hand if "camp" in line.split(": ", 1)[1][:20]]


class TestTheRefereesCamp:
    """The night's secret check reads the camp's terrain: a referee who knows the dice and gives the camp another
    terrain than the journey's hex (or the check another than the camp's) chose the range they fall in. The audit
    lists it under the referee's hand, with weather and winter given against the day's (less firewood)."""

    def test_a_camp_made_as_the_journey_gives_is_not_listed(self):
        assert _hand(MakeCamp()) == []

    def test_a_camp_given_another_terrain_and_weather_is_listed(self):
        listed = (
            "camp 1 made by the referee in terrain swamp (row swamp), not tangled_forest (row woods), the ground of "
            "the hex the party believes it is in (the night's wandering check reads its row); weather clear, not the "
            "day's rain"
        )
        assert _hand(MakeCamp(terrain="swamp", weather="clear")) == [listed]

    def test_a_camp_given_other_ground_of_the_same_row_is_not_listed(self):
        """Hills read the woods row as the tangled forest does: the night's check reads the same range."""
        assert _hand(MakeCamp(terrain="hills")) == []

    def test_a_nights_check_on_another_terrain_than_its_camps_is_listed(self):
        log = played(
            SetHex(hex="2,0", terrain="tangled_forest"),
            t.StartJourney(hex="2,0"),
            t.RollWeather(weather="rain"),
            t.DeclareRoute(headings=()),
            t.CheckWandering(),
            MakeCamp(),
            SetWatches(watches=("1=Al", "2=Bo", "3=Al", "4=Bo")),
            CheckNight(terrain="clear"),
        )
        report = audit_envelopes(log)
        assert report.findings == ()
        listed = (
            f"stream version {where(log, 'camp.night_checked') + 1}: night check 1 of camp 1 made on terrain clear "
            "(row clear) by the referee, not the camp's tangled_forest (row woods)"
        )
        assert [line for line in report.by_hand if "night check" in line] == [listed]


class TestACampWaitsForTheDayToBeDone:
    """A journey's camp is made once its day is done (after its wandering check, or its end): one made while the
    party is on the road, or resting a full day, would pass the night within the day and leave the party to travel on
    after it with the day's points."""

    @pytest.mark.parametrize(
        ("day", "phase"),
        [
            ((t.RollWeather(weather="rain"),), "ROUTE"),
            ((t.RollWeather(weather="rain"), t.DeclareRoute(headings=())), "TRAVEL"),
            ((t.RestDay(),), "RESTING"),
        ],
        ids=["route", "travel", "resting"],
    )
    def test_a_camp_in_the_middle_of_the_day_is_refused_and_writes_nothing(self, day, phase):
        h = campaign(journey=False)
        h.execute(CAMPAIGN, t.StartJourney(hex="2,0"))
        for command in day:
            h.execute(CAMPAIGN, command)
        before = _stream_version(h)
        with pytest.raises(RuleRefusedError) as refused:
            h.execute(CAMPAIGN, MakeCamp())
        assert f"travel day 1 is under way ({phase}): the party camps once the day is done" in str(refused.value)
        assert _stream_version(h) == before

    def test_a_camp_at_dusk_and_after_the_day_s_end_is_made(self):
        h = campaign(journey=True)  # the day's wandering check made: dusk
        assert made(h, MakeCamp()).number == 1
        for command in (SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo")), CheckNight(), BreakCamp(), t.EndDay()):
            h.execute(CAMPAIGN, command)
        assert made(h, MakeCamp()).number == 2

    def test_a_camp_an_earlier_release_made_in_the_middle_of_the_day_audits_clean(self, monkeypatch):
        """Releases before this one let a camp be made while the party was on the road: such a log still audits
        clean (the camp's making is not a decision the audit re-runs)."""
        with monkeypatch.context() as old:
            old.setattr(camp_machine.CampModel, "day_is_done", lambda _self: True)
            log = played(
                SetHex(hex="2,0", terrain="tangled_forest"),
                t.StartJourney(hex="2,0"),
                t.RollWeather(weather="rain"),
                MakeCamp(),
                SetWatches(watches=("1=Al", "2=Bo", "3=Al", "4=Bo")),
                CheckNight(),
            )
        # made on the road: after the day started, with no wandering check of the day before it
        assert where(log, "camp.made") > where(log, "travel.day_started")
        assert not any(env.type == "hexlog.travel.wandering_checked" for env in log)
        assert audit_envelopes(log).findings == ()
