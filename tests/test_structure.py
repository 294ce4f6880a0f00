"""Structure-aware ingestion: tables become row statements, code and synopses fenced
blocks, recorded with exact offsets; evidence extraction quotes rows as units and never
takes code for prose or a chunk-cut sentence for a whole one."""

from collections import OrderedDict
from pathlib import Path

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.findings import extractive_findings, whole_units
from research_studio.graph.nodes.trust import locate_quote
from research_studio.graph.text_analysis import evidence_units, quotable
from research_studio.knowledge.documents import LoadedDocument, load_file
from research_studio.knowledge.structure import (
    CODE,
    ROW,
    TABLE,
    TERM,
    TITLE,
    ChunkCuts,
    Definition,
    TextBlock,
    blocks_from_json,
    blocks_json,
    definition_rows,
    definitions_from_json,
    definitions_json,
    find_blocks,
    following_list,
    sentences,
    table_statements,
    term_at,
)

LIMITS = {"max_bytes": 1_000_000, "max_chars": 1_000_000}
PG_HTML = Path("/usr/share/doc/postgresql-doc-15/html")

# modelled on PostgreSQL 15's transaction-iso.html: the table of Table 13.1 as the manual
# writes it (thead, a centred header, <code> in cells) inside enough prose to be content
ISOLATION_PAGE = """<html><head><title>Transaction Isolation</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr>
<td><a href="mvcc-intro.html">Prev</a></td><td><a href="mvcc.html">Up</a></td></tr></table></div>
<div class="sect1"><h2 class="title">13.2. Transaction Isolation</h2>
<p>The SQL standard defines four levels of transaction isolation. The most strict is
Serializable, which is defined by the standard in a paragraph which says that any concurrent
execution of a set of Serializable transactions is guaranteed to produce the same effect as
running them one at a time in some order.</p>
<p>The SQL standard and PostgreSQL-implemented transaction isolation levels are described
in Table 13.1.</p>
<div class="table" id="MVCC-ISOLEVEL-TABLE"><p class="title"><strong>Table 13.1. Transaction
Isolation Levels</strong></p><div class="table-contents"><table class="table"
summary="Transaction Isolation Levels" border="1"><colgroup><col /><col /><col /><col /><col />
</colgroup><thead><tr><th>Isolation Level</th><th>Dirty Read</th><th>Nonrepeatable Read</th>
<th>Phantom Read</th><th>Serialization Anomaly</th></tr></thead><tbody>
<tr><td>Read uncommitted</td><td>Allowed, but not in PG</td><td>Possible</td><td>Possible</td>
<td>Possible</td></tr>
<tr><td>Read committed</td><td>Not possible</td><td>Possible</td><td>Possible</td>
<td>Possible</td></tr>
<tr><td>Repeatable read</td><td>Not possible</td><td>Not possible</td>
<td>Allowed, but not in PG</td><td>Possible</td></tr>
<tr><td>Serializable</td><td>Not possible</td><td>Not possible</td><td>Not possible</td>
<td>Not possible</td></tr></tbody></table></div></div>
<p>In PostgreSQL, you can request any of the four standard transaction isolation levels,
but internally only three distinct isolation levels are implemented, i.e., PostgreSQL's
Read Uncommitted mode behaves like Read Committed.</p>
<p>The table also shows that PostgreSQL's Repeatable Read implementation does not allow
phantom reads. This is acceptable under the SQL standard because the standard specifies
which anomalies must not occur at certain isolation levels.</p></div></body></html>"""

READ_COMMITTED = ("Read committed — Dirty Read: Not possible; Nonrepeatable Read: Possible; "
                  "Phantom Read: Possible; Serialization Anomaly: Possible")

# modelled on sql-vacuum.html: a refsynopsisdiv with a <pre class="synopsis">, whose
# placeholders are <em class="replaceable"><code>…</code></em>
TABLE_AND_COLUMNS = '<em class="replaceable"><code>table_and_columns</code></em>'
VACUUM_PAGE = f"""<html><head><title>VACUUM</title></head><body><div class="refentry">
<div class="refnamediv"><h2>VACUUM</h2><p>VACUUM — garbage-collect and optionally analyze
a database</p></div>
<div class="refsynopsisdiv"><h2>Synopsis</h2><pre class="synopsis">
VACUUM [ ( <em class="replaceable"><code>option</code></em> [, ...] ) ] [ {TABLE_AND_COLUMNS} [, ...] ]
VACUUM [ FULL ] [ FREEZE ] [ VERBOSE ] [ ANALYZE ] [ {TABLE_AND_COLUMNS} [, ...] ]

<span class="phrase">where <em class="replaceable"><code>option</code></em> can be one of:</span>

    FULL [ <em class="replaceable"><code>boolean</code></em> ]
    FREEZE [ <em class="replaceable"><code>boolean</code></em> ]
</pre></div>
<div class="refsect1"><h2>Description</h2><p><code class="command">VACUUM</code> reclaims
storage occupied by dead tuples. In normal PostgreSQL operation, tuples that are deleted or
obsoleted by an update are not physically removed from their table; they remain present
until a <code class="command">VACUUM</code> is done.</p>
<p>Plain <code class="command">VACUUM</code> (without <code class="literal">FULL</code>)
simply reclaims space and makes it available for re-use. <code class="command">VACUUM
FULL</code> rewrites the entire contents of the table into a new disk file with no extra
space, allowing unused space to be returned to the operating system.</p></div>
<div class="refsect1"><h2>Examples</h2><p>To clean a single table, analyze it for the
optimizer and print a detailed vacuum activity report:</p>
<pre class="programlisting">
VACUUM (VERBOSE, ANALYZE) onek;
</pre></div></div></body></html>"""

MARKDOWN = """# Isolation levels

PostgreSQL implements three distinct isolation levels.

| Isolation Level | Dirty Read | Phantom Read |
|-----------------|------------|--------------|
| Read committed  | Not possible | `Possible` |
| Serializable    | Not possible | Not possible |

Run the command below to vacuum a table and print a report.

```sql
VACUUM [ FULL ] [ FREEZE ] [ VERBOSE ] [ ANALYZE ] [ table_and_columns [, ...] ]
```

The end of the page says nothing more about vacuuming at all.
"""


def _load(path: Path) -> LoadedDocument:
    [doc] = list(load_file(path, **LIMITS))
    assert isinstance(doc, LoadedDocument), doc
    return doc


