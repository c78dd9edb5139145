"""The encounter's commands (imperative names), the trigger each one fires, and what each argument means."""

from __future__ import annotations

import attrs

from hexlog.events.vocabulary import Side
from hexlog.machine.commands import SPEED, Bounds, Command, arg, intelligent_arg

SIDE_HELP = "party or monsters"
NOTE_HELP = "what happens, in words"
#: how many monsters an encounter may have
MONSTERS = Bounds(1, 10_000)
#: what poor visibility may divide the encounter distance by
DISTANCE_DIVISOR = Bounds(1, 10)
#: a side's surprise chance: surprised on a d6 of 1 to it (0: never)
SURPRISE_ON = Bounds(0, 6)
#: what circumstances add to a side's surprise d6: at most the die's faces either way
SURPRISE_MODIFIER = Bounds(-6, 6)
#: the referee's situational reaction modifier: past ±6 the 2d6 no longer matters; ±10 leaves room for stacking
REACTION_MODIFIER = Bounds(-10, 10)


@attrs.frozen(kw_only=True)
class StartEncounter(Command):
    """Start an encounter and describe the situation."""

    setting: str = arg(
        "", help="dungeon, wilderness, waterborne (ose, explore); indoors, outdoors (adnd); default: the first"
    )
    name: str = arg("", help="a name for the encounter")
    party_aware: bool = arg(False, help="the party already knows of the monsters")  # noqa: FBT003 - a default
    monsters_aware: bool = arg(False, help="the monsters already know of the party")  # noqa: FBT003 - a default
    party_light: bool = arg(False, help="the party carries light in the dark")  # noqa: FBT003 - a default
    monsters_light: bool = arg(False, help="the monsters carry light in the dark")  # noqa: FBT003 - a default
    party_noisy: bool = arg(False, help="the party is making noise")  # noqa: FBT003 - a default
    monsters_noisy: bool = arg(False, help="the monsters are making noise")  # noqa: FBT003 - a default
    monster_count: int = arg(1, help="how many monsters", flag="--monsters", least=1, within=MONSTERS)
    intelligent: bool = intelligent_arg()
    monster_speed: int = arg(120, help="the monsters' base rate, feet per turn", least=1, within=SPEED)
    terrains: tuple[str, ...] = arg(
        (),
        help="outdoor terrain (repeat for mixed): plains, desert, hills, mountains, scrub, forest, marsh",
        flag="--terrain",
    )
    line_of_sight_ft: int | None = arg(None, help="line of sight limit, feet", flag="--line-of-sight", least=1)
    area_ft: int | None = arg(None, help="size of the encounter area, feet", flag="--area", least=1)
    light_radius_ft: int | None = arg(None, help="radius of the light carried, feet", flag="--light-radius", least=1)
    vision_ft: int | None = arg(None, help="infravision or ultravision range, feet", flag="--vision", least=1)
    hiding: bool = arg(False, help="the other side heard noise and hid")  # noqa: FBT003 - a default
    distance_divisor: int = arg(
        1,
        help="poor visibility (fog, blizzard): the encounter distance is divided by this",
        least=1,
        within=DISTANCE_DIVISOR,
    )
    party_surprise_on: int | None = arg(
        None,
        help="the party is surprised on a d6 of 1 to this (0-6; default: the rules')",
        least=0,
        within=SURPRISE_ON,
    )
    monsters_surprise_on: int | None = arg(
        None,
        help="the monsters are surprised on a d6 of 1 to this (0-6; default: the rules')",
        least=0,
        within=SURPRISE_ON,
    )
    monsters_unsurprisable: bool = arg(
        False,  # noqa: FBT003 - a default
        help="the monsters cannot be surprised (they do not roll)",
        flag="--monsters-cannot-be-surprised",
    )
    party_surprise_modifier: int = arg(
        0,
        help="light, noise or other circumstances: added to the party's surprise d6 (+ is harder to surprise)",
        flag="--party-surprise-mod",
        within=SURPRISE_MODIFIER,
    )
    monsters_surprise_modifier: int = arg(
        0,
        help="light, noise or other circumstances: added to the monsters' surprise d6 (+ is harder to surprise)",
        flag="--monsters-surprise-mod",
        within=SURPRISE_MODIFIER,
    )


