"""The CLI as a person uses it (issue 14): sentences instead of JSON, the command to try next,
near matches of a mistyped slug, a --home typo caught, batch failures that fail the command,
restore with its version ids, a date that does not exist, and one plural rule.

Through the real command line (tests/helpers/cli.py) on real stores in tmp_path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from liveagent_memory.cli.output import counted
from liveagent_memory.commands import dispatch
from liveagent_memory.domain.config import HOME_ENV_VAR
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import run_cli
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import remember, user_memory


def files_of(home: Path) -> dict[str, bytes]:
    """Every memory file of a store, to show a failed command changed none."""
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*.md"))
        if ".trash" not in p.parts
    }


# --- errors for a person ----------------------------------------------------------------------


def test_a_mistyped_slug_says_so_offers_the_near_one_and_the_command_to_try(
    store: MemoryStore, clock: FakeClock
) -> None:
    user_memory(store, "tea-pref")
    remember(store, "coffee-rule")
    before = files_of(store.root)

    code, out, err = run_cli("read", "tea-prf", home=store.root, clock=clock)

    assert (code, out) == (1, "")
    assert err == (
        "error: memory slug 'tea-prf' was not found\n"
        "did you mean tea-pref?\n"
        "try: liveagent-memory search 'tea prf'\n"
    )
    assert "action" not in err  # not the agent tool's {"action": "search"} form
    assert files_of(store.root) == before


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (
            ["serch", "tea"],
            "argument COMMAND: invalid choice 'serch'; did you mean search or serve?",
        ),
        (
            ["write", "--type", "refrence", "--description", "x", "--body", "y"],
            "argument --type: invalid choice 'refrence'; did you mean reference?",
        ),
        (["xyzzy"], "argument COMMAND: invalid choice 'xyzzy' (choose from call, "),
    ],
)
def test_a_mistyped_command_or_choice_names_the_near_one_and_changes_nothing(
    store: MemoryStore, clock: FakeClock, argv: list[str], named: str
) -> None:
    user_memory(store, "tea-pref")
    before = files_of(store.root)

    code, out, err = run_cli(*argv, home=store.root, clock=clock)

    assert (code, out) == (2, "")
    assert named in err
    assert files_of(store.root) == before


def test_with_json_the_error_is_its_json_shape_on_stdout(
    store: MemoryStore, clock: FakeClock
) -> None:
    user_memory(store, "tea-pref")

    code, out, err = run_cli("read", "tea-prf", "--json", home=store.root, clock=clock)

    assert (code, err) == (1, "")
    error = json.loads(out)
    assert error["error"] == "slug_not_found"
    assert error["candidates"] == [{"slug": "tea-pref", "scope": "global"}]
    assert error["suggested_next_call"] == {"action": "search", "query": "tea prf"}


def test_call_stays_the_machine_face(store: MemoryStore, clock: FakeClock) -> None:
    code, out, err = run_cli("call", "memory_read", '{"slug": "tea-prf"}', home=store.root)

    assert (code, err) == (1, "")
    assert json.loads(out)["error"] == "slug_not_found"


def test_a_slug_in_two_scopes_asks_for_a_scope_option(
    store: MemoryStore, clock: FakeClock, workdir: str
) -> None:
    remember(store, "build-notes")
    remember(store, "build-notes", scope="project", workdir=workdir)

    code, _, err = run_cli(
        "read", "build-notes", "--workdir", workdir, home=store.root, clock=clock
    )

    assert code == 1
    assert err.splitlines() == [
        "error: memory slug 'build-notes' exists in more than one scope; pass scope",
        "add --scope global or --scope project",
    ]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["read", "Tea Pref!"], "try: liveagent-memory read tea-pref"),
        (
            ["write", "daily-2026-01-01", "--type", "user", "--description", "d", "--body", "b"],
            "try: liveagent-memory daily TEXT --date 2026-01-01",
        ),
        (["organize", "show", "run-0-nope"], "try: liveagent-memory organize history"),
    ],
    ids=["slug_invalid", "journal name", "run_not_found"],
)
def test_suggestions_are_cli_commands(
    store: MemoryStore, clock: FakeClock, argv: list[str], expected: str
) -> None:
    code, out, err = run_cli(*argv, home=store.root, clock=clock)

    assert (code, out) == (1, "")
    assert err.startswith("error: ") and err.splitlines()[-1] == expected
    assert dispatch(store, "memory_list", {})["entries"] == []


# --- --home must exist (or --create) ----------------------------------------------------------


def test_a_home_that_does_not_exist_is_an_error_unless_create(tmp_path: Path) -> None:
    typo = tmp_path / "memroy"

    code, out, err = run_cli("--home", str(typo), "list")

    assert (code, out) == (2, "")
    assert err == (
        f"error: there is no memory store at {typo}: the folder does not exist. Check the "
        "path, or add --create to start a new store there\n"
    )
    assert not typo.exists()  # no empty store that looks like lost memories

    code, out, _ = run_cli("--home", str(typo), "key", "status", "--json")
    assert code == 2
    assert json.loads(out) == {
        "error": "store_not_found",
        "message": json.loads(out)["message"],
        "field": "home",
    }
    assert not typo.exists()

    # `call` is the programs' face: it starts a store on first use (an evaluation harness
    # does exactly this: `--home NEW call memory_apply_batch ...`).
    fresh = tmp_path / "harness-store"
    code, out, _ = run_cli("--home", str(fresh), "call", "memory_list", "{}")
    assert code == 0 and json.loads(out)["total"] == 0
    assert fresh.is_dir()

    code, out, _ = run_cli("--home", str(typo), "--create", "status")
    assert code == 0 and f"store at {typo}" in out
    assert typo.is_dir()
    code, out, _ = run_cli("--home", str(typo), "list")  # it exists now
    assert (code, out) == (0, "No memories.\n")


def test_the_default_home_is_made_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a typo: LIVEAGENT_MEMORY_HOME (like ~/.liveagent/memory) is created as before."""
    fresh = tmp_path / "env-home"
    monkeypatch.setenv(HOME_ENV_VAR, str(fresh))

    code, out, _ = run_cli("status")

    assert code == 0 and f"store at {fresh}" in out
    assert fresh.is_dir()


