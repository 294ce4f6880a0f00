"""Fetch a web page and extract its main text, within limits on size, time and redirects."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import httpx

from research_studio.config import WebSettings
from research_studio.errors import WebUnavailable
from research_studio.knowledge.sections import Section
from research_studio.knowledge.structure import Definition, TextBlock
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
    # table rows and code blocks in ``text`` (knowledge/markup.py); None for plain text
    blocks: list[TextBlock] | None = field(default=None)
    # what the descriptions of its definition lists are about (HTML only)
    definitions: list[Definition] = field(default_factory=list)
    # its headings with their anchors (HTML only)
    sections: list[Section] = field(default_factory=list)


def _extract(body: str, content_type: str
             ) -> tuple[str, str, list[TextBlock] | None, list[Definition], list[Section]]:
    """Title, main text, its blocks, definitions and sections: HTML is read as ingestion
    reads it."""
    if content_type.startswith("text/plain"):
        return "", body, None, [], []
    from research_studio.knowledge.markup import page_title, render_html

    page = render_html(body)
    return page_title(body), page.text, page.blocks, page.definitions, page.sections


def pinned_request(url: str, address: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """``url`` sent to ``address``: the host replaced by the vetted address, with the Host
    header and the TLS server name (which the certificate is checked against) kept as the
    original host's, so the request means the same and no second DNS lookup happens."""
    parts = urlsplit(url)
    hostname = parts.hostname or ""
    if not hostname.isascii():  # an internationalised name goes on the wire as IDNA
        hostname = hostname.encode("idna").decode("ascii")
    port = f":{parts.port}" if parts.port else ""
    target = f"[{quote(address, safe=':')}]" if ":" in address else address
    host_header = f"[{hostname}]" if ":" in hostname else hostname
    return (urlunsplit(parts._replace(netloc=target + port)), {"Host": host_header + port},
            {"sni_hostname": hostname})


def _open(client: httpx.Client, url: str, addresses: list[str]) -> httpx.Response:
    """A streamed GET of ``url`` from the first of ``addresses`` that accepts a connection."""
    failure: httpx.ConnectError | None = None
    for address in addresses:
        target, headers, extensions = pinned_request(url, address)
        request = client.build_request("GET", target, headers=headers, extensions=extensions)
        try:
            return client.send(request, stream=True)
        except httpx.ConnectError as exc:
            failure = exc
    raise failure or httpx.ConnectError(f"no address for {url}")


def _read(reply: httpx.Response, url: str, settings: WebSettings,
          deadline: float) -> tuple[bytearray, str, str, bool]:
    """The body (at most ``max_page_bytes``), its content type and encoding, and whether
    it was cut; an error status, a non-text type or the deadline is WebUnavailable."""
    if reply.status_code >= 400:
        raise WebUnavailable(f"{url}: HTTP {reply.status_code}")
    content_type = reply.headers.get("content-type", "text/html").lower()
    if not content_type.startswith(_TEXT_TYPES):
        raise WebUnavailable(f"{url}: unsupported content type {content_type}")
    body = bytearray()
    for piece in reply.iter_bytes():
        body += piece
        if len(body) > settings.max_page_bytes:
            del body[settings.max_page_bytes:]
            return body, content_type, reply.encoding or "utf-8", True
        if time.monotonic() > deadline:
            raise WebUnavailable(f"{url}: timed out after {settings.timeout_s}s")
    return body, content_type, reply.encoding or "utf-8", False


def fetch_page(url: str, settings: WebSettings) -> FetchedPage:
    """GET ``url`` following at most ``max_redirects`` redirects, each re-checked by the
    SSRF guard and sent to the addresses the guard passed; read at most
    ``max_page_bytes``; give up after ``timeout_s`` overall."""
    deadline = time.monotonic() + settings.timeout_s
    current = url
    with httpx.Client(timeout=settings.timeout_s, follow_redirects=False,
                      headers={"User-Agent": "research-studio/0.1"}) as client:
        for _ in range(settings.max_redirects + 1):
            addresses = check_url(current, settings.allow_private_addresses)
            try:
                reply = _open(client, current, addresses)
                try:
                    if reply.is_redirect:
                        current = urljoin(current, reply.headers.get("location", ""))
                        continue
                    body, content_type, encoding, truncated = _read(reply, current, settings,
                                                                   deadline)
                finally:
                    reply.close()
            except httpx.HTTPError as exc:
                raise WebUnavailable(f"{current}: {type(exc).__name__}: {exc}") from exc
            title, text, blocks, definitions, sections = _extract(
                body.decode(encoding, errors="replace"), content_type)
            return FetchedPage(url, current, title, text, content_type, len(body), truncated,
                               blocks, definitions, sections)
    raise WebUnavailable(f"{url}: more than {settings.max_redirects} redirects")
