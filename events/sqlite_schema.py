"""The SQLite schema of a hexlog database, and how a stored row becomes an envelope."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from hexlog.events.chain import GENESIS
from hexlog.events.codec import decode_stored, text_decoder_of
from hexlog.events.errors import AUDIT, CorruptLogError, IdempotencyConflictError
from hexlog.events.store import AppendResult, Recorded, records_of
from hexlog.events.structure import SLOW

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

    from hexlog.events.base import Event
    from hexlog.events.store import LoggedEvent, Payload, StoredEvent
    from hexlog.events.text_decoder import TextDecoder

#: how many rows ``read_all`` fetches at a time
PAGE_SIZE = 1000
#: the rows of a projection ``iter_rows`` fetches at a time
ROWS_PAGE_SIZE = 2000
#: the events a long stream is read by at a time (replay, audit, time travel)
STREAM_PAGE_SIZE = 5000
#: the events a page of payloads or decoded events holds: few enough that they are folded and let go while the
#: objects they made are young (a page of 5,000 decoded events outlives the cycle collector's first generations,
#: which then walk it again and again: a long campaign replayed 1.8 times slower)
EVENT_PAGE_SIZE = 250

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY,
    stream_id TEXT NOT NULL,
    stream_version INTEGER NOT NULL,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    source TEXT NOT NULL,
    time TEXT NOT NULL,
    data TEXT NOT NULL,
    prevhash TEXT NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (stream_id, stream_version)
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'hexlog events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'hexlog events are append-only'); END;
CREATE TABLE IF NOT EXISTS commands (
    command_id TEXT PRIMARY KEY,
    stream_id TEXT NOT NULL,
    digest TEXT NOT NULL,
    first_version INTEGER NOT NULL,
    last_version INTEGER NOT NULL,
    event_ids TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS projection_rows (
    stream_id TEXT NOT NULL,
    projection TEXT NOT NULL,
    key TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (stream_id, projection, key)
) WITHOUT ROWID;
"""

#: the empty tables a read-only connection gives itself for those a file lacks (nothing is written): each table's
#: statement by its name
EMPTY_TABLES = {
    part.split()[5]: part.replace("CREATE TABLE", "CREATE TEMP TABLE") + ";\n"
    for part in SCHEMA.split(";\n")
    if part.strip().startswith("CREATE TABLE")
}

#: the events table as SQLite records the statement that made it
EVENTS_TABLE = SCHEMA[: SCHEMA.index(";")].strip().replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE")

#: what a table rebuilt by hand may hold that a reader paging through it skips or mixes up (or two events of one id,
#: which a lookup by id mixes up), each with its words
#: (the stream ids compared as written, whatever collation the table gives them)
HAZARDS = (
    (
        "SELECT position, COUNT(*) FROM events GROUP BY position HAVING COUNT(*) > 1 LIMIT 1",
        "{1} rows at position {0}",
    ),
    (
        (
            "SELECT stream_id COLLATE BINARY, stream_version, COUNT(*) FROM events "
            "GROUP BY stream_id COLLATE BINARY, stream_version HAVING COUNT(*) > 1 LIMIT 1"
        ),
        "{2} rows at version {1} of {0}",
    ),
    (
        (
            "SELECT MIN(stream_id COLLATE BINARY), MAX(stream_id COLLATE BINARY) FROM events "
            "GROUP BY stream_id HAVING COUNT(DISTINCT stream_id COLLATE BINARY) > 1 LIMIT 1"
        ),
        "the stream ids {0} and {1}, which it compares as one",
    ),
    (
        "SELECT id COLLATE BINARY, COUNT(*) FROM events GROUP BY id COLLATE BINARY HAVING COUNT(*) > 1 LIMIT 1",
        "{1} rows with the event id {0}",
    ),
)


def _parts(sql: str) -> tuple[list[str], str]:
    """The column and constraint declarations of a CREATE TABLE statement (whitespace made single spaces), and
    what follows them (``WITHOUT ROWID``)."""
    start, end = sql.find("("), sql.rfind(")")
    if start < 0 or end < start:
        return [], " ".join(sql.split())
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in sql[start + 1 : end]:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(" ".join("".join(current).split()))
            current = []
        else:
            current.append(char)
    parts.append(" ".join("".join(current).split()))
    return [part for part in parts if part], " ".join(sql[end + 1 :].split())


def unique_indexes(conn: sqlite3.Connection) -> set[tuple[str, ...]]:
    """The columns, in order of name, of each unique index on the events table that covers every row and keys
    plain columns (a constraint's, or one made with CREATE UNIQUE INDEX)."""
    found = set()
    for _, name, unique, _, partial in conn.execute("PRAGMA index_list(events)").fetchall():
        if not unique or partial:
            continue
        keyed = [row for row in conn.execute("SELECT * FROM pragma_index_xinfo(?)", (name,)) if row[5]]
        if all(row[1] >= 0 for row in keyed):
            found.add(tuple(sorted(str(row[2]) for row in keyed)))
    return found


