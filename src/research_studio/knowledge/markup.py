"""Structure-aware reading of HTML, Markdown and DOCX: tables become one statement per row
and code blocks are fenced and recorded (``structure.TextBlock``); prose stays as the
parser gives it.

HTML: trafilatura picks the main content and renders prose as before; its tables are
rewritten from its XML (rows of cells, header cells marked) and every ``<pre>`` of the page
(code, a command synopsis, program output) becomes a fenced block of the page's own text,
recognised by its text because trafilatura keeps some ``<pre>`` as code and turns others
into quotes. Markdown: markdown-it-py finds pipe tables, fenced and indented code with
their lines; tables are rewritten, everything else is kept character for character.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from research_studio.knowledge.page_titles import (
    around_text,
    mark_titles,
    note_anchors,
    titles_over_nothing,
)
from research_studio.knowledge.sections import Section
from research_studio.knowledge.structure import (
    CODE,
    ROW,
    TITLE,
    Definition,
    StructuredText,
    TextBlock,
    table_statements,
)

# elements that lay text out in blocks, in trafilatura's XML and in HTML: a cell's
# paragraphs are joined with separators, not run together
_XML_BLOCKS = frozenset({"p", "list", "item", "head", "quote", "lb", "table", "row"})
_HTML_BLOCKS = frozenset({"p", "div", "br", "li", "ul", "ol", "dl", "dt", "dd", "pre",
                          "blockquote", "table", "tr", "h1", "h2", "h3", "h4", "h5", "h6"})
# HTML block elements that are not trafilatura's own, when its XML keeps one
_STRAY_HTML_BLOCKS = (_HTML_BLOCKS | {"td", "th"}) - _XML_BLOCKS - {"br", "pre", "table"}
# trafilatura's blocks that text after them starts a line after (a line break has its own)
_LINE_ENDING_BLOCKS = _XML_BLOCKS - {"lb"}
# the blocks an item's text is laid out in (a nested list starts its own line already)
_ITEM_BLOCKS = frozenset({"p", "head", "quote", "table"})
_MAX_SPAN = 100  # a colspan or rowspan beyond this is an error in the page
_ONE_SPACE = re.compile(r"\s+")
# A table holding another table, or a cell this long, lays out a page rather than holding
# data: it is left as trafilatura renders it (its cells would otherwise run together).
_LAYOUT_CELL_CHARS = 2000
# a <pre> rendered inside one of these is inline text, not a block of its own
_XML_INLINE_PARENTS = frozenset({"p", "head", "hi", "ref", "cell", "del"})


def _squeeze(text: str) -> str:
    """Text without any whitespace: how a ``<pre>`` is recognised after extraction,
    whatever whitespace the extractor kept."""
    return "".join(text.split())


def _join_parts(parts: list[str]) -> str:
    """Block parts of one table cell in one line: after a sentence end a space, else "; "."""
    out = ""
    for part in parts:
        if not out:
            out = part
        else:
            out += (" " if out[-1] in ".!?:;" else "; ") + part
    return out


def _cell_text(cell: Any, blocks: frozenset[str] = _XML_BLOCKS) -> str:
    parts: list[str] = []
    current: list[str] = []

    def flush() -> None:
        piece = " ".join("".join(current).split())
        if piece:
            parts.append(piece)
        current.clear()

    def walk(element: Any, top: bool) -> None:
        block = not top and element.tag in blocks
        if block:
            flush()
        if isinstance(element.tag, str):  # not a comment or processing instruction
            current.append(element.text or "")
            for child in element:
                walk(child, False)
        if block:
            flush()
        if not top:
            current.append(element.tail or "")

    walk(cell, True)
    flush()
    return _join_parts(parts)


def _xml_table_rows(table: Any) -> list[tuple[list[str], bool]]:
    rows = []
    for row in table.iterchildren("row"):
        cells = list(row.iterchildren("cell"))
        if cells:
            rows.append(([_cell_text(c) for c in cells],
                         all(c.get("role") == "head" for c in cells)))
    return rows


def _span(cell: Any, name: str) -> int:
    try:
        return max(1, min(_MAX_SPAN, int(cell.get(name) or 1)))
    except ValueError:
        return 1


def _take_carried(carried: dict[int, tuple[str, int, bool]], cells: list[str],
                  heads: list[bool]) -> None:
    """Fill the next columns of a row with the cells that span down into it."""
    while len(cells) in carried:
        text, left, head = carried.pop(len(cells))
        if left > 1:
            carried[len(cells)] = (text, left - 1, head)
        cells.append(text)
        heads.append(head)


def _html_table_rows(table: Any) -> list[tuple[list[str], bool]]:
    """A page's table as rows of cells on its grid: a cell spanning rows repeats in each;
    a header cell spanning columns names each of them, a data cell stands in the first.
    A row is a header row when it is in ``<thead>`` or all its cells are ``<th>``."""
    rows: list[tuple[list[str], bool]] = []
    carried: dict[int, tuple[str, int, bool]] = {}  # column: (text, rows left, header)
    for tr in table.iter("tr"):
        if next(tr.iterancestors("table"), None) is not table:
            continue  # a row of a nested table
        cells: list[str] = []
        heads: list[bool] = []
        in_head = tr.getparent().tag == "thead"
        for cell in tr:
            if cell.tag not in ("td", "th"):
                continue
            _take_carried(carried, cells, heads)
            text = _cell_text(cell, _HTML_BLOCKS)
            head = in_head or cell.tag == "th"
            down = _span(cell, "rowspan")
            for k in range(_span(cell, "colspan")):
                value = text if k == 0 or head else ""
                if down > 1:
                    carried[len(cells)] = (value, down - 1, head)
                cells.append(value)
                heads.append(head)
        _take_carried(carried, cells, heads)
        if cells:
            rows.append((cells, all(heads)))
    return rows


def _drop_permalinks(tree: Any) -> None:
    """Links to a place on their own page that show only a symbol: the "¶" or "#" that
    documentation generators (Sphinx, MkDocs, DocBook) put after each heading, which
    otherwise ends every section title in the text ("Glossary¶")."""
    for link in list(tree.iter("a")):
        shown = link.text_content().strip()
        if (link.get("href") or "").startswith("#") and shown \
                and not any(ch.isalnum() for ch in shown) and len(link) == 0:
            link.drop_tree()  # its tail stays


def _drop_link_targets(tree: Any) -> None:
    """Anchors that show nothing: places other pages link to (DocBook puts several index
    terms, ``<a id="…" class="indexterm"></a>``, at the top of each example and box).
    trafilatura counts them as links, and a block holding a few of them and a short
    program listing read as navigation: 62 of the Debian Administrator's Handbook's 294
    examples were dropped, its static network configuration among them."""
    for link in list(tree.iter("a")):
        if len(link) == 0 and not (link.text or "").strip():
            link.drop_tree()  # its tail stays


# A block at least this much of whose words are link text lists where to go rather than
# saying something: navigation (half is the usual boundary of link density).
_NAVIGATION_LINK_SHARE = 0.5


def _link_share(element: Any) -> float:
    words = len(" ".join(element.itertext()).split())
    linked = sum(len(" ".join(link.itertext()).split())
                 for link in element.iter("a") if link.get("href"))
    return linked / words if words else 1.0


def _keep_documentation_sidebars(tree: Any) -> None:
    """A documentation generator's sidebar is a box of the text (DocBook's "NOTE", "TIP",
    "BACK TO BASICS"; reST's ``sidebar`` directive), written with the class web pages give
    their navigation column, and trafilatura discards every element of that class: a
    third of the Debian Administrator's Handbook. One that is mostly prose, not links, is
    kept by taking the class off. An HTML ``<aside>`` stays trafilatura's: the element
    says its content is tangential to the page."""
    for element in tree.iter():
        if not isinstance(element.tag, str):  # a comment or processing instruction
            continue
        classes = (element.get("class") or "").split()
        if "sidebar" in classes and element.tag != "aside" \
                and _link_share(element) < _NAVIGATION_LINK_SHARE:
            rest = [name for name in classes if name != "sidebar"]
            if rest:
                element.set("class", " ".join(rest))
            else:
                del element.attrib["class"]


def page_title(html: str) -> str:
    """The page's title as trafilatura reads it (its heading, else its <title>), without
    a permalink symbol; "" without one. A heading that shares no word with the page's
    <title> is not the page's: on a reference page without a top heading trafilatura
    takes a box's label ("Warning", "Note": 33 of the PostgreSQL and Git manuals' pages),
    and the <title> ("pg_dump") is what the page is about."""
    import trafilatura

    tree = trafilatura.load_html(html)
    if tree is None:
        return ""
    _drop_permalinks(tree)
    metadata = trafilatura.extract_metadata(tree)
    heading = (metadata.title or "") if metadata else ""
    element = tree.find(".//title")
    declared = " ".join(element.text_content().split()) if element is not None else ""
    if heading and declared and not _words(heading) & _words(declared):
        return declared
    if _squeeze(heading) == _squeeze(declared):  # trafilatura spaces out inline elements
        return declared  # ("6.2. aptitude , apt-get , and apt Commands")
    return heading


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


@dataclass(frozen=True)
class RenderedPage:
    """A page's main content as text, its blocks (rows, code, definition terms) and its
    definition lists' entries."""

    text: str
    blocks: list[TextBlock]
    definitions: list[Definition]
    sections: list[Section] = field(default_factory=list)


