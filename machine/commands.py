"""Commands for the campaign, its sessions, its party and free rolls (imperative names).

A command's fields are its arguments. ``arg`` gives one the sentence that explains it and, for the
doors, the flag that sets it (``--monsters`` for ``monster_count``), whether a flag says the
opposite of the field (``--unintelligent`` sets ``intelligent`` false, and has a sentence of its own:
the field's says what the field means, as the HTTP service describes it), its least value, the range its step
checks in its own words (``within``), and whether it is given by position instead.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import orjson

from hexlog.events.errors import UsageError

HELP, FLAG, NEGATE, LEAST, MOST, POSITIONAL = "help", "flag", "negate", "least", "most", "positional"
MEMBER = "member"
#: an argument with a default that the step still refuses to go without (a reason, the gatherers): a door says so
NEEDED = "needed"
#: the sentence of a flag that says the opposite of its field (``--unintelligent``), beside the field's own
FLAG_HELP = "flag_help"
#: the range of a number that its step checks in its own words (a ``Bounds``): the HTTP service's document gives it
WITHIN = "within"
_WORD = re.compile(r"[A-Z][a-z0-9]*")
#: the largest integer every JSON reader holds exactly (2**53 - 1): no number in a command or an event
#: goes past it, so a verifier in JavaScript hashes the same bytes
SAFE_INTEGER = 2**53 - 1
#: the sane range of a number a referee gives, by argument name (like the text limits of ``machine.text``);
#: the others (scores, speeds, monster counts, lengths, reaction modifiers, thievery and listening chances,
#: a move's feet) are checked by their steps in their own words
NUMBER_LIMITS: dict[str, tuple[int, int]] = {
    "value": (0, 100_000),
    "rate_inches": (1, 96),
    "detection_range_ft": (1, 100_000),
    "every_turns": (1, 1000),
    "hexes": (1, 1000),
}


@attrs.frozen
class Bounds:
    """The range of a whole number that a step checks in its own words (``cha must be 3 to 18, not 25``).

    One declaration serves the step's check and the field's ``arg(within=...)``, from which the HTTP service's
    document gives the field's minimum and maximum: a client reads the range the step holds it to."""

    least: int
    most: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.least <= value <= self.most


#: an ability score (CHA, WIS, DEX, STR)
ABILITY = Bounds(3, 18)
#: a base rate in feet per turn, a character's or a monster's (the fastest in the texts is 480)
SPEED = Bounds(1, 480)
#: a character's infravision, in feet (the texts give 60 to 120)
INFRAVISION_FT = Bounds(0, 1000)


