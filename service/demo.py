"""Placeholder."""

import typer


def install(app: typer.Typer) -> None:
    """Add the commands."""
