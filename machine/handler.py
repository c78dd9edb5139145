"""The command handler: read the stream, fold, decide, append in one transaction."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import attrs

from hexlog.events.base import Event
from hexlog.events.chain import canonical_json, sha256_hex
from hexlog.events.codec import converter, decode, to_data
from hexlog.events.errors import NotFoundError, RuleRefusedError, UsageError
from hexlog.events.store import AppendResult, NewEvent
from hexlog.machine import campaign as steps
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import table as tables
from hexlog.machine.keeper import SecretKeeper
from hexlog.machine.step import KeyRoller, Roller, Step
from hexlog.projections import live

#: command class -> step function(step, command, context); procedure modules add theirs
HANDLERS: dict[type[c.Command], Callable[[Step, Any, Context], None]] = {}


@attrs.frozen
class Context:
    """What a step may need besides the table: the campaign id and the secret keeper."""

    campaign: str
    keeper: SecretKeeper


def register(command: type[c.Command], step: Callable[[Step, Any, Context], None]) -> None:
    """Add a command's step function to the handler table."""
    HANDLERS[command] = step


register(c.StartCampaign, lambda s, cmd, ctx: steps.start_campaign(s, cmd, ctx.campaign))
register(c.ChangeRules, lambda s, cmd, _ctx: steps.change_rules(s, cmd))
register(c.OpenSession, lambda s, cmd, ctx: steps.open_session(s, cmd, lambda sec: ctx.keeper.put(ctx.campaign, sec)))
register(c.SetClientSeed, lambda s, cmd, _ctx: steps.set_client_seed(s, cmd))
register(c.CloseSession, lambda s, cmd, ctx: steps.close_session(s, cmd, lambda ses: kept_secret(ctx.keeper, ctx.campaign, ses)))
register(c.AbandonSession, lambda s, cmd, _ctx: steps.abandon_session(s, cmd))
register(c.AddMember, lambda s, cmd, _ctx: steps.add_member(s, cmd))
register(c.RemoveMember, lambda s, cmd, _ctx: steps.remove_member(s, cmd))
register(c.RollDice, lambda s, cmd, _ctx: steps.roll_dice(s, cmd))


def kept_secret(keeper: SecretKeeper, campaign: str, session: tables.SessionState) -> bytes:
    """The kept secret of a session, refused unless ``sha256(secret)`` is the session's commitment."""
    try:
        secret = keeper.get(campaign, session.id, session.commitment)
    except NotFoundError as err:
        msg = f"{err}; if it is lost, end the session with 'hexlog session abandon --reason TEXT'"
        raise NotFoundError(msg) from err
    if hexdice.commitment(secret) != session.commitment:
        msg = (
            f"the kept secret of session {session.id} does not match its commitment {session.commitment}; "
            "no die is rolled and nothing is revealed (if its secret is lost, 'hexlog session abandon --reason TEXT')"
        )
        raise RuleRefusedError(msg)
    return secret


def utc_now() -> str:
    """The current time in RFC 3339, UTC, to the microsecond."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@attrs.frozen(kw_only=True)
class Outcome:
    """What a command did: the append result, the new events and the table after them."""

    result: AppendResult
    events: tuple[Event, ...]
    table: tables.Table


def command_digest(command: c.Command) -> str:
    """A digest of a command's kind and arguments, for idempotent retries (secrets left out)."""
    data = converter.unstructure(command)
    data.pop("secret_hex", None)
    return sha256_hex(canonical_json({"command": type(command).__name__, "args": data}))


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


def _checked_digest(campaign: str, command: c.Command, command_id: str | None) -> str:
    """The command digest; a ``UsageError`` when any text of the request is not valid Unicode.

    Text from argv that was not UTF-8 arrives as lone surrogates, which no log, key file or
    database can hold: the command is refused here, before anything is read or written.
    """
    try:
        canonical_json([campaign, command_id]).encode("utf-8")
        return command_digest(command)
    except UnicodeEncodeError:
        name = type(command).__name__
        if _not_unicode(campaign, "campaign") is not None:
            where = "the campaign id"
        elif _not_unicode(command_id, "command id") is not None:
            where = "the command id"
        else:
            field = _not_unicode(converter.unstructure(command), "")
            where = f"the {field} of {name}" if field else f"the text of {name}"
        msg = f"{where} is not valid Unicode (it holds bytes that are not UTF-8)"
        raise UsageError(msg) from None


class Handler:
    """Runs commands against one store and keeper."""

    def __init__(
        self,
        store: live.LiveStore,
        keeper: SecretKeeper,
        *,
        clock: Callable[[], str] = utc_now,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
        roller: Callable[[tables.Table], Roller] | None = None,
    ) -> None:
        self.store = store
        self.keeper = keeper
        self.clock = clock
        self.new_id = new_id
        self._roller = roller
        #: each campaign's table as last folded, caught up from its version on the next load
        self._tables: dict[str, tables.Table] = {}
        #: each campaign's live projections as last saved: (state, stream version) by name
        self._live: dict[str, dict[str, tuple[Any, int]]] = {}

    def load(self, campaign: str) -> tables.Table:
        """The folded table of a campaign (empty if it does not exist), folding only what is new."""
        cached = self._tables.get(campaign)
        start = cached.version if cached is not None else 0
        recorded = self.store.read_stream(tables.stream_for(campaign), start + 1)
        if not recorded and cached is not None:
            return cached
        version = recorded[-1].version if recorded else start
        table = tables.fold((decode(r.envelope) for r in recorded), version, initial=cached)
        self._tables[campaign] = table
        return table

    def _roller_for(self, campaign: str, table: tables.Table) -> Roller:
        if self._roller is not None:
            return self._roller(table)
        session = table.session
        if session is None:
            msg = "no session is open"
            raise NotFoundError(msg)
        key = hexdice.derive_key(kept_secret(self.keeper, campaign, session), session.client_seed)
        return KeyRoller(key)

    def execute(self, campaign: str, command: c.Command, command_id: str | None = None) -> Outcome:
        """Decide and append one command; nothing is written when it is refused."""
        digest = _checked_digest(campaign, command, command_id)
        if command_id is not None:
            earlier = self.store.command_result(command_id, digest)
            if earlier is not None:
                return Outcome(result=earlier, events=(), table=self.load(campaign))
        table = self.load(campaign)
        if not table.started and not isinstance(command, c.StartCampaign):
            msg = f"campaign {campaign!r} does not exist; run 'hexlog init' first"
            raise NotFoundError(msg)
        step_fn = HANDLERS.get(type(command))
        if step_fn is None:
            msg = f"unknown command {type(command).__name__}"
            raise UsageError(msg)
        step = Step(table=table, roller_source=lambda: self._roller_for(campaign, table))
        step_fn(step, command, Context(campaign=campaign, keeper=self.keeper))
        if not step.events:
            msg = f"{type(command).__name__} produced no events"
            raise UsageError(msg)
        source = tables.source_for(campaign)
        new = [
            NewEvent(
                id=self.new_id(), source=source, type=e.cloud_type(), time=self.clock(),
                schemaversion=e.schema_version, data=to_data(e),
            )
            for e in step.events
        ]
        result = self.store.append(
            tables.stream_for(campaign), new, expected_version=table.version,
            command_id=command_id, command_digest=digest,
        )
        after = tables.fold(step.events, result.last_version, initial=table)
        self._tables[campaign] = after
        live.refresh(self.store, tables.stream_for(campaign), self._live.setdefault(campaign, {}))
        return Outcome(result=result, events=tuple(step.events), table=after)
from hexlog.machine import encounter as _encounter  # noqa: E402,F401 - registers the encounter commands