def oversized(data: Any) -> int | None:
    """The first integer in unstructured data past 2**53 - 1 either way, or None.

    Data ``orjson`` writes with its 53-bit limit on integers holds none (it is as quick as the walk is slow); the
    walk looks at the rest, which ``orjson`` refused for such an integer or for anything else."""
    try:
        orjson.dumps(data, option=orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:
        return _oversized(data)
    return None


def _oversized(data: Any) -> int | None:
    """``oversized``, by walking the data."""
    kind = type(data)
    if kind is dict:
        items = data.values()
    elif kind is list or kind is tuple:
        items = data
    elif kind is int:  # the common cases first, by exact type: every event's data is walked before it is recorded
        return data if not -SAFE_INTEGER <= data <= SAFE_INTEGER else None
    elif kind is str or kind is float or data is None or isinstance(data, bool):
        return None
    elif isinstance(data, int):
        return data if abs(data) > SAFE_INTEGER else None
    else:
        items = data.values() if isinstance(data, dict) else data if isinstance(data, list | tuple) else ()
    for item in items:
        if type(item) is str:  # the commonest leaf by far: nothing to look into
            continue
        found = _oversized(item)
        if found is not None:
            return found
    return None


def limits_of(name: str) -> tuple[int, int] | None:
    """The sane range of a number argument, or None when it has none of its own."""
    return NUMBER_LIMITS.get(name)


def field_limits(field: attrs.Attribute[Any]) -> tuple[int, int] | None:
    """The sane range of a number field: its name's (``NUMBER_LIMITS``), else the one its ``arg`` declares with
    ``most`` (from ``least``, or 0), else None."""
    named, most = limits_of(field.name), field.metadata.get(MOST)
    if named is not None or most is None:
        return named
    least = field.metadata.get(LEAST)
    return (0 if least is None else least, most)


def check_numbers(command: Command) -> None:
    """Refuse a number argument outside its sane range (``UsageError`` naming the option and the range)."""
    for field, (low, high) in _limited(type(command)):
        value = getattr(command, field.name)
        values = value if isinstance(value, tuple) else (value,)
        for one in values:
            if isinstance(one, bool) or not isinstance(one, int):
                continue
            if not low <= one <= high:
                flag = (field.metadata.get(FLAG) or "--" + field.name.replace("_", "-")).split("/")[0]
                msg = f"{flag} must be {low} to {high}, not {one}"
                raise UsageError(msg)


#: per command class, its fields that have a sane range of their own, with it (most have none)
_LIMITED: dict[type, tuple[tuple[attrs.Attribute[Any], tuple[int, int]], ...]] = {}


def _limited(cls: type[Command]) -> tuple[tuple[attrs.Attribute[Any], tuple[int, int]], ...]:
    found = _LIMITED.get(cls)
    if found is None:
        found = tuple((field, limits) for field in attrs.fields(cls) if (limits := field_limits(field)) is not None)
        _LIMITED[cls] = found
    return found


def unset_when_empty(field: attrs.Attribute[Any]) -> bool:
    """Whether empty text is how a field says it was not given (its default is ``""``: no name, no note, the hex's
    terrain): a door refuses blank text given for it (``--name ""``), which would silently read as not given. A
    field ``needed`` is not one: its step refuses it empty, given or not, in its own words."""
    return isinstance(field.default, str) and field.default == "" and not field.metadata.get(NEEDED)


def blank(value: object) -> bool:
    """Whether a value is text with nothing in it but spaces (``""``, ``"  "``)."""
    return isinstance(value, str) and not value.strip()


#: what a door says of blank text given for a field that empty text leaves unset (after the option's or field's name)
BLANK = "is empty: give a value, or leave it out"


def named_members(command: Command, *, required_blank: bool = False) -> tuple[str, ...]:
    """The party members a command names in its fields declared ``member`` (none given is none named).

    ``required_blank``: a field the command must give (it has no default, ``--by``) names its empty text too, which
    is no member's name (``--by ""`` names nobody: the party refuses it), where a field with a default left empty
    names nobody, as it may (``--speaker ""``: nobody speaks)."""
    cls = type(command)
    fields = _MEMBER_FIELDS.get(cls)
    if fields is None:
        fields = _MEMBER_FIELDS[cls] = tuple(
            (f.name, f.default is attrs.NOTHING) for f in attrs.fields(cls) if f.metadata.get(MEMBER)
        )
    names: list[str] = []
    for name, required in fields:
        value = getattr(command, name)
        if isinstance(value, tuple):
            names.extend(value)
        elif value or (required and required_blank):
            names.append(value)
    return tuple(names)


#: per command class, its fields that name party members, each with whether the command must give it
_MEMBER_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def spoken(command: type[Command] | Command) -> str:
    """A command in the referee's words, never its class name: ``AddMember`` -> ``add member``."""
    cls = command if isinstance(command, type) else type(command)
    return " ".join(word.lower() for word in _WORD.findall(cls.__name__))


def arg(  # noqa: PLR0913 - one keyword per way a door spells an argument
    default: Any = attrs.NOTHING,
    *,
    help: str,  # noqa: A002 - the sentence that explains the argument
    flag: str | None = None,
    negate: bool = False,
    least: int | None = None,
    most: int | None = None,
    positional: bool = False,
    flag_help: str | None = None,
    member: bool = False,
    needed: bool = False,
    within: Bounds | None = None,
) -> Any:
    """A command argument with the sentence that explains it and how a door spells it.

    ``help`` says what the field means (``intelligent``: "the monsters are intelligent"); a flag that says the
    opposite (``negate``) needs ``flag_help``, what the flag means ("the monsters are not intelligent").
    ``positional``: a door takes it by position (``hexlog map show 3,4``), not as an option. ``least`` and ``most``
    bound a number. ``member``: it names party members (one, or each of a tuple; empty is none named), and the
    kit refuses a name the party does not have before the procedure looks at the command. ``needed``: its default
    (empty) is refused by the step, in its own words; the HTTP service's schema marks it required and non-empty.
    ``within``: the range the step holds the number to, in its own words (it reads the same ``Bounds``); the HTTP
    service's document gives it as the field's minimum and maximum.
    """
    if negate != (flag_help is not None):
        msg = "an argument whose flag says the opposite of its field (negate) needs the flag's own flag_help"
        raise TypeError(msg)
    if within is not None and (most is not None or least not in {None, within.least}):
        msg = "a range the step checks (within) is the argument's only one: a least may only repeat its own"
        raise TypeError(msg)
    meta: dict[str, Any] = {HELP: help, FLAG: flag, NEGATE: negate, LEAST: least, MOST: most, POSITIONAL: positional}
    meta[FLAG_HELP] = flag_help
    meta[MEMBER] = member
    meta[NEEDED] = needed
    meta[WITHIN] = within
    return attrs.field(default=default, metadata=meta)


def intelligent_arg(who: str = "monsters") -> Any:
    """The ``intelligent`` argument of a command that meets or flees ``who``: true unless ``--unintelligent``."""
    return arg(
        True,  # noqa: FBT003 - a default
        help=f"the {who} are intelligent",
        flag="--unintelligent",
        negate=True,
        flag_help=f"the {who} are not intelligent",
    )


def help_of_flag(field: attrs.Attribute[Any]) -> str:
    """What the option that sets a field means on the command line: the field's sentence, or the flag's own when
    the flag says the opposite of the field."""
    return str(field.metadata.get(FLAG_HELP) or field.metadata.get(HELP, ""))


@attrs.frozen(kw_only=True)
class Command:
    """Something the referee asks hexlog to do."""


@attrs.frozen(kw_only=True)
class StartCampaign(Command):
    """Create a campaign under a ruleset, with the referee's overrides."""

    ruleset: str = "ose"
    overrides: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ChangeRules(Command):
    """Put another ruleset, or other overrides, in force from now on."""

    ruleset: str
    overrides: dict[str, Any] = attrs.field(factory=dict)
    reason: str = ""


@attrs.frozen(kw_only=True)
class OpenSession(Command):
    """Open a session: commit to a fresh secret (or the given one, for a reproducible demo)."""

    secret_hex: str | None = attrs.field(default=None, repr=False)


@attrs.frozen(kw_only=True)
class SetClientSeed(Command):
    """The players' own seed, mixed into every roll of the session."""

    client_seed: str


@attrs.frozen(kw_only=True)
class CloseSession(Command):
    """Close the open session and reveal its secret."""


@attrs.frozen(kw_only=True)
class AbandonSession(Command):
    """End the open session without a reveal, when its secret is lost: its rolls stay unverifiable."""

    reason: str


@attrs.frozen(kw_only=True)
class AddMember(Command):
    """Add a character to the party."""

    name: str
    cha: int = arg(10, help="Charisma 3-18", within=ABILITY)
    wis: int = arg(10, help="Wisdom 3-18", within=ABILITY)
    dex: int = arg(10, help="Dexterity 3-18", within=ABILITY)
    strength: int = arg(10, help="Strength 3-18", within=ABILITY)
    speed: int = arg(120, help="base movement rate, feet per turn", within=SPEED)
    armor: str = "none"
    infravision_ft: int = arg(0, help="infravision range in feet", within=INFRAVISION_FT)


@attrs.frozen(kw_only=True)
class EditMember(Command):
    """Correct a character's recorded name or scores (an edit event says what it was; nothing is deleted)."""

    name: str
    new_name: str | None = None
    cha: int | None = arg(None, help="Charisma 3-18", within=ABILITY)
    wis: int | None = arg(None, help="Wisdom 3-18", within=ABILITY)
    dex: int | None = arg(None, help="Dexterity 3-18", within=ABILITY)
    strength: int | None = arg(None, help="Strength 3-18", within=ABILITY)
    speed: int | None = arg(None, help="base movement rate, feet per turn", within=SPEED)
    armor: str | None = None
    infravision_ft: int | None = arg(None, help="infravision range in feet", within=INFRAVISION_FT)
    reason: str = ""


@attrs.frozen(kw_only=True)
class RemoveMember(Command):
    """Remove a character from the party."""

    name: str
    reason: str = ""


@attrs.frozen(kw_only=True)
class RollDice(Command):
    """A free roll the referee asks for, outside any procedure."""

    expression: str
    purpose: str = "free roll"
    secret: bool = False
    #: the character (or side) it is made for: the modifiers the state imposes on them apply
    made_for: str = ""
    #: a low total is the good one (a roll under a score, a percentage at most a chance): the modifiers on the one
    #: it is made for count the other way, so a penalty raises it
    low_is_good: bool = False
