"""The main window in Chinese: menus, column headers and the score explanation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTimer, QTranslator
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QFileDialog,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTableView,
    QTableWidget,
    QTabWidget,
    QTextEdit,
    QToolButton,
    QTreeView,
    QWidget,
)

from memdesk.qt import models, translations
from tests.ui.conftest import search
from tests.ui.test_agent_panel import openclaw_home  # noqa: F401  (a fixture used here)

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese(qapp):  # type: ignore[no-untyped-def]
    translations.compile_all()
    assert translations.install(qapp, "zh_CN") == "zh_CN"
    yield
    for translator in qapp.findChildren(QTranslator):
        QCoreApplication.removeTranslator(translator)
        translator.deleteLater()


def test_window_is_chinese(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=None)
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus[:3] == ["文件(&F)", "编辑(&E)", "视图(&V)"]
    assert all(CJK.search(text) for text in menus)
    model = window.results_table.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    for word in ("向量分数", "文本分数", "时间衰减", "最终分数"):
        assert word in headers
    search(qtbot, window, "鉴权")
    assert model.rowCount() > 0
    window.results_table.selectRow(0)
    window.search_panel.hit_activated.emit(window.search_panel.current_hit())
    detail = window.search_panel.detail.toPlainText()
    assert "文本分数" in detail and "最终分数" in detail, detail
    # Apart from numbers, paths and the query's own words, the explanation is Chinese.
    leftover = re.findall(r"\b[A-Za-z]{4,}\b", re.sub(r"\S*\.md\S*|BM25|MMR", "", detail))
    assert leftover == [], detail


def test_status_bar_reasons_are_chinese_too(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """The core's reasons (why search is keyword-only, why a note was skipped) reach the
    status bar translated, also when they are read back from the index later."""
    import os

    (workspace / "memory" / "utf16.md").write_bytes("# note\n\nwritten by Notepad\n".encode("utf-16"))
    (workspace / "memory" / "blob.md").write_bytes(b"\x00\x01\x02 binary\n")
    os.symlink(workspace / "MEMORY.md", workspace / "memory" / "link.md")
    window = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: window.skipped_button.isVisible(), timeout=30_000)
    assert CJK.search(window.skipped_button.text())
    mode = window.mode_label.text()
    assert CJK.search(mode) and not re.search(r"\b(model|embedding|keyword)\b", mode), mode
    reasons = dict(window.show_skipped().rows())
    assert set(reasons) == {"memory/utf16.md", "memory/blob.md", "memory/link.md"}
    for path, reason in reasons.items():
        assert CJK.search(reason) and "skipped" not in reason, (path, reason)
        assert not reason.startswith(path), reason
    window.skipped_dialog.close()
    # A second window reads the two unreadable notes' reasons back from the index.
    window.close()
    again = make_window(workspace, model=None)
    qtbot.waitUntil(lambda: again.skipped_button.isVisible(), timeout=30_000)
    assert dict(again.show_skipped().rows()) == reasons


# -- every dialog and panel, driven in Chinese ------------------------------------------
# Words that stay as they are in the Chinese UI: names, formats, metrics, keys.
ALLOWED = set(
    """memdesk openclaw md bm25 mmr ndcg recall gguf fts fts5 json json5 jsonl sqlite sqlite-vec path
    ctrl shift alt enter esc space tab del delete backspace home end pgup pgdown up down left right
    minilm e5 utf-8 utf lambda sessions memory hybrid keyword unicode61 trigram markdown
    atlas main ops""".split()
)
# llama.cpp's CPU backend variants (About names the one running) are build names.
ALLOWED |= set(
    """x64 sse42 sandybridge ivybridge piledriver haswell skylakex cannonlake cascadelake icelake
    cooperlake zen4 alderlake sapphirerapids""".split()
)
# The language menu names itself in both languages, and each language in itself.
ALLOWED |= {"language", "english"}
# Lists whose lines quote the user's own text (transcripts, the agent's hits). Editors,
# diffs and views are checked for their placeholders only: their text is the user's.
DATA_WIDGETS = {"sessionList", "agentResultsList"}
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.'’-]*[A-Za-z0-9]")


def english_words(text: str) -> list[str]:
    """The English words of ``text`` that a Chinese UI should not show."""
    if "<" in text:
        text = QTextDocumentFragment.fromHtml(text).toPlainText()
    text = re.sub(r"`[^`]*`|\bopenclaw( --?[\w-]+| [a-z][\w-]*)+", " ", text)  # commands to type
    text = re.sub(r"\S*[/\\]\S*", " ", text)  # paths
    text = re.sub(r"\b\w+(\.\w+)+\b", " ", text)  # config keys: memory.search
    text = re.sub(r"\S+\.(md|json|jsonl|sqlite|gguf|ini|png|txt)\b", " ", text, flags=re.IGNORECASE)
    text = re.sub(r"\b[A-Z][A-Z0-9_]{2,}\b", " ", text)  # OPENCLAW_STATE_DIR, PATH
    text = re.sub(r"\b(nDCG|Recall)@\d+", " ", text)
    text = re.sub(r"\bF\d{1,2}\b", " ", text)  # function keys
    text = re.sub(r"\bopenclaw-\d{4}\.\d+\b|\b\d{4}\.\d+(\.\d+)?\b", " ", text)  # profiles, releases
    return [w for w in WORD.findall(text) if w.lower().strip(".") not in ALLOWED]


def _menu_texts(menu: QMenu, where: str) -> list[tuple[str, str]]:
    out = []
    for action in menu.actions():
        if action.text():
            out.append((f"{where} > {action.text()}", action.text()))
        if action.menu() is not None:
            out += _menu_texts(action.menu(), f"{where} > {action.text()}")
    return out


def _in_data_widget(widget: QWidget | None) -> bool:
    while widget is not None:
        if widget.objectName() in DATA_WIDGETS:
            return True
        widget = widget.parentWidget()
    return False


def shown_texts(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every text a person sees in ``root`` and its visible children."""
    out: list[tuple[str, str]] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        if _in_data_widget(widget):
            continue
        where = widget.objectName() or type(widget).__name__
        texts = [widget.toolTip()]
        if widget.isWindow():
            texts.append(widget.windowTitle())
        if isinstance(widget, QLabel | QAbstractButton):
            texts.append(widget.text())
        if isinstance(widget, QLineEdit | QPlainTextEdit | QTextEdit):
            texts.append(widget.placeholderText())
        if isinstance(widget, QGroupBox):
            texts.append(widget.title())
        if isinstance(widget, QTabWidget):
            texts += [widget.tabText(i) for i in range(widget.count())]
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
        if isinstance(widget, QListWidget):
            texts += [widget.item(i).text() for i in range(widget.count())]
        if isinstance(widget, QTableWidget):
            for r in range(widget.rowCount()):
                for c in range(widget.columnCount()):
                    item = widget.item(r, c)
                    # The auto-tune table's first column is the user's query.
                    if item is not None and not (widget.objectName() == "tuneTable" and c == 0):
                        texts.append(item.text())
        if isinstance(widget, QTableView | QTreeView) and widget.model() is not None:
            model, header = (
                widget.model(),
                widget.horizontalHeader() if isinstance(widget, QTableView) else widget.header(),
            )
            for c in range(header.count()):
                for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                    texts.append(str(model.headerData(c, Qt.Orientation.Horizontal, role) or ""))
        if isinstance(widget, QMainWindow):
            for action in widget.menuBar().actions():
                out.append((f"menu {action.text()}", action.text()))
                if action.menu() is not None:
                    out += _menu_texts(action.menu(), action.text())
        out += [(where, t) for t in texts if t]
    return out


