"""The Organizer page's run bar: Run now and Cancel, the progress of the window's own run,
how the last one ended, and when the schedule runs next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QWidget

from liveagent_memory.ui.pages.run_view import local_time, word
from liveagent_memory.ui.run_words import summary_text
from liveagent_memory.ui.strings import run_error_text
from liveagent_memory.ui.widgets.elided_label import ElidedLabel

if TYPE_CHECKING:
    from liveagent_memory.ui.organizer_service import OrganizerService

PHASES = ("scan", "cluster", "plan", "gate", "apply")  # SPEC 4, in order


class RunBar(QWidget):
    """Shows the run of `organizer` (the window's OrganizerService; None: no organizer in
    this window) as the page reports it: started, progressed, finished, skipped, cancelling.

    The page connects the buttons: it starts and cancels runs.
    """

    def __init__(
        self, organizer: OrganizerService | None, *, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.organizer = organizer
        self._progress: tuple[str, str] | None = None  # (phase, message) of the run in progress
        # How the last run ended, as a run or "skipped": worded when shown, so a language
        # switch re-words it.
        self._ended: dict[str, Any] | str | None = None
        self.run_button = QPushButton()
        self.run_button.setObjectName("organizerRunNow")
        self.run_button.setProperty("primary", True)
        # Issue 18: consolidation, proposals from the episodes (they wait in the review queue).
        self.learn_button = QPushButton()
        self.learn_button.setObjectName("organizerLearn")
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("organizerCancel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("organizerProgress")
        self.progress_bar.setRange(0, len(PHASES))
        self.progress_bar.setMaximumWidth(180)
        # Both lines can be long (a run's summary, a weekday and date): they are cut to the
        # space they get, whole in their tooltips, so the window keeps fitting a laptop.
        self.progress_label = ElidedLabel()
        self.progress_label.setObjectName("organizerProgressLabel")
        self.next_run = ElidedLabel()
        self.next_run.setObjectName("organizerNextRun")
        self.next_run.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 6)
        layout.addWidget(self.run_button)
        layout.addWidget(self.learn_button)
        layout.addWidget(self.cancel_button)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.progress_label, 3)
        layout.addWidget(self.next_run, 2)

    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self.run_button.setText(self.tr("Run now"))
        self.run_button.setToolTip(self.tr("Organize with the chosen scope and mode (Ctrl+R)"))
        self.learn_button.setText(self.tr("Learn from episodes"))
        self.learn_button.setToolTip(
            self.tr(
                "Propose anti-patterns, skills and patterns from the agents' episodes since the "
                "last time; nothing is applied until you accept it in the review queue"
            )
        )
        self.cancel_button.setText(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop the run in progress (Esc)"))
        self.show_next_run()
        self._show_progress()

    def show_next_run(self) -> None:
        """Say when the schedule runs next (the organizer's schedule changed)."""
        due = self.organizer.next_due_ms if self.organizer is not None else None
        if self.organizer is None:
            text = self.tr("The organizer is not available in this window.")
        elif due is None:
            text = self.tr("No scheduled runs. Choose daily or weekly to organize automatically.")
        else:
            when = local_time(due, "ddd yyyy-MM-dd HH:mm")
            text = self.tr("Next scheduled run: %1").replace("%1", when)
        self.next_run.setText(text)

    def update_buttons(self) -> None:
        """Run now while no run of this window is active, Cancel while one is."""
        running = self.organizer is not None and self.organizer.running
        self.run_button.setEnabled(self.organizer is not None and not running)
        self.learn_button.setEnabled(self.organizer is not None and not running)
        self.cancel_button.setEnabled(running)
        self.progress_bar.setVisible(running or self._progress is not None)

    # --- what the run does ------------------------------------------------------------------
    def started(self) -> None:
        """A run of this window started."""
        self._progress = ("", "")
        self._ended = None
        self._show_progress()

    def progressed(self, message: str) -> bool:
        """The run reported `message` ("phase: detail"); True when it entered a new phase."""
        phase = message.split(" ", 1)[0].split(":", 1)[0]
        entered = False
        if phase in PHASES:
            previous = self._progress[0] if self._progress else ""
            self._progress = (phase, message)
            entered = phase != previous
        elif self._progress is not None:
            self._progress = (self._progress[0], message)
        self._show_progress()
        return entered

    def finished(self, run: dict[str, Any]) -> None:
        """The run ended (`run` as the organizer service reports it): say how."""
        self._progress = None
        self._ended = run
        self._show_progress()

    def _ended_note(self) -> str:
        """How the last run ended, in the current language ("" before any)."""
        if self._ended is None:
            return ""
        if isinstance(self._ended, str):
            return self.tr("Another organizer run is active; this one was recorded as skipped.")
        run = self._ended
        note = self.tr("Last run: %1").replace("%1", word(run.get("status")))
        if run.get("final_summary"):
            note += " — " + summary_text(run)
        elif run.get("error"):
            note += " — " + run_error_text(run["error"])
        return note

    def skipped(self) -> None:
        """Run now was recorded as skipped: another run was active."""
        self._progress = None
        self._ended = "skipped"
        self._show_progress()

    def cancelling(self) -> None:
        """Cancel was asked for; the run ends as `cancelled` soon."""
        self.cancel_button.setEnabled(False)
        self.progress_label.setText(self.tr("Cancelling…"))

    def _show_progress(self) -> None:
        if self._progress is None:
            self.progress_bar.setValue(0)
            self.progress_label.setText(self._ended_note())
            self.progress_bar.setVisible(False)
            return
        phase, message = self._progress
        step = PHASES.index(phase) + 1 if phase in PHASES else 0
        self.progress_bar.setVisible(True)
        self.progress_bar.setValue(step)
        if not phase:
            self.progress_label.setText(self.tr("Starting…"))
            return
        text = (
            self.tr("Phase %1 of %2: %3")
            .replace("%1", str(step))
            .replace("%2", str(len(PHASES)))
            .replace("%3", word(phase))
        )
        detail = message[len(phase) :].lstrip(" :")
        self.progress_label.setText(f"{text} — {detail}" if detail else text)
