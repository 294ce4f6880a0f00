"""Check that a configured model answers; failures are reported by model name."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import HumanMessage

from research_studio.config import ModelSpec
from research_studio.errors import ModelUnavailable
from research_studio.models.factory import build_chat_model, token_limit
from research_studio.prompts import load_prompt


def check_model(name: str, spec: ModelSpec) -> dict[str, Any]:
    """Send a one-word prompt; return ``ok``, ``latency_s`` and ``reply`` or ``error``."""
    started = time.perf_counter()
    try:
        model = build_chat_model(name, spec)
        if spec.provider in ("embedded", "openai", "anthropic"):
            model = model.bind(**token_limit(spec, 16))  # type: ignore[assignment]
        reply = model.invoke([HumanMessage(load_prompt("model_check"))])
    except ModelUnavailable as exc:
        return {"ok": False, "latency_s": time.perf_counter() - started, "error": str(exc)}
    except Exception as exc:  # unreachable server, bad key, bad model id
        where = f" at {spec.base_url}" if spec.base_url else ""
        return {"ok": False, "latency_s": time.perf_counter() - started,
                "error": f"model {name!r} ({spec.provider}{where}) unreachable: "
                         f"{type(exc).__name__}: {str(exc)[:200]}"}
    return {"ok": True, "latency_s": time.perf_counter() - started,
            "reply": str(reply.content).strip()}
