"""Embed the labelled task-type examples with the local model and train the task-type
classifier on their vectors, for detection by meaning.

    .venv/bin/python scripts/task_examples.py

Writes `liveagent_memory/retrieval/data/task_examples.npy` (float16, one row per example, as
queries: e5's `query: ` prefix), `task_examples.json` (the model, the examples' sha256, the
shape) and `task_classifier.json` (the classifier trained on those float16 vectors, stamped with
the same sha256; training is deterministic, so a rerun on the same examples writes the same
file). Run it after editing `task_examples.tsv`: until then the stamps no longer match and
contexts fall back to rule detection (tests/retrieval/test_task_meaning.py fails to say so).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from liveagent_memory.domain import config
from liveagent_memory.retrieval.embedders import LocalE5Embedder
from liveagent_memory.retrieval.task_meaning import (
    CLASSIFIER_FILE,
    EXAMPLES_FILE,
    STAMP_FILE,
    VECTORS_FILE,
    examples_digest,
    load_examples,
    read_examples,
    train_classifier,
)


def main() -> int:
    rows = read_examples()
    vectors = LocalE5Embedder().embed([query for _label, query in rows], query=True)
    matrix = np.asarray(vectors, dtype=np.float16)
    np.save(VECTORS_FILE, matrix)
    stamp = {
        "model": f"{config.LOCAL_EMBEDDING_PROVIDER}/{config.LOCAL_EMBEDDING_MODEL}",
        "examples_sha256": examples_digest(),
        "count": matrix.shape[0],
        "dimension": matrix.shape[1],
    }
    STAMP_FILE.write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
    # Trained on the vectors as read back (float16), as the benchmark's folds are.
    examples = load_examples(EXAMPLES_FILE, VECTORS_FILE, STAMP_FILE)
    assert examples is not None, "the vectors just written do not load"
    classifier = train_classifier(examples).to_json(stamp["examples_sha256"])
    CLASSIFIER_FILE.write_text(json.dumps(classifier) + "\n", encoding="utf-8")
    print(f"{matrix.shape[0]} examples embedded into {VECTORS_FILE.name}, classifier trained")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
