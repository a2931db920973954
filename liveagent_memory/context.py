"""The composition root's object: what a front end builds once and hands down.

docs/ARCHITECTURE.md "Composition roots": an `AppContext` holds the home, the clock, the
MemoryStore, the settings (a `SettingsSource`), the API keys (a `SecretStore`), the embedding
chain source built from those two (with the searchers it keeps) and the factory of model
clients. The services receive these pieces; none reads settings.json or the keyring itself.

It is built in exactly two places: the CLI (`cli/entry.py`, once per run) and the desktop app
(`ui/app.py`, once per window). A caller that hands `commands.dispatch` a bare MemoryStore (a
test, a library host) gets a new default context per call from `context_for`, the one function
that makes it. Beside the pieces, the context offers the few calls a front end makes on them
without reaching below it: `search` awaited on a loop, the background vector builder
(`vector_builder`) and the model connection check.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from liveagent_memory.domain.calls import SyncCall
from liveagent_memory.domain.clock import Clock, system_clock
from liveagent_memory.domain.requests import SearchRequest
from liveagent_memory.llm.client import LLMClient, ModelConfig, UsageLedger
from liveagent_memory.llm.keys import resolve_api_key
from liveagent_memory.llm.probe import ProbeResult, check_connection, prepare_probe
from liveagent_memory.paths import default_home
from liveagent_memory.retrieval import service as retrieval
from liveagent_memory.retrieval.chain import ChainSource, SearcherCache
from liveagent_memory.retrieval.hybrid import HybridResult
from liveagent_memory.retrieval.meanings import LocalMeanings
from liveagent_memory.retrieval.vector_builder import Listener, VectorBuilder
from liveagent_memory.settings import SecretStore, SettingsFile, SettingsSource, model_config
from liveagent_memory.store.store import MemoryStore

log = logging.getLogger(__name__)


class _StoreHandle:
    """The context's store: given already open (the caller closes it), or opened on first use
    (the context closes it)."""

    def __init__(
        self, *, opened: MemoryStore | None = None, opener: Callable[[], MemoryStore] | None = None
    ) -> None:
        self._store = opened
        self._opener = opener
        self._lock = threading.Lock()  # the app reaches the context from more than one thread

    def get(self) -> MemoryStore:
        with self._lock:
            if self._store is None:
                assert self._opener is not None  # one of the two is always given
                self._store = self._opener()
            return self._store

    def close(self) -> None:
        with self._lock:
            if self._opener is not None and self._store is not None:
                self._store.close()
                self._store = None


class AppContext:
    """The pieces of one running front end (see the module docstring); not to be reassigned.

    Attributes:
        home: the store's folder (settings.json lives there too).
        clock: the one time source of everything this context opens.
        settings: the current settings, read again after a save (`SettingsSource`).
        secrets: the API keys by purpose (`SecretStore`; the app's keeps what it read).
        embeddings: the embedding chain source of search and context, built from `settings`
            and `secrets`, with the semantic searchers it keeps between calls.
    """

    def __init__(
        self,
        home: Path,
        *,
        clock: Clock,
        settings: SettingsSource,
        secrets: SecretStore,
        store: MemoryStore | Callable[[], MemoryStore],
        searchers: SearcherCache | None = None,
    ) -> None:
        """`store` is an open store (its caller closes it) or a function that opens one on
        first use (then `close()` closes it)."""
        self.home = home
        self.clock = clock
        self.settings = settings
        self.secrets = secrets
        self._searchers = searchers if searchers is not None else SearcherCache()
        self.embeddings = ChainSource(
            configured=lambda: list(settings.current().embeddings),
            api_key=self.api_key,
            searchers=self._searchers,
        )
        self._vectors: VectorBuilder | None = None
        if isinstance(store, MemoryStore):
            self._store = _StoreHandle(opened=store)
        else:
            self._store = _StoreHandle(opener=store)
        # One per front end run: more of them for one CLI run means a part built its own.
        log.debug("app context for %s", home)

    @classmethod
    def open(
        cls,
        home: Path | str | None = None,
        *,
        clock: Clock = system_clock,
        secrets: SecretStore | None = None,
        settings: SettingsSource | None = None,
        executes_runs: bool = True,
    ) -> AppContext:
        """The context of the store at `home` (default: $LIVEAGENT_MEMORY_HOME or
        ~/.liveagent/memory), with its settings.json and the OS keyring unless given others.

        Nothing is read here: the store opens (created if needed, its index reconciled) on the
        first use of `store`, the settings when first asked, so a command that needs neither
        touches no file. `executes_runs` is passed to `MemoryStore.open`.
        """
        root = Path(home) if home is not None else default_home()

        def open_store() -> MemoryStore:
            return MemoryStore.open(root, clock=clock, executes_runs=executes_runs)

        return cls(
            root,
            clock=clock,
            settings=settings if settings is not None else SettingsFile(root),
            secrets=secrets if secrets is not None else SecretStore(),
            store=open_store,
        )

    @property
    def store(self) -> MemoryStore:
        """The open store (opened on first use when the context opens it)."""
        return self._store.get()

    def open_store(self) -> MemoryStore:
        """Open the store now if it is not open yet (a front end chooses when and on which
        thread the opening, with its reconcile, happens); return it."""
        return self._store.get()

    def close(self) -> None:
        """Stop the background vector builder, close the kept searchers' caches, and the store
        if this context opened it."""
        if self._vectors is not None:
            self._vectors.close()
        self._searchers.close()
        self._store.close()

    def __enter__(self) -> AppContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- keys and models ------------------------------------------------------------------------

    def api_key(self, purpose: str) -> str | None:
        """The key stored for `purpose`; None lets litellm read the environment (llm/keys.py)."""
        return resolve_api_key(self.secrets, purpose)

    def keys_changed(self) -> None:
        """Keys may have changed outside this context (another program): read them again."""
        self.secrets.forget()

    def model_config(
        self, purpose: str, *, model: str | None = None, api_base: str | None = None
    ) -> ModelConfig:
        """The call settings of `purpose` from the current settings and its key; explicit
        arguments win over saved settings."""
        current = self.settings.current()
        return model_config(current, self.secrets, purpose, model=model, api_base=api_base)

    def llm(
        self,
        purpose: str,
        *,
        model: str | None = None,
        api_base: str | None = None,
        ledger: UsageLedger | None = None,
    ) -> LLMClient:
        """A model client for `purpose` (see model_config), recording usage in `ledger`."""
        return LLMClient(self.model_config(purpose, model=model, api_base=api_base), ledger=ledger)

    def meanings(self, *, embed_limit: int | None = None) -> LocalMeanings:
        """The organizer's meanings for one run: nearest memories by the local model
        (retrieval/meanings.py), embedding up to `embed_limit` memories the vectors lack
        (None: all of them)."""
        return LocalMeanings(self.home, embed_limit=embed_limit)

    # --- front-end calls ------------------------------------------------------------------------

    async def search(self, req: SearchRequest, *, offload: SyncCall) -> HybridResult:
        """`memory_search` awaited on the running loop (retrieval's `asearch` on this context's
        chain): the store and files through `offload`, the query's embedding on the loop."""
        store = await offload(self.open_store)
        return await retrieval.asearch(store, req, self.embeddings, offload=offload)

    def vector_builder(self, listener: Listener | None = None) -> VectorBuilder:
        """This front end's one background builder of the local vector index (made on first
        use; `close()` stops it). `listener` gets its progress, from the builder's thread."""
        if self._vectors is None:
            self._vectors = VectorBuilder(lambda: self.store, self.embeddings)
        if listener is not None:
            self._vectors.listener = listener
        return self._vectors

    def prepare_probe(self, purpose: str, *, model: str, api_base: str = "") -> ModelConfig:
        """The call settings of a connection check with this context's key for `purpose`
        (blocking: the keyring and litellm's first import; for a worker thread)."""
        return prepare_probe(self.secrets, purpose, model=model, api_base=api_base)

    async def check_connection(self, model: ModelConfig) -> ProbeResult:
        """One tiny real call to `model` (llm/probe.py); raises its typed LLMError."""
        return await check_connection(model)


def context_for(
    store: MemoryStore,
    *,
    settings: SettingsSource | None = None,
    secrets: SecretStore | None = None,
) -> AppContext:
    """A default context of an open store: its home's settings.json and the OS keyring unless
    given others, its own searchers. The caller keeps the store (closing this context leaves it
    open). Each call makes a new one, so a bare store's searches keep nothing between calls."""
    return AppContext(
        store.root,
        clock=store.now_ms,
        settings=settings if settings is not None else SettingsFile(store.root),
        secrets=secrets if secrets is not None else SecretStore(),
        store=store,
    )
