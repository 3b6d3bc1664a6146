"""The editor never loses what is on disk, never rewrites what the user did not touch,
never blocks on a strange file, and shows names and previews safely."""

from __future__ import annotations

import os
import random
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st
from PySide6.QtGui import QColor, QImage, QTextCursor, QTextDocument

from memdesk.core.index import workspace
from memdesk.ui import editor, markdown_view
from tests.ui.modal import answer_modal

REL = "memory/2026-06-01.md"
BASE = "".join(f"line {i}\n" for i in range(12))


def _editor(qtbot, root: Path) -> editor.NoteEditor:  # type: ignore[no-untyped-def]
    widget = editor.NoteEditor(root)
    qtbot.addWidget(widget)
    widget.resize(900, 600)
    return widget


def _note(root: Path, data: bytes | str = BASE) -> Path:
    path = root / REL
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _replace_line(widget: editor.NoteEditor, number: int, text: str) -> None:
    """Edit like a user: select one line in the document and type over it."""
    block = widget.text_edit.document().findBlockByNumber(number)
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
    cursor.insertText(text)


@pytest.mark.parametrize(
    "change",
    [
        b"caf\xe9 in latin-1\n",
        b"a NUL \x00 byte\n",
        "rewritten as UTF-16\n".encode("utf-16"),
        b"log line\n" * (workspace.MAX_NOTE_BYTES // 9 + 100_000),
    ],
    ids=["latin-1", "nul", "utf-16", "11MB"],
)
def test_save_over_an_undecodable_or_huge_change_asks(qtbot, tmp_path: Path, change: bytes) -> None:  # type: ignore[no-untyped-def]
    """Unsaved edits + the file changed on disk into something the editor cannot show:
    Save asks (on the bar above the editor: no default button to type into) and the
    disk version stays as it is."""
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 2, "user edit")
    path.write_bytes(change)
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        assert widget.save() is False
    dialog = widget.open_dialog(REL)
    assert dialog is not None and dialog.default_button is None and not dialog.merge_button.parent()
    assert path.read_bytes() == change
    with qtbot.waitSignal(widget.conflict_resolved):
        dialog.cancel_button.click()
    assert widget.save() is False and path.read_bytes() == change  # asks again, still no overwrite


def test_save_race_with_an_agent_appending_loses_nothing(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """200 saves, each with an agent appending a line 0–4 ms after save() starts: every
    agent line and every user edit is on disk afterwards."""
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    rng = random.Random(9)
    lost_agent = lost_user = asked = 0
    for trial in range(200):
        widget.close_note(REL)
        path.write_text(BASE)
        assert widget.open_note(REL)
        edit = f"line 3 edited by the user in trial {trial}"
        _replace_line(widget, 3, edit)
        agent = f"agent line {trial}\n"
        delay = rng.uniform(0, 0.004)

        def append(agent: str = agent, delay: float = delay) -> None:
            time.sleep(delay)
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(agent)

        writer = threading.Thread(target=append)
        writer.start()
        saved = widget.save()
        writer.join()
        if not saved:  # the agent's line landed first and the bar asks: Merge
            asked += 1
            dialog = widget.open_dialog(REL)
            assert dialog is not None and dialog.default_button is None
            dialog.merge_button.click()
            assert widget.save()
        disk = path.read_text(encoding="utf-8")
        lost_agent += agent not in disk
        lost_user += edit not in disk
    assert (lost_agent, lost_user) == (0, 0), f"{asked} trials asked"


_SEPARATORS = st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\u2029"])
_CONTENT = st.text(
    alphabet=st.sampled_from(["a", "b", " ", "\u00a0", "é", "🎉", "\t"]), min_size=1, max_size=5
)


@hyp_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(st.tuples(_CONTENT, _SEPARATORS), min_size=2, max_size=6),
    bom=st.booleans(),
    data=st.data(),
)
def test_save_keeps_every_byte_the_user_did_not_edit(qtbot, lines, bom, data) -> None:  # type: ignore[no-untyped-def]
    """NBSP, U+2028/U+2029, CR and CRLF line ends and a BOM survive a save; only the
    edited line changes."""
    k = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    original = ("\ufeff" if bom else "") + "".join(c + s for c, s in lines)
    expected = ("\ufeff" if bom else "") + "".join(
        ("EDITED" if i == k else c) + s for i, (c, s) in enumerate(lines)
    )
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = _note(root, original)
        widget = _editor(qtbot, root)
        assert widget.open_note(REL)
        _replace_line(widget, k, "EDITED")
        assert widget.save()
        assert path.read_bytes() == expected.encode("utf-8")
        widget.close_note(REL)


