"""Cross-language search: the Chinese-English word list and the second query it feeds."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import BatchItem, BatchRequest, SearchRequest
from liveagent_memory.domain.schema import SearchHit
from liveagent_memory.store.bilingual import WordList, segment, translate, word_list
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

# Slugs name no words, so only a memory's text can match (a Chinese memory with an English
# slug would share words with an English query).
MEMORIES = [
    ("alpha", "生产环境只在周二和周四下午部署", "每次部署之前先备份数据库。"),
    (
        "beta",
        "Database backups run every night",
        "A cron job dumps the database at 2 am and keeps the backups for thirty days.",
    ),
    ("gamma", "用户对猫过敏", "用户对猫过敏，不要在养猫的同事家里开会。"),
    ("delta", "The user is allergic to cats", "Avoid meetings at a colleague's home with cats."),
    ("epsilon", "Bicycles and gardening in spring", "Notes about bicycles, gardens and weather."),
    ("zeta", "周末喜欢去爬山", "用户周末常和朋友去郊外爬山。"),
]


@pytest.fixture(scope="module")
def bilingual(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryStore]:
    home = tmp_path_factory.mktemp("bilingual") / "memory"
    with MemoryStore.open(home, clock=FakeClock()) as store:
        items = [
            BatchItem(
                op="upsert",
                slug=slug,
                scope="global",
                type="reference",
                description=description,
                body=body,
            )
            for slug, description, body in MEMORIES
        ]
        assert store.apply_batch(BatchRequest(actor="user", items=items)).failed == 0
        yield store


def hits(store: MemoryStore, query: str) -> list[SearchHit]:
    request = SearchRequest(query=query, limit=6, include_all_projects=True, explain=True)
    return store.search(request).matches


def test_english_query_finds_a_chinese_memory(bilingual: MemoryStore) -> None:
    found = {hit.slug: hit for hit in hits(bilingual, "deployment schedule")}
    assert "alpha" in found
    explain = found["alpha"].explain
    assert explain is not None
    assert explain["via"] == "translation"
    assert "部署" in explain["translated_terms"]


def test_chinese_query_finds_an_english_memory(bilingual: MemoryStore) -> None:
    found = hits(bilingual, "数据库备份")
    slugs = [hit.slug for hit in found]
    # the Chinese memory holding both words as typed comes first, the English one by translation
    assert slugs[:2] == ["alpha", "beta"]
    assert found[1].explain is not None and found[1].explain["via"] == "translation"
    assert "[backups]" in found[1].snippet or "[database]" in found[1].snippet


@pytest.mark.parametrize(
    ("query", "exact", "twin"),
    [
        ("The user is allergic to cats", "delta", "gamma"),
        ("用户对猫过敏", "gamma", "delta"),
    ],
)
def test_an_exact_match_stays_above_its_translation(
    bilingual: MemoryStore, query: str, exact: str, twin: str
) -> None:
    found = hits(bilingual, query)
    assert [hit.slug for hit in found[:2]] == [exact, twin]
    assert found[1].score <= config.SEARCH_CROSSLANG_WEIGHT * found[0].score + 1e-9


def test_mixed_query_is_translated_both_ways(bilingual: MemoryStore) -> None:
    found = {hit.slug: hit for hit in hits(bilingual, "爬山 allergic")}
    via = {slug: hit.explain["via"] for slug, hit in found.items() if hit.explain is not None}
    assert via["zeta"] == "fts"  # 爬山 as typed
    assert via["delta"] == "fts"  # allergic as typed
    assert via["gamma"] == "translation"  # allergic -> 过敏


def test_unrelated_query_brings_no_memory_of_the_other_language(bilingual: MemoryStore) -> None:
    slugs = [hit.slug for hit in hits(bilingual, "bicycles gardening")]
    assert slugs[0] == "epsilon"
    assert not {"alpha", "gamma", "zeta"} & set(slugs)


def test_translate_groups_words_by_what_they_translate() -> None:
    found = translate(["deploy"], ["数据库备份"])
    groups = dict(found.groups)
    assert "database" in groups["数据库"]
    assert "backup" in groups["备份"]
    assert "部署" in groups["deploy"]
    assert "部署" in found.chinese
    assert {"database", "backup"} <= set(found.english)


def test_translate_leaves_out_words_the_query_already_has() -> None:
    found = translate(["database"], ["数据库"])
    assert "database" not in found.english
    assert "数据库" not in found.chinese


def test_segment_takes_the_longest_word_of_the_list() -> None:
    words = WordList.parse("数据\tdata\t\n数据库\tdatabase\t\n备份\tbackup\t\n")
    assert segment("数据库备份", words) == ["数据库", "备份"]
    assert segment("我的数据", words) == ["数据"]  # characters of no word are passed over


def test_parse_skips_comments_and_malformed_lines() -> None:
    text = "# header\n部署\tdeploy deployment\t\nnot a line\n\t\t\n测试\ttest\tbeta\n空\t\t\n"
    words = WordList.parse(text)
    assert words.english == {"部署": ("deploy", "deployment"), "测试": ("test", "beta")}
    assert words.chinese["deploy"] == ("部署",)
    assert "beta" not in words.chinese  # a word of a longer sense only serves Chinese queries
    assert words.longest == 2


def test_a_missing_word_list_turns_cross_language_search_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "zh_en.tsv"
    with caplog.at_level(logging.WARNING, logger="liveagent_memory.store.bilingual"):
        assert word_list(missing) == WordList({}, {}, 0)
        assert translate(["deploy"], ["数据库"], missing).empty
    assert "cross-language search is off" in caplog.text


def test_the_shipped_list_is_read() -> None:
    words = word_list()
    assert len(words.english) > 10_000
    assert "部署" in words.chinese["deploy"]
    assert "database" in words.english["数据库"]
