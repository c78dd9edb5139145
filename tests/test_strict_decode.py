"""An event's data holding a value of another JSON type than its field's (null for a string, 5 for a boolean, true or
"3" or 2.5 for an integer, a string for a list) is refused, never converted, inside lists and nested classes too: by
``from_data``, by ``hexlog import`` of a resealed export (one line naming the field, nothing written), and by the
audit of a database holding such a row."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hexlog.machine.handler  # noqa: F401 - registers every procedure
from hexlog.events import codec, registered
from hexlog.events.codec import converter, from_data
from hexlog.events.errors import CorruptLogError
from hexlog.events.structure import fast_structure
from hexlog.events.text_decoder import text_decoder
from hexlog.events.vocabulary import Side

from .conftest import run_hexlog, secret_file
from .test_attacks import read_export, reseal, tamper, write_export
from .test_event_registry import _finite_floats, _resolved

GOLDEN_EVENTS = Path(__file__).resolve().parent / "golden" / "events"
#: the first true position's ``lost`` made 5 in place (the hash chain no longer matches it: the audit says both)
FIRST_LOST_IS_5 = (
    "UPDATE events SET data = json_set(data, '$.lost', 5) WHERE position = "
    "(SELECT min(position) FROM events WHERE type = 'hexlog.travel.true_position')"
)
#: the exit code of a refused command
REFUSED = 1

Path_ = tuple[str | int, ...]

#: (id, event type, where in its data, the value put there, what the refusal says)
WRONG: list[tuple[str, str, Path_, Any, str]] = [
    ("null-for-str", "travel.true_position", ("hex",), None, "expected a string, found null @ $.hex"),
    ("int-for-bool", "travel.true_position", ("lost",), 5, "expected a boolean, found 5 @ $.lost"),
    ("zero-for-bool", "travel.true_position", ("lost",), 0, "expected a boolean, found 0 @ $.lost"),
    ("text-for-bool", "travel.true_position", ("lost",), "false", 'expected a boolean, found "false" @ $.lost'),
    ("int-for-str", "travel.true_position", ("terrain",), 5, "expected a string, found 5 @ $.terrain"),
    ("list-for-str", "travel.true_position", ("hex",), ["2,5"], "expected a string, found a list @ $.hex"),
    ("bool-for-int", "dice.rolled", ("nonce",), True, "expected an integer, found true @ $.nonce"),
    ("text-for-int", "dice.rolled", ("nonce",), "3", 'expected an integer, found "3" @ $.nonce'),
    ("float-for-int", "dice.rolled", ("total",), 2.5, "expected an integer, found 2.5 @ $.total"),
    ("whole-float-for-int", "dice.rolled", ("total",), 4.0, "expected an integer, found 4.0 @ $.total"),
    ("null-in-tuple", "dice.rolled", ("faces", 0), None, "expected an integer, found null @ $.faces[0]"),
    ("text-for-tuple", "dice.rolled", ("faces",), "34", 'expected a list, found "34" @ $.faces'),
    ("int-for-enum", "dice.rolled", ("visibility",), 1, "expected a string, found 1 @ $.visibility"),
    (
        "nested-class",
        "dice.rolled",
        ("modifiers", 0, "source"),
        5,
        "expected a string, found 5 @ $.modifiers[0].source",
    ),
    (
        "bool-in-nested-class",
        "dice.rolled",
        ("modifiers", 0, "value"),
        True,
        "expected an integer, found true @ $.modifiers[0].value",
    ),
]

#: cases only a golden payload holds the field of (an event the demo does not write)
WRONG_GOLDEN_ONLY: list[tuple[str, str, Path_, Any, str]] = [
    (
        "bool-for-float",
        "castle.quest_accepted",
        ("keeps_fraction",),
        True,
        "expected a number, found true @ $.keeps_fraction",
    ),
    ("text-for-float", "pursuit.rested", ("days",), "1", 'expected a number, found "1" @ $.days'),
    ("int-for-open-word", "encounter.distance_determined", ("unit",), 3, "expected a string, found 3 @ $.unit"),
    (
        "null-in-nested-tuple",
        "camp.watches_set",
        ("watches", 1, "guards", 0),
        None,
        "expected a string, found null @ $.watches[1].guards[0]",
    ),
]


def _golden(type_name: str) -> tuple[str, int, dict[str, Any]]:
    """The newest published sample of an event: (CloudEvents type, schema version, data)."""
    newest = max(GOLDEN_EVENTS.glob(f"{type_name}.v*.json"), key=lambda p: int(p.name.rsplit(".v", 1)[1][:-5]))
    sample = json.loads(newest.read_text())
    return sample["type"], sample["schemaversion"], sample["data"]


def _put(data: Any, where: Path_, value: Any) -> None:
    for key in where[:-1]:
        data = data[key]
    data[where[-1]] = value


def _params(cases: list[tuple[str, str, Path_, Any, str]]) -> list[Any]:
    return [pytest.param(*rest, id=case) for case, *rest in cases]


class TestFromData:
    @pytest.mark.parametrize(("type_name", "where", "value", "words"), _params(WRONG + WRONG_GOLDEN_ONLY))
    def test_a_value_of_another_json_type_is_refused_naming_the_field(self, type_name, where, value, words):
        cloud_type, version, data = _golden(type_name)
        _put(data, where, value)
        with pytest.raises(CorruptLogError, match=r"does not decode: ") as caught:
            from_data(cloud_type, version, data)
        assert str(caught.value).startswith(f"{cloud_type} does not decode: ")
        assert words in str(caught.value)

    def test_an_old_version_is_refused_too_after_its_upcasters(self):
        data = json.loads((GOLDEN_EVENTS / "dice.rolled.v1.json").read_text())["data"]
        data["session"] = None
        with pytest.raises(CorruptLogError, match=r"expected a string, found null @ \$\.session"):
            from_data("hexlog.dice.rolled", 1, data)

    @pytest.mark.parametrize(
        ("type_name", "where", "value", "expected"),
        [
            ("castle.quest_accepted", ("keeps_fraction",), 1, 1.0),  # an integer is a number
            ("castle.quest_accepted", ("keeps_fraction",), 0.25, 0.25),
            ("pursuit.rested", ("days",), 2, 2.0),
        ],
    )
    def test_a_float_field_takes_an_integer_as_a_float(self, type_name, where, value, expected):
        cloud_type, version, data = _golden(type_name)
        _put(data, where, value)
        decoded = getattr(from_data(cloud_type, version, data), where[-1])
        assert decoded == expected
        assert type(decoded) is float

    def test_an_enum_field_takes_its_values_only(self):
        cloud_type, version, data = _golden("dice.rolled")
        data["visibility"] = "nobody"
        with pytest.raises(CorruptLogError, match=r"@ \$\.visibility"):
            from_data(cloud_type, version, data)

    def test_a_long_value_found_is_cut_short_and_its_control_characters_escaped(self):
        cloud_type, version, data = _golden("dice.rolled")
        data["nonce"] = "x\n" * 100
        with pytest.raises(CorruptLogError) as caught:
            from_data(cloud_type, version, data)
        message = str(caught.value)
        assert "\n" not in message
        assert len(message) < 200
        assert 'found "x\\nx\\n' in message
        cloud_type, version, data = _golden("dice.rolled")
        data["session"] = 10**60
        with pytest.raises(CorruptLogError, match=r"expected a string, found 1(0){35}\.\.\. @ \$\.session$"):
            from_data(cloud_type, version, data)


#: every event class but the campaign's (its rules are free-form JSON: the golden payloads cover them)
CLASSES = sorted(
    (cls for cls in registered().values() if not cls.type_name.startswith("campaign.")), key=lambda c: c.type_name
)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.type_name)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_every_event_class_decodes_the_json_it_writes(cls, data):
    event = data.draw(st.builds(cls, **_finite_floats(_resolved(cls))))
    written = json.loads(json.dumps(codec.to_data(event)))
    assert from_data(cls.cloud_type(), cls.schema_version, written) == event


@attrs.frozen(kw_only=True)
class _Scalars:
    text: str
    number: int
    flag: bool
    share: float
    side: Side
    faces: tuple[int, ...]


class TestFastWays:
    def test_the_fast_path_decodes_scalar_enum_and_tuple_fields_without_the_converter(self):
        fast = fast_structure(converter, _Scalars)
        assert fast is not None
        assert "structure" not in fast.__code__.co_names  # every field read in line, none handed to cattrs
        data = {"text": "a", "number": 2, "flag": True, "share": 0.5, "side": "party", "faces": [1, 2]}
        assert fast(data) == _Scalars(text="a", number=2, flag=True, share=0.5, side=Side.PARTY, faces=(1, 2))

    def test_the_text_decoder_still_reads_such_a_class(self):
        decode = text_decoder(converter, _Scalars)
        assert decode is not None
        text = '{"faces":[1,2],"flag":true,"number":2,"share":0.5,"side":"party","text":"a"}'
        assert decode(text) == _Scalars(text="a", number=2, flag=True, share=0.5, side=Side.PARTY, faces=(1, 2))


# -- through the command line ------------------------------------------------------------------------------------


#: a secret on which the demo rolls dice with modifiers (two of them)
DEMO_SECRET = bytes(range(6, 38)).hex()


@pytest.fixture(scope="module")
def demo_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The export of the demo campaign, played on a fixed secret whose dice give rolls with modifiers (the nested
    cases need one)."""
    folder = tmp_path_factory.mktemp("demo")
    played = ("demo", "--secret-file", secret_file(folder, DEMO_SECRET))
    for args in (played, ("export", "--campaign", "demo", "--out", "e.jsonl")):
        done = run_hexlog(*args, cwd=folder)
        assert done.returncode == 0, done.stderr
    return folder / "e.jsonl"


