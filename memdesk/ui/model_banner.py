"""The banner over the window while there is no embedding model: it offers to build
the default one (offline, in the background) and follows that build to its end."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from memdesk.qt import messages as qt_messages
from memdesk.ui import theme


class ModelBanner(QFrame):
    """ "No embedding model yet … [Build default model] [Not now]".

    Signals:
        build_requested(): Build default model was clicked.
    """

    build_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelBanner")
        self.restyle()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        self.label = QLabel(
            self.tr(
                "No embedding model yet: searching by keywords only (FTS). Build the default model "
                "(runs offline in the background) to switch to hybrid search."
            )
        )
        self.label.setWordWrap(True)
        self.build_button = QPushButton(self.tr("Build default model"))
        self.build_button.setObjectName("buildModelButton")
        self.build_button.clicked.connect(self.build_requested)
        dismiss = QPushButton(self.tr("Not now"))
        dismiss.setObjectName("dismissBannerButton")
        dismiss.clicked.connect(lambda: self.setVisible(False))
        layout.addWidget(self.label, 1)
        layout.addWidget(self.build_button)
        layout.addWidget(dismiss)

    def restyle(self) -> None:
        """Its colours from the palette (again after the theme changes: the window calls this)."""
        palette = self.palette()
        self.setStyleSheet(
            f"#modelBanner {{ background: {theme.banner_background(palette).name()};"
            f" border-bottom: 1px solid {theme.muted_text(palette).name()}; }}"
        )

    def show_building(self) -> None:
        self.build_button.setEnabled(False)
        self.label.setText(self.tr("Building the default embedding model in the background…"))
        self.setVisible(True)

    def show_build_progress(self, message: str) -> None:
        self.label.setText(
            self.tr("Building the default embedding model: {0}").format(qt_messages.text(message))
        )

    def show_build_finished(self, path: object) -> None:
        self.label.setText(self.tr("Model ready ({0}); embedding the notes…").format(Path(str(path)).name))

    def show_build_failed(self) -> None:
        self.build_button.setEnabled(True)
        self.label.setText(self.tr("The model could not be built; still searching by keywords."))
