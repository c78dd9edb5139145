"""The audit checks what a journey's start records of the exertion under way against the log before it.

``travel.started`` version 2 records the delves, pursuits and chases under way as the party sets out (``exerting``):
no dice decide it, the state does, and a day one goes on in is no rest. A referee who owns the database could leave a
delve out (the day after the journey would then rest the party) or put one in that was not under way; the audit
folds the log up to the journey's start and names either as a finding. A journey started before version 2 recorded
none, whatever was under way, and is not judged on it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from hexlog.events.chain import reseal
from hexlog.events.errors import CorruptLogError
from hexlog.events.memory import MemoryStore
from hexlog.machine.travel import commands as t
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.verdict import Verdict

from .test_rest_days import CAMPAIGN, ENTER, home_from_the_first_journey
from .test_session_release import today
from .test_stream_audit import _same, _write

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from hexlog.events.chain import Envelope

STARTED = "hexlog.travel.started"
OPENED = "hexlog.session.opened"


def forged(before: tuple[Any, ...], change: Callable[[Envelope], Envelope], *, older: bool = False) -> list[Envelope]:
    """The log of a journey home (the commands ``before`` run before it), its start changed and the chain resealed, as
    the database's owner could; with ``older``, its session opened as the releases before sessions named their
    release wrote it."""
    trip = home_from_the_first_journey(before)
    envelopes = read_export(list(export_lines(trip.h.store, CAMPAIGN)))
    if older:
        envelopes = opened_by_an_older_release(envelopes)
    at = next(i for i, env in enumerate(envelopes) if env.type == STARTED)
    return reseal([*envelopes[:at], change(envelopes[at]), *envelopes[at + 1 :]])


def opened_by_an_older_release(envelopes: list[Envelope]) -> list[Envelope]:
    """The log with its sessions opened as the releases before ``session.opened`` version 3 wrote them (naming no
    release): a log of the releases that wrote ``travel.started`` version 1 (the chain not yet resealed)."""
    return [
        attrs.evolve(env, schemaversion=2, data={k: v for k, v in env.data.items() if k != "release"})
        if env.type == OPENED
        else env
        for env in envelopes
    ]


def exerting(names: list[str]) -> Callable[[Envelope], Envelope]:
    return lambda env: attrs.evolve(env, data={**env.data, "exerting": names})


def findings(envelopes: list[Envelope]) -> list[tuple[str, str, bool]]:
    """Each finding's check and reason, and whether it is at the journey's start."""
    at = next(env.streamversion for env in envelopes if env.type == STARTED)
    report = audit_envelopes(envelopes)
    return [(f.check, f.reason, f.streamversion == at) for f in report.findings]


class TestAForgedRecordOfTheExertionUnderWay:
    def test_a_delve_left_out_is_a_finding(self) -> None:
        found = findings(forged((ENTER,), exerting([])))
        assert found == [
            ("decision", 'travel.started: exerting [] recorded, but ["dungeon"] under way here', True),
        ]

    def test_a_delve_put_in_is_a_finding(self) -> None:
        found = findings(forged((), exerting(["dungeon"])))
        assert found == [
            ("decision", 'travel.started: exerting ["dungeon"] recorded, but [] under way here', True),
        ]

    def test_an_import_refuses_it(self) -> None:
        with pytest.raises(CorruptLogError, match=r'exerting \[\] recorded, but \["dungeon"\] under way here'):
            import_envelopes(MemoryStore(), forged((ENTER,), exerting([])))

    def test_the_audit_of_a_database_read_as_it_comes_finds_it(self, tmp_path: Path) -> None:
        store = _write(tmp_path / "forged.db", forged((ENTER,), exerting([])))
        try:
            report = _same(store, CAMPAIGN)
        finally:
            store.close()
        assert [f.check for f in report.findings] == ["decision"], report.text()
        assert report.verdict is Verdict.FAILED

    def test_the_honest_log_audits_clean(self) -> None:
        assert findings(forged((ENTER,), lambda env: env)) == []


class TestAJourneyStartedBeforeVersion2:
    def test_it_recorded_none_under_way_and_is_not_judged_on_it(self) -> None:
        """The delve under way as the journey set out, its start as version 1 recorded it (no ``exerting``), in a
        session an older release opened."""
        assert findings(forged((ENTER,), version_1, older=True)) == []

    def test_in_a_session_of_today_it_was_relabelled_by_hand(self) -> None:
        """The same start in a session that names today's release, which writes journeys at version 2: relabelled to
        be judged by the older rules, though no event between them is of a version only today's writes."""
        found = findings(forged((ENTER,), version_1))
        assert [(check, at) for check, _, at in found] == [("schema", True)]
        session = today(0).removesuffix("0)")  # the session's words, up to its stream version
        assert found[0][1].startswith(f"{STARTED} schema version 1 after {session}")


