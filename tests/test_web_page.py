"""The web page in a real browser (Debian's Chromium driven by Playwright) against a real
server with the embedded model: key prompt, ask, watch progress, answer a clarification
in place, read the report, open a citation. The screenshot goes to the test's temporary
folder; with RESEARCH_STUDIO_SCREENSHOT=1 it refreshes the README's docs/img/web-report.png,
so a test run leaves the checkout as it found it."""

import os
from pathlib import Path

import pytest

from tests.browser import research_page
from tests.service_server import running_server, upload_research_corpus

pytestmark = pytest.mark.slow
README_SCREENSHOT = Path(__file__).resolve().parent.parent / "docs" / "img" / "web-report.png"
KEY = "browser-test-key"
QUESTION = "Tell me about the bridges in the knowledge base"
# a question that tries to inject script into the page, in every place it is shown
HOSTILE_QUESTION = ("Who designed the Millau Viaduct? <img src=x onerror=\"window.__xss=1\">"
                    "<script>window.__xss=2</script> `<img src=y onerror=\"window.__xss=3\">`")


def test_ask_clarify_read_report_and_open_a_citation(tmp_path, browser):
    from playwright.sync_api import expect

    home = tmp_path / "home"
    home.mkdir()
    with running_server(home, api_key=KEY) as server:
        with server.client() as client:
            upload_research_corpus(client)
        page, errors = research_page(browser, server.base_url, KEY, "bridges")
        page.select_option("#clarify", "always")
        page.select_option("#mode", "hierarchical")
        page.fill("#query", QUESTION)
        page.click("#submit")

        # live view, then the clarifying questions in place
        page.locator("#live").wait_for(state="visible")
        page.locator("#clarification").wait_for(state="visible", timeout=180_000)
        assert page.locator("#status").inner_text() == "awaiting_clarification"
        assert page.locator("#clarification-questions li").count() >= 1
        assert page.locator("#events li").count() >= 3
        page.fill("#clarification-answer", "Focus on the Millau Viaduct and its structural engineer")
        page.click("#send-answer")
        expect(page.locator("#clarification")).to_be_hidden()
        page.locator("#report:not([hidden]), #clarification:not([hidden])").first.wait_for(
            timeout=300_000)
        if page.locator("#clarification").is_visible():
            page.click("#end-clarification")  # a second round: stop asking

        # the report, with markers and citations that open the cited span
        page.locator("#report").wait_for(state="visible", timeout=300_000)
        assert page.locator("#status").inner_text() == "completed"
        assert page.locator("#sub-questions li.sub-question").count() >= 2
        assert page.locator("#report-body .mark").count() >= 1
        # the report's byline is emphasis, not text between asterisks
        expect(page.locator("#report-body em").first).to_contain_text("Research Studio report")
        assert "*Research Studio report" not in page.locator("#report-body").inner_text()
        citation = page.locator("#report-body li button.citation").first
        sid = citation.get_attribute("data-sid")
        claim_line = citation.locator("xpath=ancestor::li[1]").inner_text()
        citation.click()
        page.locator("#source-panel").wait_for(state="visible")
        assert page.locator("#source-sid").inner_text().strip() == sid
        assert page.locator("#source-title").inner_text().strip()
        marked = " ".join(page.locator("#source-text mark").inner_text().split())
        assert page.locator("#source-text mark").count() == 1 and marked
        claim = page.locator("#source-claim").inner_text()
        # the highlighted span is the one the cited claim was verified against
        assert marked.lower() in " ".join(claim_line.split()).lower() or marked in claim
        assert page.locator("#session-list li").count() >= 1
        page.locator("#report").scroll_into_view_if_needed()
        screenshot = (README_SCREENSHOT if os.environ.get("RESEARCH_STUDIO_SCREENSHOT") == "1"
                      else tmp_path / "web-report.png")
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot), full_page=False)
        assert screenshot.stat().st_size > 10_000  # a rendered page, not an empty image
        page.click("#close-source")

        # the HTML export, downloaded as a user would, opens with its citations linked to
        # the Sources entries
        with page.expect_download() as download:
            page.click(".export[data-format='html']")
        exported = tmp_path / "report.html"
        download.value.save_as(exported)
        assert download.value.suggested_filename.endswith(".html")
        report_page = browser.new_page()
        report_page.goto(exported.as_uri())
        expect(report_page.locator("h1")).to_contain_text(QUESTION)
        link = report_page.locator("a.citation").first
        target = link.get_attribute("href")
        link.click()
        assert report_page.url.endswith(target)
        expect(report_page.locator(f"li{target}")).to_contain_text("characters")
        assert report_page.locator("script").count() == 0
        report_page.close()

        # hostile text shows as text and runs nothing
        page.select_option("#clarify", "never")
        page.select_option("#mode", "flat")
        page.fill("#query", HOSTILE_QUESTION)
        page.click("#submit")
        expect(page.locator("#live-query")).to_contain_text("<script>window.__xss=2</script>")
        expect(page.locator("#status")).to_have_text("completed", timeout=300_000)
        page.locator("#report").wait_for(state="visible", timeout=60_000)
        expect(page.locator("#report-body")).to_contain_text("onerror=")
        # the report escapes the HTML it quotes; the page shows it as the characters typed
        expect(page.locator("#report-body h1")).to_contain_text("<script>window.__xss=2</script>")
        # a code span is shown as written, in a code element
        expect(page.locator("#report-body h1 code")).to_have_text('<img src=y onerror="window.__xss=3">')
        assert "&lt;" not in page.locator("#report-body").inner_text()
        assert page.evaluate("window.__xss") is None
        assert page.locator("main img, #source-panel img").count() == 0
        assert page.locator("script").count() == 1  # only the page's own app.js
        assert not errors, errors


