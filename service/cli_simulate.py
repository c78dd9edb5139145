"""``hexlog simulate``: a designer's question asked of the real procedures many times, and ``compare``.

One subcommand per scenario of ``hexlog.service.simulation.SCENARIOS``; its situation's fields are
its options (as a procedure's command's fields are). The answer is a table of every measure (rates
with 95 % confidence intervals, means and percentiles, distributions), ``--json`` for other tools
and ``--plot FILE.png`` for a picture.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import attrs
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from hexlog.events.codec import converter
from hexlog.events.errors import RuleRefusedError, StoreWriteError, UsageError
from hexlog.machine import ruleset as rulesets
from hexlog.machine.hexmap.rules import MapTables
from hexlog.machine.registry import REGISTRY
from hexlog.service import cli_log, cli_procedures, cli_rules, console
from hexlog.service.simulation import (
    SCENARIOS,
    Journey,
    Measure,
    Question,
    in_common_units,
    simulate,
    summarise,
    trials,
)
from hexlog.service.simulation_kit import Outcome, Scenario, unplayed

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

out = console.plain()
err = Console(stderr=True, highlight=False)
app = typer.Typer(
    help="Ask the rules a question many times (the real procedures, committed dice): rates, distributions, a plot.",
    no_args_is_help=True,
)
compare_app = typer.Typer(help="One question under two rulesets or options, side by side.", no_args_is_help=True)
app.add_typer(compare_app, name="compare")

#: trials from which a progress bar is shown
LONG_RUN = 500
MAX_JOBS = 64
#: the most trials one run takes (ten million: hours of work on every core, and the outcomes held in memory)
MAX_TRIALS = 10_000_000


def _param(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def _common(scenario: Scenario, *, against: bool) -> list[inspect.Parameter]:
    """The options every simulation takes (and, for ``compare``, those of the other side)."""
    params = [
        _param(
            "ruleset", Annotated[str, typer.Option(help="built-in ruleset: see 'hexlog rules list'")], scenario.ruleset
        ),
        _param("rules", Annotated[Path | None, typer.Option(help="a TOML file of house rules over the ruleset")], None),
        _param(
            "option",
            Annotated[
                list[str] | None,
                typer.Option("--option", help="a house rule NAME=VALUE (an option), or tables.TABLE.KEY=VALUE"),
            ],
            None,
        ),
    ]
    if against and "setting" in attrs.fields_dict(scenario.situation):
        params.append(
            _param(
                "against_setting",
                Annotated[
                    str | None,
                    typer.Option(
                        help="the other side's --setting, where its rules name it otherwise (ose's wilderness is "
                        "adnd's outdoors; default: the same)"
                    ),
                ],
                None,
            )
        )
    if against:
        params += [
            _param(
                "against",
                Annotated[str | None, typer.Option(help="the other side's ruleset (default: the same)")],
                None,
            ),
            _param(
                "against_rules", Annotated[Path | None, typer.Option(help="the other side's house rules file")], None
            ),
            _param(
                "against_option",
                Annotated[
                    list[str] | None, typer.Option("--against-option", help="the other side's house rule NAME=VALUE")
                ],
                None,
            ),
        ]
    params += [
        _param("n", Annotated[int, typer.Option("--n", min=1, max=MAX_TRIALS, help="how many trials")], 1000),
        _param("seed", Annotated[int, typer.Option(help="the seed every trial's dice derive from")], 1),
        _param("jobs", Annotated[int, typer.Option(min=1, max=MAX_JOBS, help="processes to run the trials on")], 1),
        _param("plot", Annotated[Path | None, typer.Option(help="write a chart of the outcomes (PNG)")], None),
        _param("as_json", Annotated[bool, typer.Option("--json", help="print the result as JSON")], False),  # noqa: FBT003 - a default
    ]
    return params


def overrides_of(rules: Path | None, options: Sequence[str] | None) -> dict[str, Any]:
    """The house rules of a rules file and of ``NAME=VALUE`` options (a value read as TOML, else as text)."""
    found = cli_rules.read_overrides(rules)
    for given in options or ():
        key, sep, text = given.partition("=")
        if not sep or not key.strip():
            msg = f"a house rule is NAME=VALUE, not {given!r}"
            raise UsageError(msg)
        path = key.strip().split(".")
        if len(path) == 1:
            path = ["options", *path]
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text
        place = found
        for part in path[:-1]:
            place = place.setdefault(part, {})
            if not isinstance(place, dict):
                msg = f"house rule {given!r}: {part} is a value, not a table"
                raise UsageError(msg)
        place[path[-1]] = value
    return found


def _check_read(
    scenario: Scenario,
    rules: Path | None,
    options: Sequence[str] | None,
    against: str = "",
    side: tuple[rulesets.Ruleset, Any] | None = None,
) -> None:
    """Refuse, naming it and why, a house rule of a rules file or given on the command line that no trial reads: none
    of the procedures a trial plays reads it, or only where its trials never go, or (given the side: the rules in force
    and the situation) only where those rules never take them, or where none of the procedures a trial of that
    situation plays reads it (it changed nothing, and a ``compare`` of it gave two equal sides). ``against`` is the
    other side's prefix (``against-``)."""
    given: list[tuple[str, str, str]] = []
    for section, keys in cli_rules.read_overrides(rules).items():
        given += [(f"--{against}rules {rules}", section, key) for key in keys] if isinstance(keys, dict) else []
    for option in options or ():
        path = option.partition("=")[0].strip().split(".")
        section, key = ("options", path[0]) if len(path) == 1 else (path[0], path[1])
        given.append((f"--{against}option {option}", section, key))
    for flag, section, key in given:
        why = unplayed(scenario, section, key, *(side or ()))
        if why:
            msg = f"{flag}: {why}"
            raise UsageError(msg)


