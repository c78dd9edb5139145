"""Surprise: the pure rules of seeds 000 (OSE), 001 (AD&D-derived) and 004 (explore).

Each side that is not already aware rolls 1d6 and is surprised on 1 up to its range (2 unless a
creature says otherwise). What else counts is read from the ruleset, so an option or table the
ruleset lacks simply does not apply:

* ``light_blocks_surprise`` (OSE, explore): a side carrying light in darkness cannot surprise the
  other, which then does not roll;
* ``noise_blocks_surprise`` (all): a noisy side cannot surprise the other; with ``noisy_armor``
  (AD&D) a side wearing armor of a noisy kind is noisy; under ``noise_outdoors = false`` (AD&D) noise
  counts only indoors and underground;
* ``surprise_advantage = "segments"`` (AD&D §3.1): a surprised side loses as many segments as its
  face; when both are surprised ``segments_on_mutual_surprise`` keeps the ``difference`` (lost by
  the larger face) or each side's own ``face``;
* ``wis_surprise_mod`` (explore, dungeon only, §4.3 and A8): the side still rolls once, but each
  character adds its own WIS modifier to that face and is surprised when the sum is at most the
  range; ``characters_surprised`` names them. Under ``wis_surprise_scope = "character"`` (the seed's
  reading) only they are surprised and the others act: the side counts as surprised only when every
  character is; under ``"party"`` one surprised character makes the whole side surprised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hexlog.events.encounter import Advantage, AdvantageKind
from hexlog.events.errors import UsageError
from hexlog.events.vocabulary import Setting
from hexlog.machine.encounter.distance import SETTINGS
from hexlog.machine.encounter.rules import EncounterOptions, EncounterTables, MutualSurprise, WisScope, WisSurprise

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hexlog.machine.rolls import Roll
    from hexlog.machine.ruleset import Ruleset
    from hexlog.projections.party import Member

PURPOSE = "encounter.surprise"
DIE = "1d6"
DIE_FACES = 6


@attrs.frozen(kw_only=True)
class Side:
    """One side of an encounter as surprise sees it."""

    name: str
    aware: bool = False
    light_in_darkness: bool = False
    noisy: bool = False
    surprise_range: int = 2
    #: light, noise or other circumstances: added to the side's d6 (seed 004; + is harder to surprise)
    modifier: int = 0
    #: the side cannot be surprised (some creatures): it does not roll
    unsurprisable: bool = False
    wis_scores: tuple[int, ...] = ()
    #: 001: armor suits (``chain_mail``) or kinds (``metal``) worn; noisy kinds make the side noisy
    armor: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class SideSurprise:
    """How one side fared."""

    side: str
    rolled: bool
    face: int | None
    surprised: bool
    segments: int
    characters_surprised: tuple[str, ...] = ()
    reason: str
    nonce: int | None


@attrs.frozen(kw_only=True)
class SurpriseResult:
    """Both sides' surprise and who gains the advantage."""

    party: SideSurprise
    monsters: SideSurprise
    advantage: Advantage
    advantage_kind: AdvantageKind
    rolls: tuple[int, ...]

    @property
    def distance_segments(self) -> int:
        """The larger number of surprise segments for the 001 outdoor distance (A9: the largest raw face)."""
        faces = [s.face for s in (self.party, self.monsters) if s.surprised and s.face is not None]
        return max(faces, default=0)


def worn(members: Iterable[Member]) -> tuple[str, ...]:
    """The armor the party's members wear (none left out), as ``Side.armor`` reads it."""
    return tuple(m.armor for m in members if m.armor not in {"", "none"})


def armor_noise(rules: Ruleset, side: Side) -> str | None:
    """The first noisy armor a side wears under option ``noisy_armor``, or None."""
    noisy = rules.part(EncounterOptions).noisy_armor
    if not side.armor or noisy is None:
        return None
    for worn in side.armor:
        kind = armor_kind(rules, worn)
        if kind is None:
            known = ", ".join(rules.part(EncounterTables).armor_kind or {})
            msg = f"{side.name}: unknown armor {worn!r}; use a suit ({known}) or a kind"
            raise UsageError(msg)
        if kind in noisy:
            return worn
    return None


