"""The fast ways a log is read give what the plain ways give: ``orjson`` reads what ``json`` reads, each
class's fast structuring function makes the event cattrs makes (or leaves the payload to cattrs), and a
record read from a row is the record built from its envelope."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import attrs
import cattrs
import pytest

from hexlog.events.base import event_class
from hexlog.events.chain import Envelope, canonical_json, stored_envelope
from hexlog.events.codec import _fast, converter, decode, decode_record, from_data, to_data
from hexlog.events.dice import DiceRolled
from hexlog.events.errors import CorruptLogError
from hexlog.events.sqlite_schema import loads, recorded
from hexlog.events.store import Recorded
from hexlog.events.structure import SLOW, fast_structure

from .conftest import golden_payloads

GOLDEN = Path(__file__).resolve().parent / "golden"


PAYLOADS = golden_payloads()


def _by_converter(cloud_type: str, data: Any) -> Any:
    """What cattrs alone makes of a payload of the current version: the event, or the error's type and text."""
    try:
        return converter.structure(dict(data), event_class(cloud_type))
    except (cattrs.BaseValidationError, TypeError, ValueError, KeyError) as err:
        return type(err), str(err)


def _by_fast(cloud_type: str, data: Any) -> Any:
    try:
        return from_data(cloud_type, event_class(cloud_type).schema_version, data)
    except CorruptLogError as err:
        return type(err.__cause__), str(err.__cause__)


class TestStructuring:
    def test_every_current_golden_payload_takes_the_fast_way_to_the_same_event(self):
        current = [(t, d) for t, v, d in PAYLOADS if v == event_class(t).schema_version]
        assert len({t for t, _ in current}) > 50
        for cloud_type, data in current:
            cls = event_class(cloud_type)
            fast = _fast(cls)
            assert fast is not None, cloud_type
            event = fast(data)
            assert event is not SLOW, (cloud_type, data)
            expected = converter.structure(dict(data), cls)
            assert type(event) is type(expected)
            assert event == expected, cloud_type

    def test_every_golden_payload_decodes_as_before(self):
        for cloud_type, version, data in PAYLOADS:
            env = stored_envelope("i", "s", cloud_type, "st", "t", data, 1, version, "p", "h")
            assert decode(env) == decode(attrs.evolve(env))

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("faces", ["3", 4]),
            ("faces", [True]),
            ("faces", "34"),
            ("faces", None),
            ("sides", (6,)),
            ("nonce", "5"),
            ("nonce", 5.0),
            ("nonce", True),
            ("total", None),
            ("visibility", "nobody"),
            ("visibility", 1),
            ("visibility", ["public"]),
            ("session", 7),
            ("modifiers", [{"source": "exhaustion", "value": -1}]),
            ("modifiers", [{"source": "exhaustion"}]),
            ("modifiers", {}),
            ("dropped", [0.0]),
        ],
    )
    def test_a_payload_of_other_types_is_decoded_or_refused_as_cattrs_does(self, field, value):
        data = dict(_dice())
        data[field] = value
        assert _by_fast("hexlog.dice.rolled", data) == _by_converter("hexlog.dice.rolled", data)

    @pytest.mark.parametrize("change", ["missing", "extra"])
    def test_a_missing_or_an_extra_key_is_left_to_cattrs(self, change):
        data = dict(_dice())
        if change == "missing":
            del data["notation"]  # a field with a default: cattrs fills it in
        else:
            data["colour"] = "red"  # cattrs forbids it
        fast = _fast(event_class("hexlog.dice.rolled"))
        assert fast is not None
        try:
            assert fast(data) is SLOW
        except KeyError:
            assert change == "missing"
        assert _by_fast("hexlog.dice.rolled", data) == _by_converter("hexlog.dice.rolled", data)


@attrs.frozen(kw_only=True)
class _Checked:
    """A class whose __init__ does more than set its fields: it validates one."""

    n: int = attrs.field(validator=attrs.validators.ge(0))
    word: str = ""


@attrs.frozen(kw_only=True)
class _Plain:
    n: int
    word: str = ""


class TestInit:
    def test_a_class_whose_init_only_sets_its_fields_is_made_without_calling_it(self):
        fast = fast_structure(converter, _Plain)
        assert fast is not None
        assert "set0" in fast.__globals__  # its fields' slots are set, as its __init__ would set them
        made = fast({"n": 3, "word": "x"})
        assert made == _Plain(n=3, word="x")
        assert type(made) is _Plain
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            made.n = 4  # type: ignore[misc]

    def test_a_class_whose_init_validates_is_made_by_its_init(self):
        fast = fast_structure(converter, _Checked)
        assert fast is not None
        assert "set0" not in fast.__globals__
        assert fast({"n": 3, "word": "x"}) == _Checked(n=3, word="x")
        with pytest.raises(ValueError, match="must be >= 0"):
            fast({"n": -1, "word": "x"})


def _dice() -> dict[str, Any]:
    return next(d for t, v, d in PAYLOADS if t == "hexlog.dice.rolled" and v == DiceRolled.schema_version)


def _roll() -> DiceRolled:
    return DiceRolled(session="s1", nonce=4, purpose="attack", sides=(20,), faces=(17,), modifier=2, total=19)


