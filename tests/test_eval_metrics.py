"""Every evaluation metric on hand-made records and results, checked by hand."""

import numpy as np
import pytest

from research_studio.eval.aggregate import (
    aggregate_mode,
    bootstrap_ci,
    paired_difference,
    summarise,
)
from research_studio.eval.corpus import paragraph_texts
from research_studio.eval.metrics import (
    answer_containment,
    answer_paragraph,
    answer_text,
    body_sentences,
    citation_precision,
    cited_sentence_share,
    claim_shares,
    cost_metrics,
    decomposition_metrics,
    decomposition_scores,
    exact_match,
    fallback_short_answer,
    normalize_answer,
    score_question,
    split_sentences,
    support_recall,
    token_f1,
)

SHARED = "The Varn Bridge is a stone arch bridge   completed in 1904 by Osric Hale."


def paragraph(pid, text, supporting=False):
    return {"id": pid, "title": pid, "text": text, "is_supporting": supporting}


Q1 = {"id": "q1", "question": "Where?", "answers": ["Keldmouth"], "decomposition": [],
      "paragraphs": [paragraph("q1#0", "Mira Tollen designed the library.", True),
                     paragraph("q1#1", "Mira Tollen was born in Keldmouth.", True),
                     paragraph("q1#2", SHARED),
                     paragraph("q1#3", "Keldmouth has a lighthouse.")]}
# q2's first supporting paragraph has q1#2's text: the knowledge base stores it once, as q1#2.
Q2 = {"id": "q2", "question": "Which river?", "answers": ["the Lume River", "Lume"],
      "decomposition": [{"question": "Which bridge did Osric Hale build?"},
                        {"question": "What river flows under it?"}],
      "paragraphs": [paragraph("q2#0", SHARED.replace("   ", " "), True),
                     paragraph("q2#1", "The Varn Bridge crosses the Lume River.", True),
                     paragraph("q2#2", "Apples grow in the Lume valley.")]}
TEXTS = paragraph_texts([Q1, Q2])


def source(doc_id, cited=False, text="(chunk text)"):
    return {"sid": "S?", "doc_id": doc_id, "cited": cited, "text": text}


# ---- support recall and citation precision ------------------------------------------------
def test_support_recall_counts_supporting_paragraphs_found_among_sources():
    sources = [source("q1#0"), source("q1#3")]
    assert support_recall(Q1, sources, TEXTS) == 0.5
    assert support_recall(Q1, [], TEXTS) == 0.0


def test_duplicate_text_stands_for_every_paragraph_with_that_text():
    # Only q1#2 is stored, yet it is q2's supporting paragraph q2#0 by text.
    sources = [source("q1#2", cited=True), source("q2#2")]
    assert support_recall(Q2, sources, TEXTS) == 0.5
    assert citation_precision(Q2, [s for s in sources if s["cited"]], TEXTS) == 1.0
    # ...while for q1 the same paragraph is a distractor.
    assert citation_precision(Q1, [sources[0]], TEXTS) == 0.0


def test_unknown_doc_id_falls_back_to_the_source_text():
    outside = source("elsewhere.md", text="  Mira Tollen was born\nin Keldmouth. ")
    assert support_recall(Q1, [outside], TEXTS) == 0.5


def test_citation_precision_is_zero_without_citations_and_recall_none_without_support():
    assert citation_precision(Q1, [], TEXTS) == 0.0
    no_support = {**Q1, "paragraphs": [paragraph("x", "text")]}
    assert support_recall(no_support, [source("x")], TEXTS) is None


def test_citation_precision_counts_each_cited_source():
    cited = [source("q1#0", True), source("q1#1", True), source("q1#3", True)]
    assert citation_precision(Q1, cited, TEXTS) == pytest.approx(2 / 3)


# ---- answers -------------------------------------------------------------------------------
def test_squad_normalisation():
    assert normalize_answer("The  Lume River!") == "lume river"
    assert normalize_answer("An apple, a pear.") == "apple pear"
    assert normalize_answer("“Theatre” – 1904") == "theatre 1904"
    assert normalize_answer("Anthem") == "anthem"  # "an" inside a word stays


