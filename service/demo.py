"""``hexlog demo``: a whole session on the exploration rules, printed as a referee reads it.

The dice are committed, so the script cannot know them: at each point it reads the state (the
steps allowed, the phase, whether the party is lost, whether a monster is due) and chooses the next
step as a referee would. The story itself is in ``demo_story``; this module holds the referee's hand
and the command.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from hexlog.events.encounter import PursuitDecided, ReactionResult
from hexlog.events.errors import NotFoundError, RuleRefusedError
from hexlog.events.procedure import PhaseChanged
from hexlog.events.streams import stream_for
from hexlog.machine import chase
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine.chase.rules import ChaseTables
from hexlog.machine.dungeon import commands as dc
from hexlog.machine.dungeon.state import PROCEDURE as DUNGEON
from hexlog.machine.encounter.machine import confused
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables
from hexlog.machine.hexmap import SetHex, grid, hidden
from hexlog.machine.hexmap.rules import OddRow
from hexlog.machine.pursuit import Phase as PursuitPhase
from hexlog.machine.pursuit import commands as pursuit
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay
from hexlog.replay.receipts import Receipt
from hexlog.service import demo_story, render
from hexlog.service.door import (
    EXIT_PIPE,
    DbOption,
    Door,
    SecretFileOption,
    campaign_ids,
    database_url,
    open_store,
    read_secret,
    shown_db,
    silence_stdout,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.events.base import Event
    from hexlog.machine.commands import Command


class Narration(Console):
    """The demo's console. When its reader closes standard output (``hexlog demo | head``), the demo plays on,
    quietly, to its end, so that its campaign is whole (its session closed, the secret revealed); ``cut`` says so."""

    cut = False

    def on_broken_pipe(self) -> None:
        """Print nothing more; the demo goes on."""
        self.quiet = self.cut = True
        silence_stdout()


out = Narration(highlight=False, soft_wrap=True, markup=False)

PARTY = (
    c.AddMember(name="Aldric", cha=13, wis=9, dex=10, strength=16, speed=90, armor="plate"),
    c.AddMember(name="Brenna", cha=11, wis=16, dex=9, strength=12, speed=120, armor="chain"),
    c.AddMember(name="Corvin", cha=8, wis=10, dex=17, strength=10, speed=120, armor="leather"),
    c.AddMember(name="Delphine", cha=15, wis=12, dex=12, strength=8, speed=120, armor="none"),
)
SPEAKER = "Delphine"
HOSTILE = {ReactionResult.ATTACKS, ReactionResult.HOSTILE}
#: the ground a flask of burning oil costs pursuers in the round it is thrown (the referee's ruling)
OIL_SLOWS_FT = 60
#: the phases of a chase still running
_CHASING = {chase.Phase.REPEAT, chase.Phase.RUNNING, chase.Phase.EVASION, chase.Phase.CLOSING}


def _free_campaign(db: Path) -> str:
    if database_url(db) is None and not db.exists():
        return "demo"
    try:
        store = open_store(db, readonly=True)
    except NotFoundError:  # a PostgreSQL database without hexlog's tables yet
        return "demo"
    try:
        known = set(campaign_ids(store))
    finally:
        store.close()
    name, n = "demo", 1
    while name in known:
        n += 1
        name = f"demo-{n}"
    return name


class Referee:
    """Runs each command, prints what it recorded, and reads the state to choose the next step."""

    def __init__(self, door: Door) -> None:
        self.door = door

    def do(self, command: Command, show: Callable[[Event], bool] | None = None) -> list[Event]:
        """Run a command and print its events (those ``show`` keeps) as the timeline does; the events."""
        outcome = self.door.run(command)
        told = render.context(outcome.table)
        for event in outcome.events:
            told.note(event)
            if not isinstance(event, PhaseChanged) and (show is None or show(event)):
                out.print(f"  {render.describe(event, told)}")
        return list(outcome.events)

    @staticmethod
    def say(text: str) -> None:
        """A line of the story."""
        out.print(f"  ~ {text}")

    @staticmethod
    def header(text: str) -> None:
        """A section of the session."""
        out.print(f"== {text}")

    def state(self, procedure: str) -> Any:
        """A procedure's folded state (None before it first runs)."""
        return self.door.table().procedures.get(procedure)

    def allowed(self, procedure: str) -> list[str]:
        """The triggers a procedure allows now."""
        table = self.door.table()
        runner = self.door.handler.registry.runner(procedure)
        return [trigger for trigger, _ in runner.allowed(table.procedures.get(procedure), table)]

    def barred(self, procedure: str) -> str:
        """Why the rules in force cannot run a procedure, in words ("" when they can)."""
        rules = self.door.table().rules
        found = next((p for p in self.door.handler.registry if p.name == procedure), None)
        if rules is None or found is None or found.unavailable is None:
            return ""
        why = found.unavailable(rules)
        return f"the rules in force ({rules.name}) have {why}" if why else ""

    def setting(self, *, underground: bool) -> str:
        """The rules' name for the setting of an encounter underground or in the open (dungeon or indoors, ...)."""
        rules = self.door.table().rules
        assert rules is not None  # noqa: S101 - the campaign has begun
        return next(str(s) for s in rules.part(EncounterTables).distance if s.underground is underground)

    def encounter(self) -> enc.EncounterState:
        """The encounter under way."""
        state = self.state(enc.PROCEDURE)
        assert isinstance(state, enc.EncounterState)  # noqa: S101 - started by the script
        return state

    def opening(self) -> None:
        """Surprise, distance, any free action, initiative; then let a surprised side's lost round pass."""
        self.do(enc.CheckSurprise())
        self.do(enc.DetermineDistance())
        if "take_free_action" in self.allowed(enc.PROCEDURE):
            self.do(enc.TakeFreeAction(action="attack"))
        if "roll_initiative" in self.allowed(enc.PROCEDURE):
            self.do(enc.RollInitiative())
        state = self.encounter()
        if state.phase is enc.Phase.ACTIONS and state.initiative is not None and state.initiative.free_round:
            self.round(note="the surprised side cannot act")
        elif state.phase is enc.Phase.ACTIONS and state.rounds < 1 and self._confused(state):
            self.round()

    def _confused(self, state: enc.EncounterState) -> bool:
        """Both sides surprised, under rules where neither then acts in the first round (ose)."""
        rules = self.door.table().rules
        return rules is not None and confused(state, rules.part(EncounterOptions))

    def initiative(self) -> None:
        """Roll the initiative a later round waits for, when the rules roll it every round (ose)."""
        if self.encounter().phase in {enc.Phase.ACTIONS, enc.Phase.COMBAT} and "roll_initiative" in self.allowed(
            enc.PROCEDURE
        ):
            rules = self.door.table().rules
            name = rules.name if rules is not None else "the rules"
            self.say(f"under {name} each round waits for its own initiative: the referee rolls it")
            self.do(enc.RollInitiative())

    def round(self, note: str = "") -> None:
        """Play a round (its initiative first, when the rules roll one every round)."""
        self.initiative()
        self.do(enc.PlayRound(note=note))

    def act(self, command: Command) -> list[Event]:
        """A side's action (fight, parley, wait, evade), once the round's initiative is rolled if the rules ask it."""
        self.initiative()
        return self.do(command)

    def talk_or_fight(self, foes: str) -> None:
        """The party speaks; hostile monsters are fought, others bargained with."""
        self.opening()
        if "react" in self.allowed(enc.PROCEDURE):
            # a party surprised in the first round cannot act in it, nor speak (seed 000 §2.2)
            speaks = enc.party_may_speak(self.door.table())
            self.do(enc.RollReaction(speaker=SPEAKER if speaks else ""))
        reaction = self.encounter().reaction
        if reaction is not None and reaction.result is ReactionResult.UNCERTAIN and "wait" in self.allowed("encounter"):
            self.act(enc.Wait(note="the party keeps its distance"))
            self.round()
            if "reroll_reaction" in self.allowed(enc.PROCEDURE):
                self.do(enc.RerollReaction())
            reaction = self.encounter().reaction
        self.initiative()
        if (reaction is None or reaction.result in HOSTILE) and "fight" in self.allowed(enc.PROCEDURE):
            self.act(enc.Fight(note=f"the {foes} charge"))
            for _ in range(3):
                self.round()
            self.do(enc.ConcludeEncounter(outcome=f"{foes} routed", note="two slain, the rest flee"))
        elif "parley" in self.allowed(enc.PROCEDURE):
            self.act(enc.Parley(note=f"the {foes} let the party pass for a toll"))
            self.do(enc.ConcludeEncounter(outcome="bargain"))
        self.conclude(f"{foes} gone")

    def flee(self, foes: str) -> None:
        """The party flees; the monsters' reaction says whether they give chase."""
        self.opening()
        self.initiative()
        if "evade" in self.allowed(enc.PROCEDURE):
            try:
                self.do(enc.Evade(note=f"the party runs from the {foes}"))
            except RuleRefusedError as refused:
                self.say(f"the party cannot flee ({str(refused).rsplit(': ', 1)[-1]}); it stands and fights")
                self.act(enc.Fight(note=f"the party fights the {foes}"))
                self.round()
                self.conclude(f"{foes} driven off")
                return
            if "roll_evasion" in self.allowed(enc.PROCEDURE):
                self.do(enc.RollEvasion())
            elif "decide_pursuit" in self.allowed(enc.PROCEDURE):
                decided = self.do(enc.DecidePursuit())
                if any(isinstance(e, PursuitDecided) and e.pursue for e in decided):
                    self.pursue(foes)
        self.chase()
        self.conclude("fought off")

    def pursue(self, foes: str) -> None:
        """The pursuers give chase in the open: a pursuit no journey handed over is started by the referee."""
        barred = self.barred("pursuit")
        if barred:
            self.say(f"{barred}: no pursuit day by day; the referee tells the flight, and the party gets away")
            return
        state = self.state("pursuit")
        if state is None or state.phase in {PursuitPhase.IDLE, PursuitPhase.CAUGHT, PursuitPhase.ESCAPED}:
            self.say(f"no journey hands the pursuit over: the referee starts it, the {foes} after the party")
            number = self.encounter().started.number
            self.do(pursuit.StartPursuit(encounter=number, terrain=OddRow.CLEAR))

    def flee_underground(self, foes: str) -> None:
        """The party runs from monsters in the dungeon; the referee has them give chase, and the chase runs out.

        A party that may flee at once evades and the encounter hands the pursuit to the chase (caught, the
        encounter's fight goes on); one that may not (surprised too far off, or charged) fights a round, breaks
        away, and the referee starts the chase from the encounter (caught, the delve meets them again).
        """
        self.opening()
        try:
            self.act(enc.Evade(note=f"the party runs from the {foes}"))
        except RuleRefusedError as refused:
            self.say(f"the party cannot flee yet ({str(refused).rsplit(': ', 1)[-1]}); it fights a round, then runs")
            if "fight" in self.allowed(enc.PROCEDURE):
                self.act(enc.Fight(note=f"the {foes} come on"))
            self.round()
            self.conclude("the party breaks away")
            self.start_chase(foes)
        else:
            self.do(enc.DecidePursuit(pursue=True, note=f"the {foes} give chase (the referee's call: they are hungry)"))
            if self.encounter().phase is enc.Phase.CONCLUDED:
                self.say("this encounter hands no chase off: it ends in pursuit; the chase is the referee's to start")
                self.start_chase(foes)
        self.run_chase(foes)

    def start_chase(self, foes: str) -> None:
        """The referee starts the dungeon chase from the encounter just ended, when the rules have one."""
        rules = self.door.table().rules
        if rules is None or rules.part(ChaseTables).dungeon_pursuit is None:
            name = rules.name if rules is not None else "the rules"
            self.say(
                f"the rules in force ({name}) have no dungeon pursuit table (tables.dungeon_pursuit): no chase round "
                f"by round; the referee tells the flight, and the party loses the {foes} in the dark"
            )
            return
        self.do(chase.StartChase(from_encounter=self.encounter().started.number, note=f"the {foes} give chase"))

    def run_chase(self, foes: str) -> None:
        """Round by round. When the pursuers would close to melee, the party throws what it has behind it:
        burning oil first (it costs them ground), then its rations; caught at last, it turns and fights."""
        oil = dropped = False
        for _ in range(100):
            state = self.state(chase.PROCEDURE)
            if not isinstance(state, chase.ChaseState) or state.phase not in _CHASING:
                break
            if state.phase is chase.Phase.REPEAT:
                self.do(chase.RepeatSteps())
            elif not oil and self._closing(state):
                self.say(f"the {foes} are closing: Brenna smashes a flask of oil on the flagstones and lights it")
                self.do(chase.Run(obstacle="burning oil", slows_ft=OIL_SLOWS_FT))
                oil = True
            elif not dropped and self._closing(state):
                self.say(f"the {foes} are almost upon them: Corvin flings down the party's rations")
                self.do(chase.Drop(item="food"))
                dropped = True
            else:
                self.do(chase.Run())
        state = self.state(chase.PROCEDURE)
        if isinstance(state, chase.ChaseState) and state.phase is chase.Phase.CAUGHT:
            self.say(f"the {foes} catch the party: it turns at bay and fights")
            if self.encounter().phase is not enc.Phase.COMBAT:  # a chase started by hand: a meeting of its own
                self.meet_again(foes)
            self.fight_out(f"the {foes} leap at the rearmost", rounds=2, outcome=f"the {foes} scattered")

    def meet_again(self, foes: str) -> None:
        """The pursuers that caught the party, met again: by the delve, or (no delve under way) as an encounter."""
        count = self.encounter().started.monster_count
        name = f"the {foes} that caught the party"
        if not self.barred(DUNGEON):
            self.do(dc.Meet(name=name, monster_count=count, intelligent=False))
            return
        start = enc.StartEncounter(
            setting=self.setting(underground=True), name=name, monster_count=count, intelligent=False, party_light=True
        )
        self.do(start)

    def _closing(self, state: chase.ChaseState) -> bool:
        """Whether the pursuers would close to melee in the next round."""
        rules = self.door.table().rules
        pursuit = rules.part(ChaseTables).dungeon_pursuit if rules is not None else None
        s = state.started
        melee = pursuit.melee_at_gap_ft if pursuit is not None else 0
        return state.phase is chase.Phase.RUNNING and state.gap_ft + s.fleeing_ft - s.pursuers_ft <= melee

    def chase(self) -> None:
        """A pursuit handed off after the encounter: the referee takes each step it allows until it ends."""
        steps: dict[str, Command] = {
            "roll_evasion": pursuit.RollEvasion(),
            "flee": pursuit.Flee(),
            "catch": pursuit.Catch(),
            "continue_check": pursuit.ContinueCheck(),
            "rest": pursuit.Rest(),
        }
        for _ in range(100):
            chase = self.state("pursuit")
            if self.encounter().phase not in {enc.Phase.IDLE, enc.Phase.CONCLUDED}:
                self.fight_out("the pursuers fall on the party")  # caught, or met while resting
                continue
            if chase is None or chase.phase in {PursuitPhase.IDLE, PursuitPhase.CAUGHT, PursuitPhase.ESCAPED}:
                return
            step = next(step for step in self.allowed("pursuit") if step in steps)
            if step == "flee":
                self.draw_around()
            self.do(steps[step])

    def draw_around(self) -> None:
        """The referee draws the hexes around the party that the map lacks (like its own), so it can flee there."""
        trip = self.state("travel")
        the_map = self.state("map")
        if trip is None or the_map is None or the_map.hex(trip.hex) is None:
            return
        terrain = the_map.hex(trip.hex).terrain
        for heading in grid.HEADINGS:
            there = grid.neighbour(trip.hex, heading)
            if there is not None and the_map.hex(there) is None:
                self.do(SetHex(hex=there, terrain=terrain))

    def fight_out(self, note: str, *, rounds: int = 0, outcome: str = "fought off") -> None:
        """An encounter handed off on the way: its opening, then a fight (of some rounds) to its end."""
        if self.encounter().phase is enc.Phase.SURPRISE:
            self.opening()
        self.initiative()
        if "fight" in self.allowed(enc.PROCEDURE):
            self.do(enc.Fight(note=note))
        for _ in range(rounds):
            self.initiative()
            if "round" in self.allowed(enc.PROCEDURE):
                self.do(enc.PlayRound())
        self.conclude(outcome)

    def conclude(self, outcome: str) -> None:
        """End the encounter if it has not ended (the procedure that handed it off resumes)."""
        if self.encounter().phase is not enc.Phase.CONCLUDED:
            self.do(enc.ConcludeEncounter(outcome=outcome))


