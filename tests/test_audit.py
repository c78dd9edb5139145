"""The audit: a clean campaign passes; forged rolls, wrong commitments and nonce gaps are caught."""

from __future__ import annotations

import enum
import hashlib
import hmac
import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import pytest

from hexlog.events.chain import Envelope, reseal
from hexlog.events.codec import decode
from hexlog.events.errors import NotFoundError
from hexlog.events.memory import MemoryStore
from hexlog.events.sqlite import SQLiteStore
from hexlog.machine import commands as c
from hexlog.machine import dice as hexdice
from hexlog.machine import encounter as enc
from hexlog.machine.handler import Handler
from hexlog.machine.keeper import MemoryKeeper
from hexlog.machine.kit.model import Model
from hexlog.machine.kit.procedure import Procedure
from hexlog.machine.kit.registry import Registry
from hexlog.machine.registry import REGISTRY
from hexlog.replay.audit import audit_envelopes, audit_store, explain_roll
from hexlog.replay.dice_audit import check_dice
from hexlog.replay.export import import_envelopes, read_export
from hexlog.replay.verdict import Verdict

if TYPE_CHECKING:
    from collections.abc import Iterator

SECRET = bytes(range(32))
STREAM = "campaign-c1"
ROLLS = (
    c.RollDice(expression="2d6+1", purpose="reaction"),
    c.RollDice(expression="d20", purpose="wandering check", secret=True),
    c.RollDice(expression="3d4-2", purpose="damage"),
    c.RollDice(expression="d100", purpose="treasure", secret=True),
)


class _AuditPhase(enum.Enum):
    """The phases of a procedure that exists only in these tests."""

    A = "A"
    B = "B"
    C = "C"


class _AuditModel(Model):
    """Its machine's model: no conditions."""


#: hexlog's registry and one more procedure with a machine: ``go`` from A to B, nothing else
AUDITPROC = Procedure(
    name="auditproc",
    title="A procedure for the audit tests.",
    steps={},
    phases=_AuditPhase,
    transitions=[{"trigger": "go", "source": _AuditPhase.A, "dest": _AuditPhase.B}],
    initial=_AuditPhase.A,
    final=frozenset({_AuditPhase.B}),
    model=_AuditModel,
)
WITH_AUDITPROC = Registry((*REGISTRY, AUDITPROC))


def drive(store: Any, *, close: bool = True) -> Handler:
    """Run a small campaign through the handler: session, client seed, party, rolls, close."""
    ids = itertools.count(1)
    handler = Handler(
        store,
        MemoryKeeper(),
        clock=lambda: "2026-11-29T20:00:00Z",
        new_id=lambda: f"00000000-0000-0000-0000-{next(ids):012d}",
    )
    handler.execute("c1", c.StartCampaign())
    handler.execute("c1", c.OpenSession(secret_hex=SECRET.hex()))
    handler.execute("c1", c.SetClientSeed(client_seed="table-7"))
    handler.execute("c1", c.AddMember(name="Ann", dex=13))
    handler.execute("c1", c.AddMember(name="Bo", speed=90))
    for command in ROLLS:
        handler.execute("c1", command)
    if close:
        handler.execute("c1", c.CloseSession())
    return handler


def envelopes_of(store: Any) -> list[Envelope]:
    """The campaign's envelopes in stream order."""
    return [r.envelope for r in store.read_stream(STREAM)]


