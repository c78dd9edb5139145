"""Hidden features committed to: the keeper keeps them, a search or ``map reveal`` opens them, the audit
checks every opening and re-runs searches with what the log opens (INCOMPLETE while some never is)."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import attrs
import pytest

from hexlog.events import hexmap as ev
from hexlog.events import travel as tev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import LoadMap, RevealHidden, SetHex, hidden
from hexlog.machine.keeper import FileKeeper, MemoryKeeper
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as t
from hexlog.projections.visibility import withheld_sessions
from hexlog.replay.decisions import check_decision_events
from hexlog.service.render import timeline
from hexlog.service.render_travel import hex_lines

from .conftest import secret_file

if TYPE_CHECKING:
    from pathlib import Path

CAMPAIGN = "m"
STREAM = tables.stream_for(CAMPAIGN)
MAP = """
[hex."2,2"]
terrain = "meadow"

[hex."2,1"]
terrain = "hills"
hidden = ["ruined chapel"]
lairs = ["wolf den"]
"""
#: the reviewer's map file
REVIEWED = """
[hex."3,4"]
terrain = "meadow"
hidden = ["ruined chapel"]
lairs = ["wolf den"]
"""
CAVEAT = (
    "1 search made while 1 hidden map feature was never revealed: its result cannot be checked yet; "
    "the map's reveal step opens it"
)


def events_of(h: Handler) -> list:
    return [decode(r.envelope) for r in h.store.read_stream(STREAM)]


def handler(script: list[int]) -> Handler:
    h = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
    for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="3c" * 32), c.AddMember(name="Ann")):
        h.execute(CAMPAIGN, command)
    return h


def found_campaign(*, search_face: int | None, script: list[int] | None = None) -> Handler:
    """A journey in a hex with a hidden feature and a lair; optionally a search (a natural 1 finds the first).
    ``script`` is the dice the handler rolls, for more commands."""
    script = script if script is not None else []
    h = handler(script)
    h.execute(CAMPAIGN, SetHex(hex="2,1", terrain="hills", hidden=("ruined chapel",), lairs=("wolf den",)))
    h.execute(CAMPAIGN, t.StartJourney(hex="2,1"))
    h.execute(CAMPAIGN, t.RollWeather(weather="clear"))
    script.extend([6, 1])  # not lost; the heading die read by none
    h.execute(CAMPAIGN, t.DeclareRoute())
    if search_face is not None:
        script.append(search_face)
        h.execute(CAMPAIGN, t.SearchHex())
    return h


class TestCommitment:
    def test_the_commitment_is_sha256_of_salt_then_canonical_json(self) -> None:
        """A known answer, computed by hand from the README's description."""
        salt = "5a" * 32
        body = b'{"feature":"wolf den","hex":"3,5","lair":true}'
        assert (
            ev.commitment("3,5", "wolf den", lair=True, salt=salt)
            == hashlib.sha256(bytes.fromhex(salt) + body).hexdigest()
        )
        assert ev.commitment("3,5", "wolf den", lair=False, salt=salt) != ev.commitment(
            "3,5", "wolf den", lair=True, salt=salt
        )

    def test_a_salt_that_is_not_hex_opens_nothing(self) -> None:
        assert ev.commitment("3,5", "wolf den", lair=True, salt="zz") == ""

    def test_each_feature_gets_its_own_salt(self) -> None:
        h = found_campaign(search_face=None)
        salts = [f.salt for f in hidden.kept(h.keeper, CAMPAIGN, h.load(CAMPAIGN).procedures["map"])]
        assert len(set(salts)) == 2
        assert all(len(bytes.fromhex(s)) == hidden.SALT_BYTES for s in salts)


