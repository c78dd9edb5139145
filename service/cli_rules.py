"""The rules commands: list the built-in rulesets, show one, compare two, change those in force."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table as RichTable

from hexlog.events import files
from hexlog.machine import commands as c
from hexlog.machine import ruleset as rulesets
from hexlog.machine.registry import REGISTRY
from hexlog.machine.text import counted
from hexlog.service import console
from hexlog.service.door import CampaignOption, DbOption, Door, refuse_blank

UNUSED = "[not used by any procedure yet]"
#: beside a procedure that reads a key but cannot run under the rules shown
NOT_RUN = "(not run under these rules)"

out = console.plain()
app = typer.Typer(help="Rulesets as data: list, show, diff, and change the rules in force.", no_args_is_help=True)

RulesFileOption = Annotated[Path | None, typer.Option("--rules", help="a TOML file of house rules over the ruleset")]


def read_overrides(path: Path | None) -> dict[str, Any]:
    """The overrides of a house-rules file, or none."""
    if path is None:
        return {}
    data = files.read_regular(path, limit=files.MAX_SMALL_FILE_BYTES, what="rules file")
    return rulesets.load_overrides(files.decode_utf8(data, what=f"rules file {path}"), str(path))


def _load(name: str, overrides: dict[str, Any]) -> rulesets.Ruleset:
    """A built-in ruleset with house rules, checked by every procedure that reads it."""
    rules = rulesets.load(name, overrides, used=REGISTRY.used_keys())
    REGISTRY.check_rules(rules)
    return rules


def _show(value: Any) -> str:
    return "(absent)" if value is None else rulesets.render_value(value)


def _reader(name: str, barred: dict[str, str]) -> str:
    """A procedure that reads a key, marked when it cannot run under the rules shown (their tables lack what it
    starts from; the lines after the tables say what), so that nothing reads as in force that no procedure reads."""
    return f"{name} {NOT_RUN}" if barred.get(name) else name


@app.command("list")
def list_() -> None:
    """The built-in rulesets."""
    table = RichTable("name", "seed", "title", "hash", box=None)
    for name in rulesets.builtin_names():
        rules = _load(name, {})
        table.add_row(name, str(rules.content.get("seed", "")), rules.title, rules.hash[:16])
    out.print(table)


@app.command()
def show(
    name: Annotated[
        str | None, typer.Argument(help="a built-in ruleset; omit it for the rules in force in a campaign")
    ] = None,
    rules: RulesFileOption = None,
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
) -> None:
    """Every option and table of a ruleset (with house rules applied), or of the campaign's rules."""
    if name is None:
        resolved = Door.open(db, campaign, readonly=True).table().rules
        assert resolved is not None  # noqa: S101 - table() refuses a campaign that has not started
    else:
        resolved = _load(name, read_overrides(rules))
    explained: set[str] = set()
    #: the procedures that cannot run under these rules, and why
    barred = {p.name: p.unavailable(resolved) for p in REGISTRY if p.unavailable is not None}
    for row in rulesets.describe(resolved, REGISTRY.readers, REGISTRY.rule_parts, left_out=True):
        head = row.key.split("[")[0]
        head = ".".join(head.split(".")[:2])
        choices = f"  (choices: {', '.join(row.choices)})" if row.choices else ""
        section = row.key.split(".")[0]
        unused = f"  {UNUSED}" if section in rulesets.SECTIONS and not row.readers else ""
        idle = f"  [not read under these rules: {row.idle}]" if row.idle else ""
        out.print(f"{row.key} = {row.value}{choices}{unused}{idle}")
        if row.help and head not in explained:
            explained.add(head)
            when = f" when {row.when}" if row.when else ""
            out.print(f"    {row.help} [read by {', '.join(_reader(name, barred) for name in row.readers)}{when}]")
    for procedure_name, why in barred.items():
        if why:
            out.print(f"not run under these rules ({procedure_name}): they have {why}")
    for procedure in REGISTRY:
        for limit in procedure.limits:
            out.print(f"not modelled ({procedure.name}): {limit}")


@app.command()
def diff(
    first: Annotated[str, typer.Argument(help="a built-in ruleset")],
    second: Annotated[str, typer.Argument(help="another built-in ruleset (or the same one with --rules)")],
    rules: RulesFileOption = None,
) -> None:
    """Every key whose value differs between two rulesets (house rules apply to the second).

    Exit 0 whether they differ or not (unlike diff(1)): the first line says how many differences, or that they are
    the same.
    """
    a = _load(first, {})
    b = _load(second, read_overrides(rules))
    rows = rulesets.diff(a, b)
    if not rows:
        out.print(f"{first} and {second} are the same (hash {a.hash[:16]})")
        return
    label = second + (" with house rules" if rules else "")
    out.print(f"{counted(len(rows), 'difference')}: {first} | {label}")
    for key, left, right in rows:
        out.print(f"{key}: {_show(left)} | {_show(right)}")


@app.command()
def change(
    ruleset: Annotated[str, typer.Option(help="the built-in ruleset to put in force")],
    rules: RulesFileOption = None,
    reason: Annotated[str, typer.Option(help="why the rules change", callback=refuse_blank)] = "",
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
) -> None:
    """Put other rules in force from now on (recorded as an event; the past keeps its rules)."""
    door = Door.open(db, campaign)
    outcome = door.run(c.ChangeRules(ruleset=ruleset, overrides=read_overrides(rules), reason=reason))
    new = outcome.table.rules
    assert new is not None  # noqa: S101 - just recorded
    out.print(f"rules in force: {new.title} [{rulesets.display_name(new)}], hash {new.hash}")
