"""Run every selected (question, mode) pair once, appending each scored result to
``results.jsonl`` as soon as it is done, so an interrupted evaluation resumes where it
stopped and a failing question costs only its own line."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from research_studio.config import AppContext, ResearchConfig
from research_studio.eval.answers import AnswerExtractor
from research_studio.eval.metrics import Embed, score_question

QuestionRunner = Callable[[dict[str, Any], str], dict[str, Any]]
Progress = Callable[[str], None]
MODES = ("flat", "hierarchical")


def research_runner(ctx: AppContext, kb: str) -> QuestionRunner:
    """The real pipeline, non-interactive, with the same budgets for every mode."""
    from research_studio.graph.session import Hooks, run_research

    def run(record: dict[str, Any], mode: str) -> dict[str, Any]:
        config = ResearchConfig(kb=kb, mode=mode, clarify="never", interactive=False)  # type: ignore[arg-type]
        return asyncio.run(run_research(ctx, record["question"], config, Hooks()))

    return run


class ResultsFile:
    """``results.jsonl``: one line per (question id, mode), appended and synced."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def rows(self) -> list[dict[str, Any]]:
        """Every complete line (a line cut short by a crash is ignored)."""
        if not self.path.exists():
            return []
        rows = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and "id" in row and "mode" in row:
                rows.append(row)
        return rows

    def done(self) -> set[tuple[str, str]]:
        return {(str(r["id"]), str(r["mode"])) for r in self.rows()}

    def _drop_partial_tail(self) -> None:
        """Cut a last line left unfinished by a killed process, so appends stay lines."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        data = self.path.read_bytes()
        if not data.endswith(b"\n"):
            self.path.write_bytes(data[:data.rfind(b"\n") + 1])

    def append(self, row: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._drop_partial_tail()
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:120]


def evaluate_pair(record: dict[str, Any], mode: str, run_question: QuestionRunner,
                  extract_answer: AnswerExtractor, paragraph_text: dict[str, str],
                  embed: Embed | None, hop_threshold: float = 0.6,
                  runs_dir: Path | None = None) -> dict[str, Any]:
    """Research, score and describe one pair; an exception becomes an ``error`` row."""
    row: dict[str, Any] = {"id": record["id"], "mode": mode, "question": record["question"],
                           "answers": record["answers"]}
    started = time.perf_counter()
    try:
        result = run_question(record, mode)
        if runs_dir is not None:
            runs_dir.mkdir(parents=True, exist_ok=True)
            (runs_dir / f"{_safe(record['id'])}.{mode}.json").write_text(
                json.dumps(result, ensure_ascii=False, default=str), encoding="utf-8")
        short_answer, path = extract_answer(record, result)
        metrics = score_question(record, result, short_answer, paragraph_text, embed, hop_threshold)
    except Exception as exc:  # recorded; the evaluation goes on with the next pair
        row.update(error=f"{type(exc).__name__}: {exc}", elapsed_s=round(time.perf_counter() - started, 3))
        return row
    sources = result.get("sources") or []
    row.update(
        status=result.get("status"), session_id=result.get("session_id"),
        result_mode=result.get("mode"), short_answer=short_answer, short_answer_path=path,
        sub_questions=[sq.get("question_text", "") for sq in result.get("sub_questions") or []],
        cited_doc_ids=[s.get("doc_id") for s in sources if s.get("cited")],
        retrieved_doc_ids=[s.get("doc_id") for s in sources],
        metrics=metrics, elapsed_s=round(time.perf_counter() - started, 3))
    return row


def run_pairs(records: list[dict[str, Any]], modes: Iterable[str], results: ResultsFile,
              run_question: QuestionRunner, extract_answer: AnswerExtractor,
              paragraph_text: dict[str, str], embed: Embed | None = None,
              hop_threshold: float = 0.6, progress: Progress = lambda _: None,
              runs_dir: Path | None = None) -> list[dict[str, Any]]:
    """Evaluate each (record, mode) not yet in ``results``; returns the rows added now."""
    modes = list(modes)
    done = results.done()
    added: list[dict[str, Any]] = []
    total = len(records)
    for i, record in enumerate(records, start=1):
        for mode in modes:
            label = f"[{i}/{total}] {mode:<12} {record['id']}"
            if (record["id"], mode) in done:
                progress(f"{label}: already in results, skipped")
                continue
            progress(f"{label}: researching…")
            row = evaluate_pair(record, mode, run_question, extract_answer, paragraph_text,
                                embed, hop_threshold, runs_dir)
            results.append(row)
            done.add((record["id"], mode))
            added.append(row)
            if "error" in row:
                progress(f"{label}: error — {row['error'][:200]}")
            else:
                m = row["metrics"]
                progress(f"{label}: done in {m['wall_s']:.1f}s · recall(cited) "
                         f"{_fmt(m['support_recall_cited'])} · F1 {m['answer_f1']:.2f} · "
                         f"answer {row['short_answer'][:60]!r}")
    return added


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
