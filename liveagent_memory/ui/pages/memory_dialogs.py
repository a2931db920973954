"""The Memories page's dialogs: the editor (write a new memory, change one) and the history
view (every version's text and diffs of one memory; restore one). At most one of each is open.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import Key, Row, key_of
from liveagent_memory.ui.pages.base import PagePart
from liveagent_memory.ui.payloads import target, update_payload, write_payload
from liveagent_memory.ui.strings import error_text
from liveagent_memory.ui.widgets.history_view import CURRENT, HistoryView
from liveagent_memory.ui.widgets.memory_editor import MemoryEditor

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage
    from liveagent_memory.ui.pages.memory_filters import Place

# After a change: the memory to select once the list reloads, and the sentence that says so.
AfterChange = Callable[[Key, str], Awaitable[None]]


class MemoryDialogs(QObject, PagePart):
    """Opens the editor and the history view over `page` and runs what they ask for.

    A successful save or restore awaits `after_change(key, notice)`: the page selects that
    memory, says `notice` and reloads.

    Signals:
        error_did_occur(object): a command failed with a MemoryDomainError (the open dialog
            shows it too).
        edit_did_save(object, object): an edit was saved: the memory's list row and the
            memory_update result (its `change` is what Undo takes back).
    """

    error_did_occur = Signal(object)
    edit_did_save = Signal(object, object)

    def __init__(self, page: DrawerPage, after_change: AfterChange) -> None:
        super().__init__(page)
        self.page = page
        self.after_change = after_change
        self.editor: MemoryEditor | None = None
        self.history: HistoryView | None = None

    def _dialog_closed(self, dialog: QObject) -> None:
        if self.editor is dialog:
            self.editor = None
        if self.history is dialog:
            self.history = None
        dialog.deleteLater()

    # --- create and edit --------------------------------------------------------------------
    def new(self, place: Place) -> None:
        """Open the editor on a new memory at `place`."""
        editor = MemoryEditor(
            projects=place.projects, scope=place.scope, workdir=place.workdir, parent=self.page
        )
        self._open_editor(editor)

    def edit(self, data: dict[str, Any]) -> None:
        """Open the editor on `data` (a memory_read result)."""
        self._open_editor(MemoryEditor(data=data, parent=self.page))

    def _open_editor(self, editor: MemoryEditor) -> None:
        if self.editor is not None:
            self.editor.reject()
        self.editor = editor
        editor.save_requested.connect(
            lambda values: self.client.bridge.spawn(self._save(editor, values))
        )
        editor.finished.connect(lambda _result: self._dialog_closed(editor))
        editor.setWindowModality(Qt.WindowModality.WindowModal)
        editor.open()

    async def _save(self, editor: MemoryEditor, values: dict[str, Any]) -> None:
        editor.set_busy(True)
        try:
            if editor.data is None:
                result = await self.client.call("memory_write", write_payload(values))
            else:
                payload = update_payload(editor.data, values)
                if payload is None:  # nothing changed: nothing to write
                    editor.accept()
                    return
                result = await self.client.call("memory_update", payload)
        except MemoryDomainError as exc:
            if self.editor is editor:  # still open: the person sees why, with their text
                editor.show_failure(exc)  # its code's sentence and the core's details
            self.error_did_occur.emit(exc)
            return
        finally:
            if self.editor is editor:  # after a bug too: Save can be pressed again
                editor.set_busy(False)
        if self.editor is editor:
            editor.accept()
        if editor.data is not None:
            self.edit_did_save.emit(dict(editor.data["entry"]), result)
        key = (result["scope"], result["workdir_hash"], result["slug"])
        await self.after_change(key, self._saved_text(result))

    def _saved_text(self, result: dict[str, Any]) -> str:
        if result.get("auto_downgraded"):
            # SPEC 1.4: a downgrade is reported, not hidden.
            return self.tr(
                "Saved with %1 confidence: high needs a verbatim quote of at least 5 "
                "characters, medium needs a quote.",
            ).replace("%1", str(result.get("applied_confidence")))
        if result.get("risk_flag"):
            return self.tr(
                "Saved and marked for review: the text reads like an instruction to the agent.",
            )
        return self.tr("Saved.")

    # --- history ----------------------------------------------------------------------------
    def show_history(self, entry: Row) -> None:
        """Open the history of the memory `entry` (a list row) and load its versions."""
        if self.history is not None:
            self.history.reject()
        view = HistoryView(entry["slug"], parent=self.page)
        self.history = view
        view.restore_requested.connect(
            lambda version: self.client.bridge.spawn(self._restore_version(view, entry, version))
        )
        view.finished.connect(lambda _result: self._dialog_closed(view))
        view.show()
        self.client.bridge.spawn(self._load_history(view, entry))

    async def _load_history(self, view: HistoryView, entry: Row) -> None:
        try:
            result = await self.client.call("memory_history", {**target(entry), "with_text": True})
        except MemoryDomainError as exc:
            if self.history is view:
                view.show_error(error_text(exc))
            self.error_did_occur.emit(exc)
            return
        if self.history is view:
            view.set_entries(
                result["entries"],
                current=result["current_text"],
                current_parts=result["current_parts"],
            )

    async def _restore_version(self, view: HistoryView, entry: Row, version: str) -> None:
        try:
            await self.client.call("memory_restore", {**target(entry), "version": version})
        except MemoryDomainError as exc:
            if self.history is view:
                view.show_error(error_text(exc))
            self.error_did_occur.emit(exc)
            return
        text = self.tr("Restored. The text it replaced is the newest version in the history.")
        if self.history is view:
            view.show_notice(text)
        await self.after_change(key_of(entry), text)
        if self.history is view:
            await self._load_history(view, entry)
        if self.history is view:
            view.select_version(CURRENT)  # the restored text, now the current version