def armor_kind(rules: Ruleset, worn: str) -> str | None:
    """The kind of a suit (or a kind named as such) under the rules' armor table; None when unknown."""
    kinds = rules.part(EncounterTables).armor_kind or {}
    if worn in kinds:
        return kinds[worn]
    return worn if worn in set(kinds.values()) else None


def noise_counts(rules: Ruleset, setting: Setting) -> bool:
    """Whether noise (a noisy side, noisy armor) counts here: everywhere, or under option ``noise_outdoors = false``
    only indoors and underground (seed 001 lists its noise modifier under INDOORS)."""
    return rules.part(EncounterOptions).noise_outdoors or setting.underground


def _blocker(rules: Ruleset, other: Side, setting: Setting) -> str | None:
    """Why the side facing ``other`` cannot be surprised by it, if it cannot."""
    options = rules.part(EncounterOptions)
    if other.light_in_darkness and options.light_blocks_surprise:
        return f"the {other.name} carry light in darkness"
    if options.noise_blocks_surprise and noise_counts(rules, setting):
        if other.noisy:
            return f"the {other.name} make noise"
        worn = armor_noise(rules, other)
        if worn is not None:
            return f"the {other.name} wear noisy armour ({worn})"  # recorded words: audits re-derive them as written
    return None


def _wis_mod(rules: Ruleset, score: int) -> int:
    choice = rules.part(EncounterOptions).wis_surprise_mod
    bands = (rules.part(EncounterTables).wis_surprise or {})[choice]  # type: ignore[index]
    mod = int(bands[0][1])
    for least, value in bands:
        if score >= least:
            mod = int(value)
    return mod


def _check(side: Side) -> None:
    if not 0 <= side.surprise_range <= DIE_FACES:
        msg = f"{side.name}: surprise range must be 0 to {DIE_FACES}, not {side.surprise_range}"
        raise UsageError(msg)


def _one_side(
    roll: Roll,
    rules: Ruleset,
    side: Side,
    blocked: str | None,
    labels: tuple[str, ...] | None,
) -> SideSurprise:
    """One side's roll; ``blocked`` says why it cannot be surprised; ``labels`` name its characters."""
    if side.aware:
        return SideSurprise(
            side=side.name, rolled=False, face=None, surprised=False, segments=0, reason="aware: no roll", nonce=None
        )
    if side.unsurprisable:
        return SideSurprise(
            side=side.name,
            rolled=False,
            face=None,
            surprised=False,
            segments=0,
            reason=f"the {side.name} cannot be surprised: no roll",
            nonce=None,
        )
    if blocked is not None:
        reason = f"{blocked}, so the {side.name} cannot be surprised by them"
        return SideSurprise(
            side=side.name, rolled=False, face=None, surprised=False, segments=0, reason=reason, nonce=None
        )
    rolled = roll(DIE, f"{PURPOSE}.{side.name}", made_for=side.name)
    face, top = rolled.total, side.surprise_range
    adjusted = face + side.modifier
    shown = f"{face} {side.modifier:+d} = {adjusted}" if side.modifier else f"{face}"
    if labels is not None and side.wis_scores:
        labels = labels or tuple(str(i) for i in range(len(side.wis_scores)))
        hit: list[str] = []
        parts: list[str] = []
        for label, score in zip(labels, side.wis_scores, strict=True):
            mod = _wis_mod(rules, score)
            caught = adjusted + mod <= top
            if caught:
                hit.append(label)
            parts.append(f"{label} WIS {score} {mod:+d} -> {adjusted + mod}{' surprised' if caught else ''}")
        whole = rules.part(EncounterOptions).wis_surprise_scope is WisScope.PARTY
        surprised = bool(hit) if whole else len(hit) == len(labels)
        verdict = who_is_surprised(labels, hit, whole=whole)
        reason = f"d6 = {shown}, surprised at <= {top}: {'; '.join(parts)}; {verdict}"
        return SideSurprise(
            side=side.name,
            rolled=True,
            face=face,
            surprised=surprised,
            segments=0,
            characters_surprised=tuple(hit),
            reason=reason,
            nonce=rolled.nonce,
        )
    surprised = adjusted <= top
    reason = f"d6 = {shown} <= {top}: surprised" if surprised else f"d6 = {shown} > {top}: not surprised"
    return SideSurprise(
        side=side.name, rolled=True, face=face, surprised=surprised, segments=0, reason=reason, nonce=rolled.nonce
    )


