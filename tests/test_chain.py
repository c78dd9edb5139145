"""hexlog-chain-v1: the published sample verifies, any flipped byte fails, canonical JSON is as published."""

from __future__ import annotations

import hashlib
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hexlog.events.chain import canonical_json, seal, seal_rows
from hexlog.events.errors import CorruptLogError
from hexlog.events.memory import MemoryStore
from hexlog.events.store import NewEvent
from hexlog.machine import dice as hexdice
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import import_envelopes, read_export

#: the published known-answer export of hexlog-dice-v1 and hexlog-chain-v1 (a byte-for-byte copy of the published file)
SAMPLE = Path(__file__).resolve().parent / "golden" / "sample-export.jsonl"
FLIP_MASKS = (0x01, 0x20)


@pytest.fixture(scope="module")
def sample() -> bytes:
    """The bytes of the published sample export."""
    return SAMPLE.read_bytes()


def line_of(data: bytes, index: int) -> int:
    """The 1-based line number holding byte ``index``."""
    return data.count(b"\n", 0, index) + 1


def breaks_json(data: bytes, line: int) -> bool:
    """Whether line ``line`` of ``data`` is no longer a UTF-8 JSON text."""
    text = data.split(b"\n")[line - 1]
    try:
        json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return True
    return False


class TestSample:
    """The sample export made by the two published schemes alone."""

    def test_the_sample_reads_and_audits_clean(self, sample: bytes) -> None:
        """Chain, commitment and all four rolls verify, and nothing is left unverifiable."""
        report = audit_envelopes(read_export(sample.split(b"\n")))
        assert report.ok, report.text()
        assert (report.events, report.sessions, report.rolls, report.rolls_verified) == (7, 1, 4, 4)
        assert report.unverifiable == ()

    def test_the_sample_commitment_is_sha256_of_the_published_secret(self, sample: bytes) -> None:
        """The opening's commitment hashes bytes(range(32)), the secret the close reveals."""
        opened, *_, closed = read_export(sample.split(b"\n"))
        assert opened.data["commitment"] == hexdice.commitment(bytes(range(32)))
        assert closed.data["secret"] == bytes(range(32)).hex()

    def test_the_sample_imports_into_an_empty_store(self, sample: bytes) -> None:
        """Importing the sample writes its seven events with the file's own hashes."""
        store = MemoryStore()
        result = import_envelopes(store, read_export(sample.split(b"\n")))
        assert (result.campaign, result.events) == ("c1", 7)
        assert [r.envelope.hash for r in store.read_stream("campaign-c1")] == [
            json.loads(line)["hash"] for line in sample.splitlines()
        ]


class TestFlippedBytes:
    """Any single flipped byte of the sample makes it fail, at parsing or at verification."""

    @pytest.mark.parametrize("mask", FLIP_MASKS)
    def test_every_single_byte_flip_fails(self, sample: bytes, mask: int) -> None:
        """A flip that breaks JSON is refused naming its line; any other flip fails the audit and the import."""
        passed: list[int] = []
        for index in range(len(sample)):
            flipped = sample[:index] + bytes([sample[index] ^ mask]) + sample[index + 1 :]
            line = line_of(sample, index)
            try:
                envelopes = read_export(flipped.split(b"\n"))
            except CorruptLogError as err:
                if not str(err).startswith(f"line {line}:"):
                    passed.append(index)
                continue
            if breaks_json(flipped, line) or audit_envelopes(envelopes).ok:
                passed.append(index)
                continue
            with pytest.raises(CorruptLogError):
                import_envelopes(MemoryStore(), envelopes)
        assert passed == [], f"flips at bytes {passed[:10]} were not refused as they should be"

    def test_a_removed_line_fails(self, sample: bytes) -> None:
        """Dropping the third line breaks the chain and the nonces."""
        lines = sample.split(b"\n")
        report = audit_envelopes(read_export(lines[:2] + lines[3:]))
        assert not report.ok
        assert report.first_bad is not None
        assert report.first_bad.streamversion == 4


