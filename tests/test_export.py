"""Report exports (HTML, PDF, DOCX, Markdown), read back with the libraries that open them:
citations stay links to their Sources entries, quoted HTML stays text, nothing runs."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from research_studio.errors import ResearchStudioError
from research_studio.export.formats import export_report, format_of

REPORT = """# How do tides work? &lt;script&gt;alert(1)&lt;/script&gt;

*Research Studio report — flat mode, 2026-11-25 10:00 UTC*

## Answer

Ocean tides follow the Moon. ✓✓[S1][S2] Coral bleaches in warm water &amp; sun. ⚠[S2]

## Sources

- [S1] Tides &lt;img src=x onerror=alert(2)&gt; — uploads/docs/tides.md (chunk c1, characters 0–120)
- [S2] Moon facts — https://example.org/moon (characters 10–36)
"""
RESULT = {"query": "How do tides work? <script>alert(1)</script>", "report_markdown": REPORT,
          "session_id": "s1", "status": "completed"}


def test_html_export_links_citations_and_keeps_quoted_html_as_text():
    page = export_report(RESULT, "html").decode("utf-8")
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&amp; sun" in page
    assert page.count('href="#source-S1"') == 1 and page.count('href="#source-S2"') == 2
    assert '<li id="source-S1">' in page and '<li id="source-S2">' in page
    assert '<a href="https://example.org/moon" class="source-link">' in page
    # a Sources entry does not link to itself
    assert not re.search(r'<li id="source-S1"><a', page)


def test_docx_export_reads_back_with_bookmarked_sources():
    import docx

    document = docx.Document(io.BytesIO(export_report(RESULT, "docx")))
    styles = [p.style.name for p in document.paragraphs]
    assert styles[0] == "Heading 1" and "Heading 2" in styles and "List Bullet" in styles
    assert "How do tides work? <script>alert(1)</script>" in document.paragraphs[0].text
    xml = document.element.xml
    assert xml.count('w:anchor="source_S2"') == 2
    assert set(re.findall(r'w:bookmarkStart w:id="\d+" w:name="([^"]+)"', xml)) == {
        "source_S1", "source_S2"}
    web = [r for r in document.part.rels.values() if r.is_external]
    assert [r.target_ref for r in web] == ["https://example.org/moon"]


EXAMPLE_REPORT = """# How do I restore a dump?

## Answer

To restore the dump into a new database called newdb: ✓[S1]

  ```
  $ createdb -T template0 newdb
  $ pg_restore -d newdb <db.dump>
  ```

The dump is a script. ✓[S1]

## Findings by sub-question

- ✓ To restore the dump into a new database called newdb: [S1]
  ```
  $ createdb -T template0 newdb
  $ pg_restore -d newdb <db.dump>
  ```
- ✓ The dump is a script. [S1]

## Sources

- [S1] SQL Dump — backup-dump.html (chunk c1, characters 0–120)
"""


def test_an_example_under_a_claim_is_exported_as_code_with_its_lines():
    """The code a claim introduces stays code, line by line, in every format."""
    import docx

    result = {**RESULT, "report_markdown": EXAMPLE_REPORT}
    page = export_report(result, "html").decode("utf-8")
    code = "$ createdb -T template0 newdb\n$ pg_restore -d newdb &lt;db.dump&gt;\n"
    assert page.count(f"<pre><code>{code}</code></pre>") == 2
    assert "<db.dump>" not in page
    assert re.search(r"<li>✓ To restore the dump into a new database called newdb: "
                     r"<a [^>]+>\[S1\]</a>\s*<pre><code>", page)  # inside its list item
    document = docx.Document(io.BytesIO(export_report(result, "docx")))
    coded = [p for p in document.paragraphs if p.runs and p.runs[0].font.name == "Courier New"]
    assert len(coded) == 2
    assert all(p.text == "$ createdb -T template0 newdb\n$ pg_restore -d newdb <db.dump>"
               for p in coded)


LIST_REPORT = """# Localization

## Findings by sub-question

- ✓ PostgreSQL supports two localization facilities: [S1]
  - Using the locale features of the operating system.
  - Providing a number of different character sets.
- ✓ A locale is chosen when the cluster is initialized. [S1]

## Sources

- [S1] Localization — charset.html (chunk c1, characters 0–120)
"""


def test_the_list_a_claim_introduces_is_exported_nested_under_it():
    import docx

    result = {**RESULT, "report_markdown": LIST_REPORT}
    page = export_report(result, "html").decode("utf-8")
    assert re.search(r"<li>✓ PostgreSQL supports two localization facilities: <a [^>]+>\[S1\]</a>"
                     r"\s*<ul>\s*<li>Using the locale features", page), page
    document = docx.Document(io.BytesIO(export_report(result, "docx")))
    styles = [(p.style.name, p.text[:20]) for p in document.paragraphs if p.text.strip()]
    assert ("List Bullet 2", "Using the locale fea") in styles, styles
    assert ("List Bullet", "✓ A locale is chosen") in styles, styles


def test_a_sources_own_brackets_are_never_a_citation_in_any_format():
    import docx

    report = REPORT.replace("Coral bleaches in warm water &amp; sun.",
                            "The Moon pulls (\\[S2\\]) \\[see\\](x).")
    assert "\\[S2\\]" in report
    result = {**RESULT, "report_markdown": report}
    page = export_report(result, "html").decode("utf-8")
    assert "The Moon pulls ([S2]) [see](x)." in page
    assert page.count('class="citation"') == REPORT.count("[S") - 2  # the Sources entries' own
    document = docx.Document(io.BytesIO(export_report(result, "docx")))
    assert any("The Moon pulls ([S2]) [see](x)." in p.text for p in document.paragraphs)


def test_pdf_export_reads_back_with_internal_links():
    pytest.importorskip("weasyprint", reason="the optional 'pdf' extra is not installed")
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(export_report(RESULT, "pdf")))
    text = "".join("".join(page.extract_text().split()) for page in reader.pages)
    assert "Howdotideswork?<script>alert(1)</script>" in text
    links = [a.get_object() for page in reader.pages for a in page.get("/Annots") or []]
    destinations = [str(link.get("/Dest")) for link in links if "/Dest" in link]
    assert destinations.count("source-S2") == 2


def test_markdown_export_is_the_report_and_formats_come_from_suffixes():
    assert export_report(RESULT, "md").decode("utf-8") == REPORT
    assert [format_of(Path(n)) for n in ("a.md", "b.HTML", "c.pdf", "d.docx")] == \
        ["md", "html", "pdf", "docx"]
    with pytest.raises(ResearchStudioError, match=re.escape("use .md, .html, .pdf or .docx")):
        format_of(Path("report.txt"))
    with pytest.raises(ResearchStudioError, match="unknown export format"):
        export_report(RESULT, "rtf")
