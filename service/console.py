"""The command line's console: plain text (never markup or highlighting), and nothing in it that could steer a
terminal. A log is the referee's data, and an imported one anybody's: a name holding an escape sequence is printed
as ``\\u001b``, as the log and state views print it, whichever command shows it."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from hexlog.machine.text import shown


class PlainConsole(Console):
    """A console whose text is printed line by line through ``machine.text.shown``."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        """Print as ``rich`` does, each text escaped."""
        super().print(*(_plain(o) if isinstance(o, str) else o for o in objects), **kwargs)


def _plain(text: str) -> str:
    return "\n".join(shown(line) for line in text.split("\n"))


def plain(*, stderr: bool = False) -> PlainConsole:
    """A console for a command's output (``stderr``: its messages)."""
    return PlainConsole(highlight=False, soft_wrap=True, markup=False, stderr=stderr)
