"""The ``eval`` command's work, front-end free: validate the file, build or reuse its
knowledge base, run the pending pairs, then summarise and write every output."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from research_studio.config import AppContext, resolve_home
from research_studio.errors import ResearchStudioError
from research_studio.eval.aggregate import summarise
from research_studio.eval.answers import AnswerExtractor, model_answer_extractor
from research_studio.eval.corpus import (
    ensure_knowledge_base,
    file_digest,
    kb_name_for,
    paragraph_texts,
)
from research_studio.eval.datasets import load_qa_dataset
from research_studio.eval.metrics import Embed
from research_studio.eval.models import settings_for_model
from research_studio.eval.report import write_summary
from research_studio.eval.runner import (
    MODES,
    Progress,
    QuestionRunner,
    ResultsFile,
    research_runner,
    run_pairs,
)

log = logging.getLogger("research_studio.eval")


@dataclass
class EvalOptions:
    """What the command line chose; None means the documented default."""

    mode: str = "both"
    limit: int | None = None
    offset: int = 0
    kb_dir: Path | None = None
    out: Path | None = None
    model: str | None = None
    hop_threshold: float = 0.6


@dataclass
class EvalOutcome:
    """Where everything went and what it says."""

    out: Path
    modes: list[str]
    summary: dict[str, dict[str, Any]]
    files: dict[str, Path] = field(default_factory=dict)
    added: int = 0
    skipped: int = 0
    kb: str = ""



def plots(summary: dict, rows: list, modes: Sequence[str], out: Path) -> dict[str, Path]:
    """metrics.png and cost.png, when matplotlib (the ``eval`` extra) is installed; the
    summary files carry the same figures either way."""
    try:
        from research_studio.eval.plots import plot_cost, plot_metrics
    except ImportError:
        log.info("matplotlib is not installed (pip install 'research-studio[eval]'): no plots")
        return {}
    return {"metrics_png": plot_metrics(summary, modes, out / "metrics.png"),
            "cost_png": plot_cost(rows, modes, out / "cost.png")}


def parse_modes(mode: str) -> list[str]:
    if mode == "both":
        return list(MODES)
    if mode in MODES:
        return [mode]
    raise ResearchStudioError(f"--mode must be flat, hierarchical or both, not {mode!r}")


def _check_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Refuse to mix results of another dataset file or model into ``out``."""
    path = out / "run.json"
    if path.exists():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            previous = {}
        for key in ("dataset_sha256", "models"):
            if key in previous and previous[key] != manifest[key]:
                raise ResearchStudioError(
                    f"{out} holds results of a different {key.replace('_', ' ')} "
                    f"({previous[key]} vs {manifest[key]}); choose another --out")
        manifest = {**manifest, "created_at": previous.get("created_at", manifest["created_at"])}
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def run_dataset_eval(ctx: AppContext, dataset: Path, options: EvalOptions,
                     progress: Progress = lambda _: None,
                     run_question: QuestionRunner | None = None,
                     extract_answer: AnswerExtractor | None = None,
                     embed: Embed | None = None) -> EvalOutcome:
    """Evaluate ``dataset``; the three callables replace the real pipeline, the answer
    model and the embedder (tests); without ``run_question`` the knowledge base is built."""
    modes = parse_modes(options.mode)
    if options.limit is not None and options.limit < 1:
        raise ResearchStudioError("--limit must be at least 1")
    if options.offset < 0:
        raise ResearchStudioError("--offset must not be negative")
    dataset = Path(dataset).expanduser()
    records = load_qa_dataset(dataset)
    digest = file_digest(dataset)
    settings = settings_for_model(ctx.settings, options.model)
    eval_ctx = AppContext(home=resolve_home(options.kb_dir or ctx.home / "eval"), settings=settings)
    end = None if options.limit is None else options.offset + options.limit
    selected = records[options.offset:end]
    if not selected:
        raise ResearchStudioError(f"--offset {options.offset} is past the {len(records)} "
                                  f"records of {dataset}")
    out = Path(options.out or ctx.home / "eval-runs" / dataset.stem).expanduser().resolve()
    kb = kb_name_for(dataset, digest)
    _check_manifest(out, {"dataset": str(dataset.resolve()), "dataset_sha256": digest, "kb": kb,
                          "kb_home": str(eval_ctx.home), "models": settings.models.tiers,
                          "created_at": datetime.now(UTC).isoformat(timespec="seconds")})
    if run_question is None:
        kb, _ = ensure_knowledge_base(eval_ctx, dataset, records, digest, progress)
        run_question = research_runner(eval_ctx, kb)
    if extract_answer is None:
        extract_answer = model_answer_extractor(settings.models)
    if embed is None:
        from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings

        embed = MiniLMOnnxEmbeddings(settings.knowledge.embed_batch_size,
                                     settings.knowledge.embed_threads,
                                     settings.knowledge.embed_batch_tokens).embed_array
    results = ResultsFile(out / "results.jsonl")
    pending = len(selected) * len(modes) - len(
        results.done() & {(r["id"], m) for r in selected for m in modes})
    progress(f"{len(selected)} questions × {len(modes)} mode(s): {pending} to run, "
             f"results in {out}")
    added = run_pairs(selected, modes, results, run_question, extract_answer,
                      paragraph_texts(records), embed, options.hop_threshold, progress,
                      runs_dir=out / "runs")
    rows = results.rows()
    summary = summarise(rows, modes, ids=[r["id"] for r in selected])
    title = f"Evaluation of {dataset.name} ({len(selected)} questions)"
    json_path, md_path = write_summary(out, summary, modes, title)
    selected_ids = {r["id"] for r in selected}
    scoped = [r for r in rows if r["id"] in selected_ids and r["mode"] in modes]
    files = {"results": results.path, "summary_json": json_path, "summary_md": md_path,
             **plots(summary, scoped, modes, out)}
    return EvalOutcome(out=out, modes=modes, summary=summary, files=files, added=len(added),
                       skipped=len(selected) * len(modes) - len(added), kb=kb)
