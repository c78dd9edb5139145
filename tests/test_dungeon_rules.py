"""The dungeon follows its tables: known answers on scripted dice, and each table entry changed by a house rule."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from hexlog.events import dungeon as ev
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode, to_data
from hexlog.events.dice import DiceRolled, RollModifier, Visibility
from hexlog.events.errors import NotFoundError, RuleRefusedError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import PhaseChanged
from hexlog.events.store import ProjectionRow
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import ruleset as rulesets
from hexlog.machine.campaign import CAMPAIGN as CAMPAIGN_PROCEDURE
from hexlog.machine.dungeon import DUNGEON
from hexlog.machine.dungeon.rules import SecretDoorRoll
from hexlog.machine.encounter import ENCOUNTER
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.clock import ClockOptions, turns
from hexlog.machine.kit.context import StepContext
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.kit.registry import Registry
from hexlog.machine.kit.rules import RulesError
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.table import stream_for
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.service import render_dungeon

if TYPE_CHECKING:
    from hexlog.events.base import Event

CAMPAIGN = "t"
MEMBERS = (c.AddMember(name="Ann", strength=16), c.AddMember(name="Bo", speed=90))


class Delve:
    """A campaign on a scripted roller, inside a delve: ``faces`` are the dice the next command rolls."""

    def __init__(
        self,
        tables: dict[str, Any] | None = None,
        members: tuple[c.AddMember, ...] = MEMBERS,
        registry: Registry = REGISTRY,
        enter: dg.EnterDungeon | None = None,
    ) -> None:
        self.script: list[int] = []
        roller = lambda _table: ScriptedRoller(self.script)  # noqa: E731 - the handler's roller
        self.handler = Handler(MemoryStore(), MemoryKeeper(), registry=registry, roller=roller)
        self.run(c.StartCampaign(ruleset="explore", overrides={"tables": tables} if tables else {}))
        self.run(c.OpenSession(secret_hex="cd" * 32))
        for member in members:
            self.run(member)
        self.run(enter or dg.EnterDungeon())

    def run(self, command: c.Command, *faces: int) -> list[Event]:
        """Execute one command on the given faces; all of them must be used."""
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    @property
    def state(self) -> dg.DelveState:
        return self.handler.load(CAMPAIGN).procedures["dungeon"]


def only(events: list[Event], kind: type[Any]) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, found
    return found[0]


def rolls(events: list[Event]) -> list[DiceRolled]:
    return [e for e in events if isinstance(e, DiceRolled)]


class TestStuckDoors:
    @pytest.mark.parametrize(
        ("strength", "chance"),
        [(3, 1), (8, 1), (9, 2), (12, 2), (13, 3), (15, 3), (16, 4), (17, 4), (18, 5)],
    )
    def test_the_chance_in_6_follows_the_str_band(self, strength: int, chance: int):
        """A face of the chance forces the door; one more does not (and the failure is noisy)."""
        d = Delve(members=(c.AddMember(name="Cy", strength=strength),))
        won = only(d.run(dg.OpenDoor(by="Cy"), chance), ev.DoorOpened)
        assert (won.chance_in_6, won.opened, won.noisy, won.strength) == (chance, True, False, strength)
        lost = only(d.run(dg.OpenDoor(by="Cy"), chance + 1), ev.DoorOpened)
        assert (lost.opened, lost.noisy) == (False, True)

    def test_the_roll_is_made_for_the_character(self):
        d = Delve()
        (roll,) = rolls(d.run(dg.OpenDoor(by="Bo"), 2))
        assert (roll.purpose, roll.made_for, roll.visibility) == ("dungeon.door", "Bo", Visibility.PUBLIC)

    @pytest.mark.parametrize(("tool", "break_face", "broke"), [("crowbar", 1, True), ("axe", 2, False)])
    def test_a_tool_adds_its_bonus_and_breaks_on_its_second_die(self, tool: str, break_face: int, broke):
        """STR 10 (2-in-6) with a tool is 3-in-6: a 3 opens; the tool's own d6 breaks it on a 1."""
        d = Delve(members=(c.AddMember(name="Cy", strength=10),))
        events = d.run(dg.OpenDoor(by="Cy", tool=tool), 3, break_face)
        door = only(events, ev.DoorOpened)
        assert (door.chance_in_6, door.opened, door.break_face, door.tool_broke) == (3, True, break_face, broke)
        assert [r.purpose for r in rolls(events)] == ["dungeon.door", "dungeon.door.tool"]
        assert rolls(events)[1].made_for == ""

    def test_a_door_not_stuck_opens_without_a_roll(self):
        door = only(Delve().run(dg.OpenDoor(by="Ann", free=True)), ev.DoorOpened)
        assert (door.stuck, door.opened, door.rolls) == (False, True, ())

    def test_a_door_spiked_shut_counts_as_stuck(self):
        """Even noted as free, a door spiked shut must be forced."""
        d = Delve()
        d.run(dg.SpikeDoor(held_open=False, door="north"))
        door = only(d.run(dg.OpenDoor(by="Ann", door="north", free=True), 5), ev.DoorOpened)
        assert (door.stuck, door.chance_in_6, door.opened) == (True, 4, False)
        assert "north" in d.state.spiked_shut
        d.run(dg.OpenDoor(by="Ann", door="north", free=True), 1)
        assert "north" not in d.state.spiked_shut


#: the rule of rules recorded before doors stuck again: a door once forced no longer sticks
FORCED_ONCE = {"dungeon": {"doors_stick_again": False}}


