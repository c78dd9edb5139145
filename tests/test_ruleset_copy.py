"""A recorded ruleset holds its own copy of the content it was given, as a deep copy would make it."""

from __future__ import annotations

import copy

from hexlog.machine import ruleset as rulesets


def test_the_recorded_content_is_an_equal_copy_sharing_no_container():
    content = rulesets.load("ose").content
    recorded = rulesets.from_recorded("ose", content)
    assert recorded.content == copy.deepcopy(content)
    assert recorded.hash == rulesets.load("ose").hash
    stack = [(recorded.content, content)]
    while stack:
        mine, theirs = stack.pop()
        assert mine is not theirs
        pairs = (
            zip(mine.values(), theirs.values(), strict=True)
            if isinstance(mine, dict)
            else zip(mine, theirs, strict=True)
        )
        stack += [(a, b) for a, b in pairs if isinstance(a, dict | list)]


def test_values_that_are_not_json_are_deep_copied():
    inner = [1, 2]
    content = {"pair": (inner, "x"), "words": ["a", {"b": 1.5, "c": None, "d": True}]}
    recorded = rulesets.from_recorded("homebrew", content)
    assert recorded.content == content
    assert recorded.content["pair"][0] is not inner
    inner.append(3)
    assert recorded.content["pair"] == ([1, 2], "x")


def test_a_saved_tables_rules_are_the_recorded_ones_each_read_its_own(tmp_path):
    """A cold command's table takes the rules its saved row holds as the SQL store decoded them: equal to the
    recorded ones, and no two reads share a container."""
    from hexlog.events.sqlite import SQLiteStore  # noqa: PLC0415 - this test's alone
    from hexlog.machine import commands as c  # noqa: PLC0415
    from hexlog.machine.handler import Handler  # noqa: PLC0415
    from hexlog.machine.keeper import MemoryKeeper  # noqa: PLC0415

    store = SQLiteStore(tmp_path / "rules.db")
    try:
        Handler(store, MemoryKeeper()).execute("main", c.StartCampaign(ruleset="ose"))
        first, second = (Handler(store, MemoryKeeper()).load("main").rules for _ in range(2))
    finally:
        store.close()
    assert first is not None
    assert second is not None
    assert first.content == rulesets.load("ose").content
    assert first.hash == second.hash == rulesets.load("ose").hash
    assert first.recorded
    assert first.content is not second.content
    assert first.content["tables"] is not second.content["tables"]
