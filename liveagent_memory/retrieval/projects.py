"""The cross-project index: this store's projects, and other memory stores found under folders.

SPEC 6 asks for every project with memories. The ones in this store come from the store itself
(`MemoryStore.projects()`, the `memory_projects` command). Other stores are found by walking
folders the person names: LiveAgent stores (a root with `global/`, `projects/<hash16>/` and
usually `memory-index.sqlite3`, REFERENCE A1) and Loki Mode stores (`<project>/.loki/memory`,
REFERENCE B1), at any depth up to a limit. REFERENCE B9 looked one level deep and counted
episodes with a non-recursive glob (B10: "zero counts"); here the walk is iterative and bounded,
and every count is recursive where the format nests.

Discovered stores are counted from their files alone: their SQLite index may be another
version, so it is never opened. Files are read only where a count needs it (a memory's
frontmatter head for its type, `.workdir.json`, `patterns.json` below a size cap). Anything that
cannot be read becomes a reported problem or a skipped folder, never an exception.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.requests import ProjectsDiscoverRequest
from liveagent_memory.domain.schema import (
    DiscoveredScope,
    DiscoveredStore,
    DiscoveryResult,
    DiscoverySkip,
    DiscoveryTotals,
    MemoryType,
    Scope,
    StoreKind,
    StoreProblem,
)
from liveagent_memory.store.files import PROJECT_DIR_PATTERN

if TYPE_CHECKING:
    from liveagent_memory.store.store import MemoryStore

# Every type of SPEC 1.2, `skill` included (global/skills/, projects/<hash>/skills/).
_TYPE_ORDER = tuple(t.value for t in MemoryType)
_KNOWN_TYPES = frozenset(_TYPE_ORDER)
_OTHER_TYPE = "other"  # a type we do not know, or a file we could not read
_TYPE_LINE = re.compile(r"""^type:\s*["']?([A-Za-z_-]+)["']?\s*$""")
_DAILY_FOLDER = "daily"  # global/daily/: every file there is a journal day (REFERENCE A1)
_BOM = "\ufeff"

DirKey = tuple[int, int]  # (st_dev, st_ino): one folder however many paths lead to it


def projects_index(
    store: MemoryStore, *, roots: Sequence[str], max_depth: int | None
) -> dict[str, Any]:
    """Return this store's projects and the stores discovered under `roots`.

    `this_store` is the `memory_projects` result; with no roots nothing is walked.
    """
    started = time.perf_counter()
    this_store = store.projects().to_dict()
    found = discover_stores(roots, max_depth=max_depth, this_store=store.root)
    out: dict[str, Any] = {"this_store": this_store, **found.to_dict()}
    out["duration_ms"] = _elapsed_ms(started)
    return out


def discover(store: MemoryStore, req: ProjectsDiscoverRequest) -> DiscoveryResult:
    """Only the discovery of other stores under the request's roots (at least one)."""
    if not req.roots:
        raise InvalidArgument(
            "Finding projects needs at least one folder to look in", field="roots"
        )
    return discover_stores(req.roots, max_depth=req.max_depth, this_store=store.root)


def discover_stores(
    roots: Sequence[str], *, max_depth: int | None = None, this_store: Path | None = None
) -> DiscoveryResult:
    """Walk `roots` and count every LiveAgent and Loki Mode store found below them.

    Raises InvalidArgument when a root is not an existing folder or a bound is out of range.
    """
    started = time.perf_counter()
    depth = check_max_depth(max_depth)
    folders = check_roots(roots)
    walk = _Walk(depth, _dir_key(this_store) if this_store is not None else None)
    for folder in folders:
        walk.run(folder)
    stores = sorted(walk.stores, key=lambda s: s.path)
    others = [s for s in stores if not s.is_this_store]
    totals = DiscoveryTotals(
        stores=len(others),
        liveagent_stores=sum(s.kind == StoreKind.LIVEAGENT for s in others),
        loki_stores=sum(s.kind == StoreKind.LOKI for s in others),
        projects=sum(s.project_count for s in others),
        memories=sum(s.total for s in others if s.kind == StoreKind.LIVEAGENT),
        episodes=sum(s.episodes for s in others),
        patterns=sum(s.counts.get("semantic", 0) for s in others if s.kind == StoreKind.LOKI),
        skills=sum(s.counts.get("skills", 0) for s in others if s.kind == StoreKind.LOKI),
        problems=sum(len(s.problems) for s in others),
        dirs_scanned=walk.dirs_scanned,
        dirs_pruned=walk.dirs_pruned,
        depth_limited=walk.depth_limited,
    )
    return DiscoveryResult(
        roots=[str(f) for f in folders],
        max_depth=depth,
        discovered=stores,
        skipped=walk.skipped[: config.PROJECTS_SKIPPED_REPORTED],
        skipped_total=len(walk.skipped),
        totals=totals,
        duration_ms=_elapsed_ms(started),
    )


def check_max_depth(max_depth: int | None) -> int:
    """The walk's depth limit: the default when None; InvalidArgument when out of range."""
    if max_depth is None:
        return config.PROJECTS_DEFAULT_MAX_DEPTH
    if not 0 <= max_depth <= config.PROJECTS_MAX_DEPTH_LIMIT:
        raise InvalidArgument(
            f"The folder depth to search must be between 0 and {config.PROJECTS_MAX_DEPTH_LIMIT}, "
            f"not {max_depth}",
            field="max_depth",
        )
    return max_depth


def check_roots(roots: Sequence[str]) -> list[Path]:
    """Resolve the roots (`~` expanded); each must be an existing folder (InvalidArgument)."""
    if len(roots) > config.PROJECTS_MAX_ROOTS:
        raise InvalidArgument(
            f"at most {config.PROJECTS_MAX_ROOTS} roots per request, not {len(roots)}",
            field="roots",
        )
    folders: list[Path] = []
    for index, root in enumerate(roots):
        if not root.strip():
            raise InvalidArgument(f"root #{index + 1} is empty", field=f"roots.{index}")
        path = Path(root.strip()).expanduser()
        try:
            is_dir = path.is_dir()
            resolved = path.resolve(strict=True)
        except (OSError, RuntimeError):
            is_dir = False
            resolved = path
        if not is_dir:
            what = "does not exist" if not path.exists() else "is not a folder"
            raise InvalidArgument(f"root {root!r} {what}", field=f"roots.{index}")
        if resolved not in folders:
            folders.append(resolved)
    return folders


def _elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000.0, 1)


