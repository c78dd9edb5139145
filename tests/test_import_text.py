"""Text no command takes (an escape sequence that would steer a terminal, a NUL) is not imported either, even in an
export whose chain is sealed over it; and whatever a log holds, the command line prints it escaped."""

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


def test_an_export_whose_text_holds_an_escape_is_not_imported(hexlog, tmp_path: Path) -> None:
    for args in (("init",), ("party", "add", "Bob")):
        assert hexlog(*args).returncode == 0
    lines = [line for line in hexlog("export").stdout.splitlines() if line.startswith("{")]
    (tmp_path / "plain.jsonl").write_text(_resealed(lines, {}))
    assert hexlog("import", "plain.jsonl", "--db", "plain.db").returncode == 0  # resealing alone changes nothing
    (tmp_path / "esc.jsonl").write_text(_resealed(lines, {"Bob": ESCAPE + "Bob"}))
    done = hexlog("import", "esc.jsonl", "--db", "esc.db")
    assert done.returncode != 0
    assert "hexlog.party.member_added version" in done.stderr
    assert "name holds the control or format character U+001B" in done.stderr
    assert "\u001b" not in done.stderr
    assert not (tmp_path / "esc.db").exists()


def test_the_console_prints_what_could_steer_a_terminal_escaped() -> None:
    written = io.StringIO()
    PlainConsole(file=written, highlight=False, soft_wrap=True, markup=False).print(f"{ESCAPE}Bob: CHA 10\nnext line")
    assert written.getvalue() == "\\u001b]0;PWNED\\u0007\\u001b[2JBob: CHA 10\nnext line\n"
