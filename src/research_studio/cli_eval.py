"""The ``eval`` and ``eval-reports`` commands: measure the pipeline on a dataset file,
or grade long-form reports with a judge model; progress on stderr, tables on stdout.
Low scores are results, not failures: only an unusable input exits non-zero."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from research_studio.cli_options import HomeOption, console, err_console, guarded, state
from research_studio.config import load_context


def _print_table(table: Table) -> None:
    """Tables keep their rows on one line when the output goes to a file or a pipe."""
    target = console if console.is_terminal else Console(width=max(console.width, 150))
    target.print(table)


def _progress(message: str) -> None:
    err_console.print(f"[dim]{message}[/]", highlight=False, soft_wrap=True)


def _summary_table(summary: dict[str, Any], modes: list[str], title: str) -> Table:
    from research_studio.eval.report import table_rows

    header, rows = table_rows(summary, modes)
    table = Table(title=title)
    for i, name in enumerate(header):
        table.add_column(name, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    return table


def _rubric_table(summary: dict[str, Any], judge: str) -> Table:
    table = Table(title=f"Rubric scores (0–1), judge {judge}")
    table.add_column("score")
    table.add_column("mean [95% interval]", justify="right")
    table.add_column("n", justify="right")

    def cell(entry: dict[str, Any]) -> str:
        if entry["mean"] is None:
            return "—"
        lo, hi = entry["ci95"]
        return f"{entry['mean']:.3f} [{lo:.3f}, {hi:.3f}]"

    table.add_row("overall", cell(summary["overall"]), str(summary["overall"]["n"]))
    for name, entry in summary["dimensions"].items():
        table.add_row(name, cell(entry), str(entry["n"]))
    table.add_row("tasks graded (errors)", f"{summary['n']} ({summary['errors']})", "")
    table.add_row("criteria missing from the judge",
                  f"{summary['missing_criteria']} of {summary['criteria']}", "")
    return table


def register(app: typer.Typer) -> None:
    """Add the evaluation commands to ``app``."""

    @app.command("eval")
    @guarded
    def eval_dataset(
        dataset: Annotated[Path, typer.Argument(help="Normalised QA dataset (JSON Lines).")],
        mode: Annotated[str, typer.Option("--mode", help="flat, hierarchical or both.")] = "both",
        limit: Annotated[int | None, typer.Option("--limit", help="Questions to run.")] = None,
        offset: Annotated[int, typer.Option("--offset", help="Questions to skip first.")] = 0,
        kb_dir: Annotated[Path | None, typer.Option(
            "--kb-dir", help="Home folder for the dataset's knowledge base and sessions "
            "(default: <home>/eval).")] = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="Output folder (default: <home>/eval-runs/<dataset stem>).")] = None,
        model: Annotated[str | None, typer.Option(
            "--model", help="Configured model name to use for every tier.")] = None,
        home: HomeOption = None,
    ) -> None:
        """Evaluate the pipeline on a dataset: support recall, citations, answers, cost."""
        from research_studio.eval.pipeline import EvalOptions, run_dataset_eval

        ctx = load_context(home or state["home"])
        outcome = run_dataset_eval(ctx, dataset, EvalOptions(
            mode=mode, limit=limit, offset=offset, kb_dir=kb_dir, out=out, model=model),
            progress=_progress)
        n = outcome.summary[outcome.modes[0]]["n"] + outcome.summary[outcome.modes[0]]["errors"]
        _print_table(_summary_table(outcome.summary, outcome.modes,
                                    f"{dataset.name}: {n} questions, mean [95% bootstrap interval]"))
        console.print(f"[dim]{outcome.added} run now, {outcome.skipped} already done · "
                      f"knowledge base {outcome.kb} · outputs in {outcome.out}[/]")

    @app.command("eval-reports")
    @guarded
    def eval_reports(
        tasks: Annotated[Path, typer.Argument(help="Rubric tasks (JSON Lines).")],
        judge: Annotated[str, typer.Option("--judge", help="Configured model that grades.")],
        reports: Annotated[Path | None, typer.Option(
            "--reports", help="Folder of <task id>.md reports (else they are generated).")] = None,
        model: Annotated[str | None, typer.Option(
            "--model", help="Configured model that writes the reports (every tier).")] = None,
        kb: Annotated[str | None, typer.Option(
            "--kb", help="Knowledge base to research (required when generating).")] = None,
        mode: Annotated[str, typer.Option("--mode", help="auto, flat or hierarchical.")] = "auto",
        limit: Annotated[int | None, typer.Option("--limit", help="Tasks to grade.")] = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="Output folder (default: <home>/eval-runs/<tasks stem>-reports).")] = None,
        home: HomeOption = None,
    ) -> None:
        """Grade long-form reports against weighted rubrics with an independent judge model."""
        from research_studio.errors import ResearchStudioError
        from research_studio.eval.rubric_run import RubricOptions, run_rubric_eval

        if mode not in ("auto", "flat", "hierarchical"):
            raise ResearchStudioError(f"--mode must be auto, flat or hierarchical, not {mode!r}")
        ctx = load_context(home or state["home"])
        outcome = run_rubric_eval(ctx, tasks, RubricOptions(
            judge=judge, reports=reports, model=model, kb=kb, mode=mode, limit=limit, out=out),
            progress=_progress)
        _print_table(_rubric_table(outcome.summary, judge))
        console.print(f"[dim]outputs in {outcome.out}[/]")
