"""Retrieval metrics and hybrid context through the fake embedding server (real litellm HTTP)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import InvalidArgument, SettingsInvalid
from liveagent_memory.domain.requests import WriteRequest
from liveagent_memory.retrieval import metrics
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.fake_embeddings import FakeEmbeddingServer
from tests.helpers.fake_llm import API_KEY
from tests.helpers.fakes import FakeClock

Payload = dict[str, Any]
NOTES = [
    ("login-retry", "feedback", "Never retry a login after a 401"),
    ("jwt", "project", "The login service issues JWT tokens"),
    ("tea", "user", "The user drinks oolong tea"),
    ("ci-cache", "reference", "CI caches pip downloads between runs"),
    ("fonts", "reference", "Screenshots need a CJK font"),
]


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    for slug, type_, text in NOTES:
        store.write(
            WriteRequest(slug=slug, scope="global", type=type_, description=text, body=text + ".")
        )
    dispatch(store, "episode_record", {"episode": {"goal": "fix the login crash"}})
    return store


@pytest.fixture(scope="module")
def server() -> Iterator[FakeEmbeddingServer]:
    with FakeEmbeddingServer() as running:
        yield running


@pytest.fixture
def embeddings(server: FakeEmbeddingServer, monkeypatch: pytest.MonkeyPatch) -> FakeEmbeddingServer:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    return server.reset()


def ask(store: MemoryStore, query: str, **kw: Any) -> Payload:
    payload: Payload = {"query": query, "providers": [], **kw}
    return dispatch(store, "memory_context", payload)


def test_no_metrics_before_the_first_context_and_nothing_written(filled: MemoryStore) -> None:
    report = dispatch(filled, "memory_metrics", {})
    assert report["contexts"] == 0 and report["hit_rate"] is None and report["since"] is None
    assert not metrics.metrics_path(filled.root).exists()


def test_contexts_add_up_to_hit_rate_and_tokens_saved(filled: MemoryStore) -> None:
    first = ask(filled, "fix the login crash", token_budget=500)
    second = ask(filled, "zebra migration", token_budget=500)  # finds nothing
    ask(filled, "oolong", record_metrics=False)  # not counted
    report = dispatch(filled, "memory_metrics", {})
    assert report["contexts"] == 2
    assert report["hit_rate"] == 0.5
    used = first["tokens_used"] + second["tokens_used"]
    assert report["tokens"]["used"] == used
    full = sum(c["retrieval_stats"]["full_load_tokens"] for c in (first, second))
    assert report["tokens"]["full_load"] == full
    assert report["tokens"]["saved"] == full - used
    assert report["tokens"]["budget"] == 1000
    assert report["task_types"] == {"debugging": 1, "implementation": 1}
    assert report["task_type_detected"] == 2
    assert report["fallbacks"]["keyword_only"] == 2 and report["fallbacks"]["hybrid"] == 0
    layers = first["retrieval_stats"]["layers"]
    assert report["layers"] == {k: layers[k] for k in ("1", "2", "3")}
    assert os.stat(metrics.metrics_path(filled.root)).st_mode & 0o777 == 0o600


def test_reset_reports_then_starts_again(filled: MemoryStore) -> None:
    ask(filled, "fix the login crash")
    report = dispatch(filled, "memory_metrics", {"reset": True})
    assert report["contexts"] == 1 and report["reset"] is True
    assert dispatch(filled, "memory_metrics", {})["contexts"] == 0


def test_a_corrupt_metrics_file_starts_again_and_the_context_still_works(
    filled: MemoryStore,
) -> None:
    metrics.metrics_path(filled.root).write_bytes(b"not a database at all" * 100)
    assert dispatch(filled, "memory_metrics", {})["contexts"] == 0
    assert ask(filled, "fix the login crash")["tokens_used"] > 0
    assert dispatch(filled, "memory_metrics", {})["contexts"] == 1


def test_an_unwritable_metrics_file_never_fails_the_context(
    filled: MemoryStore, caplog: pytest.LogCaptureFixture
) -> None:
    metrics.metrics_path(filled.root).mkdir()  # a folder where the file should be
    assert ask(filled, "fix the login crash")["tokens_used"] > 0
    assert "could not record retrieval metrics" in caplog.text


def test_hybrid_context_through_the_fake_embedding_server(
    filled: MemoryStore, embeddings: FakeEmbeddingServer
) -> None:
    embeddings.add_model("embed-a", dimension=16)
    providers = [{"provider": "openai", "model": "embed-a", "api_base": embeddings.base_url}]
    before = ask(filled, "login tokens", providers=providers)
    assert before["retrieval_stats"]["search"]["mode"] == "keyword"
    assert "no vectors yet" in before["retrieval_stats"]["search"]["reason"]
    dispatch(filled, "embeddings_rebuild", {"providers": providers})
    result = ask(filled, "login tokens", providers=providers)
    search = result["retrieval_stats"]["search"]
    assert search["mode"] == "hybrid" and search["provider"] == "openai/embed-a"
    assert "memory:global::jwt" in [i["key"] for i in result["applicable_patterns"]]
    # The query went over HTTP to the fake server once: every memory search of a context uses it.
    assert embeddings.embedding_inputs("embed-a").count(["login tokens"]) == 1
    report = dispatch(filled, "memory_metrics", {})
    assert report["fallbacks"]["hybrid"] == 1 and report["fallbacks"]["keyword_only"] == 1


def test_a_failing_provider_falls_back_to_the_next_then_to_keywords(
    filled: MemoryStore, embeddings: FakeEmbeddingServer
) -> None:
    first = embeddings.add_model("embed-a", dimension=16)
    embeddings.add_model("embed-b", dimension=8)
    providers = [
        {"provider": "openai", "model": "embed-a", "api_base": embeddings.base_url},
        {"provider": "openai", "model": "embed-b", "api_base": embeddings.base_url},
    ]
    for provider in providers:  # a rebuild fills the first working provider's index only
        dispatch(filled, "embeddings_rebuild", {"providers": [provider]})
    first.status = 500
    second = ask(filled, "login tokens", providers=providers)
    assert second["retrieval_stats"]["search"]["mode"] == "hybrid"
    assert second["retrieval_stats"]["search"]["provider"] == "openai/embed-b"
    embeddings.models["embed-b"].status = 500
    keyword = ask(filled, "login tokens please", providers=providers)
    search = keyword["retrieval_stats"]["search"]
    assert search["mode"] == "keyword" and search["failures"]
    assert search["searches"] >= 2  # every memory search still ran, on keywords
    report = dispatch(filled, "memory_metrics", {})
    assert report["fallbacks"]["keyword_after_failure"] == 1
    assert report["fallbacks"]["embedding_provider_fallbacks"] >= 1


# --- CLI ----------------------------------------------------------------------------------------
@pytest.fixture
def no_embeddings(home: Path) -> None:
    """settings.json with an empty provider list: keyword-only, whatever is installed."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"embeddings": []}), encoding="utf-8")


