"""The ``research``, ``resume``, ``sessions`` and ``demo`` commands: live progress with
Rich, clarifying questions at the terminal, the rendered report, the result JSON."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.live import Live
from rich.markdown import Markdown
from rich.table import Table
from rich.tree import Tree

from research_studio.cli_options import HomeOption, console, err_console, guarded, state
from research_studio.config import TEMPLATES, ResearchConfig, apply_template, load_context
from research_studio.errors import ResearchStudioError
from research_studio.export.formats import export_report, format_of
from research_studio.graph.progress import apply_event, new_progress

DEMO_QUESTION = ("How do context managers and the with statement work in Python, and how do "
                 "exceptions propagate out of a finally clause?")


class Progress:
    """Live view of a run: stage, sub-question tree with status, counts."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.state = new_progress()
        self.live = Live(self.render(), console=err_console, refresh_per_second=4,
                         transient=False) if enabled else None

    def render(self) -> Tree:
        p = self.state
        tree = Tree(f"[bold]stage:[/] {p['stage']}   [dim]findings {p['findings']} · "
                    f"sources {p['sources']} · tokens {p['tokens']} · "
                    f"gap rounds {p['gap_rounds']}[/]")
        for sq in p["sub_questions"]:
            colour = {"completed": "green", "researching": "yellow"}.get(sq["status"], "dim")
            tree.add(f"[{colour}]{sq['sub_question_id']} [{sq['status']}][/] "
                     f"{sq['question_text'][:90]} [dim](iterations {sq['iterations']}, "
                     f"findings {sq['findings']})[/]")
        return tree

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        apply_event(self.state, kind, data)
        if self.live:
            self.live.update(self.render())
        elif kind == "stage":
            err_console.print(f"[dim]… {data['stage']}[/]")

    def __enter__(self) -> Progress:
        if self.live:
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live:
            self.live.__exit__(*exc)


def ask_at_terminal(payload: dict[str, Any]) -> Any:
    """Answer what the run asks: a plan review, or clarifying questions."""
    if payload.get("kind") == "plan_review":
        from research_studio.cli_plan_review import review_at_terminal

        return review_at_terminal(payload)
    return clarify_at_terminal(payload)


def clarify_at_terminal(payload: dict[str, Any]) -> str:
    err_console.print(f"\n[bold cyan]Clarification (round {payload.get('round', 0) + 1})[/] — "
                      f"knowledge-base coverage {payload.get('coverage', 0):.0%}")
    if payload.get("sources"):
        err_console.print(f"[dim]found so far: {', '.join(payload['sources'][:5])}[/]")
    for i, question in enumerate(payload.get("questions", []), start=1):
        err_console.print(f"  {i}. {question}")
    err_console.print("[dim]Answer in one line, or /end to start the research.[/]")
    try:
        return input("> ")
    except EOFError:
        return "/end"


OUT_HELP = "Write the report; the suffix picks the format: .md, .html, .pdf or .docx."


def render_result(result: dict[str, Any], json_path: Path | None, out_path: Path | None) -> None:
    if json_path:
        json_path.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    if out_path and result["status"] == "completed":
        out_path.write_bytes(export_report(result, format_of(out_path)))
    if result["status"] == "awaiting_plan_review":
        from research_studio.cli_plan_review import print_pending_plan

        console.print("[yellow]Waiting for a review of the plan:[/]")
        print_pending_plan(result["session_id"], result.get("pending_plan", {}))
        return
    if result["status"] == "awaiting_clarification":
        pending = result.get("pending_clarification", {})
        console.print("[yellow]Waiting for a clarification:[/]")
        for question in pending.get("questions", []):
            console.print(f"  - {question}")
        console.print(f"Answer with: research-studio resume {result['session_id']} --answer \"...\"")
        return
    console.print(Markdown(result["report_markdown"]))
    usage = result["usage"]
    console.print(f"[dim]session {result['session_id']} · {usage['wall_s']:.1f}s · "
                  f"{usage['llm_calls']} LLM calls · {usage['prompt_tokens']}+"
                  f"{usage['completion_tokens']} tokens · ${usage['cost_usd']:.4f}"
                  f"{' · JSON ' + str(json_path) if json_path else ''}"
                  f"{' · report ' + str(out_path) if out_path else ''}[/]")


def _run(coro_factory: Any, progress: Progress, session_hint: str) -> dict[str, Any]:
    try:
        with progress:
            return asyncio.run(coro_factory())
    except KeyboardInterrupt:
        err_console.print(f"[yellow]interrupted[/] — continue with: research-studio resume "
                          f"{session_hint}")
        raise typer.Exit(130) from None