class TestRememberedDoors:
    def test_a_door_forced_open_opens_again_without_a_roll_where_doors_do_not_stick_again(self):
        d = Delve(FORCED_ONCE)
        d.run(dg.OpenDoor(by="Ann", door="north"), 5)  # STR 16: 4-in-6, a 5 fails
        assert d.state.doors["north"].text == "stuck"
        forced = only(d.run(dg.OpenDoor(by="Ann", door="north", free=True), 2), ev.DoorOpened)
        assert (forced.stuck, forced.opened) == (True, True)  # known stuck: --free does not spare the roll
        assert d.state.doors["north"].text == "forced open"
        again = only(d.run(dg.OpenDoor(by="Bo", door="north")), ev.DoorOpened)
        assert (again.stuck, again.opened, again.rolls) == (False, True, ())
        assert only(d.run(dg.OpenDoor(by="Bo", door="south"), 6), ev.DoorOpened).stuck  # another door is not known

    def test_a_locked_door_stays_locked_until_a_key_or_pick_opens_it(self):
        d = Delve()
        picked = only(d.run(dg.OpenDoor(by="Bo", door="vault", locked=True, pick_in_6=1, free=True), 4), ev.DoorOpened)
        assert (picked.unlocked, picked.opened) == (ev.Unlock.NONE, False)
        assert d.state.doors["vault"].text == "locked"
        with pytest.raises(UsageError, match="door 'vault' is locked: give --key or a thievery chance"):
            d.run(dg.OpenDoor(by="Bo", door="vault", free=True))
        again = only(d.run(dg.OpenDoor(by="Bo", door="vault", pick_in_6=2, free=True), 2), ev.DoorOpened)
        assert (again.locked, again.unlocked, again.opened) == (True, ev.Unlock.PICK, True)
        assert d.state.doors["vault"].text == "unlocked, opened"  # picked, and not stuck: not forced
        last = only(d.run(dg.OpenDoor(by="Ann", door="vault")), ev.DoorOpened)
        assert (last.locked, last.stuck, last.opened, last.rolls) == (False, False, True, ())

    def test_a_door_that_opens_at_once_is_shown_opened_not_forced(self):
        """A door noted free opens without a roll: the state says it was opened, and it opens again at once."""
        d = Delve()
        first = only(d.run(dg.OpenDoor(by="Ann", door="west", free=True)), ev.DoorOpened)
        assert (first.stuck, first.opened, first.rolls) == (False, True, ())
        assert d.state.doors["west"].text == "opened"
        again = only(d.run(dg.OpenDoor(by="Bo", door="west")), ev.DoorOpened)
        assert (again.stuck, again.opened, again.rolls) == (False, True, ())
        assert d.state.doors["west"].text == "opened"

    def test_a_door_that_opens_at_the_first_try_is_shown_opened(self):
        """Its first try opens it (STR 16: 4-in-6, a 2 opens it): the state says opened, not forced open, and
        so it stays when it opens again without a roll (where doors do not stick again)."""
        d = Delve(FORCED_ONCE)
        first = only(d.run(dg.OpenDoor(by="Ann", door="north"), 2), ev.DoorOpened)
        assert (first.stuck, first.opened) == (True, True)
        assert d.state.doors["north"].text == "opened"
        d.run(dg.OpenDoor(by="Bo", door="north"))
        assert d.state.doors["north"].text == "opened"
        lines = render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))
        assert "  doors: north: opened" in lines

    def test_only_a_door_that_stuck_before_it_opened_is_shown_forced_open(self):
        """Known stuck (a failed try, or spiked shut) when a try opens it: forced open; a door whose lock held
        at its first try but which opened at the first try to force it was never known stuck: opened."""
        d = Delve()
        d.run(dg.OpenDoor(by="Ann", door="north"), 5)  # 4-in-6: stuck
        d.run(dg.OpenDoor(by="Bo", door="north"), 6)  # Bo, STR 10 (2-in-6): still stuck
        d.run(dg.OpenDoor(by="Ann", door="north"), 4)
        d.run(dg.OpenDoor(by="Ann", door="gate", locked=True, key=True), 6)
        d.run(dg.OpenDoor(by="Ann", door="gate"), 1)
        d.run(dg.OpenDoor(by="Bo", door="vault", locked=True, pick_in_6=1), 4)  # the pick fails: no force tried
        d.run(dg.OpenDoor(by="Bo", door="vault", pick_in_6=2), 2, 1)  # picked, then forced at the first try
        d.run(dg.SpikeDoor(held_open=False, door="west"))
        d.run(dg.OpenDoor(by="Ann", door="west"), 3)
        shown = {name: door.text for name, door in d.state.doors.items()}
        assert shown == {
            "north": "forced open",
            "gate": "unlocked, forced open",
            "vault": "unlocked, opened",
            "west": "forced open",
        }
        lines = render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))
        doors = "  doors: gate: unlocked, forced open; north: forced open; vault: unlocked, opened; west: forced open"
        assert doors in lines

    def test_a_door_unlocked_but_stuck_needs_no_key_again(self):
        d = Delve()
        d.run(dg.OpenDoor(by="Ann", door="gate", locked=True, key=True), 6)
        assert d.state.doors["gate"].text == "unlocked, stuck"
        opened = only(d.run(dg.OpenDoor(by="Ann", door="gate"), 1), ev.DoorOpened)
        assert (opened.locked, opened.stuck, opened.opened) == (False, True, True)

    def test_spikes_are_remembered_and_shown_in_the_state(self):
        d = Delve()
        d.run(dg.SpikeDoor(held_open=False, door="north"))
        d.run(dg.SpikeDoor(held_open=True, door="east"), 6)
        d.run(dg.OpenDoor(by="Bo", door="vault", locked=True, pick_in_6=1, free=True), 4)
        lines = render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))
        assert "  doors: east: spiked open; north: spiked shut (counts as stuck); vault: locked" in lines
        held = only(d.run(dg.OpenDoor(by="Bo", door="east")), ev.DoorOpened)
        assert (held.stuck, held.opened, held.rolls) == (False, True, ())
        shut = only(d.run(dg.OpenDoor(by="Ann", door="north", free=True), 1), ev.DoorOpened)
        assert (shut.stuck, shut.opened) == (True, True)
        assert d.state.doors["north"].text == "forced open"

    def test_rows_saved_when_a_first_try_read_forced_open_are_outdated_not_differing(self):
        """A delve saved by a hexlog whose state called a door opened at the first try forced open (the table's
        rows of revision 4): replayed now, its rows are outdated, not a difference, and the next command saves
        them anew."""
        d = Delve(FORCED_ONCE)
        d.run(dg.OpenDoor(by="Ann", door="north"), 2)
        store, stream = d.handler.store, stream_for(CAMPAIGN)
        rows = store.read_rows(stream, "table", ["procedure/dungeon", "@"])
        (version, delve), (marked, mark) = rows["procedure/dungeon"], rows["@"]
        delve["v"]["doors"]["north"]["forced"] = True
        saved = [
            ProjectionRow(projection="table", key="procedure/dungeon", version=version, data=delve),
            ProjectionRow(projection="table", key="@", version=marked, data={**mark, "revision": 4}),
        ]
        assert store.write_rows(stream, saved, at_version=store.stream_version(stream))
        checks = {check.name: check.status for check in replay(store, CAMPAIGN).checks}
        assert checks == {"table": "outdated", "ledger": "equal"}
        d.run(dg.OpenDoor(by="Bo", door="north"))
        assert [check.status for check in replay(store, CAMPAIGN).checks] == ["equal", "equal"]
        assert d.state.doors["north"].text == "opened"

    @pytest.mark.parametrize("again", [True, False], ids=["sticking-again", "forced-once"])
    def test_the_audit_re_runs_a_remembered_door(self, again):
        d = Delve(None if again else FORCED_ONCE)
        d.run(dg.OpenDoor(by="Ann", door="north"), 5)
        d.run(dg.OpenDoor(by="Ann", door="north", free=True), 2)
        d.run(dg.OpenDoor(by="Bo", door="north"), *((1,) if again else ()))
        events = [decode(r.envelope) for r in d.handler.store.read_stream(stream_for(CAMPAIGN))]
        assert check_decision_events(events).issues == ()