class TestKeeperFacts:
    def test_the_memory_keeper_keeps_facts_by_campaign(self) -> None:
        keeper = MemoryKeeper()
        keeper.put_fact("a", "k", "v")
        assert keeper.get_facts("a") == {"k": "v"}
        assert keeper.get_facts("b") == {}

    def test_an_old_key_file_still_loads_and_keeps_its_secrets(self, tmp_path: Path) -> None:
        """A key file of session secrets only has no facts; adding one keeps every secret readable."""
        path = tmp_path / "db.keys"
        secret = bytes(range(32))
        commitment = hashlib.sha256(secret).hexdigest()
        path.write_text(json.dumps({"c1/s1": secret.hex()}), encoding="utf-8")
        keeper = FileKeeper(path)
        assert keeper.get_facts("c1") == {}
        assert keeper.get("c1", "s1", commitment) == secret
        keeper.put_fact("c1", "k", "v")
        assert keeper.get_facts("c1") == {"k": "v"}
        assert FileKeeper(path).get("c1", "s1", commitment) == secret
        assert path.stat().st_mode & 0o777 == 0o600


class _CountingKeeper(FileKeeper):
    """A key file that counts its writes."""

    writes = 0

    def _write(self, data: dict[str, object]) -> None:
        self.writes += 1
        super()._write(data)


class TestOneWritePerCommand:
    def test_a_map_load_writes_the_key_file_once_for_all_its_hidden_features(self, tmp_path: Path) -> None:
        """Twelve hidden features and the salt key drawn for them: one write of the key file, all kept."""
        keeper = _CountingKeeper(tmp_path / "db.keys")
        h = Handler(MemoryStore(), keeper, roller=lambda _table: ScriptedRoller([]))
        for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex="3c" * 32)):
            h.execute(CAMPAIGN, command)
        before = keeper.writes
        path = tmp_path / "many.toml"
        path.write_text(
            "".join(f'[hex."{n},0"]\nterrain = "meadow"\nhidden = ["cache {n}a", "cache {n}b"]\n' for n in range(6)),
            encoding="utf-8",
        )
        h.execute(CAMPAIGN, LoadMap(file=str(path)))
        assert keeper.writes - before == 1
        features = hidden.kept(keeper, CAMPAIGN, h.load(CAMPAIGN).procedures["map"])
        assert sorted(f.feature for f in features) == sorted(f"cache {n}{x}" for n in range(6) for x in "ab")
        assert len({f.salt for f in features}) == 12

    def test_the_salts_are_those_one_feature_at_a_time_gives(self) -> None:
        """A feature's salt depends on its place among the map's commitments, placed in one command or many."""
        one = found_campaign(search_face=None)
        other = handler([])
        other.keeper.put_fact(CAMPAIGN, hidden.SALT_KEY, one.keeper.get_facts(CAMPAIGN)[hidden.SALT_KEY])
        other.execute(CAMPAIGN, SetHex(hex="2,1", terrain="hills", hidden=("ruined chapel",)))
        other.execute(CAMPAIGN, SetHex(hex="2,1", lairs=("wolf den",)))
        assert one.load(CAMPAIGN).procedures["map"].placed == other.load(CAMPAIGN).procedures["map"].placed


def lost_find(*, lost: bool = True, hoard: bool = False) -> Handler:
    """A party sets out from 2,2 heading N but is lost and truly goes SE (the lost die 1, the heading die 3)
    into 3,2, where a cairn is hidden; it believes it is at 2,1 and searches there: a natural 1 finds the cairn.
    Not ``lost`` (the lost die 6), it goes where it meant to, 2,1, and the cairn is hidden there. A ``hoard`` is
    hidden in 4,4 first, and never revealed: had it lain in the searched hex, the search would have found it."""
    script: list[int] = []
    h = handler(script)
    where = "3,2" if lost else "2,1"
    if hoard:
        h.execute(CAMPAIGN, SetHex(hex="4,4", terrain="meadow", hidden=("a buried hoard",)))
    for name in ("2,2", "2,1", "3,2"):
        h.execute(CAMPAIGN, SetHex(hex=name, terrain="meadow", hidden=("cairn",) if name == where else ()))
    h.execute(CAMPAIGN, t.StartJourney(hex="2,2"))
    h.execute(CAMPAIGN, t.RollWeather(weather="clear"))
    script.extend([1 if lost else 6, 3])
    h.execute(CAMPAIGN, t.DeclareRoute(headings=("N",)))
    h.execute(CAMPAIGN, t.Move())
    trip = h.load(CAMPAIGN).procedures["travel"]
    assert (trip.hex, trip.believed) == (where, "2,1")
    script.append(1)
    h.execute(CAMPAIGN, t.SearchHex())
    return h


