"""Tier 2 of seed 004: one domain synthesizer per sub-question, then the leader's
cross-domain look.

Deterministic on purpose: conflicts are settled by the seed's weighted vote and insights are
the findings' own sentences, so a weak model never gets the chance to blend or invent facts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import networkx as nx
import numpy as np
from langgraph.runtime import Runtime

from research_studio.config import ResearchConfig
from research_studio.graph.claim_check import same_facts
from research_studio.graph.contradiction import contradicting
from research_studio.graph.deps import ResearchDeps, SimilarityFn
from research_studio.graph.text_analysis import numbers_disagree, numeric_tokens
from research_studio.state import (
    DEFAULT_CONFIDENCE,
    FactSheet,
    Finding,
    KeyInsight,
    ResearchState,
    ResolvedConflict,
    Source,
    SubQuestion,
    of_other_entries,
)
from research_studio.understanding.names import names_of_each
from research_studio.understanding.parser import parse_batch

Similarity = SimilarityFn | np.ndarray

MAX_PATTERNS = 10

# spaCy's English entity labels of amounts, and of dates and times
_AMOUNT_LABELS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
_TIME_LABELS = frozenset({"DATE", "TIME"})


# ---- text features ---------------------------------------------------------------------------
def insight_types(texts: Sequence[str]) -> list[str]:
    """The coarse kind of each statement, so the writer can phrase it: "quantitative"
    when it states an amount, "temporal" a date or time, "definition" when it says what
    its subject is ("X is a Y": a copula with a nominal predicate), else "fact". Read
    with spaCy's entities and parse, in one batch; "fact" where the text cannot be read."""
    kinds = []
    for doc in parse_batch(list(texts), skip=("lemmatizer",)):
        labels = {e.label_ for e in doc.ents} if doc is not None else set()
        if labels & _AMOUNT_LABELS:
            kinds.append("quantitative")
        elif labels & _TIME_LABELS:
            kinds.append("temporal")
        elif doc is not None and any(c.dep_ == "attr" for s in doc.sents for c in s.root.children):
            kinds.append("definition")
        else:
            kinds.append("fact")
    return kinds


def as_matrix(texts: list[str], similarity: Similarity) -> np.ndarray:
    """Accept a precomputed square matrix or a similarity function."""
    if isinstance(similarity, np.ndarray):
        return similarity
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray(similarity(texts, texts))


# ---- grouping and conflicts ------------------------------------------------------------------
def source_reach(domains: dict[str, list[Finding]]) -> dict[str, float]:
    """Per source, the share of domains whose findings come from it (seed 004's shared
    sources, as a weight): evidence that the independent sub-question researches converge
    on is central to the question (MuSiQue: 70% of the supporting paragraphs a hierarchical
    run finds were found by all four sub-questions, against 23% of the other sources).
    With one domain every source reaches it fully, so a flat run's ranking is unchanged."""
    if not domains:
        return {}
    found: dict[str, set[str]] = {}
    for domain, findings in domains.items():
        for finding in findings:
            found.setdefault(finding.get("source_id", ""), set()).add(domain)
    return {source_id: len(names) / len(domains) for source_id, names in found.items()}


def group_by_domain(sub_questions: Sequence[SubQuestion],
                    findings: Sequence[Finding]) -> dict[str, list[Finding]]:
    """One domain per sub-question, in plan order; findings of unknown sub-questions dropped."""
    domains: dict[str, list[Finding]] = {sq["sub_question_id"]: [] for sq in sub_questions}
    for finding in findings:
        if finding.get("sub_question_id") in domains:
            domains[finding["sub_question_id"]].append(finding)
    return domains


def source_titles(sources: dict[str, Source]) -> dict[str, str]:
    """Each source's title, which says what a statement such as "It was built in 1932" is
    about (``contradiction.contradicting``)."""
    return {source_id: source.get("title", "") for source_id, source in sources.items()}


