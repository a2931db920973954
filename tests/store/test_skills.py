"""The `skill` memory type: its sections (store/skills.py) and its life in the store.

Real files and a real SQLite index in a temporary folder; the parser and renderer are tested
on their own first, then every rule a skill shares with the other types.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.agent.manager_tool import ManagerToolExecutor
from liveagent_memory.agent.overview import render_overview
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import errors
from liveagent_memory.domain.requests import ListRequest, SkillInput
from liveagent_memory.domain.schema import CommonError
from liveagent_memory.domain.skills import TEMPLATE
from liveagent_memory.organizer.decisions import SKILL_ADDITIONS, derive_risk, merged_text
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.evidence import parse_document
from liveagent_memory.store.skills import (
    merge_skills,
    parse_skill,
    render_skill,
    skill_from_input,
    split_common_error,
)
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import (
    create_reference_index,
    memory_files,
    memory_text,
    query,
    write_file,
)
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import organizer_entry

SKILL = {
    "when_to_use": "The staging deploy has to go out.",
    "prerequisites": ["VPN connected", "kubectl configured for staging"],
    "steps": ["Run `make deploy ENV=staging`", "Watch the rollout:\nkubectl rollout status"],
    "common_errors": [
        {"error": "ImagePullBackOff", "fix": "log in to the registry again"},
        {"error": "Timeout waiting for rollout", "fix": "raise --timeout to 10m"},
    ],
    "exit_criteria": ["The health page is green"],
    "example": "make deploy ENV=staging",
}
SKILL_BODY = """## When to use

The staging deploy has to go out.

## Steps

