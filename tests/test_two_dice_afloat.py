"""A ship whose two dice both call an encounter meets both, in turn (U&WA pp.17-18, REFERENCE §4.7).

Under ``afloat_rule = "odd_two_dice"`` a ship's day rolls two dice: a 5 on the first is a waterborne encounter at
midday, a 6 on the second a normal encounter at the day's end. When both come up the day meets both: the wandering
check records the waterborne one and names the second (``travel.wandering_checked`` version 4, ``second``), hands the
waterborne one off, and once it concludes (with the chase on water after it, if any) the day resumes and hands off
the second, set in the wilderness. The day ends only after both; a log that drops the second fails the audit.

``tests/golden/two-dice-afloat-v3.jsonl`` was written by hexlog at 1e43599, whose check met the waterborne encounter
alone when both dice called one: a party of two afloat under house rules on which every face of either die calls an
encounter (its dice 2 and 1), one encounter met and parted, the day ended and the journey finished. It still audits
VERIFIED, its check re-run as its release made it (``CheckWanderingOneAfloat``, the audit's own command), and
exports byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest

from hexlog.events import encounter as enc_ev
from hexlog.events import travel as ev
from hexlog.events.chain import Envelope, reseal
from hexlog.events.codec import decode, from_data
from hexlog.events.errors import RuleRefusedError
from hexlog.events.memory import MemoryStore
from hexlog.events.procedure import HandedOff, Resumed
from hexlog.machine import chase as ch
from hexlog.machine import commands as c
from hexlog.machine.encounter import commands as enc
from hexlog.machine.handler import Handler
from hexlog.machine.hexmap import SetHex
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.registry import REGISTRY
from hexlog.machine.rolls import ScriptedRoller
from hexlog.machine.travel import commands as tr
from hexlog.machine.travel.inverse import command_before
from hexlog.replay.audit import audit_envelopes, audit_store
from hexlog.replay.export import export_lines, import_envelopes, read_export
from hexlog.replay.rebuild import replay
from hexlog.replay.verdict import Verdict
from hexlog.service import render

from .conftest import run_hexlog, secret_file

CAMPAIGN = "ship"
TWO_DICE = {"afloat_rule": "odd_two_dice"}
V3_LOG = Path(__file__).resolve().parent / "golden" / "two-dice-afloat-v3.jsonl"
UNMET = "travel.day_ended: the day ends, but the wilderness encounter its wandering check met was never handed off"
#: the day's resume as the first encounter concluded, in a log of the release whose resumes the audit re-runs (the
#: session names it): the kit hands off the second die's encounter there
RESUMED_WITHOUT_THE_SECOND = (
    'travel resumes as encounter concluded: after it the rules record procedure.handed_off parent="travel", '
    'child="encounter", but the log has travel.day_ended there'
)


@attrs.define
class Voyage:
    """Ann (120) and Bo (60) afloat from a meadow's hex under explore with U&WA's two dice (and ``options``), on a
    scripted roller: each command takes exactly the faces it is given."""

    options: dict[str, Any] = attrs.field(factory=dict)
    script: list[int] = attrs.field(factory=list)
    handler: Handler = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.handler = Handler(MemoryStore(), MemoryKeeper(), roller=lambda _t: ScriptedRoller(self.script))
        self.run(c.StartCampaign(ruleset="explore", overrides={"options": {**TWO_DICE, **self.options}}))
        self.run(c.OpenSession(secret_hex="5a" * 32))
        self.run(c.AddMember(name="Ann"))
        self.run(c.AddMember(name="Bo", speed=60))
        self.run(SetHex(hex="2,2", terrain="meadow"))
        self.run(SetHex(hex="1,2", terrain="river"))  # the ship sets out from a port beside it
        self.run(tr.StartJourney(hex="2,2", afloat=True))
        self.run(tr.RollWeather(weather="clear"))
        self.run(tr.DeclareRoute(), 6, 1)  # not lost

    def run(self, command: c.Command, *faces: int) -> list[Any]:
        self.script[:] = faces
        events = list(self.handler.execute(CAMPAIGN, command).events)
        assert self.script == [], f"{type(command).__name__} left faces {self.script}"
        return events

    def meet(self) -> list[Any]:
        """An encounter met and parted: nobody surprised, 100 yd apart, the party first, then it ends."""
        self.run(enc.CheckSurprise(), 6, 6)
        self.run(enc.DetermineDistance(value=100))
        self.run(enc.RollInitiative(), 5, 2)
        return self.run(enc.ConcludeEncounter(outcome="parted"))

    def envelopes(self) -> list[Envelope]:
        return read_export(list(export_lines(self.handler.store, CAMPAIGN)))


def only(events: list[Any], kind: type) -> Any:
    (found,) = [e for e in events if isinstance(e, kind)]
    return found


def both_met() -> Voyage:
    """A day on which both dice call an encounter (5, 6), each met and parted in turn, and the day ended."""
    v = Voyage()
    v.run(tr.CheckWandering(), 5, 6)
    v.meet()
    v.meet()
    v.run(tr.EndDay())
    return v


class TestBothDiceCall:
    def test_the_check_records_both_and_hands_off_the_waterborne_one_first(self) -> None:
        v = Voyage()
        out = v.run(tr.CheckWandering(), 5, 6)
        checked = only(out, ev.WanderingChecked)
        assert (checked.row, checked.encounter, checked.setting, checked.second) == (
            "afloat (odd_two_dice)",
            True,
            "waterborne",
            "wilderness",
        )
        started = only(out, enc_ev.EncounterStarted)
        assert (started.number, started.setting, started.name) == (1, "waterborne", "day 1: wandering monsters")
        assert v.handler.load(CAMPAIGN).handoffs == (("travel", "encounter"),)
        assert v.handler.load(CAMPAIGN).procedures["travel"].meets == ("wilderness",)

    def test_the_day_resumes_into_the_second_once_the_first_concludes(self) -> None:
        v = Voyage()
        v.run(tr.CheckWandering(), 5, 6)
        out = v.meet()
        assert [(e.parent, e.child) for e in out if isinstance(e, Resumed)] == [("travel", "encounter")]
        assert only(out, HandedOff) == HandedOff(parent="travel", child="encounter")
        started = only(out, enc_ev.EncounterStarted)
        assert (started.number, started.setting, started.name) == (
            2,
            "wilderness",
            "day 1: wandering monsters at the day's end",
        )
        kinds = [type(e) for e in out]
        assert kinds.index(enc_ev.EncounterConcluded) < kinds.index(Resumed) < kinds.index(HandedOff)
        assert v.handler.load(CAMPAIGN).handoffs == (("travel", "encounter"),)
        assert v.handler.load(CAMPAIGN).procedures["travel"].meets == ()

    def test_the_day_waits_for_the_second_and_ends_after_it(self) -> None:
        v = Voyage()
        v.run(tr.CheckWandering(), 5, 6)
        v.meet()
        with pytest.raises(RuleRefusedError, match="travel waits for encounter"):
            v.run(tr.EndDay())
        out = v.meet()
        assert only(out, Resumed) == Resumed(parent="travel", child="encounter")
        assert [e for e in out if isinstance(e, HandedOff)] == []  # no third
        assert v.handler.load(CAMPAIGN).handoffs == ()
        v.run(tr.EndDay())
        stored = [decode(r.envelope) for r in v.handler.store.read_stream(f"campaign-{CAMPAIGN}")]
        assert [(e.number, e.setting) for e in stored if isinstance(e, enc_ev.EncounterStarted)] == [
            (1, "waterborne"),
            (2, "wilderness"),
        ]

    @pytest.mark.parametrize(("faces", "setting"), [((5, 1), "waterborne"), ((1, 6), "wilderness")])
    def test_one_die_alone_meets_one_encounter(self, faces: tuple[int, int], setting: str) -> None:
        v = Voyage()
        checked = only(v.run(tr.CheckWandering(), *faces), ev.WanderingChecked)
        assert (checked.setting, checked.second) == (setting, "")
        out = v.meet()
        assert [e for e in out if isinstance(e, HandedOff)] == []
        assert v.handler.load(CAMPAIGN).handoffs == ()

    def test_a_chase_on_water_after_the_first_comes_before_the_second(self) -> None:
        """The first encounter ends in pursuit and the day hands off the chase on water; the second follows it."""
        v = Voyage(options={"waterborne_pursuit_hands_off": False})
        v.run(tr.CheckWandering(), 5, 6)
        v.run(enc.CheckSurprise(), 6, 2)  # the pirates alone surprised
        v.run(enc.DetermineDistance(value=100))
        v.run(enc.RollInitiative(), 6, 2)
        v.run(enc.Evade())
        out = v.run(enc.DecidePursuit(pursue=True))
        assert only(out, HandedOff) == HandedOff(parent="travel", child="chase")
        assert [e for e in out if isinstance(e, enc_ev.EncounterStarted)] == []
        ended = v.run(ch.Evade(), 1)  # the vessel gets away
        assert only(ended, Resumed) == Resumed(parent="travel", child="chase")
        assert only(ended, HandedOff) == HandedOff(parent="travel", child="encounter")
        assert only(ended, enc_ev.EncounterStarted).setting == "wilderness"

    def test_the_log_tells_both(self) -> None:
        v = Voyage()
        v.run(tr.CheckWandering(), 5, 6)
        text = [line.text for line in render.timeline(list(v.handler.store.read_stream(f"campaign-{CAMPAIGN}")))]
        assert (
            "wandering check (afloat (odd_two_dice), encounter on 6): ENCOUNTER (waterborne), then ENCOUNTER "
            "(wilderness) once it concludes [rolls #0, #1]"
        ) in text

    def test_it_replays_and_audits_clean(self) -> None:
        v = both_met()
        assert replay(v.handler.store, CAMPAIGN, REGISTRY).ok
        assert audit_store(v.handler.store, CAMPAIGN, REGISTRY).findings == ()
        assert audit_envelopes(v.envelopes()).findings == ()


class TestAForgedDay:
    """The database's owner drops the second encounter (its hand-off, its start and end, the day's resume after it)
    and reseals the chain."""

    def dropped(self, envelopes: list[Envelope]) -> list[Envelope]:
        handed = [i for i, env in enumerate(envelopes) if env.type == "hexlog.procedure.handed_off"]
        resumed = [i for i, env in enumerate(envelopes) if env.type == "hexlog.procedure.resumed"]
        start, end = handed[1], resumed[1] + 1  # through the day's resume phase change after it
        assert envelopes[end].type == "hexlog.procedure.phase_changed"
        return [*envelopes[:start], *envelopes[end + 1 :]]

    def second_unmet(self) -> list[Envelope]:
        """The second encounter concludes at once (cancelled, no dice), so nothing else betrays its absence."""
        v = Voyage()
        v.run(tr.CheckWandering(), 5, 6)
        v.meet()
        v.run(enc.CancelEncounter(reason="forged away"))
        v.run(tr.EndDay())
        assert audit_envelopes(v.envelopes()).findings == ()
        return self.dropped(v.envelopes())

    def test_a_day_that_ends_without_the_second_fails_the_audit(self) -> None:
        """The day's resume after the first encounter does not hand the second off, and the day ends with it unmet."""
        envelopes = reseal(self.second_unmet())
        report = audit_envelopes(envelopes)
        at = next(env.streamversion for env in envelopes if env.type == "hexlog.travel.day_ended")
        resumed = next(env.streamversion for env in envelopes if env.type == "hexlog.procedure.resumed")
        assert [(f.check, f.streamversion, f.reason) for f in report.findings] == [
            ("decision", resumed, RESUMED_WITHOUT_THE_SECOND),
            ("decision", at, UNMET),
        ]
        assert report.verdict is Verdict.FAILED

    def test_a_check_that_names_no_second_fails_the_audit_too(self) -> None:
        envelopes = self.second_unmet()
        at = next(i for i, env in enumerate(envelopes) if env.type == "hexlog.travel.wandering_checked")
        envelopes[at] = attrs.evolve(envelopes[at], data={**envelopes[at].data, "second": ""})
        report = audit_envelopes(reseal(envelopes))
        reasons = [f.reason for f in report.findings]
        assert len(reasons) == 3, reasons
        assert reasons[0].startswith('second "" recorded, but the rules give "wilderness" from rolls #0 (1d6 = 5), #1')
        assert reasons[1:] == [RESUMED_WITHOUT_THE_SECOND, UNMET]
        assert report.verdict is Verdict.FAILED


