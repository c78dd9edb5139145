"""Each procedure's fold reads only the events its ``reads`` declares: at any other event it leaves its state as
it is, so the table does not ask it of them (``Registry.folds_of``).

The corpus is every golden log and the demo's log (a map, a journey past a castle, camps, a delve and a chase),
each event folded by every procedure's fold; and every golden sample event (one of each type and version) is
given to the states that corpus reaches.
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import pytest

from hexlog.events.base import Event
from hexlog.events.codec import decode, from_data
from hexlog.machine import table as tables
from hexlog.machine.kit.registry import Registry
from hexlog.machine.registry import REGISTRY
from hexlog.replay.export import read_export

from .conftest import secret_file

if TYPE_CHECKING:
    from types import ModuleType

GOLDEN = Path(__file__).parent / "golden"
SECRET = bytes(range(32)).hex()
#: the states of a procedure each golden sample is given to (spread over the corpus)
STATES_TRIED = 60


@pytest.fixture(scope="module")
def streams(hexlog_in, tmp_path_factory) -> list[list[Event]]:
    """The decoded events of every golden log and of the demo's log, a list per log."""
    folder = tmp_path_factory.mktemp("demo")
    played = hexlog_in(folder, "demo", "--secret-file", secret_file(folder, SECRET), "--client-seed", "table-7")
    assert played.returncode == 0, played.stderr
    exported = hexlog_in(folder, "export", "--campaign", "demo")
    assert exported.returncode == 0, exported.stderr
    texts = [exported.stdout.encode()]
    texts += [path.read_bytes() for path in sorted((GOLDEN / "logs").glob("*.jsonl"))]
    texts += [path.read_bytes() for path in sorted(GOLDEN.glob("*.jsonl"))]
    return [[decode(envelope) for envelope in read_export(text.split(b"\n"))] for text in texts]


@pytest.fixture(scope="module")
def samples() -> list[Event]:
    """One golden event of each type and schema version."""
    found = []
    for path in sorted((GOLDEN / "events").glob("*.json")):
        one = json.loads(path.read_text())
        found.append(from_data(one["type"], one["schemaversion"], one["data"]))
    return found


FOLDING = [p for p in REGISTRY if p.fold is not None]


def test_every_procedure_with_a_fold_declares_the_events_it_reads():
    assert FOLDING
    for procedure in FOLDING:
        assert procedure.reads, procedure.name
        assert all(issubclass(cls, Event) for cls in procedure.reads), procedure.name


@pytest.mark.parametrize("procedure", FOLDING, ids=lambda p: p.name)
def test_a_fold_leaves_its_state_as_it_is_at_every_event_it_does_not_read(procedure, streams, samples):
    assert procedure.fold is not None
    assert procedure.reads is not None
    fold, reads = procedure.fold, procedure.reads
    states = []
    for stream in streams:
        state = None
        for event in stream:
            after = fold(state, event)
            if not isinstance(event, reads):
                assert after is state, f"{procedure.name} changed its state at {event.type_name}: not in its reads"
            elif after is not None and after is not state:
                states.append(after)
            state = after
    assert len(states) > 1, f"the corpus never reaches a {procedure.name} state: this test would prove nothing"
    step = max(1, len(states) // STATES_TRIED)
    unread = [sample for sample in samples if not isinstance(sample, reads)]
    assert unread
    for state in [None, *states[::step]]:
        for sample in unread:
            assert fold(state, sample) is state, f"{procedure.name} changed its state at {sample.type_name}"


def test_the_table_folded_through_the_declared_reads_is_the_table_every_fold_gives(streams):
    """Folding event by event and a chunk at a time, as commands and replay do, against a registry whose folds
    are asked of every event."""
    asked_everything = Registry(tuple(attrs.evolve(p, reads=None) for p in REGISTRY))
    ran = 0
    for stream in streams:
        expected = tables.fold(stream, asked_everything, len(stream))
        assert tables.fold(stream, REGISTRY, len(stream)) == expected
        chunked = tables.Table()
        for start in range(0, len(stream), 37):
            chunked = tables.evolve_all(chunked, stream[start : start + 37], REGISTRY)
        assert attrs.evolve(chunked, version=len(stream)) == expected
        ran += bool(expected.procedures)
    assert ran >= len(streams) // 2  # most logs ran procedures, so the comparisons hold something


def _classes_matched(module: ModuleType) -> set[type]:
    """Every class the module's code matches an event against: class patterns of ``match`` statements and
    ``isinstance(event, ...)``, resolved in the module."""

    def resolved(node: ast.expr) -> list[type]:
        if isinstance(node, ast.BinOp):  # X | Y
            return resolved(node.left) + resolved(node.right)
        if isinstance(node, ast.Tuple):
            return [cls for one in node.elts for cls in resolved(one)]
        found = eval(compile(ast.Expression(node), module.__name__, "eval"), vars(module))  # noqa: S307 - the module's own names
        return [found] if isinstance(found, type) else []

    found: set[type] = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.MatchClass):
            found.update(resolved(node.cls))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == "event"
        ):
            found.update(resolved(node.args[1]))
    return found


