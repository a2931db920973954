"""The Organizer page's schedule and model form: what `settings_get` holds for the organizer,
shown for editing, and the part of it to send to `settings_save_memory`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QLocale, Qt, QTime, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QTimeEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.ui.widgets.elided_label import ElidedLabel


class OrganizerSettingsBox(QWidget):
    """Frequency, time and weekday of the schedule, scope and mode of a run, and the
    organizer's model; Save is enabled once something was edited (`dirty`).

    The form folds away under a one-line summary (`toggle`, `summary`): it starts folded, so a
    run's review queue gets the page's height (issue 14: it was about two rows tall at
    1200×760); one click (or Space on the toggle) unfolds it.

    Signals:
        save_requested: Save was pressed (the page saves `payload()`).
    """

    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dirty = False  # edited since the last load or save
        self.toggle = QToolButton()
        self.toggle.setObjectName("organizerSettingsToggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setAutoRaise(True)
        self.summary = ElidedLabel()
        self.summary.setObjectName("organizerSettingsSummary")
        self.summary.setProperty("role", "muted")
        self.form = QGroupBox()
        self.form.setObjectName("organizerSettings")
        # Unfolded on a short screen, the form scrolls rather than push the page past the
        # window's 1024×640 minimum; with room, it shows whole.
        self.form_area = QScrollArea()
        self.form_area.setObjectName("organizerSettingsArea")
        self.form_area.setWidgetResizable(True)
        self.form_area.setFrameShape(QFrame.Shape.NoFrame)
        self.form_area.setWidget(self.form)
        self.form.setAutoFillBackground(False)  # setWidget filled it: the page shows through
        self.form_area.viewport().setAutoFillBackground(False)
        self._filling = False  # the form is being filled: no edit
        self._settings: dict[str, Any] = {}  # as loaded (settings_get's view)
        self.frequency = QComboBox()
        self.frequency.setObjectName("organizerFrequency")
        self.time = QTimeEdit()
        self.time.setObjectName("organizerTime")
        self.time.setDisplayFormat("HH:mm")
        self.weekday = QComboBox()
        self.weekday.setObjectName("organizerWeekday")
        self.scope = QComboBox()
        self.scope.setObjectName("organizerScope")
        self.mode = QComboBox()
        self.mode.setObjectName("organizerMode")
        # Issue 18: a consolidation after each scheduled run (OrganizerSettings.learn).
        self.learn = QCheckBox()
        self.learn.setObjectName("organizerLearn")
        self.model_edit = QLineEdit()
        self.model_edit.setObjectName("organizerModel")
        self.base_url = QLineEdit()
        self.base_url.setObjectName("organizerBaseUrl")
        self.model_hint = QLabel()
        self.model_hint.setWordWrap(True)
        self.model_hint.setObjectName("organizerModelHint")
        self.model_hint.setProperty("role", "muted")
        self.save_button = QPushButton()
        self.save_button.setObjectName("organizerSave")
        self.labels = {name: QLabel() for name in ("frequency", "time", "weekday", "scope")}
        self.labels.update({name: QLabel() for name in ("mode", "model", "base_url")})
        self._build_layout()
        self._connect()

    def _build_layout(self) -> None:
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        header.addWidget(self.summary, 1)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        outer.addLayout(header)
        outer.addWidget(self.form_area)
        self.set_expanded(False)
        grid = QGridLayout(self.form)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(6)
        for column, (name, widget) in enumerate(
            (("frequency", self.frequency), ("time", self.time), ("weekday", self.weekday))
        ):
            grid.addWidget(self.labels[name], 0, column * 2)
            grid.addWidget(widget, 0, column * 2 + 1)
        for column, (name, widget) in enumerate((("scope", self.scope), ("mode", self.mode))):
            grid.addWidget(self.labels[name], 1, column * 2)
            grid.addWidget(widget, 1, column * 2 + 1)
        grid.addWidget(self.save_button, 1, 5, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.labels["model"], 2, 0)
        grid.addWidget(self.model_edit, 2, 1, 1, 3)
        grid.addWidget(self.labels["base_url"], 2, 4)
        grid.addWidget(self.base_url, 2, 5)
        grid.addWidget(self.model_hint, 3, 1, 1, 5)
        grid.addWidget(self.learn, 4, 1, 1, 5)
        for column in (1, 3, 5):
            grid.setColumnStretch(column, 1)

    def _connect(self) -> None:
        self.toggle.toggled.connect(self.set_expanded)
        for combo in (self.frequency, self.weekday, self.scope, self.mode):
            combo.currentIndexChanged.connect(self._edited)
        self.time.timeChanged.connect(self._edited)
        self.learn.toggled.connect(self._edited)
        self.model_edit.textEdited.connect(self._edited)
        self.model_edit.textEdited.connect(lambda _text: self._update_model_hint())
        self.base_url.textEdited.connect(self._edited)
        self.save_button.clicked.connect(lambda _checked=False: self.save_requested.emit())

    # --- labels -----------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Set every visible string: the page calls it once laid out, and on a language switch."""
        self._filling = True
        try:
            self._fill_choices()
        finally:
            self._filling = False
        self.toggle.setText(self.tr("Schedule and model"))
        self.toggle.setToolTip(self.tr("Show or hide the organizer's schedule and model"))
        for name, text in (
            ("frequency", self.tr("Frequency")),
            ("time", self.tr("Time")),
            ("weekday", self.tr("Weekday")),
            ("scope", self.tr("Scope")),
            ("mode", self.tr("Mode")),
            ("model", self.tr("Model")),
            ("base_url", self.tr("Base URL")),
        ):
            self.labels[name].setText(text)
        self.mode.setToolTip(
            self.tr(
                "Conservative merges only near-identical memories; aggressive also merges "
                "across types and scopes. Manual runs always wait for your review."
            )
        )
        self.model_edit.setPlaceholderText(self.tr("Empty: use the default model"))
        self.base_url.setPlaceholderText(self.tr("Optional, e.g. http://localhost:11434"))
        self.save_button.setText(self.tr("Save"))
        self.save_button.setToolTip(self.tr("Save the organizer settings (Ctrl+S)"))
        self.learn.setText(self.tr("After each scheduled run, learn from the agents' episodes"))
        self.learn.setToolTip(
            self.tr(
                "Proposes anti-patterns, skills and patterns for your review, as Learn from "
                "episodes does; nothing is applied until you accept it"
            )
        )
        self._update_model_hint()

    def _fill_choices(self) -> None:
        """The combos' choices in the current language."""
        self._fill_combo(
            self.frequency,
            [
                (self.tr("Never (manual only)"), "none"),
                (self.tr("Daily"), "daily"),
                (self.tr("Weekly"), "weekly"),
            ],
        )
        days = [QLocale().dayName(day) for day in range(1, 8)]
        self._fill_combo(self.weekday, [(name, n) for n, name in enumerate(days, start=1)])
        self._fill_combo(
            self.scope,
            [
                (self.tr("All memories"), "all"),
                (self.tr("Global memories"), "global"),
                (self.tr("Project memories"), "projects"),
            ],
        )
        self._fill_combo(
            self.mode,
            [
                (self.tr("Conservative"), "conservative"),
                (self.tr("Standard"), "standard"),
                (self.tr("Aggressive"), "aggressive"),
            ],
        )

    @staticmethod
    def _fill_combo(combo: QComboBox, items: list[tuple[str, Any]]) -> None:
        """Replace the items, keeping the current value (and an unknown one the file holds)."""
        current = combo.currentData()
        extra = [
            (combo.itemText(i), combo.itemData(i))
            for i in range(combo.count())
            if combo.itemData(i) not in [value for _label, value in items]
        ]
        combo.blockSignals(True)
        combo.clear()
        for label, value in [*items, *extra]:
            combo.addItem(label, value)
        index = combo.findData(current)
        combo.setCurrentIndex(max(index, 0))
        combo.blockSignals(False)

    # --- the form ---------------------------------------------------------------------------
    def fill(self, settings: dict[str, Any]) -> None:
        """Show `settings` (settings_get's view); nothing is edited afterwards."""
        self._settings = settings
        organizer = settings.get("organizer", {})
        model = settings.get("organizer_model", {})
        self._filling = True
        try:
            self._choose(self.frequency, organizer.get("schedule", "none"))
            self._choose(self.weekday, organizer.get("weekday", 1))
            self._choose(self.scope, organizer.get("scope", "all"))
            self._choose(self.mode, organizer.get("mode", "conservative"))
            self.time.setTime(QTime.fromString(organizer.get("time_of_day", "03:00"), "HH:mm"))
            self.learn.setChecked(bool(organizer.get("learn", False)))
            self.model_edit.setText(model.get("model", ""))
            self.base_url.setText(model.get("api_base", ""))
        finally:
            self._filling = False
        self._set_dirty(False)
        self._update_schedule_widgets()
        self._update_model_hint()

    @staticmethod
    def _choose(combo: QComboBox, value: Any) -> None:
        index = combo.findData(value)
        if index < 0:  # a value set elsewhere (the CLI): offered as it is, not replaced
            combo.addItem(str(value), value)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    def _edited(self, *_args: Any) -> None:
        if self._filling:
            return
        self._set_dirty(True)
        self._update_schedule_widgets()
        self._update_summary()

    def _set_dirty(self, dirty: bool) -> None:
        self.dirty = dirty
        self.save_button.setEnabled(dirty)

    def _update_schedule_widgets(self) -> None:
        frequency = self.frequency.currentData()
        self.time.setEnabled(frequency != "none")
        self.learn.setEnabled(frequency != "none")
        self.weekday.setEnabled(frequency == "weekly")

    def _update_model_hint(self) -> None:
        own = self.model_edit.text().strip()
        default = (self._settings.get("default") or {}).get("model", "")
        if own:
            text = self.tr("Runs use %1.").replace("%1", own)
        elif default:
            text = self.tr("Runs use the default model, %1.").replace("%1", default)
        else:
            text = self.tr("No model configured: runs use the offline duplicate check.")
        self.model_hint.setText(text)
        self._update_summary()

    def _update_summary(self) -> None:
        """The folded form in one line: schedule, scope, mode and which model runs use."""
        model = self.model_edit.text().strip() or (self._settings.get("default") or {}).get(
            "model", ""
        )
        parts = [self.frequency.currentText(), self.scope.currentText(), self.mode.currentText()]
        parts.append(model or self.tr("offline duplicate check"))
        if self.learn.isChecked() and self.frequency.currentData() != "none":
            parts.append(self.tr("then learning from episodes"))
        self.summary.setText(" · ".join(part for part in parts if part))

    # --- folding ----------------------------------------------------------------------------
    @property
    def expanded(self) -> bool:
        return not self.form_area.isHidden()

    def set_expanded(self, expanded: bool) -> None:
        """Unfold (or fold) the form; the summary stands for it while it is folded."""
        self.form_area.setVisible(expanded)
        self.summary.setVisible(not expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        if self.toggle.isChecked() != expanded:
            self.toggle.setChecked(expanded)

    def payload(self) -> dict[str, Any]:
        """The schedule as shown, and the organizer model only where it was edited here.

        Why: the Model page edits the organizer model too; sending the value this page loaded
        would put it back over a change saved there in the meantime.
        """
        payload: dict[str, Any] = {
            "organizer": {
                "schedule": self.frequency.currentData(),
                "time_of_day": self.time.time().toString("HH:mm"),
                "weekday": self.weekday.currentData(),
                "scope": self.scope.currentData(),
                "mode": self.mode.currentData(),
                "learn": self.learn.isChecked(),
            },
        }
        loaded = self._settings.get("organizer_model") or {}
        shown = {"model": self.model_edit.text().strip(), "api_base": self.base_url.text().strip()}
        changed = {k: v for k, v in shown.items() if v != (loaded.get(k) or "")}
        if changed:
            payload["organizer_model"] = changed
        return payload
