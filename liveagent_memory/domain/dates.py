"""Date expressions in text, English and Chinese, as ranges of days (the one parser of them).

A query that names a time ("on 8 May 2023", "last May", "in 2023", "yesterday", "last week",
"2023年5月", "上周", "昨天", "去年") is about memories of that time: store/search.py boosts the
memories whose dates (created, updated, a journal's day, a date written in their text) fall in
one of the ranges found here, and retrieval/unified.py does the same for episodes. Relative
expressions are counted from `today`, the store's own clock (domain/clock.py `journal_date`),
so a test with a fixed clock gets exact ranges. Written dates in a memory's text are read with
`relative=False`: "yesterday" in a memory is about its own day, not the reader's.

Every range is whole days, `start` to `end` inclusive. A month name alone is taken only after
a word that makes it a time ("in June", "last May", "since March"), so the verb "may" and the
name "June" are not dates; a four-digit number is a year only between 1900 and 2099.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta


@dataclass(frozen=True)
class DateSpan:
    """A range of days named at `where` (start, end character offsets) of the text."""

    start: date
    end: date  # inclusive
    where: tuple[int, int]
    absolute: bool = True  # names its year ("May 2023"), unlike "last May" or "yesterday"

    def covers(self, day: date) -> bool:
        return self.start <= day <= self.end


_MONTHS = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
_COUNT = r"(?P<count>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_ZH_COUNT = r"(?P<count>\d{1,3}|[一两二三四五六七八九十])"


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Absolute forms, most specific first (a later pattern never reads inside an earlier match).
_ABSOLUTE = [
    ("day", _compile(rf"\b{_YEAR}-(?P<month_n>[01]?\d)-{_DAY}\b")),
    ("day", _compile(rf"\b{_YEAR}/(?P<month_n>[01]?\d)/{_DAY}\b")),
    ("day", _compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")),
    ("day", _compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b")),
    ("day", _compile(rf"{_YEAR}\s*年\s*(?P<month_n>[01]?\d)\s*月\s*{_DAY}\s*[日号]")),
    ("month", _compile(rf"{_YEAR}\s*年\s*(?P<month_n>[01]?\d)\s*月")),
    ("month", _compile(rf"\b{_YEAR}-(?P<month_n>[01]?\d)\b(?!-)")),
    ("month", _compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")),
    ("year", _compile(rf"{_YEAR}\s*年")),
]
# Forms without a year: the most recent such day or month up to today.
_RECENT = [
    _compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b"),
    _compile(rf"\b{_MONTH}\s+{_DAY}\b(?!\s*[:.]\d)"),
    _compile(rf"(?<!\d)(?P<month_n>[01]?\d)\s*月\s*{_DAY}\s*[日号]"),
]
_YEAR_ALONE = _compile(rf"(?<![\d.-]){_YEAR}(?![\d.]|\s*年)")
_MONTH_AFTER = _compile(
    rf"\b(?P<which>last|this|next|in|during|since|early|late|mid|until|till|through|of|on)"
    rf"[\s-]+(?:(?:early|late|mid)\s+)?{_MONTH}\b"
)
_ZH_MONTH_IN_YEAR = _compile(r"(?P<which>去年|今年|前年|明年)\s*(?P<month_n>[01]?\d)\s*月")
_AGO = _compile(rf"\b{_COUNT}\s+(?P<unit>day|week|month|year)s?\s+ago\b")
_ZH_AGO = _compile(
    rf"{_ZH_COUNT}\s*(?:个)?\s*(?P<unit>天|日|周|星期|礼拜|月|年)\s*(?:以前|之前|前)"
)

# Relative words: (pattern, unit, offset) -- the day, week, weekend, month or year `offset`
# units from today's.
_RELATIVE_WORDS: list[tuple[str, str, int]] = [
    (r"\bthe\s+day\s+before\s+yesterday\b", "day", -2),
    (r"\byesterday\b", "day", -1),
    (r"\btoday\b|\btonight\b", "day", 0),
    (r"\btomorrow\b", "day", 1),
    (r"\b(?:last|past|previous)\s+weekend\b", "weekend", -1),
    (r"\bthis\s+weekend\b", "weekend", 0),
    (r"\b(?:last|past|previous)\s+week\b", "week", -1),
    (r"\bthis\s+week\b", "week", 0),
    (r"\bnext\s+week\b", "week", 1),
    (r"\b(?:last|past|previous)\s+month\b", "month", -1),
    (r"\bthis\s+month\b", "month", 0),
    (r"\bnext\s+month\b", "month", 1),
    (r"\b(?:last|past|previous)\s+year\b", "year", -1),
    (r"\bthis\s+year\b", "year", 0),
    (r"\bnext\s+year\b", "year", 1),
    ("前天", "day", -2),
    ("昨天|昨日|昨晚", "day", -1),
    ("今天|今日|今晚", "day", 0),
    ("明天", "day", 1),
    ("上(?:个)?周末", "weekend", -1),
    ("这(?:个)?周末|本周末", "weekend", 0),
    ("上(?:个)?(?:周|星期|礼拜)", "week", -1),
    ("(?:这|本)(?:个)?(?:周|星期|礼拜)", "week", 0),
    ("下(?:个)?(?:周|星期|礼拜)", "week", 1),
    ("上(?:个)?月", "month", -1),
    ("(?:这|本)(?:个)?月", "month", 0),
    ("下(?:个)?月", "month", 1),
    ("前年", "year", -2),
    ("去年", "year", -1),
    ("今年", "year", 0),
    ("明年", "year", 1),
]
_RELATIVE = [(_compile(pattern), unit, offset) for pattern, unit, offset in _RELATIVE_WORDS]
_ZH_YEAR_OFFSET = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}


def _month_span(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _shift_month(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _unit_span(today: date, unit: str, offset: int) -> tuple[date, date]:
    """The day, week (Monday to Sunday), weekend, month or year `offset` units from today's."""
    if unit == "day":
        day = today + timedelta(days=offset)
        return day, day
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return monday, monday + timedelta(days=6)
    if unit == "weekend":
        # this weekend: the Saturday of this week; last weekend: the one before
        saturday = today - timedelta(days=today.weekday()) + timedelta(days=5, weeks=offset)
        return saturday, saturday + timedelta(days=1)
    if unit == "month":
        return _month_span(*_shift_month(today, offset))
    year = today.year + offset
    return date(year, 1, 1), date(year, 12, 31)


