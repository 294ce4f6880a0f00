"""Turn retrieved passages into findings, then validate them (seeds 001/003).

Extractive by default: the sentences (or table row statements) of each passage most
relevant to the sub-question, kept with their exact offsets; never code, never a sentence
a chunk boundary cut. With a capable model the model proposes statements with quotes, and
only quotes found in the passage survive (a quote inside a code block stands for the
whole block). Either way a finding is a pointer into a stored span, so nothing
unsupported can enter the report.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

import numpy as np

from research_studio.config import ResearchConfig
from research_studio.graph.deps import ResearchDeps, SimilarityFn
from research_studio.graph.nodes.common import ask_structured, quote_untrusted
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.schemas import FindingsOutput
from research_studio.graph.quote_spans import DocumentSpan, finding_span, overlapping
from research_studio.graph.text_analysis import (
    evidence_units,
    quotable,
    similar_text,
    term_overlap,
)
from research_studio.knowledge.structure import (
    CODE,
    ROW,
    Definition,
    Sentence,
    announces,
    code_body,
    definitions_from_json,
    ends_sentence,
    following_list,
    in_place,
    sentences,
    term_at,
)
from research_studio.state import (
    Finding,
    Source,
    SubQuestion,
    of_other_entries,
    searched_text,
    source_blocks,
)
from research_studio.understanding.exemplars import Embed
from research_studio.understanding.pointers import point_into_the_text
from research_studio.understanding.statements import asks, resumes_sentences, states_something

# Candidates read per finding wanted: enough to replace a title with the next sentence,
# few enough that the tagger reads a handful per passage.
STATEMENT_LOOKAHEAD = 2

# Given candidate quotes, the indices of those addressed to the AI rather than a reader
# (graph/directives.py): such sentences are never evidence.
DirectiveScreen = Callable[[Sequence[str]], set[int]]


def _finding_id(sq_id: str, source_id: str, start: int) -> str:
    digest = hashlib.sha256(f"{source_id}:{start}".encode()).hexdigest()[:10]
    return f"{sq_id}-{digest}"


def _confidence(rank: int, relevance: float) -> float:
    """Half retrieval rank, half lexical relevance of the sentence itself."""
    return round(0.5 * max(0.3, 1.0 - 0.12 * rank) + 0.5 * relevance, 3)


def source_terms(source: Source) -> list[Definition]:
    """The definition list entries a source's text lies in (none recorded: [])."""
    return definitions_from_json(source.get("terms")) or []


def whole_units(source: Source) -> list[Sentence]:
    """The evidence units of a source's text that no chunk boundary cut: one starting in
    the first ``lead`` characters ends a sentence (or row) begun before the chunk, one
    ending in the last ``tail`` begins one finished after it. Windows of a run-on stretch
    are parts by design: of those only the one that opens (or closes) the text at a cut is
    left out, the others start mid-stretch wherever the chunk does. A chunk stored before
    ``lead`` was recorded, which does not open its document, most likely begins inside a
    sentence (chunks overlap from any word boundary), so its first sentence is taken for
    a fragment."""
    text = source.get("text", "")
    units = evidence_units(text, blocks=source_blocks(source))
    lead, tail = source.get("lead"), source.get("tail") or 0
    if lead is None:
        first = sentences(text, min_chars=1)[:1] if source.get("start", 0) > 0 else []
        lead = first[0].end if first else 0
    end = len(text) - tail

    def cut(unit: Sentence) -> bool:
        window = unit.kind == "window"
        return ((unit.start < lead and (not window or unit.start == 0))
                or (unit.end > end and (not window or unit.end == len(text))))

    parts = interrupted_sentences(text, units)
    return [u for i, u in enumerate(units) if not cut(u) and i not in parts]


def interrupted_sentences(text: str, units: Sequence[Sentence]) -> set[int]:
    """The units (by index) that go on with a sentence a code block interrupted: the text
    before the code does not end a sentence (``structure.ends_sentence``: it ends in a
    colon, or in the middle of a clause), and the text after it resumes the sentence
    (``statements.resumes_sentences``): "and psql will quit …" after "To get out of psql,
    type: ‹\\q›", "which just writes the current HEAD into …" after "… you can create a
    lightweight tag with ‹git tag my-first-tag›". Such a part begins in the middle of a
    sentence; the part before the code stays, shown with the code it announces."""
    after_code = [i for i in range(1, len(units))
                  if units[i].kind == "prose" and units[i - 1].kind == CODE
                  and not text[units[i - 1].end:units[i].start].strip()
                  and not ends_sentence(text[:units[i - 1].start], colon=False)]
    resumed = resumes_sentences([units[i].text for i in after_code])
    return {i for i, goes_on in zip(after_code, resumed, strict=True) if goes_on}


