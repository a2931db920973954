"""What the index holds about one file: its row (IndexRow), its file-table state (FileState).

FileState is the one shape of a file-table row, memory files and episode files alike, and
holds the rule for which of a file's problems are re-checked on every reconcile pass
(`is_transient`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from liveagent_memory.store.evidence import read_evidence, split_evidence
from liveagent_memory.store.text import cjk_tokens, index_text

# A memory's full-text fields in memory_fts's column order (slug, scope, workdir_hash, type,
# description, headline, body; the rowid aside): what every full-text table is built from
# (store/index.py; a cold pass's worker, store/cold_fts.py).
FtsFields = tuple[str, str, str, str, str, str, str]


def search_columns(row: IndexRow) -> tuple[str, ...]:
    """memory_search's columns for a row: Latin words and CJK bigrams apart (store/text.py)."""
    return search_columns_of(row.fts_fields())


def search_columns_of(fields: FtsFields) -> tuple[str, ...]:
    """memory_search's columns from a memory's full-text fields (see search_columns)."""
    slug, scope, workdir_hash, kind, description, headline, body = fields
    head = f"{description}\n{headline}"
    body = searchable_body(body)
    return (
        search_keys(scope, workdir_hash, kind),
        kind,
        slug.replace("-", " "),
        index_text(description),
        index_text(headline),
        index_text(body),
        cjk_tokens(head),
        cjk_tokens(body),
    )


def search_keys(scope: str, workdir_hash: str, kind: str) -> str:
    """memory_search's `keys` column: the memory's place and type as tokens
    (store/filters.py matches them)."""
    scope_token = "sglobal" if scope == "global" else f"p{workdir_hash}"
    return f"{scope_token} t{kind}"


def searchable_body(body: str) -> str:
    """What our search indexes of a body: the content plus the evidence's quote and aliases
    (the block's keys would only add noise)."""
    block, content = split_evidence(body)
    if block is None:
        return content
    evidence = read_evidence(body)
    return "\n".join([content, evidence.source_quote, *evidence.aliases])


@dataclass
class IndexRow:
    """Everything the index stores about one memory file."""

    path: str
    mtime_ns: int
    size: int
    tokens: int  # domain/text.py's estimate of the whole file
    sha256: str
    scope: str
    workdir_hash: str
    slug: str
    type: str
    description: str
    headline: str
    date_local: str | None
    age_anchor: int | None
    append_count: int
    archived: bool
    body_hash: str
    created_at: int
    updated_at: int
    source: Any  # dict with `confidence` (REFERENCE: source_json carries it); daily: a list
    links: list[Any]
    body: str
    ctime_ns: int = 0  # st_ctime_ns, 0 when not known (a write stamps it before its rename)

    def meta_values(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "workdir_hash": self.workdir_hash,
            "slug": self.slug,
            "type": self.type,
            "description": self.description,
            "headline": self.headline,
            "date_local": self.date_local,
            "age_anchor": self.age_anchor,
            "append_count": self.append_count,
            "archived": 1 if self.archived else 0,
            "body_hash": self.body_hash,
            "file_mtime": self.mtime_ns // 1_000_000,
            "file_size": self.size,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "source_json": json.dumps(self.source, ensure_ascii=False),
            "links_json": json.dumps(self.links, ensure_ascii=False),
        }

    def search_keys(self) -> str:
        return search_keys(self.scope, self.workdir_hash, self.type)

    def fts_fields(self) -> FtsFields:
        return (
            self.slug,
            self.scope,
            self.workdir_hash,
            self.type,
            self.description,
            self.headline,
            self.body,
        )


# Problems that depend on something besides the file's bytes (another file holding the slug or
# the episode id, the file's permissions): fixing them changes neither mtime nor size, so they
# are re-checked on every pass instead of waiting for the file itself to change.
DUPLICATE_PREFIX = "duplicate:"
UNREADABLE_PREFIX = "unreadable:"
TRANSIENT_PREFIXES = (DUPLICATE_PREFIX, UNREADABLE_PREFIX)


def is_transient(problem: str | None) -> bool:
    """A file's problem that reconcile checks again on every pass (see TRANSIENT_PREFIXES)."""
    return (problem or "").startswith(TRANSIENT_PREFIXES)


@dataclass(frozen=True)
class FileState:
    """A file as the index last saw it: one row of memory_files or of episode_files.

    Both tables keep the stamps, the hash and why the file is not indexed (`problem`); what it
    holds is a memory (`scope`, `workdir_hash`, `slug`, its token estimate) or an episode
    (`episode_id`), None for the other kind and for a file with a problem.
    """

    id: int
    path: str
    mtime_ns: int
    size: int
    sha256: str
    problem: str | None
    scope: str | None = None
    workdir_hash: str | None = None
    slug: str | None = None
    tokens: int = 0
    episode_id: str | None = None
    ctime_ns: int = 0  # 0: not known (store/reconcile.py then hashes the file once)

    @classmethod
    def from_row(cls, columns: Sequence[str], row: Sequence[Any]) -> FileState:
        """The state from a row selected with `columns` (names of this class's fields)."""
        return cls(**dict(zip(columns, row, strict=True)))

    @property
    def transient(self) -> bool:
        return is_transient(self.problem)