def two_journeys(
    first: Callable[[Envelope], Envelope], second: Callable[[Envelope], Envelope], *, older: bool = False
) -> list[Envelope]:
    """A journey home, then a delve and a second journey set out on while it is under way; each start changed and the
    chain resealed, as the database's owner could; with ``older``, the session opened by an older release."""
    trip = home_from_the_first_journey(())
    trip.run(ENTER)
    trip.run(t.StartJourney(hex="2,2", season="winter"))
    envelopes = read_export(list(export_lines(trip.h.store, CAMPAIGN)))
    if older:
        envelopes = opened_by_an_older_release(envelopes)
    starts = [i for i, env in enumerate(envelopes) if env.type == STARTED]
    assert [envelopes[i].schemaversion for i in starts] == [2, 2]
    assert [envelopes[i].data["exerting"] for i in starts] == [[], ["dungeon"]]
    changed = list(envelopes)
    for at, change in zip(starts, (first, second), strict=True):
        changed[at] = change(envelopes[at])
    return reseal(changed)


def version_1(env: Envelope) -> Envelope:
    """The start as ``travel.started`` version 1 recorded it: no ``exerting``."""
    data = {key: value for key, value in env.data.items() if key != "exerting"}
    return attrs.evolve(env, schemaversion=1, data=data)


def unchanged(env: Envelope) -> Envelope:
    return env


DOWNGRADE = (
    "hexlog.travel.started schema version 1 after schema version 2 (at stream version {first}): "
    "older than a version this stream already holds"
)


class TestAStartRelabelledAsAnOlderVersion:
    """The second start re-labelled version 1 would be judged by version 1's rules (the delve under way not counted):
    an older version than the campaign already wrote is a finding of its own."""

    def forged(self) -> list[Envelope]:
        return two_journeys(unchanged, version_1)

    def expected(self, envelopes: list[Envelope]) -> list[tuple[str, int, str]]:
        first, second = (env.streamversion for env in envelopes if env.type == STARTED)
        return [("schema", second, DOWNGRADE.format(first=first))]

    def test_the_audit_finds_it(self) -> None:
        envelopes = self.forged()
        report = audit_envelopes(envelopes)
        assert [(f.check, f.streamversion, f.reason) for f in report.findings] == self.expected(envelopes)
        assert report.findings[0].event_id == envelopes[report.findings[0].streamversion - 1].id
        assert report.verdict is Verdict.FAILED

    def test_an_import_refuses_it(self) -> None:
        with pytest.raises(CorruptLogError, match="schema version 1 after schema version 2"):
            import_envelopes(MemoryStore(), self.forged())

    @pytest.mark.parametrize("campaign", [CAMPAIGN, None], ids=["campaign", "whole store"])
    def test_the_audit_of_a_database_read_as_it_comes_finds_it(self, tmp_path: Path, campaign: str | None) -> None:
        envelopes = self.forged()
        store = _write(tmp_path / "forged.db", envelopes)
        try:
            report = _same(store, campaign)
        finally:
            store.close()
        assert [(f.check, f.streamversion, f.reason) for f in report.findings] == self.expected(envelopes)

    def test_audit_file_and_import_refuse_it(self, hexlog: Any, tmp_path: Path) -> None:
        envelopes = self.forged()
        lines = "".join(json.dumps(env.to_cloudevent()) + "\n" for env in envelopes)
        (tmp_path / "forged.jsonl").write_text(lines, encoding="utf-8")
        (_, second, reason), *_ = self.expected(envelopes)
        audited = hexlog("audit", "--file", "forged.jsonl", "--referee")
        assert audited.returncode == 1, audited.stdout + audited.stderr
        assert f"campaign-{CAMPAIGN} version {second}" in audited.stdout
        assert f"schema: {reason}" in audited.stdout
        player = hexlog("audit", "--file", "forged.jsonl")
        assert player.returncode == 1, player.stdout + player.stderr
        assert f"version {second}" in player.stdout
        assert "schema: " in player.stdout
        imported = hexlog("import", "forged.jsonl", "--db", "forged.db")
        assert imported.returncode == 1
        assert imported.stdout == ""
        assert imported.stderr == (
            f"hexlog: error: forged.jsonl does not verify at line {second} (event {envelopes[second - 1].id}): "
            f"{reason}; nothing imported\n"
        )

    def test_versions_that_rise_audit_clean(self, tmp_path: Path) -> None:
        """A first start of version 1 (an older release, which opened the session), the second of version 2 (after
        an upgrade)."""
        envelopes = two_journeys(version_1, unchanged, older=True)
        assert audit_envelopes(envelopes).findings == ()
        store = _write(tmp_path / "honest.db", envelopes)
        try:
            assert _same(store, CAMPAIGN).verdict is not Verdict.FAILED
        finally:
            store.close()
