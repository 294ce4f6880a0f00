"""The knowledge base with the real ONNX embeddings and a real Chroma store on disk."""

import pytest

from research_studio.config import load_context
from research_studio.errors import InvalidQuery, ResearchStudioError, UnknownKnowledgeBase
from research_studio.knowledge.base import KnowledgeBaseRegistry
from tests.fixtures import write_corpus


@pytest.fixture
def corpus(tmp_path):
    return write_corpus(tmp_path / "corpus")


def test_ingest_every_type_then_search_each_mode(registry, corpus):
    kb = registry.open("science", create=True)
    summary = kb.ingest_paths([corpus["md"].parent])
    assert summary.documents_added == 8  # 6 files + 2 JSONL records
    assert summary.chunks_added == kb.count() >= 8
    assert summary.skipped == []
    for mode in ("dense", "bm25", "hybrid"):
        [top, *_] = kb.search("why is the red planet red", k=3, mode=mode)
        assert top.doc_id == "rec-2", mode  # the JSONL record id is the doc_id
        assert top.title == "Mars"
    hit = kb.search("waggle dance of bees", k=1)[0]
    assert hit.title == "Honey bees"
    stored = kb.get_chunks([hit.chunk_id])[0]
    assert stored.text == hit.text and stored.end - stored.start == len(hit.text)


def test_spans_point_into_the_original_text(registry, tmp_path):
    text = "\n\n".join(f"Paragraph {i}: " + "lorem ipsum dolor sit amet " * 12 for i in range(30))
    (tmp_path / "long.txt").write_text(text, encoding="utf-8")
    kb = registry.open("spans", create=True)
    kb.ingest_paths([tmp_path / "long.txt"])
    hits = kb.get_chunks([h.chunk_id for h in kb.search("Paragraph 17", k=5, mode="bm25")])
    assert hits
    for hit in hits:
        assert text[hit.start:hit.end] == hit.text


def test_findings_quote_whole_sentences_where_chunks_cut_them(registry, tmp_path):
    """Chunks overlap from any word, so most begin inside a sentence; its piece ("night
    that the tidal rhythm of the harbour follows …") is not a claim, only whole sentences
    are quoted."""
    from types import SimpleNamespace

    from research_studio.config import ResearchConfig
    from research_studio.graph.nodes.execute import _kb_search
    from research_studio.graph.nodes.findings import extractive_findings

    said = [f"Log entry {i}, kept by the keepers of the lighthouse on the northern pier for "
            f"{i + 3} generations of ships and boats{' and barges' * (i % 5)}, records every "
            f"night that the tidal rhythm of the harbour follows the pull of the moon."
            for i in range(30)]
    (tmp_path / "harbour.txt").write_text(" ".join(said), encoding="utf-8")
    kb = registry.open("cuts", create=True)
    kb.ingest_paths([tmp_path / "harbour.txt"])
    retrieved = _kb_search(SimpleNamespace(kb=kb), SimpleNamespace(query="tidal rhythm moon pull"),
                           8, "sq_001")
    assert sum(r.source["lead"] > 0 for r in retrieved) >= 3  # chunks that begin mid-sentence
    # the one chunk that runs to the document's end says so (a list there ends with it)
    ending = [r.source["text"] for r in retrieved if r.source["ends_document"]]
    assert ending and all(" ".join(said).endswith(text) for text in ending), ending
    assert len(ending) <= 1 and any(not r.source["ends_document"] for r in retrieved)
    sub_question = {"sub_question_id": "sq_001", "queries_done": [],
                    "question_text": "Does the tidal rhythm of the harbour follow the moon?"}
    findings = extractive_findings(sub_question, retrieved, 0, ResearchConfig(findings_per_result=10))
    assert len(findings) >= 12
    assert all(f["quote"] in said for f in findings), [f["quote"] for f in findings
                                                        if f["quote"] not in said]


