"""The ``hexlog`` command line: the referee's door to the engine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import structlog
import typer
from rich.console import Console

from hexlog.events.errors import HexlogError
from hexlog.machine import commands as c
from hexlog.machine import ruleset as rulesets
from hexlog.machine.campaign import check_campaign_id
from hexlog.machine.registry import REGISTRY
from hexlog.machine.ruleset import display_name
from hexlog.machine.text import shown
from hexlog.replay.rebuild import table_at
from hexlog.service import (
    cli_bench,
    cli_clock,
    cli_log,
    cli_procedures,
    cli_rules,
    cli_schema,
    cli_simulate,
    cli_travel,
    demo,
    logs,
    render,
)
from hexlog.service.door import OPENED, CampaignOption, DbOption, Door

out = Console(highlight=False, soft_wrap=True, markup=False)

app = typer.Typer(
    name="hexlog",
    help="A referee engine for old-school procedures: committed dice, a hash-chained log.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
session_app = typer.Typer(
    help="Open, seed and close play sessions (commit and reveal), or abandon a lost one.", no_args_is_help=True
)
party_app = typer.Typer(help="The party: its members and their scores.", no_args_is_help=True)
app.add_typer(session_app, name="session")
app.add_typer(party_app, name="party")
cli_travel.install(cli_procedures.install(app, REGISTRY))
app.add_typer(cli_rules.app, name="rules")


@app.command()
def init(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    ruleset: Annotated[str, typer.Option(help="built-in ruleset: see 'hexlog rules list'")] = rulesets.DEFAULT_RULESET,
    rules: Annotated[Path | None, typer.Option("--rules", help="a TOML file of house rules over the ruleset")] = None,
) -> None:
    """Create the database (if needed) and start a campaign under a ruleset."""
    overrides = cli_rules.read_overrides(rules)
    REGISTRY.check_rules(rulesets.load(ruleset, overrides, used=REGISTRY.used_keys()))  # before creating a file
    if campaign is not None:
        check_campaign_id(campaign)
    door = Door.open(db, campaign, create=True)
    outcome = door.run(c.StartCampaign(ruleset=ruleset, overrides=overrides))
    rules_in_force = outcome.table.rules
    assert rules_in_force is not None  # noqa: S101 - the event just recorded them
    out.print(f"campaign {door.campaign} started in {db} under {rules_in_force.title} [{display_name(rules_in_force)}]")
    out.print(f"rules hash {rules_in_force.hash}")


@session_app.command("open")
def session_open(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    secret_hex: Annotated[
        str | None, typer.Option(hidden=True, help="use this secret (for reproducible tests)")
    ] = None,
) -> None:
    """Open a session and print the commitment the players should note."""
    door = Door.open(db, campaign)
    outcome = door.run(c.OpenSession(secret_hex=secret_hex))
    session = outcome.table.session
    assert session is not None  # noqa: S101 - just opened
    out.print(f"session {session.id} open")
    out.print(f"commitment {session.commitment}")
    out.print("players: note the commitment now; the secret is revealed when the session closes")
    out.print(door.receipt())


@session_app.command("seed")
def session_seed(
    text: Annotated[str, typer.Argument(help="the players' client seed")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
) -> None:
    """Add the players' client seed (only before the session's first roll)."""
    door = Door.open(db, campaign)
    outcome = door.run(c.SetClientSeed(client_seed=text))
    session = outcome.table.session
    assert session is not None  # noqa: S101 - the seed was accepted
    out.print(f"session {session.id}: client seed set to {text!r}")
    out.print(door.receipt())


@session_app.command("close")
def session_close(db: DbOption = Path("hexlog.db"), campaign: CampaignOption = None) -> None:
    """Close the open session and reveal its secret."""
    door = Door.open(db, campaign)
    outcome = door.run(c.CloseSession())
    for event in outcome.events:
        out.print(render.describe(event))
    out.print(door.receipt())
    out.print("verify it: hexlog audit (or hexlog export, and check the file offline)")


@session_app.command("abandon")
def session_abandon(
    reason: Annotated[
        str, typer.Option("--reason", help="why the session ends without a reveal (e.g. its key file was lost)")
    ],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
) -> None:
    """End the open session WITHOUT revealing its secret (when it is lost); its rolls can never be verified."""
    door = Door.open(db, campaign)
    outcome = door.run(c.AbandonSession(reason=reason))
    for event in outcome.events:
        out.print(render.describe(event))
    session = outcome.table.session
    assert session is not None  # noqa: S101 - just abandoned
    rolls = f"{session.rolls} roll{'s' if session.rolls != 1 else ''}"
    out.print(f"the {rolls} of session {session.id} can never be verified: its secret was not revealed")
    out.print("a new session may be opened: hexlog session open")


@party_app.command("add")
def party_add(  # noqa: PLR0913, PLR0917 - one option per score
    name: Annotated[str, typer.Argument(help="the character's name")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    cha: Annotated[int, typer.Option(help="Charisma 3-18")] = 10,
    wis: Annotated[int, typer.Option(help="Wisdom 3-18")] = 10,
    dex: Annotated[int, typer.Option(help="Dexterity 3-18")] = 10,
    strength: Annotated[int, typer.Option("--str", help="Strength 3-18")] = 10,
    speed: Annotated[int, typer.Option(help="base movement rate, feet per turn")] = 120,
    armor: Annotated[str, typer.Option(help="armour worn: none, leather, chain, plate, ...")] = "none",
    infravision: Annotated[int, typer.Option(help="infravision range in feet")] = 0,
) -> None:
    """Add a character to the party."""
    door = Door.open(db, campaign)
    outcome = door.run(
        c.AddMember(
            name=name,
            cha=cha,
            wis=wis,
            dex=dex,
            strength=strength,
            speed=speed,
            armor=armor,
            infravision_ft=infravision,
        )
    )
    out.print(render.describe(outcome.events[0]))


@party_app.command("remove")
def party_remove(
    name: Annotated[str, typer.Argument(help="the character's name")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    reason: Annotated[str, typer.Option(help="why the character leaves")] = "",
) -> None:
    """Remove a character from the party."""
    door = Door.open(db, campaign)
    outcome = door.run(c.RemoveMember(name=name, reason=reason))
    out.print(render.describe(outcome.events[0]))


@app.command()
def roll(
    expression: Annotated[str, typer.Argument(help="NdS, NdS+K, NdS-K or dS")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    purpose: Annotated[str, typer.Option(help="what the roll is for")] = "free roll",
    secret: Annotated[bool, typer.Option("--secret", help="a referee-only roll")] = False,  # noqa: FBT002 - a flag
) -> None:
    """Roll dice from the open session's committed seed."""
    door = Door.open(db, campaign)
    outcome = door.run(c.RollDice(expression=expression, purpose=purpose, secret=secret))
    out.print(render.describe(outcome.events[0]))
    if not secret:
        out.print(door.receipt())


