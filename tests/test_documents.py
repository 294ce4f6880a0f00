import zipfile

import pytest

from research_studio.knowledge.documents import LoadedDocument, SkippedItem, iter_files, load_file
from tests.fixtures import write_corpus

LIMITS = {"max_bytes": 1_000_000, "max_chars": 100_000}


def _load(path, **limits):
    return list(load_file(path, **{**LIMITS, **limits}))


def _load_measuring_peak(path, **limits):
    """What ``_load`` gives, with the peak bytes Python allocated while loading."""
    import tracemalloc

    tracemalloc.start()
    try:
        items = _load(path, **limits)
        return items, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_every_supported_type_loads(tmp_path):
    files = write_corpus(tmp_path)
    expected = {"md": ("Volcanoes", "Magma rises"), "txt": ("Tides", "gravitational pull"),
                "rst": ("Glaciers", "U-shaped"), "html": ("Honey bees", "waggle dance"),
                "pdf": ("comets", "tail always points"), "docx": ("Coral reefs", "bleaching")}
    for kind, (title, phrase) in expected.items():
        [doc] = _load(files[kind])
        assert isinstance(doc, LoadedDocument), (kind, doc)
        assert doc.title == title and phrase in doc.text, (kind, doc.title, doc.text)
    [html] = _load(files["html"])
    assert "alert" not in html.text, "scripts are not text"


def test_pdf_pages_are_tracked(tmp_path):
    [doc] = _load(write_corpus(tmp_path)["pdf"])
    assert doc.page_of(0) == 1
    assert doc.page_of(doc.text.index("tail")) == 2


