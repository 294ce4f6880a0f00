"""How fast the embedded model generates with 1 or 2 llama.cpp threads, alone and with other
CPU-bound processes on the machine (as the sentence encoder, a second session or a test
suite are).

    .venv/bin/python benchmarks/embedded_threads.py [--tokens 32]

Prints seconds and tokens per second for each case; the default thread count
(``models.embedded.default_threads``) follows from these figures.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time

from langchain_core.messages import HumanMessage

from research_studio.models.embedded import ChatEmbeddedLlama, default_threads

PROMPT = ("Describe how a suspension bridge carries its load. " * 40).strip()


def _burn(stop: multiprocessing.synchronize.Event) -> None:
    """A plain CPU-bound process: the scheduler shares the cores with it fairly."""
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _other_model(stop: multiprocessing.synchronize.Event) -> None:
    """Another llama.cpp with 2 threads (a second session's process): its threads spin on
    each other at every step, as ours do."""
    model = ChatEmbeddedLlama(n_threads=2, max_tokens=32, n_ctx=2048, temperature=0.0)
    while not stop.is_set():
        model.invoke([HumanMessage(PROMPT)])


def _generate(threads: int, tokens: int) -> tuple[float, int]:
    model = ChatEmbeddedLlama(n_threads=threads, max_tokens=tokens, n_ctx=2048, temperature=0.0)
    model.invoke([HumanMessage("Say hi.")])  # load and warm up
    started = time.perf_counter()
    reply = model.invoke([HumanMessage(PROMPT)])
    return time.perf_counter() - started, reply.usage_metadata["output_tokens"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=32)
    args = parser.parse_args()
    print(f"CPUs available: {len(os.sched_getaffinity(0))}; default threads: {default_threads()}")
    cases = [("nothing", None, 0), ("1 busy process", _burn, 1), ("2 busy processes", _burn, 2),
             ("a 2-thread llama.cpp", _other_model, 1)]
    for beside, target, count in cases:
        for threads in (1, 2):
            stop = multiprocessing.Event()
            burners = [multiprocessing.Process(target=target, args=(stop,)) for _ in range(count)]
            for burner in burners:
                burner.start()
            try:
                seconds, produced = _generate(threads, args.tokens)
            finally:
                stop.set()
                for burner in burners:
                    burner.join()
            print(f"threads {threads}, beside {beside:22s}: {seconds:7.2f} s "
                  f"for {produced} tokens ({produced / seconds:5.1f} tokens/s)")


if __name__ == "__main__":
    main()
