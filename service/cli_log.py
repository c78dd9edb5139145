"""The log commands: the timeline, replay, audit, export and import."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hexlog.events.chain import verify_stream
from hexlog.events.codec import decode
from hexlog.events.dice import REFEREE, DiceRolled
from hexlog.events.encounter import EncounterStarted
from hexlog.events.errors import CorruptLogError, NotFoundError, RuleRefusedError, UsageError
from hexlog.events.files import MAX_EXPORT_BYTES, read_regular
from hexlog.events.procedure import PhaseChanged
from hexlog.events.session import SessionAbandoned, SessionClosed, SessionOpened
from hexlog.events.streams import stream_for
from hexlog.machine import dice as hexdice
from hexlog.machine.commands import SAFE_INTEGER
from hexlog.machine.text import counted
from hexlog.projections import live, visibility
from hexlog.replay import audit as audits
from hexlog.replay import export as exports
from hexlog.replay import player_audit
from hexlog.replay import repair as repairs
from hexlog.replay.chain_audit import TABLE
from hexlog.replay.explain import decoded, find_roll
from hexlog.replay.rebuild import EQUAL, projections
from hexlog.replay.rebuild import replay as rebuild_replay
from hexlog.replay.receipts import Receipt
from hexlog.replay.row_audit import MAX_JOBS
from hexlog.replay.verdict import Verdict
from hexlog.service import console, render
from hexlog.service.door import (
    OPENED,
    CampaignOption,
    DbOption,
    Door,
    check_text,
    close_store,
    database_url,
    key_file,
    open_store,
    shown_db,
    warn,
)
from hexlog.service.render_campaign import roll_name

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope
    from hexlog.events.store import EventStore

out = console.plain()

VIEWS = ("referee", "player")


def log(  # noqa: PLR0913, PLR0917 - one option per filter
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    view: Annotated[
        str, typer.Option(help="referee (everything) or player (secret rolls hidden until revealed)")
    ] = "referee",
    last: Annotated[int, typer.Option(help="show only the last N events (0: all)", min=0, max=SAFE_INTEGER)] = 0,
    session: Annotated[str | None, typer.Option(help="only what was recorded while this session was open")] = None,
    encounter: Annotated[
        int | None, typer.Option(help="only encounter N, from its start to its end", min=1, max=SAFE_INTEGER)
    ] = None,
    rolls: Annotated[bool, typer.Option("--rolls", help="only the rolls")] = False,  # noqa: FBT002 - a flag
    everything: Annotated[  # noqa: FBT002 - a flag
        bool, typer.Option("--all", help="show the phase changes too (hidden by default)")
    ] = False,
    as_json: Annotated[  # noqa: FBT002 - a flag
        bool, typer.Option("--json", help="one JSON object a line: version, time, type, text, data")
    ] = False,
) -> None:
    """Show the campaign as a timeline: every roll with what it meant, every decision.

    Phase changes are left out unless --all; --session, --encounter and --rolls narrow it down.
    """
    if view not in VIEWS:
        msg = f"--view must be referee or player, not {view!r}"
        raise UsageError(msg)
    door = Door.open(db, campaign, readonly=True)
    door.table()
    recorded = door.store.read_stream(stream_for(door.campaign))
    lines = render.timeline(recorded, player=view == "player")
    damaged = verify_stream([r.envelope for r in recorded])
    if damaged is not None:
        warn(
            f"the log of campaign {door.campaign} is damaged at version {damaged.streamversion}: {damaged.reason}; "
            "run 'hexlog audit'"
        )
    events = [decode(r.envelope) for r in recorded]
    keep = _kept(events, session=session, encounter=encounter, rolls=rolls, everything=everything)
    chosen = [(line, rec) for line, rec, ok in zip(lines, recorded, keep, strict=True) if ok]
    for line, rec in chosen[-last:] if last else chosen:
        if as_json:
            row = {"version": line.version, "time": line.time, "type": rec.envelope.type, "text": line.text}
            row["data"] = None if line.hidden else rec.envelope.data
            sys.stdout.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
        else:
            out.print(f"{line.version:>4}  {line.time[:19].replace('T', ' ')}  {line.text}")
    if recorded and not as_json:
        out.print(door.receipt())


def _kept(
    events: list[Event], *, session: str | None, encounter: int | None, rolls: bool, everything: bool
) -> list[bool]:
    """Which events the log shows: the session's, the encounter's, the rolls; phase changes only with --all."""
    keep = [everything or not isinstance(e, PhaseChanged) for e in events]
    if rolls:
        keep = [k and isinstance(e, DiceRolled) for k, e in zip(keep, events, strict=True)]
    if session is not None:
        span = _span(
            events,
            lambda e: isinstance(e, SessionOpened) and e.session == session,
            lambda e: isinstance(e, SessionClosed | SessionAbandoned) and e.session == session,
        )
        if span is None:
            msg = f"no session {session} in this campaign"
            raise NotFoundError(msg)
        keep = [k and span[0] <= i <= span[1] for i, k in enumerate(keep)]
    if encounter is not None:
        span = _span(
            events,
            lambda e: isinstance(e, EncounterStarted) and e.number == encounter,
            lambda e: isinstance(e, PhaseChanged) and e.procedure == "encounter" and e.dest == "CONCLUDED",
        )
        if span is None:
            msg = f"no encounter {encounter} in this campaign"
            raise NotFoundError(msg)
        keep = [k and span[0] <= i <= span[1] for i, k in enumerate(keep)]
    return keep


def _span(events: list[Event], first: Callable[[Event], bool], last: Callable[[Event], bool]) -> tuple[int, int] | None:
    """The indices from the first event ``first`` holds for to the next ``last`` holds for (or the end)."""
    start = next((i for i, e in enumerate(events) if first(e)), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(events)) if last(events[i])), len(events) - 1)
    return start, end


def replay(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    repair: Annotated[  # noqa: FBT002 - a flag
        bool, typer.Option("--repair", help="write anew from the log every projection whose rows differ")
    ] = False,
) -> None:
    """Rebuild every projection from the log and say whether it equals the stored state.

    Exit 1 when stored rows differ from the log (commands would decide on them); --repair rewrites
    those rows from the log, says what it fixed and exits 0. Rows not saved yet are no difference.
    """
    door = Door.open(db, campaign, readonly=not repair)
    door.table()
    if repair:
        done = repairs.repair(door.store, door.campaign)
        out.print(done.before.text())
        out.print(done.text())
        report = done.after
    else:
        report = rebuild_replay(door.store, door.campaign)
        out.print(report.text())
    if not report.ok:
        out.print("replay DIFFERS from the stored state (hexlog replay --repair rewrites it from the log)")
        raise typer.Exit(1)
    if all(check.status == EQUAL for check in report.checks):
        out.print("replay matches the stored state")
    else:
        out.print("replay matches: no stored row differs from the log (the next command writes the others anew)")


def audit(  # noqa: PLR0913, PLR0917 - one option per way to audit
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    file: Annotated[Path | None, typer.Option("--file", help="audit an exported file instead of a database")] = None,
    roll: Annotated[
        str | None,
        typer.Option(
            "--roll", help="explain this roll: its name as the log shows it (s2#4, a secret roll's s2#r4), or a nonce"
        ),
    ] = None,
    session: Annotated[
        str | None, typer.Option(help="the session of --roll (default: the latest with that nonce)")
    ] = None,
    referee: Annotated[  # noqa: FBT002 - a flag
        bool,
        typer.Option(
            "--referee",
            help="the referee's audit: explain a secret roll of a session still open, and give the reasons of "
            "findings about what players may not see yet",
        ),
    ] = False,
    secret: Annotated[  # noqa: FBT002 - a flag
        bool,
        typer.Option("--secret", help="--roll N names a secret roll (as --roll rN does: the lanes count apart)"),
    ] = False,
    expect: Annotated[
        list[str] | None,
        typer.Option("--expect", help="a receipt the log must hold, CAMPAIGN@VERSION:FINGERPRINT (repeatable)"),
    ] = None,
    strict: Annotated[  # noqa: FBT002 - a flag
        bool, typer.Option("--strict", help="an INCOMPLETE verdict fails too (exit 1)")
    ] = False,
    jobs: Annotated[
        int,
        typer.Option(
            min=1,
            max=MAX_JOBS,
            help="processes to audit a whole database on, each its share of the campaigns (one campaign or a file: "
            "one process)",
        ),
    ] = 1,
) -> None:
    """Verify the chain, the commitments, every roll and decision, and any receipts; end with a verdict.

    Exit 0 VERIFIED, 3 INCOMPLETE (nothing wrong, but some rolls unverified or unprotected; 1 with
    --strict), 1 FAILED (the first bad event is named). Without --referee, the reason of a finding about
    an event players may not see yet (a secret roll, a referee's fact) is withheld, as in a player's view.
    """
    receipts = [Receipt.parse(text) for text in expect or ()]
    nonce, session, named_secret = _roll_named(roll, session) if roll is not None else (None, session, False)
    if file is not None:
        envelopes = _read_export(file)
        report = audits.audit_envelopes(envelopes, expect=receipts)
        audited: Callable[[], Iterable[Envelope]] = lambda: envelopes  # noqa: E731 - read once, above
    else:
        if campaign is not None:
            check_text(campaign, "--campaign")
            _check_receipts_of(campaign, receipts)
        store = open_store(db, readonly=True)
        OPENED.callback(close_store, store)
        if roll is not None:
            campaign = Door.open(db, campaign, readonly=True).campaign
        report = audits.audit_store(store, campaign, expect=receipts, jobs=jobs)
        if not report.events:  # an empty file (a creation cut short) reads as a database of nothing
            msg = f"the database {db} holds no events: there is nothing to audit ('hexlog init' starts a campaign)"
            raise NotFoundError(msg)
        envelopes = (
            [r.envelope for r in store.read_stream(stream_for(campaign))] if roll is not None and campaign else []
        )
        audited = _audited(store, campaign)
    if nonce is not None:
        _explain(envelopes, nonce, session, referee=referee, secret=secret or named_secret)
        return
    shown = report if referee else player_audit.for_player(report, audited)
    out.print(shown.text())
    if shown.text() != report.text():
        out.print("(what it says of events players may not see yet is withheld; the referee's audit: --referee)")
    report = shown
    verdict = report.verdict
    if verdict is Verdict.FAILED:
        first = report.first_bad
        assert first is not None  # noqa: S101 - a failure has a finding
        event = f" (event {first.event_id})" if first.event_id else ""  # a receipt's finding names no event
        # a finding about the events table names no stream or version
        where = "" if first.check == TABLE else f" at {first.stream} version {first.streamversion}{event}"
        sys.stderr.write(f"hexlog: audit FAILED{where}: {first.reason}\n")
    if verdict is Verdict.INCOMPLETE and strict:
        sys.stderr.write("hexlog: audit INCOMPLETE, a failure under --strict\n")
        raise typer.Exit(Verdict.FAILED.exit_code)
    if verdict is not Verdict.VERIFIED:
        raise typer.Exit(verdict.exit_code)


def _check_receipts_of(campaign: str, receipts: list[Receipt]) -> None:
    """``UsageError`` for a receipt of another campaign than the one audited."""
    for receipt in receipts:
        if receipt.campaign != campaign:
            msg = (
                f"{of_another_campaign(receipt, campaign)}: "
                f"check it with --campaign {receipt.campaign} (or without --campaign, the whole database)"
            )
            raise UsageError(msg)


def of_another_campaign(receipt: Receipt, campaign: str) -> str:
    """Why a receipt of another campaign than the one audited is refused: the audit of one campaign cannot hold it (it
    would say the log holds no such campaign, though the database may)."""
    return f"receipt {receipt} is of campaign {receipt.campaign!r}, not of {campaign!r}, the one audited"


def _audited(store: EventStore, campaign: str | None) -> Callable[[], Iterable[Envelope]]:
    """How to read again what an audit of the store (or one campaign of it) read."""
    if campaign is None:
        return lambda: (r.envelope for r in store.read_all())
    return lambda: (r.envelope for r in store.iter_stream(stream_for(campaign)))


def _roll_named(text: str, session: str | None) -> tuple[int, str | None, bool]:
    """The nonce, session and lane a roll's name gives: ``s2#4`` (session s2, public nonce 4), ``s2#r4`` (its
    secret nonce 4), or ``4`` / ``r4`` (with --session, or the latest session with it)."""
    named, _, digits = text.strip().rpartition("#")
    secret = digits.startswith(hexdice.REFEREE_MARK)
    digits = digits.removeprefix(hexdice.REFEREE_MARK)
    if not digits.isascii() or not digits.isdigit() or len(digits) > len(str(SAFE_INTEGER)):
        msg = f"--roll takes a roll's name as the log shows it (s2#4, a secret roll's s2#r4) or a nonce, not {text!r}"
        raise UsageError(msg)
    if named and session is not None and named != session:
        msg = f"--roll {text} names session {named}, but --session says {session}"
        raise UsageError(msg)
    return int(digits), named or session, secret


def _explain(envelopes: list[Envelope], nonce: int, session: str | None, *, referee: bool, secret: bool) -> None:
    out.print(explained(envelopes, nonce, session, referee=referee, secret=secret))


def explained(envelopes: list[Envelope], nonce: int, session: str | None, *, referee: bool, secret: bool) -> str:
    """One roll's derivation; refused for a secret roll of a session still open unless the referee asks, and
    without the contents of the decisions a player may not see yet."""
    if not envelopes:
        msg = "no events to explain a roll from"
        raise NotFoundError(msg)
    if referee:
        return audits.explain_roll(envelopes, nonce, session, secret=secret)
    withheld = {version for _, version in player_audit.hidden_versions(envelopes)}
    text = audits.explain_roll(envelopes, nonce, session, secret=secret, withheld=withheld)
    _, events = decoded(envelopes)
    hidden = render.hidden_rolls(e for e in events if e is not None)
    found = find_roll(events, nonce, session, secret=secret)
    roll = events[found[-1]] if found else None
    if (
        isinstance(roll, DiceRolled)
        and roll.visibility == REFEREE
        and any((s, n) == (roll.session, nonce) for s, _, n in hidden)
    ):
        msg = (
            f"roll {roll_name(roll)} (nonce {nonce} of session {roll.session}) is secret until the session "
            "closes (the referee may pass --referee)"
        )
        raise RuleRefusedError(msg)
    return text


def _read_export(path: Path) -> list[Envelope]:
    """The events of an export file; a file that is not an export at all (not JSON lines, an event's attributes
    missing, empty) is a malformed file: ``UsageError`` (exit 2). One that is an export but does not verify is
    refused later (exit 1)."""
    lines = _read_lines(path)
    try:
        return exports.read_export(lines)
    except CorruptLogError as err:
        msg = f"{path} is not a hexlog export: {err}"
        raise UsageError(msg) from err


def _read_lines(path: Path) -> list[bytes]:
    """The file's lines: only a newline ends one (U+2028 and friends are text inside a string).

    Only a regular file of at most ``MAX_EXPORT_BYTES`` is read (never a FIFO or a device).
    """
    return read_regular(path, limit=MAX_EXPORT_BYTES).split(b"\n")


def export(
    db: DbOption = Path("hexlog.db"),
    campaign: CampaignOption = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="write to this file instead of standard output")
    ] = None,
    referee: Annotated[  # noqa: FBT002 - a flag
        bool, typer.Option("--referee", help="export even while secret rolls are unrevealed")
    ] = False,
) -> None:
    """Write a campaign as CloudEvents JSON lines (hexlog-chain-v1) for offline verification.

    A referee's copy (``--referee``) is written readable by its owner only: it may hold secret rolls.
    """
    door = Door.open(db, campaign, readonly=True)
    recorded = door.store.read_stream(stream_for(door.campaign))
    # a stream of sessions and rolls that never started a campaign (an early export, imported) is written too
    table = door.handler.load(door.campaign) if recorded else door.table()
    events = [decode(r.envelope) for r in recorded]
    hidden = visibility.withheld_sessions(events)
    if hidden and not referee:
        sessions = ", ".join(sorted(hidden))
        msg = (
            f"session {sessions} is still open and has secret rolls: an export now would show them; "
            "close the session first (or pass --referee for the referee's own copy)"
        )
        raise RuleRefusedError(msg)
    damaged = verify_stream([r.envelope for r in recorded])
    if damaged is not None:
        warn(
            f"the log of campaign {door.campaign} is damaged at version {damaged.streamversion}: {damaged.reason}; "
            "the export will not import or verify: run 'hexlog audit'"
        )
    lines = list(exports.export_lines(door.store, door.campaign))
    text = "".join(line + "\n" for line in lines)
    if out_file is None:
        sys.stdout.write(text)
    else:
        _write_export(out_file, text, private=referee, kept=kept_files(db))
        out.print(f"exported {counted(len(lines), 'event')} of campaign {door.campaign} to {out_file}")
    if table.session is not None and table.session.open:
        sys.stderr.write(
            f"hexlog: note: session {table.session.id} is still open; its rolls can be verified once it closes\n"
        )


#: the files SQLite keeps beside a database while it writes it
_SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def kept_files(db: Path) -> list[Path]:
    """The files an export may never be written over: the database (a SQLite file and those SQLite keeps beside it)
    and the key file that holds its sessions' secrets."""
    given = os.environ.get("HEXLOG_KEY_FILE", "").strip()
    kept = [Path(given)] if given else []
    if database_url(db) is None:
        kept += [db, key_file(db), *(db.with_name(db.name + side) for side in _SQLITE_SIDE_FILES)]
    return kept


