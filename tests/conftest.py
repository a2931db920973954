"""Shared test setup: environment for Qt/litellm, and real stores in temporary folders."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

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
def store(home: Path, clock: FakeClock) -> Iterator[MemoryStore]:
    with MemoryStore.open(home, clock=clock) as opened:
        yield opened


@pytest.fixture
def workdir(tmp_path: Path) -> str:
    folder = tmp_path / "project"
    folder.mkdir()
    return str(folder)
