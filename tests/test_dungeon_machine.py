"""The dungeon machine: every row of TRANSITIONS through the handler, every refusal writes nothing."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from hexlog.events import dungeon as ev
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import IllegalTransitionError, RuleRefusedError, UnknownMemberError, UsageError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.machine import campaign as hexlog_campaign
from hexlog.machine import commands as c
from hexlog.machine import dungeon as dg
from hexlog.machine import encounter as enc
from hexlog.machine import table as tables
from hexlog.machine.dungeon import Phase
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.replay.audit import audit_store
from hexlog.replay.decisions import check_decision_events
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict

if TYPE_CHECKING:
    from hexlog.events.base import Event

CAMPAIGN = "t"
RUNNER = REGISTRY.runner("dungeon")
MEMBERS = (c.AddMember(name="Ann", strength=16), c.AddMember(name="Bo", speed=90))


class Delve:
    """A campaign on a scripted roller: ``faces`` are the dice the next command rolls, in order."""

    def __init__(self, ruleset: str = "explore", members: tuple[c.AddMember, ...] = MEMBERS) -> None:
        self.script: list[int] = []
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _table: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset=ruleset))
        self.run(c.OpenSession(secret_hex="cd" * 32))
        for member in members:
            self.run(member)

    def run(self, command: c.Command, *faces: int) -> list[Event]:
        """Execute one command on the given faces; all of them must be used."""
        self.script.extend(faces)
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    @property
    def state(self) -> dg.DelveState:
        """The folded delve."""
        return self.handler.load(CAMPAIGN).procedures["dungeon"]

    @property
    def version(self) -> int:
        """The stream version."""
        return self.handler.store.stream_version(tables.stream_for(CAMPAIGN))


def exploring() -> Delve:
    """A lit delve: Ann carries a torch."""
    d = Delve()
    d.run(dg.EnterDungeon())
    d.run(dg.LightSource(kind="torch", by="Ann"))
    return d


def monster_due() -> Delve:
    """A delve whose second turn brought a wandering monster."""
    d = exploring()
    d.run(dg.Move())
    d.run(dg.Move(), 1)
    assert d.state.monster_due
    return d


def in_encounter() -> Delve:
    """A delve waiting for its encounter (the party aware of the monsters, and they of it)."""
    d = monster_due()
    d.run(dg.Meet())
    return d


def left() -> Delve:
    d = exploring()
    d.run(dg.LeaveDungeon())
    return d


def with_lantern() -> Delve:
    d = exploring()
    d.run(dg.LightSource(kind="lantern", by="Bo"))
    return d


RECIPES: dict[str, Any] = {
    "outside": Delve,
    "left": left,
    "exploring": exploring,
    "lantern": with_lantern,
    "monster_due": monster_due,
    "encounter": in_encounter,
}

#: (trigger, source, dest) -> (recipe, command, faces it rolls)
CASES: dict[tuple[str, str, str], tuple[str, c.Command, tuple[int, ...]]] = {
    ("enter", "OUTSIDE", "EXPLORING"): ("outside", dg.EnterDungeon(name="crypt"), ()),
    ("enter", "LEFT", "EXPLORING"): ("left", dg.EnterDungeon(), ()),
    ("light", "EXPLORING", "EXPLORING"): ("exploring", dg.LightSource(kind="lantern", by="Bo"), ()),
    ("refill", "EXPLORING", "EXPLORING"): ("lantern", dg.RefillLantern(by="Bo"), ()),
    ("move", "EXPLORING", "EXPLORING"): ("exploring", dg.Move(), ()),
    ("door", "EXPLORING", "EXPLORING"): ("exploring", dg.OpenDoor(by="Ann"), (2,)),
    ("listen", "EXPLORING", "EXPLORING"): ("exploring", dg.Listen(by="Bo"), (3,)),
    ("search", "EXPLORING", "EXPLORING"): ("exploring", dg.Search(), (4,)),
    ("spike", "EXPLORING", "EXPLORING"): ("exploring", dg.SpikeDoor(held_open=True), (6,)),
    ("rest", "EXPLORING", "EXPLORING"): ("exploring", dg.Rest(), ()),
    ("meet", "EXPLORING", "ENCOUNTER"): ("monster_due", dg.Meet(monster_count=2), ()),
    ("leave", "EXPLORING", "LEFT"): ("exploring", dg.LeaveDungeon(), ()),
}


def rows() -> list[tuple[str, str, str]]:
    """Every (trigger, source, dest) the table allows, one per source of a row."""
    return dg.DUNGEON.edges()


class TestEveryTransition:
    def test_every_row_of_the_table_has_a_case_here_or_is_the_resume(self):
        """The cases cover the transition table, the kit's resumes aside (tested below, in test_chase_machine and, for
        a chase an earlier release handed on, in test_delve_chase_v1)."""
        assert set(rows()) - set(CASES) == {
            ("resume", "ENCOUNTER", "EXPLORING"),
            ("resume", "ENCOUNTER", "CHASE"),
            ("resume", "CHASE", "ENCOUNTER"),
            ("resume", "CHASE", "EXPLORING"),
        }

    @pytest.mark.parametrize("row", list(CASES), ids="-".join)
    def test_each_row_moves_the_delve_and_records_its_phase_change(self, row):
        """The command fires its trigger from the source phase and lands in the destination."""
        recipe, command, faces = CASES[row]
        d = RECIPES[recipe]()
        events = d.run(command, *faces)
        trigger, source, dest = row
        changes = [e for e in events if isinstance(e, PhaseChanged) and e.procedure == "dungeon"]
        assert (changes[0].trigger, changes[0].source, changes[0].dest) == (trigger, source, dest)
        assert d.state.phase is Phase[dest]

    def test_the_delve_resumes_when_its_encounter_concludes(self):
        """Concluding the encounter resumes the delve in the same append; exploring goes on."""
        d = in_encounter()
        d.run(enc.CheckSurprise(), 4)
        d.run(enc.DetermineDistance(), 2, 3)
        d.run(enc.RollInitiative(), 5, 2)
        events = d.run(enc.ConcludeEncounter())
        assert Resumed(parent="dungeon", child="encounter") in events
        last = events[-1]
        assert isinstance(last, PhaseChanged)
        assert (last.procedure, last.trigger, last.source, last.dest) == ("dungeon", "resume", "ENCOUNTER", "EXPLORING")
        assert d.state.phase is Phase.EXPLORING
        d.run(dg.Move(), 6)  # turn 4: a wandering check falls due again

    def test_meeting_hands_off_a_dungeon_encounter_with_the_party_light(self):
        """The encounter starts in the dungeon setting, the party carrying light, with the monsters described."""
        d = monster_due()
        events = d.run(dg.Meet(monster_count=3, intelligent=False, monster_speed=60))
        assert HandedOff(parent="dungeon", child="encounter") in events
        (started,) = [e for e in events if e.type_name == "encounter.started"]
        assert (started.setting, started.party_light, started.monster_count) == ("dungeon", True, 3)
        assert (started.intelligent, started.monster_speed, started.name) == (False, 60, "wandering monster")
        assert not d.state.monster_due


#: one recipe per phase, for the refusal checks
PHASES = {Phase.OUTSIDE: "outside", Phase.EXPLORING: "exploring", Phase.ENCOUNTER: "encounter", Phase.LEFT: "left"}
#: the delve waits in CHASE as it does in ENCOUNTER; its refusals there are in test_chase_machine
COMMANDS = {trigger: command for (trigger, _, _), (_, command, _) in CASES.items()}


#: every (phase, trigger) without a row, and every trigger while the delve waits for its encounter
REFUSED = [
    (phase, trigger)
    for phase in PHASES
    for trigger in sorted(COMMANDS)
    if phase is Phase.ENCOUNTER or not any(t == trigger and s == phase.name for t, s, _ in rows())
]


class TestRefusals:
    @pytest.mark.parametrize(("phase", "trigger"), REFUSED, ids=lambda x: getattr(x, "name", x))
    def test_a_trigger_the_phase_does_not_have_is_refused_and_writes_nothing(self, phase, trigger):
        """Every trigger without a row from the phase (or while the delve waits) is refused."""
        d = RECIPES[PHASES[phase]]()
        before = d.version
        with pytest.raises((IllegalTransitionError, RuleRefusedError)):
            d.run(COMMANDS[trigger])
        assert d.version == before

    @pytest.mark.parametrize(
        ("recipe", "command", "why"),
        [
            ("monster_due", dg.Move(), "meet it first"),
            ("monster_due", dg.Search(), "meet it first"),
            ("monster_due", dg.Rest(), "meet it first"),
            ("monster_due", dg.LeaveDungeon(), "meet it first"),
            ("monster_due", dg.OpenDoor(by="Ann"), "meet it first"),
            # the checks that would fall due pass unrolled while the monster waits: the players would count them stop
            ("monster_due", AdvanceClock(duration="6 turns"), r"meet it first \(Meet\(\)\)"),
            ("exploring", dg.Move(mapping=True, fleeing=True), "while fleeing"),
            ("exploring", dg.LightSource(kind="torch", by="Ann"), "already carries a burning torch"),
            ("exploring", dg.RefillLantern(by="Ann"), "carries no lantern"),
        ],
    )
    def test_a_condition_that_fails_is_refused_with_its_reason_and_writes_nothing(self, recipe, command, why):
        d = RECIPES[recipe]()
        before = d.version
        with pytest.raises(RuleRefusedError, match=why):
            d.run(command)
        assert d.version == before

    @pytest.mark.parametrize("recipe", ["exploring", "monster_due"])
    @pytest.mark.parametrize(
        "command",
        [
            dg.LightSource(kind="torch", by="Cy"),
            dg.RefillLantern(by="Cy"),
            dg.OpenDoor(by="Cy"),
            dg.Listen(by="Cy"),
            dg.Search(searchers=("Ann", "Cy")),
        ],
    )
    def test_a_member_the_party_does_not_have_is_a_bad_value_named_before_any_rule(self, recipe, command):
        """A name the party does not have is the request's mistake (a usage error, HTTP 422), refused with the
        members there are before the delve's own conditions (a monster due) are asked; nothing is written."""
        d = RECIPES[recipe]()
        before = d.version
        with pytest.raises(UnknownMemberError, match=r"the party has no member called Cy \(its members: Ann"):
            d.run(command)
        assert d.version == before

    def test_no_mapping_in_the_dark(self):
        """Without a light the party cannot map; asked to, the move is refused."""
        d = Delve()
        d.run(dg.EnterDungeon())
        before = d.version
        with pytest.raises(RuleRefusedError, match="cannot be mapped in the dark"):
            d.run(dg.Move(mapping=True))
        assert d.version == before

    @pytest.mark.parametrize(
        ("command", "why"),
        [
            (dg.Move(feet=100), "at most 90 ft"),
            (dg.LightSource(kind="candle", by="Bo"), "torch or a lantern"),
            (dg.OpenDoor(by="Ann", tool="hammer"), "crowbar and axe"),
            (dg.OpenDoor(by="Ann", action="close"), "door open"),
            (dg.OpenDoor(by="Ann", locked=True), "needs --key or a thievery chance"),
            (dg.OpenDoor(by="Ann", locked=True, pick_chance=30, pick_in_6=2), "not both"),
            (dg.OpenDoor(by="Ann", locked=True, pick_chance=130), "at most 100"),
            (dg.OpenDoor(by="Ann", key=True), "add --locked"),
            (dg.Listen(by="Bo", skill_in_6=7), "0 to 6"),
        ],
    )
    def test_a_usage_error_writes_nothing(self, command, why):
        d = exploring()
        before = d.version
        with pytest.raises(UsageError, match=why):
            d.run(command)
        assert d.version == before

    def test_a_ruleset_without_the_dungeon_tables_refuses_a_delve_naming_them(self):
        """OSE has light but no dungeon or door tables: entering is refused, and says which."""
        d = Delve(ruleset="ose")
        with pytest.raises(RuleRefusedError, match=r"tables\.dungeon, tables\.open_doors"):
            d.run(dg.EnterDungeon())

    def test_a_delve_needs_a_party(self):
        d = Delve(members=())
        with pytest.raises(RuleRefusedError, match="no members"):
            d.run(dg.EnterDungeon())

    @pytest.mark.parametrize("command", [dg.CheckWandering(at_seconds=1200), dg.SearchRoll(searchers=("Ann",))])
    def test_the_kits_own_commands_are_refused_to_the_referee(self, command):
        d = exploring()
        before = d.version
        with pytest.raises(RuleRefusedError, match="made by hexlog"):
            d.run(command)
        assert d.version == before


