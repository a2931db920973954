"""domain/visibility.py: which scopes a read sees, the one rule every read and the vector
filter use."""

from __future__ import annotations

import pytest

from liveagent_memory.domain.errors import WorkdirRequired
from liveagent_memory.domain.filters import MemoryFilter
from liveagent_memory.domain.schema import MemoryType, Scope
from liveagent_memory.domain.visibility import GLOBAL_ONLY, Visibility, visibility

HERE, THERE = "a" * 16, "b" * 16
PLACES = [("global", ""), ("project", HERE), ("project", THERE)]


@pytest.mark.parametrize(
    ("scope", "project", "all_projects", "seen"),
    [
        (None, HERE, False, [("global", ""), ("project", HERE)]),
        (None, None, False, [("global", "")]),
        (Scope.GLOBAL, HERE, False, [("global", "")]),
        (Scope.GLOBAL, None, True, [("global", "")]),
        (Scope.PROJECT, HERE, False, [("project", HERE)]),
        (None, HERE, True, PLACES),
        (None, None, True, PLACES),
        (Scope.PROJECT, None, True, [("project", HERE), ("project", THERE)]),
    ],
)
def test_what_a_read_sees(
    scope: Scope | None, project: str | None, all_projects: bool, seen: list[tuple[str, str]]
) -> None:
    rule = visibility(scope, project, all_projects=all_projects)
    assert [place for place in PLACES if rule.admits(*place)] == seen


def test_the_project_scope_needs_a_project() -> None:
    with pytest.raises(WorkdirRequired) as caught:
        visibility(Scope.PROJECT, None, purpose="listing project journals")
    assert caught.value.code == "workdir_required" and caught.value.field == "workdir"
    assert caught.value.message == "listing project journals requires a workdir"


def test_unknown_scopes_are_never_visible() -> None:
    everything = visibility(None, None, all_projects=True)
    assert everything.everything and not everything.admits("elsewhere", "")
    assert not everything.admits(None, None)
    assert GLOBAL_ONLY == Visibility(global_scope=True) and not GLOBAL_ONLY.everything


def test_the_filter_adds_type_to_the_place() -> None:
    flt = MemoryFilter(visibility(None, HERE), type=MemoryType.USER)
    assert flt.admits_place("global", "", "user")
    assert not flt.admits_place("global", "", "reference")
    assert not flt.admits_place("project", THERE, "user")
    assert not flt.reviews
    assert MemoryFilter(GLOBAL_ONLY, unreviewed=False).reviews
    assert MemoryFilter(GLOBAL_ONLY, risk_flagged=False).reviews