def _mark_definitions(body: Any, nonce: str) -> re.Pattern[str]:
    """Marks around the text of each definition list's terms and descriptions in
    trafilatura's XML (``<item rend="dt-…">``, ``<item rend="dd-…">``), a description
    keyed to the term before it; the pattern that finds them (``StructuredText.marked_prose``)."""
    entry = 0
    for items in body.iter("list"):
        if items.get("rend") != "dl":
            continue
        term_seen = False
        for item in items.iterchildren("item"):
            side = (item.get("rend") or "")[:2]
            if side == "dt":
                if not term_seen:  # "dt, dt, dd": several terms share one description
                    entry += 1
                term_seen = True
            elif side == "dd" and term_seen:
                term_seen = False
            else:
                continue
            mark = "T" if side == "dt" else "D"
            around_text(item, f"Z{nonce}M{mark}{entry}Q", f"Z{nonce}M{mark.lower()}{entry}Q")
    return re.compile(rf"Z{nonce}M([TDHtdhE])(\d+)Q")


def render_html(html: str) -> RenderedPage:
    """The main content of a page as text, its blocks (rows, code and definition terms),
    definitions and sections; "" when trafilatura finds no content.

    Where trafilatura drops some of the page's headings, the page is read again with its
    headings handed over as paragraphs (``mark_titles``), and of the two readings the
    one that keeps more of the page's text, titles aside, is taken: the same page read
    another way can fare worse (a table or a list of parameters judged navigation), and
    a section's name is not worth its text."""
    plain, dropped = _render(html, headings_as_paragraphs=False)
    if not dropped:
        return plain
    lifted, _ = _render(html, headings_as_paragraphs=True)
    return lifted if _prose_size(lifted) >= _prose_size(plain) else plain


