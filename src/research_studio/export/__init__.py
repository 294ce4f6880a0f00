"""Exports of a finished report: Markdown, HTML, PDF and DOCX, citations kept as links."""
