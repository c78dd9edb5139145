"""The table: everything a command needs to decide, folded from the campaign's stream.

The rules in force, the session lifecycle, the party, the clock, each procedure's own state (by the
registry's folds) and the hand-offs under way. The table is also a live projection: its parts are
kept in the store and only the parts a command changed are written with its events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hexlog.events.base import Event
from hexlog.events.campaign import CampaignStarted, RulesChanged
from hexlog.events.codec import converter
from hexlog.events.procedure import HandedOff, PhaseChanged, Resumed
from hexlog.events.streams import source_for, stream_for
from hexlog.machine import ruleset as rulesets
from hexlog.projections import clock as clock_model
from hexlog.projections import party as party_model
from hexlog.projections import sessions as session_model

if TYPE_CHECKING:
    from collections.abc import Callable

    from hexlog.machine.kit.registry import Registry

__all__ = ["Table", "TableProjection", "evolve", "fold", "source_for", "stream_for"]

#: how many events of one class ``PARTS`` remembers the data of
EVENTS_REMEMBERED = 256


def _written_once(cls: type[Event]) -> Callable[[Event], Any]:
    """The codec's unstructuring of events of ``cls``, remembering the data of the latest events it was given."""
    unstructure = converter.get_unstructure_hook(cls)
    remembered: dict[int, tuple[Event, Any]] = {}

    def once(event: Event) -> Any:
        found = remembered.get(id(event))
        if found is not None:  # the entry holds the event, so no other event has its id meanwhile
            return found[1]
        data = unstructure(event)
        if len(remembered) >= EVENTS_REMEMBERED:
            remembered.clear()
        remembered[id(event)] = (event, data)
        return data

    return once


#: what the table's parts are written with: the codec's converter, but an event a part holds is unstructured once,
#: not at every command (a procedure's state keeps the events it was folded from, and a command that changes it
#: writes it whole); the data of an event is shared by the rows that hold it, and nothing changes it
PARTS = converter.copy()
PARTS.register_unstructure_hook_factory(lambda cls: isinstance(cls, type) and issubclass(cls, Event), _written_once)


@attrs.frozen(kw_only=True)
class Table:
    """The folded state of one campaign."""

    campaign: str = ""
    version: int = 0
    rules: rulesets.Ruleset | None = None
    sessions: session_model.SessionLog = attrs.field(factory=session_model.SessionLog)
    party: party_model.Party = attrs.field(factory=party_model.Party)
    clock: clock_model.Clock = attrs.field(factory=clock_model.Clock)
    #: the procedures' own folded states, keyed by procedure name
    procedures: Mapping[str, Any] = attrs.field(factory=dict)
    #: (parent, child) of every hand-off under way, the latest last
    handoffs: tuple[tuple[str, str], ...] = ()
    #: (parent, child) of each procedure that concluded into the one that had handed it off (which resumed), until
    #: it runs again: its next steps are its parent's, not a fresh start of its own
    resumed: tuple[tuple[str, str], ...] = ()

    @property
    def started(self) -> bool:
        """Whether the campaign exists."""
        return self.rules is not None

    @property
    def session(self) -> session_model.Session | None:
        """The latest session."""
        return self.sessions.current

    @property
    def session_count(self) -> int:
        """How many sessions were opened."""
        return self.sessions.count

    def concluded_into(self, name: str) -> str:
        """The parent that resumed when procedure ``name`` concluded ("" when none did, or ``name`` ran since)."""
        return next((parent for parent, child in self.resumed if child == name), "")


def _procedures(procedures: Mapping[str, Any], event: Event, registry: Registry) -> Mapping[str, Any]:
    changed: dict[str, Any] | None = None
    for name, fold in registry.folds_of(type(event)):
        before = procedures.get(name)
        after = fold(before, event)
        if after is not before:
            if changed is None:
                changed = dict(procedures)
            if after is None:
                changed.pop(name, None)
            else:
                changed[name] = after
    return procedures if changed is None else changed


