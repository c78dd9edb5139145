"""``hexlog demo``: a whole session end to end, reproducible, and drawing on no randomness but the dice."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import TYPE_CHECKING

import attrs
import pytest

from hexlog.events import hexmap as mapev
from hexlog.events.streams import stream_for
from hexlog.machine import chase
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.dungeon import commands as dc
from hexlog.machine.registry import REGISTRY
from hexlog.projections import live
from hexlog.replay.rebuild import projections, table_at
from hexlog.service import demo
from hexlog.service.door import Door, open_store

from .conftest import secret_file

if TYPE_CHECKING:
    from pathlib import Path

SECRET = bytes(range(32)).hex()
VOLATILE = ("id", "time", "hash", "prevhash")

#: runs the real command line with every source of randomness but the committed dice guarded from
#: the start, before hexlog is imported (so a ``from random import ...`` in rule code is caught too):
#: a call made from hexlog's own files raises; libraries may still use randomness for themselves
#: (rich seeds an id counter at import). uuid4 (os.urandom) makes event ids, not rules.
NO_RANDOMNESS = """
import importlib.util, os, random, secrets, sys

HEXLOG = tuple(
    path for name in ("events", "machine", "projections", "replay", "service")
    for path in importlib.util.find_spec(f"hexlog.{name}").submodule_search_locations
)

def guard(module, name):
    original = getattr(module, name)

    def guarded(*args, **kwargs):
        if os.path.abspath(sys._getframe(1).f_code.co_filename).startswith(HEXLOG):
            raise AssertionError(f"rule code drew randomness outside the committed dice: {module.__name__}.{name}")
        return original(*args, **kwargs)

    setattr(module, name, guarded)

for name in ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "uniform",
             "getrandbits", "gauss", "triangular", "betavariate", "expovariate", "seed", "Random", "SystemRandom"):
    guard(random, name)
for name in ("token_bytes", "token_hex", "token_urlsafe", "choice", "randbelow", "randbits", "SystemRandom"):
    guard(secrets, name)

from hexlog.service.cli import main

