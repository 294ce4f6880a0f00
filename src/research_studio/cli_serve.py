"""The ``serve`` command: the HTTP API and web page on uvicorn."""

from __future__ import annotations

import logging
from typing import Annotated

import typer
from pydantic import ValidationError

from research_studio.cli_options import HomeOption, err_console, guarded, state
from research_studio.config import ServiceSettings, load_context
from research_studio.errors import ConfigError


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""

    @app.command()
    @guarded
    def serve(
        host: Annotated[str | None, typer.Option(help="Address to listen on (default 127.0.0.1).")] = None,
        port: Annotated[int | None, typer.Option(help="Port (default 8000).")] = None,
        max_sessions: Annotated[int | None, typer.Option(
            "--max-sessions", help="Sessions that run at once; more wait in a queue.")] = None,
        home: HomeOption = None,
    ) -> None:
        """Serve the REST API (schema at /openapi.json), live events and the web page (/)."""
        import uvicorn

        from research_studio.knowledge.vector_store import local_store
        from research_studio.service.app import create_app
        from research_studio.service.auth import is_loopback
        from research_studio.store.backends import verify_storage
        from research_studio.store.faults import check_chroma_file

        ctx = load_context(home or state["home"])
        chosen = {k: v for k, v in {"host": host, "port": port,
                                    "max_concurrent_sessions": max_sessions}.items() if v is not None}
        try:  # validated like the config file: a port of 2**70 is a message, not a traceback
            service = ServiceSettings.model_validate({**ctx.settings.service.model_dump(), **chosen})
        except ValidationError as exc:
            raise ConfigError(f"invalid option: {exc}") from None
        ctx.settings.service = service
        if not is_loopback(service.host) and not ctx.settings.api_key:
            raise ConfigError(f"refusing to listen on {service.host}, which other machines can "
                              "reach, without an API key: set RESEARCH_STUDIO_API_KEY (or "
                              "api_key in config.toml), or listen on 127.0.0.1")
        # before uvicorn: a storage fault is one line and exit status 2, not a traceback
        # from inside the server's start-up and exit status 3
        backend = verify_storage(ctx)
        if not ctx.settings.knowledge.chroma_url:
            check_chroma_file(local_store(ctx.kb_dir))
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        key = "required" if ctx.settings.api_key else "off"
        err_console.print(f"Research Studio on http://{service.host}:{service.port}/ · API schema "
                          f"/openapi.json · storage {backend.describe()} · up to "
                          f"{service.max_concurrent_sessions} sessions at once · API key {key}")
        uvicorn.run(create_app(ctx), host=service.host, port=service.port, log_level="info",
                    timeout_graceful_shutdown=10)
