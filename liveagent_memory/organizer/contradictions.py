"""Contradictions in a run's review queue: two memories that disagree, and a person's answer.

This module holds the rule (docs/ARCHITECTURE.md "Where each rule lives"): **a contradiction
is its own proposal**, never a merge. The planner (organizer/offline.py, later the model) reports
each as a review item (`NoteCode.CONTRADICTION`, REFERENCE A10 `reviewItems`, which the
reference shows as a warning); here it becomes a queue entry of kind "contradiction" beside the
merges, rewrites and deletes of organizer/review.py, with a stable key, its two memories, what
differs, and a state kept in the run's `manualApplyState.contradictions` (ours, additive).

A person answers "these two disagree — which one is current?" (`resolve`): keep the first (the
second moves to the trash), keep the second, keep both (nothing changes; the pair is settled in
the store, store/settled.py, and a later run does not ask again while both texts stay), or edit
(the person's text is saved as the memory that stays, reviewed, and the other moves to the
trash). Each answer is one store batch group (all or nothing) with the organizer trigger, so the
store snapshots what it changes and every answer can be restored from history. Only a person
answers (the review gate: a model or the MemoryManager tool is refused), nothing answers by
itself ("Apply all safe" takes decisions, never a contradiction), and an answer about a memory
that changed or went since the run is refused (`memory_changed`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import (
    ActionNotAllowed,
    InvalidArgument,
    MemoryChanged,
    MemoryDomainError,
    SlugNotFound,
)
from liveagent_memory.domain.requests import (
    BatchRequest,
    ContradictionResolveRequest,
    ReadRequest,
    Resolution,
    RunUpdateRequest,
)
from liveagent_memory.domain.schema import Actor, ReadResult, Shape
from liveagent_memory.organizer.apply import ApplyOutcome, NothingToApply, run_after_apply
from liveagent_memory.organizer.offline import Contradiction
from liveagent_memory.organizer.run_record import (
    ManualApplyState,
    NoteCode,
    Report,
    ReviewItem,
    parse_report,
)
from liveagent_memory.organizer.runs import update_run
from liveagent_memory.store import rules
from liveagent_memory.store.settled import SettledPair
from liveagent_memory.store.store import MemoryStore

KIND = "contradiction"  # the queue entry's kind, beside merge | rewrite | delete
SIDES = ("first", "second")


def fingerprint(memory_type: str, description: str, text: str) -> str:
    """A short print of what a memory says (type, description, text without its evidence):
    the same print means the same memory a run saw."""
    digest = hashlib.sha256(f"{memory_type}\n{description}\n{text}".encode()).hexdigest()
    return digest[: config.CONTRADICTION_PRINT_CHARS]


def review_item(found: Contradiction) -> dict[str, Any]:
    """The run report's review item of a contradiction the planner found: the planner's item
    with where the two memories live and the prints of their texts as the run saw them (ours,
    in `params`: a stale answer is refused by them)."""
    item = found.review_item()
    item["params"] = {
        **item["params"],
        "scope": found.first.scope,
        "workdirHash": found.first.workdir_hash,
        "prints": {entry.slug: _entry_print(entry) for entry in (found.first, found.second)},
    }
    return item


def _entry_print(entry: Any) -> str:
    return fingerprint(entry.type, entry.description, entry.body)


def still_open(
    found: Sequence[Contradiction], settled: Callable[[str, str], list[SettledPair]]
) -> list[Contradiction]:
    """The contradictions a person has not settled with "keep both" (`settled(scope, hash)`
    gives a scope's settled pairs): a settled pair is shown again once either text changed."""
    cache: dict[tuple[str, str], list[SettledPair]] = {}
    out = []
    for item in found:
        where = (item.first.scope, item.first.workdir_hash)
        if where not in cache:
            cache[where] = settled(*where)
        pairs = cache[where]
        prints = {entry.slug: _entry_print(entry) for entry in (item.first, item.second)}
        slugs = frozenset(prints)
        if not any(pair.slugs == slugs and pair.matches(prints) for pair in pairs):
            out.append(item)
    return out


@dataclass(frozen=True)
class ContradictionEntry:
    """One contradiction of a run's review queue."""

    key: str
    first: str
    second: str
    scope: str | None  # None: an item without it (resolved by slug, as the store does)
    workdir_hash: str
    differences: list[dict[str, Any]]
    prints: dict[str, str]  # slug -> print as the run saw it ({} when the item has none)
    message: str
    kind: str = KIND

    def slug(self, side: str) -> str:
        return self.first if side == "first" else self.second

    def state(self, manual: ManualApplyState) -> dict[str, Any]:
        """Its answer: {status: pending} until a person answers, then resolved or failed."""
        return dict(manual.contradictions.get(self.key) or {"status": "pending"})

    def is_open(self, manual: ManualApplyState) -> bool:
        return bool(self.state(manual)["status"] != "resolved")


def entry_of(item: ReviewItem) -> ContradictionEntry | None:
    """The queue entry of a contradiction review item (None for any other item)."""
    params = item.params or {}
    first, second = params.get("first"), params.get("second")
    if item.code != NoteCode.CONTRADICTION or not isinstance(first, str):
        return None
    if not isinstance(second, str) or not first or not second or first == second:
        return None
    scope = params.get("scope") if isinstance(params.get("scope"), str) else None
    workdir_hash = str(params.get("workdirHash") or "")
    prints = params.get("prints") if isinstance(params.get("prints"), dict) else {}
    differences = params.get("differences")
    return ContradictionEntry(
        key=f"{KIND}:{scope or ''}:{workdir_hash}:{first}:{second}",
        first=first,
        second=second,
        scope=scope,
        workdir_hash=workdir_hash,
        differences=[d for d in differences if isinstance(d, dict)]
        if isinstance(differences, list)
        else [],
        prints={str(k): str(v) for k, v in (prints or {}).items()},
        message=item.message,
    )


def report_contradictions(report: Report) -> list[ContradictionEntry]:
    """The contradictions of a parsed report, in report order, each once."""
    out: dict[str, ContradictionEntry] = {}
    for item in report.reviewItems:
        entry = entry_of(item)
        if entry is not None:
            out.setdefault(entry.key, entry)
    return list(out.values())


# --- what a front end shows ----------------------------------------------------------------
@dataclass
class SideView(Shape):
    """One memory of a contradiction as it is now."""

    slug: str
    exists: bool
    changed: bool  # its text is not the one the run saw
    type: str = ""
    description: str = ""
    text: str = ""


@dataclass
class ContradictionView(Shape):
    """A contradiction of a run, with both memories as they are now and its answer."""

    key: str
    number: int  # what `organize resolve` takes, as listed
    scope: str
    workdir_hash: str
    first: SideView
    second: SideView
    differences: list[dict[str, Any]]
    message: str
    state: dict[str, Any]  # status pending | resolved (resolution) | failed (error)
    stale: bool  # a memory changed or went since the run: it cannot be answered
    open: bool = field(default=True)  # a person may still answer it


def run_contradictions(store: MemoryStore, run_id: str) -> list[ContradictionView]:
    """The contradictions of a run, both memories read now."""
    run = store.organize_run_read(run_id)
    if not run.report:
        return []
    report = parse_report(run.report)
    manual = report.manualApplyState or ManualApplyState()
    answerable = report.manualApplyState is not None
    views = []
    for number, entry in enumerate(report_contradictions(report)):
        sides = {side: _side(store, entry, side) for side in SIDES}
        state = entry.state(manual)
        stale = any(not s.exists or s.changed for s in sides.values())
        views.append(
            ContradictionView(
                key=entry.key,
                number=number,
                scope=entry.scope or "",
                workdir_hash=entry.workdir_hash,
                first=sides["first"],
                second=sides["second"],
                differences=entry.differences,
                message=entry.message,
                state=state,
                stale=stale,
                open=answerable and entry.is_open(manual) and not stale,
            )
        )
    return views


def _read(store: MemoryStore, entry: ContradictionEntry, side: str) -> ReadResult | None:
    """A memory of the pair as it is now (None: it is gone)."""
    target: dict[str, Any] = {"slug": entry.slug(side)}
    if entry.scope:
        target["scope"] = entry.scope
        if entry.scope == "project":
            target["workdir_hash"] = entry.workdir_hash
    try:
        return store.read(ReadRequest.model_validate(target))
    except SlugNotFound:
        return None


def _side(store: MemoryStore, entry: ContradictionEntry, side: str) -> SideView:
    read = _read(store, entry, side)
    slug = entry.slug(side)
    if read is None:
        return SideView(slug=slug, exists=False, changed=True)
    now = fingerprint(read.entry.type, read.entry.description, read.content)
    seen = entry.prints.get(slug)
    return SideView(
        slug=slug,
        exists=True,
        changed=seen is not None and seen != now,
        type=read.entry.type,
        description=read.entry.description,
        text=read.content,
    )


# --- a person's answer ---------------------------------------------------------------------
@dataclass
class ResolveResult(Shape):
    """What one answer did."""

    run_id: str
    key: str
    resolution: str
    kept: list[str]
    deleted: list[str]
    state: dict[str, Any]


def resolve(store: MemoryStore, req: ContradictionResolveRequest) -> ResolveResult:
    """Answer one contradiction of a run (module doc); the answer is recorded on the run."""
    if req.actor.strip().lower() != Actor.USER:
        raise ActionNotAllowed(
            f"only a person can answer a contradiction, not the {req.actor}; it stays in the "
            "review queue until someone answers it in the app or with the CLI",
            field="actor",
        )
    run = store.organize_run_read(req.run_id)
    report = parse_report(run.report) if run.report else None
    if report is None or report.manualApplyState is None:
        raise NothingToApply(f"organizer run {req.run_id} has nothing waiting for review")
    entry = _chosen(report_contradictions(report), req.key)
    manual = report.manualApplyState
    state = entry.state(manual)
    if state["status"] == "resolved":
        raise NothingToApply(
            f"the contradiction {entry.key} was already answered ({state.get('resolution')})"
        )
    _check_body(req, entry)
    try:
        reads = _current(store, entry)
        kept, deleted = _answer(store, req, entry, reads)
    except MemoryDomainError as exc:
        _record(store, run, report, entry, {"status": "failed", "error": exc.code}, None)
        raise
    answer = {
        "status": "resolved",
        "resolution": str(req.resolution),
        "kept": kept,
        "deleted": deleted,
        "at": store.now_ms(),
    }
    outcome = ApplyOutcome(deleted=len(deleted), updated=int(req.resolution == Resolution.EDIT))
    _record(store, run, report, entry, answer, outcome)
    return ResolveResult(
        run_id=req.run_id,
        key=entry.key,
        resolution=str(req.resolution),
        kept=kept,
        deleted=deleted,
        state=answer,
    )


def _chosen(entries: list[ContradictionEntry], key: str) -> ContradictionEntry:
    """The entry `key` names (its key, or its number as listed); InvalidArgument otherwise."""
    text = key.strip()
    for number, entry in enumerate(entries):
        if text in (entry.key, str(number)):
            return entry
    numbers = f"0 to {len(entries) - 1}" if entries else "none"
    raise InvalidArgument(
        f"no contradiction {key!r} in this run (its contradictions are numbered {numbers})",
        field="key",
        candidates=[{"key": entry.key} for entry in entries][:20],
    )


def _check_body(req: ContradictionResolveRequest, entry: ContradictionEntry) -> None:
    """An edit needs the current text, and it passes the write's own gates; no other answer
    takes one."""
    if req.resolution != Resolution.EDIT:
        if req.body is not None:
            raise InvalidArgument("only an edit takes a text (body)", field="body")
        if req.description is not None:
            raise InvalidArgument("only an edit takes a description", field="description")
        return
    if req.body is None or not req.body.strip():
        raise InvalidArgument("an edit needs the current text (body)", field="body")
    slug = entry.slug(req.keep)
    rules.check_body_size(req.body, slug=slug)
    rules.refuse_secrets(slug, req.body, req.description or "")


def _current(store: MemoryStore, entry: ContradictionEntry) -> dict[str, ReadResult]:
    """Both memories as they are now; MemoryChanged when one went or changed since the run."""
    reads: dict[str, ReadResult] = {}
    for side in SIDES:
        slug = entry.slug(side)
        read = _read(store, entry, side)
        if read is None:
            raise MemoryChanged(
                f"{slug} is gone since the run; run the organizer again to see what disagrees",
                field="key",
            )
        now = fingerprint(read.entry.type, read.entry.description, read.content)
        if entry.prints.get(slug, now) != now:
            raise MemoryChanged(
                f"{slug} changed since the run; run the organizer again to see what disagrees",
                field="key",
            )
        reads[side] = read
    return reads


def _answer(
    store: MemoryStore,
    req: ContradictionResolveRequest,
    entry: ContradictionEntry,
    reads: dict[str, ReadResult],
) -> tuple[list[str], list[str]]:
    """Carry out the answer as one store batch group; (kept, deleted) slugs."""
    if req.resolution == Resolution.KEEP_BOTH:
        first, second = reads["first"], reads["second"]
        store.settle_pair(
            first.entry.scope,
            first.entry.workdir_hash,
            SettledPair(
                first=entry.first,
                second=entry.second,
                first_print=_read_print(first),
                second_print=_read_print(second),
                at=store.now_ms(),
                run_id=req.run_id,
            ),
        )
        return [entry.first, entry.second], []
    keep = {
        Resolution.KEEP_FIRST: "first",
        Resolution.KEEP_SECOND: "second",
        Resolution.EDIT: req.keep,
    }[req.resolution]
    gone = "second" if keep == "first" else "first"
    reason = (
        f"{entry.slug(keep)} and {entry.slug(gone)} disagreed; a person kept "
        f"{entry.slug(keep)}{' with a new text' if req.body is not None else ''} "
        f"(organizer run {req.run_id})"
    )
    group = f"{KIND}:{req.run_id}:{entry.first}+{entry.second}"
    items = [_item(reads[gone], "delete", group, reason)]
    if req.body is not None:
        kept = {**_item(reads[keep], "upsert", group, reason), "body": req.body}
        if req.description is not None:
            kept["description"] = req.description
        items.insert(0, kept)
    batch = store.apply_batch(
        BatchRequest.model_validate(
            {
                "items": items,
                "actor": Actor.USER.value,
                "trigger": config.ORGANIZE_TRIGGER,
                "conversation_id": req.run_id,
            }
        )
    )
    for result in batch.items:
        if result.status != "applied":
            error = result.error or {}
            code = str(error.get("error") or result.status)
            raise MemoryDomainError(str(error.get("message") or code), code=code)
    return [entry.slug(keep)], [entry.slug(gone)]


def _read_print(read: ReadResult) -> str:
    return fingerprint(read.entry.type, read.entry.description, read.content)


def _item(read: ReadResult, op: str, group: str, reason: str) -> dict[str, Any]:
    """A batch item on the memory `read` (scope and project as they are now)."""
    item: dict[str, Any] = {
        "op": op,
        "slug": read.entry.slug,
        "scope": read.entry.scope,
        "group_id": group,
        "reason": reason,
    }
    if read.entry.scope == "project":
        item["workdir_hash"] = read.entry.workdir_hash
    if op == "upsert":
        item.update(type=read.entry.type, description=read.entry.description)
    return item


def _record(
    store: MemoryStore,
    run: Any,
    report: Report,
    entry: ContradictionEntry,
    answer: dict[str, Any],
    outcome: ApplyOutcome | None,
) -> None:
    """Write the answer into the run's manual apply state (and its counts when it changed
    memories)."""
    data = report.to_dict()
    manual = data["manualApplyState"]
    manual["contradictions"] = {**manual.get("contradictions", {}), entry.key: answer}
    if outcome is None:
        update_run(store, RunUpdateRequest(run_id=run.run_id, report=data))
    else:
        update_run(store, run_after_apply(run, data, outcome))
