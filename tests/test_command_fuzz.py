"""Fuzz of the command layer (issue 12): arbitrary JSON into every command.

Whatever comes in, a command answers normally or raises a MemoryDomainError with a known
code; both are printable JSON; and the store stays usable: a second MemoryStore.open of the
same folder works, memory_list and memory_search succeed, and no file became a problem.
Two kinds of input: arbitrary JSON (mostly stopped by the first validation), and each
command's valid payloads with fields replaced by hostile values (lone surrogates, NUL, CRLF,
integers past 64 bits, non-finite floats, wrong types, unknown keys), which get deeper.

Every command runs. A few fields are tamed, each for a reason (see `tame`): embedding
`providers`, settings `embeddings` and a consolidation's model (`organize_consolidate` runs
offline) would call the network; `roots` would walk the whole disk, and loki_import's `path`
could import a real Loki store; `confirm` of memory_wipe_all empties the store by design.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from liveagent_memory.agent.manager_tool import ManagerToolExecutor, allowed_actions
from liveagent_memory.commands import COMMANDS, dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.clock import MAX_MS
from liveagent_memory.domain.errors import MemoryDomainError
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fakes import FakeClock

DAY = "2026-11-30"
COMMAND_EXAMPLES = 15  # mutated payloads per command, on average: ~700 in all, ~15 s
TOOL_EXAMPLES = 200
EPISODE_ID = "ep-2026-11-30-abcdef12"


def _subclasses(cls: type[MemoryDomainError]) -> set[type[MemoryDomainError]]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found


# Every code an error class declares, plus the ones passed as `code=` where raised
# (grep -rn 'code="' liveagent_memory).
KNOWN_CODES = {error.code for error in _subclasses(MemoryDomainError)} | {
    "file_unparsable",
    "not_a_project_folder",
}


def seeds(workdir: str, run_id: str = "run-0") -> dict[str, list[dict[str, Any]]]:
    """Valid payloads per command: what the mutations start from (`run_id`: an existing run)."""
    write = {
        "slug": "fuzz-note",
        "scope": "global",
        "type": "user",
        "description": "A fuzzed note",
        "body": "Some body text.",
        "confidence": "high",
        "source_quote": "the user said so",
        "reasoning": "because",
        "aliases": ["alias"],
        "conflicts_with": ["other-note"],
        "supersedes": "old-note",
        "override_reject": "yes",
        "conversation_id": "conv-1",
        "model": "openai/x",
        "trigger": "post-turn",
        "actor": "tool",
    }
    provenance = ("conversation_id", "model", "trigger", "actor")
    item = {key: value for key, value in write.items() if key not in provenance}
    skill = {
        **{key: value for key, value in write.items() if key != "body"},
        "slug": "fuzz-skill",
        "type": "skill",
        "skill": {
            "when_to_use": "when it breaks",
            "steps": ["look", "fix"],
            "common_errors": [{"error": "oops", "fix": "undo"}],
            "exit_criteria": ["green"],
            "prerequisites": ["a shell"],
            "example": "make fix",
        },
    }
    run = {"run_id": run_id}
    episode = {
        "id": EPISODE_ID,
        "goal": "fix the build",
        "summary": "fixed",
        "outcome": "success",
        "task_type": "debugging",
        "timestamp": "2026-11-30T12:00:00Z",
        "duration_seconds": 30,
        "action_log": [{"tool": "bash", "input": "make", "output": "ok", "timestamp": 5}],
        "errors_encountered": [{"error_type": "E1", "message": "boom", "resolution": "fix"}],
        "key_decisions": [{"decision": "retry", "rationale": "flaky"}],
        "files_modified": ["src/a.py"],
    }
    return {
        "memory_list": [{}, {"scope": "global", "type": "user", "limit": 5, "offset": 1}],
        "memory_read": [{"slug": "tea-pref"}, {"slug": "tea-pref", "offset": 1, "length": 2}],
        "memory_search": [{"query": "green tea", "limit": 3, "explain": True}],
        "memory_write": [write, skill, {**write, "scope": "project", "workdir": workdir}],
        "memory_update": [{"slug": "tea-pref", "body": "Tea at noon.", "mode": "merge"}],
        "memory_delete": [{"slug": "fuzz-note", "reason": "wrong"}],
        "memory_accept": [{"slug": "tea-pref", "actor": "user"}],
        "memory_daily_append": [{"body": "An entry."}, {"bullet": "Another.", "local_date": DAY}],
        "memory_apply_batch": [
            {
                "items": [
                    {**item, "op": "upsert", "group_id": "g"},
                    {"op": "delete", "slug": "old-note", "group_id": "g", "reason": "merged"},
                    {"op": "accept", "slug": "tea-pref"},
                ],
                "daily_append": {"bullet": "Batch entry."},
                "conversation_id": "conv-1",
                "model": "openai/x",
                "trigger": "post-turn",
                "local_date": DAY,
            }
        ],
        "memory_quota_summary": [{}, {"workdir": workdir}],
        "memory_index_overview": [{}, {"workdir": workdir}],
        "memory_reconcile": [{}, {"full": True}],
        "memory_history": [
            {"slug": "tea-pref", "limit": 3},
            {"slug": "tea-pref", "with_text": True},
        ],
        "memory_restore": [{"slug": "tea-pref", "version": "audit:2"}],
        "memory_undo": [{"slug": "tea-pref", "change": "audit:2"}],
        "memory_delete_project": [{"workdir": workdir, "reason": "done"}],
        "project_pin": [{"workdir": workdir}],
        "project_merge": [{"workdir": workdir, "dry_run": True}, {"workdir": workdir}],
        "memory_recent_rejections": [{"since_days": 7, "limit": 5, "workdir": workdir}],
        "memory_paths_info": [{}],
        "memory_today_local_date": [{"rollover_hour": 4}],
        "memory_today_daily": [{}],
        "memory_wipe_all": [{}],
        "memory_problems": [{}],
        "agents_running": [{}],
        "sync_status": [{}],
        "sync_init": [{"remote": ""}, {"remote": "/no/such/remote.git"}],
        "sync_fetch": [{}],
        "sync_run": [{}, {"fetched": True}],
        "sync_versions": [{"path": "global/tea-pref (conflicted copy 2026-01-02).md"}],
        "sync_resolve": [
            {"path": "global/tea-pref.md", "keep": "original"},
            {"path": "global/tea-pref.md", "keep": "merged", "text": "---\nname: tea-pref\n---\nx"},
        ],
        "memory_journal_days": [{"month": "2026-11"}, {"date_from": "2026-11-01", "date_to": DAY}],
        "memory_journal_entries": [{"date": DAY}],
        "memory_projects": [{}],
        "organize_run_create": [
            {"trigger": "manual", "scope": "all", "mode": "standard", "due_at": 1, "model": {}}
        ],
        "organize_run_update": [
            {
                **run,
                "status": "running",
                "phase": "scan",
                "counts": {"input_count": 3},
                "compression_ratio": 0.5,
                "error": "none",
                "final_summary": "ok",
                "report": {"version": 4},
            }
        ],
        "organize_run_list": [{"limit": 5, "status": "failed"}],
        "organize_run_read": [run],
        "organize_run_get": [run],
        "organize_run_clear_history": [{}],
        "organize_due_claim": [{"now": FakeClock().ms + 1}],
        "organize_due_complete": [{**run, "status": "succeeded"}],
        "organize_apply": [{**run, "keys": ["c1:0"]}, {**run, "all_safe": True}],
        "organize_contradictions": [run],
        "organize_review_queue": [run],
        "organize_consolidate": [{"offline": True, "workdir": workdir}, {}],
        "organize_learned": [{}, {"runs": 3}],
        "organize_resolve": [
            {**run, "key": "0", "resolution": "keep_first"},
            {**run, "key": "0", "resolution": "edit", "body": "now", "keep": "second"},
        ],
        "settings_get": [{}],
        "settings_save_memory": [{"settings": {"organizer": {"schedule": "daily"}}}],
        "projects_index": [{"roots": [], "max_depth": 2}],
        "projects_discover": [{"roots": ["."], "max_depth": 2}],
        "loki_import": [{"path": workdir, "dry_run": True}, {"path": workdir, "replace": True}],
        "episode_record": [{"episode": episode, "replace": True}, {"episode": {"goal": "x"}}],
        "episode_list": [{"limit": 5, "date": DAY, "outcome": "success"}],
        "episode_read": [{"id": EPISODE_ID}],
        "episode_decay": [{}],
        "episode_timeline": [{"workdir": workdir, "actions_limit": 3}],
        "embeddings_status": [{}],
        "embeddings_rebuild": [{"full": True}],
        "memory_search_hybrid": [{"query": "tea", "limit": 3}],
        "memory_context": [{"query": "deploy", "token_budget": 500, "top_k": 3}],
        "memory_metrics": [{}],
        "episode_search": [{"query": "build", "limit": 3}],
    }


def tame(name: str, payload: Any, home: Path) -> Any:
    """Keep the fuzz off the network and the rest of the disk (see the module docstring)."""
    if not isinstance(payload, dict):
        return payload
    payload = dict(payload)
    payload.pop("providers", None)  # embedding providers: HTTP calls to their servers
    if name == "memory_wipe_all":
        payload.pop("confirm", None)  # with confirm: everything to quarantine, by design
    if name == "organize_consolidate":
        payload["offline"] = True  # a model named in a payload would be called over the network
    if name in ("projects_index", "projects_discover") and "roots" in payload:
        payload["roots"] = [str(home)]  # any other root would walk the real file system
    if name == "loki_import" and "path" in payload:
        payload["path"] = str(home)  # any other folder could hold a real Loki store to import
    if name == "settings_save_memory" and isinstance(payload.get("settings"), dict):
        # Embedding providers saved here would make every later search call the network.
        payload["settings"] = {k: v for k, v in payload["settings"].items() if k != "embeddings"}
    return payload


# --- strategies ------------------------------------------------------------------------------
NASTY_TEXT = [
    "\ud800",
    "a\udfffb",
    "\x00",
    "line\x00break",
    "\r\n",
    "one\rtwo",
    "\x1b[31mred",
    "\x7f\x85\u2028",
    "tab\there",
    "",
    " ",
    "x" * (config.MAX_NAME_CHARS + 1),
    "y" * (config.MAX_REASON_CHARS + 1),
    "../../etc/passwd",
    "/",
    "tea-pref",
    "daily-2026-11-30",
    "global",
    "project",
    "user",
    "skill",
    "audit:1",
    "trash:x.md",
    "中文记忆",
    "🙂",
    "true",
    "null",
    "1e999",
]
NASTY_INTS = [
    0,
    -1,
    1,
    2**31,
    2**53 + 1,
    config.SQLITE_MAX_INTEGER,
    config.SQLITE_MAX_INTEGER + 1,
    config.SQLITE_MIN_INTEGER,
    config.SQLITE_MIN_INTEGER - 1,
    2**64,
    MAX_MS,
    MAX_MS + 1,
    10**400,
]
texts = st.one_of(
    st.sampled_from(NASTY_TEXT), st.text(st.characters(exclude_categories=()), max_size=24)
)
ints = st.one_of(st.sampled_from(NASTY_INTS), st.integers())
floats = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, 1e19, -0.0]), st.floats())
scalars = st.one_of(st.none(), st.booleans(), ints, floats, texts)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(texts, children, max_size=4)
    ),
    max_leaves=12,
)


def like(draw: st.DrawFn, value: Any) -> Any:
    """A hostile value of the same JSON type as `value` (nested objects are mutated)."""
    if isinstance(value, dict):
        return draw(mutated(value)) if value else draw(st.dictionaries(texts, json_values))
    if isinstance(value, list):
        items = [like(draw, item) if draw(st.booleans()) else item for item in value]
        return items + draw(st.lists(json_values if not value else st.just(value[0]), max_size=2))
    if isinstance(value, bool):
        return draw(st.booleans())
    if isinstance(value, int):
        return draw(ints)
    if isinstance(value, float):
        return draw(floats)
    if isinstance(value, str) and draw(st.booleans()):
        cut = draw(st.integers(0, len(value)))
        return value[:cut] + draw(st.sampled_from(NASTY_TEXT)) + value[cut:]
    return draw(texts)


@st.composite
def mutated(draw: st.DrawFn, seed: dict[str, Any]) -> dict[str, Any]:
    """`seed` with a field or two changed (mostly to the same type), dropped or added."""
    payload = dict(seed)
    keys = sorted(payload)
    for key in draw(st.lists(st.sampled_from(keys), max_size=2, unique=True)) if keys else []:
        wrong_type = draw(st.integers(0, 5)) == 0
        payload[key] = draw(json_values) if wrong_type else like(draw, payload[key])
    if keys and draw(st.integers(0, 7)) == 0:
        payload.pop(draw(st.sampled_from(keys)))
    if draw(st.integers(0, 9)) == 0:
        payload[draw(texts)] = draw(json_values)
    return payload


# --- the checks -------------------------------------------------------------------------------
def run_command(store: MemoryStore, name: str, payload: Any) -> None:
    """One command: a normal answer or a known typed error, both printable JSON."""
    try:
        answer = dispatch(store, name, payload)
    except MemoryDomainError as exc:
        assert exc.code in KNOWN_CODES, exc.to_dict()
        answer = exc.to_dict()
    json.dumps(answer, ensure_ascii=False).encode("utf-8")  # what the CLI prints


def assert_usable(home: Path, clock: FakeClock, *, read_all: bool = False) -> None:
    """A second open of the folder works; list and search succeed; no file is a problem."""
    with MemoryStore.open(home, clock=clock) as again:
        assert again.problems() == []
        listing = {"include_daily": True, "include_all_projects": True, "limit": 1000}
        entries = dispatch(again, "memory_list", listing)["entries"]
        dispatch(again, "memory_search", {"query": "tea", "include_all_projects": True})
        for entry in entries if read_all else []:
            target = {key: entry[key] for key in ("slug", "scope", "workdir_hash")}
            dispatch(again, "memory_read", target)


def seeded_store(home: Path, clock: FakeClock, workdir: str) -> tuple[MemoryStore, str]:
    """A store with a memory (restorable as audit:2), a journal day, episodes and a run (its id)."""
    store = MemoryStore.open(home, clock=clock)
    dispatch(
        store,
        "memory_write",
        {"slug": "tea-pref", "scope": "global", "type": "user", "description": "Tea", "body": "b"},
    )
    dispatch(store, "memory_update", {"slug": "tea-pref", "body": "Green tea."})  # audit:2
    dispatch(store, "memory_daily_append", {"body": "Planned the release."})
    for payload in seeds(workdir)["episode_record"]:
        dispatch(store, "episode_record", payload)
    run = dispatch(store, "organize_run_create", {"due_at": 1})["run"]
    return store, str(run["run_id"])


Payloads = Callable[[dict[str, list[dict[str, Any]]]], st.SearchStrategy[tuple[str, Any]]]


def fuzz(tmp_path: Path, payloads: Payloads, examples: int) -> None:
    """Run `examples` (command, payload) pairs on one store, checking it after each."""
    home, clock = tmp_path / "memory", FakeClock()
    workdir = tmp_path / "project"
    workdir.mkdir()
    store, run_id = seeded_store(home, clock, str(workdir))
    strategy = payloads(seeds(str(workdir), run_id))

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(call=strategy)
    def one(call: tuple[str, Any]) -> None:
        name, payload = call
        run_command(store, name, tame(name, payload, home))
        assert_usable(home, clock)

    try:
        one()
    finally:
        store.close()
    assert_usable(home, clock, read_all=True)  # at the end, every memory reads too


# --- the tests --------------------------------------------------------------------------------
def test_every_command_has_fuzz_seeds(tmp_path: Path) -> None:
    # A new command must say what a valid payload looks like, or the fuzz would skip it.
    assert set(seeds(str(tmp_path))) == set(COMMANDS)


def test_every_seed_runs_as_is(tmp_path: Path) -> None:
    # Unmutated, every seed passes validation, and most succeed: the fuzz starts deep.
    workdir = tmp_path / "project"
    workdir.mkdir()
    store, run_id = seeded_store(tmp_path / "memory", FakeClock(), str(workdir))
    failed = {}
    try:
        for name, payloads in seeds(str(workdir), run_id).items():
            for payload in payloads:
                try:
                    dispatch(store, name, tame(name, payload, store.root))
                except MemoryDomainError as exc:
                    failed[name] = exc.code
    finally:
        store.close()
    # Confirm is tamed away; a run without a report has nothing to apply or resolve; the
    # seeds before memory_undo changed tea-pref after audit:2, so undoing it would overwrite
    # them; the store has no sync conflict (assert_usable wants no problem;
    # tests/store/test_sync_conflicts.py resolves real ones); the store does not sync with git
    # and the seed's remote is not there (tests/store/test_git_sync.py syncs real ones); the
    # pinned project has one folder (tests/store/test_project_merge.py merges two).
    assert failed == {
        "memory_wipe_all": "invalid_argument",
        "organize_apply": "nothing_to_apply",
        "organize_resolve": "nothing_to_apply",
        "memory_undo": "memory_changed",
        "sync_versions": "conflict_not_found",
        "sync_resolve": "conflict_not_found",
        "sync_init": "sync_remote_unreachable",
        "sync_fetch": "sync_not_initialised",
        "sync_run": "sync_not_initialised",
        "project_merge": "nothing_to_merge",
    }


@pytest.mark.timeout(600)
def test_arbitrary_json_into_every_command(tmp_path: Path) -> None:
    names = st.sampled_from(sorted(COMMANDS))
    fuzz(tmp_path, lambda _seeds: st.tuples(names, json_values), examples=200)


@pytest.mark.timeout(600)
def test_mutated_valid_payloads_into_every_command(tmp_path: Path) -> None:
    def payloads(by_name: dict[str, list[dict[str, Any]]]) -> st.SearchStrategy[tuple[str, Any]]:
        pairs = [(name, seed) for name in sorted(by_name) for seed in by_name[name]]
        return st.sampled_from(pairs).flatmap(
            lambda pair: st.tuples(st.just(pair[0]), mutated(pair[1]))
        )

    fuzz(tmp_path, payloads, examples=COMMAND_EXAMPLES * len(COMMANDS))


@pytest.mark.timeout(600)
def test_arbitrary_arguments_into_the_memory_manager_tool(tmp_path: Path) -> None:
    # The tool parses its own arguments before any command sees them (SPEC 3, issue 12).
    home, clock = tmp_path / "memory", FakeClock()
    workdir = tmp_path / "project"
    workdir.mkdir()
    store, _ = seeded_store(home, clock, str(workdir))
    tool = ManagerToolExecutor(
        store, workdir=str(workdir), with_context=True, conversation_id="c", model="m"
    )
    properties = sorted(tool.schema()["function"]["parameters"]["properties"])
    actions = [*allowed_actions(writable=True, with_context=True), *NASTY_TEXT[:4]]
    arguments = st.dictionaries(st.sampled_from(properties) | texts, json_values, max_size=6)

    @settings(max_examples=TOOL_EXAMPLES, deadline=None)
    @given(action=st.sampled_from(actions), args=arguments, as_text=st.booleans())
    def one(action: str, args: dict[str, Any], as_text: bool) -> None:
        call = {"action": action, **args}
        outcome = tool.execute(json.dumps(call) if as_text else call)
        if not outcome.ok:
            assert outcome.payload["error"] in KNOWN_CODES, outcome.payload
        outcome.content.encode("utf-8")  # goes back to the model over HTTP
        assert_usable(home, clock)

    try:
        one()
    finally:
        store.close()
    assert_usable(home, clock, read_all=True)
