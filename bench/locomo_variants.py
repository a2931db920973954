"""LoCoMo keyword recall under ranking variants, each patched into search in process (issue 17).

The five stores are built once as `bench_locomo.py` builds them (one memory per turn, written at
its session's time; --description as there), then every question is searched with
`store.search(limit=10)` under each named variant in turn. A variant replaces one piece of
`store/search.py` for its run only (the candidate count, the coverage units or test, a hit's
score, or the BM25 score of each candidate) and is undone afterwards, so `base` reproduces
`bench_locomo.py`'s "ours" row exactly. Each row gives R_any@10 / R_any@5 for all questions,
for conversations 0-2 (where settings were chosen) and 3-4 (the check), and per category.

This is the record of the fourth keyword round (bench/README.md "Issue 17: keyword recall,
fourth round"): none of the variants was kept. `own-*` variants re-score candidates with a
BM25F of our own and need `snowballstemmer` (pip install snowballstemmer; not a dependency of
the package).

    .venv/bin/python bench/locomo_variants.py /work/shared/bench-data/locomo-dev.json \\
        base pool-32 pool-200 prox-skip-0.5 length-0.2
    .venv/bin/python bench/locomo_variants.py --list
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_locomo import Question, build_store, load_conversation

from liveagent_memory.domain import config
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.store import search as S
from liveagent_memory.store.bilingual import chinese_words, word_list
from liveagent_memory.store.evidence import body_content
from liveagent_memory.store.lemmas import BASES, lemma, narrower
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import STOP_WORDS, WORD, run_bigrams

CHECK_FROM = 3  # conversations from this one on are the check half
Variant = Callable[[], contextlib.AbstractContextManager[None]]


@dataclass
class Conversation:
    store: MemoryStore
    root: Path
    slug_to_dia: dict[str, str]
    questions: list[Question]


@dataclass
class Run:
    conversations: list[Conversation]
    current: int = 0  # the conversation being searched (for per-store statistics)


RUN = Run([])


@contextlib.contextmanager
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


# --- candidate pool ---------------------------------------------------------------------------


def pool(count: int) -> Variant:
    """Fetch `count` BM25 candidates for the re-rank instead of 64."""

    @contextlib.contextmanager
    def run() -> Iterator[None]:
        with (
            patched(S._fts_candidates, "__defaults__", (None, count)),
            patched(S._candidates, "__defaults__", (count,)),
        ):
            yield

    return run


# --- our own BM25F over the candidates ------------------------------------------------------


@dataclass
class Bm25Params:
    k1: float = 1.2
    b: float = 0.75
    description_weight: float = 3.0
    body_weight: float = 1.0
    dedupe: bool = False  # a description that starts the body adds nothing of its own
    max_df: float = 1.0  # terms in more than this share of the store's memories count 0


@dataclass
class StoreStats:
    tokens: dict[int, tuple[list[str], list[str], bool]]  # id -> description, body, desc prefix
    df: Counter[str]
    avg_description: float
    avg_body: float


STATS: dict[int, StoreStats] = {}


def stemmer() -> Callable[[str], str]:
    try:
        import snowballstemmer  # type: ignore[import-untyped]
    except ImportError as exc:
        raise SystemExit(
            "own-* variants need snowballstemmer: pip install snowballstemmer"
        ) from exc
    stem = snowballstemmer.stemmer("porter").stemWord
    cache: dict[str, str] = {}

    def run(word: str) -> str:
        if word not in cache:
            cache[word] = stem(BASES.get(word, word))
        return cache[word]

    return run


def store_stats(position: int, stem: Callable[[str], str]) -> StoreStats:
    if position in STATS:
        return STATS[position]
    root = RUN.conversations[position].root
    db = sqlite3.connect(f"file:{root / config.INDEX_FILENAME}?mode=ro", uri=True)
    descriptions = dict(
        db.execute(
            "SELECT f.id, m.description FROM memory_files f JOIN memory_meta m ON "
            "m.slug = f.slug AND m.scope = f.scope AND m.workdir_hash = f.workdir_hash"
        ).fetchall()
    )
    bodies = {
        rowid: body_content(body)
        for rowid, body in db.execute("SELECT rowid, body FROM memory_fts")
    }
    db.close()

    def toks(text: str) -> list[str]:
        return [stem(w) for w in WORD.findall(text.lower())]

    tokens = {
        i: (toks(d), toks(bodies.get(i, "")), bodies.get(i, "").startswith(d))
        for i, d in descriptions.items()
    }
    df: Counter[str] = Counter()
    for d, b, _ in tokens.values():
        df.update(set(d) | set(b))
    n = len(tokens) or 1
    STATS[position] = StoreStats(
        tokens,
        df,
        sum(len(d) for d, _, _ in tokens.values()) / n,
        sum(len(b) for _, b, _ in tokens.values()) / n,
    )
    return STATS[position]


def bm25f(stats: StoreStats, file_id: int, terms: list[str], p: Bm25Params) -> float:
    description, body, prefix = stats.tokens[file_id]
    in_description, in_body = Counter(description), Counter(body)
    total = len(stats.tokens)
    score = 0.0
    for term in terms:
        n = stats.df.get(term, 0)
        if n == 0 or n > p.max_df * total:
            continue
        idf = math.log(1 + (total - n + 0.5) / (n + 0.5))
        tf = p.body_weight * in_body[term] / (1 - p.b + p.b * len(body) / stats.avg_body)
        if not (p.dedupe and prefix):
            norm = 1 - p.b + p.b * len(description) / stats.avg_description
            tf += p.description_weight * in_description[term] / norm
        score += idf * tf / (p.k1 + tf)
    return score


def own_bm25(**params: Any) -> Variant:
    """Candidates found by FTS5 as before, each then scored by `bm25f` instead of FTS5's bm25."""
    p = Bm25Params(**params)

    @contextlib.contextmanager
    def run() -> Iterator[None]:
        stem = stemmer()
        original = S._fts_candidates

        def candidates(
            conn: Any, query: Any, terms: Any, dated: Any = None, count: int = 64
        ) -> Any:
            found = original(conn, query, terms, dated, count)
            words = [w for w in terms.words if w not in terms.skipped]
            forms = dict.fromkeys(f for w in words for f in (lemma(w), *narrower(w)))
            stems = list(dict.fromkeys(stem(w) for w in forms))
            stats = store_stats(RUN.current, stem)
            for c in found:
                c.bm25 = -max(bm25f(stats, c.file_id, stems, p), 1e-6)
            return found

        with patched(S, "_fts_candidates", candidates):
            yield

    return run


