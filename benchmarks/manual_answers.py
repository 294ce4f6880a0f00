"""Whether a report on a user's question over a manual cites the page that answers it and says
what that page says: the research run end to end, as a user starts it.

Reads the labelled questions of ``manual_retrieval.py`` (page, section and a short quote of
the answer), runs ``research-studio research QUESTION --kb NAME --clarify never --json`` for
each, and prints per knowledge base, per file and over all the share of reports that

- cite an answering page anywhere, and in the Answer;
- hold the labelled answer (its quote, matched loosely: ``SAME_TEXT``) anywhere, and in the
  Answer;

with the median seconds a question. Results are kept in ``--out`` (one JSON and one Markdown
report per question) and reused when present, so an interrupted run resumes.

    .venv/bin/python benchmarks/manual_answers.py benchmarks/data/manual_questions.jsonl \\
        --home ~/.research-studio --kb git=git-doc ... --out bench-out/manual-answers
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.manual_questions import add_arguments, kb_names, on_answering_page, read_cases
from research_studio.eval.metrics import answer_paragraph

CLI = Path(sys.executable).parent / "research-studio"
# a quote is in a text when some stretch of the text matches it at this partial ratio:
# whitespace, quotes and punctuation of the page's rendering differ from the report's
SAME_TEXT = 90
METRICS = ("page cited", "page in Answer", "answer in report", "answer in Answer")


def holds(text: str, quote: str) -> bool:
    return fuzz.partial_ratio(" ".join(quote.lower().split()), " ".join(text.lower().split())
                              ) >= SAME_TEXT


def judge(result: dict, case: dict) -> dict[str, float]:
    def answering(source: dict) -> bool:
        return on_answering_page(str(source.get("location") or ""), case["pages"])

    report = result.get("report_markdown") or ""
    answer = answer_paragraph(report)
    cited = [s for s in result.get("sources", []) if s.get("cited")]
    in_answer = [s for s in cited if f"[{s.get('sid')}]" in answer]
    return {
        "page cited": float(any(answering(s) for s in cited)),
        "page in Answer": float(any(answering(s) for s in in_answer)),
        "answer in report": float(holds(report, case["answer"])),
        "answer in Answer": float(holds(answer, case["answer"])),
    }


def run(case: dict, kb: str, options: argparse.Namespace, index: int) -> tuple[dict, float]:
    stem = options.out / f"{index:03d}"
    saved = stem.with_suffix(".json")
    if saved.exists():
        return json.loads(saved.read_text(encoding="utf-8")), json.loads(
            stem.with_suffix(".time").read_text())
    command = [str(CLI), "research", case["question"], "--kb", kb, "--clarify", "never",
               "--mode", options.mode, "--json", str(saved), "--out", str(stem.with_suffix(".md"))]
    if options.home:
        command += ["--home", options.home]
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    stem.with_suffix(".time").write_text(json.dumps(seconds))
    return json.loads(saved.read_text(encoding="utf-8")), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--mode", default="auto", choices=("auto", "flat", "hierarchical"))
    args = parser.parse_args()
    names = kb_names(args.kb)
    cases = read_cases(args.files)
    args.out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    seconds: list[float] = []
    for index, case in enumerate(cases, 1):
        result, took = run(case, names.get(case["kb"], case["kb"]), args, index)
        seconds.append(took)
        for metric, value in judge(result, case).items():
            for group in (case["kb"], case["file"], "all"):
                figures[group][metric].append(value)
        print(f"{index:3d} {took:5.1f}s " + " ".join(
            f"{int(figures[case['kb']][m][-1])}" for m in METRICS) + f"  {case['question'][:70]}",
            flush=True)
    files = {case["file"] for case in cases}
    print(f"\n{'':<30} {'n':>3} " + " ".join(f"{m:>16}" for m in METRICS))
    for group in sorted(figures, key=lambda g: (g == "all", g in files, g)):
        row = figures[group]
        print(f"{group:<30} {len(row[METRICS[0]]):>3} "
              + " ".join(f"{statistics.mean(row[m]):>16.3f}" for m in METRICS))
    print(f"\nmedian {statistics.median(seconds):.1f} s a question")


if __name__ == "__main__":
    main()
