"""Web search behind one protocol: DuckDuckGo (no key), Tavily (key), SearXNG (URL).

``search_web`` never raises: offline or failing, it reports the web as unavailable and
the caller carries on with the knowledge base.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import httpx

from research_studio.config import WebSettings
from research_studio.errors import WebUnavailable


@dataclass
class WebResult:
    title: str
    url: str
    snippet: str
    provider: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class WebSearchOutcome:
    available: bool
    results: list[WebResult] = field(default_factory=list)
    error: str | None = None


class SearchProvider(Protocol):
    name: str

    def search(self, query: str, max_results: int) -> list[WebResult]:
        """Results for ``query``; raises WebUnavailable when the provider cannot answer."""
        ...


class DuckDuckGoProvider:
    name = "duckduckgo"

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s

    def search(self, query: str, max_results: int) -> list[WebResult]:
        from ddgs import DDGS

        try:
            rows = DDGS(timeout=int(self.timeout_s)).text(query, max_results=max_results) or []
        except Exception as exc:  # ddgs raises its own and network errors alike
            raise WebUnavailable(f"duckduckgo: {type(exc).__name__}: {exc}") from exc
        return [WebResult(str(r.get("title", "")), str(r.get("href", "")),
                          str(r.get("body", "")), self.name) for r in rows if r.get("href")]


class TavilyProvider:
    name = "tavily"

    def __init__(self, api_key: str, timeout_s: float) -> None:
        self.api_key = api_key
        self.timeout_s = timeout_s

    def search(self, query: str, max_results: int) -> list[WebResult]:
        from tavily import TavilyClient

        try:
            reply = TavilyClient(api_key=self.api_key).search(
                query, max_results=max_results, timeout=int(self.timeout_s))
        except Exception as exc:
            raise WebUnavailable(f"tavily: {type(exc).__name__}: {exc}") from exc
        return [WebResult(str(r.get("title", "")), str(r.get("url", "")),
                          str(r.get("content", "")), self.name)
                for r in reply.get("results", []) if r.get("url")]


class SearxngProvider:
    """A SearXNG instance's JSON API (``format=json`` must be enabled on the instance)."""

    name = "searxng"

    def __init__(self, base_url: str, timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def search(self, query: str, max_results: int) -> list[WebResult]:
        try:
            reply = httpx.get(f"{self.base_url}/search", params={"q": query, "format": "json"},
                              timeout=self.timeout_s)
            reply.raise_for_status()
            rows = reply.json().get("results", [])
        except (httpx.HTTPError, ValueError) as exc:
            raise WebUnavailable(f"searxng at {self.base_url}: {exc}") from exc
        return [WebResult(str(r.get("title", "")), str(r.get("url", "")),
                          str(r.get("content", "")), self.name)
                for r in rows[:max_results] if r.get("url")]


def build_provider(settings: WebSettings) -> SearchProvider:
    """The configured provider; raises WebUnavailable if it lacks what it needs."""
    if settings.provider == "none":
        raise WebUnavailable("web search is disabled (web.provider = none)")
    if settings.provider == "searxng":
        if not settings.searxng_url:
            raise WebUnavailable("web.provider is searxng but web.searxng_url is not set")
        return SearxngProvider(settings.searxng_url, settings.timeout_s)
    if settings.provider == "tavily":
        key = os.environ.get(settings.tavily_api_key_env)
        if not key:
            raise WebUnavailable(f"tavily needs {settings.tavily_api_key_env} in the environment")
        return TavilyProvider(key, settings.timeout_s)
    return DuckDuckGoProvider(settings.timeout_s)


def search_web(settings: WebSettings, query: str,
               provider: SearchProvider | None = None) -> WebSearchOutcome:
    """Search without raising: failures become ``available=False`` with the reason."""
    try:
        chosen = provider or build_provider(settings)
        results = chosen.search(query, settings.max_results)
    except WebUnavailable as exc:
        return WebSearchOutcome(False, [], f"web unavailable: {exc}")
    return WebSearchOutcome(True, results, None)
