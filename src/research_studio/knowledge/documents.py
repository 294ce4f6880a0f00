"""Turn files into plain-text documents; anything unusable is skipped with a reason.

Supported: Markdown, plain text, reStructuredText, HTML, PDF, DOCX, and JSON Lines
records ``{"id", "title", "text"}`` (the record id becomes the document's ``doc_id``; a
file's is its path, as unique as its location: two ``index.html`` of one manual are two
documents to the trust engine).
Each may be gzip, bzip2 or xz compressed (``changelog.html.gz``); a name without a known
type (``README``, ``NEWS.Debian``) is plain text when its content is (``file_types.py``).
A bad file never aborts an ingest: it becomes a ``SkippedItem``.

HTML, Markdown and DOCX are read with their structure (``markup.py``): each table row
becomes one statement of its header and cells on a line of its own ("Read committed —
Dirty Read: Not possible; Nonrepeatable Read: Possible; …"), HTML code blocks and command
synopses become fenced blocks, and ``LoadedDocument.blocks`` records where rows and code
blocks lie, so evidence extraction quotes a row as a unit and never takes code for prose.
Prose keeps the text its parser gives. reStructuredText, and Sphinx's ``.rst.txt`` copies of
it, is read by docutils (``restructured.py``): the text without its markup, the title its
first section's.

This applies to documents ingested from now on. Chunks stored before keep their text
(tables flattened into "| … |" lines, synopses as plain lines) and have neither a block
record nor cut offsets (``KnowledgeBase._passages``): evidence extraction then recognises
fences and pipe-table lines in their text, and takes the first sentence of a chunk that
does not open its document for a piece of a sentence cut by the chunk boundary.
Re-ingesting an HTML page, or a Markdown or DOCX file with a table, stores it anew since
its text changes; a file whose text is unchanged is left as it was stored.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import logging
import os
import re
import stat
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from research_studio.knowledge.file_types import (
    CompressedDataError,
    compression_of,
    decompress,
    inner_name,
    names_a_file_type,
    troff_source,
)
from research_studio.knowledge.sections import Section
from research_studio.knowledge.structure import Definition, TextBlock, find_blocks

log = logging.getLogger(__name__)

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".rst"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
SUPPORTED = TEXT_SUFFIXES | HTML_SUFFIXES | {".pdf", ".docx", ".jsonl"}
# A folder may hold one document in several formats (Git's manual pages as HTML beside
# their AsciiDoc sources as .txt); the first read is kept (near_duplicates.other_format),
# so a folder is read in this order within a name: HTML gives headings, anchors, tables
# and code blocks, Markdown and DOCX their markup's, reST what its text shows; a PDF has
# pages but no headings; plain text (AsciiDoc read as text) shows its markup raw.
FORMAT_ORDER = (*sorted(HTML_SUFFIXES), ".md", ".markdown", ".docx", ".rst", ".pdf",
                ".txt", ".text")
_MAX_TITLE = 200
# Uncompressed bytes a DOCX may unpack to, counted as it is read (a zip's declared sizes
# can lie): the largest real documents are a few tens of MB, mostly images.
_DOCX_MAX_EXPANSION = 100_000_000
# A text file in which more than this share of characters are control characters is
# binary data under a text name: prose and code hold next to none (tabs and line breaks
# are not counted), random bytes about a quarter.
MAX_CONTROL_SHARE = 0.10
# HTML comments in Markdown are invisible to a reader of the rendered page, so their
# text is not content (and a place where instructions to a model hide).
_MARKDOWN_COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)


@dataclass
class LoadedDocument:
    """One document's text and where it came from."""

    doc_id: str
    title: str
    text: str
    location: str
    source_type: str
    page_starts: list[int] = field(default_factory=list)
    # table rows and code blocks in ``text`` (see markup.py); None: not read for structure
    # (plain text, reStructuredText, PDF, JSON Lines), the fences and pipe tables its text
    # shows are then found in it (structure.find_blocks)
    blocks: list[TextBlock] | None = None
    # what the descriptions of its definition lists are about (HTML only)
    definitions: list[Definition] = field(default_factory=list)
    # its headings, where the page gives them (HTML only)
    sections: list[Section] = field(default_factory=list)

    @property
    def content_hash(self) -> str:
        """What is stored of the document: its text, and its definition lists and sections
        where it has any, so a page ingested before they were recorded is read again when
        re-ingested."""
        entries = "".join(f"\0{d.start}:{d.end}:{d.term}" for d in self.definitions)
        headings = "".join(f"\1{s.start}:{s.level}:{s.anchor}" for s in self.sections)
        return hashlib.sha256((self.text + entries + headings).encode("utf-8")).hexdigest()

    def page_of(self, offset: int) -> int | None:
        """1-based page holding ``offset`` (PDFs only)."""
        if not self.page_starts:
            return None
        page = 0
        for i, start in enumerate(self.page_starts):
            if start <= offset:
                page = i
        return page + 1


