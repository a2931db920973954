"""Import a Loki Mode store (issue 18): its episodes, patterns, anti-patterns and skills.

What each becomes (REFERENCE B2 → SPEC 1.2):
- an EpisodeTrace → our episode as it is (we store episodes in Loki's shape), its id kept; an
  id already stored is left alone unless `replace`;
- a SemanticPattern → a `project` memory (a `reference` one when the import has no project),
  its conditions, correct and incorrect approach, confidence and links in its text;
- an anti-pattern (the legacy `anti-patterns.json`, or a pattern that only says what not to do)
  → a `feedback` memory;
- a ProceduralSkill → a skill memory in its canonical sections (store/skills.py renders them).

Evidence: Loki's 0..1 confidence becomes ours (LOKI_*_CONFIDENCE), the pattern's words its
quote, and the reasoning names the Loki entry and its `source_episodes` (their ids also stand
verbatim in the text, since our format has no field for them). The project: the request's
workdir, else the folder holding `.loki/` when this store knows it as a project, else none
(global memories, unscoped episodes). Each namespace's entries are imported, its name in their
slugs and texts.

Memories are written in one batch (`memory_apply_batch`) with the importer's trigger
(LOKI_IMPORT_TRIGGER): machine-written, so unreviewed until a person accepts them, and the
audit and history name the importer. Slugs are stable (`loki-[namespace-]<id>`) and the
evidence keeps a fingerprint of the imported text, so a second import of the same store writes
nothing, and a Loki entry that changed updates its memory (a person's own edit of an imported
memory stays until the Loki entry itself changes).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from liveagent_memory.domain import config
from liveagent_memory.domain.clock import parse_rfc3339_ms, utc_date
from liveagent_memory.domain.errors import (
    EpisodeExists,
    InvalidArgument,
    MemoryDomainError,
    SlugNotFound,
)
from liveagent_memory.domain.loki_import import (
    ImportAction,
    LokiImportItem,
    LokiImportProblem,
    LokiImportResult,
    LokiKind,
)
from liveagent_memory.domain.requests import (
    BatchItem,
    BatchRequest,
    EpisodeListRequest,
    LokiImportRequest,
    ReadRequest,
    SkillErrorInput,
    SkillInput,
)
from liveagent_memory.domain.schema import Confidence, Episode, MemoryType, Scope
from liveagent_memory.paths import canonical_workdir
from liveagent_memory.retrieval.episodes import normalize_episode
from liveagent_memory.retrieval.loki_files import (
    LokiEntries,
    LokiEpisodeFile,
    LokiPattern,
    LokiSkill,
    locate,
    read_store,
)
from liveagent_memory.store.episode_docs import ID_PATTERN
from liveagent_memory.store.skills import render_skill, skill_from_input
from liveagent_memory.store.store import MemoryStore

_FINGERPRINT = re.compile(r"\[loki ([0-9a-f]+)\]")
_WRITTEN = frozenset({ImportAction.CREATED, ImportAction.UPDATED, ImportAction.REPLACED})


@dataclass(frozen=True)
class _Planned:
    """A Loki pattern or skill as the memory it becomes."""

    kind: LokiKind
    source_id: str
    namespace: str
    path: str
    slug: str
    type: MemoryType
    description: str
    body: str
    confidence: str
    quote: str
    provenance: str  # the evidence's reasoning after the fingerprint
    fingerprint: str


def loki_import(store: MemoryStore, req: LokiImportRequest) -> LokiImportResult:
    """Import the Loki Mode store `req.path` names (PathNotFound, LokiStoreNotFound)."""
    memory, project = locate(req.path)
    workdir = _workdir(store, req.workdir, project)
    entries = read_store(memory)
    result = LokiImportResult(
        source=str(memory),
        project_folder=str(project) if project is not None else None,
        workdir=workdir,
        workdir_hash=store.project_key(workdir) if workdir else "",
        dry_run=req.dry_run,
        namespaces=entries.namespaces,
        problems=list(entries.problems),
    )
    stored = _StoredIds(store)
    for episode in entries.episodes:
        outcome = _import_episode(store, req, episode, stored, workdir)
        if isinstance(outcome, LokiImportProblem):
            result.problems.append(outcome)
        else:
            result.items.append(outcome)
    _import_memories(store, req, _plan(entries, workdir, result), workdir, result)
    counts: Counter[tuple[str, str]] = Counter((i.kind, i.action) for i in result.items)
    for (kind, action), n in sorted(counts.items()):
        result.counts.setdefault(kind, {})[action] = n
    if not req.dry_run:
        result.written = sum(item.action in _WRITTEN for item in result.items)
    return result


def _workdir(store: MemoryStore, given: str | None, project: Path | None) -> str | None:
    """The project of the import: the one asked for, else the Loki folder's when known here."""
    if given and given.strip():
        return canonical_workdir(given)
    if project is None:
        return None
    known = {p.workdir_hash for p in store.projects().projects if p.scope == Scope.PROJECT}
    return canonical_workdir(str(project)) if store.project_key(str(project)) in known else None


