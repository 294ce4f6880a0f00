"""Which export a file name or a format name asks for, and the bytes of that export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from research_studio.errors import ResearchStudioError

ExportFormat = Literal["md", "html", "pdf", "docx"]
MEDIA_TYPES: dict[str, str] = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
_SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".pdf": "pdf",
             ".docx": "docx"}


def format_of(path: Path) -> ExportFormat:
    """The export a file name asks for, by its suffix."""
    try:
        return _SUFFIXES[path.suffix.lower()]  # type: ignore[return-value]
    except KeyError:
        raise ResearchStudioError(
            f"cannot tell the export format of {path.name!r}: use .md, .html, .pdf or .docx") from None


def export_report(result: dict[str, Any], fmt: str) -> bytes:
    """The finished report in ``fmt``."""
    from research_studio.export.docx_report import report_docx
    from research_studio.export.html_report import report_html
    from research_studio.export.pdf_report import report_pdf

    writers: dict[str, Callable[[dict[str, Any]], bytes]] = {
        "md": lambda r: (r.get("report_markdown") or "").encode("utf-8"),
        "html": lambda r: report_html(r).encode("utf-8"),
        "pdf": report_pdf,
        "docx": report_docx,
    }
    if fmt not in writers:
        raise ResearchStudioError(f"unknown export format {fmt!r}: use md, html, pdf or docx")
    return writers[fmt](result)
