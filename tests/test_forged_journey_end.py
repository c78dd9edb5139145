"""A journey's end forged: the rest day a journey owes falls due a full day after it ends, from the time it records,
and a day of exertion after it (a delve, a pursuit, a chase) is no rest. A referee who reseals the log with the end
a day earlier, or read as letting a delve's day count as rest, clears the rest owed too soon; every check after it
is re-run on the forged end and agrees with it, the end itself does not."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from hexlog.machine.travel import commands as t

from .test_forged_steps import FORCED_MARCH_DAY, edited, findings, played, version_of, where

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.chain import Envelope


@pytest.fixture(scope="module")
def ended() -> list[Envelope]:
    """A forced march (it owes a rest day), then the journey ends at dusk."""
    return played(*FORCED_MARCH_DAY, t.EndJourney())


def test_the_honest_end_is_clean(ended: list[Envelope]) -> None:
    assert findings(ended) == []
    data = ended[where(ended, "travel.ended")].data
    assert (data["hex"], data["days"], data["exertion_breaks_rest"]) == ("2,1", 1, True)


#: a day, in seconds
DAY = 86_400


@pytest.mark.parametrize(
    ("field", "forged", "given"),
    [
        ("at_seconds", lambda now: now - DAY, lambda now: now),
        ("exertion_breaks_rest", lambda _now: False, lambda _now: True),
        ("days", lambda _now: 0, lambda _now: 1),
        ("hex", lambda _now: "2,2", lambda _now: "2,1"),
    ],
)
def test_a_journeys_end_forged_is_a_finding(
    ended: list[Envelope], field: str, forged: Callable[[int], object], given: Callable[[int], object]
) -> None:
    """The end a day earlier than the clock, read as letting a delve's day count as rest, after fewer days, or
    somewhere the party is not."""
    at = where(ended, "travel.ended")
    now = ended[at].data["at_seconds"]
    assert findings(edited(ended, at, **{field: forged(now)})) == [
        (version_of(at), "decision", f"travel.ended: {field} {forged(now)} recorded, but the rules give {given(now)}")
    ]


def test_a_journey_set_out_faster_than_its_slowest_member_is_a_finding(ended: list[Envelope]) -> None:
    """The speed a journey sets out at gives its travel points a day, which every day after it reads: a hexlog patched
    to forge it faster records every day to agree, so the audit found nothing. Here the days after are left as they
    were; the first finding is the start itself, naming the speed."""
    at = where(ended, "travel.started")
    data = ended[at].data
    assert (data["party"], data["speed"]) == (["Al", "Bo"], 40)
    forged = edited(ended, at, speed=50, travel_points=data["travel_points"] + 2)
    found = findings(forged)
    assert found[0][:2] == (version_of(at), "decision")
    assert found[0][2].startswith("travel.started: speed 50 recorded, but the party's slowest member gives 40")
