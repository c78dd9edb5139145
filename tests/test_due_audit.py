"""The audit runs the checks that fall due as game time passes again after every advance of the clock.

A delve's wandering checks and its lights burning out are made by no command: the kit's clock makes them as a move
(or anything else) lets time pass, and no decision names them. A referee who owns the database could erase a
wandering check that brought a monster, or add one on a turn none falls due, which shifts every secret roll after it
to another face. The audit re-runs the due checks after each ``clock.advanced`` with the rolls the log records after
it, so a check missing, moved or added is a finding, on the whole log and on the database read as it comes.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.chain import reseal
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine.dungeon import commands as d
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export
from hexlog.replay.verdict import Verdict

from .scripted_play import ScriptedPlay
from .test_rest_days import CAMPAIGN as TRIP
from .test_rest_days import home_from_the_first_journey
from .test_stream_audit import _same, _write

if TYPE_CHECKING:
    from pathlib import Path

    from hexlog.events.chain import Envelope

CAMPAIGN = "due"
SECRET = "5a" * 32
SEED = "dice we trust"
CLOCK, ROLL = "hexlog.clock.advanced", "hexlog.dice.rolled"
CHECKED, OUT = "hexlog.dungeon.wandering_checked", "hexlog.dungeon.light_burned_out"
CHANGED, RESTED = "hexlog.travel.exhaustion_changed", "hexlog.travel.rested"


def delve(moves: int, then: tuple[c.Command, ...] = ()) -> list[Envelope]:
    """The log of a delve under explore on committed dice: Ann lights a torch (six turns) and the party moves
    ``moves`` turns (a wandering check every second turn), then the commands ``then``, then the session closes."""
    play = ScriptedPlay(CAMPAIGN, scripted=False)
    play.run(c.StartCampaign(ruleset="explore"))
    play.run(c.OpenSession(secret_hex=SECRET))
    play.run(c.SetClientSeed(client_seed=SEED))
    play.run(c.AddMember(name="Ann"))
    play.run(d.EnterDungeon(name="crypt"))
    play.run(d.LightSource(kind="torch", by="Ann"))
    for _ in range(moves):
        play.run(d.Move())
    for command in then:
        play.run(command)
    play.run(c.CloseSession())
    return read_export(list(export_lines(play.h.store, CAMPAIGN)))


def clocks(envelopes: list[Envelope]) -> list[int]:
    """The index of each clock event."""
    return [i for i, env in enumerate(envelopes) if env.type == CLOCK]


def findings(envelopes: list[Envelope]) -> list[tuple[int | None, str, str]]:
    report = audit_envelopes(envelopes)
    return [(f.streamversion, f.check, f.reason) for f in report.findings]


def without(envelopes: list[Envelope], *kinds: str, last: bool = True) -> list[Envelope]:
    """The log with the last (or first) event of each of ``kinds`` taken out, the chain resealed."""
    drop = set()
    for kind in kinds:
        found = [i for i, env in enumerate(envelopes) if env.type == kind]
        drop.add(found[-1] if last else found[0])
    return reseal([env for i, env in enumerate(envelopes) if i not in drop])


def test_an_honest_delve_is_verified_with_its_checks_and_its_torch() -> None:
    """The control: six turns, three wandering checks, the torch out on the sixth turn."""
    envelopes = delve(6)
    assert [env.type for env in envelopes].count(CHECKED) == 3
    assert [env.type for env in envelopes].count(OUT) == 1
    report = audit_envelopes(envelopes)
    assert report.findings == ()
    assert report.verdict is Verdict.INCOMPLETE  # the secret was supplied, so that the test can derive its faces


def test_a_wandering_check_erased_is_a_finding_at_the_advance_that_made_it_due() -> None:
    """The last check and its secret roll taken out: the sixth turn's advance of the clock names the roll missing."""
    envelopes = delve(6)
    forged = without(envelopes, ROLL, CHECKED)
    sixth = clocks(forged)[-1]
    torch = next(i for i, env in enumerate(forged) if env.type == OUT)
    assert torch == sixth + 1
    assert findings(forged) == [
        (
            forged[sixth].streamversion,
            "decision",
            (
                'the clock advanced "the party explores", and the rules record roll #r2 (1d6 for dungeon.wandering) '
                "after it, but the log has no such event"
            ),
        )
    ]


def test_a_torch_that_never_went_out_is_a_finding() -> None:
    envelopes = delve(6)
    forged = without(envelopes, OUT)
    sixth = clocks(forged)[-1]
    (found,) = findings(forged)
    assert found[:2] == (forged[sixth].streamversion, "decision")
    assert 'the rules record dungeon.light_burned_out carrier="Ann"' in found[2], found
    assert found[2].endswith("but the log has roll dungeon.wandering there"), found