def introduced_example(text: str, quote_end: int, units: Sequence[Sentence],
                       max_chars: int) -> str:
    """The code a quote introduces: the quote ends with a colon ("You can create a
    replication slot like this:") or runs into the code without ending ("To add a new
    proxy, without altering any of the existing ones, use" ‹git config --add …›), and the
    next of ``units`` is a whole code block (one no chunk boundary cut, see
    ``whole_units``, and closed by its fence) of at most ``max_chars`` characters, with
    only blank space between. Its code without fences, or "" when there is none: alone,
    such a sentence announces what the reader asked for and does not show it."""
    if ends_sentence(text[:quote_end], colon=False):
        return ""
    following = next((u for u in units if u.start >= quote_end), None)
    if (following is None or following.kind != CODE or len(following.text) > max_chars
            or text[quote_end:following.start].strip()):
        return ""
    body = code_body(following.text)
    return "" if body == following.text else body  # unclosed: a chunk's end cut it


def sentence_score(question: str, query: str, text: str, cosine: float) -> float:
    """A sentence's relevance: the shares of the sub-question's and of the search query's
    terms it states (weighed 0.6 and 0.4), plus its cosine with the sub-question."""
    return 0.6 * term_overlap(question, text) + 0.4 * term_overlap(query, text) + cosine


def extractive_findings(sub_question: SubQuestion, retrieved: list[Retrieved], iteration: int,
                        config: ResearchConfig, similarity: SimilarityFn | None = None,
                        embed: Embed | None = None) -> list[Finding]:
    """The most relevant sentences of each passage; a passage's lead sentence when no
    sentence shares a term (it usually names what the passage is about — the next hop).

    Relevance is the share of the sub-question's (and the search query's) terms a sentence
    states plus, with ``similarity``, the sentence encoder's cosine with the sub-question:
    words alone tie every sentence that says "finally clause", and the encoder tells
    the one that answers how exceptions propagate out of it from the ones that mention it.
    Every sentence of the iteration is embedded in one batch. With ``embed``, a sentence
    that points into the text ("Section 2 describes the steps …", ``understanding.pointers``)
    is passed over as a title is, unless it announces what follows it (a colon before a
    list or code shows what it points to). With ``similarity``, a passage's best quote may
    run on into the sentence after it (``run_on_best_quotes``)."""
    question = searched_text(sub_question)
    out: list[Finding] = []
    whole = [whole_units(item.source) for item in retrieved]
    per_item = [[u for u in units if quotable(u)] for units in whole]
    terms = {id(u): term_at(defined, u.start, u.end)
             for item, units in zip(retrieved, per_item, strict=True)
             if (defined := source_terms(item.source)) for u in units}
    # a sentence of a description is read after its term, the subject it seldom repeats
    placed = {id(u): in_place(u.text, terms.get(id(u), "")) for units in per_item for u in units}
    texts = [placed[id(u)] for units in per_item for u in units]
    cosines = iter(np.asarray(similarity(texts, [question]))[:, 0].tolist()
                   if similarity is not None and texts else [0.0] * len(texts))
    ranked: list[list[tuple[float, Sentence]]] = []
    wanted: list[int] = []
    score_of: dict[int, float] = {}
    for item, units in zip(retrieved, per_item, strict=True):
        meaning = [next(cosines) for _ in units]
        scored = sorted(((sentence_score(question, item.query, placed[id(s)], meaning[i]), i, s)
                         for i, s in enumerate(units)),
                        key=lambda t: (-t[0], t[1]))
        score_of.update((id(s), score) for score, _, s in scored)
        candidates = [(score, s) for score, _, s in scored if score > 0]
        wanted.append(config.findings_per_result if candidates else 1)
        if not candidates and item.rank < 2:  # the lead sentence (then the next ones)
            candidates = [(0.0, unit) for unit in units]
        # the best few are read by the tagger: a title or a "see also" line is passed
        # over for the next sentence that states something
        ranked.append(candidates[:wanted[-1] * STATEMENT_LOOKAHEAD])
    # sentences only: a table row is a statement by construction, and a window of run-on
    # text (a flattened infobox) is a fragment on purpose; so is a sentence of a definition
    # list entry's description, which says what its term is or does even without a verb
    # ("--timeout <seconds>: Number of seconds to cache credentials (default: 900).")
    prose = [s for candidates in ranked for _, s in candidates
             if s.kind == "prose" and not terms.get(id(s))]
    stating = dict(zip((id(s) for s in prose), states_something([s.text for s in prose]),
                       strict=True))
    if embed is not None:
        pass_over_pointers(ranked, wanted, stating, embed, config.pointer_margin)
    chosen_of: list[list[tuple[float, Sentence]]] = []
    for item, every, units, candidates, count in zip(retrieved, whole, per_item, ranked, wanted,
                                                     strict=True):
        chosen = [(score, s) for score, s in candidates if stating.get(id(s), True)][:count]
        if not chosen and len(candidates) == len(units):
            # nothing in the passage states anything: it is data written as a list ("Mickey
            # Rooney as Tod Kurt Russell as Copper …", a flattened table), not a title to
            # pass over, and its best part is quoted as it stands
            chosen = candidates[:count]
        chosen_of.append(join_adjacent_quotes(item.source.get("text", ""),
                                              chosen + between_quotes(every, units, chosen, score_of),
                                              terms))
    if similarity is not None:
        run_on_best_quotes(retrieved, whole, chosen_of, question, similarity, terms)
    for item, every, chosen in zip(retrieved, whole, chosen_of, strict=True):
        source = item.source
        for score, sentence in chosen:
            out.append(Finding(
                finding_id=_finding_id(sub_question["sub_question_id"], source["source_id"],
                                       sentence.start),
                sub_question_id=sub_question["sub_question_id"], text=sentence.text,
                source_id=source["source_id"], quote=sentence.text, quote_start=sentence.start,
                quote_end=sentence.end, confidence=_confidence(item.rank, min(1.0, score)),
                relevance=round(score, 3), iteration=iteration, query=item.query,
                method="extractive", context=terms.get(id(sentence), ""),
                **_example(source, sentence.end, every, config)))
    return out


