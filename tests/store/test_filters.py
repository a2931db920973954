"""store/filters.py: memory_list and memory_search share one filter, applied before the limit."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.domain.requests import DailyAppendRequest, ListRequest, SearchRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.memories import write_memory

PACKAGE = Path(__file__).resolve().parents[2] / "liveagent_memory"
WORD = "kettle"


def _write(store: MemoryStore, slug: str, **fields: Any) -> None:
    """A memory a person wrote that mentions the word, unless `fields` say otherwise."""
    mentions = {
        "description": f"{slug.replace('-', ' ')} {WORD}",
        "body": f"The {WORD} note {slug}.",
    }
    write_memory(store, slug, **({"actor": "user"} | mentions | fields))


@pytest.fixture
def varied(store: MemoryStore, workdir: str, tmp_path: Path) -> MemoryStore:
    """Memories in every corner of the filter: two projects, five types, both review states,
    each confidence, with and without a risk flag; every one mentions the word."""
    other = tmp_path / "other"
    other.mkdir()
    _write(store, "global-ref")
    _write(store, "global-user", type="user", actor="tool")
    _write(store, "global-quoted", confidence="high", source_quote=f"the {WORD} is blue")
    _write(store, "global-medium", confidence="medium", source_quote="so", actor="tool")
    _write(store, "global-risky", body=f"Boil the {WORD} with sudo.")
    _write(store, "here-project", scope="project", workdir=workdir, type="project")
    _write(store, "here-feedback", scope="project", workdir=workdir, type="feedback", actor="tool")
    _write(store, "here-low", scope="project", workdir=workdir, confidence="low", source_quote="x")
    _write(store, "there-ref", scope="project", workdir=str(other))
    _write(store, "there-risky", scope="project", workdir=str(other), body=f"{WORD}: eval(x)")
    return store


PLACES: list[dict[str, Any]] = [
    {},
    {"scope": "global"},
    {"scope": "project", "use_workdir": True},
    {"use_workdir": True},
    {"include_all_projects": True},
    {"scope": "project", "include_all_projects": True},
    {"scope": "global", "include_all_projects": True},
]
KINDS: list[dict[str, Any]] = [
    {},
    {"type": "reference"},
    {"type": "project"},
    {"unreviewed": True},
    {"unreviewed": False},
    {"confidence": "unknown"},
    {"confidence": "high"},
    {"confidence": "low"},
    {"risk_flagged": True},
    {"risk_flagged": False},
    {"unreviewed": False, "risk_flagged": False, "type": "reference"},
]


@pytest.mark.parametrize(("place", "kind"), list(itertools.product(PLACES, KINDS)))
def test_list_and_search_keep_the_same_memories(
    varied: MemoryStore, workdir: str, place: dict[str, Any], kind: dict[str, Any]
) -> None:
    fields = {k: v for k, v in {**place, **kind}.items() if k != "use_workdir"}
    if place.get("use_workdir"):
        fields["workdir"] = workdir
    listed = varied.list_entries(ListRequest(**fields))
    found = varied.search(SearchRequest(query=WORD, limit=32, **fields))
    assert sorted(h.slug for h in found.matches) == sorted(e.slug for e in listed.entries)


def test_the_corners_hold_what_they_should(varied: MemoryStore, workdir: str) -> None:
    def listed(**fields: Any) -> set[str]:
        return {e.slug for e in varied.list_entries(ListRequest(**fields)).entries}

    assert listed(workdir=workdir, risk_flagged=True) == {"global-risky"}
    assert listed(include_all_projects=True, risk_flagged=True) == {"global-risky", "there-risky"}
    assert listed(workdir=workdir, unreviewed=True) == {
        "global-user",
        "global-medium",
        "global-risky",
        "here-feedback",
    }
    assert listed(scope="project", include_all_projects=True, confidence="low") == {"here-low"}
    assert listed(scope="global", include_all_projects=True, type="user") == {"global-user"}


def test_search_filters_before_its_limit(store: MemoryStore) -> None:
    """More than the candidates fetched (64) outrank the one memory the filter keeps."""
    for i in range(70):
        _write(store, f"loud-{i:02d}", description=f"{WORD} {WORD} {WORD} {i}")
    _write(store, "quiet", description="a quiet note", body=f"Once a {WORD}.", actor="tool")
    best = store.search(SearchRequest(query=WORD, limit=32))
    assert "quiet" not in {h.slug for h in best.matches}
    kept = store.search(SearchRequest(query=WORD, limit=1, unreviewed=True))
    assert [(h.slug, h.unreviewed) for h in kept.matches] == [("quiet", True)]
    assert not kept.used_fallback  # found by the full-text query itself


def test_the_substring_fallback_obeys_the_filter(store: MemoryStore) -> None:
    """A word found only inside longer words (the trigram table) is filtered in its SQL too."""
    _write(store, "notes", description="notes", body="The precompiler is fast.")
    _write(store, "mine", type="user", description="mine", body="I run the precompiler.")
    _write(store, "again", description="tool", body="The precompiler again.", actor="tool")
    everything = store.search(SearchRequest(query="compile"))
    assert everything.used_fallback
    assert {h.slug for h in everything.matches} == {"notes", "mine", "again"}
    typed = store.search(SearchRequest(query="compile", type="user"))
    assert typed.used_fallback and [h.slug for h in typed.matches] == ["mine"]
    unreviewed = store.search(SearchRequest(query="compile", unreviewed=True))
    assert [h.slug for h in unreviewed.matches] == ["again"]
    flagged = store.search(SearchRequest(query="compile", risk_flagged=True))
    assert flagged.matches == []


def test_journal_days_are_searched_unless_the_request_leaves_them_out(
    store: MemoryStore,
) -> None:
    """The agent's search ranks journal days (daily decay); the Memories page asks for none."""
    _write(store, "kettle-note", body=f"The {WORD} note, precompiler too.")
    store.append_daily(DailyAppendRequest(body=f"Bought a {WORD} for the precompiler team."))
    day = f"daily-{store.today().isoformat()}"

    def found(query: str = WORD, **fields: Any) -> list[str]:
        return sorted(h.slug for h in store.search(SearchRequest(query=query, **fields)).matches)

    assert found() == [day, "kettle-note"]  # unchanged for the agent
    assert found(include_daily=False) == ["kettle-note"]
    assert found(include_daily=False, type="daily") == [day]  # asking for journals wins
    assert found("compile") == [day, "kettle-note"]  # the substring fallback alike
    assert found("compile", include_daily=False) == ["kettle-note"]
    assert store.search(SearchRequest(query="compile", include_daily=False)).used_fallback
    listed = [e.slug for e in store.list_entries(ListRequest()).entries]
    assert listed == ["kettle-note"]  # a list leaves them out unless asked
    everything = store.list_entries(ListRequest(include_daily=True)).entries
    assert sorted(e.slug for e in everything) == [day, "kettle-note"]
    # The vector side of a hybrid search asks the same filter.
    flt = store.memory_filter(SearchRequest(query=WORD, include_daily=False))
    assert not flt.admits_place("global", "", "daily")
    assert flt.admits_place("global", "", "reference")


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"scope": "nowhere"}, "invalid_scope", "scope"),
        ({"type": "diary"}, "invalid_type", "type"),
        ({"confidence": "sure"}, "invalid_argument", "confidence"),
        ({"risk_flagged": "yes please"}, "invalid_argument", "risk_flagged"),
        ({"scope": "project"}, "workdir_required", "workdir"),
        ({"workdir_hash": "not-a-hash"}, "invalid_workdir_hash", "workdir_hash"),
    ],
)
def test_list_and_search_refuse_a_bad_filter_alike(
    varied: MemoryStore, fields: dict[str, Any], code: str, field: str
) -> None:
    for command, extra in (("memory_list", {}), ("memory_search", {"query": WORD})):
        with pytest.raises(MemoryDomainError) as caught:
            dispatch(varied, command, {**extra, **fields})
        assert (caught.value.code, caught.value.field) == (code, field), command
    # nothing changed: the store still lists every memory
    assert varied.list_entries(ListRequest(include_all_projects=True)).total == 10


def test_only_store_filters_spells_scope_visibility_in_sql() -> None:
    spelled = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if "scope = 'global'" in path.read_text(encoding="utf-8")
    )
    # store/schema.py: a CHECK constraint (journals are global), not a read's visibility
    assert spelled == ["store/filters.py", "store/schema.py"]
