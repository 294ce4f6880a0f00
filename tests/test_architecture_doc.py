"""docs/architecture.md shows the research graph the code builds, and describes every node.

The diagram is LangGraph's own Mermaid drawing of ``build_graph()``, kept between marker
comments by ``scripts/draw_graph.py``; a change to the graph that is not redrawn fails here.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from research_studio.graph.build import build_graph
from research_studio.graph.sub_agent import STEPS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def _load_drawer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("draw_graph", ROOT / "scripts" / "draw_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def drawer() -> ModuleType:
    return _load_drawer()


@pytest.fixture(scope="module")
def page() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_diagram_is_the_graph_the_code_draws(drawer, page):
    assert drawer.current_block(page) == drawer.fenced(drawer.draw()), (
        "docs/architecture.md shows an old research graph: run "
        "`.venv/bin/python scripts/draw_graph.py` and describe any new node")


def test_every_node_is_described_outside_the_diagram(drawer, page):
    start, end = drawer._bounds(page)
    text = page[:start] + page[end:]
    nodes = [name for name in build_graph().nodes if not name.startswith("__")]
    nodes += [name for name, _ in STEPS]  # the research sub-agent's steps
    assert nodes, "the graph has no nodes"
    missing = [name for name in nodes
               if not re.search(rf"^\s*- `{re.escape(name)}` \(", text, re.MULTILINE)]
    assert not missing, f"nodes without a description in docs/architecture.md: {missing}"


def test_check_mode_flags_a_stale_page(drawer, page, tmp_path, capsys):
    stale = tmp_path / "architecture.md"
    stale.write_text(drawer.redrawn(page, "graph TD;\n\told --> gone;"), encoding="utf-8")
    assert drawer.main(["--check", "--doc", str(stale)]) == 1
    assert "stale" in capsys.readouterr().err
    assert drawer.main(["--doc", str(stale)]) == 0
    assert drawer.main(["--check", "--doc", str(stale)]) == 0
    assert drawer.current_block(stale.read_text(encoding="utf-8")) == drawer.current_block(page)
