"""Where the third-party evaluation files are (MuSiQue and HotpotQA development sets,
DeepResearch Bench tasks): they are not shipped with the repository. Scripts that read
them by name look in the folder ``$RESEARCH_STUDIO_EVAL_DATA`` names."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "RESEARCH_STUDIO_EVAL_DATA"


def eval_file(name: str, required: bool = True) -> Path | None:
    """``name`` in the evaluation data folder; a missing one is an error saying where it
    was looked for (or None when not ``required``)."""
    folder = os.environ.get(ENV, "")
    path = Path(folder) / name if folder else None
    if path is not None and path.is_file():
        return path
    if not required:
        return None
    where = f"{path}" if path else f"${ENV} is not set"
    raise SystemExit(f"{name}: not found ({where}); set {ENV} to the folder that holds the "
                     "evaluation files")
