"""The store folder as a git repository synced with one remote (issue 19, "Git sync, built in"):
the one module that runs git on the store.

It runs the `git` program people already have, always as `git -C <store>` with a fixed
environment (no pager, no prompt, no editor, `LC_ALL=C` so its words can be read) and a
timeout, and turns each failure into a typed error carrying git's stderr.

**Committing.** A write does not commit: a commit per write would cost every write a git call.
Each `sync` first commits whatever changed since the last one, in one commit whose message
lists the changes and their actors from the audit log since the last sync (`_message`), so the
history still says who changed what.

**Syncing** (`run`): fetch (outside the store's write lock: it touches only `.git`; the app
fetches on a worker of its own first, `fetch`, then runs the rest on its store worker), then under
the lock: commit local changes, keep the commit we start from (`_IN_PROGRESS`), merge the
remote's branch, settle every path git could not merge, commit, push (never forced; a push the
remote rejects because it moved is fetched, merged and pushed again, `SYNC_PUSH_ATTEMPTS` in
all), and reconcile the index (the changed files only). A merge, not a rebase: one pass settles
every conflicting path, and the commit we started from stays an ancestor to go back to; git's
plain three-way `resolve` strategy, which pairs no renames (`_merge`). How a path is settled:

- a journal day: both versions' entries joined (`store/sync.py` `merge_journal_texts`);
- a project's `.workdir.json`: every path either machine saw (`store/markers.py`);
- a memory (or any other file) edited on both sides: ours stays in place, theirs is written
  beside it as a conflict copy (`conflicts.git_copy_name`) that reconcile lists like a
  Syncthing copy, so a person resolves it in the app; no file is ever left with markers;
- edited on one side and deleted on the other: the edited version is kept (nothing is lost).

The per-machine files (the index with its audit log, run history and review queue; vectors,
metrics, `MEMORY.md`...) are in the store's `.gitignore` (`store/ignore_files.py`), so they
never travel and never conflict: each machine keeps its own history, and a sync never
duplicates a run.

**A failed sync changes nothing.** Any failure after the merge began goes back to the commit we
started from (`git merge --abort`, `git reset --hard`). A sync killed mid-way leaves
`_IN_PROGRESS` behind; whoever next takes the store's write lock (a write, a sync, an open: the
lock's `on_acquire`, store/store.py `_write_lock`) goes back the same way before doing anything,
so both sides stay as they were before it and no later write is undone with it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import format_rfc3339
from liveagent_memory.domain.errors import (
    GitMissing,
    GitSyncError,
    InvalidArgument,
    SyncAlreadyInitialised,
    SyncFailed,
    SyncNotInitialised,
    SyncRemoteNotEmpty,
    SyncRemoteUnreachable,
)
from liveagent_memory.domain.schema import ReconcileReport
from liveagent_memory.store import conflicts, ignore_files, maintenance, markers
from liveagent_memory.store.context import StoreContext
from liveagent_memory.store.evidence import DocumentError
from liveagent_memory.store.files import atomic_write
from liveagent_memory.store.schema import memory_audit_log
from liveagent_memory.store.sync import is_journal, merge_journal_texts

log = logging.getLogger(__name__)

REMOTE = "origin"
_IN_PROGRESS = "liveagent-sync-in-progress.json"  # in .git: the commit a sync started from
_STATE = "liveagent-sync.json"  # in .git: the last sync's time and result (this machine's)
# Files a new store holds before any memory: a store with only these counts as empty.
_EMPTY_STORE_FILES = {name for name, _ in ignore_files.IGNORE_FILES}
_VERSION_CHECKED: list[str] = []
_REPOSITORY_VARIABLES = frozenset(
    {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"}
)  # `git --version`, once per process


@dataclass(frozen=True)
class _Done:
    code: int
    out: str
    err: str


class Git:
    """`git -C <root>` with the fixed environment and a timeout."""

    def __init__(self, root: Path) -> None:
        self.root = root
        check_git()

    def run(self, *args: str, check: bool = True, network: bool = False) -> _Done:
        """Run one git command; a non-zero exit raises SyncFailed with its stderr (unless
        `check` is False)."""
        done = _git(["-C", str(self.root), *args], network=network)
        if check and done.code != 0:
            raise SyncFailed(f"git {args[0]} failed: {_gist(done.err)}", stderr=done.err)
        return done

    def out(self, *args: str) -> str:
        return self.run(*args).out.strip()

    def head(self) -> str | None:
        done = self.run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return done.out.strip() or None

    def branch(self) -> str:
        done = self.run("symbolic-ref", "--short", "-q", "HEAD", check=False)
        return done.out.strip() or config.SYNC_BRANCH

    def remote_url(self) -> str | None:
        done = self.run("remote", "get-url", REMOTE, check=False)
        return done.out.strip() if done.code == 0 else None

    def has_ref(self, ref: str) -> bool:
        return self.run("rev-parse", "--verify", "-q", ref, check=False).code == 0

    @property
    def git_dir(self) -> Path:
        return self.root / ".git"


def _git(args: list[str], *, network: bool) -> _Done:
    timeout = config.GIT_NETWORK_TIMEOUT_SECONDS if network else config.GIT_LOCAL_TIMEOUT_SECONDS
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", "-c", "core.autocrlf=false", *args],
            env=_environment(),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitMissing("git is not installed: install git to sync the store") from None
    except subprocess.TimeoutExpired:
        what = "the remote did not answer" if network else "git did not finish"
        error = SyncRemoteUnreachable if network else SyncFailed
        raise error(f"{what} within {timeout:.0f} s (git {args[2]})") from None
    return _Done(done.returncode, done.stdout, done.stderr)


def _environment() -> dict[str, str]:
    """The person's environment (their git identity, ssh keys, proxy) with no prompt, pager or
    editor: a sync runs unattended, and a prompt would hang it."""
    # A repository named by the environment (a git hook's, a shell's) would win over `-C`.
    env = {k: v for k, v in os.environ.items() if k not in _REPOSITORY_VARIABLES}
    env.update(
        {
            "LC_ALL": "C",
            "LANGUAGE": "",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_EDITOR": "true",
            "GIT_MERGE_AUTOEDIT": "no",
            "GCM_INTERACTIVE": "never",
        }
    )
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def check_git() -> str:
    """`git --version` (asked once per process); GitMissing when there is no git."""
    if not _VERSION_CHECKED:
        done = _git(["--version"], network=False)
        if done.code != 0:
            raise GitMissing(f"git does not run: {_gist(done.err)}", stderr=done.err)
        _VERSION_CHECKED.append(done.out.strip())
    return _VERSION_CHECKED[0]


def _gist(text: str) -> str:
    """The line of git's stderr that says why: its first `fatal:` or `error:` line, else its
    last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line.split(":", 1)[1].strip()
    return lines[-1] if lines else "no message"


