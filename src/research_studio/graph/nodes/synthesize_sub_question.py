"""synthesize_sub_question (seeds 000/001): a focused answer per sub-question.

With a capable model: a short direct answer written from the findings. With the
embedded model: extractive — the best-supported findings are the answer. Either way the
supporting finding ids are kept so the writer can cite them.
"""

from __future__ import annotations

from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import ask_structured, quote_untrusted
from research_studio.graph.nodes.schemas import SubAnswerOutput
from research_studio.graph.text_analysis import term_overlap
from research_studio.state import Finding, SubQuestion, SubQuestionSynthesis, searched_text


def rank_findings(question: str, findings: list[Finding]) -> list[Finding]:
    """Most useful first: confidence plus relevance to the sub-question."""
    return sorted(findings, key=lambda f: -(f.get("confidence", 0.0)
                                             + term_overlap(question, f["text"])))


def extractive_synthesis(sub_question: SubQuestion, findings: list[Finding]) -> SubQuestionSynthesis:
    ranked = rank_findings(searched_text(sub_question), findings)
    top = ranked[:3]
    caveats = []
    if not findings:
        caveats.append("No evidence was found for this sub-question.")
    elif len({f["source_id"] for f in findings}) == 1:
        caveats.append("All evidence comes from a single source.")
    confidence = sum(f.get("confidence", 0.0) for f in top) / len(top) if top else 0.0
    return SubQuestionSynthesis(direct_answer=" ".join(f["text"] for f in top[:2]),
                                supporting_finding_ids=[f["finding_id"] for f in top],
                                caveats=caveats, confidence=round(confidence, 3),
                                method="extractive")


class OfflineSubAnswer:
    """The sub-question answer without a capable model: its best-supported findings."""

    async def answer(self, deps: ResearchDeps, sub_question: SubQuestion,
                     findings: list[Finding]) -> SubQuestionSynthesis:
        return extractive_synthesis(sub_question, findings)


class ModelSubAnswer:
    """A short answer the model writes from the best findings; the extractive answer when
    there are none or the call fails."""

    async def answer(self, deps: ResearchDeps, sub_question: SubQuestion,
                     findings: list[Finding]) -> SubQuestionSynthesis:
        base = extractive_synthesis(sub_question, findings)
        if not findings:
            return base
        ranked = rank_findings(searched_text(sub_question), findings)[:8]
        listing = "\n".join(quote_untrusted(f"[{i}]", f["text"], 600)
                            for i, f in enumerate(ranked, start=1))
        result = await ask_structured(
            deps, SubAnswerOutput, prompt="synthesize_sub_question", tier="medium",
            node="synthesize_sub_question",
            user=f"Sub-question: {sub_question['question_text']}\n\nFindings:\n{listing}",
            fallback=lambda: SubAnswerOutput(direct_answer=base["direct_answer"][:400], caveats=[],
                                             confidence=0.5))
        if result.path == "fallback":
            return base
        return SubQuestionSynthesis(direct_answer=result.value.direct_answer,
                                    supporting_finding_ids=[f["finding_id"] for f in ranked],
                                    caveats=[*base["caveats"], *result.value.caveats],
                                    confidence=float(result.value.confidence), method="llm")
