"""store/views.py: the quota figures of a scope are computed in one place for every view."""

from __future__ import annotations

from pathlib import Path

from liveagent_memory.domain.clock import MS_PER_DAY
from liveagent_memory.domain.quota import quota_ladder
from liveagent_memory.domain.requests import DailyAppendRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import write_memory


def _write(
    store: MemoryStore, slug: str, *, workdir: str | None = None, actor: str = "user"
) -> None:
    scope = "project" if workdir else "global"
    text = {"description": slug, "body": f"About {slug}."}
    write_memory(store, slug, scope=scope, workdir=workdir, actor=actor, **text)


def test_quota_summary_and_projects_give_the_same_figures(
    home: Path, clock: FakeClock, workdir: str
) -> None:
    with MemoryStore.open(home, clock=clock, scope_limit=8) as store:
        for i in range(3):
            _write(store, f"global-{i}")
        _write(store, "from-a-model", actor="tool")  # unreviewed
        store.append_daily(DailyAppendRequest(body="a journal line: not an ordinary memory"))
        clock.advance(ms=2 * MS_PER_DAY)
        for i in range(6):
            _write(store, f"project-{i}", workdir=workdir)
        quota = {(s.scope, s.workdir_hash): s for s in store.quota_summary(workdir).scopes}
        listed = {(p.scope, p.workdir_hash): p for p in store.projects().projects}
    assert set(quota) == set(listed) and len(quota) == 2
    for key, scope in quota.items():
        project = listed[key]
        figures = (project.used, project.limit, project.headroom, project.unreviewed)
        assert (scope.used, scope.limit, scope.headroom, scope.unreviewed) == figures
        assert project.ladder == quota_ladder(project.headroom).value
    assert quota[("global", "")].used == 4 and quota[("global", "")].unreviewed == 1
    assert quota[("global", "")].oldest_unreviewed_days == 2.0
    assert listed[("global", "")].counts["daily"] == 1
    project_key = next(key for key in quota if key[0] == "project")
    assert (quota[project_key].used, quota[project_key].headroom) == (6, 2)
    assert listed[project_key].ladder == "exhausted"  # 2 left of 8: the tightest rung


def test_an_empty_store_still_has_the_global_scope(store: MemoryStore, workdir: str) -> None:
    quota = store.quota_summary(workdir)
    assert [(s.scope, s.used, s.headroom) for s in quota.scopes] == [
        ("global", 0, store.scope_limit),
        ("project", 0, store.scope_limit),
    ]
    (only,) = store.projects().projects
    assert (only.scope, only.used, only.updated_at) == ("global", 0, None)
