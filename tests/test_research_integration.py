"""Full research runs with the real embedded model over a real knowledge base."""

import asyncio
import re

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.session import resume_research, run_research
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.store.backends import open_checkpointer, storage_backend
from tests.research_corpus import QUESTION, write_research_corpus

pytestmark = pytest.mark.slow

CLAIM_STATUSES = {"cross_validated", "verified", "single_source", "unverified"}


@pytest.fixture(scope="module")
def research_home(tmp_path_factory):
    from research_studio.config import load_context

    ctx = load_context(tmp_path_factory.mktemp("research-home"))
    corpus = write_research_corpus(tmp_path_factory.mktemp("corpus"))
    KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge).open("bridges", create=True) \
        .ingest_paths([corpus])
    return ctx


def _run(ctx, **config):
    return asyncio.run(run_research(ctx, QUESTION, ResearchConfig(kb="bridges", clarify="never",
                                                                   **config)))


def assert_contract(result: dict) -> None:
    """The result JSON keys and types other tools rely on (DESIGN.md)."""
    for key in ("session_id", "query", "status", "mode", "query_analysis", "sub_questions",
                "fact_sheets", "claims", "sources", "report_markdown", "metrics", "usage"):
        assert key in result, key
    for sq in result["sub_questions"]:
        for key in ("sub_question_id", "question_text", "priority", "rationale", "status",
                    "iteration_count", "findings", "synthesis"):
            assert key in sq, key
        assert re.fullmatch(r"sq_\d{3}", sq["sub_question_id"])
        assert 0.0 <= sq["priority"] <= 1.0
    for claim in result["claims"]:
        assert claim["status"] in CLAIM_STATUSES and isinstance(claim["source_ids"], list)
    for source in result["sources"]:
        for key in ("sid", "title", "location", "chunk_id", "doc_id"):
            assert key in source, key
    assert {"overall_confidence", "hallucination_score"} <= set(result["metrics"])
    for key in ("llm_calls", "prompt_tokens", "completion_tokens", "cost_usd", "wall_s", "node_s"):
        assert key in result["usage"], key
    usage = result["usage"]  # the encoder runs in every session: its time is counted
    assert usage["embed_s"] > 0 and usage["model_s"] >= 0 and usage["other_s"] >= 0
    assert usage["embed_s"] + usage["other_s"] <= usage["wall_s"] + 0.01


def assert_citations_resolve(result: dict, ctx) -> None:
    """Every [S#] in the report names a source whose text is the stored chunk, and every
    reported claim's quote lies inside one of its sources."""
    kb = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge).open("bridges")
    by_sid = {s["sid"]: s for s in result["sources"]}
    cited = set(re.findall(r"\[(S\d+)\]", result["report_markdown"]))
    assert cited, "the report cites nothing"
    for sid in cited:
        source = by_sid[sid]
        assert source["cited"]
        [stored] = kb.get_chunks([source["chunk_id"]])
        assert stored.text == source["text"]
        assert (stored.start, stored.end) == (source["start"], source["end"])
    reported = [c for c in result["claims"] if c["status"] != "unverified"]
    assert reported
    sources = {s["source_id"]: s for s in result["sources"]}
    for claim in reported:
        span = claim["verification"]
        text = sources[span["source_id"]]["text"]
        assert 0 <= span["start"] < span["end"] <= len(text)


def test_hierarchical_run(research_home):
    result = _run(research_home, mode="hierarchical")
    assert result["status"] == "completed" and result["mode"] == "hierarchical"
    assert_contract(result)
    assert 2 <= len(result["sub_questions"]) <= 5
    assert all(sq["status"] == "completed" and sq["synthesis"] for sq in result["sub_questions"])
    assert len(result["fact_sheets"]) == len(result["sub_questions"])
    assert_citations_resolve(result, research_home)
    report = result["report_markdown"]
    assert any(marker in report for marker in ("✓✓", "✓", "⚠"))
    assert "## Sources" in report and "## Research metadata" in report
    titles = {s["title"] for s in result["sources"] if s["cited"]}
    assert "Millau Viaduct" in titles
    # the second hop: the engineer's other bridge is reached through retrieved evidence
    assert {"Michel Virlogeux", "Normandy Bridge"} & titles, titles
    # the embedded model is asked neither to analyse nor to plan: the parse does both
    assert "analyze" not in result["usage"]["by_node"] and "analyze" in result["usage"]["node_s"]
    assert "plan" not in result["usage"]["by_node"] and "plan" in result["usage"]["node_s"]
    assert result["query_analysis"]["method"] == "offline"
    # fact statements carry citations: every bullet under the sub-questions does
    findings_section = report.split("## Findings by sub-question")[1].split("\n## ")[0]
    bullets = [line for line in findings_section.splitlines() if line.startswith("- ")
               and "holds no evidence on this part" not in line]
    assert bullets and all(re.search(r"\[S\d+\]", line) for line in bullets)


def test_flat_run(research_home):
    result = _run(research_home, mode="flat")
    assert result["status"] == "completed" and result["mode"] == "flat"
    assert_contract(result)
    assert len(result["sub_questions"]) == 1
    assert result["metrics"]["decomposition_path"] == "flat"
    assert_citations_resolve(result, research_home)
    # the finished session keeps its stored result, not its checkpoints
    assert asyncio.run(_checkpoints_of(research_home, result["session_id"])) == 0
    assert asyncio.run(resume_research(research_home, result["session_id"])) == result


async def _checkpoints_of(ctx, session_id: str) -> int:
    async with open_checkpointer(storage_backend(ctx)) as saver:
        return len([c async for c in saver.alist({"configurable": {"thread_id": session_id}})])
