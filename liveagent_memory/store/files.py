"""The store on disk: folder layout, atomic writes, the cross-process lock, file discovery."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NamedTuple

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.domain.schema import USER_FOLDER_TYPES, MemoryType, Scope
from liveagent_memory.store.conflicts import conflict_reason, copy_of
from liveagent_memory.store.fsync import sync_files
from liveagent_memory.store.rows import UNREADABLE_PREFIX

log = logging.getLogger(__name__)

PROJECT_DIR_PATTERN = re.compile(r"^[0-9a-f]{16}$")
DAILY_FILE_PATTERN = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")
ARCHIVE_DIRNAME = ".archive"
TRASH_DIRNAME = ".trash"
SNAPSHOT_DIRNAME = ".organize-snapshots"
QUARANTINE_DIRNAME = ".quarantine"
# SPEC 1.1: skill memories sit in a sub-folder of their scope folder, where LiveAgent (which
# reads only global/, global/user/ and projects/<hash>/ itself) never looks.
SKILLS_DIRNAME = "skills"
# atomic_write's temp files: `.tmp-` + tempfile's random name + `.part`. The pattern is what
# remove_stale_temp_files may delete, so it is no wider than what mkstemp makes.
TEMP_PREFIX = ".tmp-"
TEMP_SUFFIX = ".part"
TEMP_FILE_PATTERN = re.compile(rf"^{re.escape(TEMP_PREFIX)}[A-Za-z0-9_]+{re.escape(TEMP_SUFFIX)}$")


class FoundFile(NamedTuple):
    """A memory file discovered on disk, with where it sits in the layout.

    (A NamedTuple: a warm reconcile builds one per file, and it is 3x cheaper to make than a
    frozen dataclass.)
    """

    relpath: str  # POSIX path relative to the root: the file's identity in the index
    abspath: str
    scope: Scope
    workdir_hash: str
    archived: bool
    in_daily_folder: bool
    mtime_ns: int
    size: int
    ctime_ns: int = 0  # utime cannot set it back (store/reconcile.py); 0: not known

    @property
    def path(self) -> Path:
        return Path(self.abspath)


@dataclass(frozen=True)
class SkippedFile:
    """Something in a memory folder that is not a usable memory file."""

    relpath: str
    reason: str
    conflict: tuple[str, str] | None = None  # a conflict copy: (its original, the tool)


class Layout:
    """Where everything lives under the store root (REFERENCE A1)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def global_dir(self) -> Path:
        return self.root / "global"

    @property
    def user_dir(self) -> Path:
        return self.global_dir / "user"

    @property
    def daily_dir(self) -> Path:
        return self.global_dir / "daily"

    @property
    def archive_dir(self) -> Path:
        return self.daily_dir / ARCHIVE_DIRNAME

    @property
    def projects_dir(self) -> Path:
        return self.root / "projects"

    @property
    def episodes_dir(self) -> Path:
        """Episode traces: episodes/YYYY-MM-DD/<id>.json (store/episodes.py)."""
        return self.root / config.EPISODES_DIRNAME

    @property
    def quarantine_dir(self) -> Path:
        return self.root / QUARANTINE_DIRNAME

    @property
    def index_path(self) -> Path:
        return self.root / config.INDEX_FILENAME

    @property
    def lock_path(self) -> Path:
        return self.root / config.LOCK_FILENAME

    def project_dir(self, workdir_hash: str) -> Path:
        return self.projects_dir / workdir_hash

    def scope_dir(self, scope: str, workdir_hash: str) -> Path:
        """The folder holding a scope's MEMORY.md, .trash and snapshots."""
        return self.global_dir if scope == Scope.GLOBAL else self.project_dir(workdir_hash)

    def skills_dir(self, scope: str, workdir_hash: str) -> Path:
        """A scope's skill memories: global/skills/ or projects/<hash>/skills/."""
        return self.scope_dir(scope, workdir_hash) / SKILLS_DIRNAME

    def path_for(self, scope: str, workdir_hash: str, memory_type: str, slug: str) -> Path:
        """Return the canonical file of a memory. Slugs are validated before they get here."""
        if memory_type == MemoryType.DAILY:
            return self.daily_dir / f"{slug.removeprefix('daily-')}.md"
        if memory_type == MemoryType.SKILL:
            return self.skills_dir(scope, workdir_hash) / f"{slug}.md"
        if scope == Scope.GLOBAL:
            folder = self.user_dir if memory_type in USER_FOLDER_TYPES else self.global_dir
            return folder / f"{slug}.md"
        return self.project_dir(workdir_hash) / f"{slug}.md"

    def archived_daily_path(self, day: date) -> Path:
        return self.archive_dir / f"{day.year:04d}" / f"{day.isoformat()}.md"

    def trash_dir(self, scope: str, workdir_hash: str) -> Path:
        return self.scope_dir(scope, workdir_hash) / TRASH_DIRNAME

    def snapshot_dir(self, scope: str, workdir_hash: str) -> Path:
        return self.scope_dir(scope, workdir_hash) / SNAPSHOT_DIRNAME

    def relpath(self, path: Path) -> str:
        text = str(path)
        prefix = f"{self.root}{os.sep}"
        if os.sep == "/" and text.startswith(prefix):
            return text[len(prefix) :]  # the usual case, without pathlib's relative_to
        return path.relative_to(self.root).as_posix()

    def check_inside(self, path: Path) -> None:
        """Refuse to write `path` through a symbolic link below the root (StoreUnavailable).

        The root itself may be a link (a store kept in a synced folder); a linked sub-folder
        (global/skills -> elsewhere) would put new memories, and our 0700 chmod, outside.
        """
        try:
            parts = path.parent.relative_to(self.root).parts
        except ValueError:
            raise StoreUnavailable(f"{path} is outside the store {self.root}") from None
        current = str(self.root)
        for part in parts:
            # Text, not Path objects: a batch checks every file it writes (issue 17).
            current = os.path.join(current, part)
            if os.path.islink(current):
                raise StoreUnavailable(
                    f"cannot write {self.relpath(path)}: {self.relpath(Path(current))} is a "
                    "symbolic link, and the store never writes through links (see the problems "
                    "list)"
                )

    def abspath(self, relpath: str) -> Path:
        return self.root.joinpath(*relpath.split("/"))

    def ensure(self) -> None:
        """Create the folder skeleton, private to the user (SPEC 7: 0700)."""
        for folder in (
            self.root,
            self.global_dir,
            self.user_dir,
            self.daily_dir,
            self.projects_dir,
            self.quarantine_dir,
        ):
            ensure_private_dir(folder)

    def scan(self) -> tuple[list[FoundFile], list[SkippedFile]]:
        """Find every memory file in the layout (REFERENCE A1 folders, archive included, and
        each scope's skills/ folder)."""
        found: list[FoundFile] = []
        skipped: list[SkippedFile] = []
        for folder in (self.global_dir, self.user_dir, self.skills_dir(Scope.GLOBAL, "")):
            self._scan_folder(folder, Scope.GLOBAL, "", False, False, found, skipped)
        self._scan_folder(self.daily_dir, Scope.GLOBAL, "", False, True, found, skipped)
        if self.archive_dir.is_dir() and not self.archive_dir.is_symlink():
            for year in sorted(_subdirs(self.archive_dir)):
                self._scan_folder(year, Scope.GLOBAL, "", True, True, found, skipped)
        for folder in (self.archive_dir, self.projects_dir):
            skipped.extend(
                SkippedFile(shown_path(self.relpath(link)), LINKED_FOLDER_REASON)
                for link in _linked_subdirs(folder)
            )
        for project in sorted(_subdirs(self.projects_dir)):
            if not PROJECT_DIR_PATTERN.match(project.name):
                if any(p.suffix == ".md" for p in _files(project)):
                    skipped.append(
                        SkippedFile(
                            shown_path(self.relpath(project)),
                            "not a project folder: its name must be 16 lowercase hex characters",
                        )
                    )
                continue
            for folder in (project, project / SKILLS_DIRNAME):
                self._scan_folder(folder, Scope.PROJECT, project.name, False, False, found, skipped)
        return found, skipped

    def _scan_folder(
        self,
        folder: Path,
        scope: Scope,
        workdir_hash: str,
        archived: bool,
        in_daily_folder: bool,
        found: list[FoundFile],
        skipped: list[SkippedFile],
    ) -> None:
        if folder.is_symlink():
            # docs: only the store's own folders are the store. A linked sub-folder
            # (global/skills -> elsewhere) would index, and later write, files outside it.
            skipped.append(SkippedFile(self.relpath(folder), LINKED_FOLDER_REASON))
            return
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            return
        except OSError as exc:
            skipped.append(SkippedFile(self.relpath(folder), f"folder unreadable: {exc.strerror}"))
            return
        # Plain strings here: pathlib per file cost more than the stat (warm reconcile).
        files = folder_files(
            entries,
            self.relpath(folder) + "/",
            ".md",
            lambda relpath, reason: skipped.append(SkippedFile(relpath, reason)),
            ignored=config.SCOPE_INDEX_FILENAME,
        )
        for relpath, abspath, stat in files:
            # A sync tool's conflict copy: listed, never indexed (the test first: warm open).
            copy = copy_of(relpath) if "conflict" in relpath else None
            if copy is not None:
                skipped.append(SkippedFile(relpath, conflict_reason(*copy), copy))
                continue
            if stat.st_size > config.MAX_INDEXED_FILE_BYTES:
                skipped.append(SkippedFile(relpath, too_large_reason(stat.st_size)))
                continue
            found.append(
                FoundFile(
                    relpath,
                    abspath,
                    scope,
                    workdir_hash,
                    archived,
                    in_daily_folder,
                    stat.st_mtime_ns,
                    stat.st_size,
                    stat.st_ctime_ns,
                )
            )