def _block_texts(doc: LoadedDocument, kind: str) -> list[str]:
    return [doc.text[b.start:b.end] for b in doc.blocks or [] if b.kind == kind]


def _retrieved(doc: LoadedDocument, query: str) -> Retrieved:
    """The whole document as one stored span, with its blocks and definition list entries
    as a chunk records them."""
    source = {"source_id": "kb:t:c1", "kind": "kb", "title": doc.title, "text": doc.text,
              "start": 0, "lead": 0, "tail": 0,
              "blocks": [[b.start, b.end, b.kind] for b in doc.blocks or []],
              "terms": definition_rows(doc.definitions, 0, len(doc.text))}
    return Retrieved(source, 0, query)


def _sub_question(text: str) -> dict:
    return {"sub_question_id": "sq_001", "question_text": text, "queries_done": []}


# ---- HTML ------------------------------------------------------------------------------------
def test_html_table_rows_become_statements_quoted_as_units(tmp_path):
    path = tmp_path / "transaction-iso.html"
    path.write_text(ISOLATION_PAGE, encoding="utf-8")
    doc = _load(path)
    rows = _block_texts(doc, ROW)
    assert rows == [
        "Read uncommitted — Dirty Read: Allowed, but not in PG; Nonrepeatable Read: Possible; "
        "Phantom Read: Possible; Serialization Anomaly: Possible",
        READ_COMMITTED,
        "Repeatable read — Dirty Read: Not possible; Nonrepeatable Read: Not possible; "
        "Phantom Read: Allowed, but not in PG; Serialization Anomaly: Possible",
        "Serializable — Dirty Read: Not possible; Nonrepeatable Read: Not possible; "
        "Phantom Read: Not possible; Serialization Anomaly: Not possible"]
    assert f"\n{READ_COMMITTED}\n" in doc.text  # one row a line
    assert "|" not in doc.text and "Prev" not in doc.text  # no pipe rows, no navigation
    # prose stays prose, in its own paragraphs
    assert "Read Uncommitted mode behaves like Read Committed." in doc.text
    units = evidence_units(doc.text, blocks=doc.blocks)
    row_units = [u for u in units if u.kind == ROW]
    assert [u.text for u in row_units] == rows and all(quotable(u) for u in row_units)
    [finding, *_] = extractive_findings(
        _sub_question("Is a nonrepeatable read possible at Read committed isolation?"),
        [_retrieved(doc, "read committed nonrepeatable read")], 0, ResearchConfig())
    assert finding["quote"] == READ_COMMITTED
    assert doc.text[finding["quote_start"]:finding["quote_end"]] == READ_COMMITTED
    located = locate_quote(finding["quote"], doc.text, 0.9)
    assert (located["method"], located["start"]) == ("exact", finding["quote_start"])


def test_html_synopsis_and_code_are_fenced_blocks_never_claims(tmp_path):
    path = tmp_path / "sql-vacuum.html"
    path.write_text(VACUUM_PAGE, encoding="utf-8")
    doc = _load(path)
    synopsis, example = _block_texts(doc, CODE)
    assert synopsis == (
        "```\n"
        "VACUUM [ ( option [, ...] ) ] [ table_and_columns [, ...] ]\n"
        "VACUUM [ FULL ] [ FREEZE ] [ VERBOSE ] [ ANALYZE ] [ table_and_columns [, ...] ]\n"
        "\n"
        "where option can be one of:\n"
        "\n"
        "    FULL [ boolean ]\n"
        "    FREEZE [ boolean ]\n"
        "```")
    assert example == "```\nVACUUM (VERBOSE, ANALYZE) onek;\n```"
    assert f"\n\n{synopsis}\n\n" in doc.text
    units = evidence_units(doc.text, blocks=doc.blocks)
    assert [u.text for u in units if u.kind == CODE] == [synopsis, example]
    assert not any("[ FULL ]" in u.text for u in units if u.kind != CODE)
    question = "What do VACUUM FULL, FREEZE, VERBOSE and ANALYZE options do?"
    findings = extractive_findings(_sub_question(question),
                                   [_retrieved(doc, "vacuum full freeze verbose analyze")], 0,
                                   ResearchConfig(findings_per_result=5))
    assert findings and not any("[" in f["quote"] or "```" in f["quote"] for f in findings)
    assert any("FULL rewrites the entire contents" in f["quote"] for f in findings)


def test_html_code_with_markup_inside_keeps_its_words_in_order(tmp_path):
    """DocBook writes an option with its argument as code inside code ("-n schema"); the
    text reads as the page does, not with the argument moved after the next words."""
    page = ("<html><body><article><p>If you do not have sufficient privileges to back up the "
            "entire database, you can still back up portions of the database to which you do "
            "have access using options such as <code class=\"option\">-n <em class=\"replaceable\">"
            "<code>schema</code></em></code> or <code class=\"option\">-t <em class=\"replaceable\">"
            "<code>table</code></em></code>.</p><p>To specify which database server pg_dump should "
            "contact, use the command line options -h host and -p port.</p></article></body></html>")
    path = tmp_path / "backup-dump.html"
    path.write_text(page, encoding="utf-8")
    text = " ".join(_load(path).text.split())
    assert "options such as -n schema or -t table." in text


def test_html_header_rows_and_spans_name_every_column(tmp_path):
    """A two-row header with rowspan and colspan (explicit-locking.html's conflict table)."""
    page = ("<html><body><article><p>Conflicting lock modes are shown in the table below, "
            "which lists for each requested mode the modes it conflicts with.</p>"
            "<table><thead><tr><th rowspan='2'>Requested Lock Mode</th>"
            "<th colspan='2'>Existing Lock Mode</th></tr>"
            "<tr><th>ROW SHARE</th><th>EXCLUSIVE</th></tr></thead><tbody>"
            "<tr><td>ROW SHARE</td><td> </td><td>X</td></tr>"
            "<tr><td>EXCLUSIVE</td><td>X</td><td>X</td></tr></tbody></table>"
            "<p>Two transactions cannot hold locks of conflicting modes on the same table "
            "at the same time.</p></article></body></html>")
    path = tmp_path / "locks.html"
    path.write_text(page, encoding="utf-8")
    assert _block_texts(_load(path), ROW) == [
        "ROW SHARE — Existing Lock Mode EXCLUSIVE: X",
        "EXCLUSIVE — Existing Lock Mode ROW SHARE: X; Existing Lock Mode EXCLUSIVE: X"]


