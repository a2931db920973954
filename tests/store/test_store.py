"""MemoryStore mutations and reads against real files and a real SQLite index."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from liveagent_memory.domain import config, errors
from liveagent_memory.domain.requests import (
    AcceptRequest,
    BatchItem,
    BatchRequest,
    DailyAppendRequest,
    DeleteProjectRequest,
    DeleteRequest,
    HistoryRequest,
    ListRequest,
    ReadRequest,
    RecentRejectionsRequest,
    RestoreRequest,
    UpdateRequest,
    WriteRequest,
)
from liveagent_memory.domain.schema import MutationResult
from liveagent_memory.paths import workdir_hash
from liveagent_memory.store.evidence import parse_document
from liveagent_memory.store.store import MemoryStore
from tests.helpers.checks import present
from tests.helpers.fakes import FakeClock
from tests.helpers.memories import write_memory

TEA = {
    "type": "user",
    "description": "Drinks green tea",
    "body": "The user drinks green tea without sugar.",
}


def write(store: MemoryStore, slug: str = "tea-pref", **fields: Any) -> MutationResult:
    """The tea memory these tests start from, unless `fields` say otherwise."""
    return write_memory(store, slug, **(TEA | fields))


def file_text(store: MemoryStore, relpath: str) -> str:
    return (store.root / relpath).read_text(encoding="utf-8")


# --- write ------------------------------------------------------------------------------------


def test_write_creates_file_in_reference_layout_and_index(store: MemoryStore) -> None:
    result = write(store)
    assert result.created and result.path == "global/user/tea-pref.md"
    doc = parse_document(file_text(store, present(result.path)))
    assert doc.meta.name == "tea-pref"
    assert doc.meta.type == "user" and doc.meta.scope == "global"
    assert doc.meta.source["trigger"] == "tool"
    assert doc.meta.unreviewed is True  # written by a model (the tool): a person reviews it
    assert doc.meta.created_at == "2026-11-30T12:00:00.000Z"
    entries = store.list_entries(ListRequest()).entries
    assert [e.slug for e in entries] == ["tea-pref"]
    memory_md = file_text(store, "global/MEMORY.md")
    assert "[tea-pref] type=user (unreviewed) — Drinks green tea" in memory_md


@pytest.mark.parametrize(
    ("memory_type", "folder"),
    [
        ("user", "global/user"),
        ("feedback", "global/user"),
        ("project", "global"),
        ("reference", "global"),
    ],
)
def test_global_types_go_to_their_folder(store: MemoryStore, memory_type: str, folder: str) -> None:
    result = write(store, type=memory_type)
    assert result.path == f"{folder}/tea-pref.md"


def test_project_write_uses_hash_folder_and_marker(store: MemoryStore, workdir: str) -> None:
    result = write(store, scope="project", type="project", workdir=workdir)
    project = workdir_hash(workdir)
    assert result.path == f"projects/{project}/tea-pref.md"
    marker = (store.root / "projects" / project / ".workdir.json").read_text()
    assert str(Path(workdir).resolve()) in marker
    listed = store.list_entries(ListRequest(workdir=workdir)).entries
    assert listed[0].workdir == str(Path(workdir).resolve())


def test_project_write_without_workdir_is_refused(store: MemoryStore) -> None:
    with pytest.raises(errors.WorkdirRequired):
        write(store, scope="project", type="project")


def test_same_slug_in_global_and_project_is_allowed(store: MemoryStore, workdir: str) -> None:
    write(store)
    write(store, scope="project", workdir=workdir)
    with pytest.raises(errors.ScopeAmbiguous) as caught:
        store.read(ReadRequest(slug="tea-pref", workdir=workdir))
    assert {c["scope"] for c in caught.value.candidates or []} == {"global", "project"}
    assert store.read(ReadRequest(slug="tea-pref", scope="project", workdir=workdir))


def test_write_existing_slug_suggests_update(store: MemoryStore) -> None:
    write(store)
    with pytest.raises(errors.SlugExists) as caught:
        write(store)
    assert caught.value.suggested_next_call == {
        "action": "update",
        "slug": "tea-pref",
        "scope": "global",
    }


@pytest.mark.parametrize("slug", ["../escape", "a/b", "..", "x", "Bad Slug!", "a" * 80])
def test_unsafe_or_invalid_slug_is_refused_and_nothing_written(
    store: MemoryStore, slug: str
) -> None:
    before = sorted(p.relative_to(store.root) for p in store.root.rglob("*.md"))
    with pytest.raises(errors.SlugInvalid) as caught:
        write(store, slug=slug)
    suggestion = (caught.value.suggested_next_call or {})["slug"]
    assert write(store, slug=suggestion).created  # the suggestion is itself valid
    after = sorted(p.relative_to(store.root) for p in store.root.rglob("*.md"))
    assert set(after) - set(before) <= {
        Path(f"global/user/{suggestion}.md"),
        Path("global/MEMORY.md"),
    }
    assert not (store.root.parent / "escape.md").exists()


def test_invalid_type_scope_and_daily_type(store: MemoryStore) -> None:
    with pytest.raises(errors.InvalidType):
        write(store, type="banana")
    with pytest.raises(errors.InvalidType):
        write(store, type="daily")
    with pytest.raises(errors.InvalidScope):
        write(store, scope="everywhere")


def test_description_required_and_cut(store: MemoryStore) -> None:
    with pytest.raises(errors.DescriptionRequired):
        write(store, description="   ")
    result = write(store, description="x" * 300)
    assert len(parse_document(file_text(store, present(result.path))).meta.description) == 120


def test_body_limit(store: MemoryStore) -> None:
    write(store, slug="exactly-8k", body="a" * 8192)
    with pytest.raises(errors.BodyTooLarge):
        write(store, slug="too-big", body="字" * 2731)  # 8193 bytes in UTF-8
    assert not (store.root / "global/user/too-big.md").exists()


def test_secret_refused_and_nothing_written(store: MemoryStore) -> None:
    with pytest.raises(errors.RiskHardBlocked):
        write(store, body="token ghp_" + "a" * 36)
    with pytest.raises(errors.RiskHardBlocked):
        write(store, slug="pem", body="-----BEGIN RSA PRIVATE KEY-----\nMII...")
    assert store.list_entries(ListRequest()).total == 0
    assert not list(store.root.rglob("tea-pref.md"))


def test_soft_risk_is_stored_unreviewed_with_flag(store: MemoryStore) -> None:
    result = write(store, body="Always run git commit --no-verify", actor="user")
    assert result.unreviewed and result.risk_flag == "low"
    doc = parse_document(file_text(store, present(result.path)))
    assert doc.meta.source["risk_flag"] == "low" and doc.meta.unreviewed
    entry = store.list_entries(ListRequest()).entries[0]
    assert entry.unreviewed and entry.risk_flag == "low"


def test_extractor_writes_are_unreviewed(store: MemoryStore) -> None:
    assert write(store, actor="extractor").unreviewed
    assert store.list_entries(ListRequest(unreviewed=True)).total == 1
    assert store.list_entries(ListRequest(unreviewed=False)).total == 0


def test_unknown_actor_refused(store: MemoryStore) -> None:
    with pytest.raises(errors.InvalidArgument):
        write(store, actor="robot")


# --- evidence -------------------------------------------------------------------------------


def test_confidence_contract_applied_on_write(store: MemoryStore) -> None:
    high = write(store, slug="high-one", confidence="high", source_quote="I only drink tea")
    assert (high.applied_confidence, high.auto_downgraded) == ("high", False)
    short = write(store, slug="short-quote", confidence="high", source_quote="tea")
    assert (short.applied_confidence, short.auto_downgraded) == ("medium", True)
    none = write(store, slug="no-quote", confidence="medium")
    assert (none.applied_confidence, none.auto_downgraded) == ("low", True)
    read = store.read(ReadRequest(slug="short-quote"))
    assert read.evidence.confidence == "medium" and read.evidence.auto_downgraded
    assert read.entry.confidence == "medium"
    assert read.content == "The user drinks green tea without sugar."


def test_inline_evidence_block_in_body_is_rendered_canonically(store: MemoryStore) -> None:
    body = '---\nconfidence: high\nsource_quote: "ok"\n---\n\nLikes jasmine tea.'
    result = write(store, body=body)
    assert result.applied_confidence == "medium" and result.auto_downgraded
    text = file_text(store, present(result.path))
    assert text.count("confidence:") == 1 and "auto_downgraded: true" in text


def test_evidence_only_update_keeps_content_and_review_state(store: MemoryStore) -> None:
    write(store, actor="user", confidence="low")
    result = store.update(
        UpdateRequest(
            slug="tea-pref",
            confidence="high",
            source_quote="I drink green tea",
            aliases=["绿茶"],
            actor="extractor",
        )
    )
    assert result.applied_confidence == "high" and result.unreviewed is False
    read = store.read(ReadRequest(slug="tea-pref"))
    assert read.content == "The user drinks green tea without sugar."
    assert read.evidence.aliases == ["绿茶"]
    assert read.body.count("confidence:") == 1


def test_evidence_only_body_with_replace_mode_keeps_content(store: MemoryStore) -> None:
    write(store)
    store.update(
        UpdateRequest(
            slug="tea-pref",
            mode="replace",
            body='---\nconfidence: high\nsource_quote: "green tea please"\n---',
        )
    )
    read = store.read(ReadRequest(slug="tea-pref"))
    assert read.content == "The user drinks green tea without sugar."
    assert read.evidence.confidence == "high"


# --- update -----------------------------------------------------------------------------------


def test_update_replace_and_merge(store: MemoryStore) -> None:
    write(
        store,
        body="Drinks green tea. Dislikes coffee.",
        confidence="high",
        source_quote="green tea only",
    )
    store.update(UpdateRequest(slug="tea-pref", body="Also likes oolong.", mode="merge"))
    merged = store.read(ReadRequest(slug="tea-pref"))
    assert merged.content == "Drinks green tea.\n\nDislikes coffee.\n\nAlso likes oolong."
    assert merged.evidence.confidence == "high"  # evidence kept through a body update
    store.update(UpdateRequest(slug="tea-pref", body="Only water now.", mode="replace"))
    replaced = store.read(ReadRequest(slug="tea-pref"))
    assert replaced.content == "Only water now." and replaced.evidence.confidence == "high"


def test_update_default_mode_is_merge_for_extractor_replace_otherwise(store: MemoryStore) -> None:
    write(store, body="Likes tea.")
    store.update(UpdateRequest(slug="tea-pref", body="Likes cake.", actor="extractor"))
    assert store.read(ReadRequest(slug="tea-pref")).content == "Likes tea.\n\nLikes cake."
    store.update(UpdateRequest(slug="tea-pref", body="Likes pie.", actor="tool"))
    assert store.read(ReadRequest(slug="tea-pref")).content == "Likes pie."


def test_update_mode_errors(store: MemoryStore) -> None:
    write(store)
    with pytest.raises(errors.InvalidMode) as caught:
        store.update(UpdateRequest(slug="tea-pref", body="x", mode="append"))
    assert caught.value.suggested_next_call == {
        "action": "update",
        "slug": "tea-pref",
        "mode": "merge",
    }
    with pytest.raises(errors.InvalidMode):
        store.update(UpdateRequest(slug="tea-pref", body="x", mode="overwrite"))


def test_review_state_rules(store: MemoryStore) -> None:
    # Only a person's write or update is reviewed (issue 12: a model must not approve what it
    # wrote); a model's change of what a memory says makes it unreviewed again, an
    # evidence-only change keeps the state.
    assert write(store, actor="tool").unreviewed
    assert write(store, slug="by-extraction", actor="extractor").unreviewed
    assert not write(store, slug="by-person", actor="user").unreviewed
    assert not store.update(UpdateRequest(slug="tea-pref", body="d", actor="user")).unreviewed
    assert store.update(UpdateRequest(slug="tea-pref", body="b", actor="extractor")).unreviewed
    assert not store.update(UpdateRequest(slug="tea-pref", body="c", actor="user")).unreviewed
    assert store.update(UpdateRequest(slug="tea-pref", body="e", actor="tool")).unreviewed
    store.update(UpdateRequest(slug="tea-pref", body="f", actor="user"))
    evidence_only = UpdateRequest(slug="tea-pref", confidence="low", actor="tool")
    assert not store.update(evidence_only).unreviewed


def test_type_change_moves_file(store: MemoryStore) -> None:
    write(store, type="reference")
    result = store.update(UpdateRequest(slug="tea-pref", type="user"))
    assert result.path == "global/user/tea-pref.md"
    assert not (store.root / "global/tea-pref.md").exists()
    assert store.list_entries(ListRequest()).entries[0].type == "user"
    assert store.reconcile().unchanged == 1


def test_update_keeps_hand_added_keys(store: MemoryStore) -> None:
    result = write(store)
    path = store.root / present(result.path)
    text = path.read_text().replace("links: []\n", "links: []\ntags:\n  - drinks\nowner: me\n")
    path.write_text(text)
    store.reconcile()
    store.update(UpdateRequest(slug="tea-pref", body="New body"))
    updated = path.read_text()
    assert "tags:\n  - drinks\nowner: me\n" in updated and "New body" in updated


def test_update_missing_slug_lists_candidates(store: MemoryStore) -> None:
    write(store, slug="green-tea-pref")
    with pytest.raises(errors.SlugNotFound) as caught:
        store.update(UpdateRequest(slug="tea-pref", body="x"))
    assert caught.value.candidates == [{"slug": "green-tea-pref", "scope": "global"}]
    assert caught.value.suggested_next_call == {"action": "search", "query": "tea pref"}


# --- delete, accept -----------------------------------------------------------------------


def test_delete_moves_to_trash_and_records_rejection(store: MemoryStore, clock: FakeClock) -> None:
    write(store)
    result = store.delete(DeleteRequest(slug="tea-pref", actor="user", reason="not true"))
    assert result.deleted
    trash = store.root / present(result.path)
    assert trash.parent.name == ".trash" and trash.exists()
    assert store.list_entries(ListRequest()).total == 0
    rejections = store.recent_rejections(RecentRejectionsRequest())
    assert [(r.slug, r.reason) for r in rejections] == [("tea-pref", "not true")]
    clock.advance(days=8)
    assert store.recent_rejections(RecentRejectionsRequest()) == []
    assert len(store.recent_rejections(RecentRejectionsRequest(since_days=30))) == 1


def test_tool_delete_is_not_a_rejection(store: MemoryStore) -> None:
    write(store)
    store.delete(DeleteRequest(slug="tea-pref"))
    assert store.recent_rejections(RecentRejectionsRequest()) == []


def test_accept_marks_reviewed(store: MemoryStore) -> None:
    write(store, actor="extractor", body="Always run sudo apt update")
    result = store.accept(AcceptRequest(slug="tea-pref"))
    assert not result.unreviewed
    doc = parse_document(file_text(store, "global/user/tea-pref.md"))
    assert doc.meta.unreviewed is False and "risk_flag" not in doc.meta.source
    assert store.list_entries(ListRequest(unreviewed=True)).total == 0


# --- quota ----------------------------------------------------------------------------------


def test_quota_refuses_new_memory_at_limit_but_allows_updates(home: Path, clock: FakeClock) -> None:
    with MemoryStore.open(home, clock=clock, scope_limit=3) as small:
        for i in range(3):
            write(small, slug=f"memo-{i}")
        with pytest.raises(errors.QuotaExceeded):
            write(small, slug="memo-3")
        assert not (small.root / "global/user/memo-3.md").exists()
        assert small.update(UpdateRequest(slug="memo-0", body="still fine")).updated
        small.append_daily(DailyAppendRequest(body="dailies do not count"))
        summary = small.quota_summary()
        assert summary.scopes[0].used == 3 and summary.scopes[0].headroom == 0
        assert summary.ladder == "exhausted"


def test_quota_summary_counts_per_scope(store: MemoryStore, workdir: str, clock: FakeClock) -> None:
    write(store, slug="g-one", actor="extractor")
    clock.advance(days=2)
    write(store, slug="p-one", scope="project", workdir=workdir)
    summary = store.quota_summary(workdir)
    by_scope = {s.scope: s for s in summary.scopes}
    assert by_scope["global"].used == 1 and by_scope["global"].unreviewed == 1
    assert by_scope["global"].oldest_unreviewed_days == 2.0
    assert by_scope["project"].used == 1 and by_scope["project"].workdir_hash == workdir_hash(
        workdir
    )
    assert summary.ladder == "normal" and summary.compression_target is None


# --- daily ----------------------------------------------------------------------------------


def test_daily_append_counts_and_sources(store: MemoryStore, clock: FakeClock) -> None:
    first = store.append_daily(DailyAppendRequest(body="Morning work", conversation_id="c1"))
    clock.advance(hours=1)
    second = store.append_daily(DailyAppendRequest(body="Afternoon work", model="gpt-x"))
    assert first.created and second.updated and first.slug == "daily-2026-11-30"
    doc = parse_document(file_text(store, "global/daily/2026-11-30.md"))
    assert doc.meta.append_count == 2
    assert doc.body == "Morning work\n\nAfternoon work"
    assert [s["conversationId"] for s in doc.meta.sources] == ["c1", ""]
    assert doc.meta.sources[1]["model"] == "gpt-x"
    assert doc.meta.sources[0]["trigger"] == "end"


def test_daily_rollover_at_four(home: Path) -> None:
    from datetime import UTC, datetime

    early = FakeClock(datetime(2026, 11, 30, 3, 59, tzinfo=UTC))
    with MemoryStore.open(home, clock=early) as s:
        assert s.append_daily(DailyAppendRequest(body="late night")).slug == "daily-2026-11-29"
        early.advance(seconds=60)
        assert s.append_daily(DailyAppendRequest(body="morning")).slug == "daily-2026-11-30"


def test_daily_limits(store: MemoryStore) -> None:
    warned = store.append_daily(DailyAppendRequest(body="x" * (28 * 1024)))
    assert warned.warning and "near the 32 KB" in warned.warning
    with pytest.raises(errors.BodyTooLarge):
        store.append_daily(DailyAppendRequest(body="y" * (5 * 1024)))
    with pytest.raises(errors.InvalidArgument):
        store.append_daily(DailyAppendRequest(body="   "))


def test_daily_not_writable_as_type_and_update_needs_append(store: MemoryStore) -> None:
    store.append_daily(DailyAppendRequest(body="one"))
    with pytest.raises(errors.AppendModeRequired):
        store.update(UpdateRequest(slug="daily-2026-11-30", body="two"))
    store.update(UpdateRequest(slug="daily-2026-11-30", body="two", mode="append"))
    assert present(store.today_daily()).content == "one\n\ntwo"
    with pytest.raises(errors.InvalidType):
        store.accept(AcceptRequest(slug="daily-2026-11-30"))


def test_dailies_do_not_appear_in_default_list(store: MemoryStore) -> None:
    store.append_daily(DailyAppendRequest(body="journal"))
    write(store)
    assert [e.slug for e in store.list_entries(ListRequest()).entries] == ["tea-pref"]
    assert store.list_entries(ListRequest(include_daily=True)).total == 2
    assert store.list_entries(ListRequest(type="daily")).entries[0].date_local == "2026-11-30"


# --- list, read ----------------------------------------------------------------------------


def test_list_order_paging_and_filters(store: MemoryStore, clock: FakeClock, workdir: str) -> None:
    for i in range(5):
        write(store, slug=f"memo-{i}", type="reference" if i % 2 else "user")
        clock.advance(seconds=1)
    write(store, slug="proj-one", scope="project", workdir=workdir)
    page = store.list_entries(ListRequest(limit=2, offset=1))
    assert [e.slug for e in page.entries] == ["memo-3", "memo-2"]
    assert page.total == 5 and page.truncated
    assert store.list_entries(ListRequest(type="reference")).total == 2
    assert store.list_entries(ListRequest(workdir=workdir)).total == 6
    assert store.list_entries(ListRequest(scope="project", workdir=workdir)).total == 1
    assert store.list_entries(ListRequest(include_all_projects=True)).total == 6


def test_list_filters_by_confidence_and_risk_flag(store: MemoryStore) -> None:
    write(store, slug="sure", confidence="high", source_quote="I always drink tea", reasoning="r")
    write(store, slug="plain")  # no evidence: confidence "unknown"
    write(store, slug="risky", body="Always run git commit --no-verify", actor="user")

    def slugs(**filters: object) -> set[str]:
        return {e.slug for e in store.list_entries(ListRequest.model_validate(filters)).entries}

    assert slugs(confidence="high") == {"sure"}
    assert slugs(confidence="unknown") == {"plain", "risky"}
    assert slugs(risk_flagged=True) == {"risky"}
    assert slugs(risk_flagged=False) == {"sure", "plain"}
    with pytest.raises(ValidationError):
        ListRequest.model_validate({"confidence": "certain"})


def test_read_line_window(store: MemoryStore) -> None:
    write(store, body="l1\nl2\nl3\nl4")
    read = store.read(ReadRequest(slug="tea-pref", offset=1, length=2))
    assert read.body == "l2\nl3" and read.total_lines == 4 and read.window.truncated


# --- history and restore ----------------------------------------------------------------------


def test_history_and_restore_an_update(store: MemoryStore, clock: FakeClock) -> None:
    write(store, body="Version one.")
    clock.advance(seconds=5)
    store.update(UpdateRequest(slug="tea-pref", body="Version two.", actor="extractor"))
    history = store.history(HistoryRequest(slug="tea-pref"))
    assert [e.op for e in history.entries] == ["update", "write"]
    assert history.entries[0].who == "extraction" and history.entries[0].restorable
    store.restore(RestoreRequest(slug="tea-pref", version=history.entries[0].version))
    read = store.read(ReadRequest(slug="tea-pref"))
    assert read.content == "Version one." and not read.entry.unreviewed
    after = store.history(HistoryRequest(slug="tea-pref"))
    assert after.entries[0].op == "restore" and after.entries[0].restorable


def test_history_of_changes_in_one_millisecond_is_newest_first(store: MemoryStore) -> None:
    write(store, body="Version 0.")  # the fake clock stands still: every row has one ts
    for n in range(1, 12):
        store.update(UpdateRequest(slug="tea-pref", body=f"Version {n}.", actor="user"))
    versions = [e.version for e in store.history(HistoryRequest(slug="tea-pref")).entries]
    audit_ids = [int(v.split(":")[1]) for v in versions if v.startswith("audit:")]
    assert audit_ids == sorted(audit_ids, reverse=True) and len(audit_ids) == 12


def test_restore_a_deleted_memory_from_trash(store: MemoryStore) -> None:
    write(store, body="Keep me.")
    store.delete(DeleteRequest(slug="tea-pref", actor="user"))
    history = store.history(HistoryRequest(slug="tea-pref"))
    assert not history.exists
    trash = [e for e in history.entries if e.source == "trash"]
    assert trash and trash[0].description == "Drinks green tea"
    result = store.restore(RestoreRequest(slug="tea-pref", version=trash[0].version))
    assert result.created
    assert store.read(ReadRequest(slug="tea-pref")).content == "Keep me."


def test_restore_unknown_version(store: MemoryStore) -> None:
    write(store)
    for version in ("audit:999", "trash:../../etc/passwd", "snapshot:nope", "whatever"):
        with pytest.raises(errors.VersionNotFound):
            store.restore(RestoreRequest(slug="tea-pref", version=version))


def test_a_write_or_update_says_why_in_its_history(store: MemoryStore) -> None:
    store.write(
        WriteRequest.model_validate(
            {"slug": "tea", "scope": "global", "reason": "first noted", **TEA}
        )
    )
    store.update(UpdateRequest(slug="tea", body="Green tea.", reason="merged in tea-b"))
    store.update(UpdateRequest(slug="tea", body="Green tea, no sugar."))

    entries = store.history(HistoryRequest(slug="tea")).entries
    assert [(e.op, e.reason) for e in entries] == [
        ("update", None),
        ("update", "merged in tea-b"),
        ("write", "first noted"),
    ]
    assert store.read(ReadRequest(slug="tea")).content == "Green tea, no sugar."
    with pytest.raises(errors.RiskHardBlocked):  # a reason is checked like every other field
        store.update(UpdateRequest(slug="tea", body="x", reason="AKIA" + "ABCDEFGHIJKLMNOP"))
    assert store.read(ReadRequest(slug="tea")).content == "Green tea, no sugar."


def test_history_of_unknown_slug(store: MemoryStore) -> None:
    with pytest.raises(errors.SlugNotFound):
        store.history(HistoryRequest(slug="never-was"))


# --- batch ----------------------------------------------------------------------------------


def item(op: str, slug: str | None = None, **fields: object) -> BatchItem:
    return BatchItem.model_validate({"op": op, "slug": slug, **fields})


def upsert(slug: str, body: str = "body", **fields: object) -> BatchItem:
    return item(
        "upsert",
        slug,
        type="reference",
        description=f"about {slug}",
        body=body,
        scope="global",
        **fields,
    )


def test_batch_per_item_results(store: MemoryStore) -> None:
    write(store, slug="existing", body="Old fact.")
    result = store.apply_batch(
        BatchRequest(
            items=[
                upsert("new-one", confidence="high", source_quote="quoted words"),
                upsert("existing", body="New fact."),
                item("update", "missing", body="x"),
                item("delete", "existing-not"),
                item("accept", "new-one"),
                item("frobnicate", "x"),
                item("daily_append", body="batch journal"),
                upsert("bad slug!"),
            ]
        )
    )
    statuses = [(r.index, r.status) for r in result.items]
    assert statuses == [
        (0, "applied"),
        (1, "applied"),
        (2, "failed"),
        (3, "failed"),
        (4, "failed"),  # the batch's actor is the extractor: only a person may accept
        (5, "failed"),
        (6, "applied"),
        (7, "failed"),
    ]
    assert present(result.items[0].result).applied_confidence == "high"
    assert present(result.items[2].error)["error"] == "slug_not_found"
    assert present(result.items[4].error)["error"] == "action_not_allowed"
    assert present(result.items[7].error)["error"] == "slug_invalid"
    assert result.applied == 3 and result.failed == 5
    assert present(store.read(ReadRequest(slug="existing"))).content == "Old fact.\n\nNew fact."
    assert "new-one" in result.created and "existing" in result.updated
    assert store.read(ReadRequest(slug="new-one")).entry.unreviewed  # still a model's guess
    codes = {w.code for w in result.warning_details}
    assert codes >= {"slug_not_found", "invalid_argument", "action_not_allowed"}


def test_batch_group_writes_before_deletes(store: MemoryStore) -> None:
    write(store, slug="source-a", body="A fact.")
    write(store, slug="source-b", body="B fact.")
    result = store.apply_batch(
        BatchRequest(
            trigger="memory-organize",
            items=[
                item("delete", "source-a", scope="global", group_id="merge:1"),
                item("delete", "source-b", scope="global", group_id="merge:1"),
                upsert("merged", body="A fact. B fact.", group_id="merge:1"),
            ],
        )
    )
    assert [r.status for r in result.items] == ["applied"] * 3
    assert [e.slug for e in store.list_entries(ListRequest()).entries] == ["merged"]
    assert store.history(HistoryRequest(slug="source-a")).entries  # restorable


def test_batch_group_deletes_skipped_when_upsert_fails(store: MemoryStore) -> None:
    write(store, slug="source-a")
    write(store, slug="source-b")
    result = store.apply_batch(
        BatchRequest(
            items=[
                item("delete", "source-a", scope="global", group_id="g"),
                upsert("merged", body="x" * 9000, group_id="g"),
                item("delete", "source-b", scope="global", group_id="g"),
            ]
        )
    )
    assert [r.status for r in result.items] == ["skipped", "failed", "skipped"]
    assert present(result.items[0].error)["error"] == "group_upsert_failed"
    assert {e.slug for e in store.list_entries(ListRequest()).entries} == {"source-a", "source-b"}


def test_batch_group_is_undone_whole_when_a_later_item_fails(store: MemoryStore) -> None:
    # A merge whose write succeeds and whose second source is gone (deleted by hand since the
    # run): applying the rest would leave a merged memory beside a source it replaced.
    write(store, slug="merged", body="A fact.")
    write(store, slug="source-a", body="B fact.")
    before = {p: p.read_bytes() for p in store.root.rglob("*.md")}
    result = store.apply_batch(
        BatchRequest(
            trigger="memory-organize",
            items=[
                item("delete", "source-a", scope="global", group_id="merge:1"),
                item("delete", "source-gone", scope="global", group_id="merge:1"),
                upsert("merged", body="A fact. B fact.", group_id="merge:1"),
                item("delete", "tea-pref-other", scope="global"),  # not in the group
            ],
        )
    )
    assert [(r.index, r.status) for r in result.items] == [
        (0, "skipped"),
        (1, "failed"),
        (2, "skipped"),
        (3, "failed"),
    ]
    assert present(result.items[1].error)["error"] == "slug_not_found"
    for undone in (result.items[0], result.items[2]):
        assert present(undone.error)["error"] == "group_item_failed"
        assert "source-gone" in present(undone.error)["message"]
    assert (result.applied, result.failed, result.skipped) == (0, 2, 2)
    assert result.created == result.updated == result.deleted == []
    # Nothing changed on disk: no new text, no trash, no organizer snapshot left behind.
    assert {p: p.read_bytes() for p in store.root.rglob("*.md")} == before
    assert store.read(ReadRequest(slug="merged")).content == "A fact."
    history = store.history(HistoryRequest(slug="merged")).entries
    assert [e.op for e in history] == ["write"]
    assert {e.slug for e in store.list_entries(ListRequest()).entries} == {"merged", "source-a"}


def test_batch_organize_trigger_snapshots_before_change(store: MemoryStore) -> None:
    write(store, slug="old-fact", body="Original.")
    store.apply_batch(
        BatchRequest(
            trigger="memory-organize",
            items=[
                upsert("old-fact", body="Rewritten."),
            ],
        )
    )
    snapshots = list((store.root / "global/.organize-snapshots").glob("*.old-fact.md"))
    assert len(snapshots) == 1 and "Original." in snapshots[0].read_text()
    assert store.read(ReadRequest(slug="old-fact")).content == "Rewritten."  # replace mode
    history = store.history(HistoryRequest(slug="old-fact"))
    assert any(e.source == "snapshot" and e.who == "organizer" for e in history.entries)
    assert any(e.who == "organizer" for e in history.entries if e.source == "audit")


def test_batch_project_items_use_batch_workdir(store: MemoryStore, workdir: str) -> None:
    result = store.apply_batch(
        BatchRequest(
            workdir=workdir,
            items=[
                item(
                    "upsert",
                    "proj-fact",
                    scope="project",
                    type="project",
                    description="d",
                    body="b",
                ),
            ],
        )
    )
    assert result.applied == 1
    assert present(result.items[0].result).workdir_hash == workdir_hash(workdir)


def test_batch_top_level_daily_append(store: MemoryStore) -> None:
    result = store.apply_batch(
        BatchRequest.model_validate({"daily_append": {"bullet": "- did things"}, "decisions": []})
    )
    assert result.applied == 1 and result.created == ["daily-2026-11-30"]


# --- projects, wipe -------------------------------------------------------------------------


def test_delete_project_quarantines_folder(store: MemoryStore, workdir: str) -> None:
    write(store, slug="p-one", scope="project", workdir=workdir)
    write(store, slug="g-one")
    result = store.delete_project(DeleteProjectRequest(workdir=workdir, reason="done"))
    assert result["deleted_count"] == 1 and Path(result["quarantine_path"]).exists()
    assert not (store.root / "projects" / workdir_hash(workdir)).exists()
    assert [e.slug for e in store.list_entries(ListRequest(include_all_projects=True)).entries] == [
        "g-one"
    ]


def test_wipe_all_backs_up_everything(store: MemoryStore) -> None:
    write(store)
    # The derived vector index and the retrieval metrics go with the rest (written as their
    # owners in retrieval/ would: a folder of files, one SQLite file).
    (store.root / config.VECTORS_DIRNAME).mkdir()
    (store.root / config.VECTORS_DIRNAME / config.EMBEDDING_CACHE_FILENAME).write_bytes(b"x")
    sqlite3.connect(store.root / config.METRICS_FILENAME).close()
    info = store.wipe_all(confirm=True)
    backup = Path(info["backup_path"])
    assert (backup / "global/user/tea-pref.md").exists()
    assert (backup / "memory-index.sqlite3").exists()
    assert (backup / config.VECTORS_DIRNAME / config.EMBEDDING_CACHE_FILENAME).exists()
    assert (backup / config.METRICS_FILENAME).exists()
    assert not (store.root / config.VECTORS_DIRNAME).exists()
    assert not (store.root / config.METRICS_FILENAME).exists()
    assert info["is_fresh"] and store.list_entries(ListRequest()).total == 0
    write(store)  # usable afterwards
    assert store.list_entries(ListRequest()).total == 1


def test_overview_buckets(store: MemoryStore, workdir: str) -> None:
    write(store, slug="who-am-i", actor="user")
    write(store, slug="fb-unreviewed", type="feedback", actor="extractor")
    write(store, slug="shared-slug", type="reference")
    write(store, slug="shared-slug", scope="project", type="project", workdir=workdir)
    write(store, slug="ref-one", type="reference")
    store.append_daily(DailyAppendRequest(body="today"))
    buckets = store.overview(workdir)
    assert [e.slug for e in buckets.user] == ["who-am-i"]
    assert [e.slug for e in buckets.unreviewed_user] == ["fb-unreviewed"]  # the reference's gap
    assert [e.slug for e in buckets.project] == ["shared-slug"]
    assert [e.slug for e in buckets.global_] == ["ref-one"]  # shared-slug shadowed
    assert [e.slug for e in buckets.recent_days] == ["daily-2026-11-30"]
    assert buckets.to_dict()["global"][0]["slug"] == "ref-one"


def test_audit_log_records_every_mutation_with_actor(store: MemoryStore) -> None:
    write(store, actor="user")
    store.update(
        UpdateRequest(
            slug="tea-pref", body="x", actor="extractor", conversation_id="conv-1", model="m1"
        )
    )
    store.accept(AcceptRequest(slug="tea-pref"))
    store.delete(DeleteRequest(slug="tea-pref", actor="tool"))
    rows = store.history(HistoryRequest(slug="tea-pref")).entries
    audit = [(e.op, e.actor) for e in rows if e.source == "audit"]
    assert audit == [
        ("delete", "tool"),
        ("accept", "user"),
        ("update", "extractor"),
        ("write", "user"),
    ]
    update = next(e for e in rows if e.op == "update")
    assert update.conversation_id == "conv-1" and update.model == "m1"
    assert update.before_hash and update.after_hash and update.before_hash != update.after_hash


def test_never_overwrites_an_unindexed_file(store: MemoryStore) -> None:
    write(store, type="reference")
    foreign = store.root / "global/user/tea-pref.md"
    foreign.write_text("---\nname: tea-pref\ntype: banana\n---\nmine\n")
    store.reconcile()
    with pytest.raises(errors.SlugExists):
        store.update(UpdateRequest(slug="tea-pref", type="user"))
    assert foreign.read_text() == "---\nname: tea-pref\ntype: banana\n---\nmine\n"
    assert (store.root / "global/tea-pref.md").exists()