def _rules(name: str, overrides: dict[str, Any]) -> rulesets.Ruleset:
    rules = rulesets.load(name, overrides, used=REGISTRY.used_keys())
    REGISTRY.check_rules(rules)
    return rules


def _run(question: Question, n: int, jobs: int, label: str) -> list[Outcome]:
    if n < LONG_RUN:
        return simulate(question, n, jobs)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as progress:
        task = progress.add_task(label, total=n)
        return simulate(question, n, jobs, lambda done: progress.advance(task, done))


def _side_rules(side: str, name: str, overrides: dict[str, Any]) -> rulesets.Ruleset:
    """A side's rules; refused naming the side (whose --option or --against-option is wrong)."""
    try:
        return _rules(name, overrides)
    except UsageError as err:
        msg = f"side {side} ({name}): {err}"
        raise UsageError(msg) from err


def _cells(measure: Measure) -> list[tuple[str, str, str]]:
    """The measure's rows: (what, value, spread)."""
    if measure.kind == "number":
        ps = "  ".join(f"p{p} {v:g}" for p, v in measure.percentiles.items())
        rows = [("mean", f"{_num(measure.mean)} (sd {_num(measure.stdev)})", ps)]
        rows += [(f"= {value}", _pct(count / measure.n), "") for value, count in measure.counts.items()]
        return rows
    return [
        (rate.label, _pct(rate.rate), f"95% CI {_pct(rate.interval[0])}-{_pct(rate.interval[1])}")
        for rate in measure.rates
    ]


def _pct(value: float) -> str:
    if 0 < value < 0.0005:  # noqa: PLR2004 - what .1f would print as 0.0
        return "<0.1%"
    return f"{100 * value:.1f}%"


def _num(value: float) -> str:
    """A mean or a deviation: three significant digits, a large one whole (1190.3, not 1.19e+03)."""
    return f"{value:.1f}" if abs(value) >= 1000 else f"{value:.3g}"  # noqa: PLR2004 - where .3g turns to e+03


