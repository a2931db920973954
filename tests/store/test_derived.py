"""A versioned derived file (store/derived.py): made fresh, kept at its version, laid out again
at another, started again when damaged, and a typed error when it cannot be used."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from liveagent_memory.domain.errors import StoreUnavailable
from liveagent_memory.store.derived import (
    DerivedSchema,
    derived_errors,
    open_derived,
    open_derived_readonly,
    remove_derived,
)
from tests.helpers.unprivileged import Unprivileged

SCHEMA = DerivedSchema(
    what="test file",
    version=2,
    tables=("notes",),
    ddl=("CREATE TABLE IF NOT EXISTS notes (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",),
)


def derived_path(tmp_path: Path) -> Path:
    return tmp_path / "derived" / "file.sqlite3"


def add_note(conn: sqlite3.Connection, name: str, value: int) -> None:
    conn.execute("INSERT INTO notes (name, value) VALUES (?, ?)", (name, value))
    conn.commit()


def notes(conn: sqlite3.Connection) -> dict[str, int]:
    return dict(conn.execute("SELECT name, value FROM notes").fetchall())


def raw_file(path: Path, *, version: int, tables: dict[str, str]) -> None:
    """A file written with raw sqlite3: `tables` maps a table's DDL to one row to insert."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    for ddl, insert in tables.items():
        conn.execute(ddl)
        conn.execute(insert)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def file_state(path: Path) -> tuple[int, set[str]]:
    """The file's user_version and table names, read with raw sqlite3."""
    conn = sqlite3.connect(path)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    return int(version), tables


def test_a_fresh_file_is_made_private_with_its_schema(tmp_path: Path) -> None:
    path = derived_path(tmp_path)

    conn = open_derived(path, SCHEMA)
    conn.close()

    assert file_state(path) == (2, {"notes"})
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(path.parent).st_mode & 0o777 == 0o700


