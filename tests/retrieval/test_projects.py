"""The cross-project index: discovery of LiveAgent and Loki Mode stores at any depth, counted
from their files; this store's projects through memory_projects (SPEC 6, REFERENCE B9/B10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import ProjectsDiscoverRequest
from liveagent_memory.domain.schema import DiscoveredStore, DiscoveryResult
from liveagent_memory.paths import workdir_hash
from liveagent_memory.retrieval.projects import discover, discover_stores
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_text, write_file
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import remember
from tests.helpers.unprivileged import Unprivileged

HASH_A = "0123456789abcdef"
HASH_B = "fedcba9876543210"


def make_loki(
    project: Path,
    *,
    episodes: tuple[str, ...] = (),
    patterns: int | None = None,
    skills: int = 0,
) -> Path:
    """A Loki Mode store `<project>/.loki/memory` (REFERENCE B1); returns the memory folder."""
    memory = project / ".loki" / "memory"
    for relpath in episodes:
        write_file(memory / "episodic", relpath, json.dumps({"id": relpath}))
    if patterns is not None:
        items = [{"id": f"p{i}", "pattern": f"pattern {i}"} for i in range(patterns)]
        write_file(memory, "semantic/patterns.json", json.dumps({"patterns": items}))
    for i in range(skills):
        write_file(memory, f"skills/skill-{i}.json", json.dumps({"name": f"skill-{i}"}))
    memory.mkdir(parents=True, exist_ok=True)
    return memory


def make_liveagent(
    root: Path,
    *,
    global_files: dict[str, str] | None = None,
    projects: dict[str, list[str]] | None = None,
    index: bool = True,
) -> Path:
    """A LiveAgent store written by hand (REFERENCE A1): relpath -> type, project -> types."""
    for relpath, kind in (global_files or {}).items():
        write_file(root, f"global/{relpath}", memory_text(Path(relpath).stem, type=kind))
    for project, kinds in (projects or {}).items():
        folder = root / "projects" / project
        for i, kind in enumerate(kinds):
            write_file(folder, f"note-{i}.md", memory_text(f"note-{i}", type=kind))
        write_file(folder, "MEMORY.md", "# MEMORY\n")
        write_file(folder, ".workdir.json", json.dumps({"path": f"/src/{project}"}))
    if index:
        write_file(root, config.INDEX_FILENAME, b"not opened: may be another version")
    (root / "global").mkdir(parents=True, exist_ok=True)
    return root


def by_path(result: DiscoveryResult) -> dict[str, DiscoveredStore]:
    return {store.path: store for store in result.discovered}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "code"
    root.mkdir()
    return root


# --- Finding stores ---------------------------------------------------------------------------


def test_stores_of_both_kinds_are_found_three_to_five_folders_down(tree: Path) -> None:
    shallow = make_loki(
        tree / "a" / "b" / "api",  # depth 3
        episodes=("2026-01-01/task-1.json", "2026-01-02/task-2.json", "index.json"),
        patterns=4,
        skills=2,
    )
    deep = make_loki(tree / "w" / "x" / "y" / "z" / "web", episodes=("2026-01-01/t.json",))
    store = make_liveagent(
        tree / "m" / "n" / "o" / "memory",  # depth 4
        global_files={"style.md": "project", "user/me.md": "user", "daily/2026-01-01.md": "daily"},
        projects={HASH_A: ["project", "feedback", "reference"]},
    )
    result = discover_stores([str(tree)])
    found = by_path(result)
    assert sorted(found) == sorted([str(shallow), str(deep), str(store)])
    api = found[str(shallow)]
    assert (api.kind, api.name, api.depth, api.problems) == ("loki", "api", 3, [])
    assert api.counts == {"episodic": 2, "semantic": 4, "skills": 2}  # index.json is no episode
    assert api.total == 8
    assert (found[str(deep)].depth, found[str(deep)].name) == (5, "web")
    liveagent = found[str(store)]
    assert (liveagent.kind, liveagent.depth, liveagent.name) == ("liveagent", 4, "o/memory")
    assert liveagent.counts == {
        "user": 1,
        "feedback": 1,
        "project": 2,
        "reference": 1,
        "daily": 1,
        "skill": 0,
    }
    assert liveagent.total == 6
    assert liveagent.project_count == 1
    glob, project = liveagent.scopes
    assert (glob.scope, glob.total) == ("global", 3)
    assert (project.key, project.workdir, project.total) == (HASH_A, f"/src/{HASH_A}", 3)
    totals = result.totals
    assert (totals.stores, totals.liveagent_stores, totals.loki_stores) == (3, 1, 2)
    assert (totals.projects, totals.memories, totals.episodes) == (3, 6, 3)
    assert (totals.patterns, totals.skills, totals.problems) == (4, 2, 0)
    assert result.skipped == [] and result.max_depth == config.PROJECTS_DEFAULT_MAX_DEPTH


def test_episodes_are_counted_in_every_nested_folder(tree: Path) -> None:
    # REFERENCE B10: a non-recursive glob counted zero episodes in date folders.
    memory = make_loki(
        tree / "proj",
        episodes=(
            "2026-01-01/task-a.json",
            "2026-01-01/sub/deeper/task-b.json",
            "2026-02-03/task-c.json",
            "loose.json",
            "2026-02-03/index.json",
            "2026-02-03/.tmp_123.json",  # an interrupted write
            "2026-02-03/task-c.json.lock",
            "2026-02-03/notes.txt",
        ),
    )
    [store] = discover_stores([str(tree)]).discovered
    assert store.path == str(memory)
    assert store.counts == {"episodic": 4, "semantic": 0, "skills": 0}


def test_namespaces_are_counted_apart_and_added_up(tree: Path) -> None:
    memory = make_loki(tree / "proj", episodes=("2026-01-01/t.json",), skills=1)
    make_loki(tree / "scratch", patterns=1)
    for ns, n in (("billing", 2), ("auth", 3)):
        for i in range(n):
            write_file(memory / ns, f"episodic/2026-01-0{i + 1}/t.json", "{}")
        write_file(memory / ns, "semantic/patterns.json", json.dumps({"patterns": [{}] * n}))
    (memory / "vectors").mkdir()  # a reserved folder, not a namespace
    (memory / "unrelated").mkdir()  # no episodic/semantic/skills: not a namespace
    store = by_path(discover_stores([str(tree)]))[str(memory)]
    assert [(s.key, s.counts["episodic"], s.counts["semantic"]) for s in store.scopes] == [
        ("default", 1, 0),
        ("auth", 3, 3),
        ("billing", 2, 2),
    ]
    assert store.counts == {"episodic": 6, "semantic": 5, "skills": 1}
    assert store.project_count == 1


def test_a_root_may_itself_be_a_store(tree: Path) -> None:
    memory = make_loki(tree / "proj", skills=1)
    store = make_liveagent(tree / "la", projects={HASH_A: ["project"]})
    for root, expected in (
        (memory, memory),
        (memory.parent, memory),
        (tree / "proj", memory),
        (store, store),
    ):
        [found] = discover_stores([str(root)], max_depth=0).discovered
        assert (found.path, found.depth) == (str(expected), 0)


def test_the_depth_limit_is_respected(tree: Path) -> None:
    near = make_loki(tree / "a" / "b" / "near")  # depth 3
    make_loki(tree / "a" / "b" / "c" / "d" / "far")  # depth 5
    make_liveagent(tree / "a" / "b" / "c" / "la", projects={HASH_A: ["user"]})  # depth 4
    result = discover_stores([str(tree)], max_depth=3)
    assert [s.path for s in result.discovered] == [str(near)]
    assert result.totals.depth_limited >= 1
    assert result.max_depth == 3
    assert len(discover_stores([str(tree)], max_depth=5).discovered) == 3
    assert discover_stores([str(tree)], max_depth=0).discovered == []


def test_heavy_and_hidden_folders_are_not_entered_except_loki_and_liveagent(tree: Path) -> None:
    for skipped in ("node_modules/pkg", ".git/x", ".venv/lib", ".cache/tool", "build", "target"):
        make_loki(tree / "repo" / skipped)
        make_liveagent(tree / "repo" / skipped / "mem", projects={HASH_A: ["user"]})
    home_store = make_liveagent(tree / "home" / ".liveagent" / "memory", projects={HASH_B: []})
    result = discover_stores([str(tree)])
    assert [s.path for s in result.discovered] == [str(home_store)]
    assert home_store.name == "memory" and result.discovered[0].name == ".liveagent/memory"
    assert result.totals.dirs_pruned == 6


@pytest.mark.timeout(20)  # a walk that followed the loop would not end
def test_a_symlink_loop_ends_and_is_reported(tree: Path) -> None:
    memory = make_loki(tree / "a" / "b" / "proj", skills=1)
    (tree / "a" / "b" / "up").symlink_to(tree)  # a link to an ancestor
    (tree / "a" / "self").symlink_to(tree / "a")
    (tree / "a" / "dangling").symlink_to(tree / "missing")
    result = discover_stores([str(tree)], max_depth=config.PROJECTS_MAX_DEPTH_LIMIT)
    assert [s.path for s in result.discovered] == [str(memory)]
    reasons = {(Path(s.path).name, s.reason) for s in result.skipped}
    assert reasons == {("up", "symlink_loop"), ("self", "symlink_loop")}


def test_a_store_reached_by_two_paths_is_listed_once(tree: Path, tmp_path: Path) -> None:
    elsewhere = make_liveagent(tmp_path / "elsewhere" / "store", projects={HASH_A: ["user"]})
    (tree / "link-1").symlink_to(elsewhere)
    (tree / "deeper").mkdir()
    (tree / "deeper" / "link-2").symlink_to(elsewhere)
    result = discover_stores([str(tree), str(tmp_path / "elsewhere")])
    assert len(result.discovered) == 1
    assert result.discovered[0].total == 1
    assert result.totals.stores == 1


def test_a_store_inside_a_found_store_is_not_counted_again(tree: Path) -> None:
    outer = make_liveagent(tree / "outer", projects={HASH_A: ["user", "project"]})
    make_loki(outer / "projects" / HASH_A, skills=3)  # .loki inside a project folder
    make_liveagent(outer / "backup" / "copy", projects={HASH_B: ["user"] * 5})
    loki = make_loki(tree / "proj", episodes=("2026-01-01/t.json",))
    make_loki(loki / "episodic" / "2026-01-01", episodes=("2026-01-01/inner.json",))
    result = discover_stores([str(tree)])
    assert sorted(s.path for s in result.discovered) == sorted([str(loki), str(outer)])
    found = by_path(result)
    assert found[str(outer)].total == 2  # nothing from the nested stores
    assert found[str(loki)].counts["episodic"] == 1  # the inner .loki is hidden: not an episode
    assert (result.totals.stores, result.totals.skills) == (2, 0)


def test_liveagent_counts_leave_out_indexes_trash_archives_and_quarantine(tree: Path) -> None:
    root = make_liveagent(
        tree / "la",
        global_files={
            "style.md": "project",
            "user/me.md": "user",
            "user/tone.md": "feedback",
            "daily/2026-11-01.md": "daily",
            "skills/deploy.md": "skill",
            "weird.md": "nonsense",
        },
        projects={HASH_A: ["project"], HASH_B: []},  # B holds only MEMORY.md: no memories
    )
    for relpath in (
        "global/MEMORY.md",
        "global/user/MEMORY.md",
        "global/.trash/old.1700000000000.md",
        "global/.organize-snapshots/1700000000000.style.md",
        "global/daily/.archive/2025/2025-01-01.md",
        f"projects/{HASH_A}/.trash/gone.1.md",
        ".quarantine/wiped-1/global/a.md",
        "projects/not-a-hash/stray.md",
        "global/notes.txt",
    ):
        write_file(root, relpath, memory_text("x", type="user"))
    write_file(root, "global/plain.md", "no frontmatter: a reference (REFERENCE A2)\n")
    write_file(root, "global/daily-2026-10-01.md", "a daily by name\n")
    write_file(root, "global/bom.md", "\ufeff" + memory_text("bom", type="user"))
    for relpath in ("2026-11-01/ep-1.json", "2026-11-02/ep-2.json", "2026-11-02/.tmp-ep-3.json"):
        write_file(root, f"{config.EPISODES_DIRNAME}/{relpath}", "{}")
    result = discover_stores([str(tree)])
    [store] = result.discovered
    assert store.episodes == result.totals.episodes == 2  # episode traces are not memories
    assert store.counts == {
        "user": 2,
        "feedback": 1,
        "project": 2,
        "reference": 1,
        "daily": 2,
        "skill": 1,
        "other": 1,
    }
    assert store.total == 10
    assert [s.key for s in store.scopes] == ["", HASH_A]
    assert store.project_count == 1
    assert [(p.code, Path(p.path).name) for p in store.problems] == [
        ("not_a_project_folder", "not-a-hash")
    ]


def test_a_store_without_its_index_is_still_recognised(tree: Path) -> None:
    by_projects = make_liveagent(tree / "synced", projects={HASH_A: ["user"]}, index=False)
    by_global = tree / "fresh"
    write_file(by_global, "global/MEMORY.md", "# MEMORY\n")
    write_file(by_global, "global/user/me.md", memory_text("me", type="user"))
    # Folders that merely share a name are not stores.
    (tree / "monorepo" / "projects" / "website").mkdir(parents=True)
    (tree / "monorepo" / "global").mkdir()
    result = discover_stores([str(tree)])
    assert sorted(s.path for s in result.discovered) == sorted([str(by_projects), str(by_global)])


def test_a_corrupt_patterns_file_is_a_problem_not_a_crash(tree: Path) -> None:
    memory = make_loki(tree / "proj", episodes=("2026-01-01/t.json",), skills=1)
    write_file(memory, "semantic/patterns.json", '{"patterns": [ {"id": ')
    shape = make_loki(tree / "other")
    write_file(shape, "semantic/patterns.json", json.dumps([{"id": "p1"}]))
    namespaced = make_loki(tree / "third", patterns=2)
    write_file(namespaced / "ns", "semantic/patterns.json", b"\xff\xfe not utf-8")
    result = discover_stores([str(tree)])
    found = by_path(result)
    broken = found[str(memory)]
    assert broken.counts == {"episodic": 1, "semantic": 0, "skills": 1}
    assert [(p.code, p.path) for p in broken.problems] == [
        ("corrupt_json", str(memory / "semantic" / "patterns.json"))
    ]
    assert [p.code for p in found[str(shape)].problems] == ["unexpected_shape"]
    assert [p.code for p in found[str(namespaced)].problems] == ["corrupt_json"]
    assert found[str(namespaced)].counts["semantic"] == 2
    assert result.totals.problems == 3


def test_a_huge_patterns_file_is_reported_too_large_without_reading_it(tree: Path) -> None:
    memory = make_loki(tree / "proj", skills=1)
    path = memory / "semantic" / "patterns.json"
    path.parent.mkdir(parents=True)
    with open(path, "wb") as handle:  # sparse: costs no disk; not JSON, so a read would say so
        handle.truncate(config.PROJECTS_PATTERNS_MAX_BYTES + 1)
    [store] = discover_stores([str(tree)]).discovered
    assert [p.code for p in store.problems] == ["too_large"]
    assert store.counts == {"episodic": 0, "semantic": 0, "skills": 1}


def test_an_unreadable_folder_is_skipped_with_its_reason(unprivileged: Unprivileged) -> None:
    tree = unprivileged.folder / "code"
    visible = make_loki(tree / "open", skills=1)
    locked = tree / "locked"
    make_loki(locked / "inside", skills=1)
    unprivileged.hand_over(tree)
    locked.chmod(0)
    try:
        result = unprivileged.run(discover_stores, [str(tree)])
    finally:
        locked.chmod(0o700)
    assert [s.path for s in result.discovered] == [str(visible)]
    assert [(s.path, s.reason) for s in result.skipped] == [(str(locked), "permission_denied")]
    assert result.skipped_total == 1


def test_an_unreadable_memory_file_is_a_problem(unprivileged: Unprivileged) -> None:
    tree = unprivileged.folder / "code"
    root = make_liveagent(tree / "la", projects={HASH_A: ["user", "project"]})
    secret = root / "projects" / HASH_A / "note-0.md"
    unprivileged.hand_over(tree)
    secret.chmod(0)
    try:
        [store] = unprivileged.run(discover_stores, [str(tree)]).discovered
    finally:
        secret.chmod(0o600)
    assert store.total == 2  # still a memory file, its type unknown
    assert store.counts["other"] == 1
    assert [(p.code, p.path) for p in store.problems] == [("unreadable", str(secret))]


# --- Roots and bounds -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roots", "field"),
    [
        (["{tmp}/missing"], "roots.0"),
        (["{tmp}/code", "{tmp}/a-file"], "roots.1"),
        (["  "], "roots.0"),
    ],
)
def test_a_root_that_is_not_a_folder_is_a_typed_error(
    tmp_path: Path, tree: Path, roots: list[str], field: str
) -> None:
    (tmp_path / "a-file").write_text("x")
    roots = [r.format(tmp=tmp_path) for r in roots]
    with pytest.raises(InvalidArgument) as caught:
        discover_stores(roots)
    assert caught.value.field == field
    assert caught.value.code == "invalid_argument"
    if roots[-1].strip():
        assert roots[-1] in caught.value.message


@pytest.mark.parametrize("depth", [-1, config.PROJECTS_MAX_DEPTH_LIMIT + 1])
def test_a_depth_out_of_range_is_a_typed_error(tree: Path, depth: int) -> None:
    with pytest.raises(InvalidArgument) as caught:
        discover_stores([str(tree)], max_depth=depth)
    assert caught.value.field == "max_depth"


def test_too_many_roots_are_refused(tree: Path) -> None:
    with pytest.raises(InvalidArgument) as caught:
        discover_stores([str(tree)] * (config.PROJECTS_MAX_ROOTS + 1))
    assert caught.value.field == "roots"


def test_a_home_relative_root_is_expanded(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_loki(tree / "proj", skills=1)
    monkeypatch.setenv("HOME", str(tree.parent))
    result = discover_stores(["~/code"])
    assert result.roots == [str(tree.resolve())]
    assert len(result.discovered) == 1


# --- The commands -----------------------------------------------------------------------------


def test_without_roots_only_this_store_is_listed(store: MemoryStore, workdir: str) -> None:
    remember(store, "style-guide", type="project")
    remember(store, "local-note", scope="project", workdir=workdir, type="project")
    result = dispatch(store, "projects_index", {})
    assert result["this_store"] == dispatch(store, "memory_projects", {})
    assert result["this_store"]["project_count"] == 1
    assert result["discovered"] == [] and result["roots"] == []
    assert result["totals"]["dirs_scanned"] == 0
    assert result["duration_ms"] >= 0


def test_a_store_written_by_this_program_counts_as_its_own_index_does(
    tmp_path: Path, store: MemoryStore, workdir: str
) -> None:
    other_home = tmp_path / "elsewhere" / "team" / "memory"
    with MemoryStore.open(other_home, clock=FakeClock()) as other:
        remember(other, "style-guide", type="project")
        remember(other, "who-i-am", type="user")
        remember(other, "tone", type="feedback")
        remember(other, "local-a", scope="project", workdir=workdir, type="project")
        remember(other, "local-b", scope="project", workdir=workdir, type="reference")
        dispatch(other, "memory_daily_append", {"body": "did a thing"})
        expected = {
            (p.scope, p.workdir_hash): {k: v for k, v in p.counts.items() if k in TYPES}
            for p in other.projects().projects
        }
    result = dispatch(store, "projects_index", {"roots": [str(tmp_path / "elsewhere")]})
    [found] = result["discovered"]
    assert found["path"] == str(other_home.resolve())
    assert found["depth"] == 2
    counted = {
        (s["scope"], s["key"]): {k: v for k, v in s["counts"].items() if k in TYPES}
        for s in found["scopes"]
    }
    assert counted == expected
    [project] = [s for s in found["scopes"] if s["scope"] == "project"]
    assert project["key"] == workdir_hash(workdir)
    assert project["workdir"] == str(Path(workdir).resolve())


TYPES = ("user", "feedback", "project", "reference", "daily")


def test_this_store_under_a_root_is_marked_and_left_out_of_the_totals(
    tmp_path: Path, store: MemoryStore
) -> None:
    remember(store, "style-guide", type="project")
    other = make_loki(tmp_path / "proj", skills=2)
    result = dispatch(store, "projects_index", {"roots": [str(tmp_path)]})
    marks = {d["path"]: d["is_this_store"] for d in result["discovered"]}
    assert marks == {str(store.root.resolve()): True, str(other): False}
    assert result["totals"]["stores"] == 1
    assert result["totals"]["memories"] == 0
    assert result["totals"]["skills"] == 2


def test_the_commands_check_their_payloads(store: MemoryStore, tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere")
    with pytest.raises(InvalidArgument) as caught:
        dispatch(store, "projects_index", {"roots": [missing]})
    assert missing in caught.value.message and caught.value.field == "roots.0"
    with pytest.raises(InvalidArgument) as caught:
        dispatch(store, "projects_discover", {})
    assert caught.value.field == "roots"
    with pytest.raises(InvalidArgument):
        dispatch(store, "projects_index", {"roots": [str(tmp_path)], "max_depth": "deep"})
    with pytest.raises(InvalidArgument):
        dispatch(store, "projects_index", {"root": str(tmp_path)})  # a typo is not ignored


def test_discover_lists_only_the_other_stores(store: MemoryStore, tmp_path: Path) -> None:
    make_loki(tmp_path / "a" / "b" / "proj", episodes=("2026-01-01/t.json",))
    result = dispatch(store, "projects_discover", {"roots": [str(tmp_path)], "max_depth": 3})
    assert "this_store" not in result
    assert [d["name"] for d in result["discovered"] if not d["is_this_store"]] == ["proj"]
    assert result["totals"]["episodes"] == 1
    assert result["max_depth"] == 3


def test_discover_needs_a_root_and_walks_nothing_without_one(
    store: MemoryStore, tmp_path: Path
) -> None:
    make_loki(tmp_path / "proj", skills=1)
    with pytest.raises(InvalidArgument) as caught:
        discover(store, ProjectsDiscoverRequest())
    assert (caught.value.code, caught.value.field) == ("invalid_argument", "roots")

    found = discover(store, ProjectsDiscoverRequest(roots=[str(tmp_path)]))

    assert [d.name for d in found.discovered if not d.is_this_store] == ["proj"]
    assert found.totals.skills == 1
