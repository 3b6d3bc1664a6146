"""What an empty workspace shows instead of a blank tree: how to start."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget


class EmptyWorkspace(QWidget):
    """Offers to create ``MEMORY.md`` or today's note, or to open another folder.

    Signals:
        create_memory_requested(), create_today_requested(), open_folder_requested()
    """

    create_memory_requested = Signal()
    create_today_requested = Signal()
    open_folder_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyWorkspace")
        self.message = QLabel()
        self.message.setObjectName("emptyWorkspaceMessage")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.memory_button = QPushButton(self.tr("Create MEMORY.md"))
        self.memory_button.setObjectName("createMemoryButton")
        self.memory_button.setToolTip(
            self.tr("The curated, long-term memory the agent reads in private chats")
        )
        self.today_button = QPushButton(self.tr("Create today's note"))
        self.today_button.setObjectName("createTodayButton")
        self.today_button.setToolTip(self.tr("memory/YYYY-MM-DD.md: the daily log"))
        self.open_button = QPushButton(self.tr("Open another folder…"))
        self.open_button.setObjectName("openFolderButton")
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.message)
        for button in (self.memory_button, self.today_button, self.open_button):
            layout.addWidget(button)
        layout.addStretch(2)
        self.memory_button.clicked.connect(self.create_memory_requested)
        self.today_button.clicked.connect(self.create_today_requested)
        self.open_button.clicked.connect(self.open_folder_requested)

    def set_workspace(self, name: str) -> None:
        self.message.setText(self.tr("{0} has no memory notes yet (MEMORY.md or memory/*.md).").format(name))