# --- apply-batch ------------------------------------------------------------------------------


def test_apply_batch_names_an_unknown_op_and_fails(tmp_path: Path, cli_home: str) -> None:
    batch = tmp_path / "batch.json"
    good = {"op": "upsert", "slug": "one-fact", "type": "user", "description": "d", "body": "b"}
    batch.write_text(json.dumps({"items": [good, {"op": "frob"}]}), encoding="utf-8")

    code, out, _ = run_cli("--home", cli_home, "apply-batch", str(batch))

    assert code == 1
    assert out.splitlines() == [
        "2 items: 1 applied, 1 failed, 0 skipped",
        "  item 1 (frob): unknown op 'frob': use upsert, update, delete, accept, daily_append "
        "[invalid_argument]",
    ]
    assert "needs a slug" not in out

    code, out, _ = run_cli("--home", cli_home, "apply-batch", str(batch), "--json")
    assert code == 1 and json.loads(out)["failed"] == 1

    batch.write_text(json.dumps({"items": [{**good, "slug": "two-fact"}]}), encoding="utf-8")
    code, out, _ = run_cli("--home", cli_home, "apply-batch", str(batch))
    assert (code, out) == (0, "1 item: 1 applied, 0 failed, 0 skipped\n")


# --- restore shows its versions ---------------------------------------------------------------


def test_restore_without_a_version_lists_the_versions_and_restore_names_its_undo(
    store: MemoryStore, clock: FakeClock
) -> None:
    user_memory(store, "tone", body="Be formal.")
    clock.advance(seconds=60)
    dispatch(store, "memory_update", {"slug": "tone", "body": "Be casual.", "actor": "user"})
    history = dispatch(store, "memory_history", {"slug": "tone"})["entries"]
    earlier = next(e["version"] for e in history if e["restorable"])

    code, out, err = run_cli("restore", "tone", home=store.root, clock=clock)

    assert (code, out) == (2, "")
    lines = err.splitlines()
    assert lines[0] == "restore needs a VERSION; tone has 1 earlier version:"
    assert earlier in lines[1] and "update" in lines[1]
    assert lines[2] == f"try: liveagent-memory restore tone {earlier}"
    assert "Be casual." in dispatch(store, "memory_read", {"slug": "tone"})["content"]

    code, out, _ = run_cli("restore", "tone", earlier, home=store.root, clock=clock)

    assert code == 0
    first, second = out.splitlines()
    assert first.startswith("restored tone (user, global)")
    undo = second.split()[-1]
    assert second == (
        f"the text it replaced is version {undo}: undo with liveagent-memory restore tone {undo}"
    )
    assert "Be formal." in dispatch(store, "memory_read", {"slug": "tone"})["content"]
    assert run_cli("restore", "tone", undo, home=store.root, clock=clock).code == 0
    assert "Be casual." in dispatch(store, "memory_read", {"slug": "tone"})["content"]


def test_history_says_how_to_restore(store: MemoryStore, clock: FakeClock) -> None:
    user_memory(store, "tone", body="Be formal.")
    dispatch(store, "memory_update", {"slug": "tone", "body": "Be casual.", "actor": "user"})

    code, out, _ = run_cli("history", "tone", home=store.root, clock=clock)

    assert code == 0
    assert out.splitlines()[-1] == "Restore a version with: liveagent-memory restore tone VERSION"


