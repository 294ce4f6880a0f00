"""How well the trust engine finds a quote that is not word for word in its source.

Sentences of the ``python-docs`` demo documents (60-300 characters, from 300 passages of
1,200 characters, seed 7) are altered the ways a model or an extractor alters a quote: a
word dropped, replaced or added, two characters swapped, the end cut off, two edits at
once; plus a sentence of another passage that should not be found. Printed per kind: the
share located (similarity ≥ 0.85, ``fuzzy_match_threshold``), the share whose located span
has both edges within 2 characters of the truth, the mean edge error, and the time per call.

    python benchmarks/quote_location.py [--baseline path/to/older/trust.py]

``--baseline`` loads another version of ``graph/nodes/trust.py`` (for example from ``git
show OLDCOMMIT:src/research_studio/graph/nodes/trust.py``) and prints it alongside.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from research_studio.graph.nodes import trust
from research_studio.knowledge.demo import python_docs_documents

KINDS = ("drop", "replace", "add", "typo", "truncate", "two_edits")


def passages(rng: random.Random, count: int = 300) -> list[str]:
    texts = []
    for document in python_docs_documents():
        text = document.text
        texts += [text[i:i + 1200] for i in range(0, max(1, len(text) - 1200), 1500)]
    return rng.sample(texts, min(count, len(texts)))


def sentences(text: str) -> list[tuple[str, int]]:
    found, start = [], 0
    for i, char in enumerate(text):
        if char == "." and text[i + 1:i + 2] == " ":
            sentence = text[start:i + 1].strip()
            if 60 <= len(sentence) <= 300:
                found.append((sentence, text.find(sentence)))
            start = i + 2
    return found


def altered(kind: str, sentence: str, rng: random.Random) -> str:
    words = sentence.split()
    i = rng.randrange(len(words))
    if kind == "drop":
        return " ".join(words[:i] + words[i + 1:])
    if kind == "replace":
        return " ".join([*words[:i], "something", *words[i + 1:]])
    if kind == "add":
        return " ".join([*words[:i], "indeed", *words[i:]])
    if kind == "typo":
        j = rng.randrange(1, len(sentence) - 2)
        return sentence[:j] + sentence[j + 1] + sentence[j] + sentence[j + 2:]
    if kind == "truncate":
        return sentence[:int(len(sentence) * 0.7)]
    return altered("drop", altered("replace", sentence, rng), rng)


def cases(seed: int = 7) -> list[tuple[str, str, str, int, int]]:
    rng = random.Random(seed)
    texts = passages(rng)
    made = []
    for text in texts:
        found = sentences(text)
        if not found:
            continue
        sentence, start = rng.choice(found)
        for kind in KINDS:
            quote = altered(kind, sentence, rng)
            end = start + (len(quote) if kind == "truncate" else len(sentence))
            made.append((kind, quote, text, start, end))
        elsewhere = sentences(rng.choice(texts))
        if elsewhere:
            made.append(("unrelated", elsewhere[0][0], text, -1, -1))
    return made


def measure(name: str, module: ModuleType, made: list) -> None:
    rows: dict[str, list[tuple[bool, int | None]]] = {}
    started = time.perf_counter()
    for kind, quote, text, start, end in made:
        located = module.locate_quote(quote, text, 0.85)
        ok = located["method"] != "none"
        error = abs(located["start"] - start) + abs(located["end"] - end) if ok and start >= 0 \
            else None
        rows.setdefault(kind, []).append((ok, error))
    per_call = (time.perf_counter() - started) / len(made) * 1000
    print(f"{name}: {len(made)} quotes, {per_call:.2f} ms per call")
    for kind, results in rows.items():
        errors = [e for _, e in results if e is not None]
        close = sum(e <= 2 for e in errors) / len(errors) if errors else 0.0
        print(f"  {kind:10s} n={len(results):3d}  located {sum(ok for ok, _ in results) / len(results):.3f}"
              f"  edges within 2 chars {close:.3f}"
              f"  mean edge error {statistics.mean(errors) if errors else 0.0:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another version of trust.py to compare")
    args = parser.parse_args()
    made = cases()
    if args.baseline:
        spec = importlib.util.spec_from_file_location("trust_baseline", args.baseline)
        baseline = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(baseline)
        measure(f"baseline ({args.baseline})", baseline, made)
    measure("current", trust, made)


if __name__ == "__main__":
    main()