def player_map(h: Handler) -> str:
    the_map = h.load(CAMPAIGN).procedures["map"]
    return "\n".join(line for name, place in the_map.hexes.items() for line in hex_lines(name, place, player=True))


class TestFoundWhileLost:
    def test_the_find_is_the_referees_until_the_party_learns_it_is_lost(self) -> None:
        """The players' log and map do not show where the cairn was found; the referee's do."""
        h = lost_find()
        events = events_of(h)
        (find,) = [e for e in events if isinstance(e, ev.FeatureLocated)]
        assert (find.hex, find.feature, find.lost) == ("3,2", "cairn", True)
        assert not [e for e in events if isinstance(e, ev.FeatureFound | ev.FeatureFoundLost)]
        player = "\n".join(line.text for line in timeline(list(h.store.read_stream(STREAM)), player=True))
        assert "in 3,2" not in player
        assert "lost party" not in player
        assert "the party found cairn" in player
        assert "map.feature_located (hidden" in player
        referee = "\n".join(line.text for line in timeline(list(h.store.read_stream(STREAM))))
        assert "found in 3,2 by the lost party" in referee
        assert "cairn" not in player_map(h)
        the_map = h.load(CAMPAIGN).procedures["map"]
        assert the_map.unopened == ()
        assert the_map.hex("3,2").found == ("cairn",)
        h.execute(CAMPAIGN, t.RevealLost())
        assert "found: cairn" in player_map(h)

    def test_the_session_end_shows_the_find_to_the_players(self) -> None:
        h = lost_find()
        h.execute(CAMPAIGN, c.CloseSession())
        assert "found: cairn" in player_map(h)
        player = "\n".join(line.text for line in timeline(list(h.store.read_stream(STREAM)), player=True))
        assert "found in 3,2 by the lost party" in player

    def test_the_players_see_a_find_the_same_lost_or_not(self) -> None:
        """Everything the players see of a search that finds, line by line and on their map, is the same whether
        the party was lost (the find in its true hex, 3,2) or not (in 2,1, where it believes it is)."""
        seen = []
        for lost in (True, False):
            h = lost_find(lost=lost)
            lines = [line.text for line in timeline(list(h.store.read_stream(STREAM)), player=True)]
            at = max(i for i, text in enumerate(lines) if text.startswith("the party searches"))
            seen.append((lines[at:], player_map(h)))
        assert seen[0] == seen[1]
        assert "the party found cairn" in seen[0][0]
        assert "cairn" not in seen[0][1]

    def test_a_players_export_waits_for_the_session_end_even_without_a_secret_roll(self) -> None:
        """The find is withheld like a secret roll: its session is one an export for players must wait for."""
        events = events_of(lost_find())
        assert withheld_sessions(events) == {"s1"}
        alone = [e for e in events if not isinstance(e, DiceRolled) and not getattr(e, "referee_rolls", ())]
        assert any(isinstance(e, ev.FeatureLocated) for e in alone)
        assert withheld_sessions(alone) == {"s1"}

    @pytest.mark.parametrize("lost", [True, False])
    def test_a_forged_find_fails_the_audit_while_features_stay_hidden(self, lost: bool) -> None:  # noqa: FBT001
        """With a feature still hidden (the search cannot be re-run in full), a find told where no search made one,
        told without its location, dropped with it (the search still records it), told as another feature, or
        located with the party's straying turned round, is a finding naming the event: none needs the hidden key."""
        events = events_of(lost_find(lost=lost, hoard=True))
        honest = check_decision_events(events)
        assert honest.issues == ()
        assert honest.doubts  # the search is unsure: a feature placed before it is never revealed
        told = next(i for i, e in enumerate(events) if isinstance(e, ev.FeatureTold))
        located = told + 1
        forged = {
            "told-anywhere": [*events, ev.FeatureTold(feature="a dragon's hoard", lair=True)],
            "told-dropped": events[:told] + events[told + 1 :],
            "both-dropped": events[:told] + events[located + 1 :],
            "told-renamed": [*events[:told], attrs.evolve(events[told], feature="a heap of gold"), *events[located:]],
            "lost-turned": [
                *events[:located],
                attrs.evolve(events[located], lost=not lost),
                *events[located + 1 :],
            ],
        }
        search = max(i for i, e in enumerate(events[:told]) if isinstance(e, tev.SearchRolled))
        at = {"told-anywhere": len(events), "told-dropped": told, "both-dropped": search}
        at |= {"told-renamed": told, "lost-turned": located}
        for name, changed in forged.items():
            issues = check_decision_events(changed).issues
            assert at[name] in [i.at for i in issues], (name, issues)

    def test_the_audit_checks_the_opening_and_re_runs_the_search(self) -> None:
        h = lost_find()
        events = events_of(h)
        found = check_decision_events(events)
        assert (found.issues, found.doubts) == ((), ())
        assert found.checked == 2  # the lost check and the search
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.FeatureLocated))
        events[at] = attrs.evolve(events[at], feature="a heap of gold")
        issues = check_decision_events(events).issues
        assert any(i.at == at and "map.feature_located" in i.reason for i in issues)


