"""The campaign's own commands: start and rules, sessions (commit and reveal), the party, free rolls.

They run no state machine; the kit routes them like any procedure's commands, and the clock options
every procedure shares are declared here.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import TYPE_CHECKING

import attrs

from hexlog.events import releases
from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.dice import Visibility
from hexlog.events.errors import Advice, CorruptLogError, NotFoundError, RuleRefusedError, UsageError
from hexlog.events.party import MemberAdded, MemberEdited, MemberRemoved, MemberSheet
from hexlog.events.session import ClientSeedSet, SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.vocabulary import SIDES
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import ruleset as rulesets
from hexlog.machine.keeper import ABANDON, kept_secret
from hexlog.machine.kit.clock import ClockOptions
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.kit.rules import RulesError
from hexlog.projections import sessions

if TYPE_CHECKING:
    from hexlog.machine.keeper import SecretKeeper
    from hexlog.machine.kit.context import StepContext
    from hexlog.projections.sessions import Session

SECRET_BYTES = 32
MAX_CLIENT_SEED = 256
MAX_CLIENT_SEED_V2 = 200
MAX_REASON = 500
_NAME = re.compile(r"^[\w][\w .'-]{0,63}$")
#: a campaign id names the CloudEvents source ``hexlog:<id>``, so it is a plain URI segment
_CAMPAIGN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_campaign_id(campaign: str) -> None:
    """Refuse a campaign id that is not a plain URI segment (``UsageError`` naming the form)."""
    if not _CAMPAIGN.match(campaign):
        msg = (
            f"campaign id {campaign!r} must be 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
        raise UsageError(msg)


def _rules(ctx: StepContext, ruleset: str, overrides: dict[str, object]) -> rulesets.Ruleset:
    """The rules a command names, checked by every procedure that reads them."""
    rules = rulesets.load(ruleset, dict(overrides), used=ctx.registry.used_keys())
    ctx.registry.check_rules(rules)
    return rules


def start_campaign(ctx: StepContext, command: c.StartCampaign) -> None:
    """Record the campaign's start with the whole resolved ruleset."""
    if ctx.table.started:
        msg = f"campaign {ctx.campaign} already exists (it needs no start); to start another: '"
        raise RuleRefusedError(msg).advising(Advice("StartCampaign", campaign="ID"), "'")
    check_campaign_id(ctx.campaign)
    rules = _rules(ctx, command.ruleset, command.overrides)
    ctx.emit(CampaignStarted(campaign=ctx.campaign, ruleset=rules.name, rules_hash=rules.hash, rules=rules.content))


def _usable(ctx: StepContext, rules: rulesets.Ruleset | None) -> bool:
    """Whether this release can play under ``rules`` (every procedure's parts read and checked)."""
    if rules is None:
        return True
    try:
        ctx.registry.check_rules(rules)
    except RulesError:
        return False
    return True


def change_rules(ctx: StepContext, command: c.ChangeRules) -> None:
    """Record new rules in force from now on; refused while a procedure is under way, unless the rules in
    force are ones this release refuses (recorded by an earlier one): then changing them is the way on."""
    under_way = ctx.registry.open_procedures(ctx.table)
    if under_way and _usable(ctx, ctx.table.rules):
        names = ", ".join(f"{p.name} (phase {p.phase_of(state).name})" for p, state in under_way)  # type: ignore[union-attr]
        msg = f"the rules cannot change while a procedure is under way: {names}; finish it first"
        raise RuleRefusedError(msg)
    rules = _rules(ctx, command.ruleset, command.overrides)
    ctx.emit(RulesChanged(ruleset=rules.name, rules_hash=rules.hash, rules=rules.content, reason=command.reason))


def open_session(ctx: StepContext, command: c.OpenSession) -> None:
    """Commit to a new secret; the secret goes to the key keeper (under its commitment), only its hash to the log."""
    current = ctx.table.session
    if current is not None and current.open:
        msg = f"session {current.id} is still open; close it first (or, if its secret is lost, end it with '"
        raise RuleRefusedError(msg).advising(ABANDON, "')")
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
    if ctx.commitment_used is None:
        msg = "no record of earlier sessions' commitments here: a session cannot be opened"
        raise RuleRefusedError(msg)
    if ctx.commitment_used(hexdice.commitment(secret)):
        msg = "that secret was already used by an earlier session; its rolls would be predictable"
        raise RuleRefusedError(msg)
    if ctx.keeper is None:
        msg = "no key keeper: a session cannot be opened here"
        raise RuleRefusedError(msg)
    session = sessions.session_id(ctx.table.session_count + 1)
    ctx.keeper.put(ctx.campaign, secret)
    ctx.emit(
        SessionOpened(
            session=session,
            commitment=hexdice.commitment(secret),
            scheme=hexdice.SCHEME,
            supplied=command.secret_hex is not None,
            release=releases.CURRENT,
        )
    )