sys.argv = ["hexlog", *sys.argv[1:]]
main()
"""


def _export(run, cwd: Path) -> list[dict]:
    result = run(cwd, "export", "--campaign", "demo")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def _demo(run, cwd: Path, seed: str = "table-7") -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    return run(cwd, "demo", "--secret-file", secret_file(cwd, SECRET), "--client-seed", seed)


class TestDemo:
    def test_the_demo_runs_a_whole_session_and_audits_clean(self, hexlog_in, tmp_path):
        """Open, a party of four, a journey with its camps, a delve, close: audited and replayed."""
        result = _demo(hexlog_in, tmp_path)
        assert result.returncode == 0, result.stderr
        for header in ("== Day 1: the moor road north", "== Day 2: fog over the moor", "== Night: ", "== The delve: "):
            assert header in result.stdout
        assert "campaign demo started under explore" in result.stdout
        assert "map loaded from demo_map.toml" in result.stdout
        assert "wilderness" in result.stdout
        assert result.stdout.count("joins the party") == 4
        # the demo's secret is given, so the verdict says the rolls do not protect the players
        counts = re.search(r"audit: INCOMPLETE: (\d+) of (\d+) rolls re-derived", result.stdout)
        assert counts is not None, result.stdout
        assert counts.group(1) == counts.group(2) != "0"
        assert "session s1's secret was supplied to hexlog, not drawn by it" in result.stdout
        assert "replay: matches" in result.stdout
        assert "Traceback" not in result.stderr

    def test_the_demo_with_a_drawn_secret_is_verified_and_gives_a_receipt_that_holds(self, hexlog):
        """The README's demo command (secret drawn): VERIFIED, and its receipt checks with audit --expect."""
        result = hexlog("demo")
        assert result.returncode == 0, result.stderr
        assert "audit: VERIFIED:" in result.stdout
        castle_and_chase(result.stdout, _events(hexlog))
        receipt = re.search(r"receipt for the players: (demo@\d+:[0-9a-f]{16})", result.stdout)
        assert receipt is not None, result.stdout
        checked = hexlog("audit", "--campaign", "demo", "--expect", receipt.group(1))
        assert checked.returncode == 0, checked.stdout
        assert f"receipt {receipt.group(1)}: held" in checked.stdout

    def test_a_secret_used_before_in_the_database_is_refused_before_the_demo_starts(self, hexlog, tmp_path):
        """The demo checks a given secret first: refused, it leaves no campaign without its session."""
        secret = secret_file(tmp_path, "5e" * 32)
        for args in (("init",), ("session", "open", "--secret-file", secret)):
            assert hexlog(*args).returncode == 0
        refused = hexlog("demo", "--secret-file", secret)
        assert refused.returncode == 1
        assert "that secret was already used by an earlier session of this database" in refused.stderr
        assert refused.stdout == ""
        store = open_store(tmp_path / "hexlog.db", readonly=True)
        assert sorted(store.streams()) == [stream_for("main")]

    def test_replay_after_the_demo_equals_the_live_projections(self, hexlog_in, tmp_path):
        """hexlog replay rebuilds every projection and finds it equal."""
        _demo(hexlog_in, tmp_path)
        result = hexlog_in(tmp_path, "replay", "--campaign", "demo")
        assert result.returncode == 0, result.stdout
        names = [projection.name for projection in projections()]
        assert names == ["table", "ledger"]
        assert result.stdout.count("equal (up to date)") == len(names)
        for name in names:
            assert f"  {name}: equal (up to date)" in result.stdout

    def test_twice_with_the_same_secret_and_seed_gives_the_same_events(self, hexlog_in, tmp_path):
        """Same event types and the same event data, ids, times and hashes aside."""
        _demo(hexlog_in, tmp_path / "one")
        _demo(hexlog_in, tmp_path / "two")
        one, two = _export(hexlog_in, tmp_path / "one"), _export(hexlog_in, tmp_path / "two")
        strip = lambda events: [{k: v for k, v in e.items() if k not in VOLATILE} for e in events]  # noqa: E731
        assert [e["type"] for e in one] == [e["type"] for e in two]
        assert strip(one) == strip(two)
        assert {e["id"] for e in one}.isdisjoint({e["id"] for e in two})

    def test_a_second_demo_in_the_same_database_gets_its_own_campaign(self, hexlog_in, tmp_path):
        """The README command can be run again without an error (a secret drawn anew: a given one, once
        revealed in the database, is refused for a later session)."""
        assert _demo(hexlog_in, tmp_path).returncode == 0
        again = hexlog_in(tmp_path, "demo")
        assert again.returncode == 0, again.stderr
        assert "campaign demo-2" in again.stdout

    def test_a_different_client_seed_changes_the_rolls(self, hexlog_in, tmp_path):
        """The players' seed really enters every roll."""
        _demo(hexlog_in, tmp_path / "one")
        _demo(hexlog_in, tmp_path / "two", "other words")
        faces = lambda events: [e["data"]["faces"] for e in events if e["type"] == "hexlog.dice.rolled"]  # noqa: E731
        assert faces(_export(hexlog_in, tmp_path / "one")) != faces(_export(hexlog_in, tmp_path / "two"))

    @pytest.mark.parametrize("secret", [SECRET, None])
    def test_no_rule_draws_randomness_but_the_committed_dice(self, tmp_path, secret):
        """With random and secrets made to raise, a whole demo still runs (given its secret)."""
        script = tmp_path / "guarded.py"
        script.write_text(NO_RANDOMNESS, encoding="utf-8")
        given = ["--secret-file", secret_file(tmp_path, secret)] if secret else []
        args = ["demo", "--client-seed", "table-7", *given]
        result = subprocess.run(  # noqa: S603 - our own script
            [sys.executable, str(script), *args], cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120
        )
        if secret is None:
            # without a given secret, only the session secret itself may (and must) come from secrets
            assert result.returncode != 0
            assert "outside the committed dice" in result.stderr
        else:
            assert result.returncode == 0, result.stderr
            assert "audit: INCOMPLETE" in result.stdout


