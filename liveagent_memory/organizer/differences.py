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
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
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
    SUBJECT = "subject"  # one word of the same sentence swapped: "退款 / 查单 失败最多重试 5 次"
    EXCEPTION = "exception"  # one text is an exception to the other's rule
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
    squeezed: str  # `folded` with only its letters and digits: does a text say this at all?
    entities: frozenset[str]
    strong: frozenset[str]  # the entities that always name something (`_strong_names`)
    described: frozenset[str]  # the entities of the description (the text's first line)
    headline: tuple[str, ...]  # the description's words (as `_words`), for a swapped word
    stems: frozenset[str]  # every Latin word of the text, stemmed
    surface: Mapping[
        str, str
    ]  # a stem -> the word as the text first says it ("reques" -> "requests")
    exception: bool  # says it is an exception to a rule ("except", 例外, 除非, 也可以)
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
# After 别名 ("alias", often a noun: 检查别名是否已经切换) only a Latin name is read as one.
_NAMED = re.compile(
    rf"别名\s*([A-Za-z0-9][\w\-.]*)|(?:名为|名叫|叫做|代号)\s*([A-Za-z0-9][\w\-.]*|[{CJK_CHARS}]+)"
)
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9_\-.+#]*(?: +[A-Za-z][A-Za-z0-9_\-.+#]*)*")
_NUMERIC = re.compile(r"\d+(?:[.:\-/]\d+)*")
_TITLE = re.compile(r"[《「『]([^》」』\n]+)[》」』]")
_NAMESPACED = re.compile(r"[/.:@_]")
_SENTENCE_START = set('.!?;:|\n(（"“*#>-')


def _entities(text: str) -> set[str]:
    found = _strong_names(text)
    found += [m.group(0) for m in _IDENTIFIER.finditer(text) if not _NUMERIC.fullmatch(m[0])]
    found += [m.group(0) for m in _CODE_WORD.finditer(text)]
    found += [next(g for g in m.groups() if g) for m in _QUOTED.finditer(text)]
    found += _capitalised(text) + _latin_names(text)
    return _kept(found)


def _strong_names(text: str) -> list[str]:
    """Names that always name something: URLs, names given after 别名/名为, titles in 《》「」,
    and paths, file names and dotted or namespaced identifiers (`config/app.yaml`,
    `catalog.price.changed`, `golang:1.22`); not hyphenated words (`one-off`) or code."""
    found = [m.group(0).rstrip(".,;:") for m in _URL.finditer(text)]
    found += [
        (m.group(1) or m.group(2))[: config.DIFF_CJK_NAME_MAX_CHARS] for m in _NAMED.finditer(text)
    ]
    found += [m.group(1) for m in _TITLE.finditer(text)]
    found += [
        m.group(0)
        for m in _IDENTIFIER.finditer(text)
        if _NAMESPACED.search(m.group(0)) and not _NUMERIC.fullmatch(m.group(0))
    ]
    return found


def _kept(found: list[str]) -> set[str]:
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
        before = text[: match.start()].rstrip(" \t")  # a line break starts a sentence
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
    *("禁止", "绝不", "从不", "没有", "避免", "别", "勿", "不", "没"),
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


# --- exceptions and swapped words --------------------------------------------------------

# Read in the description and the body's first sentence, where a memory says what it is:
# "exception" later in a body is as often a program's ("the exception text in a header").
_EXCEPTION = re.compile(
    r"\b(?:except(?:ions?)?|unless|exempt|is allowed|are allowed|outside the)\b"
    r"|例外|除了|除非|也可以|也能|(?<!不)允许|豁免"
)
_SENTENCE_END = re.compile(r"[。.!?！？\n]")
# Words a reworded headline drops or swaps without changing the fact ("every" / "all").
_LIGHT_WORDS = frozenset("every always whole entire must should please".split())
_NOT_LETTERS = re.compile(r"[\W_]+")
_LATIN_WORD = re.compile(r"[a-z0-9]+")


def _opening(folded: str) -> str:
    """The description and the first sentence of the body."""
    description, _, body = folded.partition("\n")
    return f"{description}\n{_SENTENCE_END.split(body, maxsplit=1)[0]}"


def _headline(folded: str) -> tuple[str, ...]:
    """The description's words as `_words` reads them, without negations and light words."""
    first_line = folded.split("\n", 1)[0]
    words = _words(_digits(first_line))
    return tuple(w for w in words if w != _NEGATION and w not in _LIGHT_WORDS)