def run_on_best_quotes(retrieved: Sequence[Retrieved], whole: Sequence[Sequence[Sentence]],
                       chosen_of: list[list[tuple[float, Sentence]]], question: str,
                       similarity: SimilarityFn, terms: dict[int, str]) -> None:
    """Each passage's best quote runs on into the sentence after it when the two read
    closer to the question than the quote alone (in place). A manual states a problem in
    the question's words and solves it in the next sentence, which shares none of them:
    "… git pull refuses to overwrite your changes." / "In such a case, you can stash your
    changes away, perform a pull, and then unstash". Only a sentence of the same
    paragraph that can be quoted and is not quoted already; the pair must still be a
    quotable length. Every pair of the iteration is embedded in one batch."""
    pairs: list[tuple[int, Sentence, float]] = []  # passage, best quote run on, best's score
    for k, (item, every, chosen) in enumerate(zip(retrieved, whole, chosen_of, strict=True)):
        joined = _run_on(item.source.get("text", ""), every, chosen)
        if joined is not None:
            pairs.append((k, joined, chosen[0][0]))
    if not pairs:
        return
    placed = [in_place(joined.text, terms.get(id(chosen_of[k][0][1]), "")) for k, joined, _ in pairs]
    cosines = np.asarray(similarity(placed, [question]))[:, 0].tolist()
    for (k, joined, best_score), text, cosine in zip(pairs, placed, cosines, strict=True):
        score = sentence_score(question, retrieved[k].query, text, cosine)
        if score > best_score:
            best = chosen_of[k][0][1]
            if best_term := terms.get(id(best)):
                terms[id(joined)] = best_term
            chosen_of[k][0] = (score, joined)


