"""SubmitMemoryPlan validation, receipt and batch mapping (REFERENCE A9), applied for real."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.agent.extraction import plan as p
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.store.store import MemoryStore

WORKDIR = "/home/dev/shop"


def write(slug: object = "pkg-manager", **fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "action": "write",
        "slug": slug,
        "scope": "global",
        "type": "feedback",
        "description": "用 pnpm 安装依赖",
        "body": "本项目一律用 pnpm 安装依赖。",
        "confidence": "high",
        "source_quote": "以后都用 pnpm 安装依赖",
    }
    item.update(fields)
    return {k: v for k, v in item.items() if v is not None}


def update(slug: str = "pkg-manager", **fields: Any) -> dict[str, Any]:
    return {"action": "update", "slug": slug, "body": "Also for CI.", **fields}


def accept(slug: str = "pkg-manager", scope: str = "global") -> dict[str, Any]:
    return {"action": "accept", "slug": slug, "scope": scope}


def delete(slug: str = "pkg-manager", scope: str = "global", **fields: Any) -> dict[str, Any]:
    return {"action": "delete", "slug": slug, "scope": scope, **fields}


def daily(body: str = "- 讨论了依赖管理") -> dict[str, Any]:
    return {"action": "append_daily", "body": body}


def codes(
    items: Any,
    *,
    workdir: str | None = WORKDIR,
    written: frozenset[str] = frozenset(),
    rejected: frozenset[str] = frozenset(),
) -> list[str | None]:
    """The reject code of every item (None = accepted), by plan index."""
    plan = p.validate_plan(
        {"status": "updated", "items": items}, workdir=workdir, written=written, rejected=rejected
    )
    by_index: dict[int, str] = {r.index: r.code for r in plan.rejections}
    accepted = {i for i, _ in plan.items} | set(plan.daily_indexes)
    assert accepted.isdisjoint(by_index)
    assert accepted | set(by_index) == set(range(len(items)))
    return [by_index.get(i) for i in range(len(items))]


CJK_AT_LIMIT = "字" * (config.MAX_BODY_BYTES // 3)  # 2730 chars, 8190 bytes
CJK_OVER = "字" * (config.MAX_BODY_BYTES // 3 + 1)  # 2731 chars, 8193 bytes


def test_body_limit_is_in_utf8_bytes() -> None:
    assert len(CJK_OVER) < config.MAX_BODY_BYTES < len(CJK_OVER.encode())
    assert len(CJK_AT_LIMIT.encode()) <= config.MAX_BODY_BYTES


# --- every reject code -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "kwargs", "expected"),
    [
        # invalid-action
        ({"action": "remember", "slug": "pkg-manager"}, {}, p.INVALID_ACTION),
        (write(action="Write"), {}, p.INVALID_ACTION),  # actions are exact
        ({"slug": "pkg-manager", "body": "no action"}, {}, p.INVALID_ACTION),
        ("write", {}, p.INVALID_ACTION),
        (None, {}, p.INVALID_ACTION),
        (["write", "pkg-manager"], {}, p.INVALID_ACTION),
        (42, {}, p.INVALID_ACTION),
        # empty-daily-body
        ({"action": "append_daily"}, {}, p.EMPTY_DAILY_BODY),
        (daily("   \n "), {}, p.EMPTY_DAILY_BODY),
        (daily("- 今天把依赖换成了 pnpm"), {}, None),  # no slug or scope needed
        # body-too-large (> 8192 bytes of UTF-8, not characters)
        (write(body=CJK_OVER), {}, p.BODY_TOO_LARGE),
        (write(body=CJK_AT_LIMIT), {}, None),
        (write(body="a" * (config.MAX_BODY_BYTES + 1)), {}, p.BODY_TOO_LARGE),
        (write(body="a" * config.MAX_BODY_BYTES), {}, None),
        (update(body=CJK_OVER), {}, p.BODY_TOO_LARGE),
        (daily(CJK_OVER), {}, p.BODY_TOO_LARGE),
        (daily(CJK_AT_LIMIT), {}, None),
        # missing-slug (< 3 characters)
        (write(slug="ab"), {}, p.MISSING_SLUG),
        (write(slug="  x  "), {}, p.MISSING_SLUG),
        (write(slug=""), {}, p.MISSING_SLUG),
        ({k: v for k, v in write().items() if k != "slug"}, {}, p.MISSING_SLUG),
        (write(slug=12345), {}, p.MISSING_SLUG),
        (accept(slug="no"), {}, p.MISSING_SLUG),
        (delete(slug=""), {}, p.MISSING_SLUG),
        (write(slug="abc"), {}, None),
        # invalid-scope (required for write/accept/delete; checked when given on update)
        (write(scope=None), {}, p.INVALID_SCOPE),
        (write(scope="team"), {}, p.INVALID_SCOPE),
        (write(scope="Global"), {}, p.INVALID_SCOPE),
        ({"action": "accept", "slug": "pkg-manager"}, {}, p.INVALID_SCOPE),
        ({"action": "delete", "slug": "pkg-manager"}, {}, p.INVALID_SCOPE),
        (update(scope="everywhere"), {}, p.INVALID_SCOPE),
        (update(), {}, None),  # update may leave the scope to the store
        # project-scope-gate (no workdir; delete is exempt)
        (write(scope="project", type="project"), {"workdir": None}, p.PROJECT_SCOPE_GATE),
        (update(scope="project"), {"workdir": None}, p.PROJECT_SCOPE_GATE),
        (accept(scope="project"), {"workdir": None}, p.PROJECT_SCOPE_GATE),
        (delete(scope="project"), {"workdir": None}, None),
        (write(scope="project", type="project"), {}, None),
        (write(scope="global"), {"workdir": None}, None),
        # already-written-this-turn (write/update only)
        (write(), {"written": frozenset({"pkg-manager"})}, p.ALREADY_WRITTEN),
        (update(), {"written": frozenset({"pkg-manager"})}, p.ALREADY_WRITTEN),
        (write(slug="PKG-Manager"), {"written": frozenset({"pkg-manager"})}, p.ALREADY_WRITTEN),
        (accept(), {"written": frozenset({"pkg-manager"})}, None),
        (delete(), {"written": frozenset({"pkg-manager"})}, None),
        (write(), {"written": frozenset({"other-slug"})}, None),
        # rejected-slug-no-override
        (write(), {"rejected": frozenset({"pkg-manager"})}, p.REJECTED_SLUG),
        (update(), {"rejected": frozenset({"pkg-manager"})}, p.REJECTED_SLUG),
        (write(override_reject="   "), {"rejected": frozenset({"pkg-manager"})}, p.REJECTED_SLUG),
        (
            write(override_reject="用户今天又明确要求记住这条"),
            {"rejected": frozenset({"pkg-manager"})},
            None,
        ),
        (
            update(override_reject="the user asked for it again"),
            {"rejected": frozenset({"pkg-manager"})},
            None,
        ),
        # missing-type-for-write / invalid-type
        (write(type=None), {}, p.MISSING_TYPE),
        (write(type="  "), {}, p.MISSING_TYPE),
        (update(), {}, None),  # an update keeps its type
        (write(type="daily"), {}, p.INVALID_TYPE),  # never a write type
        (write(type="skill"), {}, None),  # procedural memory (SPEC 1.2)
        (write(type="note"), {}, p.INVALID_TYPE),  # not a type
        (write(type="User"), {}, p.INVALID_TYPE),
        (update(type="daily"), {}, p.INVALID_TYPE),
        (update(type="reference"), {}, None),
        # missing-description-for-write
        (write(description=None), {}, p.MISSING_DESCRIPTION),
        (write(description=" \n"), {}, p.MISSING_DESCRIPTION),
        (update(description=None), {}, None),
        # missing-body-for-write
        (write(body=None), {}, p.MISSING_BODY),
        (write(body="   "), {}, p.MISSING_BODY),
        ({"action": "update", "slug": "pkg-manager", "confidence": "high"}, {}, None),
    ],
)
def test_reject_code(item: Any, kwargs: dict[str, Any], expected: str | None) -> None:
    assert codes([item], **kwargs) == [expected]


@pytest.mark.parametrize("kind", ["user", "feedback", "project", "reference"])
def test_every_plan_type_is_accepted(kind: str) -> None:
    assert codes([write(type=kind)]) == [None]


# --- duplicates inside one plan --------------------------------------------------------------


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([write(), write()], [None, p.DUPLICATE_SLUG]),
        ([write(), update()], [None, p.DUPLICATE_SLUG]),
        ([update(), write()], [None, p.DUPLICATE_SLUG]),
        ([update(), update()], [None, p.DUPLICATE_SLUG]),
        ([write(), accept()], [None, None]),  # write, then accept it: allowed
        ([update(), accept()], [None, None]),
        ([accept(), accept()], [None, p.DUPLICATE_SLUG]),
        ([write(), accept(), accept()], [None, None, p.DUPLICATE_SLUG]),
        ([accept(), write()], [None, p.DUPLICATE_SLUG]),  # accept comes after the write
        ([delete(), write()], [None, p.DUPLICATE_SLUG]),  # delete blocks the rest
        ([delete(), update()], [None, p.DUPLICATE_SLUG]),
        ([delete(), accept()], [None, p.DUPLICATE_SLUG]),
        ([delete(), delete()], [None, p.DUPLICATE_SLUG]),
        ([write(), delete()], [None, p.DUPLICATE_SLUG]),  # delete after a write
        ([accept(), delete()], [None, p.DUPLICATE_SLUG]),
        ([write("pkg-manager"), write("indent-style")], [None, None]),
        ([write("Pkg-Manager"), write(" pkg-manager ")], [None, p.DUPLICATE_SLUG]),
        # one slug, two scopes: still one memory name per plan
        ([write(), write(scope="project", type="project")], [None, p.DUPLICATE_SLUG]),
        # a rejected item does not claim its slug
        ([write(body=""), write()], [p.MISSING_BODY, None]),
        ([write(scope="team"), delete()], [p.INVALID_SCOPE, None]),
    ],
)
def test_duplicate_slug_in_plan(items: list[Any], expected: list[str | None]) -> None:
    assert codes(items) == expected


def test_too_many_items() -> None:
    items: list[Any] = [write(f"memory-{i}") for i in range(10)]
    items[9] = {"action": "bogus"}  # beyond the limit, the limit is the reason
    result = codes(items)
    limit = config.EXTRACTION_MAX_PLAN_ITEMS
    assert result[:limit] == [None] * limit
    assert result[limit:] == [p.TOO_MANY_ITEMS, p.TOO_MANY_ITEMS]


def test_exactly_eight_items_are_fine() -> None:
    items = [write(f"memory-{i}") for i in range(config.EXTRACTION_MAX_PLAN_ITEMS - 1)]
    assert codes([*items, daily()]) == [None] * config.EXTRACTION_MAX_PLAN_ITEMS


# --- check order -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("items", "kwargs", "expected"),
    [
        # invalid-action before body-too-large
        ([{"action": "remember", "body": CJK_OVER}], {}, p.INVALID_ACTION),
        # body-too-large before missing-slug
        ([write(slug="", body=CJK_OVER)], {}, p.BODY_TOO_LARGE),
        # missing-slug before invalid-scope
        ([write(slug="x", scope="team")], {}, p.MISSING_SLUG),
        # invalid-scope before missing-type
        ([write(scope="team", type=None)], {}, p.INVALID_SCOPE),
        # project-scope-gate before duplicate
        (
            [write(), write(scope="project", type="project")],
            {"workdir": None},
            p.PROJECT_SCOPE_GATE,
        ),
        # duplicate before already-written
        ([delete(), write()], {"written": frozenset({"pkg-manager"})}, p.DUPLICATE_SLUG),
        # already-written before rejected-slug
        (
            [write()],
            {"written": frozenset({"pkg-manager"}), "rejected": frozenset({"pkg-manager"})},
            p.ALREADY_WRITTEN,
        ),
        # rejected-slug before missing-type
        ([write(type=None)], {"rejected": frozenset({"pkg-manager"})}, p.REJECTED_SLUG),
        # missing-type before missing-description
        ([write(type=None, description=None)], {}, p.MISSING_TYPE),
        # invalid-type before missing-description
        ([write(type="daily", description=None)], {}, p.INVALID_TYPE),
        # missing-description before missing-body
        ([write(description="", body="")], {}, p.MISSING_DESCRIPTION),
        # too-many-items before everything
        ([write(f"memory-{i}") for i in range(8)] + [{"action": "x"}], {}, p.TOO_MANY_ITEMS),
    ],
)
def test_first_failing_check_names_the_code(
    items: list[Any], kwargs: dict[str, Any], expected: str
) -> None:
    assert codes(items, **kwargs)[-1] == expected


# --- plan shape, status, note, receipt -------------------------------------------------------


@pytest.mark.parametrize("items", ["write", {"action": "write"}, 5, ("a", "b")])
def test_items_must_be_a_list(items: Any) -> None:
    with pytest.raises(p.PlanShapeError):
        p.validate_plan({"status": "updated", "items": items}, workdir=None)


@pytest.mark.parametrize("arguments", [["items"], "SubmitMemoryPlan", None])
def test_arguments_must_be_an_object(arguments: Any) -> None:
    with pytest.raises(p.PlanShapeError):
        p.validate_plan(arguments, workdir=None)


@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        ({"items": []}, "noop"),
        ({}, "noop"),
        ({"items": None}, "noop"),
        ({"items": [write()]}, "updated"),
        ({"status": "noop", "items": [write()]}, "noop"),
        ({"status": "updated", "items": []}, "updated"),
        ({"status": "done", "items": [write()]}, "updated"),
        ({"status": "DONE"}, "noop"),
        ({"status": 1, "items": [{"action": "bogus"}]}, "updated"),
    ],
)
def test_status_defaulting(arguments: dict[str, Any], status: str) -> None:
    assert p.validate_plan(arguments, workdir=None).status == status


def test_note_is_clipped_and_must_be_text() -> None:
    long = p.validate_plan({"note": "记" * 300, "items": []}, workdir=None)
    assert long.note == "记" * config.PLAN_NOTE_MAX_CHARS
    assert p.validate_plan({"note": ["x"], "items": []}, workdir=None).note == ""


def test_receipt_lists_rejections_in_order() -> None:
    plan = p.validate_plan(
        {
            "status": "updated",
            "items": [
                write("pkg-manager"),
                write("ab"),
                daily("- 换成了 pnpm"),
                "write",
                accept("pkg-manager"),
                write("pkg-manager"),
            ],
        },
        workdir=WORKDIR,
    )
    assert plan.proposed == 6
    assert plan.receipt() == (
        "Plan received: 3 accepted, 3 rejected "
        "(index 1: missing-slug, index 3: invalid-action, index 5: duplicate-slug-in-plan)"
    )
    assert [(r.index, r.code, r.slug) for r in plan.rejections] == [
        (1, p.MISSING_SLUG, "ab"),
        (3, p.INVALID_ACTION, None),
        (5, p.DUPLICATE_SLUG, "pkg-manager"),
    ]


@pytest.mark.parametrize(
    ("items", "receipt"),
    [
        ([], "Plan received: 0 accepted, 0 rejected"),
        ([write(), daily(), daily("- 第二行")], "Plan received: 3 accepted, 0 rejected"),
        ([{"action": "x"}], "Plan received: 0 accepted, 1 rejected (index 0: invalid-action)"),
    ],
)
def test_receipt_counts(items: list[Any], receipt: str) -> None:
    assert p.validate_plan({"items": items}, workdir=None).receipt() == receipt


# --- mapping to memory_apply_batch -----------------------------------------------------------


def batch_items(items: list[Any], *, workdir: str | None = WORKDIR) -> list[dict[str, Any]]:
    plan = p.validate_plan({"status": "updated", "items": items}, workdir=workdir)
    assert not plan.rejections, plan.receipt()
    return [item for _, item in plan.items]


def test_write_maps_to_upsert_with_every_evidence_field() -> None:
    quote = "以后都用 pnpm 安装依赖，" + "真的" * 60
    item = write(
        slug="  PKG-Manager ",
        scope=" project ",
        type="project",
        description="  用 pnpm 安装依赖 ",
        body="\n本项目一律用 pnpm。\n",
        confidence="high",
        source_quote=quote,
        reasoning="用户明确说了以后",
        aliases=["pnpm", " ", "包管理器", *[f"alias-{i}" for i in range(10)]],
        supersedes="npm-usage",
        conflicts_with=["use-npm", "use-yarn"],
        override_reject="用户又要求了",
        mode="replace",  # not a write field
    )
    assert batch_items([item]) == [
        {
            "slug": "pkg-manager",
            "scope": "project",
            "op": "upsert",
            "type": "project",
            "description": "用 pnpm 安装依赖",
            "body": "本项目一律用 pnpm。",
            "confidence": "high",
            "reasoning": "用户明确说了以后",
            "supersedes": "npm-usage",
            "source_quote": quote[: config.PLAN_QUOTE_MAX_CHARS],
            "override_reject": "用户又要求了",
            "aliases": ["pnpm", "包管理器", *[f"alias-{i}" for i in range(6)]],
            "conflicts_with": ["use-npm", "use-yarn"],
        }
    ]
    assert len(quote) > config.PLAN_QUOTE_MAX_CHARS


def test_a_single_alias_string_becomes_a_list() -> None:
    assert batch_items([write(aliases="tabs")])[0]["aliases"] == ["tabs"]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [(None, "merge"), ("merge", "merge"), ("replace", "replace"), ("append", "merge")],
)
def test_update_maps_with_default_mode_merge(mode: str | None, expected: str) -> None:
    item = update(mode=mode) if mode else update()
    assert batch_items([item]) == [
        {"slug": "pkg-manager", "op": "update", "mode": expected, "body": "Also for CI."}
    ]


def test_update_carries_scope_when_given() -> None:
    out = batch_items([update(scope="global", confidence="medium", source_quote="CI 也用")])
    assert out == [
        {
            "slug": "pkg-manager",
            "scope": "global",
            "op": "update",
            "mode": "merge",
            "body": "Also for CI.",
            "confidence": "medium",
            "source_quote": "CI 也用",
        }
    ]


def test_accept_and_delete_mapping() -> None:
    out = batch_items(
        [
            accept("indent-style"),
            delete("old-editor", reasoning="用户说他已经不用 vim 了"),
            delete("old-shell", scope="project"),
        ]
    )
    assert out == [
        {"slug": "indent-style", "scope": "global", "op": "accept"},
        {
            "slug": "old-editor",
            "scope": "global",
            "op": "delete",
            "reason": "用户说他已经不用 vim 了",
        },
        {
            "slug": "old-shell",
            "scope": "project",
            "op": "delete",
            "reason": "extractor: the user said this is wrong",
        },
    ]


def test_batch_payload_envelope() -> None:
    plan = p.validate_plan(
        {
            "status": "updated",
            "items": [daily("- 讨论了依赖"), write(), daily("  - discussed tabs  "), accept()],
        },
        workdir=WORKDIR,
    )
    payload = p.batch_payload(plan, workdir=WORKDIR, conversation_id="conv-7", model="gpt-x")
    assert payload["actor"] == "extractor"
    assert payload["conversation_id"] == "conv-7"
    assert payload["trigger"] == "post-turn"
    assert payload["workdir"] == WORKDIR
    assert payload["model"] == "gpt-x"
    assert [item["op"] for item in payload["items"]] == ["upsert", "accept"]
    assert payload["daily_append"] == {"bullet": "- 讨论了依赖\n- discussed tabs"}
    assert plan.daily_indexes == [0, 2]
    assert [index for index, _ in plan.items] == [1, 3]


def test_batch_payload_leaves_out_what_is_absent() -> None:
    plan = p.validate_plan({"items": [write()]}, workdir=None)
    payload = p.batch_payload(plan, workdir=None, conversation_id="c", model=None)
    assert set(payload) == {"items", "actor", "conversation_id", "trigger"}


# --- applied for real ------------------------------------------------------------------------


def apply(
    store: MemoryStore, items: list[Any], *, workdir: str | None, **kwargs: Any
) -> tuple[p.ValidatedPlan, dict[str, Any]]:
    plan = p.validate_plan({"status": "updated", "items": items}, workdir=workdir, **kwargs)
    payload = p.batch_payload(plan, workdir=workdir, conversation_id="conv-1", model="m-1")
    return plan, dispatch(store, "memory_apply_batch", payload)


def read(store: MemoryStore, slug: str, scope: str, workdir: str | None = None) -> dict[str, Any]:
    return dispatch(store, "memory_read", {"slug": slug, "scope": scope, "workdir": workdir})


def test_plan_applies_through_memory_apply_batch(
    store: MemoryStore, workdir: str, home: Path
) -> None:
    dispatch(
        store,
        "memory_write",
        {
            "slug": "commit-style",
            "scope": "global",
            "type": "feedback",
            "description": "提交信息风格",
            "body": "提交信息用英文。",
            "actor": "user",
        },
    )
    long_quote = "From now on always indent with tabs, " + "really " * 20
    plan, result = apply(
        store,
        [
            write(
                "pkg-manager",
                scope="project",
                type="project",
                confidence="high",
                source_quote="以后都用 pnpm 安装依赖",
            ),
            write(
                "indent-style",
                type="feedback",
                description="Indent with tabs",
                body="Always indent with tabs.",
                confidence="high",
                source_quote=long_quote,
                aliases=[f"tab-{i}" for i in range(12)],
            ),
            write(
                "user-name",
                type="user",
                description="用户叫李雷",
                body="用户叫李雷。",
                confidence="high",
                source_quote="李雷",  # under 5 characters: high → medium
            ),
            update(
                "commit-style",
                scope="global",
                body="Squash commits before merging.",
                confidence="medium",
            ),
            write("ab"),  # rejected: never reaches the store
            daily("- 把依赖管理换成了 pnpm"),
            daily("- discussed indentation"),
        ],
        workdir=workdir,
    )
    assert plan.receipt() == "Plan received: 6 accepted, 1 rejected (index 4: missing-slug)"
    assert result["failed"] == 0
    assert result["applied"] == 5  # four items + one daily_append carrying both lines
    by_slug = {item["slug"]: item for item in result["items"] if item["slug"]}
    assert set(by_slug) == {"pkg-manager", "indent-style", "user-name", "commit-style"}

    # Files land where the reference puts them.
    project_path = by_slug["pkg-manager"]["result"]["path"]
    assert project_path.startswith("projects/") and project_path.endswith("/pkg-manager.md")
    assert (home / project_path).is_file()
    assert by_slug["indent-style"]["result"]["path"] == "global/user/indent-style.md"
    assert (home / "global/user/indent-style.md").is_file()
    daily_item = next(item for item in result["items"] if item["op"] == "daily_append")
    daily_text = (home / daily_item["result"]["path"]).read_text(encoding="utf-8")
    assert "- 把依赖管理换成了 pnpm\n- discussed indentation" in daily_text
    assert not list(home.rglob("ab.md"))

    # Confidence contract: high needs a quote of >= 5 characters; medium needs any quote.
    expected = {
        "pkg-manager": ("high", False),
        "indent-style": ("high", False),
        "user-name": ("medium", True),
        "commit-style": ("low", True),
    }
    for slug, (confidence, downgraded) in expected.items():
        mutation = by_slug[slug]["result"]
        assert (mutation["applied_confidence"], mutation["auto_downgraded"]) == (
            confidence,
            downgraded,
        ), slug
        assert mutation["unreviewed"] is True, slug  # the extractor's writes await review

    project = read(store, "pkg-manager", "project", workdir)
    assert project["entry"]["unreviewed"] is True
    assert project["entry"]["type"] == "project"
    assert project["source"]["conversationId"] == "conv-1"
    assert project["source"]["model"] == "m-1"
    assert project["content"] == "本项目一律用 pnpm 安装依赖。"

    tabs = read(store, "indent-style", "global")
    assert tabs["evidence"]["source_quote"] == long_quote[: config.PLAN_QUOTE_MAX_CHARS].strip()
    assert tabs["evidence"]["aliases"] == [f"tab-{i}" for i in range(config.PLAN_ALIASES_MAX)]

    merged = read(store, "commit-style", "global")
    assert merged["entry"]["unreviewed"] is True  # a person's memory, changed by the extractor
    # mode defaulted to merge: the unrelated old sentence stays, the new one is appended
    assert merged["content"] == "提交信息用英文。\n\nSquash commits before merging."

    history = dispatch(
        store, "memory_history", {"slug": "pkg-manager", "scope": "project", "workdir": workdir}
    )
    audit = [e for e in history["entries"] if e["source"] == "audit"]
    assert audit and audit[0]["actor"] == "extractor"
    assert audit[0]["conversation_id"] == "conv-1"


def test_accept_is_refused_and_delete_applies_for_real(store: MemoryStore, home: Path) -> None:
    for slug in ("indent-style", "old-editor"):
        dispatch(
            store,
            "memory_write",
            {
                "slug": slug,
                "scope": "global",
                "type": "feedback",
                "description": slug,
                "body": "body",
                "actor": "extractor",
            },
        )
    assert read(store, "indent-style", "global")["entry"]["unreviewed"] is True
    _, result = apply(
        store,
        [accept("indent-style"), delete("old-editor", reasoning="用户说不用 vim 了")],
        workdir=None,
    )
    assert [(i["op"], i["status"]) for i in result["items"]] == [
        ("accept", "failed"),  # issue 12: the extractor may not vouch for a memory
        ("delete", "applied"),
    ]
    assert result["items"][0]["error"]["error"] == "action_not_allowed"
    indent = read(store, "indent-style", "global")
    assert indent["entry"]["unreviewed"] is True and indent["source"]["trigger"] == "extractor"
    assert not (home / "global/user/old-editor.md").exists()
    assert list((home / "global/.trash").glob("old-editor.*.md"))
    history = dispatch(store, "memory_history", {"slug": "old-editor", "scope": "global"})
    reasons = [e["reason"] for e in history["entries"] if e["op"] == "delete"]
    assert "用户说不用 vim 了" in reasons


def test_project_item_without_workdir_never_reaches_the_store(
    store: MemoryStore, home: Path
) -> None:
    plan, result = apply(
        store, [write(scope="project", type="project"), write("indent-style")], workdir=None
    )
    assert [r.code for r in plan.rejections] == [p.PROJECT_SCOPE_GATE]
    assert [item["slug"] for item in result["items"]] == ["indent-style"]
    assert not list((home / "projects").rglob("*.md"))
