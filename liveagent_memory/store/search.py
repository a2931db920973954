"""Keyword search: FTS5 query building and ranking (SPEC 1.6, REFERENCE A5).

One MATCH query on `memory_search` finds the candidates: Latin-script words through unicode61
with the Porter stemmer (stop words dropped), Chinese through character bigrams (store/text.py),
and the filter's scope and type as tokens of the `keys` column, so FTS5 itself restricts the
search to global + the current project instead of filtering afterwards; the filter's review
part (reviewed, confidence, risk flag) is a join on memory_meta in the same query, so the
candidate limit applies to memories that pass the whole filter (store/filters.py). BM25
candidates are then re-weighted the reference's way (scope/type weight, daily decay) plus a
small boost for reviewed memories, and a global hit is shadowed by a project hit with the same
slug.
A second MATCH query searches the query's words in the other language (store/bilingual.py:
Chinese words for its English, English words for its Chinese); its hits join the list scaled
below the best hit of the words as typed (`_with_translations`), so an English question finds a
Chinese memory and the reverse without an exact match ever being outranked by a translation.
When that finds fewer hits than asked for, words of 3+ characters are also looked up as
substrings in the trigram table (REFERENCE A5 step 6, without scanning files).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.dates import DateSpan, date_spans, without_spans
from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.domain.journal import journal_age_days, journal_decay
from liveagent_memory.domain.schema import MemoryType, Scope, SearchHit, SearchResult
from liveagent_memory.store.bilingual import translate
from liveagent_memory.store.db import json_object
from liveagent_memory.store.evidence import body_content
from liveagent_memory.store.filters import filter_match, review_sql, scope_sql, type_sql
from liveagent_memory.store.lemmas import lemma, lemma_forms, narrower
from liveagent_memory.store.search_dates import date_clause, dated_ids, in_ranges, memory_days
from liveagent_memory.store.text import (
    STOP_WORDS,
    fts_quote,
    query_cjk_runs,
    query_words,
    run_bigrams,
    snippet,
)

# BM25 column weights of memory_search:
#   keys, type, slug, description, headline, body, dcjk (description+headline), bcjk (body)
COLUMN_WEIGHTS = (0.0, 0.5, 2.0, 3.0, 2.0, 1.0, 3.0, 1.0)
LATIN_COLUMNS = "{type slug description headline body}"
COVERAGE_STEM_CHARS = 5  # prefix length standing in for a stem when checking coverage
CJK_COLUMNS = "{dcjk bcjk}"
# memory_search row -> its memory_meta row (the FTS rowid is the memory_files id).
_META_JOIN = (
    "JOIN memory_files f ON f.id = memory_search.rowid JOIN memory_meta m ON m.scope = f.scope "
    "AND m.workdir_hash = f.workdir_hash AND m.slug = f.slug"
)

# REFERENCE A5 step 1: identity and preference questions also search for these words.
IDENTITY_TRIGGERS = ("我是谁", "我的名字", "我叫什么", "who am i", "my name")
IDENTITY_TERMS = ("我叫", "我的名字是", "我是", "身份", "name", "identity", "profile", "user")
PREFERENCE_TRIGGERS = ("偏好", "习惯", "preference")
PREFERENCE_TERMS = ("偏好", "习惯", "prefer", "feedback")


@dataclass(frozen=True)
class SearchQuery:
    text: str
    filter: MemoryFilter  # the list's filter (domain/filters.py)
    limit: int
    explain: bool


@dataclass(frozen=True)
class QueryTerms:
    words: list[str]  # Latin-script words to match (stemmed by FTS5)
    cjk_runs: list[str]  # runs of CJK characters
    expanded: list[str]  # synonym terms added (REFERENCE A5)
    skipped: frozenset[str] = frozenset()  # words/bigrams too common to be worth matching
    # word -> the other forms of its irregular group (store/lemmas.py), for the raw text
    forms: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def display(self) -> list[str]:
        return [*self.words, *self.cjk_runs]

    @property
    def empty(self) -> bool:
        return not self.words and not self.cjk_runs


def query_terms(text: str) -> QueryTerms:
    """Split a query into searchable terms, with the reference's synonym expansion."""
    lower = text.lower()
    extra: list[str] = []
    if any(trigger in lower for trigger in IDENTITY_TRIGGERS):
        extra.extend(IDENTITY_TERMS)
    if any(trigger in lower for trigger in PREFERENCE_TRIGGERS):
        extra.extend(PREFERENCE_TERMS)
    words = query_words(text)
    content_words = [w for w in words if w not in STOP_WORDS]
    runs = query_cjk_runs(text)
    extra_words = [w for term in extra for w in query_words(term)]
    extra_runs = [r for term in extra for r in query_cjk_runs(term)]
    if not content_words and not runs and not extra:
        content_words = words  # a query of only stop words still searches for them
    merged_words = list(dict.fromkeys([*content_words, *extra_words]))
    merged_runs = list(dict.fromkeys([*runs, *extra_runs]))
    return QueryTerms(
        merged_words, merged_runs, list(dict.fromkeys(extra)), forms=_forms(merged_words)
    )


