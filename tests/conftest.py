"""Shared test setup: environment for Qt/litellm, and real stores in temporary folders."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backends.fail
import pytest

from liveagent_memory.domain import config
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import FakeLLMServer
from tests.helpers.fakes import FakeClock, MemoryKeyring
from tests.helpers.git_repos import GIT_ENV, git
from tests.helpers.unprivileged import Unprivileged, unprivileged_folder

# No display, and no price-map download when later code imports litellm.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# The journal's "today" depends on the local time zone; tests pin it to UTC.
os.environ["TZ"] = "UTC"
time.tzset()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def cli_home(home: Path) -> str:
    """`home` as the CLI's --home argument, its folder made: an explicit --home must exist
    (or come with --create); an empty folder becomes a new store."""
    home.mkdir(parents=True, exist_ok=True)
    return str(home)


@pytest.fixture
def store(home: Path, clock: FakeClock) -> Iterator[MemoryStore]:
    with MemoryStore.open(home, clock=clock) as opened:
        yield opened


@pytest.fixture
def unprivileged(tmp_path: Path) -> Iterator[Unprivileged]:
    """Runs code as a user file permissions apply to, also when the suite runs as root
    (tests/helpers/unprivileged.py); `.folder` is where that user may build a store."""
    with unprivileged_folder(tmp_path) as runner:
        yield runner


@pytest.fixture
def workdir(tmp_path: Path) -> str:
    folder = tmp_path / "project"
    folder.mkdir()
    return str(folder)


@pytest.fixture(autouse=True)
def ui_state_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the app remembers its layout in this test (ui/window_state.py): the test's own
    folder, never the real ~/.config."""
    path = tmp_path / "ui-state" / "window-state.ini"
    monkeypatch.setenv(config.UI_STATE_ENV_VAR, str(path))
    return path


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Every test gets an empty in-memory keyring; the OS keyring is never touched."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring(memory_keyring: MemoryKeyring) -> Iterator[None]:
    """No usable keyring at all (like this headless machine without a Secret Service)."""
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (see tests/helpers/fake_llm.py)."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A git that reads no config of the machine running the tests (the git sync tests)."""
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare git repository in a temp folder: the remote two synced machines share."""
    path = tmp_path / "server" / "memory.git"
    path.mkdir(parents=True)
    git("init", "--bare", "-q", str(path), cwd=path.parent)
    return path