def english_left(root: QWidget) -> list[str]:
    return [
        f"{where}: {text!r} -> {words}" for where, text in shown_texts(root) if (words := english_words(text))
    ]


def test_english_words_finds_english_but_not_names_or_paths() -> None:
    assert english_words("Merge") == ["Merge"]
    assert english_words("66 settings tried") == ["settings", "tried"]
    assert english_words("已尝试 66 种设置") == []
    assert english_words("MEMORY.md 在 /tmp/x/y 中：nDCG@10、BM25、OPENCLAW_STATE_DIR") == []


@pytest.fixture
def openclaw_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME with an OpenClaw 2026.9 setup (two agents, transcripts), as the agent panel's tests build it."""
    home = Path(request.getfixturevalue("openclaw_home")["HOME"])
    monkeypatch.setenv("HOME", str(home))
    for key in ("OPENCLAW_HOME", "OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    return home


@pytest.fixture
def no_openclaw_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME with no ~/.openclaw and no openclaw command on the PATH."""
    home = tmp_path / "bare-home"
    home.mkdir()
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    for key in ("OPENCLAW_HOME", "OPENCLAW_STATE_DIR", "OPENCLAW_CONFIG_PATH", "OPENCLAW_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    return home


def _show_agent_panel(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    controller = window.agent_dock.controller
    with qtbot.waitSignals([controller.setup_loaded, controller.sessions_ready], timeout=30_000):
        window.agent_dock.show_tab(0)
    qtbot.waitUntil(lambda: window.agent_dock.panel.overview is not None, timeout=30_000)


def _drive_dialogs(qtbot, window, problems: list[str]) -> None:  # type: ignore[no-untyped-def]
    """The conflict, deleted-on-disk and unsaved dialogs, About, the shortcuts, quick open
    and the skipped-files list."""
    from memdesk.ui import editor as editor_mod

    for kwargs in (
        {"mine": "a\nmine\n", "theirs": "a\ntheirs\n", "conflicts": 2},
        {"mine": "a\nmine\n", "theirs": "a\nmine\nmore\n", "conflicts": 0},
        {"mine": "a\n", "theirs": None, "deleted": True},
        {"mine": "a\n", "theirs": None},
    ):
        dialog = editor_mod.ConflictDialog(window, rel="memory/2026-05-01.md", **kwargs)
        dialog.show()
        qtbot.waitExposed(dialog)
        problems += english_left(dialog)
        # Room for the whole title beside the window manager's buttons: it was cut.
        title = dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())
        assert dialog.width() >= title + 120, (dialog.windowTitle(), dialog.width(), title)
        dialog.close()
    box = window.unsaved_box(["MEMORY.md"])
    box.show()
    qtbot.waitExposed(box)
    problems += english_left(box)
    box.close()
    for dialog in (window.show_about(), window.show_shortcuts(), window.quick_open(), window.show_skipped()):
        qtbot.waitExposed(dialog)
        problems += english_left(dialog)
        dialog.close()


def test_every_dialog_and_panel_is_chinese(
    qtbot, chinese, make_window, workspace: Path, openclaw_env: Path
) -> None:  # type: ignore[no-untyped-def]
    """The main window, the data-safety dialogs, About, auto-tune's result, the agent
    panel (agent, doctor, sessions) and Apply to OpenClaw, all shown in zh_CN: no English
    sentence is left, also where the text is put together at run time."""
    from tests.ui.test_tuning_lab import QUERIES, _wait_readout, _write_golden

    _write_golden(workspace)
    window = make_window(workspace, model=None)
    problems = english_left(window)

    lab = window.lab
    _wait_readout(qtbot, lab, scored=len(QUERIES))
    with qtbot.waitSignal(lab.readout_changed):
        window.tuning.set_settings(window.tuning.settings.replace(vector_weight=0.1, text_weight=0.9))
    with qtbot.waitSignal(lab.tune_finished, timeout=120_000):
        window.quality.tune_button.click()
    assert window.quality.result_box.isVisible()
    problems += english_left(window.quality)
    window.quality.progress.setVisible(True)  # its tooltip says how many settings were tried
    problems += english_left(window.quality.progress)
    window.quality.apply_button.click()
    problems += english_left(window.tuning)

    _drive_dialogs(qtbot, window, problems)

    _show_agent_panel(qtbot, window)
    panel = window.agent_dock.panel
    problems += english_left(window.agent_dock)
    with qtbot.waitSignal(window.agent_dock.controller.doctor_ready, timeout=60_000):
        window.agent_dock.show_doctor()
    problems += english_left(window.agent_dock)
    window.agent_dock.show_sessions()
    panel.session_scope.setCurrentIndex(2)  # all sessions
    problems += english_left(window.agent_dock)
    # 2026.9 fixes MMR's lambda: the dialog lists what it cannot take.
    dialog = window.agent_dock.apply_to_openclaw(
        window.tuning.settings.replace(mmr=True, mmr_lambda=0.5, vector_weight=0.9, text_weight=0.1)
    )
    qtbot.waitExposed(dialog)
    assert dialog.rejected_label.text().count("•") >= 2
    problems += english_left(dialog)
    dialog.reject()
    assert problems == [], "\n".join(problems)


def test_without_openclaw_every_view_says_so_in_chinese(
    qtbot, chinese, make_window, workspace: Path, no_openclaw_env: Path
) -> None:  # type: ignore[no-untyped-def]
    window = make_window(workspace, model=None)
    _show_agent_panel(qtbot, window)
    panel = window.agent_dock.panel
    assert "OpenClaw" in panel.config_label.text() and CJK.search(panel.config_label.text())
    problems = english_left(window.agent_dock)
    with qtbot.waitSignal(window.agent_dock.controller.doctor_ready, timeout=60_000):
        window.agent_dock.show_doctor()
    problems += english_left(window.agent_dock)
    window.agent_dock.show_sessions()
    problems += english_left(window.agent_dock)
    dialog = window.agent_dock.apply_to_openclaw(window.tuning.settings)
    qtbot.waitExposed(dialog)
    problems += english_left(dialog)
    dialog.reject()
    assert problems == [], "\n".join(problems)


def test_language_and_theme_change_without_restart(qtbot, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """View > Language and View > Theme act on the running window: its menus, panels
    and the dialogs opened afterwards change language, and back; the palette changes."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from tests.ui.test_tuning_lab import QUERIES, _wait_readout, _write_golden

    translations.compile_all()
    app = QApplication.instance()
    _write_golden(workspace)
    window = make_window(workspace, model=None)
    window.set_window_size(1280, 800)  # offscreen's screen is 800 px wide: the column would fold
    _wait_readout(qtbot, window.lab, scored=len(QUERIES))
    with qtbot.waitSignal(window.lab.readout_changed):
        window.tuning.set_settings(window.tuning.settings.replace(mmr=True, mmr_lambda=0.0))
    with qtbot.waitSignal(window.lab.tune_finished, timeout=120_000):
        window.quality.tune_button.click()
    assert "MMR lambda 0.00 →" in window.quality.result_label.text()
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert [a.text() for a in view.actions() if a.menu() is not None] == ["&Language", "&Theme"]
    assert window.findChild(QMenu, "themeMenu") is not None
    assert window.tuning.reset_button.text() == "Reset"
    search(qtbot, window, "Atlas")
    window.results_table.selectRow(0)
    detail, summary = window.search_panel.detail, window.search_panel.summary
    pane = window._right_pane

    def ranking_fits() -> bool:
        body = pane.widget()
        return body is not None and pane.viewport().width() >= body.minimumSizeHint().width()

    try:
        chinese_action = next(a for a in window.language_menu.actions() if a.text() == "简体中文")
        chinese_action.trigger()
        # The results' summary and the selected hit's explanation are composed again.
        assert CJK.search(summary.text()) and CJK.search(detail.toPlainText())
        qtbot.waitUntil(ranking_fits)
        menus = [action.text() for action in window.menuBar().actions()]
        assert menus[:3] == ["文件(&F)", "编辑(&E)", "视图(&V)"]
        assert window.tuning.reset_button.text() != "Reset" and CJK.search(window.tuning.reset_button.text())
        assert CJK.search(window.tree_filter.placeholderText())
        assert window.prefs.language() == "zh_CN"
        # Auto-tune's result (numbers and setting names) is said again in Chinese, once
        # the window has had the language-change event.
        qtbot.waitUntil(lambda: "MMR λ 0.00 →" in window.quality.result_label.text())
        assert english_left(window) == [], "\n".join(english_left(window))
        about = window.show_about()
        assert CJK.search(about.windowTitle())
        about.close()

        window.set_language("en")
        assert [action.text() for action in window.menuBar().actions()][:3] == ["&File", "&Edit", "&View"]
        assert not CJK.search(summary.text()), summary.text()
        assert not CJK.search(detail.toPlainText()), detail.toPlainText()
        # The Ranking column takes the width its English labels need (it kept the
        # Chinese width and cut values, the half-life box and "Apply to OpenClaw…").
        qtbot.waitUntil(ranking_fits)
        assert window.tuning.reset_button.text() == "Reset"
        assert window.tree_filter.placeholderText() == "Filter notes"
        # One Chinese text for two English ones: each widget gets its own back.
        assert window.tuning.decay_check.text() == "Temporal decay"
        qtbot.waitUntil(lambda: "labelled queries" in window.quality.count_label.text())
        assert "MMR lambda 0.00 →" in window.quality.result_label.text()

        light = app.palette().color(QPalette.ColorRole.Window)
        window.theme_actions["dark"].trigger()
        assert app.palette().color(QPalette.ColorRole.Window).lightness() < 80
        qtbot.waitUntil(lambda: window.palette().color(QPalette.ColorRole.Window).lightness() < 80)
        assert window.prefs.theme() == "dark"
        window.set_theme("system")
        assert app.palette().color(QPalette.ColorRole.Window) == light
        assert window.prefs.theme() == "system"
    finally:
        for translator in app.findChildren(QTranslator):
            QCoreApplication.removeTranslator(translator)
            translator.setParent(None)


def test_a_window_opened_in_chinese_fits_english_after_a_live_switch(
    qtbot, chinese, make_window, workspace: Path
) -> None:  # type: ignore[no-untyped-def]
    """The Ranking column was sized once, for the language the window opened in: after
    a live switch to English its longer labels were cut (slider values, the half-life
    box, "Apply to OpenClaw…")."""
    window = make_window(workspace, model=None)
    window.set_window_size(1280, 800)  # offscreen's screen is 800 px wide: the column would fold
    pane = window._right_pane
    body = pane.widget()
    qtbot.waitUntil(lambda: pane.viewport().width() >= body.sizeHint().width())
    chinese_width = body.sizeHint().width()
    try:
        window.set_language("en")
        assert window.tuning.reset_button.text() == "Reset"
        # English needs more room here (once the labels had their LanguageChange).
        qtbot.waitUntil(lambda: body.sizeHint().width() > chinese_width)
        qtbot.waitUntil(lambda: pane.viewport().width() >= body.sizeHint().width())
    finally:
        window.set_language("zh_CN")


TYPE_COLUMN = 2  # QFileSystemModel's Name, Size, Type, Date Modified


def _qt_texts(dialog: QFileDialog) -> list[str]:
    """What Qt itself writes in a file dialog: labels, buttons, tool tips, the list's
    headers and its rows' types (Folder, "md File")."""
    texts = [label.text() for label in dialog.findChildren(QLabel) if label.text()]
    texts += [button.text() for button in dialog.findChildren(QPushButton) if button.text()]
    texts += [button.toolTip() for button in dialog.findChildren(QToolButton) if button.toolTip()]
    view = dialog.findChild(QTreeView)
    model, root = view.model(), view.rootIndex()
    texts += [str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())]
    texts += [model.index(row, TYPE_COLUMN, root).data() for row in range(model.rowCount(root))]
    return texts


