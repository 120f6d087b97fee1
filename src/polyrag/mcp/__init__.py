"""polyrag as an MCP server (the official `mcp` SDK): `polyrag mcp` over stdio, and streamable
HTTP at `/mcp` on the API's app."""