def _title(scenario: Scenario, rules: Sequence[rulesets.Ruleset], n: int, seed: int) -> str:
    if len(rules) == 1:
        named = f"{rules[0].title} [{rulesets.display_name(rules[0])}]"
    else:
        named = "; ".join(
            f"{side}: {r.title} [{rulesets.display_name(r)}]" for side, r in zip("AB", rules, strict=False)
        )
    return f"simulate {scenario.name}: {n} trials, seed {seed}, rules {named}"


def _table(title: str, sides: Sequence[tuple[str, list[Measure]]], trials: int) -> Table:
    """The answer's table; however narrow the terminal, nothing in it is cut short (a rate's interval, a reaction's
    name once ended in an ellipsis at 80 columns): a word wider than its column folds onto the next line."""
    table = Table(title=title, title_justify="left")
    table.add_column("measure", overflow="fold")
    table.add_column("outcome", overflow="fold")
    for label, _ in sides:
        table.add_column(label or "value", justify="right", overflow="fold")
        table.add_column("spread", overflow="fold")
    for end, cells in _rows(sides, trials):
        table.add_row(*cells, end_section=end)
    return table


def _rows(sides: Sequence[tuple[str, list[Measure]]], trials: int) -> list[tuple[bool, list[str]]]:
    """The table's rows, each with whether it ends its measure's section."""
    out: list[tuple[bool, list[str]]] = []
    first = sides[0][1]
    by_side = [{m.name: m for m in measures} for _, measures in sides]
    names = list(dict.fromkeys([m.name for m in first] + [m.name for _, ms in sides[1:] for m in ms]))
    for name in names:
        rows: dict[str, list[str]] = {}
        for index, measures in enumerate(by_side):
            measure = measures.get(name)
            for what, value, spread in _cells(measure) if measure is not None else []:
                row = rows.setdefault(what, ["", ""] * len(sides))
                row[2 * index], row[2 * index + 1] = value, spread
        if any(m[name].kind == "number" for m in by_side if name in m):  # each value once, in order, whichever side
            rows = dict(sorted(rows.items(), key=lambda row: _value_order(row[0])))
        counts = [(side, m[name].n) for (side, _), m in zip(sides, by_side, strict=True) if name in m]
        label = _reached(name, counts, trials, len(sides))
        for i, (what, cells) in enumerate(rows.items()):
            out.append((i == len(rows) - 1, [label if i == 0 else "", what, *cells]))
    return out


def _reached(name: str, counts: Sequence[tuple[str, int]], trials: int, sides: int) -> str:
    """A measure's name, and how many of the trials reached it where some did not (its rates and shares are of
    those): ``rest owed (31 of 60 trials reach it)``; in a ``compare`` each side's that some did not reach
    (``B: 31 of 60``)."""
    if all(n == trials for _, n in counts):
        return name
    partial = [(side, n) for side, n in counts if n != trials]
    reached = ", ".join(f"{side}: {n}" for side, n in partial) if sides > 1 else str(partial[0][1])
    return f"{name} ({reached} of {trials} trials reach it)"


def _value_order(what: str) -> tuple[int, float]:
    """Where a number's row stands: its mean first, then each value (``= 30``) in numeric order."""
    return (0, 0.0) if not what.startswith("= ") else (1, float(what[2:]))


