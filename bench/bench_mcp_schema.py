"""The MCP server's tool surface in tokens (issue 16: keep it under MCP_SCHEMA_TOKEN_LIMIT).

An MCP client puts every tool's name, description and input schema in each prompt it sends
the model; peers offer 9-27 tools and one user measured 27 at 15-25 KB of context. This
measures ours, read-only (`liveagent-memory mcp`) and read-write (`--read-write`), as the JSON
of `tools/list` (`McpMemory.tool`, what the server answers):

- estimated: the project's own token estimate (domain/text.py `estimate_tokens`: a CJK
  character is a token, other text four characters a token), the one every budget uses and the
  one the limit is held to (`McpMemory.schema_tokens`, tests/test_mcp_server.py);
- cl100k/o200k: a real tokenizer when one is installed (litellm's `token_counter`, offline,
  gpt-4o's), to show how close the estimate is.

    .venv/bin/python bench/bench_mcp_schema.py [--out bench/out/mcp-schema.json]

Exit code 1 when a surface reaches the limit.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchenv import machine_info, package_state

from liveagent_memory.context import AppContext
from liveagent_memory.domain import config
from liveagent_memory.domain.text import estimate_tokens
from liveagent_memory.mcp_server.memory import McpMemory


def real_tokens(text: str) -> int | None:
    """gpt-4o's token count of `text` through litellm (offline), or None without it."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch
    try:
        import litellm

        return int(litellm.token_counter(model="gpt-4o", text=text))
    except Exception:  # any failure only drops the second figure
        return None


def measure(memory: McpMemory) -> dict[str, Any]:
    tool = memory.tool()
    listed = json.dumps([tool], ensure_ascii=False)
    return {
        "tools": 1,
        "actions": tool["input_schema"]["properties"]["action"]["enum"],
        "chars": len(listed),
        "description_tokens": estimate_tokens(tool["description"]),
        "schema_tokens": estimate_tokens(json.dumps(tool["input_schema"], ensure_ascii=False)),
        "estimated_tokens": memory.schema_tokens(),
        "gpt4o_tokens": real_tokens(listed),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as home, AppContext.open(Path(home)) as context:
        for label, writable in (("read-only", False), ("read-write", True)):
            rows[label] = measure(McpMemory(context, writable=writable))
    limit = config.MCP_SCHEMA_TOKEN_LIMIT
    print(f"## MCP tool surface (limit {limit} estimated tokens)\n")
    print("| mode | tools | actions | chars | description | input schema | estimated | gpt-4o |")
    print("|---|---|---|---|---|---|---|---|")
    for label, row in rows.items():
        print(
            f"| {label} | {row['tools']} | {len(row['actions'])} | {row['chars']} | "
            f"{row['description_tokens']} | {row['schema_tokens']} | "
            f"{row['estimated_tokens']} | {row['gpt4o_tokens'] or 'n/a'} |"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = {"limit": limit, "surfaces": rows, "machine": machine_info()}
        report["code"] = package_state()
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False), "utf-8")
    return 1 if any(row["estimated_tokens"] >= limit for row in rows.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
