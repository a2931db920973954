"""Which of a store's files are per machine, and the ignore files that keep sync tools off them
(issue 19): the one home of that list.

Every SQLite file (the index, the embedding cache, the metrics), the vector index, the lock,
the index stamp, temp files, the quarantine, the running MCP servers' records and the
generated `MEMORY.md` files are made again by each machine (from the memory files, or by its
own processes), and `settings.json` is each machine's own (its model, schedules, port).
Synced, they would conflict on every sync (a SQLite file copied while open is also a damaged
one), and two machines would run one organizer schedule on the same memories. When the store
opens, `write_ignore_files` keeps a marked block in the store folder's `.gitignore` (git) and
`.stignore` (Syncthing, which never syncs that file itself, so each machine needs its own) up
to date; a person's own lines outside the block are never touched. After a sync, reconcile
reads only the changed files and writes the `MEMORY.md` of every scope they touched
(store/reconcile.py).
"""

from __future__ import annotations

import logging
from pathlib import Path

from liveagent_memory.domain import config, web_config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.store.files import (
    QUARANTINE_DIRNAME,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    atomic_write,
)

log = logging.getLogger(__name__)

# (pattern, only at the store's root): the same meaning in git's and Syncthing's syntax.
PER_MACHINE: tuple[tuple[str, bool], ...] = (
    (f"{config.INDEX_FILENAME}*", True),  # with its -wal and -shm
    (config.INDEX_STAMP_FILENAME, True),
    (config.LOCK_FILENAME, True),
    (f"{config.METRICS_FILENAME}*", True),
    (config.VECTORS_DIRNAME, True),  # the embedding cache and the vector index
    (QUARANTINE_DIRNAME, True),
    (web_config.RUNTIME_DIRNAME, True),  # the records of MCP servers running here (presence.py)
    # This machine's settings (its model, schedules, bridge port, sync timer): synced, two
    # machines would run the same organizer schedule on one store.
    (config.SETTINGS_FILENAME, True),
    (f"{TEMP_PREFIX}*{TEMP_SUFFIX}", False),
    (config.SCOPE_INDEX_FILENAME, False),  # every scope's generated MEMORY.md
)

BEGIN = ">>> liveagent-memory: files each machine makes for itself (kept by the app; do not edit)"
END = "<<< liveagent-memory"


def block(comment: str) -> list[str]:
    """The managed block's lines for a syntax whose comments start with `comment`."""
    lines = [f"{comment} {BEGIN}"]
    lines += [f"/{pattern}" if at_root else pattern for pattern, at_root in PER_MACHINE]
    lines.append(f"{comment} {END}")
    return lines


IGNORE_FILES = ((".gitignore", "#"), (".stignore", "//"))


def updated_text(current: str, lines: list[str]) -> str:
    """`current` with its managed block replaced by `lines` (added at the end if it has none);
    every other line kept as it is."""
    old = current.splitlines()
    begin = next((i for i, line in enumerate(old) if line.endswith(BEGIN)), None)
    end = None
    if begin is not None:
        end = next((i for i in range(begin, len(old)) if old[i].endswith(END)), None)
    if begin is None or end is None:
        kept = old + ([""] if old and old[-1].strip() else [])
        return "\n".join(kept + lines) + "\n"
    return "\n".join(old[:begin] + lines + old[end + 1 :]) + "\n"


def write_ignore_files(root: Path) -> list[str]:
    """Bring the managed block of each ignore file in `root` up to date; returns the names of
    those written. A file that cannot be written is logged and left: syncing is the person's
    choice, and the store works without it."""
    written = []
    for name, comment in IGNORE_FILES:
        path = root / name
        try:
            current = path.read_text("utf-8") if path.exists() else ""
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("%s not updated: %s", path, exc)
            continue
        text = updated_text(current, block(comment))
        if text == current:
            continue
        try:
            atomic_write(path, text.encode("utf-8"))
        except StoreUnavailable as exc:
            log.warning("%s not updated: %s", path, exc)
            continue
        written.append(name)
    return written
