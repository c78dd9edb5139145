"""The audit's check of the map's hidden features: every opening against an earlier commitment.

The log commits to each hidden feature (``map.hidden_placed``) and opens a commitment when a search
finds the feature or the referee reveals it. Each opening must match a commitment placed before it and
not opened yet; one that does not is a finding naming it. A commitment that is not a SHA-256 in hex commits to
nothing (an empty one would match an opening whose salt is not hex, whatever it opens): a finding. The features the
log opens anywhere are what the audit's re-run of a search knows (a keeper holding them). A commitment never opened
leaves unchecked each search made while it was placed and still hidden that it may have changed (``still_hidden``
gives a search what was hidden then; its procedure's ``Inverse.unsure`` judges), which the verdict names as a caveat.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import attrs

from hexlog.events import hexmap as ev
from hexlog.events.travel import SearchRolled
from hexlog.machine.hexmap import hidden
from hexlog.machine.hexmap.state import MapState
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.text import counted
from hexlog.replay.dice_audit import Issue

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event

CHECK = "hidden feature"
#: the campaign the audit's keeper keeps the opened features under (the re-run's context names none)
CAMPAIGN = ""
#: what a commitment is: a SHA-256 in lowercase hex
SHA256 = re.compile(r"[0-9a-f]{64}")


@attrs.frozen
class HiddenCheck:
    """What the openings of one stream found: the findings, a keeper of the opened features, what stays hidden."""

    issues: tuple[Issue, ...]
    keeper: MemoryKeeper
    never_revealed: int
    #: the commitments never opened
    never_opened: frozenset[str] = frozenset()


def check_hidden(events: Sequence[Event | None]) -> HiddenCheck:
    """Check each opening of one stream's decoded events against the commitments before it."""
    keeper = MemoryKeeper()
    issues: list[Issue] = []
    unopened: list[str] = []
    for at, event in enumerate(events):
        if isinstance(event, ev.HiddenFeaturePlaced):
            if SHA256.fullmatch(event.commitment) is None:
                named = f"the commitment {event.commitment!r}"
                reason = f"{event.type_name}: {named} is not a SHA-256 in hex: it commits to nothing"
                issues.append(Issue(at, CHECK, reason))
                continue
            unopened.append(event.commitment)
        elif isinstance(event, ev.OPENINGS):
            what = "found" if isinstance(event, ev.FINDS) else "revealed"
            key = event.commitment
            if key not in unopened:
                reason = (
                    f"{event.type_name}: the feature {what} in {event.hex} ({event.feature!r}) matches no earlier "
                    "commitment of a hidden feature still hidden"
                )
                issues.append(Issue(at, CHECK, reason))
                continue
            unopened.remove(key)
            opened = hidden.Hidden(hex=event.hex, feature=event.feature, lair=event.lair, salt=event.salt)
            hidden.keep(keeper, CAMPAIGN, opened)
    return HiddenCheck(tuple(issues), keeper, len(unopened), frozenset(unopened))


@attrs.define
class FindOrder:
    """The order a search's finds are recorded in, checked event by event (the decision walk feeds every event, of
    a whole log or of one read as it comes): a search that records finds is followed by their openings, in order;
    since ``travel.search_rolled`` version 3 each is told to the players and located right after, the same feature
    (before, found in public or held back). None of it needs the hidden key to see."""

    told: tuple[int, ev.FeatureTold] | None = None
    search: tuple[int, SearchRolled, list[str]] | None = None

    def note(self, at: int, event: Event) -> list[Issue]:
        """The findings ``event`` (at ``at``) settles."""
        issues = []
        told, self.told = self.told, None
        if told is not None and not _same(told[1], event):
            issues.append(_unlocated(*told))
        elif told is None and isinstance(event, ev.FeatureLocated):
            reason = f"{event.type_name}: {event.feature!r} is located, but not told to the players just before it"
            issues.append(Issue(at, CHECK, reason))
        if isinstance(event, ev.FeatureTold):
            self.told = (at, event)
        if self.search is not None and not isinstance(event, ev.FeatureTold):
            if isinstance(event, ev.FINDS):
                self.search[2].append(event.feature)
            else:
                issues.extend(self.end_search())
        if isinstance(event, SearchRolled) and event.found:
            self.search = (at, event, [])
        return issues

    def end(self) -> list[Issue]:
        """The findings the end of the stream settles."""
        told, self.told = self.told, None
        issues = self.end_search()
        if told is not None:
            issues.append(_unlocated(*told))
        return issues

    def end_search(self) -> list[Issue]:
        search, self.search = self.search, None
        if search is None or search[2] == list(search[1].found):
            return []
        at, rolled, opened = search
        found = ", ".join(repr(f) for f in rolled.found)
        reason = f"{rolled.type_name}: it found {found}, but the events after it open {opened or 'none'}"
        return [Issue(at, CHECK, reason)]


def _unlocated(at: int, told: ev.FeatureTold) -> Issue:
    return Issue(at, CHECK, f"{told.type_name}: {told.feature!r} is told, but not located after it")


def _same(told: Event | None, located: Event | None) -> bool:
    return (
        isinstance(told, ev.FeatureTold)
        and isinstance(located, ev.FeatureLocated)
        and (told.feature, told.lair) == (located.feature, located.lair)
    )


def still_hidden(check: HiddenCheck, state: object) -> tuple[tuple[str, str] | None, ...]:
    """The features of a map state still hidden, in the order they were placed: each one's hex and text where the
    log opens it later, None where it never does (empty when the log opens every commitment)."""
    if not check.never_opened or not isinstance(state, MapState):
        return ()
    held = {f.commitment: (f.hex, f.feature) for f in hidden.kept(check.keeper, CAMPAIGN, state)}
    return tuple(None if key in check.never_opened else held.get(key) for key in state.unopened)


#: the words of every line the audit writes of hidden features (``aside``, ``caveat``), and only of those
NOUN = "hidden map feature"


def aside(never_revealed: int) -> str:
    """The audit's note for commitments never opened that no search can have read (not a caveat)."""
    them = "it" if never_revealed == 1 else "them"
    return f"{counted(never_revealed, NOUN)} never revealed: no search depended on {them}"


def speaks_of(line: str) -> bool:
    """Whether a line of the audit is one it writes of hidden features (``aside`` or ``caveat``)."""
    return NOUN in line


def caveat(searches: int, features: int) -> str:
    """The verdict's caveat for the searches made while commitments never opened were hidden (how many of each)."""
    result = "its result" if searches == 1 else "their results"
    return (
        f"{counted(searches, 'search')} made while {counted(features, NOUN)} "
        f"{'was' if features == 1 else 'were'} never revealed: {result} cannot be checked yet; "
        f"the map's reveal step opens {'it' if features == 1 else 'them'}"
    )
