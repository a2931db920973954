"""Helpers for robustness tests: hand-written memory files, raw SQLite databases, child processes.

Everything here works on real files and real SQLite; nothing replaces the package's own code.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from liveagent_memory.store.files import TEMP_PREFIX
from tests.helpers.fakes import FakeClock

INDEX_NAME = "memory-index.sqlite3"
FIXED_MS = FakeClock().ms  # 2026-11-30 12:00 UTC, the default FakeClock time
REPO_ROOT = Path(__file__).resolve().parents[2]
NOT_MEMORY_DIRS = {".trash", ".organize-snapshots", ".quarantine"}


def fixed_clock() -> int:
    """A clock that never moves (child processes render byte-identical files with it)."""
    return FIXED_MS


def memory_text(
    slug: str,
    *,
    type: str = "reference",
    description: str | None = None,
    body: str | None = None,
) -> str:
    """A memory file as a person (or LiveAgent) would write it by hand."""
    return (
        "---\n"
        f"name: {slug}\n"
        f"description: {description or 'About ' + slug}\n"
        f"type: {type}\n"
        "---\n\n"
        f"{body if body is not None else 'Body of ' + slug}\n"
    )


def write_file(home: Path, relpath: str, data: str | bytes) -> Path:
    """Write a file below the store root by hand (creating folders), bypassing the store."""
    path = home / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def memory_files(home: Path) -> dict[str, bytes]:
    """Every memory file under the root (relpath -> bytes); MEMORY.md, trash etc. excluded."""
    out: dict[str, bytes] = {}
    for path in sorted(home.rglob("*.md")):
        rel = path.relative_to(home)
        if path.name == "MEMORY.md" or NOT_MEMORY_DIRS & set(rel.parts):
            continue
        out[rel.as_posix()] = path.read_bytes()
    return out


def temp_files(root: Path) -> list[str]:
    """Relpaths of every file or link under `root` named like an atomic-write temp file."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob(f"{TEMP_PREFIX}*"))


def set_age(path: Path, age_seconds: float) -> None:
    """Give `path` (not a link's target) an mtime `age_seconds` ago on the OS clock."""
    stamp = time.time() - age_seconds
    os.utime(path, (stamp, stamp), follow_symlinks=False)