def _names(names: list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def who_is_surprised(labels: tuple[str, ...], hit: list[str], *, whole: bool) -> str:
    """Who is surprised, plainly: ``Delphine surprised; Aldric and Corvin are not and act``.

    Under the ``party`` scope (``whole``) the words are those hexlog 0.1.0 recorded, so a recorded
    reason is derived again exactly.
    """
    spared = [label for label in labels if label not in hit]
    if not hit:
        return "nobody surprised"
    if whole:  # the words hexlog 0.1.0 recorded for this reading
        return "surprised: " + ", ".join(hit)
    if not spared:
        return "all surprised: the party is surprised"
    verb = "is not and acts" if len(spared) == 1 else "are not and act"
    return f"{_names(hit)} surprised; {_names(spared)} {verb}"


def _segments(rules: Ruleset, party: SideSurprise, monsters: SideSurprise) -> tuple[SideSurprise, SideSurprise]:
    """§3.1: a surprised side loses its face in segments; mutual surprise per the option (A9)."""
    faces = [s.face if s.surprised and s.face is not None else 0 for s in (party, monsters)]
    lost, note = list(faces), ""
    if party.surprised and monsters.surprised:
        if rules.part(EncounterOptions).segments_on_mutual_surprise is MutualSurprise.DIFFERENCE:
            gap = abs(faces[0] - faces[1])
            lost = [gap if faces[i] > faces[1 - i] else 0 for i in range(2)]
            note = f"; both surprised: {max(faces)} - {min(faces)} = {gap}, lost by the larger face"
        else:
            note = "; both surprised: each side loses its own face"
    out = []
    for side, n in zip((party, monsters), lost, strict=True):
        reason = f"{side.reason}{note}; loses {n} segments" if side.surprised else side.reason
        out.append(attrs.evolve(side, segments=n, reason=reason))
    return out[0], out[1]


def check_surprise(  # noqa: PLR0913 - the encounter's call, spelled out
    roll: Roll,
    rules: Ruleset,
    party: Side,
    monsters: Side,
    *,
    setting: str,
    member_names: tuple[str, ...] = (),
) -> SurpriseResult:
    """Roll surprise for both sides by the rules in force and say who gains the advantage."""
    if setting not in SETTINGS:
        msg = f"unknown setting {setting!r}; use one of {', '.join(SETTINGS)}"
        raise UsageError(msg)
    _check(party)
    _check(monsters)
    if member_names and party.wis_scores and len(member_names) != len(party.wis_scores):
        msg = f"{len(member_names)} member names for {len(party.wis_scores)} WIS scores"
        raise UsageError(msg)
    wis = rules.part(EncounterOptions).wis_surprise_mod
    per_character = Setting(setting).underground and wis is not None and wis is not WisSurprise.OFF
    place = Setting(setting)
    party_blocked, monsters_blocked = _blocker(rules, monsters, place), _blocker(rules, party, place)
    p = _one_side(roll, rules, party, party_blocked, member_names if per_character else None)
    m = _one_side(roll, rules, monsters, monsters_blocked, () if per_character else None)
    options = rules.part(EncounterOptions)
    kind = options.surprise_advantage
    if options.wilderness_surprise_advantage is not None and not Setting(setting).underground:
        kind = options.wilderness_surprise_advantage
    if kind is AdvantageKind.SEGMENTS:
        p, m = _segments(rules, p, m)
        ahead = (m.segments > p.segments) - (p.segments > m.segments)
    else:
        ahead = (m.surprised and not p.surprised) - (p.surprised and not m.surprised)
    advantage = {1: Advantage.PARTY, -1: Advantage.MONSTERS, 0: Advantage.NONE}[ahead]
    rolls = tuple(s.nonce for s in (p, m) if s.nonce is not None)
    return SurpriseResult(party=p, monsters=m, advantage=advantage, advantage_kind=kind, rolls=rolls)