def test_a_layout_table_keeps_its_prose(tmp_path):
    """A table that lays out a page (a cell holding paragraphs and another table) is not
    data: its text is read as prose, not run together into row statements."""
    article = " ".join(f"Lighthouse keepers trimmed the wicks of the lamps every night {i}."
                       for i in range(40))
    page = (f"<html><body><table><tr><td><p>{article}</p><table><tr><td>Home</td>"
            f"<td>News</td></tr></table></td><td>Menu</td></tr></table></body></html>")
    path = tmp_path / "layout.html"
    path.write_text(page, encoding="utf-8")
    doc = _load(path)
    assert "trimmed the wicks of the lamps every night 7." in doc.text
    assert not any("wicks" in row for row in _block_texts(doc, ROW))
    assert any(u.text.startswith("Lighthouse keepers trimmed") and quotable(u)
               for u in evidence_units(doc.text, blocks=doc.blocks))


@pytest.mark.skipif(not (PG_HTML / "transaction-iso.html").exists(),
                    reason="PostgreSQL 15 manual not installed")
def test_the_real_postgresql_pages():
    iso = _load(PG_HTML / "transaction-iso.html")
    assert READ_COMMITTED in _block_texts(iso, ROW)
    assert not any(line.lstrip().startswith("|") for line in iso.text.splitlines())
    vacuum = _load(PG_HTML / "sql-vacuum.html")
    [synopsis, *_] = _block_texts(vacuum, CODE)
    assert synopsis.startswith("```\nVACUUM [ ( option [, ...] ) ]")
    assert "    INDEX_CLEANUP { AUTO | ON | OFF }\n" in synopsis
    settings = _load(PG_HTML / "runtime-config-resource.html")
    for needle, term in [("The default value is four megabytes", "work_mem (integer)"),
                         ("The default value is 2.0", "hash_mem_multiplier (floating point)")]:
        start = settings.text.index(needle)
        assert term_at(settings.definitions, start, start + len(needle)) == term
    # the page's blocks are paragraphs of the text, its source's line wrapping is not kept:
    # a reference page's name line, synopsis and description are three units, not one
    # sentence, under their headings
    dump = _load(PG_HTML / "app-pgdump.html")
    units = [u.text for u in evidence_units(dump.text, blocks=dump.blocks)]
    wanted = ["pg_dump — extract a PostgreSQL database into a script file or other archive file",
              "Synopsis", "pg_dump [connection-option...] [option...] [dbname]",
              "Description", "pg_dump is a utility for backing up a PostgreSQL database."]
    first = units.index(wanted[0])
    assert units[first:first + len(wanted)] == wanted
    # a title with code in it reads as written (trafilatura spaces out inline elements)
    assert _load(PG_HTML / "queries-union.html").title \
        == "7.4. Combining Queries (UNION, INTERSECT, EXCEPT)"
    # a table of code values, and a reference page's parameters, read with the headings
    assert "true\nyes\non\n1" in _load(PG_HTML / "datatype-boolean.html").text
    declare = _load(PG_HTML / "ecpg-sql-declare.html")
    assert "cursor_name" in declare.text and "Parameters" in declare.text
    assert [(s.title, s.anchor) for s in dump.sections][:3] == [
        ("pg_dump", "APP-PGDUMP"), ("Synopsis", ""), ("Description", "PG-DUMP-DESCRIPTION")]
    restore = _load(PG_HTML / "backup-dump.html")
    assert "\n" not in next(u.text for u in evidence_units(restore.text, blocks=restore.blocks)
                            if u.text.startswith("Text files created by pg_dump are intended"))


# ---- Markdown and DOCX -----------------------------------------------------------------------
def test_markdown_pipe_table_becomes_rows_and_fenced_code_is_kept(tmp_path):
    path = tmp_path / "isolation.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    doc = _load(path)
    assert doc.text == MARKDOWN.replace(
        "| Isolation Level | Dirty Read | Phantom Read |\n"
        "|-----------------|------------|--------------|\n"
        "| Read committed  | Not possible | `Possible` |\n"
        "| Serializable    | Not possible | Not possible |\n",
        "Read committed — Dirty Read: Not possible; Phantom Read: Possible\n"
        "Serializable — Dirty Read: Not possible; Phantom Read: Not possible\n")
    assert _block_texts(doc, ROW) == [
        "Read committed — Dirty Read: Not possible; Phantom Read: Possible",
        "Serializable — Dirty Read: Not possible; Phantom Read: Not possible"]
    fence = ("```sql\nVACUUM [ FULL ] [ FREEZE ] [ VERBOSE ] [ ANALYZE ] "
             "[ table_and_columns [, ...] ]\n```")
    assert _block_texts(doc, CODE) == [fence]
    units = evidence_units(doc.text, blocks=doc.blocks)
    assert [(u.kind, u.text[:22]) for u in units] == [  # the heading is too short a unit
        ("prose", "PostgreSQL implements "),
        (ROW, "Read committed — Dirty"), (ROW, "Serializable — Dirty R"),
        ("prose", "Run the command below "), (CODE, "```sql\nVACUUM [ FULL ]"),
        ("prose", "The end of the page sa")]
    assert all(doc.text[u.start:u.end] == u.text for u in units)


def test_markdown_without_tables_or_code_is_unchanged(tmp_path):
    text = "# Tides\n\nTides rise twice a day.\n\n    indented code\n\nThe Moon pulls.\n"
    path = tmp_path / "tides.md"
    path.write_text(text, encoding="utf-8")
    doc = _load(path)
    assert doc.text == text
    assert _block_texts(doc, CODE) == ["indented code"]


def test_docx_tables_become_row_statements(tmp_path):
    import docx

    document = docx.Document()
    document.add_paragraph("Storage sizes of the integer types.")
    table = document.add_table(rows=3, cols=3)
    for row, cells in zip(table.rows, [("Name", "Storage Size", "Range"),
                                       ("smallint", "2 bytes", "-32768 to +32767"),
                                       ("integer", "4 bytes", "-2147483648 to +2147483647")],
                          strict=True):
        for cell, value in zip(row.cells, cells, strict=True):
            cell.text = value
    document.add_paragraph("The type integer is the common choice.")
    path = tmp_path / "types.docx"
    document.save(path)
    doc = _load(path)
    assert doc.text == ("Storage sizes of the integer types.\n\n"
                        "smallint — Storage Size: 2 bytes; Range: -32768 to +32767\n"
                        "integer — Storage Size: 4 bytes; Range: -2147483648 to +2147483647\n\n"
                        "The type integer is the common choice.")
    assert len(_block_texts(doc, ROW)) == 2