def set_client_seed(ctx: StepContext, command: c.SetClientSeed) -> None:
    """Accept the players' seed, only before the session's first roll."""
    session = _open_session(ctx)
    if session.rolls > 0:
        msg = f"session {session.id} has already rolled; a client seed is accepted only before the first roll"
        raise RuleRefusedError(msg)
    if session.client_seed:
        msg = f"session {session.id} already has a client seed"
        raise RuleRefusedError(msg)
    problem = client_seed_problem(command.client_seed, session.scheme)
    if problem:
        raise UsageError(problem)
    ctx.emit(ClientSeedSet(session=session.id, client_seed=command.client_seed))


def client_seed_problem(seed: str, scheme: str) -> str:
    """Why a client seed cannot be used in a session of ``scheme`` ("" when it can).

    hexlog-dice-v2 takes 1 to 200 printable ASCII characters, so that no seed has a look-alike that
    types differently; v1 took any 1 to 256 characters.
    """
    if scheme == hexdice.V1:
        return "" if 0 < len(seed) <= MAX_CLIENT_SEED else f"a client seed must be 1 to {MAX_CLIENT_SEED} characters"
    if not 0 < len(seed) <= MAX_CLIENT_SEED_V2:
        return f"a client seed must be 1 to {MAX_CLIENT_SEED_V2} characters"
    odd = next((ch for ch in seed if not " " <= ch <= "~"), None)
    if odd is not None:
        return (
            f"a client seed must be printable ASCII (letters, digits, spaces, punctuation); "
            f"it holds {odd!r} (U+{ord(odd):04X})"
        )
    if seed != seed.strip(" ") or "  " in seed:
        # spaces the players cannot hear or see would give whoever types the seed variants to choose among
        return f"a client seed has one space between words and none before or after them ({seed!r})"
    return ""


def close_session(ctx: StepContext, command: c.CloseSession) -> None:  # noqa: ARG001 - the step signature
    """Reveal the session's secret (the kept one, checked against the commitment)."""
    session = _open_session(ctx)
    if ctx.keeper is None:
        msg = "no key keeper: the secret cannot be revealed here"
        raise RuleRefusedError(msg)
    secret = kept_secret(ctx.keeper, ctx.campaign, session.id, session.commitment)
    ctx.emit(SessionClosed(session=session.id, secret=secret.hex()))


def abandon_session(ctx: StepContext, command: c.AbandonSession) -> None:
    """End the open session without a reveal: its rolls can never be verified, and the next session may open."""
    session = _open_session(ctx)
    if ctx.keeper is not None and _still_kept(ctx.keeper, ctx.campaign, session):
        msg = (
            f"the key file still holds the secret of session {session.id}: close the session, which reveals it "
            "(a session is abandoned only when its secret is lost)"
        )
        raise RuleRefusedError(msg)
    reason = command.reason.strip()
    if not reason or len(reason) > MAX_REASON:
        msg = f"abandoning a session needs a reason of 1 to {MAX_REASON} characters"
        raise UsageError(msg)
    ctx.emit(SessionAbandoned(session=session.id, reason=reason))


def _check_sheet(sheet: MemberSheet) -> None:
    """Refuse a name or a score out of its range (``UsageError`` naming it)."""
    if not _NAME.match(sheet.name):
        msg = f"member name {sheet.name!r} must be 1-64 letters, digits, spaces or .'-"
        composed = unicodedata.normalize("NFC", sheet.name)
        if composed != sheet.name and _NAME.match(composed):  # a letter and its accent typed apart: they look as one
            msg += f", each letter one character: it holds an accent typed apart from its letter ({composed!r} is one)"
        raise UsageError(msg)
    single = " ".join(sheet.name.split())
    if sheet.name != single:
        msg = (
            f"member name {sheet.name!r} has a space at its end or two spaces together, so it looks like {single!r}; "
            "write it with single spaces between its words"
        )
        raise UsageError(msg)
    for label in ("cha", "wis", "dex", "strength"):
        value = getattr(sheet, label)
        if value not in c.ABILITY:
            msg = f"{label} must be {c.ABILITY.least} to {c.ABILITY.most}, not {value}"
            raise UsageError(msg)
    if sheet.speed not in c.SPEED:
        msg = f"speed must be {c.SPEED.least} to {c.SPEED.most} feet per turn, not {sheet.speed}"
        raise UsageError(msg)
    if sheet.infravision_ft not in c.INFRAVISION_FT:
        low, high = c.INFRAVISION_FT.least, c.INFRAVISION_FT.most
        msg = f"infravision must be {low} to {high} feet, not {sheet.infravision_ft}"
        raise UsageError(msg)


def _check_armor(armor: str | None) -> None:
    """Refuse an armor given as empty text: none is written ``none``, so a log never holds a blank armor."""
    if armor is not None and not armor.strip():
        msg = "armor is empty: give what the member wears, or none"
        raise UsageError(msg)


