"""From a file on disk to an index row: reading, checking and describing one memory file."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from liveagent_memory.domain import clock
from liveagent_memory.domain.schema import MemoryType, Scope
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.store import rules
from liveagent_memory.store.evidence import (
    DocumentError,
    FrontMatter,
    MemoryDocument,
    confidence_of,
    parse_document,
)
from liveagent_memory.store.files import DAILY_FILE_PATTERN, FoundFile
from liveagent_memory.store.rows import IndexRow


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class LoadedFile:
    """A memory file's bytes and its parsed document."""

    raw: bytes
    doc: MemoryDocument

    @property
    def text(self) -> str:
        return self.raw.decode("utf-8")


def load_file(path: Path) -> LoadedFile:
    """Read and parse a memory file. Raises DocumentError (or OSError) when it can't be used."""
    return load_bytes(path.read_bytes())


def load_bytes(raw: bytes) -> LoadedFile:
    """Parse a memory file's bytes. Raises DocumentError when they can't be used."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not valid UTF-8 text (byte {exc.start})") from exc
    if "\x00" in text:
        raise DocumentError("contains NUL bytes: not a text file")
    return LoadedFile(raw, parse_document(text))


def describe(found: FoundFile, loaded: LoadedFile) -> IndexRow:
    """Turn a parsed file into its index row, applying LiveAgent's parse fallbacks.

    Location decides scope and project (a file under projects/<hash>/ is a project memory),
    the file name supplies a missing `name`, a missing type is `daily` for daily files and
    `reference` otherwise (REFERENCE A2). Anything still invalid raises DocumentError.
    """
    doc = loaded.doc
    meta = doc.meta
    parsed_type = _memory_type(found, meta)
    if parsed_type is MemoryType.DAILY:
        key = _daily_key(found, meta)
    else:
        key = _ordinary_key(found, meta, parsed_type)
    _refuse_secret(doc)
    mtime_ms = found.mtime_ns // 1_000_000
    created_at = clock.parse_rfc3339_ms(meta.created_at or "") or mtime_ms
    updated_at = clock.parse_rfc3339_ms(meta.updated_at or "") or mtime_ms
    source: Any
    if parsed_type is MemoryType.DAILY:
        source = list(meta.sources)  # REFERENCE: a daily's source_json is its sources list
    else:
        source = dict(meta.source)
        source["unreviewed"] = meta.unreviewed
        source["confidence"] = confidence_of(doc.body).value
    return IndexRow(
        path=found.relpath,
        mtime_ns=found.mtime_ns,
        ctime_ns=found.ctime_ns,
        size=found.size,
        tokens=estimate_tokens(loaded.text),
        sha256=sha256_hex(loaded.raw),
        scope=found.scope.value,
        workdir_hash=found.workdir_hash,
        slug=key.slug,
        type=parsed_type.value,
        description=" ".join(meta.description.split()),
        headline=key.headline,
        date_local=key.date_local,
        age_anchor=key.age_anchor,
        append_count=meta.append_count,
        archived=found.archived,
        body_hash=sha256_hex(doc.body.encode("utf-8")),
        created_at=created_at,
        updated_at=updated_at,
        source=source,
        links=meta.links,
        body=doc.body,
    )


@dataclass(frozen=True)
class _Key:
    """What names a memory in the index, with a journal's day."""

    slug: str
    headline: str
    date_local: str | None = None
    age_anchor: int | None = None


def _memory_type(found: FoundFile, meta: FrontMatter) -> MemoryType:
    """The file's type; a missing one is `daily` for a journal's name or file, else
    `reference` (REFERENCE A2)."""
    memory_type = meta.type.strip()
    if not memory_type:
        daily_match = DAILY_FILE_PATTERN.match(found.path.name) if found.in_daily_folder else None
        is_daily_name = meta.name.startswith("daily-") or daily_match is not None
        memory_type = MemoryType.DAILY.value if is_daily_name else MemoryType.REFERENCE.value
    try:
        return MemoryType(memory_type)
    except ValueError:
        expected = ", ".join(t.value for t in MemoryType)
        raise DocumentError(f"unknown type {memory_type!r} (expected one of {expected})") from None


def _daily_key(found: FoundFile, meta: FrontMatter) -> _Key:
    """A journal's slug and day: it lives in global/daily/ and is named for a valid date."""
    name = meta.name.strip() or found.path.stem
    if found.scope is not Scope.GLOBAL or not found.in_daily_folder:
        raise DocumentError("a daily journal must live in global/daily/")
    if not name.startswith("daily-"):
        name = f"daily-{name}"
    date_text = (meta.date or name.removeprefix("daily-")).strip()
    day = clock.parse_local_date(date_text)
    if day is None or not rules.DAILY_SLUG_PATTERN.match(f"daily-{date_text}"):
        raise DocumentError(f"daily journal date {date_text!r} is not YYYY-MM-DD")
    return _Key(
        slug=f"daily-{day.isoformat()}",
        headline=day.isoformat(),
        date_local=day.isoformat(),
        age_anchor=clock.local_midnight_epoch_seconds(day),
    )


def _ordinary_key(found: FoundFile, meta: FrontMatter, memory_type: MemoryType) -> _Key:
    """An ordinary memory's slug: a valid one, not in the daily folder, not a journal's."""
    name = meta.name.strip() or found.path.stem
    if found.in_daily_folder:
        raise DocumentError(f"type {memory_type.value!r} does not belong in the daily folder")
    slug = name.lower().replace("_", "-")
    if not rules.SLUG_PATTERN.match(slug):
        raise DocumentError(f"name {name!r} is not a valid slug (try {rules.suggest_slug(name)!r})")
    if rules.DAILY_SLUG_PATTERN.match(slug):
        raise DocumentError(
            f"name {name!r} belongs to a day's journal, but the type is {memory_type.value!r}: "
            "rename the memory"
        )
    return _Key(slug=slug, headline=meta.headline)


def _refuse_secret(doc: MemoryDocument) -> None:
    """A file holding what looks like a secret is not indexed (DocumentError says where)."""
    meta = doc.meta
    texts = {
        "name": meta.name,
        "description": meta.description,
        "headline": meta.headline,
        "source": meta.source,
        "sources": meta.sources,
        "links": meta.links,
        "extra": meta.extra,
        "body": doc.body,
    }
    # One look over all of it first (repr is C-fast), the field-by-field scan only on a hint.
    secret = rules.find_secret(texts) if rules.may_hold_secret(repr(texts)) else None
    if secret is not None:
        # A file a person (or a sync) put here: the store never wrote it, so nothing scanned
        # it. Indexed, its text would reach a model through search and the Memory Index.
        field, label = secret
        raise DocumentError(
            f"holds what looks like a secret ({label}) in {field}: not indexed, so no model "
            "sees it; remove the secret from the file (keys belong in the system keyring)"
        )
