"""API documentation served offline: Swagger UI at /docs and ReDoc at /redoc.

FastAPI's own pages load their scripts from a CDN and start them with an inline script;
both are out of reach here (no network, and the page's Content-Security-Policy allows
scripts from this origin only). The scripts come from the ``fastapi-offline`` package
instead and are started by ``static/api-docs.js``, which also sends the API key the web
page keeps, because ``/openapi.json`` is protected like the rest of the API.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

ASSETS_DIR = Path(fastapi_offline.__file__).parent / "static"
ASSETS_PREFIX = "/docs-assets"
STATIC_DIR = Path(__file__).parent / "static"
# the pages and the viewers' scripts hold no data; the schema they show needs the key
DOCS_PATHS = ("/docs", "/redoc")
API_KEY_SCHEME = {"ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key",
                             "description": "Needed when the server has an API key."}}


def mount_api_docs(app: FastAPI, key_required: bool) -> None:
    """Add /docs, /redoc, their assets, and the API-key scheme to the schema."""
    app.mount(ASSETS_PREFIX, StaticFiles(directory=ASSETS_DIR), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> FileResponse:
        return FileResponse(STATIC_DIR / "docs.html")

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> FileResponse:
        return FileResponse(STATIC_DIR / "redoc.html")

    def openapi() -> dict:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version,
                                 description=app.description, routes=app.routes)
            if key_required:  # so that Swagger UI's "Authorize" button asks for it
                schema.setdefault("components", {})["securitySchemes"] = API_KEY_SCHEME
                schema["security"] = [{"ApiKey": []}]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