class TestReveal:
    def test_reveal_opens_every_feature_still_hidden(self) -> None:
        """The chapel found, the lair revealed: no commitment is left hidden, and players see both."""
        h = found_campaign(search_face=1)
        out = h.execute(CAMPAIGN, RevealHidden())
        (opened,) = [e for e in out.events if isinstance(e, ev.FeatureRevealed)]
        assert (opened.hex, opened.feature, opened.lair) == ("2,1", "wolf den", True)
        the_map = out.table.procedures["map"]
        assert the_map.unopened == ()
        assert [(f.text, f.found) for f in the_map.hex("2,1").features] == [
            ("ruined chapel", True),
            ("wolf den", False),
        ]

    def test_nothing_left_to_reveal_is_refused_and_writes_nothing(self) -> None:
        h = found_campaign(search_face=1)
        h.execute(CAMPAIGN, RevealHidden())
        version = h.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="no hidden feature"):
            h.execute(CAMPAIGN, RevealHidden())
        assert h.store.stream_version(STREAM) == version

    def test_reveal_is_offered_only_while_something_is_hidden(self) -> None:
        h = found_campaign(search_face=1)
        runner = h.registry.runner("map")

        def offered() -> list[str]:
            table = h.load(CAMPAIGN)
            return [trigger for trigger, _ in runner.allowed(table.procedures["map"], table)]

        assert "reveal" in offered()
        h.execute(CAMPAIGN, RevealHidden())
        assert "reveal" not in offered()
        assert "set" in offered()

    def test_a_keeper_without_the_features_refuses_to_reveal(self) -> None:
        h = found_campaign(search_face=None)
        lost = Handler(h.store, MemoryKeeper())
        version = h.store.stream_version(STREAM)
        with pytest.raises(RuleRefusedError, match="lacks 2 hidden feature"):
            lost.execute(CAMPAIGN, RevealHidden())
        assert h.store.stream_version(STREAM) == version