def _first(events: list[dict[str, Any]], type_name: str, where: Path_) -> int:
    """The index of the first event of the type whose data has ``where``."""
    for i, event in enumerate(events):
        if event["type"] != f"hexlog.{type_name}":
            continue
        try:
            _put(json.loads(json.dumps(event["data"])), where, None)
        except (IndexError, KeyError):
            continue
        return i
    raise AssertionError(type_name)


def _events(db: Path) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])


@pytest.mark.parametrize("wrong", [pytest.param(rest, id=case) for case, *rest in WRONG])
def test_an_export_holding_a_value_of_another_json_type_is_not_imported(demo_export, tmp_path, wrong):
    type_name, where, value, words = wrong
    events = read_export(demo_export)
    at = _first(events, type_name, where)
    _put(events[at]["data"], where, value)
    write_export(tmp_path / "bad.jsonl", reseal(events))
    done = run_hexlog("import", str(tmp_path / "bad.jsonl"), "--db", str(tmp_path / "new.db"), cwd=tmp_path)
    assert done.returncode == REFUSED, (done.stdout, done.stderr)
    lines = done.stderr.strip().split("\n")
    assert len(lines) == 1, done.stderr
    assert f"does not verify at line {at + 1} (event {events[at]['id']})" in lines[0]
    assert f"hexlog.{type_name} does not decode: {words}" in lines[0]
    assert "nothing imported" in lines[0]
    assert not (tmp_path / "new.db").exists() or _events(tmp_path / "new.db") == 0


