"""The default install runs without the optional parts; asking for one that is missing
gets a clear error (PostgreSQL storage) or goes on without it (evaluation plots)."""

import sys

import pytest

from research_studio.config import load_context
from research_studio.errors import ConfigError
from research_studio.eval.pipeline import plots
from research_studio.store import backends


def test_postgres_storage_without_its_driver_names_the_extra(home, monkeypatch):
    monkeypatch.setenv("RESEARCH_STUDIO_DATABASE_URL", "postgresql://u@127.0.0.1:5432/rs")
    ctx = load_context(home)
    assert backends.storage_backend(ctx).kind == "postgresql"  # the test set-up installs it
    monkeypatch.setattr(backends, "_installed", lambda module: module != "psycopg")
    with pytest.raises(ConfigError, match=r"pip install 'research-studio\[postgres\]'"):
        backends.storage_backend(ctx)


def test_an_evaluation_without_matplotlib_writes_no_plots(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "research_studio.eval.plots", None)  # import fails
    assert plots({}, [], ["flat"], tmp_path) == {}
    assert not list(tmp_path.iterdir())
