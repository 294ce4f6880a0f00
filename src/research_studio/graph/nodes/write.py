"""write (seeds 001 meta-synthesis, 003 writer): the cited report, from verified claims only.

Only claims about the question are shown (``graph.relevance``); a part without any says so
and cites nothing. Marks ✓✓ cross-validated / ✓ verified / ⚠ single source, cites inline
[S1] with a numbered source list down to the chunk and character span, states limitations
and open gaps, and ends with research metadata. Offline, a question that asks for a thing
opens with its short answer (``graph.answer_span``). With a capable model the summary is
written by the model from numbered claims; a sentence without a claim citation, or one
its claims do not support (``graph.claim_check``), is dropped; if that fails, the report
falls back to the sub-question answers (seed 001), with the status kept.
"""

from __future__ import annotations

import asyncio
import html
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from langgraph.runtime import Runtime

from research_studio.config import ResearchConfig
from research_studio.graph.answer_span import ShortAnswer, parse_claims, short_answer
from research_studio.graph.claim_check import Statement, check_statements
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import ask_structured, quote_untrusted, research_query
from research_studio.graph.nodes.domain_synthesis import group_by_domain, source_reach
from research_studio.graph.nodes.schemas import SummaryOutput
from research_studio.graph.quote_spans import claim_spans, overlapping
from research_studio.graph.relevance import (
    OTHERWISE,
    bridged_claims,
    claim_relevance,
    defining_claims,
    relevant_claims,
)
from research_studio.graph.result import ESCAPABLE_PUNCTUATION
from research_studio.graph.text_analysis import content_terms, sentences, similar_text, term_overlap
from research_studio.knowledge.structure import announces, fence_for, in_place
from research_studio.state import MARKERS, Claim, ResearchState, Source, of_other_entries, searched_text
from research_studio.understanding.references import may_refer_to
from research_studio.understanding.statements import stands_alone

# the report's title is the question, cut at a word boundary beyond this length; a longer
# question (a research brief of several sentences) is quoted whole below the title
REPORT_TITLE_CHARS = 200
CONFLICT_QUOTE_CHARS = 220  # a version of a conflict quoted in full up to about two lines
# a definition list's term shown before a claim is cut at a word boundary beyond this: a
# setting or option whole (99% of the PostgreSQL, Git and Python manuals' terms are under
# 100 characters), a long function signature to its name and first arguments
TERM_SHOWN_CHARS = 100
_CLAIM_REF = re.compile(r"\[C(\d+)\]")
_LINE_MARKERS = re.compile(r"^(?:#{1,6}\s+|>\s*|[-*+•]\s+)+")
_STRENGTH_ORDER = ["cross_validated", "verified", "single_source"]  # strongest first
# CommonMark's code span: a run of backticks, text, and a run of as many backticks
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# a backslash CommonMark would read as escaping the character after it
_BACKSLASH_ESCAPE = re.compile(rf"\\(?={ESCAPABLE_PUNCTUATION})")


def _one_line(text: str) -> str:
    """One line of text: no markdown heading, quote or list marker opening it (an option
    such as "--ff" keeps its dashes)."""
    return _LINE_MARKERS.sub("", " ".join(text.split()))


def _plain(text: str) -> str:
    """``_one_line`` for a model's prompt, with no brackets that could read as the
    prompt's own claim numbers ("[C2]")."""
    return _one_line(text).replace("[", "(").replace("]", ")")


def _clean(text: str) -> str:
    """Source or model text as it goes into the Markdown report: one plain line with its
    HTML escaped, so a ``<script>`` or ``<svg onload>`` quoted from a document shows as
    text in any Markdown viewer instead of running (the report is an export). A code span
    is shown as written and runs nothing, so it is left as it is (escaped, "`git pull
    <URL>`" would show "&lt;URL&gt;"); a backtick outside one is written as its entity,
    so that it cannot open a code span with a backtick of text joined after it, which
    would leave that text's code outside a span. A bracket is escaped with a backslash,
    as CommonMark reads one: a manual's "[, description]" and "[ schema . ]" are shown as
    written, and a source's "[S3]" or "[text](url)" is neither a citation nor a link.
    Shorten text before cleaning it, never after: a code span cut in two leaves its code
    unescaped outside it."""
    line = _one_line(text)
    parts, last = [], 0
    for code in _CODE_SPAN.finditer(line):
        parts += [_escape_text(line[last:code.start()]), code.group()]
        last = code.end()
    return "".join([*parts, _escape_text(line[last:])])


