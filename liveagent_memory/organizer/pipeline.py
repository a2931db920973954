"""One organizer run: scan → cluster → plan → gate → apply (REFERENCE A10, SPEC 4).

Each phase is recorded on the run row as it happens. Model calls go through the LLM layer with
the organizer tools; a cluster whose plan fails is reported and skipped while the others go on.
With no model (or `offline=True`) the deterministic offline planner proposes duplicate merges,
which are always stored for review, never applied. A model run runs the same duplicate check
first and hands its findings to the plan calls and the gate (organizer/plan_context.py).
Scheduled runs apply what the gate allows; manual runs store the safe decisions for a person to
apply (`organize_apply`).

Every store access of a run goes through one seam, `store_call`, and the CPU-heavy offline
duplicate finder and gate (it writes each merge's text) through another, `compute` (both
`domain/calls.py` `SyncCall`s): by default the call runs right where the pipeline runs; the
desktop app routes store calls to its store worker and computing to its compute worker, so its
loop never waits on either.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.calls import SyncCall, call_here
from liveagent_memory.domain.errors import LLMError, MemoryDomainError
from liveagent_memory.domain.requests import (
    ListRequest,
    RunUpdateRequest,
    WorkdirRequest,
    parse_request,
)
from liveagent_memory.domain.schema import OrganizeRun, QuotaScope
from liveagent_memory.llm.client import LLMClient
from liveagent_memory.organizer import contradictions, plan_context, protocol
from liveagent_memory.organizer.apply import apply_decisions
from liveagent_memory.organizer.candidates import Meanings
from liveagent_memory.organizer.decisions import (
    Cluster,
    ClusterPlan,
    GateResult,
    OrganizerEntry,
    build_decisions,
    organizer_entries,
)
from liveagent_memory.organizer.offline import Contradiction, OfflineProposals, offline_proposals
from liveagent_memory.organizer.run_record import (
    EVERY_PLAN_FAILED,
    NOTHING_TO_ORGANIZE,
    OutcomeCode,
    run_view,
)
from liveagent_memory.organizer.runs import update_run
from liveagent_memory.prompts import organizer as prompt
from liveagent_memory.store.store import MemoryStore

log = logging.getLogger(__name__)
Progress = Callable[[str], None]


@dataclass
class _Run:
    """Mutable state of one run while it is being made."""

    claimed: dict[str, Any]  # the run as the caller handed it over (trigger, scope, mode, ...)
    latest: OrganizeRun | None = None  # the row as last recorded
    entries: list[OrganizerEntry] = field(default_factory=list)
    clusters: list[Cluster] = field(default_factory=list)
    plans: list[ClusterPlan] = field(default_factory=list)
    review_items: list[dict[str, Any]] = field(default_factory=list)
    raw: list[dict[str, str]] = field(default_factory=list)
    summaries: list[dict[str, Any]] = field(default_factory=list)
    parse_failures: int = 0
    tokens: int = 0
    compression_target: int | None = None
    tightest: QuotaScope | None = None  # the quota scope with the least headroom
    # The offline duplicate check over all the entries: an offline run's plans; a model run's
    # help (organizer/plan_context.py).
    check: OfflineProposals = field(default_factory=lambda: OfflineProposals([], [], []))
    # Its contradictions a person has not settled ("keep both") since: the ones to show.
    open_contradictions: list[Contradiction] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return str(self.claimed["run_id"])

    def problem(self, phase: str, message: str, *, code: str, severity: str = "error") -> None:
        self.review_items.append(
            {
                "phase": phase,
                "kind": "error",
                "severity": severity,
                "message": message,
                "code": code,
            }
        )


def _scope_filter(scope: str, workdir: str | None) -> dict[str, Any]:
    """The ListRequest fields selecting the run's scope (REFERENCE A10 scopeMatchesRun)."""
    if scope == "global":
        return {"scope": "global"}
    if scope == "projects":
        return {"scope": "project", "include_all_projects": True}
    if scope == "current-project":
        return {"scope": "project", "workdir": workdir}
    return {"include_all_projects": True}


