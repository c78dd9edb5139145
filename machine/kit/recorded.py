"""Typed rules read as a campaign recorded them, for the audit's re-run of a recorded decision.

A campaign records the whole ruleset it is played under (``campaign.started``,
``campaign.rules_changed``). An earlier release accepted values this one refuses: hexlog 0.1.0 took
any string for a distance unit, a reaction band or an armor kind (``m``, ``wary``, ``elven``) and
numbers now out of range (a distance multiplier of 0 or 20,000). New play under such rules is
refused, naming the key (``kit.rules.structure``); a decision already recorded under them must still
be re-derived by the audit exactly as it was made. ``structure`` reads a part that way: validators
are not run, and a value that is not a word of its enum is kept as the string recorded (it then
equals no word, as the release that wrote it compared plain strings). Shapes are still those the
part declares, and keys it does not read are left out.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import cattrs

from hexlog.machine.kit.rules import RulesError, keys_of

if TYPE_CHECKING:
    from collections.abc import Mapping

T = TypeVar("T")


def _word_or_recorded(value: Any, kind: Any) -> Any:
    """The word of an enum ``kind`` whose value this is, or the value as recorded (a string: itself)."""
    if not issubclass(kind, enum.Enum):
        return kind(value)
    try:
        return kind(value)
    except ValueError:
        return value


_converter = cattrs.Converter()
# a StrEnum is a str, and a hook for str is found before one for enums: both are this one
_converter.register_structure_hook(str, _word_or_recorded)
_converter.register_structure_hook(enum.Enum, _word_or_recorded)


def structure(cls: type[T], section: Mapping[str, Any], where: str) -> T:
    """The part of ``section`` that ``cls`` reads, as recorded; ``RulesError`` if even its shape is wrong."""
    names = set(keys_of(cls))
    data = {k: v for k, v in section.items() if k in names}
    with attrs.validators.disabled():
        try:
            return _converter.structure(data, cls)
        except (cattrs.BaseValidationError, ValueError, TypeError, KeyError) as err:
            shown = "; ".join(cattrs.transform_error(err)) if isinstance(err, cattrs.BaseValidationError) else err
            msg = f"{where}: the recorded rules cannot be read even as recorded: {shown}"
            raise RulesError(msg) from err
