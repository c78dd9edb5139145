"""Numbers in bounds: every number a referee gives has a sane range, and no event holds an integer past 2**53."""

from __future__ import annotations

import enum
import hashlib
import json

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hexlog.events.errors import UsageError
from hexlog.events.memory import MemoryStore
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import encounter as enc
from hexlog.machine import ruleset as rulesets
from hexlog.machine.dungeon import commands as dungeon
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.rules import RulesError
from hexlog.machine.table import stream_for
from hexlog.machine.travel import commands as travel

CAMPAIGN = "n"

OUT_OF_RANGE = [
    (enc.DetermineDistance(value=100_001), "--value must be 0 to 100000, not 100001"),
    (enc.DetermineDistance(value=10**20), "--value must be 0 to 100000"),
    (enc.Avoid(rate_inches=97), "--rate-inches must be 1 to 96"),
    (enc.Avoid(detection_range_ft=10**6), "--detection-range must be 1 to 100000"),
    (dungeon.EnterDungeon(every_turns=1001), "--every-turns must be 1 to 1000"),
    (dungeon.EnterDungeon(every_turns=10**40), "--every-turns must be 1 to 1000"),
    (travel.Move(hexes=1001), "--hexes must be 1 to 1000"),
]


@pytest.fixture
def handler() -> Handler:
    handler = Handler(MemoryStore(), MemoryKeeper())
    handler.execute(CAMPAIGN, c.StartCampaign())
    handler.execute(CAMPAIGN, c.OpenSession(secret_hex="33" * 32))
    return handler


@pytest.mark.parametrize(("command", "needle"), OUT_OF_RANGE, ids=[type(cmd).__name__ for cmd, _ in OUT_OF_RANGE])
def test_a_number_out_of_its_range_is_refused_and_writes_nothing(handler, command, needle):
    before = handler.store.stream_version(stream_for(CAMPAIGN))
    with pytest.raises(UsageError) as refused:
        handler.execute(CAMPAIGN, command)
    assert needle in str(refused.value)
    assert handler.store.stream_version(stream_for(CAMPAIGN)) == before


def test_the_bounds_themselves_are_accepted_by_the_check():
    """The check refuses only what is outside: the ends of every range pass it."""
    for name, (low, high) in c.NUMBER_LIMITS.items():
        for cls in (enc.DetermineDistance, enc.Avoid, dungeon.EnterDungeon, travel.Move):
            if name in attrs.fields_dict(cls):
                for value in (low, high):
                    c.check_numbers(cls(**{name: value}))


def test_no_event_holds_an_integer_past_2_53(handler, monkeypatch):
    """A roll whose constant would pass 2**53 - 1 is refused before anything is written."""
    monkeypatch.setattr(hexdice, "MAX_MODIFIER", 10**20)
    monkeypatch.setattr(hexdice, "_MAX_DIGITS", 30)
    before = handler.store.stream_version(stream_for(CAMPAIGN))
    with pytest.raises(UsageError, match=r"too large to record .*2\*\*53"):
        handler.execute(CAMPAIGN, c.RollDice(expression=f"d6+{2**53}"))
    assert handler.store.stream_version(stream_for(CAMPAIGN)) == before
    assert handler.execute(CAMPAIGN, c.RollDice(expression=f"d6+{2**53 - 7}")).events


def test_oversized_finds_nested_integers():
    assert c.oversized({"a": [1, {"b": -(2**53)}]}) == -(2**53)
    assert c.oversized({"a": [1, {"b": 2**53 - 1}], "c": True}) is None


def test_oversized_reads_every_kind_of_unstructured_data():
    """Tuples, subclasses of int, dict and list, floats, text and None: only an integer past 2**53 - 1 is found."""

    class Big(enum.IntEnum):
        HUGE = 2**53

    class Mapping(dict[str, object]):
        pass

    assert c.oversized((1, (2, [3, 2**53 + 1]))) == 2**53 + 1
    assert c.oversized(Mapping(a=[Big.HUGE])) == Big.HUGE
    assert c.oversized(Mapping(a=2**53 - 1)) is None
    assert c.oversized([1.5e300, "9" * 30, None, False, -(2**53 - 1)]) is None
    assert c.oversized(-(2**53) - 1) == -(2**53) - 1


def _first_past_safe(data: object) -> int | None:
    """The first integer past 2**53 - 1 either way, depth first: ``oversized`` as plainly as it can be written."""
    if isinstance(data, int) and not isinstance(data, bool):
        return data if abs(data) > c.SAFE_INTEGER else None
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list | tuple):
        for item in data:
            found = _first_past_safe(item)
            if found is not None:
                return found
    return None


_LEAVES = st.none() | st.booleans() | st.text(max_size=3) | st.floats(allow_nan=False) | st.integers()
#: what JSON cannot hold: a lone surrogate, a set (whose integers are not data)
_NOT_JSON = st.sampled_from(["\udc80", "a\ud800"]) | st.frozensets(st.integers(), max_size=2)
_DATA = st.recursive(
    _LEAVES | _NOT_JSON | st.integers(min_value=2**53 - 2, max_value=2**53 + 2) | st.integers(max_value=-(2**53) + 2),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=2) | st.integers(max_value=2), inner)
    ),
    max_leaves=12,
)


@given(_DATA)
def test_oversized_finds_what_a_plain_walk_finds(data: object) -> None:
    """Over any unstructured data, ``oversized`` finds the integer a plain depth-first walk finds first, or none;
    data JSON cannot hold (a key that is not text, a lone surrogate, a set) is walked all the same."""
    found = c.oversized(data)
    assert found == _first_past_safe(data)
    assert found is None or type(found) is type(_first_past_safe(data))


@pytest.mark.parametrize(
    "args",
    [
        ("encounter", "avoid", "--rate-inches", "97"),
        ("encounter", "determine-distance", "--value", "99999999999999999999"),
        ("dungeon", "enter", "--every-turns", "1001"),
        ("receipt", "--at", str(2**53)),
        ("audit", "--roll", str(2**53)),
    ],
)
def test_the_command_line_refuses_them_in_one_line(hexlog, args):
    assert hexlog("init").returncode == 0
    result = hexlog(*args)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("hexlog: error: ")
    assert len(result.stderr.splitlines()) == 1


def test_house_rules_with_an_integer_past_2_53_are_refused_by_key():
    with pytest.raises(RulesError, match=r"tables\.terrain_cost\.road: 9007199254740992 is too large"):
        rulesets.load("explore", {"tables": {"terrain_cost": {"road": 2**53}}})
    assert rulesets.load("explore", {"tables": {"terrain_cost": {"road": 2**53 - 1}}})


def test_an_export_holding_an_integer_past_2_53_does_not_verify(hexlog, tmp_path):
    """A log forged (and resealed) to hold a number no JSON reader reads exactly fails the audit and the import."""
    for args in (("init",), ("session", "open"), ("roll", "d6"), ("session", "close"), ("export", "--out", "a.jsonl")):
        assert hexlog(*args).returncode == 0
    events = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()]
    roll = next(e for e in events if e["type"] == "hexlog.dice.rolled")
    roll["data"]["modifier"] = 2**60
    roll["data"]["total"] = roll["data"]["faces"][0] + 2**60
    prev = "0" * 64
    for event in events:
        event["prevhash"] = prev
        body = {k: v for k, v in event.items() if k != "hash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        event["hash"] = prev = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    audited = hexlog("audit", "--file", "b.jsonl")
    assert audited.returncode == 1
    assert "past 2**53 - 1" in audited.stdout + audited.stderr
    assert hexlog("import", "b.jsonl", "--db", "b.db").returncode != 0
