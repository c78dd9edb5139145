"""An older release's event is named in the referee's hand only for what its referee typed: what that release gave
where the referee typed nothing is the rules', even where today's release gives otherwise.

Before ``encounter.evasion_rolled`` version 3 an evasion on a journey read the woods of the party's true hex where the
referee gave none: a lost party, truly in tangled forest while it believes it is in a bog, evaded in woods untyped.
Today's evasion reads the hex it believes it is in, where such woods would have been the referee's word. So too the
terrain of a pursuit the referee started before ``pursuit.started`` version 2."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from hexlog.events import encounter as enc_ev
from hexlog.events import pursuit as pursuit_ev
from hexlog.machine import encounter as enc
from hexlog.machine.encounter import resolution
from hexlog.machine.encounter.commands import RollEvasionForNobody
from hexlog.machine.pursuit import commands as p
from hexlog.machine.pursuit import steps as pursuit_steps
from hexlog.machine.pursuit.steps import terrain_here
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, read_export

from .test_lost_party_pursuit import CAMPAIGN, Journey

if TYPE_CHECKING:
    import pytest

    from hexlog.machine.kit.context import StepContext
    from hexlog.replay.audit_report import AuditReport


def roll_evasion_of_release_14(ctx: StepContext, command: enc.RollEvasion) -> None:
    """An evasion as the releases before ``encounter.evasion_rolled`` version 3 rolled it: the woods the referee left
    out those of the party's true hex, the d100 made for nobody (version 4)."""
    woods = command.woods
    if woods is None:
        woods = terrain_here(ctx, "", true_hex=True) == "woods"
    resolution.roll_evasion(ctx, RollEvasionForNobody(woods=woods, magic=command.magic))


def evaded(monkeypatch: pytest.MonkeyPatch, *, woods: bool | None, version: int) -> AuditReport:
    """A lost party (truly in tangled forest, believing itself in a bog) meets monsters and evades them, its evasion
    recorded at ``version`` by a release that rolled it so, ``woods`` as typed (None: not typed)."""
    trip = Journey("tangled_forest")
    trip.run(t.CheckWandering(), 6)
    trip.run(enc.CheckSurprise(), 4, 4)
    trip.run(enc.DetermineDistance(), 3, 3, 3, 3)
    trip.run(enc.RollInitiative(), 5, 2)
    trip.run(enc.Evade())
    with monkeypatch.context() as old:
        if version < enc_ev.EvasionRolled.schema_version:
            old.setattr(enc_ev.EvasionRolled, "schema_version", version)
            old.setitem(enc.ENCOUNTER.steps, enc.RollEvasion, roll_evasion_of_release_14)
        rolled = [e for e in trip.run(enc.RollEvasion(woods=woods), 1) if isinstance(e, enc_ev.EvasionRolled)]
    assert [e.woods for e in rolled] == [woods is not False], rolled  # untyped: the true hex's woods
    # the session is left open: its dice are the script's, which no secret gives
    report = audit_envelopes(read_export(list(export_lines(trip.h.store, CAMPAIGN))))
    assert report.findings == (), report.text()
    return report


def evasions(report: AuditReport) -> list[str]:
    return [line.split(": ", 1)[1] for line in report.by_hand if "evasion rolled" in line]


def test_an_evasion_of_version_2_in_the_woods_of_a_lost_party_s_true_hex_is_not_the_referees_hand(
    monkeypatch, unraised
):
    """Recorded at version 2 with nothing typed, the woods are its release's (the true hex's): not named. Typed
    ``--woods`` today, where the party believes it is in a bog, they are the referee's word: named."""
    unraised("encounter.evasion_rolled")
    assert evasions(evaded(monkeypatch, woods=None, version=2)) == []
    assert evasions(evaded(monkeypatch, woods=True, version=enc_ev.EvasionRolled.schema_version)) == [
        "the party's evasion rolled in woods, as the referee said (the chance reads it)"
    ]


def test_an_evasion_of_version_2_in_the_open_against_a_lost_party_s_true_hex_is_the_referees_hand(
    monkeypatch, unraised
):
    """Typed ``--open`` where its release would have read the true hex's woods, a version 2 evasion is named for it."""
    unraised("encounter.evasion_rolled")
    assert evasions(evaded(monkeypatch, woods=False, version=2)) == [
        (
            "the party's evasion rolled in the open, not the woods of its true hex, as the referee said (the chance "
            "reads it)"
        )
    ]


def started(monkeypatch: pytest.MonkeyPatch, *, version: int) -> AuditReport:
    """The lost party pursued by hand (``pursuit start --pursuers-speed 240``, no terrain typed), its start recorded at
    ``version`` by a release that read the terrain left out so (before version 2: the party's true hex's)."""
    trip = Journey("tangled_forest")
    with monkeypatch.context() as old:
        if version < pursuit_ev.PursuitStarted.schema_version:
            old.setattr(pursuit_ev.PursuitStarted, "schema_version", version)
            old.setattr(pursuit_steps, "terrain_here", functools.partial(terrain_here, true_hex=True))
        began = [e for e in trip.run(p.StartPursuit(pursuers_speed=240)) if isinstance(e, pursuit_ev.PursuitStarted)]
    assert [e.terrain for e in began] == ["woods" if version < 2 else "swamp"], began
    report = audit_envelopes(read_export(list(export_lines(trip.h.store, CAMPAIGN))))
    assert report.findings == (), report.text()
    return report


def test_a_pursuit_of_version_1_in_the_terrain_of_a_lost_party_s_true_hex_names_no_terrain(monkeypatch, unraised):
    """``pursuit.started`` version 1 read the terrain the referee left out in the party's true hex: tangled forest
    (woods) is its release's, not the referee's word, and only the pursuers' speed typed is named, as today's start
    on the believed bog names it."""
    unraised("pursuit.started")
    typed = (
        "pursuit 1 started by the referee with the pursuers at 240 ft a turn (its evasion and catch rolls read them)"
    )
    for version in (1, pursuit_ev.PursuitStarted.schema_version):
        lines = [line.split(": ", 1)[1] for line in started(monkeypatch, version=version).by_hand]
        assert [line for line in lines if "pursuit" in line] == [typed]