# ---- structure in text without a record, chunk cuts -------------------------------------------
def test_fences_and_pipe_tables_are_found_in_text_without_a_record():
    """Chunks stored before ingestion recorded blocks: their text still shows them."""
    text = ("Table 13.1. Transaction Isolation Levels\n"
            "| Isolation Level | Dirty Read | \n|---|---|\n| Read committed | Not possible | \n"
            "In PostgreSQL, you can request any of the four standard isolation levels.\n\n"
            "```\nVACUUM [ FULL ] [ FREEZE ] [ VERBOSE ]\n```\n\nThe end of the text here.")
    kinds = [(b.kind, text[b.start:b.end][:5]) for b in find_blocks(text)]
    assert kinds == [(TABLE, "| Iso"), (CODE, "```\nV")]
    units = evidence_units(text)
    assert [u.text for u in units if quotable(u)] == [
        "In PostgreSQL, you can request any of the four standard isolation levels.",
        "The end of the text here."]
    unclosed = "Intro sentence before the code starts.\n\n```\nVACUUM [ FULL ]\nVACUUM [ FREEZE ]"
    assert [b.kind for b in find_blocks(unclosed)] == [CODE]  # a chunk ends inside a fence


def test_table_statements_without_header_and_of_one_column():
    assert table_statements([(["a", "b"], False), (["c", ""], False)]) == ["a; b", "c"]
    # a key-value table without a header: the key's own colon labels its value
    assert table_statements([(["Status:", "Base"], False), (["Source File:", "mod_x.c", "C"], False)]) \
        == ["Status: Base", "Source File: mod_x.c; C"]
    assert table_statements([(["Function"], True), (["lower(text)", ], False)]) == ["lower(text)"]
    assert table_statements([(["", "Min", "Max"], True), (["int2", "-32768", "32767"], False)]) \
        == ["int2 — Min: -32768; Max: 32767"]


def test_blocks_round_trip_through_chunk_metadata():
    blocks = [TextBlock(5, 20, ROW), TextBlock(30, 90, CODE)]
    assert blocks_from_json(blocks_json(blocks, 10, 50)) == [TextBlock(0, 10, ROW),
                                                               TextBlock(20, 40, CODE)]
    assert blocks_from_json(None) is None and blocks_from_json("not json") is None


def test_chunk_cuts_mark_the_sentence_pieces_at_both_ends():
    text = ("One whole sentence stands here first. The second sentence is cut by the chunk "
            "boundary. A third sentence is whole. The fourth one ends the text after the cut.")
    cuts = ChunkCuts(text)
    start = text.index("sentence is cut")
    end = text.index(" the text after")
    lead, tail = cuts.at(start, end)
    chunk = text[start:end]
    assert chunk[:lead] == "sentence is cut by the chunk boundary."
    assert chunk[len(chunk) - tail:] == "The fourth one ends"
    assert cuts.at(0, len(text)) == (0, 0)
    source = {"text": chunk, "start": start, "lead": lead, "tail": tail}
    assert [u.text for u in whole_units(source)] == ["A third sentence is whole."]


def test_a_chunk_stored_without_cut_offsets_drops_its_first_sentence_unless_it_opens_the_document():
    text = "continues a sentence from the chunk before it. Tides rise twice a day in every ocean."
    later = {"source_id": "kb:t:c2", "kind": "kb", "title": "Tides", "text": text, "start": 750}
    assert [u.text for u in whole_units(later)] == ["Tides rise twice a day in every ocean."]
    first = {**later, "start": 0}
    assert len(whole_units(first)) == 2


def test_text_that_resumes_a_sentence_after_its_code_is_no_unit_of_its_own():
    text = ("Materialized views persist the results in a table-like form. The main "
            "differences between:\n\n```\nCREATE MATERIALIZED VIEW v AS SELECT * FROM t;\n```"
            "\n\nand:\n\n```\nCREATE TABLE v AS SELECT * FROM t;\n```\n\nare that the "
            "materialized view cannot subsequently be directly updated.\n\nTo get out of "
            "psql, type:\n\n```\n\\q\n```\n\nand psql will quit and return you to your "
            "shell.\n\nSynopsis:\n\n```\npg_dump [option...] [dbname]\n```\n\n"
            "pg_dump is a utility for backing up a database. You can create a lightweight "
            "tag with\n\n```\n$ git tag my-first-tag\n```\n\nwhich just writes the "
            "current HEAD into a file.\n\nDump a database:\n\n```\n$ pg_dump mydb\n```"
            "\n\nThe output is plain SQL.")
    source = {"source_id": "kb:t:c1", "kind": "kb", "title": "Views", "text": text, "start": 0,
              "lead": 0, "tail": 0}
    prose = [u.text for u in whole_units(source) if u.kind == "prose"]
    # the parts after the code begin mid-sentence; the parts before it announce their code
    assert not any(t.startswith(("and", "are that", "which")) for t in prose), prose
    assert "The output is plain SQL." in prose  # after a sentence's end, a new one
    assert "To get out of psql, type:" in prose and "The main differences between:" in prose
    # a sentence opening with a name written in lower case starts a sentence
    assert "pg_dump is a utility for backing up a database." in prose