class TestTheLogOfTheReleaseBefore:
    """``two-dice-afloat-v3.jsonl``: both dice called an encounter, and its release met the waterborne one alone."""

    def lines(self) -> list[str]:
        return V3_LOG.read_text(encoding="utf-8").splitlines()

    def test_both_dice_called_and_one_encounter_was_met(self) -> None:
        events = [decode(e) for e in read_export(self.lines())]
        checked = only(events, ev.WanderingChecked)
        assert (checked.encounter, checked.setting, checked.second) == (True, "waterborne", "")
        assert len(checked.rolls) == 2
        assert only(events, enc_ev.EncounterStarted).setting == "waterborne"
        assert any(isinstance(e, ev.DayEnded) for e in events)

    def test_its_check_is_re_run_as_its_release_made_it(self) -> None:
        checked = next(env for env in read_export(self.lines()) if env.type == "hexlog.travel.wandering_checked")
        assert checked.schemaversion == 3
        assert command_before(decode(checked), 3) == tr.CheckWanderingOneAfloat()

    def test_it_audits_verified(self) -> None:
        report = audit_envelopes(read_export(self.lines()))
        assert report.findings == (), report.text()
        assert report.verdict is Verdict.VERIFIED

    def test_it_imports_replays_and_exports_the_same_bytes(self) -> None:
        store = MemoryStore()
        campaign = import_envelopes(store, read_export(self.lines())).campaign
        assert replay(store, campaign, REGISTRY).ok
        assert "".join(f"{line}\n" for line in export_lines(store, campaign)).encode() == V3_LOG.read_bytes()


