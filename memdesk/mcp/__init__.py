"""``memdesk mcp``: the workspace's index and ranking served to any agent over MCP (stdio).

``tools`` holds the tools as plain functions over core (JSON-able dicts in and out, no
protocol), ``server`` puts them on the official SDK's server, ``config`` prints each
client's snippet. No Qt here: the server runs beside the app, not inside it.
"""