def _problem(path: str, exc: MemoryDomainError) -> LokiImportProblem:
    return LokiImportProblem(path=path, code=exc.code, message=exc.message, field=exc.field)


# --- episodes -----------------------------------------------------------------------------------
class _StoredIds:
    """The ids of the episodes stored on a UTC day, listed once per day (for a dry run).

    A listing, not a read of each episode: reading one may count as a use of it.
    """

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.days: dict[str, set[str]] = {}

    def holds(self, episode: Episode) -> bool:
        day = utc_date(parse_rfc3339_ms(episode.timestamp) or 0)
        if day not in self.days:
            ids: set[str] = set()
            while True:
                page = self.store.episode_list(
                    EpisodeListRequest(
                        date=day, limit=config.EPISODE_LIST_MAX_LIMIT, offset=len(ids)
                    )
                )
                ids.update(row.id for row in page.episodes)
                if not page.truncated or not page.episodes:
                    break
            self.days[day] = ids
        return episode.id in self.days[day]


def _import_episode(
    store: MemoryStore,
    req: LokiImportRequest,
    source: LokiEpisodeFile,
    stored: _StoredIds,
    workdir: str | None,
) -> LokiImportItem | LokiImportProblem:
    """Record one episode (a dry run only looks); its item, or the problem that stopped it."""
    try:
        episode = normalize_episode(
            source.data,
            now_ms=store.now_ms(),
            default_workdir=workdir,
            default_id=source.stem if ID_PATTERN.match(source.stem) else None,
            require_timestamp=True,
        )
    except InvalidArgument as exc:
        return _problem(source.path, exc)
    if req.dry_run:
        exists = stored.holds(episode)
        action = ImportAction.EXISTS if exists and not req.replace else ImportAction.CREATED
        if exists and req.replace:
            action = ImportAction.REPLACED
    else:
        try:
            recorded = store.record_episode(episode, replace=req.replace)
        except EpisodeExists:
            action = ImportAction.EXISTS
        except MemoryDomainError as exc:  # a secret, a file too large: this one only
            return _problem(source.path, exc)
        else:
            action = ImportAction.CREATED if recorded.created else ImportAction.REPLACED
    return LokiImportItem(
        kind=LokiKind.EPISODE.value,
        source_id=episode.id,
        namespace=source.namespace,
        path=source.path,
        action=action.value,
        target=episode.id,
    )


# --- patterns and skills: what each memory says ----------------------------------------------
def _plan(entries: LokiEntries, workdir: str | None, result: LokiImportResult) -> list[_Planned]:
    """Every pattern and skill as its memory; a slug met twice is a problem the second time."""
    planned: list[_Planned] = []
    seen: set[str] = set()
    candidates = [_pattern_memory(p, workdir) for p in entries.patterns]
    candidates += [_skill_memory(s) for s in entries.skills]
    for memory in candidates:
        if memory.slug in seen:
            message = f"{memory.source_id} is imported already from another entry as {memory.slug}"
            result.problems.append(
                LokiImportProblem(path=memory.path, code="duplicate_id", message=message)
            )
            continue
        seen.add(memory.slug)
        planned.append(memory)
    return planned


