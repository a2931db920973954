"""What every command group writes with: JSON, counts of things, local times, padded tables."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, TextIO


def emit_json(data: Any, out: TextIO) -> None:
    """Write `data` as indented JSON, non-ASCII text as it is."""
    out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def counted(n: int, noun: str) -> str:
    """`1 memory`, `2 memories`, `1,204 episodes`: the one plural rule of the CLI's output.

    English regular plurals: a consonant and y -> ies (entry), s/x/ch/sh -> es (match), else s.
    """
    if n == 1:
        word = noun
    elif noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        word = noun[:-1] + "ies"
    elif noun.endswith(("s", "x", "ch", "sh")):
        word = noun + "es"
    else:
        word = noun + "s"
    return f"{n:,} {word}"


def local_time(ms: int | None) -> str:
    """Epoch milliseconds as local `YYYY-MM-DD HH:MM`; "-" for none."""
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000).astimezone().strftime("%Y-%m-%d %H:%M")


def write_table(rows: list[list[Any]], out: TextIO) -> None:
    """Columns padded to their widest cell; numbers right-aligned, the last column unpadded."""
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            text = str(cell)
            if i == len(row) - 1:
                cells.append(text)
            elif isinstance(cell, int):
                cells.append(text.rjust(widths[i]))
            else:
                cells.append(text.ljust(widths[i]))
        out.write("  " + "  ".join(cells).rstrip() + "\n")
