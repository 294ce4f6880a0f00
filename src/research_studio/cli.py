"""The ``research-studio`` command line."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from research_studio.cli_eval import register as register_eval_commands
from research_studio.cli_mcp import register as register_mcp_command
from research_studio.cli_options import (
    HomeOption,
    JsonFlag,
    console,
    err_console,
    guarded,
    state,
)
from research_studio.cli_research import register as register_research_commands
from research_studio.cli_serve import register as register_serve_command
from research_studio.config import TIERS, AppContext, load_context
from research_studio.errors import ResearchStudioError

if TYPE_CHECKING:  # the store's import is deferred: `--help` starts fast
    from research_studio.knowledge.base import IngestProgress

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Research Studio: grounded deep research over local documents and the web.")
kb_app = typer.Typer(no_args_is_help=True, help="List, search and delete knowledge bases.")
web_app = typer.Typer(no_args_is_help=True, help="Try the configured web search and page fetch.")
app.add_typer(kb_app, name="kb")
app.add_typer(web_app, name="web")

@app.callback()
def main(home: HomeOption = None) -> None:
    """Global options (``--home`` may also be given after any command)."""
    state["home"] = home


def _context(home: Path | None) -> AppContext:
    return load_context(home or state["home"])


def _registry(ctx: AppContext):
    from research_studio.knowledge.base import KnowledgeBaseRegistry

    return KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)


def _print_ingest_summary(summary: Any) -> None:
    table = Table(title=f"Ingest into {summary.kb!r}", show_header=False)
    for label, value in (
        ("documents added", summary.documents_added),
        ("documents replaced", summary.documents_replaced),
        ("unchanged (skipped)", summary.unchanged),
        ("duplicates (stored once)", summary.duplicates),
        ("near copies (not independent sources)", summary.near_copies),
        ("other formats (stored once)", summary.other_formats),
        ("chunks added", summary.chunks_added),
        ("skipped", len(summary.skipped)),
        ("time", f"{summary.seconds:.1f}s ({summary.documents_per_s:.0f} docs/s, "
                 f"{summary.chunks_per_s:.0f} chunks/s)"),
    ):
        table.add_row(label, str(value))
    console.print(table)
    if summary.skipped:
        console.print(_skipped_table(summary.skipped))


def _skipped_table(items: list[Any], max_rows: int = 50) -> Table:
    """One row per reason: a documentation folder's hundreds of images and style sheets
    ("unsupported file type .png") are one line with their count and an example, and a
    file skipped for a reason of its own (unreadable, too large) is named."""
    by_reason: dict[str, list[str]] = {}
    for item in items:
        by_reason.setdefault(item.reason, []).append(item.location)
    table = Table(title="Skipped", show_lines=False)
    table.add_column("item", overflow="fold")
    table.add_column("reason", overflow="fold")
    for reason, locations in list(by_reason.items())[:max_rows]:
        shown = locations[0] if len(locations) == 1 else \
            f"{len(locations)} items, such as {locations[0]}"
        table.add_row(shown, reason)
    if len(by_reason) > max_rows:
        table.add_row("…", f"{len(by_reason) - max_rows} more reasons")
    return table


# Without a terminal (output piped to a log or a CI job) the progress bar is off: a plain
# line at the first document and then at most this often shows the work goes on, and keeps
# a log of a long ingest (1,169 pages take about 5 minutes on 2 cores) to a few lines.
PLAIN_PROGRESS_SECONDS = 15.0


def _progress_line(label: str, done: IngestProgress) -> str:
    return f"{label}: {done.documents:,} documents read, {done.passages:,} passages stored"


def _ingest_with_progress(run: Callable[[Callable[[IngestProgress], None]], Any], label: str) -> Any:
    if not err_console.is_terminal:
        started = time.monotonic()
        last: float | None = None  # when the last line was printed

        def report(done: IngestProgress) -> None:
            nonlocal last
            now = time.monotonic()
            if last is None or now - last >= PLAIN_PROGRESS_SECONDS:
                last = now
                err_console.print(f"{_progress_line(label, done)} ({now - started:.0f} s)",
                                  highlight=False)
        return run(report)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=not err_console.is_terminal) as bar:
        task = bar.add_task(label, total=None)
        return run(lambda done: bar.update(task, description=_progress_line(label, done)))


@app.command()
@guarded
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    kb: Annotated[str, typer.Option("--kb", help="Knowledge base name.")] = "default",
    exclude: Annotated[list[str] | None, typer.Option(
        "--exclude", metavar="PATTERN",
        help="Leave out files and folders whose name or path inside the folder matches this "
             "shell pattern (repeatable): --exclude 'changelog*' --exclude copyright.")] = None,
    json_out: JsonFlag = False,
    home: HomeOption = None,
) -> None:
    """Ingest Markdown, text, reST, HTML, PDF, DOCX and JSONL files (also gzip, bzip2 or xz
    compressed) into a knowledge base."""
    ctx = _context(home)
    base = _registry(ctx).open(kb, create=True)
    summary = _ingest_with_progress(lambda p: base.ingest_paths(paths, p, exclude=exclude or ()),
                                    f"ingesting into {kb}")
    if json_out:
        print(json.dumps(summary.to_dict(), indent=2))
    else:
        _print_ingest_summary(summary)


@kb_app.command("list")
@guarded
def kb_list(json_out: JsonFlag = False, home: HomeOption = None) -> None:
    """List the knowledge bases of this home (or of the configured Chroma server)."""
    infos = _registry(_context(home)).list()
    if json_out:
        print(json.dumps([info.__dict__ for info in infos], indent=2))
        return
    if not infos:
        console.print("No knowledge bases yet. Create one with `research-studio ingest PATH --kb NAME`.")
        return
    table = Table("name", "chunks", "created", "embedding model")
    for info in infos:
        table.add_row(info.name, str(info.chunks), info.created_at, info.embedding_model)
    console.print(table)


def _print_hits(hits: list[Any], query: str) -> None:
    table = Table(title=f"Results for {query!r}", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("source", overflow="fold", max_width=36)
    table.add_column("text", overflow="fold")
    for i, hit in enumerate(hits, start=1):
        snippet = " ".join(hit.text.split())
        table.add_row(str(i), f"{hit.score:.3f}",
                      f"{hit.title}\n[dim]{hit.location} [{hit.start}:{hit.end}][/]",
                      snippet[:300] + ("…" if len(snippet) > 300 else ""))
    console.print(table)


@kb_app.command("search")
@guarded
def kb_search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    kb: Annotated[str, typer.Option("--kb", help="Knowledge base name.")] = "default",
    k: Annotated[int, typer.Option("-k", help="Number of results.")] = 10,
    mode: Annotated[str, typer.Option("--mode", help="dense, bm25 or hybrid.")] = "hybrid",
    json_out: JsonFlag = False,
    home: HomeOption = None,
) -> None:
    """Search a knowledge base."""
    if mode not in ("dense", "bm25", "hybrid"):
        raise ResearchStudioError(f"--mode must be dense, bm25 or hybrid, not {mode!r}")
    hits = _registry(_context(home)).open(kb).search(query, k=k, mode=mode)  # type: ignore[arg-type]
    if json_out:
        print(json.dumps([h.to_dict() for h in hits], indent=2, ensure_ascii=False))
    else:
        _print_hits(hits, query)


@kb_app.command("delete")
@guarded
def kb_delete(name: str, home: HomeOption = None) -> None:
    """Delete a knowledge base and all its chunks."""
    _registry(_context(home)).delete(name)
    console.print(f"Deleted knowledge base {name!r}.")


@app.command()
@guarded
def models(
    check: Annotated[bool, typer.Option("--check/--no-check",
                                        help="Send each model a one-word prompt.")] = True,
    json_out: JsonFlag = False,
    home: HomeOption = None,
) -> None:
    """List configured models and tiers, and check that each model answers."""
    from research_studio.models.health import check_model

    settings = _context(home).settings.models
    rows = []
    for name, spec in settings.models.items():
        tiers = [t for t in TIERS if name in settings.tiers.get(t, [])]
        row = {"name": name, "provider": spec.provider, "model": spec.model,
               "base_url": spec.base_url, "tiers": tiers, "local": spec.is_local}
        if check:
            row.update(check_model(name, spec))
        rows.append(row)
    if json_out:
        print(json.dumps({"prefer_local": settings.prefer_local,
                          "max_total_cost_usd": settings.max_total_cost_usd,
                          "max_external_calls": settings.max_external_calls,
                          "models": rows}, indent=2))
    else:
        table = Table("name", "provider", "model", "tiers", "local", *(
            ["status", "latency", "reply"] if check else []), title="Configured models",
            caption=f"every session: at most ${settings.max_total_cost_usd:g} and "
                    f"{settings.max_external_calls} external model calls (a session's own "
                    "budget applies within this ceiling)")
        for row in rows:
            cells = [row["name"], row["provider"], row["model"], ",".join(row["tiers"]),
                     "yes" if row["local"] else "no"]
            if check:
                cells += ["[green]ok[/]" if row["ok"] else f"[red]{row['error']}[/]",
                          f"{row['latency_s']:.2f}s", (row.get("reply") or "")[:40]]
            table.add_row(*cells)
        console.print(table)
    if check and not all(r["ok"] for r in rows):
        raise typer.Exit(1)


@web_app.command("search")
@guarded
def web_search(query: str, json_out: JsonFlag = False, home: HomeOption = None) -> None:
    """Search the web with the configured provider."""
    from research_studio.web.providers import search_web

    outcome = search_web(_context(home).settings.web, query)
    if json_out:
        print(json.dumps({"available": outcome.available, "error": outcome.error,
                          "results": [r.to_dict() for r in outcome.results]}, indent=2))
        return
    if not outcome.available:
        err_console.print(f"[yellow]{outcome.error}[/]")
        raise typer.Exit(1)
    for r in outcome.results:
        console.print(f"[bold]{r.title}[/]\n  {r.url}\n  {r.snippet[:200]}")


@web_app.command("fetch")
@guarded
def web_fetch(url: str, home: HomeOption = None) -> None:
    """Fetch a page (SSRF-guarded, size and time limited) and print its extracted text."""
    from research_studio.web.fetch import fetch_page

    page = fetch_page(url, _context(home).settings.web)
    console.print(f"[bold]{page.title or page.final_url}[/] ({page.size_bytes} bytes"
                  f"{', truncated' if page.truncated else ''})")
    console.print(page.text[:3000])


register_research_commands(app)
register_eval_commands(app)
register_serve_command(app)
register_mcp_command(app)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
