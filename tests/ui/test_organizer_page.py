"""The Organizer page, driven through its widgets: run, watch, review, apply, reject, settings."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTime
from PySide6.QtWidgets import QApplication, QComboBox, QTreeWidgetItem
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.organizer.service import next_run_at
from liveagent_memory.settings import OrganizerSettings, SecretStore, Settings, save_settings
from liveagent_memory.store import runs as store_runs
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.organizer_service import OrganizerService
from liveagent_memory.ui.pages.organizer import OrganizerPage
from liveagent_memory.ui.pages.organizer_compare import CompareDialog
from liveagent_memory.ui.pages.organizer_review import KEY_ROLE
from liveagent_memory.ui.pages.run_view import local_time
from liveagent_memory.ui.widgets.diff_view import side_by_side_html, unified_html
from liveagent_memory.ui.window import MainWindow
from tests.helpers.episodes import charge_card_failures
from tests.helpers.fake_llm import API_KEY, MODEL, FakeLLMServer, Reply, completion_body
from tests.helpers.organizer import dead_owner, delete, merge, only_known, planner
from tests.helpers.waiting import MODEL_CALL_WAIT_S, until
from tests.ui.conftest import OpenWindow, seed

RUN_WAIT_S = MODEL_CALL_WAIT_S


def memory(slug: str, body: str, description: str) -> dict[str, Any]:
    """An unreviewed global reference memory (written as the extractor would)."""
    return {
        "slug": slug,
        "scope": "global",
        "type": "reference",
        "description": description,
        "body": body,
        "actor": "extractor",
    }


TEA = "The user drinks green tea every morning.\nNo sugar."
SEEDED = [
    memory("tea-green", TEA, "Morning green tea"),
    memory("tea-green-copy", "Green tea in the morning, always.", "Green tea habit"),
    memory("coffee-old", "Coffee only on Fridays (2019).", "Old coffee rule"),
    memory("api-docs", "The API reference is on the team wiki.", "API docs on the wiki"),
]
PLAN = [merge("tea-green", "tea-green-copy"), delete("coffee-old")]


def use_fake_model(home: Path, server: FakeLLMServer) -> None:
    home.mkdir(parents=True, exist_ok=True)
    save_settings(
        home,
        Settings.from_dict({"organizer_model": {"model": MODEL, "api_base": server.base_url}}),
    )
    SecretStore().set("organizer", API_KEY)


async def open_page(open_window: OpenWindow) -> tuple[MainWindow, OrganizerPage]:
    window = await open_window()
    window.open_page("organizer")
    page = window.page("organizer")
    assert isinstance(page, OrganizerPage)
    assert window.stack.currentWidget() is page
    return window, page


async def settle(window: MainWindow) -> None:
    """Let the page's background work finish while the loop runs (before pytest-qt tears
    the window down and processes any leftover events without a loop)."""
    await until(lambda: window.bridge.pending == 0, what="background work to finish")
    await asyncio.sleep(0.05)
    await until(lambda: window.bridge.pending == 0, what="background work to finish")


def service(page: OrganizerPage) -> OrganizerService:
    assert page.organizer is not None
    return page.organizer


def newest(page: OrganizerPage) -> dict[str, Any]:
    """The newest run in the history table (an empty dict while there is none)."""
    rows = page.history_model.rows
    return rows[0] if rows else {}


async def finished_run(page: OrganizerPage, status: str = "succeeded") -> dict[str, Any]:
    """Wait until the newest run has ended and is shown with its details."""

    def shown() -> bool:
        rows = page.history_model.rows
        return bool(
            rows
            and rows[0]["status"] not in ("pending", "running")
            and page.selected_run is not None
            and page.selected_run["run_id"] == rows[0]["run_id"]
            and page.selected_run["status"] == rows[0]["status"]
            and not service(page).running
            and page.progress_label.text().startswith("Last run:")
        )

    await until(shown, RUN_WAIT_S, what="the run to finish and be shown")
    assert newest(page)["status"] == status, newest(page)
    return newest(page)


def row(item: QTreeWidgetItem) -> dict[str, Any]:
    return {
        "action": item.text(0),
        "slug": item.text(1),
        "risk": item.text(2),
        "state": item.text(4),
        "checked": str(item.checkState(0) == Qt.CheckState.Checked),
        "key": str(item.data(0, KEY_ROLE)),
        "parts": [(child.text(0), child.text(1)) for child in children(item)],
    }


def children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    """A decision row's parts (a merge's write and deletes), in order."""
    return [child for i in range(item.childCount()) if (child := item.child(i))]


def queue_rows(page: OrganizerPage) -> list[dict[str, Any]]:
    """The queue's decisions as shown: one row per decision (a merge's parts in `parts`)."""
    return [row(item) for item in page.queue_items()]


def set_checked(page: OrganizerPage, slugs: set[str]) -> None:
    """Check exactly the decisions about `slugs`, as a person clicking the boxes would."""
    for item in page.queue_items():
        want = Qt.CheckState.Checked if item.text(1) in slugs else Qt.CheckState.Unchecked
        if item.checkState(0) != want:
            item.setCheckState(0, want)


def read_memory(home: Path, slug: str) -> dict[str, Any]:
    with MemoryStore.open(home) as store:
        return dict(dispatch(store, "memory_read", {"slug": slug}))


async def unfold_settings(page: OrganizerPage, qtbot: QtBot) -> None:
    """Unfold the schedule and model form, as a person clicks its summary line's toggle."""
    qtbot.mouseClick(page.settings_toggle, Qt.MouseButton.LeftButton)
    await until(lambda: page.model_edit.isVisible(), what="the settings form")


