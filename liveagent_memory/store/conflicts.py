"""Sync conflicts: the one rule for what a file-sync tool's conflict copy looks like, and for
the two sides of a file holding git conflict markers (issue 19).

A file-sync tool that meets an edit on two machines keeps both: the original name holds one
version and a *conflict copy* beside it the other. Such a copy is never indexed as a memory
(`store/reconcile.py` records it as a problem with code `sync_conflict`): the original stays
listed once, and a person chooses (`store/sync.py`). The copies are recognised by name:

- Syncthing: `name.sync-conflict-20260102-101010-ABCDEFG.md`
- Dropbox: `name (conflicted copy 2026-01-02).md`, `name (Machine's conflicted copy
  2026-01-02).md` (a number may follow the date when there are several)
- Nextcloud: `name (conflicted copy 2026-01-02 101010).md`
- OneDrive: `name-MACHINE.md`, a name a real memory may have too (`deploy-staging.md`), so it
  counts only with evidence: `name.md` beside it and the copy's frontmatter `name:` naming
  that memory, not its own file (`is_onedrive_copy`).
- git sync (`store/git_sync.py`): `name.git-conflict-20260102-101010-0a1b2c3.md`, the other
  machine's version of a memory edited on both sides (the last part: its commit).

A file holding git's conflict markers (`<<<<<<<`, `=======`, `>>>>>>>` at the start of lines)
is indexed as its "ours" side (`ours`) and listed: its text in search and context never holds
a marker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class SyncTool(StrEnum):
    """Which tool made a conflict: the stable word of `sync status` and the problems list."""

    SYNCTHING = "syncthing"
    DROPBOX = "dropbox"
    NEXTCLOUD = "nextcloud"
    ONEDRIVE = "onedrive"
    GIT = "git"


# The problem code a conflict carries in `problems` and `sync status` (a front end's key).
SYNC_CONFLICT_CODE = "sync_conflict"
# How a conflict's problem reason starts (store/rows.py keeps the other prefixes).
SYNC_CONFLICT_PREFIX = "sync conflict:"

_SYNCTHING = re.compile(r"^(?P<stem>.+)\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}(?P<ext>\.[^.]+)$")
_GITCOPY = re.compile(r"^(?P<stem>.+)\.git-conflict-\d{8}-\d{6}-[0-9a-f]{7}(?P<ext>\.[^.]+)$")
_CLOUD = re.compile(
    r"^(?P<stem>.+?) \((?:[^()]+'s )?conflicted copy \d{4}-\d{2}-\d{2}"
    r"(?P<time> \d{6})?(?: \(\d+\)| \d+)?\)(?P<ext>\.[^.]+)$"
)
# OneDrive adds `-<computer name>`: letters, digits and hyphens (Windows allows 15 of them).
_ONEDRIVE = re.compile(r"^(?P<stem>.+)-(?P<machine>[A-Za-z0-9][A-Za-z0-9-]{0,62})(?P<ext>\.md)$")


@dataclass(frozen=True)
class CopyName:
    """A conflict copy recognised by its file name: the original's name and the tool."""

    original: str
    tool: SyncTool


_TOOL_NAMES = {
    SyncTool.SYNCTHING: "Syncthing",
    SyncTool.DROPBOX: "Dropbox",
    SyncTool.NEXTCLOUD: "Nextcloud",
    SyncTool.ONEDRIVE: "OneDrive",
    SyncTool.GIT: "git",
}


def conflict_reason(original: str, tool: str) -> str:
    """The problem reason of a conflict copy of `original` (a relpath) made by `tool`."""
    return (
        f"{SYNC_CONFLICT_PREFIX} {_TOOL_NAMES[SyncTool(tool)]}'s conflict copy of {original}: not "
        "indexed; keep one version (`liveagent-memory sync status`)"
    )


MARKERS_REASON = (
    f"{SYNC_CONFLICT_PREFIX} holds git conflict markers: indexed as its first side (ours); "
    "keep one version (`liveagent-memory sync status`)"
)