def test_reingest_is_a_no_op_and_duplicates_are_stored_once(registry, corpus, tmp_path):
    kb = registry.open("dedup", create=True)
    kb.ingest_paths([corpus["md"]])
    count = kb.count()
    again = kb.ingest_paths([corpus["md"]])
    assert (again.documents_added, again.unchanged, kb.count()) == (0, 1, count)
    copy = tmp_path / "copy-of-volcanoes.md"
    copy.write_bytes(corpus["md"].read_bytes())
    duplicate = kb.ingest_paths([copy])
    assert (duplicate.duplicates, duplicate.documents_added, kb.count()) == (1, 0, count)


def test_a_document_whose_title_is_read_anew_is_stored_anew(registry, tmp_path, monkeypatch):
    """A title is embedded with every chunk and shown with every citation: a document
    stored when its title was read another way gets the new one on re-ingest, though its
    text is the same; a document whose title and text are the same is left alone."""
    from research_studio.knowledge import documents

    page = tmp_path / "NEWS"
    page.write_text("This is a terse description of the new features added to bash-5.2\n"
                    "since the release of bash-5.1.\n\nThe readline library is updated.\n",
                    encoding="utf-8")
    kb = registry.open("titles", create=True)
    title_of = documents._first_line_title
    monkeypatch.setattr(documents, "_first_line_title", lambda text, fallback: text.split("\n")[0])
    kb.ingest_paths([page])
    count = kb.count()
    assert kb.search("readline library", k=1)[0].title.startswith("This is a terse")
    monkeypatch.setattr(documents, "_first_line_title", title_of)
    again = kb.ingest_paths([page])
    assert (again.documents_replaced, again.duplicates, again.unchanged) == (1, 0, 0)
    [hit] = kb.search("readline library", k=1)
    assert not hit.title.startswith("This is a terse") and kb.count() == count
    third = kb.ingest_paths([page])
    assert (third.documents_replaced, third.unchanged) == (0, 1)


def test_a_chunk_keeps_the_definition_list_entries_it_lies_in(registry, tmp_path, monkeypatch):
    """A description cut by chunks is still read under its term: the chunk that begins
    after "work_mem (integer)" records it; a page stored before definition lists were
    recorded is read again when re-ingested."""
    from types import SimpleNamespace

    from research_studio.config import ResearchConfig
    from research_studio.graph.nodes.execute import _kb_search
    from research_studio.graph.nodes.findings import extractive_findings
    from research_studio.knowledge import markup
    from research_studio.knowledge.structure import term_at

    filler = " ".join(f"Sentence {i} of the description says how sorts and hashes spill to disk."
                      for i in range(40))
    page = tmp_path / "settings.html"
    page.write_text(f"""<html><head><title>Resource Consumption</title></head><body>
<p>Memory settings of the server.</p><dl>
<dt><code>work_mem</code> (<code>integer</code>)</dt>
<dd><p>Sets the base maximum amount of memory to be used by a query operation. {filler}
The default value is four megabytes.</p></dd>
<dt><code>temp_buffers</code> (<code>integer</code>)</dt>
<dd><p>Sets the maximum amount of memory used for temporary buffers. The default value is
eight megabytes.</p></dd></dl></body></html>""", encoding="utf-8")
    kb = registry.open("settings", create=True)
    rendered = markup.render_html

    def without_definitions(html: str) -> markup.RenderedPage:  # as pages were read before
        page = rendered(html)
        return markup.RenderedPage(page.text, page.blocks, [])

    monkeypatch.setattr(markup, "render_html", without_definitions)
    kb.ingest_paths([page])
    assert all(not h.terms for h in kb.search("default value", k=10, mode="bm25"))
    monkeypatch.setattr(markup, "render_html", rendered)
    summary = kb.ingest_paths([page])
    assert (summary.documents_replaced, summary.unchanged) == (1, 0)
    hits = kb.search("work_mem default value four megabytes", k=10, mode="bm25")
    late = next(h for h in hits if "four megabytes" in h.text and "work_mem" not in h.text)
    at = late.text.index("The default value is four")
    assert term_at(late.terms, at, at + 10) == "work_mem (integer)"
    retrieved = _kb_search(SimpleNamespace(kb=kb),
                           SimpleNamespace(query="work_mem default value"), 8, "sq_001")
    findings = extractive_findings({"sub_question_id": "sq_001", "queries_done": [],
                                    "question_text": "What is the default value of work_mem?"},
                                   retrieved, 0, ResearchConfig(findings_per_result=10))
    # the description's sentences follow each other, so the last comes joined to those
    # before it: the quote that holds it is read under its term
    [four] = [f for f in findings if f["quote"].endswith("The default value is four megabytes.")]
    assert four.get("context") == "work_mem (integer)"
    assert all(f.get("context") == "temp_buffers (integer)" for f in findings
               if "eight megabytes" in f["quote"])