@app.command()
def receipt(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    at: Annotated[
        int | None, typer.Option("--at", help="the receipt of this stream version (default: the latest)", min=1)
    ] = None,
) -> None:
    """A receipt players can note: CAMPAIGN@VERSION:FINGERPRINT pins the whole history up to it."""
    door = Door.open(db, campaign)
    door.table()
    out.print(door.receipt(at))
    out.print("check it later: hexlog audit --expect RECEIPT (a cut tail or a rewritten past fails)")


@app.command()
def state(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            help="the state as it was: at a stream version ('42') or a moment of game time ('day 4 turn 3', "
            "'day 2 14:30', 'day 3': its end)",
        ),
    ] = None,
    view: cli_travel.ViewOption = "referee",
) -> None:
    """Show the campaign: rules, session, party, clock and any procedure under way (now, or as it was)."""
    player = cli_travel.is_player(view)
    door = Door.open(db, campaign)
    table = door.table()
    if at is not None:
        version, latest = door.version_at(at, table), table.version
        table = table_at(door.store, door.campaign, version, door.handler.registry)
        out.print(f"as it was at version {version} of {latest}")
    for line in render.state_lines(door.campaign, table, player=player):
        out.print(line)


cli_clock.install(app)
cli_log.install(app)
cli_schema.install(app)
cli_simulate.install(app)
cli_bench.install(app)
demo.install(app)


def main() -> None:
    """Run the command line; errors are one line and a non-zero exit, never a traceback."""
    logs.configure()
    structlog.contextvars.clear_contextvars()
    try:
        with OPENED:
            app(prog_name="hexlog")
    except HexlogError as err:
        structlog.get_logger().info("command.refused", outcome="refused", error=type(err).__name__, reason=str(err))
        sys.stderr.write(f"hexlog: error: {shown(str(err))}\n")
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("hexlog: interrupted\n")
        sys.exit(130)
    except Exception as err:  # noqa: BLE001 - the door turns any crash into one line
        structlog.get_logger().error("cli.crashed", error=repr(err))
        sys.stderr.write(f"hexlog: internal error: {type(err).__name__}: {shown(str(err))}\n")
        sys.exit(70)