# --------------------------------------------------------------------------------------------
# init


def init(ctx: StoreContext, remote: str) -> dict[str, Any]:
    """Make the store folder a git repository syncing with `remote`: push this store's
    memories to an empty remote, or, in an empty store, take the memories the remote holds.
    A remote that already holds a store and a store holding memories: SyncRemoteNotEmpty."""
    remote = remote.strip()
    if not remote:
        raise InvalidArgument("name the remote: liveagent-memory sync init REMOTE", field="remote")
    if remote.startswith("-"):  # git would read it as an option
        raise InvalidArgument(f"{remote!r} is not a git remote", field="remote")
    git = Git(ctx.root)
    fresh = not git.git_dir.exists()
    if not fresh and git.remote_url() is not None:
        raise SyncAlreadyInitialised(
            f"{ctx.root} already syncs with {git.remote_url()}; run `liveagent-memory sync`"
        )
    try:
        with ctx.lock:
            if fresh:
                git.run("init", "-q")
                git.run("symbolic-ref", "HEAD", f"refs/heads/{config.SYNC_BRANCH}")
            git.run("remote", "add", REMOTE, remote)
            _fetch(git)
            branch = _remote_branch(git)
            if branch is None:
                return _first_push(ctx, git)
            if not _store_is_empty(git):
                raise SyncRemoteNotEmpty(
                    f"{remote} already holds a store and {ctx.root} holds memories: run "
                    "`sync init` in an empty store folder to take the remote's memories"
                )
            return _take_remote(ctx, git, branch)
    except GitSyncError:
        _undo_init(git, fresh)
        raise


