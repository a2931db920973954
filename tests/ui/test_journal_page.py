"""The Journal page, driven through its calendar, list, search box and keys as a person would."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, Qt, QUrl
from PySide6.QtGui import QFont, QImage, QTextCharFormat
from PySide6.QtTest import QSignalSpy
from PySide6.QtWidgets import QApplication, QCalendarWidget, QTableView
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import SlugNotFound
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.pages.journal import DATE_ROLE, JournalPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow, record_calls, record_searches

ARCHIVED_AGO = 120  # past the 90-day retention: the window's open archives it


def seed_journal(home: Path) -> date:
    """Four journal days (one old enough to be archived) and an ordinary memory; returns
    the journal's today. Dates are relative to the real clock the app runs on."""
    with MemoryStore.open(home) as store:
        today = store.today()

        def append(ago: int, body: str, conversation: str) -> None:
            day = (today - timedelta(days=ago)).isoformat()
            payload = {"body": body, "local_date": day, "conversation_id": conversation}
            dispatch(store, "memory_daily_append", {**payload, "model": "test-model"})

        append(0, "Fixed the **flaky** sync test.", "conv-morning")
        append(0, "Reviewed the parser change with the user.", "conv-evening")
        append(2, "Wrote the release checklist.", "conv-release")
        append(5, "讨论了记忆系统的设计。", "conv-design")
        append(ARCHIVED_AGO, "Migrated the old database.", "conv-old")
        dispatch(
            store,
            "memory_write",
            {
                "slug": "release-steps",
                "scope": "global",
                "type": "reference",
                "description": "Release checklist steps",
                "body": "The release checklist lives in docs/release.md.",
            },
        )
    return today


async def open_journal(open_window: OpenWindow) -> tuple[MainWindow, JournalPage]:
    window = await open_window()
    page = window.page("journal")
    assert isinstance(page, JournalPage)
    window.open_page("journal")
    return window, page


def iso(day: date) -> str:
    return day.isoformat()


def listed(page: JournalPage) -> list[str]:
    return [page.days_list.item(row).text() for row in range(page.days_list.count())]


def listed_dates(page: JournalPage) -> list[str]:
    items = (page.days_list.item(row) for row in range(page.days_list.count()))
    return [str(item.data(DATE_ROLE)) for item in items]


def shown_date(page: JournalPage) -> str | None:
    """The date whose journal the detail pane shows (None: an empty state)."""
    if page.current is None:
        return None
    entry = page.current["entry"]
    return str(entry["date_local"]) if entry["date_local"] == selected(page) else None


def selected(page: JournalPage) -> str:
    return page.calendar.selectedDate().toString("yyyy-MM-dd")


def detail(page: JournalPage) -> str:
    return page.detail.toPlainText()


def click_date(qtbot: QtBot, calendar: QCalendarWidget, day: date) -> None:
    """Turn the calendar to the day's month and click the day's cell."""
    calendar.setCurrentPage(day.year, day.month)
    view = calendar.findChild(QTableView)
    assert view is not None
    model = view.model()
    for row in range(1, model.rowCount()):  # row 0 holds the weekday names
        for column in range(model.columnCount()):
            index = model.index(row, column)
            number = int(model.data(index))
            # The first row may show the previous month's end, the last rows the next's start.
            if (
                number == day.day
                and not (row == 1 and number > 7)
                and not (row >= 5 and number < 15)
            ):
                qtbot.mouseClick(
                    view.viewport(),
                    Qt.MouseButton.LeftButton,
                    pos=view.visualRect(index).center(),
                )
                return
    raise AssertionError(f"{day} is not on the calendar page")


@pytest.fixture
def today(home: Path) -> date:
    return seed_journal(home)


# --- browsing by date -------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_opens_on_the_newest_day_with_its_body_and_sources(
    open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)

    await until(lambda: shown_date(page) == iso(today), what="today's journal")
    text = detail(page)
    assert "Fixed the flaky sync test." in text
    assert "Reviewed the parser change with the user." in text
    assert "2 entries" in text
    assert "Sources" in text
    assert "conv-morning" in text and "conv-evening" in text and "test-model" in text
    assert "**" not in text  # rendered as Markdown, not shown raw
    assert page.badge.isHidden()
    assert page.heading.text() == page.locale().toString(
        QDate(today.year, today.month, today.day), page.locale().FormatType.LongFormat
    )
    old = today - timedelta(days=ARCHIVED_AGO)
    assert listed(page) == [
        f"{iso(today)}  ·  2 entries",
        f"{iso(today - timedelta(days=2))}  ·  1 entry",
        f"{iso(today - timedelta(days=5))}  ·  1 entry",
        f"{iso(old)}  ·  1 entry  ·  archived",
    ]
    assert page.count.text() == "4 days with entries"
    assert page.days_list.currentItem().data(DATE_ROLE) == iso(today)

    page.retranslate()  # a language switch re-labels in place: nothing is lost
    assert len(listed(page)) == 4 and "conv-evening" in detail(page)
    assert page.days_list.currentItem().data(DATE_ROLE) == iso(today)


