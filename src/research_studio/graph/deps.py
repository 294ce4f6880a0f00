"""What nodes need at run time but must not be checkpointed: models, stores, callbacks.

Passed as LangGraph's runtime context (``graph.astream(..., context=deps)``); nodes read
it as ``runtime.context``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from research_studio.config import WebSettings
from research_studio.knowledge.base import KnowledgeBase
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.models.coordinator import ModelCoordinator

if TYPE_CHECKING:
    from research_studio.graph.stages import Stages

# ``ResearchDeps.similarity``'s shape, for the pure functions that take it as an argument
SimilarityFn = Callable[[list[str], list[str]], np.ndarray]


@dataclass
class ResearchDeps:
    coordinator: ModelCoordinator
    kb: KnowledgeBase | None
    web: WebSettings
    embeddings: MiniLMOnnxEmbeddings = field(default_factory=MiniLMOnnxEmbeddings)
    emit: Callable[[str, dict[str, Any]], None] = lambda kind, data: None

    @cached_property
    def stages(self) -> Stages:
        """The model or offline implementation of each stage, chosen once per run."""
        from research_studio.graph.stages import stages_for  # the stages import the nodes

        return stages_for(self.coordinator)

    _vectors: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Sentence embeddings, each text embedded once per run: gap detection, domain
        synthesis and the writer compare the same findings and claims again."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, self.embeddings.embed_array(missing), strict=True))
        return np.stack([self._vectors[t] for t in texts])

    def similarity(self, texts_a: list[str], texts_b: list[str]) -> np.ndarray:
        """Cosine similarity matrix (len(a) x len(b)) of sentence embeddings."""
        if not texts_a or not texts_b:
            return np.zeros((len(texts_a), len(texts_b)), dtype=np.float32)
        a = self.embed(texts_a)
        b = a if texts_b == texts_a else self.embed(texts_b)
        return a @ b.T