def demo(
    db: DbOption = Path("hexlog.db"),
    secret_file: SecretFileOption = None,
    client_seed: Annotated[str, typer.Option(help="the players' client seed")] = "the players' own words",
    ruleset: Annotated[
        str, typer.Option(help="the built-in ruleset the session is played under: see 'hexlog rules list'")
    ] = "explore",
) -> None:
    """Run a whole session under a built-in ruleset: a map, a journey past a castle, camps, a delve, a chase; audit.

    Played under explore unless --ruleset names another built-in ruleset: each step is taken as its rules ask, and
    a procedure they lack (ose and adnd have no travel, camp, castle or delve tables) is said so and told instead.
    A demo given its secret (--secret-file) plays the same every time. Cut off (its output closed), it plays on
    quietly to its end and exits 141.
    """
    out.quiet = out.cut = False
    rules = rulesets.load(ruleset, used=REGISTRY.used_keys())  # an unknown name is refused before any file is made
    secret_hex = read_secret(secret_file)
    campaign = _free_campaign(db)
    door = Door.open(db, campaign, create=True)
    if secret_hex is not None and door.handler.commitment_used(hexdice.commitment(bytes.fromhex(secret_hex))):
        # refused before the demo's campaign is started, so that no campaign is left without its session
        msg = (
            "that secret was already used by an earlier session of this database; a demo given its secret "
            "plays the same in a new database (another --db)"
        )
        raise RuleRefusedError(msg)
    ref = Referee(door)
    played = "exploration rules, seed 004" if ruleset == "explore" else rules.title
    ref.header(f"hexlog demo: campaign {campaign} in {shown_db(db)} ({played})")
    ref.do(c.StartCampaign(ruleset=ruleset))
    ref.header("The referee opens the session and the players note the commitment")
    ref.do(c.OpenSession(secret_hex=secret_hex))
    ref.do(c.SetClientSeed(client_seed=client_seed))
    if secret_hex is not None:  # a demo given its secret is reproducible, its map's salts too (never in play)
        salts = hashlib.sha256(b"hexlog demo map salts" + bytes.fromhex(secret_hex)).hexdigest()
        door.handler.keeper.put_fact(campaign, hidden.SALT_KEY, salts)
    ref.header("The party")
    for member in PARTY:
        ref.do(member)
    demo_story.play(ref)
    ref.header("The referee closes the session and reveals the secret")
    ref.do(c.CloseSession())
    _afterwards(door, db, campaign)
    if out.cut:
        raise typer.Exit(EXIT_PIPE)