def test_a_model_quote_inside_a_code_block_is_quoted_as_the_block():
    import asyncio
    import json

    from research_studio.config import ModelSettings, ModelSpec, WebSettings
    from research_studio.graph.deps import ResearchDeps
    from research_studio.graph.nodes.findings import llm_findings
    from research_studio.models.coordinator import ModelCoordinator
    from tests.conftest import scripted

    block = "```\nVACUUM [ FULL ] [ FREEZE ] [ VERBOSE ]\nVACUUM (VERBOSE, ANALYZE) onek;\n```"
    text = f"VACUUM reclaims storage occupied by dead tuples.\n\n{block}\n\nThe end of the page."
    source = {"source_id": "kb:t:c1", "kind": "kb", "title": "VACUUM", "text": text,
              "start": 0, "lead": 0, "tail": 0,
              "blocks": [[text.index(block), text.index(block) + len(block), CODE]]}
    reply = json.dumps({"findings": [{"statement": "VACUUM takes FULL, FREEZE and VERBOSE.",
                                      "quote": "VACUUM [ FULL ] [ FREEZE ]", "source_number": 1}]})
    coordinator = ModelCoordinator(ModelSettings(models={"embedded": ModelSpec(capability="strong")}),
                                   chat_models={"embedded": scripted(reply)})
    deps = ResearchDeps(coordinator=coordinator, kb=None, web=WebSettings(provider="none"))
    [finding] = asyncio.run(llm_findings(deps, _sub_question("What options does VACUUM take?"),
                                         [Retrieved(source, 0, "vacuum options")], 0,
                                         ResearchConfig()))
    assert finding["quote"] == block
    assert text[finding["quote_start"]:finding["quote_end"]] == block
    # a model's quote that announces the block carries it as its example, as offline
    announced = text.replace("dead tuples.", "dead tuples, with these options:")
    reply = json.dumps({"findings": [{"statement": "VACUUM reclaims the storage of dead tuples.",
                                      "quote": "VACUUM reclaims storage occupied by dead tuples, "
                                               "with these options:", "source_number": 1}]})
    coordinator = ModelCoordinator(ModelSettings(models={"embedded": ModelSpec(capability="strong")}),
                                   chat_models={"embedded": scripted(reply)})
    deps = ResearchDeps(coordinator=coordinator, kb=None, web=WebSettings(provider="none"))
    shifted = len(announced) - len(text)
    [finding] = asyncio.run(llm_findings(
        deps, _sub_question("What options does VACUUM take?"),
        [Retrieved({**source, "text": announced,
                    "blocks": [[s + shifted, e + shifted, k] for s, e, k in source["blocks"]]},
                   0, "vacuum options")], 0, ResearchConfig()))
    assert finding["example"] == block.split("\n", 1)[1].rsplit("\n", 1)[0]


# modelled on a Git manual page's option list (a definition list of options)
OPTIONS_PAGE = """<html><head><title>git-pull(1)</title></head><body>
<h2>OPTIONS</h2>
<dl>
<dt>--commit</dt><dt>--no-commit</dt>
<dd><p>Perform the merge and commit the result. This is the default when no method for
reconciling divergent histories is provided.</p></dd>
<dt>--ff</dt><dt>--no-ff</dt>
<dd><p>When merging rather than rebasing, specifies how a merge is handled when the
merged-in history is already a descendant of the current history.</p></dd>
</dl></body></html>"""


def test_a_full_stop_inside_a_sentence_does_not_end_it():
    text = ("The Hobbit was written by J. R. R. Tolkien and reached No. 1 in the U.S. charts. "
            "Its sequel was decided in United States v. Hudson by Dr. Seuss. It sold well.")
    assert [s.text for s in sentences(text, min_chars=1)] == [
        "The Hobbit was written by J. R. R. Tolkien and reached No. 1 in the U.S. charts.",
        "Its sequel was decided in United States v. Hudson by Dr. Seuss.",
        "It sold well.",
    ]


def test_paragraphs_and_list_items_end_sentences_whatever_the_model_says():
    text = "Set it to Dr.\n\nNo. 5 is the default.\n- Use it for tests.\n- Use it alone."
    assert [s.text for s in sentences(text, min_chars=1)] == [
        "Set it to Dr.", "No. 5 is the default.", "Use it for tests.", "Use it alone."]


@pytest.mark.parametrize("missing", ["model", "room"])
def test_without_the_sentence_model_every_full_stop_before_a_capital_ends_one(monkeypatch,
                                                                             missing):
    """When the model is not installed, or the paragraph is too long for it to read."""
    from research_studio.knowledge import sentence_model

    if missing == "model":
        monkeypatch.setattr(sentence_model, "segmenter", lambda: None)
    else:
        monkeypatch.setattr(sentence_model, "MAX_PARAGRAPH_CHARS", 20)
    monkeypatch.setattr(sentence_model, "_cache", OrderedDict())
    text = "It was written by J. K. Rowling in Edinburgh. It sold well."
    assert [s.text for s in sentences(text, min_chars=1)] == [
        "It was written by J.", "K.", "Rowling in Edinburgh.", "It sold well."]


def test_a_sentence_ends_before_the_next_item_of_an_option_list(tmp_path):
    path = tmp_path / "git-pull.html"
    path.write_text(OPTIONS_PAGE, encoding="utf-8")
    doc = _load(path)
    units = [u.text for u in evidence_units(doc.text, blocks=doc.blocks)]
    # the description of --commit does not run on into the next option's name
    default = next(u for u in units if "This is the default" in u)
    assert "--ff" not in default, units
    # an option's description is read under its names, dashes kept
    assert [d.term for d in doc.definitions] == ["--commit, --no-commit", "--ff, --no-ff"]
    start = doc.text.index("When merging rather than rebasing")
    assert term_at(doc.definitions, start, start + 10) == "--ff, --no-ff"


# modelled on PostgreSQL 15's runtime-config-resource.html: settings described in a
# definition list whose sentences do not name the setting they describe
SETTINGS_PAGE = """<html><head><title>20.4. Resource Consumption</title></head><body>
<div class="sect2"><h3>20.4.1. Memory</h3>
<div class="variablelist"><dl class="variablelist">
<dt id="guc-work-mem"><span class="term"><code class="varname">work_mem</code>
(<code class="type">integer</code>)</span></dt>
<dd><p>Sets the base maximum amount of memory to be used by a query operation (such as a
sort or hash table) before writing to temporary disk files. If this value is specified
without units, it is taken as kilobytes. The default value is four megabytes
(<code class="literal">4MB</code>).</p></dd>
<dt id="guc-hash-mem-multiplier"><span class="term"><code class="varname">hash_mem_multiplier</code>
(<code class="type">floating point</code>)</span></dt>
<dd><p>Used to compute the maximum amount of memory that hash-based operations can use. The
final limit is determined by multiplying work_mem by hash_mem_multiplier. The default value
is 2.0, which makes hash-based operations use twice the usual work_mem base amount.</p>
<pre class="programlisting">SET hash_mem_multiplier = 4.0;</pre>
<p>Consider increasing hash_mem_multiplier where spilling by query operations is a regular
occurrence.</p></dd>
<dt id="guc-maintenance-work-mem"><span class="term"><code class="varname">maintenance_work_mem</code>
(<code class="type">integer</code>)</span></dt>
<dd><p>Specifies the maximum amount of memory to be used by maintenance operations, such as
VACUUM, CREATE INDEX, and ALTER TABLE ADD FOREIGN KEY. It defaults to 64 megabytes
(<code class="literal">64MB</code>).</p></dd>
</dl></div>
<p>Memory settings interact: the planner reads them all.</p></div></body></html>"""


