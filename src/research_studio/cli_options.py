"""Options, consoles and error handling shared by every command."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from research_studio.errors import ResearchStudioError

console = Console()
err_console = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])

HomeOption = Annotated[Path | None, typer.Option(
    "--home", help="Folder for knowledge bases, sessions and config "
    "(default: $RESEARCH_STUDIO_HOME or ~/.local/share/research-studio).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
state: dict[str, Path | None] = {"home": None}


def guarded(fn: F) -> F:
    """Print a ResearchStudioError as one clear line and exit 2, never a traceback."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ResearchStudioError as exc:  # one line, however long: the terminal wraps it;
            # the message is text, never Rich markup (a path may hold "[...]")
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err_console.print("[yellow]interrupted[/]")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