#: the encounter's steps a test takes, by trigger, to reach its conclusion whatever the dice say
ENCOUNTER_STEPS: dict[str, c.Command] = {
    "conclude": enc.ConcludeEncounter(),
    "check_surprise": enc.CheckSurprise(),
    "determine_distance": enc.DetermineDistance(),
    "take_free_action": enc.TakeFreeAction(action="attack"),
    "roll_initiative": enc.RollInitiative(),
}


def finish_encounter(h: Handler) -> None:
    """Take the encounter's steps until it concludes (the first allowed of ``ENCOUNTER_STEPS``)."""
    runner = REGISTRY.runner("encounter")
    while True:
        table = h.load(CAMPAIGN)
        state = table.procedures["encounter"]
        if state.phase is enc.Phase.CONCLUDED:
            return
        allowed = {trigger for trigger, _ in runner.allowed(state, table)}
        trigger = next(t for t in ENCOUNTER_STEPS if t in allowed)
        h.execute(CAMPAIGN, ENCOUNTER_STEPS[trigger])


FOUR_NAMES = ("Ann", "Bo", "Cy", "Di")


def searched_on_committed_dice(monkeypatch: pytest.MonkeyPatch) -> Handler:
    """explore, a party of four, a session on a secret hexlog drew (fixed here): a delve of six turns of searching
    (one where the referee knows nothing is there), out, the session closed."""
    monkeypatch.setattr(hexlog_campaign, "secrets", SimpleNamespace(token_bytes=lambda n: bytes(range(n))))
    h = Handler(MemoryStore(), MemoryKeeper())
    members = (*MEMBERS, c.AddMember(name="Cy"), c.AddMember(name="Di"))
    for command in (
        c.StartCampaign(ruleset="explore"),
        c.OpenSession(),
        c.SetClientSeed(client_seed="players"),
        *members,
        dg.EnterDungeon(every_turns=100),
        dg.LightSource(kind="torch", by="Ann"),
        *(dg.Search(nothing_there=turn == 2) for turn in range(6)),  # the third: the referee knows none is there
        dg.LeaveDungeon(),
        c.CloseSession(),
    ):
        h.execute(CAMPAIGN, command)
    return h


