"""The Projects page's "Merge folders…" (issue 19): a project kept in several folders (used on
two machines before they synced) is merged into the folder its row opens, through
`project_merge`, after the person has read what would move.

Pressing the button runs a dry run and asks, in a line under the table, whether to move what
it listed; only Merge moves files. Cancel, or choosing another row, forgets the question.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.ui.pages.base import PagePart

if TYPE_CHECKING:
    from liveagent_memory.ui.pages.base import DrawerPage


class MergeFoldersBar(QWidget, PagePart):
    """The question "merge these folders?" with what would move, and Merge / Cancel.

    The page owns the "Merge folders…" button (`button`) and calls `choose` with the chosen
    row. Signals:
        merge_did_finish(object): a merge ended; its `project_merge` result.
        error_did_occur(object): the dry run or the merge failed with a MemoryDomainError.
    """

    merge_did_finish = Signal(object)
    error_did_occur = Signal(object)

    def __init__(self, page: DrawerPage) -> None:
        super().__init__(page)
        self.page = page
        self.row: dict[str, Any] | None = None  # the chosen project row, kept in folders
        self.plan: dict[str, Any] | None = None  # the dry run being asked about
        self.busy = False
        self.button = QPushButton()
        self.button.setObjectName("mergeFoldersButton")
        self.label = QLabel()
        self.label.setObjectName("mergeFoldersQuestion")
        self.label.setWordWrap(True)
        self.confirm_button = QPushButton()
        self.confirm_button.setObjectName("mergeFoldersConfirm")
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("mergeFoldersCancel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.confirm_button)
        layout.addWidget(self.cancel_button)
        self.button.clicked.connect(self.ask)
        self.confirm_button.clicked.connect(self.merge)
        self.cancel_button.clicked.connect(self.cancel)
        self.retranslate()
        self._update()

    def retranslate(self) -> None:
        """Set every visible string (again on a language switch)."""
        self.button.setText(self.tr("Merge folders…"))
        self.button.setToolTip(
            self.tr(
                "This project is kept in several folders (it was used on two machines before "
                "they synced): move every memory into the folder this row opens"
            )
        )
        self.confirm_button.setText(self.tr("Merge"))
        self.cancel_button.setText(self.tr("Cancel"))
        if self.plan is not None:
            self.label.setText(self._question(self.plan))

    def choose(self, row: dict[str, Any] | None) -> None:
        """The row chosen in the table; another row forgets a question asked about this one."""
        if row is None or self.row is None or row["workdir_hash"] != self.row["workdir_hash"]:
            self.plan = None
        self.row = row
        self._update()

    def mergeable(self) -> bool:
        row = self.row
        return row is not None and len(row.get("folders") or ()) > 1 and bool(row["workdir"])

    def ask(self) -> None:
        """Run a dry run of the merge, then ask about what it lists."""
        if not self.mergeable() or self.busy:
            return
        self._start(dry_run=True)

    def merge(self) -> None:
        """Merge: the person read the question and pressed Merge."""
        if self.plan is None or self.busy:
            return
        self._start(dry_run=False)

    def cancel(self) -> None:
        self.plan = None
        self._update()

    def _start(self, *, dry_run: bool) -> None:
        assert self.row is not None
        payload = {
            "workdir": self.row["workdir"],
            "target": self.row["workdir_hash"],
            "dry_run": dry_run,
        }
        self.busy = True
        self._update()
        self.client.bridge.spawn(self._run(payload))

    async def _run(self, payload: dict[str, Any]) -> None:
        try:
            result = await self.client.call("project_merge", payload)
        except MemoryDomainError as exc:
            self.plan = None
            self.error_did_occur.emit(exc)
            return
        finally:
            self.busy = False
            self._update()
        if result["dry_run"]:
            self.plan = result
            self._update()
            self.confirm_button.setFocus()
            return
        self.plan = None
        self._update()
        self.merge_did_finish.emit(result)

    def _update(self) -> None:
        self.button.setEnabled(self.mergeable() and not self.busy)
        self.button.setVisible(self.mergeable())
        self.confirm_button.setEnabled(not self.busy)
        self.setVisible(self.plan is not None)
        if self.plan is not None:
            self.label.setText(self._question(self.plan))

    def _question(self, plan: dict[str, Any]) -> str:
        moves = plan["moves"]
        renamed = sum(m["action"] == "renamed" for m in moves)
        twins = sum(m["action"] == "deduplicated" for m in moves)
        parts = [
            self.tr("Move %n memories from folder %1 into %2?", "", len(moves))
            .replace("%1", ", ".join(plan["merged"]))
            .replace("%2", plan["target"]),
            self.tr("%n are here already with the same text and are kept once", "", twins),
            self.tr("%n differ and are kept side by side, unreviewed", "", renamed),
            self.tr("%n episodes move too", "", plan["episodes"]),
        ]
        if plan["problems"]:
            parts.append(self.tr("%n files cannot be read and stay", "", len(plan["problems"])))
        return " · ".join(parts)