class TestDoorsStickAgain:
    """Seed 004 §4.2: doors return to the closed position after being opened, and players must open them again
    each time; a door that had to be forced sticks again (tables.dungeon.doors_stick_again, explore's rule)."""

    def test_a_door_forced_open_is_forced_again_each_time(self):
        d = Delve()
        first = only(d.run(dg.OpenDoor(by="Ann", door="north"), 2), ev.DoorOpened)  # STR 16: 4-in-6, a 2 opens
        assert (first.stuck, first.opened) == (True, True)
        again = only(d.run(dg.OpenDoor(by="Bo", door="north"), 3), ev.DoorOpened)  # Bo, STR 10: 2-in-6, a 3 fails
        assert (again.stuck, again.chance_in_6, again.opened, again.noisy) == (True, 2, False, True)
        assert d.state.doors["north"].text == "stuck"
        third = only(d.run(dg.OpenDoor(by="Ann", door="north", free=True), 4), ev.DoorOpened)
        assert (third.stuck, third.opened) == (True, True)  # known to stick: --free does not spare the roll

    def test_a_door_that_opened_without_forcing_opens_again_without_a_roll(self):
        d = Delve()
        d.run(dg.OpenDoor(by="Ann", door="west", free=True))
        again = only(d.run(dg.OpenDoor(by="Bo", door="west")), ev.DoorOpened)
        assert (again.stuck, again.opened, again.rolls) == (False, True, ())

    def test_a_door_spiked_open_needs_no_forcing_until_the_spike_slips(self):
        d = Delve()
        d.run(dg.OpenDoor(by="Ann", door="east"), 1)
        d.run(dg.SpikeDoor(held_open=True, door="east"), 6)  # slips on 1-2: holds
        held = only(d.run(dg.OpenDoor(by="Bo", door="east")), ev.DoorOpened)
        assert (held.stuck, held.rolls) == (False, ())
        d.run(dg.SpikeDoor(held_open=True, door="east"), 2)  # slips: the door swings shut
        shut = only(d.run(dg.OpenDoor(by="Bo", door="east"), 2), ev.DoorOpened)
        assert (shut.stuck, shut.opened) == (True, True)

    def test_rules_recorded_before_the_rule_keep_a_forced_door_open(self):
        """A campaign whose recorded rules lack the key (an older release's) plays on as it was recorded."""
        rules = Delve().handler.load(CAMPAIGN).rules
        assert rules is not None
        dungeon = rules.part(dg.DungeonTables).dungeon
        assert dungeon is not None
        assert dungeon.doors_stick_again
        content = copy.deepcopy(rules.content)
        del content["tables"]["dungeon"]["doors_stick_again"]
        older = rulesets.from_recorded(rules.name, content).part(dg.DungeonTables).dungeon
        assert older is not None
        assert not older.doors_stick_again


