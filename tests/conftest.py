"""Shared fixtures: an isolated home per test, scripted chat models for unit tests, and
(tests/browser.py) a headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from research_studio.config import AppContext, load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry

pytest_plugins = ["tests.browser"]  # the ``browser`` fixture of the web page tests


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh RESEARCH_STUDIO_HOME; no config leaks in from the developer's environment."""
    for var in list(__import__("os").environ):
        if var.startswith("RESEARCH_STUDIO_"):
            monkeypatch.delenv(var)
    path = tmp_path / "home"
    monkeypatch.setenv("RESEARCH_STUDIO_HOME", str(path))
    return path


@pytest.fixture
def context(home: Path) -> AppContext:
    return load_context(home)


@pytest.fixture
def registry(context: AppContext) -> KnowledgeBaseRegistry:
    return KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge)


def scripted(*replies: str | Exception) -> GenericFakeChatModel:
    """A chat model that answers with ``replies`` in order (an Exception is raised)."""

    def stream() -> Iterator[AIMessage]:
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            yield AIMessage(reply)

    return GenericFakeChatModel(messages=stream())
