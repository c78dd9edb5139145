"""What every command-line door shares: opening the store, naming the campaign, running a command."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import attrs
import structlog
import typer

from hexlog.events.errors import CorruptLogError, NotFoundError, UsageError
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine.handler import Handler, Outcome
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.machine.table import Table

DEFAULT_CAMPAIGN = "main"

DbOption = Annotated[
    Path,
    typer.Option("--db", envvar="HEXLOG_DB", help="the SQLite database file", show_default=True),
]
CampaignOption = Annotated[
    str | None,
    typer.Option("--campaign", envvar="HEXLOG_CAMPAIGN", help="the campaign id (needed when the database holds several)"),
]


def open_store(db: Path, *, create: bool = False) -> SQLiteStore:
    """Open the database; refuse a missing file unless ``create``, and a file that is not a database."""
    if not create and not db.exists():
        msg = f"no hexlog database at {db}; run 'hexlog init' first (or pass --db)"
        raise NotFoundError(msg)
    if db.is_dir():
        msg = f"{db} is a directory, not a database file"
        raise UsageError(msg)
    try:
        return SQLiteStore(db)
    except sqlite3.DatabaseError as err:
        msg = f"{db} is not a hexlog database: {err}"
        raise CorruptLogError(msg) from err


def campaign_ids(store: SQLiteStore) -> list[str]:
    """The campaigns a store holds, from their stream ids."""
    return [s.removeprefix("campaign-") for s in store.streams() if s.startswith("campaign-")]


def resolve_campaign(store: SQLiteStore, given: str | None) -> str:
    """The campaign a command is for: the one given, or the only one the database holds."""
    if given:
        return given
    known = campaign_ids(store)
    if not known:
        return DEFAULT_CAMPAIGN
    if len(known) == 1:
        return known[0]
    msg = f"the database holds several campaigns ({', '.join(known)}); choose one with --campaign"
    raise UsageError(msg)


@attrs.define
class Door:
    """One command line invocation's store, keeper, handler and campaign."""

    store: SQLiteStore
    handler: Handler
    campaign: str

    @classmethod
    def open(cls, db: Path, campaign: str | None, *, create: bool = False) -> Door:
        """Open the store and its key file, and settle the campaign."""
        store = open_store(db, create=create)
        handler = Handler(store, FileKeeper(key_file_for(db)))
        return cls(store=store, handler=handler, campaign=resolve_campaign(store, campaign))

    def table(self) -> Table:
        """The campaign's folded state; ``NotFoundError`` when it does not exist."""
        table = self.handler.load(self.campaign)
        if not table.started:
            msg = f"campaign {self.campaign!r} does not exist; run 'hexlog init'"
            raise NotFoundError(msg)
        return table

    def run(self, command: c.Command, command_id: str | None = None) -> Outcome:
        """Execute one command; a success is logged here, a refusal once by the entry point."""
        structlog.contextvars.bind_contextvars(stream_id=f"campaign-{self.campaign}", command=type(command).__name__)
        outcome = self.handler.execute(self.campaign, command, command_id)
        structlog.get_logger().info("command.done", outcome="ok", events=len(outcome.events), version=outcome.result.last_version)
        return outcome

    def close(self) -> None:
        """Release the database."""
        self.store.close()
