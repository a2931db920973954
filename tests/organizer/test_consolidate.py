"""Consolidation (issue 18): episodes since the last consolidation become proposals a person
reviews (organizer/consolidate.py, organizer/learning.py, domain/signatures.py).

Real stores in temp folders, episodes recorded through `episode_record`, runs through the
`organize_consolidate` command; the model path talks to the fake OpenAI-compatible server.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.organizer.consolidate import Consolidation
from liveagent_memory.prompts.organizer import PATTERN_TOOL
from liveagent_memory.store.skills import parse_skill
from liveagent_memory.store.store import MemoryStore
from tests.helpers.diskstore import memory_files
from tests.helpers.episodes import episode_file, record
from tests.helpers.fake_llm import FakeLLMServer, llm_client
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import new_run

LOGIN_ERRORS = [
    ("KeyError", "'exp' missing in /src/auth/login.py:12 (req-4411)", "decode with leeway"),
    ("KeyError", '"iat" missing in /srv/app/login.py:40 (req-9)', ""),
    (
        "KeyError",
        "'nbf' missing in lib/jwt.py:7 (req-120)",
        "check (the claims) first",
    ),  # brackets: not an episode id
]
RELEASE = [("run_test", "pytest -q"), ("bump_version", "pyproject.toml"), ("git_tag", "v1")]


def consolidate(store: MemoryStore, **payload: Any) -> dict[str, Any]:
    """One offline consolidate run through the command; the run as recorded."""
    result = dispatch(store, "organize_consolidate", {"offline": True, **payload})
    assert result["claimed"] is True
    run: dict[str, Any] = result["run"]
    assert run == dispatch(store, "organize_run_read", {"run_id": run["run_id"]})["run"]
    return run


def run_and_list(store: MemoryStore, **payload: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One run, and its learned proposals as the review queue shows them (their main part)."""
    run = consolidate(store, **payload)
    queue = dispatch(store, "organize_review_queue", {"run_id": run["run_id"]})
    assert all(group["kind"] == "learn" for group in queue["groups"])
    return run, [group["main"] for group in queue["groups"]]


def login_failures(store: MemoryStore, clock: FakeClock, **fields: Any) -> list[str]:
    return [
        record(
            store, clock, f"fix the login token {n}", outcome="failure", errors=[error], **fields
        )
        for n, error in enumerate(LOGIN_ERRORS)
    ]


def apply(store: MemoryStore, run_id: str, *keys: str) -> dict[str, Any]:
    return dispatch(store, "organize_apply", {"run_id": run_id, "keys": list(keys) or ["0"]})


def test_three_failures_on_one_error_give_one_anti_pattern_citing_all_three(
    store: MemoryStore, clock: FakeClock
) -> None:
    ids = login_failures(store, clock)
    before = memory_files(store.root)

    run, found = run_and_list(store)

    assert run["status"] == "succeeded" and run["phase"] == "consolidate"
    assert [p["reasonParams"]["kind"] for p in found] == ["antiPattern"]
    (anti,) = found
    assert (anti["op"], anti["memoryType"], anti["scope"]) == ("upsert", "feedback", "global")
    assert anti["requiresUserAck"] is True and anti["reasonCode"] == "learned"
    assert anti["reasonParams"]["episodes"] == ids
    assert anti["reasonParams"]["signature"] == "keyerror: <q> missing in <path>:<n> (<id>)"
    assert anti["description"] == (
        "Avoid: KeyError: 'exp' missing in /src/auth/login.py:12 (req-4411) (met 3 times)"
    )
    body = anti["body"]
    for episode_id, (_kind, message, _fix) in zip(ids, LOGIN_ERRORS, strict=True):
        assert f'- {episode_id} (2026-11-30): "KeyError: {message}"' in body  # id, date, quote
    assert "- decode with leeway (" + ids[0] + ")" in body  # the fixes found, with their episode
    assert "- check (the claims) first (" + ids[2] + ")" in body
    assert anti["confidence"] == pytest.approx(0.65)  # .6 for a repeat, +.05 for the third
    # Nothing is written before a person accepts it, and "Apply all safe" never takes it.
    assert (
        dispatch(store, "organize_apply", {"run_id": run["run_id"], "all_safe": True})["applied"]
        == []
    )
    assert memory_files(store.root) == before
    assert dispatch(store, "memory_list", {"include_all_projects": True})["entries"] == []