def test_cli_context_prints_the_context_and_its_account(
    filled: MemoryStore, home: Path, no_embeddings: None
) -> None:
    code, out, err = run_cli("context", "fix the login crash", "--budget", "300", home=home)
    assert code == 0
    assert out.startswith("# Memory for: fix the login crash (task: debugging, detected)")
    assert "- login-retry [feedback" in out
    assert "of 300 tokens · task debugging (detected)" in err
    assert "keyword search" in err


def test_cli_context_json_task_type_and_full(
    filled: MemoryStore, home: Path, no_embeddings: None
) -> None:
    code, out, _ = run_cli(
        "context",
        "login",
        "--budget",
        "2000",
        "--task-type",
        "review",
        "--full",
        "--json",
        home=home,
    )
    data = json.loads(out)
    assert code == 0 and data["task_type"] == "review" and data["task_type_source"] == "given"
    assert data["retrieval_stats"]["force_full"] is True
    assert data["tokens_used"] <= 2000


def test_cli_context_errors(filled: MemoryStore, home: Path, no_embeddings: None) -> None:
    code, out, _ = run_cli("context", "login", "--budget", "0", "--json", home=home)
    assert code == 1 and json.loads(out)["field"] == "token_budget"
    code, out, _ = run_cli("context", "   ", "--json", home=home)
    assert code == 1 and json.loads(out)["field"] == "query"
    code, _, err = run_cli("context", "login", "--task-type", "gardening", home=home)
    assert code == 2 and "invalid choice" in err
    code, out, _ = run_cli("context", "zebra", "--no-metrics", home=home)
    assert code == 0 and out == "No memory matched 'zebra'.\n"


