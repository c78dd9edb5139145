"""The ``hexlog`` command line: the referee's door to the engine."""

from __future__ import annotations

import difflib
import importlib.metadata
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import attrs
import structlog
import typer
import typer.core
from rich.console import Console
from typer._click import exceptions as click_errors  # typer's own click: its argument errors
from typer._click import utils as click_utils  # typer's own click: the wrapper it puts on a closed stdout

from hexlog.events import releases
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError, UsageError
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine import ruleset as rulesets
from hexlog.machine.campaign import check_campaign_id
from hexlog.machine.registry import REGISTRY
from hexlog.machine.ruleset import display_name
from hexlog.machine.text import counted, shown
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
    console,
    demo,
    logs,
    render,
)
from hexlog.service.cli_advice import cli_words
from hexlog.service.cli_serve import install as install_serve
from hexlog.service.door import (
    EXIT_PIPE,
    OPENED,
    CampaignOption,
    DbOption,
    Door,
    SecretFileOption,
    is_demo,
    read_secret,
    refuse_blank,
    shown_db,
    silence_stdout,
)
from hexlog.service.render_campaign import released

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hexlog.events.base import Event

out = console.plain()

app = typer.Typer(
    name="hexlog",
    help="A referee engine for old-school procedures: committed dice, a hash-chained log.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:  # noqa: FBT001 - typer's callback signature
    if value:
        installed = importlib.metadata.version("hexlog")
        out.print(f"hexlog {installed} (release {releases.CURRENT}, the number each session it opens records)")
        raise typer.Exit


@app.callback()
def _global(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db", help="the SQLite database file or a postgresql:// URL, for every command (default: hexlog.db)"
        ),
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option("--campaign", help="the campaign id, for every command (needed when there are several)"),
    ] = None,
    version: Annotated[  # noqa: ARG001, FBT002 - a flag, handled by its callback
        bool, typer.Option("--version", help="show hexlog's version and exit", callback=_version, is_eager=True)
    ] = False,
) -> None:
    """A referee engine for old-school procedures: committed dice, a hash-chained log.

    --db and --campaign given here apply to the command that follows (as HEXLOG_DB and HEXLOG_CAMPAIGN
    do); the command's own --db or --campaign wins over them.
    """
    if db is not None:
        os.environ["HEXLOG_DB"] = str(db)
    if campaign is not None:
        check_campaign_id(campaign)  # an empty one would read as none given
        os.environ["HEXLOG_CAMPAIGN"] = campaign


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
    """Create the database (and its folder, if needed) and start a campaign under a ruleset."""
    overrides = cli_rules.read_overrides(rules)
    REGISTRY.check_rules(rulesets.load(ruleset, overrides, used=REGISTRY.used_keys()))  # before creating a file
    if campaign is not None:
        check_campaign_id(campaign)
    door = Door.open(db, campaign, create=True, new=True)
    if is_demo(door.campaign):
        msg = f"the campaign id {door.campaign!r} is kept for 'hexlog demo'; choose another with --campaign"
        raise UsageError(msg)
    outcome = door.run(c.StartCampaign(ruleset=ruleset, overrides=overrides))
    rules_in_force = outcome.table.rules
    assert rules_in_force is not None  # noqa: S101 - the event just recorded them
    where, rules_name = shown_db(db), display_name(rules_in_force)
    out.print(f"campaign {door.campaign} started in {where} under {rules_in_force.title} [{rules_name}]")
    out.print(f"rules hash {rules_in_force.hash}")


@session_app.command("open")
def session_open(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    secret_file: SecretFileOption = None,
) -> None:
    """Open a session and print the commitment the players should note.

    hexlog draws the secret, unless --secret-file gives one (recorded as supplied, which the audit reports).
    """
    secret = read_secret(secret_file)
    door = Door.open(db, campaign)
    outcome = door.run(c.OpenSession(secret_hex=secret))
    session = outcome.table.session
    assert session is not None  # noqa: S101 - just opened
    out.print(f"session {session.id} open under release {session.release} of hexlog")
    out.print(f"commitment {session.commitment}")
    out.print(
        "players: note the commitment and the release now; the secret is revealed when the session closes, and the "
        "audit holds the log to that release's rules"
    )
    out.print(door.receipt())


