"""The web panel in a real headless Chromium against a real bridge on a real store: what a
person sees and clicks, and what it did to the memory files and the store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.select import Select

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config, web_config
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.store.store import MemoryStore
from tests.helpers.browser import LiveBridge, card_with, click_in, text_shows, wait_for
from tests.helpers.memories import memory_payload, seed_home

# A claim comes within one poll of the runner; the offline run of a few memories takes a second.
RUN_S = config.ORGANIZE_PENDING_POLL_MS / 1000 + 15

SEED = [
    memory_payload(
        "green-tea", type="user", description="Drinks green tea", body="The user drinks green tea."
    ),
    memory_payload("dark-mode", description="Prefers dark mode", body="Dark mode in every editor."),
    memory_payload("coffee-zh", description="下午喝咖啡", body="用户每天下午喝一杯咖啡。"),
    *(
        memory_payload(slug, type="feedback", description=text, body=text)
        for slug, text in (
            ("pnpm-a", "Use pnpm to install dependencies in every project."),
            ("pnpm-b", "Use pnpm to install the dependencies in every project."),
        )
    ),
    *(
        memory_payload(
            f"rate-{limit}",
            description=f"Checkout API: {limit} requests per second",
            body=f"The checkout API allows {limit} requests per second per user.",
        )
        for limit in (5, 10)
    ),
]
JOURNAL = "Reviewed the parser fix"


def seed(home: Path, *, organize: bool = False) -> None:
    """The test store: memories an agent wrote (unreviewed), a journal entry, and with
    `organize` an offline organizer run whose review queue has a merge and a contradiction."""
    seed_home(home, SEED)
    with MemoryStore.open(home) as store:
        dispatch(store, "memory_daily_append", {"bullet": JOURNAL})
        if organize:
            created = dispatch(store, "organize_run_create", {"trigger": "manual"})
            asyncio.run(OrganizerPipeline(store, None).run(created["run"], offline=True))


@pytest.fixture
def live(home: Path) -> Iterator[LiveBridge]:
    """The bridge alone on the seeded store: nothing runs a queued organizer run."""
    seed(home)
    with LiveBridge(home, runner=False) as bridge:
        yield bridge


def open_panel(driver: WebDriver, live: LiveBridge) -> None:
    driver.get(live.panel_url)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#memory-list button.row"))


def row(driver: WebDriver, slug: str) -> WebElement:
    return wait_for(
        driver, lambda d: d.find_element(By.CSS_SELECTOR, f'#memory-list [data-slug="{slug}"]')
    )


def shown_slugs(driver: WebDriver) -> list[str]:
    # One script, so a list the page redraws meanwhile is never read half old, half new.
    slugs = driver.execute_script(
        "return [...document.querySelectorAll('#memory-list button.row')].map(r => r.dataset.slug)"
    )
    return sorted(str(slug) for slug in slugs)


def open_memory(driver: WebDriver, slug: str) -> None:
    row(driver, slug).click()
    text_shows(driver, "detail", slug)


def entry(live: LiveBridge, slug: str) -> dict[str, Any]:
    return dict(live.dispatch("memory_read", {"slug": slug, "scope": "global"})["entry"])


def memory_file(live: LiveBridge, slug: str) -> Path:
    return live.home / str(entry(live, slug)["path"])


def no_error(driver: WebDriver) -> None:
    banner = driver.find_element(By.ID, "error")
    assert not banner.is_displayed(), driver.find_element(By.ID, "error-text").text


# --- opening -------------------------------------------------------------------------------------
def test_the_key_opens_a_session_and_leaves_the_address_bar(
    fresh_browser: WebDriver, live: LiveBridge
) -> None:
    open_panel(fresh_browser, live)
    assert fresh_browser.current_url == live.address  # the key is gone from the URL
    cookie = fresh_browser.get_cookie(web_config.PANEL_SESSION_COOKIE)
    assert cookie is not None
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Strict", "/")
    assert shown_slugs(fresh_browser) == sorted(str(m["slug"]) for m in SEED)
    assert "Organizer: idle" in fresh_browser.find_element(By.ID, "organizer-status").text
    no_error(fresh_browser)


def test_without_the_key_the_page_says_how_to_open_the_panel(
    fresh_browser: WebDriver, live: LiveBridge
) -> None:
    fresh_browser.get(live.address)
    text = text_shows(fresh_browser, "login", "Open web panel").text
    assert "liveagent-memory serve" in text and "打开网页面板" in text
    assert fresh_browser.find_elements(By.ID, "memory-list") == []
    assert len(live.dispatch("memory_list", {})["entries"]) == len(SEED)


# --- memories ------------------------------------------------------------------------------------
def test_search_in_english_and_chinese(fresh_browser: WebDriver, live: LiveBridge) -> None:
    open_panel(fresh_browser, live)
    search = fresh_browser.find_element(By.ID, "search")
    search.send_keys("green tea", Keys.ENTER)
    wait_for(fresh_browser, lambda d: shown_slugs(d) == ["green-tea"])
    search.clear()
    search.send_keys("咖啡", Keys.ENTER)
    wait_for(fresh_browser, lambda d: shown_slugs(d) == ["coffee-zh"])
    assert "1 matches" in fresh_browser.find_element(By.ID, "memory-count").text
    search.clear()
    search.send_keys(Keys.ENTER)  # an empty search lists everything again
    wait_for(fresh_browser, lambda d: len(shown_slugs(d)) == len(SEED))
    no_error(fresh_browser)


def test_accept_a_memory_marks_its_file_reviewed(
    fresh_browser: WebDriver, live: LiveBridge
) -> None:
    assert "unreviewed: true" in memory_file(live, "green-tea").read_text(encoding="utf-8")
    open_panel(fresh_browser, live)
    open_memory(fresh_browser, "green-tea")
    fresh_browser.find_element(By.ID, "detail-accept").click()
    text_shows(fresh_browser, "toast-text", "Accepted")
    wait_for(fresh_browser, lambda d: not d.find_elements(By.ID, "detail-accept"))
    assert "needs review" not in row(fresh_browser, "green-tea").text
    assert "unreviewed: false" in memory_file(live, "green-tea").read_text(encoding="utf-8")
    assert entry(live, "dark-mode")["unreviewed"]  # only the one chosen
    no_error(fresh_browser)


def test_edit_a_memory_writes_its_file(fresh_browser: WebDriver, live: LiveBridge) -> None:
    open_panel(fresh_browser, live)
    open_memory(fresh_browser, "dark-mode")
    fresh_browser.find_element(By.ID, "detail-edit").click()
    body = wait_for(fresh_browser, lambda d: d.find_element(By.ID, "edit-body"))
    body.clear()
    body.send_keys("Dark mode everywhere, 深色模式.")
    fresh_browser.find_element(By.ID, "edit-save").click()
    text_shows(fresh_browser, "detail-body", "Dark mode everywhere, 深色模式.")
    text_shows(fresh_browser, "toast-text", "Saved")
    text = memory_file(live, "dark-mode").read_text(encoding="utf-8")
    assert "Dark mode everywhere, 深色模式." in text and "every editor" not in text
    no_error(fresh_browser)


def test_delete_a_memory_then_undo_brings_its_file_back(
    fresh_browser: WebDriver, live: LiveBridge
) -> None:
    path = memory_file(live, "rate-5")
    before = path.read_bytes()
    open_panel(fresh_browser, live)
    open_memory(fresh_browser, "rate-5")
    fresh_browser.find_element(By.ID, "detail-delete").click()
    wait_for(fresh_browser, lambda d: d.find_element(By.ID, "confirm-yes")).click()
    text_shows(fresh_browser, "toast-text", "trash")
    wait_for(fresh_browser, lambda d: "rate-5" not in shown_slugs(d))
    assert not path.exists()
    fresh_browser.find_element(By.ID, "toast-undo").click()
    text_shows(fresh_browser, "toast-text", "Undone")
    wait_for(fresh_browser, lambda d: "rate-5" in shown_slugs(d))
    assert path.read_bytes() == before  # put back byte for byte
    no_error(fresh_browser)


def test_the_project_picker_sets_the_workdir_every_call_sends(
    fresh_browser: WebDriver, live: LiveBridge, workdir: str
) -> None:
    note = memory_payload("shop-port", scope="project", workdir=workdir, body="Port 5173.")
    live.dispatch("memory_write", note)
    everything = sorted([*(str(m["slug"]) for m in SEED), "shop-port"])
    open_panel(fresh_browser, live)
    wait_for(fresh_browser, lambda d: shown_slugs(d) == everything)  # All projects
    picker = Select(fresh_browser.find_element(By.ID, "project"))
    assert [o.text for o in picker.options] == ["All projects", "Global", Path(workdir).name]
    picker.select_by_index(1)  # Global: no project's memories
    wait_for(fresh_browser, lambda d: shown_slugs(d) == sorted(str(m["slug"]) for m in SEED))
    picker.select_by_index(2)  # the project: global and this project's memories
    wait_for(fresh_browser, lambda d: shown_slugs(d) == everything)
    Select(fresh_browser.find_element(By.ID, "filter-scope")).select_by_value("project")
    wait_for(fresh_browser, lambda d: shown_slugs(d) == ["shop-port"])
    open_memory(fresh_browser, "shop-port")
    fresh_browser.find_element(By.ID, "detail-accept").click()
    text_shows(fresh_browser, "toast-text", "Accepted")
    found = live.dispatch(
        "memory_read", {"slug": "shop-port", "scope": "project", "workdir": workdir}
    )
    assert found["entry"]["unreviewed"] is False
    no_error(fresh_browser)


# --- organizer -----------------------------------------------------------------------------------
def run_now(driver: WebDriver) -> None:
    driver.find_element(By.ID, "tab-organizer").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "run-now").is_displayed())
    driver.find_element(By.ID, "run-now").click()


def test_run_now_without_a_runner_says_it_is_queued(
    fresh_browser: WebDriver, live: LiveBridge, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The page is told how long a run may wait unclaimed; a second here, not ten.
    monkeypatch.setattr(web_config, "PANEL_UNCLAIMED_NOTICE_MS", 1000)
    open_panel(fresh_browser, live)
    run_now(fresh_browser)
    text_shows(fresh_browser, "progress", "Queued: waiting for the desktop app")
    text_shows(fresh_browser, "organizer-status", "Organizer: queued")
    text_shows(fresh_browser, "progress", "no runner seems to be running")
    runs = live.dispatch("organize_run_list", {})["runs"]
    assert [(r["status"], r["trigger"], r["claimed_at"]) for r in runs] == [
        ("pending", "manual", None)
    ]
    no_error(fresh_browser)


def test_run_now_with_a_runner_shows_its_progress_over_the_websocket(
    fresh_browser: WebDriver, home: Path
) -> None:
    seed(home)
    with LiveBridge(home, runner=True) as live:
        open_panel(fresh_browser, live)
        run_now(fresh_browser)
        seen: list[str] = []
        deadline = time.monotonic() + RUN_S
        while "succeeded" not in seen:
            assert time.monotonic() < deadline, f"the page showed only {seen}"
            status = fresh_browser.find_element(By.ID, "progress").get_attribute("data-status")
            if status and (not seen or seen[-1] != status):
                seen.append(status)
            time.sleep(0.05)
        assert seen[0] == "pending" and set(seen) <= {"pending", "running", "succeeded"}
        run = live.dispatch("organize_run_list", {})["runs"][0]
        assert run["status"] == "succeeded"
        # Said from the run's outcome (its code and figures), not its stored English.
        outcome = run["outcome"]
        assert outcome["code"] in ("offlineProposed", "gatePassed")
        figures = f"Memories: {outcome['memories']}, clusters: {outcome['clusters']}."
        text_shows(fresh_browser, "progress", f"Finished: {figures}")
        # Live over the socket: the page never fell back to polling.
        assert "reconnecting" not in fresh_browser.find_element(By.ID, "organizer-status").text
        assert fresh_browser.find_element(By.ID, "open-queue").is_displayed()
        no_error(fresh_browser)


def test_the_review_queue_applies_a_proposal_and_resolves_a_contradiction(
    fresh_browser: WebDriver, home: Path
) -> None:
    seed(home, organize=True)
    with LiveBridge(home, runner=False) as live:
        open_panel(fresh_browser, live)
        fresh_browser.find_element(By.ID, "tab-review").click()
        proposal = card_with(fresh_browser, ".proposal", "pnpm-a")
        assert "pnpm-a" in proposal and "pnpm-b" in proposal
        click_in(fresh_browser, ".proposal", "Apply")
        text_shows(fresh_browser, "toast-text", "Applied the proposal")
        listing = live.dispatch("memory_list", {})["entries"]
        pnpm = [e["slug"] for e in listing if e["slug"].startswith("pnpm")]
        assert len(pnpm) == 1  # merged into one memory, the other in the trash
        card = card_with(fresh_browser, ".contradiction", "requests")
        assert "5 requests" in card and "10 requests" in card
        click_in(fresh_browser, ".contradiction", "Keep first")
        text_shows(fresh_browser, "toast-text", "Answered the contradiction")
        slugs = {e["slug"] for e in live.dispatch("memory_list", {})["entries"]}
        kept = {"rate-5", "rate-10"} & slugs
        assert len(kept) == 1
        text_shows(fresh_browser, "queue", "No organizer run is waiting for your review")
        no_error(fresh_browser)


# --- journal and language ------------------------------------------------------------------------
def test_the_journal_shows_a_days_entries(fresh_browser: WebDriver, live: LiveBridge) -> None:
    day = live.dispatch("memory_journal_days", {})["days"][0]["date"]
    open_panel(fresh_browser, live)
    fresh_browser.find_element(By.ID, "tab-journal").click()
    wait_for(
        fresh_browser, lambda d: d.find_element(By.CSS_SELECTOR, f'[data-date="{day}"]')
    ).click()
    text_shows(fresh_browser, "entries", JOURNAL)
    assert fresh_browser.find_element(By.ID, "day-title").text == day
    no_error(fresh_browser)


def test_switching_to_chinese_shows_chinese_labels_and_is_remembered(
    fresh_browser: WebDriver, live: LiveBridge
) -> None:
    open_panel(fresh_browser, live)
    Select(fresh_browser.find_element(By.ID, "language")).select_by_value("zh")
    text_shows(fresh_browser, "tab-memories", "记忆")
    assert fresh_browser.find_element(By.ID, "tab-review").text == "审阅"
    assert "整理器：空闲" in fresh_browser.find_element(By.ID, "organizer-status").text
    assert fresh_browser.find_element(By.ID, "search").get_attribute("placeholder") == "搜索记忆"
    text_shows(fresh_browser, "memory-count", "条记忆")
    fresh_browser.refresh()
    text_shows(fresh_browser, "tab-journal", "日志")  # remembered in this browser
    assert fresh_browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "zh-CN"
    no_error(fresh_browser)


def test_a_learned_anti_pattern_is_reviewed_in_both_languages_and_applied(
    fresh_browser: WebDriver, home: Path
) -> None:
    # Issue 18: what consolidation proposes is a "learn" entry of the same queue.
    seed_home(home, [])
    with MemoryStore.open(home) as store:
        ids = [
            dispatch(
                store,
                "episode_record",
                {
                    "episode": {
                        "goal": f"call the payments sandbox {n}",
                        "outcome": "failure",
                        "errors_encountered": [
                            {
                                "error_type": "ConnectionError",
                                "message": f"sandbox refused after {n} tries",
                                "resolution": "connect the VPN first",
                            }
                        ],
                    }
                },
            )["episode"]["id"]
            for n in (2, 3)
        ]
        dispatch(store, "organize_consolidate", {"offline": True})
    with LiveBridge(home, runner=False) as live:
        fresh_browser.get(live.panel_url)  # no memories yet: no rows to wait for
        wait_for(fresh_browser, lambda d: d.find_element(By.ID, "tab-review")).click()
        card = card_with(fresh_browser, ".proposal", "New anti-pattern", ids[0], ids[1])
        assert f"Learned from 2 episodes (anti-pattern): {ids[0]}, {ids[1]}." in card
        text_shows(fresh_browser, "queue", "2 new episodes; 1 lessons proposed for review.")
        Select(fresh_browser.find_element(By.ID, "language")).select_by_value("zh")
        card = card_with(fresh_browser, ".proposal", "新反模式")
        assert f"从 2 条经历中学到的反模式：{ids[0]}、{ids[1]}。" in card
        text_shows(fresh_browser, "queue", "2 条新经历；1 条经验待审阅。")  # the run's summary too
        Select(fresh_browser.find_element(By.ID, "language")).select_by_value("en")
        click_in(fresh_browser, ".proposal", "Apply")
        text_shows(fresh_browser, "toast-text", "Applied the proposal")
        (learned,) = live.dispatch("memory_list", {"type": "feedback"})["entries"]
        assert learned["unreviewed"] is False  # the person accepted it
        assert ids[0] in live.dispatch("memory_read", {"slug": learned["slug"]})["content"]
        no_error(fresh_browser)