def test_the_audit_of_a_database_holding_such_a_row_names_it(demo_export, tmp_path):
    db = tmp_path / "hexlog.db"
    done = run_hexlog("import", str(demo_export), "--db", str(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = read_export(demo_export)
    at = _first(events, "travel.true_position", ("lost",))
    version = events[at]["streamversion"]
    tamper(db, FIRST_LOST_IS_5)
    done = run_hexlog("audit", "--db", str(db), cwd=tmp_path)
    assert done.returncode == REFUSED, (done.stdout, done.stderr)
    assert "FAILED" in done.stdout
    assert (
        f"decode: campaign-demo version {version} (event {events[at]['id']}): "
        "hexlog.travel.true_position does not decode: expected a boolean, found 5 @ $.lost"
    ) in done.stdout
    assert "internal error" not in done.stderr


@pytest.mark.parametrize(
    ("version", "forged"),
    [(1, {"notation": "9999d6kh3", "dropped": [0]}), (1, {"made_for": "Ann"}), (3, {"low_is_good": True})],
)
def test_a_field_its_schema_version_did_not_have_is_refused_not_written_over(version, forged):
    """A roll of an older schema version holding a field that came only later is refused, naming it: the upgrade
    that adds the field would otherwise write over the forger's value and hide it (an export whose rolls carried a
    keep or a recipient their version never recorded would verify)."""
    sample = json.loads((GOLDEN_EVENTS / f"dice.rolled.v{version}.json").read_text(encoding="utf-8"))
    data = sample.get("data", sample)
    assert from_data("hexlog.dice.rolled", version, data).session  # the sample as written decodes
    with pytest.raises(CorruptLogError) as refused:
        from_data("hexlog.dice.rolled", version, {**data, **forged})
    fields = ", ".join(sorted(forged))
    assert str(refused.value) == (
        f"hexlog.dice.rolled does not decode: extra fields found ({fields}) for schema version {version}"
    )
