"""View > Ranking panel: a narrow window folds the Ranking column to a thin handle at
the right edge, which a user who does not know it is there cannot find. The menu
entry (and the search row's "Ranking ◂" button) says whether the column is shown,
follows it as it folds and comes back by itself, brings it back in a narrow window
(the middle column narrows instead), and hides it, remembered at the next start.
Real window, real index, real Qt event loop."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QKeySequence

from memdesk.ui.panes import MIN_CENTER_WIDTH


def test_ranking_panel_action_shows_hides_and_follows_folding(  # type: ignore[no-untyped-def]
    qtbot, make_window, workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))  # never the real ~/.openclaw
    window = make_window(workspace, model=None)
    window.set_window_size(1280, 800)
    panes = window.panes
    action = window.ranking_action
    button = panes.ranking_button
    assert action.isCheckable()
    assert action.shortcut() == QKeySequence("Ctrl+Shift+R")
    # No other window-wide action takes the same key.
    others = [
        a for a in window.actions() if a is not action and QKeySequence("Ctrl+Shift+R") in a.shortcuts()
    ]
    assert others == []
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] > 0)
    assert action.isChecked() and not button.isVisible()

    # Narrowed, the window folds the column by itself: the entry is unchecked, the hint shows.
    window.resize(900, 800)
    qtbot.waitUntil(lambda: window.width() == 900)
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] == 0)
    assert not action.isChecked()
    assert button.isVisible()

    # Chosen in the narrow window, the column comes back whole; the middle column narrows.
    action.trigger()
    tree, center, ranking = window.splitter.sizes()
    assert ranking >= panes.ranking_least > 0, window.splitter.sizes()
    assert center < MIN_CENTER_WIDTH
    assert tree > 0  # the tree stays
    assert action.isChecked() and not button.isVisible()
    assert not window.prefs.ranking_hidden()

    # Narrower still, the column gets what the tree and the search row leave (it scrolls).
    window.resize(785, 800)
    qtbot.waitUntil(lambda: window.width() == 785)
    qtbot.waitUntil(lambda: not action.isChecked())  # folded again by the narrower window
    action.trigger()
    assert window.splitter.sizes()[2] > 0 and action.isChecked()

    # Chosen again, it hides, and a wider window does not bring it back.
    action.trigger()
    assert window._right_pane.isHidden()
    assert not action.isChecked() and button.isVisible()
    assert window.prefs.ranking_hidden()
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    assert window._right_pane.isHidden() and not action.isChecked()

    # The hint brings it back as the entry does.
    button.click()
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] >= panes.ranking_least)
    assert action.isChecked() and not button.isVisible()
    assert not window.prefs.ranking_hidden()

    # Widened after a fold, the column comes back by itself and the entry follows it.
    window.resize(900, 800)
    qtbot.waitUntil(lambda: window.width() == 900)
    qtbot.waitUntil(lambda: not action.isChecked())
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    qtbot.waitUntil(lambda: action.isChecked())
    assert window.splitter.sizes()[2] >= panes.ranking_least


def test_hidden_ranking_panel_is_remembered(  # type: ignore[no-untyped-def]
    qtbot, make_window, workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "openclaw"))  # never the real ~/.openclaw
    window = make_window(workspace, model=None)
    window.ranking_action.trigger()
    assert window._right_pane.isHidden()
    window.close()
    again = make_window(workspace, model=None)
    assert again._right_pane.isHidden()
    assert not again.ranking_action.isChecked()
    assert again.panes.ranking_button.isVisible()
