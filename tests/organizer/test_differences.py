"""Decisions by difference (issue 15): what materially differs between two similar memories."""

from __future__ import annotations

import pytest

from liveagent_memory.organizer.differences import DifferenceKind, Verdict, features, judge


def kinds(first: str, second: str) -> tuple[Verdict, list[DifferenceKind]]:
    judgement = judge(first, second)
    return judgement.verdict, [difference.kind for difference in judgement.differences]


# Each pair reads alike word for word; what differs decides.
DIFFERENT = {
    "alias-zh": ("品牌索引通过别名 brands 访问", "商品索引通过别名 products 访问"),
    "named-zh": ("服务名为订单中心，负责下单", "服务名为库存中心，负责下单"),
    "book-title-zh": ("需求写在《结算改版》里", "需求写在《退款改版》里"),
    "identifier": (
        "cart-api reads its settings from config/app.yaml",
        "pay-bridge reads its settings from config/app.yaml",
    ),
    "url": (
        "The dashboard is https://grafana.example/d/cart",
        "The dashboard is https://grafana.example/d/pay",
    ),
    "quoted": ('The release branch is called "spring"', 'The release branch is called "autumn"'),
    "capitalised-name": (
        "Ask Dana before changing the schema",
        "Ask Priya before changing the schema",
    ),
    "latin-name-in-zh": ("Go 代码用 gofumpt 格式化", "Python 代码用 ruff 格式化"),
}


@pytest.mark.parametrize("pair", DIFFERENT.values(), ids=DIFFERENT.keys())
def test_a_different_entity_means_different_facts(pair: tuple[str, str]) -> None:
    assert kinds(*pair) == (Verdict.DIFFERENT, [DifferenceKind.ENTITY])


@pytest.mark.parametrize(
    "pair",
    [
        ("DB pool size 40 in production", "DB pool size 10 in staging"),
        ("生产环境的连接池是 40", "预发环境的连接池是 10"),
    ],
    ids=["english", "chinese"],
)
def test_a_different_environment_means_different_facts_not_a_contradiction(
    pair: tuple[str, str],
) -> None:
    judgement = judge(*pair)
    assert judgement.verdict == Verdict.DIFFERENT
    (difference,) = judgement.differences
    assert difference.kind == DifferenceKind.ENVIRONMENT
    assert {difference.first, difference.second} == {("production",), ("staging",)}


CONTRADICTIONS = {
    "rate-zh": ("每秒限 10 次", "每秒限 5 次"),
    "retries-en": ("Failed jobs are retried 3 times", "Failed jobs are retried 5 times"),
    "version": ("The project runs on Python 3.11", "The project runs on Python 3.12"),
    "time": ("The nightly backup starts at 02:00", "The nightly backup starts at 03:30"),
    "attached-unit": ("Request timeout is 30s", "Request timeout is 10s"),
    "number-word-zh": ("阿明每月第一周值班", "阿明每月第三周值班"),
}


@pytest.mark.parametrize("pair", CONTRADICTIONS.values(), ids=CONTRADICTIONS.keys())
def test_the_same_subject_with_another_number_is_a_contradiction(pair: tuple[str, str]) -> None:
    assert kinds(*pair) == (Verdict.CONTRADICTION, [DifferenceKind.NUMBER])


def test_a_contradiction_says_which_numbers_differ() -> None:
    (difference,) = judge("每秒限 10 次", "每秒限 5 次").differences
    assert "10 次" in difference.first
    assert "5 次" in difference.second


NEGATED = {
    "never": ("Always use tabs for indentation", "Never use tabs for indentation"),
    "don't": ("Deploy on Fridays after the review", "Don't deploy on Fridays after the review"),
    "do-not": ("Run the migrations by hand", "Do not run the migrations by hand"),
    "不": ("以后都用 pnpm 安装依赖", "以后不用 pnpm 安装依赖"),
    "别": ("提交前要跑完整的测试", "提交前别跑完整的测试"),
    "禁止": ("可以直接改生产库的数据", "禁止直接改生产库的数据"),
}


@pytest.mark.parametrize("pair", NEGATED.values(), ids=NEGATED.keys())
def test_a_rule_and_its_negation_are_a_contradiction(pair: tuple[str, str]) -> None:
    assert kinds(*pair) == (Verdict.CONTRADICTION, [DifferenceKind.NEGATION])
    assert kinds(pair[1], pair[0]) == (Verdict.CONTRADICTION, [DifferenceKind.NEGATION])


SAME_NEGATION = {
    "不要-别": ("不要用 tabs", "别用 tabs"),
    "never-don't": ("never commit secrets", "don't commit secrets"),
    "禁止-勿": ("禁止在周五发布", "勿在周五发布"),
    "do-not-never": ("Do not push to main directly", "Never push to main directly"),
    "curly-apostrophe": ("Don\u2019t push to main directly", "Never push to main directly"),
    "千万别-不要": ("千万别删迁移文件", "不要删迁移文件"),
}


@pytest.mark.parametrize("pair", SAME_NEGATION.values(), ids=SAME_NEGATION.keys())
def test_forbidding_the_same_thing_in_other_words_is_a_duplicate(pair: tuple[str, str]) -> None:
    assert kinds(*pair) == (Verdict.DUPLICATE, [])


DUPLICATES = {
    "number-word": ("Messages are retried three times", "Messages are retried 3 times"),
    "a-detail-added": (
        "Use pnpm to install dependencies",
        "Use pnpm to install dependencies; pnpm-lock.yaml is committed",
    ),
    "same-name": ("部署到 staging 前跑冒烟测试", "部署 staging 之前要跑冒烟测试"),
    "a-side-clause-negated": ("Use pnpm, not npm", "Always use pnpm"),
    "cjk-word-with-不": ("两个服务的端口不同", "两个服务端口不同"),
}


@pytest.mark.parametrize("pair", DUPLICATES.values(), ids=DUPLICATES.keys())
def test_nothing_material_differs(pair: tuple[str, str]) -> None:
    assert kinds(*pair) == (Verdict.DUPLICATE, [])


def test_a_different_entity_outranks_a_different_number() -> None:
    judgement = judge("Project uses Postgres 15", "Project uses Redis 7")
    assert judgement.verdict == Verdict.DIFFERENT
    assert [d.kind for d in judgement.differences] == [DifferenceKind.ENTITY]
    assert judgement.differences[0].to_dict() == {
        "kind": "entity",
        "first": ["postgres"],
        "second": ["redis"],
    }


def test_sentence_starts_and_english_phrases_in_chinese_are_not_names() -> None:
    text = "Always run the tests.\nThe build uses it. 本项目 always use pnpm 安装依赖，npm 不行"
    found = features(text)
    assert found.entities == frozenset({"npm"})
    assert found.environments == frozenset()
