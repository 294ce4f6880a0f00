"""execute (seeds 001/003): run search tasks against the knowledge base and the web.

Every result becomes a Source holding the exact stored span, so later stages can verify
claims against it. A failing web provider is recorded and research goes on with the KB.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass

from research_studio.config import ResearchConfig
from research_studio.errors import WebUnavailable
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.strategy import Task
from research_studio.graph.text_analysis import term_overlap
from research_studio.knowledge.chunking import chunk_spans
from research_studio.knowledge.sections import section_at
from research_studio.knowledge.structure import (
    ChunkCuts,
    announced_stretches,
    clip_blocks,
    definition_rows,
    find_blocks,
)
from research_studio.state import Source
from research_studio.web.fetch import fetch_page
from research_studio.web.providers import search_web


@dataclass
class Retrieved:
    source: Source
    rank: int
    query: str


def _kb_search(deps: ResearchDeps, task: Task, k: int, sq_id: str) -> list[Retrieved]:
    if deps.kb is None:
        return []
    out = []
    for rank, hit in enumerate(deps.kb.search(task.query, k=k)):
        source = Source(source_id=f"kb:{hit.kb}:{hit.chunk_id}", kind="kb", title=hit.title,
                        location=hit.location, url="", kb=hit.kb, doc_id=hit.doc_id,
                        chunk_id=hit.chunk_id, text=hit.text, start=hit.start, end=hit.end,
                        retrieval_score=hit.score, sub_question_ids=[sq_id])
        if hit.lead is not None and hit.tail is not None:
            source.update(lead=hit.lead, tail=hit.tail)
        if hit.blocks is not None:
            source["blocks"] = [[b.start, b.end, b.kind] for b in hit.blocks]
        if hit.copy_of:
            source["copy_of"] = hit.copy_of
        if hit.ends_document is not None:
            source["ends_document"] = hit.ends_document
        if hit.section:
            source["section"] = hit.section
            if hit.anchor:
                source["anchor"] = hit.anchor
        if hit.terms:  # already relative to the chunk's text, as a web span's are made
            source["terms"] = definition_rows(hit.terms, 0, len(hit.text))
        out.append(Retrieved(source, rank, task.query))
    return out


def _web_search(deps: ResearchDeps, task: Task, sq_id: str) -> tuple[list[Retrieved], str | None]:
    outcome = search_web(deps.web, task.query)
    if not outcome.available:
        return [], outcome.error
    out = []
    for rank, result in enumerate(outcome.results[:deps.web.pages_per_search]):
        text, start, title = result.snippet, 0, result.title
        structure: dict = {}
        try:
            page = fetch_page(result.url, deps.web)
            blocks = page.blocks if page.blocks is not None else find_blocks(page.text)
            cuts = ChunkCuts(page.text, blocks)
            spans = chunk_spans(page.text, deps.web.page_span_chars, deps.web.page_span_overlap,
                                keep_together=announced_stretches(page.text, blocks, cuts.units))
            if spans:
                best = max(spans, key=lambda s: term_overlap(task.query, page.text[s.start:s.end]))
                text, start = page.text[best.start:best.end], best.start
                title = page.title or title
                lead, tail = cuts.at(best.start, best.end)
                structure = {"lead": lead, "tail": tail, "ends_document": best is spans[-1], "blocks": [
                    [b.start, b.end, b.kind] for b in clip_blocks(blocks, best.start, best.end)]}
                if page.definitions:
                    structure["terms"] = definition_rows(page.definitions, best.start, best.end)
                section = section_at(page.sections, best.start, deps.web.page_span_overlap)
                if section is not None:
                    structure["section"] = section.title
                    if section.anchor:
                        structure["anchor"] = section.anchor
        except WebUnavailable:
            pass  # keep the search snippet as the stored span
        if not text.strip():
            continue
        key = hashlib.sha256(f"{result.url}#{start}".encode()).hexdigest()[:16]
        source = Source(source_id=f"web:{key}", kind="web", title=title[:200], location=result.url,
                        url=result.url, kb="", doc_id=result.url, chunk_id=key, text=text,
                        start=start, end=start + len(text), retrieval_score=1.0 / (1 + rank),
                        sub_question_ids=[sq_id], **structure)
        out.append(Retrieved(source, rank, task.query))
    return out, None


async def execute_tasks(deps: ResearchDeps, tasks: list[Task], config: ResearchConfig,
                        sq_id: str) -> tuple[list[Retrieved], list[str]]:
    """Run the tasks (blocking searches in worker threads); returns results and errors."""
    retrieved: list[Retrieved] = []
    errors: list[str] = []
    for task in tasks:
        if task.tool == "web":
            results, error = await asyncio.to_thread(_web_search, deps, task, sq_id)
            if error:
                errors.append(error)
        else:
            results = await asyncio.to_thread(_kb_search, deps, task, config.results_per_query, sq_id)
        retrieved.extend(results)
    return retrieved, errors