@pytest.mark.parametrize("procedure", FOLDING, ids=lambda p: p.name)
def test_every_event_class_the_fold_matches_is_one_it_declares_it_reads(procedure):
    """What the corpus may not reach (a state only a rare path makes) is still declared: every event class its
    state module matches against is read."""
    assert procedure.fold is not None
    assert procedure.reads is not None
    module = sys.modules[procedure.fold.__module__]
    matched = {cls for cls in _classes_matched(module) if issubclass(cls, Event)}
    assert matched, f"no event class found in {module.__name__}: this test would prove nothing"
    unread = sorted(cls.__name__ for cls in matched if not issubclass(cls, procedure.reads))
    assert not unread, f"{procedure.name}'s fold matches {unread} but does not declare it reads them"


OWN_PARTS = (
    ("sessions", lambda table, event: tables.session_model.evolve(table.sessions, event)),
    ("party", lambda table, event: tables.party_model.evolve(table.party, event)),
    ("clock", lambda table, event: tables.clock_model.evolve(table.clock, event)),
    ("names", lambda table, event: tables._named(table.campaign, table.rules, table.handoffs, event)),
)


@pytest.mark.parametrize(("part", "evolve"), OWN_PARTS, ids=[part for part, _ in OWN_PARTS])
def test_the_tables_own_parts_are_left_as_they_are_at_every_event_they_do_not_read(part, evolve, streams, samples):
    """The party, the clock and the table's name, rules and hand-offs change only at ``OWN_READS``, so the table's
    fold of a run of events asks them only of those; every table the corpus reaches is given every other sample."""
    tables_reached = []
    for stream in streams:
        table = tables.Table()
        for event in stream:
            after = tables.evolve(table, event, REGISTRY)
            if not isinstance(event, _reads(part)):
                assert _same(evolve(table, event), _parts_of(part, table)), f"{part} changed at {event.type_name}"
            table = after
            tables_reached.append(table)
    unread = [sample for sample in samples if not isinstance(sample, _reads(part))]
    assert unread
    read = [sample for sample in samples if isinstance(sample, _reads(part))]
    assert read, "no sample is read by the table's own parts: this test would prove nothing"
    step = max(1, len(tables_reached) // STATES_TRIED)
    for table in tables_reached[::step]:
        for sample in unread:
            assert _same(evolve(table, sample), _parts_of(part, table)), f"{part} changed at {sample.type_name}"


def _reads(part: str) -> tuple[type, ...]:
    return tables.session_model.READS if part == "sessions" else tables.OWN_READS


def _parts_of(part: str, table: tables.Table) -> object:
    if part == "sessions":
        return table.sessions
    if part == "party":
        return table.party
    if part == "clock":
        return table.clock
    return (table.campaign, table.rules, table.handoffs)


def _same(after: object, before: object) -> bool:
    """The very same part (or, for a tuple of parts, the very same parts)."""
    if isinstance(before, tuple) and isinstance(after, tuple):
        return len(before) == len(after) and all(a is b for a, b in zip(after, before, strict=True))
    return after is before


@pytest.mark.parametrize(
    ("module", "reads"),
    [
        (tables.party_model, tables.OWN_READS),
        (tables.clock_model, tables.OWN_READS),
        (tables, (*tables.OWN_READS, *tables.RESUMED_READS)),
        (tables.session_model, tables.session_model.READS),
    ],
    ids=["party", "clock", "names", "sessions"],
)
def test_every_event_class_the_tables_own_parts_match_is_in_their_reads(module, reads):
    """What the party, the clock, the table's names and the session lifecycle match an event against is declared in
    ``OWN_READS`` (the session lifecycle's in ``sessions.READS``; the procedures concluded into their parents also
    read ``RESUMED_READS``, asked of them while one is listed)."""
    matched = {cls for cls in _classes_matched(module) if issubclass(cls, Event)}
    assert matched, f"no event class found in {module.__name__}: this test would prove nothing"
    unread = sorted(cls.__name__ for cls in matched if not issubclass(cls, reads))
    assert not unread, f"{module.__name__} matches {unread}, which its reads do not list"