def _refuse_kept(path: Path, kept: Path) -> None:
    msg = f"cannot write {path}: it is {kept}, in which the database keeps its log or its secrets; name another file"
    raise UsageError(msg)


def _write_export(path: Path, text: str, *, private: bool, kept: Sequence[Path] = ()) -> None:
    """Write an export; a private one (the referee's) readable by its owner only, even over an older file. A file of
    ``kept`` (the database, its key file) is refused before anything is written to it."""
    for other in kept:  # by name first, so that a key file not made yet is not made an export
        if os.path.realpath(path) == os.path.realpath(other):
            _refuse_kept(path, other)
    try:  # without blocking: a FIFO nobody reads is refused, never waited for
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o600 if private else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                msg = f"cannot write {path}: it is not a regular file"
                raise UsageError(msg)
            written = os.fstat(fd)
            for other in kept:  # then as the file opened: another name (a hard link) of one of them
                with contextlib.suppress(OSError):  # one that is not there is not this one
                    found = other.stat()
                    if (found.st_dev, found.st_ino) == (written.st_dev, written.st_ino):
                        _refuse_kept(path, other)
            os.set_blocking(fd, True)
            if private:
                os.fchmod(fd, 0o600)
            os.ftruncate(fd, 0)
            handle.write(text)
    except OSError as err:
        msg = f"cannot write {path}: {err.strerror}"
        raise UsageError(msg) from err