def _escape_text(text: str) -> str:
    escaped = html.escape(_BACKSLASH_ESCAPE.sub(r"\\\\", text), quote=False).replace("`", "&#96;")
    return escaped.replace("[", "\\[").replace("]", "\\]")


class Citations:
    """Numbers sources S1, S2, … in order of first citation."""

    def __init__(self, sources: dict[str, Source]) -> None:
        self.sources = sources
        self.numbers: dict[str, int] = {}

    def cite(self, source_ids: list[str]) -> str:
        refs = []
        for sid in source_ids:
            if sid in self.sources:
                self.numbers.setdefault(sid, len(self.numbers) + 1)
                refs.append(f"[S{self.numbers[sid]}]")
        return "".join(refs)

    def listing(self) -> list[str]:
        """One line a source: its title and, where the page has several, the section the
        cited span stands under; its location, opened at that section where the page has
        an anchor for it; the span."""
        lines = []
        for sid, number in sorted(self.numbers.items(), key=lambda item: item[1]):
            s = self.sources[sid]
            where = s.get("url") or s.get("location", "")
            if s.get("anchor") and "#" not in where:
                where += f"#{s['anchor']}"
            title = s.get("title", "") or sid
            section = s.get("section", "")
            if section and "".join(section.split()).casefold() != "".join(title.split()).casefold():
                title += f" › {section}"  # not the page's title again, however spaced
            span = f"chunk {s.get('chunk_id')}, characters {s.get('start')}–{s.get('end')}" \
                if s.get("kind") == "kb" else f"characters {s.get('start')}–{s.get('end')}"
            lines.append(f"- [S{number}] {_clean(title)} — {_clean(where)} ({span})")
        return lines

    def mapping(self) -> dict[str, str]:
        return {f"S{n}": sid for sid, n in self.numbers.items()}


def claim_text(claim: Claim, sources: dict[str, Source], term_given: str = "") -> str:
    """The claim as a reader sees it: a sentence of a definition list's description after
    the term it describes ("-q, --quiet: Be quiet, only report errors."), which it seldom
    names (a term written as a sentence, a FAQ's question, without the colon), unless the
    text just gave that term (``term_given``: the claim before it in running prose); else
    an extracted sentence that opens with a pronoun gets its source's title
    when the pronoun can stand for it, so "He worked on…" says who. (Not the heading the
    sentence stands under: a reference page's "Summary" or "Description" names no more
    than the page does; the Sources list gives the section.)"""
    text = _clean(claim["text"])
    if claim.get("context") and claim["context"] == term_given:
        return text
    if claim.get("context"):
        term = _closed(textwrap.shorten(claim["context"], TERM_SHOWN_CHARS, placeholder=" …"))
        # a term written as a sentence (a FAQ's question: "I've made a mistake in the last
        # commit. How do I change it?") is followed by its answer, not by a colon
        return f"{_clean(term)}{' ' if term.endswith(_SENTENCE_ENDS) else ': '}{text}"
    title = sources.get(claim["source_ids"][0], {}).get("title", "") if claim["source_ids"] else ""
    return f"{_clean(title)}: {text}" if title and may_refer_to(claim["text"], _clean(title)) else text


_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_SENTENCE_ENDS = (".", "?", "!")


def _closed(term: str) -> str:
    """A shortened term with the brackets the cut left open closed after it
    ("subprocess.run(args, *, stdin=None, …)"): an open one reads as a broken line."""
    opened: list[str] = []
    for ch in term:
        if ch in _CLOSERS:
            opened.append(_CLOSERS[ch])
        elif opened and ch == opened[-1]:
            opened.pop()
    return term + "".join(reversed(opened))


def claim_line(claim: Claim, citations: Citations) -> str:
    return (f"{MARKERS[claim['status']]} {claim_text(claim, citations.sources)} "
            f"{citations.cite(claim['source_ids'])}")


def shows_what_it_announces(claim: Claim) -> bool:
    """False for a claim that ends in a colon without the code or list it announces ("The
    schedule written by git maintenance start is similar to this:", its listing too long
    to show): the reader is told something follows, and nothing does."""
    return not announces(claim["text"]) or bool(claim.get("example") or claim.get("list_items"))


