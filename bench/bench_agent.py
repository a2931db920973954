"""Agent-integration benchmark: Memory Index rendering and extraction planning at 1k / 10k.

For each size N the store holds N memories, half global and half in one project (the corpus of
bench_store.py: a third Chinese, a third English, a third mixed; types mixed as in real use),
plus 200 unreviewed memories written by the extractor. It measures, per call:

- `overview`: `MemoryStore.overview(workdir)` — the bucket queries;
- `render`: `render_overview(buckets)` — the text block alone;
- `system_prompt_block`: both, as a chat host calls it each turn;
- `build_context`: the extraction context (candidates, recent rejections, window of a 12-turn
  conversation with tool calls, mutation digest) — everything before the model call;
- `validate_plan`: validating an 8-item SubmitMemoryPlan (writes, updates, accept, delete,
  daily) against the written and rejected slugs;
- `apply_plan`: `memory_apply_batch` of that plan, each file fsynced.

No model is called: these are the parts of a turn that run on the user's machine.

    .venv/bin/python bench/bench_agent.py --sizes 1000 10000 --out bench/out/agent.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build_vocabulary, generate, latency_summary, open_store, seed_files
from benchenv import machine_info, package_state

from liveagent_memory.agent.extraction.engine import ExtractionEngine
from liveagent_memory.agent.extraction.plan import batch_payload, validate_plan
from liveagent_memory.agent.extraction.types import ConversationState, TurnInput
from liveagent_memory.agent.host import MemoryAgent
from liveagent_memory.agent.overview import render_overview
from liveagent_memory.commands import dispatch
from liveagent_memory.llm.client import LLMClient, ModelConfig
from liveagent_memory.store.store import MemoryStore

SEED = 20261130


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def timings(fn: Callable[[], Any], repeats: int) -> tuple[dict[str, float], Any]:
    out: list[float] = []
    value = None
    for _ in range(repeats):
        started = time.perf_counter()
        value = fn()
        out.append((time.perf_counter() - started) * 1000)
    return latency_summary(out), value


def conversation(workdir: str) -> list[dict[str, Any]]:
    """A 12-turn coding conversation with tool calls in its last turn."""
    messages: list[dict[str, Any]] = []
    for turn in range(12):
        messages.append(
            {
                "role": "user",
                "content": f"第{turn}轮: please refactor the login module, step {turn}. "
                "以后默认用 pnpm 安装依赖, and always run the tests before committing. " * 3,
            }
        )
        messages.append({"role": "assistant", "content": f"Done with step {turn}. " * 20})
    calls = [
        ("Edit", {"file_path": f"{workdir}/src/login.py", "old": "a", "new": "b"}),
        ("Bash", {"command": "pnpm add zod && git commit -am 'login: validate input'"}),
        ("Read", {"file_path": f"{workdir}/README.md"}),
    ]
    messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(calls)
            ],
        }
    )
    for i, _ in enumerate(calls):
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": '{"ok": true}'})
    messages.append({"role": "assistant", "content": "Refactor finished; tests pass."})
    return messages


def plan(round_no: int) -> dict[str, Any]:
    items: list[dict[str, Any]] = [
        {
            "action": "write",
            "slug": f"bench-pref-{round_no}-{i}",
            "scope": "project" if i % 2 else "global",
            "type": "project" if i % 2 else "feedback",
            "description": f"Benchmark preference {i}",
            "body": "Always run the tests before committing. 以后默认用 pnpm 安装依赖。" * 4,
            "confidence": "high",
            "source_quote": "always run the tests before committing",
        }
        for i in range(5)
    ]
    items.append(
        {"action": "update", "slug": f"bench-pref-{round_no}-0", "body": "more"}
    )  # rejected: duplicate slug in plan
    items.append({"action": "accept", "slug": f"bench-pref-{round_no}-1", "scope": "project"})
    items.append({"action": "append_daily", "body": f"Benchmark round {round_no}"})
    return {"status": "updated", "items": items}


def run_size(n: int, base: Path, repeats: int) -> dict[str, Any]:
    vocab = build_vocabulary(SEED, 40_000, 12_000)
    memories, _ = generate(vocab, n, SEED)
    root = base / f"agent-{n}"
    workdir = str(base / f"project-{n}")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    half = n // 2
    log(f"[{n}] seeding {n} memories")
    seed_files(root, memories[:half])
    seed_files(root, memories[half:], workdir=workdir)
    result: dict[str, Any] = {"n": n}
    store = open_store(root)
    try:
        dispatch(
            store,
            "memory_apply_batch",
            {
                "items": [
                    {
                        "op": "upsert",
                        "slug": f"guess-{i}",
                        "scope": "global",
                        "type": ("user", "feedback")[i % 2],
                        "description": f"Unreviewed guess {i}",
                        "body": f"The user may prefer option {i}.",
                        "confidence": "medium",
                        "source_quote": "maybe",
                    }
                    for i in range(200)
                ],
                "actor": "extractor",
            },
        )
        for i in range(5):  # recent rejections shown to the extractor
            dispatch(store, "memory_delete", {"slug": f"guess-{i}", "actor": "user"})
        result.update(measure(store, workdir, repeats))
    finally:
        store.close()
    return result


def measure(store: MemoryStore, workdir: str, repeats: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    agent = MemoryAgent(store, workdir=workdir)
    out["overview"], buckets = timings(lambda: store.overview(workdir), repeats)
    out["render"], block = timings(lambda: render_overview(buckets), repeats)
    out["system_prompt_block"], _ = timings(agent.system_prompt_block, repeats)
    out["block_chars"] = len(block)
    out["block_lines"] = block.count("\n") + 1
    engine = ExtractionEngine(store, LLMClient(ModelConfig("openai/unused")))
    state = ConversationState()
    turn = TurnInput("bench", conversation(workdir), workdir=workdir)
    out["build_context"], context = timings(lambda: engine.build_context(turn, state), repeats)
    out["context_chars"] = len(context.render())
    rejected = context.rejected_slugs
    out["validate_plan"], validated = timings(
        lambda: validate_plan(plan(0), workdir=workdir, written={"x-y-z"}, rejected=rejected),
        repeats * 10,
    )
    out["plan_receipt"] = validated.receipt()
    apply_ms: list[float] = []
    for round_no in range(1, 6):
        checked = validate_plan(plan(round_no), workdir=workdir, rejected=rejected)
        payload = batch_payload(checked, workdir=workdir, conversation_id="bench", model=None)
        started = time.perf_counter()
        dispatch(store, "memory_apply_batch", payload)
        apply_ms.append((time.perf_counter() - started) * 1000)
    out["apply_plan"] = latency_summary(apply_ms)
    return out


def markdown(results: dict[str, Any]) -> str:
    lines = [
        "| memories | step | p50 ms | p95 ms | max ms |",
        "|---:|---|---:|---:|---:|",
    ]
    for size in results["sizes"]:
        for step in (
            "overview",
            "render",
            "system_prompt_block",
            "build_context",
            "validate_plan",
            "apply_plan",
        ):
            s = size[step]
            figures = " | ".join(f"{s[key]:.2f}" for key in ("p50_ms", "p95_ms", "max_ms"))
            lines.append(f"| {size['n']:,} | {step} | {figures} |")
    lines.append("")
    for size in results["sizes"]:
        lines.append(
            f"- {size['n']:,}: block {size['block_chars']:,} chars / {size['block_lines']} lines; "
            f"extraction context {size['context_chars']:,} chars; {size['plan_receipt']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {
        "machine": machine_info(),
        "package": package_state(),
        "sizes": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-agent-") as tmp:
        for n in args.sizes:
            results["sizes"].append(run_size(n, Path(tmp), args.repeats))
    print(markdown(results))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
