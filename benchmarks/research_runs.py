"""Research runs with the embedded model: wall time per run and per node, LLM calls and
tokens, structured-output repairs and fallbacks, and parallel vs sequential research.

    python benchmarks/research_runs.py demo [--runs 2]
    python benchmarks/research_runs.py DATA/musique_dev100.jsonl --home DIR --limit 10

``demo`` uses the python-docs knowledge base and the demo question; a dataset file uses
its pooled corpus (built with ``research-studio ingest`` into DIR if missing) and its
first ``--limit`` questions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pooled_corpus import load_questions, write_pooled_corpus
from research_studio.cli_research import DEMO_QUESTION
from research_studio.config import ResearchConfig, load_context
from research_studio.graph.session import run_research
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.knowledge.demo import DEMO_KB, python_docs_documents

CLI = Path(sys.executable).parent / "research-studio"


def prepare(target: str, home: Path, limit: int) -> tuple[str, list[str]]:
    ctx = load_context(home)
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    if target == "demo":
        registry.open(DEMO_KB, create=True).ingest_documents(python_docs_documents())
        return DEMO_KB, [DEMO_QUESTION]
    dataset = Path(target)
    kb = dataset.stem.replace("_", "-")
    questions = load_questions(dataset)
    if kb not in registry.names():
        corpus = home / "pooled.jsonl"
        write_pooled_corpus(questions, corpus)
        subprocess.run([str(CLI), "ingest", str(corpus), "--kb", kb, "--home", str(home)],
                       check=True, capture_output=True)
    return kb, [q["question"] for q in questions[:limit]]


def research_elapsed(result: dict) -> float:
    """Wall time during which at least one sub-agent was researching (union of intervals)."""
    spans = sorted((t["started_at"], t["started_at"] + t["wall_s"])
                   for t in result["node_timings"] if t["node"] == "research_sub_question")
    total, current_end = 0.0, float("-inf")
    for start, end in spans:
        total += max(0.0, end - max(start, current_end))
        current_end = max(current_end, end)
    return total


def summarise(results: list[dict]) -> dict:
    node_s: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for node, seconds in r["usage"]["node_s"].items():
            node_s[node].append(seconds)
    outcomes = defaultdict(int)
    for r in results:
        for key, value in r["usage"]["structured_output"].items():
            outcomes[key] += value
    structured_total = sum(outcomes.values()) or 1
    return {
        "runs": len(results),
        "wall_s_mean": round(statistics.mean(r["usage"]["wall_s"] for r in results), 2),
        "wall_s_max": round(max(r["usage"]["wall_s"] for r in results), 2),
        "node_s_mean": {k: round(statistics.mean(v), 3) for k, v in node_s.items()},
        "llm_calls_mean": round(statistics.mean(r["usage"]["llm_calls"] for r in results), 2),
        "prompt_tokens_mean": round(statistics.mean(r["usage"]["prompt_tokens"] for r in results)),
        "completion_tokens_mean": round(statistics.mean(r["usage"]["completion_tokens"]
                                                        for r in results)),
        "structured_outputs": dict(outcomes),
        "repair_share": round(outcomes["repaired"] / structured_total, 3),
        "fallback_share": round(outcomes["fallback"] / structured_total, 3),
        "sub_questions_mean": round(statistics.mean(len(r["sub_questions"]) for r in results), 2),
        "findings_mean": round(statistics.mean(r["metrics"]["findings"] for r in results), 1),
        "sources_cited_mean": round(statistics.mean(r["metrics"]["sources_cited"] for r in results), 1),
        "research_stage_s_mean": round(statistics.mean(research_elapsed(r) for r in results), 3),
    }


async def run_all(home: Path, kb: str, questions: list[str], runs: int, **config) -> list[dict]:
    ctx = load_context(home)
    out = []
    for _ in range(runs):
        for question in questions:
            out.append(await run_research(ctx, question, ResearchConfig(
                kb=kb, clarify="never", **config)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", help="'demo' or a dataset JSONL file")
    parser.add_argument("--home", type=Path)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="rs-research-bench-"))
    kb, questions = prepare(args.target, home, args.limit)
    report = {"target": args.target, "questions": len(questions), "runs": args.runs}
    for label, config in (("hierarchical_parallel", {"mode": "hierarchical", "parallel": True}),
                          ("hierarchical_sequential", {"mode": "hierarchical", "parallel": False}),
                          ("flat", {"mode": "flat"})):
        results = asyncio.run(run_all(home, kb, questions, args.runs, **config))
        report[label] = summarise(results)
        print(label, json.dumps(report[label]), flush=True)
    parallel = report["hierarchical_parallel"]["research_stage_s_mean"]
    sequential = report["hierarchical_sequential"]["research_stage_s_mean"]
    report["parallel_gain"] = {
        "wall_s": round(report["hierarchical_sequential"]["wall_s_mean"]
                        - report["hierarchical_parallel"]["wall_s_mean"], 2),
        "research_stage_speedup": round(sequential / parallel, 2) if parallel else None}
    print(json.dumps(report["parallel_gain"]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