def example_lines(claim: Claim) -> list[str]:
    """What a claim introduces, indented under its line (inside a list item it belongs to
    the item): the list's items as a nested list, or the code as a fenced block, so no
    line of code starts a line of the report (a "## " in it is no heading to a reader of
    the Markdown's lines). Code is shown as written: a fence runs nothing and escapes
    nothing."""
    if claim.get("list_items"):  # the list it introduces, nested under it
        return [f"  - {_clean(item)}" for item in claim["list_items"]]
    example = claim.get("example", "")
    if not example:
        return []
    fence = fence_for(example)
    return [f"  {fence}", *(f"  {line}" if line.strip() else "" for line in example.split("\n")),
            f"  {fence}"]


def section_quotas(sub_questions: list[dict], config: ResearchConfig) -> dict[str, int]:
    """The report's claim budget shared by priority, at least a few claims per section.

    Largest remainders, so the quotas add up to the budget exactly: rounding each share
    on its own gave chained plans (priorities 1, 0.9, 0.8, 0.8) 21 claims against a flat
    report's 20. Only a plan with more sections than the budget can give each its minimum
    exceeds it."""
    if not sub_questions:
        return {}
    floor = config.min_claims_per_section
    budget = max(config.max_report_claims, floor * len(sub_questions))
    total = sum(sq.get("priority", 1.0) for sq in sub_questions) or 1.0
    shares = {sq["sub_question_id"]: budget * sq.get("priority", 1.0) / total for sq in sub_questions}
    quotas = {sq_id: max(floor, int(share)) for sq_id, share in shares.items()}
    while sum(quotas.values()) < budget:
        quotas[max(shares, key=lambda sq_id: shares[sq_id] - quotas[sq_id])] += 1
    while sum(quotas.values()) > budget:  # minimums took more than their share
        quotas[min((sq_id for sq_id in quotas if quotas[sq_id] > floor),
                   key=lambda sq_id: shares[sq_id] - quotas[sq_id])] -= 1
    return quotas


def restates(claims: list[Claim], others: list[Claim], overlap: float,
             sources: Mapping[str, Source] | None = None) -> list[bool]:
    """For each claim, whether it repeats the words of one of ``others`` (content-term
    Jaccard ``overlap``). Lexical on purpose: a repeat is the same quoted sentence, and
    the sentence encoder also joins different facts worded alike ("OK Go is the debut
    studio album by … OK Go" and "… The Brown EP … is the first EP by … OK Go": cosine
    0.87; lab log §17). A claim under another definition-list term than the other's
    repeats nothing (``of_other_entries``). With ``sources``, a claim verified in a
    stretch of a document that one of ``others`` was verified in also repeats it: a
    sentence quoted alone from one chunk and within a longer quote from the overlapping
    next chunk (``quote_spans``)."""
    spans = {id(c): claim_spans(c, sources) for c in [*claims, *others]} if sources else {}
    return [any(not of_other_entries(c, o)
                and (similar_text(c["text"], o["text"], overlap)
                     or (bool(spans) and overlapping(spans[id(c)], spans[id(o)])))
                for o in others) for c in claims]


def select_claims(question: str, sub_question: str, claims: list[Claim], quota: int,
                  cited_sources: set[str], shown: list[Claim], is_restated: list[bool],
                  reach: dict[str, float] | None = None, *, stated_term_weight: float
                  ) -> list[Claim]:
    """Evidence selection by relevance and diversity: greedily take the claim most relevant
    to the sub-question and the question, preferring sources not yet cited and sources
    that several sub-questions' research found (``reach``, see
    ``domain_synthesis.source_reach``), and skipping claims already shown under another
    section (``is_restated``, per claim: see ``restates``). A question term that a claim
    already shown states counts less, so the report covers more of the question than
    restatements of its best-matched part. ``claims`` are the section's relevant ones
    (``graph.relevance``), so a section with two relevant quotes shows two, not its whole
    quota."""
    pool = [c for c, restated in zip(claims, is_restated, strict=True) if not restated]
    chosen: list[Claim] = []
    used = set(cited_sources)
    stated = {term for claim in shown for term in content_terms(claim["text"])}
    reach = reach or {}
    while pool and len(chosen) < quota:
        def score(claim: Claim) -> float:
            placed = in_place(claim["text"], claim.get("context", ""))
            relevance = sum(term_overlap(asked, placed, stated, stated_term_weight)
                            for asked in (sub_question, question))
            # a source not cited yet outweighs a small relevance gain: reports then cover
            # more of the evidence the research found than the best-matching source's
            # sentences (docs/lab-log.md §4)
            novelty = 1.0 if not set(claim["source_ids"]) & used else 0.0
            # sources the sub-questions' research converged on are central to the question
            spread = max((reach.get(sid, 0.0) for sid in claim["source_ids"]), default=0.0)
            return claim.get("confidence", 0.0) + relevance + novelty + spread

        best = max(pool, key=score)
        pool.remove(best)
        chosen.append(best)
        used.update(best["source_ids"])
        stated.update(content_terms(best["text"]))
    return chosen