def stored_run(home: Path, run_id: str) -> dict[str, Any]:
    with MemoryStore.open(home) as store:
        return dict(dispatch(store, "organize_run_read", {"run_id": run_id})["run"])


def choose(combo: QComboBox, data: object) -> None:
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


# --- the whole review flow against the fake model -------------------------------------------


@pytest.mark.asyncio
async def test_run_review_apply_one_then_reject_the_rest(
    open_window: OpenWindow, home: Path, llm_server: FakeLLMServer
) -> None:
    seed(home, SEEDED)
    use_fake_model(home, llm_server)
    llm_server.push(planner(only_known(PLAN)))
    window, page = await open_page(open_window)
    assert page.history_stack.currentWidget() is page.history_empty
    errors: list[object] = []
    page.error_did_occur.connect(errors.append)
    labels: list[str] = []
    service(page).run_did_progress.connect(lambda *_: labels.append(page.progress_label.text()))

    page.run_button.click()

    assert not page.run_button.isEnabled()
    await until(lambda: page.cancel_button.isEnabled(), what="the run to start")
    run = await finished_run(page)
    # Progress went through the phases on the page; the model saw one plan call.
    assert "Phase 1 of 5: scan" in labels
    assert "Phase 3 of 5: plan — 1/1: global::reference:1" in labels
    assert "Phase 5 of 5: apply" in labels
    assert page.progress_label.text().startswith("Last run: succeeded")
    assert len(llm_server.requests) == 1
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    # The finished row in the history.
    assert (run["trigger"], run["input_count"], run["safe_applied"]) == ("manual", 4, 0)
    assert page.history_stack.currentWidget() is page.history
    assert page.history_model.index(0, 1).data() == "succeeded"
    assert page.history_model.index(0, 4).data() == "4 → 4"

    # The review queue: the merge (one decision: its write and its source's delete), and the
    # stale memory's delete.
    rows = queue_rows(page)
    assert [(r["action"], r["slug"], r["parts"]) for r in rows] == [
        (
            "Merge 2 memories",
            "tea-green",
            [
                ("Write the merged text", "tea-green"),
                ("Delete (merged into tea-green)", "tea-green-copy"),
            ],
        ),
        ("Delete", "coffee-old", []),
    ]
    assert all(r["risk"] == "low" and r["checked"] == "True" for r in rows)  # pre-selected
    assert page.queue_buttons.isVisible() and page.apply_safe_button.isEnabled()
    assert not page.safe_hint.isVisible()  # nothing to explain: "Apply all safe" is on
    # The first decision is current: its merge shows as a diff of the target's body, and the
    # merged text reads as a memory (issue 14: no "## Organizer merge" section).
    await until(lambda: page.diff.showing_diff, what="the merge diff")
    diff_text = page.diff.browser.toPlainText()
    assert "+Green tea in the morning, always." in diff_text
    assert " The user drinks green tea every morning." in diff_text
    assert "Organizer merge" not in diff_text
    # A delete previews the text that would go to the trash.
    page.queue.setCurrentItem(page.queue_items()[1])
    await until(lambda: "-Coffee only on Fridays (2019)." in page.diff.browser.toPlainText())

    # Apply ONE decision of the two.
    set_checked(page, {"coffee-old"})
    assert page.checked_keys() == [rows[1]["key"]]
    page.apply_button.click()
    await until(lambda: page.outcome.text().startswith("1 decision"), what="the outcome")

    assert not (home / "global" / "coffee-old.md").exists()
    assert list((home / "global" / ".trash").glob("coffee-old.*.md"))
    assert (home / "global" / "tea-green-copy.md").exists()
    assert "Organizer merge" not in (home / "global" / "tea-green.md").read_text("utf-8")
    record = stored_run(home, run["run_id"])
    state = record["report"]["report"]["manualApplyState"]
    assert (state["status"], state["appliedDecisionKeys"]) == ("partial", [rows[1]["key"]])
    assert (record["safe_applied"], record["deleted_count"], record["final_count"]) == (1, 1, 3)
    states = [r["state"] for r in queue_rows(page)]
    assert states == ["pending", "applied"]
    await until(lambda: page.history_model.index(0, 5).data() == "1", what="the history")
    assert "Memories now: 3." in page.outcome.text()

    # Reject the rest: the queue closes; nothing else changes on disk.
    page.reject_rest_button.click()
    await until(
        lambda: page.outcome.text() == "The decisions not applied were rejected.",
        what="the rejection",
    )
    record = stored_run(home, run["run_id"])
    assert record["report"]["report"]["manualApplyState"]["status"] == "rejected"
    assert (home / "global" / "tea-green-copy.md").exists()
    assert not page.apply_button.isEnabled() and not page.reject_rest_button.isEnabled()
    assert [r["state"] for r in queue_rows(page)] == ["rejected", "applied"]
    assert not page.queue_items()[0].flags() & Qt.ItemFlag.ItemIsUserCheckable
    assert page.queue_items()[0].font(0).strikeOut()  # a rejected decision looks rejected
    assert page.safe_hint.text() == "This run's review is finished."
    assert errors == []
    await settle(window)


