"""`liveagent-memory organize …`: run the organizer, list runs, show one, apply its queue.

Through `cli.main` with a real store folder; the model (when one is used) is the fake
OpenAI-compatible server, and the API key comes from the (in-memory) keyring.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.commands import dispatch
from liveagent_memory.domain.clock import system_clock
from liveagent_memory.settings import SecretStore
from liveagent_memory.store import runs as store_runs
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import CliRun, cli_call_ok, run_cli
from tests.helpers.episodes import record
from tests.helpers.fake_llm import API_KEY, MODEL, FakeLLMServer, Reply
from tests.helpers.fakes import FakeClock
from tests.helpers.organizer import keep_all, new_run, planner, slugs_in, write

Cli = Callable[..., CliRun]


@pytest.fixture
def cli(clock: FakeClock) -> Cli:
    """`liveagent-memory ARGV…` on the test's clock: the store fixture made its runs with it,
    so a CLI on the real clock would see them as hours or days old."""
    return partial(run_cli, clock=clock)


def run_id_in(text: str) -> str:
    found = re.search(r"^Run (run-\S+): ", text, re.M)
    assert found, text
    return found.group(1)


def decisions_in(text: str) -> list[str]:
    """The decisions `organize show` lists: `NUMBER OP SLUG (WHERE)`."""
    return re.findall(r"^  [ ✓✗] +(\d+  \w+ [a-z0-9-]+ \([\w ]+\))  risk ", text, re.M)


def numbers_in(text: str) -> list[str]:
    return [line.split()[0] for line in decisions_in(text)]


def error_json(text: str) -> dict[str, Any]:
    return dict(json.loads(text))


@pytest.fixture
def duplicates(store: MemoryStore) -> Path:
    """A store with one pair of exact duplicates and one unrelated memory."""
    write(store, "tea-a", "I drink green tea every morning.", description="Morning tea")
    write(store, "tea-b", "I drink green tea every morning.", description="Morning tea")
    write(store, "coffee", "No coffee after 2pm.", description="Coffee rule")
    return store.root


def test_offline_run_prints_a_summary_with_decision_keys(
    cli: Cli, store: MemoryStore, duplicates: Path
) -> None:
    code, out, _ = cli("organize", "--home", str(duplicates), "--offline")

    assert code == 0, out
    assert "No model configured" not in out  # --offline was asked for
    run_id = run_id_in(out)
    assert f"Run {run_id}: succeeded (manual, scope all, mode conservative)" in out
    assert "(offline duplicate check)" in out
    assert "memories 3 → 3; clusters 1; applied 0; held back 0" in out
    assert "  … scan\n" in out and "  … apply\n" in out
    shown = decisions_in(out)
    assert len(shown) == 2
    assert re.fullmatch(r"0  upsert tea-[ab] \(global\)", shown[0])
    assert re.fullmatch(r"1  delete tea-[ab] \(global\)", shown[1])
    assert "decisions (pending):" in out
    assert f"Apply with: liveagent-memory organize apply {run_id} NUMBER" in out
    assert slugs_in(store) == {"tea-a", "tea-b", "coffee"}  # nothing applied


def test_history_show_and_apply(cli: Cli, store: MemoryStore, duplicates: Path) -> None:
    home = str(duplicates)
    code, out, _ = cli("organize", "history", "--home", home)
    assert (code, out) == (0, "No organizer runs yet.\n")
    code, out, _ = cli("organize", "--home", home, "--offline")
    assert code == 0
    run_id = run_id_in(out)
    upsert, removal = decisions_in(out)
    removal_key = f"1:delete:global::{removal.split()[2]}"

    code, out, _ = cli("organize", "history", "--home", home)
    assert code == 0
    (line,) = out.splitlines()
    assert line.startswith(f"{run_id}  ")
    assert "manual" in line and "succeeded" in line and "3→3 (×1.00)" in line

    code, out, _ = cli("organize", "show", run_id, "--home", home)
    assert code == 0
    assert run_id_in(out) == run_id
    assert decisions_in(out) == [upsert, removal]

    # Issue 14: a merge and its deletion are one decision; naming either part by its full key
    # (as `call organize_apply` takes it) applies both.
    code, out, _ = cli("organize", "apply", run_id, removal_key, "--home", home)
    assert code == 0
    assert out == f"{run_id}: applied; applied 2, failed 0; memories now 2\n"
    assert len(slugs_in(store)) == 2

    code, out, _ = cli("organize", "show", run_id, "--home", home)
    assert f"  ✓  {upsert}  risk low" in out
    assert f"  ✓  {removal}  risk low" in out
    assert "decisions (applied):" in out
    assert "Apply with:" not in out


def test_apply_by_numbers_and_an_unknown_number(
    cli: Cli, store: MemoryStore, duplicates: Path
) -> None:
    """Issue 14: `organize apply RUN 0 1` takes the numbers `organize show` lists."""
    home = str(duplicates)
    _, out, _ = cli("organize", "--home", home, "--offline")
    run_id = run_id_in(out)

    code, out, err = cli("organize", "apply", run_id, "7", "--home", home)

    assert (code, out) == (1, "")
    assert err.splitlines() == [
        "error: unknown decisions: 7 (this run's are numbered 0 to 1)",
        "open decisions: 0",  # the merge and its deletion are one decision, named by the merge
    ]
    assert len(slugs_in(store)) == 3

    code, out, _ = cli("organize", "apply", run_id, "0", "1", "--home", home)

    assert code == 0
    assert out == f"{run_id}: applied; applied 2, failed 0; memories now 2\n"
    assert len(slugs_in(store)) == 2  # merged into one


def test_apply_all_safe(cli: Cli, store: MemoryStore, duplicates: Path) -> None:
    home = str(duplicates)
    code, out, _ = cli("organize", "--home", home, "--offline")
    run_id = run_id_in(out)

    code, out, _ = cli("organize", "apply", run_id, "--all-safe", "--home", home)

    assert code == 0
    assert out == f"{run_id}: applied; applied 2, failed 0; memories now 2\n"
    assert len(slugs_in(store)) == 2
    assert "coffee" in slugs_in(store)
    code, out, _ = cli("organize", "history", "--home", home)
    assert "3→2 (×0.67)" in out


def test_apply_reject(cli: Cli, store: MemoryStore, duplicates: Path) -> None:
    home = str(duplicates)
    _, out, _ = cli("organize", "--home", home, "--offline")
    run_id = run_id_in(out)

    code, out, _ = cli("organize", "apply", run_id, "--reject", "--home", home)

    assert code == 0
    assert out.startswith(f"{run_id}: rejected; applied 0")
    assert len(slugs_in(store)) == 3
    code, out, _ = cli("organize", "apply", run_id, "--all-safe", "--json", "--home", home)
    assert code == 1
    assert error_json(out)["error"] == "nothing_to_apply"


def test_run_with_a_model_uses_the_keyring_key(
    cli: Cli, store: MemoryStore, llm_server: FakeLLMServer
) -> None:
    write(store, "tea-a", "I drink green tea.")
    write(store, "coffee", "No coffee after 2pm.")
    SecretStore().set("organizer", API_KEY)
    llm_server.push(planner(keep_all))

    code, out, _ = cli(
        "organize",
        "--home",
        str(store.root),
        "--model",
        MODEL,
        "--api-base",
        llm_server.base_url,
        "--mode",
        "standard",
    )

    assert code == 0, out
    assert "No model configured" not in out
    assert len(llm_server.requests) == 1
    headers = {name.lower(): value for name, value in llm_server.headers[0].items()}
    assert headers["authorization"] == f"Bearer {API_KEY}"
    assert llm_server.tool_names(0) == ["SubmitMemoryOrganizePlan"]
    assert "Mode: standard." in llm_server.requests[0]["messages"][0]["content"]
    run_id = run_id_in(out)
    assert f"Run {run_id}: succeeded (manual, scope all, mode standard)" in out
    assert "(offline duplicate check)" not in out
    assert "tokens 150" in out
    run = dispatch(store, "organize_run_read", {"run_id": run_id})["run"]
    assert run["model"] == {"model": MODEL}
    assert API_KEY not in json.dumps(run)


def test_model_failure_exits_1(cli: Cli, store: MemoryStore, llm_server: FakeLLMServer) -> None:
    write(store, "tea-a")
    llm_server.reply_error(500, "down")

    code, out, _ = cli(
        "organize", "--home", str(store.root), "--model", MODEL, "--api-base", llm_server.base_url
    )

    assert code == 1
    assert ": failed (manual" in out
    assert "error: every cluster's plan failed" in out


def test_no_model_falls_back_to_offline(cli: Cli, store: MemoryStore, duplicates: Path) -> None:
    code, out, _ = cli("organize", "--home", str(duplicates))

    assert code == 0
    assert out.startswith("No model configured: running the offline duplicate check instead.\n")
    assert "(offline duplicate check)" in out
    run = dispatch(store, "organize_run_read", {"run_id": run_id_in(out)})["run"]
    assert run["model"] == {"model": "offline"}


def test_dry_run_flag(cli: Cli, store: MemoryStore, duplicates: Path) -> None:
    code, out, _ = cli("organize", "--home", str(duplicates), "--offline", "--dry-run")

    assert code == 0
    assert ", dry run)" in out
    assert "decisions (not stored for apply):" in out
    assert "Apply with:" not in out


def test_nothing_to_organize(cli: Cli, home: Path) -> None:
    code, out, _ = cli("organize", "--offline", home=home)

    assert code == 0
    assert ": skipped (manual" in out
    assert "nothing to organize" in out


def test_current_project_scope_needs_a_workdir(
    cli: Cli, store: MemoryStore, duplicates: Path
) -> None:
    code, out, _ = cli(
        "organize", "--home", str(duplicates), "--offline", "--scope", "current-project", "--json"
    )

    assert code == 1
    error = error_json(out)
    assert error["error"] == "invalid_argument"
    assert "--workdir" in error["message"]
    assert dispatch(store, "organize_run_list", {})["runs"] == []  # no run was started


def test_current_project_scope_with_a_workdir(cli: Cli, store: MemoryStore, workdir: str) -> None:
    write(store, "tea-a", "Same words.", description="Same")
    write(store, "tea-b", "Same words.", description="Same")
    for slug in ("build-a", "build-b"):
        write(store, slug, "Run make.", description="Build", scope="project", workdir=workdir)

    code, out, _ = cli(
        "organize",
        "--home",
        str(store.root),
        "--workdir",
        workdir,
        "--offline",
        "--scope",
        "current-project",
    )

    assert code == 0
    assert "memories 2 → 2" in out
    assert all(line.endswith(")") and "(project " in line for line in decisions_in(out))
    assert len(decisions_in(out)) == 2


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["organize", "show", "run-0-nope"], id="show"),
        pytest.param(["organize", "apply", "run-0-nope", "0:delete:global::x"], id="apply"),
    ],
)
def test_unknown_run_id(cli: Cli, home: Path, argv: list[str]) -> None:
    code, out, _ = cli(*argv, "--json", home=home)

    assert code == 1
    error = error_json(out)
    assert error["error"] == "run_not_found"
    assert "run-0-nope" in error["message"]


def test_show_and_apply_need_a_run_id(cli: Cli, home: Path) -> None:
    for action in ("show", "apply"):
        code, out, _ = cli("organize", action, "--json", home=home)
        assert code == 1
        assert error_json(out)["error"] == "invalid_argument"


def test_a_second_run_while_one_is_active_is_skipped(
    cli: Cli, store: MemoryStore, duplicates: Path
) -> None:
    active = new_run(store)

    code, out, _ = cli("organize", "--home", str(duplicates), "--offline")

    assert code == 1
    assert out == "Another organizer run is active; this one was recorded as skipped.\n"
    runs = dispatch(store, "organize_run_list", {})["runs"]
    assert sorted(r["status"] for r in runs) == ["running", "skipped"]
    assert any(r["run_id"] == active["run_id"] for r in runs)


def test_a_run_another_program_queued_is_run_instead_of_blocking(
    cli: Cli, store: MemoryStore, duplicates: Path
) -> None:
    code, out, _ = cli(
        "call",
        "organize_run_create",
        '{"trigger": "manual", "mode": "standard"}',
        "--home",
        str(duplicates),
    )
    queued = json.loads(out)["run"]
    assert (code, queued["status"]) == (0, "pending")  # no app is running to claim it

    code, out, _ = cli("organize", "--home", str(duplicates), "--offline")

    assert code == 0, out
    assert out.startswith(
        f"Running {queued['run_id']}, queued by another program (scope all, mode standard).\n"
    )
    runs = dispatch(store, "organize_run_list", {})["runs"]
    assert [(r["run_id"], r["status"]) for r in runs] == [(queued["run_id"], "succeeded")]


def test_organize_json_output_is_the_run(cli: Cli, duplicates: Path) -> None:
    code, out, _ = cli("organize", "--home", str(duplicates), "--offline", "--json")
    assert code == 0
    run = json.loads(out)
    assert run["status"] == "succeeded" and run["report"]["report"]["safeDecisions"]
    code, out, _ = cli("organize", "history", "--home", str(duplicates), "--json")
    assert code == 0 and [r["run_id"] for r in json.loads(out)] == [run["run_id"]]


def test_an_offline_run_merges_only_duplicates_and_reports_the_contradiction(
    cli: Cli, store: MemoryStore
) -> None:
    """Issue 15: the same sentence about two things stays apart, two values are shown, and
    forbidding one thing in other words is a duplicate."""
    memories = {
        "brands-alias": ("品牌索引通过别名 brands 访问", "品牌索引"),
        "products-alias": ("商品索引通过别名 products 访问", "商品索引"),
        "pool-prod": ("cart-api uses a DB pool size of 40 in production.", "DB pool size 40"),
        "pool-staging": ("cart-api uses a DB pool size of 10 in staging.", "DB pool size 10"),
        "rate-10": ("结算接口每个用户每秒限 10 次请求", "结算接口每秒限 10 次"),
        "rate-5": ("结算接口每个用户每秒限 5 次请求", "结算接口每秒限 5 次"),
        "tabs-no": ("写代码时不要用 tabs 缩进", "不要用 tabs 缩进代码"),
        "tabs-bie": ("写代码时别用 tabs 缩进", "别用 tabs 缩进代码"),
    }
    for slug, (body, description) in memories.items():
        write(store, slug, body, description=description)
    before = slugs_in(store)

    code, out, _ = cli("organize", "--home", str(store.root), "--offline", "--json")

    assert code == 0
    report = json.loads(out)["report"]["report"]
    merged = {tuple(d["sourceSlugs"]) for d in report["safeDecisions"] if d["op"] == "upsert"}
    assert merged in ({("tabs-bie", "tabs-no")}, {("tabs-no", "tabs-bie")})
    (item,) = [i for i in report["reviewItems"] if i.get("code") == "contradiction"]
    assert {item["params"]["first"], item["params"]["second"]} == {"rate-10", "rate-5"}
    assert [d["kind"] for d in item["params"]["differences"]] == ["number"]
    assert "disagree" in item["message"]
    assert slugs_in(store) == before  # an offline run only proposes


@pytest.fixture
def disagreeing(store: MemoryStore, cli: Cli) -> str:
    """An offline run of a store with two memories that disagree; its run id."""
    write(store, "rate-10", "结算接口每个用户每秒限 10 次请求", description="结算接口每秒限 10 次")
    write(store, "rate-5", "结算接口每个用户每秒限 5 次请求", description="结算接口每秒限 5 次")
    code, out, _ = cli("organize", "--home", str(store.root), "--offline")
    assert code == 0
    assert f"organize contradictions {run_id_in(out)}" in out
    return run_id_in(out)


def test_contradictions_are_listed_and_answered_by_number(
    cli: Cli, store: MemoryStore, disagreeing: str
) -> None:
    """Issue 15: `organize contradictions RUN` shows both texts; `organize resolve RUN 0
    keep-first` keeps the first and moves the second to the trash."""
    home = str(store.root)
    code, out, _ = cli("organize", "contradictions", disagreeing, "--home", home)
    assert code == 0
    assert re.search(r"^ 0  rate-(10|5) / rate-(10|5)  \[pending\]$", out, re.M), out
    assert "结算接口每个用户每秒限 10 次请求" in out and "结算接口每个用户每秒限 5 次请求" in out
    assert "which one is current?" in out
    first = re.search(r"first: (rate-\d+):", out)
    assert first
    code, out, _ = cli("organize", "resolve", disagreeing, "0", "keep-first", "--home", home)
    assert code == 0, out
    assert "resolved (keep_first)" in out and "moved to the trash" in out
    assert slugs_in(store) == {first.group(1)}
    code, out, _ = cli("organize", "contradictions", disagreeing, "--home", home)
    assert "[resolved: keep_first]" in out


def test_resolve_edit_takes_the_text(cli: Cli, store: MemoryStore, disagreeing: str) -> None:
    home = str(store.root)
    text = "结算接口每个用户每秒限 8 次请求"
    argv = ("organize", "resolve", disagreeing, "0", "edit", "--keep", "second", "--text", text)
    code, out, _ = cli(*argv, "--json", "--home", home)
    assert code == 0, out
    result = json.loads(out)
    (kept,) = result["kept"]
    assert slugs_in(store) == {kept}
    assert dispatch(store, "memory_read", {"slug": kept})["content"] == text


def test_resolve_edit_can_give_a_new_description_too(
    cli: Cli, store: MemoryStore, disagreeing: str
) -> None:
    """The kept memory's old description may state the old value: an edit can replace it."""
    home = str(store.root)
    text, description = "结算接口每个用户每秒限 8 次请求", "结算接口每秒限 8 次"
    argv = ("organize", "resolve", disagreeing, "0", "edit", "--text", text)
    code, out, _ = cli(*argv, "--description", description, "--json", "--home", home)
    assert code == 0, out
    (kept,) = json.loads(out)["kept"]
    read = dispatch(store, "memory_read", {"slug": kept})
    assert (read["content"], read["entry"]["description"]) == (text, description)


