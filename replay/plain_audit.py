"""The audit's fast path: a stream of plain sessions and rolls, proved sound straight from its stored rows.

Most of a log is sessions and their rolls (``session.opened``, ``session.client_seed_set``, ``dice.rolled``,
``session.closed``). ``PlainStream`` takes one stream's stored rows in log order and checks what the full audit
checks of such a stream (envelope shapes, links, hashes, the source, no roll of a schema version below an earlier
roll's, sessions, nonces, commitments and every roll re-derived) without building envelopes or events: a roll's data
is read by one pattern that matches only its canonical JSON, so the stored text is the text hashed. Anything else
(another event, an older schema version (a roll's before 3), a roll that keeps or drops dice or carries modifiers, a
session still open with rolls, anything that would be a finding or a note) makes it give up, and the full audit then
audits that stream from the start as before. So a stream it passes is one the full audit finds nothing wrong with,
and ``result`` gives what the full audit would add up.
"""

from __future__ import annotations

import hashlib
import operator
import re
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events import releases
from hexlog.events.chain import CONTENT_TYPE, GENESIS, SPECVERSION, canonical_json
from hexlog.events.dice import DiceRolled
from hexlog.events.session import ClientSeedSet, SessionClosed, SessionOpened
from hexlog.events.sqlite_schema import row_data
from hexlog.events.streams import campaign_of, source_for
from hexlog.machine import dice as hexdice
from hexlog.replay.dice_audit import SessionRecord, free_named, free_rolls, printable_ascii
from hexlog.replay.verdict import Caveats

if TYPE_CHECKING:
    from hexlog.machine.kit.registry import Registry

__all__ = ["PlainResult", "PlainRules", "PlainStream"]

#: a JSON string that is its own canonical form: no quote, backslash or control character to escape
_STRING = r'"([^"\\\x00-\x1f]*)"'
#: a JSON integer as the canonical form writes it, of at most 15 digits (well inside 2**53)
_INT = r"(0|-?[1-9][0-9]{0,14})"
_DICE = r"\[([1-9][0-9]{0,3}(?:,[1-9][0-9]{0,3})*)\]"
#: the canonical JSON of a plain roll's data by schema version (3, and 4 which says whether low is good; nothing
#: kept or dropped, no state modifiers)
_ROLLS = {
    version: re.compile(
        rf'\{{"dropped":\[\],"faces":{_DICE},{low}"made_for":{_STRING},"modifier":{_INT},"modifiers":\[\],'
        rf'"nonce":{_INT},"notation":"","purpose":{_STRING},"session":{_STRING},"sides":{_DICE},'
        rf'"total":{_INT},"visibility":"(public|referee)"\}}'
    )
    for version, low in ((3, ""), (4, '"low_is_good":(?:false|true),'))
}
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: a time in UTC as hexlog writes it (``machine.handler.utc_now``), with its fraction of a second or not
_UTC = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z", re.ASCII)

ROLLED = DiceRolled.cloud_type()
OPENED = SessionOpened.cloud_type()
SEEDED = ClientSeedSet.cloud_type()
CLOSED = SessionClosed.cloud_type()
#: the data keys of each other plain event at its current schema version (and a session's before it names its
#: release), with their exact types
_SESSION_DATA: dict[tuple[str, int], dict[str, type]] = {
    (OPENED, 2): {"session": str, "commitment": str, "scheme": str, "supplied": bool},
    (OPENED, SessionOpened.schema_version): {
        "session": str,
        "commitment": str,
        "scheme": str,
        "supplied": bool,
        "release": int,
    },
    (SEEDED, ClientSeedSet.schema_version): {"session": str, "client_seed": str},
    (CLOSED, SessionClosed.schema_version): {"session": str, "secret": str},
}
_PLAIN_CLASSES = (DiceRolled, SessionOpened, ClientSeedSet, SessionClosed)
#: (type, schema version) of each plain event read here -> the release that first wrote it, and the first that no
#: longer did (None: today's still does): an event at a version a release before it in the stream left behind was
#: re-labelled by hand (``hexlog.replay.chain_audit.SchemaVersions``)
_RELEASES: dict[tuple[str, int], tuple[int, int | None]] = {
    (kind, version): (releases.raised_at(kind, version), releases.left_behind(kind, version))
    for kind, version in [*((ROLLED, version) for version in _ROLLS), *_SESSION_DATA]
}


