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


# --- issue 15, second part: swapped subjects, exceptions, versions, examples ---------------------
def memory(description: str, body: str) -> str:
    """A memory's text as the organizer judges it: its description, a line break, its body."""
    return f"{description}\n{body}"


SWAPPED = {
    "zh-template": (
        memory("退款失败最多重试 5 次", "pay-bridge 调用渠道退款接口失败时最多重试 5 次。"),
        memory("查单失败最多重试 5 次", "pay-bridge 主动查询订单状态失败时最多重试 5 次。"),
        ("退款", "查单"),
    ),
    "zh-person": (
        memory("给阿明写评审意见用中文", "起草给阿明的评审意见时用中文写。"),
        memory("给小雨写评审意见用中文", "起草给小雨的评审意见时用中文写。"),
        ("阿明", "小雨"),
    ),
    "en-tool": (
        memory("Use pnpm for shop-admin", "Use pnpm for shop-admin: install with pnpm install."),
        memory("Use tabs for shop-admin", "Use tabs for shop-admin: one tab per indent."),
        ("pnpm", "tab"),
    ),
    "en-word-inside-another": (  # "cargo" holds the letters of "go", not the word
        memory("Tests run with go test ./...", "Run go test ./... before pushing."),
        memory("Tests run with cargo test", "Run cargo test before pushing."),
        ("go", "cargo"),
    ),
}


@pytest.mark.parametrize("pair", SWAPPED.values(), ids=SWAPPED.keys())
def test_one_headline_about_two_subjects_is_two_facts(
    pair: tuple[str, str, tuple[str, str]],
) -> None:
    first, second, (said_first, said_second) = pair
    judgement = judge(first, second)
    assert judgement.verdict == Verdict.DIFFERENT
    (difference,) = judgement.differences
    assert difference.kind == DifferenceKind.SUBJECT
    assert (difference.first, difference.second) == ((said_first,), (said_second,))


@pytest.mark.parametrize(
    "pair",
    [
        (  # "based" is in the first one's body, "time zone" is "timezone": a rewording
            memory("Works in Shenzhen, time zone UTC+8", "Ming is based in Shenzhen (UTC+8)."),
            memory("Based in Shenzhen; timezone UTC+8", "Ming is based in Shenzhen, UTC+8."),
        ),
        (  # 在 / 走: one character swapped is a function word
            memory("报销在飞书审批里提交", "报销都在飞书审批里提交。"),
            memory("报销走飞书审批", "报销都在飞书审批里提交。"),
        ),
    ],
    ids=["word-said-elsewhere", "one-character"],
)
def test_a_reworded_headline_is_not_a_swapped_subject(pair: tuple[str, str]) -> None:
    assert judge(*pair).verdict == Verdict.DUPLICATE


EXCEPTIONS = {
    "en-allowed": (
        memory("Use the SQLAlchemy ORM, no raw SQL", "cart-api code goes through the ORM."),
        memory("Raw SQL is allowed in the reporting queries", "Reports may use raw SQL."),
    ),
    "en-unless": (
        memory("Deploy only on weekdays", "Production deploys happen Monday to Friday."),
        memory("Deploy on weekdays unless it is a hotfix", "Hotfixes may go out any day."),
    ),
    "zh-exception": (
        memory("一个订单只能用一张优惠券", "一个订单只能用一张优惠券。"),
        memory("会员券可以和普通券叠加", "例外：会员的专享券可以和一张普通优惠券叠加使用。"),
    ),
    "zh-also-may": (
        memory("周末不要给阿明发工作消息", "周末不要给阿明发工作消息。"),
        memory("P1 故障周末也可以找阿明", "出现 P1 故障时，周末也可以直接联系阿明。"),
    ),
}


def test_a_synonym_for_half_a_short_headline_reads_as_another_subject() -> None:
    """The known cost of the swapped-subject rule: 喜欢 / 偏好 are synonyms the rules cannot
    know, and half of the headline is swapped, so the two stay apart (a merge missed, never a
    wrong one); "Notes on Makefiles for release notes / on the build server" is the same shape
    and two facts."""
    judgement = judge(
        memory("用户喜欢深色模式", "用户在所有编辑器里都使用深色模式。"),
        memory("偏好深色模式", "用户在所有编辑器和终端里都使用深色模式。"),
    )
    assert judgement.verdict == Verdict.DIFFERENT
    makefiles = judge(
        memory("Notes on Makefiles for release notes", "Keep the Makefile notes short."),
        memory("Notes on Makefiles on the build server", "Keep the Makefile notes short."),
    )
    assert [d.kind for d in makefiles.differences] == [DifferenceKind.SUBJECT]