def _month_number(found: re.Match[str]) -> int:
    groups = found.groupdict()
    if groups.get("month_n"):
        return int(groups["month_n"])
    return _MONTHS[groups["month"].lower().rstrip(".")]


def _absolute(kind: str, found: re.Match[str]) -> tuple[date, date] | None:
    year = int(found["year"])
    if kind == "year":
        return date(year, 1, 1), date(year, 12, 31)
    month = _month_number(found)
    if not 1 <= month <= 12:
        return None
    if kind == "month":
        return _month_span(year, month)
    try:
        day = date(year, month, int(found["day"]))
    except ValueError:
        return None
    return day, day


def _recent_day(found: re.Match[str], today: date) -> tuple[date, date] | None:
    """A day without a year: this year's, or last year's when this year's is still to come."""
    month, number = _month_number(found), int(found["day"])
    for year in (today.year, today.year - 1):
        try:
            day = date(year, month, number)
        except ValueError:
            return None
        if day <= today:
            return day, day
    return None


def _recent_month(which: str, month: int, today: date) -> tuple[date, date]:
    """A month named without a year: `last` is the latest one before this month, `this` and
    `next` this year's and the coming one; otherwise the latest one up to this month."""
    which = which.lower()
    if which == "this":
        return _month_span(today.year, month)
    if which == "next":
        return _month_span(today.year if month > today.month else today.year + 1, month)
    latest = today.year if month < today.month else today.year - 1
    if which != "last" and month == today.month:
        latest = today.year
    return _month_span(latest, month)


def _ago(found: re.Match[str], today: date) -> tuple[date, date]:
    count_text = found["count"].lower()
    count = int(count_text) if count_text.isdigit() else _NUMBER_WORDS[count_text]
    unit = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week"}.get(
        found["unit"], {"月": "month", "年": "year"}.get(found["unit"], found["unit"].lower())
    )
    return _unit_span(today, unit, -count)


_Reader = Callable[[re.Match[str]], tuple[date, date] | None]


class _Finder:
    """Collects spans left to right in the order patterns are tried; a text range is read once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[DateSpan] = []

    def _free(self, where: tuple[int, int]) -> bool:
        return all(where[1] <= s.where[0] or where[0] >= s.where[1] for s in self.spans)

    def add(self, pattern: re.Pattern[str], read: _Reader, *, absolute: bool = False) -> None:
        for found in pattern.finditer(self.text):
            where = found.span()
            if not self._free(where):
                continue
            span = read(found)
            if span is not None:
                self.spans.append(DateSpan(span[0], span[1], where, absolute))


def _absolute_reader(kind: str) -> _Reader:
    return lambda found: _absolute(kind, found)


def _zh_month_in_year(found: re.Match[str], today: date) -> tuple[date, date] | None:
    month = _month_number(found)
    if not 1 <= month <= 12:
        return None
    return _month_span(today.year + _ZH_YEAR_OFFSET[found["which"]], month)


def _relative_reader(today: date, unit: str, offset: int) -> _Reader:
    return lambda _found: _unit_span(today, unit, offset)


def _year_alone(found: re.Match[str]) -> tuple[date, date]:
    year = int(found["year"])
    return date(year, 1, 1), date(year, 12, 31)


def date_spans(text: str, today: date, *, relative: bool = True) -> list[DateSpan]:
    """Every date expression of `text` as a range of days, in text order.

    With `relative=False` only dates that name their year are read (a memory's own text).
    """
    finder = _Finder(text)
    for kind, pattern in _ABSOLUTE:
        finder.add(pattern, _absolute_reader(kind), absolute=True)
    if relative:
        finder.add(_ZH_MONTH_IN_YEAR, lambda found: _zh_month_in_year(found, today))
        for pattern in _RECENT:
            finder.add(pattern, lambda found: _recent_day(found, today))
        finder.add(
            _MONTH_AFTER,
            lambda found: _recent_month(found["which"], _month_number(found), today),
        )
        finder.add(_AGO, lambda found: _ago(found, today))
        finder.add(_ZH_AGO, lambda found: _ago(found, today))
        for pattern, unit, offset in _RELATIVE:
            finder.add(pattern, _relative_reader(today, unit, offset))
    finder.add(_YEAR_ALONE, _year_alone, absolute=True)
    return sorted(finder.spans, key=lambda span: span.where)


def without_spans(text: str, spans: list[DateSpan]) -> str:
    """`text` with the date expressions blanked out (what is left to search by words)."""
    out = text
    for span in sorted(spans, key=lambda s: s.where, reverse=True):
        start, end = span.where
        out = out[:start] + " " + out[end:]
    return out
