"""The command handler: load the campaign's live projections, run the command, append in one transaction.

The table (what commands decide on) and the roll ledger are live projections: the handler keeps them
in memory per campaign, catches them up with anything another writer appended, and writes the rows a
command changed in the same transaction as its events. A command therefore reads and writes the same
few rows however long the campaign is.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from hexlog.events.base import Event
from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.codec import converter, to_data
from hexlog.events.errors import (
    Advice,
    ConcurrencyError,
    HexlogError,
    IllegalTransitionError,
    NotFoundError,
    RuleRefusedError,
    StaleVersionError,
    UsageError,
)
from hexlog.events.store import AppendResult, NewEvent
from hexlog.events.streams import source_for, stream_for
from hexlog.machine import commands as c
from hexlog.machine import text
from hexlog.machine.keeper import SecretKeeper, Staged, asked_secret, check_commitment
from hexlog.machine.kit import context as kit
from hexlog.machine.kit.changed import changed
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import Roller, SessionDice
from hexlog.machine.table import Table, TableProjection
from hexlog.projections import live
from hexlog.projections.ledger import LEDGER, commitment_key

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from hexlog.events.store import LiveStore
    from hexlog.machine.kit.registry import Registry

TABLE = "table"
#: how many times a command that lost a race to another writer is decided again on the new state
RETRIES = 8
#: the longest pause before a command is decided again (seconds): pauses double from ``FIRST_PAUSE`` up to it
FIRST_PAUSE, LONGEST_PAUSE = 0.005, 0.25


def pause(attempt: int) -> float:
    """How long a command that lost its ``attempt``-th race waits before it is decided again: doubling, and spread
    by the process and the moment (not by the dice: writers that collided must not collide again in step)."""
    spread = (os.getpid() * 2654435761 + time.perf_counter_ns()) % 1000 / 1000
    return min(LONGEST_PAUSE, FIRST_PAUSE * (1 << attempt)) * (0.75 + spread / 2)


#: the variant nibble of an RFC 4122 UUID (``10xx``) for each value of a random hex digit
_VARIANT = "89ab" * 4


def new_event_id() -> str:
    """A random (version 4) UUID as text, as ``str(uuid.uuid4())`` gives it, at a third of its cost (one per
    event): 122 random bits, the version and variant bits set in the text."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16)]}{h[17:20]}-{h[20:]}"


#: the second the clock text was last written for, and its text to the second
_SECOND: tuple[int, str] = (-1, "")


def utc_now() -> str:
    """The current time in RFC 3339, UTC, to the microsecond (``datetime.now(UTC)`` as ``%Y-%m-%dT%H:%M:%S.%fZ``
    writes it), the text to the second written once a second."""
    global _SECOND  # noqa: PLW0603 - one value, replaced whole: a reader sees the old pair or the new one
    micros = time.time_ns() // 1000
    second, micro = divmod(micros, 1_000_000)
    known = _SECOND
    if known[0] != second:
        known = _SECOND = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
    return f"{known[1]}.{micro:06d}Z"


@attrs.frozen(kw_only=True)
class Outcome:
    """What a command did: the append result, the new events and the table after them."""

    result: AppendResult
    events: tuple[Event, ...]
    table: Table


def command_digest(command: c.Command) -> str:
    """A digest of a command's kind and arguments, for idempotent retries (secrets left out)."""
    return _digest(command, converter.unstructure(command))


def _digest(command: c.Command, data: dict[str, Any]) -> str:
    """``command_digest`` from the command's unstructured data (which is not changed)."""
    args = {k: v for k, v in data.items() if k != "secret_hex"}
    return sha256_hex(canonical_json({"command": type(command).__name__, "args": args}))


