"""The Projects page's Sync bar (issue 19): a real window on a store synced with a real bare
git remote, Sync now as a person clicks it, the timer kept in settings.json, en and zh."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from liveagent_memory.commands import dispatch
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.projects import ProjectsPage
from liveagent_memory.ui.window import MainWindow
from tests.helpers import memories
from tests.helpers.git_repos import git
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow
from tests.ui.test_projects_discovery import settle

SLOW_FETCH_S = 30  # the slow remote's fetch waits at most this long for the test's go

# A git that reads no config of this machine (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("git_env")


def synced_home(home: Path, remote: Path, other: Path) -> None:
    """`home` syncs with `remote`; another machine (`other`) then pushed a memory."""
    with MemoryStore.open(home) as store:
        memories.remember(store, "deploy", body="Deploy with make ship.")
        dispatch(store, "sync_init", {"remote": str(remote)})
    with MemoryStore.open(other) as store:
        dispatch(store, "sync_init", {"remote": str(remote)})
        memories.remember(store, "from-desktop", body="Written on the desktop.")
        dispatch(store, "sync_run", {})


def slow_git(monkeypatch: pytest.MonkeyPatch, folder: Path, gate: Path) -> None:
    """Put a `git` first on PATH whose fetch waits until `gate/go` exists (at most
    SLOW_FETCH_S): a slow remote. It marks `gate/fetching` when it starts waiting and
    `gate/released` when it goes on to the real git's fetch."""
    real = shutil.which("git")
    assert real is not None
    folder.mkdir()
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do\n'
        '  if [ "$arg" = fetch ]; then\n'
        f'    touch "{gate}/fetching"; i=0\n'
        f'    while [ ! -e "{gate}/go" ] && [ $i -lt {SLOW_FETCH_S * 10} ]; do\n'
        "      sleep 0.1; i=$((i+1))\n"
        "    done\n"
        f'    touch "{gate}/released"; break\n'
        "  fi\n"
        "done\n"
        f'exec "{real}" "$@"\n',
        "utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")


async def open_projects(open_window: OpenWindow) -> tuple[MainWindow, ProjectsPage]:
    window = await open_window()
    page = window.page("projects")
    assert isinstance(page, ProjectsPage)
    window.open_page("projects")
    await until(lambda: page.table.rowCount() > 0, what="the table")
    await settle(window)
    return window, page


@pytest.mark.asyncio
async def test_a_store_that_does_not_sync_says_how_to_start(
    qtbot: QtBot, open_window: OpenWindow
) -> None:
    window, page = await open_projects(open_window)
    bar = page.sync_bar
    assert bar.status.text().startswith("Git sync is off.")
    assert "sync init REMOTE" in bar.status.text()
    assert not bar.sync_button.isEnabled() and not bar.timer_check.isEnabled()
    assert not bar.timer.isActive()
    await settle(window)


@pytest.mark.asyncio
async def test_sync_now_brings_the_other_machines_memory_and_the_timer_is_kept(
    qtbot: QtBot, open_window: OpenWindow, home: Path, remote: Path, tmp_path: Path
) -> None:
    synced_home(home, remote, tmp_path / "desktop")
    window, page = await open_projects(open_window)
    bar = page.sync_bar
    assert bar.status.text().startswith("Syncs with memory.git · last sync ")
    assert bar.sync_button.isEnabled() and not bar.timer_check.isChecked()
    assert not bar.timer.isActive()  # off by default

    qtbot.mouseClick(bar.sync_button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.result is not None and not bar.busy, what="the sync")
    await settle(window)
    assert bar.status.text() == "Syncs with memory.git · synced: 1 file pulled"
    assert (home / "global" / "from-desktop.md").exists()
    listed = await page.client.call("memory_list", {})
    assert "from-desktop" in {e["slug"] for e in listed["entries"]}

    # The timer: switched on by a click, its interval kept in settings.json, running.
    bar.interval.setValue(5)
    qtbot.mouseClick(bar.timer_check, Qt.MouseButton.LeftButton)
    await settle(window)
    saved = json.loads((home / "settings.json").read_text("utf-8"))
    assert saved["sync_interval_minutes"] == 5
    assert bar.timer.isActive() and bar.timer.interval() == 5 * 60_000
    page.refresh()  # a reload keeps the timer running, its countdown not restarted
    await settle(window)
    assert bar.timer.isActive() and bar.timer_check.isChecked()
    qtbot.mouseClick(bar.timer_check, Qt.MouseButton.LeftButton)
    await settle(window)
    assert not bar.timer.isActive()
    assert json.loads((home / "settings.json").read_text("utf-8"))["sync_interval_minutes"] == 0


@pytest.mark.asyncio
async def test_a_slow_remote_holds_no_other_store_call(
    qtbot: QtBot,
    open_window: OpenWindow,
    home: Path,
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    synced_home(home, remote, tmp_path / "desktop")
    gate = tmp_path / "gate"
    gate.mkdir()
    slow_git(monkeypatch, tmp_path / "bin", gate)
    window, page = await open_projects(open_window)
    bar = page.sync_bar
    qtbot.mouseClick(bar.sync_button, Qt.MouseButton.LeftButton)
    await until(lambda: (gate / "fetching").exists(), what="the fetch to start")
    # The store worker answers while the remote has not: were the fetch on it, this call
    # would wait for the slow fetch to give up first.
    listed = await page.client.call("memory_list", {})
    assert not (gate / "released").exists()
    assert "deploy" in {e["slug"] for e in listed["entries"]}
    assert bar.busy and bar.status.text() == "Syncing with memory.git…"
    (gate / "go").touch()
    await until(lambda: bar.result is not None and not bar.busy, what="the sync")
    await settle(window)
    assert bar.status.text() == "Syncs with memory.git · synced: 1 file pulled"
    assert (home / "global" / "from-desktop.md").exists()


@pytest.mark.asyncio
async def test_a_timed_sync_that_fails_says_so_in_its_line_only(
    qtbot: QtBot, open_window: OpenWindow, home: Path, remote: Path, tmp_path: Path
) -> None:
    synced_home(home, remote, tmp_path / "desktop")
    git("remote", "set-url", "origin", str(tmp_path / "gone.git"), cwd=home)
    window, page = await open_projects(open_window)
    bar = page.sync_bar
    errors: list[object] = []
    bar.error_did_occur.connect(errors.append)
    bar.timer.timeout.emit()  # what the timer does when its interval ends
    await until(lambda: bar.failure is not None and not bar.busy, what="the timed sync")
    await settle(window)
    assert "last sync failed: The git remote could not be reached" in bar.status.text()
    assert errors == []  # no message box every few minutes
    assert not (home / "global" / "from-desktop.md").exists()


@pytest.mark.asyncio
async def test_the_sync_bar_in_chinese(
    qtbot: QtBot,
    open_window: OpenWindow,
    home: Path,
    remote: Path,
    tmp_path: Path,
    chinese: Translations,
) -> None:
    synced_home(home, remote, tmp_path / "desktop")
    window, page = await open_projects(open_window)
    bar = page.sync_bar
    assert bar.sync_button.text() == "立即同步"
    assert bar.timer_check.text() == "同步间隔"
    assert bar.status.text().startswith("与 memory.git 同步 · 上次同步 ")
    qtbot.mouseClick(bar.sync_button, Qt.MouseButton.LeftButton)
    await until(lambda: bar.result is not None and not bar.busy, what="the sync")
    await settle(window)
    assert bar.status.text() == "与 memory.git 同步 · 已同步：拉取了 1 个文件"
