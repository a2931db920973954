"""The Memories page's list of files that could not be read (`memory_problems`), and of the
sync conflicts, which a person resolves from here (`memory_sync.py`)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

SYNC_CONFLICT = "sync_conflict"  # the problem code of a sync conflict (store/conflicts.py)

PROBLEM_ROWS_SHOWN = 5  # the problems panel scrolls beyond this many files


class ProblemsPanel(QFrame):
    """Unreadable files (path and reason), shown while its `button` is down.

    The button says how many there are and hides while there are none; the page places it
    (beside the search). A sync conflict's row can be resolved: `resolve_button` sends
    `resolve_requested(path)`.
    """

    resolve_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory_problems")
        self.problems: list[dict[str, str]] = []
        self.button = QPushButton(self)  # the page's layout moves it beside the search
        self.button.setObjectName("memory_problems_button")
        self.button.setCheckable(True)
        self.button.hide()
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.intro.setProperty("role", "muted")
        self.list = QListWidget()
        self.resolve_button = QPushButton()
        self.resolve_button.setObjectName("memory_problems_resolve")
        self.resolve_button.hide()
        self.resolve_button.clicked.connect(self._resolve)
        self.list.currentRowChanged.connect(lambda _row: self._enable_resolve())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.intro)
        layout.addWidget(self.list)
        row = QHBoxLayout()
        row.addWidget(self.resolve_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.hide()
        self.button.toggled.connect(self.setVisible)

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self.intro.setText(
            self.tr(
                "These files could not be read, so they are not listed. They stay on disk "
                "untouched; fix or remove them by hand. A sync conflict (two versions of one "
                "memory) is resolved here: choose it, then Resolve.",
            )
        )
        self.resolve_button.setText(self.tr("Resolve…"))
        self.resolve_button.setToolTip(
            self.tr("Show both versions side by side and keep one, or a merged text")
        )
        self.show_problems(self.problems)

    def show_problems(self, problems: list[dict[str, str]]) -> None:
        """List `problems` (`memory_problems` entries); none hides the button and the panel."""
        # SPEC 1.1: unparsable files are reported (path + reason), never deleted.
        self.problems = problems
        count = len(problems)
        self.button.setText(self.tr("Problems (%n)", "", count))
        self.button.setToolTip(self.tr("Files in the memory folder that could not be read"))
        self.button.setVisible(count > 0)
        if count == 0:
            self.button.setChecked(False)
        self.list.clear()
        for problem in problems:
            self.list.addItem(f"{problem['path']} — {problem['reason']}")
            self.list.item(self.list.count() - 1).setToolTip(problem["reason"])
        conflicts = [i for i, p in enumerate(problems) if p.get("code") == SYNC_CONFLICT]
        self.resolve_button.setVisible(bool(conflicts))
        if conflicts:
            self.list.setCurrentRow(conflicts[0])
        self._enable_resolve()
        # As tall as its rows, up to a few: the list of memories keeps the room.
        shown = min(max(count, 1), PROBLEM_ROWS_SHOWN)
        frame = 2 * self.list.frameWidth() + 4
        row_height = self.list.sizeHintForRow(0) if count else 0
        self.list.setFixedHeight(shown * max(row_height, 18) + frame)

    def selected_conflict(self) -> str | None:
        """The path of the sync conflict chosen in the list, None for any other row."""
        row = self.list.currentRow()
        if 0 <= row < len(self.problems) and self.problems[row].get("code") == SYNC_CONFLICT:
            return self.problems[row]["path"]
        return None

    def _enable_resolve(self) -> None:
        self.resolve_button.setEnabled(self.selected_conflict() is not None)

    def _resolve(self) -> None:
        path = self.selected_conflict()
        if path is not None:
            self.resolve_requested.emit(path)
