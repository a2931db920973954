"""The vector index: one matrix per provider and model, persisted atomically beside the index.

Files: `<store>/vectors/<provider>-<model>.npz` (the L2-normalised float32 matrix and a
generation token) and `.json` (format, provider, model, dimension, generation, and per
document the memory id, the hash of the text embedded and the scope/type used to filter).
REFERENCE B8 saved the same pair; B10 lists its bugs, avoided here:
- non-atomic writes: each file is written through a temp file and `os.replace`, the `.npz`
  first; both carry the same generation token, so a crash between the two renames is seen as a
  torn pair on load and the index starts empty (it is derived: the next sync refills it);
- dimension mismatch: vectors of another size are refused (`EmbeddingDimensionMismatch`), the
  caller resets the index, and one index never mixes sizes or models (the model is in the file
  name and checked against the `.json` on load);
- stale search: `diff()` names the rows whose memory changed (text hash) or disappeared.

A long document is embedded as pieces (retrieval/chunking.py): it keeps one entry (id, hash,
metadata) and several consecutive rows of the matrix, their number in the header's `chunks`
(format 2; a file of format 1 has none: one row each, read as it is). Its pieces are one unit:
`upsert` replaces all of them, `remove` and `diff` see the document, and `search` scores a
document by its best piece, so a hit names the document once.

numpy is a dependency, but its absence is handled (a broken or trimmed install): without it
`VectorIndex` (and `VectorIndex.open`, `load_numpy`) raises `EmbeddingUnavailable`, and search
stays keyword-only.
"""

from __future__ import annotations

import importlib
import io
import json
import re
import secrets
import threading
import zipfile
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import EmbeddingDimensionMismatch, EmbeddingUnavailable
from liveagent_memory.store.files import atomic_write

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

# The layouts `_load` reads: 1, one row per document; 2, a document's pieces (`chunks`).
VECTOR_INDEX_FORMATS = (1, config.VECTOR_INDEX_FORMAT)

_NUMPY_HELP = (
    "the vector index needs numpy, which is not installed; install it with "
    "`pip install 'liveagent-memory[embeddings]'` (search stays keyword-only until then)"
)


Accept = Callable[[str, Mapping[str, str]], bool]  # (id, meta) -> keep this row?
Place = tuple[str, str, str]  # a row's (scope, workdir_hash, type): what search filters by place
PlaceFilter = Callable[[Place], bool]  # asked once per distinct place of the index, not per row


def place_of(meta: Mapping[str, str]) -> Place:
    """A row's place, from its metadata (missing fields are empty)."""
    return (meta.get("scope") or "", meta.get("workdir_hash") or "", meta.get("type") or "")


def load_numpy() -> ModuleType:
    """Import numpy, or raise EmbeddingUnavailable saying how to install it."""
    try:
        return importlib.import_module("numpy")
    except ImportError:
        raise EmbeddingUnavailable(_NUMPY_HELP) from None


def numpy_available() -> bool:
    try:
        load_numpy()
    except EmbeddingUnavailable:
        return False
    return True


