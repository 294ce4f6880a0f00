"""Running the MCP server: over stdio for a client that starts it, or over streamable HTTP
behind the same API-key check as ``serve`` (``X-API-Key`` or ``Authorization: Bearer``)."""

from __future__ import annotations

import os
import signal
import threading

import anyio
from mcp.server.mcpserver import MCPServer

from research_studio.config import ServiceSettings
from research_studio.mcp_server.service import ResearchService
from research_studio.service.auth import ApiKeyMiddleware

HTTP_PATH = "/mcp"
EXIT_GRACE_S = 5.0  # after SIGTERM/SIGINT; stopping the sessions takes well under a second


def run_stdio(server: MCPServer[ResearchService]) -> None:
    """Serve until the client closes stdin, or until SIGTERM/SIGINT: either way the server's
    lifespan ends, so a running session is recorded ``interrupted``, never left running.

    The SDK reads stdin in a worker thread that no cancel stops, so after a signal a client
    that keeps stdin open would keep the process alive once everything else has ended; it
    exits ``EXIT_GRACE_S`` after the signal at the latest."""

    async def serve() -> None:
        async with anyio.create_task_group() as group:

            async def stop_on_signal() -> None:
                with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                    async for signum in signals:
                        group.cancel_scope.cancel()
                        deadline = threading.Timer(EXIT_GRACE_S, os._exit, args=(128 + signum,))
                        deadline.daemon = True
                        deadline.start()
                        return

            group.start_soon(stop_on_signal)
            await server.run_stdio_async()
            group.cancel_scope.cancel()

    anyio.run(serve)


def run_http(server: MCPServer[ResearchService], service: ServiceSettings,
             api_key: str | None) -> None:
    """Serve streamable HTTP at ``HTTP_PATH`` on ``service.host:service.port``. On a loopback
    address the SDK also refuses requests whose Host or Origin is not local (DNS rebinding)."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=service.host,
                                     max_request_body_size=service.max_request_bytes)
    asgi = ApiKeyMiddleware(app, api_key=api_key) if api_key else app
    uvicorn.run(asgi, host=service.host, port=service.port, log_level="info",
                timeout_graceful_shutdown=10)
