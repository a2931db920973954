"""`liveagent-memory organize …`: run the organizer, list runs, show one, apply its queue."""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import datetime
from typing import Any, TextIO

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.llm.client import LLMClient
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.settings import SecretStore, Settings, model_config
from liveagent_memory.store.store import MemoryStore


def run(
    args: argparse.Namespace,
    store: MemoryStore,
    settings: Settings,
    secrets: SecretStore,
    workdir: str | None,
    out: TextIO,
) -> int:
    as_json = bool(getattr(args, "json", False))
    if args.action == "history":
        runs = dispatch(store, "organize_run_list", {})["runs"]
        _emit(runs, out) if as_json else _history(runs, out)
        return 0
    if args.action in ("show", "apply"):
        if not args.target:
            raise InvalidArgument(f"organize {args.action} needs a RUN id (see organize history)")
        run_id, keys = args.target[0], args.target[1:]
        if args.action == "show":
            shown = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]
            _emit(shown, out) if as_json else _show(shown, out)
            return 0
        result = dispatch(
            store,
            "organize_apply",
            {
                "run_id": run_id,
                "keys": keys or None,
                "all_safe": args.all_safe,
                "reject": args.reject,
            },
        )
        if as_json:
            _emit(result, out)
            return 0
        out.write(
            f"{run_id}: {result['status']}; applied {len(result['applied'])}, "
            f"failed {len(result['failed'])}; memories now {result['final_count']}\n"
        )
        for key in result["failed"]:
            out.write(f"  failed: {key}\n")
        return 0
    return _run(args, store, settings, secrets, workdir, out)


def _run(
    args: argparse.Namespace,
    store: MemoryStore,
    settings: Settings,
    secrets: SecretStore,
    workdir: str | None,
    out: TextIO,
) -> int:
    as_json = bool(getattr(args, "json", False))
    config = model_config(settings, secrets, "organizer", model=args.model, api_base=args.api_base)
    offline = args.offline or not config.model
    if offline and not args.offline and not as_json:
        out.write("No model configured: running the offline duplicate check instead.\n")
    scope = args.scope or settings.organizer.scope
    if scope == "current-project" and not workdir:
        raise InvalidArgument("--scope current-project needs --workdir", field="workdir")
    # A run another program queued (a web "Run now", `call organize_run_create`) and that is
    # due is the organizer run people asked for: run it here rather than be blocked by it
    # until an app claims it.
    queued = dispatch(store, "organize_due_claim", {})["run"]
    if queued is not None:
        created = {"run": queued, "claimed": True}
        if not as_json:
            out.write(
                f"Running {queued['run_id']}, queued by another program "
                f"(scope {queued['scope']}, mode {queued['mode']}).\n"
            )
    else:
        created = dispatch(
            store,
            "organize_run_create",
            {
                "trigger": "manual",
                "scope": scope,
                "mode": args.mode or settings.organizer.mode,
                "dry_run": args.dry_run,
                "model": {"model": config.model} if not offline else {"model": "offline"},
            },
        )
    if not created["claimed"]:
        out.write("Another organizer run is active; this one was recorded as skipped.\n")
        return 1
    pipeline = OrganizerPipeline(store, None if offline else LLMClient(config))

    def progress(message: str) -> None:
        if not as_json:
            out.write(f"  … {message}\n")
            out.flush()

    final = asyncio.run(
        pipeline.run(
            created["run"],
            workdir=workdir,
            offline=offline,
            progress=progress,
        )
    )
    _emit(final, out) if as_json else _show(final, out)
    return 0 if final["status"] in ("succeeded", "skipped") else 1


def _emit(data: object, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _when(ms: int | None) -> str:
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M") if ms else "-"


def _history(runs: list[dict[str, Any]], out: TextIO) -> None:
    if not runs:
        out.write("No organizer runs yet.\n")
        return
    for r in runs:
        ratio = f"{r['compression_ratio']:.2f}" if r["compression_ratio"] is not None else "-"
        took = (
            f"{(r['finished_at'] - r['started_at']) / 1000:.1f}s"
            if r["finished_at"] and r["started_at"]
            else "-"
        )
        out.write(
            f"{r['run_id']}  {_when(r['created_at'])}  {r['trigger']:<9} {r['status']:<9} "
            f"{r['phase'] or '-':<7} {r['input_count']}→{r['final_count']} (×{ratio})  "
            f"{r['token_usage_total']} tokens  {took}"
            + (f"  [{r['error']}]" if r["error"] else "")
            + "\n"
        )


def _show(run: dict[str, Any], out: TextIO) -> None:
    out.write(
        f"Run {run['run_id']}: {run['status']} ({run['trigger']}, scope {run['scope']}, "
        f"mode {run['mode']}{', dry run' if run['dry_run'] else ''})\n"
    )
    if run.get("final_summary"):
        out.write(f"  {run['final_summary']}\n")
    if run.get("error"):
        out.write(f"  error: {run['error']}\n")
    out.write(
        f"  memories {run['input_count']} → {run['final_count']}; clusters "
        f"{run['cluster_count']}; applied {run['safe_applied']}; held back "
        f"{run['review_skipped']}; tokens {run['token_usage_total']}\n"
    )
    view = run.get("report") or {}
    if view.get("legacy"):
        out.write(f"  (legacy report, read-only) {view.get('summary')}\n")
        return
    report = view.get("report") or {}
    buckets = {k: v for k, v in (report.get("rejectionBuckets") or {}).items() if v}
    if buckets:
        out.write("  not applied: " + ", ".join(f"{k} {v}" for k, v in buckets.items()) + "\n")
    state = report.get("manualApplyState") or {}
    done = set(state.get("appliedDecisionKeys", [])) | set(state.get("failedDecisionKeys", []))
    decisions = report.get("safeDecisions") or []
    if decisions:
        out.write(f"  decisions ({state.get('status', 'not stored for apply')}):\n")
    for index, d in enumerate(decisions):
        key = SafeDecision.from_report(d).key(index)
        mark = "✓" if key in state.get("appliedDecisionKeys", []) else ("✗" if key in done else " ")
        number = d.get("confidence")
        conf = f"{number:.2f}" if isinstance(number, int | float) else "-"
        ack = ", needs review" if d.get("requiresUserAck") else ""
        out.write(
            f"  {mark} {key}  risk {d['riskLevel']}, confidence {conf}{ack} — {d['reason']}\n"
        )
    for item in report.get("reviewItems") or []:
        out.write(f"  [{item['severity']}] {item['message']}\n")
    if decisions and state.get("status") in ("pending", "partial"):
        out.write(
            f"  Apply with: liveagent-memory organize apply {run['run_id']} KEY … "
            "(or --all-safe, or --reject)\n"
        )