class TestAudit:
    def test_a_feature_never_revealed_leaves_a_caveat_not_a_finding(self) -> None:
        """The chapel found, then a search that found nothing, the lair never revealed: the audit says what it
        cannot check; a search that found is checked in full and leaves no caveat."""
        script: list[int] = []
        h = found_campaign(search_face=1, script=script)
        assert check_decision_events(events_of(h)).doubts == ()
        script.append(6)
        h.execute(CAMPAIGN, t.SearchHex())
        found = check_decision_events(events_of(h))
        assert found.issues == ()
        assert found.doubts == (CAVEAT,)

    def test_without_a_search_nothing_is_left_unchecked(self) -> None:
        """No search read the chapel or the lair: nothing to doubt, and the audit notes them."""
        found = check_decision_events(events_of(found_campaign(search_face=None)))
        assert (found.issues, found.doubts) == ((), ())
        assert found.asides == ("2 hidden map features never revealed: no search depended on them",)

    def test_a_search_that_found_is_checked_even_while_a_feature_stays_hidden(self) -> None:
        """The lair is never revealed, yet the search that found the chapel is re-run in full."""
        events = events_of(found_campaign(search_face=1))
        at = next(i for i, e in enumerate(events) if isinstance(e, tev.SearchRolled))
        events[at] = attrs.evolve(events[at], found_on=(5, 6))
        issues = check_decision_events(events).issues
        assert [i.at for i in issues][:1] == [at]
        assert "found_on" in issues[0].reason

    def test_a_search_that_found_is_unsure_while_a_feature_placed_before_its_find_stays_hidden(self) -> None:
        """The cache was placed before the chapel and is never revealed: had it been in the chapel's hex, the search
        would have found it instead, so the search that found the chapel cannot be checked: the caveat names the
        search and the features never revealed that were hidden at it."""
        script: list[int] = []
        h = handler(script)
        h.execute(CAMPAIGN, SetHex(hex="4,4", terrain="bog", hidden=("smugglers' cache",)))
        h.execute(CAMPAIGN, SetHex(hex="2,1", terrain="hills", hidden=("ruined chapel",), lairs=("wolf den",)))
        h.execute(CAMPAIGN, t.StartJourney(hex="2,1"))
        h.execute(CAMPAIGN, t.RollWeather(weather="clear"))
        script.extend([6, 1, 1])  # not lost; the heading die; the search finds the chapel
        h.execute(CAMPAIGN, t.DeclareRoute())
        h.execute(CAMPAIGN, t.SearchHex())
        assert [e.feature for e in events_of(h) if isinstance(e, ev.FeatureLocated)] == ["ruined chapel"]
        found = check_decision_events(events_of(h))
        assert found.issues == ()
        assert found.doubts == (CAVEAT.replace("1 hidden map feature was", "2 hidden map features were")[:-2] + "them",)

    def test_a_feature_placed_after_every_search_leaves_nothing_unchecked(self) -> None:
        """A search that found nothing, then a feature placed elsewhere and never revealed: the search could not
        have found it, so it is checked in full."""
        h = found_campaign(search_face=6)
        h.execute(CAMPAIGN, RevealHidden())
        h.execute(CAMPAIGN, SetHex(hex="4,4", terrain="bog", hidden=("smugglers' cache",)))
        found = check_decision_events(events_of(h))
        assert (found.issues, found.doubts) == ((), ())
        assert found.asides == ("1 hidden map feature never revealed: no search depended on it",)

    def test_once_revealed_every_search_is_re_run_and_verified(self) -> None:
        """A search that found nothing, in the lair's hex, is checked with the lair the reveal opened."""
        script: list[int] = []
        h = handler(script)
        h.execute(CAMPAIGN, SetHex(hex="2,1", terrain="hills", hidden=("ruined chapel",), lairs=("wolf den",)))
        h.execute(CAMPAIGN, t.StartJourney(hex="2,1"))
        h.execute(CAMPAIGN, t.RollWeather(weather="clear"))
        script.extend([6, 1, 6])
        h.execute(CAMPAIGN, t.DeclareRoute())
        h.execute(CAMPAIGN, t.SearchHex())
        assert not [e for e in events_of(h) if isinstance(e, ev.FeatureLocated)]
        h.execute(CAMPAIGN, RevealHidden())
        found = check_decision_events(events_of(h))
        assert (found.issues, found.doubts) == ((), ())
        assert found.checked == 2  # the lost check and the search

    def test_a_search_that_hid_its_find_is_caught_once_the_feature_is_revealed(self) -> None:
        """A natural 1 found the chapel; the log says nothing was found and reveals it at the end instead."""
        h = found_campaign(search_face=1)
        h.execute(CAMPAIGN, RevealHidden())
        events = events_of(h)
        at = next(i for i, e in enumerate(events) if isinstance(e, tev.SearchRolled))
        found = next(i for i, e in enumerate(events) if isinstance(e, ev.FeatureLocated))
        events[at] = attrs.evolve(events[at], found=())
        events[found] = ev.FeatureRevealed(**attrs.asdict(events[found], filter=lambda a, _: a.name != "lost"))
        issues = check_decision_events(events).issues
        assert [i.at for i in issues][:1] == [at]

    def test_a_reveal_that_matches_no_commitment_fails_naming_it(self) -> None:
        h = found_campaign(search_face=None)
        h.execute(CAMPAIGN, RevealHidden())
        events = events_of(h)
        at = next(i for i, e in enumerate(events) if isinstance(e, ev.FeatureRevealed))
        events[at] = attrs.evolve(events[at], feature="a heap of gold")
        (issue,) = check_decision_events(events).issues
        assert issue.at == at
        assert "map.feature_revealed" in issue.reason
        assert "matches no earlier commitment" in issue.reason

    def test_a_feature_found_without_a_commitment_before_it_fails(self) -> None:
        h = found_campaign(search_face=1)
        events = events_of(h)
        placed = next(i for i, e in enumerate(events) if isinstance(e, ev.HiddenFeaturePlaced))
        found = next(i for i, e in enumerate(events) if isinstance(e, ev.FeatureLocated))
        events[placed] = ev.HiddenFeaturePlaced(commitment="00" * 32)
        issues = check_decision_events(events).issues
        assert any(i.at == found and "map.feature_located" in i.reason for i in issues)

    def test_an_empty_commitment_opened_by_a_salt_that_is_not_hex_fails(self) -> None:
        """An empty commitment would match the empty one a salt that is not hex gives, whatever the opening names: the
        commitment is a finding (it commits to nothing), and the find, matching no commitment, is one too."""
        h = found_campaign(search_face=1)
        events = events_of(h)
        placed = next(i for i, e in enumerate(events) if isinstance(e, ev.HiddenFeaturePlaced))
        found = next(i for i, e in enumerate(events) if isinstance(e, ev.FeatureLocated))
        events[placed] = ev.HiddenFeaturePlaced(commitment="")
        events[found] = attrs.evolve(events[found], feature="the dragon's hoard", salt="not hex")
        assert events[found].commitment == ""
        issues = check_decision_events(events).issues
        assert [(i.at, i.reason) for i in issues if i.at == placed] == [
            (placed, "map.hidden_placed: the commitment '' is not a SHA-256 in hex: it commits to nothing")
        ]
        assert any(i.at == found and "matches no earlier commitment" in i.reason for i in issues)


