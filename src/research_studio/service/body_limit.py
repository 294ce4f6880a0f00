"""Request-size refusals as JSON, like every other error of the API.

FastAPI's ``max_body_size`` answers a Content-Length over the limit with Starlette's plain
text "Content Too Large" (only a body that grows past the limit while read gets JSON), which
is neither the documented ``ErrorMessage`` nor what a client parses for every other error.
This wrapper sits outside FastAPI's own middleware, where that response is sent."""

from __future__ import annotations

import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOO_LARGE = json.dumps({"detail": "Content Too Large"}).encode()
_REPLACED = (b"content-type", b"content-length")


class JsonContentTooLarge:
    """Rewrite a plain-text 413 into ``{"detail": "Content Too Large"}``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rewriting = False

        async def send_json(message: Message) -> None:
            nonlocal rewriting
            if message["type"] == "http.response.start" and message["status"] == 413:
                headers = message.get("headers", [])
                if Headers(raw=headers).get("content-type", "").startswith("text/plain"):
                    rewriting = True
                    kept = [(k, v) for k, v in headers if k.lower() not in _REPLACED]
                    message = {**message, "headers": [
                        *kept, (b"content-type", b"application/json"),
                        (b"content-length", str(len(TOO_LARGE)).encode())]}
            elif message["type"] == "http.response.body" and rewriting:
                if message.get("more_body"):
                    return  # the plain text, dropped
                message = {"type": "http.response.body", "body": TOO_LARGE}
            await send(message)

        await self.app(scope, receive, send_json)