def test_changed_file_replaces_its_chunks(registry, corpus):
    kb = registry.open("changes", create=True)
    kb.ingest_paths([corpus["txt"]])
    corpus["txt"].write_text("Tides\n\nNow about spring tides and neap tides only.", encoding="utf-8")
    summary = kb.ingest_paths([corpus["txt"]])
    assert (summary.documents_replaced, summary.documents_added) == (1, 0)  # not counted twice
    texts = [h.text for h in kb.search("tides", k=10, mode="bm25")]
    assert texts and all("gravitational" not in t for t in texts)


def test_bad_input_in_a_folder_never_aborts(registry, corpus):
    (corpus["md"].parent / "empty.txt").write_text("", encoding="utf-8")
    (corpus["md"].parent / "junk.pdf").write_bytes(b"junk")
    summary = registry.open("robust", create=True).ingest_paths([corpus["md"].parent])
    assert summary.documents_added == 8
    assert sorted(s.location.rsplit("/", 1)[-1] for s in summary.skipped) == ["empty.txt",
                                                                             "junk.pdf"]


def test_a_documentation_folder_as_debian_installs_it_is_searchable(registry, tmp_path):
    """Compressed pages and plain text without a suffix, as /usr/share/doc/<package>
    holds them: ingested, found, quoted from their stored text, and left alone when
    ingested again; images stay out."""
    import gzip

    package = tmp_path / "doc" / "rshell"
    (package / "images").mkdir(parents=True)
    (package / "README.Debian").write_text(
        "Notes for Debian\n================\n\nThe restricted shell refuses to change directory "
        "and to run commands named with a slash.\n", encoding="utf-8")
    (package / "changelog.Debian.gz").write_bytes(gzip.compress(
        b"rshell (2.1-1) unstable; urgency=low\n\n  * New upstream release with faster "
        b"startup.\n"))
    (package / "guide.html.gz").write_bytes(gzip.compress(
        b"<html><head><title>Shell guide</title></head><body><h1>Shell guide</h1><p>Aliases "
        b"are expanded when a command is read, not when it is executed.</p></body></html>"))
    (package / "images" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    kb = registry.open("debian-docs", create=True)
    summary = kb.ingest_paths([tmp_path / "doc"])
    assert summary.documents_added == 3
    assert [s.location.rsplit("/", 1)[-1] for s in summary.skipped] == ["logo.png"]
    readme = kb.search("which commands does the restricted shell refuse to run", k=1)[0]
    assert readme.location.endswith("README.Debian") and readme.section == "Notes for Debian"
    guide = kb.search("when are aliases expanded", k=1)[0]
    assert (guide.title, guide.location.rsplit("/", 1)[-1]) == ("Shell guide", "guide.html.gz")
    assert kb.get_chunks([guide.chunk_id])[0].text == guide.text
    again = kb.ingest_paths([tmp_path / "doc"])
    assert (again.documents_added, again.unchanged) == (0, 3)


def test_unknown_kb_and_bad_queries(registry, corpus):
    registry.open("alpha", create=True).ingest_paths([corpus["md"]])
    with pytest.raises(UnknownKnowledgeBase, match="'nope'; existing: alpha"):
        registry.open("nope")
    kb = registry.open("alpha")
    with pytest.raises(InvalidQuery, match="empty"):
        kb.search("   ")
    with pytest.raises(ResearchStudioError, match="invalid knowledge base name"):
        registry.open("../escape", create=True)
    assert kb.search("x" * 50_000, k=2)  # huge queries are truncated, not fatal


def test_two_homes_never_interfere(tmp_path, corpus):
    one = load_context(tmp_path / "one")
    two = load_context(tmp_path / "two")
    reg_one = KnowledgeBaseRegistry(one.kb_dir, one.settings.knowledge)
    reg_two = KnowledgeBaseRegistry(two.kb_dir, two.settings.knowledge)
    reg_one.open("shared-name", create=True).ingest_paths([corpus["md"]])
    reg_two.open("shared-name", create=True).ingest_paths([corpus["txt"]])
    assert reg_one.open("shared-name").search("lava", k=1)[0].title == "Volcanoes"
    assert [h.title for h in reg_two.open("shared-name").search("lava", k=5)] == ["Tides"]
    assert [i.name for i in reg_one.list()] == ["shared-name"]


def test_dense_search_is_exact_so_every_process_gets_the_same_results(registry):
    """Chroma's default HNSW breadth (100) returned a different top 50 in each process on
    the 1,849-chunk MuSiQue corpus; the knowledge base searches at ``search_ef`` (500), which
    on a collection of this size finds the exact nearest chunks."""
    import numpy as np

    kb = registry.open("vectors", create=True)
    assert kb.collection.configuration["hnsw"]["ef_search"] == registry.settings.search_ef
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(1500, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"v{i}" for i in range(len(vectors))]
    kb.collection.add(ids=ids, embeddings=vectors, documents=ids)
    queries = rng.normal(size=(20, 384)).astype(np.float32)

    def misses(collection) -> int:
        missing = 0
        for query in queries:
            exact = {ids[i] for i in np.argsort(-(vectors @ query))[:50]}
            found = collection.query(query_embeddings=query[None, :], n_results=50,
                                     include=[])["ids"][0]
            missing += len(exact - set(found))
        return missing

    assert misses(kb.collection) == 0
    # a store left at Chroma's default (every store built before) is raised on opening
    kb.collection.modify(configuration={"hnsw": {"ef_search": 100}})
    assert registry.client.get_collection(kb.collection.name).configuration["hnsw"]["ef_search"] == 100
    reopened = registry.open("vectors")
    assert reopened.collection.configuration["hnsw"]["ef_search"] == registry.settings.search_ef
    assert misses(reopened.collection) == 0


def test_the_bm25_index_is_kept_on_disk_in_step_with_the_knowledge_base(context, corpus,
                                                                       monkeypatch):
    """Ingestion saves the lexical index; another process opens it without reading the
    chunks back; a later ingestion replaces it; an unreadable one is rebuilt; deleting the
    knowledge base removes it."""
    from research_studio.knowledge.base import KnowledgeBase

    registry = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge)
    registry.open("science", create=True).ingest_paths([corpus["md"]])
    folder = context.kb_dir / "lexical" / "science"
    assert (folder / "research-studio.json").is_file()

    rebuilds: list[str] = []
    original = KnowledgeBase._rebuild_lexical

    def counting(self, revision):
        rebuilds.append(revision)
        return original(self, revision)

    monkeypatch.setattr(KnowledgeBase, "_rebuild_lexical", counting)
    fresh = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open("science")
    assert fresh.search("lava", k=1, mode="bm25")[0].title == "Volcanoes"
    assert rebuilds == [], "a saved index for this revision is loaded, not rebuilt"

    fresh.ingest_paths([corpus["txt"]])  # the index follows the new revision at once
    assert len(rebuilds) == 1
    other = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open("science")
    assert other.search("moon tides", k=1, mode="bm25")[0].title == "Tides"
    assert len(rebuilds) == 1

    (folder / "ids.json").write_text("not json", encoding="utf-8")
    broken = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open("science")
    assert broken.search("lava", k=1, mode="bm25")[0].title == "Volcanoes"
    assert len(rebuilds) == 2

    registry.delete("science")
    assert not folder.exists()


