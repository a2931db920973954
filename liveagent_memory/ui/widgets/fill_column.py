"""One column of a table that takes the room a wide window leaves over, never narrower than a
readable minimum (the Projects page's folder column).

Qt's `stretchLastSection` gives the last column only what the others leave, so at some widths it
cut that column's own words; a `Stretch` section shrinks without a floor. Here the figures keep
the widths of their contents, the chosen column gets the rest of the viewport or `minimum`,
whichever is larger, and the table scrolls sideways when even that does not fit.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTableView


class FillColumn(QObject):
    """Keeps `column` of `table` at max(`minimum`, the viewport's width less the other
    columns'), again whenever the viewport or another column changes width."""

    def __init__(self, table: QTableView, column: int, minimum: int) -> None:
        super().__init__(table)
        self.table, self.column, self.minimum = table, column, minimum
        table.viewport().installEventFilter(self)
        table.horizontalHeader().sectionResized.connect(self._section_resized)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def _section_resized(self, index: int, _old: int, _new: int) -> None:
        if index != self.column:  # (its own resize, made here, would only call fit again)
            self.fit()

    def fit(self) -> None:
        """Give the column its width now (after the rows changed, say)."""
        header = self.table.horizontalHeader()
        others = sum(
            header.sectionSize(i)
            for i in range(header.count())
            if i != self.column and not header.isSectionHidden(i)
        )
        width = max(self.minimum, self.table.viewport().width() - others)
        if header.sectionSize(self.column) != width:
            header.resizeSection(self.column, width)
