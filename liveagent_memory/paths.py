"""Where the store lives, and the project key of a working directory."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from liveagent_memory.domain import config


def default_home(environ: Mapping[str, str] | None = None) -> Path:
    """The store root: `$LIVEAGENT_MEMORY_HOME`, else `~/.liveagent/memory` (SPEC 1.1)."""
    env = os.environ if environ is None else environ
    override = env.get(config.HOME_ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path.home().joinpath(*config.DEFAULT_HOME_PARTS)


def canonical_workdir(workdir: str) -> str:
    """Canonical form of a workdir: the resolved absolute path when it exists.

    Like the reference (Rust `fs::canonicalize`), a path that does not exist is used as
    given, so a project whose folder was removed keeps its key.
    """
    value = workdir.strip()
    try:
        return str(Path(value).resolve(strict=True))
    except (OSError, RuntimeError):
        return value


def workdir_hash(workdir: str) -> str:
    """Project key: first 16 hex chars of sha256(canonical workdir) (REFERENCE A1)."""
    digest = hashlib.sha256(canonical_workdir(workdir).encode("utf-8")).hexdigest()
    return digest[: config.PROJECT_HASH_CHARS]
