"""Plan review in the web page, in a real browser (Debian's Chromium driven by Playwright)
against a real server with the embedded model: tick "Review the plan before research", ask
for a new plan, have invalid edits refused in place (the edits kept), then reword, remove
and add sub-questions and check that the research follows the edited plan."""


import pytest

from tests.browser import research_page
from tests.service_server import running_server, upload_research_corpus

pytestmark = pytest.mark.slow
KEY = "browser-test-key"
QUESTION = ("Compare the Millau Viaduct and the Golden Gate Bridge: who designed each and when "
            "was it built?")
REPLAN_NOTE = "Focus on the people who designed the bridges and on their opening dates."
REWORDED = "Which structural engineer and which architect designed the Millau Viaduct?"
ADDED = "Which other bridge did Michel Virlogeux work on before the Millau Viaduct?"


def squash(text: str) -> str:
    return " ".join(text.split())


def test_review_edit_and_run_a_plan_in_the_page(tmp_path, browser):
    from playwright.sync_api import expect

    home = tmp_path / "home"
    home.mkdir()
    with running_server(home, api_key=KEY) as server:
        with server.client() as client:
            upload_research_corpus(client)
        page, errors = research_page(browser, server.base_url, KEY, "bridges")
        page.select_option("#clarify", "never")
        page.select_option("#mode", "hierarchical")
        page.check("#review-plan")
        page.fill("#query", QUESTION)
        page.click("#submit")

        # the session stops after planning and the plan shows in place, one row per sub-question
        panel = page.locator("#plan-review")
        rows = page.locator("#plan-rows li.plan-row")
        error = page.locator("#plan-review-error")
        page.locator("#live").wait_for(state="visible")
        panel.wait_for(state="visible", timeout=240_000)
        expect(page.locator("#status")).to_have_text("awaiting_plan_review")
        expect(page.locator("#cancel")).to_be_visible()
        assert rows.count() >= 2
        expect(page.locator("#events li.event-plan_review").first).to_contain_text("to review")
        expect(page.locator("#plan-review-info")).to_contain_text("round 1")
        # every field has its label
        for field in ("textarea.plan-question", "input.plan-priority"):
            field_id = rows.first.locator(field).get_attribute("id")
            assert page.locator(f"label[for='{field_id}']").count() == 1

        # a new plan needs a note; with one the server plans again (round 2)
        page.click("#replan")
        expect(error).to_contain_text("differently")
        expect(panel).to_be_visible()
        page.fill("#replan-note", REPLAN_NOTE)
        page.click("#replan")
        expect(page.locator("#plan-review-info")).to_contain_text("round 2", timeout=240_000)
        expect(panel).to_be_visible()
        expect(error).to_be_hidden()
        expect(page.locator("#replan-note")).to_have_value("")
        planned = [squash(rows.nth(i).locator(".plan-question").input_value())
                   for i in range(rows.count())]
        assert len(planned) >= 2 and all(planned), planned

        # invalid edits are refused in the panel, which stays with the person's edits
        while rows.count():
            rows.first.locator(".plan-remove").click()
        page.click("#approve-plan")
        expect(error).to_be_visible()
        assert error.inner_text().strip().startswith("Could not")
        expect(panel).to_be_visible()
        expect(page.locator("#status")).to_have_text("awaiting_plan_review")
        assert rows.count() == 0
        page.click("#reset-plan")
        expect(rows).to_have_count(len(planned))
        expect(error).to_be_hidden()

        rows.nth(0).locator(".plan-question").fill("")
        rows.nth(1).locator(".plan-priority").fill("0.35")
        page.click("#approve-plan")
        expect(error).to_be_visible()
        assert error.inner_text().strip()
        expect(panel).to_be_visible()
        expect(page.locator("#status")).to_have_text("awaiting_plan_review")
        expect(rows).to_have_count(len(planned))
        expect(rows.nth(0).locator(".plan-question")).to_have_value("")
        expect(rows.nth(1).locator(".plan-priority")).to_have_value("0.35")
        assert squash(rows.nth(1).locator(".plan-question").input_value()) == planned[1]

        # reword the first, remove the last, add a new one, and start
        rows.nth(0).locator(".plan-question").fill(REWORDED)
        removed = planned[-1]
        rows.nth(len(planned) - 1).locator(".plan-remove").click()
        expect(rows).to_have_count(len(planned) - 1)
        page.click("#add-sub-question")
        expect(rows).to_have_count(len(planned))
        new_row = rows.nth(len(planned) - 1)
        expect(new_row.locator(".plan-question")).to_be_focused()
        new_row.locator(".plan-question").fill(ADDED)
        new_row.locator(".plan-priority").fill("0.9")
        page.click("#approve-plan")
        expect(panel).to_be_hidden()
        expect(error).to_be_hidden()
        expect(page.locator("#events li.event-plan_review").last).to_contain_text("edited plan sent")

        # the research follows the edited plan
        page.locator("#report").wait_for(state="visible", timeout=420_000)
        expect(page.locator("#status")).to_have_text("completed")
        expect(panel).to_be_hidden()
        tree = [squash(t) for t in page.locator("#sub-questions li.sub-question .sq-text").all_inner_texts()]
        assert REWORDED in tree and ADDED in tree, tree
        assert removed not in tree, (removed, tree)
        assert planned[0] not in tree or planned[0] == REWORDED, tree
        report = squash(page.locator("#report-body").inner_text())
        assert REWORDED in report and ADDED in report, report
        listed = [squash(t) for t in page.locator(
            "#report-body h3, #report-body li").all_inner_texts()]
        assert removed not in listed, (removed, listed)
        assert not errors, errors