@pytest.mark.parametrize(
    ("argv", "field", "words"),
    [
        (["0"], "target", "needs RUN NUMBER CHOICE"),
        (["0", "keep-frist"], "resolution", "did you mean keep-first?"),
        (["9", "keep-both"], "key", "numbered 0 to 0"),
        (["0", "edit"], "body", "an edit needs the current text"),
        (["0", "keep-both", "--description", "x"], "description", "only an edit takes"),
    ],
)
def test_resolve_typos_and_missing_arguments_are_clear_errors(
    cli: Cli, store: MemoryStore, disagreeing: str, argv: list[str], field: str, words: str
) -> None:
    before = slugs_in(store)
    code, out, _ = cli(
        "organize", "resolve", disagreeing, *argv, "--json", "--home", str(store.root)
    )
    assert code == 1
    error = error_json(out)
    assert (error["error"], error["field"]) == ("invalid_argument", field)
    assert words in error["message"]
    assert slugs_in(store) == before
    listed = dispatch(store, "organize_contradictions", {"run_id": disagreeing})
    assert listed["contradictions"][0]["state"] == {"status": "pending"}


def test_contradictions_and_resolve_need_a_run_id(cli: Cli, home: Path) -> None:
    for action in ("contradictions", "resolve"):
        code, out, _ = cli("organize", action, "--json", home=home)
        assert code == 1
        assert error_json(out)["error"] == "invalid_argument"


