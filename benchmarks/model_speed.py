"""Embedded model speed: load time, generation tokens/s with and without a JSON schema.

    python benchmarks/model_speed.py [--runs 5] [--out bench-out/model.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from research_studio.models.embedded import ChatEmbeddedLlama
from research_studio.models.structured import json_schema_for


class SubQuestion(BaseModel):
    question: str = Field(max_length=160)
    priority: Literal[0.2, 0.4, 0.6, 0.8, 1.0]


class Decomposition(BaseModel):
    sub_questions: list[SubQuestion] = Field(min_length=2, max_length=4)


PROMPT = ("Split this research question into sub-questions: How did the printing press change "
          "literacy, religion and science in early modern Europe?")


def measure(model: ChatEmbeddedLlama, runs: int, **bind: object) -> dict:
    rates, latencies, prompt_rates = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        reply = model.bind(**bind).invoke([HumanMessage(PROMPT)]) if bind else \
            model.invoke([HumanMessage(PROMPT)])
        elapsed = time.perf_counter() - started
        usage = reply.usage_metadata
        rates.append(usage["output_tokens"] / elapsed)
        latencies.append(elapsed)
        prompt_rates.append(usage["input_tokens"])
    return {"tokens_per_s_mean": round(statistics.mean(rates), 1),
            "tokens_per_s_min": round(min(rates), 1), "tokens_per_s_max": round(max(rates), 1),
            "latency_s_mean": round(statistics.mean(latencies), 2),
            "completion_tokens_last": usage["output_tokens"], "prompt_tokens": prompt_rates[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    model = ChatEmbeddedLlama(max_tokens=200, n_threads=args.threads)
    started = time.perf_counter()
    model._load()
    load_s = time.perf_counter() - started
    schema = {"type": "json_object", "schema": json_schema_for(Decomposition)}
    results = {
        "load_s": round(load_s, 2),
        "threads": args.threads,
        "free_text": measure(model, args.runs),
        "json_schema": measure(model, args.runs, response_format=schema),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    print(json.dumps(results, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