#: client seeds for which the whole demo runs (the dice differ for each: lost, found, met or not; the
#: castle a lord, a superhero, a wizard, a patriarch or an evil high priest; the chase caught or escaped)
SEEDS = ("table-7", "other words", "seed-1", "seed-3", "seed-4", "seed-6", "seed-7", "seed-12")


def _events(hexlog) -> list[dict]:
    exported = hexlog("export", "--campaign", "demo")
    assert exported.returncode == 0, exported.stderr
    return [json.loads(line) for line in exported.stdout.splitlines()]


def _of(events: list[dict], type_name: str, /, **data) -> list[dict]:
    """The events of a type (``hexlog.`` left out) whose data holds ``data``."""
    return [
        e for e in events if e["type"] == f"hexlog.{type_name}" and all(e["data"].get(k) == v for k, v in data.items())
    ]


def castle_and_chase(stdout: str, events: list[dict]) -> None:
    """Whatever the dice: Ravensgate is passed (its secret ride-out check), met (by riding out or by a hail),
    its type, disposition and demand shown and answered as the state says; and the first wanderers of the
    delve are fled from, the delve handing off to a chase of rounds, burning oil and dropped food, to its end."""
    assert "a castle (Ravensgate) stands at 3,4: of a type and disposition to be rolled" in stdout
    # the day's check as it closes: for show once the castle is hailed, or out of reach where the party truly went
    day_one = re.compile(r"day 1, castles passed: 3,4 \((in its hex|\d hex(es)? away)(, rides out on [\d, ]+)?\)")
    assert day_one.search(stdout), [line for line in stdout.splitlines() if "castles passed" in line]
    passed = _of(events, "castle.passed")
    assert passed
    assert passed[0]["data"]["passed"][0]["hex"] == "3,4"
    met = _of(events, "castle.garrison_met", number=1)
    assert len(met) == 1
    kind, disposition = met[0]["data"]["kind"], met[0]["data"]["disposition"]
    assert met[0]["data"]["how"] == ("passing" if passed[0]["data"]["passed"][0]["rides_out"] else "hailed")
    shown = f"meeting 1: 8 riders (speed 240) of the castle at 3,4 ({met[0]['data']['how']}), {disposition} "
    assert shown in stdout
    assert f"{met[0]['data']['castle_type'].replace('_', ' ')}" in stdout.split(shown, 1)[1].split("\n", 1)[0]
    assert f": it {met[0]['data']['demand']}" in stdout
    if kind == "fighter":
        (joust,) = _of(events, "castle.joust_fought", fighter="Aldric")
        assert joust["data"]["face"] in range(1, 7)  # rolled, not chosen
        assert re.search(r"(defeats Aldric|Aldric defeats the castle's champion) \(d6=\d\)", stdout)
        outcome = f"jousted_{'won' if joust['data']['winner'] == 'party' else 'lost'}"
    elif disposition == "hostile":
        assert _of(events, "castle.demand_refused")
        assert _of(events, "procedure.handed_off", parent="castle", child="encounter")
        assert "the party refuses the castle's demand" in stdout
        outcome = "fought"
    else:
        (toll,) = _of(events, "castle.toll_demanded")
        assert _of(events, "castle.toll_paid", gold=toll["data"]["gold"])
        assert f"the party pays {toll['data']['gold']} gp" in stdout
        outcome = "paid"
    assert _of(events, "castle.meeting_ended", number=1, outcome=outcome)
    # the chase: handed off by the delve's encounter (or, when the dice let the party not flee at once, started by the
    # referee from the encounter after a round of fighting), rounds run, oil thrown, food dropped, and its end
    handed = _of(events, "procedure.handed_off", parent="encounter", child="chase")
    assert handed or ("the party cannot flee yet" in stdout and _of(events, "chase.started")), stdout[-3000:]
    (started,) = _of(events, "chase.started", name="barrow giant rats", fleeing="party", intelligent=False)
    assert started["data"]["pursuers_ft"] > started["data"]["fleeing_ft"]
    rounds = _of(events, "chase.round_run")
    assert rounds
    assert _of(events, "chase.round_run", obstacle="burning oil")
    (dropped,) = _of(events, "chase.item_dropped", item="food", tempted=True)
    (ended,) = _of(events, "chase.ended")
    assert ended["data"]["outcome"] == ("escaped" if dropped["data"]["stopped"] else "caught")
    assert "chase 1 'barrow giant rats' (dungeon) from encounter" in stdout
    assert "round 1: fleeing 90 ft" in stdout
    assert "food dropped (they are unintelligent: " in stdout
    ran = f"{len(rounds)} {'round' if len(rounds) == 1 else 'rounds'}"
    assert f"chase 1 over after {ran}: {ended['data']['outcome']}" in stdout
    if ended["data"]["outcome"] == "caught":
        assert "the giant rats catch the party: it turns at bay and fights" in stdout
        fought_where_caught(stdout, events, handed=bool(handed))


