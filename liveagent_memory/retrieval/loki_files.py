"""Reading a Loki Mode store (REFERENCE B1, B2) for an import: where it is, and its entries.

Only reads, never writes: `.loki/memory` belongs to Loki Mode. The layout and the walk (its
namespaces, episode and skill files, JSON read under a size cap) are the cross-project index's
(retrieval/projects.py), so the importer reads exactly what discovery counted. Each entry is
checked here into a small typed shape; one that does not fit REFERENCE B2 (a wrong field type,
a missing pattern text, a skill without steps) becomes a problem with its path and a typed
code, and the rest of the store is still read. Episodes are parsed later by the episode
reader itself (store/episode_docs.py, through retrieval/episodes.py), which knows Loki's shape.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument, LokiStoreNotFound, PathNotFound
from liveagent_memory.domain.loki_import import LokiImportProblem
from liveagent_memory.domain.schema import StoreProblem
from liveagent_memory.retrieval.projects import (
    load_small_json,
    loki_episode_files,
    loki_namespaces,
    loki_skill_files,
)

LEGACY_KEYS = ("anti_patterns", "anti-patterns", "patterns")  # anti-patterns.json's list keys


@dataclass(frozen=True)
class LokiPattern:
    """A SemanticPattern (REFERENCE B2), or an entry of the legacy anti-patterns file."""

    id: str
    pattern: str
    category: str
    conditions: list[str]
    correct: str
    incorrect: str
    confidence: float | None
    source_episodes: list[str]
    links: list[tuple[str, str]]  # (relation, the linked id)
    anti: bool  # what not to do: from anti-patterns.json, or its incorrect approach dominates
    namespace: str
    path: str


@dataclass(frozen=True)
class LokiSkill:
    """A ProceduralSkill (REFERENCE B2)."""

    id: str
    name: str
    description: str
    prerequisites: list[str]
    steps: list[str]
    common_errors: list[tuple[str, str]]  # (error, fix)
    exit_criteria: list[str]
    example: str
    namespace: str
    path: str


@dataclass(frozen=True)
class LokiEpisodeFile:
    """An episode file's JSON object, not yet parsed; `stem` is its id when it names none."""

    data: dict[str, Any]
    stem: str
    namespace: str
    path: str


@dataclass
class LokiEntries:
    """Everything read from a store, and what could not be read."""

    namespaces: list[str] = field(default_factory=list)
    episodes: list[LokiEpisodeFile] = field(default_factory=list)
    patterns: list[LokiPattern] = field(default_factory=list)
    skills: list[LokiSkill] = field(default_factory=list)
    problems: list[LokiImportProblem] = field(default_factory=list)


def locate(path: str) -> tuple[Path, Path | None]:
    """The `.loki/memory` folder `path` names, and the project folder holding `.loki/`.

    `path` may be the project folder, its `.loki`, or the memory folder itself (also a copy
    named `memory` outside a `.loki`). PathNotFound when it does not exist; LokiStoreNotFound
    when it holds no Loki memory.
    """
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise PathNotFound(f"There is no folder at {path}", field="path")
    folder = folder.resolve()
    candidates = [folder / config.LOKI_DIRNAME / config.LOKI_MEMORY_DIRNAME]
    if folder.name == config.LOKI_DIRNAME:
        candidates.append(folder / config.LOKI_MEMORY_DIRNAME)
    if folder.name == config.LOKI_MEMORY_DIRNAME:
        candidates.append(folder)
    for memory in candidates:
        if memory.is_dir() and _holds_loki_kinds(memory):
            loki = memory.parent
            project = loki.parent if loki.name == config.LOKI_DIRNAME else None
            return memory, project
    raise LokiStoreNotFound(
        f"{folder} holds no Loki Mode memory: neither {config.LOKI_DIRNAME}/"
        f"{config.LOKI_MEMORY_DIRNAME} nor episodic/, semantic/ or skills/ is there",
        field="path",
    )


