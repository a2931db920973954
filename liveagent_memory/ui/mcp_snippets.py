"""The MCP configuration an agent client needs for this store, as README "Any MCP client" gives
it: the same text, with this install's command and this store's `--home` filled in.

No Qt here: the "Web and agents" page shows the text and copies it; the tests read it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

SERVER_NAME = "liveagent-memory"  # the name a client lists the server under
CLIENTS = ("claude_desktop", "claude_code", "cursor", "vscode")
# Product names, the same in every language (not translated).
CLIENT_NAMES = {
    "claude_desktop": "Claude Desktop",
    "claude_code": "Claude Code",
    "cursor": "Cursor",
    "vscode": "VS Code",
}
WORKSPACE = "${workspaceFolder}"  # Cursor and VS Code put the open project's folder here


def command_path() -> str:
    """This install's `liveagent-memory` command, by its full path where it can be found (a
    client started from the desktop does not search the shell's PATH)."""
    found = shutil.which(SERVER_NAME)
    if found:
        return found
    beside = Path(sys.executable).with_name(SERVER_NAME)  # the venv's, not on PATH
    return str(beside) if beside.exists() else SERVER_NAME


def mcp_args(home: Path, *, workdir: str | None) -> list[str]:
    """`mcp` with this store and, given one, the project folder; read-write (what an agent
    writes waits unreviewed for the person)."""
    args = ["mcp", "--home", str(home)]
    if workdir is not None:
        args += ["--workdir", workdir]
    return [*args, "--read-write"]


def mcp_snippet(client: str, *, home: Path, command: str) -> str:
    """The configuration for `client` (one of CLIENTS; KeyError for another)."""
    if client == "claude_code":
        words = [command, *mcp_args(home, workdir=None)]
        quoted = " ".join(shlex.quote(word) for word in words[:-1])
        # "$PWD" stays for the shell to expand: the project Claude Code is started in.
        return f'claude mcp add {SERVER_NAME} -- {quoted} --workdir "$PWD" --read-write\n'
    server: dict[str, object]
    if client == "claude_desktop":  # global memories: Claude Desktop has no project folder
        server = {"command": command, "args": mcp_args(home, workdir=None)}
        config: dict[str, object] = {"mcpServers": {SERVER_NAME: server}}
    elif client == "cursor":
        server = {"command": command, "args": mcp_args(home, workdir=WORKSPACE)}
        config = {"mcpServers": {SERVER_NAME: server}}
    elif client == "vscode":
        server = {"type": "stdio", "command": command, "args": mcp_args(home, workdir=WORKSPACE)}
        config = {"servers": {SERVER_NAME: server}}
    else:
        raise KeyError(client)
    return json.dumps(config, indent=2, ensure_ascii=False) + "\n"
