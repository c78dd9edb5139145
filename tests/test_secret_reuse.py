"""A secret committed to in two campaigns is a finding of the audit of both.

Within one campaign the dice check finds a session that commits to an earlier session's secret, and hexlog refuses a
secret a database has used before. A referee who owns the database can still put two campaigns together whose
sessions commit to one secret: the players of the second could have known every roll from the first's reveal. The
audit of the database, whole, read as it comes, or shared between processes, and of an export holding both, names
the later session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from hexlog.events.chain import reseal
from hexlog.machine import commands as c
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, read_export

from .scripted_play import ScriptedPlay
from .test_stream_audit import _same, _write

if TYPE_CHECKING:
    from pathlib import Path

    from hexlog.events.chain import Envelope

REUSED = "session s1 commits to the secret of session s1 of campaign alpha: its rolls were predictable"


def campaign(name: str, secret: str) -> list[Envelope]:
    """A campaign of one session on ``secret`` (a roll, then the close that reveals it)."""
    play = ScriptedPlay(name, scripted=False)
    play.run(c.StartCampaign(ruleset="ose"))
    play.run(c.OpenSession(secret_hex=secret))
    play.run(c.RollDice(expression="1d20"))
    play.run(c.CloseSession())
    return read_export(list(export_lines(play.h.store, name)))


def both(second: str = "22" * 32) -> list[Envelope]:
    return [*campaign("alpha", "22" * 32), *campaign("beta", second)]


def findings(envelopes: list[Envelope]) -> list[tuple[str, int | None, str, str]]:
    return [(f.stream, f.streamversion, f.check, f.reason) for f in audit_envelopes(envelopes).findings]


def test_an_export_of_both_names_the_later_session() -> None:
    envelopes = both()
    opened = next(e for e in envelopes if e.subject == "campaign-beta" and e.type == "hexlog.session.opened")
    assert findings(envelopes) == [("campaign-beta", opened.streamversion, "commitment", REUSED)]


def test_two_secrets_are_no_finding() -> None:
    assert findings(both("33" * 32)) == []


def test_each_campaign_alone_is_no_finding() -> None:
    """Alone, a campaign cannot tell whether another used its secret: the finding needs both in one audit."""
    envelopes = both()
    for stream in ("campaign-alpha", "campaign-beta"):
        assert findings(reseal([e for e in envelopes if e.subject == stream])) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_database_holding_both_names_it(tmp_path: Path, jobs: int) -> None:
    """Read as it comes (and held whole: ``_same``), and shared between two processes."""
    store = _write(tmp_path / "both.db", both())
    try:
        streamed = _same(store)
        shared = audit_store(store, None, jobs=jobs)
    finally:
        store.close()
    for report in (streamed, shared):
        assert [(f.stream, f.check, f.reason) for f in report.findings] == [("campaign-beta", "commitment", REUSED)]