def add_member(ctx: StepContext, command: c.AddMember) -> None:
    """Add a character, checking its name and scores."""
    _check_armor(command.armor)
    sheet = MemberSheet(
        name=command.name,
        cha=command.cha,
        wis=command.wis,
        dex=command.dex,
        strength=command.strength,
        speed=command.speed,
        armor=command.armor,
        infravision_ft=command.infravision_ft,
    )
    _check_sheet(sheet)
    if ctx.table.party.member(command.name) is not None:
        msg = f"the party already has a member called {command.name}"
        raise RuleRefusedError(msg)
    _check_look_alike(ctx, command.name)
    ctx.emit(MemberAdded(**attrs.asdict(sheet)))


def _check_look_alike(ctx: StepContext, name: str, renamed: str = "") -> None:
    """Refuse a name that reads as another member's (the same letters in other forms: full-width, ligatures), which a
    roll made for one would be read as made for the other; ``renamed`` is the member being renamed."""
    shown = unicodedata.normalize("NFKC", name)
    for member in ctx.table.party.members:
        if member.name not in {name, renamed} and unicodedata.normalize("NFKC", member.name) == shown:
            msg = f"the party already has a member called {member.name}, which {name!r} looks like; give another name"
            raise RuleRefusedError(msg)


def edit_member(ctx: StepContext, command: c.EditMember) -> None:
    """Correct a member's name or scores: the edit records what was and what is; nothing is deleted."""
    _check_armor(command.armor)
    member = ctx.table.party.named(command.name)
    was = MemberSheet(**attrs.asdict(member))
    given = {f: getattr(command, f) for f in ("cha", "wis", "dex", "strength", "speed", "armor", "infravision_ft")}
    changes = {k: v for k, v in given.items() if v is not None}
    if command.new_name is not None:
        changes["name"] = command.new_name
    now = attrs.evolve(was, **changes)
    if now == was:
        msg = f"nothing to correct: give {command.name}'s new name or scores (e.g. --cha 14)"
        raise UsageError(msg)
    _check_sheet(now)
    if now.name != was.name:
        if ctx.table.party.member(now.name) is not None:
            msg = f"the party already has a member called {now.name}"
            raise RuleRefusedError(msg)
        _check_look_alike(ctx, now.name, renamed=was.name)
        under_way = ctx.registry.open_procedures(ctx.table)
        if under_way:
            names = ", ".join(p.name for p, _ in under_way)
            msg = f"a member cannot be renamed while a procedure is under way ({names}); finish it first"
            raise RuleRefusedError(msg)
    ctx.emit(MemberEdited(was=was, now=now, reason=command.reason))


def remove_member(ctx: StepContext, command: c.RemoveMember) -> None:
    """Remove a character."""
    ctx.table.party.named(command.name)
    ctx.emit(MemberRemoved(name=command.name, reason=command.reason))


def roll_dice(ctx: StepContext, command: c.RollDice) -> None:
    """A free roll by the referee (secret when asked, made for a member when named, with the modifiers the state
    imposes on it, counted against a low total when low is good); it may not take a procedure's purpose, nor none."""
    if not command.purpose.strip():
        msg = "say what the roll is for: the purpose is empty (leave --purpose out for 'free roll')"
        raise UsageError(msg)
    reserved = ctx.registry.reserved(command.purpose)
    if reserved is not None:
        msg = (
            f"the purpose {command.purpose!r} belongs to a procedure's own rolls ({reserved}); "
            "name the free roll otherwise"
        )
        raise UsageError(msg)
    made_for = command.made_for
    if made_for and made_for not in SIDES:
        ctx.table.party.named(made_for, also=f"; or a side: {', '.join(SIDES)}")
    ctx.roll(
        command.expression,
        command.purpose,
        made_for=made_for,
        visibility=Visibility.REFEREE if command.secret else Visibility.PUBLIC,
        low_is_good=command.low_is_good,
    )


def _still_kept(keeper: SecretKeeper, campaign: str, session: Session) -> bool:
    """Whether the keeper still holds the session's secret (one that matches its commitment)."""
    try:
        secret = keeper.get(campaign, session.id, session.commitment)
    except (NotFoundError, CorruptLogError):
        return False
    return hexdice.commitment(secret) == session.commitment


def _open_session(ctx: StepContext) -> Session:
    session = ctx.table.session
    if session is None or not session.open:
        msg = "no session is open; run '"
        raise RuleRefusedError(msg).advising(Advice("OpenSession"), "'")
    return session


CAMPAIGN = Procedure(
    name="campaign",
    title="The campaign's own commands: rules, sessions, the party and free rolls.",
    steps={
        c.StartCampaign: start_campaign,
        c.ChangeRules: change_rules,
        c.OpenSession: open_session,
        c.SetClientSeed: set_client_seed,
        c.CloseSession: close_session,
        c.AbandonSession: abandon_session,
        c.AddMember: add_member,
        c.EditMember: edit_member,
        c.RemoveMember: remove_member,
        c.RollDice: roll_dice,
    },
    rules=(ClockOptions,),
    events=(
        CampaignStarted,
        RulesChanged,
        SessionOpened,
        ClientSeedSet,
        SessionClosed,
        SessionAbandoned,
        MemberAdded,
        MemberRemoved,
        MemberEdited,
    ),
)