def contradictions(findings: Sequence[Finding], sim: np.ndarray, same_topic: float,
                   titles: dict[str, str] | None = None) -> set[tuple[int, int]]:
    """Pairs of findings (by index) that contradict each other: on the same topic (cosine
    at least ``same_topic``), with figures that disagree, stating another figure for the
    same thing (``contradiction.contradicting``; ``titles``: each source's title)."""
    texts = [f.get("text", "") for f in findings]
    numbers = [numeric_tokens(text) for text in texts]
    candidates = [(i, j) for i in range(len(findings)) for j in range(i + 1, len(findings))
                  if sim[i, j] >= same_topic and numbers_disagree(numbers[i], numbers[j])]
    sources = [f.get("source_id", "") for f in findings]
    source_titles = [(titles or {}).get(source, "") for source in sources]
    verdicts = contradicting(texts, source_titles, sources, candidates,
                             [f.get("context", "") for f in findings])
    return {pair for pair, contradict in zip(candidates, verdicts, strict=True) if contradict}


def contradiction_graph(members: Sequence[int], edges: set[tuple[int, int]]) -> nx.Graph:
    """The findings ``members`` (by index), linked where they contradict each other."""
    alive = set(members)
    graph = nx.Graph()
    graph.add_nodes_from(members)
    graph.add_edges_from((i, j) for i, j in edges if i in alive and j in alive)
    return graph


def _components(graph: nx.Graph) -> list[list[int]]:
    """Groups of two or more contradicting findings, by their first member."""
    return sorted((sorted(group) for group in nx.connected_components(graph) if len(group) > 1),
                  key=lambda group: group[0])


def conflict_groups(findings: Sequence[Finding], similarity: Similarity, same_topic: float,
                    titles: dict[str, str] | None = None) -> list[list[int]]:
    """Indices of contradicting findings, as connected components (chains count as one)."""
    sim = as_matrix([f.get("text", "") for f in findings], similarity)
    edges = contradictions(findings, sim, same_topic, titles)
    return _components(contradiction_graph(range(len(findings)), edges))


def evidence_counts(findings: Sequence[Finding], similarity: Similarity,
                    same_topic: float) -> dict[str, int]:
    """How many findings of the domain say the same thing (same topic, same numbers), self
    included — the seed's ``len(evidence)`` for findings that carry no evidence list."""
    sim = as_matrix([f.get("text", "") for f in findings], similarity)
    numbers = [numeric_tokens(f.get("text", "")) for f in findings]
    return {finding["finding_id"]: sum(1 for j in range(len(findings))
                                       if j == i or (sim[i, j] >= same_topic
                                                     and numbers[i] == numbers[j]))
            for i, finding in enumerate(findings)}


def resolve_conflict(group: Sequence[Finding],
                     evidence_counts: dict[str, int]) -> tuple[Finding, ResolvedConflict]:
    """Seed 004 ``_weighted_resolution``: the heaviest finding wins, paying for disagreement."""
    weights = [f.get("confidence", DEFAULT_CONFIDENCE)
               * (1 + 0.1 * evidence_counts.get(f["finding_id"], 1)) for f in group]
    total = sum(weights)
    normalized = [w / total for w in weights] if total > 0 else [1 / len(group)] * len(group)
    best = max(normalized)
    winner_index = normalized.index(best)  # ties: the first
    penalty = 1 - (best - min(normalized))
    winner = group[winner_index]
    confidence = round(winner.get("confidence", DEFAULT_CONFIDENCE) * penalty, 4)
    record: ResolvedConflict = {
        "topic": winner.get("text", "")[:80],
        "winner_finding_id": winner["finding_id"],
        "resolved_from": [f["finding_id"] for f in group],
        "disagreement_level": round(1 - penalty, 4),
        "winner_confidence": confidence,
    }
    return {**winner, "confidence": confidence}, record


def resolve_domain(findings: Sequence[Finding], similarity: Similarity, same_topic: float,
                   titles: dict[str, str] | None = None,
                   ) -> tuple[list[Finding], list[ResolvedConflict], list[Finding]]:
    """Settle every conflict of a domain.

    Returns (surviving findings in input order, conflict records, re-scored winners). Only
    findings that contradict a winner lose; members of a chain that agree with the winner
    survive, and the vote repeats until no contradiction is left among the survivors.
    """
    sim = as_matrix([f.get("text", "") for f in findings], similarity)
    counts = evidence_counts(findings, sim, same_topic)
    edges = contradictions(findings, sim, same_topic, titles)
    current = list(findings)
    alive = list(range(len(findings)))
    records: list[ResolvedConflict] = []
    winners: dict[int, Finding] = {}
    while True:
        graph = contradiction_graph(alive, edges)
        groups = _components(graph)
        if not groups:
            break
        for group in groups:
            winner, record = resolve_conflict([current[i] for i in group], counts)
            records.append(record)
            winner_index = next(i for i in group if current[i]["finding_id"] == winner["finding_id"])
            current[winner_index] = winners[winner_index] = winner
            alive = [i for i in alive if i not in graph.adj[winner_index]]
    return [current[i] for i in alive], records, list(winners.values())