def replace_keeping_stat(path: Path, data: bytes) -> None:
    """Overwrite a file with same-sized bytes and restore its exact mtime (ns)."""
    before = path.stat()
    assert len(data) == before.st_size, "the replacement must keep the file size"
    path.write_bytes(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def same_size_variant(data: bytes, old: bytes, new: bytes) -> bytes:
    """`data` with `old` replaced by the same-length `new` (a hand edit invisible to stat)."""
    assert len(old) == len(new) and old in data
    return data.replace(old, new)


# --- raw databases ---------------------------------------------------------------------------

# LiveAgent's schema v3 (REFERENCE A4): v4 minus the eight organizer-run columns.
V3_DDL = (
    """
    CREATE TABLE memory_meta (
        scope TEXT NOT NULL CHECK (scope IN ('global', 'project')),
        workdir_hash TEXT NOT NULL DEFAULT '',
        slug TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('user', 'feedback', 'project', 'reference', 'daily')),
        description TEXT NOT NULL DEFAULT '',
        headline TEXT NOT NULL DEFAULT '',
        date_local TEXT,
        age_anchor INTEGER,
        append_count INTEGER NOT NULL DEFAULT 0,
        archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
        body_hash TEXT NOT NULL,
        file_mtime INTEGER NOT NULL,
        file_size INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        source_json TEXT,
        links_json TEXT,
        PRIMARY KEY (scope, workdir_hash, slug),
        CHECK ((type != 'daily') OR
               (date_local IS NOT NULL AND age_anchor IS NOT NULL AND scope = 'global'))
    )
    """,
    """
    CREATE VIRTUAL TABLE memory_fts USING fts5(
        slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED,
        type, description, headline, body, tokenize = "unicode61 remove_diacritics 2"
    )
    """,
    """
    CREATE VIRTUAL TABLE memory_fts_tri USING fts5(
        slug UNINDEXED, scope UNINDEXED, workdir_hash UNINDEXED,
        description, headline, body, tokenize = "trigram"
    )
    """,
    """
    CREATE TABLE memory_audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts INTEGER NOT NULL,
        op TEXT NOT NULL,
        scope TEXT NOT NULL,
        workdir_hash TEXT NOT NULL DEFAULT '',
        slug TEXT NOT NULL,
        actor TEXT NOT NULL,
        conversation_id TEXT,
        trigger TEXT,
        model TEXT,
        detail_json TEXT
    )
    """,
    """
    CREATE TABLE memory_organize_runs (
        run_id TEXT PRIMARY KEY,
        trigger TEXT NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
        status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed',
                                               'skipped', 'cancelled')),
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        due_at INTEGER,
        claimed_at INTEGER,
        model_json TEXT,
        scope TEXT NOT NULL DEFAULT 'all',
        mode TEXT NOT NULL DEFAULT 'standard',
        input_count INTEGER NOT NULL DEFAULT 0,
        cluster_count INTEGER NOT NULL DEFAULT 0,
        safe_applied INTEGER NOT NULL DEFAULT 0,
        review_skipped INTEGER NOT NULL DEFAULT 0,
        created_count INTEGER NOT NULL DEFAULT 0,
        updated_count INTEGER NOT NULL DEFAULT 0,
        deleted_count INTEGER NOT NULL DEFAULT 0,
        merged_count INTEGER NOT NULL DEFAULT 0,
        parse_failures INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        final_summary TEXT,
        trimmed_protocol_json TEXT NOT NULL DEFAULT '{}'
    )
    """,
    "CREATE TABLE memory_schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
)

RUN_V4_COLUMNS = (
    "phase",
    "final_count",
    "compression_ratio",
    "compression_target",
    "dry_run",
    "token_usage_total",
    "quota_headroom_at_start",
    "override_reviewed",
)
# Ours, added after LiveAgent's v4 columns (issue 12): a run's owner process and its lease.
RUN_OWNER_COLUMNS = ("owner_host", "owner_pid", "owner_started", "lease_until")
RUN_V4_DECLARATIONS = {
    "phase": "TEXT",
    "final_count": "INTEGER NOT NULL DEFAULT 0",
    "compression_ratio": "REAL",
    "compression_target": "INTEGER",
    "dry_run": "INTEGER NOT NULL DEFAULT 0",
    "token_usage_total": "INTEGER NOT NULL DEFAULT 0",
    "quota_headroom_at_start": "INTEGER",
    "override_reviewed": "INTEGER NOT NULL DEFAULT 0",
}

# Two organizer runs recorded by an older LiveAgent; a migration must keep them verbatim.
OLD_RUNS = (
    ("run-2026-10-01", "scheduled", "succeeded", 1_790_000_000_000, 12, 3, "merged three notes"),
    ("run-2026-10-02", "manual", "failed", 1_790_086_400_000, 40, 0, None),
)


def create_reference_index(
    path: Path,
    *,
    version: int = 3,
    v4_columns: bool = False,
    drop_meta_column: str | None = None,
) -> None:
    """Write a LiveAgent-only index (no tables of ours, user_version 0) at `path`.

    `version` goes into memory_schema_version, `v4_columns` adds the eight v4 run columns,
    `drop_meta_column` leaves one memory_meta column out (an older or damaged layout).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        for ddl in V3_DDL:
            if drop_meta_column and "CREATE TABLE memory_meta" in ddl:
                lines = [
                    line
                    for line in ddl.split("\n")
                    if not line.strip().startswith(f"{drop_meta_column} ")
                ]
                ddl = "\n".join(lines)
            conn.execute(ddl)
        if v4_columns:
            for name in RUN_V4_COLUMNS:
                conn.execute(
                    f"ALTER TABLE memory_organize_runs ADD COLUMN {name} "
                    f"{RUN_V4_DECLARATIONS[name]}"
                )
        conn.execute("INSERT INTO memory_schema_version VALUES (?, ?)", (version, 1_780_000_000))
        for run in OLD_RUNS:
            conn.execute(
                "INSERT INTO memory_organize_runs (run_id, trigger, status, created_at, "
                "input_count, merged_count, final_summary) VALUES (?, ?, ?, ?, ?, ?, ?)",
                run,
            )
        conn.execute(
            "INSERT INTO memory_audit_log (ts, op, scope, workdir_hash, slug, actor, detail_json) "
            "VALUES (1790000000000, 'delete', 'global', '', 'old-rejected', 'user', "
            '\'{"reason": "wrong"}\')'
        )
        conn.commit()
    finally:
        conn.close()


def query(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Run one read query on a database file with a fresh raw connection."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def columns(path: Path, table: str) -> list[str]:
    return [str(row[1]) for row in query(path, f"PRAGMA table_info({table})")]


# --- child processes -------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["TZ"] = "UTC"
    return env


def start_python(script: str, *args: str) -> subprocess.Popen[str]:
    """Start `python -c script args...` with this interpreter and the repo importable."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=REPO_ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str], timeout: float = 120) -> str:
    """Wait for a child; fail with its stderr if it did not exit cleanly. Returns stdout."""
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, f"child failed ({process.returncode}):\n{err}"
    return out


# --- the crash batch ---------------------------------------------------------------------------


def crash_batch_items(count: int) -> list[dict[str, str]]:
    """A large batch over memories m-0000..m-{count-1}: replaces, merges and new memories.

    Every item touches a different file, so each file has exactly one old and one new version.
    """
    items: list[dict[str, str]] = []
    for i in range(count):
        slug = f"m-{i:04d}"
        if i % 2 == 0:
            items.append(
                {
                    "op": "update",
                    "slug": slug,
                    "scope": "global",
                    "mode": "replace",
                    "description": f"Rewritten memory {i}",
                    "body": f"Rewritten body {i} with newtok{i:04d}.",
                }
            )
        else:
            items.append(
                {
                    "op": "upsert",
                    "slug": slug,
                    "scope": "global",
                    "type": "reference",
                    "description": f"Merged memory {i}",
                    "body": f"A merged fact about mergetok{i:04d}.",
                }
            )
        if i % 5 == 4:
            items.append(
                {
                    "op": "upsert",
                    "slug": f"fresh-{i:04d}",
                    "scope": "global",
                    "type": "project",
                    "description": f"Fresh memory {i}",
                    "body": f"A fresh memory with freshtok{i:04d}.",
                }
            )
    return items


def crash_old_text(i: int) -> str:
    """The hand-written version of m-{i} before the batch."""
    return memory_text(
        f"m-{i:04d}", description=f"Old memory {i}", body=f"Old body {i} oldtok{i:04d}."
    )


@contextlib.contextmanager
def mounted_tmpfs(folder: Path, size_bytes: int, mode: str = "0755") -> Iterator[Path]:
    """A real tmpfs of `size_bytes` mounted on the existing `folder` for the block (a small
    disk, or a second file system under a store); the test is skipped where mounting is not
    allowed (it needs root, which CI has)."""
    import pytest  # here: the child processes of the crash tests import this module too

    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode={mode}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
