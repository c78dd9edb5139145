"""The audit's fast path over plain sessions and rolls gives exactly what the full audit gives, sound or tampered.

A SQLite store is audited from its rows (``hexlog.replay.plain_audit`` proving plain streams sound);
the same store seen only through the ``EventStore`` methods is audited in full, stream by stream. The
two reports must be equal (or both audits refuse the store with the same error) for clean logs of
every kind of plain session, for the golden logs, and for logs tampered with in every way tried here,
including a forger who rewrites a roll's data in another JSON spelling and hashes the new text.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import shutil
import sqlite3
from json.encoder import encode_basestring
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hexlog.events import releases
from hexlog.events.chain import canonical_json, seal
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import CorruptLogError
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.sqlite import SQLiteStore
from hexlog.events.sqlite_schema import COLUMNS
from hexlog.events.streams import stream_for
from hexlog.machine import dice as hexdice
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import SessionDice
from hexlog.replay import plain_audit
from hexlog.replay.audit import AuditReport, audit_store
from hexlog.replay.chain_audit import Finding, Item, Positions
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.receipts import Receipt
from hexlog.replay.verdict import Verdict
from hexlog.service.benchmark import new_events, write_log

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from hexlog.events.base import Event
    from hexlog.events.store import EventStore, NewEvent

GOLDEN = sorted((Path(__file__).parent / "golden" / "logs").glob("*.jsonl"))


class _Methods:
    """A store seen only through the ``EventStore`` methods the whole-store audit reads by (no rows)."""

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    def read_all(self, from_position: int = 1, limit: int | None = None) -> Iterator[Any]:
        return self._store.read_all(from_position, limit)

    def iter_stream(self, stream_id: str, from_version: int = 1) -> Iterator[Any]:
        return self._store.iter_stream(stream_id, from_version)


def _both(path: Path, expect: tuple[Receipt, ...] = ()) -> tuple[Any, Any]:
    """The audit from the rows and the full audit of the same file: each a report, or the error it raised. The
    audit from the rows shared by two processes (each its share of the streams) must give what one gives."""
    out = []
    for fast, jobs in ((True, 1), (True, 2), (False, 1)):
        store = SQLiteStore(path, create=False)
        try:
            target = store if fast else cast("EventStore", _Methods(store))
            out.append(audit_store(target, expect=expect, jobs=jobs))
        except CorruptLogError as err:
            out.append(f"CorruptLogError: {err}")
        finally:
            store.close()
    assert out[1] == out[0]
    return out[0], out[2]


def _same(path: Path, expect: tuple[Receipt, ...] = ()) -> Any:
    fast, full = _both(path, expect)
    assert fast == full
    if isinstance(fast, AuditReport):
        assert fast.text() == full.text()
    return fast


def _same_but_the_table(path: Path) -> AuditReport:
    """``_same`` for an events table rebuilt by hand: the audit of the store says first that its table is not as
    hexlog made it (which the full audit through the store's read methods alone cannot see), then the same."""
    fast, full = _both(path)
    assert isinstance(fast, AuditReport)
    assert isinstance(full, AuditReport)
    assert fast.findings[0].check == "events table"
    assert "not as hexlog made it" in fast.findings[0].reason
    assert attrs.evolve(fast, findings=fast.findings[1:]) == full
    return full


def _session(  # noqa: PLR0913 - one knob per kind of plain session
    number: int,
    rolls: int,
    *,
    scheme: str = hexdice.V2,
    seed: str = "",
    secret_every: int = 0,
    end: str = "close",
    purpose: str = "attack",
    supplied: bool = False,
) -> list[Event]:
    """One plain session: opened, an optional client seed, ``rolls`` rolls (every ``secret_every``-th a secret
    one), then closed, abandoned or left open."""
    secret = hashlib.sha256(f"plain {number}".encode()).digest()
    session = f"s{number}"
    dice = SessionDice.of(scheme, secret, seed)
    events: list[Event] = [
        SessionOpened(session=session, commitment=hexdice.commitment(secret), scheme=scheme, supplied=supplied)
    ]
    if seed:
        events.append(ClientSeedSet(session=session, client_seed=seed))
    nonces = {"public": 0, "referee": 0}
    rng = random.Random(number)  # noqa: S311 - dice shapes for a test, not a secret
    for k in range(rolls):
        visibility = "referee" if secret_every and k % secret_every == 0 else "public"
        lane = hexdice.lane_of(scheme, visibility)
        count = lane or "public"
        nonce = nonces[count] if scheme == hexdice.V2 else sum(nonces.values())
        nonces[count] += 1
        sides = tuple(rng.choice((4, 6, 8, 20, 100)) for _ in range(rng.randint(1, 3)))
        faces = dice.faces(nonce, sides, lane)
        modifier = rng.randint(-2, 3)
        events.append(
            DiceRolled(
                session=session,
                nonce=nonce,
                purpose=purpose,
                sides=sides,
                faces=faces,
                modifier=modifier,
                total=sum(faces) + modifier,
                visibility=visibility,  # type: ignore[arg-type]
                made_for="Ann" if k % 3 == 0 else "",
            )
        )
    if end == "close":
        events.append(SessionClosed(session=session, secret=secret.hex()))
    elif end == "abandon":
        events.append(SessionAbandoned(session=session, reason="lost"))
    return events


def _as_written(campaign: str, events: list[Event], first: int) -> list[NewEvent]:
    """The events as the store takes them; a hexlog-dice-v1 session opened as the first release wrote it, at
    ``session.opened`` schema version 1 (no ``supplied``): every later release opens sessions under v2; and a session
    of release 0 as the releases before ``session.opened`` version 3 wrote it (no ``release``)."""
    return [_opened_as_written(new) for new in new_events(campaign, events, first)]


def _opened_as_written(new: NewEvent) -> NewEvent:
    if new.type != SessionOpened.cloud_type():
        return new
    if new.data["scheme"] == hexdice.V1:
        return new._replace(
            schemaversion=1, data={k: v for k, v in new.data.items() if k not in {"supplied", "release"}}
        )
    if new.data["release"] == 0:
        return new._replace(schemaversion=2, data={k: v for k, v in new.data.items() if k != "release"})
    return new


def _write(path: Path, streams: dict[str, list[Event]], *, interleave: bool = False) -> Path:
    store = SQLiteStore(path)
    if interleave:
        pending = {campaign: list(events) for campaign, events in streams.items()}
        while any(pending.values()):
            for campaign, events in pending.items():
                if events:
                    version = store.stream_version(stream_for(campaign))
                    store.append(
                        stream_for(campaign), _as_written(campaign, events[:3], version), expected_version=version
                    )
                    del events[:3]
    else:
        for campaign, events in streams.items():
            store.append(stream_for(campaign), _as_written(campaign, events, 0), expected_version=0)
    store.close()
    return path


#: plain logs the kit could write (a v2 roll of a reserved purpose that no decision names is a finding)
PLAIN: dict[str, Callable[[], dict[str, list[Event]]]] = {
    "v2 without seed": lambda: {"a": _session(1, 20)},
    "v2 with seed and secret rolls": lambda: {"a": _session(1, 20, seed="table 7", secret_every=3)},
    "v1 with seed and secret rolls": lambda: {"a": _session(1, 20, scheme=hexdice.V1, seed="x", secret_every=4)},
    "supplied secret": lambda: {"a": _session(1, 5, seed="s", supplied=True)},
    "several sessions": lambda: {"a": _session(1, 5, seed="s") + _session(2, 7) + _session(3, 0)},
    "open without rolls": lambda: {"a": _session(1, 5, seed="s") + _session(2, 0, end="open")},
    "open with rolls": lambda: {"a": _session(1, 5, seed="s") + _session(2, 4, end="open")},
    "abandoned": lambda: {"a": _session(1, 3, seed="s", end="abandon") + _session(2, 2, seed="s")},
    "a client seed used again": lambda: {
        "a": _session(1, 3, seed="s") + _session(2, 2, seed="t") + _session(3, 2, seed="s")
    },
    "a reserved purpose": lambda: {"a": _session(1, 3, purpose="encounter.surprise.party")},
    "a v1 reserved purpose": lambda: {"a": _session(1, 3, scheme=hexdice.V1, purpose="encounter.surprise.party")},
    "many streams": lambda: {f"c{i}": _session(i, 10, seed="s" if i % 2 else "") for i in range(5)},
    "a stream that is not a campaign's": lambda: {"": _session(1, 3)},
    "a session of an earlier release": lambda: {"a": _opened_as(_session(1, 3, seed="s"), release=0)},
    "an earlier release's session, then today's": lambda: {
        "a": _opened_as(_session(1, 3, seed="s"), release=0) + _session(2, 3, seed="t")
    },
}


@pytest.mark.parametrize("interleave", [False, True], ids=["apart", "interleaved"])
@pytest.mark.parametrize("name", sorted(PLAIN))
def test_a_plain_log_audits_the_same_both_ways(name: str, *, interleave: bool, tmp_path: Path) -> None:
    report = _same(_write(tmp_path / "plain.db", PLAIN[name](), interleave=interleave))
    assert isinstance(report, AuditReport)
    assert bool(report.findings) == (name == "a reserved purpose")


def test_the_benchmark_log_is_proved_sound_from_its_rows_alone(tmp_path: Path) -> None:
    """Every stream of the benchmark's log passes the fast path, and the audit says what the full audit says."""
    store = SQLiteStore(tmp_path / "bench.db")
    write_log(store, 1000, 100, 100)
    rules = plain_audit.PlainRules(REGISTRY)
    streams: dict[str, plain_audit.PlainStream] = {}
    for page in store.read_event_rows():
        for row in page:
            streams.setdefault(row[1], plain_audit.PlainStream(row[1], rules)).feed(row)
    store.close()
    results = [checks.result() for checks in streams.values()]
    assert all(result is not None and result.verified == 98 for result in results)  # 98 rolls each
    report = _same(tmp_path / "bench.db")
    assert report.rolls_verified == 980  # ten streams


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_a_golden_log_audits_the_same_both_ways(path: Path, tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "golden.db")
    import_envelopes(store, read_export(path.read_bytes().split(b"\n")))
    plain = _session(9, 4, seed="s")
    store.append(stream_for("plain"), new_events("plain", plain, 0), expected_version=0)
    store.close()
    report = _same(tmp_path / "golden.db")
    assert isinstance(report, AuditReport)
    assert report.findings == ()


def test_an_audit_that_meets_more_kinds_of_roll_than_it_remembers_audits_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plain_audit, "_READ_LIMIT", 2)
    report = _same(_write(tmp_path / "plain.db", PLAIN["many streams"]()))
    assert report.findings == ()
    assert report.rolls_verified == 50