def test_a_name_every_page_repeats_is_no_name_to_follow(registry, tmp_path):
    # "Manual Page" heads every HTML page of a manual shipped as HTML and as text (a little
    # under half the pages, as in Debian's git-doc): it names the collection's pages, not a
    # thing to research
    folder = tmp_path / "manual"
    folder.mkdir()
    verbs = ["fetch", "prune", "rebase", "bisect", "stash", "blame", "describe", "archive", "bundle",
             "notes", "worktree", "sparse", "maintenance", "replace", "reflog", "clone", "commit",
             "merge", "push", "pull"]
    for verb in verbs:
        body = (f"The {verb} command: its options, its output and the configuration variables "
                f"that change how {verb} behaves.")
        (folder / f"git-{verb}.txt").write_text(f"git-{verb}(1)\n\n{body}", encoding="utf-8")
        if verb != "pull":
            (folder / f"git-{verb}.html.txt").write_text(f"git-{verb}(1) Manual Page\n\n{body}",
                                                          encoding="utf-8")
    kb = registry.open("manual", create=True)
    kb.ingest_paths([folder])
    specificity = kb.specificity_scorer()
    assert specificity("Manual Page") == 0.0
    assert specificity("bisect") > 0.5


def test_a_name_most_titles_share_is_no_name_to_follow_however_rare_its_words(registry, tmp_path):
    # release notes in plain text hold most of the chunks, so the words of the manual
    # pages' "Manual Page" are rare over the chunks; most titles still carry it
    folder = tmp_path / "manual"
    folder.mkdir()
    verbs = ["fetch", "prune", "rebase", "bisect", "stash", "blame", "describe", "archive"]
    for verb in verbs:
        kind = " Plumbing" if verb in ("prune", "describe") else ""
        (folder / f"git-{verb}.txt").write_text(
            f"git-{verb}(1){kind} Manual Page\n\nThe {verb} command and the variables that change it.",
            encoding="utf-8")
    for release in ("2.40", "2.41", "2.42"):
        notes = " ".join(f"Fix number {i} of release {release} mends how the {i}th option parses."
                         for i in range(300))
        (folder / f"RelNotes-{release}.txt").write_text(f"Git {release} Release Notes\n\n{notes}",
                                                        encoding="utf-8")
    kb = registry.open("mixed", create=True)
    kb.ingest_paths([folder])
    floor = kb.settings.min_name_specificity
    assert kb._lexical_index().specificity("Manual Page") > floor  # rare over the chunks
    specificity = kb.specificity_scorer()
    assert specificity("Manual Page") == 0.0
    assert specificity("bisect") > 0.5  # one page's own name
    assert specificity("Plumbing") > 0.5  # in 2 of 11 titles: under the share