@session_app.command("list")
def session_list(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,  # noqa: FBT002 - a flag
) -> None:
    """Every session: its commitment, the players' client seed, its rolls, and its reveal or abandonment."""
    door = Door.open(db, campaign)
    door.table()
    rows = sessions_of([decode(r.envelope) for r in door.store.read_stream(stream_for(door.campaign))])
    if as_json:
        sys.stdout.write(json.dumps({"sessions": rows}, sort_keys=True, ensure_ascii=False) + "\n")
        return
    if not rows:
        out.print("no session yet: hexlog session open")
    for row in rows:
        seed = repr(row["client_seed"]) if row["client_seed"] else "none"
        ended = {
            "open": "still open",
            "closed": f"closed, secret revealed {row['secret']}",
            "abandoned": f"abandoned without a reveal ({row['reason']})",
        }[row["status"]]
        rolls = counted(row["rolls"], "roll")
        out.print(
            f"{row['session']}: commitment {row['commitment']} ({row['scheme']}{released(row['release'])}); "
            f"client seed {seed}; {rolls}; {ended}"
        )


def sessions_of(events: list[Event]) -> list[dict[str, Any]]:
    """Each session of a log, in order: commitment, scheme, client seed, rolls, and how it ended."""
    rows: dict[str, dict[str, Any]] = {}
    for event in events:
        match event:
            case SessionOpened():
                rows[event.session] = {
                    "session": event.session,
                    "commitment": event.commitment,
                    "scheme": event.scheme,
                    "release": event.release,
                    "client_seed": "",
                    "rolls": 0,
                    "status": "open",
                    "secret": None,
                    "reason": None,
                }
            case ClientSeedSet() if event.session in rows:
                rows[event.session]["client_seed"] = event.client_seed
            case DiceRolled() if event.session in rows:
                rows[event.session]["rolls"] += 1
            case SessionClosed() if event.session in rows:
                rows[event.session].update(status="closed", secret=event.secret)
            case SessionAbandoned() if event.session in rows:
                rows[event.session].update(status="abandoned", reason=event.reason)
    return list(rows.values())


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
    armor: Annotated[str, typer.Option(help="armor worn: none, leather, chain, plate, ...")] = "none",
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