class TestLockedDoors:
    def test_the_key_opens_the_lock_and_the_door_is_then_forced(self):
        door = only(Delve().run(dg.OpenDoor(by="Ann", locked=True, key=True), 4), ev.DoorOpened)
        assert (door.unlocked, door.chance_in_6, door.opened) == (ev.Unlock.KEY, 4, True)

    @pytest.mark.parametrize(("face", "picked"), [(30, True), (31, False)])
    def test_a_pick_in_percent_is_rolled_for_the_character(self, face: int, picked):
        d = Delve()
        events = d.run(dg.OpenDoor(by="Bo", locked=True, pick_chance=30, free=True), face)
        door = only(events, ev.DoorOpened)
        assert (door.unlocked is ev.Unlock.PICK, door.opened, door.pick_out_of) == (picked, picked, 100)
        assert (rolls(events)[0].purpose, rolls(events)[0].made_for) == ("dungeon.door.pick", "Bo")

    @pytest.mark.parametrize(("face", "picked"), [(2, True), (3, False)])
    def test_a_pick_in_6(self, face: int, picked):
        door = only(Delve().run(dg.OpenDoor(by="Bo", locked=True, pick_in_6=2, free=True), face), ev.DoorOpened)
        assert (door.opened, door.pick_out_of, door.pick_face) == (picked, 6, face)


class TestListening:
    @pytest.mark.parametrize(("face", "heard"), [(1, True), (2, False)])
    def test_listening_is_1_in_6_rolled_in_secret(self, face: int, heard):
        d = Delve()
        events = d.run(dg.Listen(by="Bo"), face)
        listened = only(events, ev.DoorListened)
        (roll,) = rolls(events)
        assert (listened.heard, listened.hears_on, listened.rolls) == (heard, (1,), ())
        assert listened.referee_rolls == (roll.nonce,)
        assert (roll.visibility, roll.made_for) == (Visibility.REFEREE, "Bo")

    @pytest.mark.parametrize(("face", "heard"), [(3, True), (4, False)])
    def test_a_thief_listens_by_their_skill(self, face: int, heard):
        listened = only(Delve().run(dg.Listen(by="Bo", skill_in_6=3), face), ev.DoorListened)
        assert (listened.heard, listened.hears_on, listened.thief_skill) == (heard, (1, 2, 3), True)


#: a party of four: under explore's one die a turn they find a secret door no sooner than one searcher
FOUR = (*MEMBERS, c.AddMember(name="Cy"), c.AddMember(name="Di"))
#: the B/X-style house rule: a die for each searcher
EACH_SEARCHER = {"dungeon": {"secret_door_roll": "each_searcher"}}
GOLDEN_LOGS = Path(__file__).resolve().parent / "golden" / "logs"