def _run_on(text: str, every: Sequence[Sentence],
            chosen: Sequence[tuple[float, Sentence]]) -> Sentence | None:
    """The passage's best quote (``chosen``'s first) with the sentence after it, when that
    one is prose of the same paragraph that states rather than asks ("… did not get any
    smaller. Is this a bug?" is a FAQ's question), can be quoted and is not quoted already;
    None otherwise."""
    if not chosen or chosen[0][1].kind != "prose":
        return None
    best = chosen[0][1]
    at = next((k for k, unit in enumerate(every) if unit.end == best.end), None)
    if at is None or at + 1 >= len(every):
        return None
    following = every[at + 1]
    if following.kind != "prose" or asks(following.text) or not quotable(following) \
            or any(s.start <= following.start < s.end for _, s in chosen) \
            or not same_paragraph(text, best, following):
        return None
    joined = spanning(text, best, following)
    return joined if quotable(joined) else None


def same_paragraph(text: str, first: Sentence, second: Sentence) -> bool:
    """Whether ``second`` goes on right after ``first`` in one paragraph: only spaces or a
    single line break between them (so no other unit of the text lies between)."""
    gap = text[first.end:second.start]
    return first.end <= second.start and not gap.strip() and "\n\n" not in gap


def spanning(text: str, first: Sentence, last: Sentence) -> Sentence:
    """The prose from ``first``'s start to ``last``'s end, as one quote of ``text``."""
    return Sentence(text[first.start:last.end], first.start, last.end, "prose")


def join_adjacent_quotes(text: str, chosen: Sequence[tuple[float, Sentence]],
                         terms: dict[int, str]) -> list[tuple[float, Sentence]]:
    """A passage's quotes with the ones that follow each other in a paragraph joined into
    one quote, scored as its best part, best first. Apart, the second is a claim that
    leans on the first it may never be shown with ("The special exit code 125 should be
    used when the current source code cannot be tested." / "If the script exits with this
    code, the current revision will be skipped"), and the report's selection, which
    prefers a source not cited yet, shows one of the two. Only prose of one definition
    list entry (or none), and only while the joined quote can still be quoted."""
    runs: list[list[tuple[float, Sentence]]] = []
    for score, unit in sorted(chosen, key=lambda pair: pair[1].start):
        if runs:
            first, last = runs[-1][0][1], runs[-1][-1][1]
            if (unit.kind == last.kind == "prose" and same_paragraph(text, last, unit)
                    and terms.get(id(unit), "") == terms.get(id(last), "")
                    and quotable(spanning(text, first, unit))):
                runs[-1].append((score, unit))
                continue
        runs.append([(score, unit)])
    out: list[tuple[float, Sentence]] = []
    for run in runs:
        if len(run) == 1:
            out.append(run[0])
            continue
        first = run[0][1]
        joined = spanning(text, first, run[-1][1])
        if term := terms.get(id(first)):
            terms[id(joined)] = term
        out.append((max(score for score, _ in run), joined))
    return sorted(out, key=lambda pair: -pair[0])


def between_quotes(every: Sequence[Sentence], quotable_units: Sequence[Sentence],
                   chosen: Sequence[tuple[float, Sentence]], score_of: dict[int, float]
                   ) -> list[tuple[float, Sentence]]:
    """The sentence between two sentences a passage gives, one apart (``every``: the
    passage's units in order, so a code block or table row between them breaks it): the
    two match the question's words, and the one between, read in its paragraph, often
    carries what they leave out, the reason or the rule ("An optional prefix "!" which
    negates the pattern …" / *It is not possible to re-include a file if a parent
    directory of that file is excluded.* / "Git doesn't list excluded directories …").
    With its own score (``score_of``, by unit); none when it cannot be quoted."""
    position = {id(unit): k for k, unit in enumerate(every)}
    can_quote = {id(unit) for unit in quotable_units}
    taken = sorted(position[id(s)] for _, s in chosen if id(s) in position)
    between = [every[a + 1] for a, b in pairwise(taken) if b - a == 2]
    return [(score_of.get(id(unit), 0.0), unit) for unit in between
            if unit.kind == "prose" and id(unit) in can_quote]


def pass_over_pointers(ranked: list[list[tuple[float, Sentence]]], wanted: list[int],
                       stating: dict[int, bool], embed: Embed, margin: float) -> None:
    """Mark in ``stating`` the sentences that would be chosen (each passage's first
    ``wanted`` that state something) and point into the text, then judge the ones that
    take their place, until the chosen are all judged: only the sentences a passage gives
    are parsed, not its whole lookahead. A sentence that announces what follows it is not
    judged: with the list or code it points to, it shows something."""
    judged: set[int] = set()
    while True:
        due = [s for candidates, count in zip(ranked, wanted, strict=True)
               for s in [s for _, s in candidates if stating.get(id(s), True)][:count]
               if s.kind == "prose" and id(s) not in judged and not announces(s.text)]
        if not due:
            return
        for sentence, points in zip(due, point_into_the_text([s.text for s in due], embed, margin),
                                    strict=True):
            judged.add(id(sentence))
            stating[id(sentence)] = not points


