"""The Model & keys page: a litellm model and base URL per purpose, API keys, a connection test.

Settings go through `settings_save_memory` (the core validates the whole object, so a bad value
saves nothing). Keys go only to the app context's secrets (the OS keyring), called on the store
worker because keyring backends may block; the page never shows a stored key back. The
connection test goes through the app context too (`prepare_probe` on the worker, then
`check_connection` awaited on the loop).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import KeyringUnavailable, MemoryDomainError
from liveagent_memory.settings import PURPOSES, KeyringStatus, SecretStore
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.strings import error_detail, error_text

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

# Model names a person can pick and edit; any litellm "provider/model" works.
MODEL_EXAMPLES = (
    "openai/gpt-4o-mini",
    "anthropic/claude-3-5-haiku-latest",
    "deepseek/deepseek-chat",
    "ollama/llama3.1",
)
# The settings field that holds each purpose's model (the organizer's own settings are
# `organizer`, so its model lives under `organizer_model`).
SETTINGS_KEYS = {"default": "default", "extraction": "extraction", "organizer": "organizer_model"}

# Key states, computed on the store worker (never the key itself).
KEY_OWN = "own"  # this purpose has its own key in the keyring
KEY_INHERITED = "inherited"  # no own key; the default purpose's key is used
KEY_NONE = "none"
KEY_UNKNOWN = "unknown"  # the keyring could not be read


@dataclass(frozen=True)
class KeyStates:
    """What the keyring holds per purpose, and whether it can be used at all."""

    status: KeyringStatus
    states: dict[str, str]


def read_key_states(secrets: SecretStore) -> KeyStates:
    """Which purposes have a key (blocking keyring reads: run on the store worker)."""
    status = secrets.status()
    if not status.available:
        return KeyStates(status, dict.fromkeys(PURPOSES, KEY_UNKNOWN))
    try:
        default = secrets.get("default")
        states = {"default": KEY_OWN if default else KEY_NONE}
        for purpose in PURPOSES[1:]:
            value = secrets.get(purpose)  # falls back to the default key
            if value is None:
                states[purpose] = KEY_NONE
            else:
                states[purpose] = KEY_INHERITED if value == default else KEY_OWN
    except KeyringUnavailable as exc:
        # Trigger: a backend that exists but refuses reads (locked, D-Bus error).
        # Outcome: the page treats the keyring as unavailable and shows the core's message.
        return KeyStates(
            KeyringStatus(False, status.backend, exc.message), dict.fromkeys(PURPOSES, KEY_UNKNOWN)
        )
    return KeyStates(status, states)


def provider_key_variable(model: str) -> str | None:
    """The provider's API key variable (OPENAI_API_KEY for openai/...) when it is set."""
    provider = model.strip().split("/", 1)[0] if "/" in model else ""
    if not provider:
        return None
    name = provider.upper().replace("-", "_") + "_API_KEY"
    return name if os.environ.get(name) else None


