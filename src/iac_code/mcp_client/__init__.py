"""MCP client: connect a session's MCP servers and offer their tools to the model.

`servers` holds the server specifications (from ACP's `mcpServers` or a `.mcp.json`-shaped
config), `connection` one live connection per server, `tool` the adapter that makes each MCP
tool an agent `Tool` named `mcp__<server>__<tool>`, and `hub` the set of a session's servers.
"""
