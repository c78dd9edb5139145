"""Logging for the doors: configured once, at the entry point."""

from __future__ import annotations

import logging
import os
import sys

import structlog

from hexlog.machine.text import shown

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


def configure(level_name: str | None = None) -> None:
    """Console lines on a terminal, JSON lines otherwise; always on standard error.

    ``HEXLOG_LOG`` names the level; a value that names none is warned of, in one line naming those it takes, and
    read as ``warning``.
    """
    given = level_name or os.environ.get("HEXLOG_LOG", "").strip() or "warning"
    level = LEVELS.get(given.lower())
    if level is None:
        sys.stderr.write(
            shown(f"hexlog: warning: HEXLOG_LOG must be one of {', '.join(LEVELS)}, not {given!r}; logging at warning")
            + "\n"
        )
        level = logging.WARNING
    shared: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.typing.Processor
    renderer = structlog.dev.ConsoleRenderer() if sys.stderr.isatty() else structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
