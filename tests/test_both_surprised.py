"""Both sides surprised, and the party flees in the wilderness.

``tests/golden/both-surprised-evasion-v1.jsonl`` was written by hexlog at commit 26d036b, on a session whose
secret it drew: a campaign under ``explore`` whose travel day ends in a wandering encounter where both sides are
surprised; the party flees and rolls its evasion (seed 004), which that release read as the party surprised (no
chance in the open); the pursuit the day handed over recorded the party surprised, and it got away. Then under
house rules giving OSE's evasion the same happens again: the monsters pursue, and the pursuit the day handed over
recorded the party surprised, so its first evasion roll had no chance. It still imports, replays, audits VERIFIED
and exports byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hexlog.events.memory import MemoryStore
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_envelopes
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay

V1_LOG = Path(__file__).resolve().parent / "golden" / "both-surprised-evasion-v1.jsonl"
V1_CAMPAIGN = "both"


class TestALogOfVersion1:
    def lines(self) -> list[str]:
        return V1_LOG.read_text(encoding="utf-8").splitlines()

    def rows(self, kind: str) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines() if f'"hexlog.{kind}"' in line]

    def test_it_holds_two_meetings_where_both_sides_were_surprised(self) -> None:
        surprise = [row["data"] for row in self.rows("encounter.surprise_checked")]
        assert [(s["party_surprised"], s["monsters_surprised"], s["advantage"]) for s in surprise] == [
            (True, True, "none"),
            (True, True, "none"),
        ]
        (evasion,) = self.rows("encounter.evasion_rolled")
        assert evasion["schemaversion"] == 1
        assert evasion["data"]["steps"][-1] == "surprised, not in woods and no magic: no chance"
        started = [row["data"] for row in self.rows("pursuit.started")]
        assert [(s["party_surprised"], s["rules"]) for s in started] == [(True, "odd"), (True, "ose")]

    def test_it_audits_verified(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict.name == "VERIFIED"
        assert (report.events, report.rolls, report.rolls_verified, report.decisions) == (177, 21, 21, 18)

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        import_envelopes(store, read_export(self.lines()))
        assert replay(store, V1_CAMPAIGN, REGISTRY).ok
        assert list(export_lines(store, V1_CAMPAIGN)) == self.lines()