def test_exact_match_and_f1_take_the_best_alias():
    golds = ["the Lume River", "Lume"]
    assert exact_match("Lume", golds) == 1.0
    assert exact_match("lume river.", golds) == 1.0
    assert exact_match("Lume valley", golds) == 0.0
    # "lume river valley" vs "lume river": precision 2/3, recall 1 -> F1 0.8
    assert token_f1("Lume River valley", golds) == pytest.approx(0.8)
    assert token_f1("Keldmouth", golds) == 0.0
    assert token_f1("", golds) == 0.0


def test_containment_matches_whole_words_only():
    assert answer_containment(["cello"], "He played the cello. ⚠[S2]") == 1.0
    assert answer_containment(["cello"], "He played the violoncello.") == 0.0
    assert answer_containment(["Lume River", "x y"], "crosses the lume   river[S1]") == 1.0
    assert answer_containment(["The"], "the end") == 0.0  # nothing left after normalising


# ---- report structure ----------------------------------------------------------------------
REPORT = """# Where was the architect born?

*Research Studio report — hierarchical mode*

## Answer

Mira Tollen was born in Keldmouth. ⚠[S1] She designed the library [S2]. It opened in 1931.

Markers: ✓✓ cross-validated by independent sources · ✓ verified in its source · ⚠ single source.

## Findings by sub-question

### Who designed the library?

- ⚠ Mira Tollen designed the library. [S2]
- No verified evidence was found for this part.

## Limitations and open gaps

- weak evidence [S9] for "Where?"

## Sources

[S1] Mira Tollen — pool.jsonl#q1#1
"""


def test_sentences_keep_markers_and_citations_after_the_full_stop():
    assert split_sentences("Born in Keldmouth. ⚠[S1] Designed it [S2]. Opened 1931.") == [
        "Born in Keldmouth. ⚠[S1]", "Designed it [S2].", "Opened 1931."]
    assert split_sentences("Opened in 3.5 years. ✓✓[S1][S4]") == ["Opened in 3.5 years. ✓✓[S1][S4]"]


def test_cited_sentence_share_over_answer_and_findings():
    sentences = body_sentences(REPORT)
    assert len(sentences) == 5  # 3 answer sentences + 2 bullets; headings and legend left out
    assert cited_sentence_share(REPORT) == pytest.approx(3 / 5)
    assert cited_sentence_share("") is None


def test_answer_section_and_fallback_short_answer():
    assert answer_text(REPORT).startswith("Mira Tollen") and "Markers" not in answer_text(REPORT)
    assert fallback_short_answer(answer_text(REPORT)) == "Mira Tollen was born in Keldmouth."
    assert fallback_short_answer("- ✓ The cello. [S3]") == "The cello."
    assert fallback_short_answer("") == ""


def test_the_answer_paragraph_ends_at_the_marker_legend():
    # a flat report lists its findings after the legend, under the same heading
    flat = ("# Q\n\n## Answer\n\nThe cache holds 900 seconds. ✓[S1]\n\nMarkers: ✓✓ …\n\n"
            "- ✓ The helper runs as a daemon. [S2]\n\n## Sources\n\n- [S1] …")
    assert answer_paragraph(flat) == "The cache holds 900 seconds. ✓[S1]"
    assert "daemon" in answer_text(flat)
    assert answer_paragraph(REPORT) == answer_text(REPORT)
    assert answer_paragraph("") == ""


def test_the_report_is_scored_as_its_reader_sees_it():
    """The writer escapes a quote's brackets and backslashes as CommonMark reads them and
    its HTML as entities; the scorer and the model that reads the answer see the text."""
    from research_studio.graph.nodes.write import _clean
    from research_studio.graph.result import report_text

    quoted = (r"Paul Thomas Mann (] ; 6 June 1875) used add_subparsers([title][, description]), "
              r"C:\[x] and AT&T <b>")
    markdown = f"## Answer\n\n{_clean(quoted)} ✓[S1]"
    assert "\\]" in markdown  # escaped in the Markdown
    assert answer_text(report_text({"report_markdown": markdown})) == f"{quoted} ✓[S1]"


