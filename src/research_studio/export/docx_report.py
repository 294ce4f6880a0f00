"""The report as a Word document (python-docx): headings, paragraphs and lists from the
same tokens as the HTML export; each citation an internal link to a bookmark on its
Sources entry, each web address a link to the page."""

from __future__ import annotations

import io
from itertools import count
from typing import Any

from docx import Document
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph
from markdown_it.token import Token

from research_studio.export.document import report_tokens


def _bookmark(paragraph: Paragraph, name: str, ids: count) -> None:
    number = str(next(ids))
    start = OxmlElement("w:bookmarkStart")
    start.set(qn("w:id"), number)
    start.set(qn("w:name"), name)
    end = OxmlElement("w:bookmarkEnd")
    end.set(qn("w:id"), number)
    paragraph._p.insert(0, start)
    paragraph._p.append(end)


def _hyperlink(paragraph: Paragraph, href: str, text: str) -> None:
    link = OxmlElement("w:hyperlink")
    if href.startswith("#"):
        link.set(qn("w:anchor"), href[1:].replace("-", "_"))
    else:
        rel = paragraph.part.relate_to(href, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
        link.set(qn("r:id"), rel)
    run = OxmlElement("w:r")
    props = OxmlElement("w:rPr")
    style = OxmlElement("w:rStyle")
    style.set(qn("w:val"), "Hyperlink")
    props.append(style)
    run.append(props)
    content = OxmlElement("w:t")
    content.text = text
    content.set(qn("xml:space"), "preserve")
    run.append(content)
    link.append(run)
    paragraph._p.append(link)


def _fill(paragraph: Paragraph, children: list[Token]) -> None:
    bold = italic = False
    href: str | None = None
    for token in children:
        if token.type in ("strong_open", "strong_close"):
            bold = token.type == "strong_open"
        elif token.type in ("em_open", "em_close"):
            italic = token.type == "em_open"
        elif token.type == "link_open":
            href = str(token.attrGet("href") or "")
        elif token.type == "link_close":
            href = None
        elif token.type in ("text", "code_inline"):
            if href:
                _hyperlink(paragraph, href, token.content)
            else:
                run = paragraph.add_run(token.content)
                run.bold, run.italic = bold or None, italic or None
        elif token.type in ("softbreak", "hardbreak"):
            paragraph.add_run(" ")


def _code(paragraph: Paragraph, code: str) -> None:
    """Code in a fixed-width font, its lines kept as line breaks of one paragraph."""
    lines = code.split("\n")
    for number, line in enumerate(lines, start=1):
        run = paragraph.add_run(line)
        run.font.name = "Courier New"
        if number < len(lines):
            run.add_break()


def _list_style(lists: list[str]) -> str | None:
    """The style of a paragraph inside ``lists`` (outermost first): a nested list (the
    items a claim introduces) is indented one level per list, as Word's styles go (3)."""
    if not lists:
        return None
    depth = min(len(lists), 3)
    return lists[-1] if depth == 1 else f"{lists[-1]} {depth}"


def report_docx(result: dict[str, Any]) -> bytes:
    """The report as DOCX bytes."""
    document = Document()
    document.core_properties.title = " ".join(str(result.get("query") or "").split())[:200]
    tokens = report_tokens(result.get("report_markdown") or "")
    bookmarks = count(1)
    lists: list[str] = []
    anchor: str | None = None
    heading: int | None = None
    for token in tokens:
        if token.type == "heading_open":
            heading = int(token.tag[1:])
        elif token.type == "heading_close":
            heading = None
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append("List Bullet" if token.type == "bullet_list_open" else "List Number")
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif token.type == "list_item_open":
            anchor = token.attrGet("id")
        elif token.type == "hr":
            document.add_paragraph("—" * 12)
        elif token.type in ("fence", "code_block"):  # an example a claim introduces
            _code(document.add_paragraph(), token.content.rstrip("\n"))
        elif token.type == "inline":
            if heading is not None:
                paragraph = document.add_heading("", level=min(heading, 9))
            else:
                paragraph = document.add_paragraph(style=_list_style(lists))
            _fill(paragraph, token.children or [])
            if anchor:
                _bookmark(paragraph, str(anchor).replace("-", "_"), bookmarks)
                anchor = None
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
