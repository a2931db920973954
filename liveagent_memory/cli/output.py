"""What every command group writes with: JSON, local times, padded tables."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, TextIO


def emit_json(data: Any, out: TextIO) -> None:
    """Write `data` as indented JSON, non-ASCII text as it is."""
    out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


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