def test_receipts_are_matched_the_same_both_ways(tmp_path: Path) -> None:
    path = _write(tmp_path / "plain.db", {"a": _session(1, 5), "b": _session(2, 5)})
    with sqlite3.connect(path) as conn:
        (hash_,) = conn.execute(
            "SELECT hash FROM events WHERE stream_id = 'campaign-a' AND stream_version = 3"
        ).fetchone()
    held = _same(path, (Receipt("a", 3, hash_[:16]),))
    assert held.receipts == (f"a@3:{hash_[:16]}",)
    failed = _same(path, (Receipt("a", 3, "0" * 16), Receipt("b", 99, "0" * 16)))
    assert [f.check for f in failed.findings] == ["receipt", "receipt"]


def _as(session: str, events: list[Event]) -> list[Event]:
    """The same events, of a session of another id."""
    return [attrs.evolve(event, session=session) for event in events]


def _opened_as(events: list[Event], **changes: Any) -> list[Event]:
    """A session's events, its opening changed."""
    return [attrs.evolve(events[0], **changes), *events[1:]]


def _late_seed_events() -> list[Event]:
    events = _session(1, 3, seed="s")  # every face derived with the seed, which is recorded after the first roll
    return [events[0], events[2], events[1], *events[3:]]


#: sessions the kit would not record, each roll of which re-derives (with the seed, for the late one): the session
#: checks find them (and the audit reads the late seed as not set, so that no roll of it re-derives)
UNLIKE_THE_KIT: dict[str, Callable[[], list[Event]]] = {
    "a session id reused": lambda: _session(1, 3, seed="s") + _as("s1", _session(2, 3, seed="s")),
    "a secret reused": lambda: _session(1, 3, seed="s") + _as("s2", _session(1, 3, seed="s")),
    "a seed after the first roll": _late_seed_events,
    "a session opened while another is open": lambda: _session(1, 0, end="open") + _session(2, 3, seed="s"),
    "an unknown scheme": lambda: _opened_as(_session(1, 3, seed="s"), scheme="hexlog-dice-v9"),
    "a commitment in capitals, left open": lambda: _opened_as(_session(1, 0, end="open"), commitment="AB" * 32),
    "a v2 seed that is not printable": lambda: _session(1, 3, seed="tab\there"),
    "a release after the latest": lambda: _opened_as(_session(1, 3, seed="s"), release=releases.CURRENT + 1),
    "a release before its own version's": lambda: _opened_as(
        _session(1, 3, seed="s"), release=releases.raised_at("hexlog.session.opened", 3) - 1
    ),
    "a release before an earlier session's": lambda: (
        _session(1, 3, seed="s") + _opened_as(_session(2, 3, seed="t"), release=releases.CURRENT - 1)
    ),
    "today's session, then an earlier release's": lambda: (
        _session(1, 3, seed="s") + _opened_as(_session(2, 3, seed="t"), release=0)
    ),
}
#: the check that finds each, where it is not the session check
FOUND_BY = {
    "a secret reused": "commitment",
    "a commitment in capitals, left open": "commitment",
    "a release after the latest": "schema",
    "a release before its own version's": "schema",
    "a release before an earlier session's": "schema",
    "today's session, then an earlier release's": "schema",
}


