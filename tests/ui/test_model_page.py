"""The Model & keys page, driven through its widgets as a person would use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import keyring
import keyring.errors
import pytest
import pytest_asyncio
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton
from pytestqt.qtbot import QtBot

from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    CredentialInSettings,
    KeyringUnavailable,
    SettingsInvalid,
)
from liveagent_memory.llm.client import load_litellm
from liveagent_memory.settings import SecretStore, settings_path
from liveagent_memory.ui.bridge import Bridge, StoreClient
from liveagent_memory.ui.drawer import PAGES, DrawerContext
from liveagent_memory.ui.i18n import Translations
from liveagent_memory.ui.pages.model import MODEL_EXAMPLES, ModelPage
from liveagent_memory.ui.search import MemorySearch
from tests.helpers.fake_llm import API_KEY, MODEL, FakeLLMServer
from tests.helpers.fakes import MemoryKeyring
from tests.helpers.waiting import until
from tests.ui.conftest import OpenWindow

KEY = "sk-page-test-abcdefghijklmnop0123"
SERVICE = config.KEYRING_SERVICE


class Opened:
    """One page on a real store, with every error it reported."""

    def __init__(self, page: ModelPage) -> None:
        self.page = page
        self.errors: list[BaseException] = []
        self.applied = 0
        page.error_did_occur.connect(self.errors.append)
        page.changes_did_apply.connect(self._applied)

    def _applied(self) -> None:
        self.applied += 1


OpenPage = Callable[[], Awaitable[Opened]]


@pytest_asyncio.fixture
async def open_page(qtbot: QtBot, home: Path) -> AsyncIterator[OpenPage]:
    """Open a ModelPage on `home` (a fresh page each call, like reopening the drawer)."""
    bridge = Bridge()
    app = AppContext.open(home)  # the OS keyring, read at each use
    await bridge.run_store(app.open_store)
    client = StoreClient(bridge, app)

    async def opener() -> Opened:
        context = DrawerContext(client=client, app=app, search=MemorySearch(bridge, app))
        page = ModelPage(context)
        qtbot.addWidget(page)
        page.resize(1000, 700)
        page.show()
        opened = Opened(page)
        await page.load()
        return opened

    yield opener
    await bridge.close()
    app.close()


def saved(home: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(settings_path(home).read_text(encoding="utf-8"))
    return data


def files_containing(folder: Path, needle: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


async def click(qtbot: QtBot, button: QPushButton) -> None:
    assert button.isEnabled(), f"{button.objectName()} is disabled"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


async def save_settings(qtbot: QtBot, opened: Opened) -> None:
    """Click Save and wait until the page reports the outcome (saved or an error)."""
    before = len(opened.errors)
    await click(qtbot, opened.page.save_button)
    await until(
        lambda: opened.page.status.text() == "Settings saved." or len(opened.errors) > before,
        what="the save to finish",
    )


async def store_key(qtbot: QtBot, opened: Opened, purpose: str, key: str) -> None:
    row = opened.page.rows[purpose]
    qtbot.keyClicks(row.key, key)
    await click(qtbot, row.save_key)
    await until(lambda: not row.key_busy and row.clear_key.isEnabled(), what="the key to be saved")


# --- registration and loading -----------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_window_shows_the_page_with_the_saved_settings(
    open_window: OpenWindow, home: Path
) -> None:
    home.mkdir(parents=True)
    settings_path(home).write_text(
        json.dumps({"default": {"model": "deepseek/deepseek-chat", "api_base": ""}}),
        encoding="utf-8",
    )

    window = await open_window()
    page = window.page("model")

    assert ModelPage in PAGES
    assert (ModelPage.NAME, ModelPage.ORDER) == ("model", 50)
    assert isinstance(page, ModelPage)
    assert page.title() == "Model & keys"
    await until(lambda: page.rows["default"].model_text() == "deepseek/deepseek-chat")
    assert not page.dirty


@pytest.mark.asyncio
async def test_a_fresh_store_shows_empty_models_and_the_defaults(open_page: OpenPage) -> None:
    opened = await open_page()
    page = opened.page

    for row in page.rows.values():
        assert row.model_text() == ""  # an example is offered, never preselected
        assert row.base.text() == ""
        assert [row.model.itemText(i) for i in range(row.model.count())] == list(MODEL_EXAMPLES)
        assert row.key_status.text() == "No key stored."
        assert not row.clear_key.isEnabled()
    assert page.rows["extraction"].model_edit.placeholderText() == "empty = use the default model"
    assert page.extraction_enabled.isChecked()
    assert page.reviewer.currentData() == config.DEFAULT_REVIEWER_MODE
    assert page.keyring_message.isHidden()
    assert not page.save_button.isEnabled()  # nothing changed yet
    assert opened.errors == []


# --- saving settings --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_models_and_base_urls_are_saved_and_shown_again(
    qtbot: QtBot, open_page: OpenPage, home: Path
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    # Settings the page does not show must survive its save (it sends only its own fields).
    settings_path(home).write_text(
        json.dumps({"language": "zh_CN", "organizer": {"schedule": "daily"}}), encoding="utf-8"
    )
    opened = await open_page()
    page = opened.page
    default, organizer = page.rows["default"], page.rows["organizer"]

    default.model.setCurrentIndex(default.model.findText("openai/gpt-4o-mini"))
    qtbot.keyClicks(organizer.model_edit, "ollama/llama3.1")
    qtbot.keyClicks(organizer.base, "http://localhost:11434")
    page.extraction_enabled.setChecked(False)
    page.reviewer.setCurrentIndex(page.reviewer.findData("strict"))
    assert page.dirty and page.status.text() == "Unsaved changes."
    await save_settings(qtbot, opened)

    assert opened.errors == []
    data = saved(home)
    assert data["default"] == {"model": "openai/gpt-4o-mini", "api_base": ""}
    assert data["extraction"] == {"model": "", "api_base": ""}
    assert data["organizer_model"] == {
        "model": "ollama/llama3.1",
        "api_base": "http://localhost:11434",
    }
    assert data["extraction_enabled"] is False
    assert data["reviewer_mode"] == "strict"
    assert data["language"] == "zh_CN"
    assert data["organizer"]["schedule"] == "daily"
    assert opened.applied == 1
    assert not page.save_button.isEnabled()

    again = (await open_page()).page
    assert again.rows["default"].model_text() == "openai/gpt-4o-mini"
    assert again.rows["organizer"].model_text() == "ollama/llama3.1"
    assert again.rows["organizer"].base.text() == "http://localhost:11434"
    assert again.rows["extraction"].model_text() == ""
    assert not again.extraction_enabled.isChecked()
    assert again.reviewer.currentData() == "strict"


@pytest.mark.asyncio
async def test_a_save_sends_only_what_was_edited(
    qtbot: QtBot, open_page: OpenPage, home: Path
) -> None:
    opened = await open_page()
    page = opened.page
    qtbot.keyClicks(page.rows["default"].model_edit, "deepseek/deepseek-chat")
    assert page.settings_patch() == {"default": {"model": "deepseek/deepseek-chat"}}
    # Meanwhile the Organizer page saves its model (the same store, another page).
    other = {"model": "ollama/llama3.1", "api_base": "http://localhost:11434"}
    await page.client.call("settings_save_memory", {"settings": {"organizer_model": other}})

    await save_settings(qtbot, opened)

    data = saved(home)
    assert data["default"]["model"] == "deepseek/deepseek-chat"
    assert data["organizer_model"] == other  # not put back to the stale empty fields
    assert page.rows["organizer"].model_text() == "ollama/llama3.1"  # shown after the save


@pytest.mark.asyncio
async def test_ctrl_s_saves(qtbot: QtBot, open_page: OpenPage, home: Path) -> None:
    opened = await open_page()
    page = opened.page
    page.activateWindow()
    page.rows["default"].model_edit.setFocus()
    qtbot.keyClicks(page.rows["default"].model_edit, "openai/gpt-4o")

    qtbot.keyClick(
        page.rows["default"].model_edit, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier
    )
    await until(lambda: page.status.text() == "Settings saved.", what="Ctrl+S to save")

    assert saved(home)["default"]["model"] == "openai/gpt-4o"


@pytest.mark.asyncio
async def test_an_invalid_base_url_is_a_typed_error_and_saves_nothing(
    qtbot: QtBot, open_page: OpenPage, home: Path
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    settings_path(home).write_text(
        json.dumps({"default": {"model": "openai/gpt-4o-mini", "api_base": ""}}), encoding="utf-8"
    )
    before = settings_path(home).read_bytes()
    opened = await open_page()
    page = opened.page
    extraction = page.rows["extraction"]

    page.rows["default"].set_model("anthropic/claude-3-5-haiku-latest")  # valid on its own
    qtbot.keyClicks(extraction.model_edit, "openai/gpt-4o")
    qtbot.keyClicks(extraction.base, "localhost:8000")  # no scheme
    await save_settings(qtbot, opened)

    [error] = opened.errors
    assert isinstance(error, SettingsInvalid)
    assert error.field == "extraction.api_base"
    # The code's sentence, then the core's words naming the setting (never its JSON path).
    assert page.status.text() == (
        "A setting is not valid, so nothing was saved.\n"
        "Details: The extraction model's base URL must start with http:// or https://."
    )
    assert settings_path(home).read_bytes() == before  # nothing half-saved
    assert page.dirty and page.save_button.isEnabled()  # the edits stay to be fixed
    assert extraction.base.text() == "localhost:8000"
    assert opened.applied == 0


@pytest.mark.asyncio
async def test_a_base_url_with_a_password_is_refused_and_points_to_the_keyring(
    qtbot: QtBot, open_page: OpenPage, home: Path
) -> None:
    opened = await open_page()
    page = opened.page
    row = page.rows["default"]
    row.set_model("openai/gpt-4o-mini")
    qtbot.keyClicks(row.base, "http://me:hunter2-token@gpu-box:8000/v1")  # issue 12
    await save_settings(qtbot, opened)

    [error] = opened.errors
    assert isinstance(error, CredentialInSettings)
    assert error.code == "credential_in_settings" and error.field == "default.api_base"
    assert page.status.text().startswith("Settings never hold API keys or passwords.")
    assert "hunter2" not in page.status.text()
    assert not settings_path(home).exists()  # nothing saved, not even the model
    assert files_containing(home, "hunter2-token") == []
    assert page.dirty and row.base.text().endswith("/v1")  # the edit stays to be fixed


@pytest.mark.asyncio
async def test_a_broken_settings_file_is_reported_and_not_overwritten(
    open_page: OpenPage, home: Path
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    settings_path(home).write_text("{not json", encoding="utf-8")

    opened = await open_page()

    [error] = opened.errors
    assert isinstance(error, SettingsInvalid)
    assert opened.page.status.text().startswith("A setting is not valid")
    assert "is not valid JSON" in opened.page.status.text()  # the details line
    opened.page.rows["default"].set_model("openai/gpt-4o-mini")
    assert not opened.page.save_button.isEnabled()
    assert settings_path(home).read_text(encoding="utf-8") == "{not json"


@pytest.mark.asyncio
async def test_a_refresh_keeps_unsaved_edits_and_revert_drops_them(
    qtbot: QtBot, open_page: OpenPage, home: Path
) -> None:
    opened = await open_page()
    page = opened.page
    qtbot.keyClicks(page.rows["default"].model_edit, "openai/gpt-4o")

    await page.load()  # what another page's change triggers
    assert page.rows["default"].model_text() == "openai/gpt-4o"

    await click(qtbot, page.revert_button)
    await until(lambda: page.rows["default"].model_text() == "", what="the revert")
    assert not page.dirty
    assert not settings_path(home).exists()


# --- API keys ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_key_goes_to_the_keyring_only_and_is_never_shown_back(
    qtbot: QtBot,
    open_page: OpenPage,
    home: Path,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    opened = await open_page()
    page = opened.page
    default = page.rows["default"]
    assert not default.save_key.isEnabled()  # nothing typed yet

    await store_key(qtbot, opened, "default", KEY)

    assert memory_keyring.secrets == {(SERVICE, "default"): KEY}
    assert default.key.text() == ""
    assert default.key.echoMode() == default.key.EchoMode.Password
    assert default.key_status.text() == "A key is stored in the system keyring."
    assert page.rows["extraction"].key_status.text() == (
        "No key of its own: the default model's key is used."
    )
    assert page.status.text() == "The key is stored in the system keyring."
    shown = [w.text() for w in page.findChildren(QLabel)] + [
        w.text() for w in page.findChildren(QLineEdit)
    ]
    assert not any(KEY in text for text in shown)  # no widget holds it
    # Saving settings afterwards writes no key either.
    page.rows["default"].set_model("openai/gpt-4o-mini")
    await save_settings(qtbot, opened)
    assert settings_path(home).exists()
    assert files_containing(tmp_path, KEY) == []
    assert opened.errors == []
    assert opened.applied == 2


@pytest.mark.asyncio
async def test_return_in_the_key_field_stores_a_key_of_its_own(
    qtbot: QtBot, open_page: OpenPage, memory_keyring: MemoryKeyring
) -> None:
    opened = await open_page()
    row = opened.page.rows["organizer"]

    qtbot.keyClicks(row.key, "sk-organizer-key")
    qtbot.keyClick(row.key, Qt.Key.Key_Return)
    await until(lambda: row.key_status.text() == "A key is stored in the system keyring.")

    assert memory_keyring.secrets == {(SERVICE, "organizer"): "sk-organizer-key"}
    assert opened.page.rows["default"].key_status.text() == "No key stored."


@pytest.mark.asyncio
async def test_clear_key_deletes_it_from_the_keyring(
    qtbot: QtBot, open_page: OpenPage, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password(SERVICE, "default", KEY)
    memory_keyring.set_password(SERVICE, "extraction", "sk-extraction-key")
    opened = await open_page()
    page = opened.page
    extraction = page.rows["extraction"]
    assert extraction.key_status.text() == "A key is stored in the system keyring."

    await click(qtbot, extraction.clear_key)
    await until(lambda: page.status.text() == "The key was deleted from the keyring.")

    assert memory_keyring.secrets == {(SERVICE, "default"): KEY}
    assert extraction.key_status.text() == "No key of its own: the default model's key is used."
    assert not extraction.clear_key.isEnabled()
    assert page.rows["default"].clear_key.isEnabled()
    assert opened.errors == []
    assert opened.applied == 1


@pytest.mark.asyncio
async def test_a_blank_key_is_a_typed_error_and_stores_nothing(
    qtbot: QtBot, open_page: OpenPage, memory_keyring: MemoryKeyring
) -> None:
    opened = await open_page()
    row = opened.page.rows["default"]

    qtbot.keyClicks(row.key, "   ")
    await click(qtbot, row.save_key)
    await until(lambda: bool(opened.errors), what="the error")

    [error] = opened.errors
    assert isinstance(error, SettingsInvalid)
    assert opened.page.status.text() == (
        "A setting is not valid, so nothing was saved.\nDetails: The API key is empty."
    )
    assert memory_keyring.secrets == {}
    assert row.key.text() == ""
    assert opened.applied == 0


class LockedKeyring(MemoryKeyring):
    """A secure backend that refuses writes (a locked Secret Service collection)."""

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.KeyringLocked("collection is locked")


@pytest.mark.asyncio
async def test_a_refused_write_shows_the_core_message_and_keeps_the_key_nowhere(
    qtbot: QtBot, open_page: OpenPage, tmp_path: Path
) -> None:
    keyring.set_keyring(LockedKeyring())  # the autouse fixture restores the previous one
    opened = await open_page()
    row = opened.page.rows["default"]

    qtbot.keyClicks(row.key, KEY)
    await click(qtbot, row.save_key)
    await until(lambda: bool(opened.errors), what="the error")

    [error] = opened.errors
    assert isinstance(error, KeyringUnavailable)
    assert "No secure keyring is available" in opened.page.status.text()
    assert KEY not in opened.page.status.text()
    assert row.key.text() == ""
    assert files_containing(tmp_path, KEY) == []


@pytest.mark.asyncio
async def test_without_a_keyring_the_page_says_so_and_disables_the_key_fields(
    qtbot: QtBot, open_page: OpenPage, no_keyring: None, tmp_path: Path
) -> None:
    opened = await open_page()
    page = opened.page

    assert page.keyring_message.isVisible()
    message = page.keyring_message.text()
    assert message.startswith("API keys cannot be stored on this system.")
    assert SecretStore().status().message in message
    for row in page.rows.values():
        assert not row.key.isEnabled()
        assert not row.save_key.isEnabled()
        assert not row.clear_key.isEnabled()
        # Said once for the page (issue 14), not again in each purpose's row.
        assert row.key.placeholderText() == ""
        assert row.key_status.text() == ""
    said = [
        label.text()
        for label in page.findChildren(QLabel)
        if label.isVisible() and "cannot be stored" in label.text()
    ]
    assert said == [message]
    qtbot.keyClicks(page.rows["default"].key, KEY)  # a disabled field takes no typing
    qtbot.keyClick(page.rows["default"].key, Qt.Key.Key_Return)
    assert page.rows["default"].key.text() == ""
    assert files_containing(tmp_path, KEY) == []
    # The rest of the page still works: models are settings, not secrets.
    page.rows["default"].set_model("openai/gpt-4o-mini")
    await save_settings(qtbot, opened)
    assert opened.errors == []


@pytest.mark.asyncio
async def test_the_provider_environment_variable_is_detected(
    qtbot: QtBot, open_page: OpenPage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    opened = await open_page()
    default = opened.page.rows["default"]
    assert default.key_status.text() == "No key stored."

    default.set_model("openai/gpt-4o-mini")
    assert default.key_status.text() == (
        "No key stored; the environment variable OPENAI_API_KEY is used."
    )
    # A purpose without its own model follows the default model's provider.
    assert opened.page.rows["organizer"].key_status.text() == (
        "No key stored; the environment variable OPENAI_API_KEY is used."
    )
    default.set_model("anthropic/claude-3-5-haiku-latest")
    assert default.key_status.text() == "No key stored."


# --- connection test --------------------------------------------------------------------------


def test_opening_the_page_does_not_import_litellm() -> None:
    # litellm's import takes seconds: it happens on the first connection test, not at start.
    code = (
        "import sys; import liveagent_memory.ui.pages.model; "
        "assert 'litellm' not in sys.modules, 'litellm imported'"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-600:]


@pytest.fixture(scope="module")
def litellm_loaded() -> None:
    """Import litellm before the timed tests (on a busy machine the import alone takes 15 s)."""
    load_litellm()


async def fake_model(qtbot: QtBot, opened: Opened, server: FakeLLMServer) -> None:
    """Point the default model at the fake server and store its key through the page."""
    default = opened.page.rows["default"]
    qtbot.keyClicks(default.model_edit, MODEL)
    qtbot.keyClicks(default.base, server.base_url)
    await store_key(qtbot, opened, "default", API_KEY)


async def run_test(qtbot: QtBot, opened: Opened, purpose: str) -> str:
    row = opened.page.rows[purpose]
    await click(qtbot, row.test)
    assert not row.test.isEnabled()  # one test at a time
    await until(lambda: row.test.isEnabled(), timeout=20, what="the connection test")
    return row.test_result.text()


@pytest.mark.asyncio
async def test_test_connection_reports_the_answer_and_latency(
    qtbot: QtBot, open_page: OpenPage, llm_server: FakeLLMServer, litellm_loaded: None
) -> None:
    opened = await open_page()
    await fake_model(qtbot, opened, llm_server)
    llm_server.reply_text("OK", delay=0.3)

    row = opened.page.rows["default"]
    await click(qtbot, row.test)
    assert not row.test.isEnabled()
    await until(lambda: row.test_result.text() == "Testing…")
    await until(lambda: row.test.isEnabled(), timeout=20, what="the connection test")

    text = row.test_result.text()
    assert text.startswith("fake-model answered in ")
    latency = int(text.removeprefix("fake-model answered in ").split(" ms.")[0])
    assert latency >= 300
    assert text.endswith("Reply: “OK”")
    assert row.test_result.property("outcome") == "ok"
    [request] = llm_server.requests
    assert request["model"] == "fake-model"
    assert llm_server.headers[0]["authorization"] == f"Bearer {API_KEY}"
    assert opened.errors == []


@pytest.mark.asyncio
async def test_a_purpose_without_its_own_model_is_tested_with_the_default(
    qtbot: QtBot, open_page: OpenPage, llm_server: FakeLLMServer, litellm_loaded: None
) -> None:
    opened = await open_page()
    await fake_model(qtbot, opened, llm_server)
    llm_server.reply_text("OK")

    text = await run_test(qtbot, opened, "extraction")

    assert text.startswith("fake-model answered in ")
    assert opened.page.rows["default"].test_result.text() == ""
    assert len(llm_server.requests) == 1


@pytest.mark.asyncio
async def test_a_refused_key_shows_an_authentication_failure(
    qtbot: QtBot, open_page: OpenPage, llm_server: FakeLLMServer, litellm_loaded: None
) -> None:
    opened = await open_page()
    await fake_model(qtbot, opened, llm_server)
    llm_server.reply_error(401, "Incorrect API key provided", kind="invalid_request_error")

    text = await run_test(qtbot, opened, "default")

    assert text.startswith("Authentication failed: the provider refused the API key.")
    row = opened.page.rows["default"]
    assert row.test_result.property("outcome") == "failed"
    assert "Incorrect API key provided" in row.test_result.toolTip()  # the provider's detail
    assert API_KEY not in row.test_result.toolTip()
    assert opened.errors == []  # an expected answer of the test, not an app error


@pytest.mark.asyncio
async def test_an_unreachable_server_is_unavailable(
    qtbot: QtBot, open_page: OpenPage, llm_server: FakeLLMServer, litellm_loaded: None
) -> None:
    opened = await open_page()
    await fake_model(qtbot, opened, llm_server)
    llm_server.reply_error(503, "overloaded")

    text = await run_test(qtbot, opened, "default")

    # Issue 14: no "Check the base URL" as if one had been given.
    assert text == (
        "Unavailable: the provider's server could not be reached or failed. Check the network "
        "connection and, if you gave one, the base URL."
    )
    row = opened.page.rows["default"]
    assert row.test_result.toolTip() != ""  # the core's own words, beside the sentence


@pytest.mark.asyncio
async def test_no_model_means_not_configured_and_no_request(
    qtbot: QtBot, open_page: OpenPage, llm_server: FakeLLMServer
) -> None:
    opened = await open_page()

    text = await run_test(qtbot, opened, "organizer")

    assert text == "No model is configured: choose one on the Model & keys page first."
    assert llm_server.requests == []


@pytest.mark.asyncio
async def test_labels_are_set_again_on_retranslate(qtbot: QtBot, open_page: OpenPage) -> None:
    opened = await open_page()
    page = opened.page
    page.reviewer.setCurrentIndex(page.reviewer.findData("lenient"))
    page.rows["default"].group.setTitle("")

    page.retranslate()

    assert page.rows["default"].group.title() == "Default model"
    assert page.reviewer.currentData() == "lenient"  # the choice survives the re-labelling
    assert page.reviewer.count() == len(config.REVIEWER_MODES)
    assert page.status.text() == "Unsaved changes."


@pytest.mark.asyncio
async def test_in_chinese_a_settings_error_is_translated_by_its_code_with_the_core_details(
    qtbot: QtBot, open_page: OpenPage, home: Path, english: Translations
) -> None:
    english.switch("zh_CN")
    try:
        opened = await open_page()
        page = opened.page
        row = page.rows["default"]
        row.set_model("openai/gpt-4o-mini")
        qtbot.keyClicks(row.base, "localhost:8000")  # no scheme
        await save_settings(qtbot, opened)

        [error] = opened.errors
        assert isinstance(error, SettingsInvalid) and error.field == "default.api_base"
        assert page.status.text() == (
            "有一项设置无效，因此没有保存任何内容。\n"
            "详情（英文）：The default model's base URL must start with http:// or https://."
        )
        assert not settings_path(home).exists()  # nothing saved
        assert page.dirty and row.base.text() == "localhost:8000"

        english.switch("en")  # a live switch re-labels the shown error

        await until(lambda: page.status.text().startswith("A setting is not valid"))
    finally:
        english.switch("en")
