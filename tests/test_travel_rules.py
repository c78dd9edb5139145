"""Known answers of the travel day with scripted dice: lost ranges with weather and darkness, the lost
heading and its one turn, travel points by speed and on a forced march, costs along a mixed route,
search ranges, exhaustion (recorded on the rolls with its source) and its recovery."""

from __future__ import annotations

from typing import Any

import pytest

from hexlog.events import hexmap as mapev
from hexlog.events import travel as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.dice import DiceRolled, RollModifier
from hexlog.events.errors import RuleRefusedError
from hexlog.machine import commands as c
from hexlog.machine.hexmap import SetHex, hidden
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as t
from hexlog.machine.travel import exhaustion, terrain
from hexlog.service import render

from .scripted_play import ScriptedPlay

CAMPAIGN = "tr"
CLEAR = t.RollWeather(weather="clear")


class Trip(ScriptedPlay):
    """A campaign with a party and a map, its dice a script the test fills as it goes."""

    def __init__(
        self,
        hexes: dict[str, dict[str, Any]],
        *,
        speeds: tuple[int, ...] = (120, 90),
        options: dict[str, Any] | None = None,
        tables: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(CAMPAIGN)
        overrides: dict[str, Any] = {"options": options} if options else {}
        if tables:
            overrides["tables"] = tables
        self.run(c.StartCampaign(ruleset="explore", overrides=overrides))
        self.run(c.OpenSession(secret_hex="2f" * 32))
        for i, speed in enumerate(speeds):
            self.run(c.AddMember(name=("Ann", "Bo", "Cy", "Di")[i], speed=speed))
        for name, facts in hexes.items():
            self.run(SetHex(hex=name, **facts))

    @property
    def state(self) -> Any:
        return self.h.load(CAMPAIGN).procedures["travel"]


def only(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def meadows(*extra: tuple[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    hexes = {f"{col},{row}": {"terrain": "meadow"} for col in range(6) for row in range(6)}
    hexes.update(dict(extra))
    return hexes


class TestLostRanges:
    @pytest.mark.parametrize(
        ("terrain_name", "weather", "night", "source", "row", "lost_on"),
        [
            ("meadow", "clear", False, "odd_p18", "clear", (1,)),
            ("hills", "clear", False, "odd_p18", "woods", (1, 2)),
            ("hills", "fog", False, "odd_p18", "woods", (1, 2, 3)),
            ("hills", "clear", True, "odd_p18", "woods", (1, 2, 3, 4)),
            ("swamp", "blizzard", True, "odd_p18", "swamp", (1, 2, 3, 4, 5, 6)),
            ("craggy_forest", "rain", False, "odd_p18", "mountains", (1, 2)),
            ("desert", "clear", False, "odd_p18", "desert", (1, 2, 3)),
            ("settlement", "clear", False, "odd_p18", "city", (1,)),
            ("river", "fog", False, "odd_p18", "river", (1, 2)),
            ("hills", "clear", False, "dolmenwood", "light", (1,)),
            ("tangled_forest", "fog", False, "dolmenwood", "moderate", (1, 2, 3)),
            ("thorny_forest", "clear", True, "dolmenwood", "difficult", (1, 2, 3, 4, 5)),
        ],
    )
    def test_the_lost_range_by_terrain_weather_and_darkness(  # noqa: PLR0913, PLR0917 - one parameter per column
        self, terrain_name, weather, night, source, row, lost_on
    ):
        """§4.7: the row's faces, +1 in fog or blizzard, +2 in darkness, at most 6; a face inside is lost."""
        trip = Trip({"1,1": {"terrain": terrain_name}}, options={"lost_encounter_source": source})
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(t.RollWeather(weather=weather))
        top = max(lost_on)
        checked = only(trip.run(t.DeclareRoute(night=night), top, 2), ev.LostChecked)
        assert (checked.row, checked.lost_on, checked.lost) == (row, lost_on, True)
        if top < 6:
            trip2 = Trip({"1,1": {"terrain": terrain_name}}, options={"lost_encounter_source": source})
            trip2.run(t.StartJourney(hex="1,1"))
            trip2.run(t.RollWeather(weather=weather))
            assert not only(trip2.run(t.DeclareRoute(night=night), top + 1, 1), ev.LostChecked).lost

    @pytest.mark.parametrize(
        ("source", "way", "sky", "read"),
        [
            ("odd_p18", "road", ("clear", False), ("swamp", (1, 2, 3))),
            ("odd_p18", "road", ("fog", True), ("swamp", (1, 2, 3, 4, 5, 6))),
            ("odd_p18", "track", ("clear", False), ("swamp", (1, 2, 3))),
            ("dolmenwood", "road", ("clear", False), ("road", ())),
            ("dolmenwood", "road", ("fog", False), ("road", (1,))),
            ("dolmenwood", "road", ("clear", True), ("road", (1, 2))),
            ("dolmenwood", "road", ("blizzard", True), ("road", (1, 2, 3))),
            ("dolmenwood", "track", ("clear", False), ("track", (1,))),
            ("dolmenwood", "track", ("fog", True), ("track", (1, 2, 3, 4))),
        ],
    )
    def test_each_source_reads_a_road_its_own_way_and_fog_and_darkness_raise_it(self, source, way, sky, read) -> None:
        """OD&D p.18 has no road or track row: a road through a swamp reads the swamp (lost on 1-3). Dolmenwood's road
        is never lost in clear weather by day; fog (+1) and darkness (+2) raise its none as any chance (§4.7, A20)."""
        weather, night = sky
        trip = Trip({"1,1": {"terrain": "swamp", way: True}}, options={"lost_encounter_source": source})
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(t.RollWeather(weather=weather))
        face = max(read[1], default=1)
        checked = only(trip.run(t.DeclareRoute(night=night), face, 1), ev.LostChecked)
        assert (checked.row, checked.lost_on, checked.lost) == (*read, bool(read[1]))

    def test_the_lost_roll_is_secret_and_made_for_the_party(self) -> None:
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        trip.run(CLEAR)
        lost, heading = [e for e in trip.run(t.DeclareRoute(headings=("N",)), 6, 1) if isinstance(e, DiceRolled)]
        assert (lost.purpose, lost.visibility, lost.made_for) == ("travel.lost", "referee", "party")
        assert (heading.purpose, heading.visibility) == ("travel.lost.heading", "referee")  # rolled though not lost


class TestLostHeading:
    @pytest.mark.parametrize(("face", "heading"), list(enumerate(["N", "NE", "SE", "S", "SW", "NW"], start=1)))
    def test_the_true_heading_by_the_die(self, face: int, heading: str) -> None:
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        trip.run(CLEAR)
        checked = only(trip.run(t.DeclareRoute(headings=("S",)), 1, face), ev.LostChecked)
        assert (checked.lost, checked.heading, checked.true_route) == (True, heading, (heading,))

    def test_only_one_change_of_direction_on_a_lost_day(self) -> None:
        """A23: declared N N NE NE N; truly SE: the one turn (+1) gives S, the later turn back is lost."""
        assert terrain.true_route(("N", "N", "NE", "NE", "N"), "SE") == ("SE", "SE", "S", "S", "S")
        assert terrain.true_route((), "SE") == ()

    def test_the_player_sees_the_believed_hex_until_a_landmark_is_missed(self) -> None:
        """Lost heading SE: the party believes it is at 2,1, where it expects the mill; missing it, it learns."""
        trip = Trip(meadows(("2,1", {"terrain": "meadow", "landmarks": ("the old mill",)})))
        trip.run(t.StartJourney(hex="2,3"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(headings=("N", "N")), 1, 3)
        first = trip.run(t.Move(hexes=1))
        assert only(first, ev.Moved).believed == "2,2"
        assert only(first, ev.TruePosition).hex == "3,3"
        assert trip.state.believed == "2,2"
        assert trip.state.hex == "3,3"
        player = "\n".join(render.state_lines(CAMPAIGN, trip.h.load(CAMPAIGN), player=True))
        assert "2,2" in player
        assert "3,3" not in player
        assert "LOST" not in player
        second = trip.run(t.Move(hexes=1))
        revealed = only(second, ev.LostRevealed)
        assert revealed.hex == "4,4"
        assert "the old mill" in revealed.reason
        assert (trip.state.hex, trip.state.believed) == ("4,4", "4,4")


class TestTravelPoints:
    @pytest.mark.parametrize(
        ("speed", "points", "forced"), [(120, 8, 12), (90, 6, 9), (60, 4, 6), (30, 2, 3), (150, 10, 15)]
    )
    def test_points_by_the_slowest_speed_and_on_a_forced_march(self, speed: int, points: int, forced: int) -> None:
        """§4.6: feet per turn / 3 is the Dolmenwood speed (40, 30, 20, 10); TP = speed / 5, +50 % forced."""
        trip = Trip(meadows(), speeds=(150, speed))
        started = only(trip.run(t.StartJourney(hex="2,2")), ev.JourneyStarted)
        assert (started.speed, started.travel_points) == (speed // 3, points)
        assert only(trip.run(CLEAR), ev.DayStarted).travel_points == points
        trip.run(t.DeclareRoute(), 6, 1)
        marched = only(trip.run(t.ForceMarch()), ev.ForcedMarch)
        assert (marched.added, marched.travel_points) == (forced - points, forced)

    def test_impeded_weather_costs_two_points(self) -> None:
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        day = only(trip.run(t.RollWeather(weather="storm")), ev.DayStarted)
        assert (day.flags, day.travel_points) == (("impeded", "wet"), 4)

    def test_the_weather_roll_reads_the_season(self) -> None:
        """2d6 = 5: snow in winter (impeded), fog in autumn."""
        for season, weather in (("winter", "snow"), ("autumn", "fog"), ("summer", "overcast")):
            trip = Trip(meadows())
            trip.run(t.StartJourney(hex="2,2", season=season))
            assert only(trip.run(t.RollWeather(), 2, 3), ev.DayStarted).weather == weather


class TestCosts:
    def test_a_mixed_route_spends_hex_by_hex(self) -> None:
        """8 TP: road to road 2, then hills 2, then bog 3; the tangled forest (3) is beyond the 1 left."""
        trip = Trip(
            {
                "2,5": {"terrain": "swamp", "road": True},
                "2,4": {"terrain": "swamp", "road": True},
                "2,3": {"terrain": "hills"},
                "2,2": {"terrain": "bog"},
                "2,1": {"terrain": "tangled_forest"},
            },
            speeds=(120,),
        )
        trip.run(t.StartJourney(hex="2,5"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(headings=("N",) * 4), 6, 1)
        moved = [e for e in trip.run(t.Move()) if isinstance(e, ev.Moved)]
        assert [(m.believed, m.cost, m.travel_points) for m in moved] == [("2,4", 2, 6), ("2,3", 2, 4), ("2,2", 3, 1)]

    def test_unused_points_are_lost_at_the_days_end(self) -> None:
        trip = Trip({"1,1": {"terrain": "hills"}, "1,0": {"terrain": "swamp"}})
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(headings=("N",)), 6, 1)
        trip.run(t.Move())
        trip.run(t.CheckWandering(), 1)
        ended = only(trip.run(t.EndDay()), ev.DayEnded)
        assert (ended.hexes, ended.unused, ended.carried) == (1, 2, 0)

    def test_mounts_are_led_and_vehicles_barred(self) -> None:
        trip = Trip({"1,2": {"terrain": "meadow"}, "1,1": {"terrain": "bog"}, "1,0": {"terrain": "swamp"}})
        trip.run(t.StartJourney(hex="1,2", mounted=True))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(headings=("N", "N")), 6, 1)
        moved = [e for e in trip.run(t.Move()) if isinstance(e, ev.Moved)]
        assert [m.led for m in moved] == [True]
        with pytest.raises(RuleRefusedError, match="mounts cannot enter swamp"):
            trip.run(t.Move())


CARRY = {"carry_partial_hex": True}
#: a meadow at 1,3, then north a bog (3), a thorny forest (4) and a swamp (4)
NORTH = meadows(("1,2", {"terrain": "bog"}), ("1,1", {"terrain": "thorny_forest"}), ("1,0", {"terrain": "swamp"}))


class TestCarryPartialHex:
    """A22 with ``carry_partial_hex``: the points spent on an unfinished hex count next day, and no others."""

    def day(self, trip: Trip, route: tuple[str, ...], move: t.Move | None) -> ev.DayEnded:
        trip.run(t.DeclareRoute(headings=route), 6, 1)
        if move is not None:
            trip.run(move)
        trip.run(t.CheckWandering(), 1)
        return only(trip.run(t.EndDay()), ev.DayEnded)

    def test_a_route_declared_and_never_walked_carries_nothing_day_after_day(self) -> None:
        """8 points, the next hex a bog (3): the party does not move; no point was spent on any hex, so the 8 are
        lost, and each next day has 8 again, never 16."""
        trip = Trip(NORTH, speeds=(120,), options=CARRY)
        trip.run(t.StartJourney(hex="1,3"))
        for _ in range(3):
            assert only(trip.run(CLEAR), ev.DayStarted).travel_points == 8
            ended = self.day(trip, ("N",), None)
            assert (ended.hexes, ended.unused, ended.carried) == (0, 8, 0)

    def test_the_points_left_short_of_the_next_hex_count_next_day(self) -> None:
        """Bog 3 and thorny forest 4 leave 1; the swamp next costs 4: the 1 is spent on it and counts next day."""
        trip = Trip(NORTH, speeds=(120,), options=CARRY)
        trip.run(t.StartJourney(hex="1,3"))
        trip.run(CLEAR)
        ended = self.day(trip, ("N", "N", "N"), t.Move())
        assert (ended.hexes, ended.unused, ended.carried) == (2, 0, 1)
        assert only(trip.run(CLEAR), ev.DayStarted).travel_points == 9

    def test_points_that_would_pay_for_the_next_hex_or_a_route_travelled_carry_nothing(self) -> None:
        """5 left after the bog: the thorny forest (4) was not entered though they paid for it; then a route of one
        hex travelled: nothing left to walk into."""
        trip = Trip(NORTH, speeds=(120,), options=CARRY)
        trip.run(t.StartJourney(hex="1,3"))
        trip.run(CLEAR)
        ended = self.day(trip, ("N", "N"), t.Move(hexes=1))
        assert (ended.hexes, ended.unused, ended.carried) == (1, 5, 0)
        trip.run(CLEAR)
        ended = self.day(trip, ("N",), t.Move())
        assert (ended.hexes, ended.unused, ended.carried) == (1, 4, 0)

    def test_a_lost_party_carries_by_the_hex_it_believes_it_walks_into(self) -> None:
        """Lost NE through meadows it believes are bogs: 2 left, the next bog (3) is unfinished, so the 2 count next
        day (the meadow truly next would cost 2, and take them: a carry by it would tell the players)."""
        bogs = meadows(*((f"2,{row}", {"terrain": "bog"}) for row in range(3)))
        trip = Trip(bogs, speeds=(120,), options=CARRY)
        trip.run(t.StartJourney(hex="2,3"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(headings=("N", "N", "N")), 1, 2)
        trip.run(t.Move())
        assert (trip.state.believed, trip.state.hex, trip.state.tp) == ("2,1", "4,2", 2)
        trip.run(t.CheckWandering(), 1)
        ended = only(trip.run(t.EndDay()), ev.DayEnded)
        assert (ended.unused, ended.carried) == (0, 2)


class TestSearch:
    @pytest.mark.parametrize(
        ("terrain_name", "face", "found"),
        [
            ("hills", 3, True),
            ("hills", 4, False),
            ("bog", 2, True),
            ("bog", 3, False),
            ("swamp", 1, True),
            ("swamp", 2, False),
        ],
    )
    def test_the_range_by_difficulty(self, terrain_name: str, face: int, found: bool) -> None:  # noqa: FBT001 - a column
        """§4.11: light 1-3, moderate 1-2, difficult 1; the search costs the hex's points again."""
        trip = Trip({"1,1": {"terrain": terrain_name, "hidden": ("cairn",)}})
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(), 6, 1)
        events = trip.run(t.SearchHex(), face)
        searched = only(events, ev.Searched)
        assert searched.cost == {"hills": 2, "bog": 3, "swamp": 4}[terrain_name]
        assert bool([e for e in events if isinstance(e, mapev.FeatureLocated)]) is found

    def test_a_guide_widens_the_range(self) -> None:
        trip = Trip({"1,1": {"terrain": "swamp", "hidden": ("cairn",)}})
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(), 6, 1)
        rolled = only(trip.run(t.SearchHex(guide=True), 2), ev.SearchRolled)
        assert (rolled.found_on, rolled.found) == ((1, 2), ("cairn",))

    def test_an_empty_hex_finds_nothing_even_on_a_1(self) -> None:
        trip = Trip({"1,1": {"terrain": "hills"}})
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(), 6, 1)
        assert only(trip.run(t.SearchHex(), 1), ev.SearchRolled).found == ()

    def test_exhaustion_reads_against_the_search_but_a_natural_1_still_finds(self) -> None:
        """Exhausted by 1 in hills (1-3): low is good on the search die, so the penalty raises it, a 3 reads 4 and
        nothing is found; a 1 finds the first feature, in list order."""
        trip = Trip({"1,1": {"terrain": "hills", "hidden": ("cairn", "barrow")}}, speeds=(120,))
        trip.run(t.StartJourney(hex="1,1"))
        for _ in range(6):
            travel_day(trip)
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(), 6, 1)
        missed = trip.run(t.SearchHex(), 3)
        rolled = only(missed, DiceRolled)
        assert (rolled.modifier, rolled.total, rolled.low_is_good) == (1, 4, True)
        assert only(missed, ev.SearchRolled).found == ()
        assert only(trip.run(t.SearchHex(), 1), ev.SearchRolled).found == ("cairn",)
        the_map = trip.h.load(CAMPAIGN).procedures["map"]
        assert the_map.hex("1,1").found == ("cairn",)
        assert [f.feature for f in hidden.kept(trip.h.keeper, CAMPAIGN, the_map)] == ["barrow"]

    def test_the_dvdm_table_rolls_per_feature(self) -> None:
        """dvdm: a feature on 5-6, a lair on 6 only."""
        trip = Trip(
            {"1,1": {"terrain": "hills", "hidden": ("cairn",), "lairs": ("wolf den",)}},
            options={"search_table": "dvdm"},
        )
        trip.run(t.StartJourney(hex="1,1"))
        trip.run(CLEAR)
        trip.run(t.DeclareRoute(), 6, 1)
        assert only(trip.run(t.SearchHex(), 5, 5), ev.SearchRolled).found == ("cairn",)


def travel_day(trip: Trip, *, forced: bool = False) -> list[Any]:
    """One uneventful day in place: weather, route, (forced march), check, end."""
    events = trip.run(CLEAR)
    events += trip.run(t.DeclareRoute(), 6, 1)
    if forced:
        events += trip.run(t.ForceMarch())
    events += trip.run(t.CheckWandering(), 1)
    events += trip.run(t.EndDay())
    return events


def rest_day(trip: Trip) -> list[Any]:
    """One uneventful day of rest: the rest under clear skies, its check at the day's end (nobody), its end."""
    events = trip.run(t.RestDay(weather="clear"))
    events += trip.run(t.CheckWandering(), 1)
    events += trip.run(t.EndDay())
    return events


class TestExhaustion:
    def test_six_days_are_free_then_each_further_day_adds_a_level(self) -> None:
        """§4.16: day 7 without rest is -1 to all rolls, day 8 -2; the lost roll for the party carries it."""
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        for _ in range(6):
            assert not [e for e in travel_day(trip) if isinstance(e, ev.ExhaustionChanged)]
        day7 = travel_day(trip)
        assert [(e.member, e.level) for e in day7 if isinstance(e, ev.ExhaustionChanged)] == [("Ann", 1), ("Bo", 1)]
        lost_roll = next(e for e in day7 if isinstance(e, DiceRolled) and e.purpose == "travel.lost")
        assert lost_roll.modifiers[0].value == -1
        assert "exhaustion" in lost_roll.modifiers[0].source
        assert lost_roll.total == 5
        day8 = travel_day(trip)
        lost_roll = next(e for e in day8 if isinstance(e, DiceRolled) and e.purpose == "travel.lost")
        assert (lost_roll.modifier, lost_roll.total) == (-2, 4)
        wandering = next(e for e in day8 if isinstance(e, DiceRolled) and e.purpose == "travel.wandering")
        assert wandering.modifiers == ()  # the referee's check is made for nobody
        assert trip.state.members["Bo"].exhaustion == 2

    def test_a_penalty_can_make_the_party_lost(self) -> None:
        """Exhausted by 1: a 2 on the lost die reads 1, lost in clear country."""
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        for _ in range(6):
            travel_day(trip)
        trip.run(CLEAR)
        assert only(trip.run(t.DeclareRoute(), 2, 4), ev.LostChecked).lost

    def test_a_rest_day_clears_it_and_starts_the_count_again(self) -> None:
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        for _ in range(7):
            travel_day(trip)
        rested = rest_day(trip)
        assert [(e.member, e.level) for e in rested if isinstance(e, ev.ExhaustionChanged)] == [("Ann", 0), ("Bo", 0)]
        assert only(rested, ev.Rested).day == 8
        assert trip.state.members["Ann"].travel_days == 0
        for _ in range(6):
            assert not [e for e in travel_day(trip) if isinstance(e, ev.ExhaustionChanged)]

    def test_a_forced_march_owes_a_rest_day(self) -> None:
        """Forced on day 1: travelling on day 2 exhausts (-1), day 3 -2; resting on day 2 instead clears it."""
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        travel_day(trip, forced=True)
        assert trip.state.members["Ann"].owed
        day2 = travel_day(trip)
        assert [e.level for e in day2 if isinstance(e, ev.ExhaustionChanged)] == [1, 1]
        day3 = travel_day(trip)
        assert [e.level for e in day3 if isinstance(e, ev.ExhaustionChanged)] == [2, 2]
        other = Trip(meadows())
        other.run(t.StartJourney(hex="2,2"))
        travel_day(other, forced=True)
        rest_day(other)
        assert not [e for e in travel_day(other) if isinstance(e, ev.ExhaustionChanged)]

    def test_every_roll_made_for_an_exhausted_member_carries_it_first(self) -> None:
        """A free roll is made for nobody; the encounter's party surprise roll (made for the party) is modified."""
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        for _ in range(7):
            travel_day(trip)
        table = trip.h.load(CAMPAIGN)
        assert exhaustion.modifiers(table, "Ann", "anything") == (
            RollModifier(source="exhaustion (1 day of travel without the rest owed)", value=-1),
        )
        assert exhaustion.modifiers(table, "PARTY", "encounter.surprise.PARTY")[0].value == -1
        assert exhaustion.modifiers(table, "monsters", "x") == ()
        assert exhaustion.modifiers(table, "", "x") == ()

    def test_the_ruleset_scale_is_read(self) -> None:
        """House rules: -2 a level, and a rest day every 3 travel days: day 4 is already -2."""
        trip = Trip(meadows(), tables={"rest": {"exhaustion_per_day": -2, "rest_every_travel_days": 3}})
        trip.run(t.StartJourney(hex="2,2"))
        for _ in range(3):
            travel_day(trip)
        day4 = travel_day(trip)
        lost_roll = next(e for e in day4 if isinstance(e, DiceRolled) and e.purpose == "travel.lost")
        assert lost_roll.modifier == -2


class TestDayStart:
    def test_every_travel_day_starts_at_the_rules_hour(self) -> None:
        """explore: 08:00. The first day waits from the campaign's start (00:00); after end-day (midnight) the
        next waits again; a day begun after 08:00 starts when it is begun."""
        trip = Trip(meadows())
        trip.run(t.StartJourney(hex="2,2"))
        clock = only(trip.run(CLEAR), ClockAdvanced)
        assert (clock.seconds, clock.reason) == (8 * 3600, "the travel day starts at 08:00")
        assert trip.h.load(CAMPAIGN).clock.seconds == 8 * 3600
        trip.run(t.DeclareRoute(), 6, 1)
        trip.run(t.CheckWandering(), 1)
        trip.run(t.EndDay())
        assert trip.h.load(CAMPAIGN).clock.seconds == 24 * 3600
        only(trip.run(CLEAR), ClockAdvanced)
        assert trip.h.load(CAMPAIGN).clock.seconds == 32 * 3600
        trip.run(t.DeclareRoute(), 6, 1)
        trip.run(t.CheckWandering(), 1)
        trip.run(t.EndDay())
        trip.run(AdvanceClock(duration="10h"))
        assert not [e for e in trip.run(CLEAR) if isinstance(e, ClockAdvanced)]
        assert trip.h.load(CAMPAIGN).clock.seconds == 58 * 3600
