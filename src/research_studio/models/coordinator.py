"""ModelCoordinator: tiers to models, local preference, session budget, usage accounting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from research_studio.config import ModelSettings, ModelSpec, Tier
from research_studio.errors import BudgetExhausted, ModelUnavailable
from research_studio.models.factory import build_chat_model
from research_studio.models.pricing import call_cost
from research_studio.models.usage import CallRecord, UsageLedger

Binding = dict[str, Any] | Callable[[ModelSpec], dict[str, Any]] | None


def _estimate_tokens(text: str) -> int:
    """Rough count (4 characters a token) for backends that report no usage."""
    return max(1, len(text) // 4)


class ModelCoordinator:
    """Routes each call to the first usable model of its tier and records what it cost.

    One coordinator per research session: its ledger is the session's budget.
    ``chat_models`` lets tests inject scripted models under configured names.
    """

    def __init__(
        self,
        settings: ModelSettings,
        *,
        ledger: UsageLedger | None = None,
        chat_models: dict[str, BaseChatModel] | None = None,
    ) -> None:
        self.settings = settings
        self.ledger = ledger or UsageLedger()
        self._chat_models: dict[str, BaseChatModel] = dict(chat_models or {})

    def spec(self, name: str) -> ModelSpec:
        return self.settings.models[name]

    def candidates(self, tier: Tier) -> list[str]:
        """The tier's models in call order; local ones first when ``prefer_local``."""
        names = list(self.settings.tiers.get(tier) or [])
        if self.settings.prefer_local:
            names.sort(key=lambda n: not self.spec(n).is_local)  # stable: keeps config order
        return names

    def _external_allowed(self) -> bool:
        return (self.ledger.external_calls < self.settings.max_external_calls
                and self.ledger.cost_usd < self.settings.max_total_cost_usd)

    def affordable(self, tier: Tier) -> list[str]:
        """Candidates that the remaining budget still allows."""
        allowed = self._external_allowed()
        return [n for n in self.candidates(tier) if self.spec(n).is_local or allowed]

    def is_strong(self, tier: Tier) -> bool:
        """Whether the model this tier would use can be trusted to reason."""
        names = self.affordable(tier)
        return bool(names) and self.spec(names[0]).is_strong

    def chat_model(self, name: str) -> BaseChatModel:
        if name not in self._chat_models:
            self._chat_models[name] = build_chat_model(name, self.spec(name))
        return self._chat_models[name]

    def _record(self, name: str, tier: Tier, node: str, messages: Sequence[BaseMessage],
                reply: AIMessage | None, latency: float, error: str | None) -> None:
        spec = self.spec(name)
        usage = getattr(reply, "usage_metadata", None) or {}
        estimated = not usage
        prompt = int(usage.get("input_tokens") or 0) or (
            _estimate_tokens("".join(str(m.content) for m in messages)) if estimated else 0)
        completion = int(usage.get("output_tokens") or 0) or (
            _estimate_tokens(str(reply.content)) if estimated and reply is not None else 0)
        self.ledger.record(CallRecord(
            model=name, tier=tier, node=node, prompt_tokens=prompt, completion_tokens=completion,
            latency_s=round(latency, 4), cost_usd=call_cost(spec, prompt, completion),
            external=not spec.is_local, tokens_estimated=estimated, ok=error is None, error=error,
        ))

    async def ainvoke(self, messages: Sequence[BaseMessage], *, tier: Tier, node: str,
                      bind: Binding = None) -> tuple[AIMessage, str]:
        """Call the tier's first usable model; on failure try the next one.

        ``bind`` holds call keywords, or a function of the chosen model's spec that
        returns them (structured output differs per backend). Returns the reply and the
        name of the model that produced it. Raises
        BudgetExhausted when no model is affordable and ModelUnavailable (naming each
        model tried) when all of them fail.
        """
        names = self.affordable(tier)
        if not names:
            raise BudgetExhausted(
                f"tier {tier!r}: budget spent (cost ${self.ledger.cost_usd:.4f} of "
                f"${self.settings.max_total_cost_usd}, {self.ledger.external_calls} of "
                f"{self.settings.max_external_calls} external calls) and no local model configured")
        errors: list[str] = []
        for name in names:
            started = time.perf_counter()
            try:
                model = self.chat_model(name)
                kwargs = bind(self.spec(name)) if callable(bind) else (bind or {})
                runnable = model.bind(**kwargs) if kwargs else model
                reply = await runnable.ainvoke(list(messages))
            except ModelUnavailable as exc:
                errors.append(str(exc))
                self._record(name, tier, node, messages, None, time.perf_counter() - started, str(exc))
                continue
            except Exception as exc:  # a backend error must not end the session
                message = f"model {name!r} ({self.spec(name).provider}): {type(exc).__name__}: {exc}"
                errors.append(message)
                self._record(name, tier, node, messages, None, time.perf_counter() - started, message)
                continue
            self._record(name, tier, node, messages, reply, time.perf_counter() - started, None)
            return reply, name
        raise ModelUnavailable("; ".join(errors))

    def invoke(self, messages: Sequence[BaseMessage], *, tier: Tier, node: str,
               bind: Binding = None) -> tuple[AIMessage, str]:
        """Synchronous wrapper for CLI commands outside an event loop."""
        return asyncio.run(self.ainvoke(messages, tier=tier, node=node, bind=bind))
