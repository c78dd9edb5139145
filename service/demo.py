"""``hexlog demo``: a whole scripted session, printed as a referee reads it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from hexlog.events.encounter import ReactionResult
from hexlog.events.procedure import PhaseChanged
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine import encounter as enc
from hexlog.replay.audit import audit_store
from hexlog.replay.rebuild import replay
from hexlog.replay.receipts import Receipt
from hexlog.service import render
from hexlog.service.door import DbOption, Door, campaign_ids, open_store

if TYPE_CHECKING:
    from hexlog.machine.commands import Command

out = Console(highlight=False, soft_wrap=True, markup=False)

PARTY = (
    c.AddMember(name="Aldric", cha=13, wis=9, dex=10, strength=16, speed=90, armor="plate"),
    c.AddMember(name="Brenna", cha=11, wis=16, dex=9, strength=12, speed=120, armor="chain"),
    c.AddMember(name="Corvin", cha=8, wis=10, dex=17, strength=10, speed=120, armor="leather"),
    c.AddMember(name="Delphine", cha=15, wis=12, dex=12, strength=8, speed=120, armor="none"),
)
SPEAKER = "Delphine"
HOSTILE = {ReactionResult.ATTACKS, ReactionResult.HOSTILE}


def _free_campaign(db: Path) -> str:
    if not db.exists():
        return "demo"
    store = open_store(db)
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
    """Drives the scripted session and prints what each command recorded."""

    def __init__(self, door: Door) -> None:
        self.door = door

    def do(self, command: Command) -> None:
        """Run a command and print its events as the timeline does."""
        outcome = self.door.run(command)
        for event in outcome.events:
            if not isinstance(event, PhaseChanged):
                out.print(f"  {render.describe(event)}")

    def encounter(self) -> enc.EncounterState:
        """The encounter under way."""
        state = self.door.table().procedures[enc.PROCEDURE]
        assert isinstance(state, enc.EncounterState)  # noqa: S101 - started by the script
        return state

    def allowed(self) -> list[str]:
        """The triggers the encounter allows now."""
        table = self.door.table()
        runner = self.door.handler.registry.runner(enc.PROCEDURE)
        return [trigger for trigger, _ in runner.allowed(self.encounter(), table)]

    def opening(self, start: enc.StartEncounter) -> None:
        """Start, surprise, distance, any free action, initiative; then let a surprised side's lost round pass."""
        self.do(start)
        self.do(enc.CheckSurprise())
        self.do(enc.DetermineDistance())
        if "take_free_action" in self.allowed():
            self.do(enc.TakeFreeAction(action="attack"))
        if "roll_initiative" in self.allowed():
            self.do(enc.RollInitiative())
        state = self.encounter()
        if state.phase is enc.Phase.ACTIONS and state.initiative is not None and state.initiative.free_round:
            self.do(enc.PlayRound(note="the surprised side cannot act"))

    def talk_or_fight(self) -> None:
        """The dungeon encounter: the party speaks; hostile monsters are fought, others bargained with."""
        self.do(enc.RollReaction(speaker=SPEAKER))
        reaction = self.encounter().reaction
        if reaction is not None and reaction.result is ReactionResult.UNCERTAIN and "wait" in self.allowed():
            self.do(enc.Wait(note="the party keeps its distance"))
            self.do(enc.PlayRound())
            self.do(enc.RerollReaction())
            reaction = self.encounter().reaction
        if reaction is not None and reaction.result in HOSTILE:
            self.do(enc.Fight(note="the goblins charge"))
            for _ in range(3):
                self.do(enc.PlayRound())
            self.do(enc.ConcludeEncounter(outcome="goblins routed", note="two slain, the rest flee"))
        else:
            self.do(enc.Parley(note="the goblins agree to let the party pass for a toll"))
            self.do(enc.ConcludeEncounter(outcome="bargain"))

    def flee(self) -> None:
        """The wilderness encounter: the party flees; the wolves' reaction says whether they give chase."""
        if "evade" in self.allowed():
            self.do(enc.Evade(note="the party runs for the river"))
            self.do(enc.DecidePursuit())
        if self.encounter().phase is not enc.Phase.CONCLUDED:
            self.do(enc.ConcludeEncounter(outcome="fought off"))


def demo(
    db: DbOption = Path("hexlog.db"),
    secret_hex: Annotated[
        str | None, typer.Option(help="the session secret, 64 hex digits (default: a fresh one)")
    ] = None,
    client_seed: Annotated[str, typer.Option(help="the players' client seed")] = "the players' own words",
) -> None:
    """Run a complete scripted session: open, a party of four, two encounters, close, audit."""
    campaign = _free_campaign(db)
    door = Door.open(db, campaign, create=True)
    ref = Referee(door)
    out.print(f"== hexlog demo: campaign {campaign} in {db} (Old-School Essentials)")
    ref.do(c.StartCampaign(ruleset="ose"))
    out.print("== The referee opens the session and the players note the commitment")
    ref.do(c.OpenSession(secret_hex=secret_hex))
    ref.do(c.SetClientSeed(client_seed=client_seed))
    out.print("== The party")
    for member in PARTY:
        ref.do(member)
    out.print("== Encounter 1: goblins behind a door in the dungeon (the party carries torches)")
    ref.opening(
        enc.StartEncounter(setting="dungeon", name="goblins behind the door", party_light=True, monster_count=4)
    )
    ref.talk_or_fight()
    out.print("== Encounter 2: wolves on the moor (wilderness)")
    ref.opening(
        enc.StartEncounter(
            setting="wilderness", name="wolves on the moor", monster_count=6, intelligent=False, monster_speed=180
        )
    )
    ref.flee()
    out.print("== The referee closes the session and reveals the secret")
    ref.do(c.CloseSession())
    table = door.table()
    report = audit_store(door.store, campaign)
    replayed = replay(door.store, campaign)
    out.print("== Afterwards")
    out.print(f"  clock: {table.clock.text} ({table.clock.turns} turns)")
    stream = stream_for(campaign)
    receipt = Receipt.of(door.store.read_stream(stream, door.store.stream_version(stream))[0].envelope)
    out.print(
        f"  audit: {report.verdict}: {report.rolls_verified} of {report.rolls} rolls re-derived from the revealed "
        f"secret, {report.decisions} decisions re-run"
    )
    for caveat in report.caveats:
        out.print(f"    - {caveat}")
    out.print(f"  replay: {'matches' if replayed.ok else 'DIFFERS from'} the stored projections")
    out.print(f"  receipt for the players: {receipt}")
    out.print(
        f"  next: hexlog log --db {db} --campaign {campaign}   |   "
        f"hexlog audit --db {db} --campaign {campaign} --expect {receipt}"
    )
    door.close()
    if not report.ok or not replayed.ok:
        raise typer.Exit(1)


def install(app: typer.Typer) -> None:
    """Add the demo command to the command line."""
    app.command()(demo)
