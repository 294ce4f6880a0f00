"""Node 9 (seed 003): the trust engine — credibility, atomic claims, span verification,
cross-validation, confidence and the hallucination score.

Deterministic on purpose: a claim is a key insight's own sentence and it only counts as
supported where its quote can be found again in a stored source, so the report writer (which
sees nothing but claims) cannot cite text that no source contains. Where a capable model
worded the claim (its text is not its quote), the text must also say what the quote says
(``graph/claim_check.py``: its names and numbers in the quote, its meaning close enough),
or the claim is unverified.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np
from langgraph.runtime import Runtime
from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

from research_studio.config import ResearchConfig
from research_studio.graph.claim_check import Statement, check_statements, same_facts, same_text
from research_studio.graph.contradiction import about_the_same_thing
from research_studio.graph.deps import ResearchDeps, SimilarityFn
from research_studio.graph.nodes.findings import source_terms
from research_studio.knowledge.structure import term_at
from research_studio.state import (
    DEFAULT_CONFIDENCE,
    Claim,
    FactSheet,
    Finding,
    KeyInsight,
    ResearchState,
    Source,
)

KB_CREDIBILITY = 0.8
TRUSTED_WEB_CREDIBILITY = 0.9
WEB_CREDIBILITY = 0.5
CROSS_VALIDATION_BONUS = 0.15
KNOWN_REFERENCES = ("wikipedia.org", "nature.com", "arxiv.org", "who.int", "python.org")
INSTITUTIONAL_LABELS = ("gov", "edu", "int")
_REFINE_MARGIN = 0.1  # windows this far below the threshold are not worth refining


# ---- credibility -----------------------------------------------------------------------------
def _host(source: Source) -> str:
    url = source.get("url") or source.get("location") or ""
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def _kind(source: Source) -> str:
    return source.get("kind") or source.get("source_id", "").split(":", 1)[0]


def source_credibility(source: Source) -> float:
    """A curated knowledge base beats the open web; institutions and references beat the rest."""
    if _kind(source) == "kb":
        score = KB_CREDIBILITY
    else:
        host = _host(source)
        labels = host.split(".")
        institutional = any(label in INSTITUTIONAL_LABELS for label in labels[-2:]) and len(labels) > 1
        reference = any(host == ref or host.endswith("." + ref) for ref in KNOWN_REFERENCES)
        score = TRUSTED_WEB_CREDIBILITY if institutional or reference else WEB_CREDIBILITY
    return min(1.0, max(0.0, score))


def independence_key(source: Source) -> str:
    """Sources are independent when they are different documents (kb) or sites (web); a
    document ingested as a near copy of another (``knowledge.near_duplicates``) is that
    other one."""
    if _kind(source) == "kb":
        doc = source.get("copy_of") or source.get("doc_id") or source.get("source_id", "")
        return f"kb:{source.get('kb', '')}:{doc}"
    return f"web:{_host(source) or source.get('source_id', '')}"


# ---- span verification -----------------------------------------------------------------------
def _normalise(text: str) -> tuple[str, list[int]]:
    """Lower-cased text with whitespace runs collapsed, and each character's original offset."""
    chars: list[str] = []
    offsets: list[int] = []
    pending_space = False
    for index, char in enumerate(text):
        if char.isspace():
            pending_space = bool(chars)
            continue
        if pending_space:
            chars.append(" ")
            offsets.append(index - 1)
            pending_space = False
        for lowered in char.lower():
            chars.append(lowered)
            offsets.append(index)
    return "".join(chars), offsets


def _span(offsets: list[int], start: int, end: int) -> tuple[int, int]:
    """Original [start, end) of normalised [start, end)."""
    return offsets[start], offsets[end - 1] + 1


