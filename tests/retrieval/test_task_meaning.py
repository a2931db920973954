"""Task types by meaning (retrieval/task_meaning.py): the rule points plus the probabilities of
the classifier trained on the labelled examples, with the local model's real vectors."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.task_types import (
    TaskType,
    detect_task_type,
    pick_task_type,
    task_scores,
)
from liveagent_memory.retrieval.embedders import LocalE5Embedder
from liveagent_memory.retrieval.task_meaning import (
    CLASSIFIER_FILE,
    EXAMPLES_FILE,
    STAMP_FILE,
    VECTORS_FILE,
    TaskExamples,
    detect,
    examples_digest,
    load_classifier,
    load_examples,
    read_examples,
    shipped_classifier,
    shipped_examples,
    train_classifier,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.memories import remember

LOCAL = f"{config.LOCAL_EMBEDDING_PROVIDER}/{config.LOCAL_EMBEDDING_MODEL}"
PROVIDERS = [{"provider": config.LOCAL_EMBEDDING_PROVIDER, "model": config.LOCAL_EMBEDDING_MODEL}]
# Queries that name a fault in words no rule lists: the rules read them as implementation.
UNLISTED_FAULTS = ["the invoice totals jump around after the upgrade", "页面加载后一片空白"]
# Queries in none of the labelled sets, each told in words no rule lists (the rules read every one
# as implementation): symptoms in English, Chinese and mixed, and review asks. A classifier that
# regresses to the phrasing of its examples misses them.
UNSEEN = [
    ("every new account gets the welcome email three times", TaskType.DEBUGGING),
    ("充值成功了但余额没变", TaskType.DEBUGGING),
    ("每次打开设置页面都要转很久", TaskType.DEBUGGING),
    ("Nginx 转发以后 header 里的 token 没了", TaskType.DEBUGGING),
    ("升级 Django 以后 admin 页面样式全乱了", TaskType.DEBUGGING),
    ("这段重试逻辑写得靠谱吗", TaskType.REVIEW),
    ("帮我瞧瞧这段重试逻辑写得咋样", TaskType.REVIEW),
]


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


def test_the_shipped_classifier_is_the_one_its_examples_train() -> None:
    """`scripts/task_examples.py` trains deterministically: retraining on the shipped vectors
    gives the shipped weights (to their six decimals)."""
    classifier, examples = shipped_classifier(), shipped_examples()
    assert classifier is not None, "run scripts/task_examples.py after editing the examples"
    assert examples is not None and classifier.model == LOCAL
    retrained = train_classifier(examples)
    assert np.allclose(retrained.weights, classifier.weights, atol=1e-5)
    assert np.allclose(retrained.mean, classifier.mean, atol=1e-5)
    assert np.allclose(retrained.bias, classifier.bias, atol=1e-5)


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


def test_a_stale_or_damaged_classifier_is_not_used(tmp_path: Path) -> None:
    examples, saved = tmp_path / EXAMPLES_FILE.name, tmp_path / CLASSIFIER_FILE.name
    shutil.copyfile(EXAMPLES_FILE, examples)
    shutil.copyfile(CLASSIFIER_FILE, saved)
    assert load_classifier(examples, saved) is not None
    with examples.open("a", encoding="utf-8") as more:
        more.write("debugging\tthe queue stalls at night\n")
    assert load_classifier(examples, saved) is None  # trained on other examples
    shutil.copyfile(EXAMPLES_FILE, examples)
    for damage in (
        "{not json",
        '{"examples_sha256": "%s"}',
        '{"examples_sha256": "%s", "types": '
        '["exploration", "implementation", "debugging", "review", "refactoring"], "mean": [0.1], '
        '"weights": [[1, 2]], "bias": [0, 0, 0, 0, 0]}',
    ):
        saved.write_text(damage.replace("%s", examples_digest(examples)), encoding="utf-8")
        assert load_classifier(examples, saved) is None, damage
    assert detect("the queue stalls", [0.1] * 384, LOCAL).method == "meaning"  # shipped one ok


@pytest.mark.parametrize("query", UNLISTED_FAULTS)
def test_meaning_reads_a_fault_the_rules_miss(query: str) -> None:
    assert detect_task_type(query) is TaskType.IMPLEMENTATION
    found = detect(query, vector(query), LOCAL)
    assert (found.task, found.method) == (TaskType.DEBUGGING, "meaning")
    assert found.points["debugging"] > found.points["implementation"]


@pytest.mark.parametrize(("query", "task"), UNSEEN)
def test_meaning_reads_unseen_symptoms_and_review_asks(query: str, task: TaskType) -> None:
    assert detect_task_type(query) is TaskType.IMPLEMENTATION  # no rule word: rules cannot
    assert detect(query, vector(query), LOCAL).task is task


def test_meaning_adds_its_probabilities_to_the_rule_points() -> None:
    """Meaning does not replace the rules: an error's shape keeps its 4 points beside the
    classifier's 8 x probability, so a query with a shape and a failure word stays debugging."""
    query = "add a retry: the upload fails with ConnectionResetError"
    classifier = shipped_classifier()
    assert classifier is not None
    shares = classifier.probabilities(vector(query))
    found = detect(query, vector(query), LOCAL)
    for task, rule_points in task_scores(query).items():
        expected = rule_points + config.TASK_MEANING_POINTS * shares[task]
        assert found.points[task.value] == pytest.approx(expected, abs=1e-3)
    assert task_scores(query)[TaskType.DEBUGGING] >= 6  # shape 4 + "fails" 2
    assert found.task is TaskType.DEBUGGING


def test_another_models_vector_is_not_compared_with_the_examples() -> None:
    query = UNLISTED_FAULTS[0]
    found = detect(query, vector(query), "openai/text-embedding-3-small")
    assert (found.task, found.method) == (TaskType.IMPLEMENTATION, "rules")
    assert detect(query).method == "rules"  # no vector at all


def test_the_classifier_learns_which_directions_tell_the_types_apart() -> None:
    """Toy vectors that all share one direction (as e5's do) and differ in another per type:
    the trained classifier gives each its own type, probabilities that sum to 1, and the same
    weights every time it is trained."""
    shared = np.zeros(6, dtype=np.float32)
    shared[5] = 3.0
    labels, rows = [], []
    for column, task in enumerate(TaskType):
        for scale in (0.8, 1.0, 1.2):
            row = shared.copy()
            row[column] = scale
            labels.append(task)
            rows.append(row / np.linalg.norm(row))
    examples = TaskExamples(tuple(labels), tuple(map(str, range(15))), np.stack(rows), "m/x")
    classifier = train_classifier(examples)
    for row, task in zip(rows, labels, strict=True):
        shares = classifier.probabilities(row.tolist())
        assert max(shares, key=lambda t: shares[t]) is task
        assert sum(shares.values()) == pytest.approx(1.0)
    assert np.array_equal(train_classifier(examples).weights, classifier.weights)


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