def _prose_size(page: RenderedPage) -> int:
    """Characters of the page's text outside its titles, whitespace aside."""
    titled = sum(len("".join(page.text[b.start:b.end].split()))
                 for b in page.blocks if b.kind == TITLE)
    return len("".join(page.text.split())) - titled


def _render(html: str, headings_as_paragraphs: bool) -> tuple[RenderedPage, int]:
    """``render_html``'s reading of the page one way, and how many of its headings the
    extractor dropped."""
    import trafilatura
    from lxml import etree
    from trafilatura.xml import xmltotxt

    tree = trafilatura.load_html(html)
    if tree is None:
        return RenderedPage("", [], []), 0
    _drop_permalinks(tree)
    note_anchors(tree)
    _drop_link_targets(tree)
    _keep_documentation_sidebars(tree)
    _code_paragraphs_as_preformatted(tree)
    # read from the page before trafilatura cleans the tree: its <pre> text as written,
    # and its tables with their header rows and spans (trafilatura's XML keeps neither)
    preformatted: dict[str, str] = {}
    for pre in tree.iter("pre"):
        raw = pre.text_content()
        preformatted.setdefault(_squeeze(raw), raw)
    page_tables: dict[str, list[str] | None] = {}
    for table in tree.iter("table"):
        layout = next(table.iterdescendants("table"), None) is not None
        page_tables.setdefault(_squeeze(table.text_content()),
                               None if layout else table_statements(_html_table_rows(table)))
    _flatten_inline_code(tree)
    _inline_code_as_text(tree)
    _pad_cells(tree)
    nonce = uuid.uuid4().hex[:12]
    titles = mark_titles(tree, nonce, headings_as_paragraphs)
    document = trafilatura.bare_extraction(tree, include_comments=False, favor_recall=True)
    body = getattr(document, "body", None)
    if body is None:
        return RenderedPage("", [], []), 0
    placed: list[tuple[str, Any]] = []

    def place(element: Any, kind: str, payload: Any) -> None:
        marker = etree.Element("p")
        marker.text = f"Z{nonce}B{len(placed)}Q"
        marker.tail = element.tail
        element.getparent().replace(element, marker)
        placed.append((kind, payload))

    for table in list(body.iter("table")):
        if table.getparent() is not None and not any(
                a.tag == "table" for a in table.iterancestors()):
            key = _squeeze("".join(table.itertext()))
            statements = (page_tables[key] if key in page_tables
                          else table_statements(_xml_table_rows(table)))
            if statements is not None and all(len(s) <= _LAYOUT_CELL_CHARS for s in statements):
                place(table, ROW, statements)
    for element in list(body.iter("code", "quote")):
        parent = element.getparent()
        if parent is None or parent.tag in _XML_INLINE_PARENTS or not _attached(element, body):
            continue
        raw = preformatted.get(_squeeze("".join(element.itertext())))
        if raw is not None and raw.strip():
            place(element, CODE, raw)
    _prose_layout(body)
    marks = _mark_definitions(body, nonce)
    # a line of the extracted text is a block of the page (a heading, a paragraph, a
    # command synopsis, a list item): a paragraph of the text
    flat = re.sub(r"[ \t]*\n[ \t\n]*", "\n\n", xmltotxt(body, include_formatting=False))
    kept = {int(key) for key in re.findall(rf"Z{nonce}MH(\d+)Q", flat)}
    dropped = sum(1 for key, title in titles.items()
                  if title.heading and int(key) not in kept)
    flat = titles_over_nothing(flat, nonce, titles)
    out = StructuredText()
    position = 0
    for match in re.finditer(rf"Z{nonce}B(\d+)Q", flat):
        out.marked_prose(unicodedata.normalize("NFC", flat[position:match.start()]), marks)
        kind, payload = placed[int(match.group(1))]
        if kind == ROW:
            out.rows([unicodedata.normalize("NFC", s) for s in payload])
        else:
            out.code(unicodedata.normalize("NFC", payload))
        position = match.end()
    out.marked_prose(unicodedata.normalize("NFC", flat[position:]), marks)
    text = out.text()
    sections = [Section(lo, hi, titles[key].rank, " ".join(text[lo:hi].split()),
                        titles[key].anchor, out.section_ends.get(key))
                for key, lo, hi in out.titles if titles[key].heading]
    return RenderedPage(text, out.blocks, out.definitions, sections), dropped


