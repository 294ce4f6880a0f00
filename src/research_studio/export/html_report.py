"""The report as a standalone HTML page (markdown-it's renderer, raw HTML off)."""

from __future__ import annotations

import html
from typing import Any

from markdown_it import MarkdownIt

from research_studio.export.document import report_tokens

STYLE = """
body { font: 16px/1.55 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto;
       padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
a.citation { text-decoration: none; font-size: 0.85em; vertical-align: super; }
li[id]:target { background: #fff3c4; }
"""


def report_html(result: dict[str, Any]) -> str:
    """A complete HTML document: the report, its citations linked to the Sources list."""
    md = MarkdownIt("commonmark", {"html": False})
    body = md.renderer.render(report_tokens(result.get("report_markdown") or ""), md.options, {})
    title = html.escape(" ".join(str(result.get("query") or "Research report").split())[:200])
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{title}</title><style>{STYLE}</style></head>\n<body>\n{body}</body></html>\n")