def _show(  # noqa: PLR0913 - what one answer is made of
    scenario: Scenario,
    *,
    rules: Sequence[rulesets.Ruleset],
    labels: Sequence[str],
    summaries: Sequence[list[Measure]],
    given: dict[str, Any],
    situation: Any,
    other: Any = None,
    house_rules: Sequence[dict[str, Any]] = (),
) -> None:
    """Print the answer; ``other`` is side B's situation where it differs from A's (its setting); ``house_rules``
    each side's house rules (``--option``, ``--rules``; B's ``--against-...``), named in the JSON."""
    n, seed = given["n"], given["seed"]
    title = _title(scenario, rules, n, seed)
    if other is not None:
        title += f"; A in {situation.setting or 'its first setting'}, B in {other.setting}"
    sides = list(zip(labels, summaries, strict=True))
    situations = [situation] + [other if other is not None else situation] * (len(rules) - 1)
    notes = [scenario.notes(s, r) if scenario.notes else () for s, r in zip(situations, rules, strict=True)]
    if given["as_json"]:

        def shown(asked: Any) -> dict[str, Any]:
            return {k: v for k, v in converter.unstructure(asked).items() if k not in scenario.unread}

        result = {
            "title": title,
            "scenario": scenario.name,
            "situation": shown(situation),
            "n": n,
            "seed": seed,
            "sides": [
                {
                    "label": label,
                    "ruleset": r.name,
                    "rules": rulesets.display_name(r),
                    "rules_title": r.title,
                    "rules_hash": r.hash,
                    "house_rules": house,
                    "measures": [m.as_json() for m in measures],
                    "notes": list(told),
                }
                for label, r, measures, house, told in zip(
                    labels, rules, summaries, house_rules or [{}] * len(rules), notes, strict=True
                )
            ],
        }
        if other is not None:
            result["sides"][1]["situation"] = shown(other)
        sys.stdout.write(json.dumps(result) + "\n")  # as it is: no console markup or emoji codes read in it
    else:
        out.print(_table(title, sides, n))
        for label, told in zip(labels, notes, strict=True):
            for note in told:  # what the situation decides, which no rate shows
                out.print(f"note: {note}" if len(labels) == 1 else f"note ({label}): {note}")
    if given["plot"] is not None:  # each side's bars named by its rules too (a legend of A and B told nothing)
        named = [
            (f"{label}: {rulesets.display_name(r)}" if len(rules) > 1 else label, measures)
            for (label, measures), r in zip(sides, rules, strict=True)
        ]
        _write_plot(given["plot"], title, named, say=not given["as_json"])


def _plot_target(plot: Path | None) -> None:
    """Refuse, before any trial is run, a plot that cannot be written: a name not ending .png, a folder that is not
    there or takes no file, a name that is a folder or a link to nothing, matplotlib missing."""
    if plot is None:
        return
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    simulation_plot.pyplot()
    if plot.suffix.lower() != ".png":
        msg = f"--plot writes a PNG: give a name ending .png, not {plot}"
        raise UsageError(msg)
    if not plot.parent.is_dir():
        msg = f"cannot write the plot to {plot}: there is no folder {plot.parent}"
        raise UsageError(msg)
    if plot.is_dir():
        msg = f"cannot write the plot to {plot}: it is a folder; give a file name ending .png"
        raise UsageError(msg)
    if plot.is_symlink() and not plot.exists():
        msg = f"cannot write the plot to {plot}: it links to {plot.readlink()}, which is not there"
        raise UsageError(msg)
    _check_overwrite(plot)
    try:  # a file of its own in the folder: one that takes none (read-only, /proc) is refused now, not at the end
        with tempfile.NamedTemporaryFile(dir=plot.parent, prefix=".hexlog-plot-", suffix=".png"):
            pass
    except OSError as err:
        msg = f"cannot write the plot to {plot}: {err.strerror or err}"
        raise UsageError(msg) from err


def _check_overwrite(plot: Path) -> None:
    """Refuse a plot over a file it may not replace: the database (``--db``'s, from ``HEXLOG_DB`` or its default) or
    its key file, by name (one not made yet included), and any file there that is not a plot hexlog wrote (a PNG whose
    ``Software`` says so): ``export --out`` asks no ``--force`` to write over its own kind of file, and never writes
    over the database or its secrets."""
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    db = Path(os.environ.get("HEXLOG_DB", "").strip() or "hexlog.db")
    for kept in cli_log.kept_files(db):
        if os.path.realpath(plot) == os.path.realpath(kept):
            msg = f"cannot write the plot to {plot}: it is {kept}, in which the database keeps its log or its secrets"
            raise UsageError(msg + "; name another file")
    if not plot.is_file():  # nothing there, or a device (a FIFO is never read here)
        return
    try:
        with plot.open("rb") as handle:
            head = handle.read(simulation_plot.HEAD_BYTES)
    except OSError as err:
        msg = f"cannot write the plot to {plot}: {err.strerror or err}"
        raise UsageError(msg) from err
    if not simulation_plot.written_by_hexlog(head):
        msg = (
            f"cannot write the plot to {plot}: a file is there that is not a plot hexlog wrote, and it would be lost; "
            "name another file, or move that one away"
        )
        raise UsageError(msg)


