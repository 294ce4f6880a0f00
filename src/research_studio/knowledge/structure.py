"""Structure in a document's text: sentences, table rows and code blocks, with offsets.

Ingestion (``documents.py``) writes every table row as one readable statement of its
header and cells ("Read committed — Dirty Read: Not possible; Nonrepeatable Read:
Possible; …") on a line of its own, and every code block or command synopsis as a fenced
block; ``TextBlock`` records where each lies in the stored text. Evidence extraction
quotes a row as one unit, never takes code for a prose claim, and never takes a sentence
cut by a chunk boundary for a whole one (``ChunkCuts``).

Text without recorded blocks (documents ingested before this module, plain text, PDF,
web pages) is read by ``find_blocks``: fenced code and lines of a pipe table
("| a | b |") are recognised in the text itself.
"""

from __future__ import annotations

import bisect
import json
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from research_studio.knowledge.sentence_model import sentence_starts

CODE = "code"  # a fenced code block or synopsis: quoted only as the whole block
ROW = "row"  # one table row written as a statement: quoted as a unit
TABLE = "table"  # a table as its source wrote it ("| a | b |" lines): never a claim
TERM = "term"  # a definition list's term (an option, a setting, a function): never a claim
# A definition list's "term" longer than this is a paragraph laid out as a list (a FAQ's
# question and answer run together), not the name of what its description describes. The
# terms of the PostgreSQL, Git and Python manuals are a name with its type, options or
# arguments: half under 16 characters, 99.9% under 170, the longest Python signatures
# (``subprocess.Popen``, with every keyword argument) about 400.
MAX_TERM_CHARS = 400
TITLE = "title"  # a heading, or the caption of a box or an example: names what follows,
# never a claim ("NOTE Multiple addresses", "Example 8.2. Static configuration"); one longer
# than MAX_TERM_CHARS is a paragraph a page styled as a title, and is read as prose

# a sentence may end at its closing punctuation (and a bracket or quote closing around it:
# "… -t table.) To specify …") before a capital or a digit: it does where the sentence
# model starts one there ("Dr. Seuss" goes on); it always ends at a blank line (one holding
# only spaces too: HTML's source indentation stays on the lines trafilatura keeps), and at
# its closing punctuation before a list item on the next line ("… flags).\n- --ff": the
# next item of a manual's option list is not part of it)
_CLOSED = r"(?:(?<=[.!?])|(?<=[.!?][)\]\"'”’]))"
_SENTENCE_END = re.compile(rf"(?P<stop>{_CLOSED}\s+(?=[\"'(\[“‘]?[A-Z0-9]))|\n[ \t]*\n\s*"
                           rf"|{_CLOSED}[ \t]*\n\s*(?=[-*+•][ \t\n])")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# a list item's marker at the start of a unit ("- ", "* ", "• ")
_ITEM_MARKER = re.compile(r"[-*+•][ \t\n]+")
_NUMBERED_MARKER = re.compile(r"\d{1,3}[.)][ \t]+")
# a paragraph: text up to a blank line or the end
_PARAGRAPH = re.compile(r"\S.*?(?=\n[ \t]*\n|\Z)", re.S)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})(.*)$", re.M)
_PIPE_LINE = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M)


@dataclass(frozen=True)
class Sentence:
    """A stretch of text with exact offsets: ``text[start:end] == sentence.text``.

    ``kind`` is "prose" (a sentence), "window" (a part of a run-on stretch), or a block
    kind (``CODE``, ``ROW``, ``TABLE``)."""

    text: str
    start: int
    end: int
    kind: str = "prose"


@dataclass(frozen=True)
class TextBlock:
    """A code block, a table row statement or a source table at ``[start, end)``."""

    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class Definition:
    """A definition list's entry: its description at ``[start, end)`` is about ``term``
    (a manual's "-q, --quiet", a setting's "work_mem (integer)", an API's "sorted(iterable,
    …)"), which its sentences seldom repeat ("The default value is four megabytes")."""

    term: str
    start: int
    end: int


def definition_rows(definitions: Iterable[Definition], start: int, end: int) -> list[list]:
    """The definitions whose description overlaps ``[start, end)`` as ``[start, end,
    term]`` rows, offsets relative to ``start`` and not clipped (one begun before a chunk
    starts before 0): a chunk's or a web page span's."""
    return [[d.start - start, d.end - start, d.term] for d in definitions
            if d.start < end and d.end > start]


def definitions_json(definitions: Iterable[Definition], start: int, end: int) -> str:
    """``definition_rows`` as compact JSON (a chunk's metadata value)."""
    return json.dumps(definition_rows(definitions, start, end), separators=(",", ":"))


