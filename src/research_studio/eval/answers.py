"""The short answer of a report, for exact match and F1 against gold answers.

The run's own low-tier model reads the report's Answer section; its calls go to a
coordinator of their own so they never count in the research run's cost. When the model
fails or gives nothing, the first sentence of the Answer section stands in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from research_studio.config import ModelSettings
from research_studio.eval.metrics import (
    answer_text,
    fallback_short_answer,
    normalize_answer,
    strip_markers,
)
from research_studio.graph.nodes.common import quote_untrusted
from research_studio.graph.result import report_text
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.structured import generate_structured
from research_studio.prompts import load_prompt

AnswerExtractor = Callable[[dict[str, Any], dict[str, Any]], tuple[str, str]]
_VERDICTS = frozenset({"yes", "no"})


def grounded(answer: str, text: str) -> bool:
    """Whether every word of ``answer`` occurs in ``text`` (yes/no need not): an
    extraction that invents words is a failed extraction, not the report's answer."""
    words = normalize_answer(answer).split()
    if not words:
        return False
    if " ".join(words) in _VERDICTS:
        return True
    available = set(normalize_answer(text).split())
    return all(word in available for word in words)


class ShortAnswer(BaseModel):
    """What the model returns: one short phrase."""

    answer: str = Field(max_length=80)


async def extract_short_answer(settings: ModelSettings, question: str, report: str,
                               chat_models: dict[str, BaseChatModel] | None = None,
                               ) -> tuple[str, str]:
    """(short answer, how it was obtained): ``first_try`` or ``repaired`` from the model;
    ``fallback`` (model failed or said nothing), ``ungrounded`` (its words are not in the
    report) and ``empty`` (no Answer section) use the first sentence instead."""
    section = answer_text(report)
    fallback = fallback_short_answer(section)
    if not section:
        return fallback, "empty"
    plain = "\n".join(strip_markers(line) for line in section.splitlines() if line.strip())
    system = load_prompt("eval_short_answer") + "\n\n" + load_prompt("untrusted_sources")
    user = f"Question: {question}\n\n{quote_untrusted('answer section', plain, 3000)}"
    coordinator = ModelCoordinator(settings, chat_models=chat_models)
    try:
        result = await generate_structured(
            coordinator, [SystemMessage(system), HumanMessage(user)], ShortAnswer, tier="low",
            node="eval_short_answer", fallback=lambda: ShortAnswer(answer=""), max_tokens=60)
    except Exception:  # a scoring helper must never cost a finished research run
        return fallback, "fallback"
    answer = strip_markers(result.value.answer).strip()
    if not answer:
        return fallback, "fallback"
    if not grounded(answer, plain):
        return fallback, "ungrounded"
    return answer, result.path


def model_answer_extractor(settings: ModelSettings,
                           chat_models: dict[str, BaseChatModel] | None = None) -> AnswerExtractor:
    """An extractor for the runner: (record, result) -> (short answer, path)."""

    def extract(record: dict[str, Any], result: dict[str, Any]) -> tuple[str, str]:
        own = (result.get("short_answer") or {}).get("text")
        if own:  # the report states its answer itself: that is the answer to score
            return own, "report"
        return asyncio.run(extract_short_answer(settings, record["question"],
                                                report_text(result), chat_models))

    return extract