def test_chinese_episodes_give_a_chinese_proposal(store: MemoryStore, clock: FakeClock) -> None:
    ids = [
        record(
            store,
            clock,
            f"修复支付回调 {n}",
            outcome="failure",
            errors=[
                ("TimeoutError", f"连接支付沙箱超时 {n * 7} 秒 /var/run/pay{n}.sock", "先连 VPN")
            ],
        )
        for n in range(1, 3)
    ]

    _run, (anti,) = run_and_list(store)

    assert anti["reasonParams"]["language"] == "zh"
    assert anti["description"].startswith("避免再犯：TimeoutError: 连接支付沙箱超时 7 秒")
    assert anti["description"].endswith("（已出现 2 次）")
    assert "## 经历" in anti["body"] and "## 有效的解决办法" in anti["body"]
    assert f"- {ids[0]}（2026-11-30）：「TimeoutError: 连接支付沙箱超时 7 秒" in anti["body"]
    assert "- 先连 VPN (" + ids[0] + ")" in anti["body"]


def test_a_repeated_successful_action_sequence_gives_a_skill_with_its_steps(
    store: MemoryStore, clock: FakeClock
) -> None:
    ids = [
        record(store, clock, f"release version 1.{n}", summary=f"1.{n} is on PyPI", actions=RELEASE)
        for n in range(2)
    ]
    record(store, clock, "release by hand", outcome="failure", actions=RELEASE)  # not a success

    _run, (skill,) = run_and_list(store)

    assert skill["memoryType"] == "skill" and skill["reasonParams"]["kind"] == "skill"
    assert skill["reasonParams"]["episodes"] == ids
    parsed = parse_skill(skill["body"])
    assert parsed.steps == ["run_test pytest -q", "bump_version pyproject.toml", "git_tag v1"]
    assert parsed.when_to_use == "When the task is like: release version 1.0; release version 1.1"
    assert parsed.exit_criteria == ["1.0 is on PyPI", "1.1 is on PyPI"]
    assert parsed.missing() == []
    assert all(f"- {episode_id} (2026-11-30)" in skill["body"] for episode_id in ids)


def test_an_existing_anti_pattern_is_updated_not_duplicated(
    store: MemoryStore, clock: FakeClock
) -> None:
    first_ids = login_failures(store, clock)
    run, (first,) = run_and_list(store)
    assert apply(store, run["run_id"])["applied"]
    applied = dispatch(store, "memory_read", {"slug": first["slug"]})["content"]
    later = record(
        store,
        clock,
        "log in after the deploy",
        outcome="failure",
        errors=[("KeyError", "'sub' missing in /opt/svc/login.py:99 (req-77)", "upgrade pyjwt")],
    )

    run, found = run_and_list(store)

    assert [(p["slug"], p["reasonParams"]["update"]) for p in found] == [(first["slug"], True)]
    (update,) = found
    assert update["reasonParams"]["episodes"] == [later]
    assert update["previousBody"] == applied
    assert all(episode_id in update["body"] for episode_id in [*first_ids, later])
    assert "- upgrade pyjwt (" + later + ")" in update["body"]
    assert update["description"].endswith("(met 4 times)")
    assert update["confidence"] == pytest.approx(0.7)
    apply(store, run["run_id"])
    listed = dispatch(store, "memory_list", {"type": "feedback"})["entries"]
    assert [entry["slug"] for entry in listed] == [first["slug"]]  # one memory, not two


def test_an_existing_skill_is_updated_through_the_skill_merge(
    store: MemoryStore, clock: FakeClock
) -> None:
    for n in range(2):
        record(store, clock, f"release version 1.{n}", actions=RELEASE)
    run, (skill,) = run_and_list(store)
    apply(store, run["run_id"])
    later = record(
        store,
        clock,
        "release version 2.0",
        actions=[("run_test", "pytest -q"), ("bump_version", "setup.cfg"), ("git_tag", "v2")],
        errors=[("CalledProcessError", "git tag v2 exited 128", "delete the stale tag")],
    )

    _run, (update,) = run_and_list(store)

    assert (update["slug"], update["reasonParams"]["update"]) == (skill["slug"], True)
    parsed = parse_skill(update["body"])
    assert parsed.steps == ["run_test pytest -q", "bump_version setup.cfg", "git_tag v2"]
    assert [(e.error, e.fix) for e in parsed.common_errors] == [
        ("CalledProcessError: git tag v2 exited 128", "delete the stale tag")
    ]
    assert "release version 2.0" in parsed.when_to_use
    assert update["body"].count("Signature: `") == 1
    assert later in update["body"] and all(
        e in update["body"] for e in skill["reasonParams"]["episodes"]
    )


