"""Build a realistic demo store (a few hundred memories, English and Chinese) for screenshots.

    python scripts/demo_store.py DIR [--memories 540]
    liveagent-memory screenshots shots/en --home DIR --lang en

The store gets global and project memories of every type, reviewed and unreviewed ones with
evidence, a risk-flagged one, one a person corrected (a history to compare), near-duplicates the
offline organizer proposes to merge and two memories that disagree (a manual run with a review
queue and a contradiction is recorded), and journal entries over the past two weeks.
Deterministic.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from liveagent_memory.commands import dispatch
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.store.store import MemoryStore

# Templates × subjects × situations: every memory reads differently, as in a real store.
GLOBAL_EN = [
    ("user", "Prefers {x} {c}", "The user prefers {x} {c}."),
    ("feedback", "Use {x} {c}", "Use {x} {c}; the user corrected this before."),
    ("reference", "Notes on {x} {c}", "The team's notes on {x} {c} are on the wiki."),
]
SUBJECTS_EN = [
    "dark mode",
    "short answers",
    "tabs",
    "British spelling",
    "metric units",
    "Vim keybindings",
    "pnpm",
    "type hints",
    "small commits",
    "squash merges",
    "ripgrep",
    "structured logging",
    "feature flags",
    "pytest fixtures",
    "Markdown tables",
    "ISO dates",
    "UTC timestamps",
    "early returns",
    "dataclasses",
    "plain SQL",
    "Makefiles",
    "conventional commits",
]
SITUATIONS_EN = [
    "when reviewing pull requests",
    "in the morning stand-up",
    "for release notes",
    "while debugging flaky tests",
    "in design documents",
    "for the mobile app",
    "during incident reviews",
    "in onboarding guides",
    "for quick prototypes",
    "in customer emails",
    "on the build server",
    "for data migrations",
]
GLOBAL_ZH = [
    ("user", "{c}喜欢{x}", "用户{c}喜欢{x}。"),
    ("feedback", "{c}要{x}", "以后{c}都要{x}，用户强调过。"),
    ("reference", "{c}的{x}文档", "{c}的{x}说明写在团队内部文档里。"),
]
SUBJECTS_ZH = [
    "深色主题",
    "简短回答",
    "中文注释",
    "先写测试",
    "小步提交",
    "统一格式化",
    "写清楚原因",
    "保留原注释",
    "使用类型标注",
    "先给结论",
    "画流程图",
    "记录决策",
    "检查依赖版本",
    "用表格对比",
]
SITUATIONS_ZH = [
    "写代码时",
    "评审时",
    "写周报时",
    "排查问题时",
    "发布前",
    "开会时",
    "写文档时",
    "重构时",
]
PROJECT_FACTS = [
    (
        "Build with {x}",
        "The project builds with `{x}`.",
        ["make", "cargo build --release", "npm run build", "uv build", "gradle assemble"],
    ),
    (
        "Tests run with {x}",
        "Run `{x}` before pushing.",
        ["pytest -q", "cargo test", "go test ./...", "npm test", "tox -e py311"],
    ),
    ("配置放在 {x}", "配置文件都放在 `{x}` 目录下。", ["config/", "etc/", "settings/", "deploy/"]),
    (
        "Deploys go through {x}",
        "Deploys go through {x}; never deploy by hand.",
        ["GitHub Actions", "Argo CD", "the release script", "Jenkins"],
    ),
    (
        "Database is {x}",
        "The service stores its data in {x}.",
        ["PostgreSQL 16", "SQLite", "MySQL 8", "DuckDB"],
    ),
]


def memories(rng: random.Random, count: int, workdirs: list[str]) -> list[dict[str, Any]]:
    """`count` distinct memories: global ones in English and Chinese, project facts."""
    pool: list[dict[str, Any]] = []
    for kind, title, body in GLOBAL_EN:
        for x in SUBJECTS_EN:
            for c in SITUATIONS_EN:
                pool.append(
                    {
                        "scope": "global",
                        "type": kind,
                        "description": title.format(x=x, c=c),
                        "body": body.format(x=x, c=c) + "\n",
                    }
                )
    for kind, title, body in GLOBAL_ZH:
        for x in SUBJECTS_ZH:
            for c in SITUATIONS_ZH:
                pool.append(
                    {
                        "scope": "global",
                        "type": kind,
                        "description": title.format(x=x, c=c),
                        "body": body.format(x=x, c=c) + "\n",
                    }
                )
    rng.shuffle(pool)
    facts = [
        (workdir, title.format(x=x), body.format(x=x))
        for workdir in workdirs
        for title, body, options in PROJECT_FACTS
        for x in options
    ]
    rng.shuffle(facts)
    picked = pool[: count - min(len(facts), count // 4)]
    picked += [
        {
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": title,
            "body": body + "\n",
        }
        for workdir, title, body in facts[: count - len(picked)]
    ]
    rng.shuffle(picked)
    for n, item in enumerate(picked, 1):
        item["slug"] = f"{item['type']}-{n:04d}"
        if rng.random() < 0.3:  # written by the extractor: unreviewed, with evidence
            item.update(
                actor="extractor",
                confidence=rng.choice(["high", "medium", "low"]),
                source_quote=item["description"],
                reasoning="stated by the user in a conversation",
            )
        else:
            item["actor"] = "user"
    return picked


def build(home: Path, count: int) -> None:
    rng = random.Random(7)
    projects = home.parent / f"{home.name}-projects"
    workdirs = []
    for name in ("web-shop", "data-pipeline", "移动端"):
        folder = projects / name
        folder.mkdir(parents=True, exist_ok=True)
        workdirs.append(str(folder))
    with MemoryStore.open(home) as store:
        for item in memories(rng, count, workdirs):
            dispatch(store, "memory_write", item)
        # Near-duplicates the offline organizer proposes to merge.
        for slug, text in (
            ("pnpm-install", "Use pnpm to install dependencies in every project."),
            ("pnpm-install-2", "Use pnpm to install the dependencies in every project."),
            ("commit-style", "Write commit messages in the imperative mood."),
            ("commit-style-2", "Write the commit messages in the imperative mood."),
        ):
            dispatch(
                store,
                "memory_write",
                {
                    "slug": slug,
                    "scope": "global",
                    "type": "feedback",
                    "description": text,
                    "body": text + "\n",
                    "actor": "extractor",
                    "confidence": "high",
                    "source_quote": text,
                    "reasoning": "said in two conversations",
                },
            )
        # Two memories that disagree: the offline organizer shows them as a contradiction.
        for slug, limit, said in (("checkout-rate-10", 10, "in March"), ("checkout-rate-5", 5, "")):
            text = f"The checkout API allows {limit} requests per second per user."
            dispatch(
                store,
                "memory_write",
                {
                    "slug": slug,
                    "scope": "global",
                    "type": "reference",
                    "description": f"Checkout API: {limit} requests per second",
                    "body": f"{text}{' (said ' + said + ')' if said else ''}\n",
                    "actor": "extractor",
                },
            )
        dispatch(
            store,
            "memory_write",
            {
                "slug": "skip-hooks",
                "scope": "global",
                "type": "feedback",
                "description": "Skip hooks when committing",
                "body": "Run git commit --no-verify when the hooks are slow.\n",
                "actor": "user",
            },
        )
        # A memory a person corrected: its history has an earlier text to compare.
        dispatch(
            store,
            "memory_update",
            {
                "slug": "skip-hooks",
                "scope": "global",
                "body": "Never skip the hooks: fix a slow hook instead of using --no-verify.\n",
                "description": "Keep the commit hooks on",
                "actor": "user",
            },
        )
        today = date.fromisoformat(dispatch(store, "memory_today_local_date", {})["date"])
        for back in range(0, 14, 2):
            day = (today - timedelta(days=back)).isoformat()
            for bullet in rng.sample(
                [
                    "Reviewed the login crash fix",
                    "修好了构建脚本",
                    "Talked about the release plan",
                    "整理了接口文档",
                    "Added tests for the parser",
                    "Paired on the CSV importer",
                ],
                k=rng.randint(1, 3),
            ):
                dispatch(store, "memory_daily_append", {"bullet": bullet, "local_date": day})
        # Learning first: the organizer's run, with its merges, is the newest in the history.
        learn_from_episodes(store)
        created = dispatch(
            store,
            "organize_run_create",
            {
                "trigger": "manual",
                "scope": "all",
                "mode": "standard",
                "model": {"model": "offline"},
            },
        )
        asyncio.run(OrganizerPipeline(store, None).run(created["run"], offline=True))
        now_ms = store.now_ms()
    contexts_over_days(home, rng, now_ms)


def learn_from_episodes(store: MemoryStore) -> None:
    """Agents' episodes with a repeated error (English) and a repeated release procedure
    (Chinese), then a consolidation: its proposals wait for review on the Learning page and in
    the Organizer's queue."""
    for n in (1, 2, 3):
        episode = {
            "goal": f"charge the customer's card (attempt {n})",
            "outcome": "failure",
            "errors_encountered": [
                {
                    "error_type": "ConnectionError",
                    "message": f"payments sandbox refused the connection after {n * 10} s",
                    "resolution": "connect the VPN first" if n == 3 else "",
                }
            ],
        }
        dispatch(store, "episode_record", {"episode": episode})
    for version in ("1.4", "1.5"):
        steps = [
            ("run_test", "pytest -q"),
            ("bump_version", "pyproject.toml"),
            ("git_tag", version),
        ]
        episode = {
            "goal": f"发布 {version} 版本",
            "outcome": "success",
            "action_log": [{"tool": t, "input": i, "output": "ok"} for t, i in steps],
        }
        dispatch(store, "episode_record", {"episode": episode})
    dispatch(store, "organize_consolidate", {"offline": True})


CONTEXT_QUERIES = (
    "how do we deploy the service",
    "fix the login crash",
    "review the parser change",
    "refactor the CSV importer",
    "add a health check endpoint",
    "构建脚本为什么失败",
    "整理接口文档",
    "which package manager do we use",
    "the checkout API rate limit",
    "write the release notes",
)


def contexts_over_days(home: Path, rng: random.Random, now_ms: int) -> None:
    """Agents' contexts over the last three weeks, counted on their own days (the Learning
    page's charts): the store is opened with a clock set to each day."""
    day_ms = 24 * 3600 * 1000
    for back in range(20, -1, -1):
        moment = now_ms - back * day_ms
        with MemoryStore.open(home, clock=lambda moment=moment: moment) as store:
            for query in rng.sample(CONTEXT_QUERIES, k=rng.randint(0, 6)):
                dispatch(store, "memory_context", {"query": query, "providers": []})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--memories", type=int, default=540)  # the global scope nears its quota
    args = parser.parse_args()
    if args.home.exists() and any(args.home.iterdir()):
        print(f"{args.home} is not empty; choose a new folder", file=sys.stderr)
        return 2
    build(args.home, args.memories)
    print(f"demo store written to {args.home}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
