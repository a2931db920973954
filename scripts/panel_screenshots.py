"""Screenshots of the web panel in a real headless Chromium, on a demo store.

    python scripts/panel_screenshots.py OUT [--lang en|zh_CN] [--size 1024x640]

Seeds a demo store (scripts/demo_store.py) in a temporary folder, starts the bridge on it and
saves one PNG per tab and state in OUT: the login page, the memory list with a memory open, the
review queue, the journal, and the organizer with a queued, a running and a finished run (the
runner's steps are played through the store's own run commands, so each state stays on screen
long enough to be taken). Needs the packages `chromium` and `chromium-driver` and the test
extra (selenium); look at the pictures afterwards.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

from demo_store import build  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

from tests.helpers.browser import LiveBridge, browser_missing, chromium, wait_for  # noqa: E402

SETTLE_S = 0.6  # a redraw after an answer (and a WebSocket push) before the picture is taken
LANGS = {"en": "en-US", "zh_CN": "zh-CN"}


def size_of(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def snap(driver: WebDriver, out: Path, name: str) -> None:
    time.sleep(SETTLE_S)
    path = out / f"{name}.png"
    driver.save_screenshot(str(path))
    wide = driver.execute_script("return document.documentElement.scrollWidth > innerWidth")
    print(f"{path}{'  (scrolls sideways!)' if wide else ''}")


def tab(driver: WebDriver, name: str) -> None:
    driver.find_element(By.ID, f"tab-{name}").click()


def take(driver: WebDriver, live: LiveBridge, out: Path) -> None:
    driver.get(live.address)
    snap(driver, out, "login")
    driver.get(live.panel_url)
    rows = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#memory-list button.row"))
    rows[0].click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "detail-body"))
    snap(driver, out, "memories")
    driver.find_element(By.ID, "detail-history").click()
    snap(driver, out, "memories-history")
    tab(driver, "review")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".proposal, .contradiction"))
    snap(driver, out, "review")
    tab(driver, "journal")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#days button.row"))[0].click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "day-title"))
    snap(driver, out, "journal")
    tab(driver, "organizer")
    driver.find_element(By.ID, "run-now").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "progress").get_attribute("data-status"))
    snap(driver, out, "organizer-queued")
    # What a runner does, step by step: claim the queued run, say its phase, finish it.
    claimed = live.dispatch("organize_due_claim", {})["run"]
    run_id = claimed["run_id"]
    live.dispatch("organize_run_update", {"run_id": run_id, "phase": "plan"})
    wait_for(
        driver,
        lambda d: d.find_element(By.ID, "progress").get_attribute("data-status") == "running",
    )
    snap(driver, out, "organizer-running")
    summary = "67 memories in 4 clusters; nothing to change"
    live.dispatch(
        "organize_due_complete",
        {"run_id": run_id, "status": "succeeded", "phase": "done", "final_summary": summary},
    )
    wait_for(
        driver,
        lambda d: d.find_element(By.ID, "progress").get_attribute("data-status") == "succeeded",
    )
    snap(driver, out, "organizer-finished")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lang", choices=sorted(LANGS), default="en")
    parser.add_argument("--size", type=size_of, default=(1024, 640), help="WIDTHxHEIGHT")
    parser.add_argument("--memories", type=int, default=120)
    args = parser.parse_args()
    missing = browser_missing()
    if missing is not None:
        print(missing, file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch) / "memory"
        build(home, args.memories)
        with LiveBridge(home, runner=False) as live:
            driver = chromium(args.size, lang=LANGS[args.lang])
            try:
                take(driver, live, args.out)
            finally:
                driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
