"""Tunables of the local model's numpy passage path (issue 17; `retrieval/e5_numpy.py`).

`domain/config.py` is at the house's 800-line limit, so this group lives here, named once with
its reason like the rest; the other local-model settings (query threads, passage workers, the
e5 prefixes) stay in `config.py`.
"""

from __future__ import annotations

# Padded tokens of one numpy forward pass (texts of similar length batched together). Large
# enough that each weight matrix is streamed once for many tokens (the matmuls reach the BLAS's
# speed), small enough that the FFN's activations (tokens x 1,536 floats) stay near the cache:
# measured on the store corpus (~100 tokens a text), 1,024-4,096 within noise, 8,192 slower.
E5_NUMPY_BATCH_TOKENS = 2_048
# Attention scores of one pass (texts x 12 heads x length x length floats) stay under this many
# entries, so a batch of 512-token windows does not hold hundreds of MB: 6M entries = 24 MB.
E5_NUMPY_SCORE_ENTRIES = 6_000_000
# BLAS threads of each passage worker (the calling thread's own OpenBLAS limit): the build
# already runs one worker per core, and a BLAS team inside each worker would fight the other
# worker and the app for the same cores (bench/README.md "numpy passages", issue 17).
E5_NUMPY_BLAS_THREADS = 1
# The numpy encoder (~150 MB of float32 weights) is dropped after this long without a passage
# batch: a build embeds its chunks seconds apart and keeps it, while an app left open after a
# build gets the memory back (resident 216 -> 60 MB measured); reading it again costs ~0.4 s.
E5_NUMPY_IDLE_RELEASE_SECONDS = 120.0
