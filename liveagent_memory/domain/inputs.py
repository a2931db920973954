"""The one rule for text and numbers that come from outside (requests, tool calls, plans).

Text must be valid Unicode without NUL or other C0 control characters: a lone UTF-16
surrogate cannot be encoded to UTF-8 (the file is written, the index insert fails, the store
never opens again), and a NUL byte makes a memory file unreadable. Tab and newline are
ordinary text; CRLF and a lone CR are Windows or old Mac text and become `\\n` instead of
being refused. Integers must fit SQLite's signed 64 bits (a larger one raises OverflowError
inside a query). Every refusal is an InvalidArgument naming the field path (`items.2.body`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from liveagent_memory.domain import config
from liveagent_memory.domain.errors import InvalidArgument

# After CR normalization: C0 controls other than tab (\x09) and newline (\x0a), and every
# surrogate code point (in a Python str any surrogate is unpaired: a pair decodes to one
# code point, so what is left cannot be encoded to UTF-8).
_REFUSED = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff]")
_SHOWN_KEY_CHARS = 40  # a bad dict key is named in the message, escaped and shortened
_SHOWN_INT_BITS = 128  # larger integers are described by their size, not printed


def _what(char: str) -> str:
    code = ord(char)
    if code == 0:
        return "a NUL character (U+0000)"
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone UTF-16 surrogate (U+{code:04X})"
    return f"a control character (U+{code:04X})"


def clean_text(value: str, *, field: str) -> str:
    """Return `value` with CRLF and lone CR turned into LF; refuse what the rule forbids.

    Raises InvalidArgument naming `field` and the first offending character's position.
    """
    if "\r" in value:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    bad = _REFUSED.search(value)
    if bad is not None:
        raise InvalidArgument(
            f"{field}: contains {_what(bad.group())} at character {bad.start()}; text may not "
            "hold NUL, lone surrogates or control characters other than tab and newline",
            field=field,
        )
    return value


def check_int(value: int, *, field: str) -> int:
    """Return `value` when it fits SQLite's signed 64-bit integers; else InvalidArgument."""
    if not config.SQLITE_MIN_INTEGER <= value <= config.SQLITE_MAX_INTEGER:
        raise InvalidArgument(
            f"{field}: {_short_int(value)} is out of range; integers must lie between "
            f"{config.SQLITE_MIN_INTEGER} and {config.SQLITE_MAX_INTEGER}",
            field=field,
        )
    return value


def _short_int(value: int) -> str:
    # str() of a 5,000-digit int raises ValueError (Python's int-to-text limit).
    bits = value.bit_length()
    return f"a number of about {bits} bits" if bits > _SHOWN_INT_BITS else str(value)


def clean_payload(value: Any, *, path: str = "") -> Any:
    """Return a JSON-shaped value with every string (dict keys too) and integer checked.

    Strings go through clean_text, integers through check_int; dicts and lists are walked
    (at most config.REQUEST_MAX_DEPTH deep); anything else (floats, models) is left as is.
    """
    return _walk(value, path, 0)


def _walk(value: Any, path: str, depth: int) -> Any:
    if isinstance(value, str):
        return clean_text(value, field=path or "payload")
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return check_int(value, field=path or "payload")
    if isinstance(value, (dict, list, tuple)) and depth >= config.REQUEST_MAX_DEPTH:
        raise InvalidArgument(
            f"{path or 'payload'}: nested more than {config.REQUEST_MAX_DEPTH} levels deep",
            field=path or None,
        )
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            inner = _join(path, key)
            if isinstance(key, str):
                key = clean_text(key, field=inner)
            out[key] = _walk(item, inner, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_walk(item, _join(path, index), depth + 1) for index, item in enumerate(value)]
    return value


def _join(path: str, key: Any) -> str:
    """`path.key`, the key made safe to print: a bad key is itself what the message names."""
    part = str(key) if isinstance(key, (str, int)) else repr(key)
    if _REFUSED.search(part) or "\r" in part or len(part) > _SHOWN_KEY_CHARS:
        part = ascii(part[:_SHOWN_KEY_CHARS])
    return f"{path}.{part}" if path else part


def load_json(text: str) -> Any:
    """json.loads for text from outside; every failure is a ValueError with a reason.

    Besides syntax errors (JSONDecodeError) this covers numbers of more than 4,300 digits
    (Python's int limit, a plain ValueError) and nesting deep enough to exhaust the stack
    (RecursionError), so callers need to catch only ValueError.
    """
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