@pytest.mark.asyncio
async def test_offline_run_and_apply_all_safe(open_window: OpenWindow, home: Path) -> None:
    # No model anywhere: the offline duplicate check proposes the exact duplicates' merge.
    seed(
        home,
        [
            memory("tea-a", "I drink green tea every morning.", "Morning tea"),
            memory("tea-b", "I drink green tea every morning.", "Morning tea"),
            memory("coffee", "No coffee after 2pm.", "Coffee rule"),
        ],
    )
    window, page = await open_page(open_window)
    assert page.model_hint.text() == ("No model configured: runs use the offline duplicate check.")

    page.run_button.click()
    run = await finished_run(page)

    (merge_row,) = queue_rows(page)  # the merge and its source's delete: one decision
    assert merge_row["action"] == "Merge 2 memories"
    assert merge_row["risk"] == "low"  # exact duplicates: low risk
    keeper = merge_row["slug"]
    assert sorted(slug for _action, slug in merge_row["parts"]) == ["tea-a", "tea-b"]

    page.apply_safe_button.click()
    await until(lambda: page.outcome.text().startswith("2 decision"), what="the outcome")

    on_disk = {p.stem for p in (home / "global").glob("*.md")} - {"MEMORY"}
    assert on_disk == {"coffee", keeper}
    merged = read_memory(home, keeper)
    assert merged["content"] == "I drink green tea every morning."  # a copy adds nothing
    assert merged["evidence"]["supersedes"] == ({"tea-a", "tea-b"} - {keeper}).pop()
    state = stored_run(home, run["run_id"])["report"]["report"]["manualApplyState"]
    assert state["status"] == "applied"
    # Nothing is left to review: the buttons say so.
    assert not page.apply_button.isEnabled() and not page.apply_safe_button.isEnabled()
    await settle(window)


@pytest.mark.asyncio
async def test_a_run_with_nothing_to_propose_shows_an_empty_queue(
    open_window: OpenWindow, home: Path
) -> None:
    seed(home, [memory("api-docs", "The API reference is on the wiki.", "API docs")])
    window, page = await open_page(open_window)
    assert page.queue_stack.currentWidget() is page.queue_empty
    assert page.queue_empty.text() == "Select a run to review its decisions."

    page.run_button.click()
    await finished_run(page)

    assert page.queue_stack.currentWidget() is page.queue_empty
    assert page.queue_empty.text() == "No decisions are waiting for review in this run."
    assert not page.queue_buttons.isVisible()
    assert "Memories 1 → 1 · clusters 0 · applied 0" in page.details.toPlainText()
    await settle(window)


@pytest.mark.asyncio
async def test_a_narrow_history_hides_its_least_needed_columns_instead_of_scrolling(
    open_window: OpenWindow, home: Path
) -> None:
    seed(home, [memory("api-docs", "The API reference is on the wiki.", "API docs")])
    window, page = await open_page(open_window)
    page.run_button.click()
    await finished_run(page)
    panel = page.history_panel

    window.resize(1600, 900)
    await until(lambda: panel.hidden_columns() == [], what="every column shown")
    window.resize(1024, 640)
    await until(lambda: bool(panel.hidden_columns()), what="columns hidden")

    hidden = panel.hidden_columns()
    assert hidden[0] == "tokens"  # the first to go; started, status and memories stay
    assert {"started", "status", "memories"}.isdisjoint(hidden)
    table, header = page.history, page.history.horizontalHeader()
    shown = [c for c in range(page.history_model.columnCount()) if not table.isColumnHidden(c)]
    # Every shown column's contents fit side by side: nothing is cut or left to scroll to.
    natural = sum(max(header.sectionSizeHint(c), table.sizeHintForColumn(c)) for c in shown)
    assert natural <= table.viewport().width()
    assert table.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert "tokens 0" in page.details.toPlainText()  # the hidden figures are still said
    await settle(window)


# --- cancel ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_cancel_a_running_run(
    open_window: OpenWindow, home: Path, llm_server: FakeLLMServer
) -> None:
    seed(home, SEEDED)
    use_fake_model(home, llm_server)
    llm_server.push(Reply(completion_body(content="too late"), delay=3.0))
    window, page = await open_page(open_window)

    page.run_button.click()
    await until(lambda: llm_server.requests, RUN_WAIT_S, what="the model call")
    # The run is in progress: the page says so in the history and the details.
    await until(lambda: newest(page).get("phase") == "plan", what="the plan phase in the history")
    assert page.history_model.index(0, 1).data() == "running"
    assert page.cancel_button.isEnabled()
    await until(lambda: "In progress; phase: plan." in page.details.toPlainText())
    assert page.queue_empty.text().startswith("This run is in progress.")

    page.cancel_button.click()
    run = await finished_run(page, "cancelled")

    assert (run["phase"], run["error"]) == ("done", "cancelled")
    assert page.progress_label.text() == "Last run: cancelled — Cancelled before it finished."
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    assert {p.stem for p in (home / "global").glob("*.md")} - {"MEMORY"} == {
        s["slug"] for s in SEEDED
    }
    await settle(window)


# --- settings and the schedule ----------------------------------------------------------------