def _forms(words: list[str]) -> dict[str, tuple[str, ...]]:
    return {word: found for word in words if (found := lemma_forms(word) + narrower(word))}


@dataclass(frozen=True)
class Bridge:
    """A query's words in the other language (store/bilingual.py): terms searched on their own
    (English words from its Chinese, Chinese words as bigrams from its English), and one
    coverage unit per word translated, holding the word and its translations."""

    terms: QueryTerms
    units: list[tuple[str, ...]]


def _unit_form(word: str) -> str:
    return word[:COVERAGE_STEM_CHARS] if word.isascii() else word


def bridge_terms(terms: QueryTerms) -> Bridge:
    """The query's words in the other language, to search as a second query."""
    found = translate(terms.words, terms.cjk_runs)
    units = [
        tuple(dict.fromkeys(_unit_form(w) for w in (source, *words)))
        for source, words in found.groups
    ]
    return Bridge(QueryTerms(found.english, found.chinese, [], forms=_forms(found.english)), units)


def match_expression(terms: QueryTerms) -> str:
    """The FTS5 MATCH text for the terms (every term quoted: user text is never syntax)."""
    parts: list[str] = []
    words = [w for w in terms.words if w not in terms.skipped]
    words = list(dict.fromkeys(f for w in words for f in (lemma(w), *narrower(w))))
    if words:
        parts.append(f"{LATIN_COLUMNS} : (" + " OR ".join(fts_quote(w) for w in words) + ")")
    cjk: list[str] = []
    for run in terms.cjk_runs:
        if len(run) == 1:
            cjk.append(fts_quote(run) + " *")  # the character at the start of a bigram
        else:
            cjk.extend(fts_quote(b) for b in run_bigrams(run) if b not in terms.skipped)
    if cjk:
        parts.append(f"{CJK_COLUMNS} : (" + " OR ".join(dict.fromkeys(cjk)) + ")")
    return " OR ".join(f"({part})" for part in parts)


def skip_common_terms(conn: sa.Connection, terms: QueryTerms) -> QueryTerms:
    """Leave out terms so common that matching them costs much and ranks little.

    An OR query visits every document holding any of its terms; on a large store a word or
    bigram found in a large share of memories ("we", "但是") makes the query slow while its
    BM25 weight is near zero. Such terms are skipped once the query's postings exceed a
    budget, most common first; the rarest term is always kept. Small stores never skip.
    """
    total = conn.exec_driver_sql("SELECT IFNULL(MAX(id), 0) FROM memory_files").scalar() or 0
    if total < config.SEARCH_COMMON_TERM_MIN_DOCS:
        return terms
    tokens = list(
        dict.fromkeys(
            [*terms.words, *(b for r in terms.cjk_runs if len(r) > 1 for b in run_bigrams(r))]
        )
    )
    if len(tokens) < 2:
        return terms
    marks = ", ".join("?" for _ in tokens)
    rows = conn.exec_driver_sql(
        f"SELECT term, doc FROM temp.memory_search_vocab WHERE term IN ({marks})",
        tuple(tokens),
    ).all()
    docs = {str(term): int(doc) for term, doc in rows}
    postings = sum(docs.values())
    skipped: set[str] = set()
    for token in sorted(docs, key=lambda t: -docs[t])[:-1]:
        if postings <= config.SEARCH_POSTINGS_BUDGET:
            break
        if docs[token] < config.SEARCH_COMMON_TERM_FRACTION * total:
            break
        skipped.add(token)
        postings -= docs[token]
    if not skipped:
        return terms
    return QueryTerms(
        terms.words, terms.cjk_runs, terms.expanded, frozenset(skipped), forms=terms.forms
    )


