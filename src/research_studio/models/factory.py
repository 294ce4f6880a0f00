"""Build a LangChain chat model from a ModelSpec, so the rest of the code sees one interface."""

from __future__ import annotations

import os
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel

from research_studio.config import ModelSpec
from research_studio.errors import ModelUnavailable


def _api_key(name: str, spec: ModelSpec, default_env: str | None) -> str | None:
    env_name = spec.api_key_env or default_env
    key = os.environ.get(env_name) if env_name else None
    if spec.api_key_env and not key:
        raise ModelUnavailable(f"model {name!r}: environment variable {spec.api_key_env} is not set")
    return key


def token_limit(spec: ModelSpec, tokens: int) -> dict[str, Any]:
    """Arguments that bound a reply to ``tokens`` (to bind, or to construct with).

    LangChain sends OpenAI's ``max_completion_tokens``, which self-hosted servers may
    ignore (llama.cpp's does, and a small model then writes until its context is full),
    so a custom ``base_url`` also gets the classic ``max_tokens`` in the request body.
    Ollama's native API bounds with ``num_predict`` at construction."""
    if spec.provider == "ollama":
        return {}
    limit: dict[str, Any] = {"max_tokens": tokens}
    if spec.provider == "openai" and spec.base_url:
        limit["extra_body"] = {"max_tokens": tokens}
    return limit


def build_chat_model(name: str, spec: ModelSpec) -> BaseChatModel:
    """Instantiate the backend for ``spec``; raises ModelUnavailable naming the model."""
    if spec.provider == "embedded":
        from research_studio.models.embedded import ChatEmbeddedLlama

        model_path = spec.model if spec.model.endswith(".gguf") else None
        return ChatEmbeddedLlama(
            model_path=model_path, model_name=spec.model, n_ctx=spec.context_window,
            n_threads=spec.n_threads, max_tokens=spec.max_tokens, temperature=spec.temperature,
        )
    if spec.provider == "openai":
        from langchain_openai import ChatOpenAI

        key = _api_key(name, spec, None if spec.base_url else "OPENAI_API_KEY")
        return ChatOpenAI(
            model=spec.model, base_url=spec.base_url, api_key=key or "not-needed",
            temperature=spec.temperature, timeout=spec.timeout_s, max_retries=1,
            **token_limit(spec, spec.max_tokens),
        )
    if spec.provider == "ollama":
        from langchain_ollama import ChatOllama

        return ChatOllama(
            model=spec.model, base_url=spec.base_url or "http://127.0.0.1:11434",
            temperature=spec.temperature, num_predict=spec.max_tokens,
            num_ctx=spec.context_window, client_kwargs={"timeout": spec.timeout_s},
        )
    if spec.provider == "anthropic":
        from langchain_anthropic import ChatAnthropic

        key = _api_key(name, spec, "ANTHROPIC_API_KEY")
        if not key:
            raise ModelUnavailable(f"model {name!r}: ANTHROPIC_API_KEY is not set")
        kwargs = {"base_url": spec.base_url} if spec.base_url else {}
        return ChatAnthropic(
            model=spec.model, api_key=key, temperature=spec.temperature,
            max_tokens=spec.max_tokens, timeout=spec.timeout_s, max_retries=1, **kwargs,
        )
    raise ModelUnavailable(f"model {name!r}: unknown provider {spec.provider!r}")