@pytest.mark.asyncio
async def test_days_with_entries_are_bold_on_the_calendar_with_a_count(
    open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)
    await until(lambda: shown_date(page) == iso(today), what="the first load")

    def fmt(day: date) -> QTextCharFormat:
        return page.calendar.dateTextFormat(QDate(day.year, day.month, day.day))

    assert fmt(today).fontWeight() == QFont.Weight.Bold
    assert fmt(today).toolTip() == "2 entries"
    assert fmt(today - timedelta(days=2)).toolTip() == "1 entry"
    old = fmt(today - timedelta(days=ARCHIVED_AGO))
    assert old.fontWeight() == QFont.Weight.Bold and old.fontItalic()
    assert old.toolTip() == "1 entry (archived, read-only)"
    empty = fmt(today - timedelta(days=1))
    assert empty.fontWeight() != QFont.Weight.Bold and empty.toolTip() == ""


@pytest.mark.asyncio
async def test_picking_a_date_on_the_calendar_shows_that_day(
    qtbot: QtBot, open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)
    await until(lambda: shown_date(page) == iso(today), what="the first load")
    two_days_ago = today - timedelta(days=2)

    click_date(qtbot, page.calendar, two_days_ago)

    await until(lambda: shown_date(page) == iso(two_days_ago), what="that day's journal")
    assert "Wrote the release checklist." in detail(page)
    assert "Fixed the flaky sync test." not in detail(page)
    assert "conv-release" in detail(page) and "conv-morning" not in detail(page)
    assert page.days_list.currentItem().data(DATE_ROLE) == iso(two_days_ago)

    click_date(qtbot, page.calendar, today - timedelta(days=1))  # a day without entries

    await until(lambda: "Nothing on this day." in detail(page), what="the empty day")
    assert page.current is None
    assert page.badge.isHidden()
    assert page.days_list.currentItem() is None


@pytest.mark.asyncio
async def test_an_archived_day_shows_it_is_read_only(
    qtbot: QtBot, open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)
    await until(lambda: page.days_list.count() == 4, what="the days")
    old = iso(today - timedelta(days=ARCHIVED_AGO))

    item = page.days_list.item(3)
    qtbot.mouseClick(
        page.days_list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=page.days_list.visualItemRect(item).center(),
    )

    await until(lambda: shown_date(page) == old, what="the archived day")
    assert selected(page) == old
    assert page.badge.isVisibleTo(page) and page.badge.text() == "Archived — read-only"
    assert "Migrated the old database." in detail(page)
    assert page.current is not None and page.current["entry"]["archived"] is True
    assert page.current["entry"]["path"].startswith("global/daily/.archive/")

    page.days_list.setCurrentRow(0)  # back to a live day: the badge goes
    await until(lambda: shown_date(page) == iso(today), what="today again")
    assert page.badge.isHidden()


# --- search -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_search_finds_the_right_day_and_not_ordinary_memories(
    qtbot: QtBot, open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)
    await until(lambda: page.days_list.count() == 4, what="the days")
    searches = record_searches(page)
    two_days_ago = iso(today - timedelta(days=2))

    qtbot.keyClicks(page.search, "checklist")
    assert searches.payloads == []  # debounced: nothing while typing

    await until(lambda: page.list_title.text() == "Matching days", what="the matches")
    assert listed_dates(page) == [two_days_ago]  # the ordinary memory is not listed
    assert "release [checklist]" in listed(page)[0]  # the match is marked
    [search] = searches.payloads  # one search for nine keystrokes
    assert search["query"] == "checklist" and search["type"] == "daily"
    assert page.count.text() == "1 matching day"

    page.days_list.setCurrentRow(0)
    await until(lambda: shown_date(page) == two_days_ago, what="the matching day")
    assert "Wrote the release checklist." in detail(page)

    page.search.clear()
    await until(lambda: len(listed(page)) == 4, what="every day again")
    assert page.list_title.text() == "Days with entries"
    assert page.days_list.currentItem().data(DATE_ROLE) == two_days_ago