def test_claim_shares():
    claims = [{"status": s} for s in ("verified", "cross_validated", "single_source", "unverified")]
    assert claim_shares(claims) == {"claims_verified_share": 0.5,
                                    "claims_cross_validated_share": 0.25}
    assert claim_shares([]) == {"claims_verified_share": None,
                                "claims_cross_validated_share": None}


# ---- decomposition and cost ----------------------------------------------------------------
def test_decomposition_scores_by_best_cosine_per_gold_hop():
    gold = np.array([[1.0, 0.0], [0.0, 1.0]])
    generated = np.array([[1.0, 0.0], [0.6, 0.8]])
    scores = decomposition_scores(gold, generated, threshold=0.85)
    assert scores["decomposition_similarity"] == pytest.approx((1.0 + 0.8) / 2)
    assert scores["decomposition_hop_coverage"] == 0.5
    assert decomposition_scores(gold, generated, threshold=0.6)["decomposition_hop_coverage"] == 1.0
    empty = decomposition_scores(gold, np.zeros((0, 2)))
    assert empty == {"decomposition_similarity": 0.0, "decomposition_hop_coverage": 0.0}


def fake_embed(texts):
    """Bridge questions on one axis, river questions on the other."""
    return np.array([[1.0, 0.0] if "bridge" in t.lower() else [0.0, 1.0] for t in texts])


def test_decomposition_metrics_only_with_a_gold_decomposition():
    scores = decomposition_metrics(Q2, ["Which bridge is it?", ""], fake_embed)
    assert scores == {"decomposition_similarity": 0.5, "decomposition_hop_coverage": 0.5}
    assert decomposition_metrics(Q1, ["anything"], fake_embed) == {
        "decomposition_similarity": None, "decomposition_hop_coverage": None}


def test_cost_metrics():
    usage = {"wall_s": 12.5, "model_s": 8.0, "embed_s": 1.5, "other_s": 3.0, "llm_calls": 4,
             "prompt_tokens": 900, "completion_tokens": 100,
             "structured_output": {"first_try": 2, "repaired": 1, "fallback": 1}}
    assert cost_metrics(usage) == {"wall_s": 12.5, "model_s": 8.0, "embed_s": 1.5, "other_s": 3.0,
                                   "llm_calls": 4, "prompt_tokens": 900,
                                   "completion_tokens": 100, "tokens": 1000,
                                   "structured_repairs": 1, "structured_fallbacks": 1}


def test_score_question_combines_everything():
    result = {"report_markdown": REPORT, "metrics": {"hallucination_score": 0.25},
              "sources": [source("q1#1", True), source("q1#2", True), source("q1#3")],
              "claims": [{"status": "verified"}, {"status": "single_source"}],
              "sub_questions": [{"question_text": "Who designed it?"}],
              "usage": {"wall_s": 3.0, "llm_calls": 2, "prompt_tokens": 10, "completion_tokens": 5}}
    m = score_question(Q1, result, "Keldmouth", TEXTS, fake_embed)
    assert m["support_recall_retrieved"] == 0.5 and m["support_recall_cited"] == 0.5
    assert m["citation_precision"] == 0.5 and m["cited_sources"] == 2
    assert (m["answer_em"], m["answer_f1"], m["answer_containment"]) == (1.0, 1.0, 1.0)
    assert m["claims_verified_share"] == 0.5 and m["hallucination_score"] == 0.25
    assert m["decomposition_similarity"] is None and m["tokens"] == 15


# ---- aggregation ---------------------------------------------------------------------------
def test_bootstrap_interval_is_deterministic_and_contains_the_mean():
    values = [0.0, 0.5, 1.0, 1.0, 0.25, 0.75, 0.0, 1.0]
    lo, hi = bootstrap_ci(values)
    assert lo <= np.mean(values) <= hi and lo < hi
    assert bootstrap_ci(values) == (lo, hi)
    assert bootstrap_ci(values, seed=1) != (lo, hi)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([1.0] * 5) == (1.0, 1.0)