#: how many kinds of roll ``PlainRules`` remembers before it starts again
_READ_LIMIT = 4096


class PlainRules:
    """What the fast path asks once per audit and remembers: which roll purposes the procedures reserve, and the
    numbers of each kind of roll read so far (a log holds few)."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._free: dict[str, bool] = {}
        self._numbers: dict[str, tuple[int, ...]] = {}
        self._dice: dict[str, tuple[int, ...] | None] = {}
        #: no plain event is a procedure's decision (one its inverse re-runs, or notes as decided by hand)
        self.usable = not any(
            kind in _PLAIN_CLASSES
            for procedure in registry
            if procedure.inverse is not None
            for kind in procedure.events
        )

    def free(self, purpose: str) -> bool:
        """Whether a roll of this purpose may stand alone (no procedure reserves it for the rolls its steps name)."""
        found = self._free.get(purpose)
        if found is None:
            found = self._free[purpose] = self._registry.reserved(purpose) is None
        return found

    def numbers(self, text: str) -> tuple[int, ...]:
        """The numbers of a list the roll pattern matched (faces or sides, each at least 1)."""
        found = self._numbers.get(text)
        if found is None:
            if len(self._numbers) >= _READ_LIMIT:
                self._numbers.clear()
            found = self._numbers[text] = tuple(map(int, text.split(",")))
        return found

    def dice(self, text: str) -> tuple[int, ...] | None:
        """The sides of a roll's dice, or None when a roll cannot have them (too many dice, a die of too few or
        too many sides)."""
        if text in self._dice:
            return self._dice[text]
        if len(self._dice) >= _READ_LIMIT:
            self._dice.clear()
        sides = self.numbers(text)
        possible = (
            len(sides) <= hexdice.MAX_DICE and min(sides) >= hexdice.MIN_SIDES and max(sides) <= hexdice.MAX_SIDES
        )
        found = self._dice[text] = sides if possible else None
        return found


@attrs.frozen
class PlainResult:
    """What a sound plain stream adds to the audit's counts."""

    sessions: int
    rolls: int
    verified: int
    caveats: tuple[str, ...]
    #: each session's free rolls, as the referee's hand (every roll of a plain stream is free)
    hand: tuple[str, ...] = ()


