"""Core messages: English text that keeps its template for the UI to translate."""

from __future__ import annotations

import ast
import copy
import json
import pickle
from pathlib import Path

import pytest

from memdesk.core import errors
from memdesk.core.index import workspace
from memdesk.core.messages import CONTEXT, QT_TRANSLATE_NOOP, Message, msg

CORE = Path(__file__).resolve().parents[2] / "memdesk" / "core"


def test_a_message_is_its_english_text() -> None:
    inner = msg(QT_TRANSLATE_NOOP("core", "a symlink"))
    made = msg(
        QT_TRANSLATE_NOOP("core", "{path}: {reason}; {size:.1f} MB"), path="a.md", reason=inner, size=2.25
    )
    assert made == "a.md: a symlink; 2.2 MB"
    assert isinstance(made, str) and json.dumps(made) == '"a.md: a symlink; 2.2 MB"'
    assert made.template == "{path}: {reason}; {size:.1f} MB"
    assert made.args["reason"] is inner


def test_without_arguments_braces_are_text() -> None:
    assert msg("keep {this} as it is") == "keep {this} as it is"


@pytest.mark.parametrize("clone", [copy.copy, copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))])
def test_copies_keep_the_template(clone) -> None:  # type: ignore[no-untyped-def]
    made = msg(QT_TRANSLATE_NOOP("core", "{path} is gone"), path="x.md")
    again = clone(made)
    assert isinstance(again, Message)
    assert (again, again.template, dict(again.args)) == (made, made.template, {"path": "x.md"})


def test_core_errors_carry_the_message(tmp_path: Path) -> None:
    with pytest.raises(errors.NoteReadError) as caught:
        workspace.decode_note(b"\x00\x01binary", name="memory/x.md")
    assert str(caught.value) == "memory/x.md: looks binary (NUL bytes); skipped"
    assert caught.value.args[0].template == "{path}: looks binary (NUL bytes); skipped"


def test_skip_reasons_are_messages(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "real.md").write_text("# real\n")
    (tmp_path / "memory" / "link.md").symlink_to(tmp_path / "memory" / "real.md")
    skipped = workspace.scan_memory_files(tmp_path).skipped
    assert [(s.path, s.reason) for s in skipped] == [
        ("memory/link.md", "a symlink (symlinks are not followed)")
    ]
    assert isinstance(skipped[0].reason, Message)


def _templates_lupdate_cannot_see(tree: ast.AST) -> list[str]:
    """msg() calls whose template is not a QT_TRANSLATE_NOOP("core", <literal>) (or a name
    bound to one), and QT_TRANSLATE_NOOP calls outside the core's context."""
    problems = []

    def marked(node: ast.expr) -> bool:
        if isinstance(node, ast.IfExp):
            return marked(node.body) and marked(node.orelse)
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "QT_TRANSLATE_NOOP"
            and len(node.args) == 2
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
        )

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "QT_TRANSLATE_NOOP":
            first = node.args[0] if node.args else None
            if not (isinstance(first, ast.Constant) and first.value == CONTEXT):
                problems.append(f"line {node.lineno}: QT_TRANSLATE_NOOP outside the {CONTEXT!r} context")
        elif node.func.id == "msg" and node.args:
            template = node.args[0]
            # A loop variable over marked literals (``for test, name in ((..., QT_TRANSLATE_NOOP(...)),)``).
            if not (marked(template) or isinstance(template, ast.Name)):
                problems.append(f"line {node.lineno}: msg() template is not a QT_TRANSLATE_NOOP literal")
    return problems


def test_every_core_template_is_catalogued() -> None:
    """lupdate sees every template (so the .ts completeness test covers the core's text)."""
    problems = []
    for path in sorted(CORE.rglob("*.py")):
        problems += [
            f"{path.relative_to(CORE)} {p}"
            for p in _templates_lupdate_cannot_see(ast.parse(path.read_text()))
        ]
    assert problems == []


def test_the_check_notices_an_unmarked_template() -> None:
    tree = ast.parse('msg("{path} unmarked", path=p)\nQT_TRANSLATE_NOOP("MainWindow", "x")')
    assert len(_templates_lupdate_cannot_see(tree)) == 2


def test_a_message_kept_in_the_index_comes_back_translatable() -> None:
    """A skip reason stored by the index is read back as the same Message (template,
    arguments, nested messages); plain text, and English an older version stored, stay."""
    from memdesk.core import messages

    inner = messages.msg(messages.QT_TRANSLATE_NOOP("core", "{size} bytes is too large"), size=3_000_000)
    outer = messages.msg(
        messages.QT_TRANSLATE_NOOP("core", "{path}: {reason}; skipped"), path="memory/大.md", reason=inner
    )
    back = messages.loads(messages.dumps(outer))
    assert isinstance(back, messages.Message) and back == outer
    assert back.template == outer.template and back.args["path"] == "memory/大.md"
    nested = back.args["reason"]
    assert isinstance(nested, messages.Message) and nested.template == inner.template
    assert nested.args["size"] == 3_000_000
    for plain in ("memory/a.md: cannot be read", '{"message": 1}', "", "{not json"):
        assert messages.loads(messages.dumps(plain)) == plain
