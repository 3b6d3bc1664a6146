"""The note editor: Markdown highlighting, a safe rendered preview, buffers that survive
switching files, atomic saves and a conflict choice when a file changes on disk.

Nothing is ever silently overwritten or lost: each buffer remembers the hash of the
disk text it was loaded from (its *base*); saving over a file whose hash moved on,
or learning from the watcher that it moved under unsaved edits, asks the user.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from PySide6.QtCore import QEvent, QRegularExpression, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextDocumentLayout,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import errors
from memdesk.core.index import workspace as workspace_mod
from memdesk.ui import code_editor, markdown_view, theme
from memdesk.ui import errors as ui_errors

log = logging.getLogger(__name__)


def _fmt(
    color: str, *, bold: bool = False, italic: bool = False, mono: bool = False, background: str | None = None
) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if italic:
        fmt.setFontItalic(True)
    if mono:
        fmt.setFontFixedPitch(True)
    if background:
        fmt.setBackground(QColor(background))
    return fmt


# Markdown colours for light and dark bases (each readable on its own kind of base).
_LIGHT_COLORS = {
    "heading": "#1f4e8c",
    "list": "#a0522d",
    "quote": "#5f6b7a",
    "code": "#8b1a5a",
    "code_bg": "#f3eef2",
    "link": "#0b6e4f",
    "fence_bg": "#f6f3f5",
    "annotation": "#6a3fb5",
    "annotation_bg": "#efe8fb",
}
_DARK_COLORS = {
    "heading": "#7fb2f0",
    "list": "#e0a070",
    "quote": "#a3adba",
    "code": "#f0a0c8",
    "code_bg": "#3a2f36",
    "link": "#6fd3a8",
    "fence_bg": "#2f2a2e",
    "annotation": "#c9b3f5",
    "annotation_bg": "#342c44",
}


class MarkdownHighlighter(QSyntaxHighlighter):
    """Headings, emphasis, code, links, lists and quotes; fenced code spans blocks.

    Colours come in a light and a dark set, picked from the palette's base colour.
    """

    _IN_FENCE = 1

    def __init__(self, document: QTextDocument, *, dark: bool = False) -> None:
        super().__init__(document)
        self.dark = dark
        c = _DARK_COLORS if dark else _LIGHT_COLORS
        strong = QTextCharFormat()
        strong.setFontWeight(QFont.Weight.Bold)
        em = QTextCharFormat()
        em.setFontItalic(True)
        self._rules: list[tuple[QRegularExpression, QTextCharFormat]] = [
            (QRegularExpression(r"^#{1,6}\s.*$"), _fmt(c["heading"], bold=True)),
            (QRegularExpression(r"^\s*([-*+]|\d+[.)])\s"), _fmt(c["list"], bold=True)),
            (QRegularExpression(r"^\s*>.*$"), _fmt(c["quote"], italic=True)),
            (QRegularExpression(r"\*\*[^*]+\*\*|__[^_]+__"), strong),
            (QRegularExpression(r"(?<![*\w])\*[^*\s][^*]*\*(?!\*)|(?<![_\w])_[^_\s][^_]*_(?!_)"), em),
            (QRegularExpression(r"`[^`]+`"), _fmt(c["code"], mono=True, background=c["code_bg"])),
            (QRegularExpression(r"!?\[[^\]]*\]\([^)]*\)"), _fmt(c["link"])),
            # OpenClaw's recall annotations (<!-- importance: 7 -->, project, trigger).
            (
                QRegularExpression(
                    r"<!--\s*(?:trigger|importance|project)\s*:.*?-->",
                    QRegularExpression.PatternOption.CaseInsensitiveOption,
                ),
                _fmt(c["annotation"], bold=True, background=c["annotation_bg"]),
            ),
        ]
        self._fence = _fmt(c["code"], mono=True, background=c["fence_bg"])

    def highlightBlock(self, text: str) -> None:  # Qt override
        is_fence_line = text.lstrip().startswith(("```", "~~~"))
        in_fence = self.previousBlockState() == self._IN_FENCE
        if in_fence or is_fence_line:
            self.setFormat(0, len(text), self._fence)
            # A fence line inside a fence closes it; anywhere else it opens one.
            self.setCurrentBlockState(-1 if in_fence and is_fence_line else self._IN_FENCE)
            return
        self.setCurrentBlockState(-1)
        for pattern, fmt in self._rules:
            matches = pattern.globalMatch(text)
            while matches.hasNext():
                match = matches.next()
                self.setFormat(match.capturedStart(), match.capturedLength(), fmt)


class SafePreview(QTextBrowser):
    """Rendered Markdown that never fetches anything: no remote images, links not followed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preview")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, kind: int, url: QUrl | str) -> Any:  # Qt override
        return None  # images and style sheets stay unloaded, whatever their scheme

    def show_markdown(self, md: MarkdownIt, text: str) -> None:
        self.document().setDefaultStyleSheet(markdown_view.style_sheet(self.palette()))
        self.setHtml(md.render(text))