@attrs.frozen(kw_only=True)
class CheckSurprise(Command):
    """Roll surprise for each side that is not already aware."""


@attrs.frozen(kw_only=True)
class Encircle(Command):
    """The monsters encircle the party they surprised in the open (encirclement = "referee": the referee's call)."""

    note: str = arg("", help="how they close in, in words")


@attrs.frozen(kw_only=True)
class DetermineDistance(Command):
    """Roll the encounter distance by the rules in force (or record the obvious one)."""

    value: int | None = arg(None, help="the distance the situation makes obvious (no roll)", least=0)


@attrs.frozen(kw_only=True)
class TakeFreeAction(Command):
    """The surprising side uses its free single action or free segments."""

    action: str = arg("attack", help="move, attack, cast, flee, parley, ...")
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class RollInitiative(Command):
    """Roll 1d6 for each side (only the sides not surprised under surprised_sides_roll_initiative = false, as ose)."""


@attrs.frozen(kw_only=True)
class RollReaction(Command):
    """Roll the monsters' reaction: 2d6 plus the speaker's CHA modifier."""

    speaker: str = arg("", help="the party member who speaks (CHA modifier applies)", member=True)
    modifier: int = arg(0, help="the referee's situational modifier", within=REACTION_MODIFIER)


@attrs.frozen(kw_only=True)
class RollReactionSpokenWhileSurprised(Command):
    """Issued by the audit, never by a user: a reaction recorded before ``encounter.reaction_rolled`` version 2 with a
    speaker, whose releases let the speaker of a party surprised in the first round speak (their CHA modifier
    counted), is re-run as they ran it: behind the trigger of ``react``, every other condition of it held."""

    speaker: str = ""
    modifier: int = 0


@attrs.frozen(kw_only=True)
class RerollReaction(Command):
    """Roll an uncertain reaction again, a round after it (the first time by the rules, later at the referee's call)."""

    speaker: str | None = arg(
        None,
        help='who speaks now (default: the same who spoke before; "" for nobody: no CHA modifier applies)',
        member=True,
    )
    modifier: int = arg(0, help="the referee's situational modifier", within=REACTION_MODIFIER)


@attrs.frozen(kw_only=True)
class Parley(Command):
    """A side tries to talk."""

    side: str = arg(Side.PARTY, help=SIDE_HELP)
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class Wait(Command):
    """A side waits to see what the other does."""

    side: str = arg(Side.PARTY, help=SIDE_HELP)
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class PlayRound(Command):
    """Let one round pass."""

    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class Fight(Command):
    """A side attacks, casts or moves tactically: combat begins and rounds are counted."""

    side: str = arg(Side.PARTY, help=SIDE_HELP)
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class Evade(Command):
    """A side flees before combat; the other side then decides whether to pursue."""

    side: str = arg(Side.PARTY, help=SIDE_HELP)
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class DecidePursuit(Command):
    """The side fled from pursues, or lets the other go; pursuers who give chase in a chase the encounter hands off
    (in the dungeon, or on water under waterborne_pursuit_hands_off) may be said to like treasure or be hungry (where
    the encounter concludes in pursuit instead, say so to the chase started by hand)."""

    pursue: bool | None = arg(None, help="omit for monsters to follow their reaction", flag="--pursue/--let-go")
    likes_treasure: bool = arg(
        False,  # noqa: FBT003 - a default
        help=(
            "the pursuers like treasure (dropped treasure may stop them): only with --pursue, where the encounter "
            "hands its chase off"
        ),
    )
    hungry: bool = arg(
        False,  # noqa: FBT003 - a default
        help=(
            "the pursuers are hungry (dropped food may stop them): only with --pursue, where the encounter hands its "
            "chase off"
        ),
    )
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class DecidePursuitBeforeHandOff(Command):
    """Issued by the audit, never by a user: a pursuit decided before ``encounter.pursuit_decided`` version 3 is re-run
    as its release ran it. Before version 2 the releases concluded a delve's encounter in pursuit (the delve handed
    the chase on); at version 2 (``delve_hands_off``) a delve's encounter handed its chase off itself, but one the
    referee started concluded in pursuit wherever it was."""

    pursue: bool | None = None
    likes_treasure: bool = False
    hungry: bool = False
    note: str = ""
    #: the release handed a delve's chase off from its encounter (version 2); before it, none but on water
    delve_hands_off: bool = False


