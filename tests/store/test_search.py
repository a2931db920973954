"""Search quality and rules on a real index (English, Chinese, mixed, short terms)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from liveagent_memory.domain import errors
from liveagent_memory.domain.requests import (
    AcceptRequest,
    BatchItem,
    BatchRequest,
    DailyAppendRequest,
    SearchRequest,
    WriteRequest,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.checks import present
from tests.helpers.fakes import FakeClock

CORPUS = [
    (
        "tea-pref",
        "user",
        "Drinks green tea",
        "The user drinks green tea without sugar every morning.",
    ),
    ("coffee-dislike", "feedback", "Avoid suggesting coffee", "Never suggest coffee shops."),
    (
        "db-choice",
        "reference",
        "Database is PostgreSQL 16",
        "The service stores everything in PostgreSQL 16 with logical replication.",
    ),
    (
        "runner-notes",
        "reference",
        "CI runners",
        "Tests run on self-hosted runners; running them locally needs Docker.",
    ),
    ("ui-lib", "reference", "UI toolkit", "The UI is built with Qt widgets, no web views."),
    ("go-service", "reference", "Go service", "The billing service is written in Go 1.22."),
    ("k8s-cluster", "reference", "Cluster", "Deploys go to a k8s cluster in Frankfurt."),
    ("name-fact", "user", "User identity", "My name is Alice Chen and I work on compilers."),
    (
        "memory-cn",
        "reference",
        "记忆系统设计",
        "长期记忆系统把每条记忆存为 Markdown 文件，用 SQLite 建索引。",
    ),
    ("cat-cn", "user", "喜欢猫", "用户养了一只猫，名字叫咪咪。"),
    ("db-cn", "reference", "数据库选型", "我们选择 PostgreSQL 作为主数据库，Redis 做缓存。"),
    ("mixed-cn", "reference", "Python 编码规范", "Python 代码使用 ruff 格式化，行宽 100。"),
    ("editor-pref", "user", "偏好：编辑器", "用户习惯用 Vim 写代码。"),
]
FILLER = [
    (
        f"filler-{i}",
        "reference",
        f"Unrelated note {i}",
        f"Note {i} about gardening, weather, bicycles and holidays in spring {i}.",
    )
    for i in range(20)
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    """A read-only store shared by the tests that only search."""
    home = tmp_path_factory.mktemp("corpus") / "memory"
    with MemoryStore.open(home, clock=FakeClock()) as store:
        items = [
            BatchItem(
                op="upsert",
                slug=slug,
                scope="global",
                type=memory_type,
                description=description,
                body=body,
            )
            for slug, memory_type, description, body in [*CORPUS, *FILLER]
        ]
        assert store.apply_batch(BatchRequest(actor="user", items=items)).failed == 0
        yield store


def slugs(store: MemoryStore, query: str, **fields: object) -> list[str]:
    request = SearchRequest.model_validate({"query": query, **fields})
    return [hit.slug for hit in store.search(request).matches]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("green tea", "tea-pref"),
        ("which database do we use", "db-choice"),
        ("coffee", "coffee-dislike"),
        ("run the tests", "runner-notes"),  # Porter: run ~ running/runners
        ("PostgreSQL replication", "db-choice"),
    ],
)
def test_english_queries(corpus: MemoryStore, query: str, expected: str) -> None:
    assert slugs(corpus, query)[0] == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("长期记忆系统", "memory-cn"),  # a phrase
        ("记忆", "memory-cn"),  # 2-character word inside a sentence
        ("索引", "memory-cn"),
        ("数据库", "db-cn"),
        ("缓存", "db-cn"),
        ("猫", "cat-cn"),  # a single character
        ("咪咪", "cat-cn"),
        ("我们用什么数据库", "db-cn"),  # a question sharing only some bigrams
    ],
)
def test_chinese_queries(corpus: MemoryStore, query: str, expected: str) -> None:
    assert slugs(corpus, query)[0] == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [("Python 格式化", "mixed-cn"), ("PostgreSQL 缓存", "db-cn"), ("Vim 代码", "editor-pref")],
)
def test_mixed_queries(corpus: MemoryStore, query: str, expected: str) -> None:
    assert slugs(corpus, query)[0] == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [("UI", "ui-lib"), ("go", "go-service"), ("k8s", "k8s-cluster"), ("Qt", "ui-lib")],
)
def test_short_english_terms(corpus: MemoryStore, query: str, expected: str) -> None:
    assert expected in slugs(corpus, query)[:2]


def test_two_character_chinese_not_found_by_trigram_alone_is_found(corpus: MemoryStore) -> None:
    # SQLite's trigram MATCH returns nothing for 2-character terms (TOOLCHAIN 5).
    with corpus.index.read() as conn:
        raw = conn.exec_driver_sql(
            "SELECT count(*) FROM memory_fts_tri WHERE memory_fts_tri MATCH '\"记忆\"'"
        ).scalar()
    assert raw == 0
    assert slugs(corpus, "记忆")[0] == "memory-cn"


def test_substring_fallback_for_partial_words(corpus: MemoryStore) -> None:
    result = corpus.search(SearchRequest(query="postgre", explain=True))
    assert result.used_fallback
    assert {"db-choice", "db-cn"} <= {hit.slug for hit in result.matches}
    assert present(result.matches[0].explain)["via"] == "substring"


def test_synonyms_for_identity_questions(corpus: MemoryStore) -> None:
    result = corpus.search(SearchRequest(query="who am I?", explain=True))
    assert result.matches[0].slug == "name-fact"
    assert "name" in present(result.matches[0].explain)["synonyms"]
    assert slugs(corpus, "我是谁")[0] == "name-fact"


def test_preference_synonyms(corpus: MemoryStore) -> None:
    assert "editor-pref" in slugs(corpus, "我的偏好")[:3]


def test_scope_filter_and_all_projects(store: MemoryStore, tmp_path: object, workdir: str) -> None:
    other = str(__import__("pathlib").Path(str(tmp_path)) / "other")
    __import__("os").makedirs(other)
    for slug, wd in (("mine", workdir), ("theirs", other)):
        store.write(
            WriteRequest(
                slug=slug,
                scope="project",
                workdir=wd,
                type="project",
                description="deploy notes",
                body="Deploy with helm.",
            )
        )
    store.write(
        WriteRequest(
            slug="global-deploy",
            scope="global",
            type="reference",
            description="deploy notes",
            body="Deploy with helm.",
        )
    )
    assert set(slugs(store, "helm", workdir=workdir)) == {"mine", "global-deploy"}
    assert set(slugs(store, "helm")) == {"global-deploy"}
    assert set(slugs(store, "helm", workdir=workdir, scope="project")) == {"mine"}
    assert set(slugs(store, "helm", scope="global", workdir=workdir)) == {"global-deploy"}
    assert set(slugs(store, "helm", include_all_projects=True)) == {
        "mine",
        "theirs",
        "global-deploy",
    }
    with pytest.raises(errors.InvalidScope):
        slugs(store, "helm", scope="nowhere")


def test_project_memory_shadows_global_same_slug(store: MemoryStore, workdir: str) -> None:
    for scope in ("global", "project"):
        store.write(
            WriteRequest(
                slug="lint-rules",
                scope=scope,
                workdir=workdir,
                type="reference" if scope == "global" else "project",
                description="lint rules",
                body=f"Lint rules for {scope}.",
            )
        )
    hits = store.search(SearchRequest(query="lint rules", workdir=workdir)).matches
    assert [(h.slug, h.scope) for h in hits] == [("lint-rules", "project")]


def test_type_filter(corpus: MemoryStore) -> None:
    assert set(slugs(corpus, "tea coffee", type="feedback")) == {"coffee-dislike"}
    with pytest.raises(errors.InvalidType):
        slugs(corpus, "tea", type="nope")


def test_reviewed_boost_and_explain(store: MemoryStore) -> None:
    for slug in ("reviewed-note", "unreviewed-note"):
        store.write(
            WriteRequest(
                slug=slug,
                scope="global",
                type="reference",
                description="espresso machine",
                body="Espresso machine manual.",
                actor="extractor",
            )
        )
    for i in range(12):
        store.write(
            WriteRequest(
                slug=f"pad-{i}",
                scope="global",
                type="reference",
                description=f"pad {i}",
                body=f"Other words {i}.",
            )
        )
    store.accept(AcceptRequest(slug="reviewed-note"))
    hits = store.search(SearchRequest(query="espresso", explain=True)).matches
    assert [h.slug for h in hits] == ["reviewed-note", "unreviewed-note"]
    first, second = (present(h.explain) for h in hits)
    assert first["reviewed_boost"] == 1.1 and second["reviewed_boost"] == 1.0
    assert first["weight"] == 1.0 and first["weight_reason"] == "global memory"
    assert first["raw"] == pytest.approx(second["raw"])
    assert first["coverage"] == 1.0 and first["coverage_boost"] == 2.0
    assert hits[0].score == pytest.approx(first["raw"] * 1.0 * 1.1 * 2.0)
    assert first["matched"] == ["espresso"] and first["via"] == "fts"


def test_coverage_prefers_memories_holding_more_of_the_question(store: MemoryStore) -> None:
    # Equal BM25 (one shared word, same length); only "aaa-note" also holds the start of
    # "alphabet". Without coverage the tie would go to "bbb-note" (slug order).
    for slug, word in (("aaa-note", "alpha"), ("bbb-note", "gamma")):
        store.write(
            WriteRequest(
                slug=slug,
                scope="global",
                type="reference",
                description="note",
                body=f"Zebra {word}.",
            )
        )
    for i in range(12):
        store.write(
            WriteRequest(
                slug=f"pad-{i}",
                scope="global",
                type="reference",
                description="note",
                body=f"Other words {i}.",
            )
        )
    hits = store.search(SearchRequest(query="zebra alphabet", explain=True)).matches
    assert [h.slug for h in hits] == ["aaa-note", "bbb-note"]
    first, second = (present(h.explain) for h in hits)
    assert first["raw"] == pytest.approx(second["raw"])
    assert (first["coverage"], second["coverage"]) == (1.0, 0.5)


def test_daily_weight_and_decay(store: MemoryStore, clock: FakeClock) -> None:
    store.append_daily(DailyAppendRequest(body="Fixed the flaky upload test."))
    clock.advance(days=10)
    store.append_daily(DailyAppendRequest(body="Fixed the flaky upload test."))
    for i in range(12):
        store.write(
            WriteRequest(
                slug=f"pad-{i}",
                scope="global",
                type="reference",
                description=f"pad {i}",
                body=f"Other words {i}.",
            )
        )
    hits = store.search(SearchRequest(query="flaky upload", type="daily", explain=True)).matches
    assert [h.slug for h in hits] == ["daily-2026-12-10", "daily-2026-11-30"]
    newer, older = hits
    assert present(newer.explain)["weight"] == 0.35
    assert older.age_days == 10.0
    assert present(older.explain)["daily_decay"] == pytest.approx(
        2.718281828 ** (-10 / 30), rel=1e-6
    )


@pytest.mark.parametrize("query", ["", "   ", "?!", '"unbalanced (OR', "NEAR(a b)", "a* OR -b"])
def test_odd_queries_do_not_fail(corpus: MemoryStore, query: str) -> None:
    result = corpus.search(SearchRequest(query=query))
    assert isinstance(result.matches, list)


def test_limit_default_and_max(store: MemoryStore) -> None:
    items = [
        BatchItem(
            op="upsert",
            slug=f"pad-{i}",
            scope="global",
            type="reference",
            description="bicycle",
            body=f"Bicycle note {i}.",
        )
        for i in range(40)
    ]
    store.apply_batch(BatchRequest(items=items))
    assert len(slugs(store, "bicycle")) == 8
    assert len(slugs(store, "bicycle", limit=100)) == 32


def test_snippet_marks_match_and_skips_evidence(store: MemoryStore) -> None:
    store.write(
        WriteRequest(
            slug="quoted",
            scope="global",
            type="user",
            description="d",
            body="A long text about saxophones and jazz.",
            confidence="high",
            source_quote="I play the saxophone",
        )
    )
    hit = store.search(SearchRequest(query="jazz")).matches[0]
    assert "[jazz]" in hit.snippet and "confidence" not in hit.snippet


def test_evidence_quote_and_aliases_are_searchable(store: MemoryStore) -> None:
    store.write(
        WriteRequest(
            slug="alias-note",
            scope="global",
            type="user",
            description="d",
            body="Prefers short answers.",
            aliases=["terse replies"],
            confidence="high",
            source_quote="keep it brief please",
        )
    )
    assert slugs(store, "terse") == ["alias-note"]
    assert slugs(store, "brief") == ["alias-note"]