class TestCanonicalJson:
    """The hash is SHA-256 of the canonical JSON of the envelope without ``hash``."""

    def test_every_sample_hash_is_sha256_of_the_published_canonical_form(self, sample: bytes) -> None:
        """sort_keys, no spaces, ensure_ascii False, UTF-8: computed here without hexlog's helpers."""
        for text, envelope in zip(sample.splitlines(), read_export(sample.split(b"\n")), strict=True):
            obj = json.loads(text)
            unhashed = {k: v for k, v in obj.items() if k != "hash"}
            canonical = json.dumps(unhashed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == obj["hash"]
            assert envelope.unhashed() == unhashed
            assert canonical_json(envelope.unhashed()) == canonical

    def test_the_canonical_form_keeps_non_ascii_text_as_utf_8(self) -> None:
        """An envelope with non-ASCII data hashes the exact canonical text written out by hand."""
        env = seal(
            id="e1",
            source="hexlog:c9",
            type="hexlog.party.member_added",
            subject="campaign-c9",
            time="2026-01-02T03:04:05Z",
            data={"name": "Ærwyn ✓", "cha": 9},
            streamversion=1,
            schemaversion=1,
            prevhash="0" * 64,
        )
        text = (
            '{"data":{"cha":9,"name":"Ærwyn ✓"},"datacontenttype":"application/json","id":"e1",'
            '"prevhash":"' + "0" * 64 + '","schemaversion":1,"source":"hexlog:c9",'
            '"specversion":"1.0","streamversion":1,"subject":"campaign-c9",'
            '"time":"2026-01-02T03:04:05Z","type":"hexlog.party.member_added"}'
        )
        assert canonical_json(env.unhashed()) == text
        assert env.hash == hashlib.sha256(text.encode("utf-8")).hexdigest()

    def test_the_first_prevhash_is_64_zeros_and_each_next_links_the_previous_hash(self, sample: bytes) -> None:
        """prevhash of version 1 is the genesis value, and every later one is its predecessor's hash."""
        envelopes = read_export(sample.split(b"\n"))
        assert envelopes[0].prevhash == "0" * 64
        for before, after in itertools.pairwise(envelopes):
            assert after.prevhash == before.hash


def published_canonical(value: object) -> str:
    """The canonical form as hexlog-chain-v1 defines it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)


class TestCanonicalForm:
    """``canonical_json`` writes what ``json.dumps`` with the published options writes, whichever encoder it uses."""

    @settings(max_examples=2000, derandomize=True, deadline=None)
    @given(JSON_VALUES)
    def test_any_json_value_is_written_as_json_dumps_writes_it(self, value: object) -> None:
        assert canonical_json(value) == published_canonical(value)

    @pytest.mark.parametrize(
        "value",
        [
            {"x": 1e-05, "y": 2.5e-08, "z": 0.00011},
            {"n": float("nan"), "i": float("inf"), "j": -float("inf")},
            {"big": 2**64, "neg": -(2**63) - 1, "ok": 2**63 - 1},
            {"b": 1, "a": {"d": [1, "é", None], "c": "\u2028\x00\x1f\x7f"}},
            {"e-mail": "one-eyed", "p": "0.0000"},
            {"x": 0.5, "y": 1e-05},
            {"n": -2, "f": 2.5e-08},
            {"neg": -1, "half": 0.5, "tiny": 1e-05, "s": "x-y.z"},
            [-0.5, 1.5e-07, "e-", "0.0000", "n-u.l-l"],
            [1e16, 1e22, 123456789.125, -0.0, 0.0001],
            "a lone string",
            ("a", 1),
        ],
    )
    def test_the_values_orjson_writes_otherwise_are_written_as_json_writes_them(self, value: object) -> None:
        assert canonical_json(value) == published_canonical(value)

    def test_keys_that_are_not_strings_are_refused_or_written_as_json_writes_them(self) -> None:
        assert canonical_json({2: "b", 1: "a"}) == published_canonical({2: "b", 1: "a"})
        with pytest.raises(TypeError):
            canonical_json({"a": {1, 2}})

    @settings(max_examples=500, derandomize=True, deadline=None)
    @given(
        st.text(),
        st.text(),
        st.integers(min_value=0, max_value=2**70),
        st.dictionaries(st.text(), JSON_VALUES, max_size=4),
    )
    def test_a_hash_is_sha256_of_the_published_canonical_form_of_the_envelope(
        self, text: str, other: str, number: int, data: dict[str, object]
    ) -> None:
        """Whatever its attributes hold, an envelope's hash is the one the published definition gives."""
        try:
            env = seal(
                id=text,
                source=other,
                type="hexlog." + text,
                subject=other + "-s",
                time=text[:5],
                data=data,
                streamversion=number,
                schemaversion=number % 7,
                prevhash=other,
            )
        except UnicodeEncodeError:  # a lone surrogate: no UTF-8, no hash, as the published definition has it too
            with pytest.raises(UnicodeEncodeError):
                published_canonical(data).encode("utf-8") + text.encode("utf-8") + other.encode("utf-8")
            return
        published = published_canonical(env.unhashed()).encode("utf-8")
        assert env.hash == hashlib.sha256(published).hexdigest()
        assert env.computed_hash() == env.hash
        sealed = seal_rows(
            "s", 0, "0" * 64, [NewEvent(id=text, source=other, type="t", time="now", schemaversion=1, data=data)]
        )
        assert sealed[0][0].hash == sealed[0][0].computed_hash()
        assert sealed[0][1] == published_canonical(data)
