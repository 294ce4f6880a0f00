"""Structured output for every LLM step: constrain, validate, repair once, then fall back.

Constrained decoding is used where the backend offers it (llama.cpp grammar from a JSON
schema, OpenAI ``json_schema``, Ollama ``format``); otherwise the schema goes into the
prompt. Whatever the backend, the reply is validated with pydantic; one repair attempt
quotes the error back to the model; after that the caller's deterministic fallback is
used, so a step never crashes on a model that returns garbage. Each outcome is counted
in the session's usage ledger.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from research_studio.config import ModelSpec, Tier
from research_studio.errors import BudgetExhausted, ModelUnavailable
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.factory import token_limit
from research_studio.models.usage import StructuredPath
from research_studio.prompts import load_prompt

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


@dataclass
class StructuredResult(Generic[T]):
    """The validated value and how it was obtained."""

    value: T
    path: StructuredPath
    model: str | None = None
    error: str | None = None
    raw: str | None = None


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Resolve ``$ref`` to ``$defs`` so every grammar converter sees a flat schema."""
    defs = schema.get("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return resolve(defs[node["$ref"].split("/")[-1]])
            return {k: resolve(v) for k, v in node.items() if k not in ("$defs", "title")}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


def json_schema_for(model: type[BaseModel]) -> dict[str, Any]:
    """The flat JSON schema that is sent to backends."""
    return inline_refs(model.model_json_schema())


def grammar_problems(schema: dict[str, Any], path: str = "$") -> list[str]:
    """Places where llama.cpp's grammar would let a small model ramble.

    Every string needs ``maxLength`` (or an ``enum``), every array ``maxItems``;
    numeric bounds are not enforced by the grammar, so scores should be enums.
    """
    problems: list[str] = []
    kind = schema.get("type")
    if "enum" in schema or "const" in schema:
        return problems
    if kind == "string" and "maxLength" not in schema:
        problems.append(f"{path}: string without maxLength")
    if kind == "array":
        if "maxItems" not in schema:
            problems.append(f"{path}: array without maxItems")
        problems += grammar_problems(schema.get("items", {}), f"{path}[]")
    if kind in ("number", "integer") and ("minimum" in schema or "maximum" in schema):
        problems.append(f"{path}: numeric bounds are not enforced by the grammar; use an enum")
    for name, sub in (schema.get("properties") or {}).items():
        problems += grammar_problems(sub, f"{path}.{name}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            if sub.get("type") != "null":
                problems += grammar_problems(sub, f"{path}<{key}{i}>")
    return problems


def parse_json_reply(text: str) -> Any:
    """Parse a model's JSON reply, tolerating code fences, prose around it, raw newlines."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned, strict=False)
    except json.JSONDecodeError:
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if start == -1 or end <= start:
            raise ValueError("the reply contains no JSON object") from None
        return json.loads(cleaned[start:end + 1], strict=False)


def constraint_for(spec: ModelSpec, schema: dict[str, Any], name: str) -> dict[str, Any]:
    """Call keywords that make ``spec``'s backend decode to ``schema``."""
    method = spec.structured_method
    if method == "auto":
        method = {
            "embedded": "json_object",
            "openai": "json_object" if spec.base_url else "json_schema",
            "ollama": "format",
            "anthropic": "prompt",
        }[spec.provider]
    if method == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if method == "json_schema":
        return {"response_format": {"type": "json_schema", "json_schema": {
            "name": name, "schema": schema, "strict": False}}}
    if method == "format":
        return {"format": schema}
    return {}


def _validate(schema: type[T], text: str) -> T:
    """Validated value, or ValueError with a short message the model can act on."""
    try:
        return schema.model_validate(parse_json_reply(text))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'reply'}: {e['msg']}"
                             for e in exc.errors()[:5])
        raise ValueError(problems) from exc


async def generate_structured(
    coordinator: ModelCoordinator,
    messages: Sequence[BaseMessage],
    schema: type[T],
    *,
    tier: Tier,
    node: str,
    fallback: Callable[[], T],
    max_tokens: int | None = None,
) -> StructuredResult[T]:
    """Ask the tier's model for ``schema``; validate; repair once; else ``fallback()``.

    ``max_tokens`` bounds the reply (a small model that loops wastes the whole budget)."""
    json_schema = json_schema_for(schema)
    names = coordinator.affordable(tier)
    spec = coordinator.spec(names[0]) if names else None
    def bind(chosen: ModelSpec) -> dict[str, Any]:
        limit = token_limit(chosen, max_tokens) if max_tokens else {}
        return {**constraint_for(chosen, json_schema, schema.__name__), **limit}

    prompt = list(messages)
    if spec is not None and not constraint_for(spec, json_schema, schema.__name__):
        prompt.append(HumanMessage(load_prompt("structured_schema").format(
            schema=json.dumps(json_schema, separators=(",", ":")))))

    def give_up(error: str, raw: str | None, model: str | None) -> StructuredResult[T]:
        coordinator.ledger.record_structured("fallback")
        return StructuredResult(fallback(), "fallback", model, error, raw)

    try:
        reply, model = await coordinator.ainvoke(prompt, tier=tier, node=node, bind=bind)
    except (ModelUnavailable, BudgetExhausted) as exc:
        return give_up(str(exc), None, None)
    raw = str(reply.content)
    try:
        value = _validate(schema, raw)
        coordinator.ledger.record_structured("first_try")
        return StructuredResult(value, "first_try", model, None, raw)
    except ValueError as exc:
        first_error = str(exc)

    repair = [*prompt, AIMessage(raw[:4000]),
              HumanMessage(load_prompt("structured_repair").format(error=first_error[:500]))]
    try:
        reply, model = await coordinator.ainvoke(repair, tier=tier, node=f"{node}:repair",
                                                 bind=bind)
    except (ModelUnavailable, BudgetExhausted) as exc:
        return give_up(f"{first_error}; repair failed: {exc}", raw, None)
    raw = str(reply.content)
    try:
        value = _validate(schema, raw)
    except ValueError as exc:
        return give_up(f"{first_error}; after repair: {exc}", raw, model)
    coordinator.ledger.record_structured("repaired")
    return StructuredResult(value, "repaired", model, first_error, raw)