def record_update(
    store: MemoryStore, payload: dict[str, Any]
) -> tuple[OrganizeRun, dict[str, Any]]:
    """Record an update of a run's row; the run as recorded, and its report view.

    Error texts and model output reach the row: checked as the update command checks them. The
    check and the view walk the whole report (thousands of decisions in a big run), so they go
    with the write to wherever the store calls run, not onto the pipeline's own loop.
    """
    request = parse_request(RunUpdateRequest, payload, label="organize_run_update")
    recorded = update_run(store, request)
    return recorded, run_view(recorded)


class OrganizerPipeline:
    """Runs organizer runs against one store, with an optional model client."""

    def __init__(
        self,
        store: MemoryStore,
        llm: LLMClient | None,
        *,
        lease_renew_s: float = config.ORGANIZE_LEASE_RENEW_MS / 1000,
        store_call: SyncCall = call_here,
        compute: SyncCall = call_here,
        meanings: Meanings | None = None,
    ) -> None:
        """`store_call` runs every store access, `compute` the offline duplicate finder and
        the gate (and `meanings.prepare`); `meanings` finds pairs by meaning besides words
        (organizer/candidates.py)."""
        self.store = store
        self.llm = llm
        self.meanings = meanings
        self.lease_renew_s = lease_renew_s
        self._store_call = store_call
        self._compute = compute

    # --- entry point ------------------------------------------------------------------------
    async def run(
        self,
        run: dict[str, Any],
        *,
        workdir: str | None = None,
        offline: bool = False,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """Carry a claimed run to its end; returns the final run (with its report view)."""
        state = _Run(claimed=run)
        offline = offline or self.llm is None
        say = progress or (lambda _message: None)
        # A model call can take minutes with no progress to record: the lease is renewed on the
        # side, so a run watched from another machine is not taken for abandoned (issue 12).
        lease = asyncio.get_running_loop().create_task(
            self._keep_lease(state), name=f"organizer-lease-{state.run_id}"
        )
        try:
            if not await self._scan(state, workdir, say):
                return await self._finish(state, "skipped", summary=NOTHING_TO_ORGANIZE)
            await self._phase(state, "cluster", say)
            # Issue 15: the duplicate check runs in a model run too; its findings help the
            # plan calls and the gate.
            meanings = await self._meanings(state, say)
            state.check = await self._compute(offline_proposals, state.entries, meanings)
            # A pair the person kept both of is not asked about again while its texts stay.
            state.open_contradictions = await self._store_call(
                contradictions.still_open, state.check.contradictions, self.store.settled_pairs
            )
            if offline:
                self._offline_plans(state)
            else:
                state.clusters = await self._cluster(state)
            await self._update(state, counts={"cluster_count": len(state.clusters)})
            if not offline:
                await self._phase(state, "plan", say)
                await self._plan(state, say)
                if state.clusters and not state.plans:
                    return await self._finish(
                        state,
                        "failed",
                        error=EVERY_PLAN_FAILED,
                        counts={"parse_failures": state.parse_failures},
                    )
            await self._phase(state, "gate", say)
            trigger = "manual" if offline else str(run["trigger"])
            # On the compute worker: the gate writes every merge's text (organizer/decisions.py
            # merged_text), a second or more for thousands of duplicates.
            gate = await self._compute(
                build_decisions,
                state.plans,
                trigger=trigger,
                mode=str(run["mode"]),
                propose_all=offline,  # SPEC 4: offline merges are always queued for review
                # A model merge of a pair the check kept apart is held back (offline plans
                # merge only what the check judged duplicates).
                kept_apart=None if offline else plan_context.kept_apart(state.check.findings),
            )
            if not offline:  # the contradictions the model's plans left open, for a person
                left = plan_context.unresolved(state.open_contradictions, state.plans, gate)
                state.review_items.extend(contradictions.review_item(c) for c in left)
            await self._phase(state, "apply", say)
            return await self._apply(state, gate, offline=offline)
        except asyncio.CancelledError:
            await self._finish(state, "cancelled", error="cancelled")
            raise
        except MemoryDomainError as exc:  # a model or store error ends the run, never strands it
            return await self._finish(state, "failed", error=f"{exc.code}: {exc.message}")
        except Exception as exc:  # a bug: record it on the run (never leave it running), re-raise
            error = f"internal error: {type(exc).__name__}: {exc}"
            await self._finish(state, "failed", error=error)
            raise
        finally:
            lease.cancel()

    @staticmethod
    def _offline_plans(state: _Run) -> None:
        """An offline run's clusters and plans: the duplicate check's merges."""
        state.plans = state.check.plans
        # Issue 15: two memories that disagree are shown to the person, never merged.
        state.review_items.extend(contradictions.review_item(c) for c in state.open_contradictions)
        state.clusters = [plan.cluster for plan in state.plans]
        state.summaries = [
            {
                "clusterId": plan.cluster.id,
                "size": len(plan.cluster.entries),
                "summary": plan.summary,
                "decisions": len(plan.decisions),
            }
            for plan in state.plans
        ]

    async def _meanings(self, state: _Run, say: Progress) -> Meanings | None:
        """The meanings source, its vectors ready; None (and a note on the run saying why)
        when there are none: duplicates are then looked for by their words alone."""
        if self.meanings is None:
            return None
        memories = [entry for entry in state.entries if entry.type != "daily"]
        problem = await self._compute(self.meanings.prepare, memories, say)
        if problem is None:
            return self.meanings
        state.problem("planning", problem, code="meanings_unavailable", severity="warning")
        return None

    async def _keep_lease(self, state: _Run) -> None:
        """Renew the run's lease every `lease_renew_s` until the run is no longer running."""
        while True:
            await asyncio.sleep(self.lease_renew_s)
            try:
                # An update with only the run id is the heartbeat (store/runs.py update).
                run = await self._store_call(
                    update_run, self.store, RunUpdateRequest(run_id=state.run_id)
                )
            except MemoryDomainError as exc:  # a busy index: the next renewal tries again
                log.warning("organizer run %s: lease not renewed: %s", state.run_id, exc.message)
                continue
            if run.status != "running":
                return

    # --- phases -----------------------------------------------------------------------------
    async def _scan(self, state: _Run, workdir: str | None, say: Progress) -> bool:
        await self._phase(state, "scan", say)
        # The workdir is outside text: checked as the quota command would check it.
        where = parse_request(WorkdirRequest, {"workdir": workdir}, label="memory_quota_summary")
        quota = await self._store_call(self.store.quota_summary, where.workdir)
        headroom = quota.tightest_headroom if quota.scopes else None
        state.compression_target = quota.compression_target  # set when not "normal"
        if quota.scopes:
            state.tightest = min(quota.scopes, key=lambda scope: scope.headroom)
        request = ListRequest(**_scope_filter(str(state.claimed["scope"]), workdir))
        listing = await self._store_call(self.store.entries_with_content, request)
        state.entries = organizer_entries(listing)
        counts: dict[str, int] = {"input_count": len(state.entries)}
        if headroom is not None:
            counts["quota_headroom_at_start"] = max(0, int(headroom))
        if state.compression_target is not None:
            counts["compression_target"] = state.compression_target
        await self._update(state, counts=counts)
        return bool(state.entries)

    async def _cluster(self, state: _Run) -> list[Cluster]:
        if len(state.entries) <= config.ORGANIZE_STRUCTURAL_CLUSTER_SIZE:
            return protocol.structural_clusters(state.entries)
        inventory = plan_context.inventory(state.entries, config.ORGANIZE_INVENTORY_CHARS)
        messages = [
            {"role": "system", "content": prompt.CLUSTER_INSTRUCTIONS},
            {"role": "user", "content": inventory},
        ]
        try:
            args = await self._call_tool(state, messages, protocol.topic_tool_schema())
        except (LLMError, protocol.SecretInArguments) as exc:
            message = exc.message if isinstance(exc, LLMError) else str(exc)
            state.problem(
                "planning",
                f"topic clustering failed: {message}",
                code=exc.code,
                severity="warning",
            )
            return protocol.structural_clusters(state.entries)
        if args is None:
            state.problem(
                "planning",
                "no topic clusters submitted; grouped by type instead",
                code="clusters_missing",
                severity="warning",
            )
            return protocol.structural_clusters(state.entries)
        return protocol.topic_clusters(args, state.entries)

    async def _plan(self, state: _Run, say: Progress) -> None:
        n = len(state.entries)
        forecast = prompt.FORECAST.format(
            low=math.floor(config.ORGANIZE_FORECAST_LOW * n),
            high=math.ceil(config.ORGANIZE_FORECAST_HIGH * n),
            count=n,
        )
        system = prompt.plan_instructions(str(state.claimed["mode"]))
        if state.compression_target is not None and state.tightest is not None:
            # The store's own limit and the tightest scope's use (SPEC 1.7), not the default
            # limit and the size of this run.
            system += "\n\n" + prompt.COMPRESSION_TARGET.format(
                limit=state.tightest.limit,
                used=state.tightest.used,
                target=state.compression_target,
            )
        found = plan_context.by_cluster(state.clusters, state.check.findings)
        for index, cluster in enumerate(state.clusters, start=1):
            say(f"plan {index}/{len(state.clusters)}: {cluster.id}")
            parts = [
                forecast,
                plan_context.scope_inventory(state.entries, cluster),
                self._cluster_text(cluster),
                plan_context.findings_text(
                    found.get(cluster.id, []), plan_context.exact_copies(cluster)
                ),
            ]
            messages = [
                {"role": "system", "content": system},
                {"role": "user", "content": "\n\n".join(part for part in parts if part)},
            ]
            try:
                args = await self._call_tool(state, messages, protocol.plan_tool_schema())
                if args is None:
                    raise protocol.PlanArgumentsError("no plan submitted")
                decisions, summary = protocol.plan_decisions(args)
            except (LLMError, protocol.PlanArgumentsError) as exc:
                # SPEC 4: a failed cluster is isolated; the others still get planned.
                state.parse_failures += 1
                message = exc.message if isinstance(exc, LLMError) else str(exc)
                code = "plan_invalid"
                if isinstance(exc, LLMError | protocol.SecretInArguments):
                    code = exc.code
                state.problem("planning", f"{cluster.id}: {message}", code=code)
                continue
            state.raw.append(
                {
                    "clusterId": cluster.id,
                    "text": json.dumps(args, ensure_ascii=False)[
                        : config.ORGANIZE_RAW_OUTPUT_CHARS
                    ],
                }
            )
            state.summaries.append(
                {
                    "clusterId": cluster.id,
                    "size": len(cluster.entries),
                    "summary": summary,
                    "decisions": len(decisions),
                }
            )
            state.plans.append(ClusterPlan(cluster=cluster, decisions=decisions, summary=summary))

    async def _call_tool(
        self, state: _Run, messages: list[dict[str, Any]], tool: dict[str, Any]
    ) -> dict[str, Any] | None:
        """One call with one tool attached; the tool's arguments, or None when not called."""
        assert self.llm is not None
        completion = await self.llm.complete(messages, tools=[tool], purpose="organizer")
        state.tokens += completion.usage.total_tokens
        name = tool["function"]["name"]
        for call in completion.tool_calls:
            if call.name == name:
                args = call.require_arguments()
                protocol.refuse_secrets(args)  # before any of it is kept (raw, reasons, topics)
                return args
        return None

    # --- apply ------------------------------------------------------------------------------
    async def _apply(self, state: _Run, gate: GateResult, *, offline: bool) -> dict[str, Any]:
        scheduled = state.claimed["trigger"] == "scheduled" and not offline
        dry_run = bool(state.latest.dry_run if state.latest else state.claimed.get("dry_run"))
        review_items = state.review_items + gate.review_items
        report: dict[str, Any] = {
            "version": config.ORGANIZE_REPORT_VERSION,
            "clusterSummaries": state.summaries,
            "reviewItems": review_items,
            "raw": state.raw,
            "rejectionBuckets": gate.buckets,
            "compressionForecast": {
                "before": len(state.entries),
                "low": math.floor(config.ORGANIZE_FORECAST_LOW * len(state.entries)),
                "high": math.ceil(config.ORGANIZE_FORECAST_HIGH * len(state.entries)),
            },
        }
        counts = {
            "review_skipped": gate.review_skipped,
            "merged_count": gate.merged_count,
            "parse_failures": state.parse_failures,
            "token_usage_total": state.tokens,
            "final_count": len(state.entries),
        }
        ratio = 1.0
        report["safeDecisions"] = [d.to_report() for d in gate.decisions]
        if scheduled and not dry_run:
            # Scheduled runs apply what the gate allowed and record which keys went through.
            applied = await self._store_call(
                apply_decisions, self.store, gate.decisions, run_id=state.run_id
            )
            review_items.extend(applied.review_items)
            final = len(state.entries) - applied.deleted + applied.created
            counts.update(
                safe_applied=applied.applied,
                created_count=applied.created,
                updated_count=applied.updated,
                deleted_count=applied.deleted,
                final_count=final,
            )
            ratio = final / len(state.entries) if state.entries else 1.0
            report["manualApplyState"] = {
                "status": "applied",
                "appliedDecisionKeys": applied.applied_keys,
                "failedDecisionKeys": applied.failed_keys,
                "counts": {"applied": applied.applied, "failed": len(applied.failed_keys)},
            }
        elif not dry_run:
            report["manualApplyState"] = {
                "status": "pending" if gate.decisions else "applied",
                "appliedDecisionKeys": [],
                "failedDecisionKeys": [],
                "counts": {},
            }
        if offline:
            outcome = (
                f"{len(gate.decisions)} merges and deletions proposed for review "
                "(offline duplicate check)"
            )
        else:
            outcome = (
                f"{len(gate.decisions)} decisions passed the risk gate, "
                f"{gate.review_skipped} held back"
            )
        clusters = len(state.clusters)
        noun = "cluster" if clusters == 1 else "clusters"
        summary = f"{len(state.entries)} memories in {clusters} {noun}; {outcome}"
        # The same summary as a code and its figures, for a front end in another language.
        report["outcome"] = {
            "code": OutcomeCode.OFFLINE_PROPOSED if offline else OutcomeCode.GATE_PASSED,
            "memories": len(state.entries),
            "clusters": clusters,
            "proposed": len(gate.decisions),
            "heldBack": gate.review_skipped,
        }
        return await self._finish(
            state, "succeeded", summary=summary, report=report, counts=counts, ratio=ratio
        )

    # --- run row ----------------------------------------------------------------------------
    async def _phase(self, state: _Run, phase: str, say: Progress) -> None:
        say(phase)
        await self._update(state, phase=phase)

    async def _update(self, state: _Run, **fields: Any) -> dict[str, Any]:
        """Record fields on the run row; returns the run as recorded (with its report view)."""
        payload = {"run_id": state.run_id, **{k: v for k, v in fields.items() if v is not None}}
        state.latest, view = await self._store_call(record_update, self.store, payload)
        return view

    async def _finish(
        self,
        state: _Run,
        status: str,
        *,
        summary: str | None = None,
        error: str | None = None,
        report: dict[str, Any] | None = None,
        counts: dict[str, int] | None = None,
        ratio: float | None = None,
    ) -> dict[str, Any]:
        if report is None and state.review_items:
            report = {
                "version": config.ORGANIZE_REPORT_VERSION,
                "reviewItems": state.review_items,
                "raw": state.raw,
            }
        return await self._update(
            state,
            status=status,
            phase="done",
            final_summary=summary,
            error=error,
            report=report,
            counts={"token_usage_total": state.tokens, **(counts or {})},
            compression_ratio=ratio,
        )

    # --- prompt material --------------------------------------------------------------------
    @staticmethod
    def _cluster_text(cluster: Cluster) -> str:
        parts = [f"Cluster {cluster.id}, {len(cluster.entries)} memories:"]
        for entry in cluster.entries:
            meta = (
                f"slug: {entry.slug}\nscope: {entry.scope}\ntype: {entry.type}\n"
                f"reviewed: {'yes' if entry.reviewed else 'no'}\n"
                f"confidence: {entry.confidence}\ndescription: {entry.description}"
            )[: config.ORGANIZE_META_CHARS]
            body = entry.body[: config.ORGANIZE_EXCERPT_CHARS]
            parts.append(f"<memory>\n{meta}\n---\n{body}\n</memory>")
        return "\n\n".join(parts)