def _not_unicode(value: Any, path: str) -> str | None:
    """The first place in unstructured command data holding text that is not valid Unicode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _not_unicode(k, path) or _not_unicode(v, f"{path}.{k}" if path else str(k))
            if found is not None:
                return found
    if isinstance(value, list | tuple):
        for i, v in enumerate(value):
            found = _not_unicode(v, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def _checked_digest(campaign: str, command: c.Command, command_id: str | None) -> str | None:
    """The command digest when a command id is given (the only use of it: a retry with that id); a
    ``UsageError`` when any text of the request is not valid Unicode.

    Text from argv that was not UTF-8 arrives as lone surrogates, which no log, key file or
    database can hold: the command is refused here, before anything is read or written.
    """
    data = converter.unstructure(command)
    try:
        campaign.encode("utf-8")
        if command_id is None:
            _check_unicode({k: v for k, v in data.items() if k != "secret_hex"})  # what the digest would hash
            digest = None
        else:
            command_id.encode("utf-8")
            digest = _digest(command, data)
    except UnicodeEncodeError:
        name = f"'{c.spoken(command)}'"
        if _not_unicode(campaign, "campaign") is not None:
            where = "the campaign id"
        elif _not_unicode(command_id, "command id") is not None:
            where = "the command id"
        else:
            field = _not_unicode(data, "")
            where = f"the {field.replace('_', ' ')} of {name}" if field else f"the text of {name}"
        msg = f"{where} is not valid Unicode (it holds bytes that are not UTF-8)"
        raise UsageError(msg) from None
    text.check(data)
    c.check_numbers(command)
    return digest


def _check_unicode(value: Any) -> None:
    """``UnicodeEncodeError`` when text in unstructured data (keys included) is not valid Unicode: what hashing
    it for a digest raises, found without writing its canonical JSON. Data ``orjson`` writes holds none (it
    refuses a lone surrogate); the rest, which it refused for that or for anything else, is walked."""
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        _walk_unicode(value)


def _walk_unicode(value: Any) -> None:
    """``_check_unicode``, by walking the data."""
    if isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk_unicode(key)
            _walk_unicode(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _walk_unicode(item)


def _table(lives: dict[str, live.Live[Any]]) -> Table:
    """The table of a campaign's live projections, carrying the stream version it has folded to."""
    table = lives[TABLE]
    state: Table = table.state
    return state if state.version == table.version else changed(state, version=table.version)