def _undo_init(git: Git, fresh: bool) -> None:
    """A failed init leaves the folder as it was: our repository removed, or our remote."""
    if fresh:
        shutil.rmtree(git.git_dir, ignore_errors=True)
    else:
        git.run("remote", "remove", REMOTE, check=False)


def _remote_branch(git: Git) -> str | None:
    """The branch the remote's HEAD names (else our default, if the remote has it); None when
    the remote has no commit."""
    done = git.run("ls-remote", "--symref", REMOTE, "HEAD", check=False, network=True)
    for line in done.out.splitlines():
        if line.startswith("ref: refs/heads/"):
            name = line.split()[1].removeprefix("refs/heads/")
            if git.has_ref(f"refs/remotes/{REMOTE}/{name}"):
                return name
    if git.has_ref(f"refs/remotes/{REMOTE}/{config.SYNC_BRANCH}"):
        return config.SYNC_BRANCH
    return None


def _store_is_empty(git: Git) -> bool:
    """No file to commit but the ignore files every new store writes."""
    names = git.out("ls-files", "--others", "--cached", "--exclude-standard", "-z").split("\0")
    return not [n for n in names if n and n not in _EMPTY_STORE_FILES]


def _first_push(ctx: StoreContext, git: Git) -> dict[str, Any]:
    _commit_local(ctx, git)
    if git.head() is None:  # nothing at all to commit: the ignore files always are, but still
        git.run("commit", "-q", "--allow-empty", "-m", "liveagent-memory: a new store")
    branch = git.branch()
    _push(git, branch, upstream=True)
    _save_state(ctx, git, ok=True, message="pushed this store to an empty remote")
    return {"remote": git.remote_url(), "branch": branch, "took_remote": False, **_counts(git)}


def _take_remote(ctx: StoreContext, git: Git, branch: str) -> dict[str, Any]:
    # The ignore files this store wrote are the remote's too (same block): overwritten.
    git.run("reset", "-q", "--hard", f"{REMOTE}/{branch}")
    current = git.branch()
    if current != branch:
        git.run("branch", "-q", "-m", current, branch)
    git.run("branch", "-q", f"--set-upstream-to={REMOTE}/{branch}")
    ignore_files.write_ignore_files(ctx.root)
    report = _reconcile(ctx)
    _save_state(ctx, git, ok=True, message="took the remote's memories")
    return {
        "remote": git.remote_url(),
        "branch": branch,
        "took_remote": True,
        "indexed": report.added + report.updated,
        **_counts(git),
    }


# --------------------------------------------------------------------------------------------
# sync


def fetch(ctx: StoreContext) -> dict[str, Any]:
    """Fetch the remote's branch, the network step before `run(ctx, fetched=True)`: no write
    lock and no store file or index touched (only `.git/` changes), so the app runs it beside
    its store worker and a slow remote holds no other store call (ui/bridge.py `run_network`).
    A failure is recorded as the last sync's, like one `run` meets."""
    git = _initialised(ctx)
    started = ctx.now_ms()
    try:
        _fetch(git)
    except GitSyncError as exc:
        _save_state(ctx, git, ok=False, message=exc.message, started=started)
        raise
    return {"remote": git.remote_url(), "branch": git.branch()}


def run(ctx: StoreContext, *, fetched: bool = False) -> dict[str, Any]:
    """Commit local changes, merge the remote's, push; see the module docstring. Returns what
    happened: `pulled` (files the remote changed), `pushed`, `conflicts` (copies written),
    `journals_merged`, `markers_merged`. `fetched`: the caller has just run `fetch`; a remote
    that moved since is fetched again when the push is refused, as always."""
    git = _initialised(ctx)
    started = ctx.now_ms()
    try:
        if not fetched:
            _fetch(git)  # outside the lock: only .git/ changes
        with ctx.lock:
            recover(ctx.root)
            result = _sync_locked(ctx, git)
    except GitSyncError as exc:
        _save_state(ctx, git, ok=False, message=exc.message, started=started)
        raise
    _save_state(ctx, git, ok=True, message=_summary(result), started=started)
    return result


