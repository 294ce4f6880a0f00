"""API-key protection and the rule that a server reachable from outside must have a key."""

from __future__ import annotations

import secrets
from ipaddress import ip_address

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from research_studio.errors import ConfigError

# The page shell, the API documentation pages and their static files hold no data;
# everything else (the schema /openapi.json included) needs the key.
PUBLIC_PATHS = ("/", "/favicon.ico", "/healthz", "/docs", "/redoc")
PUBLIC_PREFIXES = ("/static/", "/docs-assets/")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def refuse_unprotected(host: str, api_key: str | None) -> None:
    """The rule every server of this project follows (``serve``, ``mcp --transport http``):
    one that other machines can reach must have an API key."""
    if not is_loopback(host) and not api_key:
        raise ConfigError(f"refusing to listen on {host}, which other machines can reach, "
                          "without an API key: set RESEARCH_STUDIO_API_KEY (or api_key in "
                          "config.toml), or listen on 127.0.0.1")


def presented_key(headers: Headers) -> str | None:
    header = headers.get("x-api-key")
    if header:
        return header
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class ApiKeyMiddleware:
    """Refuse every non-public request without the configured key (constant-time compare).
    Plain ASGI, so event streams pass through untouched."""

    def __init__(self, app: ASGIApp, api_key: str) -> None:
        self.app = app
        self.api_key = api_key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        if path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES):
            return await self.app(scope, receive, send)
        key = presented_key(Headers(scope=scope))
        if key is None or not secrets.compare_digest(key.encode(), self.api_key):
            response = JSONResponse({"detail": "missing or wrong API key (header X-API-Key)"},
                                    status_code=401, headers={"WWW-Authenticate": "Bearer"})
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)