def test_cli_metrics(filled: MemoryStore, home: Path, no_embeddings: None) -> None:
    code, out, _ = run_cli("metrics", home=home)
    assert code == 0 and out.startswith("No contexts yet")
    run_cli("context", "fix the login crash", home=home)
    run_cli("context", "zebra", home=home)
    code, out, _ = run_cli("metrics", home=home)
    assert "hit rate          50.0%" in out
    assert "task types        debugging 1, implementation 1 (2 detected)" in out
    code, out, _ = run_cli("metrics", "--json", "--reset", home=home)
    assert json.loads(out)["contexts"] == 2
    after = json.loads(run_cli("metrics", "--json", home=home)[1])
    assert after["contexts"] == 0 and after["used"] == []
    assert len(after["days"]) == 30 and all(day["contexts"] == 0 for day in after["days"])


def test_a_broken_embeddings_setting_falls_back_to_keywords(filled: MemoryStore) -> None:
    bad = [{"provider": "openai", "model": "m", "api_base": "ftp://x"}]
    (filled.root / "settings.json").write_text(json.dumps({"embeddings": bad}), encoding="utf-8")
    result = dispatch(filled, "memory_context", {"query": "fix the login crash"})
    search = result["retrieval_stats"]["search"]
    assert result["tokens_used"] > 0 and search["mode"] == "keyword"
    assert search["reason"].startswith("embeddings are configured but unusable")
    assert search["failures"][0]["provider"] == "settings"
    assert dispatch(filled, "memory_metrics", {})["fallbacks"]["keyword_after_failure"] == 1
    # A list the caller passes is the caller's to fix: that is an error, not a fallback.
    with pytest.raises(SettingsInvalid):
        dispatch(filled, "memory_context", {"query": "fix the login crash", "providers": bad})


def test_each_day_counts_its_own_contexts(filled: MemoryStore, clock: FakeClock) -> None:
    ask(filled, "fix the login crash")
    ask(filled, "zebra")
    clock.advance(days=2)
    ask(filled, "oolong tea")

    report = dispatch(filled, "memory_metrics", {"days": 3})
    days = report["days"]
    today = filled.today()
    assert [day["day"] for day in days] == [
        (today - timedelta(days=n)).isoformat() for n in (2, 1, 0)
    ]
    first, empty, last = days
    assert (first["contexts"], first["hits"], first["hit_rate"]) == (2, 1, 0.5)
    assert first["task_types"] == {"debugging": 1, "implementation": 1}
    assert first["fallbacks"] == 2  # keyword only: no provider
    assert empty == {
        "day": empty["day"],
        "contexts": 0,
        "hits": 0,
        "hit_rate": None,
        "tokens_saved": 0,
        "fallbacks": 0,
        "task_types": {},
    }
    assert (last["contexts"], last["hits"]) == (1, 1)
    assert report["contexts"] == 3  # the totals are unchanged by the days
    with pytest.raises(InvalidArgument):
        dispatch(filled, "memory_metrics", {"days": 0})


def test_the_patterns_and_skills_contexts_show_are_counted_as_used(
    filled: MemoryStore, clock: FakeClock
) -> None:
    filled.write(
        WriteRequest(
            slug="login-retry-skill",
            scope="global",
            type="skill",
            description="Recover a login crash",
            body="## When to use\n\nThe login crashes.\n\n## Steps\n\n1. Read the log.\n",
        )
    )
    ask(filled, "add a login recovery step", task_type="implementation")
    clock.advance(seconds=300)
    ask(filled, "write the login recovery", task_type="implementation")
    ask(filled, "fix the login crash")  # debugging: skills weigh 0 and are not searched

    used = dispatch(filled, "memory_metrics", {})["used"]
    skill = next(row for row in used if row["kind"] == "skills")
    assert (skill["count"], skill["title"]) == (2, "Recover a login crash")
    assert skill["ref"] == {"slug": "login-retry-skill", "scope": "global", "workdir_hash": ""}
    assert skill["last_used"] == "2026-11-30T12:05:00.000Z"
    assert {row["kind"] for row in used} <= {"semantic", "skills", "anti_patterns"}
    assert all(row["ref"].get("slug") for row in used)  # memories only, never an episode
    assert [row["last_used"] for row in used] == sorted(
        (row["last_used"] for row in used), reverse=True
    )
    assert dispatch(filled, "memory_metrics", {"used_limit": 1})["used"] == used[:1]
