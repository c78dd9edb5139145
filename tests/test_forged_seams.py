"""Events slipped in where one command records two things at once: a referee who owns the database moves an event of
their own between a child's conclusion and its parent's resume, and reseals the chain.

The command that concludes a procedure handed off to records the parent's resume in the same append, so nothing the
referee does can come between them. Each forgery moves an event the log holds (a free roll, a member added, the clock
let pass) there: every roll still shows its faces at its nonce, and every decision follows from its rolls; the audit
names the event out of its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from hexlog.machine import commands as c
from hexlog.machine.dungeon import commands as d
from hexlog.machine.encounter import commands as e
from hexlog.machine.timekeeping import AdvanceClock

from .test_forged_steps import findings, played, version_of, where

if TYPE_CHECKING:
    from hexlog.events.chain import Envelope


@pytest.fixture(scope="module")
def delve() -> list[Envelope]:
    """A delve meets ghouls and the encounter is cancelled (the delve resumes), then a free roll, a member added and a
    turn let pass."""
    return played(
        d.EnterDungeon(name="crypt"),
        d.Meet(name="ghouls", monster_count=3),
        e.CancelEncounter(reason="the wrong room"),
        c.RollDice(expression="1d6"),
        c.AddMember(name="Cy"),
        AdvanceClock(duration="1 turn"),
    )


def moved_before_resume(log: list[Envelope], kind: str, **data: Any) -> tuple[list[Envelope], int]:
    """The log with its only event of ``kind`` holding ``data`` moved to just before the delve's resume, and where it
    is now."""
    at = where(log, kind, **data)
    event = log[at]
    rest = [env for i, env in enumerate(log) if i != at]
    resumed = where(rest, "procedure.resumed")
    return [*rest[:resumed], event, *rest[resumed:]], resumed


def test_the_honest_delve_is_clean(delve: list[Envelope]) -> None:
    assert findings(delve) == []


@pytest.mark.parametrize(
    ("kind", "data"),
    [("dice.rolled", {"purpose": "free roll"}), ("party.member_added", {"name": "Cy"}), ("clock.advanced", {})],
)
def test_an_event_moved_between_the_conclusion_and_the_resume_is_a_finding(
    delve: list[Envelope], kind: str, data: dict[str, Any]
) -> None:
    forged, at = moved_before_resume(delve, kind, **data)
    concluded = where(forged, "procedure.phase_changed", trigger="cancel")
    assert at == concluded + 1
    assert findings(forged) == [
        (
            version_of(at),
            "decision",
            (
                f"{kind} is recorded after encounter concluded (stream version {version_of(concluded)}) and before "
                "dungeon resumes, which the command that concluded it records at once: the kit records nothing between "
                "them"
            ),
        )
    ]