def register(app: typer.Typer) -> None:
    """Add the research commands to ``app``."""

    @app.command()
    @guarded
    def research(
        question: Annotated[str, typer.Argument(help="The question to research.")],
        kb: Annotated[str | None, typer.Option("--kb", help="Knowledge base to research.")] = None,
        web: Annotated[bool, typer.Option("--web/--no-web", help="Also search the web.")] = False,
        mode: Annotated[str, typer.Option("--mode", help="auto, flat or hierarchical.")] = "auto",
        template: Annotated[str | None, typer.Option(
            "--template", help=f"One of: {', '.join(TEMPLATES)}.")] = None,
        clarify: Annotated[str, typer.Option("--clarify", help="auto, never or always.")] = "auto",
        json_out: Annotated[Path | None, typer.Option("--json", help="Write the result JSON.")] = None,
        out: Annotated[Path | None, typer.Option("--out", help=OUT_HELP)] = None,
        sequential: Annotated[bool, typer.Option(
            "--sequential", help="Research sub-questions one at a time, by priority.")] = False,
        review_plan: Annotated[bool, typer.Option(
            "--review-plan", help="Show the plan before researching it: approve, edit or "
            "replan (at a terminal; otherwise the session waits for resume --plan).")] = False,
        home: HomeOption = None,
    ) -> None:
        """Research a question: plan, research in parallel, verify, write a cited report."""
        from research_studio.graph.session import Hooks, new_session_id, run_research

        if out:
            format_of(out)  # a file name whose format is unknown is refused before the research
        ctx = load_context(home or state["home"])
        interactive = sys.stdin.isatty() and clarify != "never"
        try:
            config = ResearchConfig(kb=kb, use_web=web, mode=mode, clarify=clarify,
                                    interactive=interactive or clarify == "always",
                                    parallel=not sequential, review_plan=review_plan)
        except ValueError as exc:
            raise ResearchStudioError(f"invalid option: {exc}") from exc
        if template:
            config = apply_template(config, template, explicit={"mode"} if mode != "auto" else set())
        if config.interactive and not sys.stdin.isatty():
            config = config.model_copy(update={"interactive": True})
        progress = Progress(enabled=err_console.is_terminal)
        asks = config.interactive or config.review_plan
        hooks = Hooks(on_event=progress, ask=ask_at_terminal if sys.stdin.isatty() and asks else None)
        session_id = new_session_id()
        result = _run(lambda: run_research(ctx, question, config, hooks, session_id), progress,
                      session_id)
        render_result(result, json_out, out)

    @app.command()
    @guarded
    def resume(
        session_id: Annotated[str, typer.Argument(help="Session to continue.")],
        answer: Annotated[str | None, typer.Option(
            "--answer", help="Reply to a pending clarification (or /end).")] = None,
        plan: Annotated[Path | None, typer.Option(
            "--plan", help="Decide a pending plan review with a JSON file "
            "(start from `sessions plan ID`).")] = None,
        approve_plan: Annotated[bool, typer.Option(
            "--approve-plan", help="Approve a pending plan as proposed.")] = False,
        json_out: Annotated[Path | None, typer.Option("--json", help="Write the result JSON.")] = None,
        out: Annotated[Path | None, typer.Option("--out", help=OUT_HELP)] = None,
        retry: Annotated[bool, typer.Option(
            "--retry", help="Run a session stopped because its process kept dying.")] = False,
        home: HomeOption = None,
    ) -> None:
        """Continue a session interrupted by a clarification, a plan review, Ctrl-C or a crash."""
        from research_studio.cli_plan_review import read_decision
        from research_studio.graph.session import Hooks, resume_research

        if out:
            format_of(out)
        if (answer is not None) + (plan is not None) + approve_plan > 1:
            raise ResearchStudioError("give one of --answer, --plan and --approve-plan")
        reply: Any = answer
        if plan is not None:
            reply = read_decision(plan)
        elif approve_plan:
            reply = {"action": "approve"}
        ctx = load_context(home or state["home"])
        progress = Progress(enabled=err_console.is_terminal)
        hooks = Hooks(on_event=progress, ask=ask_at_terminal if sys.stdin.isatty() else None)
        result = _run(lambda: resume_research(ctx, session_id, hooks, reply, retry),
                      progress, session_id)
        render_result(result, json_out, out)

    sessions_app = typer.Typer(no_args_is_help=True, help="Past research sessions.")
    app.add_typer(sessions_app, name="sessions")

    @sessions_app.command("list")
    @guarded
    def sessions_list(json_flag: Annotated[bool, typer.Option("--json")] = False,
                      home: HomeOption = None) -> None:
        """List research sessions, newest first."""
        from research_studio.store.backends import session_store

        rows = session_store(load_context(home or state["home"])).list()
        if json_flag:
            print(json.dumps(rows, indent=2))
            return
        table = Table("id", "status", "stage", "mode", "created", "question")
        for row in rows:
            table.add_row(row["id"], row["status"], row["stage"], row["mode"], row["created_at"],
                          row["query"][:60])
        console.print(table)

    @sessions_app.command("show")
    @guarded
    def sessions_show(session_id: str, json_flag: Annotated[bool, typer.Option("--json")] = False,
                      home: HomeOption = None) -> None:
        """Show a session's report (or its result JSON)."""
        from research_studio.store.backends import session_store

        store = session_store(load_context(home or state["home"]))
        row = store.get(session_id)
        if json_flag:
            print(json.dumps(row.get("result") or {**row, "findings": store.findings(session_id)},
                             indent=2, ensure_ascii=False))
        elif row.get("final_synthesis"):
            console.print(Markdown(row["final_synthesis"]))
        else:
            console.print(f"Session {session_id} is {row['status']} (stage {row['stage']}); "
                          f"{len(store.findings(session_id))} findings stored so far.")

    @sessions_app.command("plan")
    @guarded
    def sessions_plan(session_id: str, home: HomeOption = None) -> None:
        """Print a session's pending plan as JSON to edit and pass to resume --plan."""
        from research_studio.graph.plan_edits import editable_plan
        from research_studio.store.backends import session_store

        row = session_store(load_context(home or state["home"])).get(session_id)
        pending = (row.get("result") or {}).get("pending_plan")
        if row["status"] != "awaiting_plan_review" or not pending:
            raise ResearchStudioError(f"session {session_id} is {row['status']}: no plan waits "
                                      "for review")
        print(json.dumps(editable_plan(pending), indent=2, ensure_ascii=False))

    @sessions_app.command("export")
    @guarded
    def sessions_export(
        session_id: str,
        fmt: Annotated[str | None, typer.Option(
            "--format", help="md, html, pdf or docx (default: by the --out suffix, else md).")] = None,
        out: Annotated[Path | None, typer.Option(
            "--out", help="File to write (default: report-ID.FORMAT here).")] = None,
        home: HomeOption = None,
    ) -> None:
        """Export a finished session's report (citations stay links to the sources)."""
        from research_studio.store.backends import session_store

        by_name = format_of(out) if out else None
        if fmt and by_name and fmt != by_name:
            raise ResearchStudioError(f"--format {fmt} does not match the file name {out.name!r}")
        fmt = fmt or by_name or "md"
        target = out or Path(f"report-{session_id}.{fmt}")
        row = session_store(load_context(home or state["home"])).get(session_id)
        if not row.get("result") or row["status"] != "completed":
            raise ResearchStudioError(f"session {session_id} is {row['status']}: it has no report yet")
        target.write_bytes(export_report(row["result"], fmt))
        console.print(f"Wrote {target} ({fmt}).")

    @app.command()
    @guarded
    def demo(
        question: Annotated[str, typer.Option("--question", help="Ask something else.")] = DEMO_QUESTION,
        json_out: Annotated[Path | None, typer.Option("--json", help="Write the result JSON.")] = None,
        out: Annotated[Path | None, typer.Option("--out", help="Write the report (Markdown).")] = None,
        home: HomeOption = None,
    ) -> None:
        """Build the python-docs knowledge base and research a multi-part question over it."""
        from research_studio.graph.session import Hooks, new_session_id, run_research
        from research_studio.knowledge.base import KnowledgeBaseRegistry
        from research_studio.knowledge.demo import DEMO_KB, python_docs_documents

        ctx = load_context(home or state["home"])
        kb = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge).open(DEMO_KB, create=True)
        err_console.print(f"[dim]preparing the {DEMO_KB} knowledge base (first time ~40 s)…[/]")
        summary = kb.ingest_documents(python_docs_documents())
        err_console.print(f"[dim]{DEMO_KB}: {kb.count()} chunks ({summary.documents_added} "
                          f"documents added) — home {ctx.home}[/]")
        config = ResearchConfig(kb=DEMO_KB, mode="hierarchical", clarify="never")
        progress = Progress(enabled=err_console.is_terminal)
        session_id = new_session_id()
        result = _run(lambda: run_research(ctx, question, config, Hooks(on_event=progress),
                                           session_id), progress, session_id)
        render_result(result, json_out, out)