def copy_by_name(name: str) -> CopyName | None:
    """The original file name and tool of a Syncthing, Dropbox, Nextcloud or git sync
    conflict copy; None for any other name (OneDrive's need more than a name:
    `is_onedrive_copy`)."""
    if "conflict" not in name:
        return None  # the common case, without a regular expression (warm reconcile)
    match = _SYNCTHING.match(name)
    if match:
        return CopyName(match["stem"] + match["ext"], SyncTool.SYNCTHING)
    match = _GITCOPY.match(name)
    if match:
        return CopyName(match["stem"] + match["ext"], SyncTool.GIT)
    match = _CLOUD.match(name)
    if match:
        tool = SyncTool.NEXTCLOUD if match["time"] else SyncTool.DROPBOX
        return CopyName(match["stem"] + match["ext"], tool)
    return None


def copy_of(relpath: str) -> tuple[str, str] | None:
    """(the original's relpath, the tool) of a conflict copy recognised by name, else None."""
    folder, _, name = relpath.rpartition("/")
    copy = copy_by_name(name)
    if copy is None:
        return None
    return (f"{folder}/{copy.original}" if folder else copy.original), copy.tool.value


def git_copy_name(name: str, stamp: str, commit: str) -> str:
    """The name of git sync's conflict copy of the file `name`: `stamp` is the UTC time as
    `YYYYMMDD-HHMMSS`, `commit` the other version's commit (its first 7 hex digits are used)."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, "md"
    return f"{stem}.git-conflict-{stamp}-{commit[:7].lower()}.{ext}"


def onedrive_original(name: str, declared: str) -> str | None:
    """The original file name when `name` could be OneDrive's copy of the memory `declared`
    (the copy's frontmatter `name:`): `<declared>-<MACHINE>.md`; None otherwise. A real memory
    named `deploy-staging` declares `deploy-staging`, so it is never read as a copy of
    `deploy`."""
    match = _ONEDRIVE.match(name)
    if match is None or not declared or match["stem"] != declared:
        return None
    return f"{declared}.md"


def is_onedrive_copy(name: str, declared: str, sibling_declares: str | None) -> bool:
    """Whether `name` is OneDrive's conflict copy: it declares the memory of the file
    `<declared>.md` beside it (`sibling_declares`: that file's frontmatter `name:`, None when
    there is no such file)."""
    return onedrive_original(name, declared) is not None and sibling_declares == declared


# --------------------------------------------------------------------------------------------
# git conflict markers

_OPEN = "<<<<<<<"
_BASE = "|||||||"
_SPLIT = "======="
_CLOSE = ">>>>>>>"


def has_markers(text: str) -> bool:
    """Whether `text` holds a complete git conflict block (markers at the start of lines)."""
    return _sides(text) is not None


def ours(text: str) -> str:
    """`text` with each conflict block replaced by its first side ("ours"); `text` itself when
    it holds no complete block."""
    sides = _sides(text)
    return text if sides is None else sides[0]


def theirs(text: str) -> str:
    """`text` with each conflict block replaced by its second side ("theirs")."""
    sides = _sides(text)
    return text if sides is None else sides[1]


def _sides(text: str) -> tuple[str, str] | None:
    """(ours, theirs) of a text holding at least one complete conflict block, else None."""
    if _OPEN not in text:
        return None
    mine: list[str] = []
    other: list[str] = []
    state = "out"  # out, ours, base, theirs
    blocks = 0
    for line in text.splitlines(keepends=True):
        if state == "out" and line.startswith(_OPEN):
            state = "ours"
        elif state == "ours" and line.startswith(_BASE):
            state = "base"
        elif state in ("ours", "base") and line.rstrip("\r\n") == _SPLIT:
            state = "theirs"
        elif state == "theirs" and line.startswith(_CLOSE):
            state = "out"
            blocks += 1
        elif state == "out":
            mine.append(line)
            other.append(line)
        elif state == "ours":
            mine.append(line)
        elif state == "theirs":
            other.append(line)
    if blocks == 0 or state != "out":
        return None
    return "".join(mine), "".join(other)
