"""What every command-line door shares: opening the store, naming the campaign, running a command.

Environment:

``HEXLOG_DB``
    the database (``--db``): a SQLite file, default ``hexlog.db``, or a PostgreSQL URL
    (``postgresql://USER@HOST:PORT/DATABASE``; ``?options=-csearch_path%3DSCHEMA`` keeps it in a schema of its own).
``HEXLOG_KEY_FILE``
    for a PostgreSQL database, the key file holding its sessions' secrets (default
    ``HOST_PORT_DATABASE[.SCHEMA].keys`` in ``$XDG_DATA_HOME/hexlog/keys``, by default
    ``~/.local/share/hexlog/keys``); a SQLite file's key file is always the file beside it.
``HEXLOG_CAMPAIGN``
    the campaign id (``--campaign``).
``HEXLOG_BUSY_TIMEOUT``
    how many seconds to wait for a database another hexlog command holds before giving up with
    "the database ... is busy" (default 10; 0 gives up at once).

Only ``init``, ``import`` and ``demo`` create a database (readable by its owner only, its folders made if they
are missing, and removed again if the command leaves them empty); every other
command opens an existing hexlog database and refuses any other file (even a valid SQLite one)
without changing it. A new database file that ends its command with no event (an import or an
``init`` that failed) is removed. Commands that only read open the database read-only, so that a
copy the user may not write (on a share, received by mail) can be read, audited and exported.

A PostgreSQL URL opens the same store on a server (one schema: the first of the connection's
``search_path``); ``init``, ``import`` and ``demo`` create its tables, and the other commands refuse a
schema without them.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import attrs
import structlog
import typer
from psycopg.conninfo import conninfo_to_dict
from typer._click.core import ParameterSource  # typer's own click: where a value came from

from hexlog.events.errors import Advice, ConcurrencyError, CorruptLogError, NotFoundError, StoreWriteError, UsageError
from hexlog.events.files import decode_utf8, read_regular, remove_quietly
from hexlog.events.postgres import PostgresStore
from hexlog.events.postgres_schema import is_database_url, shown_url
from hexlog.events.sqlite import SQLiteStore, is_busy
from hexlog.events.streams import stream_for
from hexlog.machine import commands as c
from hexlog.machine.campaign import check_campaign_id
from hexlog.machine.handler import Handler, Outcome
from hexlog.machine.keeper import FileKeeper, key_file_for
from hexlog.machine.kit import calendar
from hexlog.machine.kit.clock import DAY_SECONDS, ClockOptions
from hexlog.machine.ruleset import display_name
from hexlog.machine.text import shown
from hexlog.replay.rebuild import table_at, version_at_time
from hexlog.replay.receipts import Receipt

if TYPE_CHECKING:
    from hexlog.machine.table import Table

#: the doors this invocation opened; the entry point closes them when the command ends
OPENED = contextlib.ExitStack()

DEFAULT_CAMPAIGN = "main"
#: the ids ``hexlog demo`` takes: ``demo``, then ``demo-2``, ``demo-3``, ...
DEMO_ID = re.compile(r"^demo(-[0-9]+)?$")
#: seconds to wait for a database another command holds, unless HEXLOG_BUSY_TIMEOUT says otherwise
DEFAULT_BUSY_TIMEOUT = 10.0

#: a store ``--db`` opens: a SQLite file or a PostgreSQL database
Store = SQLiteStore | PostgresStore

DbOption = Annotated[
    Path,
    typer.Option(
        "--db", envvar="HEXLOG_DB", help="the SQLite database file, or a postgresql:// URL", show_default=True
    ),
]
CampaignOption = Annotated[
    str | None,
    typer.Option(
        "--campaign", envvar="HEXLOG_CAMPAIGN", help="the campaign id (needed when the database holds several)"
    ),
]


def refuse_blank(ctx: typer.Context, param: typer.CallbackParam, value: object) -> object:
    """An option's check that blank text typed for it is refused where empty text means the option was left out
    (``--name ""`` would name nothing, silently): ``hexlog: error: Invalid value for '--name': is empty: ...``."""
    if c.blank(value) and ctx.get_parameter_source(str(param.name)) is not ParameterSource.DEFAULT:
        raise typer.BadParameter(c.BLANK)
    return value


def busy_timeout() -> float:
    """Seconds to wait for a locked database: ``HEXLOG_BUSY_TIMEOUT``, else the default."""
    text = os.environ.get("HEXLOG_BUSY_TIMEOUT", "").strip()
    if not text:
        return DEFAULT_BUSY_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not math.isfinite(seconds) or seconds < 0:
        msg = f"HEXLOG_BUSY_TIMEOUT must be a number of seconds (0 or more), not {text!r}"
        raise UsageError(msg)
    return seconds


def database_url(db: Path) -> str | None:
    """The PostgreSQL URL ``--db`` gives, or None for a SQLite file.

    The option arrives as a path, which keeps one slash of the URL's two (``postgresql:/HOST/...``):
    both forms are read as the URL, which must name its host.
    """
    text = str(db)
    match = re.match(r"^(postgres(?:ql)?):/+(?=[^/])", text)
    if match is None:
        return None
    url = f"{match.group(1)}://{text[match.end() :]}"
    return url if is_database_url(url) else None


def shown_db(db: Path) -> str:
    """``--db`` as messages show it: the path, or the URL (quoted for a shell, without its password)."""
    url = database_url(db)
    return str(db) if url is None else shlex.quote(shown_url(url))


def key_file(db: Path) -> Path:
    """The key file of a database: beside a SQLite file; for PostgreSQL, ``HEXLOG_KEY_FILE`` or one named for the
    server, the database and its schema in the user's data folder (``$XDG_DATA_HOME/hexlog/keys``, by default
    ``~/.local/share/hexlog/keys``), so that every command of the campaign finds it from any folder."""
    url = database_url(db)
    if url is None:
        return key_file_for(db)
    given = os.environ.get("HEXLOG_KEY_FILE", "").strip()
    if given:
        return Path(given)
    params = conninfo_to_dict(url)
    host = str(params.get("host") or params.get("hostaddr") or "localhost")
    name = str(params.get("dbname") or params.get("user") or "hexlog")
    schema = re.search(r"search_path=([A-Za-z0-9_]+)", str(params.get("options") or ""))
    stem = f"{host}_{params.get('port') or 5432}_{name}" + (f".{schema.group(1)}" if schema else "")
    return keys_folder() / (re.sub(r"[^A-Za-z0-9_.-]", "_", stem) + ".keys")


def keys_folder() -> Path:
    """Where the key files of PostgreSQL databases are kept, made (readable by the user only) if missing."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    folder = (Path(base) if base else Path.home() / ".local" / "share") / "hexlog" / "keys"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def open_store(db: Path, *, create: bool = False, readonly: bool = False) -> Store:
    """Open the database; refuse a missing file unless ``create``, and a file that is not hexlog's.

    Without ``create`` nothing is created or converted: a valid SQLite file that is not a hexlog
    database is refused as it is. A database another connection holds past the busy timeout is a
    ``ConcurrencyError`` (busy, try again), not a corrupt file. ``readonly`` never writes. A PostgreSQL
    URL opens ``PostgresStore`` (a schema without hexlog's tables is ``NotFoundError`` unless ``create``).
    """
    timeout = busy_timeout()
    url = database_url(db)
    if url is not None:
        return PostgresStore(url, lock_timeout=timeout, create=create, readonly=readonly)
    _check_file(db, create=create)
    try:
        return SQLiteStore(db, busy_timeout=timeout, create=create, readonly=readonly)
    except NotFoundError as err:  # the file went away between the check and the open
        msg = f"no hexlog database at {db}; run 'hexlog init' first (or pass --db)"
        raise NotFoundError(msg) from err
    except sqlite3.OperationalError as err:
        if is_busy(err):
            msg = f"the database {db} is busy (another hexlog command holds it); try again"
            raise ConcurrencyError(msg) from err
        folder = db.resolve().parent
        if "readonly" in str(err) or (not readonly and not (os.access(db, os.W_OK) and os.access(folder, os.W_OK))):
            msg = f"the database {db} is read-only (or its folder is): nothing was written"
            raise StoreWriteError(msg) from err
        msg = f"cannot open the database {db}: {err}"
        raise UsageError(msg) from err
    except sqlite3.DatabaseError as err:
        msg = f"{db} is not a hexlog database: {err}"
        raise CorruptLogError(msg) from err