#: the unique keys of hexlog's events table besides its position, each with the words for a table without it
UNIQUE_KEYS = {
    ("stream_id", "stream_version"): "no UNIQUE (stream_id, stream_version)",
    ("id",): "id is not declared UNIQUE",
}


def table_differences(sql: str, unique: Collection[tuple[str, ...]] = ()) -> list[str]:
    """How an events table's statement (as ``sqlite_master`` records it) differs from hexlog's where readers
    depend on it (its keys, its collations, what follows its columns), a few words each; empty when it is hexlog's
    but for spacing. ``unique`` is the columns (in order of name) of each unique index on the table that covers every
    row (``UNIQUE_INDEXES``): one of them stands for a key the statement does not declare."""
    mine, _ = _parts(EVENTS_TABLE)
    theirs, after = _parts(sql)
    out = []
    if "position INTEGER PRIMARY KEY" not in theirs:
        out.append("position is not declared INTEGER PRIMARY KEY")
    declared = {
        ("stream_id", "stream_version"): "UNIQUE (stream_id, stream_version)" in theirs,
        ("id",): "id TEXT NOT NULL UNIQUE" in theirs,
    }
    out.extend(words for key, words in UNIQUE_KEYS.items() if not declared[key] and key not in unique)
    out.extend(f"'{part}' compares by its own collation" for part in theirs if "COLLATE" in part.upper())
    if after:
        out.append(f"'{after}' follows its columns")
    if ("stream_id", "stream_version") in unique and not declared[("stream_id", "stream_version")]:
        mine = [part for part in mine if part != "UNIQUE (stream_id, stream_version)"]
    if ("id",) in unique and not declared[("id",)]:
        mine = ["id TEXT NOT NULL" if part == "id TEXT NOT NULL UNIQUE" else part for part in mine]
    if not out and sorted(mine) != sorted(theirs):
        out.append("its columns are declared otherwise than hexlog declares them")
    return out


#: the columns of ``commands``, in the order ``command_row`` gives them
COMMAND_COLUMNS = "command_id, stream_id, digest, first_version, last_version, event_ids"

COLUMNS = "position, stream_id, stream_version, id, type, schema_version, source, time, data, prevhash, hash"

#: every table and trigger ``_SCHEMA`` makes: when all exist (and the file is in WAL mode),
#: opening writes nothing
SCHEMA_NAMES = frozenset({"events", "events_no_update", "events_no_delete", "commands", "projection_rows"})


def is_busy(err: sqlite3.OperationalError) -> bool:
    """Whether an SQLite error means another connection holds the lock."""
    text = str(err).lower()
    return "locked" in text or "busy" in text


def busy_message(what: str) -> str:
    return f"{what}: the database is busy: it stayed locked by another writer for the whole busy timeout; try again"


def write_problem(path: Path, err: sqlite3.Error) -> str:
    """A one-line reason why the database could not be written, for ``StoreWriteError``."""
    text = str(err)
    if "readonly" in text or "read-only" in text:
        return f"the database {path} is read-only (or its folder is): nothing was written"
    if "full" in text:
        return (
            f"cannot write the database {path}: the disk is full or a file-size limit was reached; nothing was written"
        )
    return f"cannot write the database {path}: {text}; nothing was written"


def tail_problem(rows: list[tuple[Any, ...]]) -> str | None:
    """What is wrong with a stream's last event, given its row and the row before it (newest first):
    its data, its hash, or its link; None when they hold."""
    try:
        last = recorded(rows[0]).envelope
    except CorruptLogError as err:
        return str(err)
    if last.computed_hash() != last.hash:
        return f"the event at version {last.streamversion} does not match its hash"
    before = str(rows[1][10]) if len(rows) > 1 else GENESIS
    if (last.streamversion == 1 and len(rows) > 1) or (len(rows) > 1 and int(rows[1][2]) != last.streamversion - 1):
        return f"the event before version {last.streamversion} is missing"
    if last.prevhash != before:
        return f"the event at version {last.streamversion} does not link to the one before it"
    return None


def checked_tail(stream_id: str, rows: list[tuple[Any, ...]]) -> tuple[int, str]:
    """A stream's version and last hash from its last two rows (newest first), once they are checked (see
    ``tail_problem``); ``CorruptLogError`` naming the audit when they do not hold."""
    if not rows:
        return 0, GENESIS
    problem = tail_problem(rows)
    if problem is not None:
        msg = f"the log of {stream_id} is damaged: {problem}; nothing was written (run '"
        raise CorruptLogError(msg).advising(AUDIT, "')")
    return int(rows[0][2]), str(rows[0][10])


