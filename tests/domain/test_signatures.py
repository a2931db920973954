"""When two episodes met the same error or did the same thing (domain/signatures.py, issue 18),
and how alike two short texts read (domain/similar.py `text_similarity`)."""

from __future__ import annotations

import pytest

from liveagent_memory.domain.signatures import (
    action_signature,
    error_signature,
    is_chinese,
    mask,
)
from liveagent_memory.domain.similar import text_similarity


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # numbers, paths, quoted values, request ids
        (
            "'exp' missing in /src/auth/login.py:12 (req-4411)",
            '"iat" missing in lib/jwt.py:40 (req-9)',
        ),
        # hex addresses and uuids
        ("segfault at 0x7ffd3a2b", "segfault at 0xdeadbeef"),
        (
            "job 3f2a9c1e-7b4d-4e8a-9c0f-1a2b3c4d5e6f failed",
            "job 00000000-0000-4000-8000-00000000abcd failed",
        ),
        # URLs and Windows paths
        ("GET https://api.x.io/v1/a?id=3 timed out", "GET http://localhost:8080/b timed out"),
        ("cannot open C:\\Users\\a\\x.txt", "cannot open D:\\tmp\\y.txt"),
        # Chinese text around the changing parts
        ("连接 /var/run/a.sock 超时 30 秒", "连接 /tmp/b.sock 超时 5 秒"),
    ],
)
def test_one_error_with_other_details_has_one_signature(first: str, second: str) -> None:
    assert error_signature("SomeError", first) == error_signature("SomeError", second)


def test_different_errors_keep_different_signatures() -> None:
    base = error_signature("KeyError", "'exp' missing in /a.py:1")
    assert error_signature("ValueError", "'exp' missing in /a.py:1") != base  # another type
    assert error_signature("KeyError", "'exp' present in /a.py:1") != base  # another message
    assert error_signature("KeyError", "'exp' missing in /a.py:1") == base
    assert error_signature(" keyerror ", "'EXP' MISSING  in /b.py:2") == base  # case, spaces


def test_an_action_sequence_masks_its_targets_but_keeps_its_tools_and_order() -> None:
    one = action_signature([("read_file", "src/a.py"), ("Run_Test", "pytest -k 12")])
    assert one == ("read_file <path>", "run_test pytest -k <n>")
    assert action_signature([("read_file", "lib/b.py"), ("run_test", "pytest -k 7")]) == one
    assert action_signature([("run_test", "pytest -k 7"), ("read_file", "lib/b.py")]) != one
    assert mask('{"path": "a.py", "line": 3}') == "{<q>: <q>, <q>: <n>}"


def test_language_is_chinese_when_most_texts_hold_cjk() -> None:
    assert is_chinese(["修复登录", "KeyError: exp", "登录失败"])
    assert not is_chinese(["fix login", "KeyError: exp", "登录失败"])
    assert not is_chinese(["", " "])


def test_text_similarity() -> None:
    assert text_similarity("Fix the login", "fix  the LOGIN") == 1.0
    assert text_similarity("", "anything") == 0.0
    assert 0.7 <= text_similarity("release version 1.0", "release version 1.1") < 1.0
    assert text_similarity("release version 1.0", "数据库迁移") < 0.2