def fought_where_caught(stdout: str, events: list[dict], *, handed: bool) -> None:
    """A party caught by the chase its encounter handed off fights that encounter on (no new one is met); one caught
    by the chase the referee started after the encounter ended meets its pursuers again."""
    met_again = _of(events, "encounter.started", name="the barrow giant rats that caught the party")
    if handed:
        assert "chase has concluded: encounter resumes\n  ~ the giant rats catch the party" in stdout
        assert "  combat round 1: party, monsters may act" in stdout
    assert bool(met_again) is not handed


class TestTheSession:
    @pytest.mark.parametrize("seed", SEEDS)
    def test_the_demo_completes_whatever_the_dice(self, hexlog, seed):
        """Each seed gives other rolls; the referee's choices follow them and the session ends audited."""
        result = hexlog("demo", "--secret-file", "-", "--client-seed", seed, input_text=SECRET)
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr
        assert "audit: INCOMPLETE:" in result.stdout
        assert "replay: matches" in result.stdout
        events = _events(hexlog)
        # the night march in fog: lost when its die falls in the range of the hex the dice led the party to (a swamp
        # on any face, clear ground on 1-4; the audit re-derives it), and then told so
        (march,) = _of(events, "travel.lost_checked", night=True)
        assert march["data"]["lost_on"]
        if march["data"]["lost"]:
            assert _of(events, "travel.lost_revealed")
        assert _of(events, "travel.forced_march")
        assert _of(events, "travel.rested")
        assert _of(events, "dungeon.left")
        assert _of(events, "session.closed")
        castle_and_chase(result.stdout, events)

    def test_the_log_holds_every_beat_of_the_session(self, hexlog):
        """Weather, a lost check, a search that finds, a forced march and its rest, an encounter handed
        off by the travel day, the camp's nights, and the delve's light, door, search and wanderer."""
        result = hexlog("demo", "--secret-file", "-", "--client-seed", "seed-2", input_text=SECRET)
        assert result.returncode == 0, result.stderr
        events = _events(hexlog)
        assert _of(events, "map.loaded", source="demo_map.toml")
        placed = _of(events, "map.hidden_placed")
        assert placed
        assert all(set(e["data"]) == {"commitment"} for e in placed)  # neither the hex nor the text
        assert _of(events, "travel.day_started", weather="fog", rolls=[])  # the referee's fog
        assert [e for e in _of(events, "travel.day_started") if e["data"]["rolls"]]  # rolled weather
        assert _of(events, "travel.lost_checked", lost=True, night=True)  # the night march in fog
        assert _of(events, "travel.lost_checked", lost=False)
        assert _of(events, "travel.lost_revealed")
        assert _of(events, "travel.search_rolled", found=["the barrow of the Fen King"])
        (found,) = _of(events, "map.feature_located", hex="3,2")
        assert _of(events, "map.feature_told", feature="the barrow of the Fen King")
        opened = mapev.commitment(
            "3,2", found["data"]["feature"], lair=found["data"]["lair"], salt=found["data"]["salt"]
        )
        assert opened in [e["data"]["commitment"] for e in placed]
        assert _of(events, "travel.forced_march")
        assert _of(events, "travel.rested")
        assert _of(events, "travel.wandering_checked", encounter=True)
        assert _of(events, "procedure.handed_off", parent="travel", child="encounter")
        # a night for each travel day and each rest day (a pursuit's rest that adds up to a day of rest
        # within a travel day is recorded as rested on that day too, and brings no night of its own)
        ended = {e["data"]["day"] for e in _of(events, "travel.day_ended")}
        days = len(ended) + len({e["data"]["day"] for e in _of(events, "travel.rested")} - ended)
        for kind in ("camp.made", "camp.firewood_gathered", "camp.watches_set", "camp.night_checked", "camp.broken"):
            assert len(_of(events, kind)) == days, kind
        assert _of(events, "dungeon.entered", danger=True)
        assert _of(events, "dungeon.light_lit", kind="torch")
        assert _of(events, "dungeon.light_burned_out")
        assert _of(events, "dungeon.moved")
        assert _of(events, "dungeon.door_opened", stuck=True, opened=True)
        assert _of(events, "dungeon.door_listened")
        searched = _of(events, "dungeon.secret_door_searched")
        assert searched
        # explore's one secret die for the party's turn of searching (§4.2), whoever searches
        assert all(e["data"]["party_die"] and len(e["data"]["faces"]) == 1 for e in searched)
        assert len(_of(events, "dice.rolled", purpose="dungeon.search", made_for="party")) == len(searched)
        assert _of(events, "dungeon.wandering_checked", monster=True)
        assert _of(events, "procedure.handed_off", parent="dungeon", child="encounter")
        assert len(_of(events, "encounter.concluded")) == len(_of(events, "procedure.handed_off", child="encounter"))
        assert _of(events, "dungeon.left")
        for line in ("== Day 2: fog over the moor", "~ (the referee knows the party is lost", "found in 3,2"):
            assert line in result.stdout

    def test_the_state_at_every_version_is_the_state_of_the_log_cut_there(self, hexlog, tmp_path):
        """Every version through Python (the table as of V against a fold of the first V events of a
        fresh import), and a sample through ``hexlog state --at V`` against an import cut at V."""
        assert hexlog("demo", "--secret-file", "-", "--client-seed", "seed-3", input_text=SECRET).returncode == 0
        lines = hexlog("export", "--campaign", "demo").stdout.splitlines()
        (tmp_path / "all.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert hexlog("import", "all.jsonl", "--db", "copy.db").returncode == 0
        original, copy = open_store(tmp_path / "hexlog.db"), open_store(tmp_path / "copy.db")
        try:
            imported = [live.decode_recorded(r) for r in copy.read_stream(stream_for("demo"))]
            assert len(imported) == len(lines) > 200  # a whole session
            table = tables.Table()
            for version, event in enumerate(imported, start=1):
                table = tables.evolve(table, event, REGISTRY)
                assert table_at(original, "demo", version) == attrs.evolve(table, version=version), version
        finally:
            original.close()
            copy.close()
        # a cut inside one command's events would not import (a decision whose consequences are cut off
        # does not verify): the sample is cut between commands (a command's events share its time)
        times = [json.loads(line)["time"] for line in lines]
        between = [v for v in range(1, len(lines) + 1) if v == len(lines) or times[v] != times[v - 1]]
        for version in sorted({*between[:: max(1, len(between) // 8)], between[-1]}):
            cut = tmp_path / f"cut{version}"
            cut.mkdir()
            (cut / "log.jsonl").write_text("\n".join(lines[:version]) + "\n", encoding="utf-8")
            assert hexlog("import", str(cut / "log.jsonl"), "--db", str(cut / "hexlog.db")).returncode == 0
            then = hexlog("state", "--campaign", "demo", "--at", str(version)).stdout.splitlines()
            assert then[0] == f"as it was at version {version} of {len(lines)}"
            assert (
                then[1:] == hexlog("state", "--db", str(cut / "hexlog.db"), "--campaign", "demo").stdout.splitlines()
            ), version


class TestTheChaseWhenTheFlightIsRefused:
    @pytest.mark.parametrize("seed", ["table-7", "seed-1", "seed-2"])
    def test_a_party_already_fighting_breaks_away_and_the_referee_starts_the_chase(self, tmp_path, monkeypatch, seed):
        """A party that may not flee at once (here: already a round into the fight, past the charge) plays its
        round, breaks away, and the referee starts the chase from the concluded encounter; it runs to its end."""

        def into_the_fight(self: demo.Referee) -> None:
            self.do(enc.CheckSurprise())
            self.do(enc.DetermineDistance())
            for _ in range(10):
                if self.encounter().phase is enc.Phase.COMBAT:
                    break
                allowed = self.allowed(enc.PROCEDURE)
                step = next((s for s in ("take_free_action", "roll_initiative", "fight") if s in allowed), "round")
                commands = {
                    "take_free_action": enc.TakeFreeAction(action="attack"),
                    "roll_initiative": enc.RollInitiative(),
                    "fight": enc.Fight(),
                    "round": enc.PlayRound(),
                }
                self.do(commands[step])
            self.do(enc.PlayRound())  # a round fought: the charge is past, the party may no longer simply evade

        monkeypatch.setattr(demo.Referee, "opening", into_the_fight)
        door = Door.open(tmp_path / "hexlog.db", "demo", create=True)
        try:
            ref = demo.Referee(door)
            for command in (c.StartCampaign(ruleset="explore"), c.OpenSession(secret_hex=SECRET)):
                ref.do(command)
            ref.do(c.SetClientSeed(client_seed=seed))
            for member in demo.PARTY:
                ref.do(member)
            ref.do(dc.EnterDungeon(name="the barrow", danger=True))
            ref.do(dc.LightSource(kind="torch", by="Brenna"))
            ref.do(dc.Meet(name="barrow giant rats", monster_count=9, intelligent=False, monster_speed=120))
            ref.flee_underground("giant rats")
            table = door.table()
            chase_state = table.procedures["chase"]
            assert isinstance(chase_state, chase.ChaseState)
            assert chase_state.started.from_encounter == 1
            assert chase_state.phase in {chase.Phase.ESCAPED, chase.Phase.CAUGHT}
            assert table.procedures["dungeon"].phase.name == "EXPLORING"
        finally:
            door.close()


@pytest.mark.parametrize(("seed", "lost"), [("table-7", True), ("seed-2", False)])
def test_the_narration_reads_the_armor_worn_now(hexlog, seed, lost):
    """A joust lost takes Aldric's plate: the rats are then faster than a man in chain (Brenna's), not in plate."""
    result = hexlog("demo", "--secret-file", "-", "--client-seed", seed, input_text=SECRET)
    assert result.returncode == 0, result.stderr
    assert ("armor plate -> none" in result.stdout) is lost
    heaviest = "chain" if lost else "plate"
    assert f"too many to fight and faster than a man in {heaviest}: the party will run" in result.stdout