def priority_weight(scope: str, memory_type: str) -> tuple[float, str]:
    """REFERENCE A5 step 4: (weight, why).

    A skill (SPEC 1.2, not in the reference) is weighted like the project and reference
    knowledge it sits beside: 1.4 in a project, 1.0 global. It is know-how, not a statement
    about the user, so it gets neither the user nor the feedback lift; task-aware retrieval
    (domain/task_types.py) weighs skills by the kind of task instead.
    """
    if memory_type == MemoryType.DAILY:
        return config.SEARCH_WEIGHT_DAILY, "daily journal"
    if scope == Scope.PROJECT:
        return config.SEARCH_WEIGHT_PROJECT, "project memory"
    if memory_type == MemoryType.USER:
        return config.SEARCH_WEIGHT_USER, "global user memory"
    if memory_type == MemoryType.FEEDBACK:
        return config.SEARCH_WEIGHT_FEEDBACK, "global feedback memory"
    if memory_type == MemoryType.SKILL:
        return config.SEARCH_WEIGHT_REFERENCE, "global skill"
    return config.SEARCH_WEIGHT_REFERENCE, "global memory"


@dataclass
class _Candidate:
    file_id: int
    bm25: float | None
    via: str  # fts | substring | date (a query that is only a date)
    matched_substring: str | None = None
    position: int = 0  # a date-only candidate's place, newest first


def _fts_candidates(
    conn: sa.Connection,
    query: SearchQuery,
    terms: QueryTerms,
    dated: tuple[str, dict[str, Any]] | None = None,
    count: int = config.SEARCH_CANDIDATES_PER_QUERY,
) -> list[_Candidate]:
    """The best `count` (at least twice the limit) BM25 candidates the filter keeps; with
    `dated` (search_dates.py's clause on memory_meta), only those dated in the query's ranges."""
    match = match_expression(terms)
    if not match:
        return []
    restriction = filter_match(query.filter)
    if restriction is None:
        expression = match
    elif restriction.startswith("NOT "):
        expression = f"({match}) {restriction}"
    else:
        expression = f"({match}) AND {restriction}"
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    reviews, params = review_sql(query.filter)
    if dated is not None:
        reviews, params = [*reviews, dated[0]], {**params, **dated[1]}
    # The review part joins memory_meta after the MATCH (FTS5 drives the query), so the limit
    # counts only memories that pass it; without it the query stays on memory_search alone.
    join = f"{_META_JOIN} AND {' AND '.join(reviews)} " if reviews else ""
    rows = conn.execute(
        sa.text(
            f"SELECT memory_search.rowid, bm25(memory_search, {weights}) AS rank "
            "FROM memory_search "
            f"{join}WHERE memory_search MATCH :q ORDER BY rank LIMIT :n"
        ),
        {**params, "q": expression, "n": max(count, query.limit * 2)},
    ).all()
    return [_Candidate(int(row[0]), float(row[1]), "fts") for row in rows]


