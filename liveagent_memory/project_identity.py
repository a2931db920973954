"""A workdir's portable id: its id file, else its git remote, else none (the path as today).

Read from files only, never by running git: `.liveagent/project-id` in the workdir, then the
`.git` folder of the workdir or of the nearest folder above it (a `.git` file, as a worktree or
a submodule has, points to it; a worktree's `commondir` to the repository's own config). The
rule that decides when two remote URLs are one repository is `domain/projects.py`'s; which
project folder of the store a workdir opens is `store/project_keys.py`'s (docs/ARCHITECTURE.md
"Where each rule lives").
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import ProjectIdInvalid
from liveagent_memory.domain.projects import (
    PINNED_PREFIX,
    remote_project_id,
    valid_project_id,
)

log = logging.getLogger(__name__)

_SECTION = re.compile(r'^\[\s*remote\s+"(?P<name>(?:[^"\\]|\\.)*)"\s*\]')
_URL = re.compile(r"^url\s*=\s*(?P<value>.*)$", re.IGNORECASE)


def id_file(workdir: str | Path) -> Path:
    """Where a workdir's id file is: `<workdir>/.liveagent/project-id`."""
    return Path(workdir) / config.PROJECT_ID_DIRNAME / config.PROJECT_ID_FILENAME


def read_id_file(workdir: str | Path) -> str | None:
    """The id a workdir's id file holds; None when it has no id file.

    Raises ProjectIdInvalid when the file is there but unreadable or holds no usable id.
    """
    path = id_file(workdir)
    try:
        with path.open("rb") as handle:
            data = handle.read(config.PROJECT_ID_FILE_MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ProjectIdInvalid(f"{path} could not be read: {exc}", field="workdir") from exc
    value = None
    if len(data) <= config.PROJECT_ID_FILE_MAX_BYTES:
        try:
            value = valid_project_id(data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            value = None
    if value is None:
        raise ProjectIdInvalid(
            f"{path} holds no project id (one line of at most "
            f"{config.PROJECT_ID_MAX_CHARS} characters)",
            field="workdir",
        )
    return value


def git_remote_id(workdir: str | Path) -> str | None:
    """The id of a workdir from its repository's remote (`origin` first, else the first
    listed); None outside a repository, without a remote or with an unreadable config."""
    found = _git_dir(Path(workdir))
    if found is None:
        return None
    top, git_dir = found
    url = _remote_url(_common_dir(git_dir) / "config")
    if url is None:
        return None
    try:
        subfolder = Path(workdir).relative_to(top).as_posix()
    except ValueError:
        subfolder = ""
    return remote_project_id(url, subfolder)


def portable_id(workdir: str | Path) -> str | None:
    """A workdir's portable id: its id file, else its git remote; None for neither.

    Why the id file first: a person wrote it on purpose (`projects pin`), and it survives a
    remote that is renamed or moved. A bad id file is logged and passed over, so one broken
    file never hides a project's memories behind an error on every call. Only a folder that
    is there has one: a relative or missing path would borrow the id of a folder above it.
    """
    if not is_folder(workdir):
        return None
    try:
        pinned = read_id_file(workdir)
    except ProjectIdInvalid as exc:
        log.warning("ignoring the project id file: %s", exc.message)
        pinned = None
    return pinned or git_remote_id(workdir)


def is_folder(workdir: str | Path) -> bool:
    """Whether `workdir` is an absolute path to a folder that is there (never raises)."""
    path = Path(workdir)
    try:
        return path.is_absolute() and path.is_dir()
    except (OSError, ValueError):  # a name too long for the system, a NUL
        return False


def new_pinned_id() -> str:
    """A new id for a project with no remote: random, so two projects never share it."""
    return f"{PINNED_PREFIX}{uuid.uuid4().hex}"


def write_id_file(workdir: str | Path, project_id: str) -> Path:
    """Write `project_id` to the workdir's id file (a person asked: `projects pin`)."""
    path = id_file(workdir)
    try:
        path.parent.mkdir(exist_ok=True)
        temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temp.write_text(project_id + "\n", encoding="utf-8")
        os.replace(temp, path)
    except OSError as exc:
        raise ProjectIdInvalid(f"{path} could not be written: {exc}", field="workdir") from exc
    return path


def _git_dir(start: Path) -> tuple[Path, Path] | None:
    """(the repository's top folder, its git folder) for `start` or its nearest parent."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_dir():
                return folder, dot_git
            if dot_git.is_file():
                pointed = _gitdir_file(dot_git)
                return (folder, pointed) if pointed is not None else None
        except OSError:
            return None
    return None


def _gitdir_file(dot_git: Path) -> Path | None:
    """The folder a `.git` file names (`gitdir: <path>`, relative to the file's folder)."""
    text = _small_text(dot_git)
    if text is None or not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (dot_git.parent / target)


def _common_dir(git_dir: Path) -> Path:
    """A worktree's git folder shares its repository's config through `commondir`."""
    text = _small_text(git_dir / "commondir")
    if not text:
        return git_dir
    common = Path(text.strip())
    return common if common.is_absolute() else (git_dir / common)


def _remote_url(config_file: Path) -> str | None:
    """The URL of `origin` in a git config file, else of the first remote with one."""
    text = _small_text(config_file)
    if text is None:
        return None
    urls: dict[str, str] = {}
    remote: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            match = _SECTION.match(line)
            remote = match["name"] if match else None
            continue
        url = _URL.match(line) if remote is not None else None
        if remote is not None and url is not None and remote not in urls:
            urls[remote] = _unquote(url["value"])
    if config.GIT_PREFERRED_REMOTE in urls:
        return urls[config.GIT_PREFERRED_REMOTE]
    return next(iter(urls.values()), None)


def _unquote(value: str) -> str:
    """A git config value without its trailing comment and surrounding quotes."""
    text = value.strip()
    if text.startswith('"'):
        end = text.find('"', 1)
        return text[1:end] if end > 0 else text[1:]
    for mark in (" #", " ;", "\t#", "\t;"):
        text = text.split(mark, 1)[0]
    return text.strip()


def _small_text(path: Path) -> str | None:
    """A small text file's content; None when missing, unreadable or too big."""
    try:
        with path.open("rb") as handle:
            data = handle.read(config.GIT_CONFIG_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > config.GIT_CONFIG_MAX_BYTES:
        return None
    return data.decode("utf-8", errors="replace")