def _code_paragraphs_as_preformatted(tree: Any) -> None:
    """A paragraph that is nothing but code is a block of code, as a ``<pre>`` is, its
    lines where ``<br>`` breaks them: the Apache manual writes its shell and log examples
    as ``<div class="example"><p><code>mv access_log access_log.old<br>mv error_log …``
    (98 such blocks), and read as text they ran into one line that was quoted as a
    sentence ("mv access_log access_log.old mv error_log error_log.old apache2ctl graceful
    sleep 600 gzip …"); a command's synopsis or a setting's name alone in a paragraph
    (361 in the Apache manual, 45 in Git's, 82 in PostgreSQL's) is code too. As a
    ``<pre>`` it is never quoted as a claim and is shown under the sentence that
    introduces it."""
    from lxml import etree

    for code in list(tree.iter("code")):
        block = code.getparent()
        if block is None or block.tag not in ("p", "div") or block.getparent() is None \
                or any(a.tag == "pre" for a in code.iterancestors()):
            continue
        text = _squeeze(code.text_content())
        if not text or _squeeze(block.text_content()) != text:
            continue
        preformatted = etree.Element("pre")
        preformatted.text = "\n".join(_code_lines(code))
        preformatted.tail = block.tail
        block.getparent().replace(block, preformatted)


