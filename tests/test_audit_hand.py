"""What the referee could steer without breaking a roll is told in the audit's account of the referee's hand, and a
log whose dice scheme was changed by hand fails: free rolls (each takes a nonce a step would have had), encounters
cancelled or corrected, rules under a name no built-in has, and a session rolling one lane where the release that
wrote it rolls two."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from hexlog.machine import ruleset as rulesets
from hexlog.machine.registry import REGISTRY
from hexlog.replay import export as exports
from hexlog.replay.audit import audit_envelopes

from .conftest import secret_file
from .test_attacks import SECRET, SEED, face, lane_key, ok, read_export, reseal, write_export

HAND = "decided by the referee's hand:\n"


#: the words of an encounter's start the referee gave (its monsters' count and speed), which every encounter started
#: by hand has
STARTED = "the referee's count and speed (the evasion, a pursuit and a chase read them)"


def hand_of(stdout: str, *, starts: bool = False) -> list[str]:
    """The lines of an audit's account of the referee's hand (with ``starts``, an encounter's start's too)."""
    lines = [line.removeprefix("  - ") for line in stdout.split(HAND, 1)[1].splitlines() if line.startswith("  - ")]
    return [line for line in lines if starts or STARTED not in line]


def seated(hexlog, folder: Path) -> None:
    """A campaign with the fixed secret and client seed, a session open and Ayla in the party."""
    ok(hexlog("init"))
    ok(hexlog("session", "open", "--secret-file", secret_file(folder, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla", "--cha", "9"))


def test_free_rolls_are_counted_as_the_referees_hand_with_the_first_five_named(hexlog, tmp_path):
    """Seven free rolls, one secret: one line where the session ends, naming five (the secret one by its name alone:
    its purpose is the referee's) and counting the rest, in the database's audit (read as it comes) and an export's
    (read whole) alike; a session without free rolls has no such line, and one still open none yet."""
    seated(hexlog, tmp_path)
    for n in range(7):
        ok(hexlog("roll", "1d6", *(("--secret",) if n == 2 else ()), "--purpose", f"omen {n}"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        assert audited.returncode == 3, audited.stdout + audited.stderr  # INCOMPLETE: the secret was supplied
        assert hand_of(audited.stdout) == [
            (
                "stream version 12: 7 free rolls of session s1 made by the referee outside any procedure step (#0 "
                'for "omen 0", #1 for "omen 1", #r0, #2 for "omen 3", #3 for "omen 4" and 2 more); each '
                "took the next nonce of its lane, so the referee, who knows the secret, could have spent one to pass "
                "over a roll a step would have made"
            )
        ]
    ok(hexlog("session", "open"))
    ok(hexlog("session", "seed", "other words"))
    ok(hexlog("encounter", "start", "--monsters", "3"))
    ok(hexlog("encounter", "check-surprise"))
    ok(hexlog("session", "close"))
    hand = hand_of(hexlog("audit").stdout)
    assert len(hand) == 2, hand  # the second session's rolls were all a step's (it closed during the encounter)
    assert "session s2 closed while encounter" in hand[1]
    ok(hexlog("session", "open"))
    ok(hexlog("session", "seed", "third words"))
    ok(hexlog("roll", "1d6", "--purpose", "omen"))
    assert len(hand_of(hexlog("audit").stdout)) == 2  # told once the session ends


def test_a_session_closed_while_a_procedure_is_under_way_is_the_referees_hand(hexlog, tmp_path):
    """The referee, who knows the dice a session will roll next, could close it in the middle of an encounter to leave
    them unrolled (the rest is rolled on a new session's dice): named with the phase, in the database's audit and an
    export's alike. A session closed with no procedure under way is not named."""
    seated(hexlog, tmp_path)
    ok(hexlog("encounter", "start", "--monsters", "3"))
    ok(hexlog("encounter", "check-surprise"))
    ok(hexlog("session", "close"))
    ok(hexlog("session", "open"))
    ok(hexlog("session", "seed", "other words"))
    ok(hexlog("encounter", "determine-distance"))
    ok(hexlog("encounter", "cancel", "--reason", "they go their way"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        assert audited.returncode == 3, audited.stdout + audited.stderr  # INCOMPLETE: the first secret was supplied
        hand = hand_of(audited.stdout)
        assert len(hand) == 2, hand  # the close, then the cancel; the second session closed with nothing under way
        assert re.fullmatch(
            r"stream version \d+: session s1 closed while encounter \(phase DISTANCE\) was under way; the referee, "
            r"who knew the dice it would roll next, could have closed it to leave them unrolled",
            hand[0],
        ), hand
        assert "cancelled by the referee" in hand[1], hand


def test_a_members_record_corrected_is_the_referees_hand(hexlog, tmp_path):
    """A speaker's CHA raised just before the reaction roll, by a referee who knew its dice, steers it as a modifier
    given by hand would: every correction of a member's record is named with what it changed."""
    seated(hexlog, tmp_path)
    ok(hexlog("encounter", "start", "--monsters", "3", "--party-aware", "--monsters-aware"))
    ok(hexlog("encounter", "check-surprise"))
    ok(hexlog("encounter", "determine-distance"))
    ok(hexlog("encounter", "roll-initiative"))
    ok(hexlog("party", "edit", "Ayla", "--cha", "18", "--str", "12", "--reason", "misread her sheet"))
    ok(hexlog("encounter", "react", "--speaker", "Ayla"))
    ok(hexlog("encounter", "conclude"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        assert audited.returncode == 3, audited.stdout + audited.stderr  # INCOMPLETE: the secret was supplied
        hand = hand_of(audited.stdout)
        assert len(hand) == 1, hand
        assert re.fullmatch(
            r"stream version \d+: Ayla's record corrected by the referee: cha 9 -> 18, strength 10 -> 12 "
            r"\(misread her sheet\)",
            hand[0],
        ), hand


def test_a_hex_changed_during_a_journey_is_the_referees_hand(hexlog, tmp_path):
    """The party's hex turned from clear to swamp just before the day's wandering check (whose range the terrain sets),
    by a referee who knew its die: named with what changed and the procedure under way. A hex first drawn during the
    journey, or changed with nothing under way, is not named."""
    seated(hexlog, tmp_path)
    ok(hexlog("rules", "change", "--ruleset", "explore"))
    for hex_ in ("0,0", "0,1"):
        ok(hexlog("map", "set", hex_, "--terrain", "clear"))
    ok(hexlog("map", "set", "0,1", "--terrain", "hills"))  # nothing under way
    ok(hexlog("travel", "start", "0,0"))
    ok(hexlog("travel", "weather"))
    ok(hexlog("travel", "route", "S"))
    ok(hexlog("map", "set", "5,5", "--terrain", "woods"))  # drawn for the first time
    ok(hexlog("map", "set", "0,0", "--terrain", "swamp"))
    ok(hexlog("travel", "check"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        assert audited.returncode == 3, audited.stdout + audited.stderr  # INCOMPLETE: the secret was supplied
        changed = [line for line in hand_of(audited.stdout) if "hex " in line]
        assert len(changed) == 1, hand_of(audited.stdout)
        assert re.fullmatch(
            r"stream version \d+: hex 0,0 changed by the referee from clear to swamp while travel \(phase TRAVEL\) "
            r"was under way",
            changed[0],
        ), changed


def test_an_encounter_cancelled_or_corrected_is_the_referees_hand(hexlog, tmp_path):
    """A cancel after the surprise roll could undo rolls that went against the referee, one before any roll an
    encounter the dice brought; a correction changes a fact the rolls were read with: each is named."""
    seated(hexlog, tmp_path)
    ok(hexlog("encounter", "start", "--monsters", "3"))
    ok(hexlog("encounter", "check-surprise"))
    ok(hexlog("encounter", "cancel", "--reason", "started by mistake"))
    ok(hexlog("encounter", "start", "--monsters", "3"))
    ok(hexlog("encounter", "correct", "--monsters", "12", "--reason", "miscounted"))
    ok(hexlog("encounter", "cancel", "--reason", "they were never there"))
    ok(hexlog("session", "close"))
    audited = hexlog("audit")
    assert audited.returncode == 3, audited.stdout  # INCOMPLETE: the secret was supplied
    hand = hand_of(audited.stdout)
    assert len(hand) == 3, hand
    assert re.fullmatch(
        r"stream version \d+: encounter 1 cancelled by the referee in its distance phase, after its rolls "
        r"\(started by mistake\)",
        hand[0],
    ), hand
    assert re.fullmatch(
        r"stream version \d+: encounter 2's monster_count corrected by the referee from 3 to 12 \(miscounted\)",
        hand[1],
    ), hand
    assert re.fullmatch(
        r"stream version \d+: encounter 2 cancelled by the referee before its first roll \(they were never there\)",
        hand[2],
    ), hand


def closed_export(hexlog, folder: Path) -> list[dict]:
    """A campaign with two public free rolls in a closed session, exported."""
    seated(hexlog, folder)
    ok(hexlog("roll", "1d20", "--purpose", "the torch gutters"))
    ok(hexlog("roll", "2d6", "--purpose", "the wind"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    return read_export(folder / "log.jsonl")


#: ``ose`` as the first release shipped it
FIRST_OSE = tomllib.loads((rulesets.RELEASED_DIR / "0.1.0" / "ose.toml").read_text("utf-8"))


def one_lane(events: list[dict], schema: int, *, first_rules: bool = True) -> list[dict]:
    """The log as a referee would re-write it to roll hexlog-dice-v1: the scheme named, every face derived anew with
    v1's one key, the chain sealed again; ``session.opened`` at schema version ``schema``; with ``first_rules``, the
    campaign started under ``ose`` as the first release shipped it (today's was never shipped with version 1)."""
    key = lane_key(SECRET, SEED, None)
    out = []
    for event in events:
        data, schemaversion = dict(event["data"]), event["schemaversion"]
        if event["type"] == "hexlog.campaign.started" and first_rules:
            data["rules"], data["rules_hash"] = FIRST_OSE, rulesets.from_recorded("ose", FIRST_OSE).hash
        if event["type"] == "hexlog.session.opened":
            data["scheme"], schemaversion = "hexlog-dice-v1", schema
            if schema < 3:  # as the releases before version 3 wrote it, naming no release
                del data["release"]
            if schema == 1:  # as the first release wrote it, without ``supplied``
                del data["supplied"]
        if event["type"] == "hexlog.dice.rolled":
            data["faces"] = [face(key, data["nonce"], k, sides) for k, sides in enumerate(data["sides"])]
            data["total"] = sum(data["faces"]) + data["modifier"]
        out.append(event | {"data": data, "schemaversion": schemaversion})
    return reseal(out)


def test_a_session_turned_back_to_one_lane_fails_the_audit(hexlog, tmp_path):
    """Every release that writes ``session.opened`` at schema version 2 rolls hexlog-dice-v2: a v2 session.opened
    naming hexlog-dice-v1, every face re-derived to fit, is a log re-written by hand; at schema version 1 the same
    log under the first release's rules is what the first release wrote, and verifies; under today's rules, which
    no build that wrote version 1 shipped, it is re-labelled by hand, though no event before it says so."""
    events = closed_export(hexlog, tmp_path)
    assert [e["schemaversion"] for e in events if e["type"] == "hexlog.session.opened"] == [3]
    write_export(tmp_path / "v1-as-written.jsonl", one_lane(events, 1))
    honest = hexlog("audit", "--file", "v1-as-written.jsonl")
    assert "VERIFIED" in honest.stdout, honest.stdout + honest.stderr
    write_export(tmp_path / "today-s-rules.jsonl", one_lane(events, 1, first_rules=False))
    relabelled = hexlog("audit", "--file", "today-s-rules.jsonl")
    assert relabelled.returncode == 1, relabelled.stdout + relabelled.stderr
    assert (
        "hexlog.session.opened schema version 1 after the rules recorded at stream version 1, ose: every build that "
        "shipped them writes hexlog.session.opened at schema version 2 or later"
    ) in relabelled.stdout
    write_export(tmp_path / "downgraded.jsonl", one_lane(events, 2))
    forged = hexlog("audit", "--file", "downgraded.jsonl")
    assert forged.returncode == 1, forged.stdout + forged.stderr
    assert (
        "session s1 rolls hexlog-dice-v1 (one lane for public and secret rolls), but its session.opened is of schema "
        "version 2, which every release writes with hexlog-dice-v2"
    ) in forged.stdout


def test_a_supplied_secret_left_out_by_an_older_session_opened_fails_the_audit(hexlog, tmp_path):
    """A session whose secret was supplied, its ``session.opened`` re-labelled as schema version 1 (which has no
    ``supplied``): the audit would no longer say that whoever supplied it could have chosen its rolls. No release
    that wrote version 1 rolled hexlog-dice-v2: a finding."""
    events = closed_export(hexlog, tmp_path)
    assert hexlog("audit", "--file", "log.jsonl").returncode == 3  # INCOMPLETE: the secret was supplied
    relabelled = []
    for event in events:
        if event["type"] == "hexlog.session.opened":
            assert event["data"].pop("supplied") is True
            del event["data"]["release"]
            event = event | {"schemaversion": 1}  # noqa: PLW2901 - the rewritten event
        relabelled.append(event)
    write_export(tmp_path / "relabelled.jsonl", reseal(relabelled))
    forged = hexlog("audit", "--file", "relabelled.jsonl")
    assert forged.returncode == 1, forged.stdout + forged.stderr
    assert (
        "session s1 rolls hexlog-dice-v2, but its session.opened is of schema version 1, which no release that rolls "
        "hexlog-dice-v2 writes (they record whether the secret was supplied)"
    ) in forged.stdout
    imported = hexlog("import", "relabelled.jsonl", "--db", "relabelled.db")
    assert imported.returncode == 1, imported.stdout + imported.stderr


def renamed_rules(event: dict, name: str) -> dict:
    """The event, the campaign's start naming its rules ``name`` (their hash recorded anew)."""
    if event["type"] != "hexlog.campaign.started":
        return event
    data = event["data"] | {"ruleset": name}
    data["rules_hash"] = rulesets.from_recorded(name, data["rules"]).hash
    return event | {"data": data}


def test_rules_under_a_name_no_built_in_has_are_the_referees_own(hexlog, tmp_path):
    """Renamed, a house-ruled ruleset has no built-in to be compared with: the audit says that every rule in it is
    the referee's, and never looks for the name as a file."""
    events = closed_export(hexlog, tmp_path)
    for name in ("ose-tourney", "../../explore"):
        renamed = [renamed_rules(event, name) for event in events]
        write_export(tmp_path / "renamed.jsonl", reseal(renamed))
        audited = hexlog("audit", "--file", "renamed.jsonl")
        assert audited.returncode == 3, audited.stdout + audited.stderr  # INCOMPLETE: the secret was supplied
        assert hand_of(audited.stdout)[0] == (
            f"stream version 1: rules {name!r} that are no built-in ruleset: every rule in them is the referee's own"
        )


def test_a_client_seed_used_again_leaves_the_later_session_unprotected(hexlog):
    """Players who give the same words again let the referee, who knew them, draw secrets until one suited them:
    the later session is INCOMPLETE, named with the earlier one; fresh words each session protect every roll."""
    ok(hexlog("init"))
    for words in ("our words", "new words", "our words"):
        ok(hexlog("session", "open"))
        ok(hexlog("session", "seed", words))
        ok(hexlog("roll", "1d6", "--purpose", "omen"))
        ok(hexlog("session", "close"))
    audited = hexlog("audit")
    assert audited.returncode == 3, audited.stdout
    caveats = [line for line in audited.stdout.split(HAND)[0].splitlines() if line.startswith("  - ")]
    reused = (
        "  - session s3 uses the client seed of the earlier session s1: its secret could have been drawn again and "
        "again, knowing that seed, until its 1 roll suited the referee"
    )
    assert caveats == [reused]


def test_rules_of_an_earlier_build_are_told_with_what_today_reads_otherwise(hexlog, tmp_path):
    """A campaign recorded under a shape an earlier build shipped keeps its reading (no house rules), but the audit
    tells it, with each rule today's built-in reads otherwise, so that a player sees the older reading in force; a
    key left to the code's default that reads the same is no change, and today's shape is told nothing."""
    events = closed_export(hexlog, tmp_path)
    name = next(e["data"]["ruleset"] for e in events if e["type"] == "hexlog.campaign.started")
    assert name == "ose"
    kept = rulesets.RELEASED_DIR / "0.1.0" / "ose.8.toml"
    shape = tomllib.loads(kept.read_text("utf-8"))
    earlier = []
    for event in events:
        if event["type"] == "hexlog.campaign.started":
            data = event["data"] | {"rules": shape, "rules_hash": rulesets.from_recorded("ose", shape).hash}
            event = event | {"data": data}  # noqa: PLW2901 - the rewritten event
        earlier.append(event)
    write_export(tmp_path / "earlier.jsonl", reseal(earlier))
    audited = hexlog("audit", "--file", "earlier.jsonl")
    assert audited.returncode == 3, audited.stdout + audited.stderr  # INCOMPLETE: the secret was supplied
    assert hand_of(audited.stdout)[0] == (
        "stream version 1: rules of an earlier build, ose 0.1.0 (kept from commit bad0de0, 2026-12-04), which "
        "today's ose reads otherwise: options.mutually_surprised_sides_act true (default) -> false; "
        "options.caught_distance rolled (default) -> melee; options.encirclement always (default) -> referee"
    )
    assert not [line for line in hand_of(hexlog("audit", "--file", "log.jsonl").stdout) if "earlier build" in line]
    recorded = rulesets.from_recorded("ose", shape)
    assert rulesets.display_name(recorded) == "ose 0.1.0 (kept from commit bad0de0, 2026-12-04)"
    assert rulesets.display_name(rulesets.load("ose")) == "ose"


def test_a_key_left_to_a_default_that_reads_the_same_is_no_change():
    """Today's ``ose`` without a key whose default is what it records reads the same: nothing to tell; without one
    whose default differs, that key is told with the default it falls back to."""
    today = rulesets.load("ose").content
    options = today["options"]
    same = next(key for key in ("distance_rules", "evasion_rules") if key in options)
    content = today | {"options": {k: v for k, v in options.items() if k != same}}
    assert rulesets._since("ose", content, REGISTRY.rule_parts) == ()
    content = today | {"options": {k: v for k, v in options.items() if k != "mutually_surprised_sides_act"}}
    assert rulesets._since("ose", content, REGISTRY.rule_parts) == (
        ("options.mutually_surprised_sides_act", "true (default)", False),
    )


def test_rules_that_only_look_like_a_shape_are_told_as_house_rules(hexlog, tmp_path):
    """Rules equal to today's ``ose`` in Python's eyes but in no shape a build shipped (an integer written as a
    float, a boolean as 1, an empty table added, a table's keys moved into one dotted key) escape the floor of the
    shape's releases: the audit tells each as house rules, never as ``ose`` itself, so the player sees them."""
    events = closed_export(hexlog, tmp_path)
    shape = rulesets.load("ose").content

    def moved(content: dict) -> dict:
        tables = dict(content["tables"])
        rest = tables.pop("dungeon_pursuit")
        return content | {"tables": tables | {f"dungeon_pursuit.{key}": value for key, value in rest.items()}}

    told = {
        "float": (shape | {"options": shape["options"] | {"round_seconds": 10.0}}, "options.round_seconds 10 -> 10.0"),
        "one": (
            shape | {"options": shape["options"] | {"reroll_uncertain_reaction": 1}},
            "options.reroll_uncertain_reaction true -> 1",
        ),
        "empty": (shape | {"options": shape["options"] | {"aside": {}}}, "options.aside (absent) -> {}"),
        "dotted": (moved(shape), 'tables."dungeon_pursuit.dropped_treasure_stop_in_6" (absent) -> 3'),
    }
    for name, (content, change) in told.items():
        assert rulesets.from_recorded("ose", content).hash != rulesets.load("ose").hash
        forged = []
        for event in events:
            if event["type"] == "hexlog.campaign.started":
                data = event["data"] | {"rules": content, "rules_hash": rulesets.from_recorded("ose", content).hash}
                event = event | {"data": data}  # noqa: PLW2901 - the rewritten event
            forged.append(event)
        write_export(tmp_path / f"{name}.jsonl", reseal(forged))
        audited = hexlog("audit", "--file", f"{name}.jsonl")
        first = hand_of(audited.stdout)[0]
        assert first.startswith("stream version 1: house rules over ose: "), (name, first)
        assert change in first, (name, first)


def test_a_rule_a_house_rule_sets_over_an_earlier_shape_is_told_once_as_set():
    """House rules over an earlier shape that set a key today's built-in reads otherwise than that shape: the campaign
    reads it as the house rule sets it, so it is told among the house rules and not as a rule today reads otherwise
    (which would say the campaign reads the shape's value)."""
    shape = tomllib.loads((rulesets.RELEASED_DIR / "0.1.0" / "ose.5.toml").read_text("utf-8"))
    ruled = shape | {"options": shape["options"] | {"surprised_sides_roll_initiative": False}}
    found = rulesets.origin(rulesets.from_recorded("ose", ruled), REGISTRY.rule_parts)
    assert found.changes == (("options.surprised_sides_roll_initiative", None, False),)
    since = [key for key, _, _ in found.since]
    assert "options.surprised_sides_roll_initiative" not in since
    assert "options.mutually_surprised_sides_act" in since


def test_a_delve_s_typed_distance_and_a_search_where_none_is_are_the_referees_hand(hexlog, tmp_path):
    """``dungeon move --feet`` short of the party's rate and ``dungeon search --nothing-there`` are what the referee
    typed, not the rules or the dice: each is a line of the hand, in the database's audit and an export's alike. A
    move at the rate is none."""
    ok(hexlog("init", "--ruleset", "explore"))
    ok(hexlog("session", "open", "--secret-file", secret_file(tmp_path, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla"))
    ok(hexlog("party", "add", "Bo", "--speed", "90"))
    ok(hexlog("dungeon", "enter", "--name", "crypt"))
    ok(hexlog("dungeon", "light", "torch", "--by", "Ayla"))
    ok(hexlog("dungeon", "move"))
    ok(hexlog("dungeon", "move", "--feet", "40"))
    ok(hexlog("dungeon", "search", "--by", "Bo", "--nothing-there"))
    ok(hexlog("dungeon", "leave"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "rules" not in line]
        assert lines == [
            "the party moved 40 ft in turn 2, not its rate of 90 ft, as the referee gave it",
            "a search for secret doors by Bo where the referee said none is (nothing could be found)",
        ], audited.stdout


def test_a_garrison_s_riders_and_speed_are_the_referees_hand():
    """How many riders a castle's garrison sends and how fast they ride are typed by the referee (``castle meet
    --riders --speed``): a fight, and the pursuit a flight starts, read them. Each meeting says so."""
    golden = Path(__file__).parent / "golden" / "castle-joust-v1.jsonl"
    report = audit_envelopes(exports.read_export(golden.read_bytes().split(b"\n")))
    met = [line for line in report.by_hand if "garrison" in line]
    assert met == [
        f"stream version {version}: the garrison of the castle at 2,2 met as 6 riders at 240 ft a turn, the referee's "
        "count and speed (a fight, and a pursuit on a flight, read them)"
        for version in (12, 20, 28)
    ]


def test_an_encounter_s_monsters_an_evasion_s_woods_and_magic_and_a_pursuit_s_facts_are_the_referees_hand(
    hexlog, tmp_path
):
    """The monsters' number and speed the referee types into ``encounter start`` (and its other facts: who is aware),
    the woods and magic of ``roll-evasion --woods --magic`` off a journey, and the pursuers, their speed, the terrain
    and the magic of ``pursuit start`` steer the chances the dice are read against; none is the rules' or the
    state's. Each is a line of the hand, in the database's audit and an export's alike."""
    ok(hexlog("init", "--ruleset", "explore"))
    ok(hexlog("session", "open", "--secret-file", secret_file(tmp_path, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla"))
    ok(hexlog("encounter", "start", "--setting", "wilderness", "--monsters", "4", "--monster-speed", "90",
              "--party-aware", "--monsters-aware"))  # fmt: skip
    for step in ("check-surprise", "determine-distance", "roll-initiative"):
        ok(hexlog("encounter", step))
    ok(hexlog("encounter", "evade", "--side", "party"))
    ok(hexlog("encounter", "roll-evasion", "--woods", "--magic"))
    ok(hexlog("pursuit", "start", "--pursuers", "6", "--pursuers-speed", "240", "--terrain", "woods", "--magic"))
    ok(hexlog("pursuit", "roll-evasion"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout, starts=True) if "session" not in line]
        assert lines == [
            (
                f"encounter 1 met 4 monsters at 90 ft a turn, {STARTED}; by the referee's word: the party aware of the "
                "monsters, the monsters aware of the party"
            ),
            "the party's evasion rolled in woods and with magic to get away, as the referee said (the chance reads it)",
            (
                "pursuit 1 started by the referee with 6 pursuers, the pursuers at 240 ft a turn, terrain woods, "
                "magic to get away (its evasion and catch rolls read them)"
            ),
        ], audited.stdout


def test_a_delve_s_monsters_are_the_referees_hand_its_light_and_an_evasion_in_the_open_are_not(hexlog, tmp_path):
    """``dungeon meet --monsters --monster-speed`` types the encounter's monsters: named, with the noise typed there,
    but not the party's light, which the delve's lit torch gives. An evasion rolled with no flag off a journey (in
    the open, as the state gives it) and a pursuit started with the party's own size and speed name nothing of
    theirs."""
    ok(hexlog("init", "--ruleset", "explore"))
    ok(hexlog("session", "open", "--secret-file", secret_file(tmp_path, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla"))
    ok(hexlog("dungeon", "enter", "--name", "crypt"))
    ok(hexlog("dungeon", "light", "torch", "--by", "Ayla"))
    ok(hexlog("dungeon", "meet", "--monsters", "5", "--monster-speed", "60", "--monsters-noisy"))
    ok(hexlog("encounter", "cancel", "--reason", "a false alarm"))
    ok(hexlog("dungeon", "leave"))
    ok(hexlog("encounter", "start", "--setting", "wilderness", "--party-aware", "--monsters-aware"))
    for step in ("check-surprise", "determine-distance", "roll-initiative"):
        ok(hexlog("encounter", step))
    ok(hexlog("encounter", "evade", "--side", "party"))
    ok(hexlog("encounter", "roll-evasion"))
    ok(hexlog("pursuit", "start", "--party-size", "1", "--party-speed", "120"))
    ok(hexlog("session", "close"))
    lines = [line.split(": ", 1)[1] for line in hand_of(hexlog("audit").stdout, starts=True)]
    assert [line for line in lines if "evasion rolled" in line or "pursuit 1" in line] == []
    assert [line for line in lines if "encounter 1 met" in line] == [
        f"encounter 1 met 5 monsters at 60 ft a turn, {STARTED}; by the referee's word: the monsters making noise"
    ]


def test_a_delve_s_danger_and_wandering_checks_typed_by_the_referee_are_the_referees_hand(hexlog, tmp_path):
    """``dungeon enter --danger`` (the rules' danger values), ``--every-turns`` and ``--wandering-on`` set the secret
    wandering checks' turns and faces: each delve entered so is named with what the referee gave; one entered at the
    rules' values is not."""
    ok(hexlog("init", "--ruleset", "explore"))
    ok(hexlog("session", "open", "--secret-file", secret_file(tmp_path, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla"))
    for given in (("--danger",), ("--every-turns", "1", "--wandering-on", "1", "--wandering-on", "3"), ()):
        ok(hexlog("dungeon", "enter", *given))
        ok(hexlog("dungeon", "leave"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "delve" in line]
        assert lines == [
            "delve 1 entered by the referee's word as a dangerous place",
            (
                "delve 2 entered by the referee's word as wandering checks every 1 turns, not the rules' 2; wandering "
                "monsters on a d6 of 1, 3, not the rules' 1"
            ),
        ], audited.stdout


def test_a_route_by_night_and_a_search_with_a_guide_are_the_referees_hand(hexlog, tmp_path):
    """``travel route --night`` widens the secret lost check's range and ``travel search --guide`` the search's: what
    was typed, not the state, so each is named; a route by day and a search without a guide are not."""
    ok(hexlog("init", "--ruleset", "explore"))
    ok(hexlog("session", "open", "--secret-file", secret_file(tmp_path, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla"))
    for hex_ in ("0,0", "0,1"):
        ok(hexlog("map", "set", hex_, "--terrain", "clear"))
    ok(hexlog("travel", "start", "0,0"))
    ok(hexlog("travel", "weather"))
    ok(hexlog("travel", "route", "S", "--night"))
    ok(hexlog("travel", "search"))
    ok(hexlog("travel", "search", "--guide"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "session" not in line]
        assert lines == [
            "the route S declared travelled in darkness (the lost check's range grows)",
            "a search declared helped by a local guide (the search's range widens)",
        ], audited.stdout


def test_a_chase_started_by_hand_is_the_referees_hand_with_what_was_typed(hexlog, tmp_path):
    """``chase start`` with no encounter behind it takes its gap and the pursuers' rate, tastes and resolve from the
    referee, and its rounds read them (who is caught, who escapes): named, but not the fleeing party's rate, which is
    its slowest member's."""
    seated(hexlog, tmp_path)
    ok(hexlog("chase", "start", "--gap-ft", "50", "--pursuers-ft", "150", "--hungry", "--relentless"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "chase 1" in line]
        assert lines == [
            (
                "chase 1 started by the referee with a gap of 50 ft, the pursuers at 150 ft a round, hungry pursuers, "
                "relentless pursuers (its rounds read them)"
            )
        ], audited.stdout


def test_a_camp_s_terrain_off_a_journey_is_the_referees_hand(hexlog, tmp_path):
    """Off a journey no hex gives a camp its terrain: ``camp make --terrain swamp`` (or a night's ``check --terrain``
    where the camp had none) is the referee's alone, and the night's secret check reads its encounter range. Each is
    named."""
    seated(hexlog, tmp_path)
    ok(hexlog("rules", "change", "--ruleset", "explore"))
    ok(hexlog("camp", "make", "--terrain", "swamp"))
    ok(hexlog("camp", "watches", "--watch", "1=Ayla", "--watch", "2=Ayla", "--watch", "3=Ayla", "--watch", "4=Ayla"))
    ok(hexlog("camp", "check"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "camp 1" in line]
        assert lines == ["camp 1 made by the referee in terrain swamp (the night's wandering check reads it)"], (
            audited.stdout
        )


def test_a_night_check_s_terrain_where_the_camp_had_none_is_the_referees_hand(hexlog, tmp_path):
    seated(hexlog, tmp_path)
    ok(hexlog("rules", "change", "--ruleset", "explore"))
    ok(hexlog("camp", "make"))
    ok(hexlog("camp", "watches", "--watch", "1=Ayla", "--watch", "2=Ayla", "--watch", "3=Ayla", "--watch", "4=Ayla"))
    ok(hexlog("camp", "check", "--terrain", "woods"))
    ok(hexlog("session", "close"))
    lines = [line.split(": ", 1)[1] for line in hand_of(hexlog("audit").stdout) if "camp 1" in line]
    assert lines == ["night check 1 of camp 1 made on terrain woods by the referee"]


def test_a_door_s_facts_and_a_thief_s_listening_skill_typed_by_the_referee_are_the_referees_hand(hexlog, tmp_path):
    """``dungeon door --locked --key --free --tool --pick-in-6`` and ``dungeon listen --skill-in-6`` are the referee's
    word on what the dice to open a door and the secret die at it are read against: each door tried so is named with
    what was typed, and a thief's skill. A door the delve knows (opened before: not stuck), one tried with nothing
    typed, and a listen by the rules' chance are not."""
    ok(hexlog("init", "--ruleset", "explore"))
    ok(hexlog("session", "open", "--secret-file", secret_file(tmp_path, SECRET)))
    ok(hexlog("session", "seed", SEED))
    ok(hexlog("party", "add", "Ayla"))
    ok(hexlog("dungeon", "enter"))
    ok(hexlog("dungeon", "light", "torch", "--by", "Ayla"))
    for typed in (
        ("--door", "north", "--locked", "--key", "--free"),
        ("--door", "east", "--tool", "crowbar"),
        ("--door", "north"),
        (),
        ("--door", "west", "--locked", "--pick-in-6", "2"),
    ):
        ok(hexlog("dungeon", "door", "--by", "Ayla", *typed))
    ok(hexlog("dungeon", "listen", "--by", "Ayla", "--door", "west", "--skill-in-6", "3"))
    ok(hexlog("dungeon", "listen", "--by", "Ayla", "--door", "west"))
    ok(hexlog("dungeon", "leave"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "door" in line]
        assert lines == [
            "door north opened by Ayla as the referee said: locked, its key in hand, not stuck (its rolls read them)",
            "door east opened by Ayla as the referee said: forced with a crowbar (its rolls read them)",
            (
                "door west tried by Ayla as the referee said: locked, a thievery chance of 2 in 6 for Ayla (its rolls "
                "read them)"
            ),
            "Ayla listened at door west by a thief's skill of 3 in 6 the referee gave (the secret die reads it)",
        ], audited.stdout


def test_the_side_a_chase_started_by_hand_has_flee_is_the_referees_hand(hexlog, tmp_path):
    """``chase start --fleeing monsters`` with no encounter behind it: the party, which flees unless the referee says
    otherwise, gives chase, and the rounds read who runs at which rate. Named before the facts given with it; a chase
    whose party flees, as untyped, names no side (the test above)."""
    seated(hexlog, tmp_path)
    ok(hexlog("chase", "start", "--fleeing", "monsters", "--gap-ft", "50", "--fleeing-ft", "90"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "chase 1" in line]
        assert lines == [
            (
                "chase 1 started by the referee with the monsters fleeing, a gap of 50 ft, the fleeing side at 90 ft "
                "a round (its rounds read them)"
            )
        ], audited.stdout


def test_a_journey_s_season_and_its_way_of_travel_typed_by_the_referee_are_the_referees_hand(hexlog, tmp_path):
    """``travel start --season --afloat --mounted --vehicles``: the season is the weather table's column, afloat the
    wandering check's table, mounts and carts what the moves may cross. Each is named; a journey set out with none
    typed (summer, on foot) is not."""
    seated(hexlog, tmp_path)
    ok(hexlog("rules", "change", "--ruleset", "explore"))
    for hex_ in ("0,0", "1,1"):
        ok(hexlog("map", "set", hex_, "--terrain", "clear"))
    ok(hexlog("map", "set", "1,0", "--terrain", "river"))  # a ship sets out from a port beside the water
    ok(hexlog("travel", "start", "0,0", "--season", "autumn", "--afloat", "--mounted", "--vehicles"))
    ok(hexlog("travel", "finish"))
    ok(hexlog("travel", "start", "1,1"))
    ok(hexlog("travel", "finish"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "journey" in line]
        assert lines == [
            (
                "the journey set out from 0,0 by the referee's word: in autumn, afloat, mounted, with carts or wagons "
                "(the weather's column, the wandering check and the moves read them)"
            )
        ], audited.stdout


def test_a_castle_hailed_by_a_party_the_referee_says_looks_quarrelsome_is_the_referees_hand(hexlog, tmp_path):
    """``castle hail --quarrelsome`` keeps the garrison in, so no meeting is rolled: the referee's word, named. A hail
    with nothing typed, whose garrison rides out, is not."""
    seated(hexlog, tmp_path)
    ok(hexlog("rules", "change", "--ruleset", "explore"))
    ok(hexlog("map", "set", "0,0", "--terrain", "meadow"))
    ok(hexlog("map", "set", "1,0", "--terrain", "hills"))
    ok(hexlog("castle", "place", "1,0", "--type", "wizard", "--disposition", "neutral"))
    ok(hexlog("travel", "start", "0,0"))
    ok(hexlog("castle", "hail", "--hex", "1,0", "--quarrelsome"))
    ok(hexlog("castle", "hail", "--hex", "1,0"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if "hailed" in line]
        assert lines == [
            (
                "the castle at 1,0 hailed by a party the referee said looks quarrelsome or forceful: its garrison "
                "stays in (no meeting is rolled)"
            )
        ], audited.stdout


def test_a_camp_s_weather_and_winter_off_a_journey_are_the_referees_hand(hexlog, tmp_path):
    """Off a journey no day gives a camp its weather or season: ``camp make --weather rain --winter`` is the referee's
    alone, and the firewood reads both (wet weather and winter mean less). Named with the terrain; a camp made with
    none of them typed is not."""
    seated(hexlog, tmp_path)
    ok(hexlog("rules", "change", "--ruleset", "explore"))
    watches = ("--watch", "1=Ayla", "--watch", "2=Ayla", "--watch", "3=Ayla", "--watch", "4=Ayla")
    for typed in (("--terrain", "swamp", "--weather", "rain", "--winter"), ()):
        ok(hexlog("camp", "make", *typed))
        ok(hexlog("camp", "watches", *watches))
        ok(hexlog("camp", "check", "--terrain", "swamp"))
        ok(hexlog("camp", "break"))
    ok(hexlog("session", "close"))
    ok(hexlog("export", "--out", "log.jsonl"))
    for audited in (hexlog("audit"), hexlog("audit", "--file", "log.jsonl")):
        lines = [line.split(": ", 1)[1] for line in hand_of(audited.stdout) if " made by the referee" in line]
        assert lines == [
            (
                "camp 1 made by the referee in terrain swamp (the night's wandering check reads it); weather rain (the "
                "firewood reads it); winter (the firewood reads it)"
            )
        ], audited.stdout
