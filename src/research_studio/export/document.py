"""The report's Markdown parsed once into markdown-it tokens that every export walks.

Raw HTML is off: a tag quoted from a source stays text in every format. Citations
(``[S1]``) become links to the entry of the Sources list that gives the source's location
and character span, and each Sources entry carries the anchor they point to; a bracket
quoted from a source is escaped (``\\[S3\\]``) and stays text.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

CITATION = re.compile(r"\[(S\d+)\]")
WEB_ADDRESS = re.compile(r"https?://[^\s)]+")
_LINKED = re.compile(f"{CITATION.pattern}|{WEB_ADDRESS.pattern}")


def source_anchor(sid: str) -> str:
    return f"source-{sid}"


def _link(href: str, label: str, css_class: str) -> list[Token]:
    opening = Token("link_open", "a", 1, attrs={"href": href, "class": css_class})
    text = Token("text", "", 0, content=label)
    return [opening, text, Token("link_close", "a", -1)]


def _linked(children: list[Token], skip_first_citation: bool) -> list[Token]:
    """Text tokens split so each citation is a link to its source entry, and each web
    address in a Sources entry a link to the page."""
    out: list[Token] = []
    for token in children:
        if token.type != "text":
            out.append(token)
            continue
        last = 0
        for match in _LINKED.finditer(token.content):
            if match.start() > last:
                out.append(Token("text", "", 0, content=token.content[last:match.start()]))
            if match.group(1) and skip_first_citation and not out:
                out.append(Token("text", "", 0, content=match.group(0)))
            elif match.group(1):
                out += _link(f"#{source_anchor(match.group(1))}", match.group(0), "citation")
            else:
                out += _link(match.group(0), match.group(0), "source-link")
            last = match.end()
        if last < len(token.content):
            out.append(Token("text", "", 0, content=token.content[last:]))
    return out


def report_tokens(markdown: str) -> list[Token]:
    """The block tokens of the report, with citation links and Sources anchors set."""
    # escaped characters stay tokens of their own until citations are linked: a source's
    # "\[S3\]" is text, never a citation
    tokens = MarkdownIt("commonmark", {"html": False}).disable("text_join").parse(markdown)
    for i, token in enumerate(tokens):
        if token.type != "inline" or not token.children:
            continue
        entry = i >= 2 and tokens[i - 2].type == "list_item_open" and \
            bool(CITATION.match(token.content))
        if entry:  # a Sources entry: "[S1] Title — location (span)"
            tokens[i - 2].attrSet("id", source_anchor(CITATION.match(token.content).group(1)))
        token.children = _linked(token.children, skip_first_citation=entry)
        for child in token.children:
            if child.type == "text_special":
                child.type = "text"
    return tokens