def test_a_settings_description_is_read_under_the_setting_it_describes(tmp_path):
    path = tmp_path / "runtime-config-resource.html"
    path.write_text(SETTINGS_PAGE, encoding="utf-8")
    doc = _load(path)
    assert [d.term for d in doc.definitions] == [
        "work_mem (integer)", "hash_mem_multiplier (floating point)", "maintenance_work_mem (integer)"]
    assert _block_texts(doc, TERM) == [d.term for d in doc.definitions]

    def term_of(needle: str) -> str:
        start = doc.text.index(needle)
        return term_at(doc.definitions, start, start + len(needle))

    assert term_of("The default value is four megabytes") == "work_mem (integer)"
    # a description runs on across its code block to its last paragraph
    assert term_of("Consider increasing hash_mem_multiplier") == "hash_mem_multiplier (floating point)"
    assert term_of("It defaults to 64 megabytes") == "maintenance_work_mem (integer)"
    assert term_of("Memory settings interact") == ""  # after the list, about none of them
    # a term is no claim: the description's first sentence is quoted without it
    units = [u for u in evidence_units(doc.text, blocks=doc.blocks) if quotable(u)]
    assert any(u.text.startswith("Sets the base maximum amount") for u in units), units
    # the sentence that answers is the one under the setting asked about, and says so
    [finding, *_] = extractive_findings(
        _sub_question("What is the default value of work_mem?"),
        [_retrieved(doc, "default value work_mem")], 0, ResearchConfig())
    assert finding["quote"].startswith("The default value is four megabytes"), finding
    assert finding["context"] == "work_mem (integer)"
    assert doc.text[finding["quote_start"]:finding["quote_end"]] == finding["quote"]


def test_definition_list_entries_round_trip_through_chunk_metadata():
    page = [Definition("outer", 0, 100), Definition("inner", 20, 40), Definition("later", 120, 150)]
    raw = definitions_json(page, 30, 110)  # a chunk that begins inside both first entries
    back = definitions_from_json(raw)
    assert back == [Definition("outer", -30, 70), Definition("inner", -10, 10)]
    assert term_at(back, 0, 5) == "inner" and term_at(back, 20, 30) == "outer"
    assert term_at(back, 75, 78) == ""
    assert definitions_from_json(None) is None and definitions_from_json("not json") is None


# modelled on PostgreSQL 15's backup-dump.html: paragraphs separated by lines holding only
# the page's indentation, and a sentence ending in a colon before the commands it announces
DUMP_PAGE = """<html><head><title>26.1. SQL Dump</title></head><body>
<div class="sect2"><h3>26.1.1. Restoring the Dump</h3>
<p>
   Text files created by <span class="application">pg_dump</span> are intended to
   be read in by the <span class="application">psql</span> program.
   (If you do not have sufficient privileges to back up the entire database, you
   can still back up portions of the database using options such as
   <code class="option">-n <em class="replaceable">schema</em></code>
   or <code class="option">-t <em class="replaceable">table</em></code>.)
  </p>
<p>
   To restore the dump into a new database called newdb:
  </p>
<pre class="programlisting">$ createdb -T template0 newdb
$ pg_restore -d newdb db.dump</pre>
<p>
   Now what is a dump file? A dump file is a script of SQL commands that restores the database.
  </p>
<p>To restore a dump of every database of a cluster, run the whole script:</p>
<pre class="programlisting">{long}</pre>
</div></body></html>"""
RESTORE_COMMANDS = "$ createdb -T template0 newdb\n$ pg_restore -d newdb db.dump"


def test_a_sentence_ending_in_a_colon_carries_the_commands_it_announces(tmp_path):
    path = tmp_path / "backup-dump.html"
    path.write_text(DUMP_PAGE.format(long="\n".join(f"psql -f part{i}.sql" for i in range(40))),
                    encoding="utf-8")
    doc = _load(path)
    units = [u.text for u in evidence_units(doc.text, blocks=doc.blocks)
             if u.kind not in (CODE, TITLE)]
    # a sentence ends after the bracket that closes around its full stop, and at a line
    # holding only indentation
    assert "or -t table.)" in units[1] and units[1].startswith("(If you do not")
    assert units[2] == "To restore the dump into a new database called newdb:"
    findings = extractive_findings(
        _sub_question("How do I restore a dump into a new database?"),
        [_retrieved(doc, "restore dump new database")], 0, ResearchConfig(findings_per_result=6))
    by_quote = {f["quote"]: f for f in findings}
    restore = by_quote["To restore the dump into a new database called newdb:"]
    assert restore["example"] == RESTORE_COMMANDS  # the code itself, without its fences
    assert doc.text[restore["quote_start"]:restore["quote_end"]] == restore["quote"]
    # a question in the source states nothing; a listing longer than example_max_chars is
    # left to the citation
    assert "Now what is a dump file?" not in by_quote
    whole = by_quote["To restore a dump of every database of a cluster, run the whole script:"]
    assert "example" not in whole
    assert not any("example" in f for f in findings if f is not restore)
    # the same block cut by the chunk's end is no example: the code shown must be whole
    # (cut as a chunk records it, and as a chunk stored without its cut offsets)
    source = {**_retrieved(doc, "").source}
    cut = doc.text.index(RESTORE_COMMANDS) + 10
    code_start = doc.text.rindex("```", 0, cut)
    for tail in (cut - code_start, None):
        source.update(text=doc.text[:cut], tail=tail,
                      blocks=[[s, min(e, cut), k] for s, e, k in source["blocks"] if s < cut])
        found = extractive_findings(
            _sub_question("How do I restore a dump into a new database?"),
            [Retrieved(source, 0, "restore dump")], 0, ResearchConfig(findings_per_result=6))
        assert any(f["quote"].startswith("To restore the dump") for f in found)
        assert not any("example" in f for f in found), tail


def test_a_sentence_that_runs_into_its_code_carries_it_and_one_that_ended_does_not():
    from research_studio.graph.nodes.findings import introduced_example

    code = "$ git config --add core.gitproxy proxy-command"
    for lead, carries in (("To add a new proxy, without altering any of the existing ones, use", True),
                          ("To add a new proxy, run:", True),
                          ("Proxies are tried in order.", False)):
        text = f"{lead}\n\n```\n{code}\n```\n\nThe proxy is used for git:// URLs."
        units = evidence_units(text)
        assert (introduced_example(text, len(lead), units, 400) == code) is carries, lead


