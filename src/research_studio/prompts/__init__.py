"""Prompt texts live here as data files, one per stage; ``load_prompt`` reads them."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib.resources import files


@cache
def load_prompt(name: str) -> str:
    """Return the text of ``prompts/<name>.txt``."""
    return files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")


@cache
def load_data(name: str) -> dict:
    """Return the table of ``prompts/<name>.toml`` (exemplars, templates)."""
    return tomllib.loads(files(__package__).joinpath(f"{name}.toml").read_text(encoding="utf-8"))
