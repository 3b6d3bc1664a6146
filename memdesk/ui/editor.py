"""The note editor: Markdown highlighting, a safe rendered preview, buffers that survive
switching files, atomic saves and a conflict choice when a file changes on disk.

Nothing is ever silently overwritten or lost: each buffer remembers the exact bytes
it was loaded from (its *base*). A disk change that does not overlap the user's
unsaved edits is merged in, when the watcher reports it or at the save; one that
overlaps (or cannot be read) asks. A save rewrites only the lines the user edited
(line endings, BOM and special spaces of the others stay).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    Qt,
    QTimer,
    QUrl,  # noqa: F401  (tests and benchmarks reach it as editor.QUrl)
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QFontDatabase,
    QKeySequence,
    QResizeEvent,
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextDocumentLayout,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QTextEdit,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from memdesk.core import errors
from memdesk.core.agent import annotate
from memdesk.core.index import notetext
from memdesk.core.index import workspace as workspace_mod
from memdesk.qt import jobs, messages, note_ops
from memdesk.ui import code_editor, conflicts, markdown_view, theme
from memdesk.ui import errors as ui_errors
from memdesk.ui.conflicts import ConflictDialog
from memdesk.ui.markdown_view import MarkdownHighlighter, SafePreview

log = logging.getLogger(__name__)


@dataclasses.dataclass(eq=False)
class Buffer:
    """One open note: its document, and the exact bytes it was loaded from or saved as.

    ``note`` remembers each line's separator and the BOM of those bytes, so saving
    writes back every line the user did not touch exactly as it was (Qt's document
    turns CR, CRLF, U+2028/U+2029 into its own block separator and drops a BOM).
    """

    path: Path
    rel: str
    document: QTextDocument
    base: bytes | None  # None when the note did not exist (or its disk bytes are unknown)
    base_digest: str | None  # sha256 of the version on disk the edits are based on
    note: notetext.NoteText
    deleted_on_disk: bool = False
    # Conflicts memdesk's merge put between markers since the last load or save: only
    # then are marker lines looked for at the save (a note about git keeps its own).
    merge_markers: int = 0

    @property
    def modified(self) -> bool:
        return self.document.isModified()

    def text(self) -> str:
        """The edited text, lines joined by ``\\n``. ``toRawText`` keeps NBSP (which
        ``toPlainText`` turns into a space); a line separator typed with Shift+Enter
        counts as a new line."""
        return self.document.toRawText().replace("\u2029", "\n").replace("\u2028", "\n")

    def data(self) -> bytes:
        """What saving writes: the edited text with the untouched lines' own separators."""
        return self.note.rebuild(self.text()).encode("utf-8")

    def adopt(self, data: bytes | None, digest: str | None) -> None:
        """Make ``data`` (the bytes now on disk) the base of further edits."""
        self.base, self.base_digest = data, digest
        self.note = notetext.NoteText.parse(data.decode("utf-8") if data is not None else "")
        self.deleted_on_disk = False


