"""One bad file, name, value or damaged index table stays one problem (issue 12).

Each case is made the way a person, a sync tool or a crash makes it: bytes written by hand
below the store root, or an index file damaged in place. Each test checks the typed outcome
(a problem with its path and reason, or a typed error) and that every other memory still
opens, reads and searches, through the same entry points people use (the store, `call`).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from liveagent_memory.commands import call, dispatch
from liveagent_memory.domain import config
from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.domain.requests import ListRequest
from liveagent_memory.store.store import MemoryStore
from tests.helpers.cli import cli_call, run_cli
from tests.helpers.diskstore import INDEX_NAME, memory_text, query, write_file
from tests.helpers.fakes import FakeClock
from tests.helpers.unprivileged import Unprivileged


def seed(store: MemoryStore) -> None:
    """Two good memories the bad file must not take down."""
    for slug, body in (
        ("green-tea", "The user drinks green tea."),
        ("deploy", "Deploy on Fridays."),
    ):
        dispatch(
            store,
            "memory_write",
            {
                "slug": slug,
                "scope": "global",
                "type": "reference",
                "description": slug,
                "body": body,
            },
        )


def notes(store: MemoryStore, prefix: str, count: int = 20) -> None:
    """`count` more memories, `{prefix}-00`…, each with its own words (several FTS blocks)."""
    for i in range(count):
        dispatch(
            store,
            "memory_write",
            {
                "slug": f"{prefix}-{i:02d}",
                "scope": "global",
                "type": "reference",
                "description": f"{prefix} {i}",
                "body": f"words of {prefix} {i}",
            },
        )


def assert_still_usable(home: Path, clock: FakeClock) -> None:
    """Every good memory opens, reads and searches; through the CLI too."""
    with MemoryStore.open(home, clock=clock) as store:
        assert dispatch(store, "memory_read", {"slug": "green-tea"})["content"].endswith(
            "The user drinks green tea."
        )
        hits = dispatch(store, "memory_search", {"query": "green tea"})["matches"]
        assert [hit["slug"] for hit in hits][:1] == ["green-tea"]
        assert {e["slug"] for e in dispatch(store, "memory_list", {})["entries"]} >= {
            "green-tea",
            "deploy",
        }
    code, listed = cli_call(home, clock, "memory_list", {})
    assert code == 0 and {"green-tea", "deploy"} <= {e["slug"] for e in listed["entries"]}


def problems(home: Path, clock: FakeClock) -> dict[str, str]:
    code, out, _ = run_cli("problems", "--json", home=home, clock=clock)
    data = json.loads(out)
    assert code == 0
    return {p["path"]: p["reason"] for p in data["problems"]}


# --- bad characters and values in hand-made files --------------------------------------------


@pytest.mark.parametrize(
    "field_line",
    [
        'description: "tea \\udc80"',
        'headline: "\\ud800"',
        'source:\n  conversationId: "conv-\\udc80"\n  trigger: user',
        'mood: "\\ud800 hand-added key"',
    ],
)
def test_a_lone_surrogate_in_a_hand_edited_file_is_that_files_problem(
    store: MemoryStore, home: Path, clock: FakeClock, field_line: str
) -> None:
    seed(store)
    store.close()
    text = f"---\nname: bad-one\ntype: reference\n{field_line}\n---\n\nBody.\n"
    path = write_file(home, "global/bad-one.md", text)

    found = problems(home, clock)

    assert "invalid character (U+D" in found["global/bad-one.md"]
    assert path.read_text() == text  # never touched
    assert_still_usable(home, clock)


def test_a_file_name_that_is_not_utf8_is_reported_not_fatal(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    store.close()
    raw_name = os.path.join(os.fsencode(home / "global"), b"bad-\xff.md")
    with open(raw_name, "wb") as handle:
        handle.write(memory_text("bad-x").encode())

    found = problems(home, clock)

    assert found == {
        "global/bad-\\xff.md": "the file name is not valid UTF-8: rename the file to read it"
    }
    assert os.path.exists(raw_name)
    assert_still_usable(home, clock)


def test_an_episode_file_or_folder_name_that_is_not_utf8_is_reported(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    store.close()
    episodes = os.fsencode(home / "episodes")
    os.makedirs(os.path.join(episodes, b"2026-11-30"))
    os.makedirs(os.path.join(episodes, b"2026-\xfe"))
    with open(os.path.join(episodes, b"2026-11-30", b"ep-\xff.json"), "wb") as handle:
        handle.write(b"{}")

    found = problems(home, clock)

    assert found["episodes/2026-11-30/ep-\\xff.json"].startswith("the file name is not valid")
    assert found["episodes/2026-\\xfe"].startswith("the file name is not valid")
    assert_still_usable(home, clock)


def test_an_append_count_beyond_64_bits_is_that_journals_problem(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    store.close()
    write_file(
        home,
        "global/daily/2026-11-29.md",
        "---\nname: daily-2026-11-29\ntype: daily\ndate: 2026-11-29\n"
        "appendCount: 99999999999999999999\n---\n\n- a day\n",
    )

    found = problems(home, clock)

    assert found == {
        "global/daily/2026-11-29.md": (
            "frontmatter field 'appendCount' is out of range (99999999999999999999)"
        )
    }
    assert_still_usable(home, clock)


def test_a_file_too_large_to_index_is_reported_and_not_read(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    store.close()
    size = config.MAX_INDEXED_FILE_BYTES + 1
    head = memory_text("huge-note", body="").encode()
    path = write_file(home, "global/huge-note.md", head + b"x" * (size - len(head)))

    found = problems(home, clock)

    assert "too large to index (1,048,577 bytes" in found["global/huge-note.md"]
    assert path.stat().st_size == size
    assert query(
        home / INDEX_NAME, "SELECT COUNT(*) FROM memory_meta WHERE slug = 'huge-note'"
    ) == [(0,)]
    assert_still_usable(home, clock)
    # Cut down to size, it is indexed on the next pass.
    path.write_text(memory_text("huge-note", body="Now small."))
    with MemoryStore.open(home, clock=clock) as reopened:
        assert dispatch(reopened, "memory_read", {"slug": "huge-note"})["content"].endswith(
            "Now small."
        )
        assert reopened.problems() == []


def test_a_value_the_index_cannot_hold_fails_only_its_file(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    """Whatever else breaks while indexing one file (here: a row the index refuses) is that
    file's problem too, in a full rebuild's bulk insert as in an incremental pass."""
    seed(store)
    store.close()
    write_file(home, "global/refused.md", memory_text("refused", body="Refused by a trigger."))
    db = sqlite3.connect(home / INDEX_NAME)
    db.execute(
        "CREATE TRIGGER refuse_one BEFORE INSERT ON memory_meta WHEN NEW.slug = 'refused' "
        "BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
    )
    db.commit()
    db.close()

    found = problems(home, clock)  # incremental pass

    assert found == {"global/refused.md": "could not be indexed: IntegrityError: refused by test"}
    assert_still_usable(home, clock)
    with MemoryStore.open(home, clock=clock) as reopened:
        report = reopened.reconcile(full=True)  # the bulk insert of a full rebuild
        assert [(p.path, p.reason) for p in report.problems] == list(found.items())
        assert {e.slug for e in reopened.list_entries(_list_all()).entries} == {
            "green-tea",
            "deploy",
        }


def _list_all() -> ListRequest:
    return ListRequest()


# --- journal names ---------------------------------------------------------------------------


def test_a_memory_may_not_take_a_journals_name(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    payload = {
        "slug": "daily-2030-01-01",
        "scope": "global",
        "type": "reference",
        "description": "x",
        "body": "y",
    }
    ok, error = call(store, "memory_write", payload)
    assert not ok and error["error"] == "slug_invalid" and error["field"] == "slug"
    ok, batch = call(store, "memory_apply_batch", {"items": [{"op": "upsert", **payload}]})
    assert ok and batch["items"][0]["error"]["error"] == "slug_invalid"
    assert not (home / "global" / "daily-2030-01-01.md").exists()
    store.close()
    # A hand-made one is reported, and the day's journal still takes entries.
    write_file(home, "global/daily-2030-01-01.md", memory_text("daily-2030-01-01"))
    with MemoryStore.open(home, clock=clock) as reopened:
        for entry in ("first", "second"):
            dispatch(reopened, "memory_daily_append", {"bullet": entry, "local_date": "2030-01-01"})
        journal = dispatch(reopened, "memory_read", {"slug": "daily-2030-01-01"})
        assert journal["entry"]["path"] == "global/daily/2030-01-01.md"
        assert journal["content"].count("first") == 1 and "second" in journal["content"]
        assert [p["path"] for p in reopened.problems()] == ["global/daily-2030-01-01.md"]
    assert_still_usable(home, clock)


# --- symbolic links and the store's own folders ------------------------------------------------


def test_a_linked_sub_folder_is_never_read_written_or_chmoded(
    store: MemoryStore, home: Path, clock: FakeClock, tmp_path: Path
) -> None:
    seed(store)
    store.close()
    outside = tmp_path / "elsewhere"
    outside.mkdir(mode=0o755)
    (outside / "outside-note.md").write_text(memory_text("outside-note"))
    os.symlink(outside, home / "global" / "skills")

    with MemoryStore.open(home, clock=clock) as reopened:
        assert reopened.problems() == [
            {
                "path": "global/skills",
                "reason": "symbolic link to a folder: not followed (the store reads and writes "
                "only its own folders)",
            }
        ]
        with pytest.raises(StoreUnavailable, match="global/skills is a symbolic link"):
            from liveagent_memory.domain.requests import SkillInput, WriteRequest

            reopened.write(
                WriteRequest(
                    slug="new-skill",
                    scope="global",
                    type="skill",
                    description="A skill",
                    skill=SkillInput(when_to_use="always", steps=["do it"]),
                )
            )
        ok, error = call(reopened, "memory_search", {"query": "outside"})
        assert ok and error["matches"] == []
    assert sorted(p.name for p in outside.iterdir()) == ["outside-note.md"]
    assert outside.stat().st_mode & 0o777 == 0o755
    assert_still_usable(home, clock)


def test_a_linked_project_folder_is_reported_and_not_written_through(
    store: MemoryStore, home: Path, clock: FakeClock, tmp_path: Path, workdir: str
) -> None:
    seed(store)
    dispatch(
        store,
        "memory_write",
        {
            "slug": "build",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "Build",
            "body": "make build",
        },
    )
    project = next((home / "projects").iterdir())
    names = sorted(p.name for p in project.iterdir())
    store.close()
    outside = tmp_path / "moved-project"
    project.rename(outside)
    os.symlink(outside, project)

    with MemoryStore.open(home, clock=clock) as reopened:
        assert [p["path"] for p in reopened.problems()] == [f"projects/{project.name}"]
        ok, error = call(
            reopened,
            "memory_write",
            {
                "slug": "test-cmd",
                "scope": "project",
                "workdir": workdir,
                "type": "project",
                "description": "Test",
                "body": "make test",
            },
        )
        assert not ok and error["error"] == "store_unavailable"
    assert sorted(p.name for p in outside.iterdir()) == names
    assert_still_usable(home, clock)


# --- a damaged index in use --------------------------------------------------------------------


def damage(home: Path, table: str) -> None:
    """Overwrite an FTS5 table's blocks: PRAGMA quick_check still says ok."""
    db = sqlite3.connect(home / INDEX_NAME)
    rng = random.Random(7)  # the same damage every run
    blocks = db.execute(f"SELECT id, length(block) FROM {table}_data WHERE id > 1").fetchall()
    for block_id, size in blocks:
        noise = bytes(rng.randrange(256) for _ in range(size))
        db.execute(f"UPDATE {table}_data SET block = ? WHERE id = ?", (noise, block_id))
    db.commit()
    assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)
    db.close()