def _procedures_all(procedures: Mapping[str, Any], events: Sequence[Event], registry: Registry) -> Mapping[str, Any]:
    """The procedures' states after ``events`` (``_procedures`` event by event), each procedure's folded over the
    events it reads all at once; event by event when one of them begins or ends among them, as the names then take
    its order."""
    read: dict[str, list[Event]] = {}
    readers: dict[type[Event], tuple[tuple[str, Any], ...]] = {}
    for event in events:
        cls = event.__class__
        folds = readers.get(cls)
        if folds is None:
            folds = readers[cls] = registry.folds_of(cls)
        for name, _ in folds:
            read.setdefault(name, []).append(event)
    finals: dict[str, Any] = {}
    for name, fold in registry.folds:
        mine = read.get(name)
        if mine is None:
            continue
        state = before = procedures.get(name)
        for event in mine:
            after = fold(state, event)
            if (after is None) is not (state is None):  # begun or ended: the order of the names changes
                for one in events:
                    procedures = _procedures(procedures, one, registry)
                return procedures
            state = after
        if state is not before:
            finals[name] = state
    return {**procedures, **finals} if finals else procedures


#: the event classes the table's own parts (the party, the clock, its name, rules and hand-offs) read: at any other
#: event each leaves its part as it is
OWN_READS: tuple[type[Event], ...] = (
    *party_model.READS,
    *clock_model.READS,
    CampaignStarted,
    RulesChanged,
    HandedOff,
    Resumed,
)
#: what the table's list of procedures concluded into their parents reads besides ``OWN_READS``: a step of such a
#: procedure's own (it runs again), or its parent's fresh start; read only while one is listed, so a phase change
#: costs nothing the rest of the time
RESUMED_READS: tuple[type[Event], ...] = (PhaseChanged,)
#: whether the table's own parts read each event class met so far
_OWN_READ: dict[type[Event], bool] = {}


#: whether the session lifecycle reads each event class met so far
_SESSION_READ: dict[type[Event], bool] = {}


def _session_read(cls: type[Event]) -> bool:
    """Whether the session lifecycle reads events of ``cls`` (``sessions.READS``), noted."""
    found = _SESSION_READ[cls] = issubclass(cls, session_model.READS)
    return found


def _own_read(cls: type[Event]) -> bool:
    """Whether the table's own parts read events of ``cls`` (a subclass of a class in ``OWN_READS`` too), noted."""
    found = _OWN_READ[cls] = issubclass(cls, OWN_READS)
    return found


def _named(
    campaign: str, rules: rulesets.Ruleset | None, handoffs: tuple[tuple[str, str], ...], event: Event
) -> tuple[str, rulesets.Ruleset | None, tuple[tuple[str, str], ...]]:
    """The campaign's name, its rules and the hand-offs under way after one event."""
    match event:
        case CampaignStarted():
            campaign, rules = event.campaign, rulesets.from_recorded(event.ruleset, event.rules)
        case RulesChanged():
            rules = rulesets.from_recorded(event.ruleset, event.rules)
        case HandedOff():
            handoffs = (*handoffs, (event.parent, event.child))
        case Resumed() if handoffs:
            handoffs = handoffs[:-1]
    return campaign, rules, handoffs


def _resumed(resumed: tuple[tuple[str, str], ...], event: Event, registry: Registry) -> tuple[tuple[str, str], ...]:
    """The procedures concluded into their parents after one event: a child's conclusion resumes its parent; the child
    handed off again, or running again (a step of its own: started by hand), is no longer one, and neither is one
    whose parent starts afresh after it ended (a new camp made after the one the child concluded into was broken)."""
    match event:
        case Resumed():
            return (*(pair for pair in resumed if pair[1] != event.child), (event.parent, event.child))
        case HandedOff() | PhaseChanged() if resumed:
            child = event.child if isinstance(event, HandedOff) else event.procedure
            if any(pair[1] == child for pair in resumed):
                return tuple(pair for pair in resumed if pair[1] != child)
            if isinstance(event, PhaseChanged) and _starts_afresh(event, registry):
                return tuple(pair for pair in resumed if pair[0] != event.procedure)
    return resumed