def test_a_version_3_check_upcasts_with_no_second() -> None:
    data = {"row": "afloat (odd_two_dice)", "encounter_on": [6], "encounter": True, "setting": "waterborne"}
    event = from_data("hexlog.travel.wandering_checked", 3, {**data, "rolls": [4, 5]})
    assert isinstance(event, ev.WanderingChecked)
    assert event.second == ""


def test_the_old_check_is_the_audits_alone() -> None:
    v = Voyage()
    with pytest.raises(RuleRefusedError, match="is the audit's"):
        v.run(tr.CheckWanderingOneAfloat())


def test_the_command_line_tells_the_day_resuming_into_the_second(tmp_path: Path) -> None:
    """On fixed dice, under house rules on which every face of either die calls an encounter: the first's end resumes
    the day, which waits at once for the second (and offers no step of its own); the log audits clean."""
    (tmp_path / "house.toml").write_text(
        '[options]\nafloat_rule = "odd_two_dice"\n\n[tables.afloat]\nseed_encounter = [1]\n'
        "odd_first_die_waterborne = [1, 2, 3, 4, 5, 6]\nodd_second_die_normal = [1, 2, 3, 4, 5, 6]\n",
        encoding="utf-8",
    )

    def hexlog(*args: str, code: int = 0) -> str:
        done = run_hexlog(*args, cwd=tmp_path)
        assert done.returncode == code, done.stdout + done.stderr
        return done.stdout

    hexlog("init", "--ruleset", "explore", "--rules", "house.toml")
    for args in (
        ("session", "open", "--secret-file", secret_file(tmp_path, "5a" * 32)),
        ("party", "add", "Ann"),
        ("map", "set", "2,2", "--terrain", "meadow"),
        ("map", "set", "1,2", "--terrain", "river"),
        ("travel", "start", "2,2", "--afloat"),
        ("travel", "weather", "--set", "clear"),
        ("travel", "route"),
    ):
        hexlog(*args)
    assert "ENCOUNTER (waterborne), then ENCOUNTER (wilderness) once it concludes" in hexlog("travel", "check")
    ended = hexlog("encounter", "cancel", "--reason", "the first is over")
    assert "encounter 2 'day 1: wandering monsters at the day's end' begins" in ended
    assert "   travel resumes -> DUSK; next: nothing\n" in ended
    assert "   travel waits for encounter -> SURPRISE; next: hexlog encounter check-surprise\n" in ended
    assert "   travel resumes -> DUSK; next: hexlog travel end-day" in hexlog("encounter", "cancel", "--reason", "2")
    hexlog("travel", "end-day")
    assert "INCOMPLETE: nothing is wrong" in hexlog("audit", code=3)  # the session is open and has no client seed
