"""The rows a replay rebuilds: a dict up to a bound, a temporary file past it, the same rows either way."""

from __future__ import annotations

import json
import random

import pytest

from hexlog.replay import rebuilt_rows
from hexlog.replay.rebuilt_rows import RebuiltRows


def json_ready(value: object) -> object:
    """A value as JSON gives it back (tuples become lists)."""
    return json.loads(json.dumps(value))


class TestRebuiltRows:
    """Whatever was set, replaced and deleted, the rows read back are a dict's, in key order."""

    @pytest.mark.parametrize("limit", [1, 3, 20, 10_000])
    def test_a_run_of_sets_and_deletes_reads_back_as_a_dict_would_hold_it(self, limit: int) -> None:
        """400 random operations (fixed seed) on 60 keys: the same rows as a dict, spilled or not."""
        rng = random.Random(13)  # noqa: S311 - a fixed run of operations, not a secret
        rows, model = RebuiltRows(limit), {}
        for step in range(400):
            key = f"roll/s{rng.randrange(6)}/{rng.randrange(10):09d}"
            if rng.random() < 0.2:
                assert json_ready(rows.pop(key, None)) == (json_ready(model.pop(key)) if key in model else None)
            else:
                value = {"step": step, "faces": (rng.randrange(6) + 1, 2)}
                rows[key], model[key] = value, value
        assert rows.spilled is (limit < 10_000)  # about 48 rows are held at the end of the run
        assert len(rows) == len(model)
        assert [(key, json_ready(value)) for key, value in rows.ordered()] == [
            (k, json_ready(model[k])) for k in sorted(model)
        ]
        assert list(rows) == sorted(model)
        for key, value in model.items():
            assert key in rows
            assert json_ready(rows[key]) == json_ready(value)
        assert "absent" not in rows
        with pytest.raises(KeyError):
            rows["absent"]
        with pytest.raises(KeyError):
            del rows["absent"]
        rows.close()

    def test_rows_beyond_the_bound_are_held_in_the_temporary_file_not_in_memory(self) -> None:
        """Past ``LIMIT`` rows the dict in memory is emptied into the file; a later value of a key wins."""
        rows = RebuiltRows(limit=4)
        for n in range(10):
            rows[f"k{n}"] = n
        rows["k0"] = "again"
        assert rows.spilled
        assert len(rows._held) < 4
        assert rows["k0"] == "again"
        assert dict(rows.ordered())["k0"] == "again"
        del rows["k0"]
        assert "k0" not in rows
        assert len(rows) == 9

    def test_the_default_bound_is_read_when_the_rows_are_made(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """``LIMIT`` is looked up by each new holder, so that a test may lower it for a whole replay."""
        monkeypatch.setattr(rebuilt_rows, "LIMIT", 2)
        rows = RebuiltRows()
        rows["a"], rows["b"] = 1, 2
        assert rows.spilled