def _substring_where(query: SearchQuery) -> tuple[str, str, dict[str, Any]]:
    """(join, conditions, params) restricting trigram hits to the filter (on memory_files
    `f`, and memory_meta `m` when the type or the review part asks).

    Used as a join after the MATCH, so the text match drives the query; an `IN (subquery)`
    filter made SQLite re-run the match per row (0.2 s at 1k memories).
    """
    flt = query.filter
    clause, params = scope_sql(flt.visibility, "f.")
    where = [clause] if clause else []
    types, type_params = type_sql(flt)
    reviews, review_params = review_sql(flt)
    join = ""
    if types or reviews:
        join = (
            " JOIN memory_meta m ON m.scope = f.scope AND m.workdir_hash = f.workdir_hash "
            "AND m.slug = f.slug"
        )
        where.extend([*types, *reviews])
    return join, " AND ".join(where), {**params, **type_params, **review_params}


def _substring_candidates(
    conn: sa.Connection, query: SearchQuery, terms: QueryTerms, exclude: set[int]
) -> list[_Candidate]:
    words = [w for w in terms.words if len(w) >= config.SEARCH_SUBSTRING_MIN_CHARS]
    if not words:
        return []
    join, clause, params = _substring_where(query)
    where = "memory_fts_tri MATCH :q" + (f" AND {clause}" if clause else "")
    found: list[_Candidate] = []
    seen = set(exclude)
    for word in words:
        rows = conn.execute(
            sa.text(
                "SELECT t.rowid FROM memory_fts_tri t JOIN memory_files f ON f.id = t.rowid"
                f"{join} WHERE {where} LIMIT :n"
            ),
            {**params, "q": fts_quote(word), "n": config.SEARCH_MAX_LIMIT},
        ).all()
        for row in rows:
            file_id = int(row[0])
            if file_id not in seen:
                seen.add(file_id)
                found.append(_Candidate(file_id, None, "substring", word))
    return found


def _load_rows(conn: sa.Connection, ids: list[int]) -> dict[int, sa.Row[Any]]:
    if not ids:
        return {}
    rows = conn.execute(
        sa.text(
            "SELECT f.id, m.scope, m.workdir_hash, m.slug, m.type, m.description, m.headline, "
            "m.date_local, m.source_json, m.created_at, m.updated_at "
            "FROM memory_files f JOIN memory_meta m ON m.scope = f.scope "
            "AND m.workdir_hash = f.workdir_hash AND m.slug = f.slug "
            "WHERE f.id IN (" + ", ".join(str(i) for i in ids) + ")"
        )
    ).all()
    return {int(row[0]): row for row in rows}


