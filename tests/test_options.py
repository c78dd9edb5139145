"""Every option of every built-in ruleset changes the outcome it should, and nothing else.

Each row of ``ROWS`` runs the same scripted encounter twice through the handler: once under the
ruleset's defaults and once with only that option overridden. The two decoded event logs are compared
command by command (``diff``); the set of (event type, field) pairs that differ must be exactly the
ones the row names, and the fields it names with values must change from the first value to the
second. ``PENDING`` lists the options no procedure reads yet (none of the registry's typed rules
declares them), and a guard keeps both lists honest against ``REGISTRY.used_keys()``.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from hexlog.events import camp as camp_ev
from hexlog.events import castle as castle_ev
from hexlog.events import chase as ev_chase
from hexlog.events import encounter as ev
from hexlog.events import hexmap as ev_map
from hexlog.events import pursuit as ev_pursuit
from hexlog.events import travel as ev_travel
from hexlog.events.campaign import CampaignStarted
from hexlog.events.clock import ClockAdvanced
from hexlog.events.codec import decode, to_data
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, PhaseChanged
from hexlog.machine import camp, castle, dungeon, hexmap
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine import table as tables
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import hidden
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.pursuit import commands as pu
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.timekeeping import AdvanceClock
from hexlog.machine.travel import commands as tr
from hexlog.machine.travel.day import SEASONS

CAMPAIGN = "opt"
SECRET_HEX = "5a" * 32
#: Ann speaks (CHA 18: +2 on the ose scale, +3 on the uniform one); Bo (90) is the slowest.
MEMBERS = (c.AddMember(name="Ann", cha=18), c.AddMember(name="Bo", speed=90))

# event types as the log names them; REFUSED stands for a command the procedure refused
DICE = DiceRolled.type_name
PHASE = PhaseChanged.type_name
CLOCK = ClockAdvanced.type_name
MOVE = ev.MovementRated.type_name
SURPRISE = ev.SurpriseChecked.type_name
SURROUNDED = ev.PartySurrounded.type_name
DIST = ev.DistanceDetermined.type_name
FREE = ev.FreeActionTaken.type_name
INIT = ev.InitiativeRolled.type_name
REACT = ev.ReactionRolled.type_name
ACTION = ev.ActionChosen.type_name
PURSUIT = ev.PursuitDecided.type_name
ROUND = ev.RoundPlayed.type_name
CONCLUDED = ev.EncounterConcluded.type_name
HANDED = HandedOff.type_name
CHASE = ev_pursuit.PursuitStarted.type_name
EVADE = ev_pursuit.PursuitEvasionRolled.type_name
NIGHT_CHECKED = camp_ev.NightChecked.type_name
CAMP_BROKEN = camp_ev.CampBroken.type_name
REFUSED = "refused"
#: the field of a difference where an event is present in one run only
WHOLE = "*"
PRESENT, ABSENT = "present", "absent"
#: CampaignStarted carries the resolved rules; they differ by the option itself, checked apart
IGNORED = frozenset({(CampaignStarted.type_name, "rules"), (CampaignStarted.type_name, "rules_hash")})

INDOORS = {"ose": "dungeon", "adnd": "indoors", "explore": "dungeon"}
OUTDOORS = {"ose": "wilderness", "adnd": "outdoors", "explore": "wilderness"}

Step = tuple[c.Command, tuple[int, ...]]


def do(command: c.Command, *faces: int) -> Step:
    """One command of a script and the dice faces it is given."""
    return command, faces


# --- running a script and comparing two runs -------------------------------------------------------


@attrs.frozen
class Record:
    """What one command left in the log: its decoded events as (type, JSON data), or one REFUSED entry."""

    command: str
    events: tuple[tuple[str, dict[str, Any]], ...]


def play(
    ruleset: str,
    options: dict[str, Any],
    script: tuple[Step, ...],
    members: tuple[c.AddMember, ...],
    table_overrides: dict[str, Any] | None = None,
) -> list[Record]:
    """Run setup and script on a fresh store; each command gets exactly its own faces (leftovers dropped)."""
    faces: list[int] = []
    keeper = MemoryKeeper()
    keeper.put_fact(CAMPAIGN, hidden.SALT_KEY, "5e" * 32)  # the same salts in both runs: the same commitments
    handler = Handler(MemoryStore(), keeper, roller=lambda _table: ScriptedRoller(faces))
    stream = tables.stream_for(CAMPAIGN)
    overrides: dict[str, Any] = {"options": options} if options else {}
    if table_overrides:
        overrides["tables"] = table_overrides
    setup: list[Step] = [
        do(c.StartCampaign(ruleset=ruleset, overrides=overrides)),
        do(c.OpenSession(secret_hex=SECRET_HEX)),
        *(do(m) for m in members),
    ]
    records = []
    for command, given in (*setup, *script):
        faces[:] = given
        before = handler.store.stream_version(stream)
        try:
            handler.execute(CAMPAIGN, command)
        except RuleRefusedError as err:  # refused (or not allowed in this phase): nothing written
            events: tuple[tuple[str, dict[str, Any]], ...] = ((REFUSED, {"error": type(err).__name__}),)
        else:
            decoded = (decode(r.envelope) for r in handler.store.read_stream(stream, before + 1))
            events = tuple((e.type_name, json.loads(json.dumps(to_data(e)))) for e in decoded)
        records.append(Record(type(command).__name__, events))
    return records


@attrs.frozen
class Difference:
    """One difference between two runs: command ``index``, the ``occurrence``-th event of ``type`` in it."""

    index: int
    command: str
    type: str
    occurrence: int
    field: str
    before: Any
    after: Any

    def __str__(self) -> str:
        where = f"#{self.index} {self.command}: {self.type}[{self.occurrence}].{self.field}"
        return f"{where}: {self.before!r} -> {self.after!r}"


def _keyed(events: tuple[tuple[str, dict[str, Any]], ...]) -> dict[tuple[str, int], dict[str, Any]]:
    """A command's events keyed by (type, occurrence of that type), in log order."""
    seen: dict[str, int] = {}
    out = {}
    for kind, data in events:
        out[kind, seen.get(kind, 0)] = data
        seen[kind] = seen.get(kind, 0) + 1
    return out


def diff(a: list[Record], b: list[Record]) -> list[Difference]:
    """Differences by (command index, event type and occurrence, field), ignoring ``IGNORED``."""
    assert [r.command for r in a] == [r.command for r in b], "the two runs must run the same commands"
    out = []
    for index, (ra, rb) in enumerate(zip(a, b, strict=True)):
        ka, kb = _keyed(ra.events), _keyed(rb.events)
        for key in [*ka, *(k for k in kb if k not in ka)]:
            kind, occurrence = key
            if key not in kb or key not in ka:
                before, after = (PRESENT, ABSENT) if key in ka else (ABSENT, PRESENT)
                out.append(Difference(index, ra.command, kind, occurrence, WHOLE, before, after))
                continue
            for name in [*ka[key], *(n for n in kb[key] if n not in ka[key])]:
                x, y = ka[key].get(name), kb[key].get(name)
                if x != y and (kind, name) not in IGNORED:
                    out.append(Difference(index, ra.command, kind, occurrence, name, x, y))
    return out


def rules_of(records: list[Record]) -> dict[str, Any]:
    """The flattened rules the run's campaign started under."""
    kind, data = records[0].events[0]
    assert kind == CampaignStarted.type_name
    return rulesets.flatten(data["rules"])


# --- scripts -----------------------------------------------------------------------------------------


def aware(
    ruleset: str,
    *,
    setting: str | None = None,
    initiative: tuple[int, ...] = (5, 2),
    **start: Any,
) -> tuple[Step, ...]:
    """Both sides aware (no surprise dice), the referee's 30 ft, initiative 5 against 2: phase ACTIONS."""
    return (
        do(enc.StartEncounter(setting=setting or INDOORS[ruleset], party_aware=True, monsters_aware=True, **start)),
        do(enc.CheckSurprise()),
        do(enc.DetermineDistance(value=30)),
        do(enc.RollInitiative(), *initiative),
    )


def later_round(ruleset: str) -> tuple[Step, ...]:
    """A round after the first: where initiative is rolled each round (OSE) its initiative (5 against 2) first."""
    each = rulesets.load(ruleset).content["options"].get("initiative_each_round", False)
    return (*((do(enc.RollInitiative(), 5, 2),) if each else ()), do(enc.PlayRound()))


def eleven_rounds(ruleset: str) -> tuple[Step, ...]:
    """Combat for 11 rounds, then the conclusion advances the clock."""
    later = later_round(ruleset) * 10
    return (*aware(ruleset), do(enc.Fight()), do(enc.PlayRound()), *later, do(enc.ConcludeEncounter()))


def blocked_surprise(ruleset: str, **start: Any) -> tuple[Step, ...]:
    """The aware party gives itself away (light or noise); the monsters would roll a 4 if they could."""
    return (
        do(enc.StartEncounter(setting=INDOORS[ruleset], party_aware=True, **start)),
        do(enc.CheckSurprise(), 4),
        do(enc.DetermineDistance(value=30)),
        do(enc.RollInitiative(), 5, 2),
        do(enc.ConcludeEncounter()),
    )


def monsters_surprised(ruleset: str, face: int) -> tuple[Step, ...]:
    """The aware party meets monsters that roll ``face``; the party then tries its free action."""
    return (
        do(enc.StartEncounter(setting=INDOORS[ruleset], party_aware=True)),
        do(enc.CheckSurprise(), face),
        do(enc.DetermineDistance(value=30)),
        do(enc.TakeFreeAction(action="attack")),
        do(enc.RollInitiative(), 5, 2),
        do(enc.PlayRound()),
        do(enc.ConcludeEncounter()),
    )


def night_in_camp(*check_faces: int) -> tuple[Step, ...]:
    """explore: a camp in clear terrain (encounter on 6), Ann and Bo taking turns, one night check, morning."""
    return (
        do(camp.MakeCamp(terrain="clear")),
        do(camp.SetWatches(watches=("1=Ann", "2=Bo", "3=Ann", "4=Bo"))),
        do(camp.CheckNight(), *check_faces),
        do(camp.BreakCamp()),
    )


# --- the table ---------------------------------------------------------------------------------------

Pair = tuple[str, str]