class TestAudit:
    def test_a_whole_delve_on_committed_dice_replays_and_audits_clean(self):
        """Every decision (doors, listening, searching, spikes, wandering checks) re-derives from its rolls."""
        h = Handler(MemoryStore(), MemoryKeeper())
        for command in (
            c.StartCampaign(ruleset="explore"),
            c.OpenSession(secret_hex="5e" * 32),
            c.SetClientSeed(client_seed="players"),
            *MEMBERS,
            dg.EnterDungeon(danger=True),
            dg.LightSource(kind="torch", by="Ann"),
            dg.OpenDoor(by="Ann", tool="crowbar", locked=True, pick_in_6=3),
            dg.OpenDoor(by="Bo", locked=True, key=True),
            dg.Listen(by="Bo", skill_in_6=2),
            dg.SpikeDoor(held_open=True, door="east"),
            dg.SpikeDoor(held_open=False, door="west"),
            dg.Search(nothing_there=True),
        ):
            h.execute(CAMPAIGN, command)
        for turn in range(9):
            if h.load(CAMPAIGN).procedures["dungeon"].monster_due:
                h.execute(CAMPAIGN, dg.Meet())
                finish_encounter(h)
            elif turn < 8:
                h.execute(CAMPAIGN, dg.Move())
        h.execute(CAMPAIGN, dg.LeaveDungeon())
        h.execute(CAMPAIGN, c.CloseSession())
        assert replay(h.store, CAMPAIGN, REGISTRY).ok
        report = audit_store(h.store, CAMPAIGN, REGISTRY)
        assert report.findings == (), report.text()
        wandering = [e for e in h.store.read_all() if e.envelope.type == "hexlog.dungeon.wandering_checked"]
        assert wandering
        assert report.decisions >= 6 + len(wandering)

    def test_a_party_search_on_committed_dice_audits_verified(self, monkeypatch: pytest.MonkeyPatch):
        """explore's one die a turn for a party of four, on dice hexlog drew (a fixed secret): every search rolled
        one secret d6 made for the party, and the audit re-derives each: VERIFIED."""
        h = searched_on_committed_dice(monkeypatch)
        events = [decode(r.envelope) for r in h.store.read_stream(tables.stream_for(CAMPAIGN))]
        searches = [e for e in events if isinstance(e, ev.SecretDoorSearched)]
        dice = [e for e in events if isinstance(e, DiceRolled) and e.purpose == "dungeon.search"]
        assert len(searches) == len(dice) == 6
        assert {(len(e.faces), e.party_die, e.searchers) for e in searches} == {(1, True, FOUR_NAMES)}
        assert {r.made_for for r in dice} == {"party"}
        assert any(e.found for e in searches)  # the fixed secret's dice show a 1 at least once
        assert all(e.found == (e.present and e.faces == (1,)) for e in searches)
        report = audit_store(h.store, CAMPAIGN, REGISTRY)
        assert report.verdict is Verdict.VERIFIED, report.text()
        assert report.findings == ()

    @pytest.mark.parametrize(
        ("change", "word"),
        [
            ({"faces": "other"}, "faces"),
            ({"found": "flip"}, "found"),
            ({"party_die": False}, "party_die"),
        ],
        ids=["face", "found", "party_die"],
    )
    def test_a_forged_party_search_is_an_audit_finding(
        self, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], word: str
    ):
        """A party search recorded with another face, the other finding or as a die for each searcher is caught by
        the re-run of its one die."""
        h = searched_on_committed_dice(monkeypatch)
        decoded = [decode(r.envelope) for r in h.store.read_stream(tables.stream_for(CAMPAIGN))]
        assert check_decision_events(decoded).issues == ()
        at = next(i for i, e in enumerate(decoded) if isinstance(e, ev.SecretDoorSearched) and e.present)
        recorded = decoded[at]
        forged = {
            "faces": {"faces": (recorded.faces[0] % 6 + 1,)},
            "found": {"found": not recorded.found, "found_by": () if recorded.found else recorded.searchers},
            "party_die": {"party_die": False},
        }[next(iter(change))]
        decoded[at] = attrs.evolve(recorded, **forged)
        found = check_decision_events(decoded).issues
        assert found, forged
        assert any(word in issue.reason for issue in found), found

    def test_a_forged_wandering_result_is_an_audit_finding(self):
        """A wandering check recorded as a monster on a face that brings none is caught by the re-run."""
        d = exploring()
        d.run(dg.Move())
        d.run(dg.Move(), 5)
        events = list(d.handler.store.read_stream(tables.stream_for(CAMPAIGN)))
        (checked,) = [e for e in events if e.envelope.type == "hexlog.dungeon.wandering_checked"]
        assert checked.envelope.data["monster"] is False

        decoded = [decode(e.envelope) for e in events]
        at = next(i for i, e in enumerate(decoded) if isinstance(e, ev.WanderingChecked))

        decoded[at] = attrs.evolve(decoded[at], monster=True)
        found = check_decision_events(decoded).issues
        assert any("monster" in issue.reason for issue in found), found
