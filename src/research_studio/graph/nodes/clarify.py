"""Clarification (seeds 003 + 002): retrieval-informed questions, asked with interrupt().

Each round generates 3 queries (original, broader, alternative angle; later rounds
address the gaps), retrieves k=3 chunks per query, deduplicates against what was already
retrieved, estimates coverage and gaps, and asks 2–3 grounded questions. The loop ends on
``/end``, on convergence (coverage, dedup ratio, few gaps) or after ``hitl_max_iterations``.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from spacy.tokens import Token

from research_studio.config import ResearchConfig
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import (
    ask_structured,
    quote_untrusted,
    research_query,
)
from research_studio.graph.nodes.schemas import CoverageOutput
from research_studio.graph.text_analysis import content_terms
from research_studio.state import ResearchState
from research_studio.understanding.names import entities
from research_studio.understanding.parser import parse

END_COMMANDS = {"/end", "/done", "/skip"}


def clarification_queries(state: ResearchState, config: ResearchConfig) -> list[str]:
    """Round 0: original, broader, alternative angle; later: gap-addressing queries."""
    query = research_query(state)
    analysis = state.get("query_analysis", {})
    subject = analysis.get("primary_subject") or query
    if not state.get("hitl_iteration"):
        focus = analysis.get("topic_focus") or ""
        # original, broader (the subject), alternative angle (with the focus, or the subject's
        # background when the question has no separate focus)
        candidates = [query, subject, f"{subject} {focus}".strip() if focus else "",
                      f"{subject} background", f"{subject} examples"]
    else:
        gaps = state.get("knowledge_gaps_hitl") or []
        candidates = [f"{subject} {gap}" for gap in gaps] + [query]
    unique = list(dict.fromkeys(c.strip() for c in candidates if c.strip()))
    return unique[:config.hitl_queries]


def _asks_the_reader(verb: Token) -> bool:
    """A verb of the request itself: an instruction ("Explain …", "tell me …"), or one
    whose subject is the person asking or the one asked ("Can you tell …", "I want to
    know …"), or the complement of such a verb ("want to *know*")."""
    if verb.pos_ not in ("VERB", "AUX"):
        return False
    subjects = [c for c in verb.children if c.dep_.startswith("nsubj")]
    if any(s.morph.get("Person") in (["1"], ["2"]) for s in subjects):
        return True
    if verb.tag_ == "VB" and not subjects and verb.dep_ in ("ROOT", "conj"):
        return True
    return verb.dep_ in ("xcomp", "conj") and verb.head is not verb and _asks_the_reader(verb.head)


def asked_terms(query: str) -> set[str]:
    """The content terms of what the question asks about, without the words of the
    request around it ("Can you tell me about …", "Explain …", "please") or its
    prepositions: those are never a gap to ask the person about ("Nothing was found yet
    about tell" was a real question this step asked). Read from the parse; all content
    terms when it cannot be parsed."""
    doc = parse(query)
    if doc is None:
        return content_terms(query)
    kept = [t.text for t in doc if t.pos_ not in ("INTJ", "ADP") and not _asks_the_reader(t)]
    return content_terms(" ".join(kept))


def deterministic_coverage(query: str, texts: list[str]) -> tuple[float, list[str]]:
    """Coverage = share of the question's content terms found in the retrieved text;
    gaps = the terms that are missing. Words of the request itself do not count."""
    wanted = asked_terms(query)
    if not wanted:
        return 0.0, []
    found = content_terms(" ".join(texts))
    missing = sorted(wanted - found)
    return round(1 - len(missing) / len(wanted), 3), missing[:4]


def template_questions(subject: str, gaps: list[str], texts: list[str]) -> list[str]:
    """Grounded questions without a capable model: name what was found and what was not."""
    found = [e for e in entities(" ".join(texts), limit=6) if e.lower() not in subject.lower()]
    questions = []
    if found:
        questions.append(f"The knowledge base mentions {', '.join(found[:3])}. "
                         "Which of these matters most for your question?")
    if gaps:
        questions.append(f"Nothing was found yet about {', '.join(gaps[:2])}. "
                         "Can you say more about what you mean?")
    questions.append(f"Is there a period, place or context the research on {subject[:80]} "
                     "should focus on?")
    return questions[:3]


def converged(coverage: float, dedup_ratio: float, gaps: int, config: ResearchConfig) -> bool:
    return (coverage >= config.hitl_coverage_threshold
            and dedup_ratio >= config.hitl_dedup_threshold and gaps <= config.hitl_max_gaps)


async def clarify_retrieve_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    deps = runtime.context
    config = state["config"]
    query = " ".join([state["query"], *(h["answer"] for h in state.get("clarification_history", []))])
    queries = clarification_queries(state, config)
    earlier = {c["chunk_id"] for c in state.get("query_retrieval", [])}
    this_round: set[str] = set()
    new_chunks, duplicates, total = [], 0, 0
    for text in queries:
        for hit in deps.kb.search(text, k=config.hitl_k) if deps.kb else []:
            if hit.chunk_id in this_round:
                continue  # the same chunk from two queries of one round counts once
            this_round.add(hit.chunk_id)
            total += 1
            if hit.chunk_id in earlier:  # seed 002: dedup against what was retrieved before
                duplicates += 1
                continue
            new_chunks.append({"chunk_id": hit.chunk_id, "title": hit.title, "text": hit.text,
                               "location": hit.location, "query": text})
    dedup_ratio = round(duplicates / total, 3) if total else 0.0
    chunks = [*state.get("query_retrieval", []), *new_chunks]
    texts = [c["text"] for c in chunks]
    coverage, gaps = deterministic_coverage(query, texts)
    subject = state.get("query_analysis", {}).get("primary_subject") or query
    questions = template_questions(subject, gaps, texts)
    method = "deterministic"
    if deps.coordinator.is_strong("medium") and chunks:
        context = "\n".join(quote_untrusted(c["title"], c["text"], 600) for c in chunks[-9:])
        answers = "\n".join(h["answer"] for h in state.get("clarification_history", []))
        result = await ask_structured(
            deps, CoverageOutput, prompt="clarify", tier="medium", node="clarify",
            user=f"Question: {query}\nAnswers so far: {answers or 'none'}\n\n{context}",
            fallback=lambda: CoverageOutput(coverage=0.1, gaps=gaps, questions=questions[:3]
                                            if len(questions) >= 2 else [*questions, subject]))
        if result.path != "fallback":
            coverage, gaps, questions, method = (float(result.value.coverage),
                                                 result.value.gaps, result.value.questions, "llm")
    iteration = state.get("hitl_iteration", 0)
    status = "asking"
    if converged(coverage, dedup_ratio, len(gaps), config):
        status = "converged"
    elif iteration >= config.hitl_max_iterations:
        status = "max_iterations"
    return {
        "stage": "clarify", "hitl_queries": queries, "query_retrieval": new_chunks,
        "retrieval_dedup_ratios": [*state.get("retrieval_dedup_ratios", []), dedup_ratio],
        "retrieval_coverage": coverage, "knowledge_gaps_hitl": gaps,
        "pending_questions": questions, "clarification_status": status,
        "trace": [{"node": "clarify", "round": iteration, "coverage": coverage,
                   "dedup_ratio": dedup_ratio, "gaps": len(gaps), "decision": status,
                   "method": method}],
    }


async def clarify_ask_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    """Pause the graph for the person's answer (``/end`` stops the clarification)."""
    payload = {"questions": state.get("pending_questions", []),
               "round": state.get("hitl_iteration", 0),
               "coverage": state.get("retrieval_coverage", 0.0),
               "gaps": state.get("knowledge_gaps_hitl", []),
               "sources": list(dict.fromkeys(c["title"] for c in state.get("query_retrieval", [])))[:9]}
    runtime.context.emit("clarification", payload)
    answer = str(interrupt(payload) or "").strip()
    iteration = state.get("hitl_iteration", 0) + 1
    if not answer or answer.lower() in END_COMMANDS:
        return {"clarification_status": "ended", "hitl_iteration": iteration,
                "trace": [{"node": "clarify_ask", "decision": "ended"}]}
    history = [*state.get("clarification_history", []),
               {"questions": payload["questions"], "answer": answer[:2000]}]
    clarified = f"{state['query']} ({'; '.join(h['answer'] for h in history)})"
    return {"clarification_history": history[-1:], "clarified_query": clarified,
            "hitl_iteration": iteration, "clarification_status": "answered",
            "trace": [{"node": "clarify_ask", "decision": "answered"}]}
