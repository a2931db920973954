"""A fake OpenAI-compatible HTTP server on 127.0.0.1, scripted per test.

litellm talks to it for real (`model="openai/..."`, `api_base=server.base_url`), so the whole
path — request building, HTTP, response parsing, tool-call decoding, errors — is exercised.
Each test queues replies; every request body is recorded for assertions. A request with no
scripted reply gets a 500 whose message says so, so a test fails loudly instead of hanging.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from liveagent_memory.llm.client import LLMClient, ModelConfig

MODEL = "openai/fake-model"  # litellm's OpenAI-compatible route
API_KEY = "sk-test-not-a-real-key"
TIMEOUT_SECONDS = 10.0  # ample for a scripted reply; a test of time-outs passes its own


@dataclass
class Reply:
    """One scripted HTTP reply: a JSON body with a status, optionally after a delay."""

    body: dict[str, Any]
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def _usage(prompt: int = 120, completion: int = 30) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def completion_body(
    *,
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A chat.completion response body."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": usage or _usage(),
    }


def tool_call(name: str, arguments: dict[str, Any] | str, *, call_id: str = "") -> dict[str, Any]:
    """One tool call; `arguments` may be a raw string to send malformed JSON."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {
        "id": call_id or f"call_{name}_{abs(hash(raw)) % 10_000}",
        "type": "function",
        "function": {"name": name, "arguments": raw},
    }


def model_config(
    server: FakeLLMServer,
    *,
    model: str = MODEL,
    timeout: float = TIMEOUT_SECONDS,
    temperature: float | None = None,
) -> ModelConfig:
    """A model on `server`, with the test key."""
    return ModelConfig(
        model, api_base=server.base_url, api_key=API_KEY, timeout=timeout, temperature=temperature
    )


def llm_client(
    server: FakeLLMServer, *, timeout: float = TIMEOUT_SECONDS, temperature: float | None = None
) -> LLMClient:
    """A real LLMClient (litellm and all) calling the fake model on `server`."""
    return LLMClient(model_config(server, timeout=timeout, temperature=temperature))


class FakeLLMServer:
    """Scripted OpenAI-compatible server: `/v1/chat/completions` and `/v1/embeddings`."""

    def __init__(self) -> None:
        self._replies: deque[Reply | Callable[[dict[str, Any]], Reply]] = deque()
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsable": raw.decode("utf-8", "replace")}
                reply = server._next(self.path, dict(self.headers), body)
                if reply.delay:
                    time.sleep(reply.delay)
                data = json.dumps(reply.body, ensure_ascii=False).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to deliver

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return  # keep test output clean

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # --- lifecycle --------------------------------------------------------------------------
    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # --- scripting --------------------------------------------------------------------------
    def push(self, reply: Reply | Callable[[dict[str, Any]], Reply]) -> None:
        with self._lock:
            self._replies.append(reply)

    def reply_text(self, text: str, *, delay: float = 0.0) -> None:
        self.push(Reply(completion_body(content=text), delay=delay))

    def reply_tool(
        self,
        name: str,
        arguments: dict[str, Any] | str,
        *,
        content: str | None = None,
        delay: float = 0.0,
        usage: dict[str, int] | None = None,
    ) -> None:
        body = completion_body(
            content=content, tool_calls=[tool_call(name, arguments)], usage=usage
        )
        self.push(Reply(body, delay=delay))

    def reply_tools(self, calls: list[dict[str, Any]], *, content: str | None = None) -> None:
        self.push(Reply(completion_body(content=content, tool_calls=calls)))

    def reply_error(self, status: int, message: str, *, kind: str = "error") -> None:
        self.push(Reply({"error": {"message": message, "type": kind, "code": str(status)}}, status))

    def reply_embeddings(self, vectors: list[list[float]]) -> None:
        self.push(
            Reply(
                {
                    "object": "list",
                    "data": [
                        {"object": "embedding", "index": i, "embedding": v}
                        for i, v in enumerate(vectors)
                    ],
                    "model": "fake-embed",
                    "usage": {"prompt_tokens": 8, "total_tokens": 8},
                }
            )
        )

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def _next(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        with self._lock:
            self.paths.append(path)
            self.headers.append(headers)
            self.requests.append(body)
            scripted = self._replies.popleft() if self._replies else None
        if scripted is None:
            return Reply({"error": {"message": f"fake server: no scripted reply for {path}"}}, 500)
        return scripted(body) if callable(scripted) else scripted

    # --- inspection -------------------------------------------------------------------------
    def tool_names(self, index: int = -1) -> list[str]:
        """Names of the tools attached to request `index`."""
        tools = self.requests[index].get("tools") or []
        return [tool["function"]["name"] for tool in tools]
