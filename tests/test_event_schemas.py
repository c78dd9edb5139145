"""The event catalogue: published JSON Schemas that equal the classes and hold every event hexlog writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from hexlog.events import codec
from hexlog.events.base import TYPE_PREFIX, registered
from hexlog.events.catalogue import catalogue
from hexlog.events.dice import DiceRolled
from hexlog.events.memory import MemoryStore
from hexlog.events.store import NewEvent
from hexlog.service.cli_schema import text

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "events" / "schemas"
EXPORTS = sorted((ROOT / "tests" / "golden").glob("**/*.jsonl"))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class TestPublishedFiles:
    def test_the_files_equal_the_catalogue_generated_from_the_classes(self):
        """events/schemas holds exactly one file per registered type, as ``hexlog schema --out`` writes it."""
        generated = catalogue()
        assert sorted(p.stem for p in SCHEMAS.glob("*.json")) == sorted(generated) == sorted(registered())
        for name, body in generated.items():
            assert (SCHEMAS / f"{name}.json").read_text(encoding="utf-8") == text(body), name

    @pytest.mark.parametrize("name", sorted(registered()))
    def test_each_schema_is_valid_draft_2020_12_naming_its_type_and_version(self, name):
        """Each file is a valid JSON Schema whose type, version and fields are the class's."""
        body = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(body)
        cls = registered()[name]
        assert body["x-hexlog-type"] == TYPE_PREFIX + name
        assert body["x-hexlog-schema-version"] == cls.schema_version
        assert body["additionalProperties"] is False
        assert sorted(body["required"]) == sorted(body["properties"])
        assert all(shape for shape in body["properties"].values()), "a field without a type"

    def test_a_changed_class_shows_as_a_difference(self, monkeypatch):
        """A field added to a class without regenerating the files would fail the comparison above."""
        body = catalogue()["dice.rolled"]
        monkeypatch.setitem(body["properties"], "fudged", {"type": "boolean"})
        assert text(body) != (SCHEMAS / "dice.rolled.json").read_text(encoding="utf-8")

    def test_the_readme_names_every_event_type_with_its_version(self):
        """The section for tool authors lists every type, so a reader needs nothing else to find them."""
        section = README[README.index("### For tool authors") :]
        for name, cls in registered().items():
            assert f"`{TYPE_PREFIX}{name}` | {cls.schema_version} |" in section, name


class TestEveryEventMeetsItsSchema:
    @pytest.mark.parametrize("path", EXPORTS, ids=lambda p: p.name)
    def test_every_event_of_every_golden_log_validates_as_hexlog_reads_it(self, path, check_schemas):
        """Old events, upcast to today's version, and today's events alike meet the published schemas."""
        events = _lines(path)
        assert check_schemas((e["type"], e["schemaversion"], e["data"]) for e in events) == []
        assert {e["type"] for e in events} <= {TYPE_PREFIX + name for name in registered()}

    def test_every_event_of_the_demo_validates(self, hexlog, tmp_path, events_in, check_schemas):
        """The demo writes every kind of roll and decision; each event meets its schema."""
        assert hexlog("demo").returncode == 0
        written = events_in(tmp_path / "hexlog.db")
        assert len(written) > 40
        assert check_schemas(written) == []
        assert {"hexlog.dice.rolled", "hexlog.encounter.concluded"} <= {kind for kind, _, _ in written}

    def test_an_event_that_breaks_its_schema_is_named(self, check_schemas):
        """A wrong type, a missing field, an extra field or a value outside an enum is reported."""
        good = codec.to_data(
            DiceRolled(session="s1", nonce=0, purpose="p", sides=(6,), faces=(3,), modifier=0, total=3)
        )
        kind = DiceRolled.cloud_type()
        assert check_schemas([(kind, DiceRolled.schema_version, good)]) == []
        broken = [
            {**good, "faces": "3"},
            {**good, "visibility": "everyone"},
            {**good, "total": 3.5},
        ]
        for data in broken:
            assert check_schemas([(kind, DiceRolled.schema_version, data)]), data

    def test_a_test_that_appends_a_broken_event_fails(self):
        """The suite-wide guard: appending an event that breaks its schema fails whichever test did it."""
        good = codec.to_data(
            DiceRolled(session="s1", nonce=0, purpose="p", sides=(6,), faces=(3,), modifier=0, total=3)
        )
        new = NewEvent(
            id="x",
            source="hexlog:c1",
            type=DiceRolled.cloud_type(),
            time="2026-11-30T00:00:00Z",
            schemaversion=DiceRolled.schema_version,
            data={**good, "visibility": "everyone"},
        )
        with pytest.raises(AssertionError, match="visibility"):
            MemoryStore().append("campaign-c1", [new], expected_version=0)


class TestSchemaCommand:
    def test_the_list_names_every_type_with_its_version(self, hexlog):
        """``hexlog schema`` lists every type and its schema version."""
        result = hexlog("schema")
        assert result.returncode == 0, result.stderr
        for name, cls in registered().items():
            assert f"{TYPE_PREFIX}{name}  v{cls.schema_version}" in result.stdout

    def test_one_type_prints_its_published_file(self, hexlog):
        """``hexlog schema dice.rolled`` prints exactly the published file, with or without the prefix."""
        for name in ("dice.rolled", "hexlog.dice.rolled"):
            result = hexlog("schema", name)
            assert result.returncode == 0
            assert result.stdout == (SCHEMAS / "dice.rolled.json").read_text(encoding="utf-8")

    def test_an_unknown_type_is_refused_naming_it(self, hexlog):
        """An unknown type exits non-zero with a message, not a traceback."""
        result = hexlog("schema", "dice.fudged")
        assert result.returncode != 0
        assert "no event type 'dice.fudged'" in result.stderr
        assert "Traceback" not in result.stderr

    def test_out_writes_the_published_files(self, hexlog, tmp_path):
        """``--out DIR`` writes the same files the repository publishes."""
        assert hexlog("schema", "--out", "out").returncode == 0
        for path in SCHEMAS.glob("*.json"):
            assert (tmp_path / "out" / path.name).read_bytes() == path.read_bytes()