def _bodies(conn: sa.Connection, ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = conn.execute(
        sa.text(
            "SELECT rowid, body FROM memory_fts WHERE rowid IN ("
            + ", ".join(str(i) for i in ids)
            + ")"
        )
    ).all()
    return {int(row[0]): body_content(str(row[1])) for row in rows}


def _candidates(
    conn: sa.Connection,
    query: SearchQuery,
    terms: QueryTerms,
    spans: list[DateSpan],
    count: int = config.SEARCH_CANDIDATES_PER_QUERY,
) -> list[_Candidate]:
    """BM25 candidates, plus (when the query names dates) the best ones dated in them."""
    candidates = _fts_candidates(conn, query, terms, count=count)
    if spans:
        seen = {c.file_id for c in candidates}
        dated = _fts_candidates(conn, query, terms, date_clause(spans), count)
        candidates += [c for c in dated if c.file_id not in seen]
    return candidates


def _dated_hits(
    conn: sa.Connection, ctx: _Context, exclude: set[int]
) -> list[tuple[int, SearchHit]]:
    """The memories of the query's days that its words did not find, newest first, after every
    word hit: "what happened last week?" lists last week's memories."""
    ids = dated_ids(conn, ctx.query.filter, ctx.spans, ctx.query.limit + len(exclude))
    extra = [
        _Candidate(file_id, None, "date", position=n)
        for n, file_id in enumerate(i for i in ids if i not in exclude)
    ]
    ctx.bodies.update(_bodies(conn, [c.file_id for c in extra]))
    return _rank(conn, ctx, extra)


def _with_translations(
    conn: sa.Connection, ctx: _Context, hits: list[tuple[int, SearchHit]], bridge: Bridge
) -> tuple[list[tuple[int, SearchHit]], set[int]]:
    """`hits` joined by the memories the query's translated words find (store/bilingual.py).

    The translated words are searched and ranked like a query of their own, with coverage
    counted per word translated (found in either language). Each hit then scores
    `SEARCH_CROSSLANG_WEIGHT` x that coverage x (1 + its score / the best translated score) / 2
    of the best hit of the query's own words: a memory holding the question in the other
    language comes close to the top, one sharing a translated word or two stays low, and a
    memory that matches the words as typed stays first. A memory found both ways keeps its
    higher score. Also returns the memories that rank by their translated score.
    """
    found = _candidates(
        conn, ctx.query, bridge.terms, ctx.spans, config.SEARCH_CROSSLANG_CANDIDATES
    )
    if not found:
        return hits, set()
    for candidate in found:
        candidate.via = "translation"
    bodies = ctx.bodies
    bodies.update(_bodies(conn, [c.file_id for c in found if c.file_id not in bodies]))
    translated = _rank(conn, _Context(ctx.query, ctx.today, bodies, bridge.units, ctx.spans), found)
    top = max(hit.score for _, hit in translated)
    anchor = max((hit.score for _, hit in hits), default=top)
    merged = dict(hits)
    won: set[int] = set()
    for file_id, hit in translated:
        text = " ".join((hit.slug, hit.description, hit.headline, bodies.get(file_id, "")))
        share = coverage(bridge.units, text.lower())
        relative = hit.score / top if top > 0 else 0.0
        hit.score = config.SEARCH_CROSSLANG_WEIGHT * anchor * share * (1 + relative) / 2
        if hit.explain is not None:
            hit.explain["crosslang_coverage"] = round(share, 6)
            hit.explain["score"] = round(hit.score, 6)
            hit.explain["formula"] = (
                "score = crosslang_weight x best own-word score x crosslang_coverage x "
                "(1 + translated score / best translated score) / 2"
            )
        if file_id not in merged or merged[file_id].score < hit.score:
            merged[file_id] = hit
            won.add(file_id)
    ranked = list(merged.items())
    ranked.sort(key=lambda item: (-item[1].score, -item[1].raw_score, _desc(item[1].slug)))
    return ranked, won


def search(conn: sa.Connection, query: SearchQuery, *, today: date) -> SearchResult:
    """Run a search inside a read transaction.

    Date expressions in the query (domain/dates.py) lift the memories dated in them, and the
    memories of those days the words did not find come after every word hit (a query that is
    only a date lists them).
    """
    spans = date_spans(query.text, today)
    terms = query_terms(without_spans(query.text, spans))
    if not terms.empty:
        # A date that names its year is searched by the memories' dates, not as words ("1",
        # "May", "2023" would match unrelated memories); "last weekend" or "yesterday" is also
        # how people write, so those words are still searched too.
        terms = query_terms(without_spans(query.text, [s for s in spans if s.absolute]))
    said = [query.text[s.where[0] : s.where[1]] for s in spans]
    if terms.empty and not spans:
        return SearchResult(matches=[], used_fallback=False, terms=[])
    candidates: list[_Candidate] = []
    bridge = Bridge(QueryTerms([], [], []), [])
    by_translation: set[int] = set()
    if not terms.empty:
        bridge = bridge_terms(terms)
        bridge = Bridge(skip_common_terms(conn, bridge.terms), bridge.units)
        terms = skip_common_terms(conn, terms)
        candidates = _candidates(conn, query, terms, spans)
    ctx = _Context(
        query, today, _bodies(conn, [c.file_id for c in candidates]), coverage_units(terms), spans
    )
    hits = _rank(conn, ctx, candidates)
    if not bridge.terms.empty:
        hits, by_translation = _with_translations(conn, ctx, hits, bridge)
    used_fallback = False
    if len(hits) < query.limit and not terms.empty:
        exclude = {c.file_id for c in candidates} | {file_id for file_id, _ in hits}
        extra = _substring_candidates(conn, query, terms, exclude)
        if extra:
            used_fallback = True
            ctx.bodies.update(_bodies(conn, [c.file_id for c in extra]))
            hits += _rank(conn, ctx, extra)
    if len(hits) < query.limit and spans:
        hits += _dated_hits(conn, ctx, {file_id for file_id, _ in hits})
    hits = _shadow(hits)[: query.limit]
    snippet_terms = [
        *terms.words,
        *(form for word in terms.words for form in terms.forms.get(word, ())),
        *terms.cjk_runs,
        *[b for r in terms.cjk_runs for b in run_bigrams(r)],
    ]
    # a memory ranked by its translation shows where a translated word matched
    translated_terms = [*bridge.terms.words, *bridge.terms.cjk_runs, *snippet_terms]
    matches: list[SearchHit] = []
    for file_id, hit in hits:
        body = ctx.bodies.get(file_id, "")
        hit.snippet = snippet(
            body or hit.description,
            translated_terms if file_id in by_translation else snippet_terms,
            before=config.SEARCH_SNIPPET_CONTEXT_BEFORE,
            after=config.SEARCH_SNIPPET_CONTEXT_AFTER,
            limit=config.SEARCH_SNIPPET_MAX_CHARS,
        )
        if hit.explain is not None:
            text = f"{hit.slug} {hit.description} {hit.headline} {body}".lower()
            hit.explain["matched"] = [t for t in terms.display if t.lower() in text]
            hit.explain["query_terms"] = [*terms.display, *said]
            if terms.expanded:
                hit.explain["synonyms"] = terms.expanded
            if terms.skipped:
                hit.explain["skipped_common_terms"] = sorted(terms.skipped)
            if not bridge.terms.empty:
                hit.explain["translated_terms"] = bridge.terms.display
        matches.append(hit)
    return SearchResult(matches=matches, used_fallback=used_fallback, terms=[*terms.display, *said])


def coverage_units(terms: QueryTerms) -> list[tuple[str, ...]]:
    """What `coverage` looks for, one unit per query word or CJK bigram (or single character),
    each a tuple of alternatives: a word's first characters (a crude, language-free stem:
    'painting' and 'painted' share 'paint') and those of its irregular forms ('bought' also
    counts for 'buy')."""
    units = [
        tuple(
            dict.fromkeys(
                f[:COVERAGE_STEM_CHARS]
                for f in (w, *terms.forms.get(w, ()))
                # a two-letter form ("go" of "went") is inside too many other words
                if f == w or len(f) >= config.SEARCH_COVERAGE_FORM_MIN_CHARS
            )
        )
        for w in terms.words
    ]
    units += [(b,) for run in terms.cjk_runs for b in run_bigrams(run)]
    return list(dict.fromkeys(units))


def coverage(units: list[tuple[str, ...]], text: str) -> float:
    """Share of the query's units found in a memory's text (0..1)."""
    if not units:
        return 0.0
    return sum(1 for unit in units if any(alt in text for alt in unit)) / len(units)


@dataclass(frozen=True)
class _Context:
    """What ranking a search's candidates needs besides the candidates themselves."""

    query: SearchQuery
    today: date
    bodies: dict[int, str]
    units: list[tuple[str, ...]]
    spans: list[DateSpan]  # the query's dates (domain/dates.py); empty when it names none


def _raw(candidate: _Candidate) -> tuple[float, float]:
    """(bm25 or NaN, raw score) of a candidate."""
    if candidate.bm25 is not None:
        bm25 = candidate.bm25
        return bm25, (-bm25 if bm25 <= 0 else 1.0 / (1.0 + bm25))
    if candidate.via == "date":
        # after every word hit (whose raw score is above 0): ranked among themselves newest
        # first (the score is then scaled by the same factors as any hit)
        return math.nan, config.SEARCH_DATE_ONLY_SCORE / (1 + candidate.position)
    # REFERENCE A5 step 6; substring hits are listed after every keyword hit.
    term = candidate.matched_substring or ""
    return math.nan, (
        config.SEARCH_SUBSTRING_SCORE_BASE + config.SEARCH_SUBSTRING_SCORE_PER_CHAR * len(term)
    )


def _hit(ctx: _Context, candidate: _Candidate, row: sa.Row[Any]) -> tuple[int, SearchHit]:
    bm25, raw = _raw(candidate)
    weight, why = priority_weight(row.scope, row.type)
    decay, age = 1.0, None
    if row.type == MemoryType.DAILY:
        age = journal_age_days(row.date_local, ctx.today)
        decay = journal_decay(age)
    source = json_object(row.source_json)
    unreviewed = source.get("unreviewed") is True
    reviewed = row.type != MemoryType.DAILY and not unreviewed
    boost = config.SEARCH_REVIEWED_BOOST if reviewed else 1.0
    text = f"{row.slug} {row.description} {row.headline} {ctx.bodies.get(candidate.file_id, '')}"
    covered = coverage(ctx.units, text.lower())
    coordination = 1.0 + config.SEARCH_COVERAGE_BOOST * covered
    dated = bool(ctx.spans) and in_ranges(
        ctx.spans, memory_days(row.created_at, row.updated_at, row.date_local), text, ctx.today
    )
    date_boost = config.SEARCH_DATE_BOOST if dated else 1.0
    score = raw * weight * decay * boost * coordination * date_boost
    explain: dict[str, Any] | None = None
    if ctx.query.explain:
        explain = {
            "via": candidate.via,
            "bm25": None if math.isnan(bm25) else round(bm25, 6),
            "raw": round(raw, 6),
            "weight": weight,
            "weight_reason": why,
            "daily_decay": round(decay, 6) if row.type == MemoryType.DAILY else None,
            "reviewed_boost": boost,
            "coverage": round(covered, 6),
            "coverage_boost": round(coordination, 6),
            "date_boost": date_boost,
            "score": round(score, 6),
            "formula": "score = raw x weight x daily_decay x reviewed_boost x coverage_boost "
            "x date_boost",
        }
        if ctx.spans:
            explain["dates"] = [[s.start.isoformat(), s.end.isoformat()] for s in ctx.spans]
        if candidate.matched_substring:
            explain["substring"] = candidate.matched_substring
    hit = SearchHit(
        slug=row.slug,
        scope=row.scope,
        workdir_hash=row.workdir_hash,
        type=row.type,
        description=row.description,
        headline=row.headline,
        snippet="",
        score=score,
        raw_score=raw,
        age_days=age,
        unreviewed=unreviewed,
        confidence=str(source.get("confidence") or "unknown"),
        explain=explain,
    )
    return candidate.file_id, hit


def _rank(
    conn: sa.Connection, ctx: _Context, candidates: list[_Candidate]
) -> list[tuple[int, SearchHit]]:
    rows = _load_rows(conn, [c.file_id for c in candidates])
    ranked = [_hit(ctx, c, rows[c.file_id]) for c in candidates if c.file_id in rows]
    ranked.sort(key=lambda item: (-item[1].score, -item[1].raw_score, _desc(item[1].slug)))
    return ranked


def _desc(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


def shadow_hits(hits: list[SearchHit]) -> list[SearchHit]:
    """REFERENCE A5 step 9: a project memory hides the global memory with the same slug."""
    project_slugs = {h.slug for h in hits if h.scope == Scope.PROJECT and h.type != "daily"}
    return [
        hit
        for hit in hits
        if hit.type == MemoryType.DAILY
        or hit.scope != Scope.GLOBAL
        or hit.slug not in project_slugs
    ]


def _shadow(hits: list[tuple[int, SearchHit]]) -> list[tuple[int, SearchHit]]:
    kept = {id(hit) for hit in shadow_hits([hit for _, hit in hits])}
    return [(file_id, hit) for file_id, hit in hits if id(hit) in kept]