def _code_lines(code: Any) -> list[str]:
    """The lines of a ``<code>`` outside a ``<pre>``: its text broken at each ``<br>``,
    whitespace inside a line shown as one space (HTML lays it out so)."""
    parts = [_ONE_SPACE.sub(" ", code.text or "")]
    for element in code.iterdescendants():
        parts += ["\n" if element.tag == "br" else _ONE_SPACE.sub(" ", element.text or ""),
                  _ONE_SPACE.sub(" ", element.tail or "")]
    lines = [line.strip() for line in "".join(parts).split("\n")]
    return [line for line in lines if line]


def _inline_code_as_text(tree: Any) -> None:
    """Code within a line (a command's name in a sentence) read as the sentence's text.
    Where trafilatura reads a page from its parts (no content frame it knows), it takes
    each ``<code>`` as a part of its own and drops one whose text it has already seen,
    with the rest of the sentence after it: "The purpose of <code>anacron</code> is to
    execute them, …" lost everything after "of" (20 paragraphs of the Debian
    Administrator's Handbook). A ``<code>`` of one line outside a ``<pre>`` is inline; one
    in a table is left as it is (a table of code values read as text was judged
    navigation and dropped: PostgreSQL's list of boolean literals)."""
    for code in list(tree.iter("code")):
        if "\n" not in code.text_content() \
                and not any(a.tag in ("pre", "table") for a in code.iterancestors()):
            code.tag = "span"


def _pad_cells(tree: Any) -> None:
    """A space at both ends of every table cell's text: where trafilatura flattens a table
    that lays out a box (a Git manual's "Note" beside its text), it joins the cells' text
    without the whitespace between them ("… for a branch.NoteThere is a difference")."""
    for cell in tree.iter("td", "th"):
        cell.text = " " + (cell.text or "")
        if len(cell):
            cell[-1].tail = (cell[-1].tail or "") + " "
        else:
            cell.text += " "


def _prose_layout(body: Any) -> None:
    """The blocks of trafilatura's XML as a browser lays them out. Whitespace is shown as
    one space: pages wrap their source lines anywhere ("database called\n   newdb"), so a
    line break inside a paragraph is layout, and only the breaks between blocks are left.
    An HTML block element trafilatura left in its XML (the cell of a Git manual's "Note"
    box) is a paragraph: its text was run into the label before it ("NoteThis is a
    potentially dangerous mode")."""
    for element in body.iter():
        if element.tag in _STRAY_HTML_BLOCKS:
            element.tag = "p"
        for slot in ("text", "tail"):
            value = getattr(element, slot)
            if value:
                setattr(element, slot, _ONE_SPACE.sub(" ", value))
        if element.tag in _LINE_ENDING_BLOCKS and (element.tail or "").strip():
            # text after a block starts a line of its own ("… for a branch." and "Note")
            element.tail = "\n" + element.tail.lstrip()
    for item in list(body.iter("item")):
        _item_lines(item)


