"""Whether the offline planner gives ordinary questions the shape they need (issue 24),
on a labelled set written apart from the planner (``benchmarks/data/question_shapes.jsonl``).

    .venv/bin/python benchmarks/question_shapes.py [SHAPES.jsonl] [--failures]

Per kind of question, the share of:
- ``items apart``: named items (comparisons, the same asked of several things) that have a
  sub-question naming that item and no other;
- ``parts apart``: parts the question asks to cover (facets, actions, a brief's points)
  that have a sub-question holding all the part's content words (each in its written
  form or as its lemma: "ran" is held by "run") and no other part's;
- ``enough``: questions planned with at least the sub-questions they need (a single
  fact: researched flat under ``--mode auto``);
and the count of fragments (not a question of at least four words ending in "?").
Each kind's questions are split in two halves by line order, reported apart: a gain
should show in both. ``--failures`` prints the plans that miss in the first halves only:
the second halves stay unread, a held-out check (lab log §24).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.question_plans import is_fragment, plan
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.knowledge.lexical import tokenize
from research_studio.understanding.parser import parse_batch

DEFAULT = Path(__file__).with_name("data") / "question_shapes.jsonl"


@cache
def _words(text: str) -> tuple[frozenset[str], ...]:
    """The text's content words, each as its written form and its lemma: a part is covered
    whatever form a grammatical question gives its verb ("problems companies ran into" by
    "What problems did companies run into?"; "which one supports X" by "Does A support
    X?")."""
    words = set(tokenize(text))
    doc = parse_batch([text], skip=("ner",))[0]
    if doc is None:
        return tuple(frozenset([w]) for w in sorted(words))
    return tuple(frozenset([t.lower_, t.lemma_.lower()]) for t in doc if t.lower_ in words)


def _apart(wanted: list[str], texts: list[str], contains) -> list[bool]:
    """For each wanted thing, whether one sub-question holds it and none of the others."""
    return [any(contains(t, w) and not any(contains(t, o) for o in wanted if o != w) for t in texts)
            for w in wanted]


def _names(text: str, item: str) -> bool:
    return item.lower() in text.lower()


def _covers(text: str, part: str) -> bool:
    words = _words(part)
    held = frozenset().union(*_words(text))
    return bool(words) and all(forms & held for forms in words)


def score(row: dict, mode: str, texts: list[str]) -> dict:
    items = _apart(row["items"], texts, _names) if row["items"] else []
    parts = _apart(row["parts"], texts, _covers) if row["parts"] else []
    if row["kind"] == "single_fact":
        enough = mode == "flat"
    else:
        enough = mode != "flat" and len(texts) >= row["min_sub_questions"]
    return {"items": items, "parts": parts, "enough": enough,
            "fragments": sum(map(is_fragment, texts)) if mode != "flat" else 0}


def _share(flags: list[bool]) -> str:
    return f"{statistics.mean(flags):.2f} ({sum(flags)}/{len(flags)})" if flags else "-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("shapes", nargs="?", default=str(DEFAULT))
    parser.add_argument("--failures", action="store_true",
                        help="print the plans that miss, in the first half of each kind")
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.shapes).read_text(encoding="utf-8").splitlines() if line]
    per_kind = {kind: sum(r["kind"] == kind for r in rows) for kind in {r["kind"] for r in rows}}
    embed = MiniLMOnnxEmbeddings().embed_array
    by_kind: dict[str, list[tuple[dict, dict]]] = {}
    for row in rows:
        structure, mode, texts = plan(row["question"], embed)
        result = score(row, mode, texts)
        by_kind.setdefault(row["kind"], []).append((row, result))
        missed = not result["enough"] or not all(result["items"]) or not all(result["parts"])
        first_half = len(by_kind[row["kind"]]) <= (per_kind[row["kind"]] + 1) // 2
        if args.failures and missed and first_half:
            print(f"\n[{row['kind']} → {structure.kind.value}/{mode}] {row['question']}")
            for text in texts:
                print(f"    - {text}")

    print("| kind | half | questions | items apart | parts apart | enough | fragments |")
    print("|---|---|---|---|---|---|---|")
    totals: dict[str, list] = {"items": [], "parts": [], "enough": [], "fragments": []}
    for kind, scored in by_kind.items():
        half = (len(scored) + 1) // 2
        for label, part in (("1", scored[:half]), ("2", scored[half:])):
            results = [r for _, r in part]
            items = [f for r in results for f in r["items"]]
            parts = [f for r in results for f in r["parts"]]
            enough = [r["enough"] for r in results]
            fragments = sum(r["fragments"] for r in results)
            totals["items"] += items
            totals["parts"] += parts
            totals["enough"] += enough
            totals["fragments"].append(fragments)
            print(f"| {kind} | {label} | {len(part)} | {_share(items)} | {_share(parts)} | "
                  f"{_share(enough)} | {fragments} |")
    print(f"| all | | {len(rows)} | {_share(totals['items'])} | {_share(totals['parts'])} | "
          f"{_share(totals['enough'])} | {sum(totals['fragments'])} |")


if __name__ == "__main__":
    main()
