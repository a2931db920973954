"""Helpers for organizer tests: memories in a real store, runs, and fake-model plan replies.

The plan replies read the cluster the pipeline sent (its id and the `slug:` lines of the
prompt) and answer with decisions for exactly those slugs, the way a model would.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict, Unpack

from liveagent_memory.commands import dispatch
from liveagent_memory.organizer.decisions import OrganizerEntry
from liveagent_memory.store.owners import RunOwner
from liveagent_memory.store.store import MemoryStore
from tests.helpers.fake_llm import Reply, completion_body, tool_call

PLAN = "SubmitMemoryOrganizePlan"
TOPIC = "SubmitMemoryTopicClusters"

Decide = Callable[[str, list[str]], list[dict[str, Any]]]


class EntryFields(TypedDict, total=False):
    """The fields of an OrganizerEntry a test chooses; the others keep `organizer_entry`'s."""

    scope: str
    workdir_hash: str
    type: str
    description: str
    headline: str
    body: str
    unreviewed: bool
    confidence: str
    updated_at: int


def organizer_entry(slug: str, **fields: Unpack[EntryFields]) -> OrganizerEntry:
    """One memory as the organizer sees it: unless `fields` say otherwise, an unreviewed
    global reference "About {slug}" with the body "Body of {slug}.", of medium confidence."""
    entry = OrganizerEntry(
        slug=slug,
        scope="global",
        workdir_hash="",
        type="reference",
        description=f"About {slug}",
        headline="",
        body=f"Body of {slug}.",
        unreviewed=True,
        confidence="medium",
        updated_at=1,
    )
    return dataclasses.replace(entry, **fields)


def write(
    store: MemoryStore,
    slug: str,
    body: str | None = None,
    *,
    reviewed: bool = False,
    scope: str = "global",
    type: str = "reference",  # noqa: A002 - the command's field name
    description: str | None = None,
    workdir: str | None = None,
) -> dict[str, Any]:
    """Write one memory; `reviewed` writes as the user, otherwise as the extractor."""
    payload: dict[str, Any] = {
        "slug": slug,
        "scope": scope,
        "type": type,
        "description": description or f"About {slug}",
        "body": body or f"Notes about {slug.replace('-', ' ')}.",
        "actor": "user" if reviewed else "extractor",
    }
    if workdir:
        payload["workdir"] = workdir
    return dispatch(store, "memory_write", payload)


def dead_owner() -> RunOwner:
    """A real process that ran and ended (its parent reaped it), as a run owner.

    Its start time comes along, so even if the system hands its pid to a new process before
    the test looks, the owner is still seen as gone.
    """
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "from liveagent_memory.store.owners import RunOwner\n"
            "me = RunOwner.current()\n"
            "print(me.host, me.pid, me.started)",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    host, pid, started = child.stdout.split()
    return RunOwner(host, int(pid), None if started == "None" else int(started))


def new_run(
    store: MemoryStore,
    *,
    trigger: str = "manual",
    mode: str = "conservative",
    scope: str = "all",
    dry_run: bool = False,
) -> dict[str, Any]:
    out = dispatch(
        store,
        "organize_run_create",
        {"trigger": trigger, "mode": mode, "scope": scope, "dry_run": dry_run},
    )
    assert out["claimed"], "another organizer run is active"
    return dict(out["run"])


def read_run(store: MemoryStore, run_id: str) -> dict[str, Any]:
    return dict(dispatch(store, "organize_run_read", {"run_id": run_id})["run"])


def report_of(run: dict[str, Any]) -> dict[str, Any]:
    """The typed v4 report of a run view (organize_run_read / the pipeline's result)."""
    view = run["report"]
    assert view["legacy"] is False, view
    assert view["report"] is not None, view
    return dict(view["report"])


def cluster_of(request: dict[str, Any]) -> tuple[str, list[str]]:
    """(cluster id, slugs) of a plan request, read from its prompt."""
    text = request["messages"][-1]["content"]
    found = re.search(r"^Cluster (\S+), \d+ memories:", text, re.M)
    assert found, text[:400]
    return found.group(1), re.findall(r"^slug: (\S+)$", text, re.M)


def system_prompt(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def usage(prompt: int, completion: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def tool_reply(
    name: str, arguments: dict[str, Any] | str, *, tokens: dict[str, int] | None = None
) -> Reply:
    return Reply(completion_body(tool_calls=[tool_call(name, arguments)], usage=tokens))


def planner(
    decide: Decide, *, tokens: dict[str, int] | None = None
) -> Callable[[dict[str, Any]], Reply]:
    """A scripted reply answering one plan call with `decide(cluster_id, slugs)`."""

    def answer(request: dict[str, Any]) -> Reply:
        cluster, slugs = cluster_of(request)
        args = {"summary": f"{len(slugs)} memories", "decisions": decide(cluster, slugs)}
        return tool_reply(PLAN, args, tokens=tokens)

    return answer


def keep_all(_cluster: str, slugs: list[str]) -> list[dict[str, Any]]:
    return [{"action": "keep", "slug": slug, "confidence": 0.9} for slug in slugs]


def merge(
    target: str,
    *sources: str,
    confidence: float = 0.95,
    risk: str = "low",
    reason: str = "they say the same thing",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "action": "merge_into",
        "target_slug": target,
        "source_slugs": list(sources),
        "confidence": confidence,
        "risk_level": risk,
        "reason": reason,
        **extra,
    }


def delete(
    slug: str, *, confidence: float = 0.95, risk: str = "low", **extra: Any
) -> dict[str, Any]:
    return {
        "action": "delete",
        "slug": slug,
        "confidence": confidence,
        "risk_level": risk,
        "reason": "obsolete",
        **extra,
    }


def only_known(decisions: list[dict[str, Any]]) -> Decide:
    """Decide with the given decisions, keeping those whose slugs are all in the cluster."""

    def decide(_cluster: str, slugs: list[str]) -> list[dict[str, Any]]:
        chosen = []
        for decision in decisions:
            named = [decision.get("slug"), decision.get("target_slug")]
            named += decision.get("source_slugs", [])
            if all(name in slugs for name in named if name):
                chosen.append(decision)
        return chosen

    return decide


def memory_files(home: Path) -> dict[str, bytes]:
    """Every Markdown file under the store (memories, MEMORY.md, trash, snapshots) by path."""
    return {
        str(path.relative_to(home)): path.read_bytes()
        for path in sorted(home.rglob("*"))
        if path.is_file() and (path.suffix == ".md" or path.name == ".workdir.json")
    }


def slugs_in(store: MemoryStore) -> set[str]:
    listing = dispatch(store, "memory_list", {"include_all_projects": True, "limit": 1000})
    return {entry["slug"] for entry in listing["entries"]}


def body_of(store: MemoryStore, slug: str, **target: Any) -> str:
    return str(dispatch(store, "memory_read", {"slug": slug, **target})["content"])