def answer_order(shown: list[Claim], relevance: dict[str, float],
                 defining: dict[str, int] | None = None) -> list[Claim]:
    """A section's claims as a reader takes them in: statements of what the sub-question
    asks about first (``relevance.defining_claims``: the thing their subject, then the
    sentences of its definition list entry), then the ones closest to what it asks
    (``graph.relevance``). Selection order is not reading order: selection rewards
    a source not cited yet, so a section could open with a side remark from a new page and
    reach its answer fourth."""
    defining = defining or {}
    return sorted(shown, key=lambda claim: (defining.get(claim["claim_id"], OTHERWISE),
                                            -relevance.get(claim["claim_id"], 0.0)))


def main_section_claims(shown_by_sq: list[tuple[dict, list[Claim]]],
                        listed: dict[str, list[Claim]]) -> list[Claim]:
    """The claims of the plan's main section as the report lists them (``listed``: each
    section's ``answer_order`` by sub-question id): the section of the sub-question ranked
    above every other (the question itself, researched directly, or a chain's first hop);
    none when the plan ranks several first (compared items alike), where the Answer gives
    each the same room."""
    priorities = sorted((sq.get("priority", 1.0) for sq, _ in shown_by_sq), reverse=True)
    if not priorities or (len(priorities) > 1 and priorities[0] == priorities[1]):
        return []
    main = next(sq for sq, _ in shown_by_sq if sq.get("priority", 1.0) == priorities[0])
    return listed[main["sub_question_id"]]


def extractive_summary(shown_by_sq: list[tuple[dict, list[Claim]]], citations: Citations,
                       same_statement: Callable[[Claim, list[Claim]], bool],
                       reads_alone: Callable[[Claim], bool],
                       answer: ShortAnswer | None = None,
                       main_claims: Sequence[Claim] = (), closest_claims: int = 1) -> str:
    """Meta-synthesis without a capable model: the claim each section's selection ranked
    first, in priority order, joined into one paragraph (integrated: a claim that states
    what one chosen before states is passed over, and one that lacks the subject its
    source gave it on the line before yields to the next). A short answer leads, in bold,
    with the claim it comes from.

    The plan's main section (``main_claims``: its claims in the order the report lists
    them, closest to what it asks first) gives ``closest_claims`` more after its lead: the
    first of them not chosen yet that the reader can take alone. Selection ranks first a
    claim from a source not cited yet, which keeps a chain's bridging evidence in the
    Answer; the closest claims are what a question about one thing wants answered, and the
    encoder's closest is not always the answer (lab log §49, §56)."""
    chosen: list[Claim] = []
    if answer is not None:
        chosen += [c for _, claims in shown_by_sq for c in claims if c["claim_id"] == answer.claim_id][:1]
    for _, claims in shown_by_sq:
        # a claim the reader can take without its source's preceding line leads
        fresh = [c for c in claims if not same_statement(c, chosen)]
        lead = next((c for c in fresh if reads_alone(c)), fresh[0] if fresh else None)
        if lead is not None:
            chosen.append(lead)
        if main_claims and main_claims[0]["claim_id"] in {c["claim_id"] for c in claims}:
            for _ in range(closest_claims):
                taken = {c["claim_id"] for c in chosen}
                closest = next((c for c in main_claims if c["claim_id"] not in taken
                                and reads_alone(c) and not same_statement(c, chosen)), None)
                if closest is None:
                    break
                chosen.append(closest)
    paragraphs: list[str] = []
    running: list[str] = []
    term = ""  # the term the paragraph just gave: claims of one FAQ answer give it once
    for claim in chosen:  # a claim's example follows it, between paragraphs
        running.append(f"{claim_text(claim, citations.sources, term)} {MARKERS[claim['status']]}"
                       f"{citations.cite(claim['source_ids'])}")
        term = claim.get("context", "")
        if example := example_lines(claim):
            paragraphs += [" ".join(running), "\n".join(example)]
            running, term = [], ""
    text = "\n\n".join([*paragraphs, *([" ".join(running)] if running else [])])
    return f"**{_clean(answer.text)}** — {text}" if answer is not None and chosen else text