# ---- fact sheets -----------------------------------------------------------------------------
def merge_insights(findings: Sequence[Finding], similarity: Similarity,
                   near_duplicate: float) -> list[KeyInsight]:
    """Near-duplicates become one insight (the most confident wording), sources unioned:
    findings the encoder reads as the same statement that also state the same facts
    (``claim_check.same_facts``). Without that test, facts worded alike about different
    people or seasons were merged, and the merged claim was marked cross-validated by the
    other's source. Findings under two definition-list terms are two statements however
    alike (``of_other_entries``)."""
    texts = [f.get("text", "") for f in findings]
    sim = as_matrix(texts, similarity)
    close = [(i, j) for i in range(len(findings)) for j in range(i + 1, len(findings))
             if sim[i, j] >= near_duplicate and not of_other_entries(findings[i], findings[j])]
    alike = {frozenset(pair) for pair, same in zip(close, same_facts(texts, close), strict=True)
             if same}
    order = sorted(range(len(findings)),
                   key=lambda i: -findings[i].get("confidence", DEFAULT_CONFIDENCE))
    leaders: list[int] = []
    insights: list[KeyInsight] = []
    for i in order:
        finding = findings[i]
        slot = next((k for k, lead in enumerate(leaders) if frozenset((lead, i)) in alike), None)
        if slot is None:
            leaders.append(i)
            insights.append({"insight": finding.get("text", ""), "type": "fact",
                             "confidence": round(finding.get("confidence", DEFAULT_CONFIDENCE), 4),
                             "finding_ids": [finding["finding_id"]],
                             "source_ids": [finding["source_id"]]})
            continue
        insight = insights[slot]
        insight["finding_ids"].append(finding["finding_id"])
        if finding["source_id"] not in insight["source_ids"]:
            insight["source_ids"].append(finding["source_id"])
    for insight, kind in zip(insights, insight_types([i["insight"] for i in insights]), strict=True):
        insight["type"] = kind  # type: ignore[typeddict-item]
    return insights


def evidence_strength(source_count: int, aggregate: float) -> str:
    """Independent sources and agreement both matter; either alone is only moderate."""
    if source_count >= 3 and aggregate >= 0.7:
        return "strong"
    if source_count >= 2 or aggregate >= 0.5:
        return "moderate"
    return "weak"


def findings_with_sources(findings: Sequence[Finding], sources: dict[str, Source]) -> list[Finding]:
    """Only findings with text that point at a stored source may become insights."""
    return [f for f in findings
            if f.get("text", "").strip() and f.get("finding_id") and f.get("source_id") in sources]


def synthesize_domain(sub_question: SubQuestion, findings: Sequence[Finding],
                      sources: dict[str, Source], similarity_fn: SimilarityFn,
                      config: ResearchConfig) -> tuple[FactSheet, list[Finding]]:
    """The fact sheet of one domain (at most ``max_report_claims`` insights) plus the
    winners whose confidence the vote lowered."""
    usable = findings_with_sources(findings, sources)
    sim = as_matrix([f["text"] for f in usable], similarity_fn)
    survivors, conflicts, winners = resolve_domain(usable, sim, config.same_topic_similarity,
                                                   source_titles(sources))
    position = {f["finding_id"]: i for i, f in enumerate(usable)}
    keep = [position[f["finding_id"]] for f in survivors]
    insights = merge_insights(survivors, sim[np.ix_(keep, keep)],
                              config.near_duplicate_similarity)[:config.max_report_claims]
    aggregate = round(float(np.mean([i["confidence"] for i in insights])), 3) if insights else 0.0
    source_count = len({s for insight in insights for s in insight["source_ids"]})
    sheet: FactSheet = {
        "domain": sub_question["sub_question_id"],
        "title": sub_question.get("question_text", ""),
        "key_insights": insights,
        "aggregate_confidence": aggregate,
        "evidence_strength": evidence_strength(source_count, aggregate),  # type: ignore[typeddict-item]
        "conflicts_resolved": conflicts,
        "evidence_count": len(usable),
    }
    return sheet, winners


