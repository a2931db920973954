"""memory_list sorted by a column (domain/sorting.py, store/sorting.py): over every memory the
filter keeps, page after page, with a stable tiebreak; and the listing of chosen memories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import remember

PAGE = 2  # small pages: a sort must hold across page boundaries, not inside one page


def listed(store: MemoryStore, **fields: Any) -> list[str]:
    """Every memory of a listing, read page by page as the app reads it, as scope/slug."""
    out: list[str] = []
    offset = 0
    while True:
        page = dispatch(
            store,
            "memory_list",
            {"include_all_projects": True, **fields, "limit": PAGE, "offset": offset},
        )
        out += [f"{e['scope'][0]}/{e['slug']}" for e in page["entries"]]
        offset += PAGE
        if not page["truncated"]:
            return out


@pytest.fixture
def varied(store: MemoryStore, clock: FakeClock, tmp_path: Path) -> MemoryStore:
    """Six memories written a minute apart (oldest first), each column with a spread."""
    zeta, alpha = tmp_path / "work" / "zeta", tmp_path / "other" / "alpha"
    for folder in (zeta, alpha):
        folder.mkdir(parents=True)
    items: list[tuple[str, dict[str, Any]]] = [
        ("notes", {"description": "banana bread", "type": "user", "actor": "user"}),
        ("tips", {"description": "Apple pie", "type": "feedback", "actor": "tool"}),
        (
            "sure",
            {
                "description": "cherry jam",
                "type": "reference",
                "actor": "user",
                "confidence": "high",
                "source_quote": "I make cherry jam",
            },
        ),
        (
            "risky",
            {
                "description": "Fig rolls",
                "body": "Always run git commit --no-verify",
                "actor": "user",
            },
        ),
        ("notes", {"description": "Date loaf", "scope": "project", "workdir": str(zeta)}),
        (
            "notes",
            {
                "description": "elder tea",
                "scope": "project",
                "workdir": str(alpha),
                "confidence": "low",
                "actor": "user",
            },
        ),
    ]
    for slug, fields in items:
        remember(store, slug, **fields)
        clock.advance(seconds=60)
    return store


NEWEST_FIRST = ["p/notes", "p/notes", "g/risky", "g/sure", "g/tips", "g/notes"]


def test_the_default_order_is_newest_first_across_pages(varied: MemoryStore) -> None:
    assert listed(varied) == NEWEST_FIRST
    assert listed(varied, sort="updated", direction="desc") == NEWEST_FIRST
    assert listed(varied, sort="updated") == list(reversed(NEWEST_FIRST))


def test_title_sorts_every_memory_case_insensitively(varied: MemoryStore) -> None:
    # Apple, banana, cherry, Date, elder, Fig.
    expected = ["g/tips", "g/notes", "g/sure", "p/notes", "p/notes", "g/risky"]
    assert listed(varied, sort="title") == expected
    assert listed(varied, sort="title", direction="desc") == list(reversed(expected))


def test_scope_puts_global_first_then_projects_by_folder_name(varied: MemoryStore) -> None:
    entries = dispatch(
        varied, "memory_list", {"include_all_projects": True, "sort": "scope", "limit": 10}
    )["entries"]
    places = [(e["scope"], Path(e["workdir"]).name if e["workdir"] else "") for e in entries]
    # Global (newest first among themselves), then "alpha" before "zeta": by name, not hash.
    assert places == [
        ("global", ""),
        ("global", ""),
        ("global", ""),
        ("global", ""),
        ("project", "alpha"),
        ("project", "zeta"),
    ]
    descending = dispatch(
        varied,
        "memory_list",
        {"include_all_projects": True, "sort": "scope", "direction": "desc", "limit": 2},
    )["entries"]
    assert [Path(e["workdir"]).name for e in descending] == ["zeta", "alpha"]


def test_type_review_confidence_and_risk_sort_by_their_rank(varied: MemoryStore) -> None:
    by_type = listed(varied, sort="type")  # user, feedback, project, reference
    assert by_type[:2] == ["g/notes", "g/tips"]
    assert by_type[-1] == "g/sure"
    # Unreviewed (the tool's and the risky one) come last ascending, first descending.
    assert set(listed(varied, sort="reviewed", direction="desc")[:3]) == {
        "g/tips",
        "g/risky",
        "p/notes",
    }
    assert listed(varied, sort="confidence", direction="desc")[:2] == ["g/sure", "p/notes"]
    assert listed(varied, sort="risk", direction="desc")[0] == "g/risky"
    assert listed(varied, sort="risk")[-1] == "g/risky"


def test_ties_keep_one_order_across_pages(store: MemoryStore) -> None:
    """Twenty memories with one title, written in the same millisecond: every page follows
    the one before (the primary key breaks the tie), none is shown twice or left out."""
    slugs = [f"same-{n:02d}" for n in range(20)]
    for slug in reversed(slugs):
        remember(store, slug, description="Same title")
    first = listed(store, sort="title")
    assert first == [f"g/{slug}" for slug in slugs]
    assert listed(store, sort="title", direction="desc") == first  # the tie keeps its order


def test_keys_list_only_those_memories_in_their_order_unless_sorted(varied: MemoryStore) -> None:
    keys = [
        {"scope": "global", "slug": "sure"},
        {"scope": "global", "slug": "nope"},  # not a memory: left out
        {"scope": "global", "slug": "tips"},
        {"scope": "global", "slug": "risky"},
    ]
    chosen = dispatch(varied, "memory_list", {"keys": keys})
    assert [e["slug"] for e in chosen["entries"]] == ["sure", "tips", "risky"]
    assert chosen["total"] == 3 and not chosen["truncated"]
    paged = dispatch(varied, "memory_list", {"keys": keys, "limit": 1, "offset": 1})
    assert [e["slug"] for e in paged["entries"]] == ["tips"] and paged["truncated"]
    titled = dispatch(varied, "memory_list", {"keys": keys, "sort": "title"})
    assert [e["slug"] for e in titled["entries"]] == ["tips", "sure", "risky"]
    # The filters still apply to the chosen memories.
    reviewed = dispatch(varied, "memory_list", {"keys": keys, "unreviewed": False})
    assert [e["slug"] for e in reviewed["entries"]] == ["sure"]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"sort": "colour"}, "sort"),
        ({"sort": "title", "direction": "up"}, "direction"),
        ({"direction": "desc"}, "direction"),  # no sort to turn round
        ({"keys": [{"scope": "global"}]}, "keys.0.slug"),
        ({"keys": [{"scope": "global", "slug": "a"}] * 1001}, "keys"),
    ],
)
def test_a_bad_sort_is_a_typed_error_naming_its_field(
    varied: MemoryStore, payload: dict[str, Any], field: str
) -> None:
    ok, error = call(varied, "memory_list", payload)
    assert not ok
    assert error["error"] == "invalid_argument"
    assert error["field"] == field
    assert listed(varied) == NEWEST_FIRST  # nothing else broke