def test_an_applied_proposal_is_restorable_like_any_organizer_decision(
    store: MemoryStore, clock: FakeClock
) -> None:
    ids = login_failures(store, clock)
    run, (anti,) = run_and_list(store)
    apply(store, run["run_id"])
    read = dispatch(store, "memory_read", {"slug": anti["slug"]})
    assert read["entry"]["unreviewed"] is False  # a person accepted it
    assert read["evidence"]["reasoning"] == f"consolidation: anti-pattern from {', '.join(ids)}"
    assert read["evidence"]["source_quote"].startswith("KeyError: 'exp' missing")
    record(
        store,
        clock,
        "again",
        outcome="failure",
        errors=[("KeyError", "'aud' missing in /a/b.py:1 (req-1)", "")],
    )
    run, _found = run_and_list(store)
    apply(store, run["run_id"])

    entries = dispatch(store, "memory_history", {"slug": anti["slug"]})["entries"]
    audits = [e for e in entries if e["source"] == "audit"]
    assert [(e["op"], e["trigger"], e["conversation_id"]) for e in audits][0] == (
        "update",
        "memory-organize",
        run["run_id"],
    )
    assert audits[0]["reason"].startswith("consolidation: anti-pattern from ep-")
    snapshot = next(e for e in entries if e["source"] == "snapshot" and e["restorable"])
    dispatch(store, "memory_restore", {"slug": anti["slug"], "version": snapshot["version"]})
    assert dispatch(store, "memory_read", {"slug": anti["slug"]})["content"] == read["content"]


def test_a_second_run_sees_only_the_episodes_after_the_first(
    store: MemoryStore, clock: FakeClock
) -> None:
    login_failures(store, clock)
    first, _found = run_and_list(store)
    clock.advance(seconds=60)
    later = [
        record(
            store,
            clock,
            f"pay {n}",
            outcome="failure",
            errors=[("HTTPError", f"502 at /pay/{n}", "")],
        )
        for n in range(2)
    ]

    second, found = run_and_list(store)

    report = second["report"]["report"]
    assert report["consolidation"]["episodes"] == list(reversed(later))  # newest first
    assert report["consolidation"]["since"] == first["report"]["report"]["consolidation"]["until"]
    assert [p["reasonParams"]["episodes"] for p in found] == [later]
    third = consolidate(store)
    assert (third["status"], third["final_summary"]) == (
        "skipped",
        "no new episodes since the last consolidation",
    )


def test_an_error_met_once_before_the_window_and_once_inside_it_is_a_repeat(
    store: MemoryStore, clock: FakeClock
) -> None:
    (first_login,) = [
        record(store, clock, "fix the login token", outcome="failure", errors=[LOGIN_ERRORS[0]])
    ]
    first, found = run_and_list(store)
    assert found == []  # met once: nothing to learn yet
    clock.advance(seconds=60)
    again = record(store, clock, "fix the login again", outcome="failure", errors=[LOGIN_ERRORS[1]])

    second, (anti,) = run_and_list(store)

    assert second["report"]["report"]["consolidation"]["episodes"] == [again]  # the window
    assert anti["reasonParams"]["episodes"] == [first_login, again]  # the repeat reaches back
    assert f"- {first_login} (" in anti["body"] and f"- {again} (" in anti["body"]


def test_older_episodes_alone_are_not_proposed_again_by_a_later_run(
    store: MemoryStore, clock: FakeClock
) -> None:
    login_failures(store, clock)
    first = consolidate(store)
    closed = dispatch(store, "organize_apply", {"run_id": first["run_id"], "reject": True})
    assert closed["status"] == "rejected"
    clock.advance(seconds=60)
    unrelated = record(store, clock, "write the docs")  # new, but no lesson in it

    second, found = run_and_list(store)

    assert second["report"]["report"]["consolidation"]["episodes"] == [unrelated]
    assert found == []


