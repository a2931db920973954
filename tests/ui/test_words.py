"""The words a person reads, in both languages: errors by code, Chinese punctuation, levels."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from liveagent_memory.domain import errors
from liveagent_memory.domain.text import CJK_CHARS, has_cjk
from liveagent_memory.ui.i18n import I18N_DIR, Translations
from liveagent_memory.ui.strings import error_detail, error_text, quota_level_text
from liveagent_memory.ui.widgets.memory_editor import MemoryEditor

# ASCII punctuation whose nearest neighbour, spaces skipped, is a CJK character or CJK
# punctuation: Chinese text takes ，。：；！？（）. The accelerator suffix "(&F)" is Qt's own
# Chinese convention and stays.
CJK_SIDE = f"[{CJK_CHARS}\u3000-\u303f\uff00-\uffef]"
ASCII_IN_CHINESE = re.compile(rf"(?<={CJK_SIDE}) *[,.:;!?()]|[,.:;!?()] *(?={CJK_SIDE})")
ACCELERATOR = re.compile(r"\(&\w\)$")
ERROR_CLASSES = [
    value
    for value in vars(errors).values()
    if isinstance(value, type) and issubclass(value, errors.MemoryDomainError)
]


@pytest.fixture
def chinese(english: Translations) -> Iterator[Translations]:
    english.switch("zh_CN")
    yield english
    english.switch("en")  # later tests see English again


def zh_translations() -> list[tuple[str, str, str]]:
    """(context, source, translation) of every message in i18n/zh_CN.ts, plural forms apart."""
    found = []
    for context in ET.parse(I18N_DIR / "zh_CN.ts").getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            translation = message.find("translation")
            assert translation is not None, source
            forms = [form.text or "" for form in translation.iter("numerusform")]
            for text in forms or [translation.text or ""]:
                found.append((name, source, text))
    return found


def ascii_punctuation_in_chinese(text: str) -> list[str]:
    return ASCII_IN_CHINESE.findall(ACCELERATOR.sub("", text))


def test_the_punctuation_rule_finds_ascii_marks_beside_chinese() -> None:
    assert ascii_punctuation_in_chinese("记忆已保存.") == ["."]
    assert ascii_punctuation_in_chinese("模型 (默认)") == [" (", ")"]
    assert ascii_punctuation_in_chinese("设置无效: 请检查") == [":"]
    assert ascii_punctuation_in_chinese("范围(&C)") == []
    assert ascii_punctuation_in_chinese("例如 tea-preference。基础 URL (http://)") == []


def test_every_chinese_translation_uses_chinese_punctuation() -> None:
    messages = zh_translations()
    assert len(messages) > 400
    wrong = [
        f"{context}: {text!r}"
        for context, _, text in messages
        if ascii_punctuation_in_chinese(text)
    ]
    assert wrong == []


def test_no_chinese_translation_is_left_in_english() -> None:
    # Names stay as they are: the product, a mode's name.
    keep = {"LiveAgent", "Loki Mode"}
    english = [
        f"{context}: {source!r}"
        for context, source, text in zh_translations()
        if not has_cjk(text) and text not in keep and re.search("[A-Za-z]", text)
    ]
    assert english == []


@pytest.mark.parametrize("error_class", ERROR_CLASSES, ids=lambda cls: cls.code)
def test_every_error_code_has_its_own_sentence_in_both_languages(
    error_class: type[errors.MemoryDomainError], chinese: Translations
) -> None:
    exc = error_class("the core's English message naming the value at fault")

    chinese_text = error_text(exc)
    chinese.switch("en")
    english_text = error_text(exc)

    assert has_cjk(chinese_text) and not ascii_punctuation_in_chinese(chinese_text)
    assert not has_cjk(english_text) and english_text != exc.message
    if error_class is not errors.MemoryDomainError:
        assert english_text != error_text(errors.MemoryDomainError("x"))  # a sentence of its own
    assert error_detail(exc) == exc.message  # the core's words stay available


def test_an_unknown_code_falls_back_to_the_general_sentence_with_its_details() -> None:
    exc = errors.MemoryDomainError("clusters are missing", code="clusters_unknown_here")
    assert error_text(exc) == "Something went wrong in the memory store."
    assert error_detail(exc) == "clusters are missing"


def test_quota_levels_have_plain_words(chinese: Translations) -> None:
    levels = ["normal", "notice", "degraded", "critical", "exhausted"]
    assert [quota_level_text(level) for level in levels] == [
        "空间充足",
        "渐满",
        "较满",
        "将满",
        "已满",
    ]
    chinese.switch("en")
    assert [quota_level_text(level) for level in levels] == [
        "plenty of room",
        "filling up",
        "getting full",
        "nearly full",
        "full",
    ]


def test_the_editor_shows_a_typed_error_by_code_and_relabels_it_on_a_language_switch(
    qtbot: QtBot, english: Translations
) -> None:
    editor = MemoryEditor()
    qtbot.addWidget(editor)
    editor.show()
    detail = "memories/global/tea.md already exists and is not this memory"
    editor.show_failure(errors.SlugExists(detail))

    assert editor.error.isVisible()
    assert editor.error.text() == (
        "A memory with this slug already exists: choose another slug.\nDetails: " + detail
    )
    assert editor.error.toolTip() == detail
    try:
        english.switch("zh_CN")
        qtbot.waitUntil(lambda: editor.error.text().startswith("已有使用这个标识名的记忆"))
        assert editor.error.text().endswith("详情（英文）：" + detail)
        assert editor.labels[editor.slug].text() == "标识名(&S)"
        assert editor.confidence.itemText(1) == "高"  # confidence levels too
    finally:
        english.switch("en")
    qtbot.waitUntil(lambda: editor.error.text().startswith("A memory with this slug"))

    editor.show_error("Write a one-line description.")  # the editor's own check: no details
    assert editor.error.toolTip() == ""