def test_ingest_reports_passages_while_a_long_document_is_stored(context, tmp_path):
    """Embedding is most of an ingest's time: progress that counted documents alone stood
    still for minutes on a manual's long pages. Passages are stored and reported a batch
    at a time, within a document too, and the total adds up."""
    from dataclasses import replace as copied
    from itertools import pairwise

    from research_studio.knowledge.base import IngestProgress

    settings = context.settings.knowledge.model_copy(update={"store_batch_passages": 4})
    text = "\n\n".join(f"Section {i}: " + "the tide turns twice a day at the pier " * 8
                       for i in range(40))
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "long.txt").write_text(text, encoding="utf-8")
    (folder / "short.txt").write_text("A short note on lighthouses.", encoding="utf-8")
    kb = KnowledgeBaseRegistry(context.kb_dir, settings).open("batches", create=True)
    seen: list[IngestProgress] = []
    summary = kb.ingest_paths([folder], lambda done: seen.append(copied(done)))
    assert summary.chunks_added == kb.count() > 4
    stored_during_first = {p.passages for p in seen if p.documents == 1}
    assert len(stored_during_first - {0}) >= 2, seen  # several batches of the long page
    assert all(a.passages <= b.passages and a.documents <= b.documents
               for a, b in pairwise(seen))
    assert (seen[-1].documents, seen[-1].passages) == (2, summary.chunks_added)


def test_a_near_copy_is_stored_and_marked_as_the_document_it_repeats(registry, tmp_path):
    """An HTML page and the reST source Sphinx copies beside it are one text with other
    markup: both are stored (they may differ where it matters), the later marked a copy of
    the earlier, also when it arrives in a later ingest; an unrelated page is not."""
    body = " ".join(f"Sentence {i} says the tide at the {['north', 'south', 'east'][i % 3]} "
                    f"pier turns after {i + 3} hours of slack water." for i in range(40))
    pages = tmp_path / "html"
    pages.mkdir()
    (pages / "tides.html").write_text(
        f"<html><body><main><h1>Tides<a href='#t'>¶</a></h1><p>{body}</p></main></body></html>",
        encoding="utf-8")
    (pages / "bees.html").write_text(
        "<html><body><main><h1>Bees</h1><p>" + " ".join(
            f"Worker bee {i} forages for nectar {i} metres from the hive." for i in range(40))
        + "</p></main></body></html>", encoding="utf-8")
    kb = registry.open("copies", create=True)
    first = kb.ingest_paths([pages])
    assert first.near_copies == 0
    sources = tmp_path / "_sources"
    sources.mkdir()
    # the source says a little more than the page (an identical text is stored once)
    (sources / "tides.rst.txt").write_text(f"Tides\n=====\n\n{body}\n\nLast revised in spring.\n",
                                           encoding="utf-8")
    second = kb.ingest_paths([sources])
    assert (second.documents_added, second.near_copies) == (1, 1)
    marks = {"/".join(str(meta["location"]).split("/")[-2:]): meta.get("copy_of")
             for _, _, meta in kb._all_chunks(["metadatas"])}
    assert marks == {"_sources/tides.rst.txt": str(pages / "tides.html"),
                     "html/tides.html": None, "html/bees.html": None}
    # search shows one rendering of the page: the copy's passages repeat the original's
    for mode in ("hybrid", "bm25", "dense"):
        hits = kb.search("tide pier slack water hours", k=20, mode=mode)
        assert len({hit.location for hit in hits if "tide" in hit.text}) == 1, mode
        assert any(hit.title == "Bees" for hit in hits), mode  # other documents still come


def _tide_tables(count: int = 40) -> str:
    return " ".join(f"Sentence {i} says the tide at the {['north', 'south', 'east'][i % 3]} "
                    f"pier turns after {i + 3} hours of slack water." for i in range(count))


def test_one_document_in_two_formats_beside_each_other_is_stored_once(registry, tmp_path):
    """A manual's folder holding each page as HTML and as its source text (Git's pages
    beside their AsciiDoc) holds each document twice: the better-read format is stored,
    whichever name sorts first, and the other is counted, not stored; two files of one
    name saying different things, and a near copy under another name, are all stored."""
    body = _tide_tables()
    # the source text sorts before the page by name ("txt" < "xhtml") and shows its markup
    (tmp_path / "tides.txt").write_text(f"= Tides\n\n[[slack]]\n{body}\n\nLast revised.\n",
                                        encoding="utf-8")
    (tmp_path / "tides.xhtml").write_text(
        f"<html><body><h1>Tides</h1><p id='slack'>{body}</p></body></html>", encoding="utf-8")
    (tmp_path / "tides-copy.md").write_text(f"# Tides\n\n{body}\n\nCopied.\n", encoding="utf-8")
    (tmp_path / "bees.txt").write_text(
        " ".join(f"Worker bee {i} forages for nectar {i} metres from the hive." for i in range(40)),
        encoding="utf-8")
    (tmp_path / "bees.html").write_text(
        "<html><body><p>" + " ".join(f"Drone {i} leaves the hive in spring." for i in range(40))
        + "</p></body></html>", encoding="utf-8")
    kb = registry.open("formats", create=True)
    summary = kb.ingest_paths([tmp_path])
    assert (summary.documents_added, summary.other_formats, summary.near_copies) == (4, 1, 1)
    stored = {str(meta["location"]).rsplit("/", 1)[-1] for _, _, meta in kb._all_chunks(["metadatas"])}
    assert stored == {"tides.xhtml", "tides-copy.md", "bees.txt", "bees.html"}
    again = kb.ingest_paths([tmp_path])
    assert (again.documents_added, again.unchanged, again.other_formats) == (0, 4, 1)


def test_a_page_stored_in_two_formats_earlier_is_searched_as_one(registry, tmp_path, monkeypatch):
    """A knowledge base ingested before formats were told apart holds both files: a
    search shows the passages of one of them, as it does for a near copy under its title,
    though the source text's title ("= Tides (7)") is not the page's ("Tides Manual")."""
    from research_studio.knowledge.near_duplicates import CopyFinder

    monkeypatch.setattr(CopyFinder, "other_format", lambda self, location, minhash: None)
    body = _tide_tables()
    (tmp_path / "tides.html").write_text(
        f"<html><head><title>Tides Manual</title></head><body><p>{body}</p></body></html>",
        encoding="utf-8")
    (tmp_path / "tides.txt").write_text(f"= Tides (7)\n\n{body}\n\nLast revised.\n",
                                        encoding="utf-8")
    (tmp_path / "bees.html").write_text(
        "<html><body><p>" + " ".join(f"Worker bee {i} forages for nectar {i} metres from the "
                                     "hive." for i in range(40)) + "</p></body></html>",
        encoding="utf-8")
    kb = registry.open("both", create=True)
    assert kb.ingest_paths([tmp_path]).near_copies == 1
    for mode in ("hybrid", "bm25", "dense"):
        hits = kb.search("tide pier slack water hours", k=20, mode=mode)
        assert len({hit.location for hit in hits if "tide" in hit.text}) == 1, mode
        assert any("bee" in hit.text for hit in hits), mode


def test_templated_pages_about_different_things_are_all_found(registry, tmp_path):
    """Articles written from one template share most of their words; each is marked a near
    copy of the first, for cross-validation, yet each is about its own thing: a search
    finds them all."""
    template = ("{} is a species of plant in the family Fagaceae. It is found in the humid "
                "montane forests of Borneo and Sumatra, where it grows as a tree of up to "
                "thirty metres on ridges and slopes. Its acorns ripen over two seasons and "
                "its bark is smooth and grey. It is threatened by habitat loss.")
    species = ("Lithocarpus crassinervius", "Lithocarpus kostermansii", "Lithocarpus platycarpus")
    for name in species:
        (tmp_path / f"{name.split()[1]}.txt").write_text(
            f"{name}\n\n{template.format(name)}", encoding="utf-8")
    kb = registry.open("species", create=True)
    assert kb.ingest_paths([tmp_path]).near_copies == 2
    hits = kb.search("Lithocarpus species of plant in the family Fagaceae", k=10, mode="bm25")
    assert {hit.title for hit in hits} == set(species)


def test_files_of_one_name_in_two_folders_are_two_documents(registry, tmp_path):
    """A manual has an ``index.html`` per chapter: each is its own document (the trust
    engine counts documents), named by its path, relative where the ingest asks for it."""
    for chapter, topic in (("tutorial", "loops repeat a block"), ("library", "sockets carry bytes")):
        (tmp_path / "manual" / chapter).mkdir(parents=True)
        (tmp_path / "manual" / chapter / "index.html").write_text(
            f"<html><body><h1>{chapter}</h1><p>In this chapter {topic}.</p></body></html>",
            encoding="utf-8")
    kb = registry.open("manual", create=True)
    kb.ingest_paths([tmp_path / "manual" / "tutorial"])
    kb.ingest_paths([tmp_path / "manual" / "library"], location_root=tmp_path)
    ids = {hit.title: hit.doc_id for hit in kb.search("chapter", k=5, mode="bm25")}
    assert ids == {"tutorial": str(tmp_path / "manual" / "tutorial" / "index.html"),
                   "library": "manual/library/index.html"}


