"""The command table: each command is registered by the group the table names (a run
imports only that group), and a run of one command does not import the others."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from memdesk.cli import main as cli_main


def _registered(group: str) -> set[str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(f"memdesk.cli.{group}").register(sub)
    return set(sub.choices)


def test_the_table_names_every_command_of_every_group_and_nothing_else() -> None:
    for group in cli_main.COMMAND_GROUPS:
        table = {cmd for cmd, g in cli_main.GROUP_OF_COMMAND.items() if g == group}
        assert _registered(group) == table, group
    full = cli_main.build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(cli_main.GROUP_OF_COMMAND)


def test_a_command_imports_only_its_own_group() -> None:
    probe = (
        "import sys\n"
        "from memdesk.cli import main\n"
        "main.build_parser(['-v', 'status', '--json'])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('memdesk.cli.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = set(out.split())
    assert "memdesk.cli.index" in loaded
    assert not loaded & {"memdesk.cli.agent", "memdesk.cli.eval", "memdesk.cli.gui", "memdesk.cli.search"}