@pytest.mark.parametrize("table", ["memory_search", "memory_fts"])
def test_an_fts_table_damaged_behind_quick_checks_back_is_rebuilt_keeping_history(
    store: MemoryStore, home: Path, clock: FakeClock, table: str
) -> None:
    seed(store)
    notes(store, "note")  # enough rows for several FTS blocks
    dispatch(store, "memory_update", {"slug": "deploy", "body": "Deploy on Mondays."})
    history = dispatch(store, "memory_history", {"slug": "deploy"})["entries"]
    store.close()
    damage(home, table)

    with MemoryStore.open(home, clock=clock) as reopened:
        ok, written = call(
            reopened,
            "memory_write",
            {
                "slug": "after-damage",
                "scope": "global",
                "type": "reference",
                "description": "After",
                "body": "written after the damage",
            },
        )
        assert ok, written
        hits = dispatch(reopened, "memory_search", {"query": "written after the damage"})
        assert hits["matches"][0]["slug"] == "after-damage"
        assert dispatch(reopened, "memory_history", {"slug": "deploy"})["entries"] == history
    assert len(list((home / ".quarantine").glob("corrupt-*"))) == 1
    assert_still_usable(home, clock)


def test_a_write_the_index_refuses_leaves_no_file_behind(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    before = (home / "global" / "deploy.md").read_bytes()
    db = sqlite3.connect(home / INDEX_NAME)
    db.execute(
        "CREATE TRIGGER refuse_writes BEFORE UPDATE ON memory_files WHEN NEW.slug = 'deploy' "
        "BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
    )
    db.execute(
        "CREATE TRIGGER refuse_new BEFORE INSERT ON memory_files WHEN NEW.slug = 'new-note' "
        "BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
    )
    db.commit()
    db.close()

    ok, error = call(
        store,
        "memory_write",
        {"slug": "new-note", "scope": "global", "type": "user", "description": "n", "body": "b"},
    )
    assert not ok and error["error"] == "index_unavailable"
    assert "nothing was changed" in error["message"]
    assert not (home / "global" / "user" / "new-note.md").exists()
    ok, error = call(store, "memory_update", {"slug": "deploy", "body": "Deploy never."})
    assert not ok and error["error"] == "index_unavailable"
    assert (home / "global" / "deploy.md").read_bytes() == before
    ok, error = call(store, "memory_delete", {"slug": "green-tea"})
    assert ok  # other memories are not affected
    ok, batch = call(
        store,
        "memory_apply_batch",
        {
            "items": [
                {"op": "update", "slug": "deploy", "body": "Deploy never."},
                {
                    "op": "upsert",
                    "slug": "kept",
                    "scope": "global",
                    "type": "reference",
                    "description": "Kept",
                    "body": "This one lands.",
                },
            ]
        },
    )
    assert ok and [i["status"] for i in batch["items"]] == ["failed", "applied"]
    assert (home / "global" / "deploy.md").read_bytes() == before
    assert (home / "global" / "kept.md").exists()
    db = sqlite3.connect(home / INDEX_NAME)
    db.executescript("DROP TRIGGER refuse_writes; DROP TRIGGER refuse_new;")
    db.close()
    report = store.reconcile()
    assert (report.added, report.updated, report.removed, report.problems) == (0, 0, 0, [])


def test_a_failed_delete_puts_the_file_back(store: MemoryStore, home: Path) -> None:
    seed(store)
    before = (home / "global" / "deploy.md").read_bytes()
    db = sqlite3.connect(home / INDEX_NAME)
    db.execute(
        "CREATE TRIGGER refuse_audit BEFORE INSERT ON memory_audit_log WHEN NEW.op = 'delete' "
        "BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
    )
    db.commit()
    db.close()

    ok, error = call(store, "memory_delete", {"slug": "deploy"})

    assert not ok and error["error"] == "index_unavailable"
    assert (home / "global" / "deploy.md").read_bytes() == before
    assert not list((home / "global" / ".trash").glob("deploy.*"))
    assert dispatch(store, "memory_read", {"slug": "deploy"})["content"].endswith("Fridays.")


def test_a_nul_that_reaches_the_store_is_refused_before_anything_is_written(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    """The request models refuse NUL; the store refuses it too (a file holding one could
    not be read back), whoever builds the request."""
    from liveagent_memory.domain.errors import InvalidArgument
    from liveagent_memory.domain.requests import WriteRequest

    seed(store)
    before = memory_files_now(home)
    request = WriteRequest.model_construct(
        slug="nul-note", scope="global", type="reference", description="NUL", body="a\x00b"
    )
    with pytest.raises(InvalidArgument, match="holds a NUL"):
        store.write(request)
    assert memory_files_now(home) == before
    store.close()
    assert_still_usable(home, clock)


def test_a_workdir_marker_spelling_a_lone_surrogate_is_ignored(
    store: MemoryStore, home: Path, clock: FakeClock, workdir: str
) -> None:
    seed(store)
    dispatch(
        store,
        "memory_write",
        {
            "slug": "build",
            "scope": "project",
            "workdir": workdir,
            "type": "project",
            "description": "Build",
            "body": "make build",
        },
    )
    store.close()
    marker = next((home / "projects").iterdir()) / ".workdir.json"
    marker.write_text('{"path": "/src/\\udc80shop", "createdAt": "2026-11-30T12:00:00Z"}')

    code, listed = cli_call(home, clock, "memory_list", {"include_all_projects": True})

    assert code == 0
    assert {e["slug"]: e["workdir"] for e in listed["entries"]}["build"] is None
    assert_still_usable(home, clock)


def memory_files_now(home: Path) -> set[str]:
    return {p.relative_to(home).as_posix() for p in home.rglob("*") if p.is_file()}


def test_a_batch_meeting_a_damaged_index_is_applied_once_after_the_rebuild(
    store: MemoryStore, home: Path, clock: FakeClock
) -> None:
    seed(store)
    notes(store, "old")
    store.close()
    damage(home, "memory_search")
    items = [
        {
            "op": "upsert",
            "slug": f"new-{i:03d}",
            "scope": "global",
            "type": "reference",
            "description": f"New {i}",
            "body": f"new words {i}",
        }
        for i in range(config.BATCH_ITEMS_PER_TRANSACTION + 50)  # two index transactions
    ]

    with MemoryStore.open(home, clock=clock, scope_limit=1000, reconcile=False) as reopened:
        result = dispatch(reopened, "memory_apply_batch", {"items": items})

        assert result["applied"] == len(items) and len(result["items"]) == len(items)
        assert sorted(result["created"]) == sorted(item["slug"] for item in items)
        body = dispatch(reopened, "memory_read", {"slug": "new-007"})["content"]
        assert body.count("new words 7") == 1
        assert (
            dispatch(reopened, "memory_search", {"query": "new words 149"})["matches"][0]["slug"]
            == "new-149"
        )
    assert len(list((home / ".quarantine").glob("corrupt-*"))) == 1
    assert_still_usable(home, clock)


# --- read-only folders: an error means nothing changed, success means saved ---------------------


def test_a_read_only_scope_folder_never_turns_a_saved_write_into_an_error(
    unprivileged: Unprivileged, clock: FakeClock
) -> None:
    """global/ read-only (its MEMORY.md cannot be refreshed) but global/user/ writable: a
    user memory is saved and reported saved; a reference memory (in global/ itself) is
    refused, typed, with nothing written; the store still opens."""

    def in_a_read_only_scope() -> None:
        home = unprivileged.folder / "memory"
        with MemoryStore.open(home, clock=clock) as store:
            seed(store)
        (home / "global").chmod(0o500)
        try:
            with MemoryStore.open(home, clock=clock) as store:
                ok, saved = call(
                    store,
                    "memory_write",
                    {
                        "slug": "tea-pref",
                        "scope": "global",
                        "type": "user",
                        "description": "Tea",
                        "body": "Oolong, please.",
                    },
                )
                assert ok, saved
                assert (home / "global" / "user" / "tea-pref.md").exists()
                ok, refused = call(
                    store,
                    "memory_write",
                    {
                        "slug": "style-guide",
                        "scope": "global",
                        "type": "reference",
                        "description": "Style",
                        "body": "Short sentences.",
                    },
                )
                assert not ok and refused["error"] == "store_unavailable", refused
                assert "permission denied" in refused["message"]
                assert not (home / "global" / "style-guide.md").exists()
                assert not list((home / "global").glob(".tmp-*"))
            with MemoryStore.open(home, clock=clock) as store:  # reopens, MEMORY.md or not
                assert dispatch(store, "memory_read", {"slug": "tea-pref"})["content"].endswith(
                    "Oolong, please."
                )
                assert store.problems() == []
        finally:
            (home / "global").chmod(0o700)
        with MemoryStore.open(home, clock=clock) as store:  # writable again: MEMORY.md catches up
            assert "[tea-pref]" in (home / "global" / "MEMORY.md").read_text()

    unprivileged.run(in_a_read_only_scope)


def damage_into_nomem(home: Path, tmp_path: Path) -> None:
    """Overwrite memory_search's blocks with random bytes SQLite answers with SQLITE_NOMEM
    (MemoryError in Python): the sizes it reads from them ask for absurd allocations. Which
    bytes do so depends on the blocks, so seeds are tried on a copy first."""
    probe = tmp_path / "probe.sqlite3"
    for seed in range(1000):
        shutil.copy(home / INDEX_NAME, probe)
        db = sqlite3.connect(probe)
        rng = random.Random(seed)
        blocks = db.execute("SELECT id, length(block) FROM memory_search_data WHERE id > 1")
        for block_id, size in blocks.fetchall():
            noise = bytes(rng.randrange(256) for _ in range(size))
            db.execute("UPDATE memory_search_data SET block = ? WHERE id = ?", (noise, block_id))
        db.commit()
        try:
            db.execute(
                "INSERT INTO memory_search (rowid, keys, type, slug, description, headline, "
                "body, dcjk, bcjk) VALUES (999, 'k', 't', 's', 'd', 'h', 'b', '', '')"
            )
        except MemoryError:
            db.rollback()
            db.close()
            shutil.copy(probe, home / INDEX_NAME)
            return
        except sqlite3.Error:
            pass
        db.close()
    raise AssertionError("no seed made SQLite run out of memory")


def test_damage_that_sqlite_reports_as_out_of_memory_is_rebuilt_too(
    store: MemoryStore, home: Path, clock: FakeClock, tmp_path: Path
) -> None:
    seed(store)
    notes(store, "note")
    store.close()
    damage_into_nomem(home, tmp_path)

    with MemoryStore.open(home, clock=clock, reconcile=False) as reopened:
        ok, written = call(
            reopened,
            "memory_write",
            {
                "slug": "after-damage",
                "scope": "global",
                "type": "reference",
                "description": "After",
                "body": "written after the damage",
            },
        )
        assert ok, written
    assert len(list((home / ".quarantine").glob("corrupt-*"))) == 1
    assert_still_usable(home, clock)