@attrs.frozen(kw_only=True)
class Row:
    """One option of one ruleset: the script, the new value, and every (type, field) it may change."""

    ruleset: str
    option: str
    value: Any
    script: tuple[Step, ...]
    #: (type, field) -> (value under the default, value with the option): the outcome it governs
    changes: dict[Pair, tuple[Any, Any]]
    #: further (type, field) pairs that change with it (texts, consequences), without fixed values
    also: frozenset[Pair] = frozenset()
    #: options both runs share, only where the option matters solely under another one
    base: dict[str, Any] = attrs.field(factory=dict)
    #: table entries both runs share, only where the new value reads a table the ruleset lacks
    base_tables: dict[str, Any] = attrs.field(factory=dict)
    members: tuple[c.AddMember, ...] = MEMBERS

    @property
    def id(self) -> str:
        """The pytest id."""
        return f"{self.ruleset}-{self.option}"


def whole(before: str, after: str, *kinds: str) -> dict[Pair, tuple[str, str]]:
    """Events of ``kinds`` present in one run only."""
    return {(kind, WHOLE): (before, after) for kind in kinds}


def row_round_seconds(ruleset: str, value: int, turns: tuple[int, int], rounds: tuple[int, int]) -> Row:
    """11 rounds of combat are 110 s at 10 s a round (one turn) and 660 s at 60 s (two turns)."""
    seconds = (turns[0] * 600, turns[1] * 600)
    return Row(
        ruleset=ruleset,
        option="round_seconds",
        value=value,
        script=eleven_rounds(ruleset),
        changes={
            (CONCLUDED, "turns"): turns,
            (CONCLUDED, "seconds"): seconds,
            (CLOCK, "turns"): turns,
            (CLOCK, "seconds"): seconds,
            (CLOCK, "rounds"): rounds,
        },
    )


def row_turn_seconds(ruleset: str, changes: dict[Pair, tuple[Any, Any]]) -> Row:
    """A 20-minute turn: 11 rounds still take one turn (OSE, now 1200 s) or now one instead of two (60 s rounds)."""
    return Row(ruleset=ruleset, option="turn_seconds", value=1200, script=eleven_rounds(ruleset), changes=changes)


def row_initiative_tie(ruleset: str) -> Row:
    """A tie on 3 is simultaneous; with "reroll" the dice are rolled again (two more dice): 4 against 1."""
    return Row(
        ruleset=ruleset,
        option="initiative_tie",
        value="reroll",
        script=(
            *aware(ruleset, initiative=(3, 3, 4, 1)),
            do(enc.Fight()),
            do(enc.PlayRound()),
            do(enc.ConcludeEncounter()),
        ),
        changes={
            (INIT, "party_face"): (3, 4),
            (INIT, "monsters_face"): (3, 1),
            (INIT, "first"): ("simultaneous", "party"),
            (INIT, "tie"): ("simultaneous", "reroll"),
            (INIT, "rerolls"): (0, 1),
            **whole(ABSENT, PRESENT, DICE),
        },
        also=frozenset({(INIT, "reason"), (INIT, "rolls")}),
    )


def row_reroll_limit(ruleset: str) -> Row:
    """Under "reroll", ties on 3 and 2 then 4 against 1; a limit of 1 stops at the tie on 2 (two dice fewer)."""
    return Row(
        ruleset=ruleset,
        option="reroll_limit",
        value=1,
        base={"initiative_tie": "reroll"},
        script=(*aware(ruleset, initiative=(3, 3, 2, 2, 4, 1)), do(enc.Fight()), do(enc.ConcludeEncounter())),
        changes={
            (INIT, "party_face"): (4, 2),
            (INIT, "monsters_face"): (1, 2),
            (INIT, "first"): ("party", "simultaneous"),
            (INIT, "rerolls"): (2, 1),
            **whole(PRESENT, ABSENT, DICE),
        },
        also=frozenset({(INIT, "reason"), (INIT, "rolls")}),
    )


def row_surprise_on(ruleset: str) -> Row:
    """The monsters' 3 does not surprise them at 1-2 but does at 1-3: the party gains its advantage."""
    if ruleset == "ose":
        # the free round: no initiative dice, and only the party acts in round 1
        return Row(
            ruleset="ose",
            option="surprise_on",
            value=3,
            script=(
                do(enc.StartEncounter(party_aware=True)),
                do(enc.CheckSurprise(), 3),
                do(enc.DetermineDistance(value=30)),
                do(enc.RollInitiative(), 5, 2),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (SURPRISE, "monsters_surprised"): (False, True),
                (SURPRISE, "advantage"): ("none", "party"),
                (INIT, "free_round"): ("", "party"),
                (ROUND, "acting"): (["party", "monsters"], ["party"]),
                **whole(PRESENT, ABSENT, DICE),
            },
            also=frozenset(
                {
                    (SURPRISE, "monsters_reason"),
                    (INIT, "party_face"),
                    (INIT, "monsters_face"),
                    (INIT, "reason"),
                    (INIT, "rolls"),
                    (ROUND, "reason"),
                }
            ),
        )
    # adnd (three lost segments) and explore (a single action): the party's free action phase
    segments = {(SURPRISE, "monsters_segments"): (0, 3)} if ruleset == "adnd" else {}
    return Row(
        ruleset=ruleset,
        option="surprise_on",
        value=3,
        script=(
            do(enc.StartEncounter(setting=INDOORS[ruleset], party_aware=True)),
            do(enc.CheckSurprise(), 3),
            do(enc.DetermineDistance(value=30)),
            do(enc.TakeFreeAction(action="attack")),
        ),
        changes={
            (SURPRISE, "monsters_surprised"): (False, True),
            (SURPRISE, "advantage"): ("none", "party"),
            (PHASE, "dest"): ("INITIATIVE", "FREE_ACTION"),
            **segments,
            **whole(PRESENT, ABSENT, REFUSED),
            **whole(ABSENT, PRESENT, FREE, PHASE),
        },
        also=frozenset({(SURPRISE, "monsters_reason")}),
    )


def row_surprise_advantage(ruleset: str, value: str) -> Row:
    """The monsters are surprised; a free round (no initiative dice) or a free action phase (dice) follows."""
    default = rulesets.load(ruleset).content["options"]["surprise_advantage"]
    round_first = default == "round"
    # the run with the one-round advantage: no free action, no initiative dice, only the party acts in round 1
    changes: dict[Pair, tuple[Any, Any]] = {
        (SURPRISE, "advantage_kind"): (default, value),
        (PHASE, "dest"): ("INITIATIVE", "FREE_ACTION") if round_first else ("FREE_ACTION", "INITIATIVE"),
        (INIT, "free_round"): ("party", "") if round_first else ("", "party"),
        (ROUND, "acting"): (["party"], ["party", "monsters"]) if round_first else (["party", "monsters"], ["party"]),
    }
    on, off = (ABSENT, PRESENT) if round_first else (PRESENT, ABSENT)
    changes.update(whole(on, off, FREE, DICE, PHASE))
    changes.update(whole(off, on, REFUSED))
    also = {(INIT, "party_face"), (INIT, "monsters_face"), (INIT, "reason"), (INIT, "rolls"), (ROUND, "reason")}
    if ruleset == "adnd":  # the two lost segments go with the segments advantage
        changes[SURPRISE, "monsters_segments"] = (2, 0)
        also.add((SURPRISE, "monsters_reason"))
    return Row(
        ruleset=ruleset,
        option="surprise_advantage",
        value=value,
        script=monsters_surprised(ruleset, 2),
        changes=changes,
        also=frozenset(also),
    )


def row_blocked(
    ruleset: str, option: str, *, members: tuple[c.AddMember, ...] = MEMBERS, value: Any = False, **start: Any
) -> Row:
    """The party would give itself away; without the rule the monsters roll their 4 (one more die).

    The extra die shifts the nonces of the initiative dice that follow.
    """
    return Row(
        ruleset=ruleset,
        option=option,
        value=value,
        members=members,
        script=blocked_surprise(ruleset, **start),
        changes={
            (SURPRISE, "monsters_rolled"): (False, True),
            (SURPRISE, "monsters_face"): (0, 4),
            **whole(ABSENT, PRESENT, DICE),
        },
        also=frozenset({(SURPRISE, "monsters_reason"), (SURPRISE, "rolls"), (DICE, "nonce"), (INIT, "rolls")}),
    )


def row_gives_away(ruleset: str, option: str, *, setting: str, value: Any = True, **start: Any) -> Row:
    """The other way from ``row_blocked``: under the ruleset's default the monsters roll their 4; the new value makes
    the party give itself away, so they do not roll."""
    script = (
        do(enc.StartEncounter(setting=setting, party_aware=True, **start)),
        *blocked_surprise(ruleset)[1:],
    )
    return Row(
        ruleset=ruleset,
        option=option,
        value=value,
        script=script,
        changes={
            (SURPRISE, "monsters_rolled"): (True, False),
            (SURPRISE, "monsters_face"): (4, 0),
            **whole(PRESENT, ABSENT, DICE),
        },
        also=frozenset({(SURPRISE, "monsters_reason"), (SURPRISE, "rolls"), (DICE, "nonce"), (INIT, "rolls")}),
    )


def row_default_light_radius() -> Row:
    """adnd indoors (A39): the party's light without --light-radius lights the rules' 30 ft, so the base roll's
    (6 + 4) x 10 = 100 ft is capped at 2 x 30 = 60 ft; at 0 nothing caps it, as before the option."""
    return Row(
        ruleset="adnd",
        option="default_light_radius_ft",
        value=0,
        script=(
            do(enc.StartEncounter(setting="indoors", party_aware=True, monsters_aware=True, party_light=True)),
            do(enc.CheckSurprise()),
            do(enc.DetermineDistance(), 6),
            do(enc.RollInitiative(), 5, 2),
            do(enc.ConcludeEncounter()),
        ),
        changes={(DIST, "value"): (60, 100)},
        also=frozenset({(DIST, "steps")}),
    )


def row_pursue_if(ruleset: str) -> Row:
    """The fleeing party's pursuers roll a reaction of 7: above 5 they let it go (the encounter ends), at most 8 they
    pursue (in the dungeon the encounter hands its chase off and waits for it; under rules with no dungeon chase it
    concludes in pursuit)."""
    decided = {(PURSUIT, "pursue"): (False, True), (PURSUIT, "suggested"): (False, True), (PURSUIT, "at_most"): (5, 8)}
    if "dungeon_pursuit" in rulesets.load(ruleset).content["tables"]:
        ended = {(PHASE, "dest"): ("CONCLUDED", "CHASE")}
        handed = {(HANDED, WHOLE), (ev_chase.ChaseStarted.type_name, WHOLE), (PHASE, WHOLE), (CONCLUDED, WHOLE)}
        also = {*handed, (CLOCK, WHOLE)}
    else:
        ended = {(CONCLUDED, "outcome"): ("evaded", "pursuit")}
        also = {(CONCLUDED, "reason"), (CLOCK, "reason")}
    return Row(
        ruleset=ruleset,
        option="pursue_if_reaction_at_most",
        value=8,
        script=(*aware(ruleset), do(enc.Evade(side="party")), do(enc.DecidePursuit(), 3, 4)),
        changes={**decided, **ended},
        also=frozenset({(PURSUIT, "note"), *also}),
    )