LINKED_FOLDER_REASON = (
    "symbolic link to a folder: not followed (the store reads and writes only its own folders)"
)
NOT_UTF8_NAME_REASON = "the file name is not valid UTF-8: rename the file to read it"


def folder_files(
    entries: Iterable[os.DirEntry[str]],
    prefix: str,
    suffix: str,
    skip: Callable[[str, str], None],
    *,
    ignored: str = "",
    refused: str | None = None,
) -> Iterator[tuple[str, str, os.stat_result]]:
    """The store's files among one folder's `entries`: (relpath, abspath, stat) of each regular
    `*suffix` file, its relpath `prefix` + its name; memory and episode scans share the rule.

    Dot files (editor swap files, our temp files) and the name `ignored` are passed over; a
    name that is not UTF-8, a symbolic link and a file that cannot be stat'ed are reported to
    `skip(relpath, reason)` instead, and so is every file when the folder is `refused` (the
    reason). Nothing is followed through a link.
    """
    for entry in entries:
        name = entry.name
        if not name.endswith(suffix) or name.startswith(".") or name == ignored:
            continue
        relpath = prefix + name
        if not is_utf8_name(name):
            skip(shown_path(relpath), NOT_UTF8_NAME_REASON)
        elif refused is not None:
            skip(relpath, refused)
        elif entry.is_symlink():
            skip(relpath, "symbolic link: not followed")
        elif entry.is_file(follow_symlinks=False):
            try:
                stat = entry.stat(follow_symlinks=False)
            except OSError as exc:
                skip(relpath, f"{UNREADABLE_PREFIX} {exc.strerror}")
                continue
            yield relpath, entry.path, stat