def definitions_from_json(raw: object) -> list[Definition] | None:
    """``definitions_json``'s output (or its parsed list) read back; None when there is
    none (chunks stored before definitions were recorded)."""
    try:
        rows = json.loads(raw) if isinstance(raw, str) else raw
        return None if rows is None else [Definition(str(t), int(s), int(e)) for s, e, t in rows]
    except (ValueError, TypeError):
        return None


def term_at(definitions: Iterable[Definition], start: int, end: int) -> str:
    """The term the text at ``[start, end)`` is said under: the innermost description
    holding it (a nested list's entry is about its own term); "" outside any."""
    holding = [d for d in definitions if d.start <= start and end <= d.end]
    return max(holding, key=lambda d: (d.start, -d.end)).term if holding else ""


def in_place(text: str, term: str) -> str:
    """A statement as it reads in its place: after the term its description is about
    ("work_mem (integer): The default value is four megabytes (4MB)."), alone outside one."""
    return f"{term}: {text}" if term else text


def _is_stop(match: re.Match[str]) -> bool:
    """Whether a sentence end found is a full stop within a paragraph (which the sentence
    model confirms), not a paragraph's or a list item's end."""
    return match.lastgroup == "stop" and not _BLANK_LINE.search(match.group())


def sentence_ends(text: str, confirmed: bool = True) -> list[re.Match[str]]:
    """Where the sentences of ``text`` end: every paragraph and list item's end, and each
    full stop before a capital at which the sentence model starts the next sentence (every
    such full stop when the model is unavailable, or with ``confirmed=False``)."""
    found = list(_SENTENCE_END.finditer(text))
    if not confirmed:
        return found
    paragraphs: list[tuple[int, int, list[re.Match[str]]]] = []  # (start, end, full stops)
    start = 0
    stops: list[re.Match[str]] = []
    for match in [*found, None]:
        if match is not None and _is_stop(match):
            stops.append(match)
            continue
        if stops:
            paragraphs.append((start, match.start() if match else len(text), stops))
        start, stops = (match.end() if match else len(text)), []
    if not paragraphs:
        return found
    starts = sentence_starts([text[lo:hi] for lo, hi, _ in paragraphs])
    if starts is None:
        return found
    refused = set()
    for (lo, _, stops), known in zip(paragraphs, starts, strict=True):
        for match in stops if known is not None else ():
            i = bisect.bisect_left(known, match.start() - lo)
            if i == len(known) or known[i] > match.end() - lo:
                refused.add(match.start())
    return [m for m in found if m.start() not in refused]


def sentences(text: str, min_chars: int = 20) -> list[Sentence]:
    """Sentences of ``text`` with exact offsets (``text[start:end] == sentence.text``)."""
    out: list[Sentence] = []
    position = 0
    for match in [*sentence_ends(text), None]:
        end = match.start() if match else len(text)
        raw = text[position:end]
        stripped = raw.strip()
        marker = _ITEM_MARKER.match(stripped)
        if marker:
            stripped = stripped[marker.end():]
        if len(stripped) >= min_chars:
            start = position + raw.index(stripped)
            out.append(Sentence(stripped, start, start + len(stripped)))
        position = match.end() if match else len(text)
    return out


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end == -1 else end


def find_blocks(text: str) -> list[TextBlock]:
    """Code fences and pipe-table lines written in ``text``: a fence runs to the next
    fence of the same character at least as long (or to the end of the text: a chunk may
    end inside one); consecutive "| … |" lines are one source table."""
    blocks: list[TextBlock] = []
    fences = list(_FENCE.finditer(text))
    i = 0
    while i < len(fences):
        opener = fences[i]
        marker = opener.group(1)
        close = next((j for j in range(i + 1, len(fences))
                      if fences[j].group(1)[0] == marker[0]
                      and len(fences[j].group(1)) >= len(marker)
                      and not fences[j].group(2).strip()), None)
        start = opener.start() + len(opener.group(0)) - len(opener.group(0).lstrip())
        end = fences[close].end() if close is not None else len(text.rstrip())
        blocks.append(TextBlock(start, end, CODE))
        i = close + 1 if close is not None else len(fences)
    in_code = [(b.start, b.end) for b in blocks]
    run: list[re.Match[str]] = []
    for line in [*_PIPE_LINE.finditer(text), None]:
        if line is not None and run and text[run[-1].end():line.start()] == "\n":
            run.append(line)
            continue
        if run:
            start = run[0].start() + len(run[0].group(0)) - len(run[0].group(0).lstrip())
            end = run[-1].start() + len(run[-1].group(0).rstrip())
            if not any(lo <= start < hi for lo, hi in in_code):
                blocks.append(TextBlock(start, end, TABLE))
        run = [line] if line is not None else []
    return sorted(blocks, key=lambda b: b.start)