def import_(
    file: Annotated[Path, typer.Argument(help="an export written by 'hexlog export'")],
    db: DbOption = Path("hexlog.db"),
) -> None:
    """Read an export back into a database, verifying it first; nothing is written if it fails."""
    envelopes = _read_export(file)
    report = audits.audit_envelopes(envelopes)
    if not report.ok:
        first = report.first_bad
        assert first is not None  # noqa: S101 - not ok means a finding
        msg = (
            f"{file} does not verify at line {first.index + 1} (event {first.event_id}): "
            f"{first.reason}; nothing imported"
        )
        raise CorruptLogError(msg)
    exports.checked(envelopes, audited=True)  # before the store is opened: a new database, file or schema, is made
    store = open_store(db, create=True)  # only for an import that is whole
    OPENED.callback(close_store, store)  # a new file left without events (a failed import) is removed
    result = exports.import_envelopes(store, envelopes, audited=True)
    live.refresh(store, result.stream_id, projections())  # a cache: a write it cannot make is skipped
    # a roll of a session still open (or abandoned) cannot be re-derived yet (or ever): said, never called verified
    out.print(
        f"imported {counted(result.events, 'event')} of campaign {result.campaign} into {shown_db(db)}; "
        f"chain verified, {report.rolls_verified} of {report.rolls} rolls re-derived"
    )
    for caveat in report.caveats:
        sys.stderr.write(f"hexlog: note: {caveat}\n")
    for aside in report.asides:  # what the audit notes without changing its verdict, as 'hexlog audit' prints it
        sys.stderr.write(f"hexlog: note: {aside}\n")


def install(app: typer.Typer) -> None:
    """Add the log commands to the command line."""
    app.command()(log)
    app.command()(replay)
    app.command()(audit)
    app.command()(export)
    app.command("import")(import_)
