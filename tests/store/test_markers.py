"""store/markers.py: `.workdir.json` read and written with the keys issue 19 adds, keeping the
reference's `path` and every key it does not know."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import ProjectMarkerInvalid
from liveagent_memory.store.markers import (
    load_marker,
    read_workdir_marker,
    record_seen,
    write_workdir_marker,
)


def marker_json(folder: Path) -> dict[str, Any]:
    data = json.loads((folder / ".workdir.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_a_new_marker_has_the_reference_keys_first_and_the_new_ones(tmp_path: Path) -> None:
    write_workdir_marker(tmp_path, "/src/shop", 0, project_id="git:h/a/b", machine="laptop")

    assert marker_json(tmp_path) == {
        "path": "/src/shop",
        "createdAt": "1970-01-01T00:00:00.000Z",
        "projectId": "git:h/a/b",
        "paths": [{"path": "/src/shop", "machine": "laptop", "seenAt": "1970-01-01T00:00:00.000Z"}],
    }
    write_workdir_marker(tmp_path, "/elsewhere", 5, project_id="x")  # once: never replaced
    assert marker_json(tmp_path)["path"] == "/src/shop"


def test_recording_a_path_keeps_keys_it_does_not_know(tmp_path: Path) -> None:
    (tmp_path / ".workdir.json").write_text(
        json.dumps({"path": "/src/shop", "createdAt": "c", "color": "blue", "paths": "odd"}),
        encoding="utf-8",
    )

    assert record_seen(tmp_path, "/home/b/shop", 0, project_id="git:h/a/b", machine="desktop")
    data = marker_json(tmp_path)
    assert (data["path"], data["createdAt"], data["color"]) == ("/src/shop", "c", "blue")
    assert data["projectId"] == "git:h/a/b"
    assert [p["path"] for p in data["paths"]] == ["/src/shop", "/home/b/shop"]
    assert not record_seen(tmp_path, "/home/b/shop", 9, project_id="other", machine="x")
    assert marker_json(tmp_path) == data  # nothing new: not rewritten, the first id kept


def test_paths_are_capped(tmp_path: Path) -> None:
    write_workdir_marker(tmp_path, "/p0", 0)
    for n in range(1, config.PROJECT_PATHS_MAX + 5):
        record_seen(tmp_path, f"/p{n}", n, project_id=None, machine=None)

    marker = load_marker(tmp_path)
    assert marker is not None
    assert len(marker.paths) == config.PROJECT_PATHS_MAX
    assert marker.paths[-1].path == f"/p{config.PROJECT_PATHS_MAX + 4}"
    assert marker.path == "/p0"  # the reference's key is never touched


@pytest.mark.parametrize(
    "text", ["{nope", "[]", '{"path": 3}', '{"path": "  "}', '{"path": "a\\u0000b"}']
)
def test_a_bad_marker_is_a_typed_problem_and_is_not_rewritten(tmp_path: Path, text: str) -> None:
    (tmp_path / ".workdir.json").write_text(text, encoding="utf-8")

    with pytest.raises(ProjectMarkerInvalid) as raised:
        load_marker(tmp_path)
    assert raised.value.code == "project_marker_invalid"
    assert read_workdir_marker(tmp_path) is None
    with pytest.raises(ProjectMarkerInvalid):
        record_seen(tmp_path, "/src/shop", 0, project_id="x", machine=None)
    assert (tmp_path / ".workdir.json").read_text("utf-8") == text


def test_no_marker_is_none(tmp_path: Path) -> None:
    assert load_marker(tmp_path) is None
    assert not record_seen(tmp_path, "/src", 0, project_id="x", machine=None)
    assert not (tmp_path / ".workdir.json").exists()
