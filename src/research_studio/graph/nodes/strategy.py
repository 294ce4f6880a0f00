"""select_strategy (seeds 000/001): plan 1–3 search tasks for the next iteration.

Breadth searches the sub-question (and any refinement queries from gap detection);
depth follows the entities found in evidence — the retrieval-driven hops that let a
multi-hop question reach its second and third paragraph; hybrid mixes both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from research_studio.config import ResearchConfig
from research_studio.graph.text_analysis import content_terms, hop_terms, linked_entities, titled_passage
from research_studio.state import Finding, Source, SubQuestion, searched_text, source_blocks


@dataclass(frozen=True)
class Task:
    tool: str  # "kb" or "web"
    query: str
    kind: str  # breadth | depth | refinement


def follow_up_queries(sub_question: SubQuestion, findings: list[Finding],
                      sources: dict[str, Source], limit: int,
                      specificity: Callable[[str], float] | None = None,
                      asked_kind_weight: float = 1.0) -> list[str]:
    """Entity hops: the name in each piece of the best evidence most connected to the
    question (and most specific in the collection) that the question does not mention,
    paired with the question terms that evidence did not answer — those of the clause
    just outside the one it answered first, so a chain climbs one hop at a time."""
    question = searched_text(sub_question)
    chain = sub_question.get("hop_clauses") or [question]  # the clauses the hops climb
    asked = f"{question} {' '.join(chain)}".lower()
    done = {q.lower() for q in sub_question.get("queries_done", [])}
    queries: list[str] = []
    for finding in sorted(findings, key=lambda f: -f.get("confidence", 0.0)):
        source = sources.get(finding["source_id"], {})
        passage = source.get("text", finding["text"])
        missing = hop_terms(chain, content_terms(f"{source.get('title', '')} {passage}"))
        # the finding's own sentence ranks above the rest of its passage, which is read
        # without the code blocks recorded in it (none when the finding stands for it)
        blocks = source_blocks(source) if "text" in source else None
        titled = titled_passage(source.get("title", ""), passage, blocks)
        candidates = linked_entities(question, [finding["text"], titled],
                                     specificity, limit=8, asked_kind_weight=asked_kind_weight)
        for entity in candidates:
            if entity.lower() in asked or any(entity.lower() in q for q in done):
                continue
            query = f"{entity} {' '.join(missing[:5])}".strip()
            if query.lower() not in done and query not in queries:
                queries.append(query)
            break  # one hop per piece of evidence keeps the hops diverse
        if len(queries) >= limit:
            break
    return queries


def select_strategy(sub_question: SubQuestion, iteration: int, findings: list[Finding],
                    sources: dict[str, Source], config: ResearchConfig,
                    web_enabled: bool, specificity: Callable[[str], float] | None = None,
                    follow_ups: list[str] | None = None) -> list[Task]:
    """``follow_ups``: the depth (follow-up) queries, when the caller already computed them for this
    evidence (``follow_up_queries`` with ``max_tasks_per_iteration``)."""
    limit = max(1, config.max_tasks_per_iteration)
    done = {q.lower() for q in sub_question.get("queries_done", [])}
    breadth = [searched_text(sub_question), *sub_question.get("queued_queries", [])]
    breadth = [q for q in dict.fromkeys(breadth) if q.lower() not in done]
    if follow_ups is None:
        follow_ups = follow_up_queries(sub_question, findings, sources, limit, specificity,
                                       config.asked_kind_weight)
    if config.strategy == "breadth" or (iteration == 0 and config.strategy != "depth"):
        ordered = [Task("kb", q, "breadth") for q in breadth] + [Task("kb", q, "depth") for q in follow_ups]
    elif config.strategy == "depth":
        ordered = [Task("kb", q, "depth") for q in follow_ups] + [Task("kb", q, "breadth") for q in breadth]
    else:  # hybrid: alternate hops and remaining breadth queries
        ordered = []
        for pair in zip(follow_ups, breadth, strict=False):
            ordered += [Task("kb", pair[0], "depth"), Task("kb", pair[1], "breadth")]
        ordered += [Task("kb", q, "depth") for q in follow_ups[len(breadth):]]
        ordered += [Task("kb", q, "breadth") for q in breadth[len(follow_ups):]]
    unique: dict[str, Task] = {}
    for task in ordered:
        unique.setdefault(task.query.lower(), task)
    tasks = list(unique.values())[:limit]
    if web_enabled and iteration == 0 and tasks:
        tasks = [*tasks[:limit - 1], Task("web", searched_text(sub_question), "breadth")]
    return tasks
