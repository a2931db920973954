"""Task-type detection by meaning: the rule points of domain/task_types.py plus the probabilities
of a small classifier trained on the labelled example queries' vectors.

Rules read the words a query uses; a query that names its task in words the rules do not list
("the totals are off by one after the upgrade") scores nothing and falls to implementation. The
examples (`data/task_examples.tsv`, hand-written, English, Chinese and mixed: the development set
of bench/bench_task_types.py) carry meaning the rules cannot: a multinomial logistic classifier
trained on their vectors gives each type a probability for the query, the probabilities, times
`TASK_MEANING_POINTS`, are added to the rule points, and `pick_task_type` decides as it does for
rules alone. A classifier, not the examples nearest the query: e5-small places short queries
close together whatever they ask (Chinese most of all), and the nearest ones vote by their
phrasing; a linear map learns which directions of the space tell the types apart
(bench/README.md "By meaning").

The examples' vectors (`data/task_examples.npy`, float16) and the classifier trained on them
(`data/task_classifier.json`) ship with the package for the local model, both made by
scripts/task_examples.py, so nothing is embedded at run time beyond the query, whose vector a
hybrid context computes anyway. Any other provider's vectors live in another space: its queries
are detected by the rules alone (the context says which method decided).

Plain Python with numpy, imported only when a vector is there to classify.
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
CLASSIFIER_FILE = DATA / "task_classifier.json"  # trained on those vectors, stamped the same way
TYPES = tuple(TaskType)  # the classifier's columns, in this order


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
    """sha256 of the examples file: the stamps name it, so stale vectors are never used."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class TaskExamples:
    """Labelled example queries and their unit vectors (rows of `matrix`) in one model's space:
    what the classifier is trained on."""

    labels: tuple[TaskType, ...]
    queries: tuple[str, ...]
    matrix: np.ndarray
    model: str  # the provider key the vectors came from (`local/multilingual-e5-small`)


@dataclass(frozen=True)
class TaskClassifier:
    """A multinomial logistic classifier over query vectors centred on the examples' mean:
    probability of each type = softmax(unit(vector - mean) @ weights + bias)."""

    mean: np.ndarray  # (dimension,)
    weights: np.ndarray  # (dimension, types) in `TYPES` order
    bias: np.ndarray  # (types,)
    model: str

    def probabilities(self, vector: Sequence[float]) -> dict[TaskType, float]:
        """Each type's probability for a query vector (they sum to 1)."""
        import numpy as np

        rows = _centred(np.asarray([vector], dtype=np.float64), self.mean)
        shares = _softmax(rows @ self.weights + self.bias)[0]
        return {task: float(share) for task, share in zip(TYPES, shares, strict=True)}

    def to_json(self, examples_sha256: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "examples_sha256": examples_sha256,
            "types": [task.value for task in TYPES],
            "bias": _rounded(self.bias),
            "mean": _rounded(self.mean),
            "weights": [_rounded(row) for row in self.weights],
        }


def _centred(rows: np.ndarray, mean: np.ndarray) -> np.ndarray:
    # Centring takes away the direction all e5 vectors share (their cosines sit near 0.8 whatever
    # they say); what is left, renormalised, is where queries differ.
    import numpy as np

    centred: np.ndarray = rows - mean
    norms: np.ndarray = np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12)
    unit: np.ndarray = centred / norms
    return unit


def _softmax(scores: np.ndarray) -> np.ndarray:
    import numpy as np

    exp: np.ndarray = np.exp(scores - scores.max(axis=1, keepdims=True))
    totals: np.ndarray = exp.sum(axis=1, keepdims=True)
    shares: np.ndarray = exp / totals
    return shares


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(value), 6) for value in values]


def train_classifier(examples: TaskExamples) -> TaskClassifier:
    """The classifier of the examples: full-batch gradient descent from zero weights on the
    cross-entropy with an L2 penalty (config.TASK_CLASSIFIER_*), so the same examples always
    give the same weights."""
    import numpy as np

    vectors = examples.matrix.astype(np.float64)
    mean = vectors.mean(axis=0)
    rows = _centred(vectors, mean)
    truth = np.eye(len(TYPES))[[TYPES.index(label) for label in examples.labels]]
    weights = np.zeros((rows.shape[1], len(TYPES)))
    bias = np.zeros(len(TYPES))
    for _step in range(config.TASK_CLASSIFIER_STEPS):
        error = (_softmax(rows @ weights + bias) - truth) / len(rows)
        weights -= config.TASK_CLASSIFIER_STEP_SIZE * (
            rows.T @ error + config.TASK_CLASSIFIER_L2 * weights
        )
        bias -= config.TASK_CLASSIFIER_STEP_SIZE * error.sum(axis=0)
    return TaskClassifier(mean, weights, bias, examples.model)


def load_examples(examples_file: Path, vectors_file: Path, stamp_file: Path) -> TaskExamples | None:
    """Labelled examples with their vectors; None when the vectors are missing or unreadable or
    were made from other examples than these."""
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


def load_classifier(examples_file: Path, classifier_file: Path) -> TaskClassifier | None:
    """The trained classifier; None when it is missing, unreadable or was trained on other
    examples than these (then rules decide)."""
    try:
        saved = json.loads(classifier_file.read_text(encoding="utf-8"))
        if saved.get("examples_sha256") != examples_digest(examples_file):
            return None
        if saved.get("types") != [task.value for task in TYPES]:
            return None
        import numpy as np

        mean = np.asarray(saved["mean"], dtype=np.float64)
        weights = np.asarray(saved["weights"], dtype=np.float64)
        bias = np.asarray(saved["bias"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if mean.ndim != 1 or weights.shape != (len(mean), len(TYPES)) or bias.shape != (len(TYPES),):
        return None
    return TaskClassifier(mean, weights, bias, str(saved.get("model")))


@functools.cache
def shipped_examples() -> TaskExamples | None:
    """The package's examples with the local model's vectors (read once per process)."""
    return load_examples(EXAMPLES_FILE, VECTORS_FILE, STAMP_FILE)


@functools.cache
def shipped_classifier() -> TaskClassifier | None:
    """The package's classifier for the local model (read once per process)."""
    return load_classifier(EXAMPLES_FILE, CLASSIFIER_FILE)


def detect(
    query: str,
    vector: Sequence[float] | None = None,
    provider_key: str | None = None,
    *,
    classifier: TaskClassifier | None = None,
) -> Detection:
    """The task type of `query`: by rules and meaning when `vector` is in the classifier's space
    (`provider_key` names the model that made it), else by rules alone."""
    rules = task_scores(query)
    classifier = classifier if classifier is not None else shipped_classifier()
    if vector is None or classifier is None or provider_key != classifier.model:
        points = {task: float(value) for task, value in rules.items()}
        return Detection(pick_task_type(points), "rules", _named(points))
    shares = classifier.probabilities(vector)
    points = {task: rules[task] + config.TASK_MEANING_POINTS * shares[task] for task in TaskType}
    return Detection(pick_task_type(points), "meaning", _named(points))


def _named(points: dict[TaskType, float]) -> dict[str, float]:
    return {task.value: round(value, 3) for task, value in points.items()}