def _check_file(db: Path, *, create: bool) -> None:
    """Refuse a database file that is missing (unless ``create``: then its folders are made, and any this command
    made and left empty are removed as it ends), a folder, or not a regular file."""
    if create:
        OPENED.callback(_unmake, _make_folders(db))
    elif not db.exists():
        msg = f"no hexlog database at {db}; run 'hexlog init' first (or pass --db)"
        raise NotFoundError(msg)
    if db.is_dir():
        msg = f"{db} is a directory, not a database file"
        raise UsageError(msg)
    if db.exists() and not db.is_file():  # a FIFO would hang the open, a device is no database
        msg = f"{db} is not a regular file, so not a database file"
        raise UsageError(msg)


def _make_folders(db: Path) -> list[Path]:
    """Make the folders a new database file is to be in, parents too, as ``git init`` does; the folders it made,
    deepest first. A file where a folder would be is a ``UsageError`` naming it."""
    made, folder = [], db.parent
    while not folder.exists() and not folder.is_symlink():
        made.append(folder)
        folder = folder.parent
    if made and not folder.is_dir():
        msg = f"cannot make the folder {made[-1]} for the database {db}: {folder} is not a folder"
        raise UsageError(msg)
    if made:
        db.parent.mkdir(parents=True, exist_ok=True)
    return made