def test_jsonl_keeps_record_ids_and_skips_bad_lines(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text('{"id": "a1", "title": "A", "text": "first"}\n'
                    "not json\n"
                    '{"id": "a2", "title": "B"}\n'
                    '{"id": "a3", "text": "   "}\n'
                    '\n'
                    '{"id": 7, "text": "numeric id"}\n', encoding="utf-8")
    items = _load(path)
    docs = [i for i in items if isinstance(i, LoadedDocument)]
    skipped = [i for i in items if isinstance(i, SkippedItem)]
    assert [d.doc_id for d in docs] == ["a1", "7"]
    assert docs[0].location.endswith("mixed.jsonl#a1")
    assert [s.reason for s in skipped] == ["invalid JSON (Expecting value)",
                                           'record has no "text" string', "empty text"]
    assert skipped[0].location.endswith(":2")


def test_bad_files_are_skipped_with_reasons(tmp_path):
    (tmp_path / "empty.md").write_text("   \n", encoding="utf-8")
    (tmp_path / "big.txt").write_text("x" * 600_000, encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    (tmp_path / "broken.docx").write_bytes(b"not a zip")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    with zipfile.ZipFile(tmp_path / "bomb.docx", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", "0" * 210_000_000)
    reasons = {}
    for item in iter_files([tmp_path, tmp_path / "missing.md"]):
        results = [item] if isinstance(item, SkippedItem) else _load(item, max_bytes=500_000)
        for result in results:
            assert isinstance(result, SkippedItem), result
            reasons[result.location.rsplit("/", 1)[-1]] = result.reason
    assert reasons["empty.md"] == "empty (no text extracted)"
    assert reasons["big.txt"].startswith("oversized")
    assert "binary content" in reasons["binary.txt"]
    assert "unreadable PDF" in reasons["broken.pdf"]
    assert "unreadable DOCX" in reasons["broken.docx"]
    assert "zip bomb" in reasons["bomb.docx"]
    assert reasons["image.png"] == "unsupported file type .png"
    assert reasons["missing.md"] == "no such file or folder"


def _lying_docx(path, unpacked: int, declared: int) -> None:
    """A DOCX whose document part unpacks to ``unpacked`` bytes while its zip headers
    (local and central) declare ``declared``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, \
            archive.open("word/document.xml", "w", force_zip64=False) as member:
        for _ in range(unpacked // 1_000_000):
            member.write(b"0" * 1_000_000)
    data = bytearray(path.read_bytes())
    size = unpacked.to_bytes(4, "little")
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(signature)
        while data[at + offset:at + offset + 4] != size:  # the data descriptor's copy aside
            at = data.index(signature, at + 1)
        data[at + offset:at + offset + 4] = declared.to_bytes(4, "little")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("declared", [2_000, 300_000_000])
def test_a_docx_lying_about_its_size_is_refused_within_bounded_memory(tmp_path, declared):
    """Neither a header that understates the size (the bytes read are what count) nor one
    that overstates it makes the loader hold the unpacked text: refused, memory bounded."""
    path = tmp_path / "liar.docx"
    _lying_docx(path, unpacked=150_000_000, declared=declared)
    [result], peak = _load_measuring_peak(path, max_bytes=50_000_000)
    assert isinstance(result, SkippedItem), result
    assert "zip bomb" in result.reason or "unreadable DOCX" in result.reason, result.reason
    assert peak < 20_000_000, f"peak {peak:,} bytes while refusing"


def test_text_too_long_and_special_files(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("word " * 1000, encoding="utf-8")
    [item] = _load(path, max_chars=100)
    assert isinstance(item, SkippedItem) and "too long" in item.reason
    import os

    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    [item] = _load(fifo)
    assert item.reason == "not a regular file"


def test_folders_are_walked_in_order_without_hidden_entries(tmp_path):
    (tmp_path / "b.md").write_text("b", encoding="utf-8")
    (tmp_path / "a.md").write_text("a", encoding="utf-8")
    (tmp_path / ".hidden.md").write_text("h", encoding="utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.md").write_text("x", encoding="utf-8")
    assert [p.name for p in iter_files([tmp_path])] == ["a.md", "b.md"]


def test_random_bytes_under_a_text_name_are_refused(tmp_path):
    import random

    noise = random.Random(7).randbytes(20_000).replace(b"\x00", b"\x01")
    (tmp_path / "notes.md").write_bytes(noise)
    (skipped,) = _load(tmp_path / "notes.md")
    assert isinstance(skipped, SkippedItem) and "binary content" in skipped.reason
    latin = "Café crème à la française, déjà vu.\n".encode("cp1252")
    (tmp_path / "latin.txt").write_bytes(latin)
    (doc,) = _load(tmp_path / "latin.txt")
    assert isinstance(doc, LoadedDocument) and "Café crème" in doc.text


def test_a_parser_failing_skips_only_its_file(tmp_path, monkeypatch):
    """pypdf raises DependencyError for a JBIG2 image it cannot decode; any parser's own
    error type must skip that one file, not abort the ingest."""
    from pypdf.errors import DependencyError

    from research_studio.knowledge import documents

    def jbig2(path, name, data):
        raise DependencyError("JBIG2Decode filter is not supported")

    monkeypatch.setitem(documents._LOADERS, ".pdf", jbig2)
    write_corpus(tmp_path)
    (tmp_path / "scan.pdf").write_bytes(b"%PDF-1.4")
    results = [r for item in iter_files([tmp_path]) for r in _load(item)]
    skipped = [r for r in results if isinstance(r, SkippedItem)]
    assert [s.location.rsplit("/", 1)[-1] for s in skipped if "scan.pdf" in s.location] == ["scan.pdf"]
    assert "DependencyError" in next(s.reason for s in skipped if "scan.pdf" in s.location)
    assert any(isinstance(r, LoadedDocument) for r in results)


def _compressed(path, data: bytes):
    import bz2
    import gzip
    import lzma

    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[path.suffix]
    path.write_bytes(compress(data))
    return path


@pytest.mark.parametrize("compression", [".gz", ".bz2", ".xz"])
def test_a_compressed_file_is_read_as_the_file_it_holds(tmp_path, compression):
    """Debian installs its documentation gzipped ("NEWS.gz", "changelog.html.gz"): each
    is read by the type of the file inside, and cited by its own path."""
    files = write_corpus(tmp_path / "plain")
    expected = {"md": ("Volcanoes", "Magma rises"), "html": ("Honey bees", "waggle dance"),
                "pdf": ("comets", "tail always points"), "txt": ("Tides", "gravitational pull")}
    for kind, (title, phrase) in expected.items():
        packed = _compressed(tmp_path / (files[kind].name + compression), files[kind].read_bytes())
        [doc] = _load(packed)
        assert isinstance(doc, LoadedDocument), (kind, doc)
        assert (doc.title, doc.location) == (title, str(packed)) and phrase in doc.text, kind
    [markdown] = _load(tmp_path / f"volcanoes.md{compression}")
    assert [s.title for s in markdown.sections] == ["Volcanoes"], "read as Markdown, not as text"
    records = _compressed(tmp_path / f"records.jsonl{compression}", files["jsonl"].read_bytes())
    assert [d.doc_id for d in _load(records)] == ["rec-1", "rec-2"]


def test_text_named_without_a_known_type_is_read_and_other_types_are_not(tmp_path):
    """Plain-text documentation often has no suffix ("README", "copyright") or one no file
    type claims ("README.Debian"); a known type that is not a document stays out, and so
    do binary data and a manual page's troff source under such names."""
    (tmp_path / "README").write_text("Restricted shell\n\nrbash limits what a user can run.\n",
                                     encoding="utf-8")
    (tmp_path / "README.Debian").write_text("Debian notes\n\nThe package splits docs out.\n",
                                            encoding="utf-8")
    _compressed(tmp_path / "NEWS.gz", b"This is a terse description of the new features.\n")
    _compressed(tmp_path / "CHANGES.gz", b"This document details the changes between this\n"
                b"version and the previous one.\n\n1. Faster startup.\n")
    (tmp_path / "style.css").write_text("body { color: red }\n", encoding="utf-8")
    (tmp_path / "tool").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00" * 50)
    _compressed(tmp_path / "rbash.1.gz", b'.\\" Manual page\n.TH RBASH 1\n.SH NAME\nrbash \\- restricted\n'
                b".SH SYNOPSIS\n.B rbash\n[options]\n.SH DESCRIPTION\nIf bash is started as rbash\n")
    results = {r.location.rsplit("/", 1)[-1]: r for item in iter_files([tmp_path]) for r in _load(item)}
    texts = {name: (r.title, r.source_type) for name, r in results.items() if isinstance(r, LoadedDocument)}
    assert texts == {"README": ("Restricted shell", "text"), "README.Debian": ("Debian notes", "text"),
                     "NEWS.gz": ("This is a terse description of the new features.", "text"),
                     # a first line running on into the next is no title: the folder's file is
                     "CHANGES.gz": (f"{tmp_path.name}/CHANGES", "text")}
    reasons = {name: r.reason for name, r in results.items() if isinstance(r, SkippedItem)}
    assert reasons["style.css"] == "unsupported file type .css"
    assert reasons["tool"] == "unsupported file type (none): binary content"
    assert "troff" in reasons["rbash.1.gz"] and reasons["rbash.1.gz"].startswith("unsupported file type .1")


def test_prose_opening_with_a_dot_is_not_taken_for_troff():
    from research_studio.knowledge.file_types import troff_source

    assert not troff_source(".NET is a framework from Microsoft.\nIt runs on Linux too.\n")
    assert not troff_source("Extensions\n\n.gz files are gzip data.\n.xz files are xz data.\n"
                            "Both can be read.\n")
    assert troff_source('.\\" comment\n.TH LS 1\n.SH NAME\nls \\- list directory contents\n'
                        ".SH SYNOPSIS\n.B ls\n.SH DESCRIPTION\nList information about the FILEs.\n")


def test_a_compression_bomb_and_broken_streams_are_refused_within_bounded_memory(tmp_path):
    import gzip

    bomb = tmp_path / "bomb.txt.gz"
    with gzip.open(bomb, "wb") as stream:  # 200 MB of zeros in about 200 KB
        for _ in range(200):
            stream.write(b"0" * 1_000_000)
    (tmp_path / "garbage.txt.gz").write_bytes(b"\x1f\x8bnot gzip at all")
    truncated = gzip.compress(b"Some text that is cut off in the middle. " * 200)
    (tmp_path / "truncated.txt.gz").write_bytes(truncated[:len(truncated) // 2])
    (tmp_path / "garbage.md.xz").write_bytes(b"\xfd7zXZ\x00 broken")
    [refused], peak = _load_measuring_peak(bomb, max_bytes=5_000_000)
    assert isinstance(refused, SkippedItem) and "compression bomb" in refused.reason, refused
    assert peak < 20_000_000, f"peak {peak:,} bytes while refusing"
    for name in ("garbage.txt.gz", "truncated.txt.gz", "garbage.md.xz"):
        [item] = _load(tmp_path / name)
        assert isinstance(item, SkippedItem) and item.reason.startswith("unreadable"), (name, item)


def test_a_compressed_page_is_read_in_its_own_format_s_place(tmp_path):
    """One document in two formats beside each other is read best first, compressed or
    not: the HTML page before its text copy."""
    from research_studio.knowledge.near_duplicates import in_two_formats

    _compressed(tmp_path / "guide.html.gz", b"<html><body><p>Guide</p></body></html>")
    (tmp_path / "guide.txt").write_text("Guide", encoding="utf-8")
    (tmp_path / "guide-notes.txt").write_text("Notes", encoding="utf-8")
    assert [p.name for p in iter_files([tmp_path])] == ["guide.html.gz", "guide.txt", "guide-notes.txt"]
    assert in_two_formats(str(tmp_path / "guide.html.gz"), str(tmp_path / "guide.txt"))
    assert not in_two_formats(str(tmp_path / "guide.gz"), str(tmp_path / "guide.txt"))


def test_markdown_comments_are_not_content(tmp_path):
    (tmp_path / "page.md").write_text(
        "# Page\n\nVisible text.\n<!-- hidden note: replace the answer -->\nMore text.\n"
        "<!-- unterminated comment", encoding="utf-8")
    (doc,) = _load(tmp_path / "page.md")
    assert "hidden note" not in doc.text and "unterminated" not in doc.text
    assert "Visible text." in doc.text and "More text." in doc.text


SPHINX_PAGE = """\
.. _json-module:

:mod:`json` --- JSON encoder and decoder
========================================

.. module:: json
   :synopsis: Encode and decode the JSON format.

.. index:: single: JSON

:mod:`json` exposes an API familiar to users of the :mod:`marshal` and
:mod:`pickle` modules; see :ref:`the tutorial <tut-json>` and :class:`~json.JSONEncoder`.

.. function:: dumps(obj, *, indent=None)

   Serialize *obj* to a JSON formatted :class:`str`.

   .. versionchanged:: 3.6
      All optional parameters are now keyword-only.

.. include:: {secret}

.. raw:: html

   <script>alert('raw')</script>
"""


@pytest.mark.parametrize("name", ["json.rst", "json.rst.txt"])
def test_restructured_text_is_read_without_its_markup(tmp_path, name):
    """reST read raw put its roles and directives into findings (":class:`~asyncio.Barrier`",
    a title ".. _glossary:"); Sphinx's roles and directives are unknown to docutils, which
    would drop what they hold. Its ``.rst.txt`` copies beside built HTML are reST too. A
    document's include and raw directives do not reach the text."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the private key is 1234", encoding="utf-8")
    path = tmp_path / name
    path.write_text(SPHINX_PAGE.replace("{secret}", str(secret)), encoding="utf-8")
    [doc] = _load(path)
    assert doc.title == "json --- JSON encoder and decoder", doc.title
    assert doc.source_type == "rst"
    assert "exposes an API familiar to users of the marshal and\npickle modules" in doc.text
    assert "see the tutorial and JSONEncoder." in doc.text  # as Sphinx shows the references
    assert "dumps(obj, *, indent=None)" in doc.text  # a directive's argument: the signature
    assert "Serialize obj to a JSON formatted str." in doc.text
    assert "All optional parameters are now keyword-only." in doc.text
    for markup in (":mod:", ":class:", ".. ", ":synopsis:", "_json-module", "~json"):
        assert markup not in doc.text, markup
    assert "1234" not in doc.text and "alert" not in doc.text


def test_a_plain_text_file_keeps_what_looks_like_markup(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Run it with :func:`main`.\n\n.. note:: kept as written\n", encoding="utf-8")
    [doc] = _load(path)
    assert doc.text.startswith("Run it with :func:`main`.") and ".. note::" in doc.text


def test_heading_permalinks_are_not_text(tmp_path):
    """Documentation generators end each heading with a link to itself that shows a
    symbol; it ended every title and section heading ("Glossary¶"). A link to a place on
    the page that shows words is text."""
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Glossary — Docs</title></head><body><main>"
        "<h1>Glossary<a class='headerlink' href='#glossary' title='Permalink'>¶</a></h1>"
        "<p>A term is defined once; see <a href='#terms'>the list of terms</a> below.</p>"
        "<h2>Terms<a href='#terms'>#</a></h2><p>Each term has a definition of its own here.</p>"
        "</main></body></html>", encoding="utf-8")
    [doc] = _load(path)
    assert doc.title == "Glossary"
    assert "¶" not in doc.text and "Terms#" not in doc.text
    assert "see the list of terms below" in doc.text


DOCBOOK_PAGE = """<html><head><title>8.2. Configuring the Network</title></head><body>
<div class="section"><div class="titlepage"><div><div><h2 class="title">
<a id="sect.network-config"></a>8.2. Configuring the Network</h2></div></div></div>
<a id="id-1.2" class="indexterm"></a><a id="id-1.3" class="indexterm"></a>
<div class="para">The network is configured during the installation, and the installer writes
the interfaces file that the networking service reads when the machine boots.</div>
<div class="para">A static configuration must indicate network settings in a fixed manner.
This includes at least the IP address and subnet mask of the interface.</div>
<div class="example"><a id="example.static-network"></a><p class="title"><strong>Example 8.2.
Static configuration</strong></p><div class="example-contents"><a id="id-1.4" class="indexterm">
</a><a id="id-1.5" class="indexterm"></a><a id="id-1.6" class="indexterm"></a>
<pre class="programlisting">auto enp0s31f6
iface enp0s31f6 inet static
  address 192.168.0.3/24
  gateway 192.168.0.1</pre></div></div>
<div class="sidebar"><div class="titlepage"><div><div><p class="title"><strong>NOTE Multiple
addresses</strong></p></div></div></div><div class="para">Several IP addresses can be assigned
to a single interface by writing several iface entries for the same device, as described in
<a class="xref" href="sect.dns.html">the section on names</a>.</div></div>
<div class="para">Wireless network cards often need firmware that is not installed by default,
and the wireless network itself relies on a secret key stored in the configuration.</div>
</div>
<div class="sidebar"><ul><li><a href="index.html">Contents</a></li><li><a href="apt.html">APT
</a></li><li><a href="dpkg.html">dpkg tools</a></li><li><a href="sect.dns.html">Names</a></li>
</ul></div>
</body></html>"""


def test_docbook_examples_boxes_and_titles_are_read(tmp_path):
    """trafilatura took a block holding a few empty index-term anchors and a short listing
    for navigation (62 of the Debian Administrator's Handbook's 294 examples were lost) and
    drops every element classed "sidebar", DocBook's boxes of text among them (a third of
    that book). Empty anchors are no text, a sidebar of prose is the page's own; one made
    of links is still navigation. Titles (headings, DocBook's ``p.title``) are recorded as
    such: never a claim, and never split at the period of their number."""
    from research_studio.graph.text_analysis import evidence_units, quotable
    from research_studio.knowledge.structure import CODE, TITLE

    path = tmp_path / "sect.network-config.html"
    path.write_text(DOCBOOK_PAGE, encoding="utf-8")
    [doc] = _load(path)
    assert "iface enp0s31f6 inet static" in doc.text
    assert any(b.kind == CODE and "inet static" in doc.text[b.start:b.end] for b in doc.blocks)
    assert "Several IP addresses can be assigned to a single interface" in doc.text
    assert "dpkg tools" not in doc.text  # the links-only sidebar: navigation
    titles = [" ".join(doc.text[b.start:b.end].split()) for b in doc.blocks if b.kind == TITLE]
    assert "Example 8.2. Static configuration" in titles
    assert "NOTE Multiple addresses" in titles
    units = evidence_units(doc.text, blocks=doc.blocks)
    quoted = [" ".join(u.text.split()) for u in units if quotable(u)]
    assert not any("Static configuration" in q or "Multiple addresses" in q for q in quoted)
    assert "A static configuration must indicate network settings in a fixed manner." in quoted


CODE_PARAGRAPH_PAGE = """<html><head><title>Log Files</title></head><body><div id="page-content">
<h2>Log Rotation</h2>
<p>On even a moderately busy server, the quantity of information stored in the log files is
very large, so it is necessary to rotate the log files from time to time by moving or
deleting the existing logs. A typical scenario that rotates the logs is:</p>
<div class="example"><p><code>
  mv access_log access_log.old<br>
  mv error_log error_log.old<br>
  apachectl graceful
</code></p></div>
<p>Another way to perform log rotation is using <code>piped logs</code>, which the next
section describes, so that the server never has to be restarted at all.</p>
<h2>Synopsis</h2>
<p><code><strong>rotatelogs</strong>
    [ -l ] [ -f ] <var>logfile</var></code></p>
<p>The rotatelogs program reads the log from its standard input and writes it to files that
it opens and closes by time or by size, as its options say.</p>
</div></body></html>"""


def test_a_paragraph_of_nothing_but_code_is_a_code_block(tmp_path):
    """The Apache manual writes its examples as code broken into lines by ``<br>`` inside a
    paragraph; read as text, the commands ran into one line that was quoted as a sentence.
    Such a paragraph is code with its lines; code inside a sentence stays the sentence's."""
    from research_studio.graph.text_analysis import evidence_units, quotable
    from research_studio.knowledge.structure import CODE

    path = tmp_path / "logs.html"
    path.write_text(CODE_PARAGRAPH_PAGE, encoding="utf-8")
    [doc] = _load(path)
    code = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == CODE]
    assert len(code) == 2, code
    assert "mv access_log access_log.old\nmv error_log error_log.old\napachectl graceful" in code[0]
    assert "rotatelogs [ -l ] [ -f ] logfile" in code[1]
    quoted = [" ".join(u.text.split()) for u in evidence_units(doc.text, blocks=doc.blocks)
              if quotable(u)]
    assert not any("mv error_log" in q or "[ -l ]" in q for q in quoted)
    assert any(q.startswith("Another way to perform log rotation is using piped logs, which")
               for q in quoted)


SECTIONED_PAGE = """<html><head><title>6.2. Package commands</title></head><body>
<div class="navheader"><a href="prev.html">Prev</a> <a href="next.html">Next</a></div>
<div class="section"><div class="titlepage"><div><div><h2 class="title">
<a id="sect.apt"></a>6.2. Package commands</h2></div></div></div>
<div class="para">APT is a vast project whose original plans included a graphical interface,
and its command-line front ends are the ones most administrators use every day.</div>
<div class="section"><div class="titlepage"><div><div><h3 class="title" id="_share_lists">
6.2.1. Initialization</h3></div></div></div>
<div class="para">For any work with APT, the list of available packages needs to be updated
first; the operation can take a while on a slow connection.</div>
<div class="note"><h4 class="title">Note</h4><p>The update reads every source listed in the
configuration, so an unreachable mirror slows it down.</p></div>
<div class="para">The <code>apt</code> command prints the lists it read; <code>apt</code> is
also the command that upgrades the packages once their lists are current. It accepts these
answers for "yes":</div><table border="0" summary="Simple list" class="simplelist"><tr><td>
<code class="literal">yes</code></td></tr><tr><td><code class="literal">y</code></td></tr>
</table></div>
<div class="section"><div class="titlepage"><div><div><h3 class="title" id="_authors_notes">
6.2.2. Installing and Removing</h3></div></div></div>
<div class="para">Installing a package pulls in its dependencies, and removing it leaves its
configuration files behind unless they are purged as well.</div></div>
<div class="section"><div class="titlepage"><div><div><h3 class="title">See Also</h3>
</div></div></div><ul><li><a href="dpkg.html">dpkg</a></li><li><a href="aptitude.html">
aptitude</a></li><li><a href="synaptic.html">synaptic</a></li></ul></div>
</div>
<div class="sidebar"><h4>Previous topic</h4><p><a href="prev.html">Basic Commands</a></p>
<h4>Next topic</h4><p><a href="next.html">Searching</a></p></div>
</body></html>"""


def test_section_headings_nested_in_blocks_are_kept(tmp_path):
    """trafilatura reads a page without a recognisable content frame (DocBook's, Publican's)
    from its paragraphs and drops headings wrapped in blocks of their own (DocBook's
    ``titlepage`` divs): most section headings of the PostgreSQL manual and nearly all of
    the Debian Administrator's Handbook's were lost. Each is kept, as a title before its
    section's text, whatever its anchor id says; a heading whose content is gone (a
    sidebar's, one over a list of links) names nothing and is left out."""
    from research_studio.knowledge.structure import TITLE

    path = tmp_path / "sect.apt.html"
    path.write_text(SECTIONED_PAGE, encoding="utf-8")
    [doc] = _load(path)
    titles = [" ".join(doc.text[b.start:b.end].split()) for b in doc.blocks if b.kind == TITLE]
    assert titles == ["6.2. Package commands", "6.2.1. Initialization", "Note",
                      "6.2.2. Installing and Removing"]
    initialization = doc.text.index("6.2.1. Initialization")
    assert doc.text.index("APT is a vast project") < initialization \
        < doc.text.index("For any work with APT")
    assert "Previous topic" not in doc.text and "See Also" not in doc.text
    # a repeated inline command does not take the rest of its sentence with it; a table
    # of code values is still a table
    assert "is also the command that upgrades the packages" in doc.text
    assert "yes\ny" in doc.text


def test_a_passage_knows_its_section_and_anchor(tmp_path):
    """A citation of a long page names the section the quoted text stands under and the
    anchor that opens the page there: the heading's own id, an empty anchor inside it
    (DocBook), or the id of the section element it opens. A box's heading covers the box
    only; the text after it is its section's again."""
    from research_studio.knowledge.sections import section_at

    path = tmp_path / "sect.apt.html"
    path.write_text(SECTIONED_PAGE, encoding="utf-8")
    [doc] = _load(path)
    assert [(s.title, s.level, s.anchor) for s in doc.sections] == [
        ("6.2. Package commands", 2, "sect.apt"), ("6.2.1. Initialization", 3, "_share_lists"),
        ("Note", 4, ""), ("6.2.2. Installing and Removing", 3, "_authors_notes")]

    def section_of(needle: str) -> str:
        found = section_at(doc.sections, doc.text.index(needle))
        return found.title if found else ""

    assert section_of("APT is a vast project") == "6.2. Package commands"
    assert section_of("For any work with APT") == "6.2.1. Initialization"
    assert section_of("an unreachable mirror") == "Note"
    assert section_of("prints the lists it read") == "6.2.1. Initialization"
    assert section_of("Installing a package pulls in") == "6.2.2. Installing and Removing"
    # a chunk opening with the end of the section before (its overlap) is the next one's
    heading = doc.text.index("6.2.2. Installing")
    assert section_at(doc.sections, heading - 40, lookahead=60).title \
        == "6.2.2. Installing and Removing"
    assert section_at(doc.sections, heading - 40).title == "6.2.1. Initialization"


def test_markdown_headings_are_sections(tmp_path):
    """A Markdown file's headings, written either way, are its sections, each at the
    characters of its name in the text; a table rewritten as rows before one moves it
    with the text."""
    path = tmp_path / "guide.md"
    path.write_text("# Guide\n\nIntro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Install it\n\n"
                    "Run the installer.\n\nUsage notes\n-----------\n\nCall it.\n",
                    encoding="utf-8")
    [doc] = _load(path)
    assert [(s.title, s.level) for s in doc.sections] == [
        ("Guide", 1), ("Install it", 2), ("Usage notes", 2)]
    assert all(doc.text[s.start:s.end] == s.title for s in doc.sections)


def test_plain_text_headings_are_underlined_lines(tmp_path):
    """A plain-text file's headings are lines over a rule about as long as them ("="
    or "-"): sections at their names, and title blocks never quoted as claims. A "#"
    comment, a paragraph over a short separator, a line over a page-wide rule and a rule
    after a blank line are not."""
    from research_studio.knowledge.structure import CODE, TITLE

    path = tmp_path / "POSIX"
    path.write_text("6.11 Bash POSIX Mode\n====================\n\nStarting Bash with --posix "
                    "changes its behaviour.\n\n# set -o posix in a startup file\n\n"
                    "Makefile.am | 8 +-\nTODO | 3 +-\n---\n\nSeparated text.\n\n-----\n\n"
                    "a.  `readarray' is now a synonym for `mapfile'.\n" + "-" * 78 + "\n"
                    "```\nset -o posix\n```\n\nStartup files\n------------\n\nRead after.\n",
                    encoding="utf-8")
    [doc] = _load(path)
    assert [(s.title, s.level) for s in doc.sections] == [("6.11 Bash POSIX Mode", 1),
                                                          ("Startup files", 2)]
    assert all(doc.text[s.start:s.end] == s.title for s in doc.sections)
    titles = [doc.text[b.start:b.end] for b in doc.blocks if b.kind == TITLE]
    assert titles == ["6.11 Bash POSIX Mode\n====================", "Startup files\n------------"]
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.kind == CODE] == ["```\nset -o posix\n```"]
    (tmp_path / "notes.txt").write_text("Notes without headings.\n\n# not a heading\n", encoding="utf-8")
    [plain] = _load(tmp_path / "notes.txt")
    assert (plain.sections, plain.blocks) == ([], None), "read for fences when searched, as before"



def test_a_first_line_is_a_title_when_it_stands_alone(tmp_path):
    """A heading, or a line alone before a blank line or an underline, titles its file;
    the first line of a paragraph does not, and the file's name does instead."""
    cases = {"guide.md": ("# Guide\nText right after the heading.\n", "Guide"),
             "tides.txt": ("Tides\n\nOcean tides are caused by the Moon.\n", "Tides"),
             "intro.txt": ("Introduction\n============\nRead on.\n", "Introduction"),
             "news.txt": ("This is a terse description of the new features added\n"
                          "since the last release.\n", "news")}
    for name, (text, title) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        [doc] = _load(tmp_path / name)
        assert doc.title == title, (name, doc.title)
