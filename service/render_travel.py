"""Readable text for the hex map's and the travel day's events and state, for the referee or a player.

A player's view shows where the party believes it is, never its true hex while that differs, and
no hidden feature of the map before a search finds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hexlog.events import hexmap as mapev
from hexlog.events import travel as ev
from hexlog.machine.hexmap.state import PROCEDURE as MAP
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.text import counted
from hexlog.machine.travel import terrain
from hexlog.machine.travel.state import Phase, TravelState
from hexlog.service.render_campaign import rolls_named

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from hexlog.events.base import Event
    from hexlog.machine.hexmap.hidden import Hidden
    from hexlog.machine.hexmap.state import Hex
    from hexlog.machine.table import Table


def _faces(faces: tuple[int, ...]) -> str:
    return ",".join(map(str, faces)) if faces else "never"


def _hex_set(e: mapev.HexSet) -> str:
    way = ", road" if e.road else ", track" if e.track else ""
    marks = f"; landmarks: {', '.join(e.landmarks)}" if e.landmarks else ""
    return f"hex {e.hex}: {e.terrain}{way}{marks}"


def _started(e: ev.JourneyStarted) -> str:
    how = "".join(
        f", {w}" for w, on in (("afloat", e.afloat), ("mounted", e.mounted), ("with vehicles", e.vehicles)) if on
    )
    return (
        f"the journey begins at {e.hex} ({e.season}{how}): {', '.join(e.party)}; "
        f"speed {e.speed}, {e.travel_points} travel points a day"
    )


def _day(e: ev.DayStarted) -> str:
    rolled = f"2d6={e.total}" if e.rolls else "set by the referee"
    flags = f" ({', '.join(e.flags)})" if e.flags else ""
    if e.rest:
        return f"day {e.day}, a day of rest: weather {e.weather}{flags} [{rolled}]{rolls_named(e.rolls)}"
    return f"day {e.day}: weather {e.weather}{flags} [{rolled}]; {e.travel_points} travel points{rolls_named(e.rolls)}"


def _lost(e: ev.LostChecked) -> str:
    route = f" ({' '.join(e.true_route)})" if e.true_route else " (it stays in its hex today)"
    verdict = f"LOST: the party truly heads {e.heading}{route}" if e.lost else "not lost"
    return f"lost check ({e.row}, lost on {_faces(e.lost_on)}): {verdict}{rolls_named(referee=e.referee_rolls)}"


def _moved(e: ev.Moved) -> str:
    led = "; mounts led on foot" if e.led else ""
    return f"the party moves {e.heading} into {e.believed} ({e.cost} TP, {e.travel_points} left){led}"


def _search(e: ev.SearchRolled) -> str:
    found = f"found {', '.join(e.found)}" if e.found else "nothing found"
    return f"search of {e.hex} (finds on {_faces(e.found_on)}): {found}{rolls_named(referee=e.referee_rolls)}"


def _wandering(e: ev.WanderingChecked) -> str:
    meet = f"ENCOUNTER ({e.setting})" if e.encounter else "no encounter"
    if e.second:
        meet += f", then ENCOUNTER ({e.second}) once it concludes"
    halve = f"; poor visibility: distance / {e.distance_divisor}" if e.distance_divisor > 1 else ""
    return f"wandering check ({e.row}, encounter on {_faces(e.encounter_on)}): {meet}{halve}{rolls_named(e.rolls)}"


def _ended(e: ev.DayEnded) -> str:
    carried = f", {e.carried} carried into tomorrow" if e.carried else ""
    night = "; the night's wandering check follows in camp" if e.night_check else ""
    return f"day {e.day} ends: {counted(e.hexes, 'hex')}, {counted(e.unused, 'travel point')} unused{carried}{night}"


TEXTS: dict[type[Event], Callable[[Any], str]] = {
    mapev.MapLoaded: lambda e: f"map loaded from {e.source}: {counted(e.hexes, 'hex')}",
    mapev.HexSet: _hex_set,
    mapev.HiddenFeaturePlaced: lambda e: f"a hidden feature placed (commitment {e.commitment[:16]})",
    mapev.FeatureFound: lambda e: f"found in {e.hex}: {e.feature}{' (a lair)' if e.lair else ''}",
    mapev.FeatureFoundLost: lambda e: (
        f"found by the lost party in {e.hex} (referee only: the party does not know where it is): "
        f"{e.feature}{' (a lair)' if e.lair else ''}"
    ),
    mapev.FeatureTold: lambda e: f"the party found {e.feature}{' (a lair)' if e.lair else ''}",
    mapev.FeatureLocated: lambda e: (
        f"found in {e.hex}{' by the lost party' if e.lost else ''}: {e.feature}{' (a lair)' if e.lair else ''} "
        "(where: the referee's until the session ends)"
    ),
    mapev.FeatureRevealed: lambda e: (
        f"revealed by the referee, never found: {e.feature}{' (a lair)' if e.lair else ''} in {e.hex}"
    ),
    ev.JourneyStarted: _started,
    ev.DayStarted: _day,
    ev.ExhaustionChanged: lambda e: f"{e.member}: exhaustion {e.level} ({e.reason})",
    ev.RouteDeclared: lambda e: f"route declared: {' '.join(e.headings) or '(stay)'}{' by night' if e.night else ''}",
    ev.LostChecked: _lost,
    ev.ForcedMarch: lambda e: f"forced march: +{e.added} travel points ({e.travel_points} left); a rest day is owed",
    ev.Moved: _moved,
    ev.TruePosition: lambda e: f"truly in {e.hex} ({e.terrain}){' - lost' if e.lost else ''}",
    ev.LostRevealed: lambda e: f"the party knows it is lost: {e.reason}; it is in {e.hex}",
    ev.Searched: lambda e: (
        f"the party searches ({e.cost} TP, {e.travel_points} left){' with a guide' if e.guide else ''}"
    ),
    ev.SearchRolled: _search,
    ev.WanderingChecked: _wandering,
    ev.DayEnded: _ended,
    ev.Rested: lambda e: f"day {e.day}: a full day of rest ({', '.join(e.members)})",
    ev.JourneyEnded: lambda e: f"the journey ends in {e.hex} after {counted(e.days, 'day')}",
}


def hex_lines(name: str, place: Hex, hidden: Sequence[Hidden] = (), *, player: bool) -> list[str]:
    """One hex as lines; a player sees only the features opened, the referee also ``hidden`` (from the keeper)."""
    way = ", road" if place.road else ", track" if place.track else ""
    lines = [f"{name}: {place.terrain}{way}"]
    if place.landmarks:
        lines.append(f"  landmarks: {', '.join(place.landmarks)}")
    found = place.known_found if player else place.found
    if found:
        lines.append(f"  found: {', '.join(found)}")
    revealed = [f.text for f in place.features if not f.found]
    if revealed:
        lines.append(f"  revealed, never found: {', '.join(revealed)}")
    if not player and hidden:
        lines.append(f"  hidden (referee only): {', '.join(f.feature + (' (lair)' if f.lair else '') for f in hidden)}")
    return lines


def map_lines(state: Any, table: Table, *, player: bool) -> list[str]:  # noqa: ARG001 - the state-lines signature
    """The map in a state view: how many hexes, and how many features are still hidden (referee only)."""
    if not isinstance(state, MapState):
        return []
    lines = [f"  {counted(len(state.hexes), 'hex')}"]
    hidden = len(state.unopened)
    if hidden and not player:
        lines.append(f"  {hidden} hidden features not found yet (hexlog map show HEX)")
    return lines


def travel_lines(state: Any, table: Table, *, player: bool) -> list[str]:
    """The journey in a state view; a player sees the believed hex only."""
    if not isinstance(state, TravelState):
        return []
    lines = []
    if player or state.hex == state.believed:
        lines.append(
            f"  the party is in {state.believed} (as it believes)" if player else f"  the party is in {state.hex}"
        )
    else:
        lines.append(f"  truly in {state.hex}; the party believes it is in {state.believed} (LOST)")
    if state.fled:
        lines.append(
            f"  it fled {counted(state.fled, 'hex')} since it last knew where it was, not knowing which way it ran:"
            " it may be that far off"
        )
    lines.extend(f"  {line}" for line in _unrated(table, state.believed))
    flags = f" ({', '.join(state.flags)})" if state.flags else ""
    lines.append(f"  day {state.day}, {state.season}; weather {state.weather or '-'}{flags}")
    forced = ", forced march" if state.forced else ""
    if state.rest and state.phase in {Phase.RESTING, Phase.DUSK}:
        lines.append(f"  a day of rest: no travel today{_rest_words(state)}")
    else:
        lines.append(f"  travel points left today {state.tp} (a day gives {state.base_tp}){forced}")
    if state.route:
        lines.append(f"  route left: {' '.join(state.route)}")
    for m in table.party.members:
        member = state.members.get(m.name)
        if member is None:
            continue
        owed = ", a rest day owed" if member.owed else ""
        tired = f", exhaustion {member.exhaustion}" if member.exhaustion else ""
        lines.append(f"  {m.name}: {counted(member.travel_days, 'travel day')} since rest{owed}{tired}")
    lines.extend(_rest_after(state))
    return lines


def _rest_words(state: TravelState) -> str:
    """What becomes of the rest of a rest day under way: recorded at its end, or none (A28)."""
    if not state.rest_due:
        return ""
    if state.exerted:
        return "; no rest: a delve, a pursuit or a chase went on in it (A28)"
    return "; its rest is recorded at the day's end"


def _rest_after(state: TravelState) -> list[str]:
    """How far a journey that has ended is on its way to the full day on the clock that rests the party."""
    if state.phase is not Phase.ENDED or state.ended_at < 0 or not state.exertion_breaks_rest or not state.owes_rest:
        return []
    if state.exerting:
        words = {"dungeon": "a delve", "pursuit": "a pursuit", "chase": "a chase"}
        under_way = " and ".join(words.get(name, name) for name in sorted(state.exerting))
        return [f"  no rest while {under_way} is under way: a full day after it ends rests the party"]
    hours = state.quiet // 3600
    return [f"  {counted(hours, 'hour')} without travel, a delve, a pursuit or a chase: a full day rests the party"]


def _unrated(table: Table, name: str, told: str = "") -> list[str]:
    """A hex (as the party believes it) whose terrain the Dolmenwood table does not rate: how the rules read it."""
    the_map = table.procedures.get(MAP)
    place = the_map.hex(name) if isinstance(the_map, MapState) else None
    why = terrain.unrated(table.rules, place) if place is not None and table.rules is not None else ""
    return [f"{told or name}: {why}"] if why else []


def after(state: Any, table: Table, events: tuple[Event, ...]) -> list[str]:
    """A move into, or a search of, a hex whose terrain the Dolmenwood table does not rate (§4.8 gives it no cost):
    the difficulty its cost was read at, and the option that chose it."""
    lines: list[str] = []
    for event in events:
        if isinstance(event, ev.Moved):
            lines += _unrated(table, event.believed, f"the move into {event.believed} cost {event.cost} TP")
        elif isinstance(event, ev.Searched) and isinstance(state, TravelState):
            lines += _unrated(table, state.believed, f"the search of {state.believed} cost {event.cost} TP")
    return lines


#: the state lines of each procedure that has its own, by name
STATES: dict[str, Callable[..., list[str]]] = {"map": map_lines, "travel": travel_lines}

#: what the referee reads after a travel command: the reading of an unrated terrain it paid for
AFTER: dict[str, Callable[[Any, Table, tuple[Event, ...]], list[str]]] = {"travel": after}
