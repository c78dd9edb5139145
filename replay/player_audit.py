"""What a player may read of an audit: the verdict and every finding, with nothing the player view hides.

An audit runs over the whole log (secret rolls and the referee's facts too), so its verdict is the same
for everybody. Its text, though, can quote what it checked: a secret roll's faces or purpose, the feature
a lost party found, a decision that used a secret roll. A player's copy keeps the counts, the verdict,
the caveats and every finding's place and check, but withholds the event's id and the reason of a
finding about an event the player view hides (``hexlog.projections.visibility``), and any line of the
referee's hand or of a caveat that names one. An event that does not decode is judged by what its
envelope says: while its session is open, one that is (or may be) a secret roll, of a kind only the
referee may know, of an unknown type, or naming a secret roll counts as hidden. The checks of the chain
itself (links, order, positions, source, receipts) say nothing of an event's contents and are always
shown, without a hidden event's id. What the audit says of the map's hidden features (how many were never
revealed, the searches that may have read them) counts openings a player may not see yet (a lost party's find):
in a stream that holds hidden events and places hidden features, it is one fixed line, whatever was found.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.base import event_class
from hexlog.events.codec import decode
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import HexlogError
from hexlog.events.hexmap import HiddenFeaturePlaced
from hexlog.projections.visibility import PUBLIC, SESSION, PlayerView, ended_sessions
from hexlog.replay import hidden_audit
from hexlog.replay.chain_audit import malformed

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from hexlog.events.base import Event
    from hexlog.events.chain import Envelope
    from hexlog.replay.audit import AuditReport, Finding

#: the checks whose reasons never quote an event's contents
CONTENT_FREE = frozenset({"chain", "order", "positions", "source", "receipt"})
#: what a player reads in place of a withheld reason
WITHHELD = "(withheld: the event is the referee's until its session ends; the referee's audit shows it)"
#: what a player reads in place of a hidden event's id
WITHHELD_ID = "(id withheld)"
_VERSION = re.compile(r"^(?:(?P<stream>\S+): )?stream version (?P<version>\d+): ")


#: what a player reads in place of the audit's lines of the hidden features, in a stream that holds hidden events
FEATURES_WITHHELD = (
    "what the audit says of the map's hidden features is withheld while the stream holds events players may not "
    "see yet (a lost party's find opens one): the referee's audit shows it"
)
#: the type of the event that places a hidden feature, as its envelope names it
_PLACED = f"hexlog.{HiddenFeaturePlaced.type_name}"


def hidden_versions(envelopes: Iterable[Envelope]) -> frozenset[tuple[str, int]]:
    """(stream, version) of every event a player may not see now: hidden by the player view, or undecodable."""
    return _scan(envelopes)[0]


def _scan(envelopes: Iterable[Envelope]) -> tuple[frozenset[tuple[str, int]], frozenset[str]]:
    """``hidden_versions``, and the streams that place a hidden feature."""
    streams: dict[str, list[Envelope]] = {}
    for env in envelopes:
        if malformed(env) is None:  # an envelope of the wrong shape is the audit's finding, of no event
            streams.setdefault(env.subject, []).append(env)
    hidden: set[tuple[str, int]] = set()
    for stream, listed in streams.items():
        ordered = sorted(listed, key=lambda env: env.streamversion)
        events: list[Event | None] = []
        for env in ordered:
            try:
                events.append(decode(env))
            except HexlogError:
                events.append(None)
        view = PlayerView(ended_sessions(e for e in events if e is not None))
        for env, event in zip(ordered, events, strict=True):
            if _undecodable_hidden(env, view) if event is None else view.hides(event):
                hidden.add((stream, env.streamversion))
    placing = frozenset(stream for stream, listed in streams.items() if any(e.type == _PLACED for e in listed))
    return frozenset(hidden), placing


def _undecodable_hidden(env: Envelope, view: PlayerView) -> bool:
    """Whether an event that does not decode may hold what a player may not see yet, from its envelope."""
    if not view.current or view.current in view.ended:
        return False  # no session, or one whose secrets are revealed
    try:
        cls = event_class(env.type)
    except HexlogError:
        return True  # of no known kind: it could be anything
    data = env.data if isinstance(env.data, dict) else {}
    if str(getattr(cls, "referee_only", "")) == SESSION:
        return True
    if cls is DiceRolled:
        return data.get("visibility") != PUBLIC
    if _nonces(data, "referee_rolls"):
        return True
    return any((view.current, lane, n) in view.hidden for lane in ("", PUBLIC) for n in _nonces(data, "rolls"))


def _nonces(data: dict[str, Any], field: str) -> list[int]:
    found = data.get(field)
    return [n for n in found if isinstance(n, int)] if isinstance(found, list) else []


def _finding(finding: Finding, hidden: frozenset[tuple[str, int]]) -> Finding:
    """The finding with a hidden event's id withheld (its hash is in the chain: with the id, the few contents
    the event may hold could each be hashed and tried), and its reason too unless the check is content-free."""
    if (finding.stream, finding.streamversion) not in hidden:
        return finding
    if finding.check in CONTENT_FREE:
        return attrs.evolve(finding, event_id=WITHHELD_ID)
    return attrs.evolve(finding, event_id=WITHHELD_ID, reason=WITHHELD)


def _line(line: str, hidden: frozenset[tuple[str, int]], streams: Sequence[str]) -> str:
    """A line of the referee's hand or a caveat, withheld when it names a hidden event's version."""
    found = _VERSION.match(line)
    if found is None:
        return line
    stream = found["stream"] or (streams[0] if len(streams) == 1 else "")
    if (stream, int(found["version"])) not in hidden:
        return line
    return f"{found[0]}{WITHHELD}"


def _names_events(report: AuditReport) -> bool:
    """Whether the report says anything of particular events beyond the chain (else there is nothing to withhold)."""
    lines = (*report.caveats, *report.by_hand)
    findings = (*report.findings, *report.unverifiable)
    return any(f.check not in CONTENT_FREE for f in findings) or any(_VERSION.match(line) for line in lines)


def for_player(report: AuditReport, envelopes: Callable[[], Iterable[Envelope]]) -> AuditReport:
    """The report as a player may read it: same verdict and counts, nothing the player view hides.

    ``envelopes()`` gives those the report audited (every stream's, or one campaign's); it is called only
    when the report names particular events.
    """
    if not _names_events(report) and not any(map(hidden_audit.speaks_of, (*report.caveats, *report.asides))):
        return report
    hidden, placing = _scan(envelopes())
    if not hidden:
        return report
    caveats, asides = _features_withheld(report, hidden, placing)
    return attrs.evolve(
        report,
        findings=tuple(_finding(f, hidden) for f in report.findings),
        unverifiable=tuple(_finding(f, hidden) for f in report.unverifiable),
        caveats=tuple(_line(line, hidden, report.streams) for line in caveats),
        by_hand=tuple(_line(line, hidden, report.streams) for line in report.by_hand),
        asides=asides,
    )


def _features_withheld(
    report: AuditReport, hidden: frozenset[tuple[str, int]], placing: frozenset[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The caveats and asides with the lines of the hidden features of each stream that holds hidden events taken
    out, and in their place one fixed caveat for each such stream that places hidden features: whether a line was
    there, and its counts, depend on openings the player may not see yet."""
    single = len(report.streams) == 1
    veiled = {stream for stream, _ in hidden}

    def kept(line: str) -> bool:
        stream = report.streams[0] if single else line.partition(": ")[0]
        return not (stream in veiled and hidden_audit.speaks_of(line))

    caveats = [line for line in report.caveats if kept(line)]
    caveats += [
        FEATURES_WITHHELD if single else f"{stream}: {FEATURES_WITHHELD}"
        for stream in report.streams
        if stream in veiled and stream in placing
    ]
    return tuple(caveats), tuple(line for line in report.asides if kept(line))
