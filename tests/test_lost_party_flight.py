"""After a flight during a journey the party does not know where it is: the players are told it fled, not which way.

Seed 004's wilderness pursuit moves the fleeing party "into a random hex (1d6)"; during a journey that d6 is the
referee's secret (``pursuit.heading_rolled``), and the public ``pursuit.fled`` names no heading. The flight moves
the party's true hex; the hex it believes it is in cannot follow a heading it was not told, so it stays where the
party last believed it was, and the journey counts the hexes fled since the party last knew where it was
(``TravelState.fled``, from the public flights alone). The players' view says so: the hex it believes it is in,
and that it fled so many hexes not knowing which way, so it may be that far off. It names no heading and no true
hex, and reads the same whether the party was lost before it fled or not, or wherever it truly ran. The referee
may tell the party where it is (``travel reveal-lost``), even when its flight led it back into the hex it believes
it is in; the count then starts again.

Told which way it ran (``pursuit flee --told``: the d6 is public, ``pursuit.fled`` version 3 names the hex the
party believes it fled into), the party's belief moves that way from the hex it believed it was in, as a believed
route does: where the map ends that way from it, the belief keeps to its hex; the true hex moves as in secret, and
the players see the heading and their belief, never the true hex.

A flight recorded before ``pursuit.fled`` version 2 named its heading in public, during a journey too; its release
left the party's belief where it was and counted nothing, and so does the fold of such a log
(``tests/golden/pursuit-v1.jsonl``), which audits as its release recorded it.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from hexlog.events import pursuit as pu_ev
from hexlog.events import travel as travel_ev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled, Visibility
from hexlog.events.errors import RuleRefusedError
from hexlog.events.hexmap import HexSet
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

from .scripted_play import ScriptedPlay
from .test_lost_party_pursuit import CAMPAIGN, SOUTH, Journey, a_lost_pursuit
from .test_lost_party_view import LOST, NORTH_EAST, only
from .test_pursuit_heading import V1_LOG, visible

#: the flight's d6: N
NORTH = 1
FLED_ONE = "  it fled 1 hex since it last knew where it was, not knowing which way it ran: it may be that far off"
FLED_TWO = "  it fled 2 hexes since it last knew where it was, not knowing which way it ran: it may be that far off"


def travel_lines(trip: Journey, *, player: bool) -> list[str]:
    """The travel section of the state view."""
    lines = render.state_lines(CAMPAIGN, trip.h.load(CAMPAIGN), player=player)
    start = lines.index(next(line for line in lines if line.startswith("travel: ")))
    end = next((i for i, line in enumerate(lines) if i > start and not line.startswith("  ")), len(lines))
    return lines[start:end]


def there_and_back(trip: Journey) -> Journey:
    """A pursuit started by hand: the party flees N, is not caught, fails its evasion, flees S, is not caught, evades,
    and rests."""
    trip.run(p.StartPursuit(pursuers_speed=240, evasion_failed=True))
    trip.run(p.Flee(), NORTH)
    trip.run(p.Catch(), 4)
    trip.run(p.RollEvasion(), 99)
    trip.run(p.Flee(), SOUTH)
    trip.run(p.Catch(), 4)
    trip.run(p.RollEvasion(), 1)
    trip.run(p.Rest(), 1, 1)
    return trip


class TestTheBelief:
    def test_a_lost_party_s_flight_leaves_its_belief_and_counts_the_hexes(self) -> None:
        """Lost (believed in the bog at 2,2, truly at 3,2), it flees S twice: truly at 3,4, it believes 2,2."""
        trip = a_lost_pursuit("meadow")
        assert (trip.travel.hex, trip.travel.believed, trip.travel.fled) == ("3,4", "2,2", 2)

    def test_a_party_that_knew_where_it_was_no_longer_does(self) -> None:
        """Told where it is (3,2), it flees N: truly at 3,1, it knows only that it fled a hex from 3,2."""
        trip = Journey("meadow")
        trip.run(t.RevealLost(reason="the referee says so"))
        trip.run(p.StartPursuit(pursuers_speed=240, evasion_failed=True))
        trip.run(p.Flee(), NORTH)
        assert (trip.travel.hex, trip.travel.believed, trip.travel.fled) == ("3,1", "3,2", 1)
        assert travel_lines(trip, player=True)[1:3] == ["  the party is in 3,2 (as it believes)", FLED_ONE]
        assert travel_lines(trip, player=False)[1:3] == [
            "  truly in 3,1; the party believes it is in 3,2 (LOST)",
            FLED_ONE,
        ]


class TestWhatThePlayersSee:
    def test_the_believed_hex_and_the_hexes_fled_but_no_true_hex(self) -> None:
        trip = a_lost_pursuit("meadow")
        lines = travel_lines(trip, player=True)
        assert lines[1:3] == ["  the party is in 2,2 (as it believes)", FLED_TWO]
        assert not [line for line in lines if "3,2" in line or "3,3" in line or "3,4" in line]

    @pytest.mark.parametrize("truly", ["meadow", "tangled_forest", "hills"])
    def test_the_same_whatever_the_party_truly_fled_through(self, truly: str) -> None:
        lines = travel_lines(a_lost_pursuit(truly), player=True)
        assert FLED_TWO in lines
        assert lines == travel_lines(a_lost_pursuit("bog"), player=True)


class TestLearningWhereItIs:
    def test_the_referee_may_tell_a_party_whose_flight_led_it_back(self) -> None:
        """Told where it is, it cannot be told again; it flees N and back S into 3,2, where it believes it is: it
        still does not know that, until it is told."""
        trip = Journey("meadow")
        trip.run(t.RevealLost(reason="the referee says so"))
        with pytest.raises(RuleRefusedError, match="not lost"):
            trip.run(t.RevealLost(reason="again"))
        there_and_back(trip)
        assert (trip.travel.hex, trip.travel.believed, trip.travel.fled) == ("3,2", "3,2", 2)
        assert travel_lines(trip, player=True)[1:3] == ["  the party is in 3,2 (as it believes)", FLED_TWO]
        revealed = [e for e in trip.run(t.RevealLost(reason="a landmark")) if isinstance(e, travel_ev.LostRevealed)]
        assert [e.hex for e in revealed] == ["3,2"]
        assert trip.travel.fled == 0
        assert FLED_TWO not in travel_lines(trip, player=True)

    def test_it_audits_clean(self) -> None:
        trip = Journey("meadow")
        trip.run(t.RevealLost(reason="the referee says so"))
        there_and_back(trip)
        trip.run(t.RevealLost(reason="a landmark"))
        report = audit_envelopes(read_export(list(export_lines(trip.h.store, CAMPAIGN))))
        assert report.findings == (), report.text()


class TestAVersion1Log:
    def test_its_public_flights_leave_the_belief_and_count_nothing(self) -> None:
        """Its journey's flights (SE then S, named in public) moved the true hex from 0,0 to 1,1; its release kept
        the belief at 0,0."""
        store = MemoryStore()
        lines = V1_LOG.read_text(encoding="utf-8").splitlines()
        import_envelopes(store, read_export(lines))
        assert replay(store, "pursuit", REGISTRY).ok
        trip = Handler(store, MemoryKeeper()).load("pursuit").procedures["travel"]
        assert (trip.hex, trip.believed, trip.fled) == ("1,1", "0,0", 0)


class HoledJourney(Journey):
    """``Journey``'s lost party (believed in the bog at 2,2, truly at 3,2) on a map of meadows with no hex at 2,1,
    north of the hex it believes it is in."""

    def __init__(self) -> None:
        ScriptedPlay.__init__(self, CAMPAIGN)
        self.run(c.StartCampaign(ruleset="explore"))
        self.run(c.OpenSession(secret_hex="4c" * 32))
        for name in ("Ann", "Bo"):
            self.run(c.AddMember(name=name, speed=60))
        for col in range(6):
            for row in range(6):
                if (col, row) != (2, 1):
                    self.run(SetHex(hex=f"{col},{row}", terrain="bog" if (col, row) == (2, 2) else "meadow"))
        self.run(t.StartJourney(hex="2,3"))
        self.run(t.RollWeather(weather="fog"))
        self.run(t.DeclareRoute(headings=("N",)), LOST, NORTH_EAST)
        self.run(t.Move())
        assert (self.travel.hex, self.travel.believed) == ("3,2", "2,2")


def told_flight(trip: Journey, face: int) -> list[Any]:
    trip.run(p.StartPursuit(pursuers_speed=240, evasion_failed=True))
    return trip.run(p.Flee(told=True), face)


class TestToldWhichWayItRan:
    """``pursuit flee --told``: the players are told the heading; the party's belief moves that way from the hex it
    believed it was in (``pursuit.fled`` version 3 names it), as a believed route does."""

    def test_a_lost_party_believes_it_ran_that_way(self) -> None:
        """Believed at 2,2, truly at 3,2, it flees S: it believes it is at 2,3, truly at 3,3, still lost."""
        trip = Journey("meadow")
        events = told_flight(trip, SOUTH)
        rolled = only(events, DiceRolled)
        assert (rolled.purpose, rolled.visibility) == ("pursuit.flight", Visibility.PUBLIC)
        assert not [e for e in events if isinstance(e, pu_ev.HeadingRolled)]
        flight = only(events, pu_ev.PursuitFled)
        assert (flight.heading, flight.face, flight.believed, flight.held) == ("S", SOUTH, "2,3", False)
        assert flight.rolls == (rolled.nonce,)
        truly = only(events, travel_ev.TruePosition)
        assert (truly.hex, truly.lost) == ("3,3", True)
        assert (trip.travel.hex, trip.travel.believed, trip.travel.fled) == ("3,3", "2,3", 0)
        lines = travel_lines(trip, player=True)
        assert lines[1] == "  the party is in 2,3 (as it believes)"
        assert not [line for line in lines if "fled" in line]

    def test_a_party_that_knew_where_it_was_still_does(self) -> None:
        trip = Journey("meadow")
        trip.run(t.RevealLost(reason="the referee says so"))
        events = told_flight(trip, NORTH)
        assert only(events, pu_ev.PursuitFled).believed == "3,1"
        assert (only(events, travel_ev.TruePosition).hex, only(events, travel_ev.TruePosition).lost) == ("3,1", False)
        assert travel_lines(trip, player=False)[1] == "  the party is in 3,1"

    def test_where_the_map_ends_its_belief_keeps_to_its_hex(self) -> None:
        """No hex N of 2,2: the belief keeps to 2,2 (a believed route stops where the map ends); truly it runs into
        3,1."""
        trip = HoledJourney()
        events = told_flight(trip, NORTH)
        flight = only(events, pu_ev.PursuitFled)
        assert (flight.heading, flight.believed, flight.held) == ("N", "2,2", True)
        assert only(events, travel_ev.TruePosition).hex == "3,1"
        assert (trip.travel.hex, trip.travel.believed) == ("3,1", "2,2")
        assert render.describe(flight) == (
            f"the party flees N (d6={NORTH}), where the map ends: it believes it keeps to 2,2: 1 fled so far; faster "
            f"pursuers follow [rolls #{flight.rolls[0]}]"
        )

    def test_the_players_see_the_heading_and_their_belief_never_the_true_hex(self) -> None:
        trip = Journey("meadow")
        told_flight(trip, SOUTH)
        seen = visible([decode(r.envelope) for r in trip.records()])
        assert not [e for e in seen if isinstance(e, travel_ev.TruePosition | pu_ev.HeadingRolled)]
        assert [e.believed for e in seen if isinstance(e, pu_ev.PursuitFled)] == ["2,3"]
        placed = [e for e in seen if not isinstance(e, HexSet)]
        assert not [e for e in placed if {getattr(e, "hex", ""), getattr(e, "believed", "")} & {"3,2", "3,3"}]

    def test_without_a_journey_it_moves_nothing(self) -> None:
        trip = Journey("meadow")
        trip.run(t.CheckWandering(), 1)
        trip.run(t.EndDay())
        trip.run(t.EndJourney())
        assert (trip.travel.hex, trip.travel.believed) == ("3,2", "3,2")  # its end told the party where it is
        trip.run(p.StartPursuit(pursuers_speed=240, evasion_failed=True))
        version = trip.h.load(CAMPAIGN).version
        with pytest.raises(RuleRefusedError, match=r"no journey is under way: .*\(--told\); leave it out"):
            trip.run(p.Flee(told=True), SOUTH)
        assert trip.h.load(CAMPAIGN).version == version  # nothing recorded
        flight = only(trip.run(p.Flee(), SOUTH), pu_ev.PursuitFled)
        assert (flight.heading, flight.believed) == ("S", "")
        assert (trip.travel.hex, trip.travel.believed) == ("3,2", "3,2")

    def test_told_flights_audit_clean_and_a_forged_belief_is_caught(self) -> None:
        trip = Journey("meadow")
        told_flight(trip, SOUTH)
        trip.run(p.Catch(), 4)
        trip.run(p.RollEvasion(), 99)
        trip.run(p.Flee(told=True), SOUTH)
        trip.run(p.Catch(), 4)
        trip.run(p.RollEvasion(), 1)
        trip.run(p.Rest(), 1, 1)
        assert (trip.travel.hex, trip.travel.believed) == ("3,4", "2,4")
        report = audit_envelopes(read_export(list(export_lines(trip.h.store, CAMPAIGN))))
        assert report.findings == (), report.text()
        events = [decode(r.envelope) for r in trip.records()]
        at = next(i for i, e in enumerate(events) if isinstance(e, pu_ev.PursuitFled))
        events[at] = attrs.evolve(events[at], believed="2,2")
        issues = check_decision_events(events).issues
        assert at in [i.at for i in issues]
        assert any("believed" in i.reason for i in issues)


class TestTheJourneysEnd:
    """The journey ends in the party's true hex, named in public (``travel.ended``): a lost party that fled not knowing
    which way then knows where it is, and the count of hexes fled goes with its belief."""

    def ended(self) -> Journey:
        trip = a_lost_pursuit("meadow")
        trip.run(t.EndDay())
        ended = only(trip.run(t.EndJourney()), travel_ev.JourneyEnded)
        assert ended.hex == "3,4"
        return trip

    def test_the_party_knows_where_it_is_and_the_count_is_gone(self) -> None:
        trip = self.ended()
        assert (trip.travel.hex, trip.travel.believed, trip.travel.lost, trip.travel.fled) == ("3,4", "3,4", False, 0)
        assert travel_lines(trip, player=True)[1:3] == [
            "  the party is in 3,4 (as it believes)",
            "  day 1, summer; weather fog (poor_visibility)",
        ]
        assert travel_lines(trip, player=False)[1] == "  the party is in 3,4"
        assert FLED_TWO not in travel_lines(trip, player=False)

    def test_the_players_learn_no_more_than_the_public_end_of_the_journey_names(self) -> None:
        trip = self.ended()
        shown = render.timeline(list(trip.records()), player=True)
        (start,) = [line for line in shown if line.kind == "travel.started"]
        (end,) = [line for line in shown if line.kind == "travel.ended"]
        assert not end.hidden
        assert end.text == "the journey ends in 3,4 after 1 day"
        on_the_way = [line.text for line in shown if start.version < line.version < end.version and not line.hidden]
        assert not [text for text in on_the_way if any(h in text for h in ("3,2", "3,3", "3,4"))]

    def test_reveal_lost_has_nothing_left_to_tell(self) -> None:
        trip = self.ended()
        with pytest.raises(RuleRefusedError, match="ENDED"):
            trip.run(t.RevealLost(reason="the referee says so"))

    def test_a_replay_folds_the_same(self) -> None:
        trip = self.ended()
        assert replay(trip.h.store, CAMPAIGN, REGISTRY).ok
        envelopes = read_export(list(export_lines(trip.h.store, CAMPAIGN)))
        store = MemoryStore()
        campaign = import_envelopes(store, envelopes).campaign
        again = Handler(store, MemoryKeeper()).load(campaign).procedures["travel"]
        assert (again.believed, again.fled) == ("3,4", 0)