class TestSearching:
    @pytest.mark.parametrize(("face", "found"), [(1, True), (2, False), (3, False), (4, False), (5, False), (6, False)])
    def test_a_party_of_four_rolls_one_secret_d6_a_turn_and_finds_on_1_only(self, face: int, found):
        """explore (seed 004 §4.2, "1-in-6 per turn of searching"): one die for the party's turn, made for the
        party side in secret, whoever searches; a door there is found by the searchers together."""
        d = Delve(members=FOUR)
        assert d.handler.load(CAMPAIGN).rules.part(dg.DungeonTables).dungeon.secret_door_roll is SecretDoorRoll.PARTY
        events = d.run(dg.Search(), face)
        searched = only(events, ev.SecretDoorSearched)
        (roll,) = rolls(events)
        assert (roll.purpose, roll.made_for, roll.visibility, roll.faces) == (
            "dungeon.search",
            "party",
            Visibility.REFEREE,
            (face,),
        )
        assert searched.searchers == ("Ann", "Bo", "Cy", "Di")
        assert (searched.faces, searched.modifiers, searched.party_die) == ((face,), (0,), True)
        assert (searched.referee_rolls, searched.rolls) == ((roll.nonce,), ())
        assert (searched.found, searched.found_by) == ((True, ("Ann", "Bo", "Cy", "Di")) if found else (False, ()))
        assert only(events, ClockAdvanced).turns == 1

    def test_the_party_die_is_one_die_whoever_searches(self):
        """Two of the four search: still one die, made for the party; the searchers named find it."""
        events = Delve(members=FOUR).run(dg.Search(searchers=("Cy", "Di")), 1)
        searched = only(events, ev.SecretDoorSearched)
        assert [r.made_for for r in rolls(events)] == ["party"]
        assert (searched.searchers, searched.found_by, searched.faces) == (("Cy", "Di"), ("Cy", "Di"), (1,))

    def test_under_the_each_searcher_house_rule_four_searchers_roll_four_dice(self):
        """secret_door_roll = "each_searcher": one secret die for each searcher, made for them; Bo's 1 finds."""
        d = Delve(EACH_SEARCHER, members=FOUR)
        events = d.run(dg.Search(), 3, 1, 4, 5)
        searched = only(events, ev.SecretDoorSearched)
        assert [r.made_for for r in rolls(events)] == ["Ann", "Bo", "Cy", "Di"]
        assert all(r.visibility is Visibility.REFEREE for r in rolls(events))
        assert (searched.faces, searched.modifiers, searched.party_die) == ((3, 1, 4, 5), (0, 0, 0, 0), False)
        assert (searched.found_by, searched.found) == (("Bo",), True)
        assert searched.referee_rolls == tuple(r.nonce for r in rolls(events))
        assert only(events, ClockAdvanced).turns == 1

    def test_rules_recorded_before_the_rule_roll_a_die_for_each_searcher(self):
        """explore as hexlog 0.1.0 recorded it (no secret_door_roll), played on: four searchers roll four dice,
        as that campaign was played."""
        store = MemoryStore()
        lines = (GOLDEN_LOGS / "explore.jsonl").read_bytes().split(b"\n")
        campaign = import_envelopes(store, read_export(lines)).campaign
        script: list[int] = []
        handler = Handler(store, MemoryKeeper(), roller=lambda _table: ScriptedRoller(script))
        rules = handler.load(campaign).rules
        assert rules is not None
        assert "secret_door_roll" not in rules.content["tables"]["dungeon"]
        for command in (
            c.OpenSession(secret_hex="cd" * 32),
            c.AddMember(name="Cy"),
            c.AddMember(name="Di"),
            dg.EnterDungeon(),
        ):
            handler.execute(campaign, command)
        script.extend([3, 5, 1, 6])
        events = list(handler.execute(campaign, dg.Search()).events)
        assert script == []
        searched = only(events, ev.SecretDoorSearched)
        assert [r.made_for for r in rolls(events)] == ["Ayla", "Bo", "Cy", "Di"]
        assert (searched.faces, searched.party_die, searched.found_by) == ((3, 5, 1, 6), False, ("Cy",))

    def test_the_key_left_out_of_recorded_rules_reads_as_each_searcher(self):
        """The attrs default is the old behaviour: explore's rules recorded without the key read each_searcher."""
        rules = Delve().handler.load(CAMPAIGN).rules
        assert rules is not None
        content = copy.deepcopy(rules.content)
        del content["tables"]["dungeon"]["secret_door_roll"]
        older = rulesets.from_recorded(rules.name, content).part(dg.DungeonTables).dungeon
        assert older is not None
        assert older.secret_door_roll is SecretDoorRoll.EACH_SEARCHER

    def test_nothing_is_found_where_nothing_is(self):
        searched = only(Delve().run(dg.Search(searchers=("Ann",), nothing_there=True), 1), ev.SecretDoorSearched)
        assert (searched.found, searched.found_by, searched.present) == (False, (), False)

    def test_the_timeline_shows_the_party_die_and_who_searched(self):
        """The referee's line names the searchers and the one die; under the house rule, each searcher's die."""
        party = only(Delve(members=FOUR).run(dg.Search(), 1), ev.SecretDoorSearched)
        assert render_dungeon.TEXTS[ev.SecretDoorSearched](party).startswith(
            "search for secret doors (on 1): Ann, Bo, Cy, Di searching: the party's die 1: "
            "a secret door is FOUND by the party's search (Ann, Bo, Cy, Di)"
        )
        each = only(Delve(EACH_SEARCHER).run(dg.Search(), 3, 1), ev.SecretDoorSearched)
        assert render_dungeon.TEXTS[ev.SecretDoorSearched](each).startswith(
            "search for secret doors (on 1): Ann 3, Bo 1: a secret door is FOUND by Bo"
        )


class TestSpikes:
    @pytest.mark.parametrize(("face", "slipped"), [(1, True), (2, True), (3, False)])
    def test_a_spike_holding_a_door_open_slips_on_2_in_6(self, face: int, slipped):
        d = Delve()
        spiked = only(d.run(dg.SpikeDoor(held_open=True, door="east"), face), ev.DoorSpiked)
        assert (spiked.slipped, spiked.slips_on) == (slipped, (1, 2))
        assert ("east" in d.state.spiked_open) is not slipped


class TestLight:
    def test_a_torch_burns_6_turns(self):
        """Five moves later the torch still burns; the sixth turn puts it out and the party is in the dark."""
        d = Delve(enter=dg.EnterDungeon(every_turns=100))
        d.run(dg.LightSource(kind="torch", by="Ann"))
        for _ in range(5):
            d.run(dg.Move())
        assert d.state.lit
        out = only(d.run(dg.Move()), ev.LightBurnedOut)
        assert (out.carrier, out.kind, out.at_seconds, out.dark) == ("Ann", "torch", 3600, True)
        assert not d.state.lit
        assert only(d.run(dg.Move()), ev.PartyMoved).why_not_mapping == "dark"

    def test_a_lantern_burns_24_turns_and_a_flask_refills_it(self):
        d = Delve(enter=dg.EnterDungeon(every_turns=100))
        lit = only(d.run(dg.LightSource(kind="lantern", by="Bo")), ev.LightLit)
        assert (lit.turns, lit.out_at_seconds, lit.radius_ft) == (24, 24 * 600, 30)
        for _ in range(23):
            d.run(dg.Move())
        out = only(d.run(dg.Move()), ev.LightBurnedOut)
        assert (out.kind, out.at_seconds) == ("lantern", 24 * 600)
        refilled = only(d.run(dg.RefillLantern(by="Bo")), ev.LanternRefilled)
        assert (refilled.turns, refilled.out_at_seconds) == (24, 48 * 600)
        assert d.state.lit

    def test_another_light_keeps_the_party_out_of_the_dark(self):
        d = Delve(enter=dg.EnterDungeon(every_turns=100))
        d.run(dg.LightSource(kind="torch", by="Ann"))
        d.run(dg.LightSource(kind="lantern", by="Bo"))
        events = [e for _ in range(6) for e in d.run(dg.Move())]
        assert only(events, ev.LightBurnedOut).dark is False


