"""Debian's Chromium driven by Playwright, for the tests of the pages the server serves."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def browser() -> Iterator:
    """A headless Chromium; the test is skipped where it is not installed, unless
    ``RESEARCH_STUDIO_REQUIRE_BROWSER=1`` (CI) makes that a failure."""
    if not shutil.which(CHROMIUM):
        if os.environ.get("RESEARCH_STUDIO_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing but the browser test is required")
        pytest.skip(f"{CHROMIUM} not installed (scripts/test-services.sh installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


def sign_in(page, base_url: str, key: str) -> None:
    """Open the web page; the API refuses without the key, so the page asks for it."""
    page.goto(base_url)
    page.locator("#key-prompt").wait_for(state="visible")
    page.fill("#api-key", key)
    page.click("#save-key")


def research_page(browser, base_url: str, key: str, kb: str) -> tuple:
    """The web page signed in with ``kb`` chosen, and the script errors it raises."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, base_url, key)  # the API refuses without the key: the page asks for it
    page.wait_for_selector(f"#kb option[value={kb}]", state="attached")
    page.select_option("#kb", kb)
    return page, errors