def _unmake(made: list[Path]) -> None:
    """Remove the folders ``_make_folders`` made that the command left empty (an ``init`` refused): nothing is left
    of a database not created."""
    for folder in made:
        try:
            folder.rmdir()
        except OSError:
            return


def campaign_ids(store: Store) -> list[str]:
    """The campaigns a store holds, from their stream ids."""
    return [s.removeprefix("campaign-") for s in store.streams() if s.startswith("campaign-")]


def is_demo(campaign: str) -> bool:
    """Whether a campaign id is one ``hexlog demo`` takes for itself (``demo``, ``demo-2``, ...)."""
    return DEMO_ID.match(campaign) is not None


def resolve_campaign(store: Store, given: str | None) -> str:
    """The campaign a command is for: the one given, else the only one the database holds.

    The demo's campaigns are its own and never chosen without ``--campaign``: a database that holds
    the user's campaign beside them means the user's, so the README's walk-through after ``hexlog demo``
    plays the user's campaign, and one that holds only the demo's is refused (naming ``hexlog init``)
    rather than written to or read as if it were the user's.
    """
    if given is not None:
        check_campaign_id(given)
        return given
    known = campaign_ids(store)
    own = [name for name in known if not is_demo(name)]
    if not own and known:
        msg = (
            f"the database holds only the demo's campaigns ({', '.join(known)}); run 'hexlog init' to start yours, "
            f"or pass --campaign {known[0]}"
        )
        raise UsageError(msg)
    if not own:
        return DEFAULT_CAMPAIGN
    if len(own) == 1:
        return own[0]
    msg = f"the database holds several campaigns ({', '.join(known)}); choose one with --campaign"
    raise UsageError(msg)


class NotReachedError(NotFoundError):
    """A moment of game time the campaign's clock has not reached yet: there is no state of it to show."""


@attrs.define
class Door:
    """One command line invocation's store, keeper, handler and campaign."""

    store: Store
    handler: Handler
    campaign: str

    @classmethod
    def open(
        cls, db: Path, campaign: str | None, *, create: bool = False, readonly: bool = False, new: bool = False
    ) -> Door:
        """Open the store and its key file, and settle the campaign (``readonly``: for a command that only reads).

        ``new``: the command starts a campaign, so without an id it is ``main``, never one the database holds.
        """
        if campaign is not None:
            check_text(campaign, "--campaign")
            check_campaign_id(campaign)
        store = open_store(db, create=create, readonly=readonly)
        handler = Handler(store, FileKeeper(key_file(db), lock_timeout=busy_timeout()))
        chosen = (campaign or DEFAULT_CAMPAIGN) if new else resolve_campaign(store, campaign)
        door = cls(store=store, handler=handler, campaign=chosen)
        OPENED.callback(door.close)
        return door

    def warn_if_damaged(self) -> None:
        """One line on standard error when the campaign's last event does not match its hash or link."""
        problem = self.store.tail_problem(stream_for(self.campaign))
        if problem is not None:
            warn(f"the log of campaign {self.campaign} is damaged: {problem}; run 'hexlog audit'")

    def table(self) -> Table:
        """The campaign's folded state; ``NotFoundError`` when it does not exist."""
        table = self.handler.load(self.campaign)
        if not table.started:
            msg = f"campaign {self.campaign!r} does not exist; run '"
            raise NotFoundError(msg).advising(Advice("StartCampaign"), "'")
        return table

    def run(self, command: c.Command, command_id: str | None = None) -> Outcome:
        """Execute one command; a success is logged here, a refusal once by the entry point."""
        structlog.contextvars.bind_contextvars(stream_id=stream_for(self.campaign), command=type(command).__name__)
        outcome = self.handler.execute(self.campaign, command, command_id)
        structlog.get_logger().info(
            "command.done", outcome="ok", events=len(outcome.events), version=outcome.result.last_version
        )
        return outcome

    def receipt(self, version: int | None = None) -> str:
        """The receipt of the event at ``version`` (the latest by default), with what the players read beside it."""
        stream = stream_for(self.campaign)
        at = self.store.stream_version(stream) if version is None else version
        records = self.store.read_stream(stream, at)[:1] if at > 0 else []
        if not records or records[0].version != at:
            msg = f"campaign {self.campaign!r} has no event at version {at}"
            raise NotFoundError(msg)
        record = records[0]
        # the latest table is the live one; an earlier one is folded (a question about the past)
        table = self.table() if version is None else table_at(self.store, self.campaign, at, self.handler.registry)
        session = table.session
        facts = [f"rules {display_name(table.rules)}"] if table.rules is not None else []
        if session is not None:
            seed = repr(session.client_seed) if session.client_seed else "none"
            facts[:0] = [f"session {session.id} commitment {session.commitment}", f"client seed {seed}"]
            if session.release:  # the release of hexlog whose rules hold the log from the session's opening
                facts.append(f"release {session.release}")
        return f"receipt {Receipt.of(record.envelope)} ({'; '.join(facts)})"

    def version_at(self, at: str, table: Table) -> int:
        """The stream version ``--at`` names: a version number, or a moment of game time (its last event then).

        ``table`` is the campaign's latest. A moment past the clock's present is refused
        (``NotReachedError``, naming where the clock stands), except ``day N`` for the day it stands in,
        whose end is not reached yet: that is the state now.
        """
        latest = self.store.stream_version(stream_for(self.campaign))
        if at.strip().isascii() and at.strip().isdigit():  # a version is written in ASCII digits
            version = int(at)
            if not 1 <= version <= latest:
                msg = f"version {version} is outside campaign {self.campaign!r}, which holds versions 1 to {latest}"
                raise UsageError(msg)
            return version
        if table.rules is None:
            msg = f"campaign {self.campaign!r} has no rules yet, so no calendar"
            raise NotFoundError(msg)
        seconds = calendar.moment(at, table.rules.part(ClockOptions))
        present = table.clock.seconds
        # 'day N' for the day the clock stands in (its end not reached yet) is the state now
        today = calendar.is_whole_day(at) and seconds - DAY_SECONDS <= present
        if seconds > present and not today:
            msg = (
                f"moment {at.strip()!r} is past the present of campaign {self.campaign!r}, "
                f"whose clock has reached {table.clock.text} (version {latest})"
            )
            raise NotReachedError(msg)
        return version_at_time(self.store, self.campaign, seconds, self.handler.registry)

    def close(self) -> None:
        """Release the database."""
        close_store(self.store)


