"""Search on a store large enough for the common-term rule to apply (2,000+ memories)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.store.evidence import FrontMatter, MemoryDocument, render_document
from liveagent_memory.store.store import MemoryStore
from tests.helpers.checks import present
from tests.helpers.fakes import FakeClock

N = config.SEARCH_COMMON_TERM_MIN_DOCS + 100


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    home = tmp_path_factory.mktemp("big") / "memory"
    folder = home / "global"
    folder.mkdir(parents=True)
    for i in range(N):
        special = " zebra 斑马线" if i == 7 else ""
        body = f"Weekly meeting notes {i} 我们开会讨论{special}."
        doc = MemoryDocument(
            FrontMatter(
                name=f"note-{i:05d}",
                description=f"meeting {i}",
                type="reference",
                scope="global",
                created_at="2026-01-01T00:00:00.000Z",
                updated_at="2026-01-01T00:00:00.000Z",
            ),
            body,
        )
        (folder / f"note-{i:05d}.md").write_text(render_document(doc), encoding="utf-8")
    with MemoryStore.open(home, clock=FakeClock()) as store:
        assert store.last_reconcile is not None and store.last_reconcile.added == N
        yield store


COMMON = "weekly meeting notes 我们开会讨论"  # every memory has all of these (~16k postings)


def test_common_terms_are_skipped_when_a_query_would_visit_too_many(big: MemoryStore) -> None:
    result = big.search(SearchRequest(query=f"{COMMON} zebra", explain=True))
    assert result.matches[0].slug == "note-00007"
    skipped = present(result.matches[0].explain)["skipped_common_terms"]
    assert skipped and "zebra" not in skipped
    assert len(skipped) < 9  # only as many as needed to get under the budget


def test_chinese_rare_bigrams_are_kept(big: MemoryStore) -> None:
    result = big.search(SearchRequest(query=f"{COMMON} 斑马线", explain=True))
    assert result.matches[0].slug == "note-00007"
    skipped = present(result.matches[0].explain)["skipped_common_terms"]
    assert "斑马" not in skipped and "马线" not in skipped


def test_queries_under_the_budget_skip_nothing(big: MemoryStore) -> None:
    result = big.search(SearchRequest(query="meeting zebra", explain=True))
    assert result.matches[0].slug == "note-00007"
    assert "skipped_common_terms" not in present(result.matches[0].explain)


def test_a_query_of_only_common_terms_still_finds_memories(big: MemoryStore) -> None:
    result = big.search(SearchRequest(query=COMMON, limit=5))
    assert len(result.matches) == 5  # the rarest term is always kept


def test_store_of_that_size_lists_and_counts(big: MemoryStore) -> None:
    assert big.quota_summary().scopes[0].used == N
