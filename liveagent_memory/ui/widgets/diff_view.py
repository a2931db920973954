"""A read-only diff of two texts (before → after), unified or side by side, for review queues.

The HTML is built from `difflib` opcodes with every piece of text escaped, so a memory body
holding markup or `<script>` shows as text. Colours set both background and foreground, so
additions and removals stay readable on light and dark palettes.
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Iterator, Sequence

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

CONTEXT_LINES = 3  # unchanged lines kept around each change in the unified view
ADDED_BG, ADDED_FG = "#dafbe1", "#0a3d1a"
REMOVED_BG, REMOVED_FG = "#ffebe9", "#67060c"
HUNK_BG, HUNK_FG = "#ddf4ff", "#0a3069"
_CELL = "font-family: monospace; white-space: pre-wrap; padding: 0 4px;"


def _cell(text: str, *, bg: str | None = None, fg: str | None = None, mark: str = " ") -> str:
    style = _CELL + (f" background-color: {bg};" if bg else "") + (f" color: {fg};" if fg else "")
    return f'<td style="{style}">{html.escape(mark + text)}</td>'


def _lines(text: str) -> list[str]:
    return text.splitlines()


def unified_html(before: str, after: str, *, context: int = CONTEXT_LINES) -> str:
    """A unified diff as an HTML table: `-` lines red, `+` lines green, hunks headed `@@`."""
    old, new = _lines(before), _lines(after)
    rows: list[str] = []
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(
        context
    ):
        first, last = group[0], group[-1]
        header = f"@@ -{first[1] + 1},{last[2] - first[1]} +{first[3] + 1},{last[4] - first[3]} @@"
        rows.append(f"<tr>{_cell(header, bg=HUNK_BG, fg=HUNK_FG, mark='')}</tr>")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows.extend(f"<tr>{_cell(line)}</tr>" for line in old[i1:i2])
                continue
            if tag in ("replace", "delete"):
                rows.extend(
                    f"<tr>{_cell(line, bg=REMOVED_BG, fg=REMOVED_FG, mark='-')}</tr>"
                    for line in old[i1:i2]
                )
            if tag in ("replace", "insert"):
                rows.extend(
                    f"<tr>{_cell(line, bg=ADDED_BG, fg=ADDED_FG, mark='+')}</tr>"
                    for line in new[j1:j2]
                )
    return _table(rows)


def _pairs(old: Sequence[str], new: Sequence[str]) -> Iterator[tuple[str, str | None, str | None]]:
    """(tag, left line, right line) rows of a side-by-side view; None is an empty cell."""
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            for line in old[i1:i2]:
                yield tag, line, line
            continue
        left, right = list(old[i1:i2]), list(new[j1:j2])
        for index in range(max(len(left), len(right))):
            yield (
                tag,
                left[index] if index < len(left) else None,
                right[index] if index < len(right) else None,
            )


def side_by_side_html(before: str, after: str) -> str:
    """Both texts in two columns: removed lines red on the left, added lines green on the right."""
    rows = []
    for tag, left, right in _pairs(_lines(before), _lines(after)):
        if tag == "equal":
            rows.append(f"<tr>{_cell(left or '')}{_cell(right or '')}</tr>")
            continue
        left_cell = (
            _cell(left, bg=REMOVED_BG, fg=REMOVED_FG, mark="-") if left is not None else _cell("")
        )
        right_cell = (
            _cell(right, bg=ADDED_BG, fg=ADDED_FG, mark="+") if right is not None else _cell("")
        )
        rows.append(f"<tr>{left_cell}{right_cell}</tr>")
    return _table(rows, columns=2)


def _table(rows: list[str], *, columns: int = 1) -> str:
    width = 100 // columns
    cols = "".join(f'<col width="{width}%"/>' for _ in range(columns))
    return (
        '<table width="100%" cellspacing="0" cellpadding="1">' + cols + "".join(rows) + "</table>"
    )


class DiffView(QWidget):
    """Shows before → after of one text; a person can switch unified / side by side."""

    UNIFIED, SIDE_BY_SIDE = "unified", "side-by-side"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._before: str | None = None
        self._after: str | None = None
        self._message = ""
        self.caption = QLabel()
        self.caption.setObjectName("diffCaption")
        self.caption.setWordWrap(True)
        self.mode = QComboBox()
        self.mode.setObjectName("diffMode")
        self.browser = QTextBrowser()
        self.browser.setObjectName("diffBrowser")
        self.browser.setReadOnly(True)
        self.browser.setOpenLinks(False)
        top = QHBoxLayout()
        top.addWidget(self.caption, 1)
        top.addWidget(self.mode)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.browser, 1)
        self.mode.currentIndexChanged.connect(lambda _index: self._render())
        self.retranslate()
        self.show_message("")

    def retranslate(self) -> None:
        current = self.mode.currentIndex()
        self.mode.blockSignals(True)
        self.mode.clear()
        self.mode.addItem(self.tr("Unified"), self.UNIFIED)
        self.mode.addItem(self.tr("Side by side"), self.SIDE_BY_SIDE)
        self.mode.setCurrentIndex(max(current, 0))
        self.mode.blockSignals(False)
        self.mode.setToolTip(self.tr("How to show the change"))

    def set_texts(self, before: str, after: str, *, caption: str = "") -> None:
        """Show the change from `before` to `after` (either may be empty: a new or gone text)."""
        self._before, self._after = before, after
        self.caption.setText(caption)
        self._render()

    def show_message(self, message: str) -> None:
        """Show a sentence instead of a diff (nothing selected, nothing to compare)."""
        self._before = self._after = None
        self._message = message
        self.caption.setText("")
        self._render()

    @property
    def showing_diff(self) -> bool:
        return self._before is not None

    def _render(self) -> None:
        if self._before is None or self._after is None:
            self.browser.setHtml(f"<p><i>{html.escape(self._message)}</i></p>")
            return
        if self._before == self._after:
            same = self.tr("No changes.")
            self.browser.setHtml(f"<p><i>{html.escape(same)}</i></p>")
            return
        if self.mode.currentData() == self.SIDE_BY_SIDE:
            self.browser.setHtml(side_by_side_html(self._before, self._after))
        else:
            self.browser.setHtml(unified_html(self._before, self._after))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._render()
        super().changeEvent(event)