@pytest.mark.parametrize("pair", EXCEPTIONS.values(), ids=EXCEPTIONS.keys())
def test_an_exception_to_a_rule_is_a_fact_of_its_own(pair: tuple[str, str]) -> None:
    judgement = judge(*pair)
    assert judgement.verdict == Verdict.DIFFERENT
    assert DifferenceKind.EXCEPTION in [d.kind for d in judgement.differences]


@pytest.mark.parametrize(
    "pair",
    [
        (  # 之外 is "outside of", not an exception; 不允许 forbids
            memory("工作时间九点半到六点半", "这之外不要安排会议。"),
            memory("上班时间九点半到六点半", "这个时间之外不安排会议。"),
        ),
        (
            memory("页面上的中文不要写死", "组件里不允许直接写中文文案。"),
            memory("界面文案不写死", "组件里不要直接写中文文案。"),
        ),
        (  # "exception" late in a body is a program's
            memory(
                "Failed messages go to the DLQ",
                "After three failures the message goes to "
                "the DLQ. The consumer logs it. The exception text is kept in a header.",
            ),
            memory("Messages that fail three times go to the DLQ", "The consumer parks them."),
        ),
    ],
    ids=["outside-of", "not-allowed", "exception-text"],
)
def test_words_that_only_look_like_an_exception(pair: tuple[str, str]) -> None:
    assert DifferenceKind.EXCEPTION not in [d.kind for d in judge(*pair).differences]


def test_one_name_at_two_versions_is_a_contradiction() -> None:
    judgement = judge(
        memory("pay-bridge builds with Go 1.22", "CI uses the golang:1.22 image."),
        memory("pay-bridge is on Go 1.23", "CI uses the golang:1.23 image."),
    )
    assert judgement.verdict == Verdict.CONTRADICTION
    # The image's version (a name at two versions) and Go's (a number after its word).
    assert {d.kind for d in judgement.differences} == {DifferenceKind.NUMBER}
    assert ("golang:1.22",) in [d.first for d in judgement.differences]


def test_numbered_names_are_other_things_not_other_versions() -> None:
    judgement = judge(
        memory("About note-3", "note-3 is long"), memory("About note-4", "note-4 is long")
    )
    assert judgement.verdict == Verdict.DIFFERENT
    assert [d.kind for d in judgement.differences] == [DifferenceKind.ENTITY]


def test_plain_names_only_in_bodies_are_examples() -> None:
    """ "API, PR" / "middleware, webhook" illustrate one rule; a swap of strong names (a path,
    an alias) in the bodies is still two facts."""
    examples = judge(
        memory("回复用中文，技术术语保留英文", "像 API、commit、PR 这类技术术语保持英文。"),
        memory("用中文回答，专业名词别翻译", "像 middleware、webhook 这样的专业名词直接写英文。"),
    )
    assert examples.verdict == Verdict.DUPLICATE
    aliases = judge(
        memory("商品索引", "商品索引通过别名 products 访问"),
        memory("品牌索引", "品牌索引通过别名 brands 访问"),
    )
    assert aliases.verdict == Verdict.DIFFERENT
    assert aliases.differences[0].first == ("products",)


def test_a_capitalised_word_opening_the_body_is_not_a_name() -> None:
    judgement = judge(
        memory("Lead with the answer, then explain", "Put the answer first, then explain."),
        memory("Give the conclusion up front", "Replies open with the answer, then explain."),
    )
    assert judgement.verdict == Verdict.DUPLICATE


def test_avoiding_is_negating() -> None:
    judgement = judge(
        memory("金额按分存整数", "所有金额用整数存储，避免小数。"),
        memory("金额单位统一用分", "金额以分为单位的整数保存，不用小数。"),
    )
    assert judgement.verdict == Verdict.DUPLICATE
