"""Layering: memdesk.core imports no Qt (napari's import contract), checked two ways."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "memdesk" / "core"
FORBIDDEN = ("PySide6", "shiboken6", "memdesk.qt", "memdesk.ui", "memdesk.cli", "memdesk.app")


def test_core_sources_import_no_qt() -> None:
    offenders = []
    for path in CORE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.startswith(FORBIDDEN)]
    assert offenders == []


def test_core_runs_with_qt_blocked() -> None:
    """Import every core module in a fresh interpreter where importing PySide6 fails."""
    code = (
        "import sys, importlib, pkgutil\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6'):\n"
        "            raise ImportError('Qt is blocked in this check')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import memdesk.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'memdesk.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=CORE.parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_import_linter_contracts() -> None:
    """import-linter's forbidden + layers contracts from pyproject.toml."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run(
        [str(lint) if lint.exists() else "lint-imports", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=CORE.parents[1],
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout
