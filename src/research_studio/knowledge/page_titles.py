"""Titles and sections of an HTML page, marked in its tree before trafilatura reads it.

Each title (a heading, a box's or an example's caption) gets marks around its text that
survive extraction, so the extracted text knows which of its lines are titles, which
headings the extractor dropped, where the element a heading opens ends, and the page's
anchor for each heading (``sections.Section``). ``markup.render_html`` reads the marks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


def text_slots(element: Any, top: bool = True) -> Iterator[tuple[Any, str]]:
    """Where an element's text lies, in reading order: its text, its children's, and
    (below the top) its tail."""
    yield element, "text"
    for child in element:
        yield from text_slots(child, False)
    if not top:
        yield element, "tail"


def around_text(element: Any, opening: str, closing: str) -> None:
    """``opening`` just before the element's first written character and ``closing`` just
    after its last, inside the text that holds them: whitespace around them stays where
    it was, so the extracted text is the same once the marks are taken out."""
    filled = [(node, name) for node, name in text_slots(element)
              if (getattr(node, name) or "").strip()]
    if not filled:
        return
    node, name = filled[0]
    value = getattr(node, name)
    setattr(node, name, value[:len(value) - len(value.lstrip())] + opening + value.lstrip())
    _write_after(*filled[-1], closing)


def _write_after(node: Any, name: str, mark: str) -> None:
    """``mark`` after the last written character of a text slot, before its trailing
    whitespace."""
    value = getattr(node, name)
    setattr(node, name, value.rstrip() + mark + value[len(value.rstrip()):])


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# elements that title what follows them: headings and figure captions (a table's caption
# is read with its table)
_TITLE_TAGS = _HEADINGS | {"figcaption"}
# elements that hold their own layout: a title inside one is left to it
_NOT_TITLED = frozenset({"table", "pre", "code"})


def _is_title(element: Any) -> bool:
    """A heading, or an element a documentation generator classes as a title: DocBook
    writes a box's, an example's and a procedure's title as ``<p class="title">``,
    docutils as ``admonition-title``, ``sidebar-title`` or ``topic-title``."""
    if element.tag in _TITLE_TAGS:
        return True
    return any(name == "title" or name.endswith("-title")
               for name in (element.get("class") or "").split())


_ANCHOR = "data-research-studio-anchor"  # set on a heading by note_anchors


def _own_anchor(element: Any) -> str:
    """The place in the page a heading's link opens: its id, or the id (or name) of an
    anchor inside it that shows nothing (DocBook's ``<a id="sect.apt-update"></a>``)."""
    if element.get("id"):
        return str(element.get("id"))
    for link in element.iter("a"):
        target = link.get("id") or link.get("name")
        if target and not link.get("href") and not link.text_content().strip():
            return str(target)
    return ""


def _holders(heading: Any) -> Iterator[Any]:
    """The elements a heading opens, innermost first: its ancestors whose first title it
    is (DocBook's ``<div class="sect2">``, a ``<section>`` of Sphinx, the ``<div
    class="note">`` of a box), up to the page's body."""
    for holder in heading.iterancestors():
        if holder.tag in ("body", "html"):
            return
        first = next((e for e in holder.iter() if isinstance(e.tag, str) and _is_title(e)), None)
        if first is not heading:
            return
        yield holder


def note_anchors(tree: Any) -> None:
    """Each heading's anchor, noted on it before the empty anchors are dropped
    (``_drop_link_targets``): its own, else the id of the innermost element it opens
    (DocBook's ``<div class="sect2" id="JIT-INLINING">``, a ``<section id>`` of Sphinx)."""
    for element in tree.iter(*_HEADINGS):
        anchor = _own_anchor(element) or next(
            (str(h.get("id")) for h in _holders(element) if h.get("id")), "")
        if anchor:
            element.set(_ANCHOR, anchor)


def _section_element(heading: Any) -> Any | None:
    """The element a heading opens: the innermost one around it that holds more than the
    heading (DocBook wraps it in ``titlepage`` divs inside its section's div; a box's
    title stands in the box), if the heading is its first title. None where the heading
    stands among its section's text, or opens the page's body. Read from the elements
    beside the heading's path, not the holders' whole text: a page of thousands of
    headings is read once, not once a heading."""
    inner = heading
    for holder in _holders(heading):
        if (holder.text or "").strip() or (inner.tail or "").strip() \
                or any(isinstance(c.tag, str) and c is not inner for c in holder):
            return holder
        inner = holder
    return None


def _mark_section_end(heading: Any, mark: str) -> None:
    """``mark`` after the last prose of the element the heading opens: where its section
    ends, before the text around it goes on (a box's "Note" heads the note, not what
    follows it). The mark is text, so the page's structure is as it was; text of a
    table, a ``<pre>`` or a code element is matched as the page wrote it and holds no
    mark."""
    holder = _section_element(heading)
    if holder is None:
        return
    prose = [(node, name) for node, name in text_slots(holder)
             if (getattr(node, name) or "").strip()
             and not any(e.tag in _NOT_TITLED for e in _slot_holders(node, name, holder))]
    if prose:
        _write_after(*prose[-1], mark)


def _slot_holders(node: Any, name: str, top: Any) -> Iterator[Any]:
    """The elements whose content a text slot lies in, up to ``top``: a node's text lies
    in the node, its tail in the node's parent."""
    element = node if name == "text" else node.getparent()
    while element is not None:
        yield element
        if element is top:
            return
        element = element.getparent()


@dataclass(frozen=True)
class MarkedTitle:
    rank: int  # a heading's level; a box's or an example's title ranks below every heading
    anchor: str

    @property
    def heading(self) -> bool:
        """A heading opens a section; a box's or an example's title does not."""
        return self.rank < BOX_TITLE_RANK


def mark_titles(tree: Any, nonce: str,
                 headings_as_paragraphs: bool) -> dict[str, MarkedTitle]:
    """Marks around each title's text in the page, before trafilatura reads it (its XML
    keeps a heading as ``<head>`` but a DocBook title as a plain paragraph), keyed as a
    definition's are (``_mark_definitions``): ``StructuredText`` records each as a
    ``TITLE`` block, so a title is never quoted as a claim and never split at the period
    of its number ("Example 8.2. Static configuration").

    With ``headings_as_paragraphs`` a marked heading is handed to trafilatura as a
    paragraph. On a page whose content frame
    it does not recognise (no ``<main>``, ``<article>`` or known content class: DocBook's
    and Publican's manuals) it gathers the text from paragraphs, code, quotes and tables
    and, by design, not from headings: a heading wrapped in a block of its own (DocBook's
    ``titlepage`` divs) was dropped, 74 % of the PostgreSQL manual's and 96 % of the Debian
    Administrator's Handbook's, and with it the section's name before its text. The marks
    say it is a title whatever element carries it; its attributes go, as a heading's
    identify its anchor ("_mapping_authors"), and trafilatura judges a paragraph's by
    them (a byline, a share button).

    Returns each title's rank and anchor by its key."""
    titles: dict[str, MarkedTitle] = {}
    headings: list[Any] = []
    for element in list(tree.iter()):
        if not isinstance(element.tag, str) or not _is_title(element) or any(
                a.tag in _NOT_TITLED or _is_title(a) for a in element.iterancestors()):
            continue
        key = str(len(titles) + 1)
        heading = element.tag in _HEADINGS
        titles[key] = MarkedTitle(int(element.tag[1]) if heading else BOX_TITLE_RANK,
                                   str(element.get(_ANCHOR) or ""))
        around_text(element, f"Z{nonce}MH{key}Q", f"Z{nonce}Mh{key}Q")
        if heading:
            _mark_section_end(element, f"Z{nonce}ME{key}Q")
            headings.append(element)
    for element in headings if headings_as_paragraphs else ():  # once every one is read
        # its anchor id and class go: trafilatura discards a paragraph whose id holds
        # "author" or "share"
        element.tag = "p"
        element.attrib.clear()
    return titles


BOX_TITLE_RANK = 7  # below <h6>: a box's or an example's title opens no section


def titles_over_nothing(flat: str, nonce: str, titles: dict[str, MarkedTitle]) -> str:
    """The extracted text without the headings whose content the extractor dropped: one
    followed by nothing, or straight by a title of its own rank or above (a sidebar's
    "Previous topic", "Navigation" on a page read without its content frame, a reference
    page's "See Also" over a list of links). A title over nothing names nothing; a
    chapter's heading straight over its first section's is kept, unless that one goes
    too."""
    while True:
        found = list(re.finditer(rf"Z{nonce}MH(\d+)Q.*?Z{nonce}Mh\1Q", flat, re.DOTALL))
        empty: list[tuple[int, int]] = []
        for index, title in enumerate(found):
            following = found[index + 1] if index + 1 < len(found) else None
            between = flat[title.end():following.start() if following else len(flat)]
            if re.sub(rf"Z{nonce}ME\d+Q", "", between).strip() \
                    or not titles[title.group(1)].heading:
                continue  # a caption names its figure, a box's title its box
            if following is None \
                    or titles[following.group(1)].rank <= titles[title.group(1)].rank:
                empty.append(title.span())
        if not empty:
            return flat
        for start, end in reversed(empty):  # with the line break after it
            flat = flat[:start] + flat[end:].lstrip()
