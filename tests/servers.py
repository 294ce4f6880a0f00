"""Real servers on 127.0.0.1 that tests start and stop themselves."""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

ARTICLE = ("<html><head><title>Lighthouses</title></head><body><article><h1>Lighthouses</h1>"
           "<p>The Pharos of Alexandria was one of the Seven Wonders of the Ancient World and "
           "guided sailors into the harbour for centuries.</p><section id='modern'>"
           "<h2>Modern lights</h2><p>Modern lighthouses use "
           "Fresnel lenses to project a beam many miles out to sea.</p></section></article>"
           "</body></html>")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _SearxLikeHandler(BaseHTTPRequestHandler):
    """Answers like SearXNG's JSON API and serves a few pages for fetch tests."""

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str, headers: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        url = urlparse(self.path)
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        if url.path == "/search":
            query = parse_qs(url.query).get("q", [""])[0]
            results = [{"title": f"Result {i} for {query}", "url": f"{base}/article",
                        "content": f"snippet {i}"} for i in range(8)]
            self._send(200, json.dumps({"query": query, "results": results}).encode(),
                       "application/json")
        elif url.path == "/article":
            self._send(200, ARTICLE.encode(), "text/html; charset=utf-8")
        elif url.path == "/big":
            self._send(200, b"<html><body><p>" + b"word " * 400_000 + b"</p></body></html>",
                       "text/html")
        elif url.path == "/binary":
            self._send(200, b"\x89PNG....", "image/png")
        elif url.path == "/redirect":
            self._send(302, b"", "text/plain", {"Location": "/article"})
        elif url.path == "/loop":
            self._send(302, b"", "text/plain", {"Location": "/loop"})
        elif url.path == "/host":  # which host the request was meant for
            self._send(200, self.headers.get("Host", "").encode(), "text/plain")
        elif url.path == "/to-metadata":
            self._send(302, b"", "text/plain", {"Location": "http://169.254.169.254/latest"})
        else:
            self._send(404, b"not found", "text/plain")


@contextmanager
def searx_like_server(tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """The server on a free port; with ``tls``, it speaks HTTPS with that context."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SearxLikeHandler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chroma_server(path: Path, chroma_bin: Path) -> Iterator[str]:
    """``chroma run`` (the server that ships with chromadb) on a free loopback port."""
    port = free_port()
    process = subprocess.Popen([str(chroma_bin), "run", "--path", str(path), "--host", "127.0.0.1",
                                "--port", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError("chroma run exited early") from None
                time.sleep(0.2)
        else:
            raise RuntimeError("chroma run did not start listening within 60 s")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)