# modelled on the Git manual's git-pull.html: a "Note" box laid out as a table of two
# cells, inside an option's description
NOTE_PAGE = """<html><head><title>git-pull(1)</title></head><body>
<div class="dlist"><dl>
<dt class="hdlist1">--rebase</dt>
<dd><p>When true, rebase the current branch on top of the upstream
        branch after fetching.</p>
<div class="admonitionblock"><table><tr>
<td class="icon"><div class="title">Note</div></td>
<td class="content">This is a potentially <em>dangerous</em> mode of operation.
It rewrites history.</td>
</tr></table></div>
</dd>
</dl></div>
<p>There is no way to
determine or declare that a branch will be made available in a repository with this
behavior; the pulling user simply must know this is the expected usage pattern.</p>
</body></html>"""


def test_a_pages_prose_is_laid_out_as_a_browser_shows_it(tmp_path):
    """Source line wrapping is layout, not text; a box's label and its text are two words."""
    path = tmp_path / "git-pull.html"
    path.write_text(NOTE_PAGE, encoding="utf-8")
    doc = _load(path)
    units = [u.text for u in evidence_units(doc.text, blocks=doc.blocks)]
    assert "When true, rebase the current branch on top of the upstream branch after fetching." in units
    assert not any("NoteThis" in u or "\n" in u for u in units), units
    assert any(u.endswith("This is a potentially dangerous mode of operation.") for u in units)
    assert ("There is no way to determine or declare that a branch will be made available in a "
            "repository with this behavior; the pulling user simply must know this is the "
            "expected usage pattern.") in units
    start = doc.text.index("It rewrites history.")
    assert term_at(doc.definitions, start, start + 5) == "--rebase"


def test_a_reference_page_is_titled_by_its_title_not_by_a_boxs_label(tmp_path):
    """A PostgreSQL reference page has no top heading; its "Warning" box's label is not
    what the page is about (33 pages of the PostgreSQL and Git manuals were titled
    "Warning", "Note", "Caution" or "Tip", and two such pages read as about one thing)."""
    page = """<html><head><title>pg_dump</title></head><body><div class="refentry">
    <div class="refnamediv"><h2><span class="refentrytitle">pg_dump</span></h2>
    <p>pg_dump — extract a PostgreSQL database into a script file</p></div>
    <div class="refsect1"><h2>Description</h2><p>pg_dump is a utility for backing up a
    PostgreSQL database. It makes consistent backups even if the database is being used
    concurrently.</p>
    <div class="warning"><h3 class="title">Warning</h3><p>Restoring a dump runs its SQL.</p>
    </div></div></div></body></html>"""
    path = tmp_path / "app-pgdump.html"
    path.write_text(page, encoding="utf-8")
    assert _load(path).title == "pg_dump"
    # a heading that names the page, in other words than its <title>, is kept
    path.write_text(page.replace("<title>pg_dump</title>", "<title>PostgreSQL: pg_dump</title>")
                    .replace('<div class="warning">', "<h1>pg_dump reference</h1><div>"), encoding="utf-8")
    assert _load(path).title == "pg_dump reference"


STEPS_PAGE = """<html><head><title>Upgrading</title></head><body><div class="procedure">
<h1>Upgrading a cluster</h1><p>Follow these steps to upgrade a cluster with standby servers.</p>
<ol><li><p>Prepare the new cluster.</p>
<ol class="substeps"><li class="step"><p class="title"><strong>Configure streaming replication
and log-shipping standby servers</strong></p><p>Configure the servers for log shipping.
Replication slots are not copied and must be recreated.</p></li></ol></li>
<li class="step"><p class="title"><strong>Restore <code>pg_hba.conf</code></strong></p><p>If
you modified pg_hba.conf, restore its original settings.</p></li>
<li>Signal handlers <p>Continue the process if it is currently stopped</p>Availability: Unix.</li>
</ol><p>The upgrade is then complete for every server of the cluster.</p></div></body></html>"""


def test_each_block_of_a_list_item_is_a_line_of_its_own(tmp_path):
    """trafilatura runs a list item's paragraphs into one line: a step's title (which has
    no full stop) ran into the step's first sentence, nested or not."""
    path = tmp_path / "pgupgrade.html"
    path.write_text(STEPS_PAGE, encoding="utf-8")
    doc = _load(path)
    units = [u.text for u in evidence_units(doc.text, blocks=doc.blocks)]
    assert "Configure the servers for log shipping." in units, units
    assert "If you modified pg_hba.conf, restore its original settings." in units, units
    assert not any("standby servers Configure" in u or "stopped Availability" in u for u in units), units
    lines = doc.text.split("\n\n")
    assert "Configure streaming replication and log-shipping standby servers" in {
        line.strip(" -") for line in lines}, lines
    assert "Availability: Unix." in lines


# modelled on PostgreSQL 15's charset.html and locale.html: sentences that announce a
# list, a table, and a list of steps whose items have a title and a text
LISTS_PAGE = """<html><head><title>Localization</title></head><body>
<h1>Chapter 24. Localization</h1>
<p>PostgreSQL supports two localization facilities:</p>
<ul><li><p>Using the locale features of the operating system.</p></li>
<li><p>Providing a number of different character sets.</p></li></ul>
<p>Several locale categories control only certain aspects of the localization rules:</p>
<table><tr><td>LC_COLLATE</td><td>String sort order</td></tr>
<tr><td>LC_CTYPE</td><td>Character classification</td></tr></table>
<p>The upgrade of a cluster with standby servers takes these steps:</p>
<ol><li><p>Stop the standby servers</p><p>Stop them before the primary is upgraded.</p></li>
<li><p>Run rsync</p><p>Copy the upgraded cluster to every standby server.</p></li></ol>
<p>A locale is chosen when the database cluster is initialized with initdb.</p>
</body></html>"""