@pytest.mark.parametrize("name", sorted(UNLIKE_THE_KIT))
def test_a_session_unlike_the_kit_s_audits_the_same_both_ways(name: str, tmp_path: Path) -> None:
    report = _same(_write(tmp_path / "unlike.db", {"a": UNLIKE_THE_KIT[name]()}))
    assert FOUND_BY.get(name, "session") in {f.check for f in report.findings}


# -- tampering -----------------------------------------------------------------------------------------------


def _envelope_text(row: dict[str, Any]) -> str:
    """The text a forger hashes: the envelope written around the stored data text as it stands."""
    return (
        f'{{"data":{row["data"]},"datacontenttype":"application/json","id":{encode_basestring(row["id"])},'
        f'"prevhash":"{row["prevhash"]}","schemaversion":{row["schema_version"]},'
        f'"source":{encode_basestring(row["source"])},"specversion":"1.0","streamversion":{row["stream_version"]},'
        f'"subject":{encode_basestring(row["stream_id"])},"time":{encode_basestring(row["time"])},'
        f'"type":{encode_basestring(row["type"])}}}'
    )


def _rehash(conn: sqlite3.Connection, stream: str) -> None:
    """Relink a stream after an edit, hashing each row's stored text as it stands: a forger's whole chain."""
    conn.row_factory = sqlite3.Row
    prev = "0" * 64
    for row in conn.execute("SELECT * FROM events WHERE stream_id = ? ORDER BY stream_version", (stream,)).fetchall():
        fields = {**dict(row), "prevhash": prev}
        prev = hashlib.sha256(_envelope_text(fields).encode()).hexdigest()
        conn.execute(
            "UPDATE events SET prevhash = ?, hash = ? WHERE position = ?", (fields["prevhash"], prev, row["position"])
        )
    conn.row_factory = None


def _reseal(conn: sqlite3.Connection, stream: str) -> None:
    """Relink a stream after an edit with hashes of the canonical form: a forger's whole chain, done properly."""
    conn.row_factory = sqlite3.Row
    prev = "0" * 64
    for row in conn.execute("SELECT * FROM events WHERE stream_id = ? ORDER BY stream_version", (stream,)).fetchall():
        env = seal(
            id=row["id"],
            source=row["source"],
            type=row["type"],
            subject=row["stream_id"],
            time=row["time"],
            data=json.loads(row["data"]),
            streamversion=row["stream_version"],
            schemaversion=row["schema_version"],
            prevhash=prev,
        )
        prev = env.hash
        conn.execute(
            "UPDATE events SET prevhash = ?, hash = ? WHERE position = ?", (env.prevhash, env.hash, row["position"])
        )
    conn.row_factory = None


def _data(conn: sqlite3.Connection, position: int) -> dict[str, Any]:
    (text,) = conn.execute("SELECT data FROM events WHERE position = ?", (position,)).fetchone()
    return cast("dict[str, Any]", json.loads(text))


def _set(conn: sqlite3.Connection, position: int, column: str, value: Any) -> None:
    conn.execute(f"UPDATE events SET {column} = ? WHERE position = ?", (value, position))  # noqa: S608 - the test's own columns


def _respell(
    position: int, spell: Callable[[dict[str, Any]], str], *, relink: bool = True
) -> Callable[[sqlite3.Connection], None]:
    """Write a row's data in another JSON spelling (the same values, or not), and relink as a forger would."""

    def edit(conn: sqlite3.Connection) -> None:
        _set(conn, position, "data", spell(_data(conn, position)))
        if relink:
            _rehash(conn, "campaign-a")

    return edit


def _change(position: int, **fields: Any) -> Callable[[sqlite3.Connection], None]:
    """Change data fields of a row and reseal the chain properly (only the checks beyond the chain can catch it)."""

    def edit(conn: sqlite3.Connection) -> None:
        _set(conn, position, "data", canonical_json({**_data(conn, position), **fields}))
        _reseal(conn, "campaign-a")

    return edit


