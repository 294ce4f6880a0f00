"""Redraw the research graph in docs/architecture.md from the code (LangGraph's own Mermaid).

    .venv/bin/python scripts/draw_graph.py            # rewrite the diagram in the page
    .venv/bin/python scripts/draw_graph.py --check    # exit 1 when the page's diagram is stale

The diagram is the fenced ``mermaid`` block between the two marker comments
``<!-- graph:begin -->`` and ``<!-- graph:end -->``; nothing else in the page is touched.
``tests/test_architecture_doc.py`` fails when the graph changes and the page is not redrawn.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- graph:begin -->"
END = "<!-- graph:end -->"


def draw() -> str:
    """The graph as the code builds it, in LangGraph's Mermaid syntax."""
    from research_studio.graph.build import build_graph

    return build_graph().compile().get_graph(xray=1).draw_mermaid().strip()  # with the sub-agent steps


def fenced(mermaid: str) -> str:
    return f"```mermaid\n{mermaid}\n```"


def _bounds(text: str) -> tuple[int, int]:
    """Start and end of what lies between the markers; ValueError without both."""
    start = text.find(BEGIN)
    end = text.find(END, start + len(BEGIN)) if start >= 0 else -1
    if start < 0 or end < 0:
        raise ValueError(f"the page lacks the markers {BEGIN} and {END} (in that order)")
    return start + len(BEGIN), end


def current_block(text: str) -> str:
    """The fenced block the page holds between the markers, trimmed."""
    start, end = _bounds(text)
    return text[start:end].strip()


def redrawn(text: str, mermaid: str) -> str:
    """The page with the block between the markers replaced by ``mermaid``."""
    start, end = _bounds(text)
    return f"{text[:start]}\n{fenced(mermaid)}\n{text[end:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when the page's diagram is not the code's")
    parser.add_argument("--doc", type=Path, default=DOC, help=f"the page (default {DOC})")
    args = parser.parse_args(argv)
    text = args.doc.read_text(encoding="utf-8")
    mermaid = draw()
    try:
        stale = current_block(text) != fenced(mermaid)
    except ValueError as exc:
        print(f"{args.doc}: {exc}", file=sys.stderr)
        return 2
    if args.check:
        if stale:
            print(f"{args.doc}: the research graph diagram is stale; redraw it with "
                  "`.venv/bin/python scripts/draw_graph.py`", file=sys.stderr)
            return 1
        print(f"{args.doc}: the diagram matches the code")
        return 0
    if stale:
        args.doc.write_text(redrawn(text, mermaid), encoding="utf-8")
        print(f"{args.doc}: diagram redrawn")
    else:
        print(f"{args.doc}: the diagram already matches the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