class _PurposeRow:
    """The widgets of one purpose (labels are set by the page's retranslate)."""

    def __init__(self, purpose: str) -> None:
        self.purpose = purpose
        self.group = QGroupBox()
        self.group.setObjectName(f"model-{purpose}")
        self.help = QLabel()
        self.help.setWordWrap(True)
        self.help.setObjectName("model-help")
        self.help.setProperty("role", "muted")
        self.model = QComboBox()
        self.model.setObjectName(f"model-{purpose}-model")
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.addItems(list(MODEL_EXAMPLES))
        self.model.setCurrentIndex(-1)
        self.model.setMinimumWidth(240)
        edit = self.model.lineEdit()
        assert edit is not None  # an editable combo always has one
        self.model_edit = edit
        # Why: inline completion would silently turn a typed "openai/gpt-4o" into the
        # example "openai/gpt-4o-mini"; a popup only suggests.
        completer = self.model.completer()
        if completer is not None:
            completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.base = QLineEdit()
        self.base.setObjectName(f"model-{purpose}-base")
        self.base.setClearButtonEnabled(True)
        self.key = QLineEdit()
        self.key.setObjectName(f"model-{purpose}-key")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.save_key = QPushButton()
        self.save_key.setObjectName(f"model-{purpose}-save-key")
        self.save_key.setEnabled(False)
        self.clear_key = QPushButton()
        self.clear_key.setObjectName(f"model-{purpose}-clear-key")
        self.clear_key.setEnabled(False)
        self.key_status = QLabel()
        self.key_status.setObjectName(f"model-{purpose}-key-status")
        self.key_status.setWordWrap(True)
        self.key_status.setProperty("role", "muted")
        self.test = QPushButton()
        self.test.setObjectName(f"model-{purpose}-test")
        self.test_result = QLabel()
        self.test_result.setObjectName(f"model-{purpose}-test-result")
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model_label = QLabel()
        self.base_label = QLabel()
        self.key_label = QLabel()
        self.key_state = KEY_UNKNOWN
        self.key_busy = False
        # The last test outcome, kept as data so a language switch re-renders it.
        self.outcome: tuple[str, Any] | None = None

        key_line = QHBoxLayout()
        key_line.addWidget(self.key, 1)
        key_line.addWidget(self.save_key)
        key_line.addWidget(self.clear_key)
        test_line = QHBoxLayout()
        test_line.addWidget(self.test)
        test_line.addWidget(self.test_result, 1)
        # Model and base URL share a row, which keeps each purpose compact.
        grid = QGridLayout(self.group)
        grid.setVerticalSpacing(6)
        grid.addWidget(self.help, 0, 0, 1, 4)
        grid.addWidget(self.model_label, 1, 0)
        grid.addWidget(self.model, 1, 1)
        grid.addWidget(self.base_label, 1, 2)
        grid.addWidget(self.base, 1, 3)
        grid.addWidget(self.key_label, 2, 0)
        grid.addLayout(key_line, 2, 1, 1, 3)
        grid.addWidget(self.key_status, 3, 1, 1, 3)
        grid.addLayout(test_line, 4, 1, 1, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        for label, field in (
            (self.model_label, self.model),
            (self.base_label, self.base),
            (self.key_label, self.key),
        ):
            label.setBuddy(field)  # screen readers name each field by its label

    def model_text(self) -> str:
        return self.model.currentText().strip()

    def set_model(self, value: str) -> None:
        index = self.model.findText(value) if value else -1
        self.model.setCurrentIndex(index)
        self.model.setEditText(value)


class ModelPage(DrawerPage):
    """Chooses the model of each purpose, stores API keys in the keyring, tests connections."""

    NAME = "model"
    ORDER = 50

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.secrets = context.app.secrets
        self.keyring_status: KeyringStatus | None = None
        self.dirty = False
        self._filling = False
        self._saving = False
        self._loaded = False
        self._status: tuple[str, Any] | None = None  # last page-level message, as data
        self.shown: dict[str, Any] = {}  # the saved values the fields were last filled with
        self._build()
        self._connect()
        self.retranslate()
        self._update_actions()

    def _build(self) -> None:
        """The keyring notice, a section per purpose, the general options and the actions."""
        self.keyring_message = QLabel()
        self.keyring_message.setObjectName("model-keyring-message")
        self.keyring_message.setWordWrap(True)
        # The quota banner's "degraded" colours: a warning that does not block the page.
        self.keyring_message.setStyleSheet(
            "background: #fff7e0; border: 1px solid #efd28a; border-radius: 6px; padding: 8px;"
        )
        self.keyring_message.hide()
        self.rows = {purpose: _PurposeRow(purpose) for purpose in PURPOSES}

        self.general = QGroupBox()
        self.general.setObjectName("model-general")
        self.extraction_enabled = QCheckBox()
        self.extraction_enabled.setObjectName("model-extraction-enabled")
        self.reviewer = QComboBox()
        self.reviewer.setObjectName("model-reviewer-mode")
        self.reviewer_label = QLabel()
        general = QHBoxLayout(self.general)
        general.addWidget(self.extraction_enabled)
        general.addSpacing(24)
        general.addWidget(self.reviewer_label)
        general.addWidget(self.reviewer)
        general.addStretch(1)

        self.status = QLabel()
        self.status.setObjectName("model-status")
        self.status.setWordWrap(True)
        self.revert_button = QPushButton()
        self.revert_button.setObjectName("model-revert")
        self.save_button = QPushButton()
        self.save_button.setObjectName("model-save")
        self.save_button.setProperty("primary", True)

        content = QWidget()
        content_layout = QVBoxLayout(content)
        content_layout.addWidget(self.keyring_message)
        for row in self.rows.values():
            content_layout.addWidget(row.group)
        content_layout.addWidget(self.general)
        content_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        actions = QHBoxLayout()
        actions.addWidget(self.status, 1)
        actions.addWidget(self.revert_button)
        actions.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addLayout(actions)

    def _connect(self) -> None:
        for row in self.rows.values():
            row.model.editTextChanged.connect(self._edited)
            row.model.editTextChanged.connect(lambda _t, r=row: self._render_key_status(r))
            row.base.textChanged.connect(self._edited)
            row.key.textChanged.connect(lambda _t, r=row: self._update_key_buttons(r))
            row.key.returnPressed.connect(lambda r=row: self._save_key(r))
            row.save_key.clicked.connect(lambda _c=False, r=row: self._save_key(r))
            row.clear_key.clicked.connect(lambda _c=False, r=row: self._clear_key(r))
            row.test.clicked.connect(lambda _c=False, r=row: self._test(r))
        # The default model also serves the purposes that have none: their env hints follow it.
        self.rows["default"].model.editTextChanged.connect(self._render_all_key_status)
        self.extraction_enabled.toggled.connect(self._edited)
        self.reviewer.currentIndexChanged.connect(self._edited)
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        # Ctrl+S acts only while focus is inside this page (the window owns F5 = refresh,
        # which re-queries without dropping edits; Revert drops them).
        self.save_shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Save), self)
        self.save_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.save_shortcut.activated.connect(self.save)

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Model & keys")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        titles = {
            "default": self.tr("Default model"),
            "extraction": self.tr("Extraction model"),
            "organizer": self.tr("Organizer model"),
        }
        helps = {
            "default": self.tr(
                "Used for chat, and for extraction and the organizer when they have no model "
                "of their own."
            ),
            "extraction": self.tr(
                "Reads each conversation turn and proposes memories. Empty = use the default model."
            ),
            "organizer": self.tr(
                "Tidies memories (merges, rewrites, deletions). Empty = use the default model."
            ),
        }
        for purpose, row in self.rows.items():
            row.group.setTitle(titles[purpose])
            row.help.setText(helps[purpose])
            row.model_label.setText(self.tr("Model:"))
            row.base_label.setText(self.tr("Base URL:"))
            row.key_label.setText(self.tr("API key:"))
            row.model.setToolTip(
                self.tr("A litellm model name: provider/model, e.g. openai/gpt-4o-mini")
            )
            row.base.setToolTip(
                self.tr("Only for OpenAI-compatible servers and local models (Ollama, vLLM).")
            )
            if purpose == "default":
                row.model_edit.setPlaceholderText(self.tr("e.g. openai/gpt-4o-mini"))
            else:
                row.model_edit.setPlaceholderText(self.tr("empty = use the default model"))
            row.base.setPlaceholderText(self.tr("empty = the provider's own server"))
            row.save_key.setText(self.tr("Save key"))
            row.clear_key.setText(self.tr("Clear key"))
            row.clear_key.setToolTip(self.tr("Delete this purpose's key from the keyring"))
            row.test.setText(self.tr("Test connection"))
            row.test.setToolTip(self.tr("Send one tiny request to the model shown above"))
            self._render_key_status(row)
            self._render_outcome(row)
        self.general.setTitle(self.tr("Extraction options"))
        self.extraction_enabled.setText(self.tr("Extract memories after each conversation turn"))
        self.reviewer_label.setText(self.tr("Reviewer mode:"))
        reviewer_labels = {
            "strict": self.tr("Strict: only what the user stated explicitly"),
            "standard": self.tr("Standard: explicit statements and clear preferences"),
            "lenient": self.tr("Lenient: also likely-useful facts, reviewed later"),
        }
        current = self.reviewer.currentData()
        self._filling, was_filling = True, self._filling
        self.reviewer.clear()
        for mode in config.REVIEWER_MODES:
            self.reviewer.addItem(reviewer_labels.get(mode, mode), mode)
        self._select_reviewer(current or config.DEFAULT_REVIEWER_MODE)
        self._filling = was_filling
        self.save_button.setText(self.tr("Save settings"))
        self.save_button.setToolTip(self.tr("Save the models and options (Ctrl+S)"))
        self.revert_button.setText(self.tr("Revert"))
        self.revert_button.setToolTip(self.tr("Discard unsaved changes"))
        self._render_keyring_message()
        self._render_status()

    def _select_reviewer(self, mode: str) -> None:
        index = self.reviewer.findData(mode)
        self.reviewer.setCurrentIndex(max(index, 0))

    def _render_keyring_message(self) -> None:
        status = self.keyring_status
        if status is None or status.available:
            self.keyring_message.hide()
            return
        # The core's message says what to do; ui/strings.py holds it in the person's language.
        help_text = error_text(KeyringUnavailable(status.message))
        self.keyring_message.setText(
            self.tr("API keys cannot be stored on this system.") + "\n" + help_text
        )
        self.keyring_message.show()

    def _render_key_status(self, row: _PurposeRow) -> None:
        model = row.model_text() or self.rows["default"].model_text()
        variable = provider_key_variable(model)
        state = row.key_state
        if state == KEY_OWN:
            text = self.tr("A key is stored in the system keyring.")
        elif state == KEY_INHERITED:
            text = self.tr("No key of its own: the default model's key is used.")
        elif variable:
            text = self.tr("No key stored; the environment variable %1 is used.").replace(
                "%1", variable
            )
        elif state == KEY_NONE:
            text = self.tr("No key stored.")
        elif self.keyring_status is None:
            text = self.tr("Checking the keyring…")
        else:
            # The keyring notice above the form says it once for the page (issue 14).
            text = ""
        row.key_status.setText(text)
        if self._keys_usable():
            row.key.setPlaceholderText(self.tr("Paste a key to store it in the system keyring"))
        else:  # not read yet, or disabled: the page's keyring notice says why
            row.key.setPlaceholderText("")

    def _render_all_key_status(self) -> None:
        for row in self.rows.values():
            self._render_key_status(row)

    def _render_outcome(self, row: _PurposeRow) -> None:
        if row.outcome is None:
            row.test_result.setText("")
            row.test_result.setToolTip("")
            return
        kind, value = row.outcome
        if kind == "running":
            row.test_result.setText(self.tr("Testing…"))
            row.test_result.setToolTip("")
        elif kind == "ok":
            text = self.tr("%1 answered in %2 ms.").replace("%1", value.model)
            text = text.replace("%2", str(value.latency_ms))
            if value.reply:
                text += " " + self.tr("Reply: “%1”").replace("%1", value.reply)
            row.test_result.setText(text)
            row.test_result.setToolTip("")
        else:
            row.test_result.setText(self._failure_text(value))
            row.test_result.setToolTip(error_detail(value))
        row.test_result.setProperty("outcome", kind)
        row.test_result.setStyleSheet(
            {"ok": "color: #2e7d32;", "failed": "color: #c62828;"}.get(kind, "")
        )

    def _failure_text(self, exc: BaseException) -> str:
        """What a failed test means, in the person's language (the detail is the tooltip)."""
        return error_text(exc)  # ui/strings.py holds the meaning of every llm_* code

    def _render_status(self) -> None:
        if self._status is None:
            text = self.tr("Unsaved changes.") if self.dirty else ""
        else:
            kind, value = self._status
            if kind == "saved":
                text = self.tr("Settings saved.")
            elif kind == "key-saved":
                text = self.tr("The key is stored in the system keyring.")
            elif kind == "key-cleared":
                text = self.tr("The key was deleted from the keyring.")
            elif kind == "key-missing":
                text = self.tr("No key was stored for this model.")
            else:
                text = error_text(value)
                if detail := error_detail(value):
                    text += "\n" + self.tr("Details: %1").replace("%1", detail)
        self.status.setText(text)
        self.status.setStyleSheet("color: #c62828;" if self._status_failed() else "")

    def _status_failed(self) -> bool:
        return self._status is not None and self._status[0] == "error"

    def _show_status(self, kind: str | None, value: Any = None) -> None:
        self._status = None if kind is None else (kind, value)
        self._render_status()

    # --- state ------------------------------------------------------------------------------
    def _edited(self, *_args: object) -> None:
        if self._filling:
            return
        self.dirty = True
        self._show_status(None)
        self._update_actions()

    def _update_actions(self) -> None:
        self.save_button.setEnabled(self.dirty and self._loaded and not self._saving)
        self.revert_button.setEnabled(self.dirty and not self._saving)

    def _keys_usable(self) -> bool:
        return self.keyring_status is not None and self.keyring_status.available

    def _update_key_buttons(self, row: _PurposeRow) -> None:
        usable = self._keys_usable() and not row.key_busy
        row.key.setEnabled(self._keys_usable())
        row.save_key.setEnabled(usable and bool(row.key.text()))
        row.clear_key.setEnabled(usable and row.key_state == KEY_OWN)

    # --- loading ----------------------------------------------------------------------------
    async def load(self) -> None:
        """Fetch settings and key states; unsaved edits are kept (only Revert drops them)."""
        await self._load_keys()
        try:
            view = await self.client.call("settings_get")
        except MemoryDomainError as exc:  # a broken settings file: say so, keep the fields
            self.error_did_occur.emit(exc)
            self._show_status("error", exc)
            return
        if not self.dirty:
            self._fill(view["settings"])
        self._loaded = True
        self._update_actions()

    async def _load_keys(self) -> None:
        try:
            found = await self.client.bridge.run_store(read_key_states, self.secrets)
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.keyring_status = found.status
        for purpose, row in self.rows.items():
            row.key_state = found.states[purpose]
            if not found.status.available:
                row.key.clear()  # never keep a typed key where it cannot be stored
            self._update_key_buttons(row)
            self._render_key_status(row)
        self._render_keyring_message()

    def _fill(self, settings: dict[str, Any]) -> None:
        self._filling = True
        try:
            for purpose, row in self.rows.items():
                choice = settings.get(SETTINGS_KEYS[purpose]) or {}
                row.set_model(str(choice.get("model", "")))
                row.base.setText(str(choice.get("api_base", "")))
            self.extraction_enabled.setChecked(bool(settings.get("extraction_enabled", True)))
            self._select_reviewer(str(settings.get("reviewer_mode", config.DEFAULT_REVIEWER_MODE)))
        finally:
            self._filling = False
        self.shown = self.form_values()
        self.dirty = False
        self._render_all_key_status()
        self._render_status()

    def revert(self) -> None:
        """Drop unsaved edits and show what is saved."""
        self.dirty = False
        self._show_status(None)
        self._update_actions()
        self.refresh()

    # --- saving -----------------------------------------------------------------------------
    def form_values(self) -> dict[str, Any]:
        """What the fields show, in the shape of the settings object."""
        values: dict[str, Any] = {
            SETTINGS_KEYS[purpose]: {"model": row.model_text(), "api_base": row.base.text().strip()}
            for purpose, row in self.rows.items()
        }
        values["extraction_enabled"] = self.extraction_enabled.isChecked()
        values["reviewer_mode"] = str(self.reviewer.currentData())
        return values

    def settings_patch(self) -> dict[str, Any]:
        """Only what was edited since the last load, as a partial settings object.

        Why: the Organizer page edits the organizer model too; sending untouched fields
        would put back values another page changed in the meantime.
        """
        patch: dict[str, Any] = {}
        for key, value in self.form_values().items():
            before = self.shown.get(key)
            if isinstance(value, dict):
                changed = {k: v for k, v in value.items() if (before or {}).get(k) != v}
                if changed:
                    patch[key] = changed
            elif value != before:
                patch[key] = value
        return patch

    def save(self) -> None:
        """Save the models and options (the core validates; a bad value saves nothing)."""
        if self._saving or not self._loaded:
            return
        self._saving = True
        self._update_actions()
        self.client.bridge.spawn(self._save(self.settings_patch()))

    async def _save(self, patch: dict[str, Any]) -> None:
        try:
            view = await self.client.call("settings_save_memory", {"settings": patch})
        except MemoryDomainError as exc:
            self._show_status("error", exc)
            self._focus_field(getattr(exc, "field", None))
            self.error_did_occur.emit(exc)
            return
        finally:  # after a bug too: Save is offered again
            self._saving = False
            self._update_actions()
        self._fill(view["settings"])
        self._show_status("saved")
        self._update_actions()
        self.changes_did_apply.emit()

    def _focus_field(self, field: str | None) -> None:
        """Put the cursor in the field the core named (e.g. `extraction.api_base`)."""
        if not field:
            return
        head, _, tail = field.partition(".")
        if head == "reviewer_mode":
            self.reviewer.setFocus()
            return
        for purpose, key in SETTINGS_KEYS.items():
            if head == key:
                row = self.rows[purpose]
                (row.model if tail == "model" else row.base).setFocus()
                return

    # --- keys -------------------------------------------------------------------------------
    def _save_key(self, row: _PurposeRow) -> None:
        secret = row.key.text()
        row.key.clear()  # the typed key leaves the widget at once, whatever happens next
        if not secret or row.key_busy or not self._keys_usable():
            return
        self._run_key(row, self._store_key(row.purpose, secret))

    def _clear_key(self, row: _PurposeRow) -> None:
        if row.key_busy or not self._keys_usable():
            return
        self._run_key(row, self._delete_key(row.purpose))

    def _run_key(self, row: _PurposeRow, job: Any) -> None:
        row.key_busy = True
        self._update_key_buttons(row)
        self.client.bridge.spawn(self._key_job(row, job))

    async def _store_key(self, purpose: str, secret: str) -> str:
        await self.client.bridge.run_store(self.secrets.set, purpose, secret)
        return "key-saved"

    async def _delete_key(self, purpose: str) -> str:
        existed = await self.client.bridge.run_store(self.secrets.clear, purpose)
        return "key-cleared" if existed else "key-missing"

    async def _key_job(self, row: _PurposeRow, job: Any) -> None:
        failure: BaseException | None = None
        try:
            outcome = await job
        except MemoryDomainError as exc:  # shown on the page and in the status bar
            failure = exc
        finally:  # after a bug too: the key buttons work again
            row.key_busy = False
            self._update_key_buttons(row)
        # An embedding provider may use this key: the secrets forgot the keys they kept, so
        # the next search builds its chain with the new one.
        # The states are re-read before the outcome shows, so both always agree.
        await self._load_keys()
        if failure is not None:
            self._show_status("error", failure)
            self.error_did_occur.emit(failure)
            return
        self._show_status(outcome)
        self.changes_did_apply.emit()

    # --- connection test --------------------------------------------------------------------
    def _test(self, row: _PurposeRow) -> None:
        if not row.test.isEnabled():
            return
        # A purpose without its own model is tested as it runs: with the default model.
        source = row if row.model_text() else self.rows["default"]
        row.test.setEnabled(False)
        row.outcome = ("running", None)
        self._render_outcome(row)
        self.client.bridge.spawn(
            self._probe(row, source.purpose, source.model_text(), source.base.text())
        )

    async def _probe(self, row: _PurposeRow, purpose: str, model: str, api_base: str) -> None:
        try:
            prepared = await self.client.bridge.run_store(
                self.context.app.prepare_probe, purpose, model=model, api_base=api_base
            )
            result = await self.context.app.check_connection(prepared)
        except MemoryDomainError as exc:  # a typed failure is the test's answer, shown here
            row.outcome = ("failed", exc)
        else:
            row.outcome = ("ok", result)
        finally:
            # After a bug too (the window's one handler shows it): no row stays "Testing…".
            if row.outcome is not None and row.outcome[0] == "running":
                row.outcome = None
            row.test.setEnabled(True)
            self._render_outcome(row)