def _slug(namespace: str, source_id: str) -> str:
    """`loki-[namespace-]<id>`, a valid slug; a long one is cut and keeps a hash of the whole."""
    parts = [config.LOKI_SLUG_PREFIX]
    if namespace != config.LOKI_DEFAULT_NAMESPACE:
        parts.append(namespace)
    parts.append(source_id)
    whole = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")
    if len(whole) <= config.MAX_SLUG_CHARS:
        return whole
    digest = hashlib.sha256(whole.encode("utf-8")).hexdigest()[: config.LOKI_SLUG_HASH_CHARS]
    keep = config.MAX_SLUG_CHARS - len(digest) - 1
    return f"{whole[:keep].rstrip('-')}-{digest}"


def _confidence(value: float | None) -> str:
    level = config.LOKI_DEFAULT_CONFIDENCE if value is None else value
    if level >= config.LOKI_HIGH_CONFIDENCE:
        return Confidence.HIGH.value
    if level >= config.LOKI_MEDIUM_CONFIDENCE:
        return Confidence.MEDIUM.value
    return Confidence.LOW.value


def _source_lines(what: str, source_id: str, namespace: str, episodes: list[str]) -> list[str]:
    lines = [f"Imported from Loki Mode: {what} `{source_id}` (namespace `{namespace}`)."]
    if episodes:
        lines.append("Source episodes: " + ", ".join(episodes))
    return lines


def _pattern_memory(pattern: LokiPattern, workdir: str | None) -> _Planned:
    if pattern.anti:
        kind, memory_type = LokiKind.ANTI_PATTERN, MemoryType.FEEDBACK
        advice = [f"Don't: {pattern.incorrect}" if pattern.incorrect else ""]
        advice.append(f"Instead: {pattern.correct}" if pattern.correct else "")
    else:
        kind = LokiKind.PATTERN
        memory_type = MemoryType.PROJECT if workdir else MemoryType.REFERENCE
        advice = [f"Do: {pattern.correct}" if pattern.correct else ""]
        advice.append(f"Avoid: {pattern.incorrect}" if pattern.incorrect else "")
    parts = [pattern.pattern, "\n".join(line for line in advice if line)]
    if pattern.conditions:
        parts.append("When it applies:\n" + "\n".join(f"- {c}" for c in pattern.conditions))
    facts = [f"Category: {pattern.category}" if pattern.category else ""]
    if pattern.confidence is not None:
        facts.append(f"Confidence in Loki Mode: {pattern.confidence:g}")
    if pattern.links:
        facts.append("Links: " + ", ".join(f"{rel} {to}" for rel, to in pattern.links))
    parts.append("\n".join(line for line in facts if line))
    what = "anti-pattern" if pattern.anti else "pattern"
    ids = pattern.source_episodes
    parts.append("\n".join(_source_lines(what, pattern.id, pattern.namespace, ids)))
    return _planned(
        kind,
        pattern.id,
        pattern.namespace,
        pattern.path,
        memory_type,
        description=pattern.pattern,
        body="\n\n".join(part for part in parts if part),
        confidence=_confidence(pattern.confidence),
        provenance=_provenance(what, pattern.id, pattern.namespace, ids),
    )


def _skill_memory(skill: LokiSkill) -> _Planned:
    structured = SkillInput(
        when_to_use=skill.description or skill.name,
        prerequisites=skill.prerequisites,
        steps=skill.steps,
        common_errors=[SkillErrorInput(error=e, fix=f) for e, f in skill.common_errors if e],
        exit_criteria=skill.exit_criteria,
        example=skill.example,
    )
    source = "\n".join(_source_lines("skill", skill.id, skill.namespace, []))
    body = f"{render_skill(skill_from_input(structured))}\n\n## Source\n\n{source}"
    return _planned(
        LokiKind.SKILL,
        skill.id,
        skill.namespace,
        skill.path,
        MemoryType.SKILL,
        description=f"{skill.name}: {skill.description}" if skill.description else skill.name,
        body=body,
        confidence=_confidence(None),
        provenance=_provenance("skill", skill.id, skill.namespace, []),
    )