def index_of(envelopes: list[Envelope], type_name: str, nth: int = 0) -> int:
    """The index of the ``nth`` envelope of a CloudEvents type."""
    return [i for i, e in enumerate(envelopes) if e.type == type_name][nth]


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An empty store of each backend."""
    made: Any = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "hexlog.db")
    yield made
    made.close()


class TestCleanCampaign:
    """A campaign the handler wrote audits clean on every backend."""

    def test_a_closed_campaign_audits_clean_with_every_roll_re_derived(self, store: Any) -> None:
        """No findings, every roll verified, none left unverifiable."""
        drive(store)
        report = audit_store(store)
        assert report.ok, report.text()
        assert (report.sessions, report.rolls, report.rolls_verified) == (1, len(ROLLS), len(ROLLS))
        assert report.unverifiable == ()
        assert report.first_bad is None

    def test_the_dice_audit_alone_verifies_every_roll_of_the_decoded_stream(self, store: Any) -> None:
        """check_dice on the decoded events: no issue, one session that revealed its secret, every roll verified."""
        drive(store)
        result = check_dice([decode(e) for e in envelopes_of(store)], REGISTRY)
        assert result.issues == ()
        assert (result.rolls, result.verified) == (len(ROLLS), len(ROLLS))
        assert list(result.sessions) == ["s1"]
        assert result.sessions["s1"].secret == SECRET

    def test_one_campaign_audits_clean_on_its_own(self, store: Any) -> None:
        """Auditing by campaign reads just its stream and finds nothing wrong."""
        drive(store)
        report = audit_store(store, "c1")
        assert report.ok, report.text()
        assert report.streams == (STREAM,)

    def test_an_unknown_campaign_is_not_found(self, store: Any) -> None:
        """Auditing a campaign the store does not hold raises NotFoundError."""
        with pytest.raises(NotFoundError):
            audit_store(store, "nope")

    def test_an_open_sessions_rolls_are_unverifiable_not_failures(self, store: Any) -> None:
        """Before the reveal every roll is reported unverifiable until the session closes, and the audit passes."""
        drive(store, close=False)
        report = audit_store(store)
        assert report.ok, report.text()
        assert report.rolls_verified == 0
        assert len(report.unverifiable) == len(ROLLS)
        assert all("unverifiable until the session closes" in f.reason for f in report.unverifiable)


class TestExplainRoll:
    """A roll explained step by step, checkable by hand."""

    def test_the_explanation_shows_the_key_the_draws_and_the_faces(self) -> None:
        """Roll 0 (2d6+1) shows the public lane's key derivation, each HMAC message and value, the bound, faces 1, 5."""
        store = MemoryStore()
        drive(store)
        text = explain_roll(envelopes_of(store), 0)
        key = hmac.new(SECRET, b"hexlog-dice-v2|public|table-7", hashlib.sha256).digest()
        first = int.from_bytes(hmac.new(key, b"0:0:0", hashlib.sha256).digest()[:8], "big")
        assert "reaction" in text
        assert "scheme hexlog-dice-v2" in text
        assert 'HMAC-SHA256(secret, "hexlog-dice-v2|public|table-7")' in text
        assert key.hex() in text
        assert '"0:0:0"' in text
        assert '"0:1:0"' in text
        assert str(first) in text
        assert str((2**64 // 6) * 6) in text
        assert "faces [1, 5], modifier +1, total 7" in text
        assert "match the record" in text

    def test_an_open_sessions_roll_names_the_commitment_and_waits_for_the_reveal(self) -> None:
        """Before the reveal the explanation says it can be checked once the secret is revealed."""
        store = MemoryStore()
        drive(store, close=False)
        text = explain_roll(envelopes_of(store), 1)
        assert "not revealed yet" in text
        assert hexdice.commitment(SECRET) in text
        assert "accepted" not in text

    def test_the_decisions_that_used_the_roll_are_listed(self) -> None:
        """An event after the roll whose rolls field names its nonce is listed with its type and data."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        decision = attrs.evolve(
            envelopes[-1],
            type="hexlog.encounter.reaction_checked",
            data={"rolls": [0], "reaction": "indifferent"},
        )
        at = index_of(envelopes, "hexlog.dice.rolled") + 1
        text = explain_roll(reseal([*envelopes[:at], decision, *envelopes[at:]]), 0)
        assert "hexlog.encounter.reaction_checked" in text
        assert '"reaction":"indifferent"' in text

    def test_a_missing_nonce_is_not_found(self) -> None:
        """Explaining a nonce no roll used raises NotFoundError."""
        store = MemoryStore()
        drive(store)
        with pytest.raises(NotFoundError):
            explain_roll(envelopes_of(store), 99)


class TestForgeries:
    """Logs whose chain is intact but whose dice or sessions lie."""

    def test_a_forged_roll_with_a_rebuilt_chain_is_caught_by_re_derivation(self) -> None:
        """Changing a face and the total, then resealing, fails the dice check at that roll."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        at = index_of(envelopes, "hexlog.dice.rolled", 1)
        data = dict(envelopes[at].data)
        face = data["faces"][0] % 20 + 1
        data.update(faces=[face], total=face)
        forged = reseal([*envelopes[:at], attrs.evolve(envelopes[at], data=data), *envelopes[at + 1 :]])
        report = audit_envelopes(forged)
        assert not report.ok
        bad = report.first_bad
        assert bad is not None
        assert (bad.check, bad.streamversion, bad.event_id) == ("dice", at + 1, envelopes[at].id)
        # the secret d20 is the referee lane's nonce 0: hexlog-dice-v2 gives 8 there
        assert bad.reason == f"faces [{face}] recorded; hexlog-dice-v2 gives [8]"
        assert all(f.check != "chain" for f in report.findings)

    def test_a_wrong_commitment_is_caught_at_the_reveal(self) -> None:
        """A commitment to another secret fails the reveal's commitment check."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        at = index_of(envelopes, "hexlog.session.opened")
        data = {**envelopes[at].data, "commitment": hexdice.commitment(bytes(32))}
        forged = reseal([*envelopes[:at], attrs.evolve(envelopes[at], data=data), *envelopes[at + 1 :]])
        report = audit_envelopes(forged)
        bad = report.first_bad
        assert bad is not None
        assert bad.check == "commitment"
        assert bad.event_id == envelopes[index_of(envelopes, "hexlog.session.closed")].id

    def test_a_nonce_gap_is_caught(self) -> None:
        """Removing a roll and resealing leaves the next roll of its lane skipping one (hexlog-dice-v2 lanes)."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        at = index_of(envelopes, "hexlog.dice.rolled", 1)  # the first secret roll, referee nonce 0
        following = index_of(envelopes, "hexlog.dice.rolled", 3)  # the next secret roll, referee nonce 1
        report = audit_envelopes(reseal([*envelopes[:at], *envelopes[at + 1 :]]))
        bad = report.first_bad
        assert bad is not None
        assert (bad.check, bad.event_id) == ("nonce", envelopes[following].id)
        assert "skips" in bad.reason
        assert [f.event_id for f in report.findings if f.check == "nonce"] == [envelopes[following].id]

    def test_a_second_session_committing_to_the_same_secret_is_caught(self) -> None:
        """Commands refuse a reused secret; a forged log that reuses one (rolls known in advance) fails the audit."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        opened = envelopes[index_of(envelopes, "hexlog.session.opened")]
        closed = envelopes[index_of(envelopes, "hexlog.session.closed")]
        again = [
            attrs.evolve(opened, id="00000000-0000-0000-0000-0000000000fe", data={**opened.data, "session": "s2"}),
            attrs.evolve(closed, id="00000000-0000-0000-0000-0000000000ff", data={**closed.data, "session": "s2"}),
        ]
        report = audit_envelopes(reseal([*envelopes, *again]))
        bad = report.first_bad
        assert bad is not None
        assert (bad.check, bad.event_id) == ("commitment", again[0].id)
        assert "commits to the secret of session s1" in bad.reason

    def test_a_repeated_nonce_is_caught(self) -> None:
        """A roll recorded twice (a silent re-roll) repeats its nonce."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        at = index_of(envelopes, "hexlog.dice.rolled", 2)
        again = attrs.evolve(envelopes[at], id="00000000-0000-0000-0000-0000000000ff")
        report = audit_envelopes(reseal([*envelopes[: at + 1], again, *envelopes[at + 1 :]]))
        assert any(f.check == "nonce" and f.event_id == again.id for f in report.findings)

    def test_a_client_seed_after_the_first_roll_is_caught(self) -> None:
        """Moving the client seed after a roll is a session finding."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        seed = index_of(envelopes, "hexlog.session.client_seed_set")
        first_roll = index_of(envelopes, "hexlog.dice.rolled")
        rest = [e for i, e in enumerate(envelopes) if i != seed]
        moved = [*rest[:first_roll], envelopes[seed], *rest[first_roll:]]
        report = audit_envelopes(reseal(moved))
        assert any(f.check == "session" and "after the first roll" in f.reason for f in report.findings)

    def test_a_roll_after_the_session_closed_is_caught(self) -> None:
        """A roll appended after the reveal lies outside an open session."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        roll = envelopes[index_of(envelopes, "hexlog.dice.rolled")]
        late = attrs.evolve(roll, id="late", data={**roll.data, "nonce": len(ROLLS)})
        report = audit_envelopes(reseal([*envelopes, late]))
        assert report.first_bad is not None
        assert (report.first_bad.check, report.first_bad.event_id) == ("session", "late")

    def test_an_unknown_event_type_is_a_finding_not_a_crash(self) -> None:
        """An event of a type no class carries is reported as a decode finding."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        odd = attrs.evolve(envelopes[-1], id="odd", type="hexlog.nothing.happened", data={})
        report = audit_envelopes(reseal([*envelopes, odd]))
        assert [(f.check, f.event_id) for f in report.findings] == [("decode", "odd")]

    def test_a_phase_change_its_machine_does_not_allow_is_caught(self) -> None:
        """The transition table of the procedure in the registry decides, and a change it lacks is a finding."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        change = {"procedure": "auditproc", "trigger": "go", "source": "A", "dest": "B"}
        good = attrs.evolve(envelopes[-1], id="good", type="hexlog.procedure.phase_changed", data=change)
        bad = attrs.evolve(good, id="bad", data={**change, "dest": "C"})
        report = audit_envelopes(reseal([*envelopes, good, bad]), registry=WITH_AUDITPROC)
        assert [(f.check, f.event_id) for f in report.findings] == [("transition", "bad")]
        assert report.findings[0].reason == "auditproc has no transition 'go' from A to C"

    @pytest.mark.parametrize(
        ("change", "ok"),
        [
            ({"trigger": "start", "source": "IDLE", "dest": "SURPRISE"}, True),
            # a row of the table, but the log has no encounter under way: it leaves a phase it is not in
            ({"trigger": "check_surprise", "source": "SURPRISE", "dest": "DISTANCE"}, False),
            ({"trigger": "start", "source": "IDLE", "dest": "COMBAT"}, False),
            ({"trigger": "conclude", "source": "INITIATIVE", "dest": "CONCLUDED"}, False),
            ({"trigger": "no_such_trigger", "source": "IDLE", "dest": "SURPRISE"}, False),
        ],
    )
    def test_an_encounter_phase_change_is_judged_by_its_transition_table(
        self,
        change: dict[str, str],
        ok: bool,  # noqa: FBT001 - a parameter
    ) -> None:
        """A recorded encounter change passes only when TRANSITIONS has that trigger from that source to that dest."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        data = {"procedure": "encounter", **change}
        extra = attrs.evolve(envelopes[-1], id="x", type="hexlog.procedure.phase_changed", data=data)
        report = audit_envelopes(reseal([*envelopes, extra]))
        expected = [] if ok else [("transition", "x")]
        assert [(f.check, f.event_id) for f in report.findings] == expected, report.text()

    @pytest.mark.parametrize("procedure", ["no_such_procedure", "campaign", "auditproc"])
    def test_a_phase_change_naming_a_procedure_with_no_machine_in_the_registry_is_caught(self, procedure: str) -> None:
        """An unknown procedure, one without a machine (the campaign), or one another registry has: a finding."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        change = {"procedure": procedure, "trigger": "go", "source": "A", "dest": "B"}
        extra = attrs.evolve(envelopes[-1], id="x", type="hexlog.procedure.phase_changed", data=change)
        report = audit_envelopes(reseal([*envelopes, extra]))
        assert [(f.check, f.event_id) for f in report.findings] == [("transition", "x")]
        assert report.findings[0].reason == f"the log names a procedure {procedure!r} that has no state machine here"


def drive_abandoned(store: Any, *, after: tuple[Any, ...] = ()) -> Handler:
    """The small campaign, but its session is abandoned (its key file lost) instead of closed; then ``after``."""
    kept = drive(store, close=False)
    # the key file is lost: a handler over the same log whose keeper never held the secret (abandon is
    # refused while the secret is still kept)
    handler = Handler(store, MemoryKeeper(), clock=kept.clock, new_id=kept.new_id)
    handler.execute("c1", c.AbandonSession(reason="the key file was lost"))
    for command in after:
        handler.execute("c1", command)
    return handler


class TestAbandonedSessions:
    """A session ended without a reveal: its rolls are unverifiable for good, never verified, never failures."""

    def test_an_abandoned_sessions_rolls_are_unverifiable_not_failures(self, store: Any) -> None:
        """Every roll of the abandoned session is a note saying it was abandoned; the audit passes."""
        drive_abandoned(store)
        report = audit_store(store)
        assert report.ok, report.text()
        assert (report.sessions, report.rolls, report.rolls_verified) == (1, len(ROLLS), 0)
        assert len(report.unverifiable) == len(ROLLS)
        assert all(f.reason == "session s1 was abandoned without revealing its secret" for f in report.unverifiable)
        assert report.verdict is Verdict.INCOMPLETE
        text = report.text()
        assert f"session s1 was abandoned, a withheld reveal: its {len(ROLLS)} rolls can never be verified" in text
        assert text.count("abandoned") == 1  # counted once for the session, never one line per roll

    def test_the_next_session_verifies_and_the_abandoned_one_stays_unverifiable(self, store: Any) -> None:
        """After an abandon a new session opens, rolls and closes: its rolls verify, the abandoned ones do not."""
        drive_abandoned(
            store,
            after=(
                c.OpenSession(secret_hex="22" * 32),
                c.RollDice(expression="d20"),
                c.RollDice(expression="2d6"),
                c.CloseSession(),
            ),
        )
        report = audit_store(store)
        assert report.ok, report.text()
        assert (report.sessions, report.rolls, report.rolls_verified) == (2, len(ROLLS) + 2, 2)
        assert len(report.unverifiable) == len(ROLLS)
        assert all("s1 was abandoned" in f.reason for f in report.unverifiable)

    def test_a_roll_after_the_abandon_is_caught(self) -> None:
        """A roll appended after the abandon lies outside an open session, as after a close."""
        store = MemoryStore()
        drive_abandoned(store)
        envelopes = envelopes_of(store)
        roll = envelopes[index_of(envelopes, "hexlog.dice.rolled")]
        late = attrs.evolve(roll, id="late", data={**roll.data, "nonce": len(ROLLS)})
        report = audit_envelopes(reseal([*envelopes, late]))
        assert report.first_bad is not None
        assert (report.first_bad.check, report.first_bad.event_id) == ("session", "late")

    def test_abandoning_a_session_that_is_not_open_is_caught(self) -> None:
        """An abandon after the reveal (or of a session never opened) is a session finding."""
        store = MemoryStore()
        drive(store)
        envelopes = envelopes_of(store)
        odd = attrs.evolve(
            envelopes[-1],
            id="odd",
            type="hexlog.session.abandoned",
            data={"session": "s1", "reason": "late"},
        )
        report = audit_envelopes(reseal([*envelopes, odd]))
        assert [(f.check, f.event_id) for f in report.findings] == [("session", "odd")]
        assert report.rolls_verified == len(ROLLS)

    def test_an_abandoned_roll_is_explained_as_never_verifiable(self) -> None:
        """explain_roll says the session was abandoned and derives nothing."""
        store = MemoryStore()
        drive_abandoned(store)
        text = explain_roll(envelopes_of(store), 0)
        assert "session s1 was abandoned without revealing its secret" in text
        assert "can never be verified" in text
        assert hexdice.commitment(SECRET) in text
        assert "accepted" not in text
        assert "not revealed yet" not in text


class TestReservedPurposesInOldLogs:
    """hexlog 0.1.0 let a free roll take a procedure's purpose; its logs still import, but are not VERIFIED."""

    SAMPLE = Path(__file__).resolve().parent / "golden" / "sample-export.jsonl"

    def _with_a_free_roll_named(self, purpose: str, scheme: str) -> list[Envelope]:
        """The v1 sample (or the same under ``scheme``) with one more 2d6, honestly derived, for ``purpose``."""
        envelopes = read_export(self.SAMPLE.read_bytes().split(b"\n"))
        envelopes = [
            attrs.evolve(env, data={**env.data, "scheme": scheme}) if env.type == "hexlog.session.opened" else env
            for env in envelopes
        ]
        rolls = [env for env in envelopes if env.type == "hexlog.dice.rolled"]
        last = rolls[-1]
        lane = hexdice.lane_of(scheme, "public")
        nonce = 1 + max(env.data["nonce"] for env in rolls if hexdice.lane_of(scheme, env.data["visibility"]) == lane)
        key = hexdice.lane_key(scheme, bytes(range(32)), "table-7", lane)
        faces = list(hexdice.faces_for(key, nonce, (6, 6)))
        data = {**last.data, "nonce": nonce, "purpose": purpose, "sides": [6, 6], "faces": faces, "modifier": 0}
        data |= {"total": sum(faces), "visibility": "public"}
        extra = attrs.evolve(last, id="00000000-0000-0000-0000-0000000000ff", data=data)
        at = envelopes.index(last) + 1
        return reseal([*envelopes[:at], extra, *envelopes[at:]])

    def test_a_v1_roll_of_a_reserved_purpose_no_decision_names_is_a_doubt_not_a_fault(self):
        """The roll is named in the verdict's caveats (INCOMPLETE): it cannot be told from a silent re-roll."""
        report = audit_envelopes(self._with_a_free_roll_named("encounter.reaction", hexdice.V1))
        assert report.verdict is Verdict.INCOMPLETE, report.text()
        assert any("for encounter.reaction is named by no decision" in caveat for caveat in report.caveats)
        assert import_envelopes(MemoryStore(), self._with_a_free_roll_named("encounter.reaction", hexdice.V1))

    def test_under_v2_the_same_roll_is_a_fault(self):
        """A release that reserves purposes wrote v2 sessions: there the same roll fails the audit."""
        report = audit_envelopes(self._with_a_free_roll_named("encounter.reaction", hexdice.V2))
        assert report.verdict is Verdict.FAILED
        assert "named by no decision: rolled and then ignored" in report.text()


def test_a_decision_that_does_not_decode_is_the_first_bad_event_not_the_rolls_it_named():
    """The rolls a broken decision named are not reported as ignored before it: the decision itself is named."""
    store = MemoryStore()
    handler = drive(store, close=False)
    handler.execute("c1", enc.StartEncounter(setting="dungeon", monster_count=3))
    handler.execute("c1", enc.CheckSurprise())
    envelopes = envelopes_of(store)
    at = index_of(envelopes, "hexlog.encounter.surprise_checked")
    broken = attrs.evolve(envelopes[at], data={"session": 7})
    report = audit_envelopes(reseal([*envelopes[:at], broken, *envelopes[at + 1 :]]))
    bad = report.first_bad
    assert bad is not None
    assert (bad.check, bad.event_id) == ("decode", broken.id)
    assert not [f for f in report.findings if "named by no decision" in f.reason]
