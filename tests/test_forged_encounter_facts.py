"""What an encounter records of the state before it, forged by a referee who runs a hexlog of their own.

No dice decide an encounter's movement or the number of its rounds, and the referee types neither: the start rates
the party at its slowest member's speed, and each round is the one after the last. A referee who patches their copy of
hexlog to record a faster party, or a later round, plays on consistently from the forgery: the chase that reads the
party's rate is re-run by the audit on that rate, and agrees with it. The audit holds the record itself to the state
before it, whatever step recorded it (here a delve's meeting, a command no decision precedes).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any
from unittest import mock

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.machine import commands as c
from hexlog.machine.chase import commands as ch
from hexlog.machine.encounter import commands as e
from hexlog.machine.kit.context import StepContext

from .test_forged_steps import SECRET_FOR_A_FLIGHT, findings, ghouls_met, played, version_of, where

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope

#: the delve's encounter: Bo runs at 90 ft a turn, the ghouls at 120, 30 ft apart; the party flees and they pursue
FLIGHT: tuple[c.Command, ...] = (
    c.EditMember(name="Bo", speed=90),
    *ghouls_met(30),
    e.Evade(),
    e.DecidePursuit(pursue=True),
    ch.Run(),
)


@contextlib.contextmanager
def forging(kind: type[Event], change: Callable[[Any], dict[str, Any]]) -> Iterator[None]:
    """Every event of ``kind`` a step records changed as ``change`` says, while the context lasts: a hexlog patched
    by the referee, whose later steps read the forged event as the state."""
    emit = StepContext.emit

    def forged(self: StepContext, *events: Event) -> None:
        emit(self, *(attrs.evolve(x, **change(x)) if isinstance(x, kind) else x for x in events))

    with mock.patch.object(StepContext, "emit", forged):
        yield


def forged_log(kind: type[Event], change: Callable[[Any], dict[str, Any]], *commands: c.Command) -> list[Envelope]:
    """The log of ``commands`` played on a hexlog that forges ``kind`` as ``forging`` says."""
    with forging(kind, change):
        return played(*commands, secret=SECRET_FOR_A_FLIGHT)


@pytest.fixture(scope="module")
def honest() -> list[Envelope]:
    return played(*FLIGHT, secret=SECRET_FOR_A_FLIGHT)


def test_the_honest_flight_is_clean_and_caught(honest: list[Envelope]) -> None:
    assert findings(honest) == []
    rated = honest[where(honest, "encounter.movement_rated")].data
    assert (rated["slowest_member"], rated["party_base"]) == ("Bo", 90)
    assert honest[where(honest, "chase.ended")].data["outcome"] == "caught"


def test_a_party_rated_faster_than_its_slowest_member_is_a_finding() -> None:
    """Bo's 90 ft forged to 120 as the encounter starts: the chase then runs the party at 120, the ghouls never close
    the gap and the party is not caught; every step after agrees with the forgery, the rating itself does not."""
    log = forged_log(ev.MovementRated, lambda _m: {"party_base": 120, "party_per_round": 40}, *FLIGHT)
    assert log[where(log, "chase.started")].data["fleeing_ft"] == 120
    assert log[where(log, "chase.round_run")].data["gap_after"] == 30
    rated = where(log, "encounter.movement_rated")
    assert findings(log) == [
        (
            version_of(rated),
            "decision",
            (
                "encounter.movement_rated: party_base 120 recorded, but the rules give 90; party_per_round 40 "
                "recorded, but the rules give 30"
            ),
        )
    ]


def test_an_encounter_started_with_a_party_forged_to_see_in_the_dark_is_a_finding() -> None:
    log = forged_log(ev.EncounterStarted, lambda _s: {"party_vision_ft": 60}, *FLIGHT)
    assert findings(log) == [
        (
            version_of(where(log, "encounter.started")),
            "decision",
            "encounter.started: party_vision_ft 60 recorded, but the party's longest infravision is 0",
        )
    ]


def test_a_round_forged_as_a_later_one_is_a_finding() -> None:
    """The first round recorded as the second (so the first round's surprise rules never apply), the next as the
    third: each after the one recorded before it but the first."""
    fight = (*ghouls_met(30), e.Fight(), e.PlayRound(), e.PlayRound())
    honest = played(*fight, secret=SECRET_FOR_A_FLIGHT)
    assert findings(honest) == []
    log = forged_log(ev.RoundPlayed, lambda r: {"round": 2} if r.round == 1 else {}, *fight)
    rounds = [i for i, env in enumerate(log) if env.type == "hexlog.encounter.round_played"]
    assert [log[at].data["round"] for at in rounds] == [2, 3]
    assert findings(log) == [
        (
            version_of(rounds[0]),
            "decision",
            "encounter.round_played: round 2 recorded, but the encounter's last round was 0",
        )
    ]