def test_a_fifo_in_place_of_an_open_note_never_blocks(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The watcher reporting a note that became a FIFO, and saving over it, return at once."""
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 0, "unsaved")
    path.unlink()
    os.mkfifo(path)
    done, rescued = threading.Event(), threading.Event()

    def rescue() -> None:  # unblocks a blocking reader, so a regression fails instead of hanging
        if not done.wait(10):
            rescued.set()
            for _ in range(3):
                with open(path, "wb"):
                    pass

    threading.Thread(target=rescue, daemon=True).start()
    try:
        with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
            widget.on_files_changed([REL])
        dialog = widget.open_dialog(REL)
        assert dialog is not None and "FIFO" in dialog.findChild(editor.QLabel, "conflictMessage").text()
        dialog.cancel_button.click()
        assert widget.save() is False
    finally:
        done.set()
    assert not rescued.is_set(), "the GUI thread blocked reading a FIFO"
    assert path.is_fifo()


def test_conflict_dialog_shows_file_names_as_text(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rel = "memory/<b>bold &amp; co.md"
    (tmp_path / "memory").mkdir()
    (tmp_path / rel).write_text(BASE)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(rel)
    _replace_line(widget, 0, "unsaved")
    (tmp_path / rel).write_text(BASE.replace("line 0\n", "agent's line 0\n"))
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([rel])
    label = widget.open_dialog(rel).findChild(editor.QLabel, "conflictMessage")  # type: ignore[union-attr]
    shown = QTextDocument()
    shown.setHtml(label.text())
    assert "memory/<b>bold &amp; co.md changed on disk" in shown.toPlainText()


def test_an_agents_append_under_unsaved_edits_merges_without_asking(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The agent appends to the note the user is typing in: its lines come into the
    buffer at once with no dialog, the cursor stays on the user's word, the edit is
    still unsaved, Ctrl+Z takes the merge back, and saving writes both."""
    path = _note(tmp_path, BASE.replace("line 4\n", "line 4 🎉 émoji\n"))
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 1, "user's line 1")
    cursor = widget.text_edit.textCursor()
    cursor.setPosition(widget.text_edit.document().findBlockByNumber(6).position() + 3)
    widget.text_edit.setTextCursor(cursor)
    asked: list[str] = []
    widget.conflict_detected.connect(asked.append)
    path.write_text(path.read_text() + "agent line 🤖\n")
    with qtbot.waitSignal(widget.merged, timeout=5000) as merged:
        widget.on_files_changed([REL])
    assert merged.args == [REL, 0] and asked == [] and widget.open_dialog(REL) is None
    text = widget.current_buffer.text()  # type: ignore[union-attr]
    assert text.endswith("agent line 🤖\n") and "user's line 1\n" in text
    position = widget.text_edit.textCursor()
    assert (position.blockNumber(), position.positionInBlock()) == (6, 3)
    assert widget.current_buffer.modified  # type: ignore[union-attr]
    widget.text_edit.undo()
    assert "agent line" not in widget.current_buffer.text()  # type: ignore[union-attr]
    widget.text_edit.redo()
    assert widget.save()
    expected = BASE.replace("line 1\n", "user's line 1\n").replace("line 4\n", "line 4 🎉 émoji\n")
    assert path.read_text() == expected + "agent line 🤖\n"