def _initialised(ctx: StoreContext) -> Git:
    git = Git(ctx.root)
    if not git.git_dir.is_dir() or git.remote_url() is None:
        raise SyncNotInitialised(
            f"{ctx.root} does not sync with git yet: run `liveagent-memory sync init REMOTE`"
        )
    return git


def _sync_locked(ctx: StoreContext, git: Git) -> dict[str, Any]:
    branch = git.branch()
    settled: Counter[str] = Counter()
    pulled: set[str] = set()
    pushed = False
    start: str | None = None
    _mark_in_progress(git, None)  # a kill while committing leaves only git's index.lock
    try:
        _commit_local(ctx, git)
        start = git.head()
        _mark_in_progress(git, start)
        for attempt in range(config.SYNC_PUSH_ATTEMPTS):
            if attempt:
                _fetch(git)
            if git.has_ref(f"refs/remotes/{REMOTE}/{branch}"):
                before = git.head()
                settled += _merge(ctx, git, f"{REMOTE}/{branch}")
                pulled |= _changed(git, before, git.head())
            if _up_to_date(git, branch):
                break
            if _push(git, branch, upstream=attempt == 0):
                pushed = True
                break
        else:
            raise SyncFailed(
                f"the remote kept moving: not pushed after {config.SYNC_PUSH_ATTEMPTS} tries"
            )
    except BaseException:
        _roll_back(git, start)
        raise
    _clear_in_progress(git)
    report = _reconcile(ctx) if pulled else None
    return {
        "remote": git.remote_url(),
        "branch": branch,
        "pulled": len(pulled),
        "pushed": pushed,
        "conflicts": settled["copy"],
        "journals_merged": settled["journal"],
        "markers_merged": settled["marker"],
        "kept_edited": settled["kept"],
        "indexed": (report.added + report.updated + report.removed) if report else 0,
        "commit": git.head(),
    }


def _fetch(git: Git) -> None:
    done = git.run("fetch", "-q", "--prune", REMOTE, check=False, network=True)
    if done.code != 0:
        raise SyncRemoteUnreachable(
            f"cannot fetch from {git.remote_url()}: {_gist(done.err)}", stderr=done.err
        )


def _push(git: Git, branch: str, *, upstream: bool) -> bool:
    """Push without force; False when the remote moved meanwhile (fetch and merge again)."""
    args = ["push", "-q", "--porcelain"] + (["-u"] if upstream else [])
    done = git.run(*args, REMOTE, f"HEAD:refs/heads/{branch}", check=False, network=True)
    if done.code == 0:
        return True
    words = f"{done.out}\n{done.err}"
    # Refused because the remote moved (`[rejected]`, or a ref that moved while the push ran)?
    # Ask the remote again: a branch that is no longer in our history means merge and retry.
    _fetch(git)
    ref = f"refs/remotes/{REMOTE}/{branch}"
    moved = git.has_ref(ref) and (
        git.run("merge-base", "--is-ancestor", ref, "HEAD", check=False).code != 0
    )
    if moved:
        return False
    if "rejected" in words or "denied" in words.lower() or "declined" in words:
        raise SyncFailed(f"the remote refused the push: {_reason(done)}", stderr=words)
    raise SyncRemoteUnreachable(
        f"cannot push to {git.remote_url()}: {_gist(done.err)}", stderr=done.err
    )


def _reason(done: _Done) -> str:
    """Why a push was refused: the remote's own words (a hook's), else git's."""
    remote_lines = [
        line.removeprefix("remote:").strip()
        for line in done.err.splitlines()
        if line.startswith("remote:") and line.removeprefix("remote:").strip()
    ]
    return remote_lines[0] if remote_lines else _gist(done.err)


def _up_to_date(git: Git, branch: str) -> bool:
    ref = f"refs/remotes/{REMOTE}/{branch}"
    return git.has_ref(ref) and git.out("rev-parse", ref) == git.head()


def _changed(git: Git, before: str | None, after: str | None) -> set[str]:
    if before is None or after is None or before == after:
        return set()
    names = git.out("diff", "--name-only", "-z", before, after)
    return {n for n in names.split("\0") if n}


# --------------------------------------------------------------------------------------------
# committing local changes