def _fit_edges(needle: str, haystack: str, start: int, end: int,
               pad: int) -> tuple[int, int]:
    """Fit a window's edges to the needle: align the needle with the window (widened by
    ``pad`` each side) and project it through the first and last matching blocks (blocks
    of one or two characters are noise), so a quote that dropped or added a few words
    still gets both of its edges."""
    lo, hi = max(0, start - pad), min(len(haystack), end + pad)
    blocks = [b for b in Indel.opcodes(needle, haystack[lo:hi]).as_matching_blocks()
              if b.size >= 3]
    if not blocks:
        return start, end
    first, last = blocks[0], blocks[-1]
    fitted_start = max(0, lo + first.b - first.a)
    fitted_end = min(len(haystack), lo + last.b + last.size + (len(needle) - last.a - last.size))
    return fitted_start, max(fitted_end, fitted_start + 1)


def _best_window(needle: str, haystack: str, threshold: float) -> tuple[float, int, int]:
    """The window of the haystack most like the needle (rapidfuzz's partial-ratio alignment:
    the best needle-sized window by Indel similarity), its edges then fitted to the needle
    when it is close enough to be worth it. Similarity is 2·matches / total length, the
    measure ``fuzzy_match_threshold`` is set on."""
    if len(needle) >= len(haystack):
        return Indel.normalized_similarity(needle, haystack), 0, len(haystack)
    found = fuzz.partial_ratio_alignment(needle, haystack)
    best, start, end = found.score / 100, found.dest_start, found.dest_end
    if best >= threshold - _REFINE_MARGIN:
        # fitted within the window, and within it widened by a quarter of the needle (for
        # a quote that lost words at an edge); the one most like the needle wins
        for pad in (0, len(needle) // 4):
            fitted = _fit_edges(needle, haystack, found.dest_start, found.dest_end, pad)
            score = Indel.normalized_similarity(needle, haystack[fitted[0]:fitted[1]])
            if score > best:
                best, (start, end) = score, fitted
    return best, start, end


def locate_quote(quote: str, text: str, threshold: float) -> dict:
    """Where ``quote`` sits in ``text``: exact, then case/whitespace-insensitive, then fuzzy."""
    if not quote.strip() or not text:
        return {"method": "none", "ratio": 0.0}
    index = text.find(quote)
    if index >= 0:
        return {"method": "exact", "ratio": 1.0, "start": index, "end": index + len(quote)}
    norm_text, offsets = _normalise(text)
    norm_quote = _normalise(quote)[0]
    index = norm_text.find(norm_quote)
    if index >= 0:
        start, end = _span(offsets, index, index + len(norm_quote))
        return {"method": "exact", "ratio": 1.0, "start": start, "end": end}
    ratio, start, end = _best_window(norm_quote, norm_text, threshold)
    if ratio >= threshold and end > start:
        start, end = _span(offsets, start, end)
        return {"method": "fuzzy", "ratio": round(ratio, 4), "start": start, "end": end}
    return {"method": "none", "ratio": round(ratio, 4)}


# ---- claims ----------------------------------------------------------------------------------
def _claim_findings(insight: KeyInsight, findings_by_id: dict[str, Finding]) -> list[Finding]:
    """The insight's findings that exist and point at a source: a claim's only ground."""
    found = (findings_by_id.get(fid) for fid in insight.get("finding_ids", []))
    return [f for f in found if f and f.get("source_id") and f.get("text", "").strip()]


def extract_claims(fact_sheets: Sequence[FactSheet],
                   findings_by_id: dict[str, Finding]) -> list[Claim]:
    """One atomic claim per key insight, worded by its leading finding (never paraphrased).

    ``source_ids`` are still candidates here; verification keeps the ones that hold the quote.
    """
    claims: list[Claim] = []
    for sheet in fact_sheets:
        for insight in sheet.get("key_insights", []):
            grounds = _claim_findings(insight, findings_by_id)
            if not grounds:
                continue
            lead = grounds[0]
            candidates = [*insight.get("source_ids", []), *(f["source_id"] for f in grounds)]
            claims.append({
                "claim_id": f"c{len(claims) + 1:03d}",
                "text": lead["text"],
                "sub_question_id": sheet.get("domain", lead.get("sub_question_id", "")),
                "finding_ids": [f["finding_id"] for f in grounds],
                "source_ids": list(dict.fromkeys(candidates)),
                "quote": lead.get("quote") or lead["text"],
                # the finding's confidence until score_claim turns it into the claim's
                "confidence": lead.get("confidence", insight.get("confidence", DEFAULT_CONFIDENCE)),
                **({"context": lead["context"]} if lead.get("context") else {}),
                **({"example": lead["example"]} if lead.get("example") else {}),
                **({"list_items": lead["list_items"]} if lead.get("list_items") else {}),
            })
    return claims


def _quote_for(source_id: str, claim: Claim, findings_by_id: dict[str, Finding]) -> str:
    """A merged insight's finding from this very source carries the quote to look for there."""
    for finding_id in claim.get("finding_ids", []):
        finding = findings_by_id.get(finding_id, {})
        if finding.get("source_id") == source_id:
            return finding.get("quote") or finding.get("text") or claim.get("quote", "")
    return claim.get("quote", "")


def quotes_by_source(claim: Claim, findings_by_id: dict[str, Finding]) -> dict[str, str]:
    """Per candidate source of the claim, the quote to look for there (``_quote_for``): the
    span check searches for it and cross-validation compares them."""
    return {sid: _quote_for(sid, claim, findings_by_id) for sid in claim.get("source_ids", [])}


def verify_spans(quotes: dict[str, str], sources: dict[str, Source],
                 threshold: float) -> dict[str, dict]:
    """Span check of each candidate source's quote (``quotes_by_source``) in its stored text."""
    return {source_id: locate_quote(quote, sources.get(source_id, {}).get("text", ""), threshold)
            for source_id, quote in quotes.items()}


def _verified(checked: dict[str, dict]) -> list[str]:
    return [sid for sid, result in checked.items() if result["method"] != "none"]


def _independent_keys(source_ids: Sequence[str], sources: dict[str, Source]) -> set[str]:
    return {independence_key(sources[sid]) for sid in source_ids if sid in sources}


def confirmed_independently(quotes: dict[str, dict[str, str]],
                            sources: dict[str, Source]) -> set[str]:
    """The claims (id -> {verified source id: the quote found there}) that two of their
    verified sources confirm: different documents whose quotes are not copies of each
    other (a paragraph that pages of one manual repeat, an article syndicated across sites
    is one statement copied), state the same facts (``claim_check.same_facts``) and are
    about the same thing (``contradiction.about_the_same_thing``: "It is located in Hohhot"
    on two universities' pages, or "He is a left-arm fast bowler" on two cricketers', are
    two facts worded alike). One parse batch for all claims."""
    entries: list[tuple[str, Source, str]] = []  # (claim id, source, quote)
    pairs: list[tuple[int, int]] = []
    for claim_id, by_source in quotes.items():
        first = len(entries)
        entries += [(claim_id, sources[sid], quote) for sid, quote in by_source.items()
                    if sid in sources]
        keys = [independence_key(source) for _, source, _ in entries[first:]]
        pairs += [(first + a, first + b) for a in range(len(keys)) for b in range(a + 1, len(keys))
                  if keys[a] != keys[b]
                  and not same_text(entries[first + a][2], entries[first + b][2])]
    confirming = one_statement([quote for *_, quote in entries], [s for _, s, _ in entries], pairs,
                               [_term_of(quote, source) for _, source, quote in entries])
    return {entries[i][0] for i, _ in confirming}


def _term_of(quote: str, source: Source) -> str:
    """The definition list term the quote is stated under in the source, "" for none."""
    start = source.get("text", "").find(quote)
    return term_at(source_terms(source), start, start + len(quote)) if start >= 0 else ""


def one_statement(texts: Sequence[str], read_in: Sequence[Source],
                  pairs: list[tuple[int, int]], terms: Sequence[str] | None = None,
                  ) -> list[tuple[int, int]]:
    """The pairs (i, j) of ``texts`` that make one statement twice: they state the same
    facts (``claim_check.same_facts``) about the same thing
    (``contradiction.about_the_same_thing``, each text read against the title of the source
    in ``read_in`` and the definition list term in ``terms``). Only the pairs that state
    the same facts are parsed for their subjects."""
    stating = [pair for pair, same in zip(pairs, same_facts(texts, pairs), strict=True) if same]
    same_thing = about_the_same_thing(texts, [s.get("title", "") for s in read_in],
                                      [s.get("source_id", "") for s in read_in], stating, terms)
    return [pair for pair, one_thing in zip(stating, same_thing, strict=True) if one_thing]


def check_claim_texts(claims: Sequence[Claim], verified: dict[str, list[str]],
                      findings_by_id: dict[str, Finding], sources: dict[str, Source],
                      similarity: SimilarityFn, min_similarity: float) -> dict[str, dict]:
    """Per claim whose quote a source holds but whose text is not that quote: whether the
    text says what the quote says (names may also come from the title of the quote's
    source, which the model saw with the passage). Claims worded as their quote (every
    claim offline) are not checked and cost nothing."""
    candidates = [c for c in claims if verified.get(c["claim_id"])]
    lead = {c["claim_id"]: findings_by_id.get(c["finding_ids"][0], {}) for c in candidates}
    statements = [Statement(c["text"], c.get("quote", ""),
                            sources.get(lead[c["claim_id"]].get("source_id", ""), {}).get("title", ""))
                  for c in candidates]
    results = check_statements(statements, similarity, min_similarity)
    return {c["claim_id"]: result for c, result in zip(candidates, results, strict=True) if result}


def corroborations(claims: Sequence[Claim], verified: dict[str, list[str]],
                   sources: dict[str, Source], similarity: SimilarityFn,
                   threshold: float) -> dict[str, list[str]]:
    """Per claim, the sources of *other* verified claims that independently say the same:
    similar enough, stating the same facts (``claim_check.same_facts``: two facts worded
    alike about different things, "OK Go is the debut album by OK Go" and "The Brown EP is
    the first EP by OK Go", reach the similarity) about the same thing
    (``contradiction.about_the_same_thing``: "New York's 1st State Senate district is one
    of 62 districts" and the 4th's), not a copy of the same words, and at least one source
    of a different document."""
    ids = [c["claim_id"] for c in claims if verified.get(c["claim_id"])]
    if len(ids) < 2:
        return {}
    by_id = {c["claim_id"]: c for c in claims}
    texts = [by_id[cid]["text"] for cid in ids]
    sim = np.asarray(similarity(texts, texts))
    keys = [_independent_keys(verified[cid], sources) for cid in ids]
    similar = [(i, j) for i in range(len(ids)) for j in range(len(ids))
               if i != j and sim[i, j] >= threshold and keys[j] - keys[i]
               and not same_text(texts[i], texts[j])]
    # the source each claim is verified in first: what its subject is read against
    first = [sources.get(verified[cid][0], {}) for cid in ids]
    found: dict[str, list[str]] = {}
    for i, j in one_statement(texts, first, similar, [by_id[cid].get("context", "") for cid in ids]):
        found.setdefault(ids[i], []).extend(verified[ids[j]])
    return {cid: list(dict.fromkeys(extra)) for cid, extra in found.items()}


def score_claim(claim: Claim, checked: dict[str, dict], extra_sources: list[str],
                credibility: dict[str, float], config: ResearchConfig,
                text_check: dict | None, confirmed: bool) -> Claim:
    """Confidence = credibility x match ratio x finding confidence, bonus when corroborated.
    A claim whose text fails its check against the quote is unverified, the reason kept."""
    verified = _verified(checked) if text_check is None or text_check["passed"] else []
    reason = {"text_check": text_check} if text_check is not None else {}
    if not verified:
        attempts = sorted(checked.items(), key=lambda kv: -kv[1].get("ratio", 0.0))
        best_attempt = attempts[0] if attempts else (None, {"method": "none", "ratio": 0.0})
        return {**claim, "source_ids": [], "status": "unverified", "confidence": 0.0,
                "verification": {"source_id": best_attempt[0], **best_attempt[1],
                                 "checked": checked, **reason}}
    best = max(verified, key=lambda sid: credibility.get(sid, 0.0) * checked[sid]["ratio"])
    base = credibility.get(best, 0.0) * checked[best]["ratio"] * claim.get(
        "confidence", DEFAULT_CONFIDENCE)
    confidence = round(base, 3)
    if confirmed or extra_sources:
        confidence = round(min(1.0, confidence + CROSS_VALIDATION_BONUS), 3)
        status = "cross_validated"
    elif confidence >= config.verified_confidence:
        status = "verified"
    else:
        status = "single_source"
    return {**claim, "source_ids": list(dict.fromkeys([*verified, *extra_sources])),
            "status": status, "confidence": confidence,  # type: ignore[typeddict-item]
            "verification": {"source_id": best, **checked[best], "checked": checked, **reason}}


def hallucination_score(claims: Sequence[Claim]) -> float:
    """Share of claims no source supports (seed 003's '% unsupported claims'), a claim
    whose wording its quote does not support included."""
    if not claims:
        return 0.0
    return round(sum(1 for c in claims if c.get("status") == "unverified") / len(claims), 3)


def trust_engine(fact_sheets: Sequence[FactSheet], findings: Sequence[Finding],
                 sources: dict[str, Source], config: ResearchConfig,
                 similarity: SimilarityFn) -> dict:
    """Claims, per-source credibility and the hallucination score (the node without I/O)."""
    findings_by_id = {f["finding_id"]: f for f in findings if f.get("finding_id")}
    credibility = {sid: source_credibility(source) for sid, source in sources.items()}
    claims = extract_claims(fact_sheets, findings_by_id)
    quotes = {c["claim_id"]: quotes_by_source(c, findings_by_id) for c in claims}
    checked = {cid: verify_spans(by_source, sources, config.fuzzy_match_threshold)
               for cid, by_source in quotes.items()}
    verified = {cid: _verified(results) for cid, results in checked.items()}
    text_checks = check_claim_texts(claims, verified, findings_by_id, sources, similarity,
                                    config.claim_text_min_similarity)
    # a claim its quote does not support corroborates nothing
    verified = {cid: [] if not text_checks.get(cid, {"passed": True})["passed"] else sids
                for cid, sids in verified.items()}
    extra = corroborations(claims, verified, sources, similarity, config.cross_validation_similarity)
    confirmed = confirmed_independently(
        {cid: {sid: quotes[cid][sid] for sid in sids} for cid, sids in verified.items()}, sources)
    scored = [score_claim(c, checked[c["claim_id"]], extra.get(c["claim_id"], []), credibility,
                          config, text_checks.get(c["claim_id"]), c["claim_id"] in confirmed)
              for c in claims]
    return {"claims": scored, "source_credibility": credibility,
            "hallucination_score": hallucination_score(scored)}


async def trust_engine_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    """Span matching and embeddings are CPU work, so they run in a worker thread."""
    config = state["config"]
    result = await asyncio.to_thread(
        trust_engine, state.get("fact_sheets") or [], state.get("findings") or [],
        dict(state.get("sources") or {}), config, runtime.context.similarity)
    statuses = Counter(c["status"] for c in result["claims"])
    runtime.context.emit("trust", {"claims": len(result["claims"]), "statuses": dict(statuses),
                                   "hallucination_score": result["hallucination_score"]})
    return {**result, "stage": "trust",
            "trace": [{"node": "trust", "claims": len(result["claims"]), **statuses,
                       "hallucination_score": result["hallucination_score"]}]}
