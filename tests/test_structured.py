import asyncio
from typing import Literal

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from research_studio.config import ModelSettings, ModelSpec
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.structured import (
    constraint_for,
    generate_structured,
    grammar_problems,
    json_schema_for,
    parse_json_reply,
)
from tests.conftest import scripted


class Item(BaseModel):
    name: str = Field(max_length=40)


class Plan(BaseModel):
    title: str = Field(max_length=80)
    priority: Literal[0.5, 1.0]
    items: list[Item] = Field(max_length=3)


FALLBACK = Plan(title="fallback", priority=0.5, items=[])


def _run(*replies):
    coordinator = ModelCoordinator(ModelSettings(), chat_models={"embedded": scripted(*replies)})
    result = asyncio.run(generate_structured(
        coordinator, [HumanMessage("plan it")], Plan, tier="medium", node="plan",
        fallback=lambda: FALLBACK))
    return result, coordinator


def test_first_try():
    result, coordinator = _run('{"title": "t", "priority": 1.0, "items": [{"name": "a"}]}')
    assert result.path == "first_try" and result.value.items[0].name == "a"
    assert coordinator.ledger.structured == {"first_try": 1, "repaired": 0, "fallback": 0}


def test_repair_after_invalid_reply():
    result, coordinator = _run('{"title": "t", "priority": 0.7}',
                               '```json\n{"title": "t", "priority": 0.5, "items": []}\n```')
    assert result.path == "repaired" and result.value.priority == 0.5
    assert "priority" in result.error
    assert coordinator.ledger.structured["repaired"] == 1
    assert [c.node for c in coordinator.ledger.calls] == ["plan", "plan:repair"]


def test_fallback_after_garbage_twice():
    result, coordinator = _run("I cannot do that", "still not json {")
    assert result.path == "fallback" and result.value is FALLBACK
    assert coordinator.ledger.structured["fallback"] == 1


def test_fallback_when_model_unreachable():
    result, _ = _run(ConnectionError("connection refused"))
    assert result.path == "fallback" and "connection refused" in result.error


def test_parse_json_reply_tolerates_noise():
    assert parse_json_reply('Sure! {"a": 1} hope it helps') == {"a": 1}
    assert parse_json_reply('{"a": "line\nbreak"}') == {"a": "line\nbreak"}
    with pytest.raises(ValueError):
        parse_json_reply("no json here")


def test_schema_is_flat_and_grammar_safe():
    schema = json_schema_for(Plan)
    assert "$ref" not in str(schema) and "$defs" not in schema
    assert grammar_problems(schema) == []


def test_grammar_problems_are_found():
    class Loose(BaseModel):
        text: str
        tags: list[str] = Field(max_length=2)
        score: float = Field(ge=0, le=1)

    problems = grammar_problems(json_schema_for(Loose))
    assert any("text: string without maxLength" in p for p in problems)
    assert any("tags[]: string without maxLength" in p for p in problems)
    assert any("score" in p and "enum" in p for p in problems)


def test_constraint_per_backend():
    schema = {"type": "object"}
    assert constraint_for(ModelSpec(provider="embedded"), schema, "P") == {
        "response_format": {"type": "json_object", "schema": schema}}
    openai = constraint_for(ModelSpec(provider="openai", model="gpt-4o"), schema, "P")
    assert openai["response_format"]["type"] == "json_schema"
    server = constraint_for(ModelSpec(provider="openai", base_url="http://127.0.0.1:8080/v1"),
                            schema, "P")
    assert server["response_format"]["type"] == "json_object"
    assert constraint_for(ModelSpec(provider="ollama"), schema, "P") == {"format": schema}
    assert constraint_for(ModelSpec(provider="anthropic"), schema, "P") == {}