def command_row(command_id: str, digest: str, result: AppendResult) -> tuple[Any, ...]:
    """The row of ``commands`` that records a command id's result, in the order of ``COMMAND_COLUMNS``."""
    return (
        command_id,
        result.stream_id,
        digest,
        result.first_version,
        result.last_version,
        json.dumps(list(result.event_ids)),
    )


def known_command(row: tuple[Any, ...] | None, command_id: str, digest: str) -> AppendResult | None:
    """The recorded result of a command id from its row in ``commands`` (stream, digest, first and last
    version, event ids), or None; ``IdempotencyConflictError`` when the id was used for another command."""
    if row is None:
        return None
    if row[1] != digest:
        msg = f"command id {command_id} was already used for a different command"
        raise IdempotencyConflictError(msg)
    return AppendResult(
        stream_id=row[0],
        first_version=row[2],
        last_version=row[3],
        event_ids=tuple(json.loads(row[4])),
        replayed=True,
    )


class CorruptRowError(CorruptLogError, ValueError):
    """A stored row the store cannot turn into an envelope; the message names the row.

    It is a ``ValueError`` as well, so a caller that treats unreadable data as a value error (the
    audit does, saying "the store could not read its events: ...") keeps doing so.
    """


#: maps every ASCII digit to "0", so that a run of digits is found by one ``find``
_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")
#: a run of digits that long may be an integer beyond 64 bits, which ``orjson`` reads as a float
_LONG_NUMBER = b"0" * 19


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, by ``orjson`` where that gives the very same value.

    ``orjson`` reads every JSON text that ``json`` reads the same way, except integers beyond 64 bits (it
    gives a float) and what it refuses (NaN, a lone surrogate, deep nesting): a text holding a run of 19
    digits or more, or one ``orjson`` refuses, is read by ``json``, which also words the errors.
    """
    try:
        raw = text.encode() if isinstance(text, str) else text
        if raw.translate(_DIGITS).find(_LONG_NUMBER) < 0:
            return orjson.loads(raw)
    except (ValueError, TypeError, AttributeError):
        pass
    return json.loads(text)


def row_data(row: tuple[Any, ...]) -> Any:
    """A row's data column decoded from JSON; ``CorruptRowError`` naming the row if it is not JSON.

    JSON of the wrong kind (a list, a number) is returned as it is: the envelope then carries it,
    and the audit reports that event's malformed envelope among its other findings.
    """
    return _decoded(row[8], lambda: _where(row))


def _decoded(data: Any, where: Callable[[], str]) -> Any:
    """A data column decoded from JSON; ``CorruptRowError`` naming the event ``where`` says if it is not JSON."""
    if not isinstance(data, str | bytes):
        msg = f"corrupt event at {where()}: its data column is {type(data).__name__}, not JSON text"
        raise CorruptRowError(msg)
    try:
        return loads(data)
    except ValueError as err:  # JSONDecodeError, or UnicodeDecodeError for a blob
        msg = f"corrupt event at {where()}: its data column is not JSON ({err})"
        raise CorruptRowError(msg) from err
    except RecursionError:
        msg = f"corrupt event at {where()}: its data column is not JSON hexlog reads (nested too deeply)"
        raise CorruptRowError(msg) from None


def _where(row: tuple[Any, ...]) -> str:
    return f"stream {row[1]} version {row[2]} (position {row[0]}), event {row[3]}"


def recorded(row: tuple[Any, ...]) -> Recorded:
    """The record of a row of ``COLUMNS``; its data is read (``stored_data``) and its envelope built when they are
    first asked for."""
    return of_row(row, stored_data)


def records(rows: Iterable[tuple[Any, ...]]) -> list[Recorded]:
    """``recorded`` of each of a page of rows of ``COLUMNS``."""
    return records_of(rows, stored_data)


def stored_data(row: tuple[Any, ...]) -> Any:
    """The data column of a row of ``COLUMNS`` decoded from JSON (``row_data``, without its calls where the column
    holds what the store writes); ``CorruptRowError`` naming the row if it is not JSON."""
    text = row[8]
    if text.__class__ is str:
        try:
            raw = text.encode()
            if raw.translate(_DIGITS).find(_LONG_NUMBER) < 0:
                return orjson_loads(raw)
        except ValueError:
            pass
    return row_data(row)


of_row = Recorded.of_row
orjson_loads = orjson.loads

#: the columns of a payload (``hexlog.events.store.Payload``), the data column last
PAYLOAD_COLUMNS = "stream_version, id, type, schema_version, data"
#: the columns of a row of the log as ``log_page`` reads it: its position and stream, then ``PAYLOAD_COLUMNS``
LOG_COLUMNS = f"position, stream_id, {PAYLOAD_COLUMNS}"


def payloads(stream_id: str, rows: Iterable[tuple[Any, ...]], named: Callable[[int], object]) -> Iterator[Payload]:
    """The payloads of rows of ``PAYLOAD_COLUMNS`` of the stream; at a row whose data is not JSON, ``named(its
    version)`` is called first (a store reads the whole row there, to raise naming it as every read of records
    does)."""
    for row in rows:
        yield named_payload(stream_id, row, named)


def named_payload(stream_id: str, row: tuple[Any, ...], named: Callable[[int], object]) -> Payload:
    """``payload`` of a row, ``named(its version)`` called first where its data is not JSON."""
    try:
        return payload(stream_id, row)
    except CorruptRowError:
        named(row[0])
        raise


def payload_page(stream_id: str, rows: Iterable[tuple[Any, ...]], named: Callable[[int], object]) -> list[Payload]:
    """``payloads`` of a page of rows as a list, made in one loop (a log's rows are read by the page): each data
    column read as ``payload`` reads it, the rows ``payload`` would have to name left to it."""
    page: list[Payload] = []
    append, digits, long_number, parse = page.append, _DIGITS, _LONG_NUMBER, orjson_loads
    for row in rows:
        text = row[4]
        if text.__class__ is str:
            try:
                raw = text.encode()
                if raw.translate(digits).find(long_number) < 0:
                    append((row[0], row[1], row[2], row[3], parse(raw)))
                    continue
            except ValueError:
                pass
        append(named_payload(stream_id, row, named))
    return page


def event_page(stream_id: str, rows: Sequence[tuple[Any, ...]], named: Callable[[int], object]) -> list[StoredEvent]:
    """The stored events of a page of rows of ``PAYLOAD_COLUMNS`` of the stream: each row's stream version, id and
    event, the event read straight from its JSON text where its type's text decoder reads it, else as
    ``decode_stored`` decodes the row's payload (a row whose data is not JSON is named by ``named(its version)``
    first, as ``payload_page`` names it)."""
    events = _events_of(rows, 0, lambda _: stream_id, lambda row: named(row[0]))
    return [(row[0], row[1], event) for row, event in zip(rows, events, strict=True)]


def log_page(rows: Sequence[tuple[Any, ...]], named: Callable[[int], object]) -> list[LoggedEvent]:
    """The logged events of a page of rows of ``LOG_COLUMNS``: each row's position, stream, stream version, id and
    event, the event read as ``event_page`` reads it (a row whose data is not JSON is named by ``named(its
    position)`` first)."""
    events = _events_of(rows, 2, lambda row: row[1], lambda row: named(row[0]))
    return [(row[0], row[1], row[2], row[3], event) for row, event in zip(rows, events, strict=True)]


def _events_of(
    rows: Iterable[tuple[Any, ...]],
    at: int,
    stream_of: Callable[[tuple[Any, ...]], str],
    named: Callable[[tuple[Any, ...]], object],
) -> list[Event]:
    """The event of each row whose ``PAYLOAD_COLUMNS`` begin at column ``at``: read straight from its JSON text where
    its type's text decoder reads it, else as ``decode_stored`` decodes the row's payload, ``named(the row)`` called
    first where its data is not JSON."""
    events: list[Event] = []
    append, slow = events.append, SLOW
    decoders: dict[tuple[str, int], TextDecoder | None] = {}
    for row in rows:
        key, text = (row[at + 2], row[at + 3]), row[at + 4]
        decoder = decoders[key] if key in decoders else decoders.setdefault(key, text_decoder_of(*key))
        event = decoder(text) if decoder is not None and text.__class__ is str else slow
        if event is slow:
            stream_id = stream_of(row)
            try:
                stored = payload(stream_id, row[at:])
            except CorruptRowError:
                named(row)
                raise
            event = decode_stored(stream_id, stored)
        append(event)
    return events


def payload(stream_id: str, row: tuple[Any, ...]) -> Payload:
    """The payload of a row of ``PAYLOAD_COLUMNS`` of the stream, its data decoded as ``recorded`` decodes it."""
    text = row[4]
    if text.__class__ is str:
        try:
            raw = text.encode()
            if raw.translate(_DIGITS).find(_LONG_NUMBER) < 0:
                return (row[0], row[1], row[2], row[3], orjson_loads(raw))
        except ValueError:
            pass
    data = _decoded(text, lambda: f"stream {stream_id} version {row[0]}, event {row[1]}")
    return (row[0], row[1], row[2], row[3], data)


def integrity_check(path: str | Path) -> str:
    """The result of ``PRAGMA integrity_check`` on the database file ("ok" when sound)."""
    path = Path(path)
    if not path.exists():
        msg = f"no database at {path}"
        raise FileNotFoundError(msg)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    return "\n".join(str(row[0]) for row in rows)
