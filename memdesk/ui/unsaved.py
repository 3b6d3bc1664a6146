"""Before quitting or switching workspaces: the note writes already asked for land, then
the question about what is still unsaved (Save all, Discard changes, Cancel)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QPushButton, QStatusBar, QWidget

from memdesk.qt import note_ops as note_ops_mod
from memdesk.ui import editor as editor_mod


class UnsavedBox(QMessageBox):
    """The unsaved-notes question, holding its three buttons by what they do."""

    save_button: QPushButton
    discard_button: QPushButton
    cancel_button: QPushButton


def unsaved_box(names: list[str], parent: QWidget) -> UnsavedBox:
    """The quit/switch question naming every unsaved note (Save all is the default).

    Its strings keep the window's translation context ("MainWindow"), where they were."""
    more = (
        [QCoreApplication.translate("MainWindow", "… and {0} more").format(len(names) - 12)]
        if len(names) > 12
        else []
    )
    shown = names[:12] + more
    box = UnsavedBox(
        QMessageBox.Icon.Warning,
        QCoreApplication.translate("MainWindow", "Unsaved notes"),
        QCoreApplication.translate("MainWindow", "These notes have unsaved edits:")
        + "\n\n"
        + "\n".join(f"  • {name}" for name in shown),
        parent=parent,
    )
    box.setObjectName("unsavedDialog")
    box.save_button = box.addButton(
        QCoreApplication.translate("MainWindow", "Save all"), QMessageBox.ButtonRole.AcceptRole
    )
    box.discard_button = box.addButton(
        QCoreApplication.translate("MainWindow", "Discard changes"), QMessageBox.ButtonRole.DestructiveRole
    )
    box.cancel_button = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(box.save_button)
    box.setEscapeButton(box.cancel_button)
    return box


def ask(box: UnsavedBox) -> str:
    """Run ``box``: "save", "discard" or "cancel"."""
    box.exec()
    clicked = box.clickedButton()
    box.deleteLater()
    # By the button objects: buttons() lists them by role and platform layout, not
    # in the order they were added (Discard came after Cancel there, and acted as it).
    if clicked is box.save_button:
        return "save"
    if clicked is box.discard_button:
        return "discard"
    return "cancel"


def settle(
    editor: editor_mod.NoteEditor,
    ops: note_ops_mod.NoteOps,
    confirm: Callable[[list[str]], str],
    bar: QStatusBar,
) -> bool:
    """The note writes already asked for land first (a Ctrl+S just before the quit),
    then ``confirm`` is asked about what is still unsaved; Save all waits for its saves.
    True when nothing unsaved is left.

    The waits run the event loop: the window keeps painting, and the quit happens
    once the writes are done, never before (and never loses one)."""
    wait_for_writes(ops, bar)
    dirty = editor.dirty_buffers()
    if not dirty:
        return True
    choice = confirm([b.rel for b in dirty])
    if choice == "save":
        if not editor.save_all():
            return False
    elif choice == "discard":
        editor.discard_all()
    else:
        return False
    wait_for_writes(ops, bar)
    # Typed into a note while its save was written: asked about again, not dropped.
    return not editor.dirty_buffers() or settle(editor, ops, confirm, bar)


def wait_for_writes(ops: note_ops_mod.NoteOps, bar: QStatusBar) -> None:
    if not ops.pending:
        return
    bar.showMessage(QCoreApplication.translate("MainWindow", "Waiting for the notes being written…"))
    ops.wait_idle()
    bar.clearMessage()
