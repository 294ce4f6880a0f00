"""The same knowledge base code against a real `chroma run` server on loopback."""

import sys
from pathlib import Path

import pytest

from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry
from tests.fixtures import write_corpus
from tests.servers import chroma_server

CHROMA = Path(sys.executable).parent / "chroma"


@pytest.mark.skipif(not CHROMA.exists(), reason="the chroma CLI is not installed")
def test_knowledge_base_on_a_chroma_server(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "corpus")
    with chroma_server(tmp_path / "server-data", CHROMA) as url:
        monkeypatch.setenv("RESEARCH_STUDIO_KNOWLEDGE__CHROMA_URL", url)
        first = load_context(tmp_path / "home-a")
        second = load_context(tmp_path / "home-b")
        writer = KnowledgeBaseRegistry(first.kb_dir, first.settings.knowledge)
        summary = writer.open("team", create=True).ingest_paths([corpus["md"].parent])
        assert summary.documents_added == 8
        assert not (first.kb_dir / "chroma").exists(), "nothing is stored locally"
        # another home pointing at the same server sees the shared knowledge base
        reader = KnowledgeBaseRegistry(second.kb_dir, second.settings.knowledge)
        assert [info.name for info in reader.list()] == ["team"]
        kb = reader.open("team")
        assert kb.search("ocean tides and the moon", k=1)[0].title == "Tides"
        assert kb.search("ocean tides and the moon", k=1, mode="bm25")[0].title == "Tides"
        # a write from one client is seen by the other's lexical index
        (tmp_path / "new.md").write_text("# Auroras\n\nAuroras glow near the poles.",
                                         encoding="utf-8")
        writer.open("team").ingest_paths([tmp_path / "new.md"])
        assert kb.search("auroras poles", k=1, mode="bm25")[0].title == "Auroras"
