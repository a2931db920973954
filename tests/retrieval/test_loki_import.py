"""Importing a Loki Mode store (issue 18): a real `.loki/memory` in Loki's shapes, a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import LokiStoreNotFound, PathNotFound
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.store import MemoryStore
from tests.helpers.loki import (
    ANTI_PATTERN,
    EPISODE_1,
    EPISODE_2,
    EPISODE_BILLING,
    PATTERN,
    write_json,
    write_loki_store,
)
from tests.helpers.memories import remember

SLUGS = {
    "loki-sem-001": "reference",
    "loki-sem-002": "feedback",
    "loki-billing-sem-001": "reference",
    "loki-skill-api-implementation": "skill",
}


def import_loki(store: MemoryStore, path: Path, **fields: Any) -> dict[str, Any]:
    result: dict[str, Any] = dispatch(store, "loki_import", {"path": str(path), **fields})
    return result


def read(store: MemoryStore, slug: str, scope: str = "global", **fields: Any) -> dict[str, Any]:
    found: dict[str, Any] = dispatch(store, "memory_read", {"slug": slug, "scope": scope, **fields})
    return found


def memory_files(home: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file() and p.suffix in (".md", ".json") and ".loki" not in p.parts
    }


def legacy_slug(result: dict[str, Any]) -> str:
    [slug] = [i["target"] for i in result["items"] if i["source_id"].startswith("anti-pattern-")]
    return str(slug)


def test_every_kind_is_imported_with_its_evidence(store: MemoryStore, tmp_path: Path) -> None:
    write_loki_store(tmp_path / "shop")

    result = import_loki(store, tmp_path / "shop")

    assert result["problems"] == []
    assert result["namespaces"] == ["default", "billing"]
    assert result["counts"] == {
        "anti_pattern": {"created": 2},
        "episode": {"created": 3},
        "pattern": {"created": 2},
        "skill": {"created": 1},
    }
    assert result["written"] == 8
    assert result["workdir"] is None  # the shop folder is no project of this store
    # Episodes: ids kept, both action forms read, unscoped.
    for episode_id in (EPISODE_1, EPISODE_2, EPISODE_BILLING):
        episode = dispatch(store, "episode_read", {"id": episode_id})["episode"]
        assert episode["workdir_hash"] == ""
    first = dispatch(store, "episode_read", {"id": EPISODE_1})["episode"]
    assert [a["tool"] for a in first["action_log"]] == ["read_file", "write_file"]
    second = dispatch(store, "episode_read", {"id": EPISODE_2})["episode"]
    assert second["outcome"] == "failure"
    assert second["action_log"][0]["output"] == "timeout"
    # Patterns, anti-patterns and the skill: their types, unreviewed, their evidence.
    slugs = {**SLUGS, legacy_slug(result): "feedback"}
    listed = dispatch(store, "memory_list", {})["entries"]
    assert {e["slug"]: e["type"] for e in listed} == slugs
    assert all(e["unreviewed"] for e in listed)
    pattern = read(store, "loki-sem-001")
    assert pattern["evidence"]["confidence"] == "high"  # 0.95
    assert pattern["evidence"]["source_quote"] == PATTERN["pattern"]
    assert f"{EPISODE_1}, {EPISODE_2}" in pattern["evidence"]["reasoning"]
    assert pattern["evidence"]["aliases"] == ["sem-001"]
    for text in (
        PATTERN["correct_approach"],
        PATTERN["incorrect_approach"],
        "- Using TypeScript strict mode",
        "related_to sem-005",
        f"Source episodes: {EPISODE_1}, {EPISODE_2}",
    ):
        assert text in pattern["content"]
    anti = read(store, "loki-sem-002")
    assert anti["evidence"]["confidence"] == "low"  # 0.6
    assert f"Don't: {ANTI_PATTERN['incorrect_approach']}" in anti["content"]
    legacy = read(store, legacy_slug(result))
    assert "Instead: Added explicit :void to route handler" in legacy["content"]
    assert EPISODE_1 in legacy["content"]
    billing = read(store, "loki-billing-sem-001")
    assert "namespace `billing`" in billing["content"]
    skill = read(store, "loki-skill-api-implementation")["skill"]
    assert skill["steps"] == [
        "Read the endpoint spec",
        "Create the route handler",
        "Write contract tests",
    ]
    assert skill["prerequisites"] == ["OpenAPI spec exists", "Database schema defined"]
    assert {"error": "Schema mismatch", "fix": "Regenerate types from the spec"} in skill[
        "common_errors"
    ]
    assert skill["exit_criteria"] == ["All contract tests pass"]
    assert skill["example"] == "POST /api/todos"
    # The audit names the importer; a person still has to accept.
    history = dispatch(store, "memory_history", {"slug": "loki-sem-001", "scope": "global"})
    assert history["entries"][0]["who"] == "importer"
    assert history["entries"][0]["trigger"] == "loki-import"


def test_a_second_import_writes_nothing(store: MemoryStore, home: Path, tmp_path: Path) -> None:
    write_loki_store(tmp_path / "shop")
    import_loki(store, tmp_path / "shop")
    dispatch(store, "memory_accept", {"slug": "loki-sem-001", "scope": "global"})
    before = memory_files(home)

    again = import_loki(store, tmp_path / "shop")

    assert again["written"] == 0
    assert again["counts"] == {
        "anti_pattern": {"unchanged": 2},
        "episode": {"exists": 3},
        "pattern": {"unchanged": 2},
        "skill": {"unchanged": 1},
    }
    assert memory_files(home) == before
    assert read(store, "loki-sem-001")["entry"]["unreviewed"] is False  # the accept stays


def test_a_changed_pattern_updates_its_memory(store: MemoryStore, tmp_path: Path) -> None:
    memory = write_loki_store(tmp_path / "shop")
    import_loki(store, tmp_path / "shop")
    dispatch(store, "memory_accept", {"slug": "loki-sem-001", "scope": "global"})
    changed = {**PATTERN, "correct_approach": "Type the handler as RequestHandler"}
    write_json(memory / "semantic" / "patterns.json", {"patterns": [changed, ANTI_PATTERN]})

    again = import_loki(store, tmp_path / "shop")

    assert again["counts"]["pattern"] == {"unchanged": 1, "updated": 1}
    assert again["counts"]["anti_pattern"] == {"unchanged": 2}
    assert again["written"] == 1
    pattern = read(store, "loki-sem-001")
    assert "Do: Type the handler as RequestHandler" in pattern["content"]
    assert PATTERN["correct_approach"] not in pattern["content"]
    assert pattern["entry"]["unreviewed"] is True  # what it says changed: reviewed again
    assert dispatch(store, "memory_list", {})["total"] == 5  # updated, not duplicated


def test_bad_files_are_reported_and_skipped(store: MemoryStore, tmp_path: Path) -> None:
    memory = write_loki_store(tmp_path / "shop")
    broken = memory / "episodic" / "2026-01-09" / "task-ep-broken.json"
    broken.parent.mkdir()
    broken.write_text('{"id": "ep-broken", ', encoding="utf-8")
    won = write_json(
        memory / "episodic" / "2026-01-09" / "task-ep-won.json",
        {"id": "ep-won", "timestamp": "2026-01-09T10:00:00Z", "goal": "x", "outcome": "won"},
    )
    odd = {**PATTERN, "id": "sem-009", "confidence": "very"}
    write_json(memory / "semantic" / "patterns.json", {"patterns": [PATTERN, odd]})
    skill = write_json(memory / "skills" / "broken.json", {"name": "broken", "steps": "do it"})

    result = import_loki(store, tmp_path / "shop")

    problems = {(p["path"], p["code"], p["field"]) for p in result["problems"]}
    assert problems == {
        (str(broken), "corrupt_json", None),
        (str(won), "invalid_argument", "outcome"),
        (f"{memory / 'semantic' / 'patterns.json'}#patterns[1]", "invalid_argument", "confidence"),
        (str(skill), "invalid_argument", "steps"),
    }
    assert result["counts"]["episode"] == {"created": 3}
    assert result["counts"]["pattern"] == {"created": 2}
    assert result["counts"]["skill"] == {"created": 1}
    assert dispatch(store, "memory_list", {})["total"] == 4  # sem-002 was left out of the file


def test_a_dry_run_lists_and_writes_nothing(store: MemoryStore, home: Path, tmp_path: Path) -> None:
    write_loki_store(tmp_path / "shop")
    before = memory_files(home)

    result = import_loki(store, tmp_path / "shop", dry_run=True)

    assert result["dry_run"] is True
    assert result["written"] == 0
    assert result["counts"]["episode"] == {"created": 3}
    assert result["counts"]["skill"] == {"created": 1}
    assert memory_files(home) == before
    assert dispatch(store, "memory_list", {})["total"] == 0
    assert dispatch(store, "episode_list", {})["total"] == 0


def test_a_known_project_folder_scopes_the_import(store: MemoryStore, tmp_path: Path) -> None:
    project = tmp_path / "shop"
    write_loki_store(project)
    remember(store, "shop-notes", scope="project", type="project", workdir=str(project))

    result = import_loki(store, project / ".loki" / "memory")

    assert result["workdir"] == str(project.resolve())
    assert result["project_folder"] == str(project.resolve())
    key = workdir_hash(str(project))
    assert dispatch(store, "episode_read", {"id": EPISODE_1})["episode"]["workdir_hash"] == key
    pattern = read(store, "loki-sem-001", "project", workdir=str(project))
    assert pattern["entry"]["type"] == "project"
    assert pattern["entry"]["workdir_hash"] == key


def test_replace_overwrites_a_stored_episode(store: MemoryStore, tmp_path: Path) -> None:
    memory = write_loki_store(tmp_path / "shop")
    import_loki(store, tmp_path / "shop")
    path = memory / "episodic" / "2026-01-07" / f"task-{EPISODE_2}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    write_json(path, {**data, "goal": "Call the payments sandbox on the VPN"})

    kept = import_loki(store, tmp_path / "shop")
    assert kept["counts"]["episode"] == {"exists": 3}
    assert dispatch(store, "episode_read", {"id": EPISODE_2})["episode"]["goal"] == data["goal"]

    preview = import_loki(store, tmp_path / "shop", replace=True, dry_run=True)
    assert preview["counts"]["episode"] == {"replaced": 3}
    assert dispatch(store, "episode_read", {"id": EPISODE_2})["episode"]["goal"] == data["goal"]

    replaced = import_loki(store, tmp_path / "shop", replace=True)
    assert replaced["counts"]["episode"] == {"replaced": 3}
    episode = dispatch(store, "episode_read", {"id": EPISODE_2})["episode"]
    assert episode["goal"] == "Call the payments sandbox on the VPN"


def test_a_missing_path_or_one_without_loki_memory_is_refused(
    store: MemoryStore, tmp_path: Path
) -> None:
    with pytest.raises(PathNotFound) as missing:
        import_loki(store, tmp_path / "nowhere")
    assert missing.value.code == "path_not_found"
    assert missing.value.field == "path"
    (tmp_path / "plain" / "skills").mkdir(parents=True)  # a folder, but no .loki/memory
    with pytest.raises(LokiStoreNotFound) as empty:
        import_loki(store, tmp_path / "plain")
    assert empty.value.code == "loki_store_not_found"
    assert dispatch(store, "memory_list", {})["total"] == 0
    assert dispatch(store, "episode_list", {})["total"] == 0


def test_an_entry_the_store_refuses_is_reported_and_the_rest_imported(
    store: MemoryStore, tmp_path: Path
) -> None:
    memory = write_loki_store(tmp_path / "shop")
    key = "AKIA" + "ABCDEFGHIJKLMNOP"  # a hard secret shape (REFERENCE A3): never stored
    leaky = {**PATTERN, "id": "sem-003", "correct_approach": f"Use the key {key}"}
    write_json(memory / "semantic" / "patterns.json", {"patterns": [PATTERN, leaky]})
    episode = memory / "episodic" / "2026-01-06" / f"task-{EPISODE_1}.json"
    data = json.loads(episode.read_text(encoding="utf-8"))
    write_json(episode, {**data, "git_commit": key})

    result = import_loki(store, tmp_path / "shop")

    refused = {(p["path"], p["code"]) for p in result["problems"]}
    assert refused == {
        (f"{memory / 'semantic' / 'patterns.json'}#patterns[1]", "risk_hard_blocked"),
        (str(episode), "risk_hard_blocked"),
    }
    assert result["counts"]["pattern"] == {"created": 2, "failed": 1}
    assert result["counts"]["episode"] == {"created": 2}
    slugs = {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]}
    assert "loki-sem-003" not in slugs and "loki-sem-001" in slugs
    assert dispatch(store, "episode_list", {})["total"] == 2