class Handler:
    """Runs commands against one store and keeper, with the procedures of one registry."""

    def __init__(  # noqa: PLR0913 - every collaborator may be replaced in a test
        self,
        store: LiveStore,
        keeper: SecretKeeper,
        *,
        registry: Registry = REGISTRY,
        clock: Callable[[], str] = utc_now,
        new_id: Callable[[], str] = new_event_id,
        roller: Callable[[Table], Roller] | None = None,
    ) -> None:
        self.store = store
        self.keeper = keeper
        self.registry = registry
        self.clock = clock
        self.new_id = new_id
        self._roller = roller
        self.projections: tuple[live.Projection[Any], ...] = (TableProjection(registry), LEDGER)
        #: each campaign's live projections as last folded, by projection name
        self._live: dict[str, dict[str, live.Live[Any]]] = {}
        #: each campaign's latest session dice, with the scheme, secret, client seed and commitment they were made of
        self._dice: dict[str, tuple[tuple[str, bytes, str, str], SessionDice]] = {}

    def _lives(self, campaign: str) -> dict[str, live.Live[Any]]:
        stream = stream_for(campaign)
        cached = self._live.get(campaign)
        if cached is None:
            lives = {p.name: live.load(self.store, stream, p) for p in self.projections}
        else:
            current = self.store.stream_version(stream)
            if all(one.version == current for one in cached.values()):
                return cached  # nothing was appended since: one look at the stream's version, not a read per projection
            lives = {name: live.catch_up(self.store, stream, one) for name, one in cached.items()}
        self._live[campaign] = lives
        return lives

    def load(self, campaign: str) -> Table:
        """The folded table of a campaign (empty if it does not exist), caught up with the log."""
        return _table(self._lives(campaign))

    def _roller_for(self, campaign: str) -> Callable[[Table], Roller]:
        if self._roller is not None:
            return self._roller

        def committed(table: Table) -> Roller:
            session = table.session
            if session is None:
                msg = "no session is open"
                raise NotFoundError(msg)
            secret = asked_secret(self.keeper, campaign, session.id, session.commitment)  # asked each time
            made_of = (session.scheme, secret, session.client_seed, session.commitment)
            known = self._dice.get(campaign)
            if known is None or known[0] != made_of:
                # the session's keys are derived once, not per command, and the secret checked against its commitment
                # once: the same four values were checked when the dice were made of them
                check_commitment(secret, session.id, session.commitment)
                known = self._dice[campaign] = (made_of, SessionDice.of(session.scheme, secret, session.client_seed))
            return known[1]

        return committed

    def commitment_used(self, commitment: str) -> bool:
        """Whether a session of any campaign of the store committed to ``commitment`` (before a campaign exists)."""
        key = commitment_key(commitment)
        return any(live.load(self.store, s, LEDGER).row(self.store, s, key) is not None for s in self.store.streams())

    def _commitment_used(self, campaign: str, ledger: live.Live[Any]) -> Callable[[str], bool]:
        """Whether an earlier session of any campaign of the store committed to a commitment: one ledger
        row of this campaign read by key, then the same row of each other campaign's ledger (caught up
        with its log, or folded anew when its rows cannot be trusted)."""
        stream = stream_for(campaign)

        def used(commitment: str) -> bool:
            key = commitment_key(commitment)
            if ledger.row(self.store, stream, key) is not None:
                return True
            others = (s for s in self.store.streams() if s != stream)  # their ledgers as the log has them
            return any(live.load(self.store, other, LEDGER).row(self.store, other, key) is not None for other in others)

        return used

    def execute(
        self,
        campaign: str,
        command: c.Command,
        command_id: str | None = None,
        *,
        as_sent: c.Command | None = None,
        expected: int | None = None,
    ) -> Outcome:
        """Decide and append one command; nothing is written when it is refused.

        A command that loses a race (another writer appended to the campaign between its decision and
        its append) is decided again on the new state, up to ``RETRIES`` times; refused there, the
        message says that another command wrote first.

        ``as_sent`` is the command as its sender gave it when ``command`` is what is run of it (the HTTP service
        runs a map's text from a file of its own, at a path that differs each time it starts): a retry with
        ``command_id`` is known by its digest, so that it is the same command whatever path it is run from.

        ``expected`` is the stream version the command is to be decided on (what its sender last saw): when the
        campaign is at another, or another writer appends before this command does, it is refused
        (``ConcurrencyError``, nothing written), never decided again on a state its sender has not seen. A retry of a
        command already recorded under ``command_id`` is answered as recorded, whatever it expects.
        """
        digest = _checked_digest(campaign, command, command_id)
        if digest is not None and as_sent is not None:  # its text is the sender's to check: only its digest counts
            try:
                digest = command_digest(as_sent)
            except UnicodeEncodeError:
                msg = f"the text of '{c.spoken(command)}' is not valid Unicode (it holds bytes that are not UTF-8)"
                raise UsageError(msg) from None
        self.registry.route(type(command))  # an unknown command is refused before anything is read
        for attempt in range(RETRIES + 1):
            try:
                return self._execute_once(campaign, command, command_id, digest, expected)
            except StaleVersionError:
                if attempt == RETRIES:
                    msg = (
                        f"other commands kept writing to campaign {campaign!r} first ({RETRIES + 1} tries); "
                        "nothing was written; try again"
                    )
                    raise StaleVersionError(msg) from None
                time.sleep(pause(attempt))
            except UsageError:
                raise
            except HexlogError as err:
                if attempt == 0:
                    raise
                lost = f"another command wrote to campaign {campaign!r} first, and now this one is refused: "
                if isinstance(err, IllegalTransitionError):  # the steps allowed keep their names for the doors
                    where = (err.procedure, err.state, err.trigger, err.allowed)
                    raise IllegalTransitionError(*where, before=lost).telling(*err.told) from err
                raise RuleRefusedError(lost + err.lead).telling(*err.told) from err  # each door says its advice
        raise AssertionError  # pragma: no cover - the loop returns or raises

    def _execute_once(
        self, campaign: str, command: c.Command, command_id: str | None, digest: str | None, expected: int | None
    ) -> Outcome:
        """Decide a command on the campaign as it is now and append it (``StaleVersionError`` if it moved;
        ``ConcurrencyError`` if it is not at the version ``expected``)."""
        if command_id is not None:
            earlier = self.store.command_result(command_id, digest or "")
            if earlier is not None:
                return Outcome(result=earlier, events=(), table=self.load(campaign))
        lives = self._lives(campaign)
        table = _table(lives)
        if expected is not None and table.version != expected:
            msg = f"campaign {campaign!r} is at version {table.version}, not {expected}; nothing was written"
            raise ConcurrencyError(msg)
        if not table.started and not isinstance(command, c.StartCampaign):
            msg = f"campaign {campaign!r} does not exist; run '"
            raise NotFoundError(msg).advising(Advice("StartCampaign"), "' first")
        staged = Staged(self.keeper)  # what the steps keep is kept only with the append that records it
        ctx = kit.StepContext(
            table=table,
            registry=self.registry,
            campaign=campaign,
            keeper=staged,
            roller_for=self._roller_for(campaign),
            commitment_used=self._commitment_used(campaign, lives[LEDGER.name]),
        )
        kit.run(ctx, command)
        datas = _recordable(command, ctx.events)
        version = table.version + len(ctx.events)
        after = changed(ctx.table, version=version)
        source, now, stream = source_for(campaign), self.clock(), stream_for(campaign)  # one transaction, one time
        new = [
            NewEvent(self.new_id(), source, e.cloud_type(), now, e.schema_version, data)
            for e, data in zip(ctx.events, datas, strict=True)
        ]
        last = new[-1].id  # the marks name the last event: rows are trusted only beside this very log
        moved, rows = {}, []
        for name, one in lives.items():
            if name == TABLE:
                moved[name], written = one.settle(after, version, last)
            else:
                moved[name], written = one.fold(ctx.events, version, last)
            rows.extend(written)
        take_back = staged.commit()
        try:
            result = self.store.append(
                stream,
                new,
                expected_version=table.version,
                command_id=command_id,
                command_digest=digest,
                rows=rows,
            )
        except BaseException as err:
            with contextlib.suppress(HexlogError, OSError):  # an entry left behind is unused, never wrong
                take_back()
            if expected is not None and isinstance(err, StaleVersionError):  # never decided again on another state
                msg = (
                    f"another command wrote to campaign {campaign!r} after version {expected} while this one was "
                    "decided; nothing was written"
                )
                raise ConcurrencyError(msg) from None
            raise
        if result.replayed:  # the same command id was recorded meanwhile by another process
            with contextlib.suppress(HexlogError, OSError):
                take_back()
            return Outcome(result=result, events=(), table=self.load(campaign))
        self._live[campaign] = moved
        return Outcome(result=result, events=tuple(ctx.events), table=after)


def _recordable(command: c.Command, events: Sequence[Event]) -> list[dict[str, Any]]:
    """The data of each event, to record; ``UsageError`` when a command produced nothing, or an event holds an
    integer past 2**53 - 1."""
    if not events:
        msg = f"'{c.spoken(command)}' produced no events"
        raise UsageError(msg)
    datas = [to_data(event) for event in events]
    for data in datas:
        huge = c.oversized(data)
        if huge is not None:
            msg = f"the number {huge} is too large to record (an event holds integers up to 2**53 - 1)"
            raise UsageError(msg)
    return datas