def _item_lines(item: Any) -> None:
    """Each block of a list item on a line of its own. trafilatura runs an item's blocks
    into one line, so a step's title ran into its first sentence ("Configure streaming
    replication and log-shipping standby servers Configure the servers for log shipping.");
    a line break (``lb``, which it keeps inside an item) before and after each block
    keeps them apart."""
    from lxml import etree

    for block in [child for child in item if child.tag in _ITEM_BLOCKS]:
        before = block.getprevious()
        if (before is not None and before.tag != "lb") or (before is None and (item.text or "").strip()):
            block.addprevious(etree.Element("lb"))
        after = block.getnext()
        if (after is not None and after.tag != "lb") or (block.tail or "").strip():
            line_break = etree.Element("lb")
            line_break.tail, block.tail = block.tail, None
            block.addnext(line_break)


def _flatten_inline_code(tree: Any) -> None:
    """Code with markup inside it ("<code>-n <em><code>schema</code></em></code>", as
    DocBook writes an option and its argument) made its text alone: trafilatura moves the
    inner element after the text that follows the outer one, and "-n schema or -t table"
    became "-n or schema-t table"."""
    for code in list(tree.iter("code")):
        if len(code):
            text = code.text_content()
            for child in list(code):
                code.remove(child)  # with its tail, which ``text`` holds
            code.text = text


def _attached(element: Any, root: Any) -> bool:
    """Still in the tree under ``root`` (not inside a block already replaced)."""
    return any(a is root for a in element.iterancestors())


# ---- Markdown --------------------------------------------------------------------------------
def _inline_text(token: Any) -> str:
    pieces = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            pieces.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
        elif child.type == "image":
            pieces.append(_inline_text(child))
    return " ".join("".join(pieces).split())


def _markdown_table(tokens: list[Any], start: int) -> tuple[list[tuple[list[str], bool]], int]:
    """The rows of the table opening at ``tokens[start]`` and the index of its close."""
    rows: list[tuple[list[str], bool]] = []
    cells: list[str] = []
    header = False
    index = start + 1
    while tokens[index].type != "table_close":
        token = tokens[index]
        if token.type == "thead_open":
            header = True
        elif token.type == "tbody_open":
            header = False
        elif token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(_inline_text(token))
        elif token.type == "tr_close":
            rows.append((cells, header))
        index += 1
    return rows, index


