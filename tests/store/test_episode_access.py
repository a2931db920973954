"""Episode use persisted in the episode files: access counts and decay (store/episode_access.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EpisodeUnreadable
from liveagent_memory.domain.requests import EpisodeReadRequest
from liveagent_memory.retrieval.unified import get_relevant_context
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import cli_call_ok
from tests.helpers.fakes import FakeClock


def record(store: MemoryStore, **fields: Any) -> str:
    episode = {"goal": "fix the flaky upload test", "outcome": "success", **fields}
    return str(dispatch(store, "episode_record", {"episode": episode})["episode"]["id"])


def file_of(store: MemoryStore, episode_id: str) -> Path:
    path = str(dispatch(store, "episode_read", {"id": episode_id})["path"])
    return store.root / path


def stored(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def read(store: MemoryStore, episode_id: str) -> None:
    store.episode_read(EpisodeReadRequest(id=episode_id))


# --- access counts ----------------------------------------------------------------------------


def test_an_episode_read_twice_counts_two_in_its_file_after_the_flush_and_a_rebuild(
    home: Path, clock: FakeClock
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        episode_id = record(store)
        path = store.root / dispatch(store, "episode_list", {})["episodes"][0]["path"]
        read(store, episode_id)
        clock.advance(seconds=5)
        shown = store.episode_read(EpisodeReadRequest(id=episode_id)).episode
        assert shown.access_count == 2  # what the file will say once written
        assert stored(path)["access_count"] == 0  # a read writes nothing yet
        result = store.flush_episode_reads()
        assert (result.flushed, result.skipped) == (1, [])
        data = stored(path)
        assert data["access_count"] == 2
        assert data["last_accessed"] == "2026-11-30T12:00:05.000Z"
        # REFERENCE B4: a success is 0.6; two reads add 0.05 x log1p(2).
        assert data["importance"] == pytest.approx(0.6 + 0.05 * math.log1p(2))
    (home / "memory-index.sqlite3").unlink()  # the index is a cache: rebuilt from the files
    with MemoryStore.open(home, clock=clock) as again:
        episode = again.episode_read(EpisodeReadRequest(id=episode_id), counted=False).episode
        assert episode.access_count == 2
        hit = again.episode_search("flaky upload").hits[0]
        assert hit.importance == pytest.approx(0.6 + 0.05 * math.log1p(2))


def test_closing_the_store_writes_the_reads_of_a_one_shot_cli(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        episode_id = record(store)
        path = file_of(store, episode_id)
        store.flush_episode_reads()  # file_of read it once: written, so the CLI adds to it
    cli_call_ok(home, clock, "episode_read", {"id": episode_id})
    cli_call_ok(home, clock, "episode_read", {"id": episode_id})
    assert stored(path)["access_count"] == 3


def test_a_context_that_serves_an_episode_counts_it(store: MemoryStore) -> None:
    served = record(store)
    unrelated = record(store, goal="write the quarterly report")
    result = get_relevant_context(store, "fix the flaky upload test", task_type="debugging")
    assert [item.ref["id"] for item in result.relevant_episodes] == [served]
    store.flush_episode_reads()
    assert stored(file_of_unread(store, served))["access_count"] == 1
    assert stored(file_of_unread(store, unrelated))["access_count"] == 0


def file_of_unread(store: MemoryStore, episode_id: str) -> Path:
    """The file of an episode, found without counting a read."""
    read_result = store.episode_read(EpisodeReadRequest(id=episode_id), counted=False)
    return store.root / read_result.path


def test_reads_are_written_once_the_oldest_has_waited(store: MemoryStore, clock: FakeClock) -> None:
    episode_id = record(store)
    path = file_of_unread(store, episode_id)
    read(store, episode_id)
    clock.advance(seconds=config.EPISODE_ACCESS_FLUSH_SECONDS - 1)
    read(store, episode_id)
    assert stored(path)["access_count"] == 0
    clock.advance(seconds=1)
    read(store, episode_id)  # this read finds the first one due: all three are written
    assert stored(path)["access_count"] == 3
    assert store.flush_episode_reads().flushed == 0


def test_an_edit_of_the_file_made_meanwhile_is_kept(store: MemoryStore) -> None:
    episode_id = record(store)
    path = file_of_unread(store, episode_id)
    read(store, episode_id)
    read(store, episode_id)
    data = stored(path)
    data["goal"] = "fix the flaky upload test (edited by hand)"
    data["access_count"] = 5  # another process wrote its own reads meanwhile
    path.write_text(json.dumps(data, indent=2), "utf-8")
    assert store.flush_episode_reads().flushed == 1
    after = stored(path)
    assert after["goal"] == "fix the flaky upload test (edited by hand)"
    assert after["access_count"] == 7  # added to, never replaced
    assert store.episode_search("edited by hand").hits[0].id == episode_id


def test_a_loki_file_keeps_its_own_shape(store: MemoryStore) -> None:
    folder = store.layout.episodes_dir / "2026-11-29"
    folder.mkdir(parents=True)
    loki = {
        "id": "ep-2026-11-29-abcd1234",
        "task_id": "t-7",
        "timestamp": "2026-11-29T10:00:00Z",
        "agent": "loki",
        "context": {"phase": "ACT", "goal": "migrate the users table", "files_involved": []},
        "outcome": "success",
        "action_log": [{"t": 0, "action": "run", "target": "alembic upgrade", "result": "ok"}],
        "errors_encountered": [],
        "importance": 0.5,
        "access_count": 1,
    }
    path = folder / "task-ep-2026-11-29-abcd1234.json"
    path.write_text(json.dumps(loki, indent=2), "utf-8")
    store.reconcile()
    read(store, "ep-2026-11-29-abcd1234")
    assert store.flush_episode_reads().flushed == 1
    after = stored(path)
    assert set(after) == set(loki) | {"last_accessed"}  # none of our fields added
    assert {k: after[k] for k in loki if k not in ("access_count", "importance")} == {
        k: v for k, v in loki.items() if k not in ("access_count", "importance")
    }
    assert after["access_count"] == 2
    assert after["importance"] == pytest.approx(0.5 + 0.05 * (math.log1p(2) - math.log1p(1)))


def test_a_malformed_count_is_a_typed_error_for_that_file_only(store: MemoryStore) -> None:
    broken, fine = record(store), record(store, goal="tune the cache size")
    broken_path, fine_path = file_of_unread(store, broken), file_of_unread(store, fine)
    read(store, broken)
    read(store, fine)
    data = stored(broken_path)
    data["access_count"] = "two"
    broken_path.write_text(json.dumps(data, indent=2), "utf-8")
    hand_edited = broken_path.read_bytes()
    result = store.flush_episode_reads()
    assert result.flushed == 1
    assert [(s.id, s.path) for s in result.skipped] == [
        (broken, str(broken_path.relative_to(store.root)))
    ]
    assert "access_count" in result.skipped[0].reason
    assert broken_path.read_bytes() == hand_edited  # left as the person wrote it
    assert stored(fine_path)["access_count"] == 1
    with pytest.raises(EpisodeUnreadable) as caught:
        read(store, broken)
    assert caught.value.code == "episode_unreadable"
    # Its read waits: once the file is fixed, the next flush writes it.
    data["access_count"] = 0
    broken_path.write_text(json.dumps(data, indent=2), "utf-8")
    assert store.flush_episode_reads().flushed == 1
    assert stored(broken_path)["access_count"] == 1


# --- decay ------------------------------------------------------------------------------------


def test_decay_twice_the_same_day_changes_nothing_and_after_30_days_matches_b4(
    store: MemoryStore, clock: FakeClock
) -> None:
    episode_id = record(store)
    path = file_of_unread(store, episode_id)
    first = dispatch(store, "episode_decay", {})
    assert (first["decayed"], first["applied_on"]) == (0, "2026-11-30")
    before = path.read_bytes()
    clock.advance(hours=11)  # 23:00 UTC: still the same day
    assert dispatch(store, "episode_decay", {})["decayed"] == 0
    assert path.read_bytes() == before
    clock.advance(days=30, hours=-11)  # 30 days after the first pass
    result = dispatch(store, "episode_decay", {})
    assert (result["decayed"], result["applied_on"]) == (1, "2026-12-30")
    assert stored(path)["importance"] == 0.6 * math.exp(-0.1 * 30 / 30)  # REFERENCE B4
    again = path.read_bytes()
    assert dispatch(store, "episode_decay", {})["decayed"] == 0
    assert path.read_bytes() == again
    hit = store.episode_search("flaky upload").hits[0]
    assert hit.importance == 0.6 * math.exp(-0.1)  # retrieval reads the persisted value


def test_decay_never_goes_below_the_floor_and_counts_reads_first(
    store: MemoryStore, clock: FakeClock
) -> None:
    episode_id = record(store, outcome="failure")  # 0.4
    path = file_of_unread(store, episode_id)
    read(store, episode_id)
    clock.advance(days=3000)
    result = store.apply_episode_decay()
    assert (result.flushed, result.decayed) == (1, 1)
    data = stored(path)
    assert data["access_count"] == 1
    assert data["importance"] == config.CONTEXT_DECAY_FLOOR


def test_a_context_does_not_decay_twice_what_decay_already_applied(
    store: MemoryStore, clock: FakeClock
) -> None:
    record(store)
    clock.advance(days=30)
    unpersisted = get_relevant_context(store, "fix the flaky upload test", task_type="debugging")
    store.apply_episode_decay()  # writes the read that context served, then decays
    persisted = get_relevant_context(store, "fix the flaky upload test", task_type="debugging")
    bonus = config.CONTEXT_TASK_MATCH_BONUS  # a "fix" episode is a debugging one
    assert unpersisted.relevant_episodes[0].importance == pytest.approx(
        0.6 * math.exp(-0.1) + bonus, abs=1e-4
    )
    # 30 days of decay in all, not 60: the context decays only since the pass.
    assert persisted.relevant_episodes[0].importance == pytest.approx(
        (0.6 + 0.05 * math.log1p(1)) * math.exp(-0.1) + bonus, abs=1e-4
    )