def checks(events: list[Event]) -> list[tuple[int, int, bool]]:
    return [(e.turn, e.face, e.monster) for e in events if isinstance(e, ev.WanderingChecked)]


class TestWandering:
    def test_a_secret_check_every_2_turns_a_monster_on_1(self):
        d = Delve()
        events = [e for faces in ((), (2,), (), (1,)) for e in d.run(dg.Move(), *faces)]
        assert checks(events) == [(2, 2, False), (4, 1, True)]
        roll = rolls(events)[0]
        assert (roll.purpose, roll.visibility, roll.made_for) == ("dungeon.wandering", Visibility.REFEREE, "")
        assert d.state.monster_due

    def test_a_dangerous_place_checks_every_turn_on_1_or_2(self):
        d = Delve(enter=dg.EnterDungeon(danger=True))
        events = [e for face in (3, 2) for e in d.run(dg.Move(), face)]
        assert checks(events) == [(1, 3, False), (2, 2, True)]

    def test_the_referee_may_set_the_frequency_and_faces(self):
        d = Delve(enter=dg.EnterDungeon(every_turns=3, wandering_on=(5, 6)))
        events = [e for faces in ((), (), (5,)) for e in d.run(dg.Move(), *faces)]
        assert checks(events) == [(3, 5, True)]

    def test_no_check_while_a_monster_is_due(self):
        """A monster has come: a log whose clock passed then holds no second check, and the audit re-runs it so; at
        the referee's door such an advance is refused, since the players would count the checks that stop."""
        d = Delve(enter=dg.EnterDungeon(danger=True))
        d.run(dg.Move(), 1)
        events = advance(d, 3, at_once=True, faces=[], as_recorded=True)
        assert [e.turns for e in events if isinstance(e, ClockAdvanced)] == [1, 1, 1]
        assert checks(events) == []
        with pytest.raises(RuleRefusedError, match="would pass unrolled"):
            advance(d, 3, at_once=True, faces=[])
        d.run(dg.Meet())
        assert d.state.phase is dg.Phase.ENCOUNTER
        assert checks(advance(d, 2, at_once=True, faces=[])) == []

    def test_rest_takes_a_turn(self):
        d = Delve()
        events = d.run(dg.Rest())
        assert (only(events, ClockAdvanced).turns, only(events, ev.PartyRested).turns) == (1, 1)


def advance(delve: Delve, n: int, *, at_once: bool, faces: list[int], as_recorded: bool = False) -> list[Event]:
    """Advance ``n`` turns through the kit on the delve's table: at once, or one turn at a time (``as_recorded``: as
    the audit re-runs a log, which takes a check passed unrolled as recorded)."""
    table = delve.handler.load(CAMPAIGN)
    ctx = StepContext(
        table=table, registry=REGISTRY, roller_for=lambda _t: ScriptedRoller(faces), as_recorded=as_recorded
    )
    span = turns(table.rules.part(ClockOptions), 1)  # type: ignore[union-attr]
    if at_once:
        ctx.advance(span, reason="time passes", times=n)
    else:
        for _ in range(n):
            ctx.advance(span, reason="time passes")
    return ctx.events


class TestTimeInSteps:
    @pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
    @pytest.mark.parametrize("danger", [False, True])
    def test_n_turns_at_once_record_what_n_single_turns_record(self, n: int, danger):
        """Clock events, lights going out and wandering checks (a monster at the third check stops the rest, as the
        audit re-runs a log: at the referee's door an advance past that check is refused, test_wandering_count)."""
        made = []
        for at_once in (True, False):
            d = Delve(enter=dg.EnterDungeon(danger=danger))
            d.run(dg.LightSource(kind="torch", by="Ann"))
            d.run(dg.Move(), *([4] if danger else []))
            d.run(dg.Move(), 4)
            faces = [5, 6, 1, 2, 3, 4, 5, 6]
            made.append([to_data(e) for e in advance(d, n, at_once=at_once, faces=faces, as_recorded=True)])
        assert made[0] == made[1]
        kinds = {e.type_name for e in advance(Delve(), 8, at_once=True, faces=[5, 6, 1, 6], as_recorded=True)}
        assert {"dungeon.wandering_checked", "clock.advanced"} <= kinds


def exhaustion(table: Any, made_for: str, purpose: str) -> list[RollModifier]:  # noqa: ARG001 - the source signature
    return [RollModifier(source="exhaustion (a test)", value=-1)] if made_for == "Ann" else []


#: the real procedures and one that tires Ann: -1 on every roll made for her
TIRED = Registry(
    (
        CAMPAIGN_PROCEDURE,
        DUNGEON,
        ENCOUNTER,
        Procedure(name="tired", title="A test.", steps={}, modifiers=(exhaustion,)),
    )
)


def party_exhaustion(table: Any, made_for: str, purpose: str) -> list[RollModifier]:  # noqa: ARG001 - the signature
    return [RollModifier(source="exhaustion (a test)", value=-1)] if made_for == "party" else []