class TestCommandLine:
    def test_map_reveal_then_the_audit_verifies(self, hexlog, tmp_path: Path) -> None:
        path = tmp_path / "valley.toml"
        path.write_text(MAP, encoding="utf-8")
        for args in (("init", "--ruleset", "explore"), ("session", "open"), ("map", "load", str(path))):
            assert hexlog(*args).returncode == 0
        assert "hidden (referee only): ruined chapel, wolf den (lair)" in hexlog("map", "show", "2,1").stdout
        raw = (tmp_path / "hexlog.db.keys").read_text(encoding="utf-8")
        assert "ruined chapel" in raw  # the key file keeps the plaintext
        revealed = hexlog("map", "reveal")
        assert revealed.returncode == 0, revealed.stderr
        assert "revealed by the referee, never found: ruined chapel in 2,1" in revealed.stdout
        assert (
            "revealed, never found: ruined chapel, wolf den" in hexlog("map", "show", "2,1", "--view", "player").stdout
        )
        assert hexlog("session", "close").returncode == 0
        audit = hexlog("audit")
        assert "VERIFIED" in audit.stdout, audit.stdout

    def test_an_unrevealed_map_audits_incomplete_once_searched(self, hexlog, tmp_path) -> None:
        """The wolf den is found (these dice roll a 3), a second search finds nothing; the cache elsewhere is
        never revealed: INCOMPLETE, naming it."""
        for args in (
            ("init", "--ruleset", "explore"),
            ("session", "open", "--secret-file", secret_file(tmp_path, "4d" * 32)),
            ("session", "seed", "table words"),
            ("party", "add", "Ann"),
            ("map", "set", "1,1", "--terrain", "hills", "--lair", "wolf den"),
            ("map", "set", "4,4", "--terrain", "bog", "--hidden", "smugglers' cache"),
            ("travel", "start", "1,1"),
            ("travel", "weather", "--set", "clear"),
            ("travel", "route"),
        ):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stderr)
        searched = hexlog("travel", "search")
        assert "found in 1,1: wolf den (a lair)" in searched.stdout
        again = hexlog("travel", "search")
        assert "nothing found" in again.stdout, again.stdout
        assert hexlog("session", "close").returncode == 0
        audit = hexlog("audit")
        assert "INCOMPLETE" in audit.stdout, audit.stdout
        assert CAVEAT in audit.stdout
        exported = hexlog("export")
        assert exported.returncode == 0, exported.stderr
        assert "wolf den" in exported.stdout
        assert "cache" not in exported.stdout
        placed = [json.loads(line) for line in exported.stdout.splitlines() if "map.hidden_placed" in line]
        assert [set(p["data"]) for p in placed] == [{"commitment"}] * 2

    def _searched(self, hexlog, tmp_path: Path, *, cache_first: bool, secret: str | None = None) -> None:
        """The reviewer's map: the chapel and the wolf den in 3,4 from a map file, the cache set in 3,5 (before the
        file with ``cache_first``); one search of 3,4, then the session closed."""
        path = tmp_path / "valley.toml"
        path.write_text(REVIEWED, encoding="utf-8")
        cache = ("map", "set", "3,5", "--terrain", "bog", "--hidden", "smugglers' cache")
        maps = [cache, ("map", "load", str(path))]
        opened = ("session", "open", *(("--secret-file", secret_file(tmp_path, secret)) if secret else ()))
        for args in (
            ("init", "--ruleset", "explore"),
            opened,
            ("session", "seed", "table words"),
            ("party", "add", "Ann"),
            *(maps if cache_first else maps[::-1]),
            ("travel", "start", "3,4"),
            ("travel", "weather", "--set", "clear"),
            ("travel", "route"),
            ("travel", "search"),
            ("session", "close"),
        ):
            done = hexlog(*args)
            assert done.returncode == 0, (args, done.stderr)

    def test_a_search_that_found_the_first_feature_of_its_hex_is_checked_in_full(self, hexlog, tmp_path) -> None:
        """The search of 3,4 finds the chapel; the wolf den and the cache, placed after it and never revealed, could
        not have been found instead: nothing is left unchecked (the secret was supplied, which the audit names)."""
        self._searched(hexlog, tmp_path, cache_first=False, secret="4d" * 32)
        audit = hexlog("audit")
        assert "found in 3,4: ruined chapel" in hexlog("log").stdout
        assert "  - 1 search" not in audit.stdout, audit.stdout
        assert "note: 2 hidden map features never revealed: no search depended on them" in audit.stdout.splitlines()

    def test_a_search_made_while_a_feature_placed_before_it_stays_hidden_audits_incomplete(
        self, hexlog, tmp_path
    ) -> None:
        """The cache placed first and never revealed might have been in 3,4: whatever the search found, INCOMPLETE
        (exit 3), naming the search and the features; ``map reveal`` opens them and the audit verifies."""
        self._searched(hexlog, tmp_path, cache_first=True)
        audit = hexlog("audit")
        assert audit.returncode == 3, audit.stdout
        found = "found in 3,4: ruined chapel" in hexlog("log").stdout
        hidden = 2 if found else 3  # the chapel too, when the search found nothing
        assert (
            f"  - 1 search made while {hidden} hidden map features were never revealed: its result cannot be checked "
            "yet; the map's reveal step opens them"
        ) in audit.stdout.splitlines()
        assert hexlog("map", "reveal").returncode == 0
        audit = hexlog("audit")
        assert (audit.returncode, audit.stdout.splitlines()[1]) == (
            0,
            "VERIFIED: every roll re-derived, every decision re-run",
        )