class PlainStream:
    """One stream's rows, fed in log order; ``doubt`` once anything calls for the full audit."""

    # one of these stays for every stream of the log until the pass ends: kept small
    __slots__ = (
        "_source",
        "_subject",
        "caveats",
        "commitments",
        "current",
        "doubt",
        "first_roll",
        "free",
        "hand",
        "head",
        "lanes",
        "moment",
        "next_nonce",
        "pending",
        "position",
        "release",
        "rolled",
        "rolls",
        "rules",
        "sessions",
        "source",
        "told",
        "verified",
        "version",
    )

    def __init__(self, stream: Any, rules: PlainRules) -> None:
        self.rules = rules
        self.doubt = not rules.usable or type(stream) is not str
        campaign = campaign_of(stream) if type(stream) is str else None
        #: the source every event must carry (None: any string, the stream not being a campaign's)
        self.source = source_for(campaign) if campaign is not None else None
        self._source = encode_basestring(self.source) if self.source is not None else ""
        self._subject = encode_basestring(stream) if type(stream) is str else ""
        self.version = 0
        #: the position of the latest row (rows come in log order, so a position not above it is repeated)
        self.position = 0
        self.head = GENESIS
        #: the latest row's time as text that sorts as the moments do (a time going back is the full audit's note)
        self.moment = ""
        #: the id and the commitment of every session so far (what it keeps of a session once it closes)
        self.sessions: set[str] = set()
        self.commitments: set[str] = set()
        #: the latest session while it is open, its next nonce in each lane, and its rolls not yet re-derived
        self.current: SessionRecord | None = None
        self.next_nonce: dict[str, int] = {}
        #: whether the current session's secret rolls have a lane of their own (hexlog-dice-v2)
        self.lanes = False
        self.pending: list[tuple[str, int, tuple[int, ...], tuple[int, ...]]] = []
        #: where the current session's first roll is (in a plain stream, its rolls are one run)
        self.first_roll = 0
        #: the current session's rolls named so far (all free), and each closed session's as the referee's hand
        self.free: tuple[str, ...] = ()
        self.hand: list[str] = []
        #: what keeps each closed session's rolls from protecting the players (``caveats``), in open order, and the
        #: client seeds of the sessions so far, that tells them
        self.caveats: list[str] = []
        self.told = Caveats()
        self.rolls = 0
        self.verified = 0
        #: the highest schema version of the stream's rolls so far (its other events are at their current one)
        self.rolled = 0
        #: the latest release the stream's events so far show wrote it (``releases``; 0: any)
        self.release = 0

    def feed(self, row: tuple[Any, ...]) -> None:
        """Check one stored row (``hexlog.events.sqlite_schema.COLUMNS``); raise as the store would when its data
        is not JSON."""
        if self.doubt:
            row_data(row)
            return
        position, _, version, id_, type_, schema, source, time, text, prevhash, hash_ = row
        if not (
            type(position) is int
            and position > self.position
            and type(version) is int
            and version == self.version + 1
            and prevhash == self.head
            and type(id_) is str
            and id_ == id_.lower()  # hexlog writes none in capitals: the full audit compares ids without their case
            and type(time) is str
            and type(text) is str
            and type(schema) is int
            and (source == self.source if self.source is not None else type(source) is str)
        ):
            self._give_up(row)
            return
        moment = _moment(time)
        written, gone = _RELEASES.get((type_, schema), (0, None))
        if moment is None or moment < self.moment or (gone is not None and gone <= self.release):
            self._give_up(row)
            return
        self.release = max(self.release, written)
        pattern = _ROLLS.get(schema) if type_ == ROLLED else None
        if pattern is not None:
            found = pattern.fullmatch(text)
            if found is None or schema < self.rolled or not self._rolled(found, version - 1):
                self._give_up(row)
                return
            self.rolled = schema
        else:
            data = row_data(row)
            kinds = _SESSION_DATA.get((type_, schema))
            if kinds is None or not _typed(data, kinds) or not self._session_event(type_, data, version - 1):
                self._doubt()
                return
            text = canonical_json(data)
        envelope = (
            f'{{"data":{text},"datacontenttype":"{CONTENT_TYPE}","id":{encode_basestring(id_)},'
            f'"prevhash":"{prevhash}","schemaversion":{schema},"source":{self._source or encode_basestring(source)},'
            f'"specversion":"{SPECVERSION}","streamversion":{version},"subject":{self._subject},'
            f'"time":{encode_basestring(time)},"type":"{type_}"}}'
        )
        try:
            sound = hashlib.sha256(envelope.encode()).hexdigest() == hash_
        except UnicodeError:
            sound = False
        if not sound:
            self._doubt()
            return
        self.position, self.version, self.head, self.moment = position, version, hash_, moment

    def _give_up(self, row: tuple[Any, ...]) -> None:
        self._doubt()
        row_data(row)

    def _doubt(self) -> None:
        """Leave the stream to the full audit, and let go of what it kept."""
        self.doubt = True
        self.sessions, self.commitments, self.caveats, self.pending, self.current = set(), set(), [], [], None
        self.free, self.hand = (), []

    def _rolled(self, found: re.Match[str], at: int) -> bool:
        """A plain roll of the open session at its lane's next nonce, of a possible shape, for a free purpose."""
        faces_text, _, modifier, nonce_text, purpose, session, sides_text, total, visibility = found.groups()
        record = self.current
        if record is None or session != record.id or not self.rules.free(purpose):
            return False
        sides, faces = self.rules.dice(sides_text), self.rules.numbers(faces_text)
        lane = visibility if self.lanes else ""
        nonce = int(nonce_text)
        if (
            sides is None
            or len(faces) != len(sides)
            or any(map(operator.gt, faces, sides))
            or int(total) != sum(faces) + int(modifier)
            or nonce != self.next_nonce.get(lane, 0)
        ):
            return False
        self.next_nonce[lane] = nonce + 1
        if not self.pending:
            self.first_roll = at
        secret = visibility == hexdice.REFEREE_LANE
        self.free = free_named(self.free, hexdice.nonce_name(nonce, secret=secret), None if secret else purpose)
        self.pending.append((lane, nonce, sides, faces))
        self.rolls += 1
        return True

    def _session_event(self, type_: str, data: dict[str, Any], at: int) -> bool:
        """A session opened while none is, the open session's one client seed before its rolls, or its close."""
        record = self.current
        if type_ == OPENED:
            return record is None and self._opened(data, at)
        if record is None or data["session"] != record.id:
            return False
        if type_ == SEEDED:
            seed = data["client_seed"]
            if record.client_seed or self.pending or not seed:
                return False
            if record.scheme == hexdice.V2 and not printable_ascii(seed):
                return False
            record.client_seed = seed
            return True
        return self._closed(record, data["secret"], at)

    def _opened(self, data: dict[str, Any], at: int) -> bool:
        """A session of a new id and commitment rolling hexlog-dice-v2, opened by a release that can have written it
        (none before the stream's latest, none after today's): only a ``session.opened`` of schema version 1 (never
        read here) rolls v1, so one here is the full audit's finding."""
        session, commitment, scheme = data["session"], data["commitment"], data["scheme"]
        named = data.get("release", self.release)
        if (
            not self.release <= named <= releases.CURRENT
            or session in self.sessions
            or scheme != hexdice.V2
            or not _HEX64.fullmatch(commitment)
            or commitment in self.commitments
        ):
            return False
        record = SessionRecord(session, at, commitment, scheme, supplied=data["supplied"])
        self.release = named
        self.sessions.add(session)
        self.commitments.add(commitment)
        self.current = record
        self.lanes = scheme != hexdice.V1
        self.next_nonce = {}
        return True

    def _closed(self, record: SessionRecord, revealed: str, at: int) -> bool:
        """The secret matches the commitment, and every roll of the session is the one it gives."""
        if not _HEX64.fullmatch(revealed):
            return False
        secret = bytes.fromhex(revealed)
        if hexdice.commitment(secret) != record.commitment:
            return False
        keys = hexdice.keys_for(record.scheme, secret, record.client_seed)
        dice = {lane: hexdice.KeyedDice(key) for lane, key in keys.items()}
        if any(dice[lane].faces(nonce, sides) != faces for lane, nonce, sides, faces in self.pending):
            return False
        self.verified += len(self.pending)
        record.rolls = list(range(self.first_roll, self.first_roll + len(self.pending)))
        record.closed_at, record.secret = at, secret
        self.caveats.extend(self.told.add(record))
        if self.pending:
            self.hand.append(free_rolls(record.id, f"stream version {at + 1}", len(self.pending), self.free))
        self.pending, self.free = [], ()
        self.current = None
        return True

    def result(self) -> PlainResult | None:
        """What the stream adds up to, or None when the full audit must audit it (a doubt, or rolls left unrevealed)."""
        if self.doubt or self.pending:
            return None
        # a session still open has no rolls, and so no caveat
        return PlainResult(len(self.sessions), self.rolls, self.verified, tuple(self.caveats), tuple(self.hand))


def _moment(time: str) -> str | None:
    """A time as hexlog writes it, as text that sorts as the moments do (its fraction to the nanosecond); None for
    any other (the full audit reads it)."""
    found = _UTC.fullmatch(time)
    if found is None:
        return None
    day, fraction = found.groups()
    return day + (fraction or "").ljust(9, "0")


def _typed(data: Any, kinds: dict[str, type]) -> bool:
    """Whether ``data`` is an object of exactly these keys, each of exactly its type."""
    return (
        type(data) is dict and data.keys() == kinds.keys() and all(type(data[k]) is kind for k, kind in kinds.items())
    )
