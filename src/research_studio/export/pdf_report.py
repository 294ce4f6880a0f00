"""The report as PDF: the HTML export laid out by WeasyPrint (the optional ``pdf`` extra),
so the citations stay links inside the document."""

from __future__ import annotations

from typing import Any

from research_studio.errors import ResearchStudioError
from research_studio.export.html_report import report_html


def report_pdf(result: dict[str, Any]) -> bytes:
    try:
        from weasyprint import HTML
    except (ImportError, OSError) as exc:  # OSError: Pango, which WeasyPrint loads, is missing
        raise ResearchStudioError(
            "PDF export needs WeasyPrint: install the 'pdf' extra (pip install "
            f"'research-studio[pdf]'; on Debian also apt-get install libpango-1.0-0) ({exc})") from None
    return HTML(string=report_html(result)).write_pdf()