def _starts_afresh(change: PhaseChanged, registry: Registry) -> bool:
    """Whether a procedure's phase change leaves one of its final phases: it starts again."""
    if change.procedure not in registry.runners:
        return False
    return change.source in {phase.name for phase in registry.procedure(change.procedure).final}


def evolve(table: Table, event: Event, registry: Registry) -> Table:
    """The table after one event (parts an event does not touch stay the same objects; each part is asked only of
    the events it reads)."""
    cls = event.__class__
    own = _OWN_READ.get(cls)
    sessions = table.sessions
    if _SESSION_READ.get(cls) or (cls not in _SESSION_READ and _session_read(cls)):
        sessions = session_model.evolve(sessions, event)
    procedures = _procedures(table.procedures, event, registry)
    if not (_own_read(cls) if own is None else own):
        resumed = _resumed(table.resumed, event, registry) if table.resumed and cls in RESUMED_READS else table.resumed
        if sessions is table.sessions and procedures is table.procedures and resumed is table.resumed:
            return table
        return _changed(
            table,
            campaign=table.campaign,
            rules=table.rules,
            sessions=sessions,
            party=table.party,
            clock=table.clock,
            procedures=procedures,
            handoffs=table.handoffs,
            resumed=resumed,
        )
    party = party_model.evolve(table.party, event)
    clock = clock_model.evolve(table.clock, event)
    campaign, rules, handoffs = _named(table.campaign, table.rules, table.handoffs, event)
    resumed = _resumed(table.resumed, event, registry)
    return _changed(
        table,
        campaign=campaign,
        rules=rules,
        sessions=sessions,
        party=party,
        clock=clock,
        procedures=procedures,
        handoffs=handoffs,
        resumed=resumed,
    )


def evolve_all(table: Table, events: Sequence[Event], registry: Registry) -> Table:
    """The table after ``events`` in order: what ``evolve`` gives event by event, built once. Its parts fold
    apart (none reads another), the session lifecycle with a run of rolls at once."""
    party, clock, procedures = table.party, table.clock, table.procedures
    campaign, rules, handoffs, resumed = table.campaign, table.rules, table.handoffs, table.resumed
    own = _OWN_READ.get
    for event in events:
        read = own(event.__class__)
        if not (_own_read(event.__class__) if read is None else read):
            if resumed and event.__class__ in RESUMED_READS:  # a procedure concluded into its parent runs again
                resumed = _resumed(resumed, event, registry)
            continue
        party = party_model.evolve(party, event)
        clock = clock_model.evolve(clock, event)
        campaign, rules, handoffs = _named(campaign, rules, handoffs, event)
        resumed = _resumed(resumed, event, registry)
    procedures = _procedures_all(procedures, events, registry)
    sessions = session_model.fold(table.sessions, events)
    return _changed(
        table,
        campaign=campaign,
        rules=rules,
        sessions=sessions,
        party=party,
        clock=clock,
        procedures=procedures,
        handoffs=handoffs,
        resumed=resumed,
    )


def _changed(  # noqa: PLR0913 - every part of the table
    table: Table,
    *,
    campaign: str,
    rules: rulesets.Ruleset | None,
    sessions: session_model.SessionLog,
    party: party_model.Party,
    clock: clock_model.Clock,
    procedures: Mapping[str, Any],
    handoffs: tuple[tuple[str, str], ...],
    resumed: tuple[tuple[str, str], ...],
) -> Table:
    """The table with these parts: the very same table when none is another object."""
    same = (
        party is table.party
        and clock is table.clock
        and sessions is table.sessions
        and procedures is table.procedures
        and rules is table.rules
        and handoffs is table.handoffs
        and resumed is table.resumed
        and campaign is table.campaign
    )
    if same:
        return table
    return Table(
        campaign=campaign,
        version=table.version,
        rules=rules,
        sessions=sessions,
        party=party,
        clock=clock,
        procedures=procedures,
        handoffs=handoffs,
        resumed=resumed,
    )


def fold(events: Iterable[Event], registry: Registry, version: int = 0, initial: Table | None = None) -> Table:
    """Fold decoded events into a table; ``version`` is the stream version they reach."""
    table = initial or Table()
    for event in events:
        table = evolve(table, event, registry)
    return attrs.evolve(table, version=version)


