"""Time passing counts its seconds in whole rounds and turns by the rules in force (``Span.event``).

A ``clock.advanced`` whose counts disagree with its seconds shows the players one time (``3 turns``) while the clock
keeps another: the audit holds the counts to the seconds under the rules recorded before it, whatever step or command
let the time pass.
"""

from __future__ import annotations

import pytest

from hexlog.machine.timekeeping import AdvanceClock

from .test_forged_steps import edited, findings, played, version_of, where

#: an hour at the referee's word: 60 rounds, 6 turns under explore (60 s rounds, 600 s turns)
ADVANCED = (AdvanceClock(duration="1h", reason="the party waits"),)


@pytest.fixture(scope="module")
def waited() -> list:
    return played(*ADVANCED)


def test_the_honest_log_has_no_finding(waited) -> None:
    at = where(waited, "clock.advanced", reason="the party waits")
    assert (waited[at].data["seconds"], waited[at].data["rounds"], waited[at].data["turns"]) == (3600, 60, 6)
    assert findings(waited) == []


@pytest.mark.parametrize(
    ("counts", "shown"),
    [({"turns": 3}, "60 rounds and 3 turns"), ({"rounds": 6}, "6 rounds and 6 turns")],
    ids=["turns", "rounds"],
)
def test_counts_rewritten_apart_from_the_seconds_are_a_finding(waited, counts, shown) -> None:
    at = where(waited, "clock.advanced", reason="the party waits")
    assert findings(edited(waited, at, **counts)) == [
        (
            version_of(at),
            "decision",
            f"clock.advanced counts {shown}, but its 3600 s are 60 rounds and 6 turns by the rules in force",
        )
    ]
