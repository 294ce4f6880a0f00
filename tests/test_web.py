"""Web search and fetch against a real HTTP server on 127.0.0.1 started by the test."""

import shutil
import ssl
import subprocess

import pytest

import research_studio.web.addresses as addresses_module
from research_studio.config import WebSettings
from research_studio.errors import WebUnavailable
from research_studio.web.addresses import check_url
from research_studio.web.fetch import fetch_page, pinned_request
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
    # a span of the page is cited under its section, at the page's anchor for it
    assert [(s.title, s.anchor) for s in page.sections] == [
        ("Lighthouses", ""), ("Modern lights", "modern")]


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
    with pytest.raises(WebUnavailable, match="cannot resolve"):
        check_url(f"http://{'a' * 70}.example/")  # a label too long for IDNA


def test_redirect_to_internal_address_is_refused(server, monkeypatch):
    # Allow the first hop only, as if the test server were public, and check the redirect.
    import research_studio.web.fetch as fetch_module

    calls = []

    def first_hop_public(url, allow_private=False):
        calls.append(url)
        return check_url(url, allow_private=len(calls) == 1)

    monkeypatch.setattr(fetch_module, "check_url", first_hop_public)
    with pytest.raises(WebUnavailable, match=r"169\.254\.169\.254"):
        fetch_page(f"{server}/to-metadata", WebSettings())


def test_fetch_connects_to_the_address_the_guard_passed(server, monkeypatch):
    # A name no resolver knows: the page can only arrive if the fetcher connects to the
    # address the guard resolved, and the server still sees the original host name.
    monkeypatch.setattr(addresses_module, "resolve_addresses", lambda host: ["127.0.0.1"])
    port = server.rsplit(":", 1)[1]
    page = fetch_page(f"http://pinned.invalid:{port}/host", WebSettings(allow_private_addresses=True))
    assert page.text == f"pinned.invalid:{port}"
    assert page.final_url == f"http://pinned.invalid:{port}/host"


def test_a_second_dns_answer_cannot_redirect_the_connection(server, monkeypatch):
    # DNS rebinding: the guard is told a public address, the next lookup would say
    # loopback. The fetch must go to the public address (unreachable here), never to the
    # local server.
    import socket

    real_getaddrinfo = socket.getaddrinfo

    def rebinding(host, *args, **kwargs):
        if host == "rebind.invalid":
            return real_getaddrinfo("127.0.0.1", *args, **kwargs)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(addresses_module, "resolve_addresses", lambda host: ["93.184.216.34"])
    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    port = server.rsplit(":", 1)[1]
    with pytest.raises(WebUnavailable, match=r"rebind\.invalid"):
        fetch_page(f"http://rebind.invalid:{port}/host", WebSettings(timeout_s=2))


def test_pinned_request_keeps_host_header_and_tls_name():
    target, headers, extensions = pinned_request("https://example.org/a?b=1", "2001:db8::7")
    assert target == "https://[2001:db8::7]/a?b=1"
    assert headers == {"Host": "example.org"} and extensions == {"sni_hostname": "example.org"}
    target, headers, _ = pinned_request("http://example.org:8080/x", "93.184.216.34")
    assert target == "http://93.184.216.34:8080/x" and headers == {"Host": "example.org:8080"}
    _, headers, extensions = pinned_request("http://bücher.example/", "93.184.216.34")
    assert headers == {"Host": "xn--bcher-kva.example"}
    assert extensions == {"sni_hostname": "xn--bcher-kva.example"}


def _openssl(*args: str, cwd) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_to_a_pinned_address_checks_the_certificate_against_the_host_name(
        tmp_path, monkeypatch):
    # A real TLS server whose certificate names pinned.test, signed by a throwaway CA: the
    # connection goes to 127.0.0.1, and the certificate is still checked for the name.
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", "1", "-subj", "/CN=test CA", "-addext",
             "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
             cwd=tmp_path)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "site.key", "-out", "site.csr",
             "-subj", "/CN=pinned.test", cwd=tmp_path)
    (tmp_path / "ext.cnf").write_text("subjectAltName=DNS:pinned.test\n")
    _openssl("x509", "-req", "-in", "site.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "site.pem", "-days", "1", "-extfile", "ext.cnf",
             cwd=tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "site.pem", tmp_path / "site.key")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    monkeypatch.setattr(addresses_module, "resolve_addresses", lambda host: ["127.0.0.1"])
    settings = WebSettings(allow_private_addresses=True)
    with searx_like_server(tls=context) as url:
        port = url.rsplit(":", 1)[1]
        assert fetch_page(f"https://pinned.test:{port}/host", settings).text == f"pinned.test:{port}"
        with pytest.raises(WebUnavailable, match=r"not valid for 'other\.test'"):
            fetch_page(f"https://other.test:{port}/host", settings)
