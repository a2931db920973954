"""The vector index: cosine top-k, atomic persistence, dimension/model safety, stale rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from liveagent_memory.domain.errors import EmbeddingDimensionMismatch, EmbeddingUnavailable
from liveagent_memory.retrieval.vectors import VectorIndex, VectorRow, index_stem

np = pytest.importorskip("numpy")


def rows(*items: tuple[str, list[float]], meta: dict[str, str] | None = None) -> list[VectorRow]:
    return [VectorRow(i, v, f"h-{i}", meta or {"scope": "global"}) for i, v in items]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "vectors"


def test_search_ranks_by_cosine(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0, 0.0]), ("b", [0.7, 0.7, 0.0]), ("c", [0.0, 0.0, 5.0])))
    hits = index.search([2.0, 0.1, 0.0], 3)
    assert [doc_id for doc_id, _ in hits] == ["a", "b", "c"]
    assert hits[0][1] == pytest.approx(0.99875, abs=1e-4)  # vectors are normalised
    assert hits[2][1] == pytest.approx(0.0, abs=1e-6)
    [(best, score)] = index.search([1.0, 0.0, 0.0], 1)
    assert best == "a" and score == pytest.approx(1.0)


def test_search_keeps_only_accepted_rows(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0]), meta={"scope": "project"}))
    index.upsert(rows(("b", [0.9, 0.1]), ("c", [0.0, 1.0]), meta={"scope": "global"}))
    hits = index.search([1.0, 0.0], 5, accept=lambda _id, meta: meta["scope"] == "global")
    assert [doc_id for doc_id, _ in hits] == ["b", "c"]


def test_upsert_replaces_a_row_in_place(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0]), ("b", [0.0, 1.0])))
    index.upsert([VectorRow("a", [0.0, 1.0], "h-new", {"scope": "global"})])
    assert len(index) == 2
    assert index.hash_of("a") == "h-new"
    assert index.search([0.0, 1.0], 2)[1][1] == pytest.approx(1.0)


def test_save_and_reopen_round_trip(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "text-embedding-3-small")
    index.upsert(rows(("a", [1.0, 0.0, 0.0]), ("b", [0.0, 1.0, 0.0])))
    index.save()
    assert index.npz_path.name == "openai-text-embedding-3-small.npz"
    assert sorted(p.name for p in folder.iterdir()) == [
        "openai-text-embedding-3-small.json",
        "openai-text-embedding-3-small.npz",
    ]  # no temp files left behind
    header = json.loads(index.json_path.read_text())
    assert header["dimension"] == 3 and header["model"] == "text-embedding-3-small"
    assert header["hashes"] == ["h-a", "h-b"]
    again = VectorIndex.open(folder, "openai", "text-embedding-3-small")
    assert again.load_problem is None
    assert again.ids == ["a", "b"] and again.dimension == 3
    assert again.meta_of("b") == {"scope": "global"}
    assert again.search([0.0, 1.0, 0.0], 1)[0][0] == "b"


def test_another_dimension_is_refused_and_a_reset_starts_over(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0])))
    with pytest.raises(EmbeddingDimensionMismatch):
        index.upsert(rows(("b", [1.0, 0.0, 0.0])))
    with pytest.raises(EmbeddingDimensionMismatch):
        index.search([1.0, 0.0, 0.0], 1)
    assert index.ids == ["a"]  # the refused row left nothing behind
    index.reset()
    index.upsert(rows(("b", [1.0, 0.0, 0.0])))
    assert index.dimension == 3 and index.ids == ["b"]


def test_models_never_share_a_file(folder: Path) -> None:
    one = VectorIndex.open(folder, "openai", "small")
    one.upsert(rows(("a", [1.0, 0.0])))
    one.save()
    other = VectorIndex.open(folder, "openai", "large")
    assert len(other) == 0 and other.npz_path != one.npz_path


def test_a_header_of_another_model_is_not_used(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "small")
    index.upsert(rows(("a", [1.0, 0.0])))
    index.save()
    target = VectorIndex(folder, "openai", "large")
    index.npz_path.rename(target.npz_path)
    index.json_path.rename(target.json_path)
    reopened = VectorIndex.open(folder, "openai", "large")
    assert len(reopened) == 0
    assert reopened.load_problem is not None and "openai/small" in reopened.load_problem


def test_a_torn_pair_is_detected_and_starts_empty(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0])))
    index.save()
    old_npz = index.npz_path.read_bytes()
    index.upsert(rows(("b", [0.0, 1.0])))
    index.save()
    # A crash between the two renames: the new header beside the old matrix.
    index.npz_path.write_bytes(old_npz)
    torn = VectorIndex.open(folder, "openai", "m")
    assert len(torn) == 0
    assert torn.load_problem is not None and "torn" in torn.load_problem


@pytest.mark.parametrize(
    ("which", "content", "words"),
    [
        ("json", b"{not json", "unreadable"),
        ("json", b"[]", "not a JSON object"),
        ("npz", b"garbage", "matrix is unreadable"),
    ],
)
def test_corrupt_files_give_an_empty_index_not_an_error(
    folder: Path, which: str, content: bytes, words: str
) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0])))
    index.save()
    (index.json_path if which == "json" else index.npz_path).write_bytes(content)
    reopened = VectorIndex.open(folder, "openai", "m")
    assert len(reopened) == 0 and reopened.dimension is None
    assert reopened.load_problem is not None and words in reopened.load_problem
    reopened.upsert(rows(("z", [0.0, 1.0, 0.0])))  # and it is usable again, at any size
    reopened.save()
    assert VectorIndex.open(folder, "openai", "m").ids == ["z"]


def test_a_header_with_the_wrong_shape_is_not_used(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0]), ("b", [0.0, 1.0])))
    index.save()
    header = json.loads(index.json_path.read_text())
    header["dimension"] = 3
    index.json_path.write_text(json.dumps(header))
    reopened = VectorIndex.open(folder, "openai", "m")
    assert len(reopened) == 0 and "the header says" in (reopened.load_problem or "")


def test_diff_names_missing_changed_and_deleted_rows(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("same", [1.0, 0.0]), ("edited", [0.0, 1.0]), ("gone", [1.0, 1.0])))
    report = index.diff({"same": "h-same", "edited": "h-other", "new": "h-new"})
    assert report.missing == ["new"]
    assert report.changed == ["edited"]
    assert report.deleted == ["gone"]
    assert report.pending == ["new", "edited"]
    assert report.to_dict() == {"missing": 1, "changed": 1, "deleted": 1}


def test_remove_drops_rows_and_keeps_the_others_aligned(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0]), ("b", [0.0, 1.0]), ("c", [0.6, 0.8])))
    assert index.remove(["b", "unknown"]) == 1
    assert index.ids == ["a", "c"]
    best, score = index.search([0.6, 0.8], 1)[0]
    assert best == "c" and score == pytest.approx(1.0)
    assert index.remove(["a", "c"]) == 2
    assert len(index) == 0 and index.dimension is None


def test_non_finite_vectors_are_refused(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    with pytest.raises(EmbeddingUnavailable):
        index.upsert(rows(("a", [float("nan"), 1.0])))
    assert len(index) == 0


def test_stem_is_a_safe_file_name() -> None:
    assert index_stem("ollama", "nomic-embed-text:latest") == "ollama-nomic-embed-text_latest"
    assert "/" not in index_stem("openai", "../../etc/passwd")


def test_without_numpy_the_index_is_unavailable(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # what an uninstalled package looks like
    with pytest.raises(EmbeddingUnavailable, match="needs numpy"):
        VectorIndex.open(folder, "openai", "m")


# --- filtered search without a per-row scan (issue 17) ------------------------------------------
PLACES = [
    (s, w, t) for s, w in (("global", ""), ("project", "p1"), ("project", "p2")) for t in "abc"
]


def test_a_place_filter_ranks_exactly_as_a_row_by_row_filter(folder: Path) -> None:
    rng = np.random.default_rng(7)
    base = rng.standard_normal((40, 6))
    index = VectorIndex.open(folder, "openai", "m")
    # 400 rows, every vector used ten times: many exact ties, which the row order must break.
    index.upsert(
        [
            VectorRow(
                f"r{n}",
                list(base[n % 40]),
                f"h{n}",
                dict(zip(("scope", "workdir_hash", "type"), PLACES[n % len(PLACES)], strict=True)),
            )
            for n in range(400)
        ]
    )
    asked: list[tuple[str, str, str]] = []

    def place(where: tuple[str, str, str]) -> bool:
        asked.append(where)
        return where[0] == "global" or where[1] == "p1" and where[2] != "c"

    admitted = {f"r{n}" for n in range(400) if place(PLACES[n % len(PLACES)])}
    for query in rng.standard_normal((5, 6)):
        every = index.search(list(query), 400)  # each row's cosine, as the index computes it
        # What a stable sort of every row (best first, ties by row) keeps, filtered row by row.
        reference = [
            (doc_id, score)
            for doc_id, score in sorted(every, key=lambda hit: (-hit[1], int(hit[0][1:])))
            if doc_id in admitted
        ]
        for k in (1, 7, 60, 500):
            asked.clear()
            fast = index.search(list(query), k, place=place)
            assert sorted(asked) == sorted(PLACES)  # once per distinct place, not per row
            assert fast == reference[:k] and len(fast) == min(k, len(admitted))
            by_row = index.search(list(query), k, accept=lambda doc_id, _: doc_id in admitted)
            assert by_row == fast


def test_asking_the_same_vector_after_the_rows_change_sees_the_change(folder: Path) -> None:
    index = VectorIndex.open(folder, "openai", "m")
    index.upsert(rows(("a", [1.0, 0.0]), ("b", [0.8, 0.6])))
    query = [1.0, 0.0]
    assert [doc_id for doc_id, _ in index.search(query, 2)] == ["a", "b"]
    index.upsert(rows(("a", [0.0, 1.0])))  # replaced in place: same number of rows
    assert [doc_id for doc_id, _ in index.search(query, 2)] == ["b", "a"]
    index.upsert(rows(("c", [1.0, 0.0]), meta={"scope": "project"}))
    global_only = index.search(query, 3, place=lambda where: where[0] == "global")
    assert [doc_id for doc_id, _ in global_only] == ["b", "a"]
    [(best, score)] = index.search(query, 1)
    assert best == "c" and score == pytest.approx(1.0)
    index.remove(["c"])
    assert [doc_id for doc_id, _ in index.search(query, 3)] == ["b", "a"]
