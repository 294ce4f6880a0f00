"""The command line as a user runs it: real processes, real home folders."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.child_env import child_env
from tests.fixtures import write_corpus

CLI = Path(sys.executable).parent / "research-studio"


def run(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(CLI), *args, "--home", str(home)], capture_output=True,
                            text=True, timeout=600, env=child_env())
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


def test_ingest_list_search_json(tmp_path):
    home = tmp_path / "home"
    corpus = write_corpus(tmp_path / "corpus")
    (corpus["md"].parent / "broken.pdf").write_bytes(b"junk")
    first = run("ingest", str(corpus["md"].parent), "--kb", "notes", "--json", home=home)
    summary = json.loads(first.stdout)
    assert summary["documents_added"] == 8 and summary["chunks_added"] >= 8
    # no terminal: the progress bar is off, a plain line says the work has begun
    assert "ingesting into notes: 1 documents read, 0 passages stored" in first.stderr
    assert summary["skipped"][0]["reason"].startswith("unreadable PDF")
    again = json.loads(run("ingest", str(corpus["md"].parent), "--kb", "notes", "--json",
                           home=home).stdout)
    assert (again["documents_added"], again["unchanged"]) == (0, 8)
    listing = json.loads(run("kb", "list", "--json", home=home).stdout)
    assert [(kb["name"], kb["chunks"]) for kb in listing] == [("notes", summary["chunks_added"])]
    for mode in ("dense", "bm25", "hybrid"):
        hits = json.loads(run("kb", "search", "waggle dance", "--kb", "notes", "-k", "2",
                              "--mode", mode, "--json", home=home).stdout)
        assert 1 <= len(hits) <= 2  # BM25 returns only chunks that share a term
        assert {"doc_id", "chunk_id", "title", "location", "score", "text"} <= set(hits[0])
        assert hits[0]["title"] == "Honey bees"
    table = run("kb", "search", "red planet", "--kb", "notes", home=home).stdout
    assert "Mars" in table


def test_ingest_leaves_out_what_the_user_excludes(tmp_path):
    """A package's documentation folder as installed: its compressed pages and suffixless
    text go in, and ``--exclude`` keeps out the changelogs and a folder by pattern."""
    import gzip

    home = tmp_path / "home"
    package = tmp_path / "doc" / "tool"
    (package / "examples").mkdir(parents=True)
    (package / "README").write_text("Tool\n====\n\nThe tool compresses logs nightly.\n",
                                    encoding="utf-8")
    (package / "NEWS.gz").write_bytes(gzip.compress(b"Version 2\n\nLogs are now rotated.\n"))
    (package / "changelog.gz").write_bytes(gzip.compress(b"tool (2.0) unstable\n\n * Release.\n"))
    (package / "changelog.Debian.gz").write_bytes(gzip.compress(b"tool (2.0-1) unstable\n"))
    (package / "examples" / "sample.txt").write_text("Sample\n", encoding="utf-8")
    out = run("ingest", str(tmp_path / "doc"), "--kb", "tool", "--exclude", "changelog*",
              "--exclude", "*/examples", "--json", home=home).stdout
    summary = json.loads(out)
    assert summary["documents_added"] == 2, summary
    skipped = {Path(s["location"]).name: s["reason"] for s in summary["skipped"]}
    assert skipped == {"changelog.Debian.gz": "excluded (changelog*)",
                       "changelog.gz": "excluded (changelog*)", "examples": "excluded (*/examples)"}
    hits = json.loads(run("kb", "search", "when are logs rotated", "--kb", "tool", "-k", "1",
                          "--json", home=home).stdout)
    assert Path(hits[0]["location"]).name == "NEWS.gz"


def test_skipped_files_are_summed_up_by_reason(tmp_path):
    """A documentation folder holds hundreds of images and style sheets: the summary gives
    each reason one line with its count, and still names a file skipped for its own."""
    home = tmp_path / "home"
    corpus = write_corpus(tmp_path / "corpus")
    folder = corpus["md"].parent
    for name in ("1.png", "2.png", "3.png"):
        (folder / name).write_bytes(b"\x89PNG")
    (folder / "broken.pdf").write_bytes(b"junk")
    out = run("ingest", str(folder), "--kb", "notes", home=home).stdout
    assert out.count(".png") == 2, out  # the reason, and the one file shown as an example
    assert "3 items" in out and "broken.pdf" in out


def test_errors_are_one_clear_line(tmp_path):
    home = tmp_path / "home"
    corpus = write_corpus(tmp_path / "corpus")
    run("ingest", str(corpus["txt"]), "--kb", "alpha", home=home)
    unknown = run("kb", "search", "tides", "--kb", "beta", home=home, check=False)
    assert unknown.returncode == 2
    assert "unknown knowledge base 'beta'; existing: alpha" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    empty = run("kb", "search", "  ", "--kb", "alpha", home=home, check=False)
    assert empty.returncode == 2 and "query is empty" in empty.stderr
    bad_mode = run("kb", "search", "x", "--kb", "alpha", "--mode", "magic", home=home, check=False)
    assert bad_mode.returncode == 2 and "--mode must be" in bad_mode.stderr


def test_models_lists_tiers_and_names_an_unreachable_model(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[models.models.gateway]\nprovider = "openai"\nmodel = "served-model"\n'
        'base_url = "http://127.0.0.1:9/v1"\ntimeout_s = 5\n'
        '[models.tiers]\nhigh = ["gateway", "embedded"]\n', encoding="utf-8")
    listing = json.loads(run("models", "--no-check", "--json", home=home).stdout)
    assert {m["name"]: m["tiers"] for m in listing["models"]} == {
        "gateway": ["high"], "embedded": ["low", "medium", "high"]}
    checked = run("models", "--json", home=home, check=False)
    assert checked.returncode == 1
    rows = {m["name"]: m for m in json.loads(checked.stdout)["models"]}
    assert rows["embedded"]["ok"] is True and rows["embedded"]["reply"]
    assert rows["gateway"]["ok"] is False
    assert "model 'gateway' (openai at http://127.0.0.1:9/v1) unreachable" in rows["gateway"]["error"]


@pytest.mark.slow
def test_demo_builds_python_docs_and_researches_it(tmp_path):
    home = tmp_path / "home"
    result_path = tmp_path / "demo.json"
    first = run("demo", "--json", str(result_path), home=home)
    assert "python-docs" in first.stderr and "documents added" in first.stderr
    assert "Sources" in first.stdout and "[S1]" in first.stdout
    result = json.loads(result_path.read_text())
    assert result["status"] == "completed" and result["mode"] == "hierarchical"
    assert len(result["sub_questions"]) >= 2 and result["fact_sheets"]
    assert all(sq["synthesis"] for sq in result["sub_questions"])
    cited = [s for s in result["sources"] if s["cited"]]
    assert cited and all(s["doc_id"].startswith("pydoc:") for s in cited)
    # the Sources list reads one source per line in the terminal
    assert not any("[S1]" in line and "[S2]" in line for line in first.stdout.splitlines()
                   if "—" in line), first.stdout
    # a finished session exports as a Word document that reads back with its citations linked
    docx_path = tmp_path / "report.docx"
    exported = run("sessions", "export", result["session_id"], "--format", "docx",
                   "--out", str(docx_path), home=home)
    assert "Wrote" in exported.stdout
    import docx

    document = docx.Document(str(docx_path))
    assert document.paragraphs[0].style.name == "Heading 1"
    assert "w:anchor=\"source_S1\"" in document.element.xml
    unknown = run("research", "anything", "--kb", "python-docs", "--out", str(tmp_path / "r.txt"),
                  home=home, check=False)
    assert unknown.returncode == 2 and "use .md, .html, .pdf or .docx" in unknown.stderr
    second = run("demo", home=home)
    assert "(0 documents added)" in second.stderr, "the demo knowledge base is built once"
    hits = json.loads(run("kb", "search", "context manager __enter__ __exit__", "--kb",
                          "python-docs", "-k", "3", "--json", home=home).stdout)
    assert any(h["doc_id"] in ("pydoc:with", "pydoc:context-managers") for h in hits), hits
