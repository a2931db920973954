"""Bad text and numbers are refused at the boundary (issue 12), through every entry point.

Each case goes in the way real input does (the CLI's `call` and friendly subcommands, its
file inputs, the MemoryManager tool, a SubmitMemoryPlan from the fake model server) and
asserts the typed error and that nothing else broke: no file changed, and the store still
opens, lists, reads and searches every memory and the journal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.agent.extraction.engine import ExtractionEngine
from liveagent_memory.agent.extraction.plan import INVALID_TEXT
from liveagent_memory.agent.extraction.types import ConversationState, ExtractionStatus, TurnInput
from liveagent_memory.agent.manager_tool import ManagerToolExecutor
from liveagent_memory.commands import dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument
from liveagent_memory.domain.inputs import check_int, clean_payload, clean_text, load_json
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import cli_call, run_cli
from tests.helpers.diskstore import memory_files
from tests.helpers.fake_llm import (
    FakeLLMServer,
    Reply,
    completion_body,
    llm_client,
    tool_call,
)
from tests.helpers.fakes import FakeClock
from tests.helpers.gates import assert_every_memory_works

SURROGATE = "\ud800"
NUL = "\x00"
DAILY = "daily-2026-11-30"  # FakeClock's day
SEEDED_WORDS = {"tea-pref": "green", "deploy-steps": "deploy"}  # slug -> a word of its text
INT64_OVER = 2**63


# --- a seeded store and the checks that nothing else broke ------------------------------------
@pytest.fixture
def seeded(home: Path, clock: FakeClock) -> dict[str, bytes]:
    """Two memories and a journal day, written through the commands; returns the files."""
    with MemoryStore.open(home, clock=clock) as store:
        dispatch(
            store,
            "memory_write",
            {
                "slug": "tea-pref",
                "scope": "global",
                "type": "user",
                "description": "Drinks green tea",
                "body": "The user drinks green tea every morning.",
            },
        )
        dispatch(
            store,
            "memory_write",
            {
                "slug": "deploy-steps",
                "scope": "global",
                "type": "reference",
                "description": "How to deploy",
                "body": "Run make deploy.",
            },
        )
        dispatch(store, "memory_daily_append", {"body": "Morning: planned the release."})
    return memory_files(home)


def assert_intact(
    home: Path, clock: FakeClock, before: dict[str, bytes], *, added: dict[str, str] | None = None
) -> None:
    """No seeded file changed, and the store opens, lists, reads and searches every memory
    (the seeded ones and `added`: slug -> a word search finds it by) and reads the journal."""
    added = added or {}
    after = memory_files(home)
    assert {path: after[path] for path in before if path in after} == before
    assert len(after) == len(before) + len(added)
    assert_every_memory_works(home, clock, {**SEEDED_WORDS, **added})
    with MemoryStore.open(home, clock=clock) as store:
        daily = dispatch(store, "memory_read", {"slug": DAILY})
        assert "planned the release" in daily["content"]


def call(home: Path, clock: FakeClock, command: str, payload: dict[str, Any]) -> dict[str, Any]:
    """`call COMMAND JSON` as a shell would pass it (json.dumps escapes a lone surrogate)."""
    code, error = cli_call(home, clock, command, payload)  # asserts: no traceback
    assert code == 1 and error["error"] != "internal_error", error
    return dict(error)


def assert_refused(error: dict[str, Any], field: str, *words: str) -> None:
    assert error["error"] == InvalidArgument.code
    assert error["field"] == field
    for word in words:
        assert word in error["message"]


# --- every text field of write / update / daily / batch, through `call` ------------------------
WRITE = {
    "slug": "new-note",
    "scope": "global",
    "type": "user",
    "description": "A new note",
    "body": "Some text.",
}
UPDATE = {"slug": "tea-pref", "description": "Drinks tea", "body": "Tea, always."}
DAILY_APPEND = {"body": "Afternoon: shipped it."}
BATCH_ITEM = {**WRITE, "op": "upsert"}

# (command, base payload, where the bad text goes, the field path the error names)
TEXT_CASES = [
    *[
        (command, base, path, path)
        for command, base in (("memory_write", WRITE), ("memory_update", UPDATE))
        for path in ("description", "source_quote", "conversation_id", "model", "trigger")
    ],
    ("memory_write", WRITE, "aliases.1", "aliases.1"),
    ("memory_update", UPDATE, "aliases.1", "aliases.1"),
    ("memory_write", WRITE, "body", "body"),
    ("memory_update", UPDATE, "body", "body"),
    ("memory_write", WRITE, "skill.steps.0", "skill.steps.0"),
    *[
        ("memory_daily_append", DAILY_APPEND, path, path)
        for path in ("body", "conversation_id", "model", "trigger")
    ],
    *[
        ("memory_apply_batch", {"items": [BATCH_ITEM]}, path, path)
        for path in (
            "items.0.description",
            "items.0.body",
            "items.0.source_quote",
            "items.0.aliases.1",
            "conversation_id",
            "model",
            "trigger",
            "daily_append.bullet",
        )
    ],
]


def with_text(base: dict[str, Any], path: str, bad: str) -> dict[str, Any]:
    """A deep copy of `base` with the text at `path` (`items.0.aliases.1`) holding `bad`."""
    payload: dict[str, Any] = json.loads(json.dumps(base))
    parts = path.split(".")
    node: Any = payload
    for part, following in zip(parts, parts[1:], strict=False):
        key: Any = int(part) if isinstance(node, list) else part
        if isinstance(node, dict) and key not in node:
            node[key] = [] if following.isdigit() else {}
        node = node[key]
    last = parts[-1]
    if last.isdigit():  # a list item: earlier items stay good text
        node.extend(["fine"] * (int(last) + 1 - len(node)))
        node[int(last)] = f"bad {bad} text"
    else:
        node[last] = f"bad {bad} text"
    return payload


@pytest.mark.parametrize(
    ("command", "base", "path", "field"), TEXT_CASES, ids=[f"{c[0]}-{c[2]}" for c in TEXT_CASES]
)
@pytest.mark.parametrize("bad", [SURROGATE, NUL, "\x1b"], ids=["surrogate", "nul", "escape"])
def test_bad_text_in_any_field_is_refused_by_cli_call(
    home: Path,
    clock: FakeClock,
    seeded: dict[str, bytes],
    command: str,
    base: dict[str, Any],
    path: str,
    field: str,
    bad: str,
) -> None:
    error = call(home, clock, command, with_text(base, path, bad))

    assert_refused(error, field, f"U+{ord(bad):04X}", "at character 4")
    error["message"].encode("utf-8")  # the message itself is printable text
    assert_intact(home, clock, seeded)


def test_a_nul_journal_entry_leaves_the_day_readable(
    home: Path, clock: FakeClock, seeded: dict[str, bytes]
) -> None:
    # Before, the entry was appended and the whole day could no longer be read or restored.
    code, out, err = run_cli("daily", f"evening{NUL}notes", "--json", home=home, clock=clock)

    assert (code, err) == (1, "")
    assert_refused(json.loads(out), "body", "NUL")
    assert_intact(home, clock, seeded)


# --- the CLI's own inputs: flags, --body-file, batch and episode files -------------------------
def test_friendly_write_with_a_nul_in_body_file_is_refused(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], tmp_path: Path
) -> None:
    body = tmp_path / "body.md"
    body.write_text(f"line one{NUL}line two", encoding="utf-8")

    argv = ["write", "new-note", "--type", "user", "--description", "d"]
    code, out, err = run_cli(*argv, "--body-file", str(body), "--json", home=home, clock=clock)

    assert (code, err) == (1, "")
    assert_refused(json.loads(out), "body", "NUL", "at character 8")
    assert_intact(home, clock, seeded)


def test_crlf_and_lone_cr_become_newlines_and_tabs_stay(
    home: Path, clock: FakeClock, seeded: dict[str, bytes]
) -> None:
    windows = "first\r\nsecond\rthird\tcolumn"
    code, _, err = run_cli(
        "call", "memory_write", json.dumps({**WRITE, "body": windows}), home=home, clock=clock
    )
    assert (code, err) == (0, "")
    update = {"slug": "tea-pref", "body": windows, "reasoning": "said so\r\ntwice"}
    code, _, err = run_cli("call", "memory_update", json.dumps(update), home=home, clock=clock)
    assert (code, err) == (0, "")

    with MemoryStore.open(home, clock=clock) as store:
        note = dispatch(store, "memory_read", {"slug": "new-note"})
        tea = dispatch(store, "memory_read", {"slug": "tea-pref"})
    assert note["content"] == tea["content"] == "first\nsecond\nthird\tcolumn"
    for path in ("global/user/new-note.md", "global/user/tea-pref.md"):
        assert b"\r" not in (home / path).read_bytes()


def test_apply_batch_file_with_a_lone_surrogate_is_refused(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.json"
    good = {**BATCH_ITEM, "slug": "good-note"}
    bad = {**BATCH_ITEM, "slug": "bad-note", "description": f"x{SURROGATE}"}
    batch.write_text(json.dumps({"items": [good, bad]}), encoding="utf-8")

    code, out, err = run_cli("apply-batch", str(batch), "--json", home=home, clock=clock)

    assert (code, err) == (1, "")
    assert_refused(json.loads(out), "items.1.description", "U+D800")
    assert_intact(home, clock, seeded)  # the batch is refused whole: not even good-note


def test_episode_file_with_a_nul_is_refused(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], tmp_path: Path
) -> None:
    episode = tmp_path / "episode.json"
    episode.write_text(
        json.dumps({"goal": "fix the build", "action_log": [{"tool": f"ba{NUL}sh"}]}),
        encoding="utf-8",
    )

    code, out, err = run_cli("episode", "record", str(episode), "--json", home=home, clock=clock)

    assert (code, err) == (1, "")
    assert_refused(json.loads(out), "episode.action_log.0.tool", "NUL")
    assert not (home / config.EPISODES_DIRNAME).exists() or not any(
        (home / config.EPISODES_DIRNAME).rglob("*.json")
    )
    assert_intact(home, clock, seeded)


@pytest.mark.parametrize(
    "argv",
    [
        ("--workdir", f"/tmp/pro{NUL}ject", "list"),
        ("--workdir", f"/tmp/pro{NUL}ject", "status"),
        ("--workdir", f"/tmp/pro{NUL}ject", "context", "how do we deploy"),
        ("--workdir", f"/tmp/pro{NUL}ject", "call", "memory_quota_summary"),
        ("call", "memory_list", json.dumps({"workdir": f"/tmp/pro{NUL}ject"})),
        ("call", "memory_index_overview", json.dumps({"workdir": f"/tmp/pro{NUL}ject"})),
        ("call", "episode_list", json.dumps({"workdir": f"/tmp/pro{SURROGATE}ject"})),
    ],
    ids=["list", "status", "context", "call-flag", "call-list", "call-overview", "episodes"],
)
def test_a_nul_in_a_workdir_is_a_typed_error(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], argv: tuple[str, ...]
) -> None:
    code, out, err = run_cli(*argv, "--json", home=home, clock=clock)

    assert (code, err) == (1, "")  # before: internal_error "embedded null byte" + traceback
    assert_refused(json.loads(out), "workdir", "at character 8")
    assert_intact(home, clock, seeded)


def test_a_nul_in_the_home_folder_is_a_typed_error(tmp_path: Path, clock: FakeClock) -> None:
    code, out, err = run_cli("list", "--json", home=f"{tmp_path}/me{NUL}mory", clock=clock)

    assert (code, err) == (1, "")
    assert_refused(json.loads(out), "home", "NUL")
    assert list(tmp_path.iterdir()) == []  # no store was made anywhere


# --- integers beyond SQLite's 64 bits, and times beyond year 9999 -----------------------------
INT_CASES = [
    ("memory_list", {"offset": INT64_OVER}, "offset", "out of range"),
    ("memory_list", {"limit": INT64_OVER}, "limit", "out of range"),
    ("memory_list", {"limit": -INT64_OVER - 1}, "limit", "out of range"),
    ("memory_list", {"offset": "99999999999999999999"}, "offset", "out of range"),
    ("memory_list", {"limit": 1e19}, "limit", "integer"),  # pydantic refuses it itself
    ("memory_read", {"slug": "tea-pref", "offset": 2**64}, "offset", "out of range"),
    ("memory_history", {"slug": "tea-pref", "limit": INT64_OVER}, "limit", "out of range"),
    ("memory_recent_rejections", {"since_days": INT64_OVER}, "since_days", "out of range"),
    ("organize_run_create", {"due_at": INT64_OVER}, "due_at", "out of range"),
    ("organize_run_create", {"due_at": 2**62}, "due_at", "less than or equal"),
    ("organize_due_claim", {"now": 2**64}, "now", "out of range"),
    ("organize_due_claim", {"now": 2**62}, "now", "less than or equal"),
    ("episode_list", {"offset": INT64_OVER}, "offset", "out of range"),
    ("memory_context", {"query": "tea", "token_budget": INT64_OVER}, "token_budget", "range"),
    ("settings_save_memory", {"settings": {"organizer": {"weekday": 2**70}}}, None, "range"),
]


@pytest.mark.parametrize(
    ("command", "payload", "field", "words"), INT_CASES, ids=[c[0] for c in INT_CASES]
)
def test_integers_beyond_64_bits_are_invalid_argument(
    home: Path,
    clock: FakeClock,
    seeded: dict[str, bytes],
    command: str,
    payload: dict[str, Any],
    field: str | None,
    words: str,
) -> None:
    error = call(home, clock, command, payload)

    assert error["error"] == InvalidArgument.code  # before: internal_error, OverflowError
    assert error.get("field") == (field or "settings.organizer.weekday")
    assert words in error["message"]
    assert_intact(home, clock, seeded)


def test_json_numbers_and_nesting_python_cannot_read_are_usage_errors(
    home: Path, clock: FakeClock, seeded: dict[str, bytes]
) -> None:
    for payload, why in (('{"limit": ' + "9" * 5000 + "}", "4300"), ("[" * 100_000, "deeply")):
        code, out, err = run_cli("call", "memory_list", payload, home=home, clock=clock)
        assert (code, out) == (2, "")
        assert "not valid JSON" in err and why in err and "Traceback" not in err
    assert_intact(home, clock, seeded)


# --- caps on free text that reaches disk ---------------------------------------------------------
HUGE = "c" * 10_000_000  # the issue's 10 MB conversation id
REASON = config.MAX_REASON_CHARS
CAP_CASES = [
    ("memory_write", {**WRITE, "conversation_id": HUGE}, "conversation_id"),
    ("memory_daily_append", {**DAILY_APPEND, "conversation_id": HUGE}, "conversation_id"),
    ("memory_write", {**WRITE, "model": "m" * (config.MAX_NAME_CHARS + 1)}, "model"),
    ("memory_update", {**UPDATE, "trigger": "t" * (config.MAX_NAME_CHARS + 1)}, "trigger"),
    ("memory_apply_batch", {"items": [BATCH_ITEM], "model": "m" * 300}, "model"),
    ("memory_delete", {"slug": "tea-pref", "reason": "r" * (REASON + 1)}, "reason"),
    (
        "memory_apply_batch",
        {"items": [{"op": "delete", "slug": "tea-pref", "reason": "r" * 5000}]},
        "items.0.reason",
    ),
    ("memory_write", {**WRITE, "workdir": "/" + "w" * config.MAX_PATH_CHARS}, "workdir"),
    ("organize_run_create", {"model": {"model": "m" * 300}}, "model.model"),
    ("organize_run_update", {"run_id": "r" * 300, "status": "failed"}, "run_id"),
    ("organize_run_update", {"run_id": "run-1", "error": "e" * (REASON + 1)}, "error"),
    *[
        (command, {"query": "q " * config.MAX_QUERY_CHARS}, "query")
        for command in ("memory_search", "memory_context", "episode_search")
    ],
]


@pytest.mark.parametrize(
    ("command", "payload", "field"), CAP_CASES, ids=[f"{c[0]}-{c[2]}" for c in CAP_CASES]
)
def test_oversized_ids_names_and_reasons_are_refused_with_the_limit(
    home: Path,
    clock: FakeClock,
    seeded: dict[str, bytes],
    command: str,
    payload: dict[str, Any],
    field: str,
) -> None:
    error = call(home, clock, command, payload)

    limits = {"reason": REASON, "error": REASON, "query": config.MAX_QUERY_CHARS}
    limit = {**limits, "workdir": config.MAX_PATH_CHARS}.get(
        field.rsplit(".", 1)[-1], config.MAX_NAME_CHARS
    )
    assert_refused(error, field, f"at most {limit} characters")
    assert len(error["message"]) < 500  # the message names the limit, it does not echo the text
    assert_intact(home, clock, seeded)  # before: a 12 MB memory file and a 5 MB journal


@pytest.mark.parametrize(
    ("choice", "limit"), [("model", config.MAX_NAME_CHARS), ("api_base", config.MAX_URL_CHARS)]
)
def test_oversized_model_settings_are_refused(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], choice: str, limit: int
) -> None:
    value = "https://" + "h" * limit if choice == "api_base" else "m" * (limit + 1)
    error = call(home, clock, "settings_save_memory", {"settings": {"default": {choice: value}}})

    assert error["error"] == "settings_invalid" and error["field"] == f"default.{choice}"
    assert f"the limit is {limit}" in error["message"]
    assert not (home / config.SETTINGS_FILENAME).exists()  # nothing saved
    assert_intact(home, clock, seeded)


def test_names_at_the_cap_are_accepted(
    home: Path, clock: FakeClock, seeded: dict[str, bytes]
) -> None:
    name = "c" * config.MAX_NAME_CHARS
    code, out, err = run_cli(
        "call",
        "memory_write",
        json.dumps({**WRITE, "conversation_id": name}),
        home=home,
        clock=clock,
    )
    assert (code, err) == (0, ""), out
    assert name in (home / "global" / "user" / "new-note.md").read_text(encoding="utf-8")


# --- the MemoryManager tool ---------------------------------------------------------------------
TOOL_CASES = [
    ({"action": "write", **WRITE, "description": f"x{SURROGATE}"}, "description"),
    ({"action": "write", **WRITE, "body": f"x{NUL}"}, "body"),
    ({"action": "write", **WRITE, "source_quote": f"x{SURROGATE}"}, "source_quote"),
    ({"action": "write", **WRITE, "aliases": ["ok", f"x{SURROGATE}"]}, "aliases.1"),
    ({"action": "update", **UPDATE, "body": f"x{NUL}"}, "body"),
    ({"action": "update", **UPDATE, "reasoning": f"x{SURROGATE}"}, "reasoning"),
    ({"action": "delete", "slug": "tea-pref", "reason": f"x{NUL}"}, "reason"),
    ({"action": "search", "query": f"tea{SURROGATE}"}, "query"),
    ({"action": "list", "filter_type": f"user{NUL}"}, "filter_type"),
    ({"action": f"list{SURROGATE}"}, "action"),
    ({"action": "list", f"x{SURROGATE}": 1}, "'x\\ud800'"),
    ({"action": "list", "limit": INT64_OVER}, "limit"),
    ({"action": "read", "slug": "tea-pref", "offset": 2**64}, "offset"),
]


@pytest.mark.parametrize(("arguments", "field"), TOOL_CASES, ids=[c[1] for c in TOOL_CASES])
@pytest.mark.parametrize("as_text", [False, True], ids=["object", "json-text"])
def test_memory_manager_tool_refuses_bad_arguments(
    home: Path,
    clock: FakeClock,
    seeded: dict[str, bytes],
    arguments: dict[str, Any],
    field: str,
    as_text: bool,
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        tool = ManagerToolExecutor(store, conversation_id="conv-1", model="openai/x")
        outcome = tool.execute(json.dumps(arguments) if as_text else arguments)

    assert not outcome.ok and not outcome.mutated
    assert_refused(outcome.payload, field)
    assert json.loads(outcome.content.encode("utf-8"))["error"] == InvalidArgument.code
    assert_intact(home, clock, seeded)


@pytest.mark.parametrize("who", ["conversation_id", "model"])
def test_memory_manager_tool_with_a_bad_provenance_writes_nothing(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], who: str
) -> None:
    provenance = {"conversation_id": "conv-1", "model": "openai/x", who: f"x{SURROGATE}"}
    with MemoryStore.open(home, clock=clock) as store:
        tool = ManagerToolExecutor(
            store, conversation_id=provenance["conversation_id"], model=provenance["model"]
        )
        write = tool.execute({"action": "write", **WRITE})
        update = tool.execute({"action": "update", **UPDATE})

    for outcome in (write, update):
        assert not outcome.ok
        assert_refused(outcome.payload, who, "U+D800")
    assert_intact(home, clock, seeded)


@pytest.mark.parametrize(
    "raw",
    ['{"action": "list", "limit": ' + "9" * 5000 + "}", "[" * 100_000],
    ids=["digits", "deep"],
)
def test_memory_manager_tool_arguments_python_cannot_read(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], raw: str
) -> None:
    with MemoryStore.open(home, clock=clock) as store:
        outcome = ManagerToolExecutor(store).execute(raw)

    assert not outcome.ok
    assert outcome.payload["error"] == InvalidArgument.code
    assert "not valid JSON" in outcome.payload["message"]
    assert_intact(home, clock, seeded)


# --- an extraction plan from the fake model server ------------------------------------------------
def plan_reply(server: FakeLLMServer, plan: dict[str, Any]) -> None:
    # json.dumps escapes a lone surrogate as \ud800 (the wire form); the client decodes it.
    call = tool_call("SubmitMemoryPlan", json.dumps(plan))
    server.push(Reply(completion_body(tool_calls=[call])))


def engine(store: MemoryStore, server: FakeLLMServer) -> ExtractionEngine:
    llm = llm_client(server)
    return ExtractionEngine(store, llm)


def extraction_turn(cid: str = "conv-1") -> TurnInput:
    messages = [
        {"role": "user", "content": "Please always use pnpm instead of npm in every project."},
        {"role": "assistant", "content": "Noted, I will use pnpm."},
    ]
    return TurnInput(cid, messages)


def plan_item(slug: str, **over: Any) -> dict[str, Any]:
    item = {
        "action": "write",
        "slug": slug,
        "scope": "global",
        "type": "feedback",
        "description": f"About {slug}",
        "body": f"The body of {slug}.",
        "confidence": "high",
        "source_quote": "always use pnpm",
    }
    return {**item, **over}


@pytest.mark.asyncio
async def test_plan_items_with_bad_text_are_rejected_alone(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], llm_server: FakeLLMServer
) -> None:
    plan_reply(
        llm_server,
        {
            "status": "updated",
            "items": [
                plan_item("use-pnpm"),
                plan_item("bad-quote", source_quote=f"always {SURROGATE}"),
                plan_item("bad-body", body=f"nul{NUL}here"),
                plan_item("bad-alias", aliases=["ok", f"x{SURROGATE}"]),
                {"action": "append_daily", "body": f"journal{NUL}line"},
                {"action": "update", "slug": "tea-pref", "body": f"x{SURROGATE}"},
            ],
        },
    )
    with MemoryStore.open(home, clock=clock) as store:
        result = await engine(store, llm_server).run(extraction_turn(), ConversationState())
        written = dispatch(store, "memory_read", {"slug": "use-pnpm"})

    assert result.status is ExtractionStatus.PARTIAL
    assert (result.applied, result.rejected, result.failed) == (1, 5, 0)
    assert result.written == ["use-pnpm"]
    rejected = {issue.index: issue for issue in result.issues}
    assert {issue.code for issue in rejected.values()} == {INVALID_TEXT}
    assert "items.1.source_quote" in rejected[1].message and "U+D800" in rejected[1].message
    assert "items.2.body" in rejected[2].message and "NUL" in rejected[2].message
    assert "items.3.aliases.1" in rejected[3].message
    assert "items.4.body" in rejected[4].message
    assert "items.5.body" in rejected[5].message
    assert written["entry"]["type"] == "feedback"
    assert_intact(home, clock, seeded, added={"use-pnpm": "pnpm"})  # nothing else written


@pytest.mark.asyncio
async def test_a_plan_note_with_bad_text_is_retried(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], llm_server: FakeLLMServer
) -> None:
    plan_reply(llm_server, {"status": "updated", "note": f"n{NUL}", "items": [plan_item("a-b")]})
    plan_reply(llm_server, {"status": "updated", "note": "fixed", "items": [plan_item("use-pnpm")]})
    with MemoryStore.open(home, clock=clock) as store:
        result = await engine(store, llm_server).run(extraction_turn(), ConversationState())

    assert result.status is ExtractionStatus.DONE and result.written == ["use-pnpm"]
    assert "note: contains a NUL" in llm_server.requests[1]["messages"][-1]["content"]
    assert_intact(home, clock, seeded, added={"use-pnpm": "pnpm"})


@pytest.mark.asyncio
async def test_a_conversation_id_with_a_lone_surrogate_writes_nothing(
    home: Path, clock: FakeClock, seeded: dict[str, bytes], llm_server: FakeLLMServer
) -> None:
    plan_reply(llm_server, {"status": "updated", "items": [plan_item("use-pnpm")]})
    with MemoryStore.open(home, clock=clock) as store:
        turn = extraction_turn(cid=f"conv{SURROGATE}")
        result = await engine(store, llm_server).run(turn, ConversationState())

    assert result.status is ExtractionStatus.FAILED
    assert result.reason == InvalidArgument.code and "conversation_id" in result.note
    assert_intact(home, clock, seeded)


# --- the rule itself ------------------------------------------------------------------------------
def test_clean_payload_names_the_path_of_nested_values_and_keys() -> None:
    with pytest.raises(InvalidArgument) as info:
        clean_payload({"episode": {"actions": [{"tool": "ok"}, {"tool": f"x{NUL}"}]}})
    assert info.value.field == "episode.actions.1.tool"

    with pytest.raises(InvalidArgument) as info:
        clean_payload({"settings": {f"key{SURROGATE}": 1}})
    assert info.value.field == "settings.'key\\ud800'"  # escaped: the key is the bad text
    info.value.message.encode("utf-8")

    cleaned = clean_payload({"a\r\nb": ["x\ry", 1, 2.5, None, True]})
    assert cleaned == {"a\nb": ["x\ny", 1, 2.5, None, True]}


def test_clean_text_allows_tab_newline_and_any_valid_unicode() -> None:
    text = "tab\there\nnew line 中文 😀 \u2028 \x7f \x85"
    assert clean_text(text, field="body") == text
    for code in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0xD800, 0xDFFF]:
        with pytest.raises(InvalidArgument):
            clean_text(f"a{chr(code)}", field="body")


def test_payloads_deeper_than_the_limit_are_refused() -> None:
    deep: Any = "leaf"
    for _ in range(config.REQUEST_MAX_DEPTH):
        deep = [deep]
    clean_payload(deep)  # exactly the limit: fine
    with pytest.raises(InvalidArgument, match="nested more than"):
        clean_payload([deep])


def test_int_range_is_sqlite_and_huge_numbers_are_described_not_printed() -> None:
    assert check_int(config.SQLITE_MAX_INTEGER, field="n") == 2**63 - 1
    assert check_int(config.SQLITE_MIN_INTEGER, field="n") == -(2**63)
    with pytest.raises(InvalidArgument, match="about 16610 bits"):
        check_int(10**5000, field="n")  # str() of it would raise ValueError itself


def test_load_json_reports_every_failure_as_value_error() -> None:
    assert load_json('{"a": [1]}') == {"a": [1]}
    for text in ("{", "1" * 5000, "[" * 100_000):
        with pytest.raises(ValueError):
            load_json(text)