# --- a crash during a run (issue 12) ------------------------------------------------------------


def test_kill_9_during_organize_leaves_no_block_and_the_run_ends_abandoned(
    home: Path, llm_server: FakeLLMServer
) -> None:
    # The real command in its own process, on the real clock, stuck in its model call.
    with MemoryStore.open(home) as store:
        write(store, "tea-a", "I drink green tea every morning.", description="Morning tea")
        write(store, "coffee", "No coffee after 2pm.", description="Coffee rule")
    released = threading.Event()
    answer = planner(keep_all)

    def hold(request: dict[str, Any]) -> Reply:
        released.wait(60)
        return answer(request)

    llm_server.push(hold)
    env = {
        **os.environ,
        "OPENAI_API_KEY": API_KEY,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",  # the env key, not the OS's
    }
    argv = ["organize", "--home", str(home), "--model", MODEL, "--api-base", llm_server.base_url]
    child = subprocess.Popen(
        [sys.executable, "-m", "liveagent_memory", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not llm_server.requests and child.poll() is None:
            assert time.monotonic() < deadline, "the organizer never reached its model call"
            time.sleep(0.05)
        assert child.poll() is None, child.communicate()[1][-800:]
        child.kill()  # SIGKILL: no cleanup of any kind runs
        child.wait(timeout=30)
    finally:
        released.set()
        if child.poll() is None:  # pragma: no cover - only when an assertion above failed
            child.kill()
        child.communicate()
    assert child.returncode == -signal.SIGKILL

    with MemoryStore.open(home) as store:  # nobody has looked at the runs since the kill
        with store.index.read() as conn:
            (crashed,) = store_runs.list_runs(conn, limit=10)
    assert (crashed.status, crashed.phase, crashed.error) == ("running", "plan", None)

    code, out, err = run_cli("organize", "--home", str(home), "--offline")

    assert code == 0, out + err
    assert "succeeded" in out and "Another organizer run" not in out
    old = cli_call_ok(home, system_clock, "organize_run_read", {"run_id": crashed.run_id})["run"]
    assert (old["status"], old["error"], old["phase"]) == ("failed", "abandoned", "plan")
    assert old["finished_at"] is not None


# --- organize --consolidate (issue 18) -----------------------------------------------------------
def payment_failures(store: MemoryStore, clock: FakeClock) -> list[str]:
    return [
        record(
            store,
            clock,
            f"charge card {n}",
            outcome="failure",
            errors=[("ConnectionError", f"sandbox refused after {n} tries", "connect the VPN")],
        )
        for n in (2, 3, 5)
    ]


def test_consolidate_lists_what_it_proposed_from_which_episodes_and_applies_nothing(
    cli: Cli, store: MemoryStore, clock: FakeClock
) -> None:
    ids = payment_failures(store, clock)
    home = str(store.root)

    code, out, err = cli("organize", "--consolidate", "--offline", "--home", home)

    assert (code, err) == (0, "")
    run_id = re.search(r"^Consolidation (run-\S+): succeeded$", out, re.M)
    assert run_id, out
    assert "  3 new episodes; 1 proposals for review (1 anti-patterns, 0 skills, 0 patterns)" in out
    assert re.search(
        rf"^   0  new anti-pattern avoid-connectionerror-\w+ \(global\) from {', '.join(ids)}$",
        out,
        re.M,
    )
    assert "Avoid: ConnectionError: sandbox refused after 2 tries (met 3 times)" in out
    assert (
        f"Nothing was applied. Review with: liveagent-memory organize show {run_id.group(1)}" in out
    )
    assert slugs_in(store) == set()

    code, out, _ = cli("organize", "--consolidate", "--offline", "--home", home)

    assert (code, out) == (
        0,
        out.split(":")[0] + ": no new episodes since the last consolidation; nothing to learn.\n",
    )
    assert out.startswith("Consolidation run-")


def test_consolidate_as_json(cli: Cli, store: MemoryStore, clock: FakeClock) -> None:
    ids = payment_failures(store, clock)

    code, out, _ = cli("organize", "--consolidate", "--json", "--home", str(store.root))

    assert code == 0
    result = json.loads(out)
    assert result["claimed"] is True
    run = result["run"]
    assert (run["status"], run["phase"]) == ("succeeded", "consolidate")
    (decision,) = run["report"]["report"]["safeDecisions"]
    assert decision["reasonParams"]["episodes"] == ids
    assert run["report"]["report"]["manualApplyState"]["status"] == "pending"
    assert slugs_in(store) == set()


def test_consolidate_flags_typed_and_mistyped(
    cli: Cli, store: MemoryStore, clock: FakeClock
) -> None:
    payment_failures(store, clock)
    home = str(store.root)

    code, out, err = cli("organize", "--consolidte", "--home", home)
    assert (code, out) == (2, "")
    assert "unrecognized arguments: --consolidte" in err

    code, out, err = cli("organize", "history", "--consolidate", "--home", home)
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        "error: --consolidate starts a consolidation; it does not go with `organize history`"
    )

    code, out, err = cli("organize", "--consolidate", "--mode", "aggressive", "--home", home)
    assert (code, out) == (1, "")
    assert "--consolidate takes only --offline, --model, --workdir and --json" in err
    assert dispatch(store, "organize_run_list", {})["runs"] == []  # nothing started
