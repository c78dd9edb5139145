"""Doors (§4.2): opening a locked or stuck one, listening at one, spiking one open or shut.

Every door is closed and stuck unless the referee notes otherwise (``--free``); a door spiked shut
counts as stuck whatever is noted. A labelled door is remembered (the delve's ``doors``): one known
locked stays locked until a key or a pick opens it, one known stuck must be forced, one held open by a
spike opens without a roll, and one opened before opens without a roll unless it had to be forced and
doors stick again (``tables.dungeon.doors_stick_again``: it swung shut, §4.2). A locked door opens to its key or
to a thievery roll whose chance the referee gives (the host game's thief skill, A33), then must still
be forced if stuck: the STR band's chance in 6 (DEFAULT, OSE open doors), plus a crowbar's or an
axe's bonus, which then rolls a second die for breaking. A failed attempt to force a door makes
noise. Rolls made for a character name them (``made_for``), so the state's modifiers apply; each of
these dice is one where low is good, so a penalty raises its total (``kit.context.read_low``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hexlog.events import dungeon as ev
from hexlog.events.dice import Visibility
from hexlog.events.errors import UsageError
from hexlog.machine.dungeon.commands import IN_6, PCT
from hexlog.machine.dungeon.rules import DungeonTables, in_chance, on_faces, str_chance
from hexlog.machine.dungeon.state import under_way
from hexlog.machine.kit.context import read_low

if TYPE_CHECKING:
    from hexlog.events.dice import DiceRolled
    from hexlog.machine.dungeon.commands import Listen, OpenDoor, SpikeDoor
    from hexlog.machine.dungeon.state import KnownDoor
    from hexlog.machine.kit.context import StepContext

OPEN, PICK, BREAK, LISTEN, SPIKE = (
    "dungeon.door",
    "dungeon.door.pick",
    "dungeon.door.tool",
    "dungeon.listen",
    "dungeon.spike",
)
TOOLS = ("crowbar", "axe")
D6 = 6


def _pick(ctx: StepContext, command: OpenDoor) -> tuple[int, int, DiceRolled | None]:
    """The thievery chance, out of how much, and its roll (None when the key opens it)."""
    given = [(c, of) for c, of in ((command.pick_chance, PCT), (command.pick_in_6, IN_6)) if c is not None]
    if command.key and given:  # the key opens it: a chance given beside it would be recorded nowhere
        msg = "give --key or a thievery chance, not both: the key opens the lock, and no pick is tried"
        raise UsageError(msg)
    if command.key:
        return 0, 0, None
    if len(given) != 1:
        why = "give one thievery chance, not both" if given else "a locked door needs --key or a thievery chance"
        msg = f"{why} (--pick-chance PCT or --pick-in-6 N)"
        raise UsageError(msg)
    chance, bounds = given[0]
    out_of = bounds.most
    if chance not in bounds:
        msg = f"a thievery chance is at most {out_of} out of {out_of}, not {chance}"
        raise UsageError(msg)
    return chance, out_of, ctx.roll(f"1d{out_of}", PICK, made_for=command.by, low_is_good=True)


def _no_way_in(command: OpenDoor) -> bool:
    return not command.key and command.pick_chance is None and command.pick_in_6 is None


def must_force(known: KnownDoor | None, *, free: bool, stick_again: bool) -> bool:
    """Whether the door must be forced: spiked shut or known stuck, it must; held open by a spike, it need not;
    opened before, it must where doors stick again and it had to be forced then, else not; else as the referee
    notes (stuck unless ``free``: ``--free``)."""
    if known is not None:
        if known.spiked == "shut" or known.stuck:
            return True
        if known.spiked == "open":
            return False
        if known.opened:
            return stick_again and known.sticks
    return not free


def open_door(ctx: StepContext, command: OpenDoor) -> None:
    """Unlock (key or pick), then force a stuck door (STR chance, a tool's bonus and breakage)."""
    if command.action != "open":
        msg = f"a door is opened (door open), not {command.action!r}"
        raise UsageError(msg)
    if command.tool not in {"", *TOOLS}:
        msg = f"the tools that help are {' and '.join(TOOLS)}, not {command.tool!r}"
        raise UsageError(msg)
    state, member = under_way(ctx), ctx.table.party.named(command.by)
    known = state.doors.get(command.door) if command.door else None
    locked = command.locked or (known is not None and known.locked)
    if not locked and (command.key or command.pick_chance is not None or command.pick_in_6 is not None):
        msg = "a key or a thievery chance is for a locked door (add --locked)"
        raise UsageError(msg)
    table = ctx.part(DungeonTables).open_doors
    assert table is not None  # noqa: S101 - a delve begins only under rules that have it
    rolls: list[int] = []
    unlocked, chance_pick, out_of, pick_face = ev.Unlock.NONE, 0, 0, 0
    if locked:
        if known is not None and known.locked and not command.locked and _no_way_in(command):
            msg = f"door {command.door!r} is locked: give --key or a thievery chance (--pick-chance, --pick-in-6)"
            raise UsageError(msg)
        chance_pick, out_of, rolled = _pick(ctx, command)
        if rolled is None:
            unlocked = ev.Unlock.KEY
        else:
            rolls.append(rolled.nonce)
            pick_face = rolled.faces[0]
            unlocked = ev.Unlock.PICK if in_chance(read_low(rolled), chance_pick) else ev.Unlock.NONE
    turn = ctx.part(DungeonTables).dungeon
    stuck = must_force(known, free=command.free, stick_again=turn is not None and turn.doors_stick_again)
    chance = face = modifier = break_face = 0
    opened = not locked or unlocked is not ev.Unlock.NONE
    broke = False
    if opened and stuck:
        bonus = table.tool_bonus_in_6 if command.tool else 0
        chance = min(D6, str_chance(table, member.strength) + bonus)
        forced = ctx.roll("1d6", OPEN, made_for=command.by, low_is_good=True)
        rolls.append(forced.nonce)
        face, modifier = forced.faces[0], forced.modifier
        opened = in_chance(read_low(forced), chance)
        if command.tool:
            tool = ctx.roll("1d6", BREAK)
            rolls.append(tool.nonce)
            break_face = tool.faces[0]
            broke = break_face in table.tool_breaks_on
    ctx.emit(
        ev.DoorOpened(
            door=command.door,
            by=command.by,
            locked=locked,
            unlocked=unlocked,
            pick_chance=chance_pick,
            pick_out_of=out_of,
            pick_face=pick_face,
            stuck=stuck,
            strength=member.strength,
            chance_in_6=chance,
            face=face,
            modifier=modifier,
            tool=command.tool,
            break_face=break_face,
            tool_broke=broke,
            opened=opened,
            noisy=stuck and chance > 0 and not opened,
            rolls=tuple(rolls),
        )
    )


def listen(ctx: StepContext, command: Listen) -> None:
    """The referee's secret die: 1-in-6 (the rules' faces), or a thief's skill in 6."""
    table = ctx.part(DungeonTables).dungeon
    assert table is not None  # noqa: S101 - a delve begins only under rules that have it
    if command.skill_in_6 is not None and command.skill_in_6 not in IN_6:
        msg = f"a listening skill is {IN_6.least} to {IN_6.most} in 6, not {command.skill_in_6}"
        raise UsageError(msg)
    hears_on = table.listen_on if command.skill_in_6 is None else tuple(range(1, command.skill_in_6 + 1))
    rolled = ctx.roll("1d6", LISTEN, made_for=command.by, visibility=Visibility.REFEREE, low_is_good=True)
    face = rolled.faces[0]
    ctx.emit(
        ev.DoorListened(
            door=command.door,
            by=command.by,
            thief_skill=command.skill_in_6 is not None,
            hears_on=hears_on,
            face=face,
            modifier=rolled.modifier,
            heard=on_faces(read_low(rolled), hears_on),
            referee_rolls=(rolled.nonce,),
        )
    )


def spike(ctx: StepContext, command: SpikeDoor) -> None:
    """Spiked shut, a door counts as stuck; spiked open, the spike slips on the rules' faces (rolled when driven)."""
    if not command.held_open:
        ctx.emit(ev.DoorSpiked(door=command.door, how="shut"))
        return
    table = ctx.part(DungeonTables).dungeon
    assert table is not None  # noqa: S101 - a delve begins only under rules that have it
    rolled = ctx.roll("1d6", SPIKE)
    face = rolled.faces[0]
    slipped = on_faces(rolled.total, table.spike_slips_on)
    ctx.emit(
        ev.DoorSpiked(
            door=command.door,
            how="open",
            face=face,
            slips_on=table.spike_slips_on,
            slipped=slipped,
            rolls=(rolled.nonce,),
        )
    )
