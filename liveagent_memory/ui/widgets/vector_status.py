"""The status bar's vector line: how far the background build of search vectors is.

Shown while the window's background pass embeds memories ("Building search vectors: 120 of
400", with a progress bar), and when a pass failed (search then uses keywords only; the reason
is the tooltip). Hidden otherwise: when the vectors are ready, and when local embeddings are
not available (search is keyword-only, as it always was without them).
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from liveagent_memory.domain.vector_build import BuildState, VectorBuild

BAR_WIDTH = 120  # a status-bar progress bar: visible, without crowding the messages


class VectorStatus(QWidget):
    """A label and a progress bar for the latest `VectorBuild` (`show_build`)."""

    def __init__(self, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vectorStatus")
        self.build: VectorBuild | None = None
        self.label = QLabel()
        self.label.setObjectName("vectorStatusLabel")
        self.bar = QProgressBar()
        self.bar.setObjectName("vectorStatusBar")
        self.bar.setMaximumWidth(BAR_WIDTH)
        self.bar.setTextVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        self.setVisible(False)

    def show_build(self, build: VectorBuild) -> None:
        """Show `build`: a pass embedding, or one that failed; hide for every other state."""
        self.build = build
        self.retranslate()
        self.setVisible(build.state in (BuildState.BUILDING, BuildState.FAILED))

    def retranslate(self) -> None:
        build = self.build
        if build is None:
            return
        if build.state == BuildState.FAILED:
            self.label.setText(self.tr("Search vectors could not be built; search uses keywords."))
            self.setToolTip(build.reason or "")
            self.bar.setVisible(False)
            return
        self.label.setText(
            self.tr("Building search vectors: %1 of %2")
            .replace("%1", f"{build.done:,}")
            .replace("%2", f"{build.total:,}")
        )
        self.setToolTip(
            self.tr(
                "Memories are being embedded for search by meaning. Until they are, search "
                "uses keywords; everything else works as usual."
            )
        )
        self.bar.setRange(0, max(build.total, 1))
        self.bar.setValue(build.done)
        self.bar.setVisible(True)
