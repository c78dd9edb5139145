"""The encounter commands: one subcommand per step the referee drives, named after its trigger."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from hexlog.events.errors import IllegalTransitionError, RuleRefusedError
from hexlog.events.procedure import PhaseChanged
from hexlog.machine import encounter as enc
from hexlog.machine.commands import Command
from hexlog.service import render
from hexlog.service.door import CampaignOption, DbOption, Door

out = Console(highlight=False, soft_wrap=True, markup=False)
app = typer.Typer(
    help="Run an encounter step by step: start, check-surprise, determine-distance, roll-initiative, "
    "react, fight, evade, parley, wait, round, conclude, ...",
    no_args_is_help=True,
)

SideOption = Annotated[str, typer.Option(help="party or monsters")]
NoteOption = Annotated[str, typer.Option(help="what happens, in words")]


def _run(db: Path, campaign: str | None, command: Command) -> None:
    door = Door.open(db, campaign)
    try:
        outcome = door.run(command)
    except IllegalTransitionError as err:
        # name the triggers as the subcommands that fire them
        allowed = [t.replace("_", "-") for t in err.allowed]
        raise IllegalTransitionError(err.procedure, err.state, err.trigger.replace("_", "-"), allowed) from None
    except RuleRefusedError as err:
        trigger = enc.TRIGGERS.get(type(command), "")
        text = str(err).replace(f"'{trigger}'", f"'{trigger.replace('_', '-')}'") if trigger else str(err)
        raise RuleRefusedError(text) from None
    for event in outcome.events:
        if not isinstance(event, PhaseChanged):
            out.print(render.describe(event))
    state = outcome.table.procedures.get(enc.PROCEDURE)
    if state is not None:
        rules = outcome.table.rules
        assert rules is not None  # noqa: S101 - an encounter runs in a started campaign
        allowed = render.next_steps(enc.available_steps(state, rules, outcome.table.party))
        out.print(f"-> {state.phase.name}; next: {', '.join(allowed) if allowed else 'nothing'}")


@app.command()
def start(  # noqa: PLR0913 - one option per fact of the situation
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    setting: Annotated[str | None, typer.Option(help="dungeon, wilderness, waterborne (ose, explore); indoors, outdoors (adnd); default: the first")] = None,
    name: Annotated[str, typer.Option(help="a name for the encounter")] = "",
    party_aware: Annotated[bool, typer.Option("--party-aware", help="the party already knows of the monsters")] = False,  # noqa: FBT002
    monsters_aware: Annotated[bool, typer.Option("--monsters-aware", help="the monsters already know of the party")] = False,  # noqa: FBT002
    party_light: Annotated[bool, typer.Option("--party-light", help="the party carries light in the dark")] = False,  # noqa: FBT002
    monsters_light: Annotated[bool, typer.Option("--monsters-light", help="the monsters carry light in the dark")] = False,  # noqa: FBT002
    party_noisy: Annotated[bool, typer.Option("--party-noisy", help="the party is making noise")] = False,  # noqa: FBT002
    monsters_noisy: Annotated[bool, typer.Option("--monsters-noisy", help="the monsters are making noise")] = False,  # noqa: FBT002
    monsters: Annotated[int, typer.Option(help="how many monsters", min=1)] = 1,
    unintelligent: Annotated[bool, typer.Option("--unintelligent", help="the monsters are not intelligent")] = False,  # noqa: FBT002
    monster_speed: Annotated[int, typer.Option(help="the monsters' base rate, feet per turn", min=1)] = 120,
    terrain: Annotated[list[str] | None, typer.Option(help="outdoor terrain (repeat for mixed): plains, desert, hills, mountains, scrub, forest, marsh")] = None,
    line_of_sight: Annotated[int | None, typer.Option(help="line of sight limit, feet", min=1)] = None,
    area: Annotated[int | None, typer.Option(help="size of the encounter area, feet", min=1)] = None,
    light_radius: Annotated[int | None, typer.Option(help="radius of the light carried, feet", min=1)] = None,
    vision: Annotated[int | None, typer.Option(help="infravision or ultravision range, feet", min=1)] = None,
    hiding: Annotated[bool, typer.Option("--hiding", help="the other side heard noise and hid")] = False,  # noqa: FBT002
) -> None:
    """Start an encounter and describe the situation."""
    _run(db, campaign, enc.StartEncounter(
        setting=setting or "", name=name, party_aware=party_aware, monsters_aware=monsters_aware,
        party_light=party_light, monsters_light=monsters_light, party_noisy=party_noisy,
        monsters_noisy=monsters_noisy, monster_count=monsters, intelligent=not unintelligent,
        monster_speed=monster_speed, terrains=tuple(terrain or ()), line_of_sight_ft=line_of_sight,
        area_ft=area, light_radius_ft=light_radius, vision_ft=vision, hiding=hiding,
    ))


@app.command("check-surprise")
def check_surprise(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None) -> None:
    """Roll surprise for each side that is not already aware."""
    _run(db, campaign, enc.CheckSurprise())


@app.command("determine-distance")
def determine_distance(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    value: Annotated[int | None, typer.Option(help="the distance the situation makes obvious (no roll)", min=0)] = None,
) -> None:
    """Roll the encounter distance by the rules in force (or record the obvious one)."""
    _run(db, campaign, enc.DetermineDistance(value=value))


@app.command("take-free-action")
def take_free_action(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    action: Annotated[str, typer.Option(help="move, attack, cast, flee, parley, ...")] = "attack",
    note: NoteOption = "",
) -> None:
    """The surprising side uses its free single action or free segments."""
    _run(db, campaign, enc.TakeFreeAction(action=action, note=note))


@app.command("roll-initiative")
def roll_initiative(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None) -> None:
    """Roll 1d6 for each side that is not surprised."""
    _run(db, campaign, enc.RollInitiative())


@app.command()
def react(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    speaker: Annotated[str, typer.Option(help="the party member who speaks (CHA modifier applies)")] = "",
    modifier: Annotated[int, typer.Option(help="the referee's situational modifier")] = 0,
) -> None:
    """Roll the monsters' reaction: 2d6 plus the speaker's CHA modifier."""
    _run(db, campaign, enc.RollReaction(speaker=speaker, modifier=modifier))


@app.command("reroll-reaction")
def reroll_reaction(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    speaker: Annotated[str | None, typer.Option(help="who speaks now (default: the same)")] = None,
    modifier: Annotated[int, typer.Option(help="the referee's situational modifier")] = 0,
) -> None:
    """Roll an uncertain reaction again, once, after a round."""
    _run(db, campaign, enc.RerollReaction(speaker=speaker, modifier=modifier))


@app.command()
def parley(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None, side: SideOption = "party", note: NoteOption = "") -> None:
    """A side tries to talk."""
    _run(db, campaign, enc.Parley(side=side, note=note))


@app.command()
def wait(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None, side: SideOption = "party", note: NoteOption = "") -> None:
    """A side waits to see what the other does."""
    _run(db, campaign, enc.Wait(side=side, note=note))


@app.command()
def fight(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None, side: SideOption = "party", note: NoteOption = "") -> None:
    """A side attacks, casts or moves tactically: combat begins and rounds are counted."""
    _run(db, campaign, enc.Fight(side=side, note=note))


@app.command()
def evade(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None, side: SideOption = "party", note: NoteOption = "") -> None:
    """A side flees before combat; the other side then decides whether to pursue."""
    _run(db, campaign, enc.Evade(side=side, note=note))


@app.command("round")
def play_round(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None, note: NoteOption = "") -> None:
    """Let one round pass."""
    _run(db, campaign, enc.PlayRound(note=note))


@app.command("decide-pursuit")
def decide_pursuit(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    pursue: Annotated[bool | None, typer.Option("--pursue/--let-go", help="omit for monsters to follow their reaction")] = None,
    note: NoteOption = "",
) -> None:
    """The side fled from pursues, or lets the other go."""
    _run(db, campaign, enc.DecidePursuit(pursue=pursue, note=note))


@app.command()
def avoid(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    side: SideOption = "party",
    rate_inches: Annotated[int | None, typer.Option(help="the surprisers' movement rate in inches (movement rule)", min=1)] = None,
    detection_range: Annotated[int | None, typer.Option(help="how far the surprised side would notice them, feet", min=1)] = None,
) -> None:
    """The surprisers slip away before the surprised side notices them (AD&D)."""
    _run(db, campaign, enc.Avoid(side=side, rate_inches=rate_inches, detection_range_ft=detection_range))


@app.command()
def conclude(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    outcome: Annotated[str, typer.Option(help="resolved, fled, slain, bargain, ...")] = "resolved",
    note: NoteOption = "",
) -> None:
    """End the encounter; the clock advances at least one turn."""
    _run(db, campaign, enc.ConcludeEncounter(outcome=outcome, note=note))