def test_a_run_over_every_project_does_not_propose_again_what_waits_in_a_project_run(
    store: MemoryStore, clock: FakeClock, workdir: str
) -> None:
    ids = login_failures(store, clock, workdir=workdir)
    project_run, (waiting,) = run_and_list(store, workdir=workdir)
    assert waiting["reasonParams"]["episodes"] == ids and waiting["scope"] == "project"

    everywhere, found = run_and_list(store)  # its own window: every episode is new to it

    assert everywhere["report"]["report"]["consolidation"]["episodes"] == list(reversed(ids))
    assert found == []  # the lesson waits in the project run's queue already
    # Once a person rejects it there, it stays withheld; a new repeat is proposed alone.
    rejected = dispatch(store, "organize_apply", {"run_id": project_run["run_id"], "reject": True})
    assert rejected["status"] == "rejected"
    clock.advance(seconds=60)
    more = [
        record(
            store, clock, f"fix the login {n}", outcome="failure", errors=[error], workdir=workdir
        )
        for n, error in enumerate(LOGIN_ERRORS[:2])
    ]
    _later, (anti,) = run_and_list(store)
    assert anti["slug"] == waiting["slug"] and anti["reasonParams"]["episodes"] == more


def test_a_rejected_proposal_is_not_proposed_again_for_its_memory(
    store: MemoryStore, clock: FakeClock, workdir: str
) -> None:
    login_failures(store, clock)  # unscoped: every run for a project reads them too
    run, (anti,) = run_and_list(store, workdir=workdir)
    rejected = dispatch(store, "organize_apply", {"run_id": run["run_id"], "reject": True})
    assert rejected["status"] == "rejected"

    other = str(store.root.parent / "other-project")
    (store.root.parent / "other-project").mkdir()
    again, found = run_and_list(store, workdir=other)  # a window of its own: reads them again

    assert len(again["report"]["report"]["consolidation"]["episodes"]) == 3
    assert found == []
    assert anti["slug"] not in str(again["report"])


def test_an_unreadable_episode_file_is_skipped_and_reported(
    store: MemoryStore, clock: FakeClock
) -> None:
    ids = login_failures(store, clock)
    episode_file(store, ids[1]).write_text("{ not json", "utf-8")

    run, (anti,) = run_and_list(store)

    assert run["status"] == "succeeded"
    assert anti["reasonParams"]["episodes"] == [ids[0], ids[2]]
    (item,) = run["report"]["report"]["reviewItems"]
    assert (item["code"], item["severity"], item["params"]["episode"]) == (
        "episode_skipped",
        "warning",
        ids[1],
    )
    assert run["report"]["report"]["consolidation"]["skipped"] == [ids[1]]
    later = record(store, clock, "later", outcome="failure", errors=[LOGIN_ERRORS[0]])
    again = consolidate(store)  # the bad file is not reported twice
    assert again["report"]["report"]["reviewItems"] == []
    assert again["report"]["report"]["consolidation"]["episodes"] == [later]


def test_with_a_model_a_cluster_of_alike_successes_gives_a_pattern_in_its_words(
    store: MemoryStore, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    ids = [
        record(
            store,
            clock,
            f"数据库迁移 {n}",
            summary="先跑迁移再灌种子数据",
            actions=[(tool, "x") for tool in tools],
        )
        for n, tools in enumerate([("migrate", "seed", "test"), ("migrate", "seed", "check")])
    ]
    llm_server.reply_tool(
        PATTERN_TOOL,
        {
            "description": "迁移必须先于种子数据",
            "pattern": "在这个项目里，先跑迁移再灌种子数据。",
            "conditions": "部署数据库时",
        },
    )
    run = new_run(store)

    final = asyncio.run(Consolidation(store, llm_client(llm_server)).run(run))

    report = final["report"]["report"]
    (pattern,) = [d for d in report["safeDecisions"] if d["reasonParams"]["kind"] == "pattern"]
    assert (pattern["memoryType"], pattern["description"]) == ("project", "迁移必须先于种子数据")
    assert pattern["body"].startswith(
        "在这个项目里，先跑迁移再灌种子数据。\n\n## 适用情况\n\n部署数据库时"
    )
    assert all(f"- {e}（2026-11-30）" in pattern["body"] for e in ids)
    (request,) = llm_server.requests
    assert "用中文写" in request["messages"][0]["content"]
    assert all(e in request["messages"][1]["content"] for e in ids)
    assert final["token_usage_total"] > 0


def test_a_failed_pattern_call_is_reported_and_the_rest_is_still_proposed(
    store: MemoryStore, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    login_failures(store, clock)
    for n in range(2):
        record(store, clock, f"release version 1.{n}", actions=RELEASE)
    llm_server.reply_error(500, "the model is down")

    final = asyncio.run(Consolidation(store, llm_client(llm_server)).run(new_run(store)))

    report = final["report"]["report"]
    assert final["status"] == "succeeded"
    kinds = sorted(d["reasonParams"]["kind"] for d in report["safeDecisions"])
    assert kinds == ["antiPattern", "skill"]
    (item,) = report["reviewItems"]
    assert item["message"].startswith("pattern from ") and item["code"] != "internal_error"


def test_offline_proposes_no_pattern_and_calls_no_model(
    store: MemoryStore, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    for n in range(2):
        record(store, clock, f"release version 1.{n}", actions=RELEASE)

    final = asyncio.run(
        Consolidation(store, llm_client(llm_server)).run(new_run(store), offline=True)
    )

    kinds = [d["reasonParams"]["kind"] for d in final["report"]["report"]["safeDecisions"]]
    assert kinds == ["skill"] and llm_server.requests == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"offline": "sometimes"}, "offline"),
        ({"workdir": 7}, "workdir"),
        ({"ofline": True}, "ofline"),
    ],
)
def test_bad_requests_are_typed_errors_and_start_no_run(
    store: MemoryStore, clock: FakeClock, payload: dict[str, Any], field: str
) -> None:
    login_failures(store, clock)
    with pytest.raises(MemoryDomainError) as caught:
        dispatch(store, "organize_consolidate", payload)
    assert caught.value.code == "invalid_argument"
    assert field in caught.value.message
    assert dispatch(store, "organize_run_list", {})["runs"] == []