def clip_blocks(blocks: Iterable[TextBlock], start: int, end: int) -> list[TextBlock]:
    """The blocks overlapping ``[start, end)``, clipped to it, relative to ``start``."""
    return [TextBlock(max(b.start, start) - start, min(b.end, end) - start, b.kind)
            for b in blocks if b.start < end and b.end > start]


def blocks_json(blocks: Iterable[TextBlock], start: int, end: int) -> str:
    """``clip_blocks`` as compact JSON (a chunk's metadata value)."""
    return json.dumps([[b.start, b.end, b.kind] for b in clip_blocks(blocks, start, end)],
                      separators=(",", ":"))


def blocks_from_json(raw: object) -> list[TextBlock] | None:
    """``blocks_json``'s output read back; None when there is none (older chunks)."""
    if not isinstance(raw, str):
        return None
    try:
        return [TextBlock(int(s), int(e), str(k)) for s, e, k in json.loads(raw)]
    except (ValueError, TypeError):
        return None


def segments(text: str, blocks: Iterable[TextBlock] | None = None) -> list[tuple[int, int]]:
    """Every unit of ``text`` in order: each block, and each sentence between blocks."""
    known = find_blocks(text) if blocks is None else sorted(blocks, key=lambda b: b.start)
    out: list[tuple[int, int]] = []
    position = 0
    for block in [*known, None]:
        stop = block.start if block else len(text)
        if stop > position:
            out.extend((position + s.start, position + s.end)
                       for s in sentences(text[position:stop], min_chars=1))
        if block:
            out.append((block.start, block.end))
            position = max(position, block.end)
    return out


class ChunkCuts:
    """Where chunks of one document cut a unit (a sentence, a row, a code block) in two.

    ``at(start, end)`` gives ``(lead, tail)``: the number of characters at the start of
    the chunk ``text[start:end]`` that end a unit begun before it, and at its end that
    begin a unit finished after it. A unit inside those stretches is a fragment."""

    def __init__(self, text: str, blocks: Iterable[TextBlock] | None = None) -> None:
        self.units = segments(text, blocks)  # read again by ``announced_stretches``
        self._starts = [s for s, _ in self.units]
        self._ends = [e for _, e in self.units]

    def at(self, start: int, end: int) -> tuple[int, int]:
        lead = tail = 0
        i = bisect.bisect_right(self._starts, start) - 1
        if i >= 0 and self._starts[i] < start < self._ends[i]:
            lead = min(self._ends[i], end) - start
        j = bisect.bisect_right(self._ends, end)
        if j < len(self._ends) and self._starts[j] < end < self._ends[j]:
            tail = end - max(self._starts[j], start)
        return lead, tail


# ---- writing structured text -------------------------------------------------------------
def fence_for(code: str) -> str:
    """A backtick fence longer than any run of backticks in ``code``, so no line of it
    closes the block early."""
    longest = max((len(m.group(0)) for m in re.finditer(r"`{3,}", code)), default=2)
    return "`" * (longest + 1)


# what closes a sentence (Latin and full-width), and what may close around it ("… used.)")
_SENTENCE_CLOSERS = (".", "!", "?", "。", "！", "？")
_AROUND_CLOSER = ")]\"'”’»"


def ends_sentence(text: str, colon: bool = True) -> bool:
    """The text ends a sentence: with closing punctuation, or (``colon``) a colon that
    announces what follows. Text that ends otherwise before a code block may go on after
    it ("… you can create a lightweight tag with ‹git tag my-first-tag› which just writes
    …"); so may a colon's ("The main differences between: ‹code› are that …")."""
    tail = text.rstrip().rstrip(_AROUND_CLOSER)
    return tail.endswith(_SENTENCE_CLOSERS) or (colon and announces(text))


def announces(text: str) -> bool:
    """The text ends in a colon (Latin or full-width): what it announces follows it ("To
    restore the dump into a new database called newdb:" and the commands)."""
    return text.rstrip().endswith((":", "："))


def _item_text(paragraph: str) -> str | None:
    marker = _ITEM_MARKER.match(paragraph) or _NUMBERED_MARKER.match(paragraph)
    return " ".join(paragraph[marker.end():].split()) if marker else None