#: the most bytes a secret file may hold (a secret is 64 hex digits; room for a line ending and spaces)
MAX_SECRET_FILE_BYTES = 4096

SecretFileOption = Annotated[
    Path | None,
    typer.Option(
        "--secret-file",
        help="read the session secret (64 hex digits) from this file, or '-' for standard input; "
        "never give a secret on the command line (other users can read it in the process list)",
    ),
]


def read_secret(path: Path | None) -> str | None:
    """The secret ``--secret-file`` gives (a file, or ``-`` for standard input), or None (hexlog draws one).

    There is no way to give a secret on the command line itself: other users can read it in the process list.
    """
    if path is None:
        return None
    if str(path) == "-":
        data = sys.stdin.buffer.read(MAX_SECRET_FILE_BYTES + 1)
        if len(data) > MAX_SECRET_FILE_BYTES:
            msg = f"the secret on standard input is longer than {MAX_SECRET_FILE_BYTES} bytes"
            raise UsageError(msg)
    else:
        data = read_regular(path, limit=MAX_SECRET_FILE_BYTES, what="the secret file")
    text = decode_utf8(data, what="the secret").strip()
    if len(text) != 64 or any(ch not in "0123456789abcdefABCDEF" for ch in text):  # noqa: PLR2004 - 32 bytes in hex
        msg = "the secret file must hold the secret as 64 hex digits (32 bytes)"
        raise UsageError(msg)
    return text


def check_text(value: str, what: str) -> None:
    """``UsageError`` in one line when text from the command line is not valid Unicode (bytes that
    were not UTF-8 arrive as lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        msg = f"{what} is not valid Unicode (it holds bytes that are not UTF-8)"
        raise UsageError(msg) from None


#: the exit code of a command whose standard output its reader closed (128 + SIGPIPE, as a tool the signal ends)
EXIT_PIPE = 141


def silence_stdout() -> None:
    """Point standard output at the null device once its reader has closed it (``hexlog log | head -1``), so
    that what is left to print, and the interpreter's last flush, go nowhere instead of failing again."""
    with contextlib.suppress(OSError, ValueError):  # a standard output with no descriptor (a test's) is left
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def warn(text: str) -> None:
    """A one-line warning on standard error."""
    sys.stderr.write(f"hexlog: warning: {shown(text)}\n")


def close_store(store: Store) -> None:
    """Close a store; a database file this command created and left without any event is removed."""
    if isinstance(store, PostgresStore):
        store.close()
        return
    empty = False
    if store.created:
        with contextlib.suppress(sqlite3.Error):
            empty = not store.has_events()
    store.close()
    if empty:
        for suffix in ("", "-wal", "-shm", "-journal"):
            remove_quietly(store.path.with_name(store.path.name + suffix))