def test_a_one_shot_process_may_not_run_a_consolidation(home: Any, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock, executes_runs=False) as one_shot:
        with pytest.raises(MemoryDomainError) as caught:
            dispatch(one_shot, "organize_consolidate", {"offline": True})
        assert caught.value.code == "action_not_allowed"
        assert dispatch(one_shot, "organize_run_list", {})["runs"] == []


def test_a_learned_update_of_a_memory_edited_since_the_run_is_refused(
    store: MemoryStore, clock: FakeClock
) -> None:
    login_failures(store, clock)
    run, (anti,) = run_and_list(store)
    apply(store, run["run_id"])
    record(
        store,
        clock,
        "again",
        outcome="failure",
        errors=[("KeyError", "'x' missing in /q.py:3", "")],
    )
    run, _found = run_and_list(store)
    edited = "My own words about this KeyError."
    dispatch(store, "memory_update", {"slug": anti["slug"], "body": edited, "actor": "user"})

    result = apply(store, run["run_id"])

    assert (result["applied"], result["failed"]) == ([], [f"0:upsert:global::{anti['slug']}"])
    assert dispatch(store, "memory_read", {"slug": anti["slug"]})["content"] == edited
    (item,) = dispatch(store, "organize_run_read", {"run_id": run["run_id"]})["run"]["report"][
        "report"
    ]["reviewItems"]
    assert (item["code"], item["slug"]) == ("memory_changed", anti["slug"])


def test_a_hand_written_anti_pattern_alike_in_words_is_updated(
    store: MemoryStore, clock: FakeClock
) -> None:
    # REFERENCE B9: an anti-pattern this alike (.6) to a feedback memory updates it.
    dispatch(
        store,
        "memory_write",
        {
            "slug": "login-keyerror",
            "scope": "global",
            "type": "feedback",
            "description": "Avoid: KeyError: 'exp' missing in the login token",
            "body": "The login token may lack claims; check them before reading.",
            "confidence": "high",
            "source_quote": "tokens from the old IdP lack exp",
        },
    )
    evidence = dispatch(store, "memory_read", {"slug": "login-keyerror"})["evidence"]
    ids = login_failures(store, clock)

    run, (update,) = run_and_list(store)

    assert (update["slug"], update["reasonParams"]["update"]) == ("login-keyerror", True)
    assert update["body"].startswith("The login token may lack claims; check them before reading.")
    assert all(f"- {episode_id} (2026-11-30)" in update["body"] for episode_id in ids)
    assert "## Fixes that worked\n\n- decode with leeway" in update["body"]
    apply(store, run["run_id"])
    after = dispatch(store, "memory_read", {"slug": "login-keyerror"})
    assert after["evidence"] == evidence  # its own evidence stays
    assert after["content"] == update["body"]