def _commit_local(ctx: StoreContext, git: Git) -> bool:
    """Commit every change since the last sync, naming its actors; False when there was none."""
    git.run("add", "-A")
    if git.head() is not None and git.run("diff", "--cached", "--quiet", check=False).code == 0:
        return False
    if git.head() is None and not git.out("ls-files", "-z"):
        return False
    files = []
    if git.head() is not None:
        files = _name_status(git.out("diff", "--cached", "--name-status", "-z", "HEAD"))
    message = _message(ctx, git, files)
    git.run(*_identity(git), "commit", "-q", "-m", message)
    return True


def _name_status(raw: str) -> list[tuple[str, str]]:
    parts = [p for p in raw.split("\0") if p]
    out = []
    i = 0
    while i < len(parts):
        letter = parts[i][:1]
        step = 3 if letter in ("R", "C") else 2
        out.append((letter, parts[i + step - 1]))
        i += step
    return out


def _message(ctx: StoreContext, git: Git, files: list[tuple[str, str]]) -> str:
    """`liveagent-memory: N changes on MACHINE`, then each change with its actor (from the
    audit log since the last sync), then the files."""
    since = int(_load_state(git).get("audit_id", 0))
    log_table = memory_audit_log
    with ctx.index.read() as conn:
        last = conn.execute(sa.select(sa.func.max(log_table.c.id))).scalar() or 0
        if last < since:
            since = 0  # a new index (wiped): every change it holds is since the last sync
        rows = conn.execute(
            sa.select(
                log_table.c.actor,
                log_table.c.op,
                log_table.c.scope,
                log_table.c.workdir_hash,
                log_table.c.slug,
            )
            .where(log_table.c.id > since)
            .order_by(log_table.c.id)
        ).all()
    machine = markers.this_machine()
    if git.head() is None:
        title = f"liveagent-memory: the store's first commit, on {machine}"
    else:
        title = f"liveagent-memory: {len(files)} changed on {machine}"
    actors = Counter(row.actor for row in rows)
    lines = [title, ""]
    if actors:
        lines.append("actors: " + ", ".join(f"{a} ({n})" for a, n in sorted(actors.items())))
        lines.append("")
    # One line per change and actor (a memory edited five times by hand is one line, x5).
    changes = Counter(
        f"{row.actor}: {row.op} "
        f"{f'project {row.workdir_hash}' if row.workdir_hash else row.scope}/{row.slug}"
        for row in rows
    )
    limit = config.SYNC_COMMIT_LINES_MAX
    named = list(changes.items())
    lines += [line if n == 1 else f"{line} (x{n})" for line, n in named[:limit]]
    if len(named) > limit:
        lines.append(f"... and {len(named) - limit} more")
    if files:
        lines.append("")
        lines += [f"{letter} {path}" for letter, path in files[:limit]]
        if len(files) > limit:
            lines.append(f"... and {len(files) - limit} more files")
    state = _load_state(git)
    state["audit_id"] = last
    _write_state(git, state)
    return "\n".join(lines).rstrip() + "\n"


def _identity(git: Git) -> list[str]:
    """The person's git identity, or one naming this machine when git has none configured."""
    args = []
    if git.run("config", "user.name", check=False).code != 0:
        args += ["-c", "user.name=liveagent-memory"]
    if git.run("config", "user.email", check=False).code != 0:
        args += ["-c", f"user.email=liveagent-memory@{markers.this_machine()}.invalid"]
    return args


# --------------------------------------------------------------------------------------------
# merging


def _merge(ctx: StoreContext, git: Git, theirs: str) -> Counter[str]:
    """Merge `theirs` into HEAD, settling every path git could not merge (module docstring);
    returns how many of each kind were settled."""
    settled: Counter[str] = Counter()
    # The plain three-way `resolve` strategy, which detects no renames: a delete moves the file
    # to the trash, and git's default (ort, whose `no-renames` still pairs an exact copy) calls
    # that a rename and carries the other side's edit into the trash. Without it an edit beside
    # a delete is a conflict, and the edit is kept (_settle): one rule, every time.
    merge = [*_identity(git), "merge", "-q", "--no-edit", "--no-commit"]
    done = git.run(*merge, "-s", "resolve", theirs, check=False)
    merging = (git.git_dir / "MERGE_HEAD").exists()
    if done.code != 0 and not merging:
        raise SyncFailed(f"git could not merge: {_gist(done.err)}", stderr=done.err)
    if not merging:
        return settled  # up to date, or a fast-forward
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(ctx.now_ms() / 1000))
    commit = git.out("rev-parse", "MERGE_HEAD")
    for path, stages in _unmerged(git).items():
        settled[_settle(git, path, stages, stamp, commit)] += 1
    message = f"liveagent-memory: sync on {markers.this_machine()} with {theirs}"
    git.run(*_identity(git), "commit", "-q", "--no-edit", "-m", message)
    return settled


