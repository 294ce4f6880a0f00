"""The real embedded model (SmolLM2-135M via llama.cpp) behind the coordinator."""

import asyncio
from typing import Literal

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from research_studio.config import ModelSettings
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.embedded import ChatEmbeddedLlama, bundled_gguf_path
from research_studio.models.structured import generate_structured, grammar_problems, json_schema_for

pytestmark = pytest.mark.slow


class Topic(BaseModel):
    name: str = Field(max_length=60)
    relevance: Literal[0.2, 0.4, 0.6, 0.8, 1.0]


class Topics(BaseModel):
    topics: list[Topic] = Field(min_length=1, max_length=3)


def test_the_gguf_ships_in_a_package():
    path = bundled_gguf_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000


def test_embedded_chat_reports_real_token_usage():
    model = ChatEmbeddedLlama(max_tokens=24)
    reply = model.invoke([HumanMessage("Name one planet of the solar system.")])
    assert isinstance(reply.content, str) and reply.content.strip()
    usage = reply.usage_metadata
    assert usage["input_tokens"] > 5 and 0 < usage["output_tokens"] <= 24
    assert model.count_tokens("hello world") >= 2


def test_grammar_constrained_output_validates_first_time():
    assert grammar_problems(json_schema_for(Topics)) == []
    coordinator = ModelCoordinator(ModelSettings())
    result = asyncio.run(generate_structured(
        coordinator,
        [SystemMessage("You list the topics a question is about."),
         HumanMessage("Question: how do volcanoes and earthquakes relate to plate tectonics?")],
        Topics, tier="medium", node="topics", fallback=lambda: Topics(topics=[])))
    assert result.path == "first_try", result.error
    assert 1 <= len(result.value.topics) <= 3
    summary = coordinator.ledger.summary()
    assert summary["structured_output"]["first_try"] == 1
    assert summary["by_model"]["embedded"]["completion_tokens"] > 0
    assert summary["cost_usd"] == 0.0 and summary["external_calls"] == 0