def _paragraph_items(text: str, paragraph: re.Match[str]) -> list[str] | None:
    """The items of a list that a paragraph opens with its first line's marker, without
    markers; None when it does not open with one. A tight list (plain text's "   * a\n
    * b", no blank line between items) is one paragraph: a line holding the first
    item's marker at the first item's indentation starts the next item; any other line
    goes on the item before it."""
    first = _item_text(paragraph.group())
    if first is None:
        return None
    indent = paragraph.start() - (text.rfind("\n", 0, paragraph.start()) + 1)
    marker = paragraph.group()[0]
    starts = [0]
    lines = paragraph.group().split("\n")
    for index, line in enumerate(lines[1:], start=1):
        body = line[indent:]
        if (line[:indent].strip() == "" and body[:1] != " " and _item_text(body) is not None
                and (body[0] == marker or (marker.isdigit() and body[0].isdigit()))):
            starts.append(index)
    if len(starts) == 1:
        return [first]
    pieces = ["\n".join(lines[begin:end]).lstrip()
              for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True)]
    return [item for piece in pieces if (item := _item_text(piece))]


def following_list(text: str, position: int, to_end: bool = False) -> tuple[list[str], int] | None:
    """The list that starts at ``position`` (blank space before it): its items' text
    without markers, and the offset its last item ends at. None when no list starts
    there, when ``text`` ends inside it (a chunk's end may have cut it; ``to_end``: the
    text is all there is, and the list ends with it), or when an item follows the
    paragraph after it: that paragraph belonged to an item (a step's title and its text
    are two paragraphs), so where the list ends is not known."""
    items: list[str] = []
    end = position
    paragraphs = list(_PARAGRAPH.finditer(text, position))
    for index, paragraph in enumerate(paragraphs):
        listed = _paragraph_items(text, paragraph)
        if listed is None:
            following = paragraphs[index + 1] if index + 1 < len(paragraphs) else None
            if not items or (following is not None and _item_text(following.group()) is not None):
                return None
            return items, end
        items += listed
        end = paragraph.end()
    return (items, end) if to_end and items else None