def _older_roll(position: int) -> Callable[[sqlite3.Connection], None]:
    """Re-label a roll after others of version 4 as version 3 (without ``low_is_good``), and reseal the chain."""

    def edit(conn: sqlite3.Connection) -> None:
        data = {key: value for key, value in _data(conn, position).items() if key != "low_is_good"}
        _set(conn, position, "data", canonical_json(data))
        _set(conn, position, "schema_version", 3)
        _reseal(conn, "campaign-a")

    return edit


def _other_faces(data: dict[str, Any]) -> dict[str, Any]:
    """The roll with its first die showing the next face round, and its total to match."""
    faces = [data["faces"][0] % data["sides"][0] + 1, *data["faces"][1:]]
    return {"faces": faces, "total": sum(faces) + data["modifier"]}


def _sql(statement: str, *args: Any) -> Callable[[sqlite3.Connection], None]:
    def edit(conn: sqlite3.Connection) -> None:
        conn.execute(statement, args)

    return edit


def _late_seed(conn: sqlite3.Connection) -> None:
    seed = canonical_json({"session": "s1", "client_seed": "late"})
    conn.execute(
        "UPDATE events SET type = 'hexlog.session.client_seed_set', schema_version = 1, data = ? WHERE position = 5",
        (seed,),
    )
    _reseal(conn, "campaign-a")


def _swap_data(conn: sqlite3.Connection) -> None:
    first, second = canonical_json(_data(conn, 4)), canonical_json(_data(conn, 5))
    _set(conn, 4, "data", second)
    _set(conn, 5, "data", first)


