"""A small chart of figures per day: stacked bars, optionally a share (0-1) drawn as a line over
them, a legend, and each day's figures in a tooltip and in the accessible description.

Painted with QPainter (PySide6-Essentials has no QtCharts). The chart is told what to show as
plain values and labels; what the values mean is the page's (ui/pages/learning.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

CHART_HEIGHT = 160  # px: bars readable at 1024x640 with two charts side by side, legend wrapped
MARGIN = 6  # px around the plot
LEGEND_SWATCH = 9  # px square of a series' colour in the legend
BAR_GAP = 0.25  # of a day's slot left empty between bars
LINE_WIDTH = 2.0  # px of the share line


@dataclass(frozen=True)
class Series:
    """One named row of values, one per day; None where there is nothing to show."""

    name: str
    color: QColor
    values: Sequence[float | None]


class DayChart(QWidget):
    """Bars per day, stacked bottom-up in series order; `line` (a share from 0 to 1, on its own
    scale) over them. `number` writes a value for the axis and the tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.days: list[str] = []
        self.bars: list[Series] = []
        self.line: Series | None = None
        self.number: Callable[[float], str] = lambda value: f"{value:,.0f}"
        self.empty_text = ""
        self.setMinimumHeight(CHART_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)

    def sizeHint(self) -> QSize:
        return QSize(320, CHART_HEIGHT)

    def set_data(
        self,
        days: Sequence[str],
        bars: Sequence[Series],
        line: Series | None = None,
        *,
        number: Callable[[float], str] | None = None,
        empty_text: str = "",
    ) -> None:
        """Show `bars` (and `line`) for `days`, each series with one value per day."""
        self.days = list(days)
        self.bars = list(bars)
        self.line = line
        if number is not None:
            self.number = number
        self.empty_text = empty_text
        self.setAccessibleDescription(self.describe())
        self.update()

    # --- what it says -------------------------------------------------------------------------
    def total(self, day: int) -> float:
        return sum(series.values[day] or 0.0 for series in self.bars)

    def empty(self) -> bool:
        return not any(self.total(day) for day in range(len(self.days)))

    def day_text(self, day: int) -> str:
        """One day's figures: its date, then each series' value."""
        parts = [self.days[day]]
        for series in (*self.bars, *([self.line] if self.line else [])):
            value = series.values[day]
            shown = "—" if value is None else self._value(series, value)
            parts.append(f"{series.name}: {shown}")
        return "\n".join(parts)

    def describe(self) -> str:
        """Every day with a figure, for screen readers (the bars alone say nothing to them)."""
        if self.empty():
            return self.empty_text
        lines = [self.day_text(day) for day in range(len(self.days)) if self.total(day)]
        return "\n\n".join(lines)

    def _value(self, series: Series, value: float) -> str:
        return f"{value * 100:.0f}%" if series is self.line else self.number(value)

    # --- drawing ------------------------------------------------------------------------------
    def legend(self) -> list[tuple[Series, QRectF]]:
        """Where each series' swatch and name go: in rows that wrap at the widget's width."""
        metrics = self.fontMetrics()
        height = metrics.height()
        x, y = float(MARGIN), float(MARGIN)
        placed = []
        for series in (*self.bars, *([self.line] if self.line else [])):
            width = LEGEND_SWATCH + 4 + metrics.horizontalAdvance(series.name) + 2
            if x > MARGIN and x + width > self.width() - MARGIN:
                x, y = float(MARGIN), y + height
            placed.append((series, QRectF(x, y, width, height)))
            x += width + 2 * MARGIN
        return placed

    def plot_rect(self) -> QRectF:
        text = self.fontMetrics().height()
        placed = self.legend()
        top = placed[-1][1].bottom() + MARGIN if placed else float(MARGIN)
        return QRectF(
            MARGIN,
            top,
            max(1.0, self.width() - 2 * MARGIN),
            max(1.0, self.height() - top - MARGIN - text),
        )

    def slot(self, day: int) -> QRectF:
        """The horizontal room of `day` in the plot (the bar is drawn inside it)."""
        plot = self.plot_rect()
        width = plot.width() / max(1, len(self.days))
        return QRectF(plot.left() + day * width, plot.top(), width, plot.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text_color = self.palette().color(QPalette.ColorRole.WindowText)
        self._draw_legend(painter, text_color)
        plot = self.plot_rect()
        painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Mid), 1))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        if self.days:
            self._draw_day_labels(painter, plot, text_color)
        if self.empty() and self.line is None:
            painter.setPen(text_color)
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, self.empty_text)
            return
        self._draw_bars(painter, plot, text_color)
        if self.line is not None:
            self._draw_line(painter, plot, self.line)

    def _draw_legend(self, painter: QPainter, text_color: QColor) -> None:
        for series, room in self.legend():
            swatch_top = room.top() + (room.height() - LEGEND_SWATCH) / 2
            painter.fillRect(
                QRectF(room.left(), swatch_top, LEGEND_SWATCH, LEGEND_SWATCH), series.color
            )
            painter.setPen(text_color)
            painter.drawText(room.adjusted(LEGEND_SWATCH + 4, 0, 0, 0), series.name)

    def _draw_day_labels(self, painter: QPainter, plot: QRectF, text_color: QColor) -> None:
        painter.setPen(text_color)
        height = self.fontMetrics().height()
        below = QRectF(plot.left(), plot.bottom() + 1, plot.width(), height)
        painter.drawText(below, Qt.AlignmentFlag.AlignLeft, self.days[0][5:])
        painter.drawText(below, Qt.AlignmentFlag.AlignRight, self.days[-1][5:])

    def _draw_bars(self, painter: QPainter, plot: QRectF, text_color: QColor) -> None:
        top = max((self.total(day) for day in range(len(self.days))), default=0.0) or 1.0
        for day in range(len(self.days)):
            slot = self.slot(day)
            width = slot.width() * (1 - BAR_GAP)
            left = slot.left() + (slot.width() - width) / 2
            bottom = plot.bottom()
            for series in self.bars:
                value = series.values[day] or 0.0
                height = plot.height() * value / top
                painter.fillRect(QRectF(left, bottom - height, width, height), series.color)
                bottom -= height
        painter.setPen(text_color)
        painter.drawText(
            plot, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, self.number(top)
        )

    def _draw_line(self, painter: QPainter, plot: QRectF, line: Series) -> None:
        painter.setPen(line.color)  # its own scale: 100% at the top, on the right
        painter.drawText(plot, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop, "100%")
        painter.setPen(QPen(line.color, LINE_WIDTH))
        previous: QPointF | None = None
        for day, value in enumerate(line.values):
            if value is None:
                previous = None  # a day without contexts has no rate: the line breaks
                continue
            point = QPointF(self.slot(day).center().x(), plot.bottom() - plot.height() * value)
            if previous is not None:
                painter.drawLine(previous, point)
            else:
                painter.drawEllipse(point, LINE_WIDTH, LINE_WIDTH)
            previous = point

    # --- tooltip ------------------------------------------------------------------------------
    def day_at(self, x: float) -> int | None:
        plot = self.plot_rect()
        if not self.days or not plot.left() <= x < plot.right():
            return None
        return min(len(self.days) - 1, int((x - plot.left()) / self.slot(0).width()))

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            day = self.day_at(event.x())
            if day is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(event.globalPos(), self.day_text(day), self)
            return True
        return super().event(event)