def _holds_loki_kinds(memory: Path) -> bool:
    if any((memory / kind).is_dir() for kind in config.LOKI_KINDS):
        return True
    problems: list[StoreProblem] = []
    return len(loki_namespaces(memory, problems)) > 1  # only namespaces below it


def read_store(memory: Path) -> LokiEntries:
    """Read every namespace of a `.loki/memory` folder: episodes, patterns, skills."""
    found: list[StoreProblem] = []
    entries = LokiEntries()
    for name, base in loki_namespaces(memory, found):
        entries.namespaces.append(name)
        for path in loki_episode_files(base / "episodic", found):
            _read_episode(path, name, entries)
        _read_patterns(base.joinpath(*config.LOKI_PATTERNS_PATH), name, entries, legacy=False)
        _read_patterns(base.joinpath(*config.LOKI_ANTI_PATTERNS_PATH), name, entries, legacy=True)
        for path in loki_skill_files(base / "skills", found):
            _read_skill(path, name, entries)
    entries.problems[:0] = [_problem(p) for p in found]
    return entries


def _problem(found: StoreProblem) -> LokiImportProblem:
    return LokiImportProblem(path=found.path, code=found.code, message=found.message)


def _object(path: Path, max_bytes: int, entries: LokiEntries) -> Any:
    """The file's JSON (None, with a problem, when it cannot be used)."""
    found: list[StoreProblem] = []
    data = load_small_json(path, max_bytes, found)
    entries.problems.extend(_problem(p) for p in found)
    return data


def _invalid(entries: LokiEntries, where: str, exc: InvalidArgument) -> None:
    entries.problems.append(
        LokiImportProblem(path=where, code=exc.code, message=exc.message, field=exc.field)
    )


def _shape(entries: LokiEntries, path: Path, message: str) -> None:
    entries.problems.append(
        LokiImportProblem(path=str(path), code="unexpected_shape", message=message)
    )


# --- episodes -----------------------------------------------------------------------------------
def _read_episode(path: Path, namespace: str, entries: LokiEntries) -> None:
    data = _object(path, config.EPISODE_MAX_FILE_BYTES, entries)
    if data is None:
        return
    if not isinstance(data, dict):
        _shape(entries, path, "an episode file must hold one JSON object")
        return
    stem = path.stem.removeprefix("task-")  # REFERENCE B1: episodic/{date}/task-{id}.json
    entries.episodes.append(LokiEpisodeFile(data, stem, namespace, str(path)))


# --- patterns -----------------------------------------------------------------------------------
def _read_patterns(path: Path, namespace: str, entries: LokiEntries, *, legacy: bool) -> None:
    data = _object(path, config.PROJECTS_PATTERNS_MAX_BYTES, entries)
    if data is None:
        return
    items = _pattern_list(data, legacy=legacy)
    if items is None:
        _shape(entries, path, 'no list of patterns (`{"patterns": [...]}`)')
        return
    for index, raw in enumerate(items):
        where = f"{path}#{_list_key(data, legacy)}[{index}]"
        try:
            entries.patterns.append(_pattern(raw, namespace, where, legacy=legacy))
        except InvalidArgument as exc:
            _invalid(entries, where, exc)


def _pattern_list(data: Any, *, legacy: bool) -> list[Any] | None:
    if legacy and isinstance(data, list):
        return data
    if not isinstance(data, dict):
        return None
    for key in LEGACY_KEYS if legacy else ("patterns",):
        if isinstance(data.get(key), list):
            items: list[Any] = data[key]
            return items
    return None


def _list_key(data: Any, legacy: bool) -> str:
    if isinstance(data, dict):
        return next((k for k in LEGACY_KEYS if isinstance(data.get(k), list)), "patterns")
    return "" if legacy else "patterns"