class NoteEditor(QWidget):
    """Edit and preview tabs over the current buffer; keeps every open buffer.

    Signals:
        saved(str): a note was written to disk (workspace-relative path).
        current_changed(str): the note shown changed ("" = none).
        modified_changed(bool): the current buffer became dirty or clean.
        conflict_detected(str): a conflict dialog was opened for this note.
        conflict_resolved(str, str): the user chose ("merge" | "reload" | "keep" |
            "cancel") for this note.
        merged(str, int): changes made on disk were merged into this note's buffer
            (on save, or by the user's Merge); the int counts overlapping changes left
            between conflict markers.
        readonly_asked(str): saving met a read-only note and asks before overwriting it.
        save_refused(str): a save was refused (the one-line reason): the note still
            holds conflict markers memdesk's merge put there.
        conflicts_changed(int): the number of conflict hunks (``<<<<<<< yours`` …
            ``>>>>>>> on disk``) in the shown note changed; 0 once all are resolved.
    """

    saved = Signal(str)
    current_changed = Signal(str)
    modified_changed = Signal(bool)
    conflict_detected = Signal(str)
    conflict_resolved = Signal(str, str)
    merged = Signal(str, int)
    readonly_asked = Signal(str)
    conflicts_changed = Signal(int)
    save_refused = Signal(str)

    def __init__(
        self, workspace: Path, parent: QWidget | None = None, *, ops: note_ops.NoteOps | None = None
    ) -> None:
        super().__init__(parent)
        # The window's queue of note writes when given (its renames wait for our saves).
        self._ops = ops if ops is not None else note_ops.NoteOps(self)
        self._saving: set[str] = set()  # notes being written now
        self._changed_while_saving: set[str] = set()  # the watcher saw them meanwhile
        self._root = Path(workspace)
        self._buffers: dict[str, Buffer] = {}
        self._current: Buffer | None = None
        self._dialogs: dict[str, ConflictDialog] = {}
        self._highlighters: dict[str, MarkdownHighlighter] = {}
        self._md = markdown_view.make_renderer()
        self._hit_lines: tuple[int, int] | None = None  # the opened hit's lines, until cleared
        self._matched: tuple[int, ...] = ()
        self.readonly_box: QMessageBox | None = None
        self._hit_selections: list[QTextEdit.ExtraSelection] = []

        self.title = QLabel(self.tr("No note open"))
        self.title.setObjectName("editorTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        # The note's name never sets the pane's least width: beside the explanation a
        # longer name (or " ●") would move the splitter, and with it every line's wrap
        # and the editor's scroll. A name longer than the pane is cut; the tooltip has it.
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("saveButton")
        self.save_button.setToolTip(self.tr("Save atomically (Ctrl+S)"))
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.start_save)

        self.text_edit = code_editor.CodeEditor()
        self.text_edit.setObjectName("editor")
        self.text_edit.setReadOnly(True)
        self.text_edit.setPlaceholderText(self.tr("Open a note from the tree or a search hit."))
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10.0))
        self.text_edit.setFont(font)
        self.text_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text_edit.viewport().installEventFilter(self)
        self.find_bar = code_editor.FindBar(self.text_edit)
        self.preview = SafePreview()
        # The conflict hunks a Merge left: found, highlighted, counted on the bar, resolved.
        self.hunks = conflicts.ConflictHunks(
            self,
            self.text_edit,
            has_note=lambda: self._current is not None,
            show_edit=lambda: self.tabs.setCurrentWidget(self._edit_page),
        )
        self.hunks.changed.connect(self.conflicts_changed)
        self.hunks.selections_changed.connect(self._apply_selections)
        self.conflict_bar = self.hunks.bar
        self.previous_conflict_action = self.hunks.previous_conflict_action
        self.next_conflict_action = self.hunks.next_conflict_action
        self.take_mine_action = self.hunks.take_mine_action
        self.take_theirs_action = self.hunks.take_theirs_action
        self.take_both_action = self.hunks.take_both_action

        edit_page = QWidget()
        edit_layout = QVBoxLayout(edit_page)
        edit_layout.setContentsMargins(0, 0, 0, 0)
        edit_layout.setSpacing(0)
        edit_layout.addWidget(self.conflict_bar)
        # Why the last save was refused (unresolved merge markers); gone at the next save.
        self.refusal_label = QLabel("")
        self.refusal_label.setObjectName("saveRefusedLabel")
        self.refusal_label.setTextFormat(Qt.TextFormat.PlainText)
        self.refusal_label.setWordWrap(True)
        self.refusal_label.setContentsMargins(8, 3, 8, 3)
        self.refusal_label.setStyleSheet(
            "QLabel { background: palette(highlight); color: palette(highlighted-text); }"
        )
        self.refusal_label.setVisible(False)
        edit_layout.addWidget(self.refusal_label)
        self._edit_layout = edit_layout
        # F8: the keyboard goes to the bar asking about a change on disk (it never
        # takes the focus by itself).
        self.disk_bar_action = QAction(self.tr("Go to the changed-on-disk bar"), self)
        self.disk_bar_action.setObjectName("diskBarAction")
        self.disk_bar_action.setShortcut(QKeySequence("F8"))
        self.disk_bar_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.disk_bar_action.triggered.connect(self._on_disk_bar_action_triggered)
        self.addAction(self.disk_bar_action)
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

    @property
    def conflict_actions(self) -> list[QAction]:
        return self.hunks.actions

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
                    self._highlighters[rel] = MarkdownHighlighter(buffer.document, dark=dark, rel=rel)
            if self._current is not None and self._hit_lines is not None:
                self.show_lines(*self._hit_lines, matched=self._matched)
            self.conflict_bar.refresh_palette()
            self.hunks.refresh()

    def highlighter_for(self, rel: str) -> MarkdownHighlighter | None:
        return self._highlighters.get(rel)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        if event.type() == QEvent.Type.Resize and watched is self.text_edit.viewport():
            # A bar opening above the editor (changed on disk, a save's refusal, the
            # conflicts) takes rows from it: the line the cursor was on, in sight
            # before, stays in sight (it went under the bar, where the user typed).
            assert isinstance(event, QResizeEvent)
            rect = self.text_edit.cursorRect()
            was_seen = rect.top() >= 0 and rect.bottom() <= event.oldSize().height()
            if was_seen and rect.bottom() > event.size().height():
                # Once the editor has laid out its new size (the scroll range with it).
                QTimer.singleShot(0, self.text_edit, self.text_edit.ensureCursorVisible)
        if event.type() == QEvent.Type.ToolTip and watched is self.text_edit.viewport():
            tip = self.annotation_tip(event.pos())  # type: ignore[attr-defined]
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.text_edit.viewport())  # type: ignore[attr-defined]
                return True
        return super().eventFilter(watched, event)

    def annotation_tip(self, pos: QPoint) -> str:
        """Why the agent ignores the annotation under ``pos`` (viewport coordinates), or ""."""
        if self._current is None:
            return ""
        cursor = self.text_edit.cursorForPosition(pos)
        text = cursor.block().text()
        column = cursor.positionInBlock()
        for start, end, kind, value in annotate.annotation_spans(text):
            if start <= column <= end:
                reason = annotate.ignored_annotation(self._current.rel, text, kind, value)
                return messages.text(reason) if reason is not None else ""
        return ""

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
            disk = workspace_mod.disk_state(path)  # never blocks, even on a FIFO
            try:
                if disk.exists and disk.data is None:
                    raise errors.NoteReadError(f"{rel}: {disk.problem}")
                if disk.data is not None:
                    workspace_mod.decode_note(disk.data, name=rel)  # binary, not UTF-8...
            except errors.NoteReadError as exc:
                ui_errors.show_error(self, exc)
                return False
            document = QTextDocument(self)
            document.setDocumentLayout(QPlainTextDocumentLayout(document))
            document.setDefaultFont(self.text_edit.font())
            buffer = Buffer(path, rel, document, None, None, notetext.NoteText.parse(""))
            buffer.adopt(disk.data, disk.digest)
            document.setPlainText(buffer.note.editable)
            document.setModified(False)
            self._highlighters[rel] = MarkdownHighlighter(
                document, dark=theme.is_dark(self.palette()), rel=rel
            )
            document.modificationChanged.connect(self._on_document_modification_changed)
            document.contentsChanged.connect(self._on_document_contents_changed)
            self._buffers[rel] = buffer
        if buffer is not self._current:
            self._current = buffer
            self.text_edit.setDocument(buffer.document)
            self.text_edit.setReadOnly(False)
            self.refusal_label.setVisible(False)
            for shown, bar in self._dialogs.items():
                bar.setVisible(shown == rel)
            self._update_title()
            self._render_preview()
            self.current_changed.emit(rel)
        if lines is not None:
            self.show_lines(*lines, matched=matched)
        else:
            self.clear_hit_marks()
        self.hunks.refresh()
        return True

    @property
    def hit_lines(self) -> tuple[int, int] | None:
        """The opened hit's line range still marked (None once cleared)."""
        return self._hit_lines

    def matched_line_numbers(self) -> list[int]:
        """1-based lines currently highlighted as matched (tests, automation)."""
        return [sel.cursor.blockNumber() + 1 for sel in self._hit_selections]

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
        self._hit_selections = selections
        self._apply_selections()
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
        self._hit_selections = []
        self._apply_selections()
        self.text_edit.mark_lines(None)
        self._hit_lines = None

    def _apply_selections(self) -> None:
        # A hit's lines and the conflict hunks can show at once (a hit inside a hunk).
        self.text_edit.setExtraSelections(self._hit_selections + self.hunks.selections)

    def open_find(self) -> None:
        self.tabs.setCurrentWidget(self._edit_page)
        self.find_bar.open_bar()

    def close_note(self, rel: str) -> None:
        """Forget ``rel``'s buffer (after a delete or rename, or when the user drops edits)."""
        buffer = self._buffers.pop(rel, None)
        if buffer is None:
            return
        self._highlighters.pop(rel, None)
        dialog = self._dialogs.pop(rel, None)
        if dialog is not None:  # nothing left to ask about
            dialog.hide()
            dialog.deleteLater()
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
            self._highlighters[new].set_rel(new)
        if buffer is self._current:
            self._update_title()
            self.current_changed.emit(new)

    # saving --------------------------------------------------------------------------
    # Each save is a ``note_ops`` operation: ``workspace.save_note`` (write, fsync, swap,
    # fsync the folder) runs off the GUI thread, so a slow disk never freezes the window;
    # the outcome is handled here when it comes back. ``save``/``save_buffer``/``save_all``
    # wait for it (the event loop runs meanwhile); ``start_save`` (Ctrl+S, the Save
    # button) does not.
    @Slot()
    def save(self) -> bool:
        """Save the current buffer; True when written (or nothing to do)."""
        return self._current is None or self.save_buffer(self._current)

    @Slot()
    def start_save(self) -> None:
        """Save the current buffer without waiting for the write (Ctrl+S)."""
        if self._current is not None:
            self.submit_save(self._current)

    def save_buffer(
        self, buffer: Buffer, *, overwrite_readonly: bool = False, allow_conflicts: bool = False
    ) -> bool:
        """Write ``buffer`` unless that would overwrite a disk version it has not seen,
        and wait for the write; True when written.

        Changes made on disk since the buffer was loaded are merged in when they do
        not overlap the user's (an agent appending a line); otherwise the conflict
        dialog asks. The check holds up to the atomic rename (``workspace.save_note``).
        Conflict markers a Merge left unresolved are never written without asking
        (``allow_conflicts``: the user already said yes).
        """
        ticket = self.submit_save(
            buffer, overwrite_readonly=overwrite_readonly, allow_conflicts=allow_conflicts
        )
        return ticket is not None and self._ops.wait(ticket) is True

    def submit_save(
        self, buffer: Buffer, *, overwrite_readonly: bool = False, allow_conflicts: bool = False
    ) -> note_ops.Ticket | None:
        """Queue the save of ``buffer`` (see ``save_buffer``); None when it was not
        queued (a conflict dialog is open for it, or the user kept unresolved markers)."""
        if buffer.rel in self._dialogs:
            self.save_refused.emit(
                self.tr(
                    "{0} not saved: it changed on disk; choose on the bar above the editor first."
                ).format(buffer.rel)
            )
            return None
        if self._refuse_unresolved(buffer):
            return None
        self.refusal_label.setVisible(False)
        sent: list[tuple[str, bytes]] = []  # the text the write started from, and its bytes

        def prepare() -> Callable[[], workspace_mod.Saved] | None:
            # At its turn in the queue: what an earlier save left is the base now.
            if self._buffers.get(buffer.rel) is not buffer or buffer.rel in self._dialogs:
                return None  # closed meanwhile, or a conflict asks about it already
            if self._refuse_unresolved(buffer):
                return None  # typed or undone back in while the queue waited
            sent.append((buffer.text(), buffer.data()))
            self._saving.add(buffer.rel)
            return functools.partial(
                workspace_mod.save_note,
                buffer.path,
                sent[0][1],
                expected=buffer.base_digest,
                base=buffer.base,
                overwrite_readonly=overwrite_readonly,
                root=self._root,  # never through a folder that became a symlink out
            )

        def done(outcome: jobs.JobOutcome[object]) -> bool:
            return self._on_saved(buffer, sent[0] if sent else None, outcome)

        return self._ops.submit(self.tr("Saving {0}…").format(buffer.rel), prepare, done)

    def _on_saved(
        self, buffer: Buffer, sent: tuple[str, bytes] | None, outcome: jobs.JobOutcome[object]
    ) -> bool:
        """A save's outcome, on the GUI thread: adopt what is on disk now, or ask."""
        self._saving.discard(buffer.rel)
        changed_meanwhile = buffer.rel in self._changed_while_saving
        self._changed_while_saving.discard(buffer.rel)
        if sent is None:
            if buffer.rel in self._dialogs:
                self._dialogs[buffer.rel].raise_()
            return False
        exc = outcome.error
        if exc is not None:
            if isinstance(exc, errors.NoteChanged):
                if self._buffers.get(buffer.rel) is buffer:
                    self._ask_conflict(buffer, exc.disk, saving=True)  # never overwrite what we did not see
            elif isinstance(exc, errors.NoteReadOnly):
                self._ask_readonly(buffer, exc)
            elif isinstance(exc, OSError):
                ui_errors.show_error(self, errors.MemdeskError(f"Cannot save {buffer.rel}: {exc}"))
            else:  # PathNotAllowed (a folder became a symlink out), or a bug
                ui_errors.show_error(self, exc)
            return False
        saved = outcome.value
        assert isinstance(saved, workspace_mod.Saved)
        if self._buffers.get(buffer.rel) is not buffer:
            self.saved.emit(buffer.rel)  # written; the buffer was closed meanwhile
            return True
        text, data = sent
        untouched = buffer.text() == text
        if untouched:
            buffer.adopt(saved.data, workspace_mod.sha256(saved.data))
            buffer.merge_markers = 0  # written without any: nothing of the merge is left
            if saved.merged:
                self._patch_text(buffer, buffer.note.editable)
            buffer.document.setModified(False)
        else:
            # Typed into while it was written: those edits are unsaved, and their base
            # is what was sent. If the save merged a disk change in, the disk differs
            # from that base, and it is merged into the buffer like any other change.
            buffer.adopt(data, workspace_mod.sha256(data))
            changed_meanwhile = changed_meanwhile or saved.merged
        self._update_title()
        self.saved.emit(buffer.rel)
        if saved.merged and untouched:
            self.merged.emit(buffer.rel, 0)
        if changed_meanwhile:
            self.on_files_changed([buffer.rel])  # the watcher's word, held while we wrote
        return True

    def save_all(self) -> bool:
        """Save every unsaved buffer and wait; True when all were written."""
        tickets = self.start_save_all()
        # Each is waited for even after one fails; they are written one after another.
        results = [t is not None and self._ops.wait(t) is True for t in tickets]
        return all(results)

    def start_save_all(self) -> list[note_ops.Ticket | None]:
        """Queue the save of every unsaved buffer (None where one was not queued)."""
        return [self.submit_save(b) for b in self.dirty_buffers()]

    @property
    def saving(self) -> bool:
        """True while a save (or another note write) is queued or running."""
        return self._ops.pending > 0

    def discard_all(self) -> None:
        for buffer in self.dirty_buffers():
            buffer.document.setModified(False)

    def _ask_readonly(self, buffer: Buffer, exc: errors.NoteReadOnly) -> None:
        box = QMessageBox(self)
        box.setObjectName("readOnlyDialog")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("Read-only note"))
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(
            self.tr("{0}.\nSave over it anyway? It stays read-only afterwards.").format(messages.text(exc))
        )
        save = box.addButton(self.tr("Save anyway"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def on_finished(_result: int, buffer: Buffer = buffer) -> None:
            self.readonly_box = None
            if box.clickedButton() is save:
                # Unresolved conflicts were asked about before the write met the mode.
                self.submit_save(buffer, overwrite_readonly=True, allow_conflicts=True)
            box.deleteLater()

        box.finished.connect(on_finished)
        self.readonly_box = box
        box.open()
        self.readonly_asked.emit(buffer.rel)

    def unresolved_lines(self, buffer: Buffer) -> list[int]:
        """0-based lines of ``buffer`` that still hold a conflict marker memdesk's merge
        put there (typing around a marker does not resolve it); [] when no merge of
        this buffer left any since its last load or save."""
        if not buffer.merge_markers:
            return []
        return notetext.markers_left(buffer.text().split("\n"), buffer.note.lines)

    def _refuse_unresolved(self, buffer: Buffer) -> bool:
        """True (and the one-line reason shown above the editor and sent out) when
        saving ``buffer`` would write conflict markers of memdesk's merge that the
        user has not resolved: those are never written. The buffer is kept as is."""
        lines = self.unresolved_lines(buffer)
        if not lines:
            return False
        all_lines = buffer.text().split("\n")
        text = all_lines[lines[0]]
        marker = notetext.MINE_MARKER if notetext.MINE_MARKER in text else notetext.THEIRS_MARKER
        if any(hunk.contains(lines[0]) for hunk in notetext.conflict_hunks(all_lines)):
            message = self.tr(
                "{0} not saved: line {1} still holds the merge's conflict marker {2}; "
                "resolve it (Take mine, theirs or both, or delete the marker lines) and save again."
            ).format(buffer.rel, lines[0] + 1, marker)
        else:
            # Its other markers were edited away: the bar no longer shows this conflict,
            # so the line must not send the user to buttons that cannot take it.
            message = self.tr(
                "{0} not saved: line {1} still holds the merge's conflict marker {2}, and the rest "
                "of its conflict's markers were edited away; delete that marker line (or undo) and save again."
            ).format(buffer.rel, lines[0] + 1, marker)
        if buffer is self._current:
            self.refusal_label.setText(message)
            self.refusal_label.setVisible(True)
            self.hunks.refresh()
        self.save_refused.emit(message)
        return True

    # conflict hunks ------------------------------------------------------------------
    @property
    def conflict_hunks(self) -> list[notetext.ConflictHunk]:
        """The shown note's conflict hunks (0-based block numbers)."""
        return list(self.hunks.hunks)

    def go_to_conflict(self, step: int) -> bool:
        """Put the cursor on the next (``step`` > 0) or previous conflict, wrapping."""
        return self.hunks.go_to(step)

    def resolve_conflict(self, take: str, hunk: notetext.ConflictHunk | None = None) -> bool:
        """Replace a conflict hunk by ``"mine"``, ``"theirs"`` or ``"both"`` sides'
        lines, as one undo step (see ``conflicts.ConflictHunks.resolve``)."""
        return self.hunks.resolve(take, hunk)

    # disk changes --------------------------------------------------------------------
    def on_files_changed(self, rels: list[str]) -> None:
        """The watcher saw these notes change: reload clean buffers, merge into dirty ones
        what does not overlap their edits, ask about the rest.

        Only a non-blocking look at each file happens here, on the GUI thread: a FIFO
        or device swapped in for a note is reported as unreadable, never read.
        """
        for rel in rels:
            buffer = self._buffers.get(rel)
            if buffer is None:
                continue
            if rel in self._dialogs:
                # The bar still waits for the user: say the file changed again (Merge
                # reads the newest version when it is clicked); never a second bar.
                if rel not in self._saving and self._changed_behind(
                    buffer, workspace_mod.disk_state(buffer.path)
                ):
                    self._dialogs[rel].changed_again()
                continue
            if rel in self._saving:
                # Our own write may be what changed it; looked at once the save is back.
                self._changed_while_saving.add(rel)
                continue
            disk = workspace_mod.disk_state(buffer.path)
            if not self._changed_behind(buffer, disk):
                continue  # our own save, or a touch that changed nothing
            if not buffer.modified:
                if not disk.exists:
                    self.close_note(rel)
                elif workspace_mod.note_text(disk.data) is not None:
                    self._load_disk(buffer, disk)
                # else: unreadable now; the buffer keeps its base, so a save would ask
            elif not self._merge_quietly(buffer, disk):
                self._ask_conflict(buffer, disk)

    def _merge_quietly(self, buffer: Buffer, disk: workspace_mod.DiskState) -> bool:
        """Merge a disk change that does not overlap the unsaved edits into the buffer,
        without asking; False (nothing done) when it overlaps or cannot be read.

        An agent appending to today's note while the user types in it is the common
        case: a dialog at each append took the keyboard away mid-word. Only the lines
        that differ are edited (one undo step), so the cursor, selection and scroll
        stay where they were; the status bar says what happened, and Ctrl+Z takes the
        agent's lines back out of the buffer (not off the disk).
        """
        if not disk.exists or disk.data is None or buffer.base is None:
            return False
        theirs = workspace_mod.note_text(disk.data)
        if theirs is None:
            return False
        mine = buffer.note.rebuild(buffer.text())
        merge = notetext.merge3(buffer.base.decode("utf-8"), mine, theirs)
        if merge.conflicts:
            return False
        buffer.adopt(disk.data, disk.digest)
        self._patch_text(buffer, notetext.NoteText.parse(merge.text).editable)
        buffer.document.setModified(True)
        self._update_title()
        self.merged.emit(buffer.rel, 0)
        return True

    def put_text(self, rel: str, text: str) -> bool:
        """Make ``rel``'s open buffer hold ``text`` (a whole note, as it would be saved)
        as one undo step, unsaved: a restore from History into a note with unsaved
        edits lands here, so Ctrl+Z gives the edits back and nothing is written yet."""
        buffer = self._buffers.get(rel)
        if buffer is None:
            return False
        self._patch_text(buffer, notetext.NoteText.parse(text).editable)
        buffer.document.setModified(True)
        self._update_title()
        return True

    def full_text(self, rel: str) -> str | None:
        """What saving ``rel``'s buffer would write, as text (None: not open)."""
        buffer = self._buffers.get(rel)
        return None if buffer is None else buffer.note.rebuild(buffer.text())

    def _patch_text(self, buffer: Buffer, text: str) -> None:
        """Turn the buffer's text into ``text`` by editing only the lines that differ,
        as one undo step; Qt moves the view's cursor along with the edits."""
        old = buffer.text()
        keep: tuple[str, int] | None = None
        if buffer is self._current and not self.text_edit.textCursor().hasSelection():
            cursor = self.text_edit.textCursor()
            keep = (cursor.block().text(), cursor.positionInBlock())
        a, b = old.splitlines(keepends=True), text.splitlines(keepends=True)
        starts = [0]
        for line in a:  # document positions count UTF-16 units (an emoji is two)
            starts.append(starts[-1] + len(line.encode("utf-16-le")) // 2)
        cursor = self._undo_cursor(buffer)
        cursor.beginEditBlock()
        for tag, i1, i2, j1, j2 in reversed(
            difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        ):
            if tag != "equal":
                cursor.setPosition(starts[i1])
                cursor.setPosition(starts[i2], QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText("".join(b[j1:j2]))
        cursor.endEditBlock()
        if buffer.text() != text:  # never expected; the whole text is then the safe way
            log.warning("line patch of %s missed; replacing the whole text", buffer.rel)
            self._replace_text(buffer, text)
        elif keep is not None and keep[0].strip():
            self._keep_cursor_on(buffer, *keep)

    def _undo_cursor(self, buffer: Buffer) -> QTextCursor:
        """A cursor to edit ``buffer`` with, standing where the view's cursor is: Qt's
        undo of an edit block puts the cursor back where the editing cursor stood when
        the block began (one made at 0 sent Ctrl+Z of a merge to the note's top)."""
        cursor = QTextCursor(buffer.document)
        if buffer is self._current:
            cursor.setPosition(self.text_edit.textCursor().position())
        return cursor

    def _keep_cursor_on(self, buffer: Buffer, line: str, column: int) -> None:
        """Put the cursor back on ``line`` at ``column`` when a patch moved it off: the
        line being typed in was replaced only for its ending (a merge put a marker
        after it), and Qt left the cursor at its start or after the inserted lines,
        so the next keys would have landed before the words or on a marker line.
        Only when the line is found once (an ordinary line, not a repeated one)."""
        cursor = self.text_edit.textCursor()
        if cursor.block().text() == line and cursor.positionInBlock() == column:
            return
        found = [b for b in self._blocks(buffer.document) if b.text() == line]
        if len(found) == 1:
            cursor.setPosition(found[0].position() + column)
            self.text_edit.setTextCursor(cursor)

    @staticmethod
    def _blocks(document: QTextDocument) -> Iterator[QTextBlock]:
        block = document.begin()
        while block.isValid():
            yield block
            block = block.next()

    @staticmethod
    def _changed_behind(buffer: Buffer, disk: workspace_mod.DiskState) -> bool:
        if not disk.exists:
            return buffer.base_digest is not None and not buffer.deleted_on_disk
        return disk.digest is None or disk.digest != buffer.base_digest

    def _load_disk(self, buffer: Buffer, disk: workspace_mod.DiskState) -> None:
        buffer.adopt(disk.data, disk.digest)
        buffer.merge_markers = 0
        # Only the lines that changed are replaced, so the cursor and the scroll stay
        # on the text the user was looking at (setPlainText put both back at the top).
        self._patch_text(buffer, buffer.note.editable)
        buffer.document.clearUndoRedoStacks()  # a reload is not an edit to take back
        buffer.document.setModified(False)
        self._update_title()

    def _replace_text(self, buffer: Buffer, text: str) -> None:
        """Put ``text`` in the buffer as one undo step, keeping the cursor near where it
        was (``_patch_text``'s fallback: it keeps the scroll too)."""
        cursor_pos = self.text_edit.textCursor().position() if buffer is self._current else 0
        cursor = self._undo_cursor(buffer)
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(text)
        cursor.endEditBlock()
        if buffer is self._current:
            cursor = self.text_edit.textCursor()
            cursor.setPosition(min(cursor_pos, max(0, buffer.document.characterCount() - 1)))
            self.text_edit.setTextCursor(cursor)

    def _ask_conflict(self, buffer: Buffer, disk: workspace_mod.DiskState, *, saving: bool = False) -> None:
        """The bar above the editor asking about a change on disk under ``buffer``'s
        unsaved edits (merge, reload, keep mine, compare); ``saving``: a save met the
        change, so Keep mine completes that save.

        It is not a window and takes no focus: the user keeps typing, and the choice
        acts on the buffer and the disk as they are when it is made (Merge merges
        the newest disk version into the text as typed by then)."""
        if buffer.rel in self._dialogs:
            return
        if buffer is not self._current and saving:
            # A save the user asked for met the change: show that note. (A watcher's
            # report about another open note never switches the note being typed in;
            # its bar waits there.)
            self.open_note(buffer.rel)
        mine = buffer.note.rebuild(buffer.text())
        theirs = workspace_mod.note_text(disk.data)
        merge = None
        if theirs is not None:
            base = buffer.base.decode("utf-8") if buffer.base is not None else ""
            merge = notetext.merge3(base, mine, theirs)
        problem = disk.problem
        if disk.data is not None and theirs is None:
            try:
                workspace_mod.decode_note(disk.data, name=buffer.rel)
            except errors.NoteReadError as exc:
                problem = messages.without_path(messages.text(exc), buffer.rel)
                for skipped in ("; skipped", "；已跳过"):  # the dialog is about this note, not skipping it
                    problem = problem.removesuffix(skipped)
        dialog = ConflictDialog(
            self,
            rel=buffer.rel,
            mine=buffer.text(),
            theirs=theirs,
            deleted=not disk.exists,
            problem=problem,
            conflicts=merge.conflicts if merge is not None else None,
            inline=True,
        )
        self._dialogs[buffer.rel] = dialog
        self._edit_layout.insertWidget(0, dialog)
        dialog.setVisible(buffer is self._current)
        self._update_holds()

        def on_chosen(choice: str, buffer: Buffer = buffer, disk: workspace_mod.DiskState = disk) -> None:
            self._dialogs.pop(buffer.rel, None)
            dialog.hide()
            if dialog.had_focus and buffer is self._current:
                self.text_edit.setFocus(Qt.FocusReason.OtherFocusReason)  # back where typing goes
            # What the user chose applies to the disk as it is now, not as it was when
            # the bar opened (an agent may have written again meanwhile).
            disk = workspace_mod.disk_state(buffer.path)
            if choice == "merge" and self._buffers.get(buffer.rel) is buffer:
                if not self._merge_chosen(buffer, disk):
                    dialog.deleteLater()
                    self._ask_conflict(buffer, workspace_mod.disk_state(buffer.path), saving=saving)
                    return
            elif choice == "reload":
                if not disk.exists:
                    self.close_note(buffer.rel)
                else:
                    self._load_disk(buffer, disk)
            elif choice == "keep":
                # Keep mine: adopt the disk version as the base so the next save is a
                # deliberate overwrite rather than another conflict.
                if not disk.exists:
                    buffer.adopt(None, None)
                    buffer.deleted_on_disk = True
                else:
                    buffer.base, buffer.base_digest = disk.data, disk.digest
                buffer.document.setModified(True)
            self._update_title()
            dialog.deleteLater()
            self.conflict_resolved.emit(buffer.rel, choice)
            if choice == "keep" and saving:
                # The user asked to save and chose their version: save it now, not at
                # a second Ctrl+S (markers, if any, were asked about before the write).
                self.submit_save(buffer, allow_conflicts=True)

        dialog.chosen.connect(on_chosen)
        self.conflict_detected.emit(buffer.rel)

    def _merge_chosen(self, buffer: Buffer, disk: workspace_mod.DiskState) -> bool:
        """The user's Merge: the disk version (read again if it changed since the bar
        opened) merged into the buffer's text as it is now (typed into meanwhile).
        False (nothing done) when that cannot be done now: the disk is unreadable or
        gone, or the merge would put markers inside markers an earlier merge left."""
        if not self._changed_behind(buffer, disk):
            return True  # the disk went back to the base: nothing to merge
        theirs = workspace_mod.note_text(disk.data) if disk.exists else None
        if theirs is None:
            return False
        base = buffer.base.decode("utf-8") if buffer.base is not None else ""
        merge = notetext.merge3(base, buffer.note.rebuild(buffer.text()), theirs)
        if merge.conflicts and self.unresolved_lines(buffer):
            return False
        # The disk version becomes the base; the buffer holds both sides' changes.
        buffer.adopt(disk.data, disk.digest)
        buffer.merge_markers += merge.conflicts
        self._patch_text(buffer, notetext.NoteText.parse(merge.text).editable)
        buffer.document.setModified(True)
        if buffer is self._current:
            # The cursor stays where the user types (a jump to the first hunk moved
            # their next words to the start of a line in it); the bar counts the
            # hunks and F7 goes to them.
            self.hunks.refresh()
        self.merged.emit(buffer.rel, merge.conflicts)
        return True

    def _update_holds(self) -> None:
        """Merge waits on each bar while its note holds unresolved merge markers; the
        refusal line goes once the markers it names are resolved."""
        for rel, dialog in self._dialogs.items():
            buffer = self._buffers.get(rel)
            dialog.hold_merge(buffer is not None and bool(self.unresolved_lines(buffer)))
        if not self.refusal_label.isHidden() and (
            self._current is None or not self.unresolved_lines(self._current)
        ):
            self.refusal_label.setVisible(False)

    @Slot()
    def _on_disk_bar_action_triggered(self) -> None:
        dialog = self._dialogs.get(self.current_rel)
        if dialog is not None:
            self.tabs.setCurrentWidget(self._edit_page)
            dialog.focus_buttons()

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
        self.title.setToolTip(self.title.text())
        self.save_button.setEnabled(buffer.modified)

    @Slot(bool)
    def _on_document_modification_changed(self, modified: bool) -> None:
        self._update_title()
        self.modified_changed.emit(modified)

    @Slot()
    def _on_document_contents_changed(self) -> None:
        self.hunks.schedule()
        if self._dialogs or not self.refusal_label.isHidden():
            self._update_holds()
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