def too_large_reason(size: int) -> str:
    """Why a file over MAX_INDEXED_FILE_BYTES is reported instead of indexed."""
    return (
        f"too large to index ({size:,} bytes; memory files over "
        f"{config.MAX_INDEXED_FILE_BYTES:,} bytes are not read): split it or move it out"
    )


def is_utf8_name(name: str) -> bool:
    """False for a name holding bytes that are not UTF-8 (Python keeps them as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_path(relpath: str) -> str:
    """A path that can be stored and shown: undecodable bytes of a file name as `\\xff`."""
    if is_utf8_name(relpath):
        return relpath
    return os.fsencode(relpath).decode("utf-8", "backslashreplace")


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """What is directly in `folder`; [] when it cannot be read."""
    try:
        return list(os.scandir(folder))
    except OSError:
        return []


def _subdirs(folder: Path) -> Iterator[Path]:
    for entry in _entries(folder):
        if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
            yield Path(entry.path)


def _linked_subdirs(folder: Path) -> Iterator[Path]:
    """Symbolic links in `folder` (not the folder itself) that point to folders."""
    if folder.is_symlink():
        return
    for entry in _entries(folder):
        if entry.is_symlink() and entry.is_dir() and not entry.name.startswith("."):
            yield Path(entry.path)


def list_folder(folder: Path) -> list[Path]:
    """Everything directly in `folder`, sorted by path; [] when it cannot be read."""
    return sorted(Path(entry.path) for entry in _entries(folder))


def _files(folder: Path) -> Iterator[Path]:
    for entry in _entries(folder):
        if entry.is_file(follow_symlinks=False):
            yield Path(entry.path)


# --------------------------------------------------------------------------------------------
# Writing


def ensure_private_dir(folder: Path, *, existing_too: bool = True) -> None:
    """Create `folder` (and missing parents) and make it private to the user.

    Every folder created here gets 0700 (`mkdir(parents=True)` would give new parents the
    default mode, e.g. global/daily/.archive/ 0755); existing parents are left alone.
    An existing folder loses its group and other bits but keeps the owner's: a folder the
    person made read-only stays read-only and writes fail with StoreUnavailable (SPEC 7).
    With `existing_too=False` an existing `folder` is left as it is too: a file placed in a
    folder that may not be the store's (a shared /tmp must keep its 1777).
    """
    missing: list[Path] = []
    current = folder
    while not os.path.lexists(current) and current.parent != current:
        missing.append(current)
        current = current.parent
    try:
        for path in reversed(missing):
            path.mkdir(mode=config.DIR_MODE, exist_ok=True)
        for path in (*missing[1:], folder):
            if path.is_symlink():
                continue  # chmod would change the link's target, which is not ours to change
            mode = path.stat().st_mode & 0o777
            if path not in missing and not existing_too:
                continue
            wanted = config.DIR_MODE if path in missing else mode & config.DIR_MODE
            if mode != wanted:
                os.chmod(path, wanted)
    except OSError as exc:
        raise store_unavailable(exc, folder) from exc


def store_unavailable(exc: OSError, path: Path) -> StoreUnavailable:
    """Translate an OS error into the typed error a front end can show."""
    reasons = {
        errno.ENOSPC: "the disk is full",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENOTDIR: "a path component is not a folder",
        errno.EDQUOT: "the disk quota is exceeded",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    return StoreUnavailable(f"cannot write {path}: {reason}")


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries so a rename survives power loss (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems (and Windows) cannot fsync a directory; rename is still atomic
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, *, sync_dir: bool = True) -> None:
    """Write `data` to `path` atomically: temp file, fsync, rename, fsync of the folder.

    A reader (or a crash) sees either the old file or the new one, never a torn one.
    `sync_dir=False` lets a batch flush each folder once at the end instead.
    """
    tmp_name, _ = write_temp(path, data, sync=True)
    rename_temp(tmp_name, path)
    if sync_dir:
        fsync_dir(path.parent)


def write_temp(path: Path, data: bytes, *, sync: bool) -> tuple[str, os.stat_result]:
    """Write `data` to a new temp file beside `path` (fsynced when `sync`); returns its name
    and its stat, which the file keeps when it is renamed to `path` (same inode, same mtime)."""
    fd, tmp_name, stat = _open_temp(path, data)
    try:
        if sync:
            os.fsync(fd)
    except OSError as exc:
        os.close(fd)
        _discard_temp(tmp_name)
        raise store_unavailable(exc, path) from exc
    os.close(fd)
    return tmp_name, stat


def _open_temp(path: Path, data: bytes, *, ensure: bool = True) -> tuple[int, str, os.stat_result]:
    """A new temp file beside `path` holding `data`, still open: (its fd, name, stat).
    `ensure`: create its folder (private) first if needed."""
    folder = path.parent
    if ensure:
        ensure_private_dir(folder)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise store_unavailable(exc, path) from exc
    try:
        # Plain os.write: a buffered file object per temp file cost more than the write.
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        stat = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        _discard_temp(tmp_name)
        raise store_unavailable(exc, path) from exc
    return fd, tmp_name, stat


def rename_temp(tmp_name: str, path: Path) -> None:
    """Move a temp file of `write_temp` onto `path` (atomic); the temp is removed on failure."""
    try:
        os.replace(tmp_name, path)
    except OSError as exc:
        _discard_temp(tmp_name)
        raise store_unavailable(exc, path) from exc


def _discard_temp(tmp_name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp_name)


def remove_stale_temp_files(
    layout: Layout, *, older_than_seconds: float = config.TEMP_FILE_STALE_SECONDS
) -> int:
    """Delete atomic_write temp files older than `older_than_seconds`; return how many.

    Looks in the store's own folders only: the root's files (settings.json) and everything
    below global/, projects/, episodes/ and vectors/. .quarantine/ keeps what was moved there
    as it was. Symbolic links are neither followed nor removed, and a younger temp file may
    belong to a write in progress in another process, so it stays.
    """
    # Temp files get their mtime from the OS clock, so their age is measured on it too (the
    # store's clock may be a fixed or simulated one).
    cutoff = time.time() - older_than_seconds
    removed = _remove_temp_files_in(layout.root, cutoff, recursive=False)
    for folder in (
        layout.global_dir,
        layout.projects_dir,
        layout.episodes_dir,
        layout.root / config.VECTORS_DIRNAME,
    ):
        removed += _remove_temp_files_in(folder, cutoff, recursive=True)
    return removed


def _remove_temp_files_in(folder: Path, cutoff: float, *, recursive: bool) -> int:
    if recursive and folder.is_symlink():
        return 0  # a linked sub-folder is not the store's (the scan reports it)
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    except OSError as exc:
        log.warning("cannot look for stale temp files in %s: %s", folder, exc.strerror)
        return 0
    removed = 0
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if recursive:
                removed += _remove_temp_files_in(Path(entry.path), cutoff, recursive=True)
            continue
        if not TEMP_FILE_PATTERN.match(entry.name) or not entry.is_file(follow_symlinks=False):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                continue  # young: maybe another process's write in progress
            os.unlink(entry.path)
        except FileNotFoundError:
            continue  # renamed or removed by its writer meanwhile
        except OSError as exc:
            # Trigger: a read-only folder. Why: housekeeping must not stop reconcile.
            # Outcome: the file stays and the next pass tries again.
            log.warning("cannot remove stale temp file %s: %s", entry.path, exc.strerror)
            continue
        removed += 1
    return removed


def move_file(source: Path, target_dir: Path, name: str) -> Path:
    """Move `source` into `target_dir` under `name`, never overwriting; return the new path."""
    ensure_private_dir(target_dir)
    target = target_dir / name
    stem, dot, suffix = name.rpartition(".")
    counter = 1
    while target.exists():
        target = target_dir / (f"{stem}-{counter}.{suffix}" if dot else f"{name}-{counter}")
        counter += 1
    try:
        os.replace(source, target)
    except OSError as exc:
        raise store_unavailable(exc, target) from exc
    fsync_dir(target_dir)
    fsync_dir(source.parent)
    return target


class FileChanges:
    """The file side of one store mutation, kept so that a failure can put the files back.

    Every write, move and removal a mutation makes goes through here. If the mutation then
    fails (the index refuses the row, the disk fills up before the commit), `rollback` puts
    each file back as it was, newest change first: an error means nothing changed. After the
    index transaction commits, `commit` forgets the undo steps. Writes through a symbolic link
    below the root are refused (Layout.check_inside).

    `deferred=True` (a batch): a write only puts its bytes in a temp file beside the target;
    `flush` then makes all pending temp files durable together (store/fsync.py) and renames
    each onto its target, so a batch pays about one sync instead of one fsync per file. Until
    then the target keeps its old bytes (a crash leaves old files and stale temp files, which
    reconcile sweeps up), and the caller must `settle` a pending path before reading it
    (store/batch.py does, by slug); a write, move or removal of a pending path here settles it
    first.
    """

    def __init__(self, layout: Layout, *, deferred: bool = False) -> None:
        self.layout = layout
        self.deferred = deferred
        self.dirs: set[Path] = set()  # folders to fsync once at the end
        self._undo: list[tuple[Path, Callable[[], None]]] = []
        # target -> its temp file (and the temp file's fd, kept open for its fsync while
        # fewer than DURABLE_OPEN_FILES are), not yet synced and renamed
        self._pending: dict[Path, tuple[str, int | None]] = {}
        self._pending_names: dict[str, int] = {}  # file name -> how many pending targets
        # Folders this mutation already checked (no link below the root) and made private:
        # a batch writes hundreds of files into the same few (issue 17).
        self._ready: set[Path] = set()
        # relpath -> its ctime after a deferred write's rename (store/batch.py stamps it)
        self.placed: dict[str, int] = {}

    def write(self, path: Path, data: bytes) -> os.stat_result:
        """Write `path` atomically (its folder is flushed later, see `dirs`); returns the
        stat the file has (deferred: will have) at `path`."""
        if path.parent not in self._ready:
            self.layout.check_inside(path)
        self.settle(path)
        try:
            previous: bytes | None = path.read_bytes()
            stamp: os.stat_result | None = path.stat()
        except FileNotFoundError:
            previous, stamp = None, None
        except OSError as exc:
            raise store_unavailable(exc, path) from exc
        if self.deferred:
            fd: int | None
            fd, tmp_name, stat = self._open_temp(path, data)
            if len(self._pending) >= config.DURABLE_OPEN_FILES:
                os.close(fd)  # flush opens it again by name
                fd = None
            self._add_pending(path, tmp_name, fd)  # flush renames it and fsyncs its folder
        else:
            tmp_name, stat = write_temp(path, data, sync=True)
            rename_temp(tmp_name, path)
            stat = _placed_stat(path, stat)
            self.dirs.add(path.parent)
        self._undo.append((path, lambda: self._undo_write(path, previous, stamp)))
        return stat

    def _open_temp(self, path: Path, data: bytes) -> tuple[int, str, os.stat_result]:
        """_open_temp, the folder made private once per mutation (again if it vanished)."""
        folder = path.parent
        if folder in self._ready:
            try:
                return _open_temp(path, data, ensure=False)
            except StoreUnavailable:
                self._ready.discard(folder)  # removed meanwhile? made again below
        result = _open_temp(path, data)
        self._ready.add(folder)
        return result

    def _add_pending(self, path: Path, tmp_name: str, fd: int | None) -> None:
        self._pending[path] = (tmp_name, fd)
        self._pending_names[path.name] = self._pending_names.get(path.name, 0) + 1

    def _pop_pending(self, path: Path) -> tuple[str, int | None] | None:
        """Forget a pending write; returns its temp file (its fd closed), if there was one."""
        entry = self._pending.pop(path, None)
        if entry is None:
            return None
        left = self._pending_names[path.name] - 1
        if left:
            self._pending_names[path.name] = left
        else:
            del self._pending_names[path.name]
        if entry[1] is not None:
            os.close(entry[1])
        return entry[0], None

    def _undo_write(self, path: Path, previous: bytes | None, stamp: os.stat_result | None) -> None:
        entry = self._pop_pending(path)
        if entry is not None:
            _discard_temp(entry[0])  # never renamed: the target still holds its old bytes
        elif previous is None:
            _unlink(path)
        else:
            _put_back(path, previous, stamp)

    @property
    def pending(self) -> list[Path]:
        """Targets written (deferred) but not yet flushed."""
        return list(self._pending)

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def pending_named(self, names: Iterable[str]) -> bool:
        """Whether a pending target has one of these file names (no scan of every target)."""
        return any(name in self._pending_names for name in names)

    def settle(self, path: Path) -> None:
        """Flush `path` now if it has a pending write (before it is read, moved or removed)."""
        if path in self._pending:
            self.flush([path])

    def flush(self, paths: list[Path] | None = None) -> None:
        """Make pending writes (all, or `paths`) durable together, rename each onto its
        target, then fsync their folders once: every temp file is fsynced before any rename,
        so after a crash each target holds its old bytes or its complete new ones."""
        targets = list(self._pending) if paths is None else paths
        if not targets:
            return
        try:
            sync_files([self._pending[path] for path in targets])
        except OSError as exc:
            raise store_unavailable(exc, targets[0]) from exc
        for path in targets:
            entry = self._pop_pending(path)
            assert entry is not None  # a target of this flush
            try:
                os.replace(entry[0], path)
            except OSError as exc:
                self._add_pending(path, entry[0], None)  # rollback discards it
                raise store_unavailable(exc, path) from exc
            with contextlib.suppress(OSError):  # unknown: reconcile hashes it once
                self.placed[self.layout.relpath(path)] = os.stat(path).st_ctime_ns
        for folder in sorted({path.parent for path in targets}):
            fsync_dir(folder)

    def move(self, source: Path, target_dir: Path, name: str) -> Path:
        """Move `source` into `target_dir` (never overwriting); returns where it went."""
        self.layout.check_inside(target_dir / name)
        self.settle(source)
        target = move_file(source, target_dir, name)
        self._undo.append((source, lambda: os.replace(target, source)))
        return target

    def remove(self, path: Path, data: bytes) -> None:
        """Delete `path`, whose bytes are `data` (kept to put it back); gone already is fine."""
        self.settle(path)
        try:
            path.unlink()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise store_unavailable(exc, path) from exc
        self.dirs.add(path.parent)
        self._undo.append((path, lambda: _put_back(path, data, None)))

    def mark(self) -> int:
        """A point to roll back to (a batch item's changes, inside the batch's)."""
        return len(self._undo)

    def rollback(self, mark: int = 0) -> list[str]:
        """Undo the changes made after `mark`, newest first; returns the paths that could
        not be put back (they may still hold the change; the next reconcile indexes them)."""
        failed: list[str] = []
        while len(self._undo) > mark:
            path, undo = self._undo.pop()
            try:
                undo()
            except (OSError, StoreUnavailable) as exc:
                log.error("could not undo the change to %s: %s", path, exc)
                failed.append(self.layout.relpath(path))
            self.dirs.add(path.parent)
        return failed

    def commit(self) -> None:
        """The index now describes these files: forget how to undo them."""
        self._undo.clear()


def _placed_stat(path: Path, fallback: os.stat_result) -> os.stat_result:
    """A file's stat after its rename changed the ctime the index keeps; else `fallback`."""
    try:
        return os.stat(path)
    except OSError:
        return fallback


def _put_back(path: Path, data: bytes, stamp: os.stat_result | None) -> None:
    """Write a file's old bytes back, with its old times when known (so the next reconcile
    sees it unchanged instead of hashing it again)."""
    atomic_write(path, data, sync_dir=False)
    if stamp is not None:
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