async def model_summary(deps: ResearchDeps, question: str, claims: list[Claim],
                        citations: Citations, min_similarity: float) -> str | None:
    """The model integrates numbered claims; sentences without a valid claim citation go,
    and so do sentences that say more than the claims they cite (``claim_check``: a name
    or number not in them, or a meaning below ``min_similarity``)."""
    numbered = claims  # the report's claim budget (max_report_claims) has bounded them
    listing = "\n".join(quote_untrusted(f"[C{i}]", _plain(c["text"]), 600)
                        for i, c in enumerate(numbered, start=1))
    result = await ask_structured(
        deps, SummaryOutput, prompt="write_summary", tier="high", node="write",
        user=f"Question: {question}\n\nClaims:\n{listing}",
        fallback=lambda: SummaryOutput(summary=""))
    if result.path == "fallback" or not result.value.summary.strip():
        return None
    cited = []
    for sentence in sentences(result.value.summary, min_chars=5):
        refs = [int(n) for n in _CLAIM_REF.findall(sentence.text) if 0 < int(n) <= len(numbered)]
        if refs:  # a sentence that cannot be tied to a claim is dropped
            cited.append((_CLAIM_REF.sub("", sentence.text), list(dict.fromkeys(refs))))
    checks = await asyncio.to_thread(
        check_statements, [Statement(text, " ".join(_plain(numbered[n - 1]["text"]) for n in refs))
                           for text, refs in cited], deps.similarity, min_similarity)
    kept = []
    for (text, refs), check in zip(cited, checks, strict=True):
        if check is not None and not check["passed"]:
            continue
        body = _clean(text)
        sources = [sid for n in refs for sid in numbered[n - 1]["source_ids"]]
        weakest = max((numbered[n - 1]["status"] for n in refs), key=_STRENGTH_ORDER.index)
        marker = MARKERS[weakest]
        kept.append(f"{body} {marker}{citations.cite(list(dict.fromkeys(sources)))}")
    return " ".join(kept) or None


@dataclass
class SummaryInput:
    """What the summary stage integrates: the claims the sections show, and how to cite them."""

    question: str
    asked: list[str]  # what the sub-questions searched (names they asked about are no answer)
    shown_by_sq: list[tuple[dict, list[Claim]]]
    listed: list[Claim]
    citations: Citations
    relevance: dict[str, float]
    min_similarity: float  # a model's sentence against the claims it cites
    same_statement: float  # the summary repeats no claim (summary_repeat_overlap)
    compares: bool = False  # the plan compares named items (no entity is the answer)
    main_claims: list[Claim] = field(default_factory=list)  # main_section_claims
    closest_claims: int = 1  # of main_claims, after its lead (answer_closest_claims)


@dataclass
class Summary:
    text: str
    status: str  # synthesis_status: llm | fallback_sub_answers | extractive
    short_answer: ShortAnswer | None = None


class OfflineSummary:
    """Without a capable model: the short answer, then each section's first claim."""

    async def write(self, deps: ResearchDeps, given: SummaryInput) -> Summary:
        parsed = parse_claims(given.listed)  # once, for the short answer and the paragraph
        answer = short_answer(given.question, given.asked, given.listed, given.relevance,
                              deps.embeddings.embed_array, parsed, compares=given.compares)
        def same_statement(claim: Claim, chosen: list[Claim]) -> bool:
            return restates([claim], chosen, given.same_statement, given.citations.sources)[0]

        def whole(claim: Claim) -> bool:  # a description's sentence is shown after its term
            return shows_what_it_announces(claim) and (
                bool(claim.get("context")) or stands_alone(parsed[claim["claim_id"]]))

        return Summary(extractive_summary(given.shown_by_sq, given.citations, same_statement,
                                          whole, answer, given.main_claims,
                                          given.closest_claims), "extractive", answer)


