"""What the local model's numpy passage encoder holds in memory, and what its idle release
gives back (retrieval/embedders.py, `E5_NUMPY_IDLE_RELEASE_SECONDS`; bench/README.md "Issue
17, fifth session").

Resident memory (VmRSS) of this process: at start, after a batch of --texts passages, once the
encoder was released (the idle time shortened to --idle seconds for the run), and after the
next batch, which reads the weights again (its wall time beside the first batch's).

```sh
.venv/bin/python bench/bench_passage_memory.py --texts 64
```
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from liveagent_memory.domain import local_model_config as lmc
from liveagent_memory.retrieval.embedders import LocalE5Embedder, loaded_passage_models


def resident_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--texts", type=int, default=64)
    parser.add_argument("--idle", type=float, default=1.0, help="idle seconds before release")
    args = parser.parse_args()
    lmc.E5_NUMPY_IDLE_RELEASE_SECONDS = args.idle
    texts = [
        f"Note {i}: the release train deploys service {i} after its checks."
        for i in range(args.texts)
    ]
    embedder = LocalE5Embedder()
    out: dict[str, float] = {"start_mb": resident_mb()}
    started = time.perf_counter()
    first = embedder.embed(texts, query=False)
    out["first_batch_s"] = round(time.perf_counter() - started, 3)
    out["after_batch_mb"] = resident_mb()
    deadline = time.monotonic() + args.idle + 10
    while None in loaded_passage_models() and time.monotonic() < deadline:
        time.sleep(0.05)
    out["released"] = float(None not in loaded_passage_models())
    out["after_release_mb"] = resident_mb()
    started = time.perf_counter()
    again = embedder.embed(texts, query=False)
    out["next_batch_s"] = round(time.perf_counter() - started, 3)
    out["after_next_batch_mb"] = resident_mb()
    out["same_vectors"] = float(
        max(
            abs(a - b) for x, y in zip(first, again, strict=True) for a, b in zip(x, y, strict=True)
        )
        < 1e-6
    )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
