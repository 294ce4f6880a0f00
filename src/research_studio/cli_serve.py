"""The ``serve`` command: the HTTP API and web page on uvicorn."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError

from research_studio.cli_options import HomeOption, err_console, guarded, state
from research_studio.config import AppContext, ServiceSettings, load_context, redacted_url
from research_studio.errors import ConfigError

if TYPE_CHECKING:
    from research_studio.store.backends import StorageBackend


def listen_settings(ctx: AppContext, host: str | None, port: int | None,
                    max_sessions: int | None) -> ServiceSettings:
    """The service settings with the command's options over the config, validated like the
    config file (a port of 2**70 is a message, not a traceback). Shared by ``serve`` and
    ``mcp``."""
    chosen = {k: v for k, v in {"host": host, "port": port,
                                "max_concurrent_sessions": max_sessions}.items() if v is not None}
    try:
        service = ServiceSettings.model_validate({**ctx.settings.service.model_dump(), **chosen})
    except ValidationError as exc:
        raise ConfigError(f"invalid option: {exc}") from None
    ctx.settings.service = service
    return service


def check_storage(ctx: AppContext) -> StorageBackend:
    """The sessions database, checkpoints and local Chroma file checked before a server
    starts: a fault is one line and exit status 2, not a traceback from its start-up."""
    from research_studio.knowledge.vector_store import local_store
    from research_studio.store.backends import verify_storage
    from research_studio.store.faults import check_chroma_file

    backend = verify_storage(ctx)
    if not ctx.settings.knowledge.chroma_url:
        check_chroma_file(local_store(ctx.kb_dir))
    return backend


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``worker`` to ``app``."""

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

        from research_studio.service.app import create_app
        from research_studio.service.auth import refuse_unprotected

        ctx = load_context(home or state["home"])
        service = listen_settings(ctx, host, port, max_sessions)
        refuse_unprotected(service.host, ctx.settings.api_key)
        backend = check_storage(ctx)  # before uvicorn, whose start-up would exit with 3
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        key = "required" if ctx.settings.api_key else "off"
        runs = (f"sessions run by workers via {redacted_url(service.broker_url)}"
                if service.broker_url else
                f"up to {service.max_concurrent_sessions} sessions at once")
        err_console.print(f"Research Studio on http://{service.host}:{service.port}/ · API schema "
                          f"/openapi.json · storage {backend.describe()} · {runs} · API key {key}")
        uvicorn.run(create_app(ctx), host=service.host, port=service.port, log_level="info",
                    timeout_graceful_shutdown=10)

    @app.command()
    @guarded
    def worker(
        home: HomeOption = None,
        loglevel: Annotated[str, typer.Option(help="Celery's log level.")] = "INFO",
    ) -> None:
        """Run research sessions that `serve` queued (needs service.broker_url and a
        PostgreSQL database_url shared with the servers). One session at a time: start
        more workers for more at once, on this machine or others."""
        ctx = load_context(home or state["home"])
        if not ctx.settings.service.broker_url:
            raise ConfigError("no task queue configured: set service.broker_url "
                              "(RESEARCH_STUDIO_SERVICE__BROKER_URL), for example "
                              "redis://127.0.0.1:6379/0")
        try:
            from research_studio.workers.worker import run_worker
        except ImportError as exc:
            raise ConfigError(f"workers need the workers extra ({exc.name} is missing): "
                              "pip install 'research-studio[workers]'") from None
        backend = check_storage(ctx)
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        err_console.print(f"Research Studio worker · queue {redacted_url(ctx.settings.service.broker_url)}"
                          f" · storage {backend.describe()}")
        run_worker(ctx, loglevel)