def _file_dialog_shown_by(qtbot, open_dialog) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Run ``open_dialog`` (which shows a modal file dialog and waits), read the dialog
    Qt shows and close it."""
    seen: dict[str, object] = {}

    def read(tries: int = 100) -> None:
        dialog = QApplication.activeModalWidget()
        view = dialog.findChild(QTreeView) if isinstance(dialog, QFileDialog) else None
        # The folder's rows come from Qt's file system thread.
        if tries and (view is None or not view.model().rowCount(view.rootIndex())):
            QTimer.singleShot(20, lambda: read(tries - 1))
            return
        if not isinstance(dialog, QFileDialog):
            return  # the assertion below fails; nothing waits for a dialog
        try:
            seen.update(title=dialog.windowTitle(), texts=_qt_texts(dialog), filters=dialog.nameFilters())
        finally:
            dialog.reject()

    QTimer.singleShot(0, read)
    open_dialog()
    assert seen, "no file dialog was shown"
    return seen


def _standard_texts(window: QMainWindow) -> list[str]:
    """Qt's standard buttons and the notes filter's right-click menu."""
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Save
        | QDialogButtonBox.StandardButton.Discard
        | QDialogButtonBox.StandardButton.Cancel
    )
    texts = [button.text() for button in buttons.buttons()]
    buttons.deleteLater()
    menu = window.tree_filter.createStandardContextMenu()
    texts += [action.text() for action in menu.actions() if action.text()]
    menu.deleteLater()
    return texts


def test_qt_own_dialogs_and_menus_follow_the_language(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Qt's own texts in the open-workspace and choose-model dialogs, standard buttons and
    the edit context menu are Chinese when memdesk starts in Chinese, English after a
    switch to English and Chinese again after switching back. (The file dialog said
    "Look in:" and "Files of type:": Qt's catalogue lacks the texts of Qt 6's dialog.)"""
    window = make_window(workspace, model=None)

    def shown() -> tuple[dict[str, object], dict[str, object], list[str]]:
        folder = _file_dialog_shown_by(qtbot, window._on_open_action)
        model = _file_dialog_shown_by(qtbot, window._on_choose_model_action)
        return folder, model, _standard_texts(window)

    try:
        folder, model, standard = shown()
        every = [*folder["texts"], *model["texts"], *standard, model["title"], *model["filters"]]  # type: ignore[misc]
        assert [text for text in every if not CJK.search(text)] == []
        assert "查找范围(&L)：" in folder["texts"] and "文件类型(&T)：" in model["texts"]  # type: ignore[operator]

        window.set_language("en")
        folder, model, standard = shown()
        every = [*folder["texts"], *model["texts"], *standard, model["title"], *model["filters"]]  # type: ignore[misc]
        assert [text for text in every if CJK.search(text)] == []
        assert "&Look in:" in folder["texts"] and "Files of &type:" in model["texts"]  # type: ignore[operator]
        assert "Save" in standard and model["title"] == "Choose a GGUF embedding model"

        window.set_language("zh_CN")
        folder, model, standard = shown()
        every = [*folder["texts"], *model["texts"], *standard, model["title"], *model["filters"]]  # type: ignore[misc]
        assert [text for text in every if not CJK.search(text)] == []
    finally:
        window.set_language("zh_CN")


def test_the_results_headers_fit_after_a_live_switch(qtbot, chinese, make_window, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """The results' columns were as wide as their Chinese headers after a switch to
    English ("Pre-MMR" was cut, seen at the display); they fit each language's."""
    window = make_window(workspace, model=None)
    window.set_window_size(1280, 800)
    table = window.results_table
    header = table.horizontalHeader()
    model = table.model()
    snippet = models.column_index("snippet")

    def cut() -> list[str]:
        metrics = header.fontMetrics()
        return [
            str(model.headerData(i, Qt.Orientation.Horizontal))
            for i in range(header.count())
            if i != snippet
            and not header.isSectionHidden(i)
            and header.sectionSize(i)
            < metrics.horizontalAdvance(str(model.headerData(i, Qt.Orientation.Horizontal)))
        ]

    assert not header.isSectionHidden(models.column_index("pre_mmr"))
    assert cut() == []
    try:
        window.set_language("en")
        qtbot.waitUntil(
            lambda: model.headerData(models.column_index("pre_mmr"), Qt.Orientation.Horizontal) == "Pre-MMR"
        )
        qtbot.waitUntil(lambda: cut() == [], timeout=3000)
    finally:
        window.set_language("zh_CN")
