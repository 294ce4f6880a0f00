"""What every node shares: the question being researched, the prompt framing of untrusted text,
and the helper that asks the model for a schema."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from research_studio.config import Tier
from research_studio.graph.deps import ResearchDeps
from research_studio.models.structured import StructuredResult, generate_structured
from research_studio.prompts import load_prompt
from research_studio.state import ResearchState

T = TypeVar("T", bound=BaseModel)


def research_query(state: ResearchState) -> str:
    """The question as clarified by the person, or as asked."""
    return state.get("clarified_query") or state["query"]


def quote_untrusted(label: str, text: str, limit: int = 1500) -> str:
    """Frame document text as data: the model is told never to follow instructions in it."""
    cleaned = text[:limit].replace("<<<", "‹‹‹").replace(">>>", "›››")
    return f"<<<{label}\n{cleaned}\n>>>"


async def ask_structured(deps: ResearchDeps, schema: type[T], *, prompt: str, user: str,
                         tier: Tier, node: str, fallback: Callable[[], T],
                         max_tokens: int = 400) -> StructuredResult[T]:
    """System prompt from ``prompts/<prompt>.txt`` plus the shared safety note."""
    system = load_prompt(prompt) + "\n\n" + load_prompt("untrusted_sources")
    return await generate_structured(
        deps.coordinator, [SystemMessage(system), HumanMessage(user)], schema,
        tier=tier, node=node, fallback=fallback, max_tokens=max_tokens)
