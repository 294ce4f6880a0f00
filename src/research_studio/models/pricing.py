"""Price table (USD per million tokens) for hosted models; local models cost nothing.

Prices are list prices at the time of writing and only used for budget enforcement;
override per model with ``price_prompt_per_mtok`` / ``price_completion_per_mtok``.
An external model missing from the table is charged at ``UNKNOWN_EXTERNAL`` so that a
budget still bites rather than silently reading zero.
"""

from __future__ import annotations

from research_studio.config import ModelSpec

# model-id prefix -> (prompt, completion) USD per million tokens; longest prefix wins
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o4-mini": (1.10, 4.40),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}
UNKNOWN_EXTERNAL: tuple[float, float] = (3.00, 15.00)


def price_per_mtok(spec: ModelSpec) -> tuple[float, float]:
    """Return (prompt, completion) USD per million tokens for ``spec``."""
    if spec.price_prompt_per_mtok is not None or spec.price_completion_per_mtok is not None:
        return (spec.price_prompt_per_mtok or 0.0, spec.price_completion_per_mtok or 0.0)
    if spec.is_local:
        return (0.0, 0.0)
    model_id = spec.model.split("/")[-1].lower()
    matches = [prefix for prefix in PRICES if model_id.startswith(prefix)]
    if matches:
        return PRICES[max(matches, key=len)]
    return UNKNOWN_EXTERNAL


def call_cost(spec: ModelSpec, prompt_tokens: int, completion_tokens: int) -> float:
    """Cost in USD of one call."""
    prompt_price, completion_price = price_per_mtok(spec)
    return (prompt_tokens * prompt_price + completion_tokens * completion_price) / 1_000_000