# --- coverage -------------------------------------------------------------------------------


def word_start_coverage(units: list[tuple[str, ...]], text: str) -> float:
    """Coverage with a Latin unit found only at the start of a word ('art' not in 'start')."""
    if not units:
        return 0.0
    starts = {w[:n] for w in WORD.findall(text) for n in range(1, min(len(w), 5) + 1)}
    found = sum(1 for unit in units if any(a in starts if a.isascii() else a in text for a in unit))
    return found / len(units)


def coverage_max_df(max_df: float, weight: float) -> Variant:
    """Coverage with a unit found in more than `max_df` of the store's memories (a speaker's
    name) counted at `weight` instead of 1, the share measured on the store itself."""
    shares: dict[tuple[int, tuple[str, ...]], float] = {}

    def unit_share(unit: tuple[str, ...]) -> float:
        key = (RUN.current, unit)
        if key not in shares:
            conv = RUN.conversations[RUN.current]
            db = sqlite3.connect(f"file:{conv.root / config.INDEX_FILENAME}?mode=ro", uri=True)
            texts = [body_content(b).lower() for (b,) in db.execute("SELECT body FROM memory_fts")]
            db.close()
            shares[key] = sum(1 for t in texts if any(a in t for a in unit)) / max(len(texts), 1)
        return shares[key]

    def covered(units: list[tuple[str, ...]], text: str) -> float:
        weights = [weight if unit_share(u) > max_df else 1.0 for u in units]
        total = sum(weights)
        got = sum(w for w, u in zip(weights, units, strict=True) if any(a in text for a in u))
        return got / total if total else 0.0

    return lambda: patched(S, "coverage", covered)


