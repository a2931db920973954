"""`liveagent-memory organize …`: run the organizer, list runs, show one, apply its queue,
list its contradictions and answer one; `organize --consolidate` learns from episodes."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, TextIO

from liveagent_memory.cli.group import AddParser, Group, Streams
from liveagent_memory.cli.output import counted, emit_json, local_time
from liveagent_memory.commands import dispatch
from liveagent_memory.context import AppContext
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.similar import close_matches
from liveagent_memory.organizer.decisions import SafeDecision
from liveagent_memory.organizer.pipeline import OrganizerPipeline
from liveagent_memory.settings import ORGANIZE_MODES, ORGANIZE_SCOPES, Settings

ACTIONS = ("run", "history", "show", "apply", "contradictions", "resolve")
RESOLVE_CHOICES = ("keep-first", "keep-second", "keep-both", "edit")


def add_parsers(add: AddParser) -> None:
    """Register `organize [run|history|show|apply|contradictions|resolve]`."""
    p = add("organize", "tidy memories: run the organizer, list its runs, show or apply one")
    p.add_argument("action", nargs="?", default="run", choices=ACTIONS)
    p.add_argument(
        "target",
        nargs="*",
        metavar="RUN [NUMBER ...]",
        help="show RUN; apply RUN's decisions by the numbers show lists (or their keys); "
        "contradictions RUN; resolve RUN NUMBER keep-first|keep-second|keep-both|edit",
    )
    p.add_argument("--scope", choices=ORGANIZE_SCOPES, help="default: settings")
    p.add_argument("--mode", choices=ORGANIZE_MODES, help="default: settings")
    p.add_argument("--dry-run", action="store_true", help="plan only; store nothing to apply")
    p.add_argument(
        "--offline",
        action="store_true",
        help="no model: only propose duplicate merges (with --consolidate: anti-patterns and "
        "skills, no patterns)",
    )
    p.add_argument(
        "--consolidate",
        action="store_true",
        help="learn from the episodes since the last consolidation: propose anti-patterns, "
        "skills and patterns for review (nothing is applied)",
    )
    p.add_argument("--model", help="litellm model for this run (default: settings)")
    p.add_argument("--api-base", metavar="URL")
    p.add_argument("--all-safe", action="store_true", help="apply: every low-risk decision")
    p.add_argument("--text", help="resolve … edit: the current text, saved as the one that stays")
    p.add_argument(
        "--description", help="resolve … edit: a new description too (the old may be stale)"
    )
    p.add_argument(
        "--keep",
        choices=("first", "second"),
        default="first",
        help="resolve … edit: which memory stays with the text (default: first)",
    )
    p.add_argument(
        "--reject",
        action="store_true",
        help="apply: reject the decisions named (with none named: the whole queue)",
    )


def run(args: argparse.Namespace, context: AppContext, streams: Streams) -> int:
    """Run the organizer, or list, show or apply a run; typed errors propagate."""
    # Read first, as for every organize action: a broken settings file is the first error.
    settings = context.settings.current()
    out = streams.out
    as_json = bool(getattr(args, "json", False))
    if args.consolidate:
        return consolidate(args, context, out)
    if args.action == "history":
        runs = dispatch(context, "organize_run_list", {})["runs"]
        emit_json(runs, out) if as_json else _history(runs, out)
        return 0
    if args.action in ("contradictions", "resolve"):
        return contradiction_commands(args, context, out)
    if args.action in ("show", "apply"):
        if not args.target:
            raise InvalidArgument(f"organize {args.action} needs a RUN id (see organize history)")
        run_id, keys = args.target[0], args.target[1:]
        if args.action == "show":
            shown = dispatch(context, "organize_run_read", {"run_id": run_id})["run"]
            emit_json(shown, out) if as_json else _show(shown, out)
            return 0
        result = dispatch(
            context,
            "organize_apply",
            {
                "run_id": run_id,
                "keys": keys or None,
                "all_safe": args.all_safe,
                "reject": args.reject,
            },
        )
        if as_json:
            emit_json(result, out)
            return 0
        out.write(
            f"{run_id}: {result['status']}; applied {len(result['applied'])}, "
            f"failed {len(result['failed'])}; memories now {result['final_count']}\n"
        )
        for key in result["failed"]:
            out.write(f"  failed: {key}\n")
        return 0
    return _run(args, context, settings, out)


def consolidate(args: argparse.Namespace, context: AppContext, out: TextIO) -> int:
    """`organize --consolidate [--offline] [--model M] [--json]`: one consolidate run, its
    proposals listed with the episodes each came from; nothing applied."""
    if args.action != "run" or args.target:
        raise InvalidArgument(
            f"--consolidate starts a consolidation; it does not go with `organize {args.action}`",
            field="consolidate",
        )
    if args.api_base or args.dry_run or args.scope or args.mode:
        raise InvalidArgument(
            "--consolidate takes only --offline, --model, --workdir and --json",
            field="consolidate",
        )
    payload = {"offline": args.offline, "workdir": getattr(args, "workdir", None)}
    result = dispatch(context, "organize_consolidate", {**payload, "model": args.model})
    if getattr(args, "json", False):
        emit_json(result, out)
    elif not result["claimed"]:
        out.write("Another organizer run is active; this one was recorded as skipped.\n")
    else:
        if not args.offline and (result["run"].get("model") or {}).get("model") == "offline":
            out.write("No model configured: anti-patterns and skills only (patterns need one).\n")
        _consolidation(result["run"], out)
    return 0 if result["run"]["status"] in ("succeeded", "skipped") else 1


def _consolidation(run: dict[str, Any], out: TextIO) -> None:
    report = (run.get("report") or {}).get("report") or {}
    if run["status"] == "skipped":
        out.write(f"Consolidation {run['run_id']}: {run['final_summary']}; nothing to learn.\n")
    else:
        out.write(f"Consolidation {run['run_id']}: {run['status']}\n")
        out.write(f"  {run.get('final_summary') or run.get('error') or ''}\n")
    for index, decision in enumerate(report.get("safeDecisions") or []):
        params = decision.get("reasonParams") or {}
        verb = "update" if params.get("update") else "new"
        kind = {"antiPattern": "anti-pattern"}.get(str(params.get("kind")), params.get("kind"))
        where = "global" if decision["scope"] == "global" else "project"
        episodes = ", ".join(params.get("episodes") or [])
        out.write(f"  {index:>2}  {verb} {kind} {decision['slug']} ({where}) from {episodes}\n")
        out.write(f"        {decision.get('description', '')}\n")
    for item in report.get("reviewItems") or []:
        out.write(f"  [{item['severity']}] {item['message']}\n")
    if report.get("safeDecisions"):
        out.write(
            f"  Nothing was applied. Review with: liveagent-memory organize show {run['run_id']}; "
            f"apply with: liveagent-memory organize apply {run['run_id']} NUMBER … (or --reject)\n"
        )


def contradiction_commands(args: argparse.Namespace, context: AppContext, out: TextIO) -> int:
    """`organize contradictions RUN` lists a run's contradictions; `organize resolve RUN
    NUMBER CHOICE [--text TEXT --description D --keep first|second]` answers one."""
    as_json = bool(getattr(args, "json", False))
    if not args.target:
        raise InvalidArgument(f"organize {args.action} needs a RUN id (see organize history)")
    run_id = args.target[0]
    if args.action == "contradictions":
        listed = dispatch(context, "organize_contradictions", {"run_id": run_id})
        emit_json(listed, out) if as_json else _contradictions(listed["contradictions"], out)
        return 0
    if len(args.target) != 3:
        raise InvalidArgument(
            "organize resolve needs RUN NUMBER CHOICE, the CHOICE one of "
            f"{', '.join(RESOLVE_CHOICES)} (see organize contradictions RUN)",
            field="target",
        )
    choice = args.target[2].strip().lower().replace("_", "-")
    if choice not in RESOLVE_CHOICES:
        near = close_matches(choice, RESOLVE_CHOICES, limit=1)
        raise InvalidArgument(
            f"unknown choice {args.target[2]!r}"
            + (f" (did you mean {near[0]}?)" if near else "")
            + f"; choose one of {', '.join(RESOLVE_CHOICES)}",
            field="resolution",
        )
    payload: dict[str, Any] = {
        "run_id": run_id,
        "key": args.target[1],
        "resolution": choice.replace("-", "_"),
        "keep": args.keep,
    }
    if args.text is not None:
        payload["body"] = args.text
    if args.description is not None:
        payload["description"] = args.description
    result = dispatch(context, "organize_resolve", payload)
    if as_json:
        emit_json(result, out)
        return 0
    out.write(f"{run_id}: {result['key']} resolved ({result['resolution']})\n")
    if result["deleted"]:
        out.write(f"  moved to the trash (restorable): {', '.join(result['deleted'])}\n")
    return 0


def _contradictions(items: list[dict[str, Any]], out: TextIO) -> None:
    if not items:
        out.write("No contradictions in this run.\n")
        return
    for item in items:
        state = item["state"]
        status = state["status"]
        if status == "resolved":
            status = f"resolved: {state.get('resolution')}"
        elif item["stale"]:
            status = "stale: a memory changed or went since the run"
        elif status == "failed":
            status = f"failed: {state.get('error')}"
        out.write(
            f"{item['number']:>2}  {item['first']['slug']} / {item['second']['slug']}  [{status}]\n"
        )
        for difference in item["differences"]:
            first, second = ", ".join(difference["first"]), ", ".join(difference["second"])
            out.write(f"      differs ({difference['kind']}): {first} / {second}\n")
        for side in ("first", "second"):
            memory = item[side]
            text = " ".join(memory["text"].split()) if memory["exists"] else "(gone)"
            out.write(f"      {side}: {memory['slug']}: {text}\n")
    if any(item["open"] for item in items):
        out.write(
            "  These two disagree: which one is current? Answer with: liveagent-memory organize "
            "resolve RUN NUMBER keep-first|keep-second|keep-both|edit "
            "(edit: --text TEXT [--description D])\n"
        )


def _run(args: argparse.Namespace, context: AppContext, settings: Settings, out: TextIO) -> int:
    as_json = bool(getattr(args, "json", False))
    workdir = getattr(args, "workdir", None)
    llm = context.llm("organizer", model=args.model, api_base=args.api_base)
    offline = args.offline or not llm.config.model
    if offline and not args.offline and not as_json:
        out.write("No model configured: running the offline duplicate check instead.\n")
    scope = args.scope or settings.organizer.scope
    if scope == "current-project" and not workdir:
        raise InvalidArgument("--scope current-project needs --workdir", field="workdir")
    # A run another program queued (a web "Run now", `call organize_run_create`) and that is
    # due is the organizer run people asked for: run it here rather than be blocked by it
    # until an app claims it.
    queued = dispatch(context, "organize_due_claim", {})["run"]
    if queued is not None:
        created = {"run": queued, "claimed": True}
        if not as_json:
            out.write(
                f"Running {queued['run_id']}, queued by another program "
                f"(scope {queued['scope']}, mode {queued['mode']}).\n"
            )
    else:
        created = dispatch(
            context,
            "organize_run_create",
            {
                "trigger": "manual",
                "scope": scope,
                "mode": args.mode or settings.organizer.mode,
                "dry_run": args.dry_run,
                "model": {"model": llm.config.model} if not offline else {"model": "offline"},
            },
        )
    if not created["claimed"]:
        out.write("Another organizer run is active; this one was recorded as skipped.\n")
        return 1
    pipeline = OrganizerPipeline(
        context.store, None if offline else llm, meanings=context.meanings()
    )

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
    emit_json(final, out) if as_json else _show(final, out)
    return 0 if final["status"] in ("succeeded", "skipped") else 1


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
            f"{r['run_id']}  {local_time(r['created_at'])}  {r['trigger']:<9} {r['status']:<9} "
            f"{r['phase'] or '-':<7} {r['input_count']}→{r['final_count']} (×{ratio})  "
            f"{counted(r['token_usage_total'], 'token')}  {took}"
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
        out.write(_decision_line(index, d, state, done) + "\n")
    for item in report.get("reviewItems") or []:
        out.write(f"  [{item['severity']}] {item['message']}\n")
    if any(item.get("code") == "contradiction" for item in report.get("reviewItems") or []):
        if state:
            out.write(
                f"  Contradictions: liveagent-memory organize contradictions {run['run_id']}\n"
            )
    if decisions and state.get("status") in ("pending", "partial"):
        out.write(
            f"  Apply with: liveagent-memory organize apply {run['run_id']} NUMBER … "
            "(the numbers above; or --all-safe, or --reject)\n"
        )


def _decision_line(
    index: int, report: dict[str, Any], state: dict[str, Any], done: set[str]
) -> str:
    """`  ✓  0  delete tea-b (global)  risk low, confidence 0.90 — reason`: the number is what
    `organize apply` takes (the full key too)."""
    decision = SafeDecision.from_report(report)
    key = decision.key(index)
    mark = "✓" if key in state.get("appliedDecisionKeys", []) else ("✗" if key in done else " ")
    where = "global" if decision.scope == "global" else f"project {decision.workdir_hash[:8]}"
    number = report.get("confidence")
    conf = f"{number:.2f}" if isinstance(number, int | float) else "-"
    ack = ", needs review" if report.get("requiresUserAck") else ""
    return (
        f"  {mark} {index:>2}  {decision.op} {decision.slug} ({where})  "
        f"risk {report['riskLevel']}, confidence {conf}{ack} — {report['reason']}"
    )


GROUP = Group(commands=("organize",), add_parsers=add_parsers, run=run)
