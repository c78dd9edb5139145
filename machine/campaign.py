"""The steps of campaign, session, party and free-roll commands."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.dice import PUBLIC, REFEREE
from hexlog.events.errors import NotFoundError, RuleRefusedError, UsageError
from hexlog.events.party import MemberAdded, MemberRemoved
from hexlog.events.session import DICE_SCHEME, ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine.step import Step

SECRET_BYTES = 32
MAX_CLIENT_SEED = 256
MAX_REASON = 500
#: the longest infravision range a character may have, in feet (the texts give 60 to 120)
MAX_INFRAVISION_FT = 1000
ABILITY_RANGE = range(3, 19)
_NAME = re.compile(r"^[\w][\w .'-]{0,63}$")


def start_campaign(step: Step, command: c.StartCampaign, campaign: str) -> None:
    """Record the campaign's start with the whole resolved ruleset."""
    if step.table.started:
        msg = f"campaign {campaign} already exists"
        raise RuleRefusedError(msg)
    rules = rulesets.load(command.ruleset, command.overrides)
    step.emit(CampaignStarted(campaign=campaign, ruleset=rules.name, rules_hash=rules.hash, rules=rules.content))


def change_rules(step: Step, command: c.ChangeRules) -> None:
    """Record new rules in force from now on."""
    rules = rulesets.load(command.ruleset, command.overrides)
    step.emit(RulesChanged(ruleset=rules.name, rules_hash=rules.hash, rules=rules.content, reason=command.reason))


def open_session(step: Step, command: c.OpenSession, keep: Callable[[bytes], None]) -> None:
    """Commit to a new secret; the secret goes to the key keeper (under its commitment), only its hash to the log."""
    current = step.table.session
    if current is not None and current.open:
        msg = (
            f"session {current.id} is still open; close it first "
            "(or, if its secret is lost, end it with 'hexlog session abandon --reason TEXT')"
        )
        raise RuleRefusedError(msg)
    if command.secret_hex is None:
        secret = secrets.token_bytes(SECRET_BYTES)
    else:
        try:
            secret = bytes.fromhex(command.secret_hex)
        except ValueError:
            secret = b""
        if len(secret) != SECRET_BYTES:
            msg = f"a session secret must be {SECRET_BYTES} bytes written as {SECRET_BYTES * 2} hex digits"
            raise UsageError(msg)
    if hexdice.commitment(secret) in step.table.commitments:
        msg = "that secret was already used by an earlier session; its rolls would be predictable"
        raise RuleRefusedError(msg)
    session = f"s{step.table.session_count + 1}"
    keep(secret)
    step.emit(SessionOpened(session=session, commitment=hexdice.commitment(secret), scheme=DICE_SCHEME))


def set_client_seed(step: Step, command: c.SetClientSeed) -> None:
    """Accept the players' seed, only before the session's first roll."""
    session = _open_session(step)
    if session.next_nonce > 0:
        msg = f"session {session.id} has already rolled; a client seed is accepted only before the first roll"
        raise RuleRefusedError(msg)
    if session.client_seed:
        msg = f"session {session.id} already has a client seed"
        raise RuleRefusedError(msg)
    if not command.client_seed or len(command.client_seed) > MAX_CLIENT_SEED:
        msg = f"a client seed must be 1 to {MAX_CLIENT_SEED} characters"
        raise UsageError(msg)
    step.emit(ClientSeedSet(session=session.id, client_seed=command.client_seed))


def close_session(step: Step, command: c.CloseSession, secret_of: Callable[[Any], bytes]) -> None:  # noqa: ARG001 - handler table signature
    """Reveal the session's secret (``secret_of(session)`` is the kept one, checked again here)."""
    session = _open_session(step)
    secret = secret_of(session)
    if hexdice.commitment(secret) != session.commitment:
        msg = f"the kept secret of session {session.id} does not match its commitment"
        raise RuleRefusedError(msg)
    step.emit(SessionClosed(session=session.id, secret=secret.hex()))


def abandon_session(step: Step, command: c.AbandonSession) -> None:
    """End the open session without a reveal: its rolls can never be verified, and the next session may open."""
    session = _open_session(step)
    reason = command.reason.strip()
    if not reason or len(reason) > MAX_REASON:
        msg = f"abandoning a session needs a reason of 1 to {MAX_REASON} characters"
        raise UsageError(msg)
    step.emit(SessionAbandoned(session=session.id, reason=reason))


def add_member(step: Step, command: c.AddMember) -> None:
    """Add a character, checking its name and scores."""
    if not _NAME.match(command.name):
        msg = f"member name {command.name!r} must be 1-64 letters, digits, spaces or .'-"
        raise UsageError(msg)
    if step.table.party.member(command.name) is not None:
        msg = f"the party already has a member called {command.name}"
        raise RuleRefusedError(msg)
    for label in ("cha", "wis", "dex", "strength"):
        value = getattr(command, label)
        if value not in ABILITY_RANGE:
            msg = f"{label} must be 3 to 18, not {value}"
            raise UsageError(msg)
    if not 0 < command.speed <= 480:  # noqa: PLR2004 - the fastest base rate in the texts is 480
        msg = f"speed must be 1 to 480 feet per turn, not {command.speed}"
        raise UsageError(msg)
    if not 0 <= command.infravision_ft <= MAX_INFRAVISION_FT:
        msg = f"infravision must be 0 to {MAX_INFRAVISION_FT} feet, not {command.infravision_ft}"
        raise UsageError(msg)
    fields: dict[str, Any] = {
        k: getattr(command, k)
        for k in ("name", "cha", "wis", "dex", "strength", "speed", "armor", "infravision_ft")
    }
    step.emit(MemberAdded(**fields))


def remove_member(step: Step, command: c.RemoveMember) -> None:
    """Remove a character."""
    if step.table.party.member(command.name) is None:
        msg = f"the party has no member called {command.name}"
        raise NotFoundError(msg)
    step.emit(MemberRemoved(name=command.name, reason=command.reason))


def roll_dice(step: Step, command: c.RollDice) -> None:
    """A free roll by the referee (secret when asked)."""
    step.roll(command.expression, command.purpose, visibility=REFEREE if command.secret else PUBLIC)


def _open_session(step: Step) -> Any:
    session = step.table.session
    if session is None or not session.open:
        msg = "no session is open; run 'hexlog session open'"
        raise RuleRefusedError(msg)
    return session