1. Run `make deploy ENV=staging`
2. Check the health page
"""


def write_skill(store: MemoryStore, slug: str = "deploy-staging", **fields: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "slug": slug,
        "scope": "global",
        "type": "skill",
        "description": "Deploy to staging",
        "skill": SKILL,
    }
    payload.update(fields)
    return dispatch(store, "memory_write", payload)


def read(store: MemoryStore, slug: str, **fields: Any) -> dict[str, Any]:
    return dispatch(store, "memory_read", {"slug": slug, **fields})


def text(store: MemoryStore, relpath: str) -> str:
    return (store.root / relpath).read_text(encoding="utf-8")


# --- sections: parse and render ---------------------------------------------------------------


def test_structured_input_renders_canonical_sections_that_parse_back() -> None:
    skill = skill_from_input(SkillInput.model_validate(SKILL))
    rendered = render_skill(skill)
    assert rendered.startswith("## When to use\n\nThe staging deploy has to go out.\n\n")
    assert "## Steps\n\n1. Run `make deploy ENV=staging`\n2. Watch the rollout:\n" in rendered
    assert "    kubectl rollout status" in rendered  # a step's second line stays in the step
    assert "- ImagePullBackOff → log in to the registry again" in rendered
    headings = [line for line in rendered.split("\n") if line.startswith("## ")]
    assert headings == [
        "## When to use",
        "## Prerequisites",
        "## Steps",
        "## Common errors",
        "## Exit criteria",
        "## Example",
    ]
    parsed = parse_skill(rendered)
    view = parsed.view().to_dict()
    assert view == {
        **SKILL,
        "common_errors": SKILL["common_errors"],
        "other_sections": [],
        "missing": [],
    }
    assert render_skill(parsed) == rendered


def test_chinese_headings_numbering_and_separators_parse() -> None:
    content = (
        "### 适用场景：\n发布到预发环境时。\n\n"
        "## 前提条件\n- 已连接 VPN\n\n"
        "##  步骤 \n1、运行 make deploy\n2、检查健康页面\n\n"
        "## 常见错误\n- 镜像拉取失败：重新登录镜像仓库\n- 超时 -> 调大超时\n\n"
        "## 完成标准\n- 健康页面为绿色\n\n"
        "## 示例\nmake deploy\n"
    )
    skill = parse_skill(content)
    assert skill.when_to_use == "发布到预发环境时。"
    assert skill.prerequisites == ["已连接 VPN"]
    assert skill.steps == ["运行 make deploy", "检查健康页面"]
    assert skill.common_errors == [
        CommonError("镜像拉取失败", "重新登录镜像仓库"),
        CommonError("超时", "调大超时"),
    ]
    assert skill.exit_criteria == ["健康页面为绿色"] and skill.example == "make deploy"
    assert skill.missing() == []
    # Re-rendered, the headings are the canonical English ones.
    assert render_skill(skill).startswith("## When to use\n\n发布到预发环境时。")


@pytest.mark.parametrize(
    "heading",
    ["## Steps", "# steps", "### STEPS:", "##   Steps  ", "## **Steps**", "## Procedure ##"],
)
def test_headings_are_case_level_and_whitespace_tolerant(heading: str) -> None:
    assert parse_skill(f"{heading}\n1. do it\n").steps == ["do it"]


@pytest.mark.parametrize(
    ("item", "error", "fix"),
    [
        ("ImportError → pip install x", "ImportError", "pip install x"),
        ("ImportError -> pip install x", "ImportError", "pip install x"),
        ("ImportError => pip install x", "ImportError", "pip install x"),
        ("Permission denied: run as deploy", "Permission denied", "run as deploy"),
        ("权限不足：切换用户", "权限不足", "切换用户"),
        ("http://host:8080 refuses → restart it", "http://host:8080 refuses", "restart it"),
        ("http://host is down", "http://host is down", ""),
        ("Flaky test", "Flaky test", ""),
    ],
)
def test_common_error_separators(item: str, error: str, fix: str) -> None:
    assert split_common_error(item) == CommonError(error, fix)


def test_unknown_sections_and_free_text_survive_a_rerender_verbatim() -> None:
    content = (
        "Written after the outage of May.\n\n"
        "## When to use\nAfter an outage.\n\n"
        "## Steps\n1. Page the on-call\n   - by phone, not chat\n\n"
        "A remark between the steps and the next section.\n\n"
        "## Why this exists\nBecause *chat* gets missed.\n\n"
        "```\n# not a heading\n```\n\n"
        "## Exit criteria\n- Someone answered\n"
    )
    skill = parse_skill(content)
    assert skill.steps == ["Page the on-call\n- by phone, not chat"]
    rendered = render_skill(skill)
    for kept in (
        "Written after the outage of May.",
        "A remark between the steps and the next section.",
        "## Why this exists\n\nBecause *chat* gets missed.\n\n```\n# not a heading\n```",
    ):
        assert kept in rendered
    # The unknown section stays where it stood: after Steps, before Exit criteria.
    assert rendered.index("## Steps") < rendered.index("## Why") < rendered.index("## Exit")
    assert skill.view().other_sections == ["Why this exists"]
    assert render_skill(parse_skill(rendered)) == rendered


def test_the_template_has_every_section_and_is_not_a_valid_skill_yet() -> None:
    skill = parse_skill(TEMPLATE)
    assert skill.steps == [] and skill.prerequisites == [] and skill.common_errors == []
    assert skill.missing() == ["when_to_use", "steps"]
    assert skill.missing("Deploy to staging") == ["steps"]  # the description serves


def test_merge_replaces_steps_and_unites_bullets() -> None:
    current = parse_skill(render_skill(skill_from_input(SkillInput.model_validate(SKILL))))
    incoming = parse_skill(
        "## Common errors\n- ImagePullBackOff → use the mirror registry\n- OOMKilled → more "
        "memory\n\n## Prerequisites\n- VPN connected\n- Access to the cluster\n"
    )
    merged = merge_skills(current, incoming)
    assert merged.steps == current.steps  # no steps came in: they stay
    assert merged.prerequisites == [
        "VPN connected",
        "kubectl configured for staging",
        "Access to the cluster",
    ]
    assert [(e.error, e.fix) for e in merged.common_errors] == [
        ("ImagePullBackOff", "use the mirror registry"),
        ("Timeout waiting for rollout", "raise --timeout to 10m"),
        ("OOMKilled", "more memory"),
    ]
    assert merge_skills(current, parse_skill("## Steps\n1. Only this")).steps == ["Only this"]


@pytest.mark.parametrize(
    "error", ["TypeError: x is undefined", "权限不足：切换用户", "a -> b", "Flaky test"]
)
def test_a_fix_less_error_holding_a_separator_reads_back_unchanged(error: str) -> None:
    skill = skill_from_input(
        SkillInput.model_validate({**SKILL, "common_errors": [{"error": error, "fix": ""}]})
    )
    rendered = render_skill(skill)
    assert parse_skill(rendered).common_errors == [CommonError(error, "")]
    assert render_skill(parse_skill(rendered)) == rendered
    if error == "Flaky test":  # nothing to split: written bare, as before
        assert "- Flaky test\n" in rendered


def test_merge_keeps_a_fix_less_error_holding_a_separator_whole() -> None:
    current = parse_skill(render_skill(skill_from_input(SkillInput.model_validate(SKILL))))
    incoming = skill_from_input(
        SkillInput.model_validate(
            {**SKILL, "common_errors": [{"error": "TypeError: x is undefined", "fix": ""}]}
        )
    )
    merged = parse_skill(render_skill(merge_skills(current, incoming)))
    assert [(e.error, e.fix) for e in merged.common_errors] == [
        ("ImagePullBackOff", "log in to the registry again"),
        ("Timeout waiting for rollout", "raise --timeout to 10m"),
        ("TypeError: x is undefined", ""),
    ]


# --- the store: write, read, update, delete, restore ------------------------------------------


def test_global_skill_is_a_markdown_memory_in_global_skills(store: MemoryStore) -> None:
    result = write_skill(
        store, confidence="high", source_quote="deploy with make deploy", reasoning="asked"
    )
    assert result["created"] and result["type"] == "skill"
    assert result["path"] == "global/skills/deploy-staging.md"
    assert result["applied_confidence"] == "high" and not result["auto_downgraded"]
    doc = parse_document(text(store, result["path"]))
    assert (doc.meta.name, doc.meta.type, doc.meta.scope) == ("deploy-staging", "skill", "global")
    assert doc.meta.source["trigger"] == "tool" and doc.meta.unreviewed is True  # a model's
    assert doc.body.startswith("---\nconfidence: high\n")  # the evidence block comes first
    assert "## Steps\n\n1. Run `make deploy ENV=staging`" in doc.body

    stored = read(store, "deploy-staging")
    assert stored["entry"]["type"] == "skill" and stored["entry"]["confidence"] == "high"
    assert stored["skill"]["steps"] == SKILL["steps"]
    assert stored["skill"]["common_errors"][0] == SKILL["common_errors"][0]
    assert stored["skill"]["missing"] == []
    assert stored["content"].startswith("## When to use")


def test_read_of_other_types_has_no_skill(store: MemoryStore) -> None:
    dispatch(
        store,
        "memory_write",
        {"slug": "tea", "scope": "global", "type": "user", "description": "Tea", "body": "Tea."},
    )
    assert read(store, "tea")["skill"] is None


def test_project_skill_lives_in_its_project_folder(store: MemoryStore, workdir: str) -> None:
    project = workdir_hash(workdir)
    result = write_skill(
        store, "run-tests", scope="project", workdir=workdir, body=SKILL_BODY, skill=None
    )
    assert result["path"] == f"projects/{project}/skills/run-tests.md"
    assert (store.root / "projects" / project / ".workdir.json").is_file()
    stored = read(store, "run-tests", scope="project", workdir=workdir)
    assert stored["skill"]["steps"] == ["Run `make deploy ENV=staging`", "Check the health page"]


def test_skill_body_as_markdown_is_stored_verbatim(store: MemoryStore) -> None:
    result = write_skill(store, body="## 适用场景\n发布时。\n\n## 步骤\n1、运行 make", skill=None)
    assert text(store, result["path"]).endswith("## 适用场景\n发布时。\n\n## 步骤\n1、运行 make\n")
    assert read(store, "deploy-staging")["skill"]["steps"] == ["运行 make"]


def test_the_confidence_contract_applies_to_skills(store: MemoryStore) -> None:
    result = write_skill(store, confidence="high", source_quote="ok")
    assert result["applied_confidence"] == "medium" and result["auto_downgraded"] is True
    result = write_skill(store, "other-skill", confidence="medium")
    assert result["applied_confidence"] == "low" and result["auto_downgraded"] is True
    assert "auto_downgraded: true" in text(store, "global/skills/other-skill.md")


def test_soft_risk_marks_a_skill_unreviewed_and_a_secret_is_refused(store: MemoryStore) -> None:
    risky = {**SKILL, "steps": ["git commit --no-verify", "push"]}
    result = write_skill(store, skill=risky)
    assert result["unreviewed"] is True and result["risk_flag"] == "low"
    token = "ghp_" + "a1B2c3D4e5" * 3 + "abcdef"
    with pytest.raises(errors.RiskHardBlocked):
        write_skill(store, "leaky", skill={**SKILL, "steps": [f"export TOKEN={token}"]})
    assert not (store.root / "global" / "skills" / "leaky.md").exists()


def test_extractor_skills_start_unreviewed(store: MemoryStore) -> None:
    assert write_skill(store, actor="extractor")["unreviewed"] is True


def test_update_delete_and_restore_a_skill(store: MemoryStore, clock: FakeClock) -> None:
    write_skill(store)
    clock.advance(seconds=60)
    updated = dispatch(
        store,
        "memory_update",
        {"slug": "deploy-staging", "skill": {**SKILL, "steps": ["Run the deploy pipeline"]}},
    )
    assert updated["updated"] and updated["path"] == "global/skills/deploy-staging.md"
    assert read(store, "deploy-staging")["skill"]["steps"] == ["Run the deploy pipeline"]

    clock.advance(seconds=60)
    deleted = dispatch(store, "memory_delete", {"slug": "deploy-staging", "reason": "old"})
    assert deleted["path"].startswith("global/.trash/deploy-staging.")  # the scope's trash
    assert not (store.root / "global" / "skills" / "deploy-staging.md").exists()
    history = dispatch(store, "memory_history", {"slug": "deploy-staging"})
    trash = next(e for e in history["entries"] if e["source"] == "trash")

    restored = dispatch(
        store, "memory_restore", {"slug": "deploy-staging", "version": trash["version"]}
    )
    assert restored["path"] == "global/skills/deploy-staging.md" and restored["type"] == "skill"
    assert read(store, "deploy-staging")["skill"]["steps"] == ["Run the deploy pipeline"]


def test_update_in_merge_mode_merges_section_by_section(store: MemoryStore) -> None:
    write_skill(store)
    dispatch(
        store,
        "memory_update",
        {
            "slug": "deploy-staging",
            "mode": "merge",
            "body": "## Common errors\n- OOMKilled → raise the memory limit",
        },
    )
    skill = read(store, "deploy-staging")["skill"]
    assert skill["steps"] == SKILL["steps"]
    assert [e["error"] for e in skill["common_errors"]] == [
        "ImagePullBackOff",
        "Timeout waiting for rollout",
        "OOMKilled",
    ]


def test_an_evidence_only_update_of_a_hand_written_broken_skill_is_allowed(
    store: MemoryStore,
) -> None:
    write_file(store.root, "global/skills/notes.md", memory_text("notes", type="skill"))
    store.reconcile()
    result = dispatch(
        store,
        "memory_update",
        {"slug": "notes", "confidence": "high", "source_quote": "these are my notes"},
    )
    assert result["applied_confidence"] == "high"


# --- refusals: typed errors, nothing written --------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "error", "field"),
    [
        ({"skill": {**SKILL, "steps": []}}, errors.SkillInvalid, "steps"),
        ({"skill": {**SKILL, "steps": ["  "]}}, errors.SkillInvalid, "steps"),
        ({"skill": None, "body": "## When to use\nAlways."}, errors.SkillInvalid, "steps"),
        (
            {"skill": {**SKILL, "when_to_use": ""}, "description": ""},
            errors.SkillInvalid,
            "when_to_use",
        ),
        ({"skill": None, "body": "1. a step"}, errors.SkillInvalid, "steps"),  # no section
        ({"body": "Some text"}, errors.InvalidArgument, "body"),  # skill and body
        ({"type": "project"}, errors.InvalidArgument, "skill"),  # skill on another type
        ({"skill": None, "body": TEMPLATE}, errors.SkillInvalid, "steps"),
    ],
)
def test_invalid_skill_writes_are_refused_and_nothing_is_written(
    store: MemoryStore, fields: dict[str, Any], error: type[errors.MemoryDomainError], field: str
) -> None:
    with pytest.raises(error) as caught:
        write_skill(store, **fields)
    assert caught.value.field == field
    assert caught.value.to_dict()["error"] in ("skill_invalid", "invalid_argument")
    assert memory_files(store.root) == {}
    assert dispatch(store, "memory_list", {})["total"] == 0


def test_when_to_use_can_come_from_the_description(store: MemoryStore) -> None:
    result = write_skill(store, skill={**SKILL, "when_to_use": ""})
    assert result["created"] and read(store, "deploy-staging")["skill"]["missing"] == []


def test_a_skill_slug_is_unique_across_types_and_the_body_limit_holds(store: MemoryStore) -> None:
    dispatch(
        store,
        "memory_write",
        {"slug": "release", "scope": "global", "type": "user", "description": "R", "body": "R."},
    )
    with pytest.raises(errors.SlugExists):
        write_skill(store, "release")
    with pytest.raises(errors.BodyTooLarge):
        write_skill(store, "huge", skill={**SKILL, "steps": ["x" * 9000]})
    assert sorted(memory_files(store.root)) == ["global/user/release.md"]


def test_a_write_without_body_or_skill_is_refused(store: MemoryStore) -> None:
    with pytest.raises(errors.InvalidArgument) as caught:
        dispatch(
            store,
            "memory_write",
            {"slug": "tea", "scope": "global", "type": "user", "description": "Tea"},
        )
    assert caught.value.field == "body"


@pytest.mark.parametrize(
    ("fields", "error", "field"),
    [
        ({"skill": {**SKILL, "steps": []}}, errors.SkillInvalid, "steps"),
        ({"body": "## When to use\nNever mind.", "mode": "replace"}, errors.SkillInvalid, "steps"),
        ({"skill": SKILL, "body": "text"}, errors.InvalidArgument, "body"),
        ({"skill": SKILL, "type": "reference"}, errors.InvalidArgument, "skill"),
    ],
)
def test_invalid_skill_updates_are_refused_and_the_file_stays(
    store: MemoryStore, fields: dict[str, Any], error: type[errors.MemoryDomainError], field: str
) -> None:
    write_skill(store)
    before = memory_files(store.root)
    with pytest.raises(error) as caught:
        dispatch(store, "memory_update", {"slug": "deploy-staging", **fields})
    assert caught.value.field == field
    assert memory_files(store.root) == before


def test_a_skill_object_on_a_non_skill_memory_is_refused(store: MemoryStore) -> None:
    dispatch(
        store,
        "memory_write",
        {"slug": "tea", "scope": "global", "type": "user", "description": "Tea", "body": "Tea."},
    )
    before = memory_files(store.root)
    with pytest.raises(errors.InvalidArgument) as caught:
        dispatch(store, "memory_update", {"slug": "tea", "skill": SKILL})
    assert caught.value.field == "skill" and memory_files(store.root) == before


# --- type changes move the file; history follows ----------------------------------------------


def test_type_change_user_to_skill_to_project_moves_the_file(
    store: MemoryStore, clock: FakeClock
) -> None:
    dispatch(
        store,
        "memory_write",
        {
            "slug": "release",
            "scope": "global",
            "type": "user",
            "description": "How the user releases",
            "body": "The user releases on Fridays.",
        },
    )
    assert (store.root / "global/user/release.md").is_file()
    clock.advance(seconds=60)
    with pytest.raises(errors.SkillInvalid):  # the text is not a procedure yet
        dispatch(store, "memory_update", {"slug": "release", "type": "skill"})
    assert (store.root / "global/user/release.md").is_file()

    clock.advance(seconds=60)
    moved = dispatch(store, "memory_update", {"slug": "release", "type": "skill", "skill": SKILL})
    assert moved["path"] == "global/skills/release.md"
    assert not (store.root / "global/user/release.md").exists()
    assert "- [release](skills/release.md) type=skill" in text(store, "global/MEMORY.md")

    clock.advance(seconds=60)
    moved = dispatch(store, "memory_update", {"slug": "release", "type": "project"})
    assert moved["path"] == "global/release.md"
    assert not (store.root / "global/skills/release.md").exists()
    assert read(store, "release")["skill"] is None

    history = dispatch(store, "memory_history", {"slug": "release"})
    ops = [entry["op"] for entry in history["entries"]]
    assert ops == ["update", "update", "write"]
    # Restoring the skill version brings the file back to skills/.
    skill_version = history["entries"][0]["version"]  # its `previous` is the skill text
    restored = dispatch(store, "memory_restore", {"slug": "release", "version": skill_version})
    assert restored["type"] == "skill" and restored["path"] == "global/skills/release.md"
    assert not (store.root / "global/release.md").exists()
    assert read(store, "release")["skill"]["steps"] == SKILL["steps"]


# --- reconcile and compatibility -------------------------------------------------------------


def test_reconcile_indexes_hand_written_skills_even_malformed_ones(
    store: MemoryStore, workdir: str
) -> None:
    project = workdir_hash(workdir)
    write_file(
        store.root, "global/skills/good.md", memory_text("good", type="skill", body=SKILL_BODY)
    )
    write_file(store.root, "global/skills/no-steps.md", memory_text("no-steps", type="skill"))
    write_file(
        store.root,
        f"projects/{project}/skills/proj-skill.md",
        memory_text("proj-skill", type="skill", body=SKILL_BODY),
    )
    # A file in skills/ whose frontmatter names another type is indexed as that type, like a
    # project memory found in global/user/; the next update moves it where it belongs.
    write_file(store.root, "global/skills/misplaced.md", memory_text("misplaced", type="project"))

    report = store.reconcile()
    assert report.added == 4 and report.problems == []
    assert read(store, "good")["skill"]["missing"] == []
    broken = read(store, "no-steps")
    assert broken["skill"]["missing"] == ["steps"] and broken["content"] == "Body of no-steps"
    assert (
        read(store, "proj-skill", scope="project", workdir=workdir)["entry"]["scope"] == "project"
    )
    misplaced = read(store, "misplaced")
    assert misplaced["entry"]["type"] == "project"
    assert misplaced["entry"]["path"] == "global/skills/misplaced.md"
    moved = dispatch(store, "memory_update", {"slug": "misplaced", "body": "Now a project note."})
    assert moved["path"] == "global/misplaced.md"

    listing = dispatch(store, "memory_list", {"type": "skill"})
    assert sorted(e["slug"] for e in listing["entries"]) == ["good", "no-steps"]
    memory_md = text(store, "global/MEMORY.md")
    assert "- [no-steps](skills/no-steps.md) type=skill — About no-steps" in memory_md
    project_md = text(store, f"projects/{project}/MEMORY.md")
    assert "- [proj-skill](skills/proj-skill.md) type=skill" in project_md


def test_memory_md_links_resolve_to_the_skill_files(store: MemoryStore, workdir: str) -> None:
    write_skill(store)
    write_skill(store, "run-tests", scope="project", workdir=workdir)
    for folder in (store.root / "global", store.root / "projects" / workdir_hash(workdir)):
        lines = (folder / "MEMORY.md").read_text(encoding="utf-8").splitlines()
        links = [line.split("](", 1)[1].split(")", 1)[0] for line in lines if "](" in line]
        assert links and all((folder / link).is_file() for link in links)


def test_a_store_without_skills_opens_unchanged(home: Path, clock: FakeClock) -> None:
    """A LiveAgent-format store (its index too) opens without any file changing."""
    write_file(home, "global/api-docs.md", memory_text("api-docs"))
    write_file(home, "global/user/tea.md", memory_text("tea", type="user"))
    with MemoryStore.open(home, clock=clock):
        pass
    before = {p.relative_to(home): p.read_bytes() for p in home.rglob("*.md")}
    (home / "memory-index.sqlite3").unlink()
    create_reference_index(home / "memory-index.sqlite3", version=4, v4_columns=True)

    with MemoryStore.open(home, clock=clock) as store:
        assert store.open_report.created and store.last_reconcile is not None
        assert {e.slug for e in store.list_entries(ListRequest()).entries} == {"api-docs", "tea"}
    after = {p.relative_to(home): p.read_bytes() for p in home.rglob("*.md")}
    assert after == before
    assert not (home / "global" / "skills").exists()
    assert "- [api-docs] type=reference — About api-docs" in (home / "global/MEMORY.md").read_text()


def test_an_index_that_refuses_skill_rows_is_rebuilt_keeping_its_history(
    home: Path, clock: FakeClock
) -> None:
    path = home / "memory-index.sqlite3"
    create_reference_index(path, version=4, v4_columns=True)  # LiveAgent's CHECK on type
    write_file(home, "global/skills/good.md", memory_text("good", type="skill", body=SKILL_BODY))

    with MemoryStore.open(home, clock=clock) as store:
        assert [e.slug for e in store.list_entries(ListRequest()).entries] == ["good"]
        assert store.last_reconcile is not None and store.last_reconcile.problems == []
    ddl = query(path, "SELECT sql FROM sqlite_master WHERE name = 'memory_meta'")[0][0]
    assert "'skill'" in str(ddl)
    assert query(path, "SELECT slug FROM memory_audit_log WHERE op = 'delete'") == [
        ("old-rejected",)
    ]
    with pytest.raises(sqlite3.IntegrityError):  # the rest of the CHECK still holds
        db = sqlite3.connect(path)
        try:
            db.execute(
                "INSERT INTO memory_meta (scope, workdir_hash, slug, type, body_hash, "
                "file_mtime, file_size, created_at, updated_at) "
                "VALUES ('global', '', 'x', 'note', 'h', 1, 1, 1, 1)"
            )
        finally:
            db.close()


# --- search, quota, projects, overview --------------------------------------------------------


def test_search_finds_a_skill_and_filters_by_type(store: MemoryStore) -> None:
    write_skill(store)
    dispatch(
        store,
        "memory_write",
        {
            "slug": "registry-notes",
            "scope": "global",
            "type": "reference",
            "description": "Registry notes",
            "body": "The registry is at registry.example.com.",
        },
    )
    hits = dispatch(store, "memory_search", {"query": "ImagePullBackOff", "explain": True})
    assert [h["slug"] for h in hits["matches"]] == ["deploy-staging"]
    assert hits["matches"][0]["explain"]["weight_reason"] == "global skill"
    assert hits["matches"][0]["explain"]["weight"] == 1.0
    only = dispatch(store, "memory_search", {"query": "registry", "type": "skill"})
    assert [h["slug"] for h in only["matches"]] == ["deploy-staging"]
    chinese = write_skill(
        store, "fa-bu", body="## 适用场景\n发布前\n\n## 步骤\n1. 检查镜像仓库", skill=None
    )
    assert chinese["created"]
    found = dispatch(store, "memory_search", {"query": "镜像仓库"})
    assert "fa-bu" in [h["slug"] for h in found["matches"]]


def test_skills_count_toward_quota_and_projects(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock, scope_limit=2) as store:
        write_skill(store, "one-skill")
        write_skill(store, "two-skill")
        with pytest.raises(errors.QuotaExceeded):
            write_skill(store, "three-skill")
        assert not (home / "global/skills/three-skill.md").exists()
        quota = dispatch(store, "memory_quota_summary", {})
        assert quota["scopes"][0]["used"] == 2
        projects = dispatch(store, "memory_projects", {})
        assert projects["projects"][0]["counts"]["skill"] == 2


def test_overview_puts_skills_in_the_scopes_bucket_with_mark_s(
    store: MemoryStore, workdir: str
) -> None:
    write_skill(store, actor="user")
    write_skill(store, "run-tests", scope="project", workdir=workdir, actor="user")
    buckets = store.overview(workdir)
    assert [e.slug for e in buckets.global_] == ["deploy-staging"]
    assert [e.slug for e in buckets.project] == ["run-tests"]
    block = render_overview(buckets)
    assert "[deploy-staging|s|d0]" in block and "[run-tests|s|d0]" in block
    assert "s=skill" in block


# --- agents: the MemoryManager tool and batches -------------------------------------------------


def test_memory_manager_writes_a_skill_object_and_reads_its_steps(
    store: MemoryStore,
) -> None:
    tool = ManagerToolExecutor(store)
    assert "skill" in tool.schema()["function"]["parameters"]["properties"]["type"]["enum"]
    outcome = tool.execute(
        {
            "action": "write",
            "slug": "deploy-staging",
            "type": "skill",
            "description": "Deploy to staging",
            "skill": SKILL,
        }
    )
    assert outcome.ok, outcome.content
    assert outcome.payload["path"] == "global/skills/deploy-staging.md"
    read_back = tool.execute({"action": "read", "slug": "deploy-staging"})
    assert '"steps":["Run `make deploy ENV=staging`"' in read_back.content
    refused = tool.execute(
        {"action": "write", "slug": "empty", "type": "skill", "description": "x", "body": "hi"}
    )
    assert not refused.ok and '"error":"skill_invalid"' in refused.content


def test_a_batch_upsert_validates_skills_item_by_item(store: MemoryStore) -> None:
    items = [
        {"op": "upsert", "slug": "good-skill", "type": "skill", "description": "d"}
        | {"body": SKILL_BODY},
        {"op": "upsert", "slug": "bad-skill", "type": "skill", "description": "d", "body": "x"},
    ]
    result = dispatch(store, "memory_apply_batch", {"items": items})
    assert [i["status"] for i in result["items"]] == ["applied", "failed"]
    assert result["items"][1]["error"]["error"] == "skill_invalid"
    assert (store.root / "global/skills/good-skill.md").is_file()
    assert not (store.root / "global/skills/bad-skill.md").exists()


def test_organizer_never_merges_across_a_skill_without_review() -> None:
    risk, reasons = derive_risk(
        action="merge_into",
        llm_risk="low",
        confidence=0.95,
        target=organizer_entry("deploy", type="skill"),
        sources=[organizer_entry("deploy-note", type="project")],
    )
    assert risk == "high" and "cross_type" in reasons
    risk, _ = derive_risk(
        action="merge_into",
        llm_risk="low",
        confidence=0.95,
        target=organizer_entry("a-note"),
        sources=[organizer_entry("b-note", type="project")],
    )
    assert risk == "medium"  # other cross-type merges keep the reference's rule


def test_an_organizer_merge_into_a_skill_keeps_the_targets_sections() -> None:
    target_body = render_skill(skill_from_input(SkillInput.model_validate(SKILL)))
    source_body = SKILL_BODY + "\n~~~\nnot the end\n~~~"
    body = merged_text(
        organizer_entry("deploy", type="skill", body=target_body),
        [
            organizer_entry("deploy", type="skill", body=target_body),
            organizer_entry("deploy-2", type="skill", body=source_body),
        ],
    )
    parsed = parse_skill(body)
    assert parsed.steps == SKILL["steps"]  # the source's own "## Steps" stays inside its fence
    assert parsed.view().other_sections == [SKILL_ADDITIONS.lstrip("# ")]
    assert body.startswith(target_body.strip())
    assert "not the end" in body  # what only the source says is kept
    # A source that says nothing new adds nothing, not even the heading.
    same = merged_text(
        organizer_entry("deploy", type="skill", body=target_body),
        [organizer_entry("deploy-3", type="skill", body=target_body)],
    )
    assert same == target_body.strip()


def test_a_longer_fence_holds_a_shorter_one() -> None:
    content = "## Example\n````\n```\n## Steps\n1. no\n```\n````\n\n## Steps\n1. yes\n"
    skill = parse_skill(content)
    assert skill.steps == ["yes"]
    assert skill.example == "````\n```\n## Steps\n1. no\n```\n````"