def _write_plot(plot: Path, title: str, sides: list[tuple[str, list[Measure]]], *, say: bool) -> None:
    """Write the chart (after the answer is printed, so a failed write loses nothing of it); a file put at its name
    while the trials ran is refused as one there before them is."""
    from hexlog.service import simulation_plot  # noqa: PLC0415 - matplotlib only when a plot is asked for

    _check_overwrite(plot)
    try:
        simulation_plot.write(plot, title, sides)
    except OSError as err:
        msg = f"cannot write the plot to {plot}: {err.strerror or err}"
        raise StoreWriteError(msg) from err
    if say:
        out.print(f"plot written to {plot}")


def _one(scenario: Scenario) -> Callable[..., None]:
    def callback(**given: Any) -> None:
        _plot_target(given["plot"])
        situation = _situation(scenario, given)
        overrides = overrides_of(given["rules"], given["option"])
        _check_read(scenario, given["rules"], given["option"])
        rules = _rules(given["ruleset"], overrides)
        _check_read(scenario, given["rules"], given["option"], side=(rules, situation))
        _check_terrain(situation, rules)
        _check_heeded(scenario, [(situation, rules)])
        question = Question(
            scenario=scenario.name,
            situation=situation,
            ruleset=given["ruleset"],
            overrides=overrides,
            seed=given["seed"],
        )
        outcomes = _run(question, given["n"], given["jobs"], f"{scenario.name} ({rules.name})")
        _show(
            scenario,
            rules=[rules],
            labels=[rules.name],
            summaries=[summarise(outcomes)],
            given=given,
            situation=situation,
            house_rules=[overrides],
        )

    params = [*_common(scenario, against=False), *_situation_options(scenario)]
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__doc__ = scenario.title
    return callback


def _compare(scenario: Scenario) -> Callable[..., None]:
    def callback(**given: Any) -> None:
        _plot_target(given["plot"])
        situation = _situation(scenario, given)
        other_situation = situation
        if given.get("against_setting") is not None:
            other_situation = attrs.evolve(situation, setting=given["against_setting"])
        first = overrides_of(given["rules"], given["option"])
        other_name = given["against"] or given["ruleset"]
        second = overrides_of(given["against_rules"], given["against_option"])
        _check_read(scenario, given["rules"], given["option"])
        _check_read(scenario, given["against_rules"], given["against_option"], "against-")
        if other_name == given["ruleset"] and first == second and other_situation == situation:
            msg = "compare needs two different sides: give --against, --against-rules, --against-option" + (
                " or --against-setting" if "against_setting" in given else ""
            )
            raise UsageError(msg)
        rules = [
            _side_rules(side, name, overrides)
            for side, name, overrides in (("A", given["ruleset"], first), ("B", other_name, second))
        ]
        _check_read(scenario, given["rules"], given["option"], side=(rules[0], situation))
        _check_read(
            scenario,
            given["against_rules"],
            given["against_option"],
            "against-",
            side=(rules[1], other_situation),
        )
        for side, asked, side_rules in zip("AB", (situation, other_situation), rules, strict=True):
            _check_terrain(asked, side_rules, side)
        _check_heeded(scenario, [(situation, rules[0]), (other_situation, rules[1])])
        questions = [
            Question(scenario=scenario.name, situation=asked, ruleset=name, overrides=overrides, seed=given["seed"])
            for asked, name, overrides in ((situation, given["ruleset"], first), (other_situation, other_name, second))
        ]
        hint = "give side B's setting with --against-setting" if given.get("against_setting", "") is None else ""
        _refused_by("A", questions[0])
        _refused_by("B", questions[1], hint)
        runs = [
            _run(question, given["n"], given["jobs"], f"{scenario.name} side {side}")
            for side, question in zip("AB", questions, strict=True)
        ]
        summaries = [summarise(outcomes) for outcomes in in_common_units(runs)]
        _show(
            scenario,
            rules=rules,
            labels=["A", "B"],
            summaries=summaries,
            given=given,
            situation=situation,
            other=other_situation if other_situation != situation else None,
            house_rules=[first, second],
        )

    params = [*_common(scenario, against=True), *_situation_options(scenario)]
    callback.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    callback.__doc__ = f"{scenario.title} Under two rulesets or options (A: --ruleset, B: --against)."
    if "setting" in attrs.fields_dict(scenario.situation):
        callback.__doc__ += " Where B's rules name the setting otherwise, give it with --against-setting."
    return callback