# ---- leader: cross-domain patterns ---------------------------------------------------------
def _insight_sources(insight: KeyInsight, finding_sources: dict[str, str]) -> list[str]:
    ids = list(insight.get("source_ids", []))
    ids += [finding_sources[f] for f in insight.get("finding_ids", []) if f in finding_sources]
    return list(dict.fromkeys(ids))


def cross_domain_patterns(fact_sheets: Sequence[FactSheet], findings: Sequence[Finding],
                          specificity: Callable[[str], float] | None = None,
                          min_specificity: float = 0.0) -> list[dict]:
    """Seed 004 tier 3 (leader): entities and sources that several domains rely on. A name
    less specific to the knowledge base than ``min_specificity`` (``specificity``: its
    rarity there) is the collection's common vocabulary ("HTTP" in a web server's manual,
    "American" in Wikipedia): that two domains' evidence both name it tells nothing of how
    they relate."""
    finding_sources = {f["finding_id"]: f["source_id"] for f in findings
                       if f.get("finding_id") and f.get("source_id")}
    entity_domains: dict[str, list[str]] = {}
    source_domains: dict[str, list[str]] = {}
    insights = [(sheet["domain"], i) for sheet in fact_sheets for i in sheet.get("key_insights", [])]
    names = names_of_each([i.get("insight", "") for _, i in insights])
    for (domain, insight), named in zip(insights, names, strict=True):
        for name in dict.fromkeys(named):
            entity_domains.setdefault(name, [])
            if domain not in entity_domains[name]:
                entity_domains[name].append(domain)
            for source_id in _insight_sources(insight, finding_sources):
                source_domains.setdefault(source_id, [])
                if domain not in source_domains[source_id]:
                    source_domains[source_id].append(domain)
    patterns = [{"pattern": "shared_entity", "value": name, "domains": domains}
                for name, domains in entity_domains.items() if len(domains) >= 2
                and (specificity is None or specificity(name) >= min_specificity)]
    patterns += [{"pattern": "shared_source", "value": source_id, "domains": domains}
                 for source_id, domains in source_domains.items() if len(domains) >= 2]
    patterns.sort(key=lambda p: -len(p["domains"]))  # stable: entities before sources on ties
    return patterns[:MAX_PATTERNS]


# ---- node ------------------------------------------------------------------------------------
def synthesize_all(state: ResearchState, similarity_fn: SimilarityFn,
                   specificity: Callable[[str], float] | None = None
                   ) -> tuple[list[FactSheet], list[dict], list[Finding]]:
    """Every domain's fact sheet, the cross-domain patterns and the re-scored winners.

    A sheet may hold as many insights as the whole report can show (a flat run has one
    domain), so the writer, not the sheet, decides what is cited."""
    sub_questions = list(state.get("sub_questions") or [])
    findings = list(state.get("findings") or [])
    sources = dict(state.get("sources") or {})
    domains = group_by_domain(sub_questions, findings)
    sheets: list[FactSheet] = []
    winners: list[Finding] = []
    for sub_question in sub_questions:
        sheet, rescored = synthesize_domain(sub_question, domains[sub_question["sub_question_id"]],
                                            sources, similarity_fn, state["config"])
        sheets.append(sheet)
        winners.extend(rescored)
    patterns = cross_domain_patterns(sheets, findings, specificity,
                                     state["config"].connection_min_specificity)
    return sheets, patterns, winners


async def domain_synthesis_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    """Embeddings run on CPU, so the whole deterministic pass goes to a worker thread."""
    kb = runtime.context.kb
    sheets, patterns, winners = await asyncio.to_thread(
        synthesize_all, state, runtime.context.similarity,
        kb.specificity_scorer() if kb is not None else None)
    conflicts = sum(len(s["conflicts_resolved"]) for s in sheets)
    runtime.context.emit("fact_sheets", {"fact_sheets": sheets, "patterns": patterns})
    return {"fact_sheets": sheets, "cross_domain_patterns": patterns, "findings": winners,
            "stage": "domain_synthesis",
            "trace": [{"node": "domain_synthesis", "fact_sheets": len(sheets),
                       "conflicts_resolved": conflicts, "patterns": len(patterns)}]}
