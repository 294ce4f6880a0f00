"""Plan (seeds 000, 001, 003): sub-questions with priorities, outline and budgets.

A model trusted to reason proposes a decomposition; it is kept only if it is useful (2–5
distinct sub-questions that ask about the question and are not copies of it). Otherwise,
and always with the embedded model, a deterministic, retrieval-driven decomposition is
used; flat mode researches the question as one sub-question. The path taken is recorded.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from research_studio.config import ResearchConfig
from research_studio.graph.answer_kind import rank_by_kind
from research_studio.graph.deps import ResearchDeps, SimilarityFn
from research_studio.graph.nodes.analyze import structure_hint
from research_studio.graph.nodes.common import ask_structured, research_query
from research_studio.graph.nodes.schemas import DecompositionOutput
from research_studio.graph.plan_edits import next_ids
from research_studio.graph.text_analysis import (
    content_terms,
    distinct_entities,
    heaviest,
    linked_entities,
    linked_weights,
    titled_passage,
)
from research_studio.knowledge.base import KnowledgeBase, SearchHit
from research_studio.knowledge.structure import TITLE
from research_studio.state import ResearchState, SubQuestion
from research_studio.understanding import QuestionKind, QuestionStructure, decompose, understand
from research_studio.understanding.decompose import (
    PlanRow,
    anchor_question,
    background_question,
    linked_questions,
    next_hop_questions,
)
from research_studio.understanding.facets import asks
from research_studio.understanding.names import without_possessive
from research_studio.understanding.parser import parse


def allocate_iterations(priorities: list[float], config: ResearchConfig) -> list[int]:
    """Seed 001 section 5.1: (max_iterations − decomposition − meta-synthesis) shared by
    priority weight, rounded half up, clamped to the per-sub-question min and max."""
    research_budget = max(0, config.max_iterations - 2)
    total = sum(priorities) or 1.0
    return [min(config.sub_question_max_iterations,
                max(config.sub_question_min_iterations,
                    math.floor(research_budget * p / total + 0.5))) for p in priorities]


def allocate_cost(count: int, config: ResearchConfig) -> dict[str, float]:
    """Seed 001 section 5.2: reserve the syntheses, share the rest equally."""
    reserved = (config.decomposition_cost_usd + count * config.sub_question_synthesis_cost_usd
                + config.meta_synthesis_cost_usd)
    research = max(0.0, config.max_total_cost_usd - reserved)
    return {"total_usd": config.max_total_cost_usd, "reserved_synthesis_usd": round(reserved, 4),
            "research_usd": round(research, 4),
            "per_sub_question_usd": round(research / count, 4) if count else 0.0}


def asks_something(text: str) -> bool:
    """A sub-question asks: it ends with a question mark, or its parse opens with a
    question word, an inverted auxiliary ("Is …", "Did …") or an instruction ("List …",
    "Describe …"). A bare "17th century", "Grease" or a refusal ("The answer is not
    available in the document.") — all proposed by the embedded model — does not."""
    if text.rstrip().endswith("?"):
        return True
    doc = parse(text)
    if doc is None or not len(doc):
        return False
    first = doc[0]
    return asks(doc[:]) or (first.tag_ == "VB" and first.dep_ == "ROOT")


def repeats_itself(text: str, span: int = 3) -> bool:
    """A generation loop ("the original name of the original name of …"): some run of
    ``span`` words occurs three times or more."""
    words = text.lower().split()
    runs = Counter(tuple(words[i:i + span]) for i in range(len(words) - span + 1))
    return any(count >= 3 for count in runs.values())


def useful_sub_questions(question: str, proposed: list[str], config: ResearchConfig,
                         similarity: SimilarityFn) -> list[int]:
    """Indexes of proposed sub-questions that ask something about the question (they share
    a content term with it), are neither copies of it nor duplicates of each other (the
    same content words, or the same meaning: the sentence encoder, with thresholds
    calibrated in config), and are not a model's generation loop."""
    asked = content_terms(question)
    terms = [content_terms(text) for text in proposed]
    to_question = similarity(proposed, [question])[:, 0] if proposed else []
    between = similarity(proposed, proposed)
    kept: list[int] = []
    for i, text in enumerate(proposed):
        if not terms[i] & asked or not asks_something(text) or repeats_itself(text):
            continue
        # the same content words, or the same meaning
        if terms[i] == asked or to_question[i] >= config.sub_question_copy_similarity:
            continue
        if any(terms[i] == terms[j] or between[i, j] >= config.sub_question_duplicate_similarity
               for j in kept):
            continue
        kept.append(i)
    return kept[:config.max_sub_questions]


def chain_decomposition(question: str, structure: QuestionStructure, deps: ResearchDeps,
                        config: ResearchConfig) -> list[PlanRow]:
    """A nested question ("the county where the city where X was born is located") is a
    chain of hops: research its innermost clause alone (it names the anchor), and the next
    clause out through each entity that clause's evidence links to, each asked as a
    question and searched as the clause (with the entity). Empty when the
    question has no nested clause or there is no knowledge base to link through."""
    parts, anchor = structure.clauses, structure.anchor
    if len(parts) < 2 or anchor is None or deps.kb is None:
        return []
    plan = [PlanRow(question, 1.0, "the question itself, researched directly"),
            PlanRow(anchor_question(anchor), 0.9,
                    "innermost clause: it names the anchor of the chain", anchor)]
    hits = deps.kb.search(anchor, k=5)
    # rarity counts linearly here, not squared as for the whole question: the short clause
    # already puts its own passage first
    linked = linked_entities(parts[-1], [titled_passage(h.title, h.text, h.blocks) for h in hits],
                             deps.kb.specificity_scorer(), rarity_power=1.0, limit=8,
                             asked_kind_weight=config.asked_kind_weight)
    if structure.asked_kind:  # "the country where …": follow the names that read like a country
        linked = rank_by_kind(structure.asked_kind, linked, deps.similarity)
    hops = distinct_entities(linked)[:max(0, config.max_sub_questions - len(plan))]
    for entity, text in zip(hops, next_hop_questions(hops, structure), strict=True):
        plan.append(PlanRow(text, 0.8, f"next hop: the anchor's evidence links to {entity}",
                            f"{entity} — {parts[-2]}"))
    return plan


def written_about(name: str, kb: KnowledgeBase, depth: int) -> bool:
    """The knowledge base has a page, a section or a definition about ``name``: among the
    first ``depth`` passages a search for it returns, one whose title, a heading (the one
    it stands under or one inside it) or a definition list term ("shared_buffers
    (integer)") holds each of its words. A name that is only mentioned (a contributor
    credited in release notes, "HUP" in a list of signals) is linked to the question as
    strongly as one that is a subject of its own, but a sub-question after it finds
    nothing more about it to tell."""
    words = content_terms(without_possessive(name))
    return bool(words) and any(words <= content_terms(label)
                               for hit in kb.search(name, k=depth) for label in _labels(hit))


def _labels(hit: SearchHit) -> list[str]:
    """What names a passage's subject: its page's title, its section's heading, the
    headings and definition terms inside it."""
    inside = [hit.text[b.start:b.end] for b in hit.blocks or () if b.kind == TITLE]
    return [hit.title, hit.section, *inside, *(d.term for d in hit.terms)]


def retrieval_decomposition(question: str, structure: QuestionStructure, deps: ResearchDeps,
                            config: ResearchConfig) -> list[PlanRow]:
    """The question itself plus the entities the knowledge base links it to
    (retrieval-driven hops), then background on its subject. A question that is not
    English is researched as it stands."""
    plan = [PlanRow(structure.as_question, 1.0, "the question itself, researched directly")]
    if not structure.english:
        return plan
    if deps.kb is not None:
        hits = deps.kb.search(question, k=5)
        passages = [titled_passage(h.title, h.text, h.blocks) for h in hits]
        weights = linked_weights(question, passages, deps.kb.specificity_scorer(),
                                 asked_kind_weight=config.asked_kind_weight)
        linked = distinct_entities(heaviest(weights, min_weight=config.min_linked_weight))
        wanted = max(0, config.max_sub_questions - 2)
        followed = [name for name in linked[:wanted]
                    if weights[name] >= config.linked_beside_question_weight
                    or written_about(name, deps.kb, config.linked_heading_depth)]
        # each searched as the question itself seen through the linked entity
        asked = structure.premised_question or structure.as_question
        for entity, text in zip(followed, linked_questions(followed, asked), strict=True):
            plan.append(PlanRow(text, 0.7, f"entity linked to the question in retrieved evidence: {entity}",
                                f"{entity} — {question}"))
    subject = structure.written_topic or (structure.entities[0] if structure.entities else "")
    if (subject or structure.action) and len(plan) < config.max_sub_questions:
        plan.append(PlanRow(background_question(subject, structure.action), 0.5,
                            "background on the main subject"))
    return plan[:config.max_sub_questions]


def offline_decomposition(question: str, structure: QuestionStructure, deps: ResearchDeps,
                          config: ResearchConfig) -> tuple[list[PlanRow], str]:
    """Seed 001's strategies by question kind: items, facets, positions, causes or
    periods from the parse; a nested chain or the knowledge base's links otherwise."""
    rows = decompose(structure, config.max_sub_questions)
    if len(rows) >= 2:
        return rows, structure.kind.value
    chain = chain_decomposition(question, structure, deps, config)
    if len(chain) >= max(2, config.min_sub_questions):
        return chain, QuestionKind.CHAIN.value
    return retrieval_decomposition(question, structure, deps, config), "retrieval_driven"


def plan_budget(sub_questions: list[SubQuestion], config: ResearchConfig) -> dict:
    """The session's budget record: the cost split and each sub-question's iterations."""
    return {**allocate_cost(len(sub_questions), config),
            "iterations": {sq["sub_question_id"]: sq["iteration_budget"] for sq in sub_questions}}


def new_sub_question(sq_id: str, text: str, priority: float, rationale: str, strategy: str,
                     hop_clauses: list[str] | None = None, query: str = "") -> SubQuestion:
    """A pending sub-question with nothing researched yet; budgets are set by the caller.
    ``query``: its search words, where they differ from its text."""
    return SubQuestion(
        sub_question_id=sq_id, parent_question_id=None, question_text=text, depth_level=0,
        priority=priority, rationale=rationale, strategy=strategy, status="pending",
        iteration_count=0, finding_ids=[], queued_queries=[], queries_done=[], synthesis=None,
        quality_score=0.0, stop_reason="", created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        **({"hop_clauses": hop_clauses} if hop_clauses else {}),
        **({"search_query": query} if query and query != text else {}))


def with_budgets(sub_questions: list[SubQuestion], config: ResearchConfig) -> list[SubQuestion]:
    """Seed 001 §5: iterations shared by priority, cost shared equally (in place)."""
    budgets = allocate_iterations([sq["priority"] for sq in sub_questions], config)
    cost = allocate_cost(len(sub_questions), config)["per_sub_question_usd"]
    for sq, budget in zip(sub_questions, budgets, strict=True):
        sq["iteration_budget"], sq["cost_budget_usd"] = budget, cost
    return sub_questions


def sub_question_records(plan: list[PlanRow], strategy: str, config: ResearchConfig,
             hop_clauses: list[str] | None, ids: list[str]) -> list[SubQuestion]:
    rows = [PlanRow(*row) for row in plan]
    return with_budgets([new_sub_question(sq_id, row.text, row.priority, row.rationale, strategy,
                                          hop_clauses, row.query)
                         for sq_id, row in zip(ids, rows, strict=True)], config)


async def llm_decomposition(deps: ResearchDeps, question: str, subject: str, config: ResearchConfig,
                            hint: str = "") -> tuple[list[PlanRow], str, list[str]] | None:
    """The model's plan (sub-questions, strategy, outline), or None when it fails or offers
    fewer useful sub-questions than the minimum. ``hint``: what the parse found."""
    result = await ask_structured(
        deps, DecompositionOutput, prompt="plan", tier="medium", node="plan",
        user=f"Question: {question}\nMain subject: {subject}\n{hint}".strip(), max_tokens=320,
        fallback=lambda: DecompositionOutput.model_construct(strategy="multi_faceted", sub_questions=[],
                                                             outline=["Answer", "Evidence"]))
    kept = useful_sub_questions(question, [s.question for s in result.value.sub_questions], config,
                                deps.similarity)
    if result.path == "fallback" or len(kept) < config.min_sub_questions:
        return None
    chosen = [result.value.sub_questions[i] for i in kept]
    return ([(s.question, float(s.priority), s.rationale) for s in chosen],
            result.value.strategy, list(result.value.outline))


@dataclass(frozen=True)
class Plan:
    rows: list[PlanRow]
    strategy: str
    path: str  # llm | deterministic
    outline: list[str]


class Planner(Protocol):
    """The plan stage: a model's decomposition or the offline one, chosen once per run
    from the configured model's capability (``graph.stages``)."""

    async def plan(self, question: str, structure: QuestionStructure, subject: str,
                   deps: ResearchDeps, config: ResearchConfig) -> Plan: ...


class OfflinePlanner:
    async def plan(self, question: str, structure: QuestionStructure, subject: str,
                   deps: ResearchDeps, config: ResearchConfig) -> Plan:
        rows, strategy = offline_decomposition(question, structure, deps, config)
        return Plan(rows, strategy, "deterministic", [])


class ModelPlanner:
    """A model trusted to reason proposes the plan, guided by the parse; a plan it cannot
    give, or that is not useful, falls back to the offline one."""

    async def plan(self, question: str, structure: QuestionStructure, subject: str,
                   deps: ResearchDeps, config: ResearchConfig) -> Plan:
        proposed = await llm_decomposition(deps, question, subject, config, structure_hint(structure))
        if proposed is None:
            return await OfflinePlanner().plan(question, structure, subject, deps, config)
        rows, strategy, outline = proposed
        return Plan(rows, strategy, "llm", outline)


def question_structure(state: ResearchState, question: str, deps: ResearchDeps) -> QuestionStructure:
    """The structure analyze parsed; parsed again only when clarification changed the
    question."""
    stored = state.get("question_structure")
    if stored and stored.get("text") == question:
        return QuestionStructure.from_dict(stored, question)
    return understand(question, deps.embeddings.embed_array)


def planning_question(state: ResearchState) -> str:
    """The question the planner decomposes: as asked (or clarified), with the notes a
    reviewer gave when asking for a new plan. A model reads the notes as instructions;
    the offline planner parses them as part of the question."""
    question = research_query(state)
    notes = state.get("plan_review_notes", [])
    return f"{question} ({'; '.join(notes)})" if notes else question


async def plan_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    deps = runtime.context
    config = state["config"]
    question = planning_question(state)
    structure = question_structure(state, question, deps)
    subject = state.get("query_analysis", {}).get("primary_subject") or question
    outline: list[str] = []
    # ids of a plan a reviewer replaced are not reused (their events are on record)
    retired = state.get("plan_review_retired_ids", [])
    if state.get("mode") == "flat":
        budget = min(config.sub_question_max_iterations,
                     max(config.sub_question_min_iterations, config.max_iterations - 2))
        strategy, path = "flat", "flat"
        sub_questions = sub_question_records(
            [(question, 1.0, "flat research of the whole question")], strategy, config,
            structure.clauses, next_ids(retired, 1))
        sub_questions[0]["iteration_budget"] = budget
    else:
        plan = await deps.stages.planner.plan(question, structure, subject, deps, config)
        strategy, path, outline = plan.strategy, plan.path, plan.outline
        # the offline sub-questions climb the question's clause chain when it has one
        sub_questions = sub_question_records(plan.rows, strategy, config,
                                             structure.clauses if path == "deterministic" else None,
                                             next_ids(retired, len(plan.rows)))
    outline = outline or [sq["question_text"] for sq in sub_questions]
    tree = {"root": research_query(state), "strategy": strategy, "path": path,
            "question_kind": structure.kind.value,
            "children": [sq["sub_question_id"] for sq in sub_questions]}
    deps.emit("plan", {"sub_questions": sub_questions, "path": path})
    # a new plan replaces the one a reviewer turned down, whatever its length
    replaced = Overwrite(sub_questions) if state.get("sub_questions") else sub_questions
    return {"sub_questions": replaced, "decomposition_tree": tree,
            "decomposition_path": path, "outline": outline,
            "budget": plan_budget(sub_questions, config), "stage": "plan", "research_round": 0,
            "trace": [{"node": "plan", "decision": path, "strategy": strategy,
                       "sub_questions": len(sub_questions)}]}
