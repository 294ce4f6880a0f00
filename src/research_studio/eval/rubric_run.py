"""The ``eval-reports`` command's work: find or write each task's report, grade it with
an independent judge, append one line per task to ``grades.jsonl`` (resumable) and
summarise overall and per-dimension scores."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel

from research_studio.config import AppContext, ResearchConfig
from research_studio.errors import ResearchStudioError
from research_studio.eval.aggregate import bootstrap_ci
from research_studio.eval.datasets import load_tasks
from research_studio.eval.models import settings_for_model
from research_studio.eval.rubric import check_judge, grade_task
from research_studio.eval.runner import Progress, ResultsFile, _safe

ReportWriter = Callable[[dict[str, Any]], str]


@dataclass
class RubricOptions:
    judge: str
    reports: Path | None = None
    model: str | None = None
    kb: str | None = None
    mode: str = "auto"
    limit: int | None = None
    out: Path | None = None


@dataclass
class RubricOutcome:
    out: Path
    summary: dict[str, Any]
    files: dict[str, Path] = field(default_factory=dict)


def research_writer(ctx: AppContext, kb: str, mode: str) -> ReportWriter:
    """Reports from the real pipeline over ``kb``, web off, non-interactive."""
    from research_studio.graph.result import report_text
    from research_studio.graph.session import Hooks, run_research

    def write(task: dict[str, Any]) -> str:
        config = ResearchConfig(kb=kb, mode=mode, use_web=False, clarify="never",  # type: ignore[arg-type]
                                interactive=False)
        return report_text(asyncio.run(run_research(ctx, task["prompt"], config, Hooks())))

    return write


def _report_for(task: dict[str, Any], options: RubricOptions, generated: Path,
                write: ReportWriter | None) -> tuple[str, str]:
    """(report text, where it came from); a missing given report is an error for the task."""
    name = f"{task['id']}.md"
    if options.reports is not None:
        path = options.reports / name
        if not path.is_file():
            raise FileNotFoundError(f"no report {path}")
        return path.read_text(encoding="utf-8"), str(path)
    path = generated / f"{_safe(task['id'])}.md"
    if not path.is_file():  # written once, reused when grading is resumed
        if write is None:
            raise ResearchStudioError(f"no report for task {task['id']} and nothing to write one")
        generated.mkdir(parents=True, exist_ok=True)
        path.write_text(write(task), encoding="utf-8")
    return path.read_text(encoding="utf-8"), str(path)


def _mean_ci(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"mean": None, "ci95": None, "n": 0}
    return {"mean": sum(values) / len(values), "ci95": list(bootstrap_ci(values)), "n": len(values)}


def summarise_grades(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall and per-dimension means (dimension scores on 0–1) with intervals."""
    ok = [r for r in rows if "error" not in r]
    dims = sorted({d for r in ok for d in r["grade"]["dimensions"]})
    return {
        "n": len(ok), "errors": len(rows) - len(ok),
        "overall": _mean_ci([r["grade"]["overall"] for r in ok if r["grade"]["overall"] is not None]),
        "dimensions": {d: _mean_ci([r["grade"]["dimensions"][d]["score"] / 10 for r in ok
                                    if d in r["grade"]["dimensions"]
                                    and r["grade"]["dimensions"][d]["score"] is not None])
                       for d in dims},
        "missing_criteria": sum(r["grade"]["missing_criteria"] for r in ok),
        "criteria": sum(r["grade"]["criteria"] for r in ok),
    }


def run_rubric_eval(ctx: AppContext, tasks_path: Path, options: RubricOptions,
                    progress: Progress = lambda _: None, write: ReportWriter | None = None,
                    judge_model: BaseChatModel | None = None) -> RubricOutcome:
    """Grade every selected task once; ``write`` and ``judge_model`` replace the pipeline
    and the judge in tests."""
    check_judge(ctx.settings, options.judge, options.model)
    if options.limit is not None and options.limit < 1:
        raise ResearchStudioError("--limit must be at least 1")
    tasks = load_tasks(Path(tasks_path))[:options.limit]
    if options.reports is not None and not options.reports.is_dir():
        raise ResearchStudioError(f"--reports: no such folder {options.reports}")
    if options.reports is None and write is None:
        if not options.kb:
            raise ResearchStudioError("--kb is required to generate reports "
                                      "(or give --reports DIR with <task id>.md files)")
        from research_studio.knowledge.base import KnowledgeBaseRegistry

        KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge).open(options.kb)  # exists?
        tested = AppContext(home=ctx.home, settings=settings_for_model(ctx.settings, options.model))
        write = research_writer(tested, options.kb, options.mode)
    out = Path(options.out or ctx.home / "eval-runs" / f"{Path(tasks_path).stem}-reports")
    out.mkdir(parents=True, exist_ok=True)
    grades = ResultsFile(out / "grades.jsonl")
    done = {str(r["id"]) for r in grades.rows()}
    for i, task in enumerate(tasks, start=1):
        label = f"[{i}/{len(tasks)}] task {task['id']}"
        if task["id"] in done:
            progress(f"{label}: already graded, skipped")
            continue
        row: dict[str, Any] = {"id": task["id"], "mode": "rubric", "judge": options.judge}
        try:
            progress(f"{label}: {'reading' if options.reports else 'writing'} the report…")
            report, source = _report_for(task, options, out / "reports", write)
            progress(f"{label}: grading with {options.judge}…")
            row.update(report=source, report_chars=len(report),
                       grade=grade_task(task, report, ctx.settings, options.judge, judge_model))
            progress(f"{label}: overall {row['grade']['overall']}, "
                     f"{row['grade']['missing_criteria']} criteria missing")
        except Exception as exc:  # recorded; the other tasks still get graded
            row["error"] = f"{type(exc).__name__}: {exc}"
            progress(f"{label}: error — {row['error'][:200]}")
        grades.append(row)
    ids = {t["id"] for t in tasks}
    summary = summarise_grades([r for r in grades.rows() if str(r["id"]) in ids])
    summary_path = out / "summary.json"
    summary_path.write_text(json.dumps({"judge": options.judge, **summary}, indent=2),
                            encoding="utf-8")
    return RubricOutcome(out=out, summary=summary,
                         files={"grades": grades.path, "summary_json": summary_path})