#: the real procedures and one that tires the party side: -1 on every roll made for the party
PARTY_TIRED = Registry(
    (
        CAMPAIGN_PROCEDURE,
        DUNGEON,
        ENCOUNTER,
        Procedure(name="tired", title="A test.", steps={}, modifiers=(party_exhaustion,)),
    )
)


class TestModifiers:
    def test_a_penalty_on_a_roll_made_for_the_character_lowers_their_chance(self):
        """Ann (STR 16, 4-in-6) rolls a 4 while exhausted: low is good on the die, so the penalty is counted
        against it, 4+1 = 5, and the door holds; Bo is not."""
        d = Delve(registry=TIRED)
        events = d.run(dg.OpenDoor(by="Ann"), 4)
        door = only(events, ev.DoorOpened)
        assert (door.face, door.modifier, door.opened) == (4, 1, False)
        (forced,) = rolls(events)
        assert forced.modifiers == (RollModifier(source="exhaustion (a test)", value=1),)
        assert (forced.low_is_good, forced.total) == (True, 5)
        listened = only(d.run(dg.Listen(by="Ann"), 1), ev.DoorListened)
        assert (listened.modifier, listened.heard) == (1, False)
        assert only(d.run(dg.Listen(by="Bo"), 1), ev.DoorListened).heard

    def test_the_pick_and_the_search_count_the_penalty_against_a_low_die(self):
        """A thievery chance of 30 %: Ann's 30 reads 31 and fails; with a die for each searcher (the house rule),
        her search's 1 reads 2 and misses; Bo's 1 finds."""
        d = Delve(EACH_SEARCHER, registry=TIRED)
        events = d.run(dg.OpenDoor(by="Ann", locked=True, pick_chance=30, free=True), 30)
        door = only(events, ev.DoorOpened)
        assert (door.pick_face, door.unlocked, door.opened) == (30, ev.Unlock.NONE, False)
        assert [(r.total, r.low_is_good) for r in rolls(events)] == [(31, True)]
        searched = only(d.run(dg.Search(searchers=("Ann", "Bo")), 1, 1), ev.SecretDoorSearched)
        assert (searched.modifiers, searched.found_by) == ((1, 0), ("Bo",))

    def test_a_searchers_own_penalty_is_not_the_party_dies(self):
        """explore's one die is made for the party side: Ann's penalty, made for her alone, is not on it, even when
        she alone searches; a 1 finds."""
        events = Delve(registry=TIRED).run(dg.Search(searchers=("Ann",)), 1)
        searched = only(events, ev.SecretDoorSearched)
        (roll,) = rolls(events)
        assert (roll.made_for, roll.modifiers, roll.total) == ("party", (), 1)
        assert (searched.modifiers, searched.found_by) == ((0,), ("Ann",))

    def test_a_penalty_on_the_party_side_counts_against_the_party_die(self):
        """A source that penalises rolls made for the party (as exhaustion does, at the worst member's level): the
        party die's 1 reads 2 and misses."""
        d = Delve(registry=PARTY_TIRED)
        searched = only(d.run(dg.Search(), 1), ev.SecretDoorSearched)
        assert (searched.faces, searched.modifiers, searched.found, searched.found_by) == ((1,), (1,), False, ())


def house(**tables: dict[str, Any]) -> dict[str, Any]:
    return tables