def announced_stretches(text: str, blocks: Iterable[TextBlock] | None = None,
                        units: Sequence[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Where a sentence ending in a colon and the code block or list it announces lie,
    from the sentence's start to the block's or list's end ("To restore the dump into a
    new database called newdb:" and its commands): a chunk that cuts such a stretch
    leaves the sentence without what it announces. ``units``: the text's ``segments``
    when the caller has them (``ChunkCuts.units``, of the same text and blocks)."""
    known = find_blocks(text) if blocks is None else list(blocks)
    code_at = {b.start: b.end for b in known if b.kind == CODE}
    out: list[tuple[int, int]] = []
    for start, end in segments(text, known) if units is None else units:
        if not announces(text[start:end]):
            continue
        following = end + len(text[end:]) - len(text[end:].lstrip())
        if following in code_at:
            out.append((start, code_at[following]))
        elif (listed := following_list(text, end, to_end=True)) is not None:
            out.append((start, listed[1]))
    return out


def code_body(block: str) -> str:
    """A code block's code: the lines between its fences (the text as it is when it has
    none)."""
    lines = block.split("\n")
    if len(lines) >= 2 and _FENCE.match(lines[0]) and _FENCE.match(lines[-1]):
        return "\n".join(lines[1:-1])
    return block


ROW_LABEL_SEPARATOR = " — "


def row_statement(header: Sequence[str], cells: Sequence[str]) -> str:
    """One table row as a statement: "label — Header: cell; Header: cell". The first
    cell names the row; a table without a header row, or of one column, lists its
    cells, a cell that ends in a colon labelling the next ("Description: Replaces the
    original client IP address …", not "Description:; Replaces …")."""
    if not header or len(cells) < 2:
        parts: list[str] = []
        for cell in (c for c in cells if c):
            parts += [cell, " " if cell.endswith(":") else "; "]
        return "".join(parts[:-1])
    names = [*header, *[""] * (len(cells) - len(header))]
    pairs = "; ".join(f"{name}: {cell}" if name else cell
                      for name, cell in zip(names[1:], cells[1:], strict=False) if cell)
    label = cells[0]
    if label and pairs:
        return f"{label}{ROW_LABEL_SEPARATOR}{pairs}"
    return label or pairs


def row_label(statement: str) -> str:
    """The label a ``row_statement`` opens with (its first cell, which names the row);
    empty for any other text."""
    label, sep, pairs = statement.partition(ROW_LABEL_SEPARATOR)
    return label if sep and label and ": " in pairs else ""


def table_statements(rows: Sequence[tuple[Sequence[str], bool]]) -> list[str]:
    """Statements for a table's rows, each given as ``(cells, is_header_row)``: leading
    header rows name the columns (several are joined per column); a later header row of
    several cells names them from there on; data rows become ``row_statement``s."""
    header: list[str] = []
    out: list[str] = []
    leading = True
    for cells, is_header in rows:
        cells = [" ".join(c.split()) for c in cells]
        if is_header and (leading or len([c for c in cells if c]) > 1):
            if leading and header:
                header = [" ".join(dict.fromkeys(p for p in (a, b) if p))
                          for a, b in zip([*header, *[""] * len(cells)], cells, strict=False)]
            else:
                header = list(cells)
            continue
        leading = False
        statement = row_statement(header, cells)
        if statement:
            out.append(statement)
    return out


class StructuredText:
    """Builds a document's text from prose, table rows and code blocks, separated by
    blank lines, recording each row's and code block's offsets, and the terms and
    descriptions of its definition lists marked in its prose (``marked_prose``)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self.blocks: list[TextBlock] = []
        self.definitions: list[Definition] = []
        self._open: dict[str, int] = {}  # mark: where its stretch began
        self._terms: dict[str, list[tuple[int, int]]] = {}  # entry: its terms' stretches
        self.titles: list[tuple[str, int, int]] = []  # (key, start, end) of each title
        self.section_ends: dict[str, int] = {}  # title key: where the section it opens ends

    def _append(self, piece: str) -> int:
        if self._length:
            self._parts.append("\n\n")
            self._length += 2
        start = self._length
        self._parts.append(piece)
        self._length += len(piece)
        return start

    def prose(self, text: str) -> None:
        text = text.strip()
        if text:
            self._append(text)

    def marked_prose(self, text: str, marks: re.Pattern[str]) -> None:
        """Prose holding marks around definition list terms and descriptions, and around
        titles: ``marks`` matches one, its groups the side (``T``/``D``/``H`` opening a
        term, a description or a title, lower case closing it, ``E`` the end of the
        section a title opens) and its key. The marks are
        left out of the text; a closed term is recorded as a ``TERM`` block, a closed
        title as a ``TITLE`` block, a closed description as the ``Definition`` of its
        entry's term (a description may run across code blocks and tables, so stretches
        open in one piece of prose close in another)."""
        found = list(marks.finditer(text))
        plain = marks.sub("", text)
        lead = len(plain) - len(plain.lstrip())
        kept = plain.strip()
        start = self._append(kept) if kept else self._length
        whole = "".join(self._parts) if found else ""
        removed = 0
        for match in found:
            at = start + min(max(match.start() - removed - lead, 0), len(kept))
            removed += len(match.group(0))
            side, key = match.group(1), match.group(2)
            if side == "E":
                self.section_ends[key] = at
            elif side.isupper():
                self._open[side + key] = at
            elif (begun := self._open.pop(side.upper() + key, None)) is not None:
                self._close(whole, side, key, begun, at)

    def _close(self, whole: str, side: str, key: str, begun: int, at: int) -> None:
        written = whole[begun:at]
        lo, hi = begun + len(written) - len(written.lstrip()), begun + len(written.rstrip())
        if side in ("t", "h"):  # a term or a title, each at most MAX_TERM_CHARS
            if lo < hi <= lo + MAX_TERM_CHARS:
                if side == "t":
                    self._terms.setdefault(key, []).append((lo, hi))
                else:
                    self.titles.append((key, lo, hi))
                self.blocks.append(TextBlock(lo, hi, TERM if side == "t" else TITLE))
        elif key in self._terms and lo < hi:  # "-q, --quiet" may be two terms of one entry
            term = ", ".join(" ".join(whole[a:b].split()) for a, b in self._terms[key])
            self.definitions.append(Definition(term, lo, hi))

    def rows(self, statements: Sequence[str]) -> None:
        lines = [" ".join(s.split()) for s in statements]
        lines = [line for line in lines if line]
        if not lines:
            return
        position = self._append("\n".join(lines))
        for line in lines:
            self.blocks.append(TextBlock(position, position + len(line), ROW))
            position += len(line) + 1

    def code(self, code: str, info: str = "") -> None:
        lines = textwrap.dedent(code.expandtabs(8)).splitlines()
        while lines and not lines[0].strip():
            lines.pop(0)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines:
            return
        body = "\n".join(line.rstrip() for line in lines)
        fence = fence_for(body)
        block = f"{fence}{info}\n{body}\n{fence}"
        start = self._append(block)
        self.blocks.append(TextBlock(start, start + len(block), CODE))

    def text(self) -> str:
        return "".join(self._parts)