def _extra_check(envelopes: list[Envelope], at: int, turn: int) -> list[Envelope]:
    """A wandering check of turn ``turn`` put in after the clock event at ``at``: the session's next secret roll, its
    faces derived from the secret as the dice audit derives them, and a check that reads them, the chain resealed."""
    roll_at = max(i for i, env in enumerate(envelopes) if env.type == ROLL)
    check_at = max(i for i, env in enumerate(envelopes) if env.type == CHECKED)
    roll, check = envelopes[roll_at], envelopes[check_at]
    nonce = roll.data["nonce"] + 1
    key = hexdice.keys_for(hexdice.V2, bytes.fromhex(SECRET), SEED)[hexdice.REFEREE_LANE]
    faces = list(hexdice.faces_for(key, nonce, (6,)))
    data: dict[str, Any] = {**roll.data, "nonce": nonce, "faces": faces, "total": faces[0]}
    seconds = check.data["at_seconds"] // check.data["turn"] * turn
    decided = {**check.data, "turn": turn, "at_seconds": seconds, "face": faces[0], "referee_rolls": [nonce]}
    decided["monster"] = faces[0] in decided["wandering_on"]
    added = [
        attrs.evolve(roll, id=str(uuid.uuid4()), data=data),
        attrs.evolve(check, id=str(uuid.uuid4()), data=decided),
    ]
    return reseal([*envelopes[: at + 1], *added, *envelopes[at + 1 :]])


def test_a_wandering_check_added_on_a_turn_none_falls_due_is_a_finding() -> None:
    """After five turns (checks on turns 2 and 4), a check of turn 5 put in after its advance of the clock, on the
    next secret roll: every roll verifies, but no advance makes that check due."""
    envelopes = delve(5)
    fifth = clocks(envelopes)[-1]
    forged = _extra_check(envelopes, fifth, 5)
    added = fifth + 2
    assert forged[added].type == CHECKED
    assert findings(forged) == [
        (
            forged[added].streamversion,
            "decision",
            (
                "dungeon.wandering_checked is recorded only when it falls due as game time passes, and no advance "
                "of the clock makes it due here"
            ),
        )
    ]


def test_a_check_away_from_any_advance_of_the_clock_is_a_finding() -> None:
    """The check moved to just after the delve's start, where no time has passed."""
    envelopes = delve(2)
    roll_at = next(i for i, env in enumerate(envelopes) if env.type == ROLL)
    moved = envelopes[roll_at : roll_at + 2]
    entered = next(i for i, env in enumerate(envelopes) if env.type == "hexlog.dungeon.entered")
    rest = [env for i, env in enumerate(envelopes) if i not in {roll_at, roll_at + 1}]
    forged = reseal([*rest[: entered + 1], *moved, *rest[entered + 1 :]])
    found = findings(forged)
    assert (forged[entered + 2].streamversion, "decision") in [f[:2] for f in found], found
    assert any("no advance of the clock makes it due here" in f[2] for f in found), found
    assert any("(1d6 for dungeon.wandering) after it, but the log has no such event" in f[2] for f in found), found


def test_the_database_read_as_it_comes_finds_them_too(tmp_path: Path) -> None:
    """The audit of a database reads its events as they come: it fails each forgery as the whole audit does."""
    envelopes = delve(6)
    for name, forged in (
        ("erased", without(envelopes, ROLL, CHECKED)),
        ("added", _extra_check(delve(5), clocks(delve(5))[-1], 5)),
        ("honest", reseal(list(envelopes))),
    ):
        store = _write(tmp_path / f"{name}.db", forged)
        try:
            report = _same(store, CAMPAIGN)
        finally:
            store.close()
        assert (report.verdict is Verdict.FAILED) is (name != "honest"), (name, report.text())
        assert bool(report.findings) is (name != "honest"), (name, report.text())


def test_a_rest_day_on_the_clock_erased_is_a_finding() -> None:
    """A journey ends with its party exhausted; a full day on the clock is its rest day, recorded after the clock
    event (the members' exhaustion cleared, then the rest). Taken out, the party would stay exhausted: the day's
    advance of the clock names the rest it owes."""
    trip = home_from_the_first_journey((), dice=True)
    trip.run(AdvanceClock(duration="1 day"))
    trip.run(c.CloseSession())
    envelopes = read_export(list(export_lines(trip.h.store, TRIP)))
    assert findings(envelopes) == []
    day = clocks(envelopes)[-1]
    assert [env.type for env in envelopes[day + 1 : day + 4]] == [CHANGED, CHANGED, RESTED]
    forged = reseal([env for i, env in enumerate(envelopes) if not day < i < day + 4])
    ((version, check, reason),) = findings(forged)
    assert (version, check) == (forged[day].streamversion, "decision")
    assert reason.startswith('the clock advanced "the referee lets 1 day pass", and the rules record '), reason
    assert 'travel.exhaustion_changed member="Al", level=0' in reason, reason