class TestLoads:
    @pytest.mark.parametrize(
        "text",
        [
            '{"a":1,"b":[1,2.5,-0.0,1e5],"c":"é\\u00e9\\ud83d\\ude00","d":null,"e":true}',
            '{"a":1,"a":2}',
            "18446744073709551616",
            "-9223372036854775809",
            '{"n":123456789012345678901234567890}',
            "1.00000000000000000000001",
            '"\\ud800"',
            "NaN",
            "1e400",
            b'{"x":[1,2]}',
            b'\xef\xbb\xbf{"bom":1}',
        ],
    )
    def test_it_reads_what_json_reads_as_json_reads_it(self, text):
        expected = json.loads(text)
        got = loads(text)
        assert repr(got) == repr(expected)
        assert type(got) is type(expected)

    @pytest.mark.parametrize("text", ["[1,]", "", "{", b"\xff", "[1] 2", "\ufeff{}"])
    def test_it_refuses_what_json_refuses_with_jsons_words(self, text):
        try:
            json.loads(text)
        except ValueError as err:
            expected = err
        with pytest.raises(type(expected)) as got:
            loads(text)
        assert str(got.value) == str(expected)


class TestRecorded:
    ROW = (7, "campaign-x", 3, "id-3", "hexlog.dice.rolled", 4, "src", "2024", '{"a":[1,2]}', "p" * 64, "h" * 64)

    def _eager(self) -> Recorded:
        envelope = Envelope(
            id="id-3",
            source="src",
            type="hexlog.dice.rolled",
            subject="campaign-x",
            time="2024",
            data={"a": [1, 2]},
            streamversion=3,
            schemaversion=4,
            prevhash="p" * 64,
            hash="h" * 64,
        )
        return Recorded(position=7, envelope=envelope)

    def test_a_record_read_from_a_row_is_the_record_of_its_envelope(self):
        lazy, eager = recorded(self.ROW), self._eager()
        assert (lazy.position, lazy.stream_id, lazy.version) == (7, "campaign-x", 3)
        assert lazy == eager
        assert eager == lazy
        assert lazy.envelope == eager.envelope
        assert lazy.envelope is lazy.envelope
        assert repr(lazy) == repr(eager)
        assert pickle.loads(pickle.dumps(lazy)) == eager  # noqa: S301 - our own bytes
        assert lazy != Recorded(position=8, envelope=eager.envelope)

    def test_a_record_is_frozen_and_hashed_as_its_envelope_is(self):
        record = recorded(self.ROW)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            record.position = 1  # type: ignore[misc]
        with pytest.raises(TypeError):
            hash(record)  # its data is a dict, as an attrs record's hash found too

    def test_a_row_whose_data_is_not_json_is_refused_naming_it_when_its_data_is_first_asked_for(self):
        """Its position, stream and version read without its data; its envelope, payload and event are refused."""
        record = recorded((*self.ROW[:8], "{nope", *self.ROW[9:]))
        assert (record.position, record.stream_id, record.version) == (7, "campaign-x", 3)
        for ask in (lambda: record.envelope, record.payload, lambda: decode_record(record)):
            with pytest.raises(CorruptLogError, match=r"position 7.*not JSON"):
                ask()

    def test_a_record_read_straight_from_its_text_reads_its_data_only_when_asked(self):
        """``decode_record`` reads the event from the stored text; the envelope still holds the data read from it."""
        text = canonical_json(to_data(_roll()))
        record = recorded((*self.ROW[:8], text, *self.ROW[9:]))
        assert record.raw_payload() == ("hexlog.dice.rolled", 4, text)
        assert decode_record(record) == _roll()
        assert record.raw_payload() == ("hexlog.dice.rolled", 4, text)  # the data is still unread
        assert record.envelope.data == json.loads(text)
        assert record.raw_payload() == record.payload() == ("hexlog.dice.rolled", 4, json.loads(text))

    def test_the_envelope_has_nothing_stored_envelope_would_skip(self):
        assert all(f.validator is None and f.converter is None for f in attrs.fields(Envelope))
        assert not hasattr(Envelope, "__attrs_post_init__")


class TestDecodeRecord:
    """``decode_record`` decodes a record from its row, without its envelope, as ``decode`` does from it."""

    def _row(self, cloud_type: str, version: int, data: Any) -> tuple[Any, ...]:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return (7, "campaign-x", 3, "id-3", cloud_type, version, "src", "2024", text, "p" * 64, "h" * 64)

    def test_every_golden_payload_decodes_from_its_row_as_from_its_envelope(self):
        for cloud_type, version, data in PAYLOADS:
            lazy = recorded(self._row(cloud_type, version, data))
            assert decode_record(lazy) == decode(recorded(self._row(cloud_type, version, data)).envelope)
            assert lazy.payload() == (cloud_type, version, lazy.envelope.data)
            eager = Recorded(position=7, envelope=lazy.envelope)
            assert eager.payload() == lazy.payload()
            assert decode_record(eager) == decode_record(lazy)

    def test_a_record_that_does_not_decode_is_named_as_decode_names_it(self):
        data = dict(_dice())
        data["nonce"] = "five"
        record = recorded(self._row("hexlog.dice.rolled", 4, data))
        with pytest.raises(CorruptLogError) as by_envelope:
            decode(record.envelope)
        with pytest.raises(CorruptLogError) as by_record:
            decode_record(recorded(self._row("hexlog.dice.rolled", 4, data)))
        assert str(by_record.value) == str(by_envelope.value)
        assert str(by_record.value).startswith("campaign-x version 3 (event id-3): hexlog.dice.rolled does not decode")
