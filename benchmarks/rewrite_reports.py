"""Re-run the report writer on the saved runs of an evaluation, offline, and print the
cited support recall and citation precision it gives per mode.

The writer is deterministic with the embedded model, so on unchanged code this
reproduces the evaluation's own figures exactly; after a change to evidence selection
(``graph/nodes/write.py``) it shows what the change does to the same research, in
seconds instead of a 20-minute evaluation.

    python benchmarks/rewrite_reports.py /tmp/final2-musique40 DATA/musique_dev100.jsonl

A report that states no short answer of its own is read again by the embedded model, as
the evaluation reads it (about 0.4 s a question); ``--saved-answers`` keeps the run's
short answers instead, which is right only while the Answer section is unchanged.

``--resynthesize`` first rebuilds the fact sheets and the verified claims from the saved
findings (domain synthesis and trust engine, with the sentence encoder), to measure a
change to either on the same research; about 3 s per hierarchical run on 2 cores. It
reproduces flat exactly and hierarchical within a few thousandths (the saved findings
already carry the confidence the conflict vote gave them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.config import ResearchConfig, WebSettings, load_context
from research_studio.eval.answers import model_answer_extractor
from research_studio.eval.metrics import (
    answer_containment,
    answer_text,
    citation_precision,
    exact_match,
    normalize_text,
    support_recall,
    token_f1,
)
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.domain_synthesis import synthesize_all
from research_studio.graph.nodes.trust import trust_engine
from research_studio.graph.nodes.write import write_node
from research_studio.graph.result import report_text
from research_studio.understanding import understand


class ExtractiveOnly:
    """The embedded model's capability: the writer takes its extractive path."""

    def is_strong(self, tier: str) -> bool:
        return False


def rewrite(run_file: Path, deps: ResearchDeps, resynthesize: bool = False,
            overrides: dict | None = None) -> tuple[dict, list[dict], dict]:
    """The sources the writer cites for a saved run, and its update; with ``resynthesize``
    the fact sheets and claims are rebuilt from the run's findings first."""
    result = json.loads(run_file.read_text())
    config = ResearchConfig(**(overrides or {}))
    sources = {s["source_id"]: s for s in result["sources"]}
    claims = [{k: v for k, v in c.items() if k != "sids"} for c in result["claims"]]
    findings = [f for sq in result["sub_questions"] for f in sq.get("findings", [])]
    sub_questions = [{k: v for k, v in sq.items() if k != "findings"} for sq in result["sub_questions"]]
    # the question's structure, as the analysis stores it (a saved result does not keep it)
    structure = understand(result.get("clarified_query") or result["query"], deps.embeddings.embed_array)
    state = {"query": result["query"], "sub_questions": sub_questions, "claims": claims,
             "sources": sources, "mode": result["mode"], "config": config, "fact_sheets": [],
             "knowledge_gaps": [], "findings": findings, "question_structure": structure.to_dict()}
    if resynthesize:
        sheets, _, _ = synthesize_all(state, deps.similarity)
        state["fact_sheets"] = sheets
        state["claims"] = trust_engine(sheets, findings, sources, config,
                                       deps.similarity)["claims"]
    update = asyncio.run(write_node(state, SimpleNamespace(context=deps)))
    update["claims"] = state["claims"]
    return result, [sources[sid] for sid in update["citations"].values()], update


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, help="an `eval --out` folder")
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--resynthesize", action="store_true",
                        help="rebuild fact sheets and claims from the saved findings first")
    parser.add_argument("--rows", default=None, metavar="A:B",
                        help="only results rows A to B (a slice), e.g. :40 to tune and 40: to check")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="a ResearchConfig field for the writer, e.g. claim_min_relevance=0.3")
    parser.add_argument("--saved-answers", action="store_true",
                        help="score the run's saved short answers instead of reading the new "
                        "Answer sections again")
    args = parser.parse_args()
    extract = None if args.saved_answers else model_answer_extractor(load_context().settings.models)
    overrides = dict(item.split("=", 1) for item in args.set)
    deps = ResearchDeps(coordinator=ExtractiveOnly(), kb=None,  # type: ignore[arg-type]
                        web=WebSettings(provider="none"))

    records = {r["id"]: r for r in map(json.loads, args.dataset.read_text().splitlines()) if r}
    paragraph_text = {p["id"]: normalize_text(p["text"]) for r in records.values()
                      for p in r["paragraphs"]}
    rows = [json.loads(line) for line in (args.run_dir / "results.jsonl").read_text().splitlines()]
    if args.rows:
        first, _, last = args.rows.partition(":")
        rows = rows[int(first) if first else None:int(last) if last else None]
    for mode in ("flat", "hierarchical"):
        recall, precision, saved, shown, em, f1, in_answer, crossed = [], [], [], [], [], [], [], []
        for row in (r for r in rows if r["mode"] == mode):
            path = args.run_dir / "runs" / f"{row['id']}.{mode}.json"
            if not path.exists():
                continue
            result, cited, update = rewrite(path, deps, args.resynthesize, overrides)
            shown.append(len(update["citations"]))
            statuses = [c.get("status") for c in update["claims"]]
            crossed.append(statuses.count("cross_validated") / max(1, len(statuses)))
            golds = records[row["id"]]["answers"]
            reread = {**result, "report_markdown": update["report_markdown"],
                      "short_answer": update.get("short_answer")}
            if extract is not None:
                own, _ = extract(records[row["id"]], reread)
            else:
                own = (update.get("short_answer") or {}).get("text") or row.get("short_answer", "")
            em.append(exact_match(own, golds))
            f1.append(token_f1(own, golds))
            in_answer.append(answer_containment(golds, answer_text(report_text(reread))))
            record = records[row["id"]]
            recall.append(support_recall(record, cited, paragraph_text) or 0.0)
            precision.append(citation_precision(record, cited, paragraph_text))
            saved.append(row["metrics"]["support_recall_cited"] or 0.0)
        if recall:
            print(f"{mode:12} n={len(recall)}  cited support recall {statistics.mean(recall):.3f} "
                  f"(evaluation: {statistics.mean(saved):.3f})  citation precision "
                  f"{statistics.mean(precision):.3f}  sources cited {statistics.mean(shown):.1f}  "
                  f"EM {statistics.mean(em):.3f}  F1 {statistics.mean(f1):.3f}  answer in Answer "
                  f"section {statistics.mean(in_answer):.3f}  claims cross-validated "
                  f"{statistics.mean(crossed):.3f}")


if __name__ == "__main__":
    main()
