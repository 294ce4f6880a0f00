"""Per-question scores of one research result against one dataset record.

Pure functions only (the embedder is passed in), so every number in a summary can be
checked by hand. Sources stand for paragraphs by text, not by id: the knowledge base
stores identical texts once, so a retrieved source represents every paragraph of the
dataset with the same whitespace-normalised text.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from research_studio.eval.corpus import normalize_text
from research_studio.graph.result import report_text

Embed = Callable[[list[str]], np.ndarray]

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\[S\d+\]")
_MARKER = re.compile(r"✓✓|✓|⚠")
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
# A sentence ends at . ! or ? (with closing quotes), and keeps the marker and [S#]
# citations that the report puts after the full stop: "… in 1931. ⚠[S2] Next …".
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*(?:\s*(?:✓✓|✓|⚠))?(?:\s*\[S\d+\])*(?=\s|$)")
BODY_SECTIONS = ("Answer", "Findings by sub-question")
VERIFIED = frozenset({"verified", "cross_validated"})


# ---- sources and supporting paragraphs ---------------------------------------------------
def source_text(source: dict[str, Any], paragraph_text: dict[str, str]) -> str:
    """The dataset paragraph a source comes from (by ``doc_id``), else its own text."""
    doc_id = str(source.get("doc_id") or "")
    return paragraph_text.get(doc_id) or normalize_text(source.get("text") or "")


def supporting_texts(record: dict[str, Any]) -> list[str]:
    """Normalised text of each supporting paragraph (one entry per paragraph)."""
    return [normalize_text(p["text"]) for p in record["paragraphs"] if p.get("is_supporting")]


def support_recall(record: dict[str, Any], sources: Iterable[dict[str, Any]],
                   paragraph_text: dict[str, str]) -> float | None:
    """Share of supporting paragraphs whose text is among ``sources``; None without any."""
    gold = supporting_texts(record)
    if not gold:
        return None
    found = {source_text(s, paragraph_text) for s in sources}
    return sum(1 for text in gold if text in found) / len(gold)


def citation_precision(record: dict[str, Any], cited: list[dict[str, Any]],
                       paragraph_text: dict[str, str]) -> float:
    """Share of cited sources whose text is a supporting paragraph's; 0.0 when none cited."""
    if not cited:
        return 0.0
    gold = set(supporting_texts(record))
    return sum(1 for s in cited if source_text(s, paragraph_text) in gold) / len(cited)


# ---- answers -----------------------------------------------------------------------------
def normalize_answer(text: str) -> str:
    """SQuAD normalisation: lower case, no punctuation (any Unicode P* character), no
    articles a/an/the, single spaces."""
    lowered = (text or "").lower()
    no_punct = "".join(ch for ch in lowered if not unicodedata.category(ch).startswith("P"))
    return " ".join(_ARTICLES.sub(" ", no_punct).split())


