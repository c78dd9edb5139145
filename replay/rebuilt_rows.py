"""The rows a fold of a whole log rebuilds, held in memory up to a bound and in a temporary file past it.

A replay compares every row of a live projection with a fold of the log, and the roll ledger keeps
a row per roll: a campaign of a million events rebuilds a million rows. ``RebuiltRows`` keeps the
first ``limit`` of them in a dict; past that it moves them, and every ``limit`` rows after, to a
private temporary SQLite file (deleted when it is closed), so a replay holds a bounded number of
rows at any length of campaign. ``ordered`` gives them back in key order, the order the store reads
its own rows in, so that the two are compared page by page.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

from hexlog.events.chain import canonical_json

if TYPE_CHECKING:
    from collections.abc import Iterator

#: the rows held in memory before they go to the temporary file
LIMIT = 10_000
#: the rows read back from the temporary file at a time
PAGE = 2000


class RebuiltRows(MutableMapping[str, Any]):
    """Rows by key, as a dict up to ``limit`` rows (``LIMIT`` by default), then in a temporary file (values
    come back from it as JSON gives them: lists for tuples, as the store gives its own rows back)."""

    def __init__(self, limit: int | None = None) -> None:
        self._held: dict[str, Any] = {}
        self._limit = LIMIT if limit is None else limit
        self._file: sqlite3.Connection | None = None

    @property
    def spilled(self) -> bool:
        """Whether some rows went to the temporary file."""
        return self._file is not None

    def __setitem__(self, key: str, value: Any) -> None:
        self._held[key] = value
        if len(self._held) >= self._limit:
            self._spill()

    def __getitem__(self, key: str) -> Any:
        if key in self._held:
            return self._held[key]
        if self._file is not None:
            found = self._file.execute("SELECT data FROM rows WHERE key = ?", (key,)).fetchone()
            if found is not None:
                return json.loads(found[0])
        raise KeyError(key)

    def __delitem__(self, key: str) -> None:
        held = self._held.pop(key, self) is not self
        filed = self._file is not None and self._file.execute("DELETE FROM rows WHERE key = ?", (key,)).rowcount > 0
        if not (held or filed):
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if key in self._held:
            return True
        if self._file is None:
            return False
        return self._file.execute("SELECT 1 FROM rows WHERE key = ?", (key,)).fetchone() is not None

    def __len__(self) -> int:
        if self._file is None:
            return len(self._held)
        self._spill()
        (count,) = self._file.execute("SELECT COUNT(*) FROM rows").fetchone()
        return int(count)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self.ordered())

    def ordered(self) -> Iterator[tuple[str, Any]]:
        """Every (key, value) in key order (a key's latest value), read a page at a time once spilled."""
        if self._file is None:
            for key in sorted(self._held):
                yield key, self._held[key]
            return
        self._spill()
        page = self._file.execute("SELECT key, data FROM rows ORDER BY key LIMIT ?", (PAGE,)).fetchall()
        while page:
            for key, data in page:
                yield str(key), json.loads(data)
            if len(page) < PAGE:
                return
            page = self._file.execute(
                "SELECT key, data FROM rows WHERE key > ? ORDER BY key LIMIT ?", (page[-1][0], PAGE)
            ).fetchall()

    def close(self) -> None:
        """Delete the temporary file, if any (the rows it held are gone with it)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def _spill(self) -> None:
        """Move the rows held in memory to the temporary file (a later value of a key replaces the earlier)."""
        if self._file is None:
            # "" opens a private temporary database on disk, deleted when it is closed
            self._file = sqlite3.connect("", isolation_level=None)
            self._file.execute("PRAGMA journal_mode=OFF")
            self._file.execute("PRAGMA synchronous=OFF")
            self._file.execute("CREATE TABLE rows (key TEXT PRIMARY KEY, data TEXT NOT NULL) WITHOUT ROWID")
        if self._held:
            self._file.execute("BEGIN")
            self._file.executemany(
                "INSERT OR REPLACE INTO rows (key, data) VALUES (?, ?)",
                [(key, canonical_json(value)) for key, value in self._held.items()],
            )
            self._file.execute("COMMIT")
            self._held.clear()