@party_app.command("edit")
def party_edit(  # noqa: PLR0913, PLR0917 - one option per score
    name: Annotated[str, typer.Argument(help="the character's name as recorded")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    new_name: Annotated[str | None, typer.Option("--name", help="the right name (a misspelt one corrected)")] = None,
    cha: Annotated[int | None, typer.Option(help="Charisma 3-18")] = None,
    wis: Annotated[int | None, typer.Option(help="Wisdom 3-18")] = None,
    dex: Annotated[int | None, typer.Option(help="Dexterity 3-18")] = None,
    strength: Annotated[int | None, typer.Option("--str", help="Strength 3-18")] = None,
    speed: Annotated[int | None, typer.Option(help="base movement rate, feet per turn")] = None,
    armor: Annotated[str | None, typer.Option(help="armor worn: none, leather, chain, plate, ...")] = None,
    infravision: Annotated[int | None, typer.Option(help="infravision range in feet")] = None,
    reason: Annotated[str, typer.Option(help="what was wrong", callback=refuse_blank)] = "",
) -> None:
    """Correct a character's recorded name or scores: recorded as an edit naming what it was."""
    door = Door.open(db, campaign)
    outcome = door.run(
        c.EditMember(
            name=name,
            new_name=new_name,
            cha=cha,
            wis=wis,
            dex=dex,
            strength=strength,
            speed=speed,
            armor=armor,
            infravision_ft=infravision,
            reason=reason,
        )
    )
    out.print(render.describe(outcome.events[0]))


@party_app.command("list")
def party_list(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,  # noqa: FBT002 - a flag
) -> None:
    """List the party's members and their scores."""
    door = Door.open(db, campaign)
    members = door.table().party.members
    if as_json:
        sys.stdout.write(json.dumps({"members": [attrs.asdict(m) for m in members]}, sort_keys=True) + "\n")
        return
    if not members:
        out.print("the party has no members; add one: hexlog party add NAME")
    for m in members:
        out.print(
            f"{m.name}: CHA {m.cha}, WIS {m.wis}, DEX {m.dex}, STR {m.strength}, speed {m.speed}, "
            f"armor {m.armor}" + (f", infravision {m.infravision_ft} ft" if m.infravision_ft else "")
        )


@party_app.command("remove")
def party_remove(
    name: Annotated[str, typer.Argument(help="the character's name")],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    reason: Annotated[str, typer.Option(help="why the character leaves", callback=refuse_blank)] = "",
) -> None:
    """Remove a character from the party."""
    door = Door.open(db, campaign)
    outcome = door.run(c.RemoveMember(name=name, reason=reason))
    out.print(render.describe(outcome.events[0]))


@app.command()
def roll(  # noqa: PLR0913, PLR0917 - one option per way to roll
    expression: Annotated[
        str,
        typer.Argument(
            help="NdS, NdS+K, NdS-K, dS, d% (a d100), keep or drop (4d6kh3, 2d20kl1, 4d6dl1), several terms (1d8+1d6+2)"
        ),
    ],
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    purpose: Annotated[str, typer.Option(help="what the roll is for")] = "free roll",
    secret: Annotated[bool, typer.Option("--secret", help="a referee-only roll")] = False,  # noqa: FBT002 - a flag
    made_for: Annotated[
        str,
        typer.Option(
            "--for", help="the party member (or side) it is made for: their modifiers apply", callback=refuse_blank
        ),
    ] = "",
    low_is_good: Annotated[  # noqa: FBT002 - a flag
        bool,
        typer.Option(
            "--low-is-good",
            help="a low total is the good one (under a score, at most a chance): a penalty on them raises it",
        ),
    ] = False,
) -> None:
    """Roll dice from the open session's committed seed (for a character, with the modifiers on them)."""
    door = Door.open(db, campaign)
    command = c.RollDice(
        expression=expression, purpose=purpose, secret=secret, made_for=made_for, low_is_good=low_is_good
    )
    outcome = door.run(command)
    out.print(render.describe(outcome.events[0]))
    if not secret:
        out.print(door.receipt())


@app.command()
def receipt(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    at: Annotated[
        int | None,
        typer.Option(
            "--at", help="the receipt of this stream version (default: the latest)", min=1, max=c.SAFE_INTEGER
        ),
    ] = None,
) -> None:
    """A receipt players can note: CAMPAIGN@VERSION:FINGERPRINT pins the whole history up to it."""
    door = Door.open(db, campaign, readonly=True)
    door.table()
    door.warn_if_damaged()
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
            "'day 2 14:30', 'day 3': its end) the clock has reached ('day N' of the day it stands in: now)",
        ),
    ] = None,
    view: cli_travel.ViewOption = "referee",
    as_json: Annotated[bool, typer.Option("--json", help="one JSON document")] = False,  # noqa: FBT002 - a flag
) -> None:
    """Show the campaign: rules, session, party, clock and any procedure under way (now, or as it was)."""
    player = cli_travel.is_player(view)
    door = Door.open(db, campaign, readonly=True)
    table = door.table()
    door.warn_if_damaged()
    if at is not None:
        version, latest = door.version_at(at, table), table.version
        table = table_at(door.store, door.campaign, version, door.handler.registry)
        if not as_json:
            out.print(f"as it was at version {version} of {latest}")
    if as_json:
        document = render.state_document(door.campaign, table, player=player)
        sys.stdout.write(json.dumps(document, sort_keys=True, ensure_ascii=False) + "\n")
        return
    for line in render.state_lines(door.campaign, table, player=player):
        out.print(line)


cli_clock.install(app)
cli_log.install(app)
cli_schema.install(app)
cli_simulate.install(app)
cli_bench.install(app)
demo.install(app)
install_serve(app)


def _environmental(err: sqlite3.OperationalError) -> bool:
    """Whether SQLite failed because of the file or the disk (not because of hexlog's own SQL)."""
    text = str(err).lower()
    return any(word in text for word in ("disk", "full", "malformed", "not a database", "readonly", "unable to open"))


def _crashed(err: BaseException) -> NoReturn:
    """A bug in hexlog: one "internal error" line and exit 70."""
    structlog.get_logger().error("cli.crashed", error=repr(err))
    sys.stderr.write(f"hexlog: internal error: {type(err).__name__}: {shown(str(err))}\n")
    sys.exit(EXIT_INTERNAL)


def _flag_type(self: typer.core.TyperOption, ctx: Any) -> str | None:
    """A flag takes no value, so its help shows none (typer would show ``<bool>``)."""
    return None if self.is_flag else _option_type(self, ctx)


_option_type = typer.core.TyperOption.display_type_rich
setattr(typer.core.TyperOption, "display_type_rich", _flag_type)  # noqa: B010 - the one change to typer's help


def _pipe_broken(self: Console) -> NoReturn:  # noqa: ARG001 - rich's hook takes its console
    """Rich's console met a closed standard output: the entry point ends the command as for any closed pipe
    (rich would exit 1)."""
    raise BrokenPipeError


setattr(Console, "on_broken_pipe", _pipe_broken)  # noqa: B010 - rich's documented hook, for every console of hexlog