class ModelSummary:
    """The model integrates the claims; the offline summary when it cannot (status
    ``fallback_sub_answers``, seed 001's fallback)."""

    async def write(self, deps: ResearchDeps, given: SummaryInput) -> Summary:
        if not given.listed:
            return await OfflineSummary().write(deps, given)
        text = await model_summary(deps, given.question,
                                   sorted(given.listed, key=lambda c: -c.get("confidence", 0.0)),
                                   given.citations, given.min_similarity)
        if text:
            return Summary(text, "llm")
        offline = await OfflineSummary().write(deps, given)
        return Summary(offline.text, "fallback_sub_answers", offline.short_answer)


def connections(patterns: list[dict], shown_by_sq: list[tuple[dict, list[Claim]]],
                limit: int = 5) -> list[str]:
    """Entities that the shown evidence of several sections names, with those sections.
    A source shared by sections is provenance (the Sources list has it), not a connection
    a reader can use, so only named entities are listed; so is a name every section it
    links asks about ("VACUUM FULL links “What is the difference between VACUUM and VACUUM
    FULL?”; “What is known about VACUUM FULL?”"): the plan already says so."""
    shown_text = {sq["sub_question_id"]: " ".join(c["text"] for c in shown) for sq, shown in shown_by_sq}
    asked = {sq["sub_question_id"]: sq["question_text"] for sq, _ in shown_by_sq}
    lines = []
    for pattern in patterns:
        if pattern.get("pattern") != "shared_entity":
            continue
        name = pattern["value"]
        parts = [asked[d] for d in pattern["domains"] if name in shown_text.get(d, "")]
        if len(parts) >= 2 and not all(name.lower() in part.lower() for part in parts):
            lines.append(f"- {_clean(name)} links " + "; ".join(f"“{_clean(p)}”" for p in parts) + ".")
    return lines[:limit]


def conflict_line(conflict: dict, findings: dict[str, dict], citations: Citations) -> str:
    """A settled conflict as the reader can judge it: the version kept and the ones set
    aside, each quoted (shortened) with its source, and how strongly they disagreed. The
    conflict's topic alone (its first 80 characters) shows neither version."""
    def quoted(finding: dict) -> str:
        text = _clean(textwrap.shorten(finding.get("text", ""), CONFLICT_QUOTE_CHARS, placeholder=" …"))
        cited = citations.cite([finding["source_id"]] if finding.get("source_id") else [])
        return f"“{text}” {cited}".rstrip()

    winner = findings.get(conflict["winner_finding_id"])
    others = [findings[f] for f in conflict["resolved_from"]
              if f != conflict["winner_finding_id"] and f in findings]
    level = f"disagreement {conflict['disagreement_level']:.2f}"
    if winner is None or not others:
        return (f"- \"{_clean(conflict['topic'])}\": kept the best-supported version ({level}; "
                f"{len(conflict['resolved_from'])} findings compared).")
    return f"- Kept {quoted(winner)} over " + "; ".join(map(quoted, others)) + f" ({level})."


def evidence_place(config: ResearchConfig) -> str:
    """Where the research looked, as the report names it (it opens a sentence)."""
    kb = f"The knowledge base “{config.kb}”" if config.kb else ""
    if kb and config.use_web:
        return f"{kb} and the web"
    return kb or ("The web" if config.use_web else "The sources searched")


def supported_parts(claim: Claim, part_of_finding: dict[str, str]) -> set[str]:
    """The sub-questions whose research found a claim: the one it is filed under and every
    one whose finding it merged (the same sentence found for two parts is one claim)."""
    return {claim.get("sub_question_id", ""),
            *(part_of_finding[f] for f in claim.get("finding_ids", []) if f in part_of_finding)}


def evidence_summary(verified: list[Claim], usable: list[Claim], relevance: dict[str, float],
                     sub_questions: list[dict], config: ResearchConfig,
                     part_of_finding: dict[str, str] | None = None) -> dict:
    """What the relevance gate let through, for ``metrics.evidence`` and the report."""
    covered = {part for c in usable for part in supported_parts(c, part_of_finding or {})}
    return {"found": bool(usable), "relevant_claims": len(usable),
            "verified_claims": len(verified),
            "closest_relevance": max(relevance.values(), default=0.0),
            "min_relevance": config.claim_min_relevance,
            "sub_questions_without_evidence": [sq["sub_question_id"] for sq in sub_questions
                                               if sq["sub_question_id"] not in covered]}