def announced_items(text: str, quote_end: int, units: Sequence[Sentence], max_chars: int,
                    ends_document: bool = False) -> list[str]:
    """The list a quote announces: the quote ends with a colon ("PostgreSQL supports two
    localization facilities:") and a list of at least two items, or the rows of a table,
    follows, whole and at most ``max_chars`` characters in all. Whole: a unit no chunk
    boundary cut follows it, or it ends ``text`` and ``text`` ends its document. A list
    of one item is not told apart from an item's title followed by its text."""
    if not announces(text[:quote_end]):
        return []
    found = following_list(text, quote_end, to_end=ends_document)
    items, end = found if found is not None else _following_rows(text, quote_end, units)
    ended = any(u.start >= end for u in units) or (ends_document and not text[end:].strip())
    if len(items) < 2 or sum(len(i) for i in items) > max_chars or not ended:
        return []
    return items


def _following_rows(text: str, position: int, units: Sequence[Sentence]) -> tuple[list[str], int]:
    """The table rows that start at ``position`` (blank space between them) and the
    offset the last one ends at."""
    rows: list[str] = []
    for unit in (u for u in units if u.start >= position):
        if unit.kind != ROW or text[position:unit.start].strip():
            break
        rows.append(unit.text)
        position = unit.end
    return rows, position


def _example(source: Source, quote_end: int, units: Sequence[Sentence],
             config: ResearchConfig) -> dict[str, str | list[str]]:
    """What the quote announces and its source shows right after it: code, or a list."""
    text = source.get("text", "")
    if example := introduced_example(text, quote_end, units, config.example_max_chars):
        return {"example": example}
    items = announced_items(text, quote_end, units, config.example_max_chars,
                            bool(source.get("ends_document")))
    return {"list_items": items} if items else {}


async def llm_findings(deps: ResearchDeps, sub_question: SubQuestion, retrieved: list[Retrieved],
                       iteration: int, config: ResearchConfig) -> list[Finding]:
    """Model-proposed statements; a quote that cannot be found in its passage is dropped."""
    passages = retrieved[:8]
    context = "\n".join(quote_untrusted(f"passage {i}: {r.source['title']}", r.source["text"], 1200)
                        for i, r in enumerate(passages, start=1))
    result = await ask_structured(
        deps, FindingsOutput, prompt="extract_findings", tier="low", node="research:findings",
        user=f"Sub-question: {sub_question['question_text']}\n\n{context}",
        fallback=lambda: FindingsOutput(findings=[]))
    out: list[Finding] = []
    whole: dict[int, list[Sentence]] = {}  # per passage, its units no chunk boundary cut
    for proposed in result.value.findings:
        index = proposed.source_number - 1
        if not 0 <= index < len(passages):
            continue
        item = passages[index]
        start = item.source["text"].find(proposed.quote.strip())
        if start < 0 or len(proposed.quote.strip()) < 15:
            continue
        quote = proposed.quote.strip()
        if index not in whole:
            whole[index] = whole_units(item.source)
        code = next((u for u in evidence_units(item.source["text"],
                                               blocks=source_blocks(item.source))
                     if u.kind == CODE and u.start <= start < u.end), None)
        if code is not None:  # code is quoted as the code block, not a piece of it
            quote, start = code.text, code.start
        relevance = term_overlap(searched_text(sub_question), quote)
        term = term_at(source_terms(item.source), start, start + len(quote))
        out.append(Finding(
            finding_id=_finding_id(sub_question["sub_question_id"], item.source["source_id"], start),
            sub_question_id=sub_question["sub_question_id"], text=proposed.statement.strip() or quote,
            source_id=item.source["source_id"], quote=quote, quote_start=start,
            quote_end=start + len(quote), confidence=_confidence(item.rank, max(relevance, 0.5)),
            relevance=round(relevance, 3), iteration=iteration, query=item.query, method="llm",
            context=term, **_example(item.source, start + len(quote), whole[index], config)))
    return out


