"""Task types by meaning (retrieval/task_meaning.py): the rule points plus the votes of the
labelled examples nearest to the query, with the local model's real vectors."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.task_types import TaskType, detect_task_type, pick_task_type
from liveagent_memory.retrieval.embedders import LocalE5Embedder
from liveagent_memory.retrieval.task_meaning import (
    EXAMPLES_FILE,
    STAMP_FILE,
    VECTORS_FILE,
    TaskExamples,
    detect,
    load_examples,
    read_examples,
    shipped_examples,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.memories import remember

LOCAL = f"{config.LOCAL_EMBEDDING_PROVIDER}/{config.LOCAL_EMBEDDING_MODEL}"
PROVIDERS = [{"provider": config.LOCAL_EMBEDDING_PROVIDER, "model": config.LOCAL_EMBEDDING_MODEL}]
# Queries that name a fault in words no rule lists: the rules read them as implementation.
UNLISTED_FAULTS = ["the totals are off by one after the upgrade", "页面加载后一片空白"]


def vector(query: str) -> list[float]:
    return LocalE5Embedder().embed([query], query=True)[0]


def test_the_shipped_vectors_are_those_of_the_shipped_examples() -> None:
    """Editing task_examples.tsv needs `scripts/task_examples.py` run again: until then the
    stamp does not match and contexts quietly fall back to rules."""
    examples = shipped_examples()
    assert examples is not None, "run scripts/task_examples.py after editing the examples"
    rows = read_examples()
    assert examples.model == LOCAL
    assert examples.matrix.shape == (len(rows), 384)
    assert examples.labels == tuple(label for label, _query in rows)
    assert np.allclose(np.linalg.norm(examples.matrix, axis=1), 1.0, atol=1e-3)


def test_examples_edited_after_their_vectors_were_made_are_not_used(tmp_path: Path) -> None:
    paths = [tmp_path / p.name for p in (EXAMPLES_FILE, VECTORS_FILE, STAMP_FILE)]
    for source, copy in zip((EXAMPLES_FILE, VECTORS_FILE, STAMP_FILE), paths, strict=True):
        shutil.copyfile(source, copy)
    assert load_examples(*paths) is not None
    with paths[0].open("a", encoding="utf-8") as examples:
        examples.write("debugging\tthe queue stalls at night\n")
    assert load_examples(*paths) is None
    paths[0].write_bytes(EXAMPLES_FILE.read_bytes())
    paths[1].write_bytes(b"not an array")
    assert load_examples(*paths) is None


@pytest.mark.parametrize("query", UNLISTED_FAULTS)
def test_meaning_reads_a_fault_the_rules_miss(query: str) -> None:
    assert detect_task_type(query) is TaskType.IMPLEMENTATION
    found = detect(query, vector(query), LOCAL)
    assert (found.task, found.method) == (TaskType.DEBUGGING, "meaning")
    assert found.points["debugging"] > found.points["implementation"]


def test_a_clear_error_shape_is_not_outvoted() -> None:
    # An error's shape plus a keyword (6+ points) outweighs every vote (8 at most, shared).
    query = "add a retry when the upload raises ConnectionResetError"
    assert detect(query, vector(query), LOCAL).task is TaskType.DEBUGGING


def test_another_models_vector_is_not_compared_with_the_examples() -> None:
    query = UNLISTED_FAULTS[0]
    found = detect(query, vector(query), "openai/text-embedding-3-small")
    assert (found.task, found.method) == (TaskType.IMPLEMENTATION, "rules")
    assert detect(query).method == "rules"  # no vector at all


def test_votes_are_shares_of_the_nearest_examples() -> None:
    labels = (TaskType.DEBUGGING, TaskType.REVIEW, TaskType.REVIEW)
    matrix = np.eye(3, dtype=np.float32)
    examples = TaskExamples(labels, ("a", "b", "c"), matrix, "m/x")
    votes = examples.votes([1.0, 1.0, 0.0])  # as near to a as to b, c orthogonal
    assert votes[TaskType.DEBUGGING] == pytest.approx(0.5)
    assert votes[TaskType.REVIEW] == pytest.approx(0.5)
    assert sum(votes.values()) == pytest.approx(1.0)
    assert examples.votes([1.0, 0.0, 0.0], skip="a")[TaskType.DEBUGGING] == 0.0


def test_a_tie_goes_to_the_more_specific_intent_and_nothing_to_implementation() -> None:
    assert pick_task_type(dict.fromkeys(TaskType, 0.0)) is TaskType.IMPLEMENTATION
    tie = {**dict.fromkeys(TaskType, 0.0), TaskType.REVIEW: 2.5, TaskType.DEBUGGING: 2.5}
    assert pick_task_type(tie) is TaskType.DEBUGGING


def test_a_hybrid_context_detects_by_meaning_and_says_so(store: MemoryStore) -> None:
    remember(store, "checkout-rounding", type="project", body="Invoice totals round per line.")
    dispatch(store, "embeddings_rebuild", {"providers": PROVIDERS})
    query = UNLISTED_FAULTS[0]
    context = dispatch(store, "memory_context", {"query": query, "providers": PROVIDERS})
    assert (context["task_type"], context["task_type_source"]) == ("debugging", "detected")
    assert context["retrieval_stats"]["search"]["mode"] == "hybrid"
    assert context["retrieval_stats"]["task_detection"]["method"] == "meaning"
    keyword = dispatch(store, "memory_context", {"query": query, "providers": []})
    assert keyword["task_type"] == "implementation"
    assert keyword["retrieval_stats"]["task_detection"]["method"] == "rules"
    given = dispatch(
        store, "memory_context", {"query": query, "task_type": "review", "providers": PROVIDERS}
    )
    assert given["task_type"] == "review" and given["retrieval_stats"]["task_detection"] is None