def _dir_key(path: Path) -> DirKey | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


# --------------------------------------------------------------------------------------------
# The walk


@dataclass
class _Walk:
    """One discovery: the folders seen, the stores found, what was skipped."""

    max_depth: int
    this_store: DirKey | None
    stores: list[DiscoveredStore] = field(default_factory=list)
    skipped: list[DiscoverySkip] = field(default_factory=list)
    seen: set[DirKey] = field(default_factory=set)
    store_keys: set[DirKey] = field(default_factory=set)
    dirs_scanned: int = 0
    dirs_pruned: int = 0
    depth_limited: int = 0

    def run(self, root: Path) -> None:
        """Walk one root depth-first with an explicit stack (no recursion limit)."""
        stack: list[tuple[str, int, bool]] = [(str(root), 0, False)]
        while stack:
            path, depth, via_link = stack.pop()
            try:
                st = os.stat(path)  # follows a symbolic link: its target is what we walk
            except FileNotFoundError:
                self._skip(path, "vanished", "removed while the walk ran")
                continue
            except OSError as exc:
                self._skip(path, _reason(exc), _message(exc))
                continue
            key = (st.st_dev, st.st_ino)
            if key in self.seen:
                # Trigger: a symbolic link (or a second root) leads to a folder already walked.
                # Outcome: walked once, so a link to an ancestor cannot loop and nothing is
                # counted twice; only links are reported (a second root is the person's choice).
                if via_link:
                    self._skip(path, "symlink_loop", "a link to a folder already walked")
                continue
            self.seen.add(key)
            try:
                with os.scandir(path) as listing:
                    entries = list(listing)
            except FileNotFoundError:
                self._skip(path, "vanished", "removed while the walk ran")
                continue
            except OSError as exc:
                self._skip(path, _reason(exc), _message(exc))
                continue
            self.dirs_scanned += 1
            if self._found_store_here(path, key, depth, entries):
                continue  # a store's own folders are counted, not searched for more stores
            for entry in entries:
                name = entry.name
                if name == config.LOKI_DIRNAME:
                    self._probe_loki(entry, depth)
                    continue
                try:
                    is_dir = entry.is_dir()  # follows links; a broken link is not a folder
                except OSError:
                    continue
                if not is_dir:
                    continue
                if name in config.PROJECTS_SKIP_DIRS or (
                    name.startswith(".") and name not in config.PROJECTS_HIDDEN_DIRS_WALKED
                ):
                    self.dirs_pruned += 1
                    continue
                if depth >= self.max_depth:
                    self.depth_limited += 1
                    continue
                stack.append((entry.path, depth + 1, entry.is_symlink()))

    def _found_store_here(
        self, path: str, key: DirKey, depth: int, entries: list[os.DirEntry[str]]
    ) -> bool:
        """Record the store at `path` itself, if it is one.

        The `.loki` cases happen only for a root (the walk never enters `.loki`, it probes it).
        Plain strings until a store is found: a Path per folder cost a third of the walk.
        """
        name = os.path.basename(path)
        if (
            name == config.LOKI_MEMORY_DIRNAME
            and os.path.basename(os.path.dirname(path)) == config.LOKI_DIRNAME
        ):
            self._add(key, lambda: count_loki_store(Path(path), depth=depth))
            return True
        if name == config.LOKI_DIRNAME:
            memory = Path(path) / config.LOKI_MEMORY_DIRNAME
            if memory.is_dir():
                self._add(_dir_key(memory) or key, lambda: count_loki_store(memory, depth=depth))
            return True  # .loki holds Loki Mode's own state, never another project
        markers = [e for e in entries if e.name in _STORE_MARKERS]
        if markers and is_liveagent_store(Path(path), markers):
            self._add(key, lambda: count_liveagent_store(Path(path), depth=depth))
            return True
        return False

    def _probe_loki(self, entry: os.DirEntry[str], depth: int) -> None:
        memory = os.path.join(entry.path, config.LOKI_MEMORY_DIRNAME)
        try:
            st = os.stat(memory)
        except OSError:
            return  # a .loki folder without memory: Loki Mode state only
        if not stat.S_ISDIR(st.st_mode):
            return
        self._add((st.st_dev, st.st_ino), lambda: count_loki_store(Path(memory), depth=depth))

    def _add(self, key: DirKey, count: Callable[[], DiscoveredStore]) -> None:
        if key in self.store_keys:
            return  # the same store reached by a second path: counted once
        self.store_keys.add(key)
        found = count()
        found.is_this_store = key == self.this_store
        self.stores.append(found)

    def _skip(self, path: str, reason: str, message: str) -> None:
        self.skipped.append(DiscoverySkip(path=path, reason=reason, message=message))


