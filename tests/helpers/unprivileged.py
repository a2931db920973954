"""Run a piece of test code as an ordinary user, so file permissions apply even to root.

CI (and the development machine) runs the suite as root, and root reads and writes a file
whatever its mode says: a test of "this folder is read-only" or "this file is unreadable" would
prove nothing there. `Unprivileged.run(fn, ...)` calls `fn` in a forked child that has dropped
to the `nobody` user (no supplementary groups) and hands back its return value or exception;
when the suite does not run as root, it calls `fn` directly, because permissions already apply.

The child needs a folder of its own: pytest's tmp_path sits below /tmp/pytest-of-root/, which is
0700 and root's, so `nobody` cannot reach it. Under root, `Unprivileged.folder` is a fresh
folder in the system temp folder, owned by the child's user and removed (with everything the
child made, whatever its modes) when the test ends; otherwise it is a folder in tmp_path. Build
the files there, inside `run` (then the child owns them, as a person owns their store) or in the
test followed by `hand_over(path)`.

A fork, not a new interpreter: the Python running the suite may sit where `nobody` cannot read
(pyenv under /root), the function may be a closure over the test's fixtures, and pytest's
rewritten asserts keep their messages. Modules the child imports for the first time must be
readable by `nobody`; the package and its dependencies in the project's .venv are.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import pwd
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

T = TypeVar("T")

FALLBACK_NOBODY_ID = 65534  # nobody/nogroup on Debian and most Linux systems
CHILD_TIMEOUT_SECONDS = 120.0  # a child that hangs fails its test instead of the whole suite
FOLDER_PREFIX = "liveagent-unprivileged-"


class ChildFailed(Exception):
    """The unprivileged child died, hung, or raised something that could not be sent back."""


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def nobody_ids() -> tuple[int, int]:
    """The uid and gid of `nobody` (65534 where the name is unknown)."""
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return FALLBACK_NOBODY_ID, FALLBACK_NOBODY_ID
    return entry.pw_uid, entry.pw_gid


class Unprivileged:
    """Runs test code as a user that file permissions apply to, in a folder that user owns.

    `drops` is True when the code runs in a child as another user (the suite runs as root).
    """

    def __init__(self, folder: Path, *, ids: tuple[int, int] | None) -> None:
        self.folder = folder
        self._ids = ids

    @property
    def drops(self) -> bool:
        return self._ids is not None

    def hand_over(self, *paths: Path) -> None:
        """Give files and folders the test made (recursively) to the child's user."""
        if self._ids is None:
            return
        uid, gid = self._ids
        for path in paths:
            os.chown(path, uid, gid, follow_symlinks=False)
            if path.is_dir() and not path.is_symlink():
                for parent, dirs, files in os.walk(path):
                    for name in (*dirs, *files):
                        os.chown(os.path.join(parent, name), uid, gid, follow_symlinks=False)

    def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Call `fn(*args, **kwargs)` as the unprivileged user; return or raise what it did.

        An exception from the child is raised again here with the child's traceback as a note;
        the return value and the exception must be picklable.
        """
        if self._ids is None:
            return fn(*args, **kwargs)
        # Garbage of earlier tests (an unclosed store's SQLite connection) is finalized here,
        # not in the child, which still holds the parent's file descriptors.
        gc.collect()
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_fd)
            _child_main(write_fd, self._ids, fn, args, kwargs)
        os.close(write_fd)
        try:
            data = _read_until_eof(read_fd, pid)
        finally:
            os.close(read_fd)
            _, status = os.waitpid(pid, 0)
        return cast(T, _outcome(data, status, self._ids[0]))  # what `fn` returned, unpickled


@contextlib.contextmanager
def unprivileged_folder(tmp_path: Path) -> Iterator[Unprivileged]:
    """An `Unprivileged` runner with its folder; under root the folder is removed afterwards."""
    if not running_as_root():
        folder = tmp_path / "unprivileged"
        folder.mkdir()
        yield Unprivileged(folder, ids=None)
        return
    ids = nobody_ids()
    base = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
    try:
        # mkdtemp made it 0700: owned by the child's user, only that user (and root) enters.
        os.chown(base, *ids)
        closed = [p for p in base.parents if not p.stat().st_mode & 0o001]
        if closed:
            raise ChildFailed(
                f"{closed[0]} cannot be traversed by uid {ids[0]}; point TMPDIR at a folder "
                "everyone can traverse (such as /tmp)"
            )
        yield Unprivileged(base, ids=ids)
    finally:
        # Root removes every file the child left, whatever modes the test set on them.
        shutil.rmtree(base)


def _child_main(
    write_fd: int,
    ids: tuple[int, int],
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> NoReturn:
    """Drop privileges, run `fn`, send the pickled outcome, and leave without cleanup."""
    exit_code = 1  # unless the outcome reached the parent
    try:
        uid, gid = ids
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)  # real, effective and saved uid: root cannot come back
            if os.geteuid() == 0:
                raise ChildFailed("the child is still root after setuid")
            outcome: tuple[Any, ...] = ("returned", fn(*args, **kwargs))
        except BaseException as exc:  # everything, pytest's outcomes included, goes back
            outcome = ("raised", exc, traceback.format_exc())
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(_pickled(outcome))
        exit_code = 0
    finally:
        # No atexit handlers, fixture finalizers or buffered writes of the parent run twice.
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(exit_code)


def _pickled(outcome: tuple[Any, ...]) -> bytes:
    try:
        data = pickle.dumps(outcome)
        pickle.loads(data)  # unpicklable exceptions often fail only on the way back
        return data
    except Exception as exc:
        if outcome[0] == "raised":
            return pickle.dumps(("raised", None, outcome[2]))
        return pickle.dumps(("raised", None, f"the return value cannot be pickled: {exc!r}"))


def _read_until_eof(read_fd: int, pid: int) -> bytes:
    chunks: list[bytes] = []
    deadline = time.monotonic() + CHILD_TIMEOUT_SECONDS
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([read_fd], [], [], max(left, 0))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            raise ChildFailed(f"the unprivileged child ran longer than {CHILD_TIMEOUT_SECONDS} s")
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _outcome(data: bytes, status: int, uid: int) -> Any:
    if not data:
        raise ChildFailed(
            f"the unprivileged child ended without a result (wait status {status}: "
            f"{_describe_status(status)})"
        )
    kind, *rest = pickle.loads(data)
    if kind == "returned":
        return rest[0]
    exc, child_traceback = rest
    if exc is None:
        raise ChildFailed(f"in the child running as uid {uid}:\n{child_traceback}")
    exc.add_note(f"raised in the child running as uid {uid}:\n{child_traceback}")
    raise exc


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"
