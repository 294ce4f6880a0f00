"""Web search and fetch against a real HTTP server on 127.0.0.1 started by the test."""

import pytest

from research_studio.config import WebSettings
from research_studio.errors import WebUnavailable
from research_studio.web.addresses import check_url
from research_studio.web.fetch import fetch_page
from research_studio.web.providers import SearxngProvider, build_provider, search_web
from tests.servers import free_port, searx_like_server


@pytest.fixture(scope="module")
def server():
    with searx_like_server() as url:
        yield url


def test_searxng_provider_returns_results(server):
    settings = WebSettings(provider="searxng", searxng_url=server, max_results=3)
    assert isinstance(build_provider(settings), SearxngProvider)
    outcome = search_web(settings, "lighthouse history")
    assert outcome.available and outcome.error is None
    assert len(outcome.results) == 3
    assert outcome.results[0].title == "Result 0 for lighthouse history"
    assert outcome.results[0].provider == "searxng"


def test_unreachable_provider_reports_web_unavailable():
    settings = WebSettings(provider="searxng", searxng_url=f"http://127.0.0.1:{free_port()}")
    outcome = search_web(settings, "anything")
    assert not outcome.available and outcome.results == []
    assert outcome.error.startswith("web unavailable: searxng at")


def test_misconfigured_providers_are_explained(monkeypatch):
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    assert "TAVILY_API_KEY" in search_web(WebSettings(provider="tavily"), "q").error
    assert "searxng_url" in search_web(WebSettings(provider="searxng"), "q").error
    assert "disabled" in search_web(WebSettings(provider="none"), "q").error


def test_fetch_extracts_main_text_when_loopback_is_allowed(server):
    page = fetch_page(f"{server}/article", WebSettings(allow_private_addresses=True))
    assert page.title == "Lighthouses"
    assert "Pharos of Alexandria" in page.text and "Fresnel" in page.text
    assert not page.truncated


def test_fetch_follows_redirects_and_limits_them(server):
    settings = WebSettings(allow_private_addresses=True, max_redirects=3)
    assert fetch_page(f"{server}/redirect", settings).final_url.endswith("/article")
    with pytest.raises(WebUnavailable, match="more than 3 redirects"):
        fetch_page(f"{server}/loop", settings)


def test_fetch_limits_size_and_content_type(server):
    settings = WebSettings(allow_private_addresses=True, max_page_bytes=10_000)
    page = fetch_page(f"{server}/big", settings)
    assert page.truncated and page.size_bytes == 10_000
    with pytest.raises(WebUnavailable, match="unsupported content type image/png"):
        fetch_page(f"{server}/binary", settings)
    with pytest.raises(WebUnavailable, match="HTTP 404"):
        fetch_page(f"{server}/missing", settings)


def test_ssrf_guard_refuses_internal_addresses_by_default(server):
    settings = WebSettings()
    with pytest.raises(WebUnavailable, match=r"non-public address 127\.0\.0\.1"):
        fetch_page(f"{server}/article", settings)
    for url in ("http://localhost/", "http://10.0.0.5/", "http://192.168.1.1/",
                "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://0.0.0.0/"):
        with pytest.raises(WebUnavailable, match="refused"):
            check_url(url)
    with pytest.raises(WebUnavailable, match="only http and https"):
        check_url("file:///etc/passwd")


def test_redirect_to_internal_address_is_refused(server, monkeypatch):
    # Allow the first hop only, as if the test server were public, and check the redirect.
    import research_studio.web.fetch as fetch_module

    calls = []

    def first_hop_public(url, allow_private=False):
        calls.append(url)
        check_url(url, allow_private=len(calls) == 1)

    monkeypatch.setattr(fetch_module, "check_url", first_hop_public)
    with pytest.raises(WebUnavailable, match=r"169\.254\.169\.254"):
        fetch_page(f"{server}/to-metadata", WebSettings())
