"""The castle's commands (imperative names), the trigger each one fires, and what each argument means."""

from __future__ import annotations

import attrs

from hexlog.events.errors import Advice
from hexlog.machine.commands import Bounds, Command, arg
from hexlog.machine.encounter.opening import MAX_MONSTERS, MAX_SPEED

#: the worth in gp of the coin and jewels a party carries, whose tithe a cleric's castle demands: the texts' tolls run
#: to 4,000 gp (a magic-user's 1d4 x 1,000) and a great hoard to some tens of thousands; a million gp leaves room for
#: any party's purse (a tithe of it is still a sum the referee can count out)
WORTH_GP = Bounds(0, 1_000_000)

HEX_HELP = "the castle's hex, col,row (default: the castle a garrison rides out from, or the nearest in reach)"


@attrs.frozen(kw_only=True)
class PlaceCastle(Command):
    """Place a castle on a hex of the map; its type and disposition are rolled when it is first met unless given
    (what is given is public: the players see it with the castle)."""

    hex: str = arg(help="the hex, col,row (e.g. 3,4)", positional=True)
    castle_type: str = arg(
        "",
        help="lord, superhero, wizard, necromancer, patriarch, evil_high_priest (default: rolled when met)",
        flag="--type",
    )
    disposition: str = arg("", help="hostile, neutral or friendly (default: rolled when met)")
    name: str = arg("", help="a name for the castle")


@attrs.frozen(kw_only=True)
class PassCastles(Command):
    """The referee's ride-out check for every castle the party passed within two hexes of today, not yet checked."""


@attrs.frozen(kw_only=True)
class HailCastle(Command):
    """The party hails a castle: the garrison rides out to meet it, unless the party looks quarrelsome or forceful."""

    hex: str = arg("", help=HEX_HELP)
    quarrelsome: bool = arg(False, help="the party looks quarrelsome or forceful: the garrison stays in")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class MeetGarrison(Command):
    """The garrison that rode out meets the party: the castle's type and disposition are rolled if not known."""

    #: held to an encounter's monster count and speed, which a fight makes them (at the referee's door: an earlier
    #: release's meeting past them is re-run as it was)
    riders: int = arg(1, help="how many riders came out", least=1, most=MAX_MONSTERS)
    speed: int = arg(
        120, help="their base rate, feet per turn (as an encounter's monster speed)", least=1, most=MAX_SPEED
    )


@attrs.frozen(kw_only=True)
class Joust(Command):
    """A fighter's castle: a party fighter meets its champion; the winner is yours to say, or rolled (even chances)."""

    fighter: str = arg(help="the party member who jousts", positional=True, member=True)
    winner: str = arg("", help="castle or party (default: rolled, 1-3 the castle's champion, 4-6 the party's fighter)")
    warhorses: bool = arg(False, help="the party needs warhorses (given if its fighter wins)")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class JoustKeepingArmor(Command):
    """Issued by the audit, never by a user: a joust recorded before ``castle.joust_fought`` version 2, whose
    lost jousts changed no member's armor, is re-run as those releases ran it."""

    fighter: str = arg(help="the party member who jousted", positional=True, member=True)
    warhorses: bool = arg(False, help="the party needed warhorses")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class JoustReadingTheTotal(Command):
    """Issued by the audit, never by a user: a joust recorded at ``castle.joust_fought`` version 2, whose releases
    read the champion's faces against the roll's total as it was (a penalty that took it below 1 lost the champion
    the joust), is re-run as those releases ran it."""

    fighter: str = arg(help="the party member who jousted", positional=True, member=True)
    warhorses: bool = arg(False, help="the party needed warhorses")  # noqa: FBT003 - a default


@attrs.frozen(kw_only=True)
class DemandToll(Command):
    """The castle names its toll: a fighter's (joust declined), a magic-user's (quest refused), a cleric's tithe."""

    worth: int = arg(
        0,
        help="the worth in gp of the coin and jewels the party carries (a cleric's tithe)",
        least=0,
        within=WORTH_GP,
    )


@attrs.frozen(kw_only=True)
class PayToll(Command):
    """The party pays the toll named (or, to a magic-user, gives a magic item instead)."""

    item: str = arg("", help="the magic item given instead of the gold (a magic-user's castle only)")


@attrs.frozen(kw_only=True)
class AcceptQuest(Command):
    """The party accepts the castle's quest (a magic-user's by geas, a cleric's in place of the tithe)."""

    quest: str = arg("", help="the quest, in words")


@attrs.frozen(kw_only=True)
class RefuseDemand(Command):
    """The party refuses what the castle demands."""

    reason: str = arg("", help="why, in words")


@attrs.frozen(kw_only=True)
class FightGarrison(Command):
    """The garrison and the party fight: the encounter takes over, the garrison as its monsters."""


@attrs.frozen(kw_only=True)
class FleeGarrison(Command):
    """The party flees: the castle's forces pursue on their disposition's chance in 6."""


@attrs.frozen(kw_only=True)
class PartWays(Command):
    """The garrison and the party part in peace (a friendly castle, or one that lets a refusal go)."""

    reason: str = arg("", help="why, in words")


#: the commands only hexlog gives, each with the refusal's words to a referee who gives one
_JOUST = ("is made by hexlog's audit alone; use ", Advice("Joust", (), "castle"))
INTERNAL: dict[type[Command], tuple[str | Advice, ...]] = {JoustKeepingArmor: _JOUST, JoustReadingTheTotal: _JOUST}

#: each command's trigger, in the order a referee meets them
TRIGGERS: dict[type[Command], str] = {
    PlaceCastle: "place",
    PassCastles: "pass",
    HailCastle: "hail",
    MeetGarrison: "meet",
    Joust: "joust",
    DemandToll: "toll",
    PayToll: "pay",
    AcceptQuest: "quest",
    RefuseDemand: "refuse",
    FightGarrison: "fight",
    FleeGarrison: "flee",
    PartWays: "part",
}
