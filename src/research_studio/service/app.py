"""The FastAPI application: API routers, the web page, errors that never leak internals."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from langchain_core.language_models.chat_models import BaseChatModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from research_studio import __version__
from research_studio.config import AppContext
from research_studio.errors import BrokerUnavailable, ResearchStudioError, StorageError
from research_studio.graph.session import Workspace
from research_studio.service import routes_knowledge, routes_sessions
from research_studio.service.api_docs import DOCS_PATHS, mount_api_docs
from research_studio.service.auth import ApiKeyMiddleware
from research_studio.service.body_limit import JsonContentTooLarge
from research_studio.service.runner import SessionRunner

if TYPE_CHECKING:
    from research_studio.service.dispatcher import WorkerDispatcher

log = logging.getLogger("research_studio.service")
STATIC_DIR = Path(__file__).parent / "static"
PAGE_POLICY = {"default-src": "'self'", "script-src": "'self'", "style-src": "'self'",
               "img-src": "'self' data:", "connect-src": "'self'", "object-src": "'none'",
               "base-uri": "'none'", "frame-ancestors": "'none'"}
# The documentation viewers (React) set styles inline and ReDoc searches in a blob: worker;
# scripts stay this origin's only, so nothing injected into the schema can run.
DOCS_POLICY = {**PAGE_POLICY, "style-src": "'self' 'unsafe-inline'", "worker-src": "'self' blob:"}
OTHER_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


def policy_header(policy: dict[str, str]) -> tuple[bytes, bytes]:
    return b"content-security-policy", "; ".join(f"{k} {v}" for k, v in policy.items()).encode()


SECURITY_HEADERS = [policy_header(PAGE_POLICY), *OTHER_HEADERS]
DOCS_SECURITY_HEADERS = [policy_header(DOCS_POLICY), *OTHER_HEADERS]


class SecurityHeaders:
    """Browser-side defence in depth: no inline script, no framing, no MIME sniffing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = DOCS_SECURITY_HEADERS if scope["path"] in DOCS_PATHS else SECURITY_HEADERS

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *headers]
            await send(message)

        await self.app(scope, receive, with_headers)


class ServiceApp(FastAPI):
    """FastAPI with two wrappers outside its own middleware, so that they also see what
    that middleware answers itself (a 413 for a large body, a 500)."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(JsonContentTooLarge(super().build_middleware_stack()))


def session_runner(workspace: Workspace, chat_models: dict[str, BaseChatModel] | None = None
                   ) -> SessionRunner | WorkerDispatcher:
    """Who runs the sessions this server accepts: workers, through the broker, when one is
    configured; this process otherwise (the single-machine default)."""
    service = workspace.ctx.settings.service
    if not service.broker_url:
        return SessionRunner(workspace, service.max_concurrent_sessions, chat_models)
    if workspace.backend.kind != "postgresql":
        raise ResearchStudioError(
            "service.broker_url is set, so workers run the sessions, and workers need the "
            "sessions and checkpoints in PostgreSQL: set database_url as well")
    from research_studio.service.dispatcher import WorkerDispatcher  # the workers extra

    return WorkerDispatcher(workspace)


def create_app(ctx: AppContext, chat_models: dict[str, BaseChatModel] | None = None) -> FastAPI:
    """The service for one home; ``chat_models`` replaces configured models (tests only)."""
    settings = ctx.settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        workspace = Workspace(ctx)
        runner = session_runner(workspace, chat_models)
        app.state.runner = runner
        if workspace.backend.kind == "postgresql":  # events of every process, live
            runner.board.listen(workspace.backend.checkpoint_target)
        resumed = runner.recover()
        if resumed:
            log.warning("resuming %d unfinished session(s): %s", len(resumed), ", ".join(resumed))
        try:
            yield
        finally:
            await runner.shutdown()

    # /docs and /redoc are FastAPI's defaults turned off: they load a CDN's scripts with an
    # inline starter; api_docs serves the same viewers from a package instead
    app = ServiceApp(title="Research Studio", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,
                  max_body_size=settings.service.max_request_bytes,
                  description="Hierarchical, grounded deep research over local documents and "
                              "the web. Every endpoint needs the API key when one is set.")
    app.state.settings = settings
    app.include_router(routes_sessions.router)
    app.include_router(routes_knowledge.build_router(settings.service.max_upload_bytes))

    @app.exception_handler(ResearchStudioError)
    async def user_error(request: Request, exc: ResearchStudioError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(BrokerUnavailable)
    async def queue_down(request: Request, exc: BrokerUnavailable) -> JSONResponse:
        # the session is recorded, not lost: it starts once the queue is back
        log.error("%s", exc)
        return JSONResponse({"detail": str(exc), "session_id": exc.session_id}, status_code=503)

    @app.exception_handler(StorageError)
    async def storage_error(request: Request, exc: StorageError) -> JSONResponse:
        # the server's fault, not the request's: 503 with the one line that names the file
        # and what to do (the operator reads it in the log too)
        log.error("storage fault on %s %s: %s", request.method, request.url.path, exc)
        return JSONResponse({"detail": str(exc)}, status_code=503)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": e.get("loc"), "msg": e.get("msg"), "type": e.get("type")}
                  for e in exc.errors()]  # never echo the (possibly huge) input back
        return JSONResponse({"detail": errors}, status_code=422)

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> JSONResponse:
        error_id = uuid.uuid4().hex[:8]
        log.exception("error %s on %s %s", error_id, request.method, request.url.path)
        return JSONResponse({"detail": "internal server error", "error_id": error_id},
                            status_code=500)

    @app.get("/healthz", include_in_schema=False)
    async def health() -> dict[str, object]:
        runner: SessionRunner = app.state.runner
        return {"ok": True, "running": runner.running, "queued": runner.queued,
                "limit": runner.limit, "storage": runner.workspace.backend.kind}

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    mount_api_docs(app, key_required=bool(settings.api_key))
    if settings.api_key:
        app.add_middleware(ApiKeyMiddleware, api_key=settings.api_key)
    return app