def exact_match(prediction: str, golds: list[str]) -> float:
    """1.0 when the normalised prediction equals any normalised gold answer."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in golds))


def _f1(prediction: str, gold: str) -> float:
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, golds: list[str]) -> float:
    """Token F1 of the prediction against its best-matching gold answer or alias."""
    return max((_f1(prediction, g) for g in golds), default=0.0)


def answer_containment(golds: list[str], text: str) -> float:
    """1.0 when a normalised gold answer occurs in the normalised text as whole words."""
    haystack = f" {normalize_answer(strip_markers(text))} "
    return float(any(needle and f" {needle} " in haystack
                     for needle in (normalize_answer(g) for g in golds)))


# ---- report structure --------------------------------------------------------------------
def report_sections(report: str) -> dict[str, str]:
    """Body of each ``## `` section by heading (deeper headings stay in the body)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in (report or "").splitlines():
        if line.startswith("## "):
            current = sections.setdefault(line[3:].strip(), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def strip_markers(text: str) -> str:
    """Text without ✓✓ ✓ ⚠ markers and [S#] citations, on one line."""
    return normalize_text(_MARKER.sub(" ", _CITATION.sub(" ", text or "")))


def split_sentences(text: str) -> list[str]:
    """Sentences of one line of report prose; a marker or citation after the full stop
    belongs to the sentence before it."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        pieces.append(text[start:match.end()].strip())
        start = match.end()
    pieces.append(text[start:].strip())
    out: list[str] = []
    for piece in filter(None, pieces):
        if out and not strip_markers(piece).strip(" .!?"):
            out[-1] = f"{out[-1]} {piece}"  # stray citations join the previous sentence
        else:
            out.append(piece)
    return out


def _is_legend(line: str) -> bool:
    return line.startswith("Markers:")


def body_sentences(report: str, sections: Iterable[str] = BODY_SECTIONS) -> list[str]:
    """Sentences of the given sections: each bullet is one, headings and the marker
    legend are left out."""
    parsed = report_sections(report)
    out: list[str] = []
    for name in sections:
        for raw in parsed.get(name, "").splitlines():
            line = raw.strip()
            if not line or line.startswith("#") or _is_legend(line):
                continue
            if _BULLET.match(line):
                out.append(_BULLET.sub("", line, count=1))
            else:
                out.extend(split_sentences(line))
    return out


def answer_text(report: str) -> str:
    """The "## Answer" section without the marker legend."""
    lines = report_sections(report).get("Answer", "").splitlines()
    return "\n".join(line for line in lines if not _is_legend(line.strip())).strip()


def answer_paragraph(report: str) -> str:
    """The Answer itself: the "## Answer" section up to its marker legend (a flat report
    lists its findings after the legend, under the same heading, and ``answer_text``
    keeps them)."""
    lines = report_sections(report).get("Answer", "").splitlines()
    legend = next((k for k, line in enumerate(lines) if _is_legend(line.strip())), len(lines))
    return "\n".join(lines[:legend]).strip()


def fallback_short_answer(answer_section: str) -> str:
    """First sentence of the Answer section, without markers and citations."""
    for line in answer_section.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and not _is_legend(line):
            sentences = split_sentences(_BULLET.sub("", line, count=1))
            return strip_markers(sentences[0]) if sentences else ""
    return ""


def cited_sentence_share(report: str) -> float | None:
    """Share of Answer/Findings sentences with a [S#] citation; None when there are none."""
    sentences = body_sentences(report)
    if not sentences:
        return None
    return sum(1 for s in sentences if _CITATION.search(s)) / len(sentences)


# ---- claims, decomposition, cost ---------------------------------------------------------
def claim_shares(claims: list[dict[str, Any]]) -> dict[str, float | None]:
    """Shares of claims verified (or better) and cross-validated; None without claims."""
    if not claims:
        return {"claims_verified_share": None, "claims_cross_validated_share": None}
    statuses = [c.get("status") for c in claims]
    return {"claims_verified_share": sum(s in VERIFIED for s in statuses) / len(statuses),
            "claims_cross_validated_share": statuses.count("cross_validated") / len(statuses)}


def decomposition_scores(gold: np.ndarray, generated: np.ndarray,
                         threshold: float = 0.6) -> dict[str, float]:
    """Mean over gold hops of the best cosine with a generated sub-question, and the share
    of hops whose best cosine reaches ``threshold``. Rows must be L2-normalised."""
    if len(gold) == 0:
        raise ValueError("no gold hops to compare with")
    best = (gold @ generated.T).max(axis=1) if len(generated) else np.zeros(len(gold))
    return {"decomposition_similarity": float(best.mean()),
            "decomposition_hop_coverage": float((best >= threshold).mean())}


def decomposition_metrics(record: dict[str, Any], sub_questions: list[str], embed: Embed,
                          threshold: float = 0.6) -> dict[str, float | None]:
    """``decomposition_scores`` for records with a gold decomposition, else None values."""
    hops = [h["question"] for h in record.get("decomposition") or []]
    if not hops:
        return {"decomposition_similarity": None, "decomposition_hop_coverage": None}
    texts = [t for t in sub_questions if t and t.strip()]
    vectors = embed(hops + texts)
    return decomposition_scores(vectors[:len(hops)], vectors[len(hops):], threshold)


def cost_metrics(usage: dict[str, Any]) -> dict[str, float]:
    """Time, calls and tokens of the research run itself."""
    structured = usage.get("structured_output") or {}
    prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    return {"wall_s": float(usage.get("wall_s", 0.0)),
            **{part: float(usage.get(part, 0.0)) for part in ("model_s", "embed_s", "other_s")},
            "llm_calls": int(usage.get("llm_calls", 0)),
            "prompt_tokens": prompt, "completion_tokens": completion, "tokens": prompt + completion,
            "structured_repairs": int(structured.get("repaired", 0)),
            "structured_fallbacks": int(structured.get("fallback", 0))}


def score_question(record: dict[str, Any], result: dict[str, Any], short_answer: str,
                   paragraph_text: dict[str, str], embed: Embed | None = None,
                   hop_threshold: float = 0.6) -> dict[str, float | int | None]:
    """Every metric of one (record, result) pair; None marks a metric that does not apply."""
    sources = result.get("sources") or []
    cited = [s for s in sources if s.get("cited")]
    report = report_text(result)
    golds = record["answers"]
    metrics: dict[str, float | int | None] = {
        "support_recall_retrieved": support_recall(record, sources, paragraph_text),
        "support_recall_cited": support_recall(record, cited, paragraph_text),
        "citation_precision": citation_precision(record, cited, paragraph_text),
        "cited_sources": len(cited),
        "answer_em": exact_match(short_answer, golds),
        "answer_f1": token_f1(short_answer, golds),
        "answer_containment": answer_containment(golds, "\n".join(body_sentences(report))),
        "answer_in_answer_section": answer_containment(golds, answer_text(report)),
        "cited_sentence_share": cited_sentence_share(report),
        **claim_shares(result.get("claims") or []),
        "hallucination_score": float((result.get("metrics") or {}).get("hallucination_score", 0.0)),
    }
    if embed is not None:
        texts = [sq.get("question_text", "") for sq in result.get("sub_questions") or []]
        metrics.update(decomposition_metrics(record, texts, embed, hop_threshold))
    metrics.update(cost_metrics(result.get("usage") or {}))
    return metrics