@pytest.mark.asyncio
async def test_saving_the_schedule_writes_settings_and_re_arms_the_timer(
    open_window: OpenWindow, home: Path
) -> None:
    window, page = await open_page(open_window)
    assert page.next_run.text().startswith("No scheduled runs.")
    assert not page.save_button.isEnabled()  # nothing edited yet
    assert not page.time.isEnabled() and not page.weekday.isEnabled()
    assert not page.learn_setting.isEnabled()  # nothing scheduled: nothing to learn after

    choose(page.frequency, "weekly")
    assert page.time.isEnabled() and page.weekday.isEnabled()
    choose(page.frequency, "daily")
    assert page.time.isEnabled() and not page.weekday.isEnabled()
    page.time.setTime(QTime(5, 30))
    choose(page.mode, "standard")
    page.model_edit.setText("")
    assert page.learn_setting.isEnabled()
    page.learn_setting.setChecked(True)
    assert page.save_button.isEnabled()
    clicked_ms = window.app_context.store.now_ms()
    page.save_button.click()
    await until(lambda: not page.save_button.isEnabled(), what="the save")

    saved = json.loads((home / "settings.json").read_text("utf-8"))
    # When the schedule was saved: only runs due after it count as missed (issue 14).
    saved_at = saved["organizer"].pop("saved_at")
    assert clicked_ms <= saved_at <= window.app_context.store.now_ms()
    assert saved["organizer"] == {
        "schedule": "daily",
        "time_of_day": "05:30",
        "weekday": 1,
        "scope": "all",
        "mode": "standard",
        "learn": True,
    }
    assert service(page).settings.organizer.learn is True  # the scheduler follows with learning
    organizer = service(page)
    expected = next_run_at(
        OrganizerSettings(schedule="daily", time_of_day="05:30", mode="standard"),
        after_ms=window.app_context.store.now_ms(),
    )
    assert organizer.next_due_ms == expected
    assert organizer.timer.active
    assert page.next_run.text() == (
        "Next scheduled run: " + local_time(expected, "ddd yyyy-MM-dd HH:mm")
    )
    assert page.next_run.text().endswith("05:30")
    await settle(window)


