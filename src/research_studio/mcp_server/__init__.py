"""The MCP server: research, sessions and knowledge bases as tools and resources of the
Model Context Protocol (official ``mcp`` SDK, the ``mcp`` extra).

``service.py`` does the work on the same Workspace and sessions database as the CLI and
``serve``; ``tools.py`` and ``resources.py`` publish it; ``server.py`` assembles the server;
``transport.py`` runs it over stdio or streamable HTTP. Nothing here is imported unless the
``mcp`` command runs, so the rest of the project works without the SDK.
"""