def row(qid, mode, **metrics):
    return {"id": qid, "mode": mode, "metrics": {"wall_s": 1.0, "tokens": 10, **metrics}}


def test_aggregate_ignores_errors_and_missing_values():
    rows = [row("a", "flat", answer_f1=1.0, decomposition_similarity=None),
            row("b", "flat", answer_f1=0.0, decomposition_similarity=0.5),
            {"id": "c", "mode": "flat", "error": "boom"}]
    agg = aggregate_mode(rows)
    assert (agg["n"], agg["errors"]) == (2, 1)
    assert agg["answer_f1"] == 0.5 and agg["decomposition_similarity"] == 0.5
    assert agg["counts"]["decomposition_similarity"] == 1
    assert agg["wall_s_mean"] == 1.0 and agg["tokens_mean"] == 10
    assert agg["ci95"]["answer_f1"][0] <= 0.5 <= agg["ci95"]["answer_f1"][1]
    assert agg["support_recall_cited"] is None  # no value anywhere: key kept, mean None


def test_summarise_has_the_required_keys_per_mode_and_a_paired_difference():
    rows = [row("a", "flat", answer_f1=0.0), row("a", "hierarchical", answer_f1=1.0),
            row("b", "flat", answer_f1=0.5), row("b", "hierarchical", answer_f1=0.5),
            row("b", "hierarchical", answer_f1=1.0)]  # written twice: the last line counts
    summary = summarise(rows, ["flat", "hierarchical"])
    for key in ("n", "support_recall_retrieved", "support_recall_cited", "citation_precision",
                "answer_em", "answer_f1", "answer_containment", "hallucination_score",
                "wall_s_mean", "llm_calls_mean", "tokens_mean"):
        assert key in summary["flat"] and key in summary["hierarchical"]
    assert summary["hierarchical"]["answer_f1"] == 1.0 and summary["hierarchical"]["n"] == 2
    paired = summary["hierarchical"]["paired_vs_flat"]
    assert paired["n"] == 2 and paired["answer_f1"]["mean"] == pytest.approx(0.75)
    assert summarise(rows, ["flat"], ids=["a"])["flat"]["n"] == 1


def test_paired_difference_uses_questions_scored_in_both_modes():
    flat = [row("a", "flat", answer_em=0.0), {"id": "b", "mode": "flat", "error": "x"}]
    hier = [row("a", "hierarchical", answer_em=1.0), row("b", "hierarchical", answer_em=1.0)]
    assert paired_difference(flat, hier)["answer_em"] == {"mean": 1.0, "ci95": [1.0, 1.0], "n": 1}


# ---- short answer extraction (scripted model) ---------------------------------------------
def extract(report, *replies):
    import asyncio

    from research_studio.config import ModelSettings
    from research_studio.eval.answers import extract_short_answer
    from tests.conftest import scripted

    return asyncio.run(extract_short_answer(ModelSettings(), "Where was she born?", report,
                                            chat_models={"embedded": scripted(*replies)}))


def test_short_answer_from_the_model():
    assert extract(REPORT, '{"answer": "Keldmouth"}') == ("Keldmouth", "first_try")
    assert extract(REPORT, '{"answer": "No"}') == ("No", "first_try")  # yes/no need no span


def test_short_answer_falls_back_to_the_first_sentence():
    first = "Mira Tollen was born in Keldmouth."
    assert extract(REPORT, "no json here", "still none") == (first, "fallback")
    assert extract(REPORT, '{"answer": "Paris"}') == (first, "ungrounded")  # invented
    assert extract(REPORT, '{"answer": ""}') == (first, "fallback")
    assert extract("# Title only\n", '{"answer": "x"}') == ("", "empty")


def test_time_split_separates_model_encoder_and_the_rest():
    from research_studio.graph.result import time_split

    calls = [{"latency_s": 2.0}, {"latency_s": 1.5}]
    assert time_split(calls, 5.0, 0.5) == {"model_s": 3.5, "embed_s": 0.5, "other_s": 1.0}
    # parallel calls can overlap and add up to more than the wall time: nothing is left
    assert time_split(calls * 2, 5.0, 0.5)["other_s"] == 0.0