# a report whose claims introduce code, as a manual's "… like this:" sentences do
EXAMPLE_REPORT = """# How do I restore a dump?

## Answer

To restore the dump into a new database called newdb: ✓[S1]

  ```
  $ createdb -T template0 newdb

  $ pg_restore -d newdb <img src=z onerror="window.__xss=4">
  ```

The dump is a script. ✓[S1]

## Findings by sub-question

- ✓ To restore the dump into a new database called newdb: [S1]
  ```
  $ createdb -T template0 newdb

  $ pg_restore -d newdb <img src=z onerror="window.__xss=4">
  ```
- ✓ The dump is a script. [S1]
"""


def test_the_page_shows_the_code_a_claim_introduces_as_code(tmp_path, browser):
    """The page's Markdown renderer keeps an example's lines (a blank one too) in a code
    block, under its list item or between the answer's paragraphs, as text."""
    home = tmp_path / "home"
    home.mkdir()
    with running_server(home, api_key=KEY) as server:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(server.base_url)
        shown = page.evaluate("""(markdown) => {
            const body = document.createElement('div');
            body.className = 'report-body';
            body.replaceChildren(...renderMarkdown(markdown));
            document.body.append(body);
            return [...body.querySelectorAll('pre code')].map((code) => ({
                text: code.textContent,
                item: code.closest('li') ? code.closest('li').textContent : null,
                next: code.parentElement.nextElementSibling
                    ? code.parentElement.nextElementSibling.textContent : null}));
        }""", EXAMPLE_REPORT)
        code = ('$ createdb -T template0 newdb\n\n'
                '$ pg_restore -d newdb <img src=z onerror="window.__xss=4">')
        assert [s["text"] for s in shown] == [code, code]
        assert shown[0]["item"] is None and shown[0]["next"].startswith("The dump is a script.")
        assert shown[1]["item"].startswith("✓ To restore the dump into a new database called newdb:")
        # the list a claim introduces nests in the claim's item; the next claim does not
        nested = page.evaluate("""(markdown) => {
            const body = document.createElement('div');
            body.replaceChildren(...renderMarkdown(markdown));
            return [...body.querySelectorAll(':scope > ul > li')].map((item) => ({
                own: item.firstChild.textContent,
                nested: [...item.querySelectorAll('ul > li')].map((li) => li.textContent)}));
        }""", "- ✓ PostgreSQL supports two localization facilities: [S1]\n"
              "  - Using the locale features.\n  - Providing <i>character</i> sets.\n"
              "- ✓ A locale is chosen at initdb. [S1]\n")
        assert [n["nested"] for n in nested] == [
            ["Using the locale features.", "Providing <i>character</i> sets."], []], nested
        # a source's own brackets are escaped in the report: shown as written, never a citation
        quoted = page.evaluate("""(markdown) => {
            const body = document.createElement('div');
            body.replaceChildren(...renderMarkdown(markdown));
            return {text: body.textContent, buttons: body.querySelectorAll('button.citation').length};
        }""", "- ✓ tides(\\[moon\\]\\[, sun\\]) see \\[S3\\] and \\\\ here [S1]\n")
        assert quoted["text"].startswith("✓ tides([moon][, sun]) see [S3] and \\ here"), quoted
        assert quoted["buttons"] == 1, quoted
        assert page.evaluate("window.__xss") is None and not errors, errors