def _reason(exc: OSError) -> str:
    return "permission_denied" if isinstance(exc, PermissionError) else "unreadable"


def _message(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


# --------------------------------------------------------------------------------------------
# LiveAgent stores (REFERENCE A1)


def is_liveagent_store(folder: Path, entries: list[os.DirEntry[str]]) -> bool:
    """Whether `folder` is a LiveAgent memory root, judged from its layout alone.

    The index file next to `global/` or `projects/` is the usual sign; without it (deleted, or
    a store synced without its derived index) a `projects/<hash16>/` folder holding memory
    files, or a `global/` with its generated MEMORY.md, is enough.
    """
    names: dict[str, os.DirEntry[str]] = {e.name: e for e in entries if e.name in _STORE_MARKERS}
    if not names:
        return False
    has_global = _entry_is_dir(names.get("global"))
    has_projects = _entry_is_dir(names.get("projects"))
    if config.INDEX_FILENAME in names and (has_global or has_projects):
        return True
    if has_projects and _has_project_folder(folder / "projects"):
        return True
    return has_global and (folder / "global" / config.SCOPE_INDEX_FILENAME).is_file()


_STORE_MARKERS = frozenset({"global", "projects", config.INDEX_FILENAME})


def _entry_is_dir(entry: os.DirEntry[str] | None) -> bool:
    return entry is not None and _is_real_dir(entry)


def _has_project_folder(projects: Path) -> bool:
    """A `<hash16>/` folder holding a memory file or its `.workdir.json` marker."""
    try:
        with os.scandir(projects) as listing:
            candidates = [e.path for e in listing if PROJECT_DIR_PATTERN.match(e.name)]
    except OSError:
        return False
    for candidate in candidates:
        try:
            with os.scandir(candidate) as listing:
                if any(
                    e.name.endswith(".md") or e.name == config.WORKDIR_MARKER_FILENAME
                    for e in listing
                ):
                    return True
        except OSError:
            continue
    return False


def count_liveagent_store(root: Path, *, depth: int = 0) -> DiscoveredStore:
    """Count a LiveAgent store's memories per scope and type from its Markdown files.

    Generated MEMORY.md files are not memories; dot folders (`.trash`, `.organize-snapshots`,
    the journal's `.archive`, `.quarantine`) hold old or removed copies and are left out.
    """
    problems: list[StoreProblem] = []
    global_dir = root / "global"
    global_counts = _type_counts(
        _count_memories(global_dir, problems, daily_dir=global_dir / _DAILY_FOLDER)
    )
    scopes = [
        DiscoveredScope(
            scope=Scope.GLOBAL.value,
            key="",
            workdir=None,
            counts=global_counts,
            total=sum(global_counts.values()),
        )
    ]
    for folder in _subfolders(root / "projects", problems):
        if not PROJECT_DIR_PATTERN.match(folder.name):
            if _holds_markdown(folder):
                problems.append(
                    StoreProblem(
                        path=str(folder),
                        code="not_a_project_folder",
                        message="its name must be 16 lowercase hex characters",
                    )
                )
            continue
        counts = _type_counts(_count_memories(folder, problems))
        total = sum(counts.values())
        if total == 0:
            continue  # SPEC 6: projects *with memories*; an emptied folder is not one
        scopes.append(
            DiscoveredScope(
                scope=Scope.PROJECT.value,
                key=folder.name,
                workdir=_read_workdir(folder / config.WORKDIR_MARKER_FILENAME, problems),
                counts=counts,
                total=total,
            )
        )
    name = root.name
    if name == config.DEFAULT_HOME_PARTS[-1]:  # ".../.liveagent/memory": the parent says more
        name = f"{root.parent.name}/{name}"
    return DiscoveredStore(
        kind=StoreKind.LIVEAGENT.value,
        path=str(root),
        name=name,
        depth=depth,
        is_this_store=False,
        counts=_type_counts(_add_counts(s.counts for s in scopes)),
        total=sum(s.total for s in scopes),
        # Our episode traces (SPEC 6): `episodes/YYYY-MM-DD/<id>.json`, like Loki's episodic/.
        episodes=_count_episodes(root / config.EPISODES_DIRNAME, problems),
        project_count=len(scopes) - 1,
        scopes=scopes,
        problems=problems,
    )


def _count_memories(
    folder: Path, problems: list[StoreProblem], *, daily_dir: Path | None = None
) -> dict[str, int]:
    """Memory files per type under `folder`, recursively, dot folders and links excluded.

    Every file below `daily_dir` is a journal day (REFERENCE A1 `global/daily/`); the others
    say their type in their frontmatter.
    """
    counts: dict[str, int] = {}
    daily = str(daily_dir) if daily_dir is not None else None
    for parent, entry in _files_below(folder, problems):
        name = entry.name
        if not name.endswith(".md") or name == config.SCOPE_INDEX_FILENAME:
            continue
        in_daily = daily is not None and (parent == daily or parent.startswith(daily + os.sep))
        kind = MemoryType.DAILY.value if in_daily else _sniff_type(entry.path, problems)
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def _listing(folder: str | Path, problems: list[StoreProblem]) -> list[os.DirEntry[str]]:
    """What is directly in `folder`: [] when it is gone, [] and a problem when unreadable."""
    try:
        with os.scandir(folder) as listing:
            return list(listing)
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.append(StoreProblem(path=str(folder), code="unreadable", message=_message(exc)))
        return []


def _files_below(
    folder: Path, problems: list[StoreProblem]
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every file under `folder`, recursively, with the folder it is in.

    Dot entries (.trash, .archive, snapshots; editor and temp files such as an interrupted
    write's .tmp_*.json) and symbolic links are passed over: a store's files are its own.
    """
    stack = [str(folder)]
    while stack:
        path = stack.pop()
        for entry in _listing(path, problems):
            if entry.name.startswith("."):
                continue
            if _is_real_dir(entry):
                stack.append(entry.path)
            elif _is_real_file(entry):
                yield path, entry


def _type_counts(counts: dict[str, int]) -> dict[str, int]:
    """Every known type in a fixed order (0 when absent), then `other` when there is any."""
    out = {kind: counts.get(kind, 0) for kind in _TYPE_ORDER}
    if counts.get(_OTHER_TYPE):
        out[_OTHER_TYPE] = counts[_OTHER_TYPE]
    return out


def _is_real_dir(entry: os.DirEntry[str]) -> bool:
    """A folder that is not a symbolic link (a store's own files are never followed out)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_real_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _sniff_type(path: str, problems: list[StoreProblem]) -> str:
    """A memory's `type:` from the head of its frontmatter; REFERENCE A2's fallbacks else."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(config.PROJECTS_TYPE_SNIFF_BYTES)
    except OSError as exc:
        problems.append(StoreProblem(path=path, code="unreadable", message=_message(exc)))
        return _OTHER_TYPE
    text = head.decode("utf-8", errors="replace").removeprefix(_BOM)
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            match = _TYPE_LINE.match(line)
            if match:
                value = match.group(1).lower()
                return value if value in _KNOWN_TYPES else _OTHER_TYPE
    # REFERENCE A2 parse fallbacks: a daily- name is a journal, anything else a reference.
    stem = os.path.basename(path)
    return MemoryType.DAILY.value if stem.startswith("daily-") else MemoryType.REFERENCE.value


def _subfolders(folder: Path, problems: list[StoreProblem]) -> list[Path]:
    return sorted(
        Path(e.path)
        for e in _listing(folder, problems)
        if not e.name.startswith(".") and _is_real_dir(e)
    )


def _holds_markdown(folder: Path) -> bool:
    try:
        with os.scandir(folder) as listing:
            return any(e.name.endswith(".md") for e in listing)
    except OSError:
        return False


def _read_workdir(marker: Path, problems: list[StoreProblem]) -> str | None:
    """The project's folder from `.workdir.json` `{path, createdAt}`; None when unknown."""
    data = load_small_json(marker, config.PROJECTS_MARKER_MAX_BYTES, problems)
    if isinstance(data, dict) and isinstance(data.get("path"), str):
        return str(data["path"])
    if data is not None:
        problems.append(
            StoreProblem(path=str(marker), code="unexpected_shape", message="no 'path' string")
        )
    return None


# --------------------------------------------------------------------------------------------
# Loki Mode stores (REFERENCE B1, B9)


def count_loki_store(memory: Path, *, depth: int = 0) -> DiscoveredStore:
    """Count a `.loki/memory` folder: its base (`default`) and each namespace."""
    problems: list[StoreProblem] = []
    scopes = [_loki_scope(base, name, problems) for name, base in loki_namespaces(memory, problems)]
    counts = _add_counts(s.counts for s in scopes)
    project = memory.parent.parent if memory.parent.name == config.LOKI_DIRNAME else memory
    return DiscoveredStore(
        kind=StoreKind.LOKI.value,
        path=str(memory),
        name=project.name,
        depth=depth,
        is_this_store=False,
        counts=counts,
        total=sum(counts.values()),
        episodes=counts["episodic"],
        project_count=1,
        scopes=scopes,
        problems=problems,
    )


def loki_namespaces(memory: Path, problems: list[StoreProblem]) -> list[tuple[str, Path]]:
    """A `.loki/memory` folder's namespaces (REFERENCE B1) with their base folders.

    The folder itself is `default`; each subfolder (not one of the kinds' own folders)
    holding an `episodic`, `semantic` or `skills` folder is the namespace of its name.
    """
    found = [(config.LOKI_DEFAULT_NAMESPACE, memory)]
    for folder in _subfolders(memory, problems):
        if folder.name in config.LOKI_RESERVED_DIRS:
            continue
        if any((folder / kind).is_dir() for kind in config.LOKI_KINDS):
            found.append((folder.name, folder))
    return found


def loki_episode_files(folder: Path, problems: list[StoreProblem]) -> list[Path]:
    """Episode files (`*.json`) under `folder`, every date folder included (B10's fix)."""
    return sorted(
        Path(entry.path)
        for _, entry in _files_below(folder, problems)
        if entry.name.endswith(".json") and entry.name != config.LOKI_EPISODE_INDEX
    )


def loki_skill_files(folder: Path, problems: list[StoreProblem]) -> list[Path]:
    """`*.json` files directly in `folder` (REFERENCE B1 `skills/{name}.json`)."""
    return sorted(
        Path(e.path)
        for e in _listing(folder, problems)
        if e.name.endswith(".json") and not e.name.startswith(".") and _is_real_file(e)
    )


def _loki_scope(base: Path, name: str, problems: list[StoreProblem]) -> DiscoveredScope:
    counts = {
        "episodic": _count_episodes(base / "episodic", problems),
        "semantic": _count_patterns(base.joinpath(*config.LOKI_PATTERNS_PATH), problems),
        "skills": _count_json(base / "skills", problems),
    }
    return DiscoveredScope(
        scope="namespace", key=name, workdir=None, counts=counts, total=sum(counts.values())
    )


def _count_episodes(folder: Path, problems: list[StoreProblem]) -> int:
    return len(loki_episode_files(folder, problems))


def _count_json(folder: Path, problems: list[StoreProblem]) -> int:
    return len(loki_skill_files(folder, problems))


def _count_patterns(path: Path, problems: list[StoreProblem]) -> int:
    """Entries of `patterns.json` `{"patterns": [...]}`; 0 with a problem when unusable."""
    data = load_small_json(path, config.PROJECTS_PATTERNS_MAX_BYTES, problems)
    if data is None:
        return 0
    patterns = data.get("patterns") if isinstance(data, dict) else None
    if not isinstance(patterns, list):
        problems.append(
            StoreProblem(path=str(path), code="unexpected_shape", message="no 'patterns' list")
        )
        return 0
    # Like the reference's readers, an entry that is not an object is not a pattern.
    return sum(1 for p in patterns if isinstance(p, dict))


def load_small_json(path: Path, max_bytes: int, problems: list[StoreProblem]) -> Any:
    """Parse a JSON file no bigger than `max_bytes`; None (and a problem) when unusable.

    A missing file is None without a problem. The size is checked before reading, so a huge
    file is never read whole.
    """
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                problems.append(
                    StoreProblem(
                        path=str(path),
                        code="too_large",
                        message=f"{size} bytes; not read above {max_bytes}",
                    )
                )
                return None
            raw = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(StoreProblem(path=str(path), code="unreadable", message=_message(exc)))
        return None
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        problems.append(StoreProblem(path=str(path), code="corrupt_json", message=str(exc)))
        return None


def _add_counts(parts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for counts in parts:
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return total
