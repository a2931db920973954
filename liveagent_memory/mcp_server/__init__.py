"""The MCP server: the MemoryManager tool, the Memory Index and each memory for any MCP client.

A front end like the CLI (docs/ARCHITECTURE.md "Layers"): `memory.py` maps MCP's tools,
resources and prompts onto the agent's MemoryManager executor and the named commands of one
`AppContext`; `server.py` speaks the protocol with the official SDK over stdio or streamable
HTTP. `liveagent-memory mcp` (cli/mcp.py) is its composition root.
"""