def _unmerged(git: Git) -> dict[str, dict[int, str]]:
    """Each path git left unmerged: its blobs by stage (1 base, 2 ours, 3 theirs)."""
    out: dict[str, dict[int, str]] = {}
    for entry in git.out("ls-files", "-u", "-z").split("\0"):
        if not entry:
            continue
        info, path = entry.split("\t", 1)
        _mode, blob, stage = info.split()
        out.setdefault(path, {})[int(stage)] = blob
    return out


def _settle(git: Git, path: str, stages: dict[int, str], stamp: str, commit: str) -> str:
    """Settle one unmerged path, leaving no marker in any file; returns the kind."""
    ours, theirs = stages.get(2), stages.get(3)
    if ours is None or theirs is None:
        # Deleted on one side, edited on the other: the edited version stays (nothing lost).
        _put(git, path, _blob(git, ours or theirs or ""))
        return "kept"
    mine, other = _blob(git, ours), _blob(git, theirs)
    name = path.rsplit("/", 1)[-1]
    if path.startswith(f"{config.EPISODES_DIRNAME}/"):
        # An episode is a record: both sides differ only in its read counts and decayed
        # importance (store/episode_access.py); ours stands, a copy would be a second episode.
        _put(git, path, mine)
        return "kept"
    joined: str | None = None
    kind = "copy"
    try:
        if is_journal(path):
            joined, kind = merge_journal_texts(mine.decode(), other.decode()), "journal"
        elif name == config.WORKDIR_MARKER_FILENAME:
            joined, kind = markers.merged_marker_text(mine.decode(), other.decode()), "marker"
    except (UnicodeDecodeError, DocumentError) as exc:
        log.warning("%s could not be merged (%s): both versions kept", path, exc)
        joined = None
    if joined is not None:
        _put(git, path, joined.encode("utf-8"))
        return kind
    _put(git, path, mine)
    folder = path.rpartition("/")[0]
    copy = conflicts.git_copy_name(name, stamp, commit)
    _put(git, f"{folder}/{copy}" if folder else copy, other)
    return "copy"


def _blob(git: Git, blob: str) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(git.root), "cat-file", "blob", blob],
        env=_environment(),
        capture_output=True,
        timeout=config.GIT_LOCAL_TIMEOUT_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        raise SyncFailed(f"git could not read {blob}", stderr=stderr)
    return done.stdout


def _put(git: Git, path: str, data: bytes) -> None:
    target = git.root.joinpath(*path.split("/"))
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, data)
    git.run("add", "--", path)


# --------------------------------------------------------------------------------------------
# going back


def _mark_in_progress(git: Git, start: str | None) -> None:
    payload = {"start": start, "pid": os.getpid()}
    atomic_write(git.git_dir / _IN_PROGRESS, json.dumps(payload).encode("utf-8"))


def _clear_in_progress(git: Git) -> None:
    (git.git_dir / _IN_PROGRESS).unlink(missing_ok=True)


def _roll_back(git: Git, start: str | None) -> None:
    """Back to the commit the sync started from: no merge, the files as they were."""
    (git.git_dir / "index.lock").unlink(missing_ok=True)  # a git killed with us
    if (git.git_dir / "MERGE_HEAD").exists():
        git.run("merge", "--abort", check=False)
    if (git.git_dir / "rebase-merge").exists() or (git.git_dir / "rebase-apply").exists():
        git.run("rebase", "--abort", check=False)  # a person's own rebase, interrupted
    if start is not None:
        git.run("reset", "-q", "--hard", start)
    _clear_in_progress(git)


def interrupted(root: Path) -> bool:
    """Whether a sync of the store at `root` was killed mid-way (no git call: a file test)."""
    return (root / ".git" / _IN_PROGRESS).exists()