def no_evidence_answer(evidence: dict, place: str) -> str:
    """The Answer when nothing relevant was found: said plainly, with nothing cited."""
    found = evidence["verified_claims"]
    if not found:
        return f"{place} holds no evidence on this question."
    return (f"{place} holds no evidence on this question: none of the "
            f"{found} verified passages the research found is about it (the closest scores "
            f"{evidence['closest_relevance']:.2f}, below the {evidence['min_relevance']:.2f} "
            "a passage needs to be shown). Nothing is cited.")


def listed_elsewhere(sq: dict, shown_by_sq: list[tuple[dict, list[Claim]]],
                     part_of_finding: dict[str, str]) -> dict | None:
    """The section that shows a claim this part's research found, if one does."""
    return next((other for other, shown in shown_by_sq if other is not sq and any(
        sq["sub_question_id"] in supported_parts(c, part_of_finding) for c in shown)), None)


async def write_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    deps = runtime.context
    question = research_query(state)
    sources = state.get("sources", {})
    config = state["config"]
    verified = [c for c in state.get("claims", []) if c.get("status") != "unverified"]
    verified.sort(key=lambda c: -c.get("confidence", 0.0))
    asked = {sq["sub_question_id"]: sq["question_text"] for sq in state.get("sub_questions", [])}
    searched = {sq["sub_question_id"]: searched_text(sq) for sq in state.get("sub_questions", [])}
    relevance = claim_relevance(question, searched, verified, deps.similarity)
    usable = relevant_claims(verified, relevance, config.claim_min_relevance)
    usable += bridged_claims(question, verified, usable, relevance, config.claim_bridge_min_relevance)
    part_of_finding = {f["finding_id"]: f["sub_question_id"] for f in state.get("findings", [])}
    evidence = evidence_summary(verified, usable, relevance, state.get("sub_questions", []), config,
                                part_of_finding)
    citations = Citations(sources)
    claims_by_sq = [(sq, [c for c in usable if c.get("sub_question_id") == sq["sub_question_id"]])
                    for sq in sorted(state.get("sub_questions", []), key=lambda s: -s.get("priority", 0))]
    # the claims each section shows are chosen first: the answer integrates those and no
    # others, so it cites nothing beyond the report's claim budget
    quotas = section_quotas([sq for sq, _ in claims_by_sq], config)
    reach = source_reach(group_by_domain(state.get("sub_questions", []), state.get("findings", [])))
    listed: list[Claim] = []
    shown_by_sq: list[tuple[dict, list[Claim]]] = []
    for sq, claims in claims_by_sq:
        restated = restates(claims, listed, config.shown_claim_overlap, sources)
        shown = select_claims(question, searched_text(sq), claims, quotas[sq["sub_question_id"]],
                              {s for c in listed for s in c["source_ids"]}, listed, restated, reach,
                              stated_term_weight=config.stated_term_weight)
        listed += shown
        shown_by_sq.append((sq, shown))
    # a statement of what a section asks about opens it, and so the answer
    defining = defining_claims(shown_by_sq)
    shown_by_sq = [(sq, sorted(shown, key=lambda c: defining.get(c["claim_id"], OTHERWISE)))
                   for sq, shown in shown_by_sq]
    # each section's claims in the order it lists them, which the Answer also reads
    listed_order = {sq["sub_question_id"]: answer_order(shown, relevance, defining)
                    for sq, shown in shown_by_sq}
    compares = (state.get("question_structure") or {}).get("kind") == "comparison"
    written = await deps.stages.summary.write(deps, SummaryInput(
        question, list(searched.values()), shown_by_sq, listed, citations, relevance,
        config.claim_text_min_similarity, config.summary_repeat_overlap, compares,
        main_section_claims(shown_by_sq, listed_order), config.answer_closest_claims))
    summary, status, answer = written.text, written.status, written.short_answer
    query = _clean(state["query"])
    title = _clean(textwrap.shorten(state["query"], REPORT_TITLE_CHARS, placeholder=" …"))
    lines = [f"# {title}", "", *([f"> {query}", ""] if title != query else []),
             f"*Research Studio report — {state.get('mode', 'hierarchical')} mode, "
             f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}*", "", "## Answer", ""]
    place = evidence_place(config)
    lines.append(summary or no_evidence_answer(evidence, place))
    missing = [asked[sq_id] for sq_id in evidence["sub_questions_without_evidence"] if sq_id in asked]
    if listed and missing:
        lines += ["", f"{place} holds no evidence on "
                  + "; ".join(f"“{_clean(text)}”" for text in missing) + "."]
    if listed:
        lines += ["", "Markers: ✓✓ cross-validated by independent sources · ✓ verified in its "
                  "source · ⚠ single source, lower confidence."]
    lines.append("")
    if not listed:
        lines += ["## What was researched", ""]
        lines += [f"- {_clean(sq['question_text'])}" for sq, _ in claims_by_sq] + [""]
    else:
        if state.get("mode") == "hierarchical" or len(claims_by_sq) > 1:
            lines += ["## Findings by sub-question", ""]
        for sq, shown in shown_by_sq:
            if len(claims_by_sq) > 1:
                lines += [f"### {_clean(sq['question_text'])}", ""]
            if shown:
                for claim in listed_order[sq["sub_question_id"]]:
                    lines += [f"- {claim_line(claim, citations)}", *example_lines(claim)]
            elif (home := listed_elsewhere(sq, shown_by_sq, part_of_finding)) is not None:
                lines.append(f"- Its evidence is listed under “{_clean(home['question_text'])}”.")
            else:
                lines.append(f"- {place} holds no evidence on this part.")
            lines.append("")
    conflicts = [c for sheet in state.get("fact_sheets", []) for c in sheet.get("conflicts_resolved", [])]
    if conflicts:
        findings = {f["finding_id"]: f for f in state.get("findings", [])}
        lines += ["## Conflicting evidence", ""]
        lines += [conflict_line(c, findings, citations) for c in conflicts]
        lines.append("")
    connected = connections(state.get("cross_domain_patterns", []), shown_by_sq)
    if connected:
        lines += ["## Connections across sub-questions", "", *connected, ""]
    lines += ["## Limitations and open gaps", ""]
    unverified = sum(1 for c in state.get("claims", []) if c.get("status") == "unverified")
    limits = [f"{_clean(g.get('reason', 'gap'))} for \"{_clean(asked.get(g['sub_question_id'], ''))}\""
              f" (confidence {g.get('confidence', 0):.2f})" for g in state.get("knowledge_gaps", [])]
    if unverified:
        limits.append(f"{unverified} candidate claims could not be verified against their sources "
                      "and were left out.")
    limits += [_clean(error) for error in sorted(set(state.get("errors", [])))[:5]]
    lines += [f"- {item}" for item in limits] or ["- None recorded."]
    lines += ["", "## Sources", ""]
    lines += citations.listing() or ["No sources were cited."]
    by_status = {s: sum(1 for c in state.get("claims", []) if c.get("status") == s)
                 for s in ("cross_validated", "verified", "single_source", "unverified")}
    lines += ["", "## Research metadata", "",
              f"- Mode: {state.get('mode')} ({state.get('mode_reason', '')}); decomposition: "
              f"{state.get('decomposition_path', 'n/a')}",
              f"- Sub-questions: {len(state.get('sub_questions', []))}; research rounds: "
              f"{state.get('research_round', 0)}; iterations: "
              f"{sum(sq.get('iteration_count', 0) for sq in state.get('sub_questions', []))}",
              f"- Findings: {len(state.get('findings', []))}; sources retrieved: {len(sources)}; "
              f"sources cited: {len(citations.numbers)}",
              f"- Claims: {by_status['cross_validated']} cross-validated, {by_status['verified']} "
              f"verified, {by_status['single_source']} single-source, {by_status['unverified']} "
              f"unverified; hallucination score {state.get('hallucination_score', 0.0):.2f}",
              f"- Overall confidence: {state.get('overall_confidence', 0.0):.2f}; report synthesis: "
              f"{status}"]
    return {"report_markdown": "\n".join(lines) + "\n", "citations": citations.mapping(),
            "synthesis_status": status, "evidence": evidence,
            "short_answer": answer.to_dict() if answer else None, "stage": "write", "status": "completed",
            "trace": [{"node": "write", "decision": status, "cited": len(citations.numbers)}]}
