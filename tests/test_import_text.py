"""Text no command takes (an escape sequence that would steer a terminal) may still be in a log sealed elsewhere, which
imports as it is; whatever a log holds, the command line prints it escaped."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from hexlog.events.chain import GENESIS, seal
from hexlog.service.console import PlainConsole

if TYPE_CHECKING:
    from pathlib import Path

ESCAPE = "\u001b]0;PWNED\u0007\u001b[2J"


def _resealed(lines: list[str], change: dict[str, str]) -> str:
    """The export with every ``member_added`` name in ``change`` renamed, its chain sealed again over it."""
    out, prev = [], GENESIS
    for line in lines:
        event = json.loads(line)
        if event["type"] == "hexlog.party.member_added" and event["data"]["name"] in change:
            event["data"]["name"] = change[event["data"]["name"]]
        sealed = seal(
            id=event["id"],
            source=event["source"],
            type=event["type"],
            subject=event["subject"],
            time=event["time"],
            data=event["data"],
            streamversion=event["streamversion"],
            schemaversion=event["schemaversion"],
            prevhash=prev,
        )
        event["prevhash"], event["hash"] = prev, sealed.hash
        prev = sealed.hash
        out.append(json.dumps(event) + "\n")
    return "".join(out)


def test_an_imported_name_holding_an_escape_is_printed_escaped(hexlog, tmp_path: Path) -> None:
    for args in (("init",), ("party", "add", "Bob")):
        assert hexlog(*args).returncode == 0
    lines = [line for line in hexlog("export").stdout.splitlines() if line.startswith("{")]
    (tmp_path / "esc.jsonl").write_text(_resealed(lines, {"Bob": ESCAPE + "Bob"}))
    assert hexlog("import", "esc.jsonl", "--db", "esc.db").returncode == 0
    for args in (("party", "list"), ("state",), ("log",), ("audit",), ("receipt",)):
        shown = hexlog(*args, "--db", "esc.db")
        assert "\x1b" not in shown.stdout + shown.stderr, args
        if args not in {("audit",), ("receipt",)}:
            assert r"\u001b]0;PWNED\u0007\u001b[2JBob" in shown.stdout, args


def test_the_console_prints_what_could_steer_a_terminal_escaped() -> None:
    written = io.StringIO()
    PlainConsole(file=written, highlight=False, soft_wrap=True, markup=False).print(f"{ESCAPE}Bob: CHA 10\nnext line")
    assert written.getvalue() == "\\u001b]0;PWNED\\u0007\\u001b[2JBob: CHA 10\nnext line\n"
