"""Whether a passage that holds the answer gives the answering sentence as a quote.

The research step quotes a few sentences of each passage it retrieves (the offline
findings stage); a report can only state what was quoted. This benchmark isolates that
step: for each question it takes passages known to hold the answer, runs the findings
stage over them as one iteration does (all passages of the question in one batch, the
question as the sub-question), and counts the questions where some quote holds the
answer. It also prints the mean number and length of the quotes, so a change that finds
more answers only by quoting more shows it.

Two kinds of input:
- labelled manual questions (``benchmarks/data/manual_questions*.jsonl``) with ``--kb
  LABEL=NAME`` (only the labels given): the passages are the top ``--depth`` chunks of a
  search for the question, and those holding the labelled quote (matched as
  ``manual_answers`` matches it) count;
- QA files (``--qa DATA/musique_dev100.jsonl``): the record's own paragraphs, and its
  supporting paragraphs that contain an answer string (SQuAD-normalised) count.

    .venv/bin/python benchmarks/answer_sentences.py benchmarks/data/manual_questions.jsonl \\
        --home ~/.research-studio --kb git=git-doc --qa DATA/hotpotqa_dev200.jsonl --limit 40 \\
        [--set findings_per_result=3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.manual_answers import holds
from benchmarks.manual_questions import add_arguments, kb_names, read_cases
from research_studio.config import ResearchConfig, load_context
from research_studio.eval.datasets import load_qa_dataset
from research_studio.eval.metrics import normalize_answer
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.execute import Retrieved, _kb_search
from research_studio.graph.nodes.findings import extractive_findings
from research_studio.graph.nodes.plan import new_sub_question
from research_studio.graph.nodes.strategy import Task
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.state import Finding, Source

DEPTH = 10


def quoted(findings: list[Finding], answering: set[str], holds_answer) -> bool:
    """Whether a quote of an answering passage (or what it shows with it) holds the answer."""
    return any(holds_answer(" ".join([f["text"], f.get("example", ""), *f.get("list_items", [])]))
               for f in findings if f["source_id"] in answering)


def run_question(question: str, retrieved: list[Retrieved], answering: set[str], holds_answer,
                 deps: ResearchDeps, config: ResearchConfig) -> dict[str, float]:
    sub_question = new_sub_question("sq_001", question, 1.0, "", "direct")
    findings = extractive_findings(sub_question, retrieved, 0, config, deps.similarity,
                                   deps.embeddings.embed_array)
    mine = [f for f in findings if f["source_id"] in answering]
    return {"answer quoted": float(quoted(findings, answering, holds_answer)),
            "quotes a passage": len(mine) / len(answering),
            "chars a quote": statistics.mean(len(f["text"]) for f in mine) if mine else 0.0}


def manual_rows(args: argparse.Namespace, deps: ResearchDeps, config: ResearchConfig):
    """(label, question, retrieved, answering ids, answer test) of each manual question
    whose search finds a passage holding its labelled quote."""
    if not args.files:
        return
    names = kb_names(args.kb)
    context = load_context(args.home)
    registry = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge)
    for case in read_cases(args.files):
        if names and case["kb"] not in names:
            continue  # a manual not ingested for this run
        deps.kb = registry.open(names.get(case["kb"], case["kb"]))
        search = Task(tool="kb", query=case["question"], kind="breadth")
        retrieved = _kb_search(deps, search, args.depth, "sq_001")
        answering = {r.source["source_id"] for r in retrieved
                     if holds(r.source["text"], case["answer"])}
        if answering:
            yield (case["kb"], case["question"], retrieved, answering,
                   lambda text, quote=case["answer"]: holds(text, quote))


def qa_rows(path: Path, limit: int, offset: int):
    """The same for a QA file: its paragraphs as the passages, in the file's order."""
    for record in load_qa_dataset(path)[offset:offset + limit]:
        answers = [normalize_answer(a) for a in record["answers"] if normalize_answer(a)]
        retrieved = []
        answering: set[str] = set()
        for rank, paragraph in enumerate(record["paragraphs"]):
            text = f"{paragraph['title']}\n\n{paragraph['text']}"
            source = Source(source_id=paragraph["id"], kind="kb", title=paragraph["title"],
                            location="", url="", kb="qa", doc_id=paragraph["id"],
                            chunk_id=paragraph["id"], text=text, start=0, end=len(text),
                            retrieval_score=1.0, sub_question_ids=["sq_001"])
            retrieved.append(Retrieved(source, rank, record["question"]))
            if paragraph.get("is_supporting") and any(a in normalize_answer(text) for a in answers):
                answering.add(paragraph["id"])
        if answering:
            yield (path.stem.split("_")[0], record["question"], retrieved, answering,
                   lambda text, wanted=answers: any(a in normalize_answer(text) for a in wanted))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.set_defaults(files=[])
    parser.add_argument("--qa", type=Path, action="append", default=[])
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--depth", type=int, default=DEPTH)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="a research config field to change (a variant to compare)")
    args = parser.parse_args()
    config = ResearchConfig(**dict(item.split("=", 1) for item in args.set))
    deps = ResearchDeps(coordinator=None, kb=None, web=None)  # type: ignore[arg-type]
    rows = [*manual_rows(args, deps, config),
            *(row for path in args.qa for row in qa_rows(path, args.limit, args.offset))]
    figures: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for label, question, retrieved, answering, holds_answer in rows:
        for metric, value in run_question(question, retrieved, answering, holds_answer,
                                          deps, config).items():
            figures[label][metric].append(value)
            figures["all"][metric].append(value)
    print("| set | questions | answer quoted | quotes a passage | chars a quote |")
    print("|---|---|---|---|---|")
    for label, metrics in sorted(figures.items(), key=lambda item: item[0] == "all"):
        print(f"| {label} | {len(metrics['answer quoted'])} | "
              + " | ".join(f"{statistics.mean(metrics[m]):.3f}" if m != "chars a quote"
                           else f"{statistics.mean(metrics[m]):.0f}"
                           for m in ("answer quoted", "quotes a passage", "chars a quote")) + " |")


if __name__ == "__main__":
    main()