class TableProjection:
    """The table as a live projection: a few parts, each written only when a command changed it."""

    name = "table"
    #: 2: sessions count their secret rolls apart (hexlog-dice-v2) and say whether the secret was supplied;
    #: 3: the sessions part no longer lists every commitment (the ledger keeps a row per commitment);
    #: 4: a delve's known door says whether it was forced open or opened at once;
    #: 5: a door that opened at its first try is opened, not forced open;
    #: 6: a pursuit counts the encounters the rest after the escape met that have begun;
    #: 7: and follows the hand-off of each (the procedure that handed the pursuit off, the step it is at);
    #: 8: a delve's known door says whether it had to be forced (it sticks again when doors do);
    #: 9: a journey that has ended counts the quiet time since, and the delve, pursuit or chase under way;
    #: 10: a journey counts the hexes the party fled in secret since it last knew where it was;
    #: 11: a journey that has ended leaves the party knowing where it is (the hex ``travel.ended`` names);
    #: 12: the procedures concluded into the parents that resumed (their next steps are their parents'), and a
    #: session names the release of hexlog that opened it; 13: a procedure concluded into its parent is no longer
    #: listed once the parent starts afresh; 14: a journey says whether its day is one of rest, and when it started
    revision = 14

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._machines = [p for p in registry.procedures if p.fold is not None]
        #: the part of each procedure's state: (its key, the procedure's name), named once
        self._procedure_parts = [(f"procedure/{p.name}", p.name) for p in self._machines]

    def initial(self) -> Table:
        """An empty table."""
        return Table()

    def evolve(self, state: Table, event: Event) -> Table:
        """The table after one event."""
        return evolve(state, event, self.registry)

    def evolve_all(self, state: Table, events: Sequence[Event]) -> Table:
        """The table after ``events`` in order, built once."""
        return evolve_all(state, events, self.registry)

    def parts(self, state: Table) -> Mapping[str, Any]:
        """Its parts: identity and party and clock, the rules, the sessions, hand-offs (and the procedures concluded
        into their parents), each procedure."""
        parts: dict[str, Any] = {
            "campaign": state.campaign,
            "rules": state.rules,
            "sessions": state.sessions,
            "party": state.party,
            "clock": state.clock,
            "handoffs": state.handoffs,
            "resumed": state.resumed,
        }
        procedures = state.procedures
        for key, name in self._procedure_parts:
            parts[key] = procedures.get(name)
        return parts

    def encode(self, key: str, part: Any) -> Any:
        """A part as JSON-ready data, wrapped so that an absent part (None) is still a row."""
        if key == "rules":
            return {"v": None if part is None else {"name": part.name, "content": part.content}}
        return {"v": PARTS.unstructure(part)}

    def assemble(self, parts: Mapping[str, Any]) -> Table:
        """The table from its saved parts (a missing part raises: the table is then folded again)."""
        value = {key: data["v"] for key, data in parts.items()}
        rules = value["rules"]
        procedures: dict[str, Any] = {}
        for procedure in self._machines:
            data = value[f"procedure/{procedure.name}"]
            if data is not None and procedure.state_type is not None:
                procedures[procedure.name] = converter.structure(data, procedure.state_type)
        return Table(
            campaign=str(value["campaign"]),
            rules=None if rules is None else rulesets.from_stored(rules["name"], rules["content"]),
            sessions=converter.structure(value["sessions"], session_model.SessionLog),
            party=converter.structure(value["party"], party_model.Party),
            clock=converter.structure(value["clock"], clock_model.Clock),
            procedures=procedures,
            handoffs=tuple((str(parent), str(child)) for parent, child in value["handoffs"]),
            resumed=tuple((str(parent), str(child)) for parent, child in value["resumed"]),
        )

    def event_rows(self, before: Table, after: Table, event: Event) -> Mapping[str, Any]:  # noqa: ARG002 - protocol
        """The table writes no rows of its own beyond its parts."""
        return {}
