"""Free text a user gives (purposes, reasons, notes, names): what it may hold, and how long it may be.

Text that could forge a line in a view, or move the cursor of a terminal, is refused when it is given:
control characters (newlines, escape sequences), format characters (right-to-left overrides, zero-width
marks) and line or paragraph separators. Each field has a length limit.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from hexlog.events.errors import UsageError

#: categories refused anywhere in free text: control, format, surrogate, private use, unassigned,
#: line and paragraph separators
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: the longest free text, by field name; any other text field takes ``LONGEST``
LIMITS = {"note": 500, "reason": 500, "purpose": 100, "name": 64, "speaker": 64, "outcome": 100, "action": 100}
LONGEST = 200
#: fields that are not free text (a secret in hex is checked by its own step)
NOT_TEXT = frozenset({"secret_hex"})


def _unprintable(value: str, field: str) -> str | None:
    for ch in value:
        if unicodedata.category(ch) in REFUSED_CATEGORIES:
            return f"{field} holds the control or format character U+{ord(ch):04X}, which text may not hold"
    return None


def limit_of(field: str) -> int:
    """The longest free text a field may hold (``purpose``; ``watches[0]`` and ``party.name`` as their last name)."""
    return LIMITS.get(field.rsplit(".", 1)[-1].split("[", 1)[0], LONGEST)


def problem(value: str, field: str) -> str | None:
    """What makes ``value`` unusable as the free text ``field`` (None when it can be used)."""
    found = _unprintable(value, field)
    if found is not None:
        return found
    limit = limit_of(field)
    if len(value) > limit:
        return f"{field} is {len(value)} characters long; at most {limit}"
    return None


def check(data: Any, path: str = "") -> None:
    """Refuse the first piece of free text in a command's unstructured data that cannot be used."""
    if isinstance(data, str):
        found = problem(data, path or "text")
        if found is not None:
            raise UsageError(found)
    elif isinstance(data, dict):
        for key, value in data.items():
            if key not in NOT_TEXT:
                check(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, list | tuple):
        for i, value in enumerate(data):
            check(value, f"{path}[{i}]")


def shown(text: str) -> str:
    """Text as a view prints it: anything that could forge a line or steer a terminal written as ``\\uXXXX``."""
    if all(unicodedata.category(ch) not in REFUSED_CATEGORIES for ch in text):
        return text
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch) in REFUSED_CATEGORIES else ch for ch in text)


#: letters of other scripts that look like Latin ones, as far as a reserved name is concerned
_CONFUSABLE = str.maketrans(
    {
        "\u0430": "a",  # cyrillic small letter a
        "\u0435": "e",  # cyrillic small letter ie
        "\u043e": "o",  # cyrillic small letter o
        "\u0440": "p",  # cyrillic small letter er
        "\u0441": "c",  # cyrillic small letter es
        "\u0443": "y",  # cyrillic small letter u
        "\u0445": "x",  # cyrillic small letter ha
        "\u0456": "i",  # cyrillic small letter byelorussian-ukrainian i
        "\u0458": "j",  # cyrillic small letter je
        "\u0455": "s",  # cyrillic small letter dze
        "\u0501": "d",  # cyrillic small letter komi de
        "\u04cf": "l",  # cyrillic small letter palochka
        "\u04bb": "h",  # cyrillic small letter shha
        "\u051b": "q",  # cyrillic small letter qa
        "\u051d": "w",  # cyrillic small letter we
        "\u0261": "g",  # latin small letter script g
        "\u03b1": "a",  # greek small letter alpha
        "\u03bf": "o",  # greek small letter omicron
        "\u03c1": "p",  # greek small letter rho
        "\u03bd": "v",  # greek small letter nu
        "\u03c4": "t",  # greek small letter tau
        "\u03b9": "i",  # greek small letter iota
        "\u03ba": "k",  # greek small letter kappa
        "\u03b5": "e",  # greek small letter epsilon
    }
)


def skeleton(text: str) -> str:
    """The form two names share when they look alike: NFKC, case-folded, look-alike letters mapped, and every
    run of anything but letters and digits (spaces, ``_``, ``-``, a middle dot, ...) one ``.``, none at the ends."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_CONFUSABLE)
    marked = "".join(ch if ch.isalnum() else "." for ch in folded)
    return ".".join(part for part in marked.split(".") if part)


def counted(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the word, singular for one: ``1 turn``, ``2 turns``, ``1 watch``, ``3 watches``."""
    if n == 1:
        return f"{n} {word}"
    return f"{n} {many if many is not None else word + ('es' if word.endswith(('s', 'ch', 'sh', 'x')) else 's')}"