def light_stem(word: str) -> str:
    """A regular ending and a final e off ('dancing' and 'dance' -> 'danc')."""
    for ending in ("ies", "ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[: -len(ending)]
            break
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


def stem_units(stem: Callable[[str], str], chars: int) -> Variant:
    """Coverage units from each word's stem (its first `chars` characters), not its first 5."""

    def units(terms: S.QueryTerms) -> list[tuple[str, ...]]:
        found = [
            tuple(
                dict.fromkeys(
                    stem(f)[:chars]
                    for f in (w, *terms.forms.get(w, ()))
                    if f == w or len(f) >= config.SEARCH_COVERAGE_FORM_MIN_CHARS
                )
            )
            for w in terms.words
        ]
        found += [(b,) for run in terms.cjk_runs for b in run_bigrams(run)]
        return list(dict.fromkeys(found))

    return lambda: patched(S, "coverage_units", units)


def synonyms(word: str) -> list[str]:
    """English words that share one of `word`'s three commonest Chinese words in the shipped
    word list, both ways (the Chinese word is among theirs too): 'courageous' -> brave."""
    words = word_list()
    found = [
        other
        for zh in chinese_words(word, words)
        for other in words.english.get(zh, ())
        if len(other) >= 3
        and other not in STOP_WORDS
        and other[:5] != word[:5]
        and zh in chinese_words(other, words)
    ]
    return list(dict.fromkeys(found))


def with_synonyms(in_coverage: bool, in_match: bool) -> Variant:
    """Each query word's synonyms as alternatives of its coverage unit and/or OR terms."""

    @contextlib.contextmanager
    def run() -> Iterator[None]:
        units, match = S.coverage_units, S.match_expression

        def units_with(terms: S.QueryTerms) -> list[tuple[str, ...]]:
            found = units(terms)
            latin = [
                tuple(dict.fromkeys([*u, *(s[:5] for s in synonyms(w))]))
                for w, u in zip(terms.words, found, strict=False)
            ]
            return latin + found[len(terms.words) :]

        def match_with(terms: S.QueryTerms) -> str:
            words = list(
                dict.fromkeys([*terms.words, *(s for w in terms.words for s in synonyms(w))])
            )
            return match(
                S.QueryTerms(words, terms.cjk_runs, terms.expanded, terms.skipped, terms.forms)
            )

        with contextlib.ExitStack() as stack:
            if in_coverage:
                stack.enter_context(patched(S, "coverage_units", units_with))
            if in_match:
                stack.enter_context(patched(S, "match_expression", match_with))
            yield

    return run


# --- a hit's score --------------------------------------------------------------------------


def rescored(factor: Callable[[Any, Any, Any], float]) -> Variant:
    """Every hit's score times `factor(ctx, candidate, row)`."""

    @contextlib.contextmanager
    def run() -> Iterator[None]:
        original = S._hit

        def hit(ctx: Any, candidate: Any, row: Any) -> Any:
            file_id, found = original(ctx, candidate, row)
            found.score *= factor(ctx, candidate, row)
            return file_id, found

        with patched(S, "_hit", hit):
            yield

    return run


def proximity(bonus: float, skip_stop_words: bool) -> Variant:
    """x (1 + bonus x share of the query's consecutive content-word pairs that stand side by
    side in the memory), with the memory's stop words skipped or not."""

    def factor(ctx: Any, candidate: Any, row: Any) -> float:
        words = [w for w in S.query_words(ctx.query.text) if w not in STOP_WORDS]
        pairs = [(a[:5], b[:5]) for a, b in zip(words, words[1:], strict=False)]
        if not pairs:
            return 1.0
        text = f"{row.description} {ctx.bodies.get(candidate.file_id, '')}".lower()
        tokens = [t for t in WORD.findall(text) if not (skip_stop_words and t in STOP_WORDS)]
        near = {(a[:5], b[:5]) for a, b in zip(tokens, tokens[1:], strict=False)}
        return 1 + bonus * sum(1 for p in pairs if p in near) / len(pairs)

    return rescored(factor)


def length_prior(power: float) -> Variant:
    """x (body characters / 120) ** power: longer memories first."""
    return rescored(lambda ctx, c, row: (len(ctx.bodies.get(c.file_id, "")) / 120 or 1) ** power)


def more_stop_words(words: str) -> Variant:
    """`words` dropped from queries like the stop words (store/text.py `STOP_WORDS`)."""
    return lambda: patched(S, "STOP_WORDS", STOP_WORDS | frozenset(words.split()))


VARIANTS: dict[str, Variant] = {
    "base": contextlib.nullcontext,
    **{f"pool-{n}": pool(n) for n in (32, 96, 128, 200)},
    "own-default": own_bm25(),
    "own-desc-1": own_bm25(description_weight=1.0),
    "own-dedupe": own_bm25(dedupe=True),
    **{f"own-b-{b}": own_bm25(b=b) for b in (0.3, 0.5)},
    **{f"own-dedupe-b-{b}": own_bm25(b=b, dedupe=True) for b in (0.3, 0.5)},
    **{f"own-k1-{k}": own_bm25(k1=k) for k in (0.6, 0.9, 2.0)},
    **{f"own-max-df-{d}": own_bm25(max_df=d) for d in (0.2, 0.3)},
    **{f"prox-{p}": proximity(p, False) for p in (0.25, 0.5, 1.0)},
    **{f"prox-skip-{p}": proximity(p, True) for p in (0.25, 0.5, 1.0)},
    "coverage-word-start": lambda: patched(S, "coverage", word_start_coverage),
    **{f"coverage-max-df-{d}": coverage_max_df(d, 0.0) for d in (0.15, 0.25, 0.4)},
    **{f"coverage-max-df-{d}-half": coverage_max_df(d, 0.5) for d in (0.15, 0.25, 0.4)},
    "coverage-light-stem": stem_units(light_stem, 5),
    "coverage-light-stem-6": stem_units(light_stem, 6),
    "synonyms-coverage": with_synonyms(True, False),
    "synonyms-match": with_synonyms(False, True),
    "synonyms-both": with_synonyms(True, True),
    **{f"length-{p}": length_prior(p) for p in (0.1, 0.15, 0.2, 0.25, 0.3, 0.5)},
    "stop-reporting-verbs": more_stop_words(
        "say said says mention mentioned mentions describe described describes"
    ),
    "stop-reporting-verbs-more": more_stop_words(
        "say said says mention mentioned mentions describe described describes talk talked "
        "tell told share shared"
    ),
}


def evaluate(label: str) -> dict[str, Any]:
    rows: list[tuple[int, int, bool, bool]] = []
    latencies: list[float] = []
    for position, conv in enumerate(RUN.conversations):
        RUN.current = position
        for q in conv.questions:
            t0 = time.perf_counter()
            found = conv.store.search(
                SearchRequest(query=q.text, limit=10, include_all_projects=True)
            )
            latencies.append((time.perf_counter() - t0) * 1000)
            ranked = [conv.slug_to_dia.get(h.slug) for h in found.matches]
            evidence = set(q.evidence)
            rows.append(
                (
                    position,
                    q.category,
                    bool(evidence & set(ranked[:10])),
                    bool(evidence & set(ranked[:5])),
                )
            )

    def share(selected: list[tuple[int, int, bool, bool]]) -> list[float]:
        n = len(selected) or 1
        return [
            round(sum(r[2] for r in selected) / n, 3),
            round(sum(r[3] for r in selected) / n, 3),
        ]

    result = {
        "all": share(rows),
        "tuned (0-2)": share([r for r in rows if r[0] < CHECK_FROM]),
        "check (3-4)": share([r for r in rows if r[0] >= CHECK_FROM]),
        **{f"cat {c}": share([r for r in rows if r[1] == c]) for c in range(1, 6)},
        "p50 ms": round(sorted(latencies)[len(latencies) // 2], 2),
    }
    cells = " | ".join(
        f"{v[0]:.3f} / {v[1]:.3f}" if isinstance(v, list) else str(v) for v in result.values()
    )
    print(f"| {label} | {cells} |", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo", type=Path, nargs="?")
    parser.add_argument("variants", nargs="*", default=["base"])
    parser.add_argument("--description", choices=("prefix", "speaker"), default="prefix")
    parser.add_argument("--list", action="store_true", help="list the variants and exit")
    parser.add_argument("--out", type=Path, default=Path("bench/out/locomo-variants.json"))
    args = parser.parse_intermixed_args(argv)
    if args.list or args.locomo is None:
        print("\n".join(VARIANTS))
        return 0
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants: {', '.join(unknown)} (see --list)")
    args.batch, args.undated, args.with_date = 500, False, False
    base = Path(tempfile.mkdtemp(prefix="locomo-variants-"))
    results: dict[str, Any] = {"load_average_at_start": os.getloadavg()}
    try:
        for position, item in enumerate(json.loads(args.locomo.read_text("utf-8"))):
            turns, questions, _ = load_conversation(item)
            root = base / f"c{position}"
            store, _ = build_store(root, turns, args)
            RUN.conversations.append(
                Conversation(store, root, {t.slug: t.dia_id for t in turns}, questions)
            )
        header = [
            "variant",
            "all",
            "tuned (0-2)",
            "check (3-4)",
            *(f"cat {c}" for c in range(1, 6)),
        ]
        print("| " + " | ".join([*header, "p50 ms"]) + " |")
        print("|---" * (len(header) + 1) + "|")
        for name in args.variants:
            with VARIANTS[name]():
                results[name] = evaluate(name)
    finally:
        for conv in RUN.conversations:
            conv.store.close()
        shutil.rmtree(base, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1), "utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