@pytest.mark.asyncio
async def test_search_in_chinese_and_a_search_that_finds_nothing(
    open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)
    await until(lambda: page.days_list.count() == 4, what="the days")

    page.search.setText("记忆系统")
    await until(
        lambda: listed_dates(page) == [iso(today - timedelta(days=5))], what="the Chinese match"
    )

    page.search.setText("zebra")
    await until(lambda: page.count.text() == "No journal entry mentions “zebra”.", what="none")
    assert listed(page) == []


@pytest.mark.asyncio
async def test_past_the_day_limit_each_calendar_month_is_fetched_when_shown(
    open_window: OpenWindow, today: date
) -> None:
    _, page = await open_journal(open_window)
    await until(lambda: page.days_list.count() == 4, what="the days")
    client = record_calls(page)
    page.days_limit = 2  # as if the store held more days than one fetch brings
    page.refresh()
    await until(lambda: page.days_list.count() == 2, what="the newest days only")
    assert page.count.text() == "Showing the newest 2 days; the calendar shows the rest."
    old = today - timedelta(days=ARCHIVED_AGO)
    old_day = QDate(old.year, old.month, old.day)
    assert page.calendar.dateTextFormat(old_day).toolTip() == ""

    page.calendar.setCurrentPage(old.year, old.month)  # a person turns to that month

    await until(lambda: page.calendar.dateTextFormat(old_day).toolTip() != "", what="marks")
    assert page.calendar.dateTextFormat(old_day).toolTip() == "1 entry (archived, read-only)"
    month = f"{old.year:04d}-{old.month:02d}"
    assert [p.get("month") for p in client.payloads("memory_journal_days")] == [None, month]


# --- keyboard ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_keys_find_and_step_between_days_with_entries(
    qtbot: QtBot, open_window: OpenWindow, today: date
) -> None:
    window, page = await open_journal(open_window)
    await until(lambda: shown_date(page) == iso(today), what="the first load")
    window.activateWindow()
    page.calendar.setFocus()
    await until(lambda: QApplication.focusWidget() is not None, what="focus")
    alt = Qt.KeyboardModifier.AltModifier

    def press(key: Qt.Key, modifier: Qt.KeyboardModifier = alt) -> None:
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, key, modifier)

    press(Qt.Key.Key_Left)
    assert selected(page) == iso(today - timedelta(days=2))
    await until(lambda: shown_date(page) == selected(page), what="the previous day")
    press(Qt.Key.Key_Left)
    assert selected(page) == iso(today - timedelta(days=5))
    press(Qt.Key.Key_Left)
    assert selected(page) == iso(today - timedelta(days=ARCHIVED_AGO))
    press(Qt.Key.Key_Left)  # no older day: stays
    assert selected(page) == iso(today - timedelta(days=ARCHIVED_AGO))
    await until(lambda: page.badge.isVisibleTo(page), what="the archived day's badge")
    press(Qt.Key.Key_Right)
    assert selected(page) == iso(today - timedelta(days=5))
    press(Qt.Key.Key_Right)
    press(Qt.Key.Key_Right)
    press(Qt.Key.Key_Right)  # no newer day: stays on today
    assert selected(page) == iso(today)

    press(Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is page.search


# --- scope, empty store, errors ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_scope_selector_lists_the_global_journal(
    open_window: OpenWindow, today: date
) -> None:
    window, page = await open_journal(open_window)
    await until(lambda: page.days_list.count() == 4, what="the days")
    client = record_calls(page)
    assert [page.scope.itemText(i) for i in range(page.scope.count())] == [
        "All journals",
        "Global journal",
    ]

    page.scope.setCurrentIndex(1)

    await until(lambda: bool(client.payloads("memory_journal_days")), what="a reload")
    assert client.payloads("memory_journal_days")[-1]["scope"] == "global"
    await until(lambda: window.bridge.pending == 0, what="the reload to finish")
    assert page.count.text() == "4 days with entries"
    assert listed_dates(page)[0] == iso(today)


@pytest.mark.asyncio
async def test_an_empty_store_says_there_is_no_journal_yet(open_window: OpenWindow) -> None:
    _, page = await open_journal(open_window)

    await until(lambda: page.count.text() == "No journal entries yet.", what="the empty state")
    assert page.days_list.count() == 0
    assert "No journal entries yet." in detail(page)
    assert page.badge.isHidden()


