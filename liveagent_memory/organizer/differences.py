"""What materially differs between two similar memories: the organizer's decisions by difference.

Issue 15. Two memories that read alike are duplicates only when nothing material differs:

- a different entity (identifier, path, URL, code-ish token, quoted string, capitalised name, a
  Latin name amid Chinese, a CJK name in 《》「」 or after 别名/名为) or a different environment
  (production, staging, dev, test; 生产, 预发, 测试环境) means different facts: `DIFFERENT`;
- the same subject with a different number (with its unit or the word before it: "10 次" /
  "5 次", versions, times) or a rule and its negation means a `CONTRADICTION`;
- otherwise `DUPLICATE`.

Something one memory names and the other does not mention at all is only material when the
other also names something of its own (a substitution: `brands` / `products`); one side adding
a detail is an elaboration. Negation is judged by meaning, not by its word: 不要 = 别 = 勿 = 禁止 =
don't = never, so two texts forbidding the same thing in different words are duplicates, and a
contradiction needs one text to negate what the other says plainly. A different entity outranks
a contradiction: "pool size 40 in production" / "10 in staging" are two facts, not a conflict.
Plain Python, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.text import CJK_CHARS, is_cjk
from liveagent_memory.organizer.words import fold, stem
from liveagent_memory.store.text import STOP_WORDS


class Verdict(StrEnum):
    """What a pair of similar memories is."""

    DUPLICATE = "duplicate"  # nothing material differs: may be merged
    DIFFERENT = "different"  # another entity or environment: different facts, never merged
    CONTRADICTION = "contradiction"  # the same subject, another number or a negated rule


class DifferenceKind(StrEnum):
    ENTITY = "entity"
    ENVIRONMENT = "environment"
    NUMBER = "number"
    NEGATION = "negation"


@dataclass(frozen=True)
class Difference:
    """One material difference: what only the first text says, and what only the second."""

    kind: DifferenceKind
    first: tuple[str, ...]
    second: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "first": list(self.first), "second": list(self.second)}

    def describe(self) -> str:
        return f"{self.kind} {', '.join(self.first)} / {', '.join(self.second)}"


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    differences: tuple[Difference, ...] = ()

    def describe(self) -> str:
        """The differences in one line ("" for a duplicate)."""
        return "; ".join(difference.describe() for difference in self.differences)


@dataclass(frozen=True)
class Features:
    """What the rules read from one text."""

    folded: str
    entities: frozenset[str]
    environments: frozenset[str]
    numbers: frozenset[tuple[str, str]]  # (context: "<word" before or ">unit" after, value)
    negated: frozenset[tuple[str, ...]]  # subjects under a negation
    plain: frozenset[tuple[str, ...]]  # word pairs that no negation reaches


# --- entities ------------------------------------------------------------------------------

_URL = re.compile(r"https?://[^\s<>()\[\]\"'，。、；）]+")
_IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9]+(?:[_\-./:@+=][A-Za-z0-9]+)+")
_CODE_WORD = re.compile(r"\b(?:[a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z]+\d[A-Za-z0-9]*)\b")
_QUOTED = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|“([^”\n]+)”|[《「『]([^》」』\n]+)[》」』]")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9]*\b")
_NAMED = re.compile(rf"(?:别名|名为|名叫|叫做|代号)\s*([A-Za-z0-9][\w\-.]*|[{CJK_CHARS}]+)")
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9_\-.+#]*(?: +[A-Za-z][A-Za-z0-9_\-.+#]*)*")
_NUMERIC = re.compile(r"\d+(?:[.:\-/]\d+)*")
_SENTENCE_START = set('.!?;:|\n(（"“*#>-')


def _entities(text: str) -> set[str]:
    found = [m.group(0).rstrip(".,;:") for m in _URL.finditer(text)]
    found += [m.group(0) for m in _IDENTIFIER.finditer(text) if not _NUMERIC.fullmatch(m[0])]
    found += [m.group(0) for m in _CODE_WORD.finditer(text)]
    found += [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    found += [m.group(1)[: config.DIFF_CJK_NAME_MAX_CHARS] for m in _NAMED.finditer(text)]
    found += _capitalised(text) + _latin_names(text)
    out = {" ".join(fold(item).split()) for item in found}
    return {
        item
        for item in out
        if item
        and len(item) <= config.DIFF_QUOTED_MAX_CHARS
        and item not in STOP_WORDS
        and item not in _NEGATION_WORDS
        and not _NUMERIC.fullmatch(item)
    }


def _capitalised(text: str) -> list[str]:
    """Capitalised words that do not start a sentence (names: Postgres, Ming, VITE)."""
    out = []
    for match in _CAPITALISED.finditer(text):
        before = text[: match.start()].rstrip()
        if before and before[-1] not in _SENTENCE_START:
            out.append(match.group(0))
    return out


def _latin_names(text: str) -> list[str]:
    """Latin words amid Chinese (`用 pnpm 安装`, `别名 brands 访问`): short runs next to CJK."""
    out: list[str] = []
    for match in _LATIN_RUN.finditer(text):
        words = match.group(0).split()
        if len(words) > config.DIFF_LATIN_NAME_MAX_WORDS:
            continue  # an English phrase inside Chinese, not a name
        before = text[: match.start()].rstrip()[-1:]
        after = text[match.end() :].lstrip()[:1]
        if (before and is_cjk(before)) or (after and is_cjk(after)):
            out.extend(word.rstrip(".-") for word in words)
    return out


# --- environments --------------------------------------------------------------------------

_ENVIRONMENTS = (  # staging first: "pre-prod" is staging, not production
    ("staging", re.compile(r"\b(?:staging|pre-?prod|uat)\b|预发")),
    ("production", re.compile(r"\b(?:production|prod)\b|生产|线上|正式环境")),
    ("test", re.compile(r"\btest(?:ing)? (?:env(?:ironment)?|server|cluster)\b|测试环境|测试服")),
    ("dev", re.compile(r"\b(?:development|dev) (?:env(?:ironment)?|server|cluster)\b|开发环境")),
)


def _environments(folded: str) -> set[str]:
    out = set()
    for name, pattern in _ENVIRONMENTS:
        if pattern.search(folded):
            out.add(name)
            folded = pattern.sub(" ", folded)
    return out


# --- clauses, words, numbers and negation ---------------------------------------------------

_CLAUSE_END = re.compile(r"[;!?。，、；！？\n|()（）,]|[.:](?=\s|$|[" + CJK_CHARS + "])")
_NEGATION = "\0"  # a negation's place among the words of a clause
_UNIT = re.compile(rf"[a-z0-9][a-z0-9_'\-./:+#]*[a-z0-9%]|[a-z0-9%]|[{CJK_CHARS}]|{_NEGATION}")
_WITH_UNIT = re.compile(r"(\d+(?:[.:\-/]\d+)*)([a-z%]+)")
_NEGATION_WORDS = frozenset(
    "not never no don't dont doesn't didn't mustn't shouldn't can't cannot won't avoid nor".split()
)
# Longest first. 不 alone negates too, but not inside the words of the second list.
_CJK_NEGATIONS: tuple[str, ...] = (
    *("千万别", "不要", "不许", "不准", "不能", "不得", "不可", "不用", "不必", "无需"),
    *("禁止", "绝不", "从不", "没有", "别", "勿", "不", "没"),
)
_NOT_NEGATIONS = frozenset(
    "不同 不过 不仅 不错 不断 不少 不管 不久 不如 不但 不然 不论 不够 别人 别的 别名 特别 区别 "
    "分别 级别 类别 识别 派别 性别 没关系".split()
)
# The words that only look negated first: at each place the first alternative that matches wins.
_CJK_NEGATION = re.compile(
    "(" + "|".join(sorted(_NOT_NEGATIONS, key=len, reverse=True)) + ")|" + "|".join(_CJK_NEGATIONS)
)
_CJK_FILLERS = frozenset("的了地得着")
_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
    if value >= 2  # "one" is as often a pronoun as a number
}
_CJK_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_CJK_NUMBER = re.compile(
    r"(?<=第)[一二两三四五六七八九十]{1,3}|[一二两三四五六七八九十]{1,3}(?=[次个周天月年号点秒位条台种遍倍岁])"
)


_ENGLISH_NEGATION = re.compile(
    r"\b(?:"
    + "|".join(re.escape(word) for word in sorted(_NEGATION_WORDS, key=len, reverse=True))
    + r")\b"
)


def same_negations(folded: str) -> str:
    """`folded` with every negation said one way (不要, 别, 禁止 -> 不; never, don't -> not), so
    word overlap does not set apart two texts that forbid the same thing in other words."""
    folded = folded.replace("\u2019", "'")  # don’t = don't
    cjk = _CJK_NEGATION.sub(lambda m: m.group(0) if m.group(1) else "不", folded)
    return _ENGLISH_NEGATION.sub("not", cjk)


def _cjk_number(text: str) -> str:
    """一 … 九十九 as digits (十五 -> 15, 二十 -> 20)."""
    if "十" not in text:
        return "".join(str(_CJK_DIGITS.get(c, 0)) for c in text)
    tens, _, ones = text.partition("十")
    return str(10 * (_CJK_DIGITS.get(tens, 1) if tens else 1) + _CJK_DIGITS.get(ones[:1], 0))


def _digits(folded: str) -> str:
    """Number words as digits, so "three times" / "3 times" and "第二周" / "第 2 周" compare."""
    folded = re.sub(
        r"\b(" + "|".join(_NUMBER_WORDS) + r")\b(?!-)",
        lambda m: _NUMBER_WORDS[m.group(1)],
        folded,
    )
    return _CJK_NUMBER.sub(lambda m: f" {_cjk_number(m.group(0))} ", folded)


def _words(clause: str) -> list[str]:
    """A clause's words in order: stemmed Latin words, CJK characters, negations as `_NEGATION`."""
    out: list[str] = []
    for match in _UNIT.finditer(_CJK_NEGATION.sub(_mark_negation, clause)):
        unit = match.group(0)
        if unit == _NEGATION or unit in _NEGATION_WORDS:
            out.append(_NEGATION)
        elif is_cjk(unit):
            if unit not in _CJK_FILLERS:
                out.append(unit)
        elif unit not in STOP_WORDS:
            out.append(stem(unit.removesuffix("'s")))
    return out


def _mark_negation(match: re.Match[str]) -> str:
    """A CJK negation as `_NEGATION`; a word that only contains one (不同, 区别) as it is."""
    return match.group(0) if match.group(1) else f" {_NEGATION} "


def _negation(words: list[str]) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """The subjects a clause negates, and its word pairs that no negation reaches."""
    negated: set[tuple[str, ...]] = set()
    plain: set[tuple[str, ...]] = set()
    scope, reach = config.DIFF_NEGATION_SCOPE_UNITS, config.DIFF_NEGATION_REACH_UNITS
    since: int | None = None  # words since the last negation
    content = [w for w in words if w != _NEGATION]
    reached: list[bool] = []
    for word in words:
        if word == _NEGATION:
            since = 0
            continue
        reached.append(since is not None and since < reach)
        since = None if since is None else since + 1
    for index, word in enumerate(words):
        if word != _NEGATION:
            continue
        subject = tuple(w for w in words[index + 1 :] if w != _NEGATION)[:scope]
        if len(subject) == scope:  # one word alone ("not npm") says too little
            negated.add(subject)
    for index in range(len(content) - 1):
        if not reached[index]:
            plain.add((content[index], content[index + 1]))
    return negated, plain


def _numbers(words: list[str]) -> set[tuple[str, str]]:
    """Each number with its context: the word before it and the unit after it."""
    content = [w for w in words if w != _NEGATION]
    out: set[tuple[str, str]] = set()
    for index, word in enumerate(content):
        attached = _WITH_UNIT.fullmatch(word)
        value, unit = (attached[1], attached[2]) if attached else (word, None)
        if not _NUMERIC.fullmatch(value):
            continue
        before = content[index - 1] if index else None
        after = content[index + 1] if unit is None and index + 1 < len(content) else unit
        if before and not _NUMERIC.fullmatch(before):
            out.add((f"<{before}", value))
        if after and not _NUMERIC.fullmatch(after):
            out.add((f">{after}", value))
    return out


@lru_cache(maxsize=4096)
def features(text: str) -> Features:
    """What the rules read from one memory's text (description and body)."""
    folded = fold(text).replace("\u2019", "'")  # don’t = don't
    negated: set[tuple[str, ...]] = set()
    plain: set[tuple[str, ...]] = set()
    numbers: set[tuple[str, str]] = set()
    for clause in _CLAUSE_END.split(_digits(folded)):
        words = _words(clause)
        clause_negated, clause_plain = _negation(words)
        negated |= clause_negated
        plain |= clause_plain
        numbers |= _numbers(words)
    environments = _environments(folded)
    return Features(
        folded=folded,
        entities=frozenset(_entities(text)),
        environments=frozenset(environments),
        numbers=frozenset(numbers),
        negated=frozenset(negated),
        plain=frozenset(plain),
    )


# --- the verdict ---------------------------------------------------------------------------


def judge(first: str, second: str) -> Judgement:
    """What differs between two memory texts (each its description and body)."""
    return judge_features(features(first), features(second))


def judge_features(a: Features, b: Features) -> Judgement:
    """The verdict on two texts' features: different, else contradiction, else duplicate."""
    different = [
        difference
        for difference in (_entity_difference(a, b), _environment_difference(a, b))
        if difference is not None
    ]
    if different:
        return Judgement(Verdict.DIFFERENT, tuple(different))
    contradicting = [
        difference
        for difference in (_number_difference(a, b), _negation_difference(a, b))
        if difference is not None
    ]
    if contradicting:
        return Judgement(Verdict.CONTRADICTION, tuple(contradicting))
    return Judgement(Verdict.DUPLICATE)


def _listed(items: set[str] | frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(items)[: config.DIFF_MAX_LISTED])


def _mentions(folded: str, entity: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(entity)}(?![a-z0-9])", folded) is not None


def _entity_difference(a: Features, b: Features) -> Difference | None:
    only_a = {item for item in a.entities if not _mentions(b.folded, item)}
    only_b = {item for item in b.entities if not _mentions(a.folded, item)}
    if only_a and only_b:  # a substitution, not a detail one side adds
        return Difference(DifferenceKind.ENTITY, _listed(only_a), _listed(only_b))
    return None


def _environment_difference(a: Features, b: Features) -> Difference | None:
    only_a, only_b = a.environments - b.environments, b.environments - a.environments
    if only_a and only_b:
        return Difference(DifferenceKind.ENVIRONMENT, _listed(only_a), _listed(only_b))
    return None


def _number_difference(a: Features, b: Features) -> Difference | None:
    """Numbers in the same context (the same word before, or unit after) that disagree."""
    first: set[str] = set()
    second: set[str] = set()
    contexts = {context for context, _value in a.numbers} & {c for c, _v in b.numbers}
    for context in contexts:
        values_a = {value for c, value in a.numbers if c == context}
        values_b = {value for c, value in b.numbers if c == context}
        if values_a - values_b and values_b - values_a:
            word = context[1:]
            first.update(_with_context(value, word, context) for value in values_a - values_b)
            second.update(_with_context(value, word, context) for value in values_b - values_a)
    if first and second:
        return Difference(DifferenceKind.NUMBER, _listed(first), _listed(second))
    return None


def _with_context(value: str, word: str, context: str) -> str:
    return f"{word} {value}" if context.startswith("<") else f"{value} {word}"


def _negation_difference(a: Features, b: Features) -> Difference | None:
    """A subject one text negates and the other states plainly (and does not negate)."""
    only_a = {" ".join(s) for s in a.negated if s in b.plain and s not in b.negated}
    only_b = {" ".join(s) for s in b.negated if s in a.plain and s not in a.negated}
    if only_a or only_b:
        return Difference(DifferenceKind.NEGATION, _listed(only_a), _listed(only_b))
    return None
