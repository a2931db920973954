"""Tunables of a cold reconcile's full-text worker (issue 17), kept apart from
domain/config.py (at its size limit) as one group, with why each has its value."""

from __future__ import annotations

# A full reconcile pass over at least this many files hands memory_fts_tri and memory_search
# to a worker process (store/cold_fts.py). Starting it costs a Python start-up and the store's
# imports (about 0.1 s of the other core) and the copy of its tables about 10 us per file: at
# 2,000 files the pass takes about 0.5 s, where the worker saves more than it costs; a smaller
# pass (a new project, a test store) stays in one process.
COLD_FTS_WORKER_MIN_FILES = 2000
# With the worker, a full pass commits this many files per transaction: the worker starts on
# the first chunk's rows only once they are committed, so a smaller first chunk starts it
# sooner, and the parent's own memory_fts is cheap to merge (bench/README.md "Issue 17: cold
# reconcile on two cores").
COLD_FTS_WORKER_CHUNK = 1000
# The worker starts only while the machine has this much of a core idle on average (measured
# over the pass's scan, store/cold_fts.py `idle_cores`): with no idle core it has no
# second core to use, and its start-up, pickling and copy only add about 0.3 s of CPU at 10k;
# measured on two cores at load 6-9: 4.7-5.0 s with the worker against 3.5-4.7 s without
# (bench/README.md "Issue 17: cold reconcile on two cores").
COLD_FTS_WORKER_IDLE_CORES = 0.5
# The scan's window tells idle cores apart only with this many clock ticks of CPU time in it
# (all cores; at the usual 100 ticks/s on two cores, 50 ms); a shorter one (a small store)
# falls back on the 1-minute load average.
COLD_FTS_IDLE_WINDOW_TICKS = 10
