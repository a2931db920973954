"""Date expressions as day ranges (domain/dates.py), English and Chinese, with a fixed today."""

from __future__ import annotations

from datetime import date

import pytest

from liveagent_memory.domain.dates import date_spans, without_spans

TODAY = date(2026, 11, 30)  # a Monday


def ranges(text: str, *, relative: bool = True) -> list[tuple[str, str, str]]:
    return [
        (s.start.isoformat(), s.end.isoformat(), text[s.where[0] : s.where[1]])
        for s in date_spans(text, TODAY, relative=relative)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # absolute, English
        ("on 8 May 2023", [("2023-05-08", "2023-05-08", "8 May 2023")]),
        ("on 1 February, 2023?", [("2023-02-01", "2023-02-01", "1 February, 2023")]),
        ("on May 3, 2023", [("2023-05-03", "2023-05-03", "May 3, 2023")]),
        ("October 13th, 2023", [("2023-10-13", "2023-10-13", "October 13th, 2023")]),
        ("in October 2023", [("2023-10-01", "2023-10-31", "October 2023")]),
        ("Sept. 2024", [("2024-09-01", "2024-09-30", "Sept. 2024")]),
        ("in 2023", [("2023-01-01", "2023-12-31", "2023")]),
        ("released 2023-05-08", [("2023-05-08", "2023-05-08", "2023-05-08")]),
        ("February 2024", [("2024-02-01", "2024-02-29", "February 2024")]),
        # absolute, Chinese
        ("2023年5月", [("2023-05-01", "2023-05-31", "2023年5月")]),
        ("2023年5月8日", [("2023-05-08", "2023-05-08", "2023年5月8日")]),
        ("2023年", [("2023-01-01", "2023-12-31", "2023年")]),
        # relative, English (today is Monday 30 November 2026)
        ("yesterday", [("2026-11-29", "2026-11-29", "yesterday")]),
        ("today", [("2026-11-30", "2026-11-30", "today")]),
        ("the day before yesterday", [("2026-11-28", "2026-11-28", "the day before yesterday")]),
        ("last week", [("2026-11-23", "2026-11-29", "last week")]),
        ("this week", [("2026-11-30", "2026-12-06", "this week")]),
        ("last weekend", [("2026-11-28", "2026-11-29", "last weekend")]),
        ("last month", [("2026-10-01", "2026-10-31", "last month")]),
        ("last year", [("2025-01-01", "2025-12-31", "last year")]),
        ("last May", [("2026-05-01", "2026-05-31", "last May")]),
        ("last November", [("2025-11-01", "2025-11-30", "last November")]),
        ("in November", [("2026-11-01", "2026-11-30", "in November")]),
        ("in December", [("2025-12-01", "2025-12-31", "in December")]),
        ("May 8", [("2026-05-08", "2026-05-08", "May 8")]),
        ("on 24 December", [("2025-12-24", "2025-12-24", "24 December")]),
        ("3 days ago", [("2026-11-27", "2026-11-27", "3 days ago")]),
        ("two weeks ago", [("2026-11-16", "2026-11-22", "two weeks ago")]),
        ("a month ago", [("2026-10-01", "2026-10-31", "a month ago")]),
        # relative, Chinese
        ("昨天", [("2026-11-29", "2026-11-29", "昨天")]),
        ("前天", [("2026-11-28", "2026-11-28", "前天")]),
        ("上周", [("2026-11-23", "2026-11-29", "上周")]),
        ("上个星期", [("2026-11-23", "2026-11-29", "上个星期")]),
        ("上个月", [("2026-10-01", "2026-10-31", "上个月")]),
        ("去年", [("2025-01-01", "2025-12-31", "去年")]),
        ("今年", [("2026-01-01", "2026-12-31", "今年")]),
        ("去年5月", [("2025-05-01", "2025-05-31", "去年5月")]),
        ("5月8日", [("2026-05-08", "2026-05-08", "5月8日")]),
        ("三天前", [("2026-11-27", "2026-11-27", "三天前")]),
    ],
)
def test_a_date_expression_is_an_exact_range_of_days(
    text: str, expected: list[tuple[str, str, str]]
) -> None:
    assert ranges(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "what may I do next",  # the verb, not the month
        "June said hello",  # a name, not the month
        "version 2023.1 of the tool",  # a version number, not a year
        "port 8080",
        "",
    ],
)
def test_words_that_only_look_like_dates_are_not_dates(text: str) -> None:
    assert ranges(text) == []


def test_several_expressions_are_read_in_text_order() -> None:
    text = "What did Maria do last weekend before April 10, 2023 and 去年?"

    assert ranges(text) == [
        ("2026-11-28", "2026-11-29", "last weekend"),
        ("2023-04-10", "2023-04-10", "April 10, 2023"),
        ("2025-01-01", "2025-12-31", "去年"),
    ]
    spans = date_spans(text, TODAY)
    assert [s.absolute for s in spans] == [False, True, False]
    assert without_spans(text, spans).split() == [
        "What",
        "did",
        "Maria",
        "do",
        "before",
        "and",
        "?",
    ]


def test_a_memory_text_is_read_for_dates_with_their_year_only() -> None:
    text = "Yesterday we shipped; the launch was on 8 May 2023, see also 2024年3月"

    assert ranges(text, relative=False) == [
        ("2023-05-08", "2023-05-08", "8 May 2023"),
        ("2024-03-01", "2024-03-31", "2024年3月"),
    ]


def test_an_impossible_day_or_month_leaves_what_is_still_a_date() -> None:
    assert ranges("31 February 2023") == [("2023-02-01", "2023-02-28", "February 2023")]
    assert ranges("2023年13月") == [("2023-01-01", "2023-12-31", "2023年")]