def _provenance(what: str, source_id: str, namespace: str, episodes: list[str]) -> str:
    text = f"Imported from Loki Mode {what} {source_id} (namespace {namespace})"
    return text + (f"; source episodes: {', '.join(episodes)}" if episodes else "")


def _planned(
    kind: LokiKind,
    source_id: str,
    namespace: str,
    path: str,
    memory_type: MemoryType,
    *,
    description: str,
    body: str,
    confidence: str,
    provenance: str,
) -> _Planned:
    said = "\x1f".join((memory_type.value, description, body, confidence))
    digest = hashlib.sha256(said.encode("utf-8")).hexdigest()[: config.LOKI_FINGERPRINT_CHARS]
    return _Planned(
        kind=kind,
        source_id=source_id,
        namespace=namespace,
        path=path,
        slug=_slug(namespace, source_id),
        type=memory_type,
        description=description,
        body=body,
        confidence=confidence,
        quote=description[: config.MAX_QUOTE_CHARS],
        provenance=provenance,
        fingerprint=digest,
    )


# --- patterns and skills: writing them ----------------------------------------------------------
def _import_memories(
    store: MemoryStore,
    req: LokiImportRequest,
    planned: list[_Planned],
    workdir: str | None,
    result: LokiImportResult,
) -> None:
    """Compare each memory with its earlier import, then write the new and changed ones."""
    scope = Scope.PROJECT if workdir else Scope.GLOBAL
    to_write: list[tuple[_Planned, ImportAction]] = []
    for memory in planned:
        before = _imported_fingerprint(store, memory.slug, scope, workdir)
        if before == memory.fingerprint:
            result.items.append(_item(memory, ImportAction.UNCHANGED, scope))
        else:
            action = ImportAction.CREATED if before is None else ImportAction.UPDATED
            to_write.append((memory, action))
    if req.dry_run or not to_write:
        result.items.extend(_item(memory, action, scope) for memory, action in to_write)
        return
    batch = BatchRequest(
        items=[_batch_item(memory, scope) for memory, _ in to_write],
        workdir=workdir,
        actor=config.LOKI_IMPORT_ACTOR,
        trigger=config.LOKI_IMPORT_TRIGGER,
    )
    written = store.apply_batch(batch)
    for (memory, action), outcome in zip(to_write, written.items, strict=True):
        if outcome.error is not None:
            error = outcome.error
            result.problems.append(
                LokiImportProblem(
                    path=memory.path,
                    code=str(error.get("error", "")),
                    message=str(error.get("message", "")),
                    field=error.get("field"),
                )
            )
            action = ImportAction.FAILED
        result.items.append(_item(memory, action, scope))


def _imported_fingerprint(
    store: MemoryStore, slug: str, scope: Scope, workdir: str | None
) -> str | None:
    """The fingerprint the memory's evidence keeps; '' for a memory with none; None: no memory."""
    try:
        found = store.read(ReadRequest(slug=slug, scope=scope.value, workdir=workdir))
    except SlugNotFound:
        return None
    match = _FINGERPRINT.match(found.evidence.reasoning)
    return match.group(1) if match else ""


def _batch_item(memory: _Planned, scope: Scope) -> BatchItem:
    return BatchItem(
        op="upsert",
        slug=memory.slug,
        scope=scope.value,
        type=memory.type.value,
        description=memory.description,
        body=memory.body,
        mode="replace",  # the Loki entry changed: its memory says what the entry says now
        confidence=memory.confidence,
        source_quote=memory.quote,
        reasoning=f"[loki {memory.fingerprint}] {memory.provenance}",
        aliases=[memory.source_id],
    )


def _item(memory: _Planned, action: ImportAction, scope: Scope) -> LokiImportItem:
    return LokiImportItem(
        kind=memory.kind.value,
        source_id=memory.source_id,
        namespace=memory.namespace,
        path=memory.path,
        action=action.value,
        target=memory.slug,
        type=memory.type.value,
        scope=scope.value,
    )
