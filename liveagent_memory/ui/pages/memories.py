"""The Memories page: filter and search, read, create, edit, accept, delete, undo, history
and the keyboard review mode.

The page composes its parts and holds what they share (the memory shown): the search and
filter bar (`memory_filters.py`), the table (`memory_list.py`), the problems panel
(`memory_problems.py`), the commands and their buttons (`memory_actions.py`), a row's own
actions and context menu (`memory_row_actions.py`), the editor and history dialogs
(`memory_dialogs.py`), Undo (`memory_undo.py`: the last accept, edit or delete) and the review
mode (`memory_review.py`), shown in place of the table. Accepting and deleting from the table
run here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QLabel, QSplitter, QStackedWidget, QVBoxLayout, QWidget

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.models import Key, Row, key_of, loop_is_running
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.memory_actions import DeleteConfirmBar, MemoryActions
from liveagent_memory.ui.pages.memory_dialogs import MemoryDialogs
from liveagent_memory.ui.pages.memory_filters import MemoryFilterBar
from liveagent_memory.ui.pages.memory_list import MemoryListPane
from liveagent_memory.ui.pages.memory_problems import ProblemsPanel
from liveagent_memory.ui.pages.memory_review import DELETE_REASON, ReviewMode
from liveagent_memory.ui.pages.memory_row_actions import RowActions
from liveagent_memory.ui.pages.memory_sync import SyncConflictDialog
from liveagent_memory.ui.pages.memory_undo import ACCEPT, DELETE, EDIT, MemoryUndo
from liveagent_memory.ui.payloads import batch_failure, batch_target, target
from liveagent_memory.ui.widgets.evidence_view import EvidenceView
from liveagent_memory.ui.widgets.history_view import HistoryView
from liveagent_memory.ui.widgets.memory_editor import MemoryEditor

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

# The table and the detail pane share the page's width 2:1 until the person moves the splitter:
# at 1024 px the table's title column keeps room to be read beside four other columns.
SPLIT_STRETCH = (2, 1)


class MemoriesPage(DrawerPage):
    """Lists memories with filters and search; shows, changes, creates and restores them."""

    NAME = "memories"
    ORDER = 10

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.current: Row | None = None  # the memory shown in the detail pane (its entry)
        self.current_data: dict[str, Any] | None = None  # ...and its memory_read result

        self._build_parts()
        self._name_parts()
        self._build_layout()
        self._connect()
        # Labelled once laid out: the splitter divides by its panes' size hints when they
        # are added, and the detail pane's hint then is that of its unlabelled buttons.
        self.retranslate()
        self._show_nothing()

    # --- construction -----------------------------------------------------------------------
    def _build_parts(self) -> None:
        self.problems_panel = ProblemsPanel()
        self.sync_dialog: SyncConflictDialog | None = None  # the open conflict, if any
        self.filter_bar = MemoryFilterBar(beside_search=self.problems_panel.button)
        self.list_pane = MemoryListPane(self)
        self.detail = EvidenceView()
        self.notice = QLabel()
        self.notice.setObjectName("memory_notice")
        self.notice.setWordWrap(True)
        self.notice.setProperty("role", "muted")
        self.confirm_bar = DeleteConfirmBar()
        self.memory_actions = MemoryActions(self)
        self.row_actions = RowActions(
            self, home=self.context.app.home, selection=self.list_pane.selected_entries
        )
        self.dialogs = MemoryDialogs(self, self._changed_to)
        self.undo = MemoryUndo(self)
        self.review_mode = ReviewMode(self, self.undo, self.dialogs)

    def _name_parts(self) -> None:
        """The parts' widgets and actions under the page's names: callers (the UI tests among
        them) reach them through the page, as before the parts had classes of their own."""
        bar, pane, actions = self.filter_bar, self.list_pane, self.memory_actions
        self.search = bar.search
        self.scope, self.project, self.type = bar.scope, bar.project, bar.type
        self.review, self.confidence, self.risk = bar.review, bar.confidence, bar.risk
        self.problems_button = self.problems_panel.button
        self.problems_list = self.problems_panel.list
        self.model, self.list, self.count = pane.model, pane.list, pane.count
        self.confirm_label = self.confirm_bar.label
        self.confirm_button = self.confirm_bar.confirm_button
        self.cancel_button = self.confirm_bar.cancel_button
        self.find_action, self.new_action = actions.find_action, actions.new_action
        self.edit_action, self.accept_action = actions.edit_action, actions.accept_action
        self.delete_action, self.undo_action = actions.delete_action, actions.undo_action
        self.history_action = actions.history_action
        self.copy_slug_action = self.row_actions.copy_slug_action
        self.open_file_action = self.row_actions.open_file_action
        self.reveal_action = self.row_actions.reveal_action
        self.new_button, self.edit_button = actions.new_button, actions.edit_button
        self.accept_button, self.delete_button = actions.accept_button, actions.delete_button
        self.undo_button, self.history_button = actions.undo_button, actions.history_button
        self.review_action, self.review_button = actions.review_action, actions.review_button

    @property
    def editor(self) -> MemoryEditor | None:
        """The open editor, if any."""
        return self.dialogs.editor

    @property
    def history(self) -> HistoryView | None:
        """The open history view, if any."""
        return self.dialogs.history

    def _build_layout(self) -> None:
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addWidget(self.notice)
        right_layout.addWidget(self.confirm_bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("memory_split")
        split.addWidget(self.list_pane)
        split.addWidget(right)
        split.setStretchFactor(0, SPLIT_STRETCH[0])
        split.setStretchFactor(1, SPLIT_STRETCH[1])
        split.setSizes([1000 * part for part in SPLIT_STRETCH])  # shares, not pixels
        browse = QWidget()
        browse_layout = QVBoxLayout(browse)
        browse_layout.setContentsMargins(0, 0, 0, 0)
        browse_layout.addWidget(self.filter_bar)
        browse_layout.addWidget(self.problems_panel)
        browse_layout.addWidget(split, 1)
        # Below both panes, not under the detail: a row of buttons there would keep the
        # detail pane wide and leave the table too narrow to read at 1024 px.
        browse_layout.addLayout(self.memory_actions.button_row())
        self.stack = QStackedWidget()
        self.stack.addWidget(browse)
        self.stack.addWidget(self.review_mode)
        self.browse = browse
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack)

    def _connect(self) -> None:
        actions = self.memory_actions
        for action, slot in (
            (actions.find_action, self.filter_bar.focus_search),
            (actions.new_action, self._new),
            (actions.edit_action, self._edit),
            (actions.accept_action, self._accept),
            (actions.delete_action, self._delete),
            (actions.undo_action, self._undo),
            (actions.history_action, self._show_history),
            (actions.review_action, self._start_review),
        ):
            action.triggered.connect(lambda _checked=False, slot=slot: slot())
        self.filter_bar.filters_did_change.connect(self._reload_list)
        # A notice is about what the person just did: once they look elsewhere it is stale.
        self.filter_bar.filters_did_change.connect(self.notice.clear)
        self.list_pane.sort_did_change.connect(self._reload_list)
        self.list_pane.selection_did_change.connect(self._apply_selection)
        self.list_pane.selection_did_change.connect(self.row_actions.enable)
        self.list_pane.person_did_select.connect(self.notice.clear)
        self.list.customContextMenuRequested.connect(self._row_menu)
        self.row_actions.did_act.connect(self.notice.setText)
        self.row_actions.error_did_occur.connect(self.error_did_occur.emit)
        self.list_pane.row_activated.connect(self._edit)
        self.list_pane.error_did_occur.connect(self.error_did_occur.emit)
        self.model.total_did_change.connect(self._reload_list)
        self.confirm_bar.confirmed.connect(
            lambda rows: self.client.bridge.spawn(self._delete_rows(rows))
        )
        self.dialogs.error_did_occur.connect(self.error_did_occur.emit)
        self.dialogs.edit_did_save.connect(self._edited)
        self.undo.offer_did_change.connect(lambda: actions.set_undo(self.undo.kind))
        self.undo.error_did_occur.connect(self.error_did_occur.emit)
        self.review_mode.left.connect(self._leave_review)
        self.review_mode.memories_did_change.connect(self.changes_did_apply.emit)
        self.review_mode.error_did_occur.connect(self.error_did_occur.emit)
        self.problems_panel.resolve_requested.connect(
            lambda path: self.client.bridge.spawn(self._resolve_conflict(path))
        )

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Memories")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self.filter_bar.retranslate()
        self.memory_actions.retranslate()
        self.row_actions.retranslate()
        self.problems_panel.retranslate()
        self.confirm_bar.retranslate()
        self.list_pane.retranslate()
        self.detail.retranslate()
        self.notice.clear()  # said in the language before: stale once the words change
        self.review_mode.retranslate()
        if self.current is None and not self.list_pane.selected_rows():
            self._show_nothing()

    # --- loading ----------------------------------------------------------------------------
    def show_project(self, workdir_hash: str) -> None:
        """Show every memory of one project ('' = the global scope), other filters cleared."""
        self.filter_bar.show_project(workdir_hash)
        self.list_pane.selected_key = None
        self.list_pane.fallback_row = 0
        self.refresh()

    def show_memory(self, scope: str, workdir_hash: str, slug: str) -> None:
        """Show one memory selected in the list of its place, the other filters cleared (the
        Journal page's link from an entry to the memory it came from)."""
        if self.stack.currentWidget() is self.review_mode:
            self._leave_review()
        self.filter_bar.show_project(workdir_hash if scope == "project" else "")
        self.list_pane.selected_key = (scope, workdir_hash, slug)
        self.list_pane.fallback_row = 0
        self.refresh()

    async def load(self) -> None:
        """Load the list for the current filters, then the project list and problems."""
        await self._load_list()
        await self._load_side()

    def _reload_list(self) -> None:
        if not loop_is_running():
            return  # Qt event outside the loop (shutting down): nothing can load now
        self.client.bridge.preempt(f"{self.NAME}-load", self._load_list())

    async def _load_list(self) -> None:
        # Journal days are the Journal page's: never a deletable row here, listed or found.
        payload = {**self.filter_bar.payload(), "include_daily": False}
        if await self.list_pane.load(self.filter_bar.query(), payload):
            if not self.list_pane.reselect():
                self._show_nothing()

    async def _load_side(self) -> None:
        """The projects that have memories (the project filter) and unreadable files."""
        try:
            quota = await self.client.call("memory_quota_summary", {})
            problems = (await self.client.call("memory_problems", {}))["problems"]
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.filter_bar.set_projects([s for s in quota["scopes"] if s["scope"] == "project"])
        self.problems_panel.show_problems(problems)

    # --- selection and detail ---------------------------------------------------------------
    def _apply_selection(self) -> None:
        if not loop_is_running():
            return  # Qt event outside the loop (shutting down): nothing can load now
        self.confirm_bar.cancel()
        rows = self.list_pane.selected_rows()
        if len(rows) > 1:
            self.client.bridge.preempt(f"{self.NAME}-detail", self._show_many(rows))
        elif rows:
            self.list_pane.fallback_row = rows[0]
            self.client.bridge.preempt(f"{self.NAME}-detail", self._load_detail(rows[0]))
        else:
            self._show_nothing()

    async def _show_many(self, rows: list[int]) -> None:
        self.current = self.current_data = None
        loaded = [entry for entry in map(self.model.entry, rows) if entry is not None]
        self.detail.show_selection(loaded, len(rows))
        self._update_actions()

    async def _load_detail(self, row: int) -> None:
        entries = await self.model.ensure_rows([row])
        if not entries:
            return
        self.list_pane.selected_key = key_of(entries[0])
        try:
            data = await self.client.call("memory_read", target(entries[0]))
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self._show_detail(data)

    def _show_detail(self, data: dict[str, Any]) -> None:
        self.current = data["entry"]
        self.current_data = data
        self.detail.show_memory(data)
        self._update_actions()

    def _show_nothing(self) -> None:
        self.current = self.current_data = None
        if self.model.rowCount():
            text = self.tr("No memory selected.")
        elif self.filter_bar.narrowed():
            text = self.tr("No memory matches the search and filters.")
        else:
            text = self.tr(
                "No memories yet. An agent adds them as it works, or press New to write one."
            )
        self.detail.show_message(text)
        self._update_actions()

    def _shown(self) -> Row | None:
        """The memory shown, if it is also the one (and only one) selected in the list."""
        rows = self.list_pane.selected_rows()
        if self.current is None or len(rows) != 1:
            return None
        entry = self.model.entry(rows[0])
        return self.current if entry is not None and key_of(entry) == key_of(self.current) else None

    def _update_actions(self) -> None:
        rows = self.list_pane.selected_rows()
        many = len(rows) > 1
        loaded = [e for e in map(self.model.entry, rows) if e is not None] if many else []
        self.memory_actions.enable(current=self.current, selected=len(rows), loaded=loaded)
        self.row_actions.enable()

    def _row_menu(self, point: QPoint) -> None:
        """A row's context menu: its own actions, then the page's (edit, accept, …)."""
        if not self.list.indexAt(point).isValid():
            return
        self.row_actions.enable()  # the click that opened the menu may have just selected
        actions = self.memory_actions
        more = [
            actions.edit_action,
            actions.accept_action,
            actions.history_action,
            actions.delete_action,
        ]
        menu = self.row_actions.menu(more, parent=self)
        menu.aboutToHide.connect(menu.deleteLater)
        menu.popup(self.list.viewport().mapToGlobal(point))

    # --- accept, delete, undo ---------------------------------------------------------------
    def _accept(self) -> None:
        rows = self.list_pane.selected_rows()
        if len(rows) > 1:
            self.client.bridge.spawn(self._accept_many(rows))
        elif (entry := self._shown()) is not None and entry["unreviewed"]:
            self.client.bridge.spawn(self._accept_one(entry))

    async def _accept_one(self, entry: Row) -> None:
        try:
            result = await self.client.call("memory_accept", target(entry))
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.undo.remember(ACCEPT, [(entry, str(result["change"]))])
        self.notice.setText(self.tr("Accepted."))
        await self._changed()

    async def _accept_many(self, rows: list[int]) -> None:
        entries = [e for e in await self.model.ensure_rows(rows) if e.get("unreviewed")]
        if not entries:
            self.notice.setText(self.tr("The selected memories are already reviewed."))
            return
        items = [{"op": "accept", **batch_target(e)} for e in entries]
        try:
            result = await self.client.call("memory_apply_batch", {"actor": "user", "items": items})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if (failure := batch_failure(result)) is not None:
            self.error_did_occur.emit(failure)
        self.undo.remember_batch(ACCEPT, entries, result)
        self.notice.setText(self.tr("Accepted %n memories.", "", int(result["applied"])))
        await self._changed()

    def _delete(self) -> None:
        rows = self.list_pane.selected_rows()
        if len(rows) > 1:
            self.confirm_bar.ask(rows)
        elif (entry := self._shown()) is not None:
            self.client.bridge.spawn(self._delete_many([entry]))

    async def _delete_rows(self, rows: list[int]) -> None:
        await self._delete_many(await self.model.ensure_rows(rows))

    async def _delete_many(self, entries: list[Row]) -> None:
        if not entries:
            return
        try:
            if len(entries) == 1:
                payload = {**target(entries[0]), "actor": "user", "reason": DELETE_REASON}
                result = await self.client.call("memory_delete", payload)
                self.undo.remember(DELETE, [(entries[0], str(result["change"]))])
                deleted = entries
            else:
                items = [
                    {"op": "delete", "reason": DELETE_REASON, **batch_target(e)} for e in entries
                ]
                result = await self.client.call(
                    "memory_apply_batch", {"actor": "user", "items": items}
                )
                # Undo changes only once a delete succeeded: a failed delete must not
                # replace what Undo would bring back.
                deleted = self.undo.remember_batch(DELETE, entries, result)
                if (failure := batch_failure(result)) is not None:
                    self.error_did_occur.emit(failure)
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if not deleted:
            return
        self.list_pane.selected_key = None
        if self.current is not None and key_of(self.current) in {key_of(e) for e in deleted}:
            self.current = self.current_data = None  # gone: nothing may act on it any more
        self.notice.setText(
            self.tr("Deleted %n memories. Undo (%1) brings them back.", "", len(deleted)).replace(
                "%1", self.undo_action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            )
        )
        await self._changed()

    def _edited(self, entry: Row, result: dict[str, Any]) -> None:
        """An edit was saved: Undo takes it back; the review mode moves on."""
        self.undo.remember(EDIT, [(entry, str(result["change"]))])
        if self.stack.currentWidget() is self.review_mode:
            self.review_mode.edited(entry, result)

    def _undo(self) -> None:
        if self.undo.kind is not None:
            self.client.bridge.spawn(self._undo_last())

    async def _undo_last(self) -> None:
        undone = await self.undo.undo()
        if undone is None:
            return
        kind, entries = undone
        if not entries:
            self._update_actions()
            return
        self.list_pane.selected_key = key_of(entries[0])
        notices = {
            DELETE: self.tr("Brought back %n memories.", "", len(entries)),
            ACCEPT: self.tr(
                "Undid accepting %n memories: they wait for review again.", "", len(entries)
            ),  # fmt: skip
            EDIT: self.tr("Undid the edit: the text before it is back."),
        }
        self.notice.setText(notices[kind])
        await self._changed()

    # --- review mode ------------------------------------------------------------------------
    def _start_review(self) -> None:
        """Show the review mode over the unreviewed memories of the filters' place and type."""
        self.confirm_bar.cancel()
        self.memory_actions.suspended = True
        self._update_actions()
        self.stack.setCurrentWidget(self.review_mode)
        self.review_mode.start({**self.filter_bar.payload()})

    def _leave_review(self) -> None:
        self.memory_actions.suspended = False
        self.stack.setCurrentWidget(self.browse)
        self._update_actions()
        self.list.setFocus()
        self.refresh()

    async def _changed(self) -> None:
        """After a mutation: tell the other pages, then reload (the selection is kept)."""
        self._update_actions()
        self.changes_did_apply.emit()
        await self.load()

    async def _changed_to(self, key: Key, notice: str) -> None:
        """After a save or a restore: select `key` once reloaded, and say `notice`."""
        self.error_did_clear.emit()  # e.g. "holds a secret" from the try before this save
        self.list_pane.selected_key = key
        self.notice.setText(notice)
        await self._changed()

    # --- sync conflicts ---------------------------------------------------------------------
    async def _resolve_conflict(self, path: str) -> None:
        """Show a sync conflict's two versions side by side (memory_sync.py)."""
        if self.sync_dialog is not None:
            return
        try:
            versions = await self.client.call("sync_versions", {"path": path})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        dialog = SyncConflictDialog(versions, parent=self)
        dialog.finished.connect(
            lambda result: self.client.bridge.spawn(self._send_resolution(path, dialog, result))
        )
        self.sync_dialog = dialog
        dialog.open()

    async def _send_resolution(self, path: str, dialog: SyncConflictDialog, result: int) -> None:
        """Send the person's answer (`sync_resolve`); the losing version stays in history."""
        self.sync_dialog = None
        dialog.deleteLater()
        if result != QDialog.DialogCode.Accepted:
            return
        keep, text = dialog.answer()
        payload = {"path": path, "keep": keep, **({"text": text} if text is not None else {})}
        try:
            done = await self.client.call("sync_resolve", payload)
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.error_did_clear.emit()
        self.notice.setText(
            self.tr("%1: one version kept; the other is in its history.").replace(
                "%1", str(done["slug"])
            )
        )
        await self._changed()

    # --- create, edit, history --------------------------------------------------------------
    def _new(self) -> None:
        self.dialogs.new(self.filter_bar.new_memory_place())

    def _edit(self) -> None:
        if self._shown() is not None and self.current_data is not None:
            self.dialogs.edit(self.current_data)

    def _show_history(self) -> None:
        if (entry := self._shown()) is not None:
            self.dialogs.show_history(entry)
