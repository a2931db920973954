"""The Organizer page: schedule settings, Run now with live progress, history, review queue.

Runs belong to the window's `OrganizerService` (context.organizer): the page starts, cancels and
watches them through its signals. Everything else goes through commands: the settings
(`settings_get` / `settings_save_memory`), the history (`organize_run_list`, `…_clear_history`),
one run with its report view (`organize_run_read`), and a person's choice from a manual run's
review queue (`organize_apply`). Reports an older version wrote are shown read-only.

The page composes its parts and runs what they ask for: the schedule and model form
(`organizer_settings.py`, folded under a summary line), the run bar (`organizer_run_bar.py`),
the run history (`organizer_history.py`), the review queue (`organizer_review.py`) and the
compare view of a merge (`organizer_compare.py`); a run's details and the diff of the current
decision are the page's own. `run_view.py` holds the runs' texts.

Layout (issue 14): the review queue and its diff take the page's height; the history and the
run's details share a strip above them; every part fits the window's 1024×640 minimum.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter, QTabWidget, QTextBrowser, QVBoxLayout, QWidget

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.organizer.review import DecisionGroup
from liveagent_memory.organizer.run_record import ReasonCode
from liveagent_memory.settings import Settings
from liveagent_memory.ui.models import loop_is_running
from liveagent_memory.ui.pages.base import DrawerPage
from liveagent_memory.ui.pages.organizer_compare import CompareDialog, ComparedMemory
from liveagent_memory.ui.pages.organizer_contradictions import ContradictionPanel
from liveagent_memory.ui.pages.organizer_history import RunHistoryPanel
from liveagent_memory.ui.pages.organizer_review import ReviewQueue
from liveagent_memory.ui.pages.organizer_run_bar import RunBar
from liveagent_memory.ui.pages.organizer_settings import OrganizerSettingsBox
from liveagent_memory.ui.pages.run_view import ACTIVE, empty_html, run_html
from liveagent_memory.ui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext
    from liveagent_memory.ui.organizer_service import OrganizerService

# REFERENCE A10: the panel polls every 2 s, and only while a run it did not start is active
# (a run from the CLI or another window); its own runs report through signals.
ACTIVE_POLL_MS = 2000
HISTORY_LIMIT = 100
HISTORY_HEIGHT = 130  # initial height of the history strip: about three runs; it scrolls
DIFF_WIDTH = 300  # initial width of the diff preview beside the queue (a third)
DETAILS_WIDTH = 300  # initial width of a run's details beside the history
CONTRADICTIONS_TAB = 1  # the review area's tabs: the decisions, then the contradictions


class OrganizerPage(DrawerPage):
    """Settings, Run now / Cancel with progress, run history and the review queue."""

    NAME = "organizer"
    ORDER = 20

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.organizer: OrganizerService | None = context.organizer
        self.selected_run: dict[str, Any] | None = None  # the run shown, as organize_run_read
        self._prefer: str | None = None  # the run the next history load selects

        self._build_parts()
        self._name_parts()
        self._build_layout()
        self._poll = QTimer(self)
        self._poll.setSingleShot(True)
        self._poll.setInterval(ACTIVE_POLL_MS)
        self._poll.timeout.connect(self._poll_history)
        self._connect()
        self._shortcuts()
        self.retranslate()  # once laid out, as every page labels its parts
        self._show_run(None)
        self.run_bar.update_buttons()

    # --- construction -------------------------------------------------------------------------
    def _build_parts(self) -> None:
        self.settings_box = OrganizerSettingsBox()
        self.run_bar = RunBar(self.organizer)
        self.history_panel = RunHistoryPanel()
        self.review = ReviewQueue()
        self.contradictions = ContradictionPanel()
        self.details = QTextBrowser()
        self.details.setObjectName("organizerDetails")
        self.details.setOpenLinks(False)
        self.diff = DiffView()
        self.diff.setObjectName("organizerDiff")
        self.compare_dialog: CompareDialog | None = None  # the open compare view, if any

    def _name_parts(self) -> None:
        """The parts' widgets under the page's names: callers (the UI tests among them) reach
        them through the page, as before the parts had classes of their own."""
        box, bar, history, review = self.settings_box, self.run_bar, self.history_panel, self.review
        self.settings_group, self.settings_toggle = box, box.toggle
        self.frequency, self.time, self.weekday = box.frequency, box.time, box.weekday
        self.scope, self.mode = box.scope, box.mode
        self.model_edit, self.base_url = box.model_edit, box.base_url
        self.model_hint, self.learn_setting = box.model_hint, box.learn
        self.save_button = box.save_button
        self.run_button, self.cancel_button = bar.run_button, bar.cancel_button
        self.learn_button = bar.learn_button
        self.progress_bar, self.progress_label = bar.progress_bar, bar.progress_label
        self.next_run = bar.next_run
        self.history_model, self.history = history.model, history.table
        self.history_empty, self.history_stack = history.empty, history.stack
        self.clear_button = history.clear_button
        self.queue, self.queue_empty, self.queue_stack = review.queue, review.empty, review.stack
        self.queue_buttons, self.outcome = review.buttons, review.outcome
        self.apply_button, self.apply_safe_button = review.apply_button, review.apply_safe_button
        self.reject_button, self.compare_button = review.reject_button, review.compare_button
        self.reject_rest_button, self.safe_hint = review.reject_rest_button, review.safe_hint
        self.queue_items, self.checked_keys = review.queue_items, review.checked_keys

    def _build_layout(self) -> None:
        runs = QSplitter(Qt.Orientation.Horizontal)
        runs.setObjectName("organizerRuns")
        runs.setChildrenCollapsible(False)
        runs.addWidget(self.history_panel)
        runs.addWidget(self.details)
        runs.setStretchFactor(0, 3)
        runs.setStretchFactor(1, 2)
        runs.setSizes([2 * DETAILS_WIDTH, DETAILS_WIDTH])
        self.detail_panel = QSplitter(Qt.Orientation.Horizontal)
        self.detail_panel.setChildrenCollapsible(False)
        self.detail_panel.addWidget(self.review)
        self.detail_panel.addWidget(self.diff)
        self.detail_panel.setStretchFactor(0, 2)
        self.detail_panel.setStretchFactor(1, 1)
        self.detail_panel.setSizes([2 * DIFF_WIDTH, DIFF_WIDTH])
        split = QSplitter(Qt.Orientation.Vertical)
        split.setObjectName("organizerSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(runs)
        # Issue 15: a run's contradictions are a tab of their own beside its decisions (the
        # tab shows only when the run has any), so each has the whole height at 1024×640.
        self.review_tabs = QTabWidget()
        self.review_tabs.setObjectName("organizerReviewTabs")
        self.review_tabs.setDocumentMode(True)
        self.review_tabs.addTab(self.detail_panel, "")
        self.review_tabs.addTab(self.contradictions, "")
        self.review_tabs.setTabVisible(CONTRADICTIONS_TAB, False)
        split.addWidget(self.review_tabs)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 3)
        split.setSizes([HISTORY_HEIGHT, 3 * HISTORY_HEIGHT])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.run_bar)
        layout.addWidget(self.settings_box)
        layout.addWidget(split, 1)

    def _connect(self) -> None:
        self.settings_box.save_requested.connect(self.save_settings)
        self.run_button.clicked.connect(self.run_now)
        self.learn_button.clicked.connect(self.learn_now)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.history_panel.run_selected.connect(self._on_history_row)
        self.history_panel.clear_requested.connect(self.clear_history)
        self.review.decision_did_change.connect(self._on_decision)
        self.apply_button.clicked.connect(self.apply_selected)
        self.apply_safe_button.clicked.connect(self.apply_all_safe)
        self.reject_button.clicked.connect(self.reject_current)
        self.reject_rest_button.clicked.connect(self.reject_queue)
        self.compare_button.clicked.connect(self.open_compare)
        self.contradictions.answer_requested.connect(self.answer_contradiction)
        self.queue.itemActivated.connect(lambda _item, _column: self.open_compare())
        if self.organizer is not None:
            self.organizer.run_did_start.connect(self._run_did_start)
            self.organizer.run_did_progress.connect(self._run_did_progress)
            self.organizer.run_did_finish.connect(self._run_did_finish)
            self.organizer.schedule_did_change.connect(self.run_bar.show_next_run)

    def _shortcuts(self) -> None:
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        self.page_shortcuts: list[QShortcut] = []  # described in retranslate (the Help list)
        for keys, slot in (
            (QKeySequence("Ctrl+R"), self.run_now),
            (QKeySequence(QKeySequence.StandardKey.Cancel), self.cancel_run),
            (QKeySequence(QKeySequence.StandardKey.Save), self.save_settings),
            (QKeySequence("Ctrl+Return"), self.apply_selected),
        ):
            shortcut = QShortcut(keys, self)
            shortcut.setContext(context)
            shortcut.activated.connect(slot)
            self.page_shortcuts.append(shortcut)
        reject = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.queue)
        reject.setContext(Qt.ShortcutContext.WidgetShortcut)  # Delete in the queue only
        reject.activated.connect(self.reject_current)
        self.page_shortcuts.append(reject)

    # --- labels -------------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Organizer")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        self.compare_button.setText(self.tr("Compare and edit…"))
        self.compare_button.setToolTip(
            self.tr("The memories of this merge side by side; edit the merged text (Enter)")
        )
        self.settings_box.retranslate()
        self.run_bar.retranslate()
        self.history_panel.retranslate()
        self.review.retranslate()
        self.contradictions.retranslate()
        self.review_tabs.setTabText(0, self.tr("Decisions"))
        self._label_contradictions_tab()
        described = (
            self.tr("Run now"),
            self.tr("Cancel the run"),
            self.tr("Save the organizer settings"),
            self.tr("Apply the checked decisions"),
            self.tr("Reject the current decision (in the review queue)"),
        )
        for shortcut, text in zip(self.page_shortcuts, described, strict=True):
            shortcut.setWhatsThis(text)  # what the Help menu's shortcut list says (ui/help.py)
        self._show_run(self.selected_run)

    # --- background work ----------------------------------------------------------------------
    def _background(self, coro: Coroutine[Any, Any, object], *, name: str | None = None) -> None:
        """Run `coro` on the bridge; with `name`, a newer task of that name replaces the older.

        Trigger: Qt delivers a signal (a selection change, a timer) while no asyncio loop runs,
        i.e. while the app is closing. Outcome: the work is dropped; nothing is left to show.
        """
        if not loop_is_running():
            coro.close()
            return
        if name is None:
            self.client.bridge.spawn(coro)
        else:
            self.client.bridge.preempt(name, coro)

    # --- loading ------------------------------------------------------------------------------
    async def load(self) -> None:
        """Load the settings (unless being edited) and the run history."""
        if not self.settings_box.dirty:
            try:
                view = await self.client.call("settings_get", {})
            except MemoryDomainError as exc:  # shown to the person; the form keeps its values
                self.error_did_occur.emit(exc)
            else:
                self.settings_box.fill(view["settings"])
        await self.load_history()

    async def load_history(self) -> None:
        """Re-query the run history and keep the selected run selected."""
        try:
            listing = await self.client.call("organize_run_list", {"limit": HISTORY_LIMIT})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        rows = listing["runs"]
        keep = self._prefer or (self.selected_run["run_id"] if self.selected_run else None)
        self._prefer = None
        if not self.history_panel.show_runs(rows, keep):
            self._show_run(None)
        foreign = any(r["status"] in ACTIVE for r in rows) and not self._own_run_active()
        if foreign and not self._poll.isActive():
            self._poll.start()
        self.run_bar.update_buttons()

    def _poll_history(self) -> None:
        self._background(self.load_history(), name="organizer-history")

    # --- settings -----------------------------------------------------------------------------
    def save_settings(self) -> None:
        """Save the form through `settings_save_memory`, then re-arm the schedule."""
        if self.settings_box.dirty:
            self._background(self._save_settings(self.settings_box.payload()))

    async def _save_settings(self, payload: dict[str, Any]) -> None:
        try:
            view = await self.client.call("settings_save_memory", {"settings": payload})
        except MemoryDomainError as exc:  # e.g. settings_invalid: nothing saved, the form stays
            self.error_did_occur.emit(exc)
            return
        self.settings_box.fill(view["settings"])
        if self.organizer is not None:
            await self.organizer.reschedule(Settings.from_dict(view["settings"]))
        self.changes_did_apply.emit()

    # --- running ------------------------------------------------------------------------------
    def _own_run_active(self) -> bool:
        return self.organizer is not None and self.organizer.running

    def run_now(self) -> None:
        """Start a manual run with the scope and mode shown in the form."""
        if self.organizer is None or self.organizer.running or not self.run_button.isEnabled():
            return
        self._starting()
        self._background(self._run_now(self.organizer, self.scope.currentData()))

    def show_run(self, run_id: str) -> None:
        """Select run `run_id` in the history, with its details and review queue (the
        Learning page's link from a proposal to its run)."""
        self._prefer = run_id
        self._background(self.load_history(), name="organizer-history")

    def learn_now(self) -> None:
        """Start a consolidation: proposals from the episodes, for the review queue."""
        if self.organizer is None or self.organizer.running or not self.learn_button.isEnabled():
            return
        self._starting()
        self._background(self._run_now(self.organizer, None))

    def _starting(self) -> None:
        # At once: the run is created on the store worker; one run at a time either way.
        self.run_button.setEnabled(False)
        self.learn_button.setEnabled(False)

    async def _run_now(self, organizer: OrganizerService, scope: str | None) -> None:
        """Run now with `scope`, or a consolidation when `scope` is None."""
        try:
            if scope is None:
                run = await organizer.consolidate_now()
            else:
                run = await organizer.run_now(scope=scope, mode=self.mode.currentData())
        except MemoryDomainError as exc:  # e.g. a locked index: nothing started
            self.error_did_occur.emit(exc)
            run = {}
        if run.get("status") == "skipped":
            self.run_bar.skipped()
        self.run_bar.update_buttons()
        self._background(self.load_history(), name="organizer-history")

    def cancel_run(self) -> None:
        """Cancel the run in progress (it ends as `cancelled`)."""
        if self.organizer is not None and self.organizer.cancel():
            self.run_bar.cancelling()

    def _run_did_start(self, run: dict[str, Any]) -> None:
        self.run_bar.started()
        self.run_bar.update_buttons()
        self._prefer = str(run["run_id"])  # show the new run once the history has it
        self._background(self.load_history(), name="organizer-history")

    def _run_did_progress(self, _run_id: str, message: str) -> None:
        if self.run_bar.progressed(message):  # the history shows the phase too
            self._background(self.load_history(), name="organizer-history")

    def _run_did_finish(self, run: dict[str, Any]) -> None:
        self.run_bar.finished(run)
        self.run_bar.update_buttons()
        self._prefer = str(run["run_id"])  # select it: its review queue is the next step
        self.changes_did_apply.emit()
        self._background(self.load_history(), name="organizer-history")

    # --- history ------------------------------------------------------------------------------
    def clear_history(self) -> None:
        """Delete the records of finished runs."""
        self._background(self._clear_history())

    async def _clear_history(self) -> None:
        try:
            await self.client.call("organize_run_clear_history", {})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        self.selected_run = None
        self.review.forget()
        await self.load_history()

    def _on_history_row(self, run_id: str | None) -> None:
        if run_id is None:
            self._show_run(None)
            return
        self._background(self._load_run(run_id), name="organizer-detail")

    async def _load_run(self, run_id: str) -> bool:
        """Read the run `run_id` again and show it; False (the error announced) when it could
        not be read."""
        try:
            data = await self.client.call("organize_run_read", {"run_id": run_id})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return False
        self._show_run(data["run"])
        return True

    # --- one run ------------------------------------------------------------------------------
    def _show_run(self, run: dict[str, Any] | None) -> None:
        """Show a run's details and its review queue (or the right empty state)."""
        same = (
            run is not None
            and self.selected_run is not None
            and run["run_id"] == self.selected_run["run_id"]
        )
        self.selected_run = run
        if run is None:
            self.details.setHtml(empty_html(self.tr("Select a run to see its details.")))
            self.review.show_none()
            self._show_contradictions([], same=False)
            self.diff.show_message(self.tr("Select a decision to preview its change."))
            return
        self.details.setHtml(run_html(run, run.get("report") or {}))
        if not self.review.show_run(run, same=same):
            self.diff.show_message(self.tr("Nothing to preview."))
        if not same:
            self._show_contradictions([], same=False)
        if _has_contradictions(run):
            self._background(
                self._load_contradictions(run["run_id"], same=same), name="organizer-contradictions"
            )

    # --- contradictions (issue 15) ------------------------------------------------------------
    async def _load_contradictions(self, run_id: str, *, same: bool) -> None:
        """The run's contradictions with both memories as they are now."""
        try:
            listed = await self.client.call("organize_contradictions", {"run_id": run_id})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        if self.selected_run is not None and self.selected_run["run_id"] == run_id:
            self._show_contradictions(listed["contradictions"], same=same)

    def _show_contradictions(self, items: list[dict[str, Any]], *, same: bool) -> None:
        """Hand the panel a run's contradictions; their tab shows when there are any, and a
        newly shown run without decisions opens on it."""
        self.contradictions.show_items(items, keep=same)
        self.review_tabs.setTabVisible(CONTRADICTIONS_TAB, bool(items))
        self._label_contradictions_tab()
        if not same and items and not self.queue_items():
            self.show_contradictions_tab()
        elif not items:
            self.review_tabs.setCurrentIndex(0)

    def show_contradictions_tab(self) -> None:
        """Bring the contradictions of the run shown to the front."""
        self.review_tabs.setCurrentWidget(self.contradictions)

    def _label_contradictions_tab(self) -> None:
        count = len(self.contradictions.items)
        self.review_tabs.setTabText(CONTRADICTIONS_TAB, self.tr("Contradictions (%n)", "", count))

    def answer_contradiction(self, key: str, resolution: str, edit: Any, keep: str) -> None:
        """Answer the contradiction `key` of the shown run (the panel's four choices; an edit
        carries its body and description)."""
        if self.selected_run is not None:
            payload = {"key": key, "resolution": resolution, "keep": keep, **(edit or {})}
            self._background(self._answer(self.selected_run["run_id"], payload))

    async def _answer(self, run_id: str, payload: dict[str, Any]) -> None:
        try:
            await self.client.call("organize_resolve", {"run_id": run_id, **payload})
        except MemoryDomainError as exc:  # stale, or refused: the panel says why after reload
            self.error_did_occur.emit(exc)
        else:
            self.changes_did_apply.emit()
        await self._load_run(run_id)

    def _on_decision(self, decision: dict[str, Any] | None) -> None:
        group = self.review.current_group()
        self.compare_button.setEnabled(group is not None and group.kind == "merge")
        if decision is None:
            self.diff.show_message(self.tr("Select a decision to preview its change."))
            return
        self._background(self._preview(decision), name="organizer-diff")

    async def _preview(self, decision: dict[str, Any]) -> None:
        """Diff before → after: a merge's target body (the person's edit, if any), or the
        text a delete would remove."""
        slug = decision["slug"]
        before = decision.get("previousBody")
        if before is None and decision.get("reasonCode") == ReasonCode.LEARNED:
            before = ""  # issue 18: a new memory learned from episodes has no text yet
        if before is None:
            try:
                before = (await self.client.call("memory_read", _target(decision)))["content"]
            except MemoryDomainError:
                # Trigger: the memory is gone (applied already, or deleted by hand).
                self.diff.show_message(self.tr("%1 no longer exists.").replace("%1", slug))
                return
        if decision["op"] == "delete":
            caption = self.tr("%1 moves to the trash (it can be restored).").replace("%1", slug)
            self.diff.set_texts(before, "", caption=caption)
            return
        caption = self.tr("%1: current text → after the change").replace("%1", slug)
        group = self.review.current_group()
        after = self.review.merged_text(group) if group else decision.get("body") or ""
        self.diff.set_texts(before, after, caption=caption)

    # --- compare and edit a merge -------------------------------------------------------------
    def open_compare(self) -> None:
        """Open the compare view of the current merge (its memories and its merged text)."""
        group = self.review.current_group()
        if group is None or group.kind != "merge" or self.compare_dialog is not None:
            return
        self._background(self._open_compare(group), name="organizer-compare")

    async def _open_compare(self, group: DecisionGroup) -> None:
        memories = []
        for key, part in group.parts:
            decision = self.review.decision(key)
            try:
                read = await self.client.call("memory_read", _target(decision))
            except MemoryDomainError:  # gone since the run (applied, or deleted by hand)
                read = None
            kept = part.op == "upsert"
            text = read["content"] if read else None
            if kept and decision.get("previousBody") is not None and read is None:
                text = decision["previousBody"]
            description = read["entry"]["description"] if read else ""
            memories.append(ComparedMemory(part.slug, kept, description, text))
        proposal = self.review.decision(group.key).get("body") or ""
        dialog = CompareDialog(
            memories, merged=self.review.merged_text(group), proposal=proposal, parent=self
        )
        dialog.finished.connect(lambda _result: self._compare_closed(dialog, group))
        self.compare_dialog = dialog
        dialog.open()

    def _compare_closed(self, dialog: CompareDialog, group: DecisionGroup) -> None:
        self.compare_dialog = None
        dialog.deleteLater()
        if not dialog.choice:
            return
        self.review.set_edit(group, dialog.merged_text())
        if dialog.choice == "apply" and self.review.is_open(group):
            self._background(self._apply({"keys": [group.key]}))

    # --- applying -----------------------------------------------------------------------------
    def apply_selected(self) -> None:
        """Apply the checked decisions of the shown run."""
        keys = self.review.checked_keys()
        if self.selected_run is not None and keys and self.apply_button.isEnabled():
            self._background(self._apply({"keys": keys}))

    def apply_all_safe(self) -> None:
        """Apply every low-risk decision that needs no acknowledgement."""
        if self.selected_run is not None and self.apply_safe_button.isEnabled():
            self._background(self._apply({"all_safe": True}))

    def reject_current(self) -> None:
        """Reject the current decision (a merge with its deletions); the next one comes up."""
        group = self.review.current_group()
        if self.selected_run is None or group is None or not self.reject_button.isEnabled():
            return
        self._background(self._apply({"keys": [group.key], "reject": True}, after=group.key))

    def reject_queue(self) -> None:
        """Dismiss the decisions not applied yet; the run's queue closes."""
        if self.selected_run is not None and self.reject_rest_button.isEnabled():
            self._background(self._apply({"reject": True}))

    async def _apply(self, choice: dict[str, Any], *, after: str | None = None) -> None:
        assert self.selected_run is not None
        run_id = self.selected_run["run_id"]
        self.review.set_busy()
        if not choice.get("reject") and self.review.edits():
            choice = {**choice, "edits": self.review.edits()}
        result: dict[str, Any] | None = None
        try:
            result = await self.client.call("organize_apply", {"run_id": run_id, **choice})
        except MemoryDomainError as exc:
            self.error_did_occur.emit(exc)
            return
        finally:
            if result is None:  # a typed error or a bug: the buttons work again
                self.review.update_buttons()
        if not choice.get("reject"):
            self.review.forget(run_id)  # applied: the checks and edits were used
        outcome = self._outcome_text(result, one_by_one="keys" in choice)
        self.changes_did_apply.emit()
        if not await self._load_run(run_id):
            return
        if after is not None:
            self.review.select_next_open(after)
        self.outcome.setText(outcome)
        await self.load_history()

    def _outcome_text(self, result: dict[str, Any], *, one_by_one: bool) -> str:
        """What an `organize_apply` did, in a sentence."""
        if result.get("rejected") and one_by_one:
            return self.tr("%n decision(s) rejected.", "", len(result["rejected"]))
        if result["status"] == "rejected":
            return self.tr("The decisions not applied were rejected.")
        outcome = self.tr("%n decision(s) applied", "", len(result["applied"]))
        if result["failed"]:
            outcome += "; " + self.tr("%n failed", "", len(result["failed"]))
        return (
            outcome + ". " + self.tr("Memories now: %1.").replace("%1", str(result["final_count"]))
        )

    # --- screenshots --------------------------------------------------------------------------
    async def prepare_screenshot(self) -> None:
        """Show the newest run with a review queue, its first decision (a merge, unfolded to
        its parts) current with its diff."""
        for row, run in enumerate(self.history_model.rows):
            if run["status"] == "succeeded" and run["trigger"] == "manual":
                self.history.selectRow(row)
                data = await self.client.call("organize_run_read", {"run_id": run["run_id"]})
                self._show_run(data["run"])
                items = self.queue_items()
                if items:
                    items[0].setExpanded(True)
                return


def _has_contradictions(run: dict[str, Any]) -> bool:
    """Whether a run view's report holds a contradiction review item."""
    report = (run.get("report") or {}).get("report") or {}
    return any(item.get("code") == "contradiction" for item in report.get("reviewItems") or [])


def _target(decision: dict[str, Any]) -> dict[str, Any]:
    """The `memory_read` payload of the memory a report's decision is about."""
    target: dict[str, Any] = {"slug": decision["slug"], "scope": decision["scope"]}
    if decision.get("workdirHash"):
        target["workdir_hash"] = decision["workdirHash"]
    return target