def test_an_existing_shared_folder_keeps_its_mode(tmp_path: Path) -> None:
    """A derived file given a path in a shared folder (a cache in /tmp) makes the file private,
    never the folder: other users need its 1777."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    path = shared / "cache.sqlite3"

    open_derived(path, SCHEMA).close()

    assert os.stat(shared).st_mode & 0o7777 == 0o1777
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_file_of_the_right_version_keeps_its_rows(tmp_path: Path) -> None:
    path = derived_path(tmp_path)
    first = open_derived(path, SCHEMA)
    add_note(first, "kept", 1)
    first.close()

    again = open_derived(path, SCHEMA)
    assert notes(again) == {"kept": 1}
    again.close()


@pytest.mark.parametrize("version", [0, 1, 3], ids=["unset", "older", "newer"])
def test_a_file_of_another_version_is_laid_out_again(tmp_path: Path, version: int) -> None:
    path = derived_path(tmp_path)
    raw_file(
        path,
        version=version,
        tables={
            "CREATE TABLE notes (name TEXT, other_column TEXT)": (
                "INSERT INTO notes VALUES ('stale', 'x')"
            ),
            "CREATE TABLE unrelated (x)": "INSERT INTO unrelated VALUES (1)",
        },
    )

    conn = open_derived(path, SCHEMA)
    add_note(conn, "fresh", 2)  # today's columns
    rows = notes(conn)
    conn.close()

    assert rows == {"fresh": 2}
    # Only the schema's own tables are dropped, as the files were always treated.
    assert file_state(path) == (2, {"notes", "unrelated"})


UPGRADING = DerivedSchema(
    what="test file",
    version=3,
    tables=("notes", "extra"),
    ddl=(*SCHEMA.ddl, "CREATE TABLE IF NOT EXISTS extra (x INTEGER)"),
    upgrades={2: ("CREATE TABLE IF NOT EXISTS extra (x INTEGER)",)},
)


def test_an_older_file_with_an_upgrade_keeps_its_rows_and_gains_the_new_tables(
    tmp_path: Path,
) -> None:
    path = derived_path(tmp_path)
    old = open_derived(path, SCHEMA)
    add_note(old, "kept", 7)
    old.close()

    reader = open_derived_readonly(path, UPGRADING)  # a read brings it forward first
    assert reader is not None and notes(reader) == {"kept": 7}
    reader.close()
    assert file_state(path) == (3, {"notes", "extra"})
    again = open_derived(path, UPGRADING)
    assert notes(again) == {"kept": 7}
    again.close()


def test_a_version_without_an_upgrade_path_is_still_laid_out_again(tmp_path: Path) -> None:
    path = derived_path(tmp_path)
    raw_file(path, version=1, tables={SCHEMA.ddl[0]: "INSERT INTO notes VALUES ('old', 1)"})

    assert not UPGRADING.upgradable(1) and UPGRADING.upgradable(2)
    assert open_derived_readonly(path, UPGRADING) is None
    conn = open_derived(path, UPGRADING)
    assert notes(conn) == {}
    conn.close()
    assert file_state(path) == (3, {"notes", "extra"})


def test_garbage_bytes_are_replaced_with_a_fresh_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = derived_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    Path(f"{path}-journal").write_bytes(b"a journal of the garbage")

    conn = open_derived(path, SCHEMA)
    add_note(conn, "after", 3)
    rows = notes(conn)
    conn.close()

    assert rows == {"after": 3}
    assert file_state(path) == (2, {"notes"})
    assert not Path(f"{path}-journal").exists()
    assert f"test file {path} unusable" in caplog.text and "starting it again" in caplog.text


def test_a_folder_where_the_file_should_be_is_a_typed_error_and_left_alone(
    tmp_path: Path,
) -> None:
    path = derived_path(tmp_path)
    path.mkdir(parents=True)
    (path / "keep.txt").write_text("someone's folder")

    with pytest.raises(StoreUnavailable) as caught:
        open_derived(path, SCHEMA)

    assert caught.value.code == "store_unavailable"
    assert f"the test file {path} cannot be used" in caught.value.message
    assert (path / "keep.txt").read_text() == "someone's folder"


def test_a_read_only_folder_is_a_typed_error_and_nothing_is_made(
    unprivileged: Unprivileged,
) -> None:
    folder = unprivileged.folder / "derived"

    def open_in_a_read_only_folder() -> tuple[str, str]:
        folder.mkdir(mode=0o500)
        try:
            with pytest.raises(StoreUnavailable) as caught:
                open_derived(folder / "file.sqlite3", SCHEMA)
            return caught.value.code, caught.value.message
        finally:
            folder.chmod(0o700)

    code, message = unprivileged.run(open_in_a_read_only_folder)

    assert code == "store_unavailable" and "the test file" in message
    assert list(folder.iterdir()) == []


def test_an_old_file_in_a_read_only_folder_is_a_typed_error_and_kept(
    unprivileged: Unprivileged,
) -> None:
    path = unprivileged.folder / "derived" / "file.sqlite3"

    def open_an_old_file_read_only() -> str:
        raw_file(path, version=1, tables={"CREATE TABLE notes (x)": "INSERT INTO notes VALUES (1)"})
        path.parent.chmod(0o500)
        try:
            with pytest.raises(StoreUnavailable) as caught:
                open_derived(path, SCHEMA)
            return caught.value.code
        finally:
            path.parent.chmod(0o700)

    assert unprivileged.run(open_an_old_file_read_only) == "store_unavailable"
    assert file_state(path) == (1, {"notes"})  # not deleted: a read-only file is not a damaged one


def test_reading_makes_nothing_and_skips_other_versions(tmp_path: Path) -> None:
    path = derived_path(tmp_path)
    assert open_derived_readonly(path, SCHEMA) is None
    assert not path.parent.exists()

    raw_file(path, version=1, tables={"CREATE TABLE notes (x)": "INSERT INTO notes VALUES (1)"})
    before = path.read_bytes()
    assert open_derived_readonly(path, SCHEMA) is None
    assert path.read_bytes() == before

    path.unlink()
    conn = open_derived(path, SCHEMA)
    add_note(conn, "kept", 4)
    conn.close()
    reader = open_derived_readonly(path, SCHEMA)
    assert reader is not None
    assert notes(reader) == {"kept": 4}
    with pytest.raises(sqlite3.OperationalError):  # read-only: sqlite3 refuses a write
        add_note(reader, "refused", 5)
    reader.close()


def test_reading_garbage_is_a_typed_error(tmp_path: Path) -> None:
    path = derived_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)

    with pytest.raises(StoreUnavailable) as caught:
        open_derived_readonly(path, SCHEMA)

    assert caught.value.code == "store_unavailable"
    assert path.read_bytes() == b"this is not a database" * 100


def test_remove_takes_the_file_and_what_sqlite_keeps_beside_it(tmp_path: Path) -> None:
    path = derived_path(tmp_path)
    path.parent.mkdir(parents=True)
    for suffix in ("", "-journal", "-wal", "-shm"):
        Path(f"{path}{suffix}").write_bytes(b"x")
    (path.parent / "other.sqlite3").write_bytes(b"y")

    remove_derived(path)
    remove_derived(path)  # nothing left: still fine

    assert [p.name for p in path.parent.iterdir()] == ["other.sqlite3"]


def test_failures_in_use_are_typed_but_misuse_stays_a_bug(tmp_path: Path) -> None:
    path = derived_path(tmp_path)
    conn = open_derived(path, SCHEMA)
    add_note(conn, "once", 1)

    with pytest.raises(StoreUnavailable) as caught, derived_errors(path, SCHEMA.what):
        add_note(conn, "once", 2)  # the primary key refuses it: a database error
    conn.close()
    with pytest.raises(sqlite3.ProgrammingError), derived_errors(path, SCHEMA.what):
        notes(conn)  # a closed connection: our bug, not the file's state

    assert caught.value.code == "store_unavailable" and "UNIQUE" in caught.value.message
    reopened = open_derived(path, SCHEMA)
    assert notes(reopened) == {"once": 1}
    reopened.close()


def test_a_schema_starts_at_version_one() -> None:
    with pytest.raises(ValueError, match="starts at 1"):
        DerivedSchema(what="bad", version=0, tables=(), ddl=())
