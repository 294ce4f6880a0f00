"""Fetch a web page and extract its main text, within limits on size, time and redirects."""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urljoin

import httpx

from research_studio.config import WebSettings
from research_studio.errors import WebUnavailable
from research_studio.web.addresses import check_url

_TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")


@dataclass
class FetchedPage:
    url: str
    final_url: str
    title: str
    text: str
    content_type: str
    size_bytes: int
    truncated: bool


def _extract(body: str, content_type: str) -> tuple[str, str]:
    if content_type.startswith("text/plain"):
        return "", body
    import trafilatura

    text = trafilatura.extract(body, include_comments=False, favor_recall=True) or ""
    metadata = trafilatura.extract_metadata(body)
    return (metadata.title or "") if metadata else "", text


def fetch_page(url: str, settings: WebSettings) -> FetchedPage:
    """GET ``url`` following at most ``max_redirects`` redirects, each re-checked by the
    SSRF guard; read at most ``max_page_bytes``; give up after ``timeout_s`` overall."""
    deadline = time.monotonic() + settings.timeout_s
    current = url
    with httpx.Client(timeout=settings.timeout_s, follow_redirects=False,
                      headers={"User-Agent": "research-studio/0.1"}) as client:
        for _ in range(settings.max_redirects + 1):
            check_url(current, settings.allow_private_addresses)
            try:
                with client.stream("GET", current) as reply:
                    if reply.is_redirect:
                        current = urljoin(current, reply.headers.get("location", ""))
                        continue
                    if reply.status_code >= 400:
                        raise WebUnavailable(f"{current}: HTTP {reply.status_code}")
                    content_type = reply.headers.get("content-type", "text/html").lower()
                    if not content_type.startswith(_TEXT_TYPES):
                        raise WebUnavailable(f"{current}: unsupported content type {content_type}")
                    body = bytearray()
                    truncated = False
                    for piece in reply.iter_bytes():
                        body += piece
                        if len(body) > settings.max_page_bytes:
                            del body[settings.max_page_bytes:]
                            truncated = True
                            break
                        if time.monotonic() > deadline:
                            raise WebUnavailable(f"{current}: timed out after {settings.timeout_s}s")
                    encoding = reply.encoding or "utf-8"
            except httpx.HTTPError as exc:
                raise WebUnavailable(f"{current}: {type(exc).__name__}: {exc}") from exc
            title, text = _extract(body.decode(encoding, errors="replace"), content_type)
            return FetchedPage(url, current, title, text, content_type, len(body), truncated)
    raise WebUnavailable(f"{url}: more than {settings.max_redirects} redirects")