@pytest.mark.asyncio
async def test_a_new_entry_shows_after_a_refresh(open_window: OpenWindow, today: date) -> None:
    window, page = await open_journal(open_window)
    await until(lambda: shown_date(page) == iso(today), what="the first load")

    await page.client.call("memory_daily_append", {"body": "A third entry today."})
    page.refresh()

    await until(lambda: "A third entry today." in detail(page), what="the new entry")
    assert "3 entries" in detail(page)
    assert listed(page)[0] == f"{iso(today)}  ·  3 entries"


@pytest.mark.asyncio
async def test_a_day_whose_file_vanished_reports_an_error(
    qtbot: QtBot, open_window: OpenWindow, today: date, home: Path
) -> None:
    window, page = await open_journal(open_window)
    await until(lambda: shown_date(page) == iso(today), what="the first load")
    errors = QSignalSpy(page.error_did_occur)
    two_days_ago = today - timedelta(days=2)
    (home / "global" / "daily" / f"{iso(two_days_ago)}.md").unlink()  # behind the app's back

    click_date(qtbot, page.calendar, two_days_ago)

    await until(lambda: errors.count() == 1, what="the error")
    assert isinstance(errors.at(0)[0], SlugNotFound)
    assert window.statusBar().currentMessage() == "That memory no longer exists."
    assert "Wrote the release checklist." not in detail(page)


@pytest.mark.asyncio
async def test_a_day_lists_the_agent_episodes_recorded_on_it(
    qtbot: QtBot, home: Path, open_window: OpenWindow, today: date
) -> None:
    with MemoryStore.open(home) as store:
        for goal, outcome in (("fix the login crash", "failure"), ("修复同步测试", "success")):
            dispatch(store, "episode_record", {"episode": {"goal": goal, "outcome": outcome}})
    _, page = await open_journal(open_window)

    await until(lambda: "Agent episodes (2)" in detail(page), what="today's episodes")
    assert "fix the login crash" in detail(page) and "修复同步测试" in detail(page)
    assert "debugging" in detail(page) and "failed" in detail(page)
    assert "Fixed the flaky sync test." in detail(page)  # the journal is still shown above

    click_date(qtbot, page.calendar, today - timedelta(days=1))  # no journal, no episodes

    await until(lambda: "Nothing on this day." in detail(page), what="the empty day")
    assert "Agent episodes" not in detail(page)


@pytest.mark.asyncio
async def test_html_images_and_links_in_an_entry_stay_text_and_load_nothing(
    qtbot: QtBot, home: Path, open_window: OpenWindow, tmp_path: Path
) -> None:
    # Files a link or an image could open (a plain QTextBrowser reads both from disk).
    private = tmp_path / "private.txt"
    private.write_text("PRIVATE FILE CONTENTS", "utf-8")
    picture = tmp_path / "picture.png"
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(0xFF0000)
    assert image.save(str(picture))
    link_url = QUrl.fromLocalFile(str(private)).toString()
    image_url = QUrl.fromLocalFile(str(picture)).toString()
    body = (
        f"Said <b>x</b> loudly.\n\n![pic]({image_url})\n\n![host](file:///etc/hostname)\n\n"
        f"See [the link]({link_url}) or [this one](file:///etc/hostname)."
    )
    with MemoryStore.open(home) as store:
        dispatch(store, "memory_daily_append", {"body": body})
    _, page = await open_journal(open_window)
    await until(lambda: "loudly" in detail(page), what="the entry")
    page.detail.grab()  # lay out and paint: any image would be asked for now

    text = detail(page)
    assert "Said <b>x</b> loudly." in text  # the tag is text, not bold markup
    # No image is in the shown document (a view would ask for it, and Qt reads a local file
    # itself when the view declines): each is shown as its Markdown text instead.
    assert "<img" not in page.detail.toHtml()
    assert f"![pic]({image_url})" in text and "![host](file:///etc/hostname)" in text
    assert page.detail.loadResource(2, QUrl(image_url)) is None

    cursor = page.detail.document().find("the link")
    assert not cursor.isNull()
    cursor.setPosition(cursor.selectionStart() + 3)  # inside the link's text
    where = page.detail.cursorRect(cursor).center()
    assert page.detail.anchorAt(where) == link_url
    qtbot.mouseClick(page.detail.viewport(), Qt.MouseButton.LeftButton, pos=where)
    await asyncio.sleep(0.05)

    assert detail(page) == text  # the click did not open the file in the pane
    assert "PRIVATE FILE CONTENTS" not in detail(page)
    assert page.detail.source().isEmpty()
