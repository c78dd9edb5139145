"""A field a command cannot do without is an option the command line asks for: left out, the command is refused as
a usage error naming the option (exit 2), never run with a placeholder in its place."""

from __future__ import annotations

import inspect

import attrs
import pytest

from hexlog.machine.commands import POSITIONAL
from hexlog.machine.registry import REGISTRY
from hexlog.service.cli_procedures import options

#: every command the referee gives with a field that has no default and is given as an option
REQUIRED = sorted(
    {
        (procedure.name, cls.__name__, field.name): cls
        for procedure in REGISTRY
        for cls in procedure.steps
        if attrs.has(cls) and cls not in procedure.internal
        for field in attrs.fields(cls)
        if field.default is attrs.NOTHING and not field.metadata.get(POSITIONAL)
    }.items()
)


def test_there_are_such_fields() -> None:
    assert ("dungeon", "Listen", "by") in [key for key, _ in REQUIRED]


@pytest.mark.parametrize(("key", "cls"), REQUIRED, ids=[".".join(key) for key, _ in REQUIRED])
def test_each_is_a_required_option(key: tuple[str, str, str], cls: type) -> None:
    (found,) = [p for p in options(cls) if p.name == key[2]]
    assert found.default is inspect.Parameter.empty


@pytest.mark.parametrize("args", [("dungeon", "listen"), ("dungeon", "light", "torch"), ("dungeon", "refill")])
def test_left_out_it_is_a_usage_error_naming_the_option(hexlog, args: tuple[str, ...]) -> None:
    for setup in (("init", "--ruleset", "explore"), ("session", "open"), ("party", "add", "Bo"), ("dungeon", "enter")):
        assert hexlog(*setup).returncode == 0
    result = hexlog(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip() == f"hexlog: error: Missing option '--by'; see 'hexlog {' '.join(args[:2])} --help'"
    assert "NOTHING" not in result.stdout + result.stderr