def index_stem(provider: str, model: str) -> str:
    """The file name (without suffix) of a provider's and model's index: `<provider>-<model>`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", f"{provider}-{model}").strip("._") or "index"


@dataclass(frozen=True)
class VectorRow:
    """One document to put in the index: its id, vector, text hash and filter metadata;
    `chunks` holds every piece's vector of a document embedded in pieces (`vector` is then
    the first), and is empty for a document embedded whole."""

    id: str
    vector: Sequence[float]
    text_hash: str
    meta: Mapping[str, str] = field(default_factory=dict)
    chunks: Sequence[Sequence[float]] = ()

    @property
    def vectors(self) -> Sequence[Sequence[float]]:
        return self.chunks or [self.vector]


@dataclass(frozen=True)
class StaleReport:
    """How the index differs from the documents it should hold."""

    missing: list[str]  # documents with no vector yet
    changed: list[str]  # documents whose text changed since they were embedded
    deleted: list[str]  # vectors of documents that no longer exist

    @property
    def pending(self) -> list[str]:
        return self.missing + self.changed

    def to_dict(self) -> dict[str, int]:
        return {
            "missing": len(self.missing),
            "changed": len(self.changed),
            "deleted": len(self.deleted),
        }


class VectorIndex:
    """Cosine top-k over the vectors of one provider and model; thread-safe."""

    def __init__(self, folder: Path, provider: str, model: str) -> None:
        self._np = load_numpy()
        self.folder = folder
        self.provider = provider
        self.model = model
        self.stem = index_stem(provider, model)
        self.dimension: int | None = None
        self.load_problem: str | None = None  # why a file on disk was not used (then: empty)
        self._ids: list[str] = []
        self._hashes: list[str] = []
        self._meta: list[dict[str, str]] = []
        self._rows: dict[str, int] = {}  # document id -> its position in the lists above
        # Each document's number of matrix rows (pieces), and where its first row is (None:
        # computed again when asked); a document's rows are consecutive, in document order.
        self._counts: list[int] = []
        self._firsts: npt.NDArray[np.intp] | None = None
        self._matrix: Matrix = self._np.zeros((0, 0), dtype=self._np.float32)
        # Each row's place as a small code (`_places[code]` is the place): a search filters by
        # place with one array lookup instead of a Python call per row. Built by the first
        # search after the rows change (None until then), so a build's many upserts pay nothing.
        self._places: list[Place] = []
        self._place_codes: npt.NDArray[np.int32] | None = None
        # The latest query's scores (its vector's bytes, every row's cosine), kept until the rows
        # change: the searches of one context ask the same vector with different filters.
        self._ranked: tuple[bytes, Matrix] | None = None
        self._lock = threading.RLock()
        self._stamp: tuple[int, int] | None = None

    # --- files ------------------------------------------------------------------------------
    @property
    def npz_path(self) -> Path:
        return self.folder / f"{self.stem}.npz"

    @property
    def json_path(self) -> Path:
        return self.folder / f"{self.stem}.json"

    @classmethod
    def open(cls, folder: Path, provider: str, model: str) -> VectorIndex:
        """Load the index of a provider and model; an unusable file gives an empty index."""
        index = cls(folder, provider, model)
        index.reload()
        return index

    def file_stamp(self) -> tuple[int, int] | None:
        """(mtime_ns, size) of the `.json`, to notice another process saving a new version."""
        try:
            stat = self.json_path.stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def changed_on_disk(self) -> bool:
        return self.file_stamp() != self._stamp

    def reload(self) -> None:
        """Read both files again; keep nothing from a torn, foreign or corrupt pair."""
        with self._lock:
            self._clear()
            self.load_problem = None
            self._stamp = self.file_stamp()
            if self._stamp is None:
                if self.npz_path.exists():
                    self.load_problem = "the .json half of the index is missing"
                return
            try:
                self._load()
            except _Unusable as problem:
                self._clear()
                self.load_problem = str(problem)

    def _load(self) -> None:
        np = self._np
        try:
            header = json.loads(self.json_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise _Unusable(f"the index header is unreadable ({type(exc).__name__})") from None
        if not isinstance(header, dict):
            raise _Unusable("the index header is not a JSON object")
        if header.get("format") not in VECTOR_INDEX_FORMATS:
            raise _Unusable(f"index format {header.get('format')!r} is not supported")
        if header.get("provider") != self.provider or header.get("model") != self.model:
            raise _Unusable(
                f"the file holds {header.get('provider')}/{header.get('model')}, "
                f"not {self.provider}/{self.model}"
            )
        ids, hashes, meta = header.get("ids"), header.get("hashes"), header.get("meta")
        dimension = header.get("dimension")
        if not (
            isinstance(ids, list)
            and isinstance(hashes, list)
            and isinstance(meta, list)
            and len(ids) == len(hashes) == len(meta)
            and all(isinstance(i, str) for i in ids)
            and all(isinstance(h, str) for h in hashes)
            and all(isinstance(m, dict) for m in meta)
            and len(set(ids)) == len(ids)
        ):
            raise _Unusable("the index header's rows are malformed")
        if ids and not (isinstance(dimension, int) and dimension > 0):
            raise _Unusable("the index header has no valid dimension")
        try:
            with np.load(self.npz_path, allow_pickle=False) as data:
                matrix = np.asarray(data["vectors"], dtype=np.float32)
                generation = str(data["generation"])
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise _Unusable(f"the index matrix is unreadable ({type(exc).__name__})") from None
        if generation != header.get("generation"):
            # Trigger: a crash between the two renames of save(). Outcome: start empty.
            raise _Unusable("the matrix and the header come from different saves (torn write)")
        counts = header.get("chunks", [1] * len(ids))
        if not (
            isinstance(counts, list)
            and len(counts) == len(ids)
            and all(isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in counts)
        ):
            raise _Unusable("the index header's chunk counts are malformed")
        if ids and matrix.shape != (sum(counts), dimension):
            raise _Unusable(
                f"the matrix is {matrix.shape}, the header says {sum(counts)} x {dimension}"
            )
        if not np.isfinite(matrix).all():
            raise _Unusable("the matrix holds NaN or infinity")
        self._ids = list(ids)
        self._hashes = list(hashes)
        self._meta = [{str(k): str(v) for k, v in m.items()} for m in meta]
        self._rows = {doc_id: row for row, doc_id in enumerate(self._ids)}
        self._counts = list(counts)
        self.dimension = dimension if ids else None
        self._matrix = matrix if ids else np.zeros((0, 0), dtype=np.float32)
        self._recode_places()

    def save(self) -> None:
        """Write the `.npz` then the `.json`, each atomically, tied by a new generation."""
        np = self._np
        with self._lock:
            generation = secrets.token_hex(8)
            buffer = io.BytesIO()
            np.savez(buffer, vectors=self._matrix, generation=np.array(generation))
            chunked = any(count > 1 for count in self._counts)
            header: dict[str, Any] = {
                # An index without pieces stays format 1, which older versions read too.
                "format": config.VECTOR_INDEX_FORMAT if chunked else 1,
                "provider": self.provider,
                "model": self.model,
                "dimension": self.dimension,
                "generation": generation,
                "count": len(self._ids),
                "ids": self._ids,
                "hashes": self._hashes,
                "meta": self._meta,
            }
            if chunked:
                header["chunks"] = self._counts
            atomic_write(self.npz_path, buffer.getvalue(), sync_dir=False)
            atomic_write(self.json_path, json.dumps(header, ensure_ascii=False).encode("utf-8"))
            self._stamp = self.file_stamp()
            self.load_problem = None

    # --- contents ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> list[str]:
        with self._lock:
            return list(self._ids)

    def hash_of(self, doc_id: str) -> str | None:
        with self._lock:
            row = self._rows.get(doc_id)
            return self._hashes[row] if row is not None else None

    def meta_of(self, doc_id: str) -> dict[str, str] | None:
        with self._lock:
            row = self._rows.get(doc_id)
            return dict(self._meta[row]) if row is not None else None

    def _clear(self) -> None:
        self._ids, self._hashes, self._meta, self._rows = [], [], [], {}
        self._counts = []
        self._matrix = self._np.zeros((0, 0), dtype=self._np.float32)
        self.dimension = None
        self._recode_places()

    def _recode_places(self) -> None:
        """Forget what was derived from the rows (their place codes, the cached ranking): they
        changed."""
        self._place_codes = None
        self._ranked = None
        self._firsts = None

    def _coded_places(self) -> npt.NDArray[np.int32]:
        """Each row's place code, built now if the rows changed (the caller holds the lock)."""
        if self._place_codes is None:
            codes: dict[Place, int] = {}
            column = [codes.setdefault(place_of(meta), len(codes)) for meta in self._meta]
            self._places = list(codes)
            self._place_codes = self._np.asarray(column, dtype=self._np.int32)
        return self._place_codes

    def reset(self) -> None:
        """Drop every vector (a new dimension or model starts from nothing; nothing is mixed)."""
        with self._lock:
            self._clear()

    def upsert(self, rows: Sequence[VectorRow]) -> None:
        """Add or replace documents, each with all its pieces; vectors of another dimension
        than the index's are refused."""
        if not rows:
            return
        rows = list({row.id: row for row in rows}.values())  # a repeated id: its last row
        np = self._np
        matrix = np.asarray([list(v) for row in rows for v in row.vectors], dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise EmbeddingDimensionMismatch("vectors of one batch have different sizes")
        if not np.isfinite(matrix).all():
            raise EmbeddingUnavailable("a vector holds NaN or infinity")
        with self._lock:
            if self.dimension is not None and matrix.shape[1] != self.dimension:
                raise EmbeddingDimensionMismatch(
                    f"{self.provider}/{self.model} returned {matrix.shape[1]} dimensions; "
                    f"its index holds {self.dimension}"
                )
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix = matrix / np.where(norms > 0, norms, 1.0)
            if self.dimension is None:
                self.dimension = int(matrix.shape[1])
                self._matrix = np.zeros((0, self.dimension), dtype=np.float32)
            # Trigger: a document's number of pieces changed. Outcome: its old rows go and its
            # new ones are appended, so each document's rows stay consecutive.
            regrown = {
                row.id
                for row in rows
                if row.id in self._rows and self._counts[self._rows[row.id]] != len(row.vectors)
            }
            self._remove(regrown)
            firsts = self._first_rows()
            fresh: list[int] = []
            position = 0
            for row in rows:
                size = len(row.vectors)
                existing = self._rows.get(row.id)
                if existing is None:
                    fresh.extend(range(position, position + size))
                    self._rows[row.id] = len(self._ids)
                    self._ids.append(row.id)
                    self._hashes.append(row.text_hash)
                    self._meta.append(dict(row.meta))
                    self._counts.append(size)
                else:
                    first = int(firsts[existing])
                    self._matrix[first : first + size] = matrix[position : position + size]
                    self._hashes[existing] = row.text_hash
                    self._meta[existing] = dict(row.meta)
                position += size
            if fresh:
                self._matrix = np.vstack([self._matrix, matrix[fresh]])
            self._recode_places()

    def remove(self, ids: Iterable[str]) -> int:
        """Delete the documents of `ids` (all their pieces); return how many there were."""
        with self._lock:
            return self._remove({doc_id for doc_id in ids if doc_id in self._rows})

    def _remove(self, gone: set[str]) -> int:
        """Delete the documents of `gone` (all known; the caller holds the lock)."""
        if not gone:
            return 0
        np = self._np
        keep = [row for row, doc_id in enumerate(self._ids) if doc_id not in gone]
        kept_rows = np.repeat(
            np.asarray([doc_id not in gone for doc_id in self._ids], dtype=bool),
            np.asarray(self._counts, dtype=np.intp),
        )
        self._matrix = self._matrix[kept_rows]
        self._ids = [self._ids[row] for row in keep]
        self._hashes = [self._hashes[row] for row in keep]
        self._meta = [self._meta[row] for row in keep]
        self._counts = [self._counts[row] for row in keep]
        self._rows = {doc_id: row for row, doc_id in enumerate(self._ids)}
        self._recode_places()
        if not self._ids:
            self._clear()
        return len(gone)

    def _first_rows(self) -> npt.NDArray[np.intp]:
        """Each document's first matrix row (the caller holds the lock)."""
        if self._firsts is None or len(self._firsts) != len(self._counts):
            np = self._np
            counts = np.asarray(self._counts, dtype=np.intp)
            self._firsts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intp)
        return self._firsts

    @property
    def chunked(self) -> bool:
        """Whether some document has more than one piece."""
        with self._lock:
            return any(count > 1 for count in self._counts)

    def chunks_of(self, doc_id: str) -> int:
        """How many pieces (matrix rows) a document has; 0 when it has none."""
        with self._lock:
            row = self._rows.get(doc_id)
            return self._counts[row] if row is not None else 0

    def diff(self, current: Mapping[str, str]) -> StaleReport:
        """Compare with the documents that exist now (`id -> text hash`)."""
        with self._lock:
            missing = [doc_id for doc_id in current if doc_id not in self._rows]
            changed = [
                doc_id
                for doc_id, text_hash in current.items()
                if doc_id in self._rows and self._hashes[self._rows[doc_id]] != text_hash
            ]
            deleted = [doc_id for doc_id in self._ids if doc_id not in current]
        return StaleReport(missing, changed, deleted)

    def rows_of(self, ids: Sequence[str]) -> Matrix | None:
        """One unit vector per document of `ids`, in that order (a document in pieces: their
        normalised mean); None when one is missing."""
        with self._lock:
            docs = [self._rows.get(doc_id) for doc_id in ids]
            if any(doc is None for doc in docs):
                return None
            positions = [doc for doc in docs if doc is not None]
            if not self.chunked:
                return self._matrix[positions]
            np = self._np
            firsts = self._first_rows()
            means = np.asarray(
                [
                    self._matrix[firsts[doc] : firsts[doc] + self._counts[doc]].mean(axis=0)
                    for doc in positions
                ],
                dtype=np.float32,
            ).reshape(len(positions), self.dimension or 0)
            norms = np.linalg.norm(means, axis=1, keepdims=True)
            return cast("Matrix", means / np.where(norms > 0, norms, 1.0))

    # --- search -----------------------------------------------------------------------------
    def search(
        self,
        query: Sequence[float],
        k: int,
        *,
        accept: Accept | None = None,
        place: PlaceFilter | None = None,
        among: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The `k` rows most similar to `query` (cosine), best first (ties by row order), that
        `place` (asked once per distinct place) and `accept` (per row) keep; with `among`, only
        the documents of those ids (an id the index does not hold is left out).

        One query's scores are kept until the rows change, so asking the same vector again
        with another filter (the searches of one context) costs no second matrix product; the
        best `k` are picked by partition, not by sorting every row, unless `accept` must walk
        the ranking row by row.
        """
        np = self._np
        vector = np.asarray(list(query), dtype=np.float32)
        with self._lock:
            if not self._ids or k <= 0:
                return []
            if vector.shape != (self.dimension,):
                raise EmbeddingDimensionMismatch(
                    f"the query vector has {vector.shape[-1]} dimensions; "
                    f"the {self.provider}/{self.model} index holds {self.dimension}"
                )
            scores = self._scores(vector)
            if among is None:
                rows = np.arange(len(self._ids))
            else:
                held = sorted(row for row in map(self._rows.get, among) if row is not None)
                rows = np.asarray(held, dtype=np.intp)
            if place is not None:
                codes = self._coded_places()
                allowed = np.asarray([place(p) for p in self._places], dtype=bool)
                rows = rows[allowed[codes[rows]]]
            ids, meta = self._ids, self._meta
        if accept is None:
            return [(ids[row], float(scores[row])) for row in _best(np, scores, rows, k)]
        out: list[tuple[str, float]] = []
        for row in _best(np, scores, rows, len(rows)):
            if accept(ids[row], meta[row]):
                out.append((ids[row], float(scores[row])))
                if len(out) >= k:
                    break
        return out

    def _scores(self, vector: Matrix) -> Matrix:
        """Every document's cosine with `vector` (its best piece's), kept for the next call with
        the same vector (the caller holds the lock)."""
        np = self._np
        key = vector.tobytes()
        if self._ranked is not None and self._ranked[0] == key:
            return self._ranked[1]
        norm = float(np.linalg.norm(vector))
        scores = cast("Matrix", self._matrix @ (vector / norm if norm > 0 else vector))
        if len(scores) != len(self._ids):
            # A document in pieces scores as its best piece: one score per document.
            scores = cast("Matrix", np.maximum.reduceat(scores, self._first_rows()))
        self._ranked = (key, scores)
        return scores

    def summary(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "file": str(self.npz_path),
            "exists": self._stamp is not None,
            "count": len(self),
            "vectors": int(self._matrix.shape[0]) if len(self) else 0,
            "dimension": self.dimension,
            "problem": self.load_problem,
        }


def _best(np: ModuleType, scores: Matrix, rows: npt.NDArray[np.intp], k: int) -> list[int]:
    """The `k` of `rows` with the highest `scores`, best first, ties by row: as a stable sort of
    every row would give them, without sorting more than the best `k` (and their ties)."""
    picked = scores[rows]
    if len(rows) > k:
        kth = np.partition(picked, len(rows) - k)[len(rows) - k]  # the k-th highest score
        keep = picked >= kth  # ties with it included: the row order decides among them
        rows, picked = rows[keep], picked[keep]
    order = np.lexsort((rows, -picked))
    return [int(row) for row in rows[order][:k]]


class _Unusable(Exception):
    """A file of the index cannot be used; the index starts empty instead."""
