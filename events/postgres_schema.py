"""The PostgreSQL schema of a hexlog database, and how a database URL is named and keyed.

A hexlog database on PostgreSQL is one schema: the first schema of the connection's ``search_path``
(``public`` unless the URL says otherwise, for example ``?options=-csearch_path%3Dhexlog``). Its
tables are those of the SQLite store, with the same columns and the same text in them: ``data`` is
the canonical JSON text of the event's data, so a log exports byte for byte the same from either.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import unquote

#: the tables, guard triggers and function ``PostgresStore`` makes (each statement is idempotent)
SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position BIGINT PRIMARY KEY,
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
CREATE OR REPLACE FUNCTION hexlog_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'hexlog events are append-only'; END $$;
CREATE OR REPLACE TRIGGER events_no_update BEFORE UPDATE ON events
FOR EACH ROW EXECUTE FUNCTION hexlog_append_only();
CREATE OR REPLACE TRIGGER events_no_delete BEFORE DELETE ON events
FOR EACH ROW EXECUTE FUNCTION hexlog_append_only();
CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
FOR EACH STATEMENT EXECUTE FUNCTION hexlog_append_only();
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
);
"""

#: the statements of ``SCHEMA``, one at a time
STATEMENTS = tuple(part.strip() for part in re.split(r";\n(?=CREATE)", SCHEMA.strip().removesuffix(";")))

#: the tables of a complete hexlog schema
TABLES = frozenset({"events", "commands", "projection_rows"})
#: the guard triggers on ``events`` of a complete hexlog schema
TRIGGERS = frozenset({"events_no_update", "events_no_delete", "events_no_truncate"})

# The queries find the current schema by its name as it is (a cast to ``regnamespace`` would fold "AdvUp"
# to advup) and read the catalog, not ``information_schema``, which hides what the role may not read: a
# table the role may not read is there all the same, and says so when read.
#: the hexlog tables of the current schema
TABLES_QUERY = (
    "SELECT relname FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
    "AND relkind IN ('r', 'p') AND relname = ANY(%s)"
)
#: the columns of the current schema's ``events`` table
COLUMNS_QUERY = (
    "SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
    "WHERE c.relname = 'events' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
    "AND a.attnum > 0 AND NOT a.attisdropped"
)
#: the guard triggers of the current schema's ``events`` table
TRIGGERS_QUERY = (
    "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
    "WHERE c.relname = 'events' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
    "AND NOT t.tgisinternal"
)

#: the keys of the current schema's events table: its primary key and each unique index over plain columns that
#: covers every row (a UNIQUE constraint's, or one made with CREATE UNIQUE INDEX), by its kind and its key columns
#: in order of name
KEYS_QUERY = (
    "SELECT CASE WHEN i.indisprimary THEN 'p' ELSE 'u' END, ARRAY(SELECT a.attname "
    "FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a "
    "ON a.attrelid = i.indrelid AND a.attnum = k.n WHERE k.o <= i.indnkeyatts ORDER BY a.attname) "
    "FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
    "WHERE c.relname = 'events' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
    "AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL"
)
#: the columns of the current schema's events table that compare by a collation that is not deterministic (two
#: texts as one)
LOOSE_QUERY = (
    "SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
    "JOIN pg_collation co ON co.oid = a.attcollation "
    "WHERE c.relname = 'events' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
    "AND a.attnum > 0 AND NOT a.attisdropped AND NOT co.collisdeterministic ORDER BY a.attnum"
)
#: the type of each column of the current schema's events table, as PostgreSQL writes it
TYPES_QUERY = (
    "SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
    "WHERE c.relname = 'events' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) "
    "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
)
#: the type of each column of the events table hexlog makes, as ``TYPES_QUERY`` reads it
TYPES = {
    "position": "bigint",
    "stream_id": "text",
    "stream_version": "integer",
    "id": "text",
    "type": "text",
    "schema_version": "integer",
    "source": "text",
    "time": "text",
    "data": "text",
    "prevhash": "text",
    "hash": "text",
}
#: the keys of the events table hexlog makes: the position, the event id, and the version within its stream
KEYS = frozenset({("p", ("position",)), ("u", ("id",)), ("u", ("stream_id", "stream_version"))})
#: what a table rebuilt by hand may hold that a reader paging through it skips or mixes up (or two events of one id,
#: which a lookup by id mixes up), each with its words
#: (the stream ids compared byte by byte, whatever collation the table gives them)
HAZARDS = (
    (
        "SELECT position, COUNT(*) FROM events GROUP BY position HAVING COUNT(*) > 1 LIMIT 1",
        "{1} rows at position {0}",
    ),
    (
        (
            'SELECT stream_id::text COLLATE "C", stream_version, COUNT(*) FROM events '
            'GROUP BY stream_id::text COLLATE "C", stream_version HAVING COUNT(*) > 1 LIMIT 1'
        ),
        "{2} rows at version {1} of {0}",
    ),
    (
        (
            'SELECT MIN(stream_id::text COLLATE "C"), MAX(stream_id::text COLLATE "C") FROM events '
            'GROUP BY stream_id HAVING COUNT(DISTINCT stream_id::text COLLATE "C") > 1 LIMIT 1'
        ),
        "the stream ids {0} and {1}, which it compares as one",
    ),
    (
        'SELECT id::text COLLATE "C", COUNT(*) FROM events GROUP BY id::text COLLATE "C" HAVING COUNT(*) > 1 LIMIT 1',
        "{1} rows with the event id {0}",
    ),
)


