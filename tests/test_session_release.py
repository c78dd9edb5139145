"""A session names the release of hexlog that opened it (``session.opened`` version 3): the audit holds the stream to
that release's rules from the session's first event on, and a release no release of hexlog could have named there is
a finding naming both numbers.

The logs are played on committed dice, then edited and resealed as a referee who owns the database would.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from hexlog.events import codec, releases
from hexlog.events.session import SessionOpened
from hexlog.machine import commands as c
from hexlog.machine.chase import commands as ch
from hexlog.machine.encounter import commands as e
from hexlog.replay import decisions
from hexlog.service import render

from .test_forged_steps import (
    MET,
    SECRET_FOR_A_FLIGHT,
    delve_chase,
    edited,
    findings,
    played,
    resumed_at,
    version_of,
    where,
)

if TYPE_CHECKING:
    from hexlog.events.chain import Envelope

OPENED = "hexlog.session.opened"


@pytest.fixture(scope="module")
def two_sessions() -> list[Envelope]:
    """A campaign of today with two sessions, one after the other."""
    return played(c.CloseSession(), c.OpenSession(secret_hex="6b" * 32))


@pytest.fixture(scope="module")
def parley() -> list[Envelope]:
    """A delve's ghouls met, a round played with them, and the encounter concluded as a parley."""
    return played(*MET, e.ConcludeEncounter(outcome="parley", note="they talk"), secret=SECRET_FOR_A_FLIGHT)


def opened_before_version_3(envelopes: list[Envelope], at: int) -> list[Envelope]:
    """The log with the session opened at ``at`` relabelled as the releases before ``session.opened`` version 3
    wrote it: version 2, naming no release."""
    data = {key: value for key, value in envelopes[at].data.items() if key != "release"}
    return [*envelopes[:at], attrs.evolve(envelopes[at], schemaversion=2, data=data), *envelopes[at + 1 :]]


def a_later_release(monkeypatch: pytest.MonkeyPatch) -> int:
    """Play the audit as the release after today's, which raised no schema version: only its sessions name it."""
    later = releases.CURRENT + 1
    monkeypatch.setattr(releases, "CURRENT", later)
    return later


def today(at: int) -> str:
    """How a finding names the session today's release opened at stream version ``at``: by its version while today's
    release is the one that raised ``session.opened`` to version 3, else by the release it names."""
    if releases.raised_at(OPENED, 3) == releases.CURRENT:
        return f"{OPENED} schema version 3 (at stream version {at})"
    return f"the {OPENED} naming release {releases.CURRENT} (at stream version {at})"


def today_writes() -> str:
    """How such a finding names the releases that write the newer version (see ``today``)."""
    if releases.raised_at(OPENED, 3) == releases.CURRENT:
        return "every release that writes the one writes"
    return f"every release from {releases.CURRENT} on writes"


