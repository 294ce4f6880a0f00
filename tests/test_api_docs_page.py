"""The API documentation pages in a real browser (Debian's Chromium through Playwright)
against a real server with an API key: Swagger UI at /docs and ReDoc at /redoc render the
schema from this server's own assets, with nothing fetched from elsewhere and nothing refused by
the page's Content-Security-Policy for scripts."""

from urllib.parse import urlsplit

import httpx
import pytest

from tests.browser import sign_in
from tests.service_server import running_server

pytestmark = pytest.mark.slow
KEY = "docs-test-key"


def watched_page(browser, base_url: str):
    """A page that records console errors, script errors and requests to other hosts."""
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    problems: list[str] = []
    own_host = urlsplit(base_url).netloc
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("request", lambda request: problems.append(f"off-site request {request.url}")
            if urlsplit(request.url).netloc not in ("", own_host) else None)
    return page, problems


def test_swagger_ui_and_redoc_render_offline_with_the_key(tmp_path, browser):
    home = tmp_path / "home"
    home.mkdir()
    with running_server(home, api_key=KEY) as server:
        anonymous = httpx.get(f"{server.base_url}/docs", timeout=30)
        assert anonymous.status_code == 200  # the page shell is public, the schema is not
        policy = anonymous.headers["content-security-policy"]
        assert "script-src 'self';" in policy and "unsafe-eval" not in policy
        assert httpx.get(f"{server.base_url}/openapi.json", timeout=30).status_code == 401

        page, problems = watched_page(browser, server.base_url)
        page.goto(f"{server.base_url}/docs")  # no key in this tab yet: says where to get one
        page.locator("#docs-message").wait_for(state="visible")
        assert "needs an API key" in page.inner_text("#docs-message")

        sign_in(page, server.base_url, KEY)  # the web page keeps the key in the tab
        page.wait_for_selector("#kb", state="attached")

        page.goto(f"{server.base_url}/docs")
        page.wait_for_selector(".swagger-ui .opblock", timeout=60_000)
        listed = page.inner_text(".swagger-ui")
        assert "/api/research/sessions" in listed and "/api/knowledge-bases" in listed
        # "Try it out" sends the key: list the sessions from the documentation page
        page.click("#operations-research-list_sessions_api_research_sessions_get .opblock-summary")
        page.click("button.try-out__btn")
        page.click("button.execute")
        page.wait_for_selector(".live-responses-table tbody .response-col_status", timeout=30_000)
        assert page.inner_text(".live-responses-table tbody .response-col_status").strip() == "200"

        page.goto(f"{server.base_url}/redoc")
        page.wait_for_selector("h1", timeout=60_000)
        assert "Research Studio" in page.inner_text("h1")
        page.get_by_text("/api/research/sessions", exact=False).first.wait_for(timeout=30_000)

        # ReDoc's "API docs by Redocly" logo is a CDN image the policy blocks; nothing that
        # runs or styles the viewers may be refused
        refused = [p for p in problems if "Content Security Policy" in p and "img-src" not in p]
        assert not refused, refused
        blocked = " ".join(p for p in problems if "Content Security Policy" in p)
        off_site = [p.split()[-1] for p in problems if p.startswith("off-site request")]
        assert all(url in blocked for url in off_site), problems  # tried, and refused