def _swap_positions(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE events SET position = -1 WHERE position = 4")
    conn.execute("UPDATE events SET position = 4 WHERE position = 6")
    conn.execute("UPDATE events SET position = 6 WHERE position = -1")


def _withhold(position: int, *, renumber: bool) -> Callable[[sqlite3.Connection], None]:
    """Delete a row of stream a (a roll the referee did not like), renumber the versions after it or not, and
    reseal the chain: the complete re-roll is then caught only by the nonce it skips."""

    def edit(conn: sqlite3.Connection) -> None:
        (version,) = conn.execute("SELECT stream_version FROM events WHERE position = ?", (position,)).fetchone()
        conn.execute("DELETE FROM events WHERE position = ?", (position,))
        if renumber:
            later = "stream_id = 'campaign-a' AND stream_version"
            conn.execute(f"UPDATE events SET stream_version = 1 - stream_version WHERE {later} > ?", (version,))  # noqa: S608 - the test's own text
            conn.execute(f"UPDATE events SET stream_version = -stream_version WHERE {later} < 0")  # noqa: S608 - the test's own text
        _reseal(conn, "campaign-a")

    return edit


def _skip_version(conn: sqlite3.Connection) -> None:
    """Number the events of stream a from version 30 on one higher, and reseal the chain."""
    later = "stream_id = 'campaign-a' AND stream_version"
    conn.execute(f"UPDATE events SET stream_version = -1 - stream_version WHERE {later} >= 30")  # noqa: S608 - the test's own text
    conn.execute(f"UPDATE events SET stream_version = -stream_version WHERE {later} < 0")  # noqa: S608 - the test's own text
    _reseal(conn, "campaign-a")


def _relinked_alone(conn: sqlite3.Connection) -> None:
    """Link a roll to another hash and forge its own hash to match, leaving the next event linked to the old one."""
    _set(conn, ROLL, "prevhash", "1" * 64)
    conn.row_factory = sqlite3.Row
    row = conn.execute("SELECT * FROM events WHERE position = ?", (ROLL,)).fetchone()
    conn.row_factory = None
    _set(conn, ROLL, "hash", hashlib.sha256(_envelope_text(dict(row)).encode()).hexdigest())


def _id_in_capitals(conn: sqlite3.Connection) -> None:
    """Give the roll at ``ROLL`` the id of the one before it in capitals (the same UUID, which a UNIQUE id column
    that compares case does not refuse), and reseal the chain."""
    (given,) = conn.execute("SELECT id FROM events WHERE position = ?", (ROLL - 1,)).fetchone()
    _set(conn, ROLL, "id", given.upper())
    _reseal(conn, "campaign-a")


#: the tamperings that leave every value as the full audit reads it
SAME_VALUES = {"spaces, hash unchanged", "the data a blob"}
#: the tamperings that write a value of another JSON type than its field's (a nonce 0.0 or true), which no event
#: decodes: both ways name it
WRONG_TYPES = {"a float, hash forged": "found 0.0 @ $.nonce", "a true nonce, hash forged": "found true @ $.nonce"}
ROLLED = DiceRolled.cloud_type()
ROLL = 4  # a roll of session s1 in stream a (position 1 opens, 2 sets the seed)
TAMPERS: dict[str, Callable[[sqlite3.Connection], None]] = {
    "spaces, hash unchanged": _respell(ROLL, json.dumps, relink=False),
    "spaces, hash forged": _respell(ROLL, json.dumps),
    "keys unsorted, hash forged": _respell(
        ROLL, lambda d: json.dumps(dict(reversed(d.items())), separators=(",", ":"))
    ),
    "a key twice, hash forged": _respell(ROLL, lambda d: '{"faces":[1,1,1,1,1,1],' + canonical_json(d)[1:]),
    "an escaped letter, hash forged": _respell(ROLL, lambda d: canonical_json(d).replace('"public"', '"\\u0070ublic"')),
    "minus zero, hash forged": _respell(
        ROLL,
        lambda d: canonical_json({**d, "modifier": 0, "total": sum(d["faces"])}).replace(
            '"modifier":0', '"modifier":-0'
        ),
    ),
    "a float, hash forged": _respell(
        ROLL, lambda d: canonical_json(d).replace(f'"nonce":{d["nonce"]}', f'"nonce":{d["nonce"]}.0')
    ),
    "a true nonce, hash forged": _respell(5, lambda d: canonical_json(d).replace('"nonce":1,', '"nonce":true,')),
    "another face, chain resealed": _change(ROLL, faces=[1] * 8),
    "a face off the die, chain resealed": lambda conn: _change(ROLL, faces=[101] * len(_data(conn, ROLL)["sides"]))(
        conn
    ),
    "another face that fits, chain resealed": lambda conn: _change(ROLL, **_other_faces(_data(conn, ROLL)))(conn),
    "a die of one side, chain resealed": _change(ROLL, sides=[1], faces=[1], total=1, modifier=0),
    "a die of 1001 sides, chain resealed": _change(ROLL, sides=[1001], faces=[1], total=1, modifier=0),
    "1001 dice, chain resealed": _change(ROLL, sides=[2] * 1001, faces=[1] * 1001, total=1001, modifier=0),
    "a wrong total, chain resealed": _change(ROLL, total=999),
    "a nonce skipped, chain resealed": _change(ROLL, nonce=7),
    "a huge modifier, chain resealed": _change(ROLL, modifier=2**60, total=2**60),
    "an unknown visibility, chain resealed": _change(ROLL, visibility="everyone"),
    "a drop without notation, chain resealed": _change(ROLL, dropped=[0]),
    "another session, chain resealed": _change(ROLL, session="s9"),
    "another secret, chain resealed": _change(23, secret="ab" * 32),
    "a seed after a roll, chain resealed": _late_seed,
    "the commitment reused, chain resealed": lambda conn: _change(35, commitment=_data(conn, 1)["commitment"])(conn),
    "a roll withheld, chain resealed": _withhold(10, renumber=False),
    "a close of another session, chain resealed": _change(23, session="s9"),
    "a secret revealed in capitals, chain resealed": lambda conn: _change(23, secret=_data(conn, 23)["secret"].upper())(
        conn
    ),
    "an id repeated in capitals, chain resealed": _id_in_capitals,
    "a prevhash changed, its own hash forged": _relinked_alone,
    "a version skipped, chain resealed": _skip_version,
    "a roll withheld, versions renumbered and chain resealed": _withhold(10, renumber=True),
    "a seed withheld, versions renumbered and chain resealed": _withhold(2, renumber=True),
    "the seed emptied, chain resealed": _change(2, client_seed=""),
    "a non-printable seed, chain resealed": _change(2, client_seed="tab\there"),
    "supplied as 1, chain resealed": _change(1, supplied=1),
    "an extra key, chain resealed": _change(1, extra=1),
    "the data a list": _sql("UPDATE events SET data = '[1]' WHERE position = ?", ROLL),
    "the data not JSON": _sql("UPDATE events SET data = 'not json' WHERE position = ?", ROLL),
    "the data a blob": _sql("UPDATE events SET data = CAST(data AS BLOB) WHERE position = ?", ROLL),
    "a version as text": _sql("UPDATE events SET stream_version = 'x' WHERE position = ?", ROLL),
    "a version as a float": _sql("UPDATE events SET stream_version = 4.5 WHERE position = ?", ROLL),
    "a roll relabelled version 3 after version 4, chain resealed": _older_roll(ROLL + 1),
    "a schema version older": _sql("UPDATE events SET schema_version = 2 WHERE position = ?", ROLL),
    "an id as a number": _sql("UPDATE events SET id = 5 WHERE position = ?", ROLL),
    "a time as a number": _sql("UPDATE events SET time = 5 WHERE position = ?", ROLL),
    "an id as a blob": _sql("UPDATE events SET id = CAST(id AS BLOB) WHERE position = ?", ROLL),
    "a time as a blob": _sql("UPDATE events SET time = CAST(time AS BLOB) WHERE position = ?", ROLL),
    "another source": _sql("UPDATE events SET source = 'hexlog:b' WHERE position = ?", ROLL),
    "a source as a number": _sql("UPDATE events SET source = 7 WHERE position = ?", ROLL),
    "the type unprefixed": _sql("UPDATE events SET type = 'dice.rolled' WHERE position = ?", ROLL),
    "a prevhash changed": _sql("UPDATE events SET prevhash = ? WHERE position = ?", "1" * 64, ROLL),
    "a hash changed": _sql("UPDATE events SET hash = ? WHERE position = ?", "1" * 64, ROLL),
    "a row deleted": _sql("DELETE FROM events WHERE position = ?", ROLL),
    "the last row deleted": _sql("DELETE FROM events WHERE position = (SELECT MAX(position) FROM events)"),
    "a close deleted": _sql("DELETE FROM events WHERE position = 23"),
    "two positions swapped": _swap_positions,
    "a position gap": _sql("UPDATE events SET position = 1000 WHERE position = 30"),
    "a row moved to another stream": _sql("UPDATE events SET stream_id = 'campaign-c' WHERE position = ?", ROLL),
    "a stream id as a number": _sql("UPDATE events SET stream_id = 5 WHERE position = ?", ROLL),
    "two rows' data swapped": _swap_data,
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Stream a: a session with a seed and 20 rolls (positions 1 to 23), a second session; stream b interleaved."""
    path = tmp_path_factory.mktemp("plain") / "pristine.db"
    store = SQLiteStore(path)
    a = _session(1, 20, seed="table 7", secret_every=5) + _session(2, 6, seed="x")
    store.append(stream_for("a"), new_events("a", a[:23], 0), expected_version=0)
    b = _session(3, 8, seed="b")
    store.append(stream_for("b"), new_events("b", b, 0), expected_version=0)
    store.append(stream_for("a"), new_events("a", a[23:], 23), expected_version=23)
    store.close()
    return path


def _tampered(pristine: Path, tmp_path: Path, edit: Callable[[sqlite3.Connection], None]) -> Path:
    path = tmp_path / "tampered.db"
    shutil.copy(pristine, path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER events_no_update")
    conn.execute("DROP TRIGGER events_no_delete")
    edit(conn)
    conn.close()
    return path


def _keyless(conn: sqlite3.Connection, *, then: str = "", columns: str = "") -> None:
    """Rebuild the events table without its keys (a referee owns the file), then run ``then``."""
    conn.execute(f"CREATE TABLE keyless ({columns or COLUMNS.replace('position', 'position INTEGER')})")
    conn.execute("INSERT INTO keyless SELECT * FROM events")
    conn.execute("DROP TABLE events")
    conn.execute("ALTER TABLE keyless RENAME TO events")
    conn.executescript(then)


@pytest.mark.parametrize("rebuilt", [False, True])
def test_the_rows_are_read_by_the_fast_path_only_from_the_events_table_hexlog_makes(
    pristine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, rebuilt: bool
) -> None:
    path = _tampered(pristine, tmp_path, _keyless if rebuilt else lambda _conn: None)
    store = SQLiteStore(path, create=False)
    assert store.events_as_made() is not rebuilt
    fed: list[int] = []
    feed = plain_audit.PlainStream.feed
    monkeypatch.setattr(plain_audit.PlainStream, "feed", lambda self, row: fed.append(row[0]) or feed(self, row))
    assert audit_store(store).verdict is Verdict.VERIFIED
    store.close()
    assert len(fed) == (0 if rebuilt else 43)


def test_a_position_repeated_within_a_stream_audits_the_same_both_ways(pristine: Path, tmp_path: Path) -> None:
    """Two rows of one stream at one position: the full audit finds one of them out of order as well."""
    report = _same_but_the_table(_tampered(pristine, tmp_path, lambda conn: _keyless(conn, then=_REPEAT)))
    assert [f.check for f in report.findings] == ["order", "positions", "positions"]


_REPEAT = "UPDATE events SET position = 4 WHERE position = 5"


def test_a_stream_whose_positions_do_not_rise_is_left_to_the_full_audit(pristine: Path) -> None:
    """Fed a row at the position of the row before it, the fast path gives up (the full audit finds it out of
    order), whatever store the rows came from."""
    store = SQLiteStore(pristine, create=False)
    rows = [row for page in store.read_event_rows() for row in page if row[1] == "campaign-a"]
    store.close()
    rules = plain_audit.PlainRules(REGISTRY)
    for repeat in (False, True):
        checks = plain_audit.PlainStream("campaign-a", rules)
        for row in rows:
            checks.feed((row[0] - 1, *row[1:]) if repeat and row[0] == 5 else row)
        assert (checks.result() is None) == repeat


def test_a_version_forked_at_a_page_boundary_audits_the_same_both_ways(
    pristine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second event at a version, at the position of the last row of a page: a reader that pages by position
    never sees it, but a stream read by version does, and the full audit finds the fork."""
    monkeypatch.setattr("hexlog.events.sqlite.PAGE_SIZE", 10)
    fork = (
        "INSERT INTO events SELECT position, stream_id, stream_version, id || '-forked', type, schema_version, "
        "source, time, data, prevhash, hash FROM events WHERE position = 10"
    )
    report = _same_but_the_table(_tampered(pristine, tmp_path, lambda conn: _keyless(conn, then=fork)))
    assert report.verdict is Verdict.FAILED


def test_streams_whose_ids_compare_without_case_audit_the_same_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table rebuilt to compare stream ids without case reads stream a's rows with A's when it reads either by
    id, version by version: a reader paging by version then skips rows of the stream it reads."""
    monkeypatch.setattr("hexlog.events.sql_pages.STREAM_PAGE_SIZE", 3)
    path = _write(tmp_path / "twins.db", {"a": _session(1, 6, seed="s"), "A": _session(2, 6, seed="s")})
    columns = COLUMNS.replace("position", "position INTEGER PRIMARY KEY").replace(
        "stream_id", "stream_id TEXT COLLATE NOCASE"
    )
    report = _same_but_the_table(_tampered(path, tmp_path, lambda conn: _keyless(conn, columns=columns)))
    assert report.verdict is Verdict.FAILED  # such a table never passes: what it gives for stream A is not A's log


def test_the_pristine_log_is_sound(pristine: Path, tmp_path: Path) -> None:
    report = _same(_tampered(pristine, tmp_path, lambda _conn: None))
    assert report.verdict is Verdict.VERIFIED


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_a_tampered_plain_log_fails_the_same_both_ways(name: str, pristine: Path, tmp_path: Path) -> None:
    report = _same(_tampered(pristine, tmp_path, TAMPERS[name]))
    if name in SAME_VALUES:  # the hash covers the data's values, whichever JSON spells them
        assert report.verdict is Verdict.VERIFIED
    elif name in WRONG_TYPES:
        assert report.verdict is Verdict.FAILED
        assert report.findings[0].check == "decode"
        assert f"expected an integer, {WRONG_TYPES[name]}" in report.findings[0].reason
    else:
        assert not isinstance(report, AuditReport) or report.verdict is not Verdict.VERIFIED


def test_an_id_repeated_in_capitals_is_named_the_same_both_ways(pristine: Path, tmp_path: Path) -> None:
    """One UUID in two events of a database, once in capitals: the store's UNIQUE id compares case and took it; the
    audit names it (read from the rows, it is left to the full audit, which compares ids without case)."""
    report = _same(_tampered(pristine, tmp_path, _id_in_capitals))
    assert [(f.check, f.stream, f.streamversion) for f in report.findings] == [("id", "campaign-a", ROLL)]
    assert report.findings[0].reason.endswith(f"is also the id of version {ROLL - 1}")


def test_an_id_of_another_stream_in_capitals_is_named_the_same_every_way(pristine: Path, tmp_path: Path) -> None:
    """Stream b's first roll given the id of stream a's first roll in capitals (b resealed): the stores' unique ids
    compare case, and each stream alone is sound. The audit of the whole store names the later one, read from the
    rows (by one process or two) or through the store's methods."""

    def twin(conn: sqlite3.Connection) -> None:
        (given,) = conn.execute("SELECT id FROM events WHERE position = 3").fetchone()
        (at,) = conn.execute(
            "SELECT min(position) FROM events WHERE stream_id = 'campaign-b' AND type = ?", (ROLLED,)
        ).fetchone()
        _set(conn, at, "id", given.upper())
        _reseal(conn, "campaign-b")

    report = _same(_tampered(pristine, tmp_path, twin))
    assert [(f.check, f.stream, f.reason) for f in report.findings] == [
        ("id", "campaign-b", f"event id {report.findings[0].event_id!r} is also the id of campaign-a version 3")
    ]
    assert report.findings[0].event_id == report.findings[0].event_id.upper()


def test_a_time_set_back_is_noted_the_same_both_ways(pristine: Path, tmp_path: Path) -> None:
    """A roll's wall-clock time set back to 1999 (the chain resealed) is no finding, but a note naming where: the
    rows leave it to the full audit, which words it."""

    def set_back(conn: sqlite3.Connection) -> None:
        _set(conn, ROLL, "time", "1999-12-31T23:59:59.000001Z")
        _reseal(conn, "campaign-a")

    report = _same(_tampered(pristine, tmp_path, set_back))
    assert report.verdict is Verdict.VERIFIED
    assert [line.split(" (")[0] for line in report.asides] == [
        f"campaign-a: the wall-clock time of its events goes back at stream version {ROLL}"
    ]


def test_a_roll_relabelled_older_is_named_the_same_both_ways(pristine: Path, tmp_path: Path) -> None:
    report = _same(_tampered(pristine, tmp_path, _older_roll(ROLL + 1)))
    assert isinstance(report, AuditReport)
    assert [(f.check, f.streamversion) for f in report.findings] == [("schema", ROLL + 1)]
    assert report.findings[0].reason == (
        "hexlog.dice.rolled schema version 3 after schema version 4 (at stream version 3): "
        "older than a version this stream already holds"
    )


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    position=st.integers(1, 40),
    column=st.sampled_from(["stream_version", "id", "type", "schema_version", "source", "time", "data", "prevhash"]),
    value=st.one_of(st.integers(-2, 50), st.text(max_size=8), st.just("hexlog.dice.rolled"), st.just("{}")),
)
def test_any_one_cell_changed_audits_the_same_both_ways(
    position: int, column: str, value: Any, pristine: Path, tmp_path: Path
) -> None:
    _same(_tampered(pristine, tmp_path, lambda conn: _set(conn, position, column, value)))


_ODD_TEXT = st.lists(
    st.sampled_from(["a", "s1", "\u00e9", "\u2028", "\x7f", '"', "\\", "\n", "\x00", "\U0001f600", " "]), max_size=4
).map("".join)
_VALUE = st.one_of(
    st.integers(-3, 30),
    st.sampled_from([2**53, -(2**53), 2**63 - 1, True, False, None, [], [1], [1, 1], {}, 1.0, -0.0]),
    _ODD_TEXT,
    st.sampled_from(["public", "referee", "s1", "s2", "hexlog-dice-v1", "hexlog-dice-v2", "attack", "ab" * 32]),
)
_FIELDS = [
    "session",
    "nonce",
    "purpose",
    "sides",
    "faces",
    "modifier",
    "total",
    "visibility",
    "made_for",
    "client_seed",
    "commitment",
    "secret",
    "scheme",
    "supplied",
    "extra",
]
_SPELLINGS: dict[str, Callable[[Any], str]] = {
    "canonical": canonical_json,
    "spaced": lambda d: json.dumps(d, sort_keys=True),
    "ascii": lambda d: json.dumps(d, sort_keys=True, separators=(",", ":")),
    "unsorted": lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False),
}
_STREAMS = [("campaign-a", "hexlog:a"), ("campaign-b", "hexlog:b"), ("campaign-c", "hexlog:c"), ("plain", "anything")]
_POSITION = st.integers(-1, 46)
_EDIT = st.one_of(
    st.tuples(
        st.just("cell"),
        _POSITION,
        st.sampled_from(["stream_version", "id", "type", "schema_version", "source", "time", "prevhash", "hash"]),
        st.one_of(_VALUE.filter(lambda v: not isinstance(v, list | dict)), st.sampled_from(["hexlog.dice.rolled"])),
    ),
    st.tuples(st.just("data"), _POSITION, st.sampled_from(_FIELDS), _VALUE, st.sampled_from(sorted(_SPELLINGS))),
    st.tuples(st.just("drop"), _POSITION, st.sampled_from(_FIELDS), st.none()),
    st.tuples(st.just("move"), _POSITION, _POSITION),
    st.tuples(st.just("swap"), _POSITION, _POSITION),
    st.tuples(st.just("delete"), _POSITION),
    st.tuples(st.just("copy"), _POSITION, st.integers(47, 50)),
    st.tuples(st.just("stream"), _POSITION, st.sampled_from(_STREAMS)),
)