def test_a_sentence_ending_in_a_colon_carries_the_list_or_rows_it_announces(tmp_path):
    path = tmp_path / "charset.html"
    path.write_text(LISTS_PAGE, encoding="utf-8")
    doc = _load(path)
    findings = extractive_findings(
        _sub_question("Which localization facilities and locale categories does PostgreSQL support?"),
        [_retrieved(doc, "localization facilities locale categories")], 0,
        ResearchConfig(findings_per_result=12))
    by_quote = {f["quote"]: f for f in findings}
    facilities = by_quote["PostgreSQL supports two localization facilities:"]
    assert facilities["list_items"] == ["Using the locale features of the operating system.",
                                        "Providing a number of different character sets."]
    categories = by_quote["Several locale categories control only certain aspects of the localization rules:"]
    assert [i.split(";")[0] for i in categories["list_items"]] == ["LC_COLLATE", "LC_CTYPE"]
    assert "String sort order" in categories["list_items"][0]
    # where an item's title and its text are two paragraphs, where the list ends is not
    # known: it is left to the citation, never shown cut
    steps = by_quote.get("The upgrade of a cluster with standby servers takes these steps:", {})
    assert "list_items" not in steps and "example" not in steps
    # a list the chunk's end cuts is not shown
    source = {**_retrieved(doc, "").source}
    cut = doc.text.index("Providing a number") + 10
    source.update(text=doc.text[:cut], tail=10,
                  blocks=[[s, min(e, cut), k] for s, e, k in source["blocks"] if s < cut])
    found = extractive_findings(_sub_question("Which localization facilities does PostgreSQL support?"),
                                [Retrieved(source, 0, "localization")], 0,
                                ResearchConfig(findings_per_result=12))
    assert any(f["quote"] == "PostgreSQL supports two localization facilities:" for f in found)
    assert not any("list_items" in f for f in found)
    # a list that ends the text is whole only where the text ends its document
    end = doc.text.index("Several locale categories")
    source.update(text=doc.text[:end].rstrip(), tail=0, blocks=[])
    for ends_document in (False, True):
        source["ends_document"] = ends_document
        found = extractive_findings(_sub_question("Which localization facilities does PostgreSQL support?"),
                                    [Retrieved(source, 0, "localization")], 0,
                                    ResearchConfig(findings_per_result=12))
        facilities = next(f for f in found
                          if f["quote"] == "PostgreSQL supports two localization facilities:")
        assert ("list_items" in facilities) is ends_document, found


TIGHT_LIST_TEXT = """The Restricted Shell
====================

A restricted shell behaves like the standard shell, except that the following are
disallowed:

   * Changing directories with the 'cd' builtin.
   * Setting or unsetting the values of the 'SHELL' or 'PATH'
     variables.
   * Specifying command names containing slashes.

These restrictions are enforced after any startup files are read.
"""


def test_a_tight_plain_text_list_is_announced_item_by_item(tmp_path):
    """Plain text writes a list with no blank line between items, its items indented and
    wrapped: each marker at the first item's indentation starts an item, a wrapped line
    goes on the item before it, and the sentence ending in a colon carries them all."""
    path = tmp_path / "RBASH"
    path.write_text(TIGHT_LIST_TEXT, encoding="utf-8")
    doc = _load(path)
    findings = extractive_findings(_sub_question("What does a restricted shell disallow?"),
                                   [_retrieved(doc, "restricted shell disallowed")], 0,
                                   ResearchConfig(findings_per_result=12))
    announcing = [f for f in findings if f["quote"].endswith("are\ndisallowed:")
                  or f["quote"].endswith("are disallowed:")]
    assert announcing, [f["quote"] for f in findings]
    assert announcing[0]["list_items"] == [
        "Changing directories with the 'cd' builtin.",
        "Setting or unsetting the values of the 'SHELL' or 'PATH' variables.",
        "Specifying command names containing slashes."]
    # a line of an item's text that starts with another marker, or further in, stays in it
    nested = "Refused:\n\n  * Options such as\n    - the '-p' option.\n  * Redirection.\n\nEnd."
    assert following_list(nested, len("Refused:")) == (
        ["Options such as - the '-p' option.", "Redirection."], nested.index("\n\nEnd"))


# ---- the sentence between two quoted ones ---------------------------------------------------
GITIGNORE_RULES = (
    "Patterns in a gitignore file are read one line at a time. "
    "An optional prefix \"!\" negates the pattern, so any matching file excluded by a previous "
    "pattern becomes included again. "
    "It is not possible to re-include a file if a parent directory of that file is excluded. "
    "Git does not list excluded directories for performance reasons, so negated patterns on "
    "the files inside them have no effect. "
    "A line starting with a hash serves as a comment.")
NEGATION_QUESTION = ('Why does a negated "!" pattern in .gitignore not include a file inside an '
                     'excluded directory?')


@pytest.fixture(scope="module")
def similarity():
    """The sentence encoder's cosine, as the research run gives the findings stage; one
    encoder for the module's tests."""
    from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings

    embed = MiniLMOnnxEmbeddings().embed_array
    return lambda a, b: embed(a) @ embed(b).T


def _plain_source(text: str) -> dict:
    return {"source_id": "kb:t:c1", "kind": "kb", "title": "gitignore", "text": text,
            "start": 0, "lead": 0, "tail": 0}


def test_the_sentence_between_two_quoted_ones_is_quoted_too(similarity):
    """The two sentences that match the question's words leave out the rule between them,
    which is the answer: a passage gives it as well, in one quote with the two around it
    (the three follow each other in a paragraph)."""
    source = _plain_source(GITIGNORE_RULES)
    findings = extractive_findings(_sub_question(NEGATION_QUESTION),
                                   [Retrieved(source, 0, NEGATION_QUESTION)], 0,
                                   ResearchConfig(findings_per_result=2), similarity)
    quotes = [f["quote"] for f in findings]
    assert any(q.startswith("An optional prefix") and " It is not possible to re-include" in q
               and " Git does not list" in q for q in quotes), quotes
    for finding in findings:  # each at its offsets in the stored span
        assert source["text"][finding["quote_start"]:finding["quote_end"]] == finding["quote"]


def test_code_between_two_quoted_sentences_is_not_quoted_as_a_sentence(similarity):
    # guard (passes before the change too): a code block breaks the run of sentences
    text = GITIGNORE_RULES.replace(
        " It is not possible to re-include a file if a parent directory of that file is excluded.",
        "\n\n```\n!build/keep.txt\n```\n\n")
    source = _plain_source(text)
    findings = extractive_findings(_sub_question(NEGATION_QUESTION),
                                   [Retrieved(source, 0, NEGATION_QUESTION)], 0,
                                   ResearchConfig(findings_per_result=2), similarity)
    assert len(findings) == 2 and not any("```" in f["quote"] for f in findings)