@pytest.mark.asyncio
async def test_a_bad_base_url_is_refused_and_nothing_is_saved(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    window, page = await open_page(open_window)
    await unfold_settings(page, qtbot)
    qtbot.keyClicks(page.base_url, "ftp://models.example")
    choose(page.frequency, "daily")

    page.save_button.click()
    # Issue 14: the code's sentence, the setting named in words in the details (no JSON path).
    refused = "A setting is not valid, so nothing was saved."
    await until(lambda: window.statusBar().currentMessage() == refused, what="the error")
    assert window.statusBar().toolTip() == (
        "The organizer's model's base URL must start with http:// or https://."
    )
    assert not (home / "settings.json").exists()
    assert page.save_button.isEnabled()  # the edits are kept for fixing
    assert service(page).next_due_ms is None
    await settle(window)


@pytest.mark.asyncio
async def test_saving_the_schedule_keeps_the_model_the_model_page_saved(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    window, page = await open_page(open_window)
    await until(lambda: page.frequency.currentData() == "none", what="the settings")
    assert page.model_edit.text() == ""
    # Meanwhile the Model page saves an organizer model (the same command it uses).
    model = {"model": "openai/gpt-4o-mini", "api_base": "http://127.0.0.1:9/v1"}
    await page.client.call("settings_save_memory", {"settings": {"organizer_model": model}})

    await unfold_settings(page, qtbot)
    choose(page.frequency, "daily")  # only the frequency is edited here
    page.save_button.click()
    await until(lambda: not page.save_button.isEnabled(), what="the save")

    saved = json.loads((home / "settings.json").read_text("utf-8"))
    assert saved["organizer"]["schedule"] == "daily"
    assert saved["organizer_model"] == model  # not put back to the empty form values
    assert page.model_edit.text() == model["model"]  # the form now shows what is saved
    # A model typed here is still sent, and only what was typed.
    page.model_edit.selectAll()
    qtbot.keyClicks(page.model_edit, "openai/gpt-4.1")
    assert page.save_button.isEnabled()
    page.save_button.click()
    await until(lambda: not page.save_button.isEnabled(), what="the second save")
    saved = json.loads((home / "settings.json").read_text("utf-8"))
    assert saved["organizer_model"] == {**model, "model": "openai/gpt-4.1"}
    await settle(window)


@pytest.mark.asyncio
async def test_settings_load_into_the_form(open_window: OpenWindow, home: Path) -> None:
    home.mkdir(parents=True)
    save_settings(
        home,
        Settings.from_dict(
            {
                "default": {"model": "openai/gpt-4o-mini"},
                "organizer": {
                    "schedule": "weekly",
                    "time_of_day": "22:15",
                    "weekday": 5,
                    "scope": "current-project",  # set by the CLI: kept as it is
                    "mode": "aggressive",
                },
            }
        ),
    )
    window, page = await open_page(open_window)
    await until(lambda: page.frequency.currentData() == "weekly", what="the settings")

    assert page.time.time() == QTime(22, 15)
    assert page.weekday.currentData() == 5 and page.weekday.isEnabled()
    assert (page.scope.currentData(), page.mode.currentData()) == ("current-project", "aggressive")
    assert page.model_hint.text() == "Runs use the default model, openai/gpt-4o-mini."
    assert page.next_run.text().startswith("Next scheduled run: Fri")
    assert not page.save_button.isEnabled()
    await settle(window)


@pytest.mark.asyncio
async def test_keyboard_shortcuts_run_and_save(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    window, page = await open_page(open_window)
    window.activateWindow()
    await unfold_settings(page, qtbot)
    page.model_edit.setFocus()
    ctrl = Qt.KeyboardModifier.ControlModifier

    qtbot.keyClick(page.model_edit, Qt.Key.Key_R, ctrl)  # Run now (an empty store: skipped)
    run = await finished_run(page, "skipped")
    assert (run["trigger"], run["final_summary"]) == ("manual", "nothing to organize")

    qtbot.keyClicks(page.model_edit, "openai/gpt-4o-mini")
    assert page.model_hint.text() == "Runs use openai/gpt-4o-mini."
    qtbot.keyClick(page.model_edit, Qt.Key.Key_S, ctrl)  # Save
    settings = home / "settings.json"
    await until(settings.exists, what="the settings file")
    saved = json.loads(settings.read_text("utf-8"))
    assert saved["organizer_model"] == {"model": "openai/gpt-4o-mini", "api_base": ""}
    await settle(window)


def queued_run(home: Path, decisions: list[dict[str, Any]]) -> str:
    """A finished manual run whose review queue holds `decisions` (a report written by hand,
    as another writer of the same report format could leave it)."""
    report = {
        "version": 4,
        "clusterSummaries": [],
        "reviewItems": [],
        "raw": [],
        "safeDecisions": decisions,
        "manualApplyState": {
            "status": "pending",
            "appliedDecisionKeys": [],
            "failedDecisionKeys": [],
            "counts": {},
        },
    }
    with MemoryStore.open(home) as store:
        run_id = str(dispatch(store, "organize_run_create", {"trigger": "manual"})["run"]["run_id"])
        counts = {"input_count": len(decisions), "final_count": len(decisions)}
        dispatch(
            store,
            "organize_run_update",
            {"run_id": run_id, "status": "succeeded", "report": report, "counts": counts},
        )
    return run_id


@pytest.mark.asyncio
async def test_a_decision_that_does_not_say_it_needs_no_ack_is_not_safe(
    open_window: OpenWindow, home: Path
) -> None:
    seed(
        home,
        [
            memory("old-a", "Obsolete note A.", "Old A"),
            memory("old-b", "Obsolete note B.", "Old B"),
        ],
    )
    base = {"op": "delete", "scope": "global", "reason": "obsolete", "riskLevel": "low"}
    run_id = queued_run(
        home,
        [
            {**base, "slug": "old-a", "sourceSlugs": ["old-a"]},  # no requiresUserAck at all
            {**base, "slug": "old-b", "requiresUserAck": False, "sourceSlugs": ["old-b"]},
        ],
    )
    window, page = await open_page(open_window)
    await until(lambda: len(page.queue_items()) == 2, what="the review queue")

    checked = {r["slug"]: r["checked"] for r in queue_rows(page)}
    assert checked == {"old-a": "False", "old-b": "True"}  # the core's rule: an ack is needed
    assert page.apply_safe_button.isEnabled()

    page.apply_safe_button.click()
    await until(lambda: page.outcome.text().startswith("1 decision"), what="the outcome")

    assert (home / "global" / "old-a.md").exists()
    assert not (home / "global" / "old-b.md").exists()
    state = stored_run(home, run_id)["report"]["report"]["manualApplyState"]
    assert (state["status"], state["appliedDecisionKeys"]) == (
        "partial",
        ["1:delete:global::old-b"],
    )
    # old-a is still waiting, but "Apply all safe" has nothing left it would take: it says why.
    assert [r["state"] for r in queue_rows(page)] == ["pending", "applied"]
    assert not page.apply_safe_button.isEnabled()
    assert page.reject_rest_button.isEnabled()
    assert page.safe_hint.isVisible()
    assert page.safe_hint.text().startswith("Every remaining proposal needs your review")
    assert page.apply_safe_button.toolTip() == page.safe_hint.text()
    await settle(window)


# --- history --------------------------------------------------------------------------------


def legacy_run(home: Path) -> str:
    """A finished run whose report an older version wrote (v3), as LiveAgent would leave it."""
    with MemoryStore.open(home) as store:
        created = dispatch(store, "organize_run_create", {"trigger": "manual"})
        run_id = str(created["run"]["run_id"])
        store.organize_run_update(
            run_id,
            status="succeeded",
            report={"version": 3, "summary": "merged three tea notes", "decisions": [{}]},
        )
    return run_id


@pytest.mark.asyncio
async def test_a_legacy_report_is_read_only(open_window: OpenWindow, home: Path) -> None:
    run_id = legacy_run(home)
    window, page = await open_page(open_window)
    await until(lambda: page.selected_run is not None, what="the run's details")

    assert page.selected_run is not None and page.selected_run["run_id"] == run_id
    details = page.details.toPlainText()
    assert "Report from an older version (read-only): merged three tea notes" in details
    assert page.queue_stack.currentWidget() is page.queue_empty
    assert page.queue_empty.text() == (
        "This run was recorded by an older version; its report is read-only."
    )
    assert not page.queue_buttons.isVisible()
    assert not page.apply_button.isEnabled() and not page.reject_rest_button.isEnabled()
    page.reject_queue()  # the shortcut path does nothing either
    assert stored_run(home, run_id)["report"]["legacy"] is True
    await settle(window)


@pytest.mark.asyncio
async def test_clear_history_leaves_the_empty_state(open_window: OpenWindow, home: Path) -> None:
    legacy_run(home)
    window, page = await open_page(open_window)
    await until(lambda: page.history_model.rows, what="the history")
    assert page.clear_button.isEnabled()

    page.clear_button.click()
    await until(lambda: not page.history_model.rows, what="the history to clear")

    assert page.history_stack.currentWidget() is page.history_empty
    assert page.history_empty.text().startswith("No organizer runs yet.")
    assert page.details.toPlainText() == "Select a run to see its details."
    with MemoryStore.open(home) as store:
        assert dispatch(store, "organize_run_list", {})["runs"] == []
    await settle(window)


@pytest.mark.asyncio
async def test_a_run_from_another_process_is_polled_until_it_ends(
    open_window: OpenWindow, home: Path
) -> None:
    window, page = await open_page(open_window)
    with MemoryStore.open(home) as store:  # e.g. `liveagent-memory organize` in a terminal
        run_id = dispatch(store, "organize_run_create", {"trigger": "manual"})["run"]["run_id"]
    page.refresh()
    await until(lambda: page.history_model.rows, what="the CLI's run")
    assert newest(page)["status"] == "running" and page._poll.isActive()

    with MemoryStore.open(home) as store:
        dispatch(store, "organize_run_update", {"run_id": run_id, "status": "failed"})
    await until(lambda: newest(page).get("status") == "failed", 6, what="the poll")
    assert not page._poll.isActive()
    await settle(window)


@pytest.mark.asyncio
async def test_a_run_whose_program_was_killed_shows_why_it_ended(
    open_window: OpenWindow, home: Path
) -> None:
    # Issue 12: the owner died mid-run (a kill -9); the page's first look fails the run.
    owner = dead_owner()
    with MemoryStore.open(home) as store, store.index.write() as conn:
        crashed, _ = store_runs.create(conn, store.now_ms(), owner=owner, trigger="manual")
    run_id = crashed.run_id

    window, page = await open_page(open_window)
    await until(lambda: page.selected_run is not None, what="the run's details")

    assert (newest(page)["run_id"], newest(page)["status"]) == (run_id, "failed")
    why = "Abandoned: the program running it stopped before it finished."
    assert f"Error: {why}" in page.details.toPlainText()
    tooltip = page.history_model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert tooltip == why
    assert stored_run(home, run_id)["error"] == "abandoned"  # the code stays a code
    assert page.run_button.isEnabled()  # nothing blocks a new run
    await settle(window)


# --- the diff view --------------------------------------------------------------------------


def test_diff_html_escapes_and_colours(qapp: QApplication) -> None:
    before = "keep <b>this</b>\nold line\n"
    after = "keep <b>this</b>\nnew line & more\n<script>alert(1)</script>\n"

    unified = unified_html(before, after)
    side = side_by_side_html(before, after)

    for text in (unified, side):
        assert "<script>" not in text and "<b>this</b>" not in text
        assert "&lt;script&gt;" in text and "&lt;b&gt;this&lt;/b&gt;" in text
        assert "#dafbe1" in text and "#ffebe9" in text  # additions green, removals red
    assert "-old line" in unified and "+new line &amp; more" in unified
    assert unified.count("@@") == 2  # one hunk header
    assert side.count("<tr>") == 3  # kept line, replaced line, added line


@pytest.mark.asyncio
async def test_diff_view_switches_between_unified_and_side_by_side(qapp: QApplication) -> None:
    from liveagent_memory.ui.widgets.diff_view import DiffView

    view = DiffView()
    view.set_texts("a\nb\n", "a\nc\n", caption="x")
    lines = [line for line in view.browser.toPlainText().splitlines() if line]
    assert lines == ["@@ -1,2 +1,2 @@", " a", "-b", "+c"]
    view.mode.setCurrentIndex(view.mode.findData(DiffView.SIDE_BY_SIDE))
    cells = [line.strip() for line in view.browser.toPlainText().splitlines() if line.strip()]
    assert cells == ["a", "a", "-b", "+c"]  # row by row: left cell, right cell
    view.set_texts("same", "same")
    assert view.browser.toPlainText() == "No changes."
    view.show_message("Nothing selected.")
    assert not view.showing_diff and view.browser.toPlainText() == "Nothing selected."


def test_the_page_is_registered_after_memories() -> None:
    from liveagent_memory.ui.drawer import PAGES

    ordered = [page.NAME for page in sorted(PAGES, key=lambda p: p.ORDER)]
    assert ordered.index("organizer") == ordered.index("memories") + 1
    assert threading.current_thread() is threading.main_thread()


# --- a merge is one decision: apply, reject, compare and edit (issue 14) ------------------------

GROUP = "merge:c1:tea-a:tea-a+tea-b+tea-c"
MERGED = "I drink green tea.\n\nGreen tea every morning.\n\nSencha is my green tea."


def merge_queue(home: Path, *, risk: str = "low") -> str:
    """Three tea memories proposed as one merge, and a stale note's delete, waiting for review
    (a report as the gate writes it)."""
    seed(
        home,
        [
            memory("tea-a", "I drink green tea.", "Green tea"),
            memory("tea-b", "Green tea every morning.", "Morning tea"),
            memory("tea-c", "Sencha is my green tea.", "Sencha"),
            memory("old-note", "Moved to Lyon in 2019.", "Old move"),
        ],
    )
    safe = {"riskLevel": risk, "requiresUserAck": risk != "low", "confidence": 0.9}
    merged = {"scope": "global", "groupId": GROUP, "reason": "all green tea", **safe}
    return queued_run(
        home,
        [
            {
                **merged,
                "op": "upsert",
                "slug": "tea-a",
                "sourceSlugs": ["tea-a", "tea-b", "tea-c"],
                "memoryType": "reference",
                "description": "Green tea",
                "body": MERGED,
                "previousBody": "I drink green tea.",
            },
            {**merged, "op": "delete", "slug": "tea-b", "sourceSlugs": ["tea-b", "tea-a"]},
            {**merged, "op": "delete", "slug": "tea-c", "sourceSlugs": ["tea-c", "tea-a"]},
            {
                "op": "delete",
                "slug": "old-note",
                "scope": "global",
                "reason": "obsolete",
                "sourceSlugs": ["old-note"],
                **safe,
            },
        ],
    )


def on_disk(home: Path) -> set[str]:
    return {p.stem for p in (home / "global").glob("*.md")} - {"MEMORY"}


async def queue_shown(page: OrganizerPage, count: int = 2) -> None:
    await until(lambda: len(page.queue_items()) == count, what="the review queue")


def manual_state(home: Path, run_id: str) -> dict[str, Any]:
    return dict(stored_run(home, run_id)["report"]["report"]["manualApplyState"])


@pytest.mark.asyncio
async def test_a_merge_is_one_decision_applied_whole_from_the_keyboard(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    run_id = merge_queue(home)
    window, page = await open_page(open_window)
    await queue_shown(page)
    merge_item, note_item = page.queue_items()
    assert row(merge_item)["parts"] == [
        ("Write the merged text", "tea-a"),
        ("Delete (merged into tea-a)", "tea-b"),
        ("Delete (merged into tea-a)", "tea-c"),
    ]
    assert merge_item.childCount() == 3 and not merge_item.isExpanded()
    assert [r["checked"] for r in queue_rows(page)] == ["True", "True"]  # both safe

    # A person unticks the stale note (Down, Space), then applies with Ctrl+Enter.
    page.queue.setFocus()
    page.queue.setCurrentItem(merge_item)
    qtbot.keyClick(page.queue, Qt.Key.Key_Down)
    assert page.queue.currentItem() is note_item
    qtbot.keyClick(page.queue, Qt.Key.Key_Space)
    assert page.checked_keys() == ["0:upsert:global::tea-a"]
    qtbot.keyClick(page.queue, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: page.outcome.text().startswith("3 decisions"), what="the outcome")

    assert on_disk(home) == {"tea-a", "old-note"}  # the merge, all of it; not the note
    assert read_memory(home, "tea-a")["content"] == MERGED
    state = manual_state(home, run_id)
    assert state["appliedDecisionKeys"] == [
        "0:upsert:global::tea-a",
        "1:delete:global::tea-b",
        "2:delete:global::tea-c",
    ]
    assert [r["state"] for r in queue_rows(page)] == ["applied", "pending"]
    assert not page.queue_items()[0].flags() & Qt.ItemFlag.ItemIsUserCheckable
    await settle(window)


@pytest.mark.asyncio
async def test_each_decision_is_rejected_on_its_own_and_looks_rejected(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    run_id = merge_queue(home)
    window, page = await open_page(open_window)
    await queue_shown(page)
    before = {slug: (home / "global" / f"{slug}.md").read_bytes() for slug in on_disk(home)}
    page.queue.setFocus()
    page.queue.setCurrentItem(page.queue_items()[0])

    qtbot.keyClick(page.queue, Qt.Key.Key_Delete)  # reject the current decision
    await until(lambda: page.outcome.text() == "3 decisions rejected.", what="the rejection")

    merge_item, note_item = page.queue_items()
    assert row(merge_item)["state"] == "rejected"
    assert merge_item.font(0).strikeOut() and children(merge_item)[1].font(1).strikeOut()
    assert not merge_item.flags() & Qt.ItemFlag.ItemIsUserCheckable
    assert page.queue.currentItem() is note_item  # the next open decision comes up
    assert row(note_item)["state"] == "pending" and row(note_item)["checked"] == "True"
    # Nothing changed on disk; the run says which decisions were rejected.
    assert {s: (home / "global" / f"{s}.md").read_bytes() for s in on_disk(home)} == before
    state = manual_state(home, run_id)
    assert state["status"] == "partial"
    assert state["rejectedDecisionKeys"] == [
        "0:upsert:global::tea-a",
        "1:delete:global::tea-b",
        "2:delete:global::tea-c",
    ]
    # The rest still applies: the note alone.
    page.apply_button.click()
    await until(lambda: page.outcome.text().startswith("1 decision"), what="the apply")
    assert on_disk(home) == {"tea-a", "tea-b", "tea-c"}
    assert manual_state(home, run_id)["status"] == "applied"
    await settle(window)


async def open_compare(page: OrganizerPage, qtbot: QtBot) -> CompareDialog:
    page.queue.setCurrentItem(page.queue_items()[0])
    await until(lambda: page.compare_button.isEnabled(), what="the compare button")
    qtbot.mouseClick(page.compare_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.compare_dialog is not None, what="the compare view")
    assert page.compare_dialog is not None
    return page.compare_dialog


@pytest.mark.asyncio
async def test_compare_the_memories_and_apply_an_edited_merged_text(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    run_id = merge_queue(home)
    window, page = await open_page(open_window)
    await queue_shown(page)

    dialog = await open_compare(page, qtbot)

    # Every memory of the merge side by side, the kept one first, then the merged text.
    assert [text.toPlainText() for text in dialog.sources] == [
        "I drink green tea.",
        "Green tea every morning.",
        "Sencha is my green tea.",
    ]
    assert dialog.editor.toPlainText() == MERGED
    assert dialog.isVisible()
    dialog.editor.setFocus()
    qtbot.keyClick(dialog.editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.editor, "Green tea every morning, mostly sencha.")
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.outcome.text().startswith("3 decisions"), what="the apply")

    assert page.compare_dialog is None
    assert read_memory(home, "tea-a")["content"] == "Green tea every morning, mostly sencha."
    assert on_disk(home) == {"tea-a", "old-note"}
    written = stored_run(home, run_id)["report"]["report"]["safeDecisions"][0]
    assert written["body"] == "Green tea every morning, mostly sencha."
    assert written["editedByUser"] is True
    await settle(window)


@pytest.mark.asyncio
async def test_an_edited_text_with_a_secret_is_refused_and_nothing_changes(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    run_id = merge_queue(home)
    window, page = await open_page(open_window)
    await queue_shown(page)
    before = {slug: (home / "global" / f"{slug}.md").read_bytes() for slug in on_disk(home)}
    report_before = stored_run(home, run_id)["report"]

    dialog = await open_compare(page, qtbot)
    dialog.editor.setFocus()
    qtbot.keyClick(dialog.editor, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.editor, " Key AKIA" + "ABCDEFGHIJKLMNOP")
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)  # keep it for the queue
    await until(lambda: page.compare_dialog is None, what="the compare view to close")
    assert page.queue_items()[0].text(0) == "Merge 3 memories (edited)"
    await until(lambda: "AKIA" in page.diff.browser.toPlainText(), what="the edit's diff")

    qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    await until(lambda: "secret" in window.statusBar().currentMessage(), what="the refusal")

    assert {s: (home / "global" / f"{s}.md").read_bytes() for s in on_disk(home)} == before
    assert stored_run(home, run_id)["report"] == report_before  # the secret is stored nowhere
    assert page.queue_items()[0].text(0) == "Merge 3 memories (edited)"  # kept to fix
    assert page.apply_button.isEnabled()
    # Back to the proposal: the edit is gone and the merge applies as proposed.
    dialog = await open_compare(page, qtbot)
    qtbot.mouseClick(dialog.reset_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)
    await until(lambda: page.queue_items()[0].text(0) == "Merge 3 memories", what="no edit")
    await settle(window)


@pytest.mark.asyncio
async def test_apply_all_safe_says_why_it_is_off(open_window: OpenWindow, home: Path) -> None:
    merge_queue(home, risk="medium")  # every decision needs an acknowledgement
    window, page = await open_page(open_window)
    await queue_shown(page)

    assert not page.apply_safe_button.isEnabled()
    why = page.safe_hint.text()
    assert page.safe_hint.isVisible() and why.startswith(
        "Every remaining proposal needs your review"
    )
    assert page.apply_safe_button.toolTip() == why
    assert [r["checked"] for r in queue_rows(page)] == ["False", "False"]
    await settle(window)


@pytest.mark.asyncio
async def test_the_queue_relabels_on_a_language_switch(
    open_window: OpenWindow, home: Path, english: Translations
) -> None:
    merge_queue(home, risk="medium")
    window, page = await open_page(open_window)
    await queue_shown(page)
    window.translations = english
    try:
        window.switch_language("zh_CN")
        await until(lambda: page.reject_rest_button.text() != "Reject the rest", what="Chinese")
        labels = [
            page.queue.headerItem().text(0),
            page.queue_items()[0].text(0),
            page.settings_toggle.text(),
            page.compare_button.text(),
            page.safe_hint.text(),
        ]
        assert all(label and label.isascii() is False for label in labels), labels
    finally:
        window.switch_language("en")
    await until(lambda: page.queue_items()[0].text(0) == "Merge 3 memories", what="English")
    await settle(window)


@pytest.mark.asyncio
async def test_a_learned_anti_pattern_is_previewed_and_applied_from_the_queue(
    open_window: OpenWindow, home: Path, qtbot: QtBot
) -> None:
    # Issue 18: what consolidation proposes is one more kind of the same queue.
    with MemoryStore.open(home) as store:
        ids = charge_card_failures(store)
        run_id = dispatch(store, "organize_consolidate", {"offline": True})["run"]["run_id"]
    window, page = await open_page(open_window)
    await queue_shown(page, 1)
    (item,) = page.queue_items()
    assert (row(item)["action"], row(item)["checked"]) == ("New anti-pattern", "False")
    assert item.text(5) == f"Learned from 2 episodes (anti-pattern): {', '.join(ids)}."
    page.queue.setCurrentItem(item)  # a new memory: its whole text is the change
    await until(lambda: page.diff.showing_diff, what="the preview")
    assert ids[0] in page.diff.browser.toPlainText()

    page.queue.setFocus()
    qtbot.keyClick(page.queue, Qt.Key.Key_Space)
    qtbot.keyClick(page.queue, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: row(page.queue_items()[0])["state"] == "applied", what="the apply")

    learned = row(page.queue_items()[0])["slug"]
    assert learned.startswith("avoid-connectionerror-")
    assert (home / "global" / "user" / f"{learned}.md").exists()  # feedback: global/user/
    assert ids[1] in read_memory(home, learned)["content"]
    assert manual_state(home, run_id)["appliedDecisionKeys"] == [f"0:upsert:global::{learned}"]
    await settle(window)


@pytest.mark.asyncio
async def test_learn_from_episodes_runs_a_consolidation_whose_proposals_wait_for_review(
    open_window: OpenWindow, home: Path
) -> None:
    # Issue 18: the page's button runs the consolidate phase on the window's organizer (no
    # model configured: the offline extractor), and nothing is applied before review.
    with MemoryStore.open(home) as store:
        for n in (2, 3, 4):
            episode = {
                "goal": f"deploy the billing service {n}",
                "outcome": "failure",
                "errors_encountered": [
                    {"error_type": "TimeoutError", "message": f"vpn down after {n}0 s"}
                ],
            }
            dispatch(store, "episode_record", {"episode": episode})
    window, page = await open_page(open_window)
    assert page.learn_button.text() == "Learn from episodes" and page.learn_button.isEnabled()
    before = sorted(p.name for p in (home / "global").rglob("*.md"))

    page.learn_button.click()

    assert not page.learn_button.isEnabled() and not page.run_button.isEnabled()
    run = await finished_run(page)
    assert (run["status"], run["phase"]) == ("succeeded", "consolidate")
    await queue_shown(page, 1)
    (item,) = page.queue_items()
    assert row(item)["action"] == "New anti-pattern" and row(item)["state"] != "applied"
    assert sorted(p.name for p in (home / "global").rglob("*.md")) == before  # nothing written
    assert page.learn_button.isEnabled() and page.run_button.isEnabled()
    await settle(window)