def _edit_data(conn: sqlite3.Connection, position: int, field: str, value: Any, spelling: str = "") -> None:
    """Set (or, without a spelling, drop) a field of a row's data, if it holds a JSON object."""
    found = conn.execute("SELECT data FROM events WHERE position = ?", (position,)).fetchone()
    try:
        data = json.loads(found[0]) if found is not None else None
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    if spelling:
        data[field] = value
    else:
        data.pop(field, None)
    _set(conn, position, "data", _SPELLINGS[spelling or "canonical"](data))


def _swap(conn: sqlite3.Connection, position: int, other: int) -> None:
    _set(conn, position, "position", -9)
    _set(conn, other, "position", position)
    _set(conn, -9, "position", other)


#: a row copied to another position, its id changed so that it is still unique
_COPY = (
    "INSERT INTO events SELECT ?, stream_id, stream_version, id || '+', type, schema_version, source, time, data, "
    "prevhash, hash FROM events WHERE position = ?"
)

_EDITS: dict[str, Callable[..., None]] = {
    "cell": _set,
    "data": _edit_data,
    "drop": _edit_data,
    "move": lambda conn, position, to: _set(conn, position, "position", to),
    "swap": _swap,
    "delete": lambda conn, position: conn.execute("DELETE FROM events WHERE position = ?", (position,)),
    "copy": lambda conn, position, to: conn.execute(_COPY, (to, position)),
    "stream": lambda conn, position, where: conn.execute(
        "UPDATE events SET stream_id = ?, source = ? WHERE position = ?", (*where, position)
    ),
}


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(_EDIT, min_size=1, max_size=3), relink=st.sampled_from(["none", "stored text", "canonical"]))
def test_a_forger_s_random_edits_audit_the_same_both_ways(
    edits: list[tuple[Any, ...]], relink: str, pristine: Path, tmp_path: Path
) -> None:
    """Edits of cells, data fields in any spelling, positions, streams, rows deleted or copied, then the chains
    relinked over the text as stored or resealed over its canonical form."""

    def forge(conn: sqlite3.Connection) -> None:
        for kind, *args in edits:
            with contextlib.suppress(sqlite3.IntegrityError):  # a key taken: the table refuses the edit
                _EDITS[kind](conn, *args)
        for stream, _ in _STREAMS:
            if relink == "stored text":
                _rehash(conn, stream)
            elif relink == "canonical":
                with contextlib.suppress(ValueError, TypeError):  # data that is no JSON object is left as it is
                    _reseal(conn, stream)

    _same(_tampered(pristine, tmp_path, forge))