def _pattern(raw: Any, namespace: str, where: str, *, legacy: bool) -> LokiPattern:
    if not isinstance(raw, dict):
        raise InvalidArgument("a pattern must be a JSON object", field="pattern")
    if legacy and "pattern" not in raw:
        # The legacy entry (Loki's memory-system reference): what fails, why, its prevention.
        title = _text(raw, "what_fails")
        why = _text(raw, "why")
        text = f"{title}: {why}" if title and why else title or why
        raw = {
            "id": raw.get("id"),
            "pattern": text,
            "category": raw.get("category") or "anti-pattern",
            "incorrect_approach": why or title,
            "correct_approach": raw.get("prevention"),
            "source_episodes": [raw["source"]] if raw.get("source") else [],
        }
    text = _text(raw, "pattern")
    if not text:
        raise InvalidArgument("a pattern needs its text (`pattern`)", field="pattern")
    correct, incorrect = _text(raw, "correct_approach"), _text(raw, "incorrect_approach")
    category = _text(raw, "category")
    anti = legacy or (bool(incorrect) and not correct)
    anti = anti or category.strip().lower() in config.LOKI_ANTI_CATEGORIES
    return LokiPattern(
        id=_text(raw, "id") or _made_id("anti-pattern" if legacy else "pattern", text),
        pattern=text,
        category=category,
        conditions=_texts(raw, "conditions"),
        correct=correct,
        incorrect=incorrect,
        confidence=_fraction(raw, "confidence"),
        source_episodes=_texts(raw, "source_episodes"),
        links=_links(raw),
        anti=anti,
        namespace=namespace,
        path=where,
    )


def _links(raw: dict[str, Any]) -> list[tuple[str, str]]:
    value = raw.get("links")
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidArgument("links must be a list", field="links")
    links = []
    for index, link in enumerate(value):
        if not isinstance(link, dict):
            raise InvalidArgument("a link must be {to, relation}", field=f"links[{index}]")
        target = _text(link, "to") or _text(link, "to_id")
        if target:
            links.append((_text(link, "relation") or "related_to", target))
    return links


# --- skills -------------------------------------------------------------------------------------
def _read_skill(path: Path, namespace: str, entries: LokiEntries) -> None:
    data = _object(path, config.LOKI_SKILL_MAX_FILE_BYTES, entries)
    if data is None:
        return
    try:
        if not isinstance(data, dict):
            raise InvalidArgument("a skill file must hold one JSON object", field="skill")
        entries.skills.append(_skill(data, namespace, str(path), path.stem))
    except InvalidArgument as exc:
        _invalid(entries, str(path), exc)


def _skill(raw: dict[str, Any], namespace: str, path: str, stem: str) -> LokiSkill:
    name = _text(raw, "name") or stem
    steps = _texts(raw, "steps")
    if not steps:
        raise InvalidArgument("a skill needs at least one step", field="steps")
    errors = raw.get("common_errors") or []
    if not isinstance(errors, list):
        raise InvalidArgument("The common errors must be a list", field="common_errors")
    pairs = []
    for index, item in enumerate(errors):
        if not isinstance(item, dict):
            raise InvalidArgument("a common error is {error, fix}", field=f"common_errors[{index}]")
        pairs.append((_text(item, "error"), _text(item, "fix")))
    return LokiSkill(
        id=_text(raw, "id") or f"skill-{stem}",
        name=name,
        description=_text(raw, "description"),
        prerequisites=_texts(raw, "prerequisites"),
        steps=steps,
        common_errors=[(e, f) for e, f in pairs if e or f],
        exit_criteria=_texts(raw, "exit_criteria"),
        example=_text(raw, "example_usage"),
        namespace=namespace,
        path=path,
    )


# --- fields -------------------------------------------------------------------------------------
def _text(raw: dict[str, Any], name: str) -> str:
    value = raw.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be text, not {type(value).__name__}", field=name)
    return value.strip()


def _texts(raw: dict[str, Any], name: str) -> list[str]:
    value = raw.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidArgument(f"{name} must be a list of texts", field=name)
    return [v.strip() for v in value if v.strip()]


def _fraction(raw: dict[str, Any], name: str) -> float | None:
    value = raw.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidArgument(f"{name} must be a number from 0 to 1, not {value!r}", field=name)
    return float(value)


def _made_id(kind: str, text: str) -> str:
    """An id for an entry that has none (the legacy file's): stable, from its text."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[: config.LOKI_SLUG_HASH_CHARS]
    return f"{kind}-{digest}"
