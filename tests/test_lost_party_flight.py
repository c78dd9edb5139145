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

A flight recorded before ``pursuit.fled`` version 2 named its heading in public, during a journey too; its release
left the party's belief where it was and counted nothing, and so does the fold of such a log
(``tests/golden/pursuit-v1.jsonl``), which audits as its release recorded it.
"""

from __future__ import annotations

import pytest

from hexlog.events import travel as travel_ev
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

from .test_lost_party_pursuit import CAMPAIGN, SOUTH, Journey, a_lost_pursuit
from .test_pursuit_heading import V1_LOG

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
