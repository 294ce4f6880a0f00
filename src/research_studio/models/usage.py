"""Usage accounting: one record per LLM call, aggregated per node, tier and model."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Literal

StructuredPath = Literal["first_try", "repaired", "fallback"]

# The graph task (one node run) that LLM calls are attributed to; set by the graph's
# node wrapper so that each node can hand its own calls to the checkpointed state.
current_task: ContextVar[str | None] = ContextVar("current_task", default=None)


@dataclass
class CallRecord:
    """One chat-model call as the budget and the result JSON see it."""

    model: str
    tier: str
    node: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cost_usd: float
    external: bool
    tokens_estimated: bool = False
    ok: bool = True
    error: str | None = None
    at: float = field(default_factory=time.time)
    task: str | None = field(default_factory=current_task.get)


def _rounded(bucket: dict[str, float]) -> dict[str, float | int]:
    counts = ("llm_calls", "prompt_tokens", "completion_tokens")
    return {k: int(v) if k in counts else round(v, 6) for k, v in bucket.items()}


@dataclass
class UsageLedger:
    """Thread-safe accumulator shared by every node of one session."""

    calls: list[CallRecord] = field(default_factory=list)
    structured: dict[str, int] = field(
        default_factory=lambda: {"first_try": 0, "repaired": 0, "fallback": 0}
    )
    structured_by_task: dict[str, list[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, call: CallRecord) -> None:
        with self._lock:
            self.calls.append(call)

    def record_structured(self, path: StructuredPath) -> None:
        with self._lock:
            self.structured[path] += 1
            self.structured_by_task.setdefault(current_task.get() or "", []).append(path)

    def for_task(self, task: str) -> tuple[list[dict], list[str]]:
        """The calls and structured-output outcomes recorded under ``task``."""
        with self._lock:
            calls = [asdict(c) for c in self.calls if c.task == task]
            return calls, list(self.structured_by_task.get(task, []))

    def restore(self, calls: list[dict], structured: list[str]) -> None:
        """Reload a resumed session's earlier calls so its budget keeps counting."""
        with self._lock:
            self.calls.extend(CallRecord(**c) for c in calls)
            for path in structured:
                self.structured[path] += 1  # type: ignore[index]

    @property
    def cost_usd(self) -> float:
        return sum(c.cost_usd for c in self.calls)

    @property
    def external_calls(self) -> int:
        return sum(1 for c in self.calls if c.external)

    def summary(self) -> dict:
        """Totals and breakdowns, shaped for the result JSON's ``usage``."""
        by: dict[str, dict[str, dict[str, float]]] = {
            "node": defaultdict(lambda: defaultdict(float)),
            "tier": defaultdict(lambda: defaultdict(float)),
            "model": defaultdict(lambda: defaultdict(float)),
        }
        with self._lock:
            calls = list(self.calls)
            structured = dict(self.structured)
        for call in calls:
            for key, name in (("node", call.node), ("tier", call.tier), ("model", call.model)):
                bucket = by[key][name]
                bucket["llm_calls"] += 1
                bucket["prompt_tokens"] += call.prompt_tokens
                bucket["completion_tokens"] += call.completion_tokens
                bucket["cost_usd"] += call.cost_usd
                bucket["latency_s"] += call.latency_s
        return {
            "llm_calls": len(calls),
            "failed_calls": sum(1 for c in calls if not c.ok),
            "external_calls": sum(1 for c in calls if c.external),
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "cost_usd": round(sum(c.cost_usd for c in calls), 6),
            "structured_output": structured,
            **{f"by_{key}": {name: _rounded(bucket) for name, bucket in groups.items()}
               for key, groups in by.items()},
        }

    def records(self) -> list[dict]:
        with self._lock:
            return [asdict(c) for c in self.calls]
