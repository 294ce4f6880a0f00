"""Research questions a knowledge base knows nothing about, with the embedded model: how
many sources each report cites and whether its Answer says the evidence is missing.

    python benchmarks/off_topic_reports.py DATA/drb_en_tasks40.jsonl --limit 5

Runs the real pipeline (``--mode auto``) over the demo's ``python-docs`` knowledge base,
built in ``--home`` when missing. A DeepResearch Bench task about bird navigation or
elderly consumption has no evidence there: a good report cites (almost) nothing and says so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.config import ResearchConfig, load_context
from research_studio.eval.metrics import answer_text
from research_studio.graph.result import report_text
from research_studio.graph.session import run_research
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.knowledge.demo import DEMO_KB, python_docs_documents


def tasks(path: Path, offset: int, limit: int) -> list[str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [row["prompt"] for row in rows if row.get("language", "en") == "en"][offset:offset + limit]


async def run_all(home: Path, questions: list[str]) -> list[dict]:
    ctx = load_context(home)
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    if DEMO_KB not in registry.names():
        registry.open(DEMO_KB, create=True).ingest_documents(python_docs_documents())
    return [await run_research(ctx, question, ResearchConfig(kb=DEMO_KB, clarify="never"))
            for question in questions]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", type=Path, help="DeepResearch Bench tasks (JSON Lines)")
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--offset", type=int, default=0, help="tasks to skip first")
    parser.add_argument("--home", type=Path, help="default: a temporary folder")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="off-topic-"))
    questions = tasks(args.tasks, args.offset, args.limit)
    results = asyncio.run(run_all(home, questions))
    cited, says_missing = [], []
    for question, result in zip(questions, results, strict=True):
        evidence = result["metrics"].get("evidence", {})
        answer = answer_text(report_text(result))
        cited.append(result["metrics"]["sources_cited"])
        says_missing.append("holds no evidence" in answer)
        print(f"{cited[-1]:3} cited · relevant claims {evidence.get('relevant_claims')} of "
              f"{evidence.get('verified_claims')} verified · closest "
              f"{evidence.get('closest_relevance', 0):.2f} · says missing {says_missing[-1]} · "
              f"{question[:70]}")
    print(f"{len(results)} reports: sources cited mean {statistics.mean(cited):.1f}, max "
          f"{max(cited)}; the Answer says the evidence is missing in {sum(says_missing)}")


if __name__ == "__main__":
    main()