#: exit codes: 0 ok, 1 refused (or an audit FAILED), 2 bad usage, 3 an audit INCOMPLETE, 70 an internal error,
#: 141 standard output closed before the command was done (``EXIT_PIPE``)
EXIT_USAGE = 2
EXIT_INTERNAL = 70


def stdout_closed() -> NoReturn:
    """Standard output was closed by its reader (``hexlog log | head -1``): no traceback and no error line, as
    for any Unix tool; what is left to print goes nowhere, and the exit code is 141."""
    silence_stdout()
    sys.exit(EXIT_PIPE)


def _usage_error(err: click_errors.ClickException) -> int:
    """An argument error as one line, like every refusal; its exit code (2: bad usage)."""
    if isinstance(err, click_errors.NoArgsIsHelpError):  # typer printed the help when it raised this
        return err.exit_code
    if isinstance(err, click_errors.NoSuchOption) and err.possibilities:
        err.possibilities = close_options(err.option_name, err.possibilities)
    text = err.format_message().rstrip(".")
    ctx: Any = getattr(err, "ctx", None)
    if ctx is not None:
        text += f"; see '{ctx.command_path} --help'"
    sys.stderr.write(f"hexlog: error: {shown(text)}\n")
    return err.exit_code


#: how alike an unknown option's name and a real one must be (without their dashes) for it to be suggested
SUGGESTION_CUTOFF = 0.6


def close_options(given: str, options: Sequence[str]) -> list[str]:
    """The options worth suggesting for an unknown one: alike in their names, not merely in their leading dashes
    (click would offer ``--db`` for ``--sid``)."""
    name = given.lstrip("-")
    return [o for o in options if difflib.SequenceMatcher(None, name, o.lstrip("-")).ratio() >= SUGGESTION_CUTOFF]


def _failed_outside(err: sqlite3.DatabaseError | OSError) -> NoReturn:
    """A database file that is damaged, a disk that fails, an output that refuses: one line and exit 1
    (the file or the environment, not hexlog); misuse of SQLite (hexlog's own SQL) is a bug."""
    if isinstance(err, OSError):  # a full disk for the output, a closed pipe, a folder that is not there
        where = f": {err.filename}" if err.filename else ""
        sys.stderr.write(f"hexlog: error: {shown((err.strerror or str(err)) + where)}\n")
        sys.exit(1)
    if type(err) is not sqlite3.DatabaseError and not (
        isinstance(err, sqlite3.OperationalError) and _environmental(err)
    ):
        _crashed(err)
    sys.stderr.write(f"hexlog: error: the database cannot be used: {shown(str(err))}\n")
    sys.exit(1)


def _app() -> Any:
    """The command, run by typer; a closed standard output ends it through ``stdout_closed`` (typer itself
    would exit 1 on one, quietly)."""
    try:
        return app(prog_name="hexlog", standalone_mode=False)
    except BrokenPipeError:
        stdout_closed()
    except SystemExit:
        stdout, stderr = sys.stdout, sys.stderr
        if not isinstance(stdout, click_utils.PacifyFlushWrapper):
            raise
        sys.stdout = stdout.wrapped
        if isinstance(stderr, click_utils.PacifyFlushWrapper):
            sys.stderr = stderr.wrapped
        stdout_closed()


def main() -> None:
    """Run the command line; errors are one line and a non-zero exit, never a traceback.

    Exit codes: 0 done, 1 refused or failed (nothing written), 2 a malformed request, 3 an INCOMPLETE
    audit, 130 interrupted, 141 standard output closed by its reader; 70 only for a bug in hexlog (an
    "internal error" line).
    """
    logs.configure()
    structlog.contextvars.clear_contextvars()
    saved = {name: os.environ.get(name) for name in ("HEXLOG_DB", "HEXLOG_CAMPAIGN")}
    try:
        with OPENED:
            code = _app()
        if isinstance(code, int) and code:
            sys.exit(code)
    except click_errors.ClickException as err:
        sys.exit(_usage_error(err))
    except typer.Abort:
        sys.stderr.write("hexlog: interrupted\n")
        sys.exit(130)
    except HexlogError as err:
        said = err.said(cli_words)  # the command it advises, as typed here
        structlog.get_logger().info("command.refused", outcome="refused", error=type(err).__name__, reason=said)
        sys.stderr.write(f"hexlog: error: {shown(said)}\n")
        sys.exit(err.exit_code)
    except (sqlite3.DatabaseError, OSError) as err:
        _failed_outside(err)
    except KeyboardInterrupt:
        sys.stderr.write("hexlog: interrupted\n")
        sys.exit(130)
    except Exception as err:  # noqa: BLE001 - the door turns any crash into one line
        _crashed(err)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
