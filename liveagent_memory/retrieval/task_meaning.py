"""Task-type detection by meaning: the rule points of domain/task_types.py plus the votes of the
labelled example queries nearest to the query (k nearest neighbours over their vectors).

Rules read the words a query uses; a query that names its task in words the rules do not list
("the totals are off by one after the upgrade") scores nothing and falls to implementation. The
examples (`data/task_examples.tsv`, hand-written, English, Chinese and mixed: the development set
of bench/bench_task_types.py) carry meaning the rules cannot: the `MEANING_NEIGHBOURS` examples
most similar to the query vote for their types, each with its cosine similarity, and the votes'
shares, times `MEANING_VOTE_POINTS`, are added to the rule points; `pick_task_type` decides as it
does for rules alone.

The examples' vectors ship with the package for the local model (`data/task_examples.npy`,
float16, made by scripts/task_examples.py), so nothing is embedded at run time beyond the query,
whose vector a hybrid context computes anyway. Any other provider's vectors live in another
space: its queries are detected by the rules alone (the context says which method decided).

Plain Python with numpy, imported only when a vector is there to compare.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from liveagent_memory.domain import config
from liveagent_memory.domain.task_types import TaskType, pick_task_type, task_scores

if TYPE_CHECKING:
    import numpy as np

DATA = Path(__file__).resolve().parent / "data"
EXAMPLES_FILE = DATA / "task_examples.tsv"
VECTORS_FILE = DATA / "task_examples.npy"
STAMP_FILE = DATA / "task_examples.json"  # which model made the vectors, of which examples


@dataclass(frozen=True)
class Detection:
    """The task type a query was read as, how (`rules` or `meaning`) and the points behind it."""

    task: TaskType
    method: str
    points: dict[str, float]

    def explain(self) -> dict[str, Any]:
        return {"method": self.method, "points": self.points}


def read_examples(path: Path = EXAMPLES_FILE) -> list[tuple[TaskType, str]]:
    """(type, query) of every labelled line: `type <TAB> query`; `#` lines are comments."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            label, query = line.split("\t", 1)
            rows.append((TaskType(label), query))
    return rows


def examples_digest(path: Path = EXAMPLES_FILE) -> str:
    """sha256 of the examples file: the stamp names it, so stale vectors are never used."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class TaskExamples:
    """Labelled example queries and their unit vectors (rows of `matrix`) in one model's space."""

    labels: tuple[TaskType, ...]
    queries: tuple[str, ...]
    matrix: np.ndarray
    model: str  # the provider key the vectors came from (`local/multilingual-e5-small`)

    def votes(self, vector: Sequence[float], *, skip: str | None = None) -> dict[TaskType, float]:
        """Each type's share of the similarity of the nearest examples (shares sum to 1).

        `skip` leaves out an example with exactly that text (the benchmark's leave-one-out).
        """
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        sims = self.matrix @ (query / norm if norm > 0 else query)
        if skip is not None:
            sims = np.where(np.asarray(self.queries) == skip, -np.inf, sims)
        count = min(config.MEANING_NEIGHBOURS, len(self.labels))
        nearest = np.argpartition(-sims, count - 1)[:count]
        shares = dict.fromkeys(TaskType, 0.0)
        for position in nearest:
            shares[self.labels[position]] += max(float(sims[position]), 0.0)
        total = sum(shares.values())
        return {task: share / total for task, share in shares.items()} if total > 0 else shares


def load_examples(examples_file: Path, vectors_file: Path, stamp_file: Path) -> TaskExamples | None:
    """Labelled examples with their vectors; None when the vectors are missing or unreadable or
    were made from other examples than these (then rules decide)."""
    try:
        stamp = json.loads(stamp_file.read_text(encoding="utf-8"))
        if stamp.get("examples_sha256") != examples_digest(examples_file):
            return None
        import numpy as np

        matrix = np.load(vectors_file).astype(np.float32)
        rows = read_examples(examples_file)
    except (OSError, ValueError):
        return None
    if matrix.shape != (len(rows), int(stamp.get("dimension", -1))):
        return None
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    labels = tuple(label for label, _query in rows)
    return TaskExamples(labels, tuple(q for _l, q in rows), matrix, str(stamp.get("model")))


@functools.cache
def shipped_examples() -> TaskExamples | None:
    """The package's examples with the local model's vectors (read once per process)."""
    return load_examples(EXAMPLES_FILE, VECTORS_FILE, STAMP_FILE)


def detect(
    query: str,
    vector: Sequence[float] | None = None,
    provider_key: str | None = None,
    *,
    examples: TaskExamples | None = None,
    skip: str | None = None,
) -> Detection:
    """The task type of `query`: by rules and meaning when `vector` is in the examples' space
    (`provider_key` names the model that made it), else by rules alone."""
    rules = task_scores(query)
    examples = examples if examples is not None else shipped_examples()
    if vector is None or examples is None or provider_key != examples.model:
        points = {task: float(value) for task, value in rules.items()}
        return Detection(pick_task_type(points), "rules", _named(points))
    votes = examples.votes(vector, skip=skip)
    points = {task: rules[task] + config.MEANING_VOTE_POINTS * votes[task] for task in TaskType}
    return Detection(pick_task_type(points), "meaning", _named(points))


def _named(points: dict[TaskType, float]) -> dict[str, float]:
    return {task.value: round(value, 3) for task, value in points.items()}