def recover_logged(root: Path) -> None:
    """`recover` for a store that is opening: a failure is logged, never raised (the store
    opens; the next sync recovers or says why not)."""
    try:
        recover(root)
    except GitSyncError as exc:
        log.warning("an interrupted git sync of %s was not undone: %s", root, exc.message)


def recover(root: Path) -> bool:
    """Undo a sync that was killed mid-way (its marker left in `.git`); True when there was
    one. Called under the store's write lock by `run` and when the store opens."""
    marker = root / ".git" / _IN_PROGRESS
    if not marker.exists():
        return False
    try:
        start = json.loads(marker.read_text("utf-8")).get("start")
    except (OSError, ValueError):
        start = None  # a marker cut short: written before anything was merged
    git = Git(root)
    _roll_back(git, start if isinstance(start, str) else None)
    log.warning("a git sync of %s was interrupted; its changes were undone", root)
    state = _load_state(git)
    state.update(ok=False, message="interrupted; undone", at_ms=int(time.time() * 1000))
    _write_state(git, state)
    return True


# --------------------------------------------------------------------------------------------
# status and state


def status(ctx: StoreContext) -> dict[str, Any]:
    """The git side of `sync status`: whether the store syncs, its remote and branch, commits
    ahead of and behind the remote (as last fetched), uncommitted files, the last sync."""
    if not (ctx.root / ".git").is_dir():
        return {"initialised": False}
    try:
        git = Git(ctx.root)
    except GitMissing as exc:
        return {"initialised": True, "error": exc.code, "message": exc.message}
    branch = git.branch()
    ahead = behind = 0
    ref = f"refs/remotes/{REMOTE}/{branch}"
    if git.head() is not None and git.has_ref(ref):
        counts = git.out("rev-list", "--left-right", "--count", f"HEAD...{ref}").split()
        ahead, behind = int(counts[0]), int(counts[1])
    elif git.head() is not None:
        ahead = int(git.out("rev-list", "--count", "HEAD"))
    state = _load_state(git)
    last = None
    if "at_ms" in state:
        last = {
            "at": format_rfc3339(int(state["at_ms"])),
            "ok": bool(state.get("ok")),
            "message": str(state.get("message") or ""),
        }
    return {
        "initialised": git.remote_url() is not None,
        "remote": git.remote_url(),
        "branch": branch,
        "ahead": ahead,
        "behind": behind,
        **_counts(git),
        "interrupted": (git.git_dir / _IN_PROGRESS).exists(),
        "last_sync": last,
    }


def _counts(git: Git) -> dict[str, int]:
    """Files changed since the last commit (a rename's second name is not counted twice)."""
    lines = git.out("status", "--porcelain", "-z", "--untracked-files=all").split("\0")
    return {"uncommitted": len([line for line in lines if line[2:3] == " "])}


def _summary(result: dict[str, Any]) -> str:
    def files(n: int) -> str:
        return f"{n} file" if n == 1 else f"{n} files"

    pulled, conflicts = int(result["pulled"]), int(result["conflicts"])
    parts = [f"{files(pulled)} pulled", "pushed" if result["pushed"] else "up to date"]
    if conflicts:
        parts.append(f"{conflicts} conflict{'' if conflicts == 1 else 's'} to review")
    return ", ".join(parts)


def _load_state(git: Git) -> dict[str, Any]:
    try:
        data = json.loads((git.git_dir / _STATE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_state(git: Git, state: dict[str, Any]) -> None:
    atomic_write(git.git_dir / _STATE, json.dumps(state).encode("utf-8"))


def _save_state(
    ctx: StoreContext, git: Git, *, ok: bool, message: str, started: int | None = None
) -> None:
    if not git.git_dir.is_dir():
        return  # an init that failed and removed its repository
    state = _load_state(git)
    state.update(ok=ok, message=message, at_ms=ctx.now_ms())
    if started is not None:
        state["started_ms"] = started
    _write_state(git, state)


def _reconcile(ctx: StoreContext) -> ReconcileReport:
    """The index brought in line with the files the sync changed (an incremental reconcile
    reads only files whose stamp changed; it also merges journal conflict copies)."""
    return maintenance.reconcile(ctx, full=False)
