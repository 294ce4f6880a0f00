"""How many of a knowledge base's sentences that announce something with a colon ("To
restore the dump into a new database called newdb:", "PostgreSQL supports two
localization facilities:") a finding would quote with what they announce.

    .venv/bin/python benchmarks/announced_examples.py --kb pg --home HOME

Every stored chunk is read as research reads a retrieved one (its whole units, the
blocks ingestion recorded); each quotable sentence ending in a colon is one case, counted
by what the findings stage attaches to it: code (``example``), a list or table rows
(``list_items``, where the code has them), or nothing, and for nothing, what follows the
sentence in the chunk: code, a list, other text, or the chunk's end. A sentence stored in
two overlapping chunks counts in each. Run it with the code and the knowledge base of each
version to compare (a knowledge base ingested by older code keeps its chunk boundaries).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_studio.config import ResearchConfig, load_context
from research_studio.graph.nodes import findings as findings_stage
from research_studio.graph.text_analysis import quotable
from research_studio.knowledge.base import KnowledgeBaseRegistry, _hit


def what_follows(text: str, end: int) -> str:
    rest = text[end:].lstrip()
    if not rest:
        return "chunk end"
    if rest.startswith(("```", "~~~")):
        return "code"
    if rest[:2] in ("- ", "* ", "• ") or (rest[:1].isdigit() and rest[1:3].startswith((". ", ") "))):
        return "list"
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", required=True)
    parser.add_argument("--home", type=Path, default=None)
    args = parser.parse_args()
    context = load_context(args.home)
    kb = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open(args.kb)
    config = ResearchConfig()
    counts: Counter[str] = Counter()
    bare: Counter[str] = Counter()
    chunks = 0
    for chunk_id, text, meta in kb._all_chunks(["documents", "metadatas"]):
        chunks += 1
        hit = _hit(args.kb, chunk_id, text or "", meta, 0.0)  # as a search returns it
        source = {"text": text or "", "start": hit.start, "lead": hit.lead, "tail": hit.tail,
                  "blocks": None if hit.blocks is None else [[b.start, b.end, b.kind] for b in hit.blocks]}
        if getattr(hit, "ends_document", None) is not None:
            source["ends_document"] = hit.ends_document
        units = findings_stage.whole_units(source)
        for unit in units:
            if not quotable(unit) or not unit.text.rstrip().endswith((":", "：")):
                continue
            attached = findings_stage._example(source, unit.end, units, config)
            kind = "code" if "example" in attached else "list" if "list_items" in attached else "nothing"
            counts[kind] += 1
            if kind == "nothing":
                bare[what_follows(source["text"], unit.end)] += 1
    total = sum(counts.values())
    print(f"knowledge base {args.kb}: {chunks} chunks, {total} quotable sentences ending in a colon")
    for kind in ("code", "list", "nothing"):
        print(f"  {kind:8} {counts[kind]:6}  {counts[kind] / max(total, 1):.3f}")
    print("  with nothing attached, what follows: "
          + ", ".join(f"{k} {v}" for k, v in bare.most_common()))


if __name__ == "__main__":
    main()