@lru_cache(maxsize=4096)
def features(text: str) -> Features:
    """What the rules read from one memory's text: its description, a line break, its body
    (the first line is read as the description)."""
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
    surface: dict[str, str] = {}
    for word in _LATIN_WORD.findall(folded):
        surface.setdefault(stem(word), word)
    return Features(
        folded=folded,
        squeezed=_NOT_LETTERS.sub("", folded),
        entities=frozenset(_entities(text)),
        strong=frozenset(_kept(_strong_names(text))),
        described=frozenset(_entities(text.split("\n", 1)[0])),
        headline=_headline(folded),
        stems=frozenset(surface),
        surface=surface,
        exception=_EXCEPTION.search(_opening(folded)) is not None,
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
    entity, versions = _entity_difference(a, b)
    environment = _environment_difference(a, b)
    different = [
        difference
        for difference in (
            entity,
            environment,
            # A swapped name or environment is already the rules above.
            None if entity or environment else _subject_difference(a, b),
            _exception_difference(a, b),
        )
        if difference is not None
    ]
    if different:
        return Judgement(Verdict.DIFFERENT, tuple(different))
    contradicting = [
        difference
        for difference in (versions, _number_difference(a, b), _negation_difference(a, b))
        if difference is not None
    ]
    if contradicting:
        return Judgement(Verdict.CONTRADICTION, tuple(contradicting))
    return Judgement(Verdict.DUPLICATE)


def _listed(items: set[str] | frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(items)[: config.DIFF_MAX_LISTED])


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _mentions(folded: str, entity: str) -> bool:
    """`entity` occurs in `folded` as a whole (no letter or digit glued on either side).

    Plain string search: a pattern per entity would be compiled anew for most of the thousands
    of pairs a big scope has (the `re` cache holds 512)."""
    start = folded.find(entity)
    while start != -1:
        end = start + len(entity)
        glued_before = start > 0 and folded[start - 1] in _WORD_CHARS
        glued_after = end < len(folded) and folded[end] in _WORD_CHARS
        if not (glued_before or glued_after):
            return True
        start = folded.find(entity, start + 1)
    return False


_DIGITS = re.compile(r"\d+")
# The version in a name: dotted numbers (`golang:1.22`, `python3.11`) or a number after @, :,
# = or v (`node@20`, `api-v2`); `note-3` / `PC-123` name other things, not other versions.
_VERSION = re.compile(r"\d+(?:\.\d+)+|(?<=[@:=v])\d+")


def _versioned(items: set[str]) -> dict[str, str]:
    """Names with a version, by their shape with the version masked, when one name of `items`
    has that shape (forty `word12`-like tokens are not one thing at forty versions)."""
    shapes: dict[str, list[str]] = {}
    for item in items:
        if _VERSION.search(item):
            shapes.setdefault(_VERSION.sub("#", item), []).append(item)
    return {shape: names[0] for shape, names in shapes.items() if len(names) == 1}


def _entity_difference(a: Features, b: Features) -> tuple[Difference | None, Difference | None]:
    """Names only one text says, on both sides (a substitution, not a detail one side adds),
    one of them in a description; and, apart, one name at two versions (`golang:1.22` /
    `golang:1.23`: a number difference, so a contradiction when nothing else differs)."""
    only_a = {item for item in a.entities if not _mentions(b.folded, item)}
    only_b = {item for item in b.entities if not _mentions(a.folded, item)}
    shapes_a, shapes_b = _versioned(only_a), _versioned(only_b)
    both = sorted(shapes_a.keys() & shapes_b.keys())
    versions = None
    if both:
        first, second = [shapes_a[s] for s in both], [shapes_b[s] for s in both]
        versions = Difference(DifferenceKind.NUMBER, _listed(set(first)), _listed(set(second)))
        only_a, only_b = only_a - set(first), only_b - set(second)
    # Plain names in bodies alone are examples and details ("API, PR" / "middleware,
    # webhook"); what a memory is about is in its description, or named outright on both sides.
    central = (
        (only_a & a.described)
        or (only_b & b.described)
        or (only_a & a.strong and only_b & b.strong)
    )
    if only_a and only_b and central:
        return Difference(DifferenceKind.ENTITY, _listed(only_a), _listed(only_b)), versions
    return None, versions


def _environment_difference(a: Features, b: Features) -> Difference | None:
    only_a, only_b = a.environments - b.environments, b.environments - a.environments
    if only_a and only_b:
        return Difference(DifferenceKind.ENVIRONMENT, _listed(only_a), _listed(only_b))
    return None


def _subject_difference(a: Features, b: Features) -> Difference | None:
    """The same headline with a word swapped for one the other text never says: a template
    about two subjects ("退款失败最多重试 5 次" / "查单失败最多重试 5 次", "Use pnpm / tabs for
    shop-admin", "给阿明 / 小雨写评审意见"), not one fact reworded."""
    matcher = SequenceMatcher(None, a.headline, b.headline, autojunk=False)
    longer = max(len(a.headline), len(b.headline))
    shared = sum(size for _i, _j, size in matcher.get_matching_blocks())
    if not longer or shared / longer < config.DIFF_TEMPLATE_MIN_SHARED:
        return None
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        first, second = a.headline[i1:i2], b.headline[j1:j2]
        if _swapped(first, b) and _swapped(second, a):
            return Difference(DifferenceKind.SUBJECT, (_said(first),), (_said(second),))
    return None


def _swapped(words: tuple[str, ...], other: Features) -> bool:
    """A content word (no digits: numbers are the number rule's) the other text does not say
    anywhere."""
    cjk = sum(1 for word in words if is_cjk(word))
    latin = [word for word in words if not is_cjk(word) and not _DIGITS.search(word)]
    if cjk < config.DIFF_SWAPPED_MIN_CJK_CHARS and not latin:
        return False
    if len(words) == 1 and latin:  # one word, as a word: "cargo test" does not say `go`
        return latin[0] not in other.stems
    # Several: run together, so "time zone" / "timezone" and CJK runs are found as said.
    return _NOT_LETTERS.sub("", "".join(words)) not in other.squeezed


def _said(words: tuple[str, ...]) -> str:
    return "".join(w if is_cjk(w) else f" {w} " for w in words).strip().replace("  ", " ")


def _exception_difference(a: Features, b: Features) -> Difference | None:
    """One text an exception to the other's rule ("no raw SQL" / "raw SQL is allowed in
    reports"): two facts, both to keep."""
    if a.exception == b.exception:
        return None
    return Difference(
        DifferenceKind.EXCEPTION,
        ("exception",) if a.exception else (),
        ("exception",) if b.exception else (),
    )


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
            said_a, said_b = a.surface.get(word, word), b.surface.get(word, word)
            first.update(_with_context(value, said_a, context) for value in values_a - values_b)
            second.update(_with_context(value, said_b, context) for value in values_b - values_a)
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
