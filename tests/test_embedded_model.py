"""The real embedded model (SmolLM2-135M via llama.cpp) behind the coordinator."""

import asyncio
import json
import subprocess
import sys
from typing import Literal

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from research_studio.config import ModelSettings
from research_studio.graph.nodes.schemas import (
    AnalysisOutput,
    CoverageOutput,
    DecompositionOutput,
    FindingsOutput,
    SubAnswerOutput,
    SummaryOutput,
)
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.embedded import (
    GRAMMAR_MAX_REPEAT,
    ChatEmbeddedLlama,
    bundled_gguf_path,
    grammar_safe_schema,
)
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


_DECODE_ONE = """
import json, sys
from research_studio.models.embedded import ChatEmbeddedLlama
from langchain_core.messages import HumanMessage
schema = json.loads(sys.argv[1])
reply = ChatEmbeddedLlama(max_tokens=4).invoke(
    [HumanMessage("Reply in JSON.")],
    response_format={"type": "json_object", "schema": schema})
print("decoded", len(reply.content))
"""


def _decodes_in_a_child(schema: dict) -> subprocess.CompletedProcess:
    """llama.cpp segfaults on a grammar it refuses: only a child process can tell."""
    return subprocess.run([sys.executable, "-c", _DECODE_ONE, json.dumps(schema)],
                          capture_output=True, text=True, timeout=300)


def test_a_schema_too_long_for_a_grammar_is_clamped_not_a_crash():
    long_text = {"type": "object", "required": ["summary"],
                 "properties": {"summary": {"type": "string", "minLength": 1, "maxLength": 5000}}}
    done = _decodes_in_a_child(long_text)
    assert done.returncode == 0 and "decoded" in done.stdout, done.stderr[-2000:]
    clamped = grammar_safe_schema(long_text)["properties"]["summary"]
    assert clamped["maxLength"] == GRAMMAR_MAX_REPEAT and clamped["minLength"] == 1
    assert long_text["properties"]["summary"]["maxLength"] == 5000  # the caller's schema is intact


def test_every_schema_the_pipeline_asks_for_compiles_into_a_grammar():
    """Each step's schema is decoded by the embedded model in a child process: the 1200-character
    summary once crashed every process that resumed the session (exit 139)."""
    combined = {"type": "object", "properties": {
        model.__name__: json_schema_for(model) for model in (
            AnalysisOutput, CoverageOutput, DecompositionOutput, FindingsOutput,
            SubAnswerOutput, SummaryOutput)}}
    for name, schema in combined["properties"].items():
        done = _decodes_in_a_child(schema)
        assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stderr[-2000:]}"
