"""The import layers: service over replay over machine over projections over events, nothing importing up.

Every import in every module is read from its source (those under ``TYPE_CHECKING`` and inside
functions too), so a layer cannot reach up even lazily. ``.ci/run`` also runs import-linter with the
same contract (``[tool.importlinter]`` in ``pyproject.toml``).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: highest first
LAYERS = ("service", "replay", "machine", "projections", "events")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every ``hexlog.*`` import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name.startswith("hexlog.")]


def _violations(folder: str) -> list[str]:
    rank = LAYERS.index(folder)
    out = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, module in _imports(path):
            layer = module.split(".")[1]
            if layer in LAYERS and LAYERS.index(layer) < rank:
                out.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return out


@pytest.mark.parametrize("folder", LAYERS)
def test_no_module_imports_a_layer_above_its_own(folder: str):
    """Each folder imports only its own layer and those below it."""
    assert _violations(folder) == []


def test_the_import_linter_contract_is_the_same_order():
    """The contract CI gives import-linter lists the same layers in the same order."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    assert contract["type"] == "layers"
    assert contract["layers"] == [f"hexlog.{layer}" for layer in LAYERS]


def test_the_check_catches_an_upward_import(tmp_path: Path):
    """An import of a higher layer is seen, under TYPE_CHECKING and inside a function too."""
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from hexlog.service.cli import app\n"
        "def f():\n    import hexlog.replay.audit\n",
        encoding="utf-8",
    )
    assert [m for _, m in _imports(source)] == ["hexlog.service.cli", "hexlog.replay.audit"]