def test_merge_is_the_default_and_marks_overlaps(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A disk change that overlaps the unsaved edits asks; Merge (the default) marks
    the overlap for the user to resolve."""
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 1, "user's line 1")
    path.write_text(BASE + "agent line\n")
    with qtbot.waitSignal(widget.merged, timeout=5000):
        widget.on_files_changed([REL])
    assert widget.save()
    assert path.read_text() == BASE.replace("line 1\n", "user's line 1\n") + "agent line\n"

    _replace_line(widget, 12, "the user's own last line")
    path.write_text(path.read_text().replace("agent line\n", "agent rewrote its line\n"))
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([REL])
    dialog = widget.open_dialog(REL)
    assert dialog.default_button is None  # type: ignore[union-attr]
    with qtbot.waitSignal(widget.merged) as merged:
        dialog.merge_button.click()  # type: ignore[union-attr]
    assert merged.args == [REL, 1]
    text = widget.current_buffer.text()  # type: ignore[union-attr]
    assert "<<<<<<< yours\nthe user's own last line\n=======\nagent rewrote its line\n>>>>>>> on disk" in text
    assert widget.text_edit.extraSelections()  # the conflict is highlighted


def test_read_only_note_is_not_overwritten_without_asking(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _note(tmp_path)
    path.chmod(0o444)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 0, "edited")
    with qtbot.waitSignal(widget.readonly_asked, timeout=5000):
        assert widget.save() is False
    assert path.read_text() == BASE
    box = widget.readonly_box
    assert box is not None and "read-only" in box.text()
    with qtbot.waitSignal(widget.saved, timeout=5000):
        next(b for b in box.buttons() if b.text() == "Save anyway").click()
    assert path.read_text().startswith("edited\n") and path.stat().st_mode & 0o777 == 0o444


def _red_png(path: Path) -> Path:
    image = QImage(64, 64, QImage.Format.Format_RGB32)
    image.fill(QColor(255, 0, 0))
    assert image.save(str(path))
    return path


def test_preview_loads_no_local_images(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Images in a note, inside or outside the workspace, are never loaded: the preview
    shows their alt text and not one red pixel of the red test images."""
    (tmp_path / "memory").mkdir()
    inside = _red_png(tmp_path / "memory" / "inside.png")
    outside = _red_png(Path(tempfile.mkdtemp()) / "outside.png")
    md = markdown_view.make_renderer()  # the editor's own renderer
    preview = editor.SafePreview()
    qtbot.addWidget(preview)
    preview.resize(400, 400)
    preview.show()
    note = f"# Pictures\n\n![inside]({inside})\n\n![outside]({outside})\n\n![relative](inside.png)\n"
    preview.document().setBaseUrl(editor.QUrl.fromLocalFile(str(tmp_path / "memory") + "/"))
    preview.show_markdown(md, note)
    qtbot.waitExposed(preview)
    shot = preview.grab().toImage()
    reds = sum(
        1
        for x in range(0, shot.width(), 4)
        for y in range(0, shot.height(), 4)
        if shot.pixelColor(x, y).red() > 200 and shot.pixelColor(x, y).green() < 60
    )
    assert reds == 0
    text = preview.toPlainText()
    assert "[inside]" in text and "[outside]" in text


def _merge_with_conflicts(
    qtbot, widget: editor.NoteEditor, path: Path, edits: dict[int, tuple[str, str]]
) -> None:  # type: ignore[no-untyped-def]
    """Edit lines in the buffer and the same lines on disk differently, then choose Merge."""
    for number, (mine, _theirs) in edits.items():
        _replace_line(widget, number, mine)
    data = path.read_bytes().decode("utf-8")
    lines = data.splitlines(keepends=True)
    for number, (_mine, theirs) in edits.items():
        ending = lines[number][len(lines[number].rstrip("\r\n")) :]
        lines[number] = theirs + ending
    path.write_bytes("".join(lines).encode("utf-8"))
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([REL])
    with qtbot.waitSignal(widget.merged, timeout=5000) as merged:
        widget.open_dialog(REL).merge_button.click()  # type: ignore[union-attr]
    assert merged.args == [REL, len(edits)]


def test_save_with_unresolved_conflict_markers_is_refused_and_keeps_the_buffer(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """After a Merge left conflict markers, a save is refused with one line naming the
    note, the line and the marker (no box to answer, no "Save anyway": memdesk never
    writes its own unresolved markers); the buffer stays as it is. Once resolved,
    the note saves."""
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _merge_with_conflicts(qtbot, widget, path, {3: ("mine 3", "theirs 3"), 9: ("mine 9", "theirs 9")})
    on_disk = path.read_bytes()
    text = widget.current_buffer.text()  # type: ignore[union-attr]
    seen = answer_modal("Cancel")
    with qtbot.waitSignal(widget.save_refused, timeout=5000) as refused:
        assert widget.save() is False
    assert seen == []  # nothing modal
    message = refused.args[0]
    assert REL in message and "line 4" in message and "<<<<<<< yours" in message and "\n" not in message
    assert not widget.refusal_label.isHidden() and widget.refusal_label.text() == message
    assert path.read_bytes() == on_disk
    assert widget.current_buffer.text() == text and widget.current_buffer.modified  # type: ignore[union-attr]
    assert widget.resolve_conflict("mine", widget.conflict_hunks[0])
    assert widget.save() is False and path.read_bytes() == on_disk  # one is left
    assert widget.resolve_conflict("both", widget.conflict_hunks[0])
    assert widget.refusal_label.isHidden()
    with qtbot.waitSignal(widget.saved, timeout=5000):
        assert widget.save() is True
    assert "<<<<<<<" not in path.read_text() and "mine 3\n" in path.read_text()


def test_keep_mine_in_the_dialog_a_save_opened_completes_that_save(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 5, "my line 5")
    path.write_text(BASE.replace("line 5\n", "their line 5\n"))
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        assert widget.save() is False
    assert path.read_text() == BASE.replace("line 5\n", "their line 5\n")
    with qtbot.waitSignal(widget.saved, timeout=5000):
        widget.open_dialog(REL).keep_button.click()  # type: ignore[union-attr]
    assert path.read_text() == BASE.replace("line 5\n", "my line 5\n")
    assert not widget.current_buffer.modified  # type: ignore[union-attr]


def test_keep_mine_after_a_change_the_watcher_saw_does_not_save_by_itself(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Only a save the user asked for is completed: Keep mine in the dialog the
    watcher opened leaves the edits unsaved (and the next save overwrites)."""
    path = _note(tmp_path)
    widget = _editor(qtbot, tmp_path)
    assert widget.open_note(REL)
    _replace_line(widget, 5, "my line 5")
    path.write_text(BASE.replace("line 5\n", "their line 5\n"))
    with qtbot.waitSignal(widget.conflict_detected, timeout=5000):
        widget.on_files_changed([REL])
    saved: list[str] = []
    widget.saved.connect(saved.append)
    with qtbot.waitSignal(widget.conflict_resolved, timeout=5000):
        widget.open_dialog(REL).keep_button.click()  # type: ignore[union-attr]
    assert saved == [] and widget.current_buffer.modified  # type: ignore[union-attr]
    assert widget.save() is True
    assert path.read_text() == BASE.replace("line 5\n", "my line 5\n")
