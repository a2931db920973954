"""The app's memory search: `memory_search` with the query's embedding awaited on the loop.

Run as a command, `memory_search` does everything on the thread that calls it, and embeds the
query there (an HTTP call for a remote provider); in the app that thread would be the single
store worker, and every keystroke would hold up every other page while a provider thinks.
`MemorySearch` awaits the app AppContext's `search` instead (retrieval's `asearch`): the store,
vector indexes and embedding cache are reached on the store worker, the provider call is awaited
on the loop, and the result, ranking and counts are the command's (one implementation).

The chain comes from the context: its providers from the current settings (settings.json is
read again only when it changed on disk), their keys from the context's kept keys (read once,
again after a key is saved or removed in the app, or after `settings_changed()`: F5).
"""

from __future__ import annotations

from typing import Any

from liveagent_memory.commands import find_command, validate
from liveagent_memory.context import AppContext
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.ui.bridge import Bridge

SEARCH = find_command("memory_search")


class MemorySearch:
    """`memory_search` for the app's pages, with the query embedded on the loop."""

    def __init__(self, bridge: Bridge, context: AppContext) -> None:
        self._bridge = bridge
        self._context = context

    async def search(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Search as `memory_search` does (its validation, result and typed errors)."""
        request = validate(SEARCH, payload)
        assert isinstance(request, SearchRequest)
        result = await self._context.search(request, offload=self._bridge.run_store)
        return result.to_dict()

    def settings_changed(self) -> None:
        """Keys may have changed outside the app (F5): the next search reads them again."""
        self._context.keys_changed()
