"""The labelled manual questions (``benchmarks/data/manual_questions*.jsonl``) as both manual
benchmarks read them: their files and knowledge bases on the command line, each question
with the file it came from, and whether a source's location is an answering page."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--home", default=None)
    parser.add_argument("--kb", action="append", default=[], metavar="LABEL=NAME",
                        help="read the questions labelled LABEL against the knowledge base NAME")


def read_cases(files: list[Path]) -> list[dict]:
    """Every labelled question, with ``file``: the stem of the file it came from."""
    return [json.loads(line) | {"file": file.stem} for file in files
            for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]


def kb_names(pairs: list[str]) -> dict[str, str]:
    """``LABEL=NAME`` pairs as a mapping; a label not given is its own name."""
    return dict(item.split("=", 1) for item in pairs)


def on_answering_page(location: str, pages: list[str]) -> bool:
    """The location (a path, maybe with an anchor) is one of the pages, given relative to
    the manual's root."""
    path = location.split("#", 1)[0]
    return any(path == page or path.endswith("/" + page) for page in pages)
