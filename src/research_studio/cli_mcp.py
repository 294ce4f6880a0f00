"""The ``mcp`` command: Research Studio as a Model Context Protocol server (the ``mcp`` extra)."""

from __future__ import annotations

from typing import Annotated

import typer

from research_studio.cli_options import HomeOption, err_console, guarded, state
from research_studio.cli_serve import check_storage, listen_settings
from research_studio.config import load_context
from research_studio.errors import ResearchStudioError

TRANSPORTS = ("stdio", "http")
DEFAULT_PORT = 8001  # serve's 8000 plus one, so both can run


def require_sdk() -> None:
    """The official MCP SDK, 2.x (its MCPServer API), or one line saying how to install it."""
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        raise ResearchStudioError(
            "the MCP server needs the mcp extra (the official MCP Python SDK 2.x): "
            "pip install 'research-studio[mcp]', or in a checkout .venv/bin/pip install -e '.[mcp]'"
        ) from None


def register(app: typer.Typer) -> None:
    """Add ``mcp`` to ``app``."""

    @app.command()
    @guarded
    def mcp(
        transport: Annotated[str, typer.Option(
            "--transport", help="stdio (a client starts the server) or http (streamable HTTP).")
        ] = "stdio",
        host: Annotated[str | None, typer.Option(
            help="With --transport http: address to listen on (default 127.0.0.1).")] = None,
        port: Annotated[int | None, typer.Option(
            help=f"With --transport http: port (default {DEFAULT_PORT}).")] = None,
        max_sessions: Annotated[int | None, typer.Option(
            "--max-sessions", help="Sessions that run at once; more wait in a queue.")] = None,
        home: HomeOption = None,
    ) -> None:
        """Serve research, sessions and knowledge bases to MCP clients (tools, resources and
        progress notifications)."""
        if transport not in TRANSPORTS:
            raise ResearchStudioError(f"--transport must be stdio or http, not {transport!r}")
        if transport == "stdio" and (host is not None or port is not None):
            raise ResearchStudioError("--host and --port are for --transport http")
        require_sdk()
        from research_studio.service.auth import refuse_unprotected

        ctx = load_context(home or state["home"])
        if transport == "http" and port is None:
            port = DEFAULT_PORT
        service = listen_settings(ctx, host, port, max_sessions)
        if transport == "http":
            refuse_unprotected(service.host, ctx.settings.api_key)
        backend = check_storage(ctx)
        from research_studio.mcp_server.server import build_server
        from research_studio.mcp_server.transport import HTTP_PATH, run_http, run_stdio

        if transport == "stdio":
            err_console.print(f"Research Studio MCP server on stdio · home {ctx.home} · storage "
                              f"{backend.describe()}", soft_wrap=True)
            run_stdio(build_server(ctx))
            return
        key = "required" if ctx.settings.api_key else "off"
        err_console.print(f"Research Studio MCP server on http://{service.host}:{service.port}"
                          f"{HTTP_PATH} · storage {backend.describe()} · up to "
                          f"{service.max_concurrent_sessions} sessions at once · API key {key}",
                          soft_wrap=True)
        run_http(build_server(ctx, log_level="INFO"), service, ctx.settings.api_key)