# -- the pieces ----------------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
_ROLL_DATA = st.fixed_dictionaries(
    {
        "session": _TEXT,
        "nonce": st.integers(-5, 2**60),
        "purpose": _TEXT,
        "sides": st.lists(st.integers(0, 20_000), min_size=1, max_size=3),
        "faces": st.lists(st.integers(-1, 20_000), min_size=1, max_size=3),
        "modifier": st.integers(-(2**60), 2**60),
        "total": st.integers(-(2**60), 2**60),
        "visibility": st.sampled_from(["public", "referee", "x"]),
        "made_for": _TEXT,
        "modifiers": st.sampled_from([[], [{"source": "x", "value": 1}]]),
        "notation": st.sampled_from(["", "4d6kh3"]),
        "dropped": st.sampled_from([[], [0]]),
    },
    optional={"low_is_good": st.sampled_from([False, True, 0, "false"])},
)


@given(
    data=_ROLL_DATA,
    spelling=st.sampled_from(["canonical", "spaced", "ascii", "unsorted"]),
    version=st.sampled_from([3, 4]),
)
def test_the_roll_pattern_matches_only_canonical_text_and_reads_its_values(
    data: dict[str, Any], spelling: str, version: int
) -> None:
    """Version 3's pattern has no ``low_is_good``; version 4's needs it, a JSON boolean."""
    text = {
        "canonical": canonical_json(data),
        "spaced": json.dumps(data, sort_keys=True),
        "ascii": json.dumps(data, sort_keys=True, separators=(",", ":")),
        "unsorted": json.dumps(data, separators=(",", ":"), ensure_ascii=False),
    }[spelling]
    found = plain_audit._ROLLS[version].fullmatch(text)
    if found is None:
        return
    assert text == canonical_json(json.loads(text))
    assert ("low_is_good" in data) == (version == 4)
    assert version == 3 or isinstance(data["low_is_good"], bool)
    faces, made_for, modifier, nonce, purpose, session, sides, total, visibility = found.groups()
    read = json.loads(text)
    assert (list(map(int, faces.split(","))), list(map(int, sides.split(",")))) == (read["faces"], read["sides"])
    assert (made_for, purpose, session, visibility) == (
        read["made_for"],
        read["purpose"],
        read["session"],
        read["visibility"],
    )
    assert (int(modifier), int(nonce), int(total)) == (read["modifier"], read["nonce"], read["total"])