@dataclass
class SkippedItem:
    location: str
    reason: str


class UnusableFile(Exception):
    """Raised by a loader; the message becomes the skip reason."""


def _decode(data: bytes) -> str:
    """UTF-8 or Windows-1252 (the usual encodings of documents people have), else the
    encoding charset-normalizer finds; binary data is refused either way."""
    if b"\x00" in data[:65536]:
        raise UnusableFile("binary content (NUL bytes) in a text file")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        from charset_normalizer import from_bytes

        best = from_bytes(data).best()
        if best is None:
            raise UnusableFile("binary content (no text encoding fits)")
        text = str(best)
    controls = sum(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r\f" for ch in text)
    if text and controls / len(text) > MAX_CONTROL_SHARE:
        raise UnusableFile(f"binary content ({controls / len(text):.0%} control characters)")
    return text


_RULE_MARKS = set("=-~*^`'\"#:+_")


def _first_line_title(text: str, fallback: str) -> str:
    """The first line of text, when it stands as a title: marked as a heading ("# Guide"),
    or alone before a blank line, an underline ("Introduction" over "====") or the end. A
    first line that runs on into the next ("This is a terse description of the new
    features added to bash-5.2 since") opens a paragraph and names nothing: the
    ``fallback`` is the title then."""
    lines = [line.strip() for line in text.splitlines()]
    for i, line in enumerate(lines):
        words = line.lstrip("#").strip()
        if words and not set(words) <= _RULE_MARKS:
            after = lines[i + 1] if i + 1 < len(lines) else ""
            alone = line.startswith("#") or not after or set(after) <= _RULE_MARKS
            return words[:_MAX_TITLE] if alone else fallback
    return fallback


def _is_rst(path: PurePath) -> bool:
    """A reST file: ``.rst``, or Sphinx's copy of one beside the HTML it built
    (``_sources/…/page.rst.txt``)."""
    suffixes = [s.lower() for s in path.suffixes[-2:]]
    return suffixes[-1:] == [".rst"] or suffixes == [".rst", ".txt"]


def _load_text(path: Path, name: PurePath, data: bytes) -> list[LoadedDocument]:
    text = _decode(data)
    kind = "markdown" if name.suffix.lower() in {".md", ".markdown"} else (
        "rst" if _is_rst(name) else "text")
    blocks = None
    sections: list[Section] = []
    title = ""
    if kind == "markdown":
        from research_studio.knowledge.markup import markdown_sections, render_markdown

        text, blocks = render_markdown(_MARKDOWN_COMMENT.sub("", text))
        sections = markdown_sections(text)
    elif kind == "rst":
        from research_studio.knowledge.restructured import render_rst

        try:
            text, title = render_rst(text)
        except Exception as exc:  # docutils' fault on one file: its raw text is still readable
            log.warning("could not parse %s as reStructuredText: %s", path, exc)
    else:
        blocks, sections = _plain_text_structure(text)
    return [LoadedDocument(str(path), title[:_MAX_TITLE] or _first_line_title(text, name.stem),
                           text, str(path), kind, blocks=blocks, sections=sections)]


def _plain_text_structure(text: str) -> tuple[list[TextBlock] | None, list[Section]]:
    """Plain text's underlined headings, as sections and as title blocks beside the code
    fences and tables its text shows; none found, the text is left to be read for those
    when it is searched, as before (``blocks`` None)."""
    from research_studio.knowledge.markup import underlined_headings

    headings = underlined_headings(text)
    if not headings:
        return None, []
    blocks = sorted([*find_blocks(text), *(block for _, block in headings)], key=lambda b: b.start)
    return blocks, [section for section, _ in headings]


def _load_sniffed(path: Path, name: PurePath, data: bytes) -> list[LoadedDocument]:
    """A file named without a known type (``README``, ``NEWS.Debian``, ``copyright``):
    plain text when its content is; binary data and manual page sources (troff markup,
    which would be read as its raw requests) are refused."""
    kind = f"unsupported file type {name.suffix.lower() or '(none)'}"
    try:
        text = _decode(data)
    except UnusableFile as exc:
        raise UnusableFile(f"{kind}: binary content") from exc
    if troff_source(text):
        raise UnusableFile(f"{kind}: a manual page's troff source (render it to text first, "
                           "e.g. man -l FILE > FILE.txt)")
    # such names are conventions ("README", "NEWS", "copyright"): the folder says whose
    title = _first_line_title(text, f"{path.parent.name}/{name.name}".lstrip("/"))
    blocks, sections = _plain_text_structure(text)
    return [LoadedDocument(str(path), title, text, str(path), "text", blocks=blocks,
                           sections=sections)]


def _load_html(path: Path, name: PurePath, data: bytes) -> list[LoadedDocument]:
    from research_studio.knowledge.markup import page_title, render_html

    html = _decode(data)
    page = render_html(html)
    title = page_title(html) or name.stem
    return [LoadedDocument(str(path), title[:_MAX_TITLE], page.text, str(path), "html",
                           blocks=page.blocks, definitions=page.definitions,
                           sections=page.sections)]


def _load_pdf(path: Path, name: PurePath, data: bytes) -> list[LoadedDocument]:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnusableFile("encrypted PDF")
        parts: list[str] = []
        starts: list[int] = []
        offset = 0
        for page in reader.pages:
            starts.append(offset)
            page_text = (page.extract_text() or "").strip()
            parts.append(page_text)
            offset += len(page_text) + 2
        title = (reader.metadata.title if reader.metadata and reader.metadata.title else "")
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise UnusableFile(f"unreadable PDF ({exc})") from exc
    text = "\n\n".join(parts)
    return [LoadedDocument(str(path), (title or name.stem)[:_MAX_TITLE], text, str(path), "pdf",
                           page_starts=starts)]


def _check_unpacked_size(archive: zipfile.ZipFile) -> None:
    """Refuse an archive that unpacks to more than the limit, by its declared sizes and by
    the bytes it actually yields, read in bounded chunks (a header may lie)."""
    limit = _DOCX_MAX_EXPANSION
    refusal = UnusableFile(f"DOCX unpacks to more than {limit // 1_000_000} MB (zip bomb?)")
    if sum(info.file_size for info in archive.infolist()) > limit:
        raise refusal
    total = 0
    for info in archive.infolist():
        with archive.open(info) as member:
            while chunk := member.read(1 << 20):
                total += len(chunk)
                if total > limit:
                    raise refusal


def _load_docx(path: Path, name: PurePath, data: bytes) -> list[LoadedDocument]:
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            _check_unpacked_size(archive)
        import docx

        document = docx.Document(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UnusableFile(f"unreadable DOCX ({exc})") from exc
    except UnusableFile:
        raise
    except Exception as exc:  # python-docx raises several unrelated types
        raise UnusableFile(f"unreadable DOCX ({type(exc).__name__}: {exc})") from exc
    from research_studio.knowledge.markup import render_docx

    text, blocks = render_docx(document)
    title = document.core_properties.title or _first_line_title(text, name.stem)
    return [LoadedDocument(str(path), title[:_MAX_TITLE], text, str(path), "docx",
                           blocks=blocks)]


def iter_jsonl_records(path: Path, data: bytes) -> Iterator[LoadedDocument | SkippedItem]:
    """One document per JSON Lines record; bad lines are skipped, the rest go on."""
    text = _decode(data)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            yield SkippedItem(where, f"invalid JSON ({exc.msg})")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            yield SkippedItem(where, 'record has no "text" string')
            continue
        if not record["text"].strip():
            yield SkippedItem(where, "empty text")
            continue
        doc_id = str(record.get("id") or f"{path.name}:{lineno}")
        title = str(record.get("title") or doc_id)[:_MAX_TITLE]
        yield LoadedDocument(doc_id, title, record["text"], f"{path}#{doc_id}", "jsonl")


_LOADERS = {
    **dict.fromkeys(TEXT_SUFFIXES, _load_text),
    **dict.fromkeys(HTML_SUFFIXES, _load_html),
    ".pdf": _load_pdf,
    ".docx": _load_docx,
}


def _reading_order(name: str) -> tuple[str, int, str]:
    """A folder's files by name, one name's formats in ``FORMAT_ORDER`` (a compressed
    file by the name of the file it holds)."""
    path = inner_name(name)
    suffix = path.suffix.lower()
    rank = FORMAT_ORDER.index(suffix) if suffix in FORMAT_ORDER else len(FORMAT_ORDER)
    return path.stem, rank, name


def iter_files(paths: Iterable[Path], exclude: Sequence[str] = ()) -> Iterator[Path | SkippedItem]:
    """Expand folders (sorted by name, one name's formats best first, hidden entries
    ignored); report missing paths. A file or folder whose name, or whose path inside
    the folder given, matches a pattern of ``exclude`` (shell wildcards: "changelog*",
    "*/images") is left out and reported once, with the pattern."""
    def left_out(path: Path, root: Path) -> SkippedItem | None:
        inside = path.relative_to(root).as_posix() if path != root else path.name
        pattern = next((p for p in exclude if fnmatch.fnmatch(path.name, p)
                        or fnmatch.fnmatch(inside, p)), None)
        return None if pattern is None else SkippedItem(str(path), f"excluded ({pattern})")

    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            yield SkippedItem(str(path), "no such file or folder")
        elif (skipped := left_out(path, path)) is not None:
            yield skipped
        elif path.is_dir():
            for root, dirs, files in os.walk(path):
                kept = []
                for name in sorted(d for d in dirs if not d.startswith(".")):
                    if (skipped := left_out(Path(root) / name, path)) is not None:
                        yield skipped
                    else:
                        kept.append(name)
                dirs[:] = kept
                for name in sorted(files, key=_reading_order):
                    if not name.startswith("."):
                        found = Path(root) / name
                        yield left_out(found, path) or found
        else:
            yield path


def load_file(path: Path, max_bytes: int, max_chars: int) -> Iterator[LoadedDocument | SkippedItem]:
    """Load one file into documents, or skip it with a reason. A compressed file is read
    as the file it holds; a name no file type claims is read as plain text when its
    content is text (``file_types``)."""
    where = str(path)
    inner = inner_name(path)
    suffix = inner.suffix.lower()
    sniffed = suffix not in SUPPORTED  # read as plain text, unless the suffix names a type
    if sniffed and names_a_file_type(suffix):
        yield SkippedItem(where, f"unsupported file type {suffix}")
        return
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            yield SkippedItem(where, "not a regular file")
            return
        if info.st_size > max_bytes:
            yield SkippedItem(where, f"oversized ({info.st_size:,} bytes > {max_bytes:,})")
            return
        data = path.read_bytes()
    except OSError as exc:
        yield SkippedItem(where, f"unreadable ({exc.strerror or exc})")
        return
    try:
        if compression := compression_of(path):
            data = decompress(data, compression, max_bytes)
        produced: Iterable[LoadedDocument | SkippedItem] = (
            _load_sniffed(path, inner, data) if sniffed
            else list(iter_jsonl_records(path, data)) if suffix == ".jsonl"
            else _LOADERS[suffix](path, inner, data))
    except (UnusableFile, CompressedDataError) as exc:
        yield SkippedItem(where, str(exc))
        return
    except Exception as exc:  # a parser's own failure (pypdf's JBIG2, lxml, …) skips one file
        yield SkippedItem(where, f"could not be read ({type(exc).__name__}: {exc})"[:300])
        return
    for item in produced:
        if isinstance(item, LoadedDocument):
            if not item.text.strip():
                item = SkippedItem(item.location, "empty (no text extracted)")
            elif len(item.text) > max_chars:
                item = SkippedItem(item.location, f"text too long ({len(item.text):,} characters)")
        yield item