def _check_terrain(situation: Any, rules: rulesets.Ruleset, side: str = "") -> None:
    """Refuse, naming ``--terrain`` and the terrains the rules know, a journey through a terrain no hex may have
    (the map the trials travel would refuse it, naming a hex the user never drew). Rules under which no journey can
    start are refused for that, in the journey's words, not for a terrain (the default one the user never gave)."""
    if not isinstance(situation, Journey):
        return
    where = f"side {side} ({rules.name}): " if side else ""
    travel = REGISTRY.procedure("travel")
    missing = travel.unavailable(rules) if travel.unavailable is not None else ""
    if missing:
        phase = travel.initial.name if travel.initial is not None else "IDLE"
        msg = (
            f"{where}travel: 'start' refused in phase {phase}: "
            f"the rules in force ({rules.name}) have {missing}; use explore"
        )
        raise RuleRefusedError(msg)
    known = rules.part(MapTables).terrains()
    if situation.terrain not in known:
        msg = f"{where}--terrain {situation.terrain!r} is not one the rules know: {', '.join(sorted(known))}"
        raise UsageError(msg)


def _check_heeded(scenario: Scenario, sides: Sequence[tuple[Any, rulesets.Ruleset]]) -> None:
    """Refuse, naming the option and why, a situation's option that no side's rules read (``compare`` takes one
    that either side reads)."""
    if scenario.unheeded is None:
        return
    found = [scenario.unheeded(situation, rules) for situation, rules in sides]
    for name, why in found[0].items():
        if all(name in unheeded for unheeded in found):
            msg = f"--{name.replace('_', '-')} does not apply: {why}"
            raise UsageError(msg)


def _refused_by(side: str, question: Question, hint: str = "") -> None:
    """Play the side's first trial (as its run will) to refuse, before any run, a situation its rules do not know
    (a setting another ruleset names), naming the side and its rules, with ``hint`` when the error is the setting's."""
    try:
        trials(question, [0])
    except UsageError as err:
        said = f"; {hint}" if hint and "setting" in str(err) else ""
        msg = f"side {side} ({question.ruleset}): {err}{said}"
        raise UsageError(msg) from err
    except RuleRefusedError as err:  # a procedure the side's rules do not have (AD&D's pursuit)
        msg = f"side {side} ({question.ruleset}): {err}"
        raise RuleRefusedError(msg) from err


def _situation_options(scenario: Scenario) -> list[inspect.Parameter]:
    """The options of the situation's fields, but those no trial's outcome depends on (never offered)."""
    return [p for p in cli_procedures.options(scenario.situation) if p.name not in scenario.unread]


def _situation(scenario: Scenario, given: dict[str, Any]) -> Any:
    common = {p.name for p in _common(scenario, against=True)}
    fields = {k: v for k, v in given.items() if k not in common}
    try:
        return scenario.situation(**cli_procedures.values(scenario.situation, fields))
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from exc


for _scenario in SCENARIOS.values():
    app.command(_scenario.name)(_one(_scenario))
    compare_app.command(_scenario.name)(_compare(_scenario))


def install(root: typer.Typer) -> None:
    """Add ``hexlog simulate`` to the command line."""
    root.add_typer(app, name="simulate")
