"""Where the sentence model refuses a full stop as a sentence end, and what it costs.

Reads the paragraphs of normalised QA files (``../shared/eval/*.jsonl``) and prints: the
full stops before a capital that a pattern takes for sentence ends, how many of them
spaCy's sentence segmenter confirms (``knowledge.structure.sentences`` ends sentences only
there), the characters a second it reads, and a sample of the refused ends to read
("Mark W. || Clark" is a name, "v. || Hudson" a case, "I-A. || The Broncos" a real end).

    .venv/bin/python benchmarks/sentence_boundaries.py ../shared/eval/musique_dev100.jsonl \\
        ../shared/eval/hotpotqa_dev200.jsonl --sample 40
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.knowledge.structure import sentence_ends, sentences


def paragraphs(files: list[Path]) -> list[str]:
    texts: list[str] = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            texts += [p["text"] for p in json.loads(line).get("paragraphs", [])]
    return list(dict.fromkeys(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--sample", type=int, default=20, help="refused ends to print")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    texts = paragraphs(args.files)
    sentences("Warm up. The model loads once.")
    started = time.perf_counter()
    kept = [sentence_ends(text) for text in texts]
    seconds = time.perf_counter() - started
    found = [sentence_ends(text, confirmed=False) for text in texts]
    refused = []
    for text, all_ends, ends in zip(texts, found, kept, strict=True):
        confirmed = {m.start() for m in ends}
        refused += [f"{text[max(0, m.start() - 40):m.start()]} || {text[m.end():m.end() + 30]}"
                    for m in all_ends if m.start() not in confirmed]
    chars = sum(map(len, texts))
    print(f"paragraphs {len(texts):,}, characters {chars:,}")
    print(f"sentence ends a pattern finds {sum(map(len, found)):,}; "
          f"confirmed {sum(map(len, kept)):,}; refused {len(refused):,}")
    print(f"{chars / seconds:,.0f} characters a second ({seconds:.1f} s)")
    random.seed(args.seed)
    for line in random.sample(refused, min(args.sample, len(refused))):
        print(f"  {line!r}")


if __name__ == "__main__":
    main()
