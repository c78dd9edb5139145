"""Reading files a user gives hexlog, within limits, and creating files only their owner may read.

Every file hexlog reads on a user's word (an export, a map, a house-rules file, the key file, a
secret file) is read through ``read_regular``: only a regular file (never a FIFO, a device or a
directory), and never more than its limit. Its text is parsed by ``loads_json`` or ``loads_toml``,
which refuse what the parsers would accept but hexlog cannot keep or hash the same way everywhere:
duplicate keys, NaN and infinities (a number too large for a float, such as ``1e400``, too), integers of more than
``MAX_INT_DIGITS`` digits, nesting deeper
than ``MAX_DEPTH``, and text holding lone surrogates (escaped as ``\\ud800`` in JSON).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tomllib
from typing import TYPE_CHECKING, Any

from hexlog.events.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

#: the largest export hexlog reads (bytes)
MAX_EXPORT_BYTES = 1 << 30
#: the longest line of an export (bytes): one event
MAX_LINE_BYTES = 1 << 20
#: the largest map, house-rules, key or secret file (bytes)
MAX_SMALL_FILE_BYTES = 16 << 20
#: how deeply JSON or TOML may nest (objects and arrays)
MAX_DEPTH = 64
#: the most digits an integer may have
MAX_INT_DIGITS = 20


class FileContentError(ValueError):
    """Text a parser reads but hexlog refuses; the message says what and where."""


def read_regular(path: Path, *, limit: int, what: str = "") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``UsageError`` naming ``what`` otherwise.

    The file is opened without blocking (a FIFO never hangs the command) and checked by its open
    descriptor (a file swapped after a check is still checked).
    """
    what = f"{what} {path}" if what else str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as err:
        msg = f"cannot read {what}: {err.strerror}"
        raise UsageError(msg) from err
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            msg = f"cannot read {what}: it is {kind}"
            raise UsageError(msg)
        if info.st_size > limit:
            msg = f"{what} is too large ({info.st_size} bytes; at most {limit})"
            raise UsageError(msg)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while it was read
            msg = f"{what} is too large (more than {limit} bytes)"
            raise UsageError(msg)
        return b"".join(chunks)
    except OSError as err:
        msg = f"cannot read {what}: {err.strerror}"
        raise UsageError(msg) from err
    finally:
        os.close(fd)


def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict (``json.loads``' ``object_pairs_hook``); ``FileContentError`` naming a key
    given twice, which ``json.loads`` alone would let the last of them win."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            msg = f"the key {key!r} is given twice in one object"
            raise FileContentError(msg)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    msg = f"{name} is not a JSON number"
    raise FileContentError(msg)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        msg = f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})"
        raise FileContentError(msg)
    return int(text)


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or an exponent, refused when it is too large to keep (``1e400`` reads as an
    infinity, which no JSON may hold: hexlog could not write it again)."""
    value = float(text)
    if not math.isfinite(value):
        msg = f"the number {text[:40]} is too large to keep (it reads as an infinity)"
        raise FileContentError(msg)
    return value


def check_value(value: Any, *, depth: int = MAX_DEPTH) -> None:
    """``FileContentError`` when parsed data nests deeper than ``depth``, holds text that is not valid
    Unicode (a lone surrogate), or an integer of more than ``MAX_INT_DIGITS`` digits. Iterative: any
    depth is checked without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                msg = "text that is not valid Unicode (a lone surrogate)"
                raise FileContentError(msg) from None
        elif isinstance(item, bool | float):
            continue
        elif isinstance(item, int):
            if abs(item) >= 10**MAX_INT_DIGITS:
                msg = f"an integer of more than {MAX_INT_DIGITS} digits"
                raise FileContentError(msg)
        elif isinstance(item, dict | list):
            if level > depth:
                msg = f"data nested more than {depth} deep"
                raise FileContentError(msg)
            if isinstance(item, dict):
                stack.extend((k, level) for k in item)
                stack.extend((v, level + 1) for v in item.values())
            else:
                stack.extend((v, level + 1) for v in item)


def loads_json(text: str) -> Any:
    """Strict JSON: duplicate keys, NaN, huge integers, deep nesting and lone surrogates are refused
    with ``FileContentError``; a syntax error is ``json.JSONDecodeError`` as usual."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=no_duplicates,
            parse_constant=_no_constant,
            parse_int=_bounded_int,
            parse_float=_finite_float,
        )
    except RecursionError as err:
        msg = f"data nested more than {MAX_DEPTH} deep"
        raise FileContentError(msg) from err
    check_value(value)
    return value


def loads_toml(text: str) -> dict[str, Any]:
    """TOML within the same limits as ``loads_json`` (a syntax error is ``tomllib.TOMLDecodeError``)."""
    try:
        value = tomllib.loads(text)
    except RecursionError as err:
        msg = f"data nested more than {MAX_DEPTH} deep"
        raise FileContentError(msg) from err
    except ValueError as err:  # an integer Python will not convert
        if isinstance(err, tomllib.TOMLDecodeError):
            raise
        raise FileContentError(str(err)) from err
    check_value(value)
    return value


def decode_utf8(data: bytes, *, what: str) -> str:
    """The text of a file's bytes; ``UsageError`` naming the file when they are not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        msg = f"{what} is not UTF-8 ({err.reason} at byte {err.start})"
        raise UsageError(msg) from err


def create_private(path: Path) -> bool:
    """Create ``path`` empty, readable and writable by its owner only, if it does not exist (True when it
    was created)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def remove_quietly(path: Path) -> None:
    """Remove a file hexlog created, if it is still there."""
    with contextlib.suppress(OSError):
        path.unlink()