class TestHouseRules:
    """Each entry of the dungeon's tables, changed by a house rule, changes what happens."""

    def test_torch_turns(self):
        d = Delve(house(light={"torch_turns": 2}), enter=dg.EnterDungeon(every_turns=100))
        d.run(dg.LightSource(kind="torch", by="Ann"))
        d.run(dg.Move())
        assert only(d.run(dg.Move()), ev.LightBurnedOut).at_seconds == 1200

    def test_lantern_turns_per_flask(self):
        d = Delve(house(light={"lantern_turns_per_flask": 3}))
        assert only(d.run(dg.LightSource(kind="lantern", by="Ann")), ev.LightLit).turns == 3
        assert only(d.run(dg.RefillLantern(by="Ann")), ev.LanternRefilled).turns == 3

    def test_radius_ft(self):
        d = Delve(house(light={"radius_ft": 10}))
        assert only(d.run(dg.LightSource(kind="torch", by="Ann")), ev.LightLit).radius_ft == 10

    def test_wandering_every_turns(self):
        d = Delve(house(dungeon={"wandering_every_turns": 1}))
        assert checks(d.run(dg.Move(), 4)) == [(1, 4, False)]

    def test_wandering_on(self):
        d = Delve(house(dungeon={"wandering_on": [4]}))
        d.run(dg.Move())
        assert checks(d.run(dg.Move(), 4)) == [(2, 4, True)]

    def test_danger_every_turns(self):
        d = Delve(house(dungeon={"danger_every_turns": 3}), enter=dg.EnterDungeon(danger=True))
        d.run(dg.Move())
        d.run(dg.Move())
        assert checks(d.run(dg.Move(), 4)) == [(3, 4, False)]

    def test_danger_wandering_on(self):
        d = Delve(house(dungeon={"danger_wandering_on": [6]}), enter=dg.EnterDungeon(danger=True))
        assert checks(d.run(dg.Move(), 6)) == [(1, 6, True)]

    def test_listen_on(self):
        assert only(Delve(house(dungeon={"listen_on": [1, 2]})).run(dg.Listen(by="Bo"), 2), ev.DoorListened).heard

    def test_secret_door_on(self):
        d = Delve(house(dungeon={"secret_door_on": [5]}))
        assert only(d.run(dg.Search(searchers=("Ann",)), 5), ev.SecretDoorSearched).found

    def test_secret_door_roll(self):
        d = Delve(house(dungeon={"secret_door_roll": "each_searcher"}))
        assert only(d.run(dg.Search(), 2, 1), ev.SecretDoorSearched).found_by == ("Bo",)

    def test_spike_slips_on(self):
        d = Delve(house(dungeon={"spike_slips_on": [1]}))
        assert not only(d.run(dg.SpikeDoor(held_open=True), 2), ev.DoorSpiked).slipped

    def test_rest_turns_per_hour(self):
        d = Delve(house(dungeon={"rest_turns_per_hour": 2}))
        events = d.run(dg.Rest(), 6)
        assert only(events, ev.PartyRested).turns == 2
        assert len([e for e in events if isinstance(e, ClockAdvanced)]) == 2

    def test_by_str(self):
        d = Delve(house(open_doors={"by_str": [[3, 1], [16, 6]]}))
        assert only(d.run(dg.OpenDoor(by="Ann"), 6), ev.DoorOpened).chance_in_6 == 6

    def test_tool_bonus_in_6(self):
        d = Delve(house(open_doors={"tool_bonus_in_6": 2}))
        assert only(d.run(dg.OpenDoor(by="Ann", tool="axe"), 6, 6), ev.DoorOpened).chance_in_6 == 6

    def test_tool_breaks_on(self):
        d = Delve(house(open_doors={"tool_breaks_on": [1, 2, 3]}))
        assert only(d.run(dg.OpenDoor(by="Ann", tool="crowbar"), 1, 3), ev.DoorOpened).tool_broke

    @pytest.mark.parametrize(
        ("tables", "why"),
        [
            ({"dungeon": {"wandering_on": [7]}}, "wandering_on"),
            ({"light": {"torch_turns": 0}}, "torch_turns"),
            ({"open_doors": {"by_str": [[4, 1]]}}, "by_str"),
            ({"open_doors": {"tool_bonus_in_6": 9}}, "tool_bonus_in_6"),
            ({"dungeon": {"secret_door_roll": "each"}}, "secret_door_roll"),
        ],
    )
    def test_a_value_the_rules_cannot_use_is_refused_naming_its_key(self, tables: dict[str, Any], why: str):
        with pytest.raises(RulesError, match=why):
            Delve(tables)


def test_phase_changes_name_the_procedure():
    """Every dungeon step records its phase change under the procedure's name."""
    events = Delve().run(dg.Move())
    assert [e.procedure for e in events if isinstance(e, PhaseChanged)] == ["dungeon"]


class TestStateLines:
    def test_the_state_shows_turns_lights_the_next_check_and_rest_due_after_an_hour(self):
        """Five turns after entering the party owes its rest; resting clears it."""
        d = Delve()
        d.run(dg.LightSource(kind="torch", by="Ann"))
        for faces in ((), (6,), (), (6,)):
            d.run(dg.Move(), *faces)
        table = d.handler.load(CAMPAIGN)
        lines = render_dungeon.state_lines(d.state, table)
        assert lines == [
            "  delve 1: 4 turns, 4 moves",
            "  light: Ann's torch 2 turns left",
            "  next wandering check at turn 6 (on 1)",
        ]
        d.run(dg.Move())
        assert render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))[-1] == (
            "  rest due: 1 turn each hour (hexlog dungeon rest)"
        )
        d.run(dg.Rest(), 6)
        lines = render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))
        assert not any("rest due" in line for line in lines)
        assert "  light: Ann's torch out" not in lines  # a torch that burned out is gone
        assert lines[1] == "  light: none (DARK: no mapping)"

    def test_an_hour_without_rest_shows_the_penalty_until_the_party_rests(self):
        """Six turns of moving: the attack and damage penalty is shown, and an attack for Ann carries it; a free
        roll for someone outside the party is refused; resting removes the penalty."""
        d = Delve()
        for turn in range(1, 7):
            d.run(dg.Move(), *((6,) if turn % 2 == 0 else ()))
        penalty = "  unrested: -1 to attack and damage rolls made for a member until the party rests"
        assert penalty in render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))
        rolled = only(d.run(c.RollDice(expression="1d20", purpose="attack goblin", made_for="Ann"), 12), DiceRolled)
        assert (rolled.total, rolled.made_for, [m.value for m in rolled.modifiers]) == (11, "Ann", [-1])
        with pytest.raises(NotFoundError, match="no member called Zed"):
            d.run(c.RollDice(expression="1d20", purpose="attack", made_for="Zed"))
        d.run(dg.Rest())
        assert penalty not in render_dungeon.state_lines(d.state, d.handler.load(CAMPAIGN))
        rolled = only(d.run(c.RollDice(expression="1d20", purpose="attack", made_for="Ann"), 12), DiceRolled)
        assert (rolled.total, rolled.modifiers) == (12, ())

    def test_a_wandering_monster_due_is_shown_with_the_step_to_take(self):
        d = Delve(enter=dg.EnterDungeon(danger=True))
        d.run(dg.Move(), 1)
        table = d.handler.load(CAMPAIGN)
        assert "  a wandering monster has come: hexlog dungeon meet" in render_dungeon.state_lines(d.state, table)
        player = render_dungeon.state_lines(d.state, table, player=True)
        assert not any("wandering" in line for line in player)  # the check was the referee's secret roll
