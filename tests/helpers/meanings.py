"""A `Meanings` (organizer/candidates.py, our own seam) over a fixed table of cosines, so an
organizer test sets the geometry it needs; the real local model is tested in
tests/retrieval/test_meanings.py."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from liveagent_memory.organizer.decisions import OrganizerEntry

UNRELATED = 0.83  # about the median cosine of unrelated memories of one project (e5-small)


class TableMeanings:
    """Cosines by slug pair (unlisted pairs: `far`); `problem` plays a model that is missing."""

    def __init__(
        self,
        cosines: Mapping[tuple[str, str], float],
        *,
        far: float = UNRELATED,
        problem: str | None = None,
    ) -> None:
        self.cosines = {frozenset(pair): value for pair, value in cosines.items()}
        self.far = far
        self.problem = problem
        self.prepared: list[str] = []

    def prepare(
        self, memories: Sequence[OrganizerEntry], progress: Callable[[str], None]
    ) -> str | None:
        self.prepared = [memory.slug for memory in memories]
        progress(f"embedding memories for the duplicate check: {len(memories)}/{len(memories)}")
        return self.problem

    def nearest(
        self, memories: Sequence[OrganizerEntry], pools: Sequence[int], k: int
    ) -> list[list[list[tuple[int, float]]]] | None:
        if self.problem is not None:
            return None
        out: list[list[list[tuple[int, float]]]] = []
        for i, memory in enumerate(memories):
            per_pool = []
            for pool in range(max(pools) + 1):
                near = [
                    (j, self.cosines.get(frozenset({memory.slug, other.slug}), self.far))
                    for j, other in enumerate(memories)
                    if j != i and pools[j] == pool
                ]
                per_pool.append(sorted(near, key=lambda n: (-n[1], n[0]))[:k])
            out.append(per_pool)
        return out
