"""A flight during a journey where the grid ends records as many events as any other flight.

Where the grid ends the way the party runs, it keeps to its hex. The players see a placeholder for every event the
referee keeps (its type, its place in the stream), so a flight that recorded no ``travel.true_position`` when the
party kept to its hex would tell them that the party truly stands at the edge of the grid (and, when told which way
it ran, at which edge). Since ``pursuit.heading_rolled`` version 2 (``pursuit.fled`` version 4 for a flight the
players were told of) the flight records the party's true hex all the same, its own.

``tests/golden/held-flight-v1.jsonl`` was written by hexlog at e3e5beb, whose flights recorded no true hex when the
party kept to its hex: a secret flight and a told one from the corner 0,0 of a small map, each held. It audits
VERIFIED, the audit re-running those flights as that release made them (``FleeHeldUnrecorded``), and exports byte
for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hexlog.events import pursuit as pu_ev
from hexlog.events import travel as travel_ev
from hexlog.events.codec import decode
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine.hexmap import SetHex
from hexlog.machine.pursuit import commands as p
from hexlog.machine.registry import REGISTRY
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render

from .scripted_play import ScriptedPlay
from .test_lost_party_view import LOST, only
from .test_pursuit_heading import visible

CAMPAIGN = "edge"
HELD_V1_LOG = Path(__file__).resolve().parent / "golden" / "held-flight-v1.jsonl"
#: the flight's d6: N, and the lost check's true heading: N or S
NORTH, SOUTH = 1, 4


class Corner(ScriptedPlay):
    """A lost party on a map of meadows 0..3 x 0..3: it believes it went N from 1,2 into 1,1; it truly went ``truly``
    (N into 1,1 too, or S into 1,3). Then a pursuit; the dice a script the test fills as it goes."""

    def __init__(self, truly: int) -> None:
        super().__init__(CAMPAIGN)
        self.run(c.StartCampaign(ruleset="explore"))
        self.run(c.OpenSession(secret_hex="4c" * 32))
        for name in ("Ann", "Bo"):
            self.run(c.AddMember(name=name, speed=60))
        for col in range(4):
            for row in range(4):
                self.run(SetHex(hex=f"{col},{row}", terrain="meadow"))
        self.run(t.StartJourney(hex="1,2"))
        self.run(t.RollWeather(weather="fog"))
        self.run(t.DeclareRoute(headings=("N",)), LOST, truly)
        self.run(t.Move())
        self.run(p.StartPursuit(pursuers_speed=30, evasion_failed=True))

    def flee(self, *, told: bool) -> list[Any]:
        """The party flees N (the d6's face), as twice before; it rests."""
        for _ in range(2):
            self.run(p.Flee(told=told), NORTH)
            self.run(p.Rest(), 1)
            self.run(p.StartPursuit(pursuers_speed=30, evasion_failed=True))
        return self.run(p.Flee(told=told), NORTH)

    def seen(self) -> tuple[list[str], list[str], dict[str, Any]]:
        """What a player reads: the types of the events shown or held back, the state and its document."""
        events = [decode(r.envelope) for r in self.h.store.read_stream(f"campaign-{CAMPAIGN}")]
        shown = {id(e) for e in visible(events)}
        kinds = [e.type_name if id(e) in shown else f"{e.type_name} (hidden)" for e in events]
        table = self.h.load(CAMPAIGN)
        lines = render.state_lines(CAMPAIGN, table, player=True)
        return kinds, lines, render.state_document(CAMPAIGN, table, player=True)


class TestThePlayersSeeTheSame:
    """Truly at 1,1 (as it believes) the party's third flight N keeps it to 1,0, the grid's edge; truly at 1,3 it
    runs on into 1,0: the players see the same either way."""

    def test_a_secret_flight_that_keeps_to_its_hex_records_its_true_hex(self) -> None:
        at_the_edge = Corner(NORTH)
        events = at_the_edge.flee(told=False)
        assert only(events, pu_ev.HeadingRolled).held
        assert (only(events, travel_ev.TruePosition).hex, at_the_edge.h.load(CAMPAIGN).procedures["travel"].hex) == (
            "1,0",
            "1,0",
        )
        inland = Corner(SOUTH)
        assert not only(inland.flee(told=False), pu_ev.HeadingRolled).held
        assert at_the_edge.seen() == inland.seen()

    def test_a_told_flight_that_keeps_to_its_hex_records_its_true_hex(self) -> None:
        at_the_edge = Corner(NORTH)
        events = at_the_edge.flee(told=True)
        assert only(events, travel_ev.TruePosition).hex == "1,0"
        inland = Corner(SOUTH)
        assert only(inland.flee(told=True), travel_ev.TruePosition).hex == "1,0"
        assert at_the_edge.seen() == inland.seen()

    def test_it_audits_clean(self) -> None:
        for told in (False, True):
            trip = Corner(NORTH)
            trip.flee(told=told)
            report = audit_envelopes(read_export(list(export_lines(trip.h.store, CAMPAIGN))))
            assert report.findings == (), report.text()


class TestALogOfTheReleaseBefore:
    def lines(self) -> list[bytes]:
        return HELD_V1_LOG.read_bytes().split(b"\n")

    def test_its_held_flights_recorded_no_true_hex(self) -> None:
        events = [decode(e) for e in read_export(self.lines())]
        flights = [i for i, e in enumerate(events) if isinstance(e, pu_ev.PursuitFled)]
        assert len(flights) == 2
        assert only(events, pu_ev.HeadingRolled).held
        assert events[flights[1]].believed == "0,0"
        assert not [e for e in events if isinstance(e, travel_ev.TruePosition)]

    def test_it_audits_verified_with_its_flights_re_run_as_its_release_made_them(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict.name == "VERIFIED", report.text()

    def test_it_replays_and_exports_byte_for_byte(self) -> None:
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(self.lines())).campaign
        assert replay(store, campaign, REGISTRY).ok
        assert "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == HELD_V1_LOG.read_bytes()
