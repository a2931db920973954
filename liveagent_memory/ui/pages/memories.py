"""The Memories page: filter, search as you type, read a memory, accept, delete and undo."""

from __future__ import annotations

import html
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from liveagent_memory.domain.errors import VersionNotFound
from liveagent_memory.ui.models import ENTRY_ROLE, MemoryListModel
from liveagent_memory.ui.pages.base import DrawerPage

if TYPE_CHECKING:
    from liveagent_memory.ui.drawer import DrawerContext

SEARCH_DEBOUNCE_MS = 250  # wait for a pause in typing before searching
LIST_LIMIT = 1000


class MemoriesPage(DrawerPage):
    """Lists memories with filters and search; shows and changes one at a time."""

    NAME = "memories"
    ORDER = 10

    def __init__(self, context: DrawerContext, *, parent: QWidget | None = None) -> None:
        super().__init__(context, parent=parent)
        self.model = MemoryListModel(self)
        self.current: dict[str, Any] | None = None
        self.last_deleted: dict[str, Any] | None = None

        self.scope = QComboBox()
        self.type = QComboBox()
        self.review = QComboBox()
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        self.count = QLabel()
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)  # smooth with thousands of rows
        self.detail = QTextBrowser()
        self.detail.setOpenExternalLinks(False)
        self.accept_button = QPushButton()
        self.delete_button = QPushButton()
        self.undo_button = QPushButton()
        self.undo_button.setEnabled(False)

        filters = QHBoxLayout()
        for widget in (self.scope, self.type, self.review):
            filters.addWidget(widget)
        filters.addWidget(self.search, 1)
        actions = QHBoxLayout()
        for button in (self.accept_button, self.delete_button, self.undo_button):
            actions.addWidget(button)
        actions.addStretch(1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addLayout(actions)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.list, 1)
        left_layout.addWidget(self.count)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(split, 1)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _text: self._debounce.start())
        for combo in (self.scope, self.type, self.review):
            combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.list.selectionModel().currentChanged.connect(self._on_current)
        self.accept_button.clicked.connect(self._accept)
        self.delete_button.clicked.connect(self._delete)
        self.undo_button.clicked.connect(self._undo)
        self.retranslate()
        self._show_detail(None)

    # --- labels -----------------------------------------------------------------------------
    def title(self) -> str:
        return self.tr("Memories")

    def retranslate(self) -> None:
        """Set every visible string (called again on a language switch)."""
        for combo, items in (
            (
                self.scope,
                [
                    (self.tr("All scopes"), None),
                    (self.tr("Global"), "global"),
                    (self.tr("Projects"), "project"),
                ],
            ),
            (
                self.type,
                [
                    (self.tr("All types"), None),
                    (self.tr("User"), "user"),
                    (self.tr("Feedback"), "feedback"),
                    (self.tr("Project"), "project"),
                    (self.tr("Reference"), "reference"),
                ],
            ),
            (
                self.review,
                [
                    (self.tr("Reviewed and unreviewed"), None),
                    (self.tr("Unreviewed"), True),
                    (self.tr("Reviewed"), False),
                ],
            ),
        ):
            current = combo.currentIndex()
            combo.blockSignals(True)
            combo.clear()
            for label, value in items:
                combo.addItem(label, value)
            combo.setCurrentIndex(max(current, 0))
            combo.blockSignals(False)
        self.search.setPlaceholderText(self.tr("Search memories (English or 中文)…"))
        self.accept_button.setText(self.tr("Accept"))
        self.accept_button.setToolTip(self.tr("Mark this memory reviewed"))
        self.delete_button.setText(self.tr("Delete"))
        self.undo_button.setText(self.tr("Undo delete"))
        self._update_count()

    def _update_count(self) -> None:
        self.count.setText(self.tr("%n memories", "", self.model.rowCount()))

    # --- loading ----------------------------------------------------------------------------
    def _filters(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"include_all_projects": True}
        if self.scope.currentData() is not None:
            payload["scope"] = self.scope.currentData()
        if self.type.currentData() is not None:
            payload["type"] = self.type.currentData()
        return payload

    async def load(self) -> None:
        """Load the list for the current filters now (refresh() does it in the background)."""
        query = self.search.text().strip()
        filters = self._filters()
        try:
            if query:
                result = await self.client.call(
                    "memory_search", {**filters, "query": query, "limit": 32}
                )
                rows = result["matches"]
            else:
                review = self.review.currentData()
                payload = {**filters, "limit": LIST_LIMIT}
                if review is not None:
                    payload["unreviewed"] = review
                rows = (await self.client.call("memory_list", payload))["entries"]
        except Exception as exc:  # shown to the person; the list keeps its old rows
            self.error_did_occur.emit(exc)
            return
        review = self.review.currentData()
        if query and review is not None:
            rows = [row for row in rows if bool(row.get("unreviewed")) == review]
        key = self._key(self.current)
        self.model.set_rows(rows)
        self._update_count()
        row = self.model.row_of(key) if key else -1
        if row >= 0:
            self.list.setCurrentIndex(self.model.index(row))
        elif self.model.rowCount():
            self.list.setCurrentIndex(self.model.index(0))
        else:
            self._show_detail(None)

    @staticmethod
    def _key(entry: dict[str, Any] | None) -> tuple[str, str, str] | None:
        if entry is None:
            return None
        return (entry["scope"], entry.get("workdir_hash", ""), entry["slug"])

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        entry = current.data(ENTRY_ROLE) if current.isValid() else None
        if entry is None:
            self._show_detail(None)
            return
        self.client.bridge.preempt("memories-detail", self._load_detail(entry))

    async def _load_detail(self, entry: dict[str, Any]) -> None:
        try:
            data = await self.client.call("memory_read", self._target(entry))
        except Exception as exc:
            self.error_did_occur.emit(exc)
            return
        self._show_detail(data)

    @staticmethod
    def _target(entry: dict[str, Any]) -> dict[str, Any]:
        target = {"slug": entry["slug"], "scope": entry["scope"]}
        if entry["scope"] == "project":
            target["workdir_hash"] = entry["workdir_hash"]
        return target

    def _show_detail(self, data: dict[str, Any] | None) -> None:
        self.current = data["entry"] if data else None
        has = data is not None
        self.accept_button.setEnabled(has and bool(data and data["entry"]["unreviewed"]))
        self.delete_button.setEnabled(has)
        if data is None:
            self.detail.setHtml(f"<p><i>{html.escape(self.tr('No memory selected.'))}</i></p>")
            return
        entry, evidence = data["entry"], data["evidence"]
        state = self.tr("unreviewed") if entry["unreviewed"] else self.tr("reviewed")
        updated = datetime.fromtimestamp(entry["updated_at"] / 1000).strftime("%Y-%m-%d %H:%M")
        facts = [
            (self.tr("Slug"), entry["slug"]),
            (self.tr("Scope"), f"{entry['scope']} {entry.get('workdir') or ''}".strip()),
            (self.tr("Type"), entry["type"]),
            (self.tr("Review"), state),
            (self.tr("Confidence"), evidence.get("confidence") or "unknown"),
            (self.tr("Quote"), evidence.get("source_quote") or "—"),
            (self.tr("Reasoning"), evidence.get("reasoning") or "—"),
            (self.tr("Updated"), updated),
        ]
        if entry.get("risk_flag"):
            facts.append((self.tr("Risk"), entry["risk_flag"]))
        rows = "".join(
            f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(str(v))}</td></tr>"
            for k, v in facts
        )
        self.detail.setMarkdown(data["content"])  # the body, rendered as Markdown
        body_html = self.detail.toHtml()
        title = html.escape(entry["description"] or entry["slug"])
        self.detail.setHtml(f"<h3>{title}</h3><table>{rows}</table><hr/>{body_html}")

    # --- actions ----------------------------------------------------------------------------
    def _accept(self) -> None:
        if self.current is not None:
            self.client.bridge.spawn(self._run("memory_accept", self._target(self.current)))

    def _delete(self) -> None:
        if self.current is not None:
            payload = {
                **self._target(self.current),
                "actor": "user",
                "reason": "deleted in the app",
            }
            # The undo target changes only once the delete succeeded: a failed delete must
            # not replace the memory that Undo would bring back.
            deleted = dict(self.current)
            self.client.bridge.spawn(self._run("memory_delete", payload, deleted=deleted))

    def _undo(self) -> None:
        if self.last_deleted is not None:
            self.client.bridge.spawn(self._restore(self.last_deleted))

    async def _run(
        self, name: str, payload: dict[str, Any], *, deleted: dict[str, Any] | None = None
    ) -> None:
        try:
            await self.client.call(name, payload)
        except Exception as exc:
            self.error_did_occur.emit(exc)
            return
        if deleted is not None:
            self.last_deleted = deleted
            self.current = None
            self.undo_button.setEnabled(True)
        self.changes_did_apply.emit()
        await self.load()

    async def _restore(self, entry: dict[str, Any]) -> None:
        try:
            history = await self.client.call("memory_history", self._target(entry))
            version = next(
                (h["version"] for h in history["entries"] if h["source"] == "trash"), None
            )
            if version is None:  # the trash copy was removed behind the app's back
                raise VersionNotFound(f"no trash copy of {entry['slug']} is left to restore")
            await self.client.call("memory_restore", {**self._target(entry), "version": version})
        except Exception as exc:
            self.error_did_occur.emit(exc)
            return
        self.last_deleted = None
        self.undo_button.setEnabled(False)
        self.current = entry
        self.changes_did_apply.emit()
        await self.load()