def row_reroll_uncertain(ruleset: str) -> Row:
    """An uncertain 7 may be re-rolled after a round (two dice); with the option off the re-roll is refused."""
    return Row(
        ruleset=ruleset,
        option="reroll_uncertain_reaction",
        value=False,
        script=(
            *aware(ruleset),
            do(enc.RollReaction(), 3, 4),
            do(enc.PlayRound()),
            do(enc.RerollReaction(), 6, 5),
            do(enc.ConcludeEncounter()),
        ),
        changes={**whole(PRESENT, ABSENT, REACT, DICE, PHASE), **whole(ABSENT, PRESENT, REFUSED)},
    )


def row_cha_scale(ruleset: str) -> Row:
    """Ann (CHA 18) speaks on 5 + 4: +2 gives 11 (indifferent), the uniform +3 gives 12 (friendly)."""
    return Row(
        ruleset=ruleset,
        option="cha_reaction_scale",
        value="uniform",
        script=(
            *aware(ruleset),
            do(enc.RollReaction(speaker="Ann"), 5, 4),
            do(enc.Parley()),
            do(enc.ConcludeEncounter()),
        ),
        changes={
            (REACT, "cha_modifier"): (2, 3),
            (REACT, "total"): (11, 12),
            (REACT, "result"): ("indifferent", "friendly"),
            (REACT, "text"): ("Indifferent, uninterested", "Eager, friendly"),
        },
    )


#: Ann (WIS 18, +2) and Bo (WIS 5, -1) for the per-character surprise of seed 004
WIS_MEMBERS = (c.AddMember(name="Ann", cha=18, wis=18), c.AddMember(name="Bo", speed=90, wis=5))


def bo_alone_surprised() -> tuple[Step, ...]:
    """explore dungeon, aware monsters; one d6 of 3 surprises Bo (3 - 1 = 2) and not Ann; the free action is tried."""
    return (
        do(enc.StartEncounter(monsters_aware=True)),
        do(enc.CheckSurprise(), 3),
        do(enc.DetermineDistance(value=30)),
        do(enc.TakeFreeAction(action="attack")),
        do(enc.RollInitiative(), 2, 5),
    )


def row_missiles(ruleset: str) -> Row:
    """The referee's 30 ft, where the table sets no missile limit: possible, or (false) recorded as not."""
    return Row(
        ruleset=ruleset,
        option="missiles_without_limit",
        value=False,
        script=(*aware(ruleset), do(enc.ConcludeEncounter())),
        changes={(DIST, "missiles_possible"): (True, False)},
    )