def table_differences(
    keys: set[tuple[str, tuple[str, ...]]], loose: list[str], types: dict[str, str] | None = None
) -> list[str]:
    """How an events table differs from hexlog's where readers depend on it (its keys, as ``KEYS_QUERY`` reads them,
    the columns ``LOOSE_QUERY`` finds comparing two texts as one, and each column's type as ``TYPES_QUERY`` reads it:
    a citext stream id compares without case), a few words each; empty when it is hexlog's in all these."""
    out = [
        f"'{name}' is {found}, not {TYPES[name]}"
        for name, found in (types or {}).items()
        if name in TYPES and found != TYPES[name]
    ]
    if ("p", ("position",)) not in keys:
        out.append("position is not its primary key")
    if ("u", ("stream_id", "stream_version")) not in keys:
        out.append("no UNIQUE (stream_id, stream_version)")
    if ("u", ("id",)) not in keys:
        out.append("id is not declared UNIQUE")
    out.extend(f"'{name}' compares by a collation that is not deterministic" for name in loose)
    return out


#: SQLSTATE classes and codes the store words itself
UNIQUE_VIOLATION = "23505"
LOCK_NOT_AVAILABLE = "55P03"
SERIALIZATION_FAILURE = "40001"
DEADLOCK_DETECTED = "40P01"
READ_ONLY_TRANSACTION = "25006"
INSUFFICIENT_PRIVILEGE = "42501"
DISK_FULL = "53100"


def is_database_url(text: str) -> bool:
    """Whether ``--db`` names a PostgreSQL database (``postgresql://...`` or ``postgres://...``)."""
    return re.match(r"^postgres(ql)?://", text) is not None


def shown_url(url: str) -> str:
    """The URL (or ``key=value`` connection string) as messages show it: its password (if any) left out."""
    url = re.sub(r"\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)", "password=...", url)
    return re.sub(r"^(postgres(?:ql)?://[^:@/]*):[^@/]*@", r"\1@", url)


def without_password(text: str, url: str) -> str:
    """``text`` (a driver's message about ``url``) with the URL's password left out, as written in the URL or
    decoded: the driver quotes a part of the URL it cannot read, and that part may be the password."""
    written = re.findall(r"^postgres(?:ql)?://[^:@/]*:([^@/]*)@", url)
    written += re.findall(r"[?&]password=([^&]*)", url)
    written += [m.strip("'") for m in re.findall(r"\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)", url)]
    forms = {form for raw in written if raw for form in (raw, unquote(raw))}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, "...")
    return text


def append_lock_key(schema: str) -> int:
    """The advisory lock that serialises the appends of one hexlog schema (a signed 64-bit number)."""
    digest = hashlib.sha256(f"hexlog.events:{schema}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


#: the longest identifier PostgreSQL keeps, in bytes (``NAMEDATALEN - 1``): a longer one is cut to it
MAX_IDENTIFIER_BYTES = 63


def first_schema(search_path: str) -> str | None:
    """The name of the first schema ``search_path`` names, as PostgreSQL reads it: a quoted name as written
    (``""`` standing for one double quote), any other folded to lower case, both cut to 63 bytes; None when the
    text names none or cannot be read (an unclosed quote, a space within an unquoted name)."""
    text = search_path.lstrip()
    if text.startswith('"'):
        name, at = [], 1
        while True:
            end = text.find('"', at)
            if end < 0:
                return None
            name.append(text[at:end])
            if text[end + 1 : end + 2] != '"':
                break
            name.append('"')
            at = end + 2
        rest = text[end + 1 :].lstrip()
        if rest and not rest.startswith(","):
            return None
        found = "".join(name)
    else:
        found = text.split(",", 1)[0].strip()
        if any(c.isspace() for c in found) or '"' in found:
            return None
        found = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in found)
    if not found:
        return None
    return found.encode()[:MAX_IDENTIFIER_BYTES].decode(errors="ignore")
