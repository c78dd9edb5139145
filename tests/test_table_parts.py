"""The table's parts are written as the codec writes them, though each event a part holds is unstructured once."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from hexlog.events import encounter as ev
from hexlog.events.codec import converter, decode
from hexlog.machine.encounter.state import EncounterState, Phase
from hexlog.machine.registry import REGISTRY
from hexlog.machine.table import EVENTS_REMEMBERED, TableProjection
from hexlog.replay.export import read_export

LOGS = Path(__file__).resolve().parent / "golden" / "logs"


@pytest.mark.parametrize("path", sorted(LOGS.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_part_of_every_table_of_a_golden_log_is_written_as_the_codec_writes_it(path: Path) -> None:
    """After each event of the log, each part the table writes is what ``converter.unstructure`` gives."""
    projection = TableProjection(REGISTRY)
    table = projection.initial()
    written = 0
    for event in (decode(e) for e in read_export(path.read_bytes().split(b"\n"))):
        table = projection.evolve(table, event)
        for key, part in projection.parts(table).items():
            if key != "rules":
                assert projection.encode(key, part) == {"v": converter.unstructure(part)}, key
                written += 1
    assert written > 0


def _started(monsters: int) -> ev.EncounterStarted:
    """The first encounter of the OSE golden log, with ``monsters`` monsters."""
    events = (decode(e) for e in read_export((LOGS / "ose.jsonl").read_bytes().split(b"\n")))
    first = next(e for e in events if isinstance(e, ev.EncounterStarted))
    return attrs.evolve(first, monster_count=monsters)


def test_an_event_a_part_keeps_is_unstructured_once_and_its_data_shared() -> None:
    """The state written again after a phase change holds the very data written for its event the first time."""
    projection = TableProjection(REGISTRY)
    state = EncounterState(started=_started(3))
    first = projection.encode("procedure/encounter", state)
    later = projection.encode("procedure/encounter", EncounterState(started=state.started, phase=Phase.SURPRISE))
    assert later["v"]["started"] is first["v"]["started"]
    assert later["v"]["phase"] == "surprise"


def test_more_events_of_a_class_than_are_remembered_are_each_written_as_themselves() -> None:
    """Events made and let go one after another, more than are remembered: each is written as it is."""
    projection = TableProjection(REGISTRY)
    started = _started(1)
    for monsters in range(1, 3 * EVENTS_REMEMBERED):
        state = EncounterState(started=attrs.evolve(started, monster_count=monsters))
        assert projection.encode("procedure/encounter", state)["v"]["started"]["monster_count"] == monsters
        del state