@attrs.frozen(kw_only=True)
class RollEvasion(Command):
    """Seed 004 in the wilderness: the fleeing party rolls its evasion chance (§4.13); failing, it is pursued."""

    woods: bool | None = arg(
        None,
        help="the party evades in woods (default: the hex the party believes it is in on a journey, else not)",
        flag="--woods/--open",
    )
    magic: bool = arg(False, help="the party uses magic to get away")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class RollEvasionBothAsPartySurprised(Command):
    """Issued by the audit, never by a user: an evasion recorded before ``encounter.evasion_rolled`` version 2,
    whose releases read both sides surprised as the party surprised, is re-run as they ran it."""

    woods: bool | None = None
    magic: bool = False


@attrs.frozen(kw_only=True)
class RollEvasionForNobody(Command):
    """Issued by the audit, never by a user: an evasion recorded before ``encounter.evasion_rolled`` version 4, whose
    releases rolled the d100 for nobody (exhaustion did not reach it), is re-run as they ran it."""

    woods: bool | None = None
    magic: bool = False


@attrs.frozen(kw_only=True)
class Avoid(Command):
    """The surprisers slip away before the surprised side notices them (AD&D)."""

    side: str = arg(Side.PARTY, help=SIDE_HELP)
    rate_inches: int | None = arg(None, help="the surprisers' movement rate in inches (movement rule)", least=1)
    detection_range_ft: int | None = arg(
        None, help="how far the surprised side would notice them, feet", flag="--detection-range", least=1
    )


@attrs.frozen(kw_only=True)
class ConcludeEncounter(Command):
    """End the encounter; the clock advances at least one turn."""

    outcome: str = arg("resolved", help="resolved, fled, slain, bargain, ...")
    note: str = arg("", help=NOTE_HELP)


@attrs.frozen(kw_only=True)
class CancelEncounter(Command):
    """Cancel an encounter started by mistake, at any phase: no game time passes, nothing is deleted."""

    reason: str = arg("", help="why it is cancelled (e.g. started by mistake); required", needed=True)


@attrs.frozen(kw_only=True)
class CorrectEncounter(Command):
    """Correct a fact of the encounter's start recorded wrong; the correction names the earlier value."""

    monster_count: int | None = arg(
        None, help="the right number of monsters", flag="--monsters", least=1, within=MONSTERS
    )
    reason: str = arg("", help="what was wrong")


#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    StartEncounter: "start",
    CheckSurprise: "check_surprise",
    Encircle: "encircle",
    DetermineDistance: "determine_distance",
    TakeFreeAction: "take_free_action",
    RollInitiative: "roll_initiative",
    RollReaction: "react",
    RerollReaction: "reroll_reaction",
    Parley: "parley",
    Wait: "wait",
    PlayRound: "round",
    Fight: "fight",
    Evade: "evade",
    DecidePursuit: "decide_pursuit",
    RollEvasion: "roll_evasion",
    Avoid: "avoid",
    ConcludeEncounter: "conclude",
    CancelEncounter: "cancel",
    CorrectEncounter: "correct",
}

#: the commands only hexlog gives, each with the refusal's words to a referee who gives one
_AUDITS = "is the audit's, re-running an evasion an older release recorded; use roll-evasion"
INTERNAL: dict[type[Command], str] = {
    RollEvasionBothAsPartySurprised: _AUDITS,
    RollEvasionForNobody: _AUDITS,
    DecidePursuitBeforeHandOff: "is the audit's, re-running a pursuit decision an older release recorded; "
    "use decide-pursuit",
    RollReactionSpokenWhileSurprised: "is the audit's, re-running a reaction an older release recorded; use react",
}