@dataclasses.dataclass(eq=False)
class Buffer:
    """One open note: its document and the disk text it was loaded from or saved as."""

    path: Path
    rel: str
    document: QTextDocument
    base_hash: str | None  # None when the file did not exist when opened
    deleted_on_disk: bool = False

    @property
    def modified(self) -> bool:
        return self.document.isModified()

    def text(self) -> str:
        return self.document.toPlainText()


class ConflictDialog(QDialog):
    """Reload / keep mine / compare for a note changed on disk under unsaved edits.

    Signals:
        chosen(str): ``"reload"`` or ``"keep"`` (closing the dialog keeps the buffer).
    """

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None, *, rel: str, mine: str, theirs: str | None) -> None:
        super().__init__(parent)
        self.setObjectName("conflictDialog")
        self.setWindowTitle(f"{rel} changed on disk")
        self._choice = "keep"
        layout = QVBoxLayout(self)
        if theirs is None:
            message = (
                f"<b>{rel}</b> was deleted on disk, but you have unsaved edits.<br>"
                "Keep yours (saving will recreate the file) or drop them?"
            )
        else:
            message = (
                f"<b>{rel}</b> changed on disk, but you have unsaved edits.<br>"
                "Reload the disk version (your edits are dropped) or keep yours "
                "(saving will overwrite the disk version)?"
            )
        label = QLabel(message)
        label.setWordWrap(True)
        layout.addWidget(label)
        self._diff = QPlainTextEdit()
        self._diff.setObjectName("conflictDiff")
        self._diff.setReadOnly(True)
        self._diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        diff = difflib.unified_diff(
            (theirs or "").splitlines(),
            mine.splitlines(),
            fromfile=f"{rel} (disk)",
            tofile=f"{rel} (yours)",
            lineterm="",
        )
        self._diff.setPlainText("\n".join(diff) or "(no differences)")
        self._diff.setVisible(False)
        layout.addWidget(self._diff)
        buttons = QDialogButtonBox()
        self.reload_button = QPushButton("Reload from disk" if theirs is not None else "Drop mine")
        self.reload_button.setObjectName("conflictReload")
        self.keep_button = QPushButton("Keep mine")
        self.keep_button.setObjectName("conflictKeepMine")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setObjectName("conflictCompare")
        self.compare_button.setCheckable(True)
        buttons.addButton(self.reload_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(self.keep_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.compare_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout.addWidget(buttons)
        self.reload_button.clicked.connect(self._on_reload_button_clicked)
        self.keep_button.clicked.connect(self._on_keep_button_clicked)
        self.compare_button.toggled.connect(self._on_compare_button_toggled)
        self.finished.connect(self._on_self_finished)
        self.keep_button.setDefault(True)

    @Slot()
    def _on_reload_button_clicked(self) -> None:
        self._choice = "reload"
        self.accept()

    @Slot()
    def _on_keep_button_clicked(self) -> None:
        self._choice = "keep"
        self.accept()

    @Slot(bool)
    def _on_compare_button_toggled(self, on: bool) -> None:
        self._diff.setVisible(on)
        self.resize(max(self.width(), 640), 480 if on else self.sizeHint().height())

    @Slot(int)
    def _on_self_finished(self, _result: int) -> None:
        self.chosen.emit(self._choice)


class NoteEditor(QWidget):
    """Edit and preview tabs over the current buffer; keeps every open buffer.

    Signals:
        saved(str): a note was written to disk (workspace-relative path).
        current_changed(str): the note shown changed ("" = none).
        modified_changed(bool): the current buffer became dirty or clean.
        conflict_detected(str): a conflict dialog was opened for this note.
        conflict_resolved(str, str): the user chose ("reload" | "keep") for this note.
    """

    saved = Signal(str)
    current_changed = Signal(str)
    modified_changed = Signal(bool)
    conflict_detected = Signal(str)
    conflict_resolved = Signal(str, str)

    def __init__(self, workspace: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._root = Path(workspace)
        self._buffers: dict[str, Buffer] = {}
        self._current: Buffer | None = None
        self._dialogs: dict[str, ConflictDialog] = {}
        self._highlighters: dict[str, MarkdownHighlighter] = {}
        self._md = markdown_view.make_renderer()
        self._hit_lines: tuple[int, int] | None = None  # the opened hit's lines, until cleared
        self._matched: tuple[int, ...] = ()

        self.title = QLabel(self.tr("No note open"))
        self.title.setObjectName("editorTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("saveButton")
        self.save_button.setToolTip(self.tr("Save atomically (Ctrl+S)"))
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save)

        self.text_edit = code_editor.CodeEditor()
        self.text_edit.setObjectName("editor")
        self.text_edit.setReadOnly(True)
        self.text_edit.setPlaceholderText(self.tr("Open a note from the tree or a search hit."))
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10.0))
        self.text_edit.setFont(font)
        self.text_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.find_bar = code_editor.FindBar(self.text_edit)
        self.preview = SafePreview()

        edit_page = QWidget()
        edit_layout = QVBoxLayout(edit_page)
        edit_layout.setContentsMargins(0, 0, 0, 0)
        edit_layout.setSpacing(0)
        edit_layout.addWidget(self.text_edit, 1)
        edit_layout.addWidget(self.find_bar)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("editorTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(edit_page, self.tr("Edit"))
        self.tabs.addTab(self.preview, self.tr("Preview"))
        self._edit_page = edit_page
        self.tabs.currentChanged.connect(self._on_tabs_current_changed)

        header = QHBoxLayout()
        header.setContentsMargins(4, 2, 4, 2)
        header.addWidget(self.title, 1)
        header.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.tabs, 1)

        self._preview_timer = QTimer(self)
        self._preview_timer.setObjectName("preview-render-timer")
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(300)
        self._preview_timer.timeout.connect(self._render_preview)

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            # Light and dark themes need different Markdown colours: re-highlight.
            dark = theme.is_dark(self.palette())
            for rel, buffer in self._buffers.items():
                old = self._highlighters.get(rel)
                if old is None or old.dark != dark:
                    if old is not None:
                        old.setDocument(None)
                        old.deleteLater()
                    self._highlighters[rel] = MarkdownHighlighter(buffer.document, dark=dark)
            if self._current is not None and self._hit_lines is not None:
                self.show_lines(*self._hit_lines, matched=self._matched)

    def highlighter_for(self, rel: str) -> MarkdownHighlighter | None:
        return self._highlighters.get(rel)

    # queries -------------------------------------------------------------------------
    @property
    def current_rel(self) -> str:
        return self._current.rel if self._current else ""

    @property
    def current_buffer(self) -> Buffer | None:
        return self._current

    def buffer(self, rel: str) -> Buffer | None:
        return self._buffers.get(rel)

    def dirty_buffers(self) -> list[Buffer]:
        return [b for b in self._buffers.values() if b.modified]

    def open_dialog(self, rel: str) -> ConflictDialog | None:
        return self._dialogs.get(rel)

    # opening -------------------------------------------------------------------------
    def open_note(
        self, rel: str, *, lines: tuple[int, int] | None = None, matched: Sequence[int] = ()
    ) -> bool:
        """Show ``rel`` (reusing its buffer, unsaved edits and all); False if unreadable.

        ``lines``: a hit's 1-based line range, marked in the gutter; ``matched``: the
        1-based lines in it that hold the query's words, highlighted and scrolled to.
        """
        buffer = self._buffers.get(rel)
        if buffer is None:
            path = self._root / rel
            try:
                text = workspace_mod.read_note(path) if path.exists() else ""
            except errors.NoteReadError as exc:
                ui_errors.show_error(self, exc)
                return False
            document = QTextDocument(self)
            document.setDocumentLayout(QPlainTextDocumentLayout(document))
            document.setDefaultFont(self.text_edit.font())
            document.setPlainText(text)
            document.setModified(False)
            self._highlighters[rel] = MarkdownHighlighter(document, dark=theme.is_dark(self.palette()))
            buffer = Buffer(path, rel, document, workspace_mod.content_hash(text) if path.exists() else None)
            document.modificationChanged.connect(self._on_document_modification_changed)
            document.contentsChanged.connect(self._on_document_contents_changed)
            self._buffers[rel] = buffer
        if buffer is not self._current:
            self._current = buffer
            self.text_edit.setDocument(buffer.document)
            self.text_edit.setReadOnly(False)
            self._update_title()
            self._render_preview()
            self.current_changed.emit(rel)
        if lines is not None:
            self.show_lines(*lines, matched=matched)
        else:
            self.clear_hit_marks()
        return True

    @property
    def hit_lines(self) -> tuple[int, int] | None:
        """The opened hit's line range still marked (None once cleared)."""
        return self._hit_lines

    def matched_line_numbers(self) -> list[int]:
        """1-based lines currently highlighted as matched (tests, automation)."""
        return [sel.cursor.blockNumber() + 1 for sel in self.text_edit.extraSelections()]

    def show_lines(self, start: int, end: int, *, matched: Sequence[int] = ()) -> None:
        """Mark a hit's lines ``start..end`` in the gutter, highlight its ``matched``
        lines (all of it when none matched: a hit found by meaning) and scroll there."""
        document = self.text_edit.document()
        first = document.findBlockByNumber(max(0, start - 1))
        if not first.isValid():
            return
        end = min(end, document.blockCount())
        targets = sorted({n for n in matched if start <= n <= end}) or list(range(start, end + 1))
        strong = bool(matched) and len(targets) < end - start + 1
        color = (
            theme.matched_line_background(self.palette())
            if strong
            else theme.hit_lines_background(self.palette())
        )
        selections = []
        for number in targets:
            block = document.findBlockByNumber(number - 1)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(color)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = QTextCursor(block)
            selections.append(selection)
        self.text_edit.setExtraSelections(selections)
        self.text_edit.mark_lines((start, end))
        self._hit_lines = (start, end)
        self._matched = tuple(matched)
        self.tabs.setCurrentWidget(self._edit_page)
        # Show the chunk's end first, then its first matched line centred.
        last = document.findBlockByNumber(end - 1)
        if last.isValid():
            self.text_edit.setTextCursor(QTextCursor(last))
            self.text_edit.ensureCursorVisible()
        target = document.findBlockByNumber(targets[0] - 1)
        self.text_edit.setTextCursor(QTextCursor(target if target.isValid() else first))
        self.text_edit.centerCursor()

    def clear_hit_marks(self) -> None:
        """Forget the opened hit's highlight (a new query was typed)."""
        self.text_edit.setExtraSelections([])
        self.text_edit.mark_lines(None)
        self._hit_lines = None

    def open_find(self) -> None:
        self.tabs.setCurrentWidget(self._edit_page)
        self.find_bar.open_bar()

    def close_note(self, rel: str) -> None:
        """Forget ``rel``'s buffer (after a delete or rename, or when the user drops edits)."""
        buffer = self._buffers.pop(rel, None)
        if buffer is None:
            return
        self._highlighters.pop(rel, None)
        if buffer is self._current:
            self._current = None
            placeholder = QTextDocument(self)
            placeholder.setDocumentLayout(QPlainTextDocumentLayout(placeholder))
            self.text_edit.setDocument(placeholder)
            self.text_edit.setReadOnly(True)
            self.preview.clear()
            self._update_title()
            self.current_changed.emit("")
        buffer.document.deleteLater()

    def reset(self, workspace: Path) -> None:
        """Drop every buffer (after unsaved ones were settled) and edit another workspace."""
        for rel in list(self._buffers):
            self.close_note(rel)
        self._root = Path(workspace)

    def rename_buffer(self, old: str, new: str) -> None:
        buffer = self._buffers.pop(old, None)
        if buffer is None:
            return
        buffer.rel = new
        buffer.path = self._root / new
        self._buffers[new] = buffer
        if old in self._highlighters:
            self._highlighters[new] = self._highlighters.pop(old)
        if buffer is self._current:
            self._update_title()
            self.current_changed.emit(new)

    # saving --------------------------------------------------------------------------
    @Slot()
    def save(self) -> bool:
        """Save the current buffer; True when written (or nothing to do)."""
        return self._current is None or self.save_buffer(self._current)

    def save_buffer(self, buffer: Buffer) -> bool:
        disk = self._disk_text(buffer)
        if disk is not _UNREADABLE and self._changed_behind(buffer, disk):
            self._ask_conflict(buffer, disk)  # never overwrite what we did not see
            return False
        text = buffer.text()
        try:
            workspace_mod.write_note_atomic(buffer.path, text)
        except OSError as exc:
            ui_errors.show_error(self, errors.MemdeskError(f"Cannot save {buffer.rel}: {exc}"))
            return False
        buffer.base_hash = workspace_mod.content_hash(text)
        buffer.deleted_on_disk = False
        buffer.document.setModified(False)
        self._update_title()
        self.saved.emit(buffer.rel)
        return True

    def save_all(self) -> bool:
        # Save every buffer even after one fails, then report whether all were saved.
        saved = [self.save_buffer(b) for b in self.dirty_buffers()]
        return all(saved)

    def discard_all(self) -> None:
        for buffer in self.dirty_buffers():
            buffer.document.setModified(False)

    # disk changes --------------------------------------------------------------------
    def on_files_changed(self, rels: list[str]) -> None:
        """The watcher saw these notes change: reload clean buffers, ask about dirty ones."""
        for rel in rels:
            buffer = self._buffers.get(rel)
            if buffer is None or rel in self._dialogs:
                continue
            disk = self._disk_text(buffer)
            if disk is _UNREADABLE or not self._changed_behind(buffer, disk):
                continue  # our own save, or a touch that changed nothing
            if not buffer.modified:
                if disk is None:
                    self.close_note(rel)
                else:
                    self._load_disk_text(buffer, disk)
            else:
                self._ask_conflict(buffer, disk)

    def _disk_text(self, buffer: Buffer) -> Any:
        """The note's text on disk, None when deleted, ``_UNREADABLE`` when unreadable."""
        if not buffer.path.exists():
            return None
        try:
            return workspace_mod.read_note(buffer.path)
        except errors.NoteReadError:
            return _UNREADABLE

    @staticmethod
    def _changed_behind(buffer: Buffer, disk: str | None) -> bool:
        if disk is None:
            return buffer.base_hash is not None and not buffer.deleted_on_disk
        return workspace_mod.content_hash(disk) != buffer.base_hash

    def _load_disk_text(self, buffer: Buffer, disk: str) -> None:
        cursor_pos = self.text_edit.textCursor().position() if buffer is self._current else 0
        buffer.document.setPlainText(disk)
        buffer.document.setModified(False)
        buffer.base_hash = workspace_mod.content_hash(disk)
        buffer.deleted_on_disk = False
        if buffer is self._current:
            cursor = self.text_edit.textCursor()
            cursor.setPosition(min(cursor_pos, max(0, buffer.document.characterCount() - 1)))
            self.text_edit.setTextCursor(cursor)
        self._update_title()

    def _ask_conflict(self, buffer: Buffer, disk: str | None) -> None:
        if buffer.rel in self._dialogs:
            self._dialogs[buffer.rel].raise_()
            return
        if buffer is not self._current:
            self.open_note(buffer.rel)
        dialog = ConflictDialog(self, rel=buffer.rel, mine=buffer.text(), theirs=disk)
        self._dialogs[buffer.rel] = dialog

        def on_chosen(choice: str, buffer: Buffer = buffer, disk: str | None = disk) -> None:
            self._dialogs.pop(buffer.rel, None)
            if choice == "reload":
                if disk is None:
                    self.close_note(buffer.rel)
                else:
                    self._load_disk_text(buffer, disk)
            else:
                # Keep mine: adopt the disk version as the base so the next save is a
                # deliberate overwrite rather than another conflict.
                if disk is None:
                    buffer.base_hash = None
                    buffer.deleted_on_disk = True
                else:
                    buffer.base_hash = workspace_mod.content_hash(disk)
                buffer.document.setModified(True)
                self._update_title()
            dialog.deleteLater()
            self.conflict_resolved.emit(buffer.rel, choice)

        dialog.chosen.connect(on_chosen)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.open()
        self.conflict_detected.emit(buffer.rel)

    # internals -----------------------------------------------------------------------
    def _update_title(self) -> None:
        buffer = self._current
        if buffer is None:
            self.title.setText(self.tr("No note open"))
            self.save_button.setEnabled(False)
            return
        others = sum(1 for b in self._buffers.values() if b.modified and b is not buffer)
        suffix = "   " + self.tr("({0} other unsaved)").format(others) if others else ""
        self.title.setText(f"{buffer.rel}{' ●' if buffer.modified else ''}{suffix}")
        self.save_button.setEnabled(buffer.modified)

    @Slot(bool)
    def _on_document_modification_changed(self, modified: bool) -> None:
        self._update_title()
        self.modified_changed.emit(modified)

    @Slot()
    def _on_document_contents_changed(self) -> None:
        if self.tabs.currentWidget() is self.preview:
            self._preview_timer.start()

    @Slot(int)
    def _on_tabs_current_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is self.preview:
            self._render_preview()

    @Slot()
    def _render_preview(self) -> None:
        # Rendering only when the preview is visible keeps typing cheap.
        if self._current is not None and self.tabs.currentWidget() is self.preview:
            self.preview.show_markdown(self._md, self._current.text())


_UNREADABLE = object()