class TestTheReleaseRecorded:
    def test_every_session_names_the_release_that_opened_it(self, two_sessions: list[Envelope]) -> None:
        opened = [env for env in two_sessions if env.type == OPENED]
        assert [(env.schemaversion, env.data["release"]) for env in opened] == [(3, releases.CURRENT)] * 2
        assert releases.raised_at(OPENED, 3) <= releases.CURRENT == len(releases.RAISED)
        assert findings(two_sessions) == []

    def test_a_release_after_the_latest_is_a_finding(self, two_sessions: list[Envelope]) -> None:
        at = where(two_sessions, "session.opened", session="s1")
        assert findings(edited(two_sessions, at, release=releases.CURRENT + 1)) == [
            (
                version_of(at),
                "schema",
                (
                    f"{OPENED} names release {releases.CURRENT + 1}, after release {releases.CURRENT}, the latest "
                    "there is: no release of hexlog wrote it"
                ),
            )
        ]

    def test_a_release_before_its_own_version_s_is_a_finding(self, two_sessions: list[Envelope]) -> None:
        """Only the releases from the one that raised ``session.opened`` to version 3 on write it."""
        at = where(two_sessions, "session.opened", session="s1")
        assert findings(edited(two_sessions, at, release=0)) == [
            (
                version_of(at),
                "schema",
                (
                    f"{OPENED} names release 0, before release {releases.raised_at(OPENED, 3)}, which {OPENED} "
                    "schema version 3 "
                    f"(at stream version {version_of(at)}) shows wrote the stream: an upgrade never goes back to an "
                    "earlier release"
                ),
            )
        ]

    def test_a_release_before_an_earlier_session_s_is_a_finding(
        self, two_sessions: list[Envelope], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Under a later release, two sessions that name it; the second made to name today's: releases never go
        back, so it was re-labelled by hand."""
        later = a_later_release(monkeypatch)
        first = where(two_sessions, "session.opened", session="s1")
        second = where(two_sessions, "session.opened", session="s2")
        upgraded = edited(edited(two_sessions, first, release=later), second, release=later)
        assert findings(upgraded) == []
        assert findings(edited(upgraded, second, release=later - 1)) == [
            (
                version_of(second),
                "schema",
                (
                    f"{OPENED} names release {later - 1}, before release {later}, which the {OPENED} naming release "
                    f"{later} (at stream version {version_of(first)}) shows wrote the stream: an upgrade never goes "
                    "back to an earlier release"
                ),
            )
        ]

    def test_a_session_opened_at_the_old_version_after_today_s_is_a_finding(self, two_sessions: list[Envelope]) -> None:
        """The second session relabelled to version 2, after one of version 3: re-labelled by hand."""
        first = where(two_sessions, "session.opened", session="s1")
        second = where(two_sessions, "session.opened", session="s2")
        assert findings(opened_before_version_3(two_sessions, second)) == [
            (
                version_of(second),
                "schema",
                (
                    f"{OPENED} schema version 2 after schema version 3 (at stream version {version_of(first)}): older "
                    "than a version this stream already holds"
                ),
            )
        ]

    def test_the_first_session_of_an_earlier_release_is_clean(self, two_sessions: list[Envelope]) -> None:
        """Sessions opened by the releases before version 3, then by today's (an upgrade between them)."""
        first = where(two_sessions, "session.opened", session="s1")
        assert findings(opened_before_version_3(two_sessions, first)) == []


class TestAnEventRelabelledAfterTheSession:
    def test_a_round_relabelled_older_in_a_fresh_campaign_is_a_finding(self, parley: list[Envelope]) -> None:
        """No event before the round but the session shows the release that wrote it: a round re-labelled as
        version 1, to be judged by the rules that let a round be played on the last initiative, is a finding."""
        assert findings(parley) == []
        opened = where(parley, "session.opened")
        at = where(parley, "encounter.round_played")
        relabelled = [*parley[:at], attrs.evolve(parley[at], schemaversion=1), *parley[at + 1 :]]
        assert findings(relabelled) == [
            (
                version_of(at),
                "schema",
                (
                    f"hexlog.encounter.round_played schema version 1 after {today(version_of(opened))}: "
                    f"{today_writes()} hexlog.encounter.round_played at schema version 2 or later"
                ),
            )
        ]

    def test_after_a_session_naming_a_later_release_the_finding_names_it(
        self, parley: list[Envelope], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        later = a_later_release(monkeypatch)
        opened = where(parley, "session.opened")
        at = where(parley, "encounter.round_played")
        upgraded = edited(parley, opened, release=later)
        relabelled = [*upgraded[:at], attrs.evolve(upgraded[at], schemaversion=1), *upgraded[at + 1 :]]
        assert findings(relabelled) == [
            (
                version_of(at),
                "schema",
                (
                    f"hexlog.encounter.round_played schema version 1 after the {OPENED} naming release {later} (at "
                    f"stream version {version_of(opened)}): every release from {later} on writes "
                    "hexlog.encounter.round_played at schema version 2 or later"
                ),
            )
        ]


class TestTheReleaseGatesTheRules:
    def test_a_rule_of_a_later_release_holds_from_the_session_that_names_it(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A check the audit makes only in streams of a release after the last that raised a schema version (here
        the kit's resumes, as if they had come with the release after today's): a session naming that release
        holds its stream to it, though none of its events is of a version that release raised. The forgery: a
        party the chase caught said to have got away (``TestAResumeForged``)."""
        caught, escaped = delve_chase(30, ch.Run()), delve_chase(60, ch.Run(out_of_sight=True))
        at, got = resumed_at(caught, "encounter"), resumed_at(escaped, "encounter")
        away = escaped[got + 1 : resumed_at(escaped, "dungeon") + 2]
        forged = [*caught[: at + 1], *away, *caught[at + 2 :]]
        assert [check for _, check, _ in findings(forged)] == ["decision"]  # today's resumes: a finding
        later = a_later_release(monkeypatch)
        monkeypatch.setattr(decisions, "_RESUMES_SINCE", later)
        assert findings(forged) == []  # a stream of today's release, before the later one's resumes: let be
        opened = where(forged, "session.opened")
        found = findings(edited(forged, opened, release=later))
        assert [(version, check) for version, check, _ in found] == [(version_of(at), "decision")]
        assert found[0][2].startswith("encounter resumes as chase concluded: after it the rules record")


def test_the_helpers_edit_what_they_say(parley: list[Envelope]) -> None:
    """The edits above change one event each, and the honest log is clean."""
    opened = where(parley, "session.opened")
    relabelled: list[Any] = opened_before_version_3(parley, opened)
    assert relabelled[opened].schemaversion == 2
    assert "release" not in relabelled[opened].data
    assert [env for i, env in enumerate(relabelled) if i != opened] == [
        env for i, env in enumerate(parley) if i != opened
    ]


class TestThePlayersReadTheRelease:
    def test_a_session_s_line_names_the_release_that_opened_it(self) -> None:
        """In the log (the players' view too): beside the commitment, as the release the session names; an older
        session, which names none, as before."""
        today = SessionOpened(session="s1", commitment="ab" * 32, scheme="hexlog-dice-v2")
        older = codec.from_data(OPENED, 2, {k: v for k, v in codec.to_data(today).items() if k != "release"})
        assert render.describe(today) == (
            f"session s1 opened; commitment {'ab' * 32} (hexlog-dice-v2, release {releases.CURRENT})"
        )
        assert render.describe(older) == f"session s1 opened; commitment {'ab' * 32} (hexlog-dice-v2)"

    def test_the_referee_s_commands_print_the_release(self, hexlog: Any) -> None:
        """session open, every receipt beside its commitment, state (--json too), session list (--json too) and the
        players' log name it."""
        release = releases.CURRENT
        assert hexlog("init").returncode == 0
        opened = hexlog("session", "open")
        assert opened.returncode == 0, opened.stderr
        lines = opened.stdout.splitlines()
        assert lines[0] == f"session s1 open under release {release} of hexlog"
        assert lines[2].startswith("players: note the commitment and the release now")
        assert lines[-1].startswith("receipt main@")
        assert lines[-1].endswith(f"; rules ose; release {release})")
        receipt = hexlog("receipt").stdout.splitlines()[0]
        assert receipt.endswith(f"; release {release})"), receipt
        assert f"(hexlog-dice-v2, release {release})" in hexlog("state").stdout
        assert json.loads(hexlog("state", "--json").stdout)["session"]["release"] == release
        assert f"(hexlog-dice-v2, release {release}); client seed none" in hexlog("session", "list").stdout
        listed = json.loads(hexlog("session", "list", "--json").stdout)
        assert [row["release"] for row in listed["sessions"]] == [release]
        log = hexlog("log", "--view", "player").stdout
        assert f"(hexlog-dice-v2, release {release})" in log