class OfflineFindings:
    """The findings stage without a capable model: sentences of the passages, ranked."""

    async def extract(self, deps: ResearchDeps, sub_question: SubQuestion,
                      retrieved: list[Retrieved], iteration: int,
                      config: ResearchConfig) -> list[Finding]:
        return extractive_findings(sub_question, retrieved, iteration, config, deps.similarity,
                                   deps.embeddings.embed_array)


class ModelFindings:
    """The model proposes statements with their quotes; when its call fails or quotes
    nothing that is in a passage, the offline stage reads the passages instead."""

    async def extract(self, deps: ResearchDeps, sub_question: SubQuestion,
                      retrieved: list[Retrieved], iteration: int,
                      config: ResearchConfig) -> list[Finding]:
        return (await llm_findings(deps, sub_question, retrieved, iteration, config)
                or await OfflineFindings().extract(deps, sub_question, retrieved, iteration, config))


def _shown_after(candidates: list[Finding]) -> list[tuple[int, str]]:
    """(candidate index, text) for each list item and example the candidates carry."""
    return [(i, text) for i, f in enumerate(candidates)
            for text in [*f.get("list_items", []), *([f["example"]] if f.get("example") else [])]]


def validate_findings(candidates: list[Finding], known: list[Finding],
                      texts: dict[str, str], directives: DirectiveScreen,
                      duplicate_overlap: float,
                      sources: Mapping[str, Source] | None = None) -> list[Finding]:
    """Keep findings whose quote sits at its offsets in the stored span, that are not
    instructions aimed at a model, and that do not repeat the words of a known quote
    (content-term Jaccard ``duplicate_overlap``): a quote is verbatim text, so a repeat
    is the same words; the same fact in other words is kept, as it cross-validates. The
    same words under another definition-list term are kept too (``of_other_entries``).
    With ``sources``, a quote that shares a stretch of its document with a known quote,
    or with a longer candidate, is a repeat too: overlapping chunks of one document hold
    the same sentences (``quote_spans``)."""
    kept: list[Finding] = []
    seen_ids = {f["finding_id"] for f in known}
    candidates = list(candidates)  # the caller's list is left as it was
    shown = _shown_after(candidates)
    screened = directives([f["quote"] for f in candidates] + [text for _, text in shown])
    aimed_at_model = {i for i in screened if i < len(candidates)}
    for position in (i - len(candidates) for i in screened if i >= len(candidates)):
        # what a quote announces is shown with it: an order to a model there is dropped
        candidates[shown[position][0]] = {k: v for k, v in candidates[shown[position][0]].items()
                                          if k not in ("example", "list_items")}
    quoted = [texts.get(f["source_id"], "")[f["quote_start"]:f["quote_end"]] == f["quote"]
              and i not in aimed_at_model for i, f in enumerate(candidates)]
    spans = [finding_span(f, sources) if sources else None for f in candidates]
    covered = _covered_by_longer(spans, quoted)
    taken = [span for f in known if sources and (span := finding_span(f, sources))]
    for index, finding in enumerate(candidates):
        if not quoted[index] or finding["finding_id"] in seen_ids or index in covered:
            continue
        if spans[index] is not None and overlapping([spans[index]], taken):
            continue
        if any(not of_other_entries(finding, other)
               and similar_text(finding["quote"], other["quote"], duplicate_overlap)
               for other in [*known, *kept]):
            continue
        seen_ids.add(finding["finding_id"])
        kept.append(finding)
        if spans[index] is not None:
            taken.append(spans[index])
    return kept


def _covered_by_longer(spans: Sequence[DocumentSpan | None], usable: Sequence[bool]) -> set[int]:
    """Candidates whose document stretch overlaps a longer usable candidate's (or an equal
    one listed earlier): of a sentence quoted alone and within the sentences around it,
    the longer quote is kept, which says what the shorter one says and more."""
    placed = {i: span for i, span in enumerate(spans) if span is not None and usable[i]}

    def longer(j: int, i: int) -> bool:
        size_j, size_i = placed[j][2] - placed[j][1], placed[i][2] - placed[i][1]
        return size_j > size_i or (size_j == size_i and j < i)

    return {i for i in placed for j in placed
            if j != i and longer(j, i) and overlapping([placed[i]], [placed[j]])}
