"""How well domain synthesis tells a contradiction from two statements that merely state
different figures (graph/contradiction.py, lab log §36).

    .venv/bin/python benchmarks/conflict_detection.py [--limit N] [--per-paragraph K] [--show N]

From every supporting paragraph of hotpotqa_dev200.jsonl and musique_dev100.jsonl
($RESEARCH_STUDIO_EVAL_DATA), the first K prose sentences that state a number are quotes.
Each is paired, as a finding of another source about the same page (same title), with:

contradictions, which should be found
  figure_changed     the quote with one number replaced by another of as many digits from
                     the question's paragraphs
  reworded_changed   the quote reworded (``claim_check_calibration.reworded``: a pronoun
                     subject replaced by the page title, a time or place phrase moved to
                     the front), then one number replaced

and, as found in the same sources, with statements that are no contradiction:
  same_page          another sentence of the same paragraph that states a number (same
                     source)
  other_page         the first sentence with a number of another paragraph of the question,
                     with that paragraph's title (HotpotQA's distractors, MuSiQue's other hops)

For each kind it prints how many pairs the earlier rule took for a conflict (encoder cosine
at least ``same_topic_similarity`` and disjoint numbers) and how many the shipped rule does
(that, and ``contradiction.contradicting``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from benchmarks.claim_check_calibration import DATASETS, number_swap, reworded  # noqa: E402
from benchmarks.eval_data import eval_file  # noqa: E402

FOUND = ("figure_changed", "reworded_changed")
NOT_FOUND = ("same_page", "other_page")


def build_pairs(limit: int | None, per_paragraph: int, seed: int) -> list[dict]:
    """Pairs of (quote, other statement) with each one's title and source."""
    from research_studio.graph.text_analysis import NUMBER, evidence_units, is_prose
    from research_studio.understanding.parser import english

    nlp = english()
    rng = random.Random(seed)
    pairs: list[dict] = []
    for name in DATASETS:
        rows = [json.loads(line) for line in eval_file(f"{name}.jsonl").open()][:limit]
        for row in rows:
            paragraphs = row["paragraphs"]
            numbered = [[u.text for u in evidence_units(p["text"])
                         if is_prose(u.text) and NUMBER.search(u.text)] for p in paragraphs]
            quotes = [(i, s) for i, p in enumerate(paragraphs) if p["is_supporting"]
                      for s in numbered[i][:per_paragraph] if len(s.split()) >= 6]
            nearby = [p["text"] for p in paragraphs][:6]
            pool = sorted({n for text in nearby for n in NUMBER.findall(text)})
            docs = list(nlp.pipe([q for _, q in quotes]))
            for (i, quote), doc in zip(quotes, docs, strict=True):
                title = paragraphs[i]["title"]
                source = f"{name}:{row['id']}:{i}"
                same_page = [s for s in numbered[i] if s != quote]
                other = [(j, ss[0]) for j, ss in enumerate(numbered) if j != i and ss]
                changed = number_swap(quote, pool, rng)
                rewritten = reworded(doc, title)
                made = {
                    "figure_changed": (changed, title, source + ":other"),
                    "reworded_changed": (number_swap(rewritten, pool, rng) if rewritten else None,
                                         title, source + ":other"),
                    "same_page": (rng.choice(same_page) if same_page else None, title, source),
                }
                if other:
                    j, text = rng.choice(other)
                    made["other_page"] = (text, paragraphs[j]["title"], f"{name}:{row['id']}:{j}")
                pairs += [{"kind": kind, "quote": quote, "title": title, "source": source,
                           "other": text, "other_title": other_title, "other_source": other_source}
                          for kind, (text, other_title, other_source) in made.items() if text]
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None, help="questions per dataset")
    parser.add_argument("--per-paragraph", type=int, default=2, help="quotes per paragraph")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=0, help="print N misjudged pairs of each kind")
    args = parser.parse_args()

    from research_studio.config import ResearchConfig
    from research_studio.graph.contradiction import contradicting
    from research_studio.graph.text_analysis import numbers_disagree, numeric_tokens
    from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings

    pairs = build_pairs(args.limit, args.per_paragraph, args.seed)
    encoder = MiniLMOnnxEmbeddings()
    a = encoder.embed_array([p["quote"] for p in pairs])
    b = encoder.embed_array([p["other"] for p in pairs])
    cosines = np.sum(a * b, axis=1)
    same_topic = ResearchConfig().same_topic_similarity
    for pair, cosine in zip(pairs, cosines, strict=True):
        pair["candidate"] = bool(cosine >= same_topic and numbers_disagree(
            numeric_tokens(pair["quote"]), numeric_tokens(pair["other"])))
    candidates = [p for p in pairs if p["candidate"]]
    texts = [t for p in candidates for t in (p["quote"], p["other"])]
    titles = [t for p in candidates for t in (p["title"], p["other_title"])]
    sources = [s for p in candidates for s in (p["source"], p["other_source"])]
    verdicts = contradicting(texts, titles, sources, [(2 * k, 2 * k + 1) for k in range(len(candidates))])
    for pair, verdict in zip(candidates, verdicts, strict=True):
        pair["contradiction"] = verdict

    print(f"pairs: {len(pairs)} from {', '.join(DATASETS)} (same topic at {same_topic})")
    print("kind               should  n      earlier rule   shipped rule")
    for kind in (*FOUND, *NOT_FOUND):
        rows = [p for p in pairs if p["kind"] == kind]
        earlier = sum(p["candidate"] for p in rows)
        shipped = sum(p.get("contradiction", False) for p in rows)
        should = "found" if kind in FOUND else "not"
        print(f"{kind:<18} {should:<6} {len(rows):5d}  {earlier / max(1, len(rows)):12.1%}"
              f"   {shipped / max(1, len(rows)):12.1%}")
    if args.show:
        for kind in (*FOUND, *NOT_FOUND):
            wrong = [p for p in pairs if p["kind"] == kind and p["candidate"]
                     and p.get("contradiction", False) != (kind in FOUND)][:args.show]
            for p in wrong:
                print(f"\n[{kind}] {p['title']}: {p['quote']}\n    {p['other_title']}: {p['other']}")


if __name__ == "__main__":
    main()