def row_move_divisor(ruleset: str) -> Row:
    """Bo's 90 and the monsters' 120 a turn: a third is 30 and 40 a round (AD&D: all, 9" and 12"), a half 45 and 60."""
    default = rulesets.load(ruleset).content["options"]["encounter_move_divisor"]
    return Row(
        ruleset=ruleset,
        option="encounter_move_divisor",
        value=2,
        script=(*aware(ruleset), do(enc.ConcludeEncounter())),
        changes={
            (MOVE, "party_per_round"): (90 // default, 45),
            (MOVE, "monsters_per_round"): (120 // default, 60),
            (MOVE, "divisor"): (default, 2),
        },
    )


def row_max_rounds(ruleset: str) -> Row:
    """At most 2 rounds of encounter movement: the third is refused and the encounter ends after 2."""
    return Row(
        ruleset=ruleset,
        option="encounter_move_max_rounds",
        value=2,
        script=(*aware(ruleset), do(enc.PlayRound()), *later_round(ruleset) * 2, do(enc.ConcludeEncounter())),
        changes={
            (MOVE, "max_rounds"): (rulesets.load(ruleset).content["options"]["encounter_move_max_rounds"], 2),
            (CONCLUDED, "rounds"): (3, 2),
            **whole(PRESENT, ABSENT, ROUND, PHASE),
            **whole(ABSENT, PRESENT, REFUSED),
        },
    )


def row_unintelligent_melee(ruleset: str, value: bool, script: tuple[Step, ...]) -> Row:  # noqa: FBT001
    """Non-intelligent monsters that surprised the party close to melee after their free action.

    In combat the initiative is refused (no dice), and the round is a combat round. Non-intelligent
    monsters roll no reaction either way.
    """
    melee, other = (ABSENT, PRESENT) if value else (PRESENT, ABSENT)
    return Row(
        ruleset=ruleset,
        option="unintelligent_monsters_attack",
        value=value,
        script=script,
        changes={
            (ROUND, "combat"): (not value, value),
            **whole(melee, other, ACTION, REFUSED),
            **whole(other, melee, INIT, DICE, PHASE),
        },
        also=frozenset({(PHASE, "source"), (PHASE, "dest")}),
    )


def monsters_surprise_the_party(ruleset: str, *, distance: Step, intelligent: bool = True) -> tuple[Step, ...]:
    """The monsters surprise the party (its 1 against their 4) and take their free action."""
    return (
        do(enc.StartEncounter(setting=INDOORS[ruleset], intelligent=intelligent)),
        do(enc.CheckSurprise(), 1, 4),
        distance,
        do(enc.TakeFreeAction(action="charge")),
        do(enc.RollInitiative(), 2, 5),
    )


def row_flees_within(ruleset: str, value: int, script: tuple[Step, ...]) -> Row:
    """The surprised party tries to flee: allowed at the default, refused beyond the new limit."""
    return Row(
        ruleset=ruleset,
        option="surprised_party_flees_within_ft",
        value=value,
        script=script,
        changes={**whole(PRESENT, ABSENT, ACTION, PHASE), **whole(ABSENT, PRESENT, REFUSED)},
    )


def row_surrounded(ruleset: str, value: int, monsters: int, *, now: bool, rest: tuple[Step, ...]) -> Row:
    """A party surprised in the open by ``monsters`` monsters is encircled, or no longer is (where the rules encircle
    it themselves: OSE leaves the call to the referee, option encirclement)."""
    return Row(
        ruleset=ruleset,
        option="surrounded_at_monsters",
        value=value,
        base={"encirclement": "always"} if ruleset == "ose" else {},
        script=(
            do(enc.StartEncounter(setting=OUTDOORS[ruleset], monster_count=monsters, monsters_aware=True)),
            do(enc.CheckSurprise(), 2),
            *rest,
        ),
        changes=whole(ABSENT, PRESENT, SURROUNDED) if now else whole(PRESENT, ABSENT, SURROUNDED),
    )


# --- the travel day's options (seed 004): a map of a few hexes, then one travel day ------------------

DAY = ev_travel.DayStarted.type_name
LOST = ev_travel.LostChecked.type_name
WANDER = ev_travel.WanderingChecked.type_name
ENDED = ev_travel.DayEnded.type_name
MOVED = ev_travel.Moved.type_name
SEARCHED = ev_travel.SearchRolled.type_name
#: a find, as the players are told it and as the referee keeps where it lies
FOUND = (ev_map.FeatureTold.type_name, ev_map.FeatureLocated.type_name)
STARTED = ev.EncounterStarted.type_name


def travel_map(*extra: Step) -> tuple[Step, ...]:
    """Hills at 1,2 (where the party sets out), a bog to its north, thorny forest beyond."""
    return (
        do(hexmap.SetHex(hex="1,2", terrain="hills", hidden=("ruined chapel",))),
        do(hexmap.SetHex(hex="1,1", terrain="bog")),
        do(hexmap.SetHex(hex="1,0", terrain="thorny_forest")),
        *extra,
    )


def travel_rows() -> list[Row]:
    """One row per option of the travel day."""
    clear = do(tr.RollWeather(weather="clear"))
    return [
        # hills read as OD&D woods (lost on 1-2) or as Dolmenwood light (lost on 1): a 2 tells them apart
        Row(
            ruleset="explore",
            option="lost_encounter_source",
            value="dolmenwood",
            script=travel_map(do(tr.StartJourney(hex="1,2")), clear, do(tr.DeclareRoute(headings=("N",)), 2, 4)),
            changes={
                (LOST, "row"): ("woods", "light"),
                (LOST, "lost_on"): ([1, 2], [1]),
                (LOST, "lost"): (True, False),
            },
            also=frozenset({(LOST, "heading"), (LOST, "true_route")}),
        ),
        # afloat, the wandering die shows 5: no encounter on the seed's 1-in-6; a waterborne one on U&WA's first die
        # (a ship's encounter is waterborne under either rule)
        Row(
            ruleset="explore",
            option="afloat_rule",
            value="odd_two_dice",
            script=travel_map(
                do(hexmap.SetHex(hex="0,2", terrain="river")),  # the ship sets out from a port beside it
                do(tr.StartJourney(hex="1,2", afloat=True)),
                clear,
                do(tr.DeclareRoute(), 6, 1),
                do(tr.CheckWandering(), 5, 1),
            ),
            changes={(WANDER, "encounter"): (False, True)},
            also=frozenset(
                {
                    (WANDER, "row"),
                    (WANDER, "encounter_on"),
                    (WANDER, "rolls"),
                    (DICE, WHOLE),
                    (STARTED, WHOLE),
                    (MOVE, WHOLE),
                    (PHASE, WHOLE),
                    (HANDED, WHOLE),
                    (DICE, "purpose"),
                }
            ),
        ),
        # 6 points: the bog (3) is entered, the thorny forest (4) is not; the 3 left are lost or carried
        Row(
            ruleset="explore",
            option="carry_partial_hex",
            value=True,
            script=travel_map(
                do(tr.StartJourney(hex="1,2")),
                clear,
                do(tr.DeclareRoute(headings=("N", "N")), 6, 1),
                do(tr.Move()),
                do(tr.CheckWandering(), 1),
                do(tr.EndDay()),
                clear,
            ),
            changes={(ENDED, "unused"): (3, 0), (ENDED, "carried"): (0, 3), (DAY, "travel_points"): (6, 9)},
        ),
        # mountains, which the Dolmenwood table does not rate: light (2 TP) by default, difficult (4 TP) if so read
        Row(
            ruleset="explore",
            option="unrated_terrain_difficulty",
            value="difficult",
            script=(
                do(hexmap.SetHex(hex="1,2", terrain="hills")),
                do(hexmap.SetHex(hex="1,1", terrain="mountains")),
                do(tr.StartJourney(hex="1,2")),
                clear,
                do(tr.DeclareRoute(headings=("N",)), 6, 1),
                do(tr.Move()),
            ),
            changes={(MOVED, "cost"): (2, 4), (MOVED, "travel_points"): (4, 2)},
        ),
        # the default table finds on 1-3 in light hills (a low die is good), dvdm on 5-6: a 5 tells them apart
        Row(
            ruleset="explore",
            option="search_table",
            value="dvdm",
            script=travel_map(
                do(tr.StartJourney(hex="1,2")), clear, do(tr.DeclareRoute(), 6, 1), do(tr.SearchHex(), 5)
            ),
            changes={
                (SEARCHED, "found"): ([], ["ruined chapel"]),
                (SEARCHED, "found_on"): ([1, 2, 3], [5, 6]),
                (SEARCHED, "per_feature"): (False, True),
                ("dice.rolled", "low_is_good"): (True, False),
            },
            also=frozenset((found, WHOLE) for found in FOUND),
        ),
        # a journey set out at the campaign's start (00:00) waits for the travel day's hour: 08:00, or 06:00
        Row(
            ruleset="explore",
            option="day_start_hour",
            value=6,
            script=travel_map(do(tr.StartJourney(hex="1,2")), clear),
            changes={
                (CLOCK, "seconds"): (28800, 21600),
                (CLOCK, "turns"): (48, 36),
                (CLOCK, "rounds"): (480, 360),
                (CLOCK, "reason"): ("the travel day starts at 08:00", "the travel day starts at 06:00"),
                (DAY, "at_seconds"): (28800, 21600),
            },
        ),
        # the day's wandering check is rolled at its end: midnight, 16 hours after the day's start, or 20:00, 12
        # hours after it (a 1 on the hills' die: nobody)
        Row(
            ruleset="explore",
            option="day_end_hour",
            value=20,
            script=travel_map(
                do(tr.StartJourney(hex="1,2")), clear, do(tr.DeclareRoute(), 6, 1), do(tr.CheckWandering(), 1)
            ),
            changes={
                (CLOCK, "seconds"): (57600, 43200),
                (CLOCK, "turns"): (96, 72),
                (CLOCK, "rounds"): (960, 720),
                (CLOCK, "reason"): (
                    "travel day 1 goes on until midnight, its end",
                    "travel day 1 goes on until 20:00, its end",
                ),
            },
        ),
        # 2d6 = 12 in summer: clear on the fallback table, fog on the referee's own
        Row(
            ruleset="explore",
            option="weather_table",
            value="custom",
            base_tables={"weather": {"custom": [{"at_least": 2, **dict.fromkeys(SEASONS, "fog")}]}},
            script=travel_map(do(tr.StartJourney(hex="1,2")), do(tr.RollWeather(), 6, 6)),
            changes={(DAY, "weather"): ("clear", "fog"), (DAY, "flags"): ([], ["poor_visibility"])},
        ),
    ]


# --- the chase (OSE §2.9, seed 004 §4.4) ------------------------------------------------------------

RUN = ev_chase.RoundRun.type_name
REPEATED = ev_chase.StepsRepeated.type_name
CHASE_ENDED = ev_chase.ChaseEnded.type_name
CHASE_STARTED = ev_chase.ChaseStarted.type_name


def pursued(ruleset: str, *chase: Step) -> tuple[Step, ...]:
    """The party flees a dungeon encounter 30 ft away, the monsters (120) pursue Bo's 90: the referee concludes it in
    pursuit and starts the chase by hand."""
    return (
        *aware(ruleset),
        do(enc.ConcludeEncounter(outcome="pursuit", note="the party flees; the monsters give chase")),
        *chase,
    )


def row_repeats_encounter_steps() -> Row:
    """A18: repeated, nobody is surprised (4, 5) and 2d4 gives 70 ft: one round leaves 40 ft, not a catch at 0."""
    return Row(
        ruleset="explore",
        option="pursuit_repeats_encounter_steps",
        value=True,
        script=pursued("explore", do(ch.StartChase(from_encounter=1)), do(ch.RepeatSteps(), 4, 5, 3, 4), do(ch.Run())),
        changes={(RUN, "gap_before"): (30, 70), (RUN, "gap_after"): (0, 40)},
        also=frozenset(
            {
                (RUN, "reason"),
                (PHASE, "dest"),
                (PHASE, WHOLE),
                (DICE, WHOLE),
                (REPEATED, WHOLE),
                (REFUSED, WHOLE),
                (CHASE_ENDED, WHOLE),
            }
        ),
    )


def row_waterborne_hands_off(ruleset: str) -> Row:
    """§2.9 on water, the pirates give chase: the encounter hands the chase on water off and waits for it, or
    (false, every ruleset recorded before the option) concludes in pursuit."""
    return Row(
        ruleset=ruleset,
        option="waterborne_pursuit_hands_off",
        value=False,
        script=(*aware(ruleset, setting="waterborne"), do(enc.Evade(side="party")), do(enc.DecidePursuit(pursue=True))),
        changes={
            (PHASE, "dest"): ("EVASION", "CONCLUDED"),
            **whole(PRESENT, ABSENT, HANDED, CHASE_STARTED),
            **whole(ABSENT, PRESENT, CONCLUDED, CLOCK),
        },
        also=frozenset({(PHASE, WHOLE)}),
    )


def _rows() -> list[Row]:
    rows: list[Row] = [
        row_round_seconds("ose", 60, turns=(1, 2), rounds=(60, 20)),
        row_round_seconds("adnd", 10, turns=(2, 1), rounds=(20, 60)),
        row_round_seconds("explore", 10, turns=(2, 1), rounds=(20, 60)),
        row_turn_seconds(
            "ose", {(CONCLUDED, "seconds"): (600, 1200), (CLOCK, "seconds"): (600, 1200), (CLOCK, "rounds"): (60, 120)}
        ),
        row_turn_seconds("adnd", {(CONCLUDED, "turns"): (2, 1), (CLOCK, "turns"): (2, 1)}),
        row_turn_seconds("explore", {(CONCLUDED, "turns"): (2, 1), (CLOCK, "turns"): (2, 1)}),
        Row(
            ruleset="explore",
            option="watch_seconds",
            value=14400,
            script=(do(AdvanceClock(duration="1 watch")),),
            changes={(CLOCK, "seconds"): (7200, 14400), (CLOCK, "turns"): (12, 24), (CLOCK, "rounds"): (120, 240)},
        ),
        row_surprise_advantage("ose", "single_action"),
        row_surprise_advantage("adnd", "round"),
        row_surprise_advantage("explore", "round"),
        row_blocked("ose", "light_blocks_surprise", party_light=True),
        row_blocked("explore", "light_blocks_surprise", party_light=True),
        row_blocked("ose", "noise_blocks_surprise", party_noisy=True),
        row_blocked("adnd", "noise_blocks_surprise", party_noisy=True),
        row_blocked("explore", "noise_blocks_surprise", party_noisy=True),
        # seed 001 lists noise under INDOORS: outdoors the noisy party may be surprised, unless noise counts there too
        row_gives_away("adnd", "noise_outdoors", setting="outdoors", party_noisy=True),
        # seed 001 gives light no say in surprise; as a house rule, OSE's A5
        row_gives_away("adnd", "light_blocks_surprise", setting="indoors", party_light=True),
        row_default_light_radius(),
        # Ann's chain mail is metal: noisy by default, quiet when only plated armor is noisy
        row_blocked(
            "adnd",
            "noisy_armor",
            value=["plated"],
            members=(c.AddMember(name="Ann", cha=18, armor="chain_mail"), c.AddMember(name="Bo", speed=90)),
        ),
        # OSE surprised monsters in the wilderness: 1d4 (3: 30 yd) with "either", 4d6 (3+2+2+2: 90 yd) with "both"
        Row(
            ruleset="ose",
            option="wild_surprise_distance_trigger",
            value="both",
            script=(
                do(enc.StartEncounter(setting="wilderness", party_aware=True)),
                do(enc.CheckSurprise(), 1),
                do(enc.DetermineDistance(), 3, 2, 2, 2),
                do(enc.RollInitiative()),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (DIST, "value"): (30, 90),
                (DIST, "rule"): ("ose.wilderness 1d4x10yd (surprised)", "ose.wilderness 4d6x10yd"),
                (DICE, "sides"): ([4], [6, 6, 6, 6]),
                (DICE, "faces"): ([3], [3, 2, 2, 2]),
                (DICE, "total"): (3, 9),
                (DICE, "purpose"): ("encounter.distance.surprised", "encounter.distance"),
            },
            also=frozenset({(DIST, "steps")}),
        ),
        # explore: one d6 of 3 with WIS 5 (-1) surprises Bo alone (Ann acts, so the party is not
        # surprised as a side); without WIS nobody is surprised
        Row(
            ruleset="explore",
            option="wis_surprise_mod",
            value="off",
            members=WIS_MEMBERS,
            script=bo_alone_surprised(),
            changes={(SURPRISE, "party_characters_surprised"): (["Bo"], [])},
            also=frozenset({(SURPRISE, "party_reason")}),
        ),
        # explore: the same d6 of 3; under the party scope Bo's failed roll surprises the whole party,
        # and the monsters gain their free action
        Row(
            ruleset="explore",
            option="wis_surprise_scope",
            value="party",
            members=WIS_MEMBERS,
            script=bo_alone_surprised(),
            changes={
                (SURPRISE, "party_surprised"): (False, True),
                (SURPRISE, "advantage"): ("none", "monsters"),
                (PHASE, "dest"): ("INITIATIVE", "FREE_ACTION"),
                **whole(ABSENT, PRESENT, FREE, PHASE),
                **whole(PRESENT, ABSENT, REFUSED),
            },
            also=frozenset({(SURPRISE, "party_reason")}),
        ),
        # explore wilderness, the monsters surprised: the single action the open never grants (initiative is
        # rolled, both act), or OSE's free round (no initiative dice, only the party acts in round 1)
        Row(
            ruleset="explore",
            option="wilderness_surprise_advantage",
            value="round",
            script=(
                do(enc.StartEncounter(setting="wilderness", party_aware=True)),
                do(enc.CheckSurprise(), 1),
                do(enc.DetermineDistance(value=10)),
                do(enc.RollInitiative(), 5, 2),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (SURPRISE, "advantage_kind"): ("single_action", "round"),
                (INIT, "free_round"): ("", "party"),
                (ROUND, "acting"): (["party", "monsters"], ["party"]),
                **whole(PRESENT, ABSENT, DICE),
            },
            also=frozenset({(INIT, "party_face"), (INIT, "monsters_face"), (INIT, "reason"), (INIT, "rolls")})
            | {(ROUND, "reason")},
        ),
        # ose, both sides surprised (1 and 2): neither rolls initiative and both act at once; with the
        # option both roll, 4 against 3
        Row(
            ruleset="ose",
            option="surprised_sides_roll_initiative",
            value=True,
            script=(
                do(enc.StartEncounter()),
                do(enc.CheckSurprise(), 1, 2),
                do(enc.DetermineDistance(), 3, 4),
                do(enc.RollInitiative(), 4, 3),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (INIT, "party_face"): (0, 4),
                (INIT, "monsters_face"): (0, 3),
                (INIT, "first"): ("simultaneous", "party"),
                **whole(ABSENT, PRESENT, DICE),
            },
            also=frozenset({(INIT, "reason"), (INIT, "rolls")}),
        ),
        # ose, both sides surprised (1 and 2): a momentary confusion, neither acts in the first round (the party's
        # wait refused); with the option both act at once
        Row(
            ruleset="ose",
            option="mutually_surprised_sides_act",
            value=True,
            script=(
                do(enc.StartEncounter()),
                do(enc.CheckSurprise(), 1, 2),
                do(enc.DetermineDistance(), 3, 4),
                do(enc.RollInitiative()),
                do(enc.Wait(side="party")),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (ROUND, "acting"): ([], ["party", "monsters"]),
                **whole(PRESENT, ABSENT, REFUSED),
                **whole(ABSENT, PRESENT, ACTION, PHASE),
            },
            also=frozenset({(INIT, "reason"), (ROUND, "reason")}),
        ),
        # ose: after the first round initiative is rolled again (1 against 6); once per encounter it is refused
        Row(
            ruleset="ose",
            option="initiative_each_round",
            value=False,
            script=(*aware("ose"), do(enc.PlayRound()), do(enc.RollInitiative(), 1, 6), do(enc.ConcludeEncounter())),
            changes={**whole(PRESENT, ABSENT, INIT, DICE, PHASE), **whole(ABSENT, PRESENT, REFUSED)},
        ),
        # explore: 3 + 4 fits both dice, so only the dice and the rule change (70 ft either way)
        Row(
            ruleset="explore",
            option="dungeon_distance",
            value="2d6x10ft",
            script=(
                do(enc.StartEncounter(party_aware=True, monsters_aware=True)),
                do(enc.CheckSurprise()),
                do(enc.DetermineDistance(), 3, 4),
                do(enc.RollInitiative(), 5, 2),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (DIST, "rule"): ("explore.dungeon 2d4x10ft", "explore.dungeon 2d6x10ft"),
                (DICE, "sides"): ([4, 4], [6, 6]),
            },
            also=frozenset({(DIST, "steps")}),
        ),
        # adnd outdoors: six 4s and twelve 1s are 36 x 10 = 360 ft; 6d4 x 30 reads the six 4s: 720 ft
        Row(
            ruleset="adnd",
            option="outdoor_distance_dice",
            value="6d4x30ft",
            script=(
                do(enc.StartEncounter(setting="outdoors", party_aware=True, monsters_aware=True)),
                do(enc.CheckSurprise()),
                do(enc.DetermineDistance(), *[4] * 6, *[1] * 12),
                do(enc.RollInitiative(), 5, 2),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (DIST, "value"): (360, 720),
                (DIST, "rule"): ("adnd.outdoors 18d4x10ft", "adnd.outdoors 6d4x30ft"),
                (DICE, "sides"): ([4] * 18, [4] * 6),
                (DICE, "faces"): ([4] * 6 + [1] * 12, [4] * 6),
                (DICE, "total"): (36, 24),
            },
            also=frozenset({(DIST, "steps")}),
        ),
        # adnd forest: eighteen 1s become 0s, so the distance is the minimum: 10 ft, or 40 ft
        Row(
            ruleset="adnd",
            option="outdoor_min_distance_ft",
            value=40,
            script=(
                do(enc.StartEncounter(setting="outdoors", terrains=("forest",), party_aware=True, monsters_aware=True)),
                do(enc.CheckSurprise()),
                do(enc.DetermineDistance(), *[1] * 18),
                do(enc.RollInitiative(), 5, 2),
                do(enc.ConcludeEncounter()),
            ),
            changes={(DIST, "value"): (10, 40)},
            also=frozenset({(DIST, "steps")}),
        ),
        # adnd both surprised, faces 2 and 1: the difference costs the party 1 segment; by face, 2 and 1;
        # either way the monsters' free segments are the gap between the losses: 1
        Row(
            ruleset="adnd",
            option="segments_on_mutual_surprise",
            value="face",
            script=(
                do(enc.StartEncounter(setting="indoors")),
                do(enc.CheckSurprise(), 2, 1),
                do(enc.DetermineDistance(), 2),
                do(enc.TakeFreeAction(action="close")),
                do(enc.RollInitiative(), 5, 2),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (SURPRISE, "party_segments"): (1, 2),
                (SURPRISE, "monsters_segments"): (0, 1),
            },
            also=frozenset({(SURPRISE, "party_reason"), (SURPRISE, "monsters_reason")}),
        ),
        # adnd: the party surprised the monsters (1 segment) 30 ft away; add20 lets it slip away, movement
        # (Bo's 9" = 9 ft in one segment: 39 ft, detection 60 ft) does not, so the free action follows
        Row(
            ruleset="adnd",
            option="avoid_rule",
            value="movement",
            script=(
                do(enc.StartEncounter(setting="indoors", party_aware=True)),
                do(enc.CheckSurprise(), 1),
                do(enc.DetermineDistance(value=30)),
                do(enc.Avoid(side="party")),
                do(enc.TakeFreeAction(action="close")),
            ),
            changes={**whole(PRESENT, ABSENT, ACTION, CONCLUDED, CLOCK), **whole(ABSENT, PRESENT, FREE)},
            also=frozenset({(PHASE, WHOLE), (REFUSED, WHOLE)}),
        ),
        # explore wilderness, the monsters surprised: 1d3 shows 1, 10 yd (missiles possible by the table either way)
        Row(
            ruleset="explore",
            option="distance_rules",
            value="ose",
            # OSE reads a dungeon row's own dice, which seed 004 takes from tables.dungeon_distance
            base_tables={"distance": {"dungeon": {"dice": "2d4"}}},
            script=(
                do(enc.StartEncounter(setting="wilderness", party_aware=True)),
                do(enc.CheckSurprise(), 1),
                do(enc.DetermineDistance(), 1),
                do(enc.RollInitiative(), 5, 2),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (DIST, "rule"): ("explore.wilderness 1d3x10yd (surprised)", "ose.wilderness 1d3x10yd (surprised)"),
            },
            also=frozenset({(DIST, "steps")}),
        ),
        # adnd with OSE dungeon and wilderness rows added to its distance table: (1d6+4) x 10 ft on a 3,
        # or 2d6 x 10 ft on 3 + 4
        Row(
            ruleset="adnd",
            option="distance_rules",
            value="ose",
            base_tables={
                "distance": {
                    "dungeon": {"dice": "2d6", "multiplier": 10, "unit": "ft"},
                    "wilderness": {"dice": "4d6", "multiplier": 10, "unit": "yd", "surprised_dice": "1d4"},
                }
            },
            script=(
                do(enc.StartEncounter(setting="dungeon", party_aware=True, monsters_aware=True)),
                do(enc.CheckSurprise()),
                do(enc.DetermineDistance(), 3, 4),
                do(enc.RollInitiative(), 5, 2),
                do(enc.ConcludeEncounter()),
            ),
            changes={
                (DIST, "rule"): ("adnd.indoors (1d6+4)x10ft", "ose.dungeon 2d6x10ft"),
                (DICE, "sides"): ([6], [6, 6]),
                (DICE, "faces"): ([3], [3, 4]),
                (DICE, "modifier"): (4, 0),
            },
            also=frozenset({(DIST, "steps")}),
        ),
        # ose with the single free action (surprise_advantage, seed 004's reading): the option closes to melee
        attrs.evolve(
            row_unintelligent_melee(
                "ose",
                value=True,
                script=(
                    *monsters_surprise_the_party(
                        "ose", distance=do(enc.DetermineDistance(value=50)), intelligent=False
                    ),
                    do(enc.PlayRound()),
                    do(enc.ConcludeEncounter()),
                ),
            ),
            base={"surprise_advantage": "single_action"},
        ),
        # adnd: the monsters (free segments) charge from 50 ft; with the option they close to melee
        row_unintelligent_melee(
            "adnd",
            value=True,
            script=(
                *monsters_surprise_the_party("adnd", distance=do(enc.DetermineDistance(value=50)), intelligent=False),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
        ),
        # explore: from 40 ft (beyond the 30 ft flight limit) they close to melee; without the option they do not
        row_unintelligent_melee(
            "explore",
            value=False,
            script=(
                *monsters_surprise_the_party(
                    "explore", distance=do(enc.DetermineDistance(value=40)), intelligent=False
                ),
                do(enc.PlayRound()),
                do(enc.ConcludeEncounter()),
            ),
        ),
        # ose: surprised at 70 ft (2d6: 3 + 4), after the monsters' free round; a 30 ft limit forbids it
        row_flees_within(
            "ose",
            30,
            (
                do(enc.StartEncounter()),
                do(enc.CheckSurprise(), 1, 4),
                do(enc.DetermineDistance(), 3, 4),
                do(enc.RollInitiative()),
                do(enc.PlayRound()),
                do(enc.RollInitiative(), 5, 2),
                do(enc.Evade(side="party")),
            ),
        ),
        # adnd: surprised at 50 ft, after the monsters' free segments
        row_flees_within(
            "adnd",
            30,
            (
                *monsters_surprise_the_party("adnd", distance=do(enc.DetermineDistance(value=50))),
                do(enc.Evade(side="party")),
            ),
        ),
        # explore: surprised at 20 ft (1d3: 2), within 30 ft but not within 10 ft
        row_flees_within(
            "explore",
            10,
            (
                *monsters_surprise_the_party("explore", distance=do(enc.DetermineDistance(), 2)),
                do(enc.Evade(side="party")),
            ),
        ),
        # OSE §2.2 "may find itself encircled": the referee's call (encircle) by default; always: at surprise
        Row(
            ruleset="ose",
            option="encirclement",
            value="always",
            script=(
                do(enc.StartEncounter(setting="wilderness", monster_count=3, monsters_aware=True)),
                do(enc.CheckSurprise(), 2),
                do(enc.DetermineDistance(), 3),
                do(enc.RollInitiative()),
                do(enc.ConcludeEncounter()),
            ),
            changes=whole(ABSENT, PRESENT, SURROUNDED),
        ),
        row_surrounded(
            "ose",
            5,
            4,
            now=False,
            rest=(
                do(enc.DetermineDistance(), 3),
                do(enc.RollInitiative()),
                do(enc.ConcludeEncounter()),
            ),
        ),
        row_surrounded(
            "adnd",
            3,
            3,
            now=True,
            rest=(
                do(enc.DetermineDistance(value=300)),
                do(enc.TakeFreeAction(action="encircle")),
                do(enc.RollInitiative(), 2, 5),
                do(enc.ConcludeEncounter()),
            ),
        ),
        row_surrounded(
            "explore",
            2,
            2,
            now=True,
            rest=(
                do(enc.DetermineDistance(), 1),
                do(enc.RollInitiative(), 2, 5),
                do(enc.ConcludeEncounter()),
            ),
        ),
        # explore: the night's wandering check (A19) is rolled; without it the check is refused and the camp
        # breaks straight after the watches are set
        Row(
            ruleset="explore",
            option="night_encounter_check",
            value=False,
            script=night_in_camp(1, 1),
            changes={
                (PHASE, "source"): ("NIGHT", "WATCHED"),
                **whole(PRESENT, ABSENT, DICE, NIGHT_CHECKED, PHASE),
                **whole(ABSENT, PRESENT, REFUSED),
            },
        ),
    ]
    rows += travel_rows()
    rows += evasion_rows()
    rows.append(row_repeats_encounter_steps())
    rows += [row_waterborne_hands_off("ose"), row_waterborne_hands_off("explore")]
    for ruleset in ("ose", "adnd", "explore"):
        rows += [
            row_initiative_tie(ruleset),
            row_reroll_limit(ruleset),
            row_surprise_on(ruleset),
            row_pursue_if(ruleset),
            row_reroll_uncertain(ruleset),
            row_cha_scale(ruleset),
            row_move_divisor(ruleset),
            row_max_rounds(ruleset),
            row_missiles(ruleset),
        ]
    return rows


def row_evasion(ruleset: str, option: str, value: Any, changes: dict[Pair, tuple[Any, Any]], **more: Any) -> Row:
    """A pursuit's evasion roll on ``face`` (Ann and Bo, the slower at 90, flee): the chance and its outcome change."""
    return Row(
        ruleset=ruleset,
        option=option,
        value=value,
        script=(do(more.pop("start")), do(pu.RollEvasion(), more.pop("face"))),
        changes=changes,
        also=frozenset({(EVADE, "steps"), *more.pop("also", ())}),
        **more,
    )


#: seed 004's adjustments, for the ose ruleset switched to its reading
ADJUST = {
    "surprised_enemy_multiplier": 2,
    "surprised_in_woods_pct": 10,
    "woods_pct": 25,
    "speed_ratio": 2,
    "evaders_faster_pct": 25,
    "pursuers_faster_pct": -25,
    "magic_counts_as_unsurprised": True,
}
CUSTOM = {"custom": [{"fleeing_at_least": 1, "bands": [[1, 20]]}]}


def evasion_rows() -> list[Row]:
    """The wilderness evasion options of ose and explore, each on one evasion roll of a pursuit (2 flee 1)."""
    woods = pu.StartPursuit(terrain="woods")
    plain = pu.StartPursuit()
    fast = pu.StartPursuit(pursuers_speed=240)
    rows = [
        # explore 2 vs 1 in woods: 50 + 25 = 75 (seed 004); OSE ignores the woods: 50
        row_evasion(
            "explore",
            "evasion_rules",
            "ose",
            start=woods,
            face=60,
            changes={(CHASE, "rules"): ("odd", "ose"), (EVADE, "chance"): (75, 50), (EVADE, "evaded"): (True, False)},
        ),
        row_evasion(
            "ose",
            "evasion_rules",
            "odd",
            start=woods,
            face=60,
            changes={(CHASE, "rules"): ("ose", "odd"), (EVADE, "chance"): (50, 75), (EVADE, "evaded"): (False, True)},
            base_tables={"evasion_adjust": ADJUST},
        ),
        # the 1-4 row (and cap and floor) pushed by speed: 240 vs 90 is at least twice
        row_evasion(
            "ose",
            "evasion_speed_modifiers",
            True,  # noqa: FBT003 - the option's value
            start=fast,
            face=40,
            changes={(EVADE, "chance"): (50, 25), (EVADE, "evaded"): (True, False)},
        ),
    ]
    for ruleset in ("ose", "explore"):
        rows += [
            # faster pursuers catch the party (a 1): its encounter starts at melee range with no die, or rolls a fresh
            # meeting's 4d6 x 10 yd (every die a 3: 120 yd)
            Row(
                ruleset=ruleset,
                option="caught_distance",
                value="rolled",
                script=(
                    do(fast),
                    do(pu.RollEvasion(), 99),
                    do(pu.Flee(), 1),
                    do(pu.Catch(), 1),
                    do(enc.CheckSurprise()),
                    do(enc.DetermineDistance(), 3, 3, 3, 3),
                ),
                changes={
                    (DIST, "value"): (0, 120),
                    (DIST, "melee"): (True, False),
                    (DIST, "rule"): (f"{ruleset}.wilderness caught", f"{ruleset}.wilderness 4d6x10yd"),
                    # seed 004: missiles reach 10 yd at most; OSE sets no such limit
                    **({(DIST, "missiles_possible"): (True, False)} if ruleset == "explore" else {}),
                },
                also=frozenset({(DIST, "steps"), (DIST, "rolls"), (DICE, WHOLE)}),
            ),
            row_evasion(
                ruleset,
                "evasion_table",
                "custom",
                start=plain,
                face=40,
                changes={(EVADE, "chance"): (50, 20), (EVADE, "base"): (50, 20), (EVADE, "evaded"): (True, False)},
                base_tables={"evasion": CUSTOM},
            ),
            row_evasion(
                ruleset,
                "evasion_floor_pct",
                60,
                start=plain,
                face=55,
                changes={(EVADE, "chance"): (50, 60), (EVADE, "evaded"): (False, True)},
            ),
            row_evasion(
                ruleset,
                "evasion_cap_pct",
                40,
                start=plain,
                face=45,
                changes={(EVADE, "chance"): (50, 40), (EVADE, "evaded"): (True, False)},
            ),
        ]
    return rows


ROWS = _rows()

#: options no procedure reads yet: (ruleset, option) -> (the procedure that will read it, why it waits)
PENDING: dict[tuple[str, str], tuple[str, str]] = {
    ("adnd", "segment_seconds"): ("segment clock", "lost segments are counted, but no clock ticks in segments yet"),
}


def used(option: str) -> bool:
    """Whether a procedure reads the option: some typed part of the registry declares it."""
    return ("options", option) in REGISTRY.used_keys()


def all_options() -> set[tuple[str, str]]:
    """(ruleset, option) for every option of every built-in ruleset."""
    return {(name, option) for name in rulesets.builtin_names() for option in rulesets.load(name).content["options"]}


# --- the tests ---------------------------------------------------------------------------------------


class TestEachOption:
    @pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
    def test_the_option_changes_its_outcome_and_nothing_else(self, row: Row) -> None:
        """The same scripted encounter under the default and the new value differs exactly where the row says."""
        default = rulesets.load(row.ruleset, {"options": row.base} if row.base else None).content["options"][row.option]
        assert row.value != default, "the row must change the option"
        assert row.option not in row.base
        before = play(row.ruleset, row.base, row.script, row.members, row.base_tables)
        after = play(row.ruleset, {**row.base, row.option: row.value}, row.script, row.members, row.base_tables)
        rules_before, rules_after = rules_of(before), rules_of(after)
        keys = rules_before.keys() | rules_after.keys()
        changed_rules = {k for k in keys if rules_before.get(k) != rules_after.get(k)}
        assert changed_rules == {f"options.{row.option}"}
        found = diff(before, after)
        shown = "\n".join(str(d) for d in found)
        assert {(d.type, d.field) for d in found} == set(row.changes) | row.also, shown
        for d in found:
            if (d.type, d.field) in row.changes:
                assert (d.before, d.after) == row.changes[d.type, d.field], str(d)


#: options that name an entry of a table: their choices are that table's keys (the rest are enums)
ENTRY_OPTIONS = {"dungeon_distance": "dungeon_distance", "outdoor_distance_dice": "outdoor_dice"}


def choice_values() -> list[tuple[str, str, Any]]:
    """(ruleset, option, value) for every choice ``rules show`` lists, or table entry named, that is not the default.

    An option holding a list of choices (noisy_armor) is given one kind.
    """
    out = []
    for name in rulesets.builtin_names():
        rules = rulesets.load(name)
        content = rules.content
        for row in rulesets.describe(rules, REGISTRY.readers, REGISTRY.rule_parts):
            section, _, option = row.key.partition(".")
            if section != "options":
                continue
            allowed = row.choices or tuple(content["tables"].get(ENTRY_OPTIONS.get(option, ""), {}))
            default = content["options"][option]
            for choice in allowed:
                value = [choice] if isinstance(default, list) else choice
                if value != default:
                    out.append((name, option, value))
    return out


#: enough 1s for any roll of the script (1 fits every die; 22 initiative dice at most)
ONES = (1,) * 30


class TestEveryChoice:
    @pytest.mark.parametrize(("ruleset", "option", "value"), choice_values(), ids=str)
    def test_every_choice_runs_a_whole_encounter_in_every_setting(self, ruleset: str, option: str, value: Any) -> None:
        """Each listed value, alone, is refused as the rules load (naming it) or runs an all-1 encounter cleanly."""
        try:
            REGISTRY.check_rules(rulesets.load(ruleset, {"options": {option: value}}, used=REGISTRY.used_keys()))
        except rulesets.RulesError as err:
            refusal = str(err)
        else:
            refusal = ""
        if refusal:
            assert f"options.{option}" in refusal
            return
        for setting in rulesets.load(ruleset).content["tables"]["distance"]:
            for party_aware in (False, True):
                script = (
                    do(enc.StartEncounter(setting=setting, party_aware=party_aware)),
                    do(enc.CheckSurprise(), *ONES),
                    do(enc.DetermineDistance(), *ONES),
                    do(enc.TakeFreeAction(action="attack")),
                    do(enc.RollInitiative(), *ONES),
                    do(enc.RollReaction(), *ONES),
                    do(enc.PlayRound()),
                    do(enc.ConcludeEncounter()),
                )
                records = play(ruleset, {option: value}, script, MEMBERS)
                kinds = [kind for r in records for kind, _ in r.events]
                assert {SURPRISE, DIST, ROUND, CONCLUDED} <= set(kinds), (setting, party_aware, kinds)

    @pytest.mark.parametrize(
        ("ruleset", "option"),
        sorted({(r, o) for r, o, _ in choice_values()}),
        ids=str,
    )
    def test_a_value_outside_the_choices_is_refused_naming_the_option(self, ruleset: str, option: str) -> None:
        """A house rule giving a choice option a value it does not list is refused when the rules load."""
        default = rulesets.load(ruleset).content["options"][option]
        value = ["sometimes"] if isinstance(default, list) else "sometimes"
        with pytest.raises(rulesets.RulesError, match=rf"options\.{option}\b.*'sometimes'"):
            REGISTRY.check_rules(rulesets.load(ruleset, {"options": {option: value}}, used=REGISTRY.used_keys()))


#: options a ruleset reads whose every other value its tables cannot serve: refused at load, so no row can
#: show an effect (TestOnlyDefault checks that each other value is refused, naming the option)
ONLY_DEFAULT: dict[tuple[str, str], str] = {
    ("ose", "distance_rules"): "the seed 004 dungeon needs options.dungeon_distance and AD&D its outdoor dice",
}


class TestOnlyDefault:
    @pytest.mark.parametrize("key", sorted(ONLY_DEFAULT), ids=str)
    def test_every_other_value_is_refused_at_load_naming_the_option(self, key: tuple[str, str]) -> None:
        """No value but the default loads, so the option has no effect a row could show."""
        ruleset, option = key
        others = [value for name, opt, value in choice_values() if (name, opt) == key]
        assert others
        for value in others:
            with pytest.raises(rulesets.RulesError, match=rf"options\.{option}\b"):
                REGISTRY.check_rules(rulesets.load(ruleset, {"options": {option: value}}, used=REGISTRY.used_keys()))


def unrested_hour() -> tuple[Step, ...]:
    """Six turns of moving (a quiet wandering check every second one), an attack, its damage and a morale roll
    made for Ann, a turn of rest, then another attack."""
    moves = tuple(do(dungeon.Move(), *((6,) if turn % 2 == 0 else ())) for turn in range(1, 7))
    rolls = (
        do(c.RollDice(expression="1d20", purpose="attack", made_for="Ann"), 10),
        do(c.RollDice(expression="1d6", purpose="damage", made_for="Ann"), 3),
        do(c.RollDice(expression="2d6", purpose="morale", made_for="Ann"), 3, 3),
    )
    after = do(c.RollDice(expression="1d20", purpose="attack", made_for="Ann"), 10)
    return (do(dungeon.EnterDungeon()), *moves, *rolls, do(dungeon.Rest()), after)


class TestDungeonTables:
    def test_unrested_penalty_falls_on_attack_and_damage_after_an_unrested_hour(self) -> None:
        """tables.dungeon.unrested_penalty (-1, REFERENCE §1): the attack and damage made for Ann after an hour
        without rest carry it, recorded with its source; a morale roll does not, nor the attack after the rest.
        With the penalty 0 (a house rule) nothing differs but those two rolls."""
        script = unrested_hour()
        before = play("explore", {}, script, MEMBERS, {"dungeon": {"unrested_penalty": 0}})
        after = play("explore", {}, script, MEMBERS)
        found = [d for d in diff(before, after) if d.type != CampaignStarted.type_name]
        assert {(d.index, d.type, d.field) for d in found} == {
            (index, DICE, field) for index in (11, 12) for field in ("modifier", "total", "modifiers")
        }, "\n".join(str(d) for d in found)
        (attack,) = [e for kind, e in after[11].events if kind == DICE]
        assert (attack["modifier"], attack["total"], attack["made_for"]) == (-1, 9, "Ann")
        assert attack["modifiers"] == [
            {"source": "an hour of delving without a turn of rest (until the party rests)", "value": -1}
        ]

    def test_the_penalty_is_read_from_the_rules_in_force(self) -> None:
        """A house rule of -2 imposes -2."""
        after = play("explore", {}, unrested_hour(), MEMBERS, {"dungeon": {"unrested_penalty": -2}})
        (damage,) = [e for kind, e in after[12].events if kind == DICE]
        assert (damage["modifier"], damage["total"]) == (-2, 1)

    def test_secret_door_roll_each_searcher_rolls_a_die_for_each_searcher_and_nothing_else_differs(self) -> None:
        """tables.dungeon.secret_door_roll: explore's "party" (§4.2, one d6 a turn of searching) rolls one die for
        the party, whose 2 finds nothing; the house rule "each_searcher" rolls Ann's 2 and Bo's 1, and Bo finds the
        door. Only the search's dice and what they decided differ."""
        script = (do(dungeon.EnterDungeon()), do(dungeon.Search(), 2, 1))
        before = play("explore", {}, script, MEMBERS)
        after = play("explore", {}, script, MEMBERS, {"dungeon": {"secret_door_roll": "each_searcher"}})
        found = [d for d in diff(before, after) if d.type != CampaignStarted.type_name]
        searched = "dungeon.secret_door_searched"
        fields = ("faces", "modifiers", "found_by", "found", "party_die", "referee_rolls")
        assert {(d.index, d.type, d.occurrence, d.field) for d in found} == {
            (5, DICE, 0, "made_for"),
            (5, DICE, 1, WHOLE),
            *((5, searched, 0, field) for field in fields),
        }, "\n".join(str(d) for d in found)
        changed = {d.field: (d.before, d.after) for d in found if d.type == searched}
        assert changed["faces"] == ([2], [2, 1])
        assert changed["found_by"] == ([], ["Bo"])
        assert changed["found"] == (False, True)
        assert changed["party_die"] == (True, False)
        assert {d.field: (d.before, d.after) for d in found if d.type == DICE}["made_for"] == ("party", "Ann")


class TestCoverage:
    def test_every_option_has_a_row_or_is_pending(self) -> None:
        """Each option of each built-in ruleset is read by a procedure and has a row, or is unread and pending."""
        covered = {(r.ruleset, r.option) for r in ROWS} | set(ONLY_DEFAULT)
        read = {key for key in all_options() if used(key[1])}
        assert sorted(read - covered) == []
        assert sorted(all_options() - read - set(PENDING)) == []
        assert sorted(key for key in PENDING if used(key[1])) == []
        assert sorted(covered & set(PENDING)) == []

    def test_each_option_has_at_most_one_row(self) -> None:
        """One row per (ruleset, option)."""
        ids = [r.id for r in ROWS]
        assert sorted(i for i in set(ids) if ids.count(i) > 1) == []

    def test_the_rows_name_existing_options_the_machine_reads(self) -> None:
        """A row for an unknown option, or one no procedure of the registry reads, is a mistake in the table."""
        known = all_options()
        assert sorted(r.id for r in ROWS if (r.ruleset, r.option) not in known) == []
        assert sorted(r.id for r in ROWS if not used(r.option)) == []

    def test_pending_options_exist_and_are_not_read_yet(self) -> None:
        """Once a procedure reads a pending option it needs a row instead; a pending entry must exist."""
        assert sorted(PENDING.keys() - all_options()) == []
        assert sorted(key for key in PENDING if used(key[1])) == []
        assert all(procedure and reason for procedure, reason in PENDING.values())

    def test_the_registry_guard_sees_a_read_option(self) -> None:
        """The guard can fail: an option the encounter reads counts as used, an unread one does not."""
        assert used("initiative_tie")
        assert not used("segment_seconds")
        read = {key for section, key in REGISTRY.used_keys() if section == "options"}
        assert {"initiative_tie", "round_seconds"} <= read


class TestDiffHelper:
    def test_two_runs_under_the_same_rules_do_not_differ(self) -> None:
        """Nothing in the decoded events depends on the run (ids, times), so equal runs show no difference."""
        script = row_initiative_tie("ose").script
        assert diff(play("ose", {}, script, MEMBERS), play("ose", {}, script, MEMBERS)) == []

    def test_a_changed_field_and_a_missing_event_are_reported_where_they_are(self) -> None:
        """Differences name the command index, the event type and occurrence, and the field ("*" when missing)."""
        a = [Record("X", (("e", {"v": 1, "w": 0}),)), Record("Y", (("e", {"v": 1}), ("e", {"v": 2})))]
        b = [Record("X", (("e", {"v": 3, "w": 0}),)), Record("Y", (("e", {"v": 1}),))]
        assert diff(a, b) == [
            Difference(0, "X", "e", 0, "v", 1, 3),
            Difference(1, "Y", "e", 1, WHOLE, PRESENT, ABSENT),
        ]


# --- the chase's tables: one effect test each ---------------------------------------------------------

ITEM = ev_chase.ItemDropped.type_name
WATER = ev_chase.WaterEvasionRolled.type_name


@attrs.frozen(kw_only=True)
class TableRow:
    """One table a procedure reads, changed by a house rule: the script and every (type, field) it changes."""

    ruleset: str
    table: str
    value: dict[str, Any]
    script: tuple[Step, ...]
    changes: dict[Pair, tuple[Any, Any]]
    also: frozenset[Pair] = frozenset()

    @property
    def id(self) -> str:
        """The pytest id."""
        return f"{self.ruleset}-{self.table}"


TABLE_ROWS = [
    # treasure stops treasure lovers on 1-3 by default, on 1 under the house rule: a 2 tells them apart
    TableRow(
        ruleset="explore",
        table="dungeon_pursuit",
        value={"dropped_treasure_stop_in_6": 1},
        script=pursued(
            "explore", do(ch.StartChase(from_encounter=1, likes_treasure=True)), do(ch.Drop(item="treasure"), 2)
        ),
        changes={(ITEM, "stop_in_6"): (3, 1), (ITEM, "stopped"): (True, False)},
        also=frozenset({(ITEM, "reason"), (PHASE, WHOLE), (CHASE_ENDED, WHOLE)}),
    ),
    # a vessel 60 ft a round slower evades on 40 %, or on 45 %: a 45 tells them apart
    TableRow(
        ruleset="ose",
        table="evasion_waterborne",
        value={"slower": [[30, 50], [60, 45], [90, 35], [120, 25]]},
        script=(
            do(ch.StartChase(setting="waterborne", gap_ft=300, fleeing_ft=90, pursuers_ft=150)),
            do(ch.Evade(), 45),
        ),
        changes={
            (WATER, "chance"): (40, 45),
            (WATER, "evaded"): (False, True),
            (WATER, "retry_next_day"): (False, True),
            (PHASE, "dest"): ("CLOSING", "ESCAPED"),
        },
        also=frozenset({(CHASE_ENDED, WHOLE)}),
    ),
]


class TestEachChaseTable:
    @pytest.mark.parametrize("row", TABLE_ROWS, ids=lambda r: r.id)
    def test_the_table_changes_its_outcome_and_nothing_else(self, row: TableRow) -> None:
        """The same script under the table as shipped and under a house rule differs exactly where the row says."""
        before = play(row.ruleset, {}, row.script, MEMBERS)
        after = play(row.ruleset, {}, row.script, MEMBERS, {row.table: row.value})
        found = diff(before, after)
        shown = "\n".join(str(d) for d in found)
        assert {(d.type, d.field) for d in found} == set(row.changes) | row.also, shown
        for d in found:
            if (d.type, d.field) in row.changes:
                assert (d.before, d.after) == row.changes[d.type, d.field], str(d)

    def test_every_chase_table_has_a_row_and_is_read(self) -> None:
        """Each table the chase reads has a row here."""
        read = {key for section, key in REGISTRY.used_keys() if section == "tables"}
        assert {r.table for r in TABLE_ROWS} == {"dungeon_pursuit", "evasion_waterborne"} <= read


# --- the castle tables: one effect test per key ------------------------------------------------------

PASSED = castle_ev.CastlesPassed.type_name
MET = castle_ev.GarrisonMet.type_name
TOLL = castle_ev.TollDemanded.type_name
JOUST = castle_ev.JoustFought.type_name
FLED = castle_ev.GarrisonFled.type_name
ENDED = castle_ev.MeetingEnded.type_name
QUEST = castle_ev.QuestAccepted.type_name


def castle_passed(at: str, face: int) -> tuple[Step, ...]:
    """explore: meadows along row 0, a castle at ``at``; a day starts at 0,0 and the ride-out check shows ``face``."""
    return (
        *(do(hexmap.SetHex(hex=f"{col},0", terrain="meadow")) for col in range(3)),
        do(castle.PlaceCastle(hex=at)),
        do(tr.StartJourney(hex="0,0")),
        do(tr.RollWeather(weather="clear")),
        do(castle.PassCastles(), face),
    )


def castle_met(place: castle.PlaceCastle, meet: tuple[int, ...], *then: Step) -> tuple[Step, ...]:
    """explore: a castle at 2,2 hailed and its garrison met on ``meet`` (type, disposition), then ``then``."""
    return (
        do(hexmap.SetHex(hex="2,2", terrain="hills")),
        do(place),
        do(castle.HailCastle(hex="2,2")),
        do(castle.MeetGarrison(riders=6), *meet),
        *then,
    )


def _place(castle_type: str = "", disposition: str = "") -> castle.PlaceCastle:
    return castle.PlaceCastle(hex="2,2", castle_type=castle_type, disposition=disposition)


LORD_MET = castle_met(_place("lord", "neutral"), ())
CASTLE_TABLE_ROWS: list[tuple[str, dict[str, Any], tuple[Step, ...], set[Pair]]] = [
    ("ride_out_in_6.same_hex", {"ride_out_in_6": {"same_hex": 4}}, castle_passed("0,0", 4), {(PASSED, "passed")}),
    ("ride_out_in_6.one_hex", {"ride_out_in_6": {"one_hex": 3}}, castle_passed("1,0", 3), {(PASSED, "passed")}),
    ("ride_out_in_6.two_hexes", {"ride_out_in_6": {"two_hexes": 2}}, castle_passed("2,0", 2), {(PASSED, "passed")}),
    ("hostile_on", {"hostile_on": [1, 2, 3, 4]}, castle_met(_place("lord"), (4,)), {(MET, "disposition")}),
    (
        "types",
        {"types": ["superhero", "lord", "wizard", "necromancer", "patriarch", "evil_high_priest"]},
        castle_met(_place(), (1, 4)),
        {(MET, "castle_type")},
    ),
    (
        "always",
        {"always": {"lord": "neutral"}},
        castle_met(_place("lord"), (1,)),
        {(MET, "disposition"), (MET, "disposition_face"), (MET, "rolls"), (DICE, WHOLE)},
    ),
    ("kind", {"kind": {"lord": "cleric"}}, LORD_MET, {(MET, "kind"), (MET, "demand")}),
    (
        "pursue_in_6",
        {"pursue_in_6": {"neutral": 2}},
        (*LORD_MET, do(castle.FleeGarrison(), 2)),
        # pursued, the meeting waits for the pursuit it hands off instead of ending escaped
        {
            (FLED, "pursue_on"),
            (FLED, "pursued"),
            (PHASE, "trigger"),
            (PHASE, "dest"),
            (PHASE, WHOLE),
            (ENDED, WHOLE),
            (HANDED, WHOLE),
            (ev_pursuit.PursuitStarted.type_name, WHOLE),
        },
    ),
]
CASTLE_DEMAND_ROWS: list[tuple[str, dict[str, Any], tuple[Step, ...], set[Pair]]] = [
    (
        "fighter.toll_dice",
        {"fighter": {"toll_dice": "2d6"}},
        (*LORD_MET, do(castle.DemandToll(), 3, 3)),
        {(MET, "demand"), (TOLL, "gold"), (TOLL, "reason"), (DICE, "sides"), (DICE, "faces"), (DICE, "total")},
    ),
    (
        "fighter.toll_gp_per_point",
        {"fighter": {"toll_gp_per_point": 200}},
        (*LORD_MET, do(castle.DemandToll(), 3)),
        {(MET, "demand"), (TOLL, "gold"), (TOLL, "reason")},
    ),
    (
        "fighter.hospitality_days",
        {"fighter": {"hospitality_days": 20}},
        (*LORD_MET, do(castle.Joust(fighter="Ann", winner="party"))),
        {(MET, "demand"), (JOUST, "hospitality_days")},
    ),
    (
        "fighter.rations_days",
        {"fighter": {"rations_days": 7}},
        (*LORD_MET, do(castle.Joust(fighter="Ann", winner="party"))),
        {(MET, "demand"), (JOUST, "rations_days")},
    ),
    (
        "magic_user.toll_dice",
        {"magic_user": {"toll_dice": "2d4"}},
        castle_met(_place("wizard", "neutral"), (), do(castle.DemandToll(), 3, 3)),
        {(MET, "demand"), (TOLL, "gold"), (TOLL, "reason"), (DICE, "sides"), (DICE, "faces"), (DICE, "total")},
    ),
    (
        "magic_user.toll_gp_per_point",
        {"magic_user": {"toll_gp_per_point": 500}},
        castle_met(_place("wizard", "neutral"), (), do(castle.DemandToll(), 3)),
        {(MET, "demand"), (TOLL, "gold"), (TOLL, "reason")},
    ),
    (
        "magic_user.quest_keeps_fraction",
        {"magic_user": {"quest_keeps_fraction": 0.75}},
        castle_met(_place("wizard", "neutral"), (), do(castle.AcceptQuest())),
        {(MET, "demand"), (QUEST, "keeps_fraction")},
    ),
    (
        "cleric.tithe_pct",
        {"cleric": {"tithe_pct": 20}},
        castle_met(_place("patriarch"), (), do(castle.DemandToll(worth=1000))),
        {(MET, "demand"), (TOLL, "gold"), (TOLL, "tithe_pct"), (TOLL, "reason")},
    ),
]


def _castle_rows() -> list[tuple[str, dict[str, Any], tuple[Step, ...], set[Pair]]]:
    rows = [(f"castle.{key}", {"castle": value}, script, pairs) for key, value, script, pairs in CASTLE_TABLE_ROWS]
    rows += [
        (f"castle_demands.{key}", {"castle_demands": value}, script, pairs)
        for key, value, script, pairs in CASTLE_DEMAND_ROWS
    ]
    return rows


def _leaves(prefix: str, value: Any) -> list[str]:
    """The dotted keys of a table's entries, down to the entries of a per-kind table (not a dict of values)."""
    if isinstance(value, dict) and prefix.count(".") < 1 + prefix.startswith("castle_demands"):
        return [leaf for key, inner in value.items() for leaf in _leaves(f"{prefix}.{key}", inner)]
    return [prefix]


class TestCastleTables:
    @pytest.mark.parametrize(
        ("key", "tables", "script", "pairs"), _castle_rows(), ids=lambda v: v if isinstance(v, str) else ""
    )
    def test_each_key_changes_its_outcome_and_nothing_else(
        self, key: str, tables: dict[str, Any], script: tuple[Step, ...], pairs: set[Pair]
    ) -> None:
        """The same scripted meeting under the default tables and with one key changed differs exactly there."""
        before = play("explore", {}, script, MEMBERS)
        after = play("explore", {}, script, MEMBERS, tables)
        assert all(r.events[0][0] != REFUSED for r in before), key
        found = {(d.type, d.field) for d in diff(before, after)}
        assert found == pairs, "\n".join(str(d) for d in diff(before, after))

    def test_every_castle_table_key_has_a_row(self) -> None:
        """Every entry of tables.castle and tables.castle_demands in explore is read, and has a row above."""
        content = rulesets.load("explore").content["tables"]
        keys = [leaf for name in ("castle", "castle_demands") for leaf in _leaves(name, content[name])]
        rows = {key for key, *_ in _castle_rows()}
        ride_out = [f"castle.ride_out_in_6.{k}" for k in content["castle"]["ride_out_in_6"]]
        assert sorted({k for k in keys if not k.startswith("castle.ride_out_in_6")} | set(ride_out)) == sorted(rows)
        assert {("tables", "castle"), ("tables", "castle_demands")} <= REGISTRY.used_keys()
