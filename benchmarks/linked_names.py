"""Which names the offline plan follows from a knowledge base, and whether they lead
anywhere: the retrieval-driven and chain plans (questions no kind template splits) add a
sub-question per name that the first retrieved passages link to the question.

    .venv/bin/python benchmarks/linked_names.py QA_FILE [QA_FILE ...] --home HOME
    .venv/bin/python benchmarks/linked_names.py --kb NAME --questions FILE --home HOME

With QA files (MuSiQue, HotpotQA; their knowledge bases as ``research-studio eval``
builds them in HOME) it prints, per file and per half, how many plans follow names and
the share of followed names that a supporting paragraph gives (its title or its text):
a name no supporting paragraph mentions sends a sub-question after nothing the answer
needs. With a knowledge base and a file of questions (one per line) it prints the names
each plan follows, to be read: documentation has no gold paragraphs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_studio.config import ResearchConfig, load_context
from research_studio.eval.corpus import file_digest, kb_name_for
from research_studio.eval.datasets import load_qa_dataset
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.analyze import offline_analysis, template_from_analysis
from research_studio.graph.nodes.plan import offline_decomposition
from research_studio.knowledge.base import KnowledgeBase, KnowledgeBaseRegistry
from research_studio.models.coordinator import ModelCoordinator
from research_studio.understanding import understand


def followed_names(question: str, deps: ResearchDeps, config: ResearchConfig) -> tuple[str, list[str]]:
    """The plan's strategy and the names its sub-questions follow (their search words
    are "<name> — <question or clause>")."""
    structure = understand(question, deps.embeddings.embed_array)
    analysis = offline_analysis(structure).model_dump()
    config, _ = template_from_analysis(config, analysis)  # type: ignore[arg-type]
    rows, strategy = offline_decomposition(question, structure, deps, config)
    names = [row.query.split(" — ")[0] for row in rows
             if len(row) > 3 and " — " in row.query and row.priority < 0.9]
    return strategy, names


def supported(name: str, record: dict) -> bool:
    """A supporting paragraph gives the name (title or text, ignoring case)."""
    wanted = name.lower()
    return any(wanted in f"{p['title']} {p['text']}".lower()
               for p in record["paragraphs"] if p.get("is_supporting"))


def qa_report(path: Path, deps_for, config: ResearchConfig) -> None:
    records = load_qa_dataset(path)
    deps = deps_for(kb_name_for(path, file_digest(path)))
    halves: list[list[tuple[int, int, int]]] = [[], []]
    for index, record in enumerate(records):
        _, names = followed_names(record["question"], deps, config)
        good = sum(supported(n, record) for n in names)
        halves[index * 2 // len(records)].append((1 if names else 0, len(names), good))
    print(f"{path.name}:")
    parts = (("all", halves[0] + halves[1]), ("first half", halves[0]), ("second half", halves[1]))
    for label, rows in parts:
        plans = sum(r[0] for r in rows)
        followed = sum(r[1] for r in rows)
        good = sum(r[2] for r in rows)
        share = good / followed if followed else 0.0
        print(f"  {label:12s} questions {len(rows):3d}  plans following names {plans:3d}  "
              f"names {followed:3d}  in a supporting paragraph {good:3d} ({share:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*", type=Path, help="QA files (MuSiQue, HotpotQA)")
    parser.add_argument("--home", required=True, help="home holding the knowledge bases")
    parser.add_argument("--kb", help="a knowledge base to plan over, with --questions")
    parser.add_argument("--questions", type=Path, help="questions, one per line")
    args = parser.parse_args()
    ctx = load_context(args.home)
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    config = ResearchConfig()

    def deps_for(name: str) -> ResearchDeps:
        kb: KnowledgeBase = registry.open(name)
        return ResearchDeps(coordinator=ModelCoordinator(ctx.settings.models), kb=kb,
                            web=ctx.settings.web, embeddings=registry.embeddings)

    for path in args.files:
        qa_report(path, deps_for, config)
    if args.kb and args.questions:
        deps = deps_for(args.kb)
        for question in args.questions.read_text(encoding="utf-8").splitlines():
            if question.strip():
                strategy, names = followed_names(question, deps, config)
                print(f"[{strategy}] {question}\n    follows: {names}")


if __name__ == "__main__":
    main()