def test_ingested_chunks_keep_each_short_announced_list_whole(registry, tmp_path):
    """Chunks break at paragraphs, and a list's items are paragraphs: ingestion keeps a
    sentence ending in a colon together with the short list it announces in some chunk."""
    from research_studio.knowledge.chunking import chunk_spans

    parts, lists = [], []
    for i in range(24):
        parts.append(" ".join(f"Section {i} explains setting {i}.{j} of the harbour crane in "
                              f"detail." for j in range(3 + i % 5)))
        items = [f"- crane {i} lifts {k + 2} tonnes at {k + 1} metres per minute when the wind "
                 f"stays below {k + 20} knots and the load is slung from the inner hook" for k in range(3)]
        announcing = f"Crane {i} has three modes:"
        parts.append(announcing + "\n\n" + "\n\n".join(items))
        lists.append(announcing + "\n\n" + "\n\n".join(items))
    text = "\n\n".join(parts)
    (tmp_path / "cranes.md").write_text(text, encoding="utf-8")
    plain = [text[s.start:s.end] for s in chunk_spans(text, 900, 150)]
    assert any(not any(listed in p for p in plain) for listed in lists), "no list was cut"
    kb = registry.open("cranes", create=True)
    kb.ingest_paths([tmp_path / "cranes.md"])
    stored = [text for _, text, _ in kb._all_chunks(["documents", "metadatas"])]
    missing = [listed[:20] for listed in lists if not any(listed in chunk for chunk in stored)]
    assert not missing, missing


def test_a_chunk_names_the_section_it_stands_under(registry, tmp_path):
    """A long page's chunks each record the heading they stand under and its anchor; a
    search hit carries them to the source, and the report's Sources list names the
    section and opens the page at it."""
    from types import SimpleNamespace

    from research_studio.graph.nodes.execute import _kb_search
    from research_studio.graph.nodes.write import Citations

    def section(number: int, name: str, topic: str) -> str:
        body = " ".join(f"Point {i} about {topic} explains one more detail of the setup."
                        for i in range(30))
        return (f'<div class="section" id="sect-{number}"><div class="titlepage"><div>'
                f'<h2 class="title">{number}. {name}</h2></div></div><p>{body}</p></div>')

    page = tmp_path / "guide.html"
    page.write_text("<html><head><title>Administration Guide</title></head><body>"
                    "<h1>Administration Guide</h1>"
                    + section(1, "Backups", "nightly dumps")
                    + section(2, "Replication", "standby servers") + "</body></html>",
                    encoding="utf-8")
    kb = registry.open("guide", create=True)
    kb.ingest_paths([page])
    hits = kb.search("standby servers replication", k=20, mode="bm25")
    standby = next(h for h in hits if "standby servers" in h.text and "nightly" not in h.text)
    assert (standby.section, standby.anchor) == ("2. Replication", "sect-2")
    backup = next(h for h in hits if "nightly dumps" in h.text and "standby" not in h.text)
    assert backup.section == "1. Backups"
    [retrieved, *_] = [r for r in _kb_search(SimpleNamespace(kb=kb),
                                             SimpleNamespace(query="standby servers"), 20,
                                             "sq_001")
                       if "nightly" not in r.source["text"]]
    source = retrieved.source
    citations = Citations({source["source_id"]: source})
    citations.cite([source["source_id"]])
    [line] = citations.listing()
    assert line.startswith("- [S1] Administration Guide › 2. Replication — ")
    assert f"guide.html#sect-2 (chunk {source['chunk_id']}" in line