def test_a_pattern_alike_to_a_project_memory_updates_it(
    store: MemoryStore, clock: FakeClock, llm_server: FakeLLMServer
) -> None:
    # REFERENCE B9: a pattern this alike (.8) to a project memory updates it.
    dispatch(
        store,
        "memory_write",
        {
            "slug": "migrations-first",
            "scope": "global",
            "type": "project",
            "description": "Run the migrations before the seed step",
            "body": "In shop-api, migrations run before the seed step.",
        },
    )
    ids = [
        record(
            store,
            clock,
            f"set up the database {n}",
            summary="migrated, then seeded",
            actions=RELEASE,
        )
        for n in range(2)
    ]
    llm_server.reply_tool(
        PATTERN_TOOL,
        {
            "description": "Run migrations before the seed step",
            "pattern": "Seed only after migrating.",
        },
    )

    final = asyncio.run(Consolidation(store, llm_client(llm_server)).run(new_run(store)))

    decisions = final["report"]["report"]["safeDecisions"]
    (pattern,) = [d for d in decisions if d["reasonParams"]["kind"] == "pattern"]
    assert (pattern["slug"], pattern["reasonParams"]["update"]) == ("migrations-first", True)
    assert pattern["description"] == "Run the migrations before the seed step"  # kept
    assert pattern["body"].startswith(
        "In shop-api, migrations run before the seed step.\n\nSeed only after migrating."
    )
    assert all(f"- {episode_id} (2026-11-30)" in pattern["body"] for episode_id in ids)


def test_a_lesson_that_would_pass_the_size_limit_is_reported_not_proposed(
    store: MemoryStore, clock: FakeClock
) -> None:
    signature = "keyerror: <q> missing in <path>:<n> (<id>)"
    long_body = "Signature: `" + signature + "`\n\n" + "Many notes. " * 659 + "End."  # ~7.9 KiB
    dispatch(
        store,
        "memory_write",
        {"slug": "login-notes", "scope": "global", "type": "feedback"}
        | {"description": "Login notes", "body": long_body},
    )
    login_failures(store, clock)

    run, found = run_and_list(store)

    assert found == []
    (item,) = run["report"]["report"]["reviewItems"]
    assert (item["code"], item["params"]["slug"], item["params"]["limit"]) == (
        "learned_too_long",
        "login-notes",
        8192,
    )
    assert item["params"]["bytes"] > 8192
    assert dispatch(store, "memory_read", {"slug": "login-notes"})["content"] == long_body


def test_consolidation_decays_importance_and_its_own_reads_are_not_uses(
    store: MemoryStore, clock: FakeClock
) -> None:
    """Issue 18: decay is applied on consolidation (REFERENCE B4), and learning reading every
    episode is not an agent using them (their access_count stays)."""
    ids = login_failures(store, clock)
    listed = dispatch(store, "episode_list", {})["episodes"]
    paths = {row["id"]: store.root / row["path"] for row in listed}
    before = {i: json.loads(paths[i].read_text(encoding="utf-8")) for i in ids}
    clock.advance(days=30)

    run = consolidate(store)
    store.flush_episode_reads()

    assert run["report"]["report"]["outcome"]["decayed"] == 3
    for episode_id in ids:
        after = json.loads(paths[episode_id].read_text(encoding="utf-8"))
        assert after.get("access_count", 0) == before[episode_id].get("access_count", 0) == 0
        expected = before[episode_id]["importance"] * math.exp(-0.1)  # 30 days: exp(-0.1)
        assert after["importance"] == pytest.approx(expected, abs=1e-3)
    again = consolidate(store)  # the same day: no second decay
    assert again["report"]["report"]["outcome"]["decayed"] == 0


def test_what_consolidation_proposed_is_listed_with_its_state_and_episodes(
    store: MemoryStore, clock: FakeClock
) -> None:
    ids = login_failures(store, clock)
    run, (anti,) = run_and_list(store)

    (listed,) = dispatch(store, "organize_learned", {})["proposals"]
    assert (listed["run_id"], listed["state"], listed["slug"]) == (
        run["run_id"],
        "pending",
        anti["slug"],
    )
    assert listed["params"]["episodes"] == ids and listed["params"]["kind"] == "antiPattern"
    apply(store, run["run_id"])
    assert dispatch(store, "organize_learned", {"runs": 1})["proposals"][0]["state"] == "applied"
    with pytest.raises(MemoryDomainError) as refused:
        dispatch(store, "organize_learned", {"runs": 0})
    assert refused.value.code == "invalid_argument"
