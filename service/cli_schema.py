"""``hexlog schema``: the event catalogue, every event type's fields as JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path  # noqa: TC003 - typer reads the annotations when the command runs
from typing import Annotated

import typer

from hexlog.events.base import TYPE_PREFIX
from hexlog.events.catalogue import catalogue
from hexlog.events.errors import NotFoundError, UsageError
from hexlog.service import console

out = console.plain()


def text(value: object) -> str:
    """A schema as the published files hold it."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def schema(
    type_name: Annotated[str | None, typer.Argument(help="an event type (hexlog.dice.rolled or dice.rolled)")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="write every schema to this folder")] = None,
) -> None:
    """The event catalogue: every event type with its schema version, or one type's JSON Schema."""
    found = catalogue()
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            for name, body in found.items():
                (out_dir / f"{name}.json").write_text(text(body), encoding="utf-8")
        except OSError as err:
            msg = f"cannot write to {out_dir}: {err.strerror}"
            raise UsageError(msg) from err
        out.print(f"wrote {len(found)} schemas to {out_dir}")
        return
    if type_name is None:
        for name, body in found.items():
            out.print(f"{TYPE_PREFIX}{name}  v{body['x-hexlog-schema-version']}  {body['description'].splitlines()[0]}")
        return
    name = type_name.removeprefix(TYPE_PREFIX)
    if name not in found:
        msg = f"no event type {type_name!r}; run 'hexlog schema' for the list"
        raise NotFoundError(msg)
    out.print(text(found[name]), end="")


def install(app: typer.Typer) -> None:
    """Add the schema command to the command line."""
    app.command()(schema)
