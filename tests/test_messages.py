"""Error messages are for people: the rule every core raise of a typed error keeps.

The rule (issue 14, "no internal names in messages"): the literal text of a message given to a
`MemoryDomainError` raised in the core names no command of the command table, no snake_case
identifier and no dotted field path (`default.api_base`). Programs read the machine words from
the error's other parts: `code`, `field` (the JSON path), `suggested_next_call`, `candidates`.
Values put into a message (a slug, a path, a key the person wrote) are theirs, not ours, and are
not checked. The front ends speak for themselves: `ui/` translates by code (ui/strings.py) and
`cli/` names the commands a person can type.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import liveagent_memory
from liveagent_memory.commands import COMMANDS
from liveagent_memory.domain import errors
from liveagent_memory.settings import Settings, setting_words

PACKAGE = Path(liveagent_memory.__file__).parent
FRONT_ENDS = ("ui", "cli")
SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")
DOTTED = re.compile(r"\b[a-z_]+\.[a-z_]+(?:\[|\b)")
ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e)\.")
ERROR_CLASSES = {
    name
    for name, value in vars(errors).items()
    if isinstance(value, type) and issubclass(value, errors.MemoryDomainError)
}


def internal_names(text: str) -> list[str]:
    """The internal names `text` holds: snake_case words, dotted paths, command names."""
    text = ABBREVIATIONS.sub("", text)
    found = SNAKE.findall(text) + DOTTED.findall(text)
    found += [name for name in COMMANDS if re.search(rf"\b{re.escape(name)}\b", text)]
    return found


def literal_text(node: ast.expr) -> str | None:
    """The literal parts of a message expression (an f-string's values left out)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else " "
            for part in node.values
        )
    if isinstance(node, ast.BinOp):
        return (literal_text(node.left) or "") + " " + (literal_text(node.right) or "")
    return None


def core_messages() -> Iterator[tuple[str, str]]:
    """(where, literal message) of every typed error raised or built outside the front ends."""
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in FRONT_ENDS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in ERROR_CLASSES:
                text = literal_text(node.args[0])
                if text is not None:
                    yield f"{relative}:{node.lineno}", text


def test_the_rule_finds_the_internal_names_it_forbids() -> None:
    assert internal_names("default.api_base must be an http(s) URL") == [
        "api_base",
        "default.api_base",
    ]
    assert internal_names("see the runs with organize_run_list") == [
        "organize_run_list",
        "organize_run_list",
    ]
    assert internal_names("embeddings[0] is wrong") == []  # an index alone is no path
    assert internal_names("The date must be YYYY-MM-DD, e.g. 2026-01-31 (see MEMORY.md)") == []


def test_the_scan_sees_the_core_raises() -> None:
    found = dict(core_messages())
    assert len(found) > 100
    assert any(where.startswith("settings.py:") for where in found)
    assert any(where.startswith("store/") for where in found)


def test_core_error_messages_name_no_command_field_or_python_name() -> None:
    offenders = [
        f"{where}: {names} in {text!r}"
        for where, text in core_messages()
        if (names := internal_names(text))
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"default": {"api_base": "localhost:8000"}},
            "default.api_base",
            "The default model's base URL must start with http:// or https://.",
        ),
        (
            {"organizer": {"weekday": 9}},
            "organizer.weekday",
            "The organizer's weekday must be 1 (Monday) … 7 (Sunday).",
        ),
        (
            {"discovery_roots": ["/a", " "]},
            "discovery_roots[1]",
            "Project search folder 2 must be a folder path.",
        ),
    ],
)
def test_a_settings_message_names_the_setting_in_words_and_the_path_in_field(
    data: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(errors.SettingsInvalid) as info:
        Settings.from_dict(data)
    assert info.value.code == "settings_invalid"
    assert info.value.field == field
    assert info.value.message == message
    assert internal_names(info.value.message) == []


def test_setting_words_cover_every_setting() -> None:
    for name in Settings().to_dict():
        assert not setting_words(name).startswith("the setting"), name
    assert setting_words("embeddings[0].key_purpose") == "embedding provider 1's key purpose"
    assert setting_words("frobnicate") == 'the setting "frobnicate"'