def _markdown_regions(text: str) -> Iterator[tuple[int, int, str, list[str]]]:
    """(first line, line after the last, kind, row statements) of each top-most table
    and code block, in order."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    reached = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "table_open" and token.map:
            rows, index = _markdown_table(tokens, index)
            if token.map[0] >= reached:
                reached = token.map[1]
                yield token.map[0], token.map[1], ROW, table_statements(rows)
        elif token.type in ("fence", "code_block") and token.map and token.map[0] >= reached:
            reached = token.map[1]
            yield token.map[0], token.map[1], CODE, []
        index += 1


def markdown_sections(text: str) -> list[Section]:
    """The headings of a Markdown text (ATX "## Name" and underlined), each at the
    characters of its name; Markdown gives no anchors (each renderer makes its own)."""
    return [section for section, _ in _markdown_headings(text)]


# A plain-text heading is one line over a line of "=" or "-" about as long as it, within a
# fifth either way. Over the plain text of /usr/share/doc here, 98 % of one-line headings
# so underlined are within it; longer rules are mostly separators and AsciiDoc listing
# delimiters under a command ("$ git commit --amend" over 49 dashes, a page-wide rule
# after a list item's last line), shorter ones a diffstat's "file | 8 +-" over "---".
MIN_UNDERLINE_SHARE = 0.8
MAX_UNDERLINE_SHARE = 1.25


def underlined_headings(text: str) -> list[tuple[Section, TextBlock]]:
    """Plain text's headings: a line written over a line of "=" or "-" ("Introduction"
    over "============"), as Markdown reads them, with the block of both lines (a
    ``TITLE``: it names what follows and is never a claim). A "#" line of plain text is a
    comment as often as a heading (a sample configuration file), so only these count."""
    headings = []
    for section, (start, end, markup) in _markdown_headings(text):
        name_line, _, underline = text[start:end].partition("\n")
        share = len(underline.strip()) / max(1, len(name_line.strip()))
        if markup in ("=", "-") and "\n" not in underline.strip() \
                and MIN_UNDERLINE_SHARE <= share <= MAX_UNDERLINE_SHARE:
            headings.append((section, TextBlock(start, end, TITLE)))
    return headings


def _markdown_headings(text: str) -> Iterator[tuple[Section, tuple[int, int, str]]]:
    """Each heading as a section, with the lines it is written on and its markup ("#",
    "##", … or the underline's "=" or "-")."""
    from markdown_it import MarkdownIt

    starts = [0]
    for line in re.findall(r"[^\n]*\n", text):
        starts.append(starts[-1] + len(line))
    starts.append(len(text))
    tokens = MarkdownIt("commonmark").parse(text)
    for opening, inline in itertools.pairwise(tokens):
        if opening.type != "heading_open" or not opening.map or not inline.content.strip():
            continue
        line_start = starts[opening.map[0]]
        line_end = text.find("\n", line_start)
        line = text[line_start:line_end if line_end != -1 else len(text)]
        name = inline.content.strip()
        at = line.find(name)
        start = line_start + max(at, 0)
        end = start + len(name) if at >= 0 else line_start + len(line.rstrip())
        written_end = starts[min(opening.map[1], len(starts) - 1)]
        yield (Section(start, end, int(opening.tag[1]), " ".join(name.split())),
               (start, len(text[:written_end].rstrip()), opening.markup))


def render_markdown(text: str) -> tuple[str, list[TextBlock]]:
    """Markdown with each pipe table rewritten as row statements, one a line; code
    blocks (fenced or indented) kept as written and recorded."""
    # lines as markdown-it counts them: "\n" ends a line ("\r\n" keeps its "\r" here)
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    out: list[str] = []
    length = 0
    blocks: list[TextBlock] = []
    line = 0
    for first, after, kind, statements in _markdown_regions(text):
        kept = "".join(lines[line:first])
        out.append(kept)
        length += len(kept)
        region = "".join(lines[first:after])
        ending = region[len(region.rstrip("\r\n")):]
        if kind == CODE:
            body = region.rstrip("\r\n")
            lead = len(body) - len(body.lstrip())
            blocks.append(TextBlock(length + lead, length + len(body), CODE))
            out.append(region)
            length += len(region)
        else:
            for statement in statements:
                blocks.append(TextBlock(length, length + len(statement), ROW))
                length += len(statement) + 1
            written = "\n".join(statements) + ending
            length += len(ending) - 1 if statements else len(ending)
            out.append(written)
        line = after
    out.append("".join(lines[line:]))
    return "".join(out), blocks


# ---- DOCX ------------------------------------------------------------------------------------
def render_docx(document: Any) -> tuple[str, list[TextBlock]]:
    """A python-docx document's paragraphs and tables in order: paragraphs as before
    (blank-line separated), each table as row statements, its first row the header."""
    from docx.table import Table

    out = StructuredText()
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = []
            for number, row in enumerate(item.rows):
                cells, previous = [], None
                for cell in row.cells:  # a merged cell repeats: read it once
                    if cell._tc is not previous:
                        cells.append(cell.text)
                    previous = cell._tc
                rows.append((cells, number == 0 and len(item.rows) > 1))
            out.rows(table_statements(rows))
        elif item.text.strip():
            out.prose(item.text)
    return out.text(), out.blocks
