"""A Loki Mode store written the way Loki Mode writes it (REFERENCE B1, B2), for import tests.

`write_loki_store(project)` makes `<project>/.loki/memory` with, in the `default` namespace:
two episodes (one in the serialized `{t, action, target, result}` action form with `context`,
one in the dataclass form `{tool, input, output, timestamp}`, a failure with an error), the
layer files (`index.json`, `timeline.json`, `episodic/index.json`: none of them an entry),
`semantic/patterns.json` with a pattern and an anti-pattern (only an incorrect approach), the
legacy `semantic/anti-patterns.json`, and a skill with common errors; and a `billing` namespace
with one episode and one pattern.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EPISODE_1 = "ep-2026-01-06-aaaa0001"
EPISODE_2 = "ep-2026-01-07-bbbb0002"
EPISODE_BILLING = "ep-2026-01-08-cccc0003"

PATTERN = {
    "id": "sem-001",
    "pattern": "Express route handlers need explicit return types in strict mode",
    "category": "typescript",
    "conditions": ["Using TypeScript strict mode", "Writing Express route handlers"],
    "correct_approach": "Add `: void` to the handler signature",
    "incorrect_approach": "Omitting the return type annotation",
    "confidence": 0.95,
    "source_episodes": [EPISODE_1, EPISODE_2],
    "usage_count": 8,
    "last_used": "2026-01-06T14:00:00Z",
    "links": [{"to": "sem-005", "relation": "related_to", "strength": 1.0}],
    "importance": 0.5,
    "access_count": 0,
    "created_at": "2026-01-06T12:00:00+00:00",
    "_namespace": "default",
}
ANTI_PATTERN = {
    "id": "sem-002",
    "pattern": "Calling the payments sandbox without the VPN times out",
    "category": "infrastructure",
    "conditions": [],
    "correct_approach": "",
    "incorrect_approach": "Calling the payments sandbox off the VPN",
    "confidence": 0.6,
    "source_episodes": [EPISODE_2],
    "usage_count": 0,
    "links": [],
    "importance": 0.5,
    "access_count": 0,
    "_namespace": "default",
}
LEGACY_ANTI_PATTERN = {
    "what_fails": "TypeScript compilation",
    "why": "Missing return type annotation",
    "prevention": "Added explicit :void to route handler",
    "source": EPISODE_1,
}
SKILL = {
    "id": "skill-api-implementation",
    "name": "API Implementation",
    "description": "Implement a REST endpoint from the OpenAPI spec",
    "prerequisites": ["OpenAPI spec exists", "Database schema defined"],
    "steps": ["Read the endpoint spec", "Create the route handler", "Write contract tests"],
    "common_errors": [
        {"error": "Missing return type", "fix": "Add `: void` to the handler"},
        {"error": "Schema mismatch", "fix": "Regenerate types from the spec"},
    ],
    "exit_criteria": ["All contract tests pass"],
    "example_usage": "POST /api/todos",
    "importance": 0.5,
    "access_count": 0,
    "created_at": "2026-01-06T12:00:00+00:00",
    "_namespace": "default",
}
BILLING_PATTERN = {
    "id": "sem-001",
    "pattern": "Invoices are rounded per line, not per total",
    "category": "billing",
    "correct_approach": "Round each line before summing",
    "confidence": 0.8,
    "source_episodes": [EPISODE_BILLING],
    "_namespace": "billing",
}


def episode_serialized(episode_id: str, goal: str, *, namespace: str = "default") -> dict[str, Any]:
    """An EpisodeTrace as Loki's to_dict() writes it (REFERENCE B2 serialized form)."""
    return {
        "id": episode_id,
        "task_id": "task-042",
        "timestamp": "2026-01-06T10:30:00Z",
        "duration_seconds": 342,
        "agent": "eng-001-backend",
        "context": {
            "phase": "ACT",
            "goal": goal,
            "files_involved": ["src/routes/todos.ts"],
        },
        "action_log": [
            {"t": 0, "action": "read_file", "target": "openapi.yaml", "result": "ok"},
            {"t": 5, "action": "write_file", "target": "src/routes/todos.ts", "result": "ok"},
        ],
        "outcome": "success",
        "errors_encountered": [
            {
                "type": "TypeScript compilation",
                "message": "Missing return type annotation",
                "resolution": "Added explicit :void to route handler",
            }
        ],
        "artifacts_produced": ["src/routes/todos.ts"],
        "git_commit": "abc123",
        "tokens_used": 1200,
        "files_read": ["openapi.yaml"],
        "files_modified": ["src/routes/todos.ts"],
        "importance": 0.6,
        "access_count": 0,
        "_namespace": namespace,
    }


def episode_dataclass_form() -> dict[str, Any]:
    """An episode whose actions use the dataclass names `{tool, input, output, timestamp}`."""
    return {
        "id": EPISODE_2,
        "task_id": "task-043",
        "timestamp": "2026-01-07T09:00:00Z",
        "duration_seconds": 60,
        "agent": "eng-002",
        "phase": "VERIFY",
        "goal": "Call the payments sandbox",
        "action_log": [
            {"tool": "run_test", "input": "payments", "output": "timeout", "timestamp": 30},
        ],
        "outcome": "failure",
        "errors_encountered": [
            {"error_type": "Timeout", "message": "sandbox unreachable", "resolution": ""}
        ],
        "_namespace": "default",
    }


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def write_loki_store(project: Path) -> Path:
    """The store described in the module docstring; returns its `.loki/memory` folder."""
    memory = project / ".loki" / "memory"
    episodic = memory / "episodic"
    write_json(
        episodic / "2026-01-06" / f"task-{EPISODE_1}.json",
        episode_serialized(EPISODE_1, "Implement POST /api/todos endpoint"),
    )
    write_json(episodic / "2026-01-07" / f"task-{EPISODE_2}.json", episode_dataclass_form())
    write_json(episodic / "index.json", {"version": "1.1.0", "topics": []})
    write_json(memory / "index.json", {"version": "1.1.0", "topics": []})
    write_json(memory / "timeline.json", {"recent_actions": [], "key_decisions": []})
    write_json(
        memory / "semantic" / "patterns.json",
        {"version": "1.1.0", "patterns": [PATTERN, ANTI_PATTERN], "last_updated": "2026-01-07"},
    )
    write_json(memory / "semantic" / "anti-patterns.json", [LEGACY_ANTI_PATTERN])
    write_json(memory / "skills" / "API_Implementation.json", SKILL)
    (memory / "vectors").mkdir(parents=True)
    billing = memory / "billing"
    write_json(
        billing / "episodic" / "2026-01-08" / f"task-{EPISODE_BILLING}.json",
        episode_serialized(EPISODE_BILLING, "Round the invoice lines", namespace="billing"),
    )
    write_json(billing / "semantic" / "patterns.json", {"patterns": [BILLING_PATTERN]})
    return memory