def _afterwards(door: Door, db: Path, campaign: str) -> None:
    table = door.table()
    report = audit_store(door.store, campaign)
    replayed = replay(door.store, campaign)
    out.print("== Afterwards")
    stream = stream_for(campaign)
    version = door.store.stream_version(stream)
    out.print(
        f"  clock: {table.clock.text} ({render.elapsed(table.clock.seconds, table.rules)}); the log holds "
        f"{counted(version, 'event')}"
    )
    receipt = Receipt.of(door.store.read_stream(stream, version)[0].envelope)
    out.print(
        f"  audit: {report.verdict}: {report.rolls_verified} of {report.rolls} rolls re-derived from the revealed "
        f"secret, {report.decisions} decisions re-run"
    )
    for caveat in report.caveats:
        out.print(f"    - {caveat}")
    out.print(f"  replay: {'matches' if replayed.ok else 'DIFFERS from'} the stored projections")
    out.print(f"  receipt for the players: {receipt}")
    out.print(
        f"  next: hexlog log --db {shown_db(db)} --campaign {campaign}   |   "
        f"hexlog audit --db {shown_db(db)} --campaign {campaign} --expect {receipt}"
    )
    door.close()
    if not report.ok or not replayed.ok:
        raise typer.Exit(1)


def install(app: typer.Typer) -> None:
    """Add the demo command to the command line."""
    app.command()(demo)