def test_the_roll_pattern_matches_a_plain_roll_as_recorded() -> None:
    roll = _session(1, 1, seed="s")[2]
    (row,) = new_events("a", [roll], 0)
    assert plain_audit._ROLLS[DiceRolled.schema_version].fullmatch(canonical_json(row.data)) is not None


@given(
    key=st.binary(max_size=130),
    nonce=st.integers(0, 10**6),
    sides=st.lists(st.integers(2, 1000), min_size=1, max_size=4),
)
def test_keyed_dice_give_the_published_faces(key: bytes, nonce: int, sides: list[int]) -> None:
    """``KeyedDice`` (the key's HMAC set up once) gives die_face's faces, which take a fresh HMAC per draw."""
    expected = tuple(hexdice.die_face(key, nonce, k, s) for k, s in enumerate(sides))
    assert hexdice.KeyedDice(key).faces(nonce, sides) == expected


@pytest.mark.parametrize("run", [0, 1, 7, 8, 9, 64])
def test_a_checker_after_a_run_checks_on_as_one_that_saw_it(run: int) -> None:
    env = seal(
        id="e",
        source="s",
        type="t",
        subject="x",
        time="t",
        data={},
        streamversion=1,
        schemaversion=1,
        prevhash="0" * 64,
    )
    after = [run + 2, 3, run, run + 2, run + 1, 2**28, 2**28, 0, -1, run + 3]
    fresh, found = Positions(), []
    for p in range(1, run + 1):
        fresh.check(Item(index=p - 1, env=env, position=p), found)
    resumed, later = Positions.after_run(run), cast("list[Finding]", [])
    fresh_later = cast("list[Finding]", [])
    for i, p in enumerate(after, start=run):
        fresh.check(Item(index=i, env=env, position=p), fresh_later)
        resumed.check(Item(index=i, env=env, position=p), later)
    assert found == []
    assert later == fresh_later
