"""How many sentences of each corpus the findings pass over as pointing into the text
("Section 2 describes …", "See Chapter 13 for more information"), and which.

    .venv/bin/python benchmarks/pointer_sentences.py NAME=GLOB [NAME=GLOB ...] [--qa] [--show N]

Each ``NAME=GLOB`` is a documentation set's HTML pages, read as ingestion reads them;
``--qa`` adds the MuSiQue and HotpotQA development paragraphs (``$RESEARCH_STUDIO_EVAL_DATA``),
whose Wikipedia prose should hold next to none. For each set: its prose sentences, the
share at the shipped ``pointer_margin`` and at margins around it, and the ``--show`` sentences
that lead by most and those just at the margin, to be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.injection_suite import html_sentences, qa_sentences  # noqa: E402 (after the path is set)

MARGINS_AROUND = (0.10, 0.20)
EVERY_SENTENCE = 10**9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", metavar="NAME=GLOB")
    parser.add_argument("--qa", action="store_true", help="add the MuSiQue and HotpotQA paragraphs")
    parser.add_argument("--show", type=int, default=5, help="sentences shown per set and end")
    args = parser.parse_args()

    from research_studio.config import ResearchConfig
    from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
    from research_studio.understanding.pointers import pointer_margins

    shipped = ResearchConfig().pointer_margin
    corpora = {name: html_sentences(pattern, EVERY_SENTENCE)
               for name, _, pattern in (item.partition("=") for item in args.sets)}
    if args.qa:
        corpora.update(qa_sentences())
    embed = MiniLMOnnxEmbeddings().embed_array
    print(f"| set | sentences | at {shipped} | " + " | ".join(f"at {m}" for m in MARGINS_AROUND) + " |")
    print("|---|---|---|" + "---|" * len(MARGINS_AROUND))
    shown: dict[str, list[tuple[float, str]]] = {}
    for name, sentences in corpora.items():
        unique = list(dict.fromkeys(sentences))
        scored = sorted(((m, s) for m, s in zip(pointer_margins(unique, embed), unique, strict=True)
                         if m is not None), reverse=True)

        def share(margin: float, scored=scored, total=len(unique)) -> str:
            count = sum(m >= margin for m, _ in scored)
            return f"{count} ({100 * count / max(total, 1):.2f} %)"

        print(f"| {name} | {len(unique):,} | {share(shipped)} | "
              + " | ".join(share(m) for m in MARGINS_AROUND) + " |")
        passed_over = [row for row in scored if row[0] >= shipped]
        shown[name] = passed_over[:args.show] + passed_over[-args.show:][::-1]
    for name, rows in shown.items():
        print(f"\n{name}: strongest, then nearest the margin")
        for margin, sentence in dict.fromkeys(rows):
            print(f"  {margin:+.2f} {' '.join(sentence.split())[:140]}")


if __name__ == "__main__":
    main()