def test_undo_takes_back_an_accept_exactly_once(store: MemoryStore, clock: FakeClock) -> None:
    remember(store, "tone", body="Be formal.", actor="extractor")  # a model's: unreviewed
    [path] = store.root.rglob("tone.md")
    unreviewed = path.read_bytes()
    accepted = dispatch(store, "memory_accept", {"slug": "tone"})

    code, out, _ = run_cli("history", "tone", home=store.root, clock=clock)
    assert "Undo one change with: liveagent-memory undo tone VERSION" in out.splitlines()
    assert accepted["change"] in out

    code, out, err = run_cli("undo", "tone", accepted["change"], home=store.root, clock=clock)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "undone: tone (reference, global) is back as it was"
    assert path.read_bytes() == unreviewed

    code, out, err = run_cli("undo", "tone", accepted["change"], home=store.root, clock=clock)
    assert (code, out) == (1, "")
    assert err.startswith("error: memory 'tone' cannot be undone: that change was already undone")
    assert path.read_bytes() == unreviewed

    code, _, err = run_cli("undo", "tone", home=store.root, clock=clock)
    assert code == 2 and "required: VERSION" in err


# --- daily --date -----------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["daily"], ["daily", "Shipped it"]], ids=["read", "append"])
def test_a_date_that_does_not_exist_is_refused(
    store: MemoryStore, clock: FakeClock, argv: list[str]
) -> None:
    code, out, err = run_cli(*argv, "--date", "2026-13-45", home=store.root, clock=clock)

    assert (code, out) == (1, "")
    assert err == (
        "error: --date '2026-13-45' is not a valid date: use YYYY-MM-DD, e.g. 2026-01-31\n"
    )
    assert dispatch(store, "memory_journal_days", {})["days"] == []


# --- counts -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (1, "episode", "1 episode"),
        (2, "episode", "2 episodes"),
        (0, "memory", "0 memories"),
        (1, "memory", "1 memory"),
        (3, "journal day", "3 journal days"),
        (2, "match", "2 matches"),
        (2, "full body", "2 full bodies"),
        (1204, "file", "1,204 files"),
    ],
)
def test_one_plural_rule(n: int, noun: str, expected: str) -> None:
    assert counted(n, noun) == expected


def test_counts_in_the_output_agree_with_their_number(
    store: MemoryStore, clock: FakeClock, tmp_path: Path
) -> None:
    user_memory(store, "tea-pref")
    episode = {"goal": "Fix the login crash", "outcome": "success", "task_type": "debugging"}
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(episode), encoding="utf-8")
    assert run_cli("episode", "record", str(trace), home=store.root, clock=clock).code == 0

    status = run_cli("status", home=store.root, clock=clock).out
    listed = run_cli("episode", "list", home=store.root, clock=clock).out
    found = run_cli("episode", "search", "login", home=store.root, clock=clock).out

    assert "  1 memory, 0 journal days, 0 projects\n" in status
    assert listed.endswith("1 of 1 episode\n")
    assert found.endswith("1 episode found\n")


# --- status says how to open the app ----------------------------------------------------------


def test_headless_status_says_how_to_open_the_app(cli_home: str) -> None:
    # conftest runs the tests with QT_QPA_PLATFORM=offscreen: no display for a window.
    code, out, _ = run_cli("--home", cli_home, "status")

    assert code == 0
    assert out.splitlines()[-2:] == [
        "No display here: open the desktop app with `liveagent-memory app` on a machine with "
        "a display.",
        "Commands: liveagent-memory --help",
    ]


def test_status_on_a_desktop_names_the_app_command(
    cli_home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.setenv("DISPLAY", ":0")

    code, out, _ = run_cli("--home", cli_home, "status")

    assert code == 0
    assert "Open the desktop app with: liveagent-memory app\n" in out


def test_search_explain_shows_how_a_hybrid_search_fused_each_hit(
    home: Path, clock: FakeClock
) -> None:
    """`search --explain` over a store with vectors (the local model): a hit found by meaning
    alone has no keyword score to show, and the command says how each hit was fused instead
    of failing on it."""
    pytest.importorskip("numpy")
    with MemoryStore.open(home, clock=clock) as store:
        user_memory(store, "tea-habit", body="The user drinks green tea every morning.")
        remember(store, "deploy-notes", body="We deploy the service with helm charts.")
    assert run_cli("embeddings", "rebuild", home=home, clock=clock).code == 0

    run = run_cli("search", "--explain", "what beverage does the user like", home=home, clock=clock)

    assert run.code == 0, run.err
    blocks: list[str] = []  # one per hit: its line "   0.377  slug  (type, scope)" and below
    for line in run.out.splitlines():
        if line.startswith("          ") and blocks:
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
    tea = next(block for block in blocks if "tea-habit" in block)
    deploy = next(block for block in blocks if "deploy-notes" in block)
    assert "= raw " in tea and "matched user" in tea  # its keyword score, as before
    assert "keywords #1" in tea and "meaning #" in tea and "cosine" in tea
    assert "= raw " not in deploy and "not found by keywords; meaning #" in deploy
