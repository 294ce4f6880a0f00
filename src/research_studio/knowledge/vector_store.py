"""Chroma as the vector store: embedded on disk by default, or a Chroma server by URL.

The choice is configuration only (``knowledge.chroma_url``), so a team can move its
knowledge bases to a shared ``chroma run`` server without code changes.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import chromadb
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.api.types import Documents, EmbeddingFunction
from chromadb.api.types import Embeddings as ChromaEmbeddings
from chromadb.config import Settings as ChromaSettings
from chromadb.errors import ChromaError, InternalError
from chromadb.utils.embedding_functions import register_embedding_function

from research_studio.errors import ResearchStudioError, StorageError
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.store.faults import (
    CHROMA_FILE,
    KNOWLEDGE,
    check_chroma_file,
    fault,
    is_storage_exception,
    remote_fault,
)

COLLECTION_PREFIX = "rs-kb-"
log = logging.getLogger("research_studio.knowledge")


@register_embedding_function
class MiniLMChromaFunction(EmbeddingFunction[Documents]):
    """Our ONNX MiniLM as a Chroma embedding function (Chroma's default would download).
    Registered, so that Chroma can read back a collection's configuration (its search
    settings) that names it."""

    def __init__(self, embeddings: MiniLMOnnxEmbeddings | None = None) -> None:
        self._embeddings = embeddings or MiniLMOnnxEmbeddings()

    def __call__(self, input: Documents) -> ChromaEmbeddings:
        return list(self._embeddings.embed_array(list(input)))

    @staticmethod
    def name() -> str:
        return "research-studio-minilm-onnx"

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMChromaFunction:
        return MiniLMChromaFunction()


def open_client(kb_dir: Path, chroma_url: str | None) -> ClientAPI:
    """A persistent client under ``kb_dir``, or an HTTP client for ``chroma_url``."""
    settings = ChromaSettings(anonymized_telemetry=False)
    if not chroma_url:
        folder = local_store(kb_dir)
        check_chroma_file(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(folder), settings=settings)
        except Exception as exc:
            problem = store_fault(folder, exc)
            if problem is None:
                raise
            raise problem from exc
    parsed = urlparse(chroma_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ResearchStudioError(f"knowledge.chroma_url must be http(s)://host:port, "
                                  f"got {chroma_url!r}")
    try:
        return chromadb.HttpClient(
            host=parsed.hostname, port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https", settings=settings)
    except Exception as exc:
        raise ResearchStudioError(f"Chroma server at {chroma_url} is unreachable: {exc}") from exc


def local_store(kb_dir: Path) -> Path:
    """The folder of the embedded Chroma: every knowledge base of a home."""
    return kb_dir / "chroma"


def store_fault(location: Path | str, exc: Exception) -> StorageError | None:
    """The StorageError for an error of the Chroma store at ``location`` (its folder, or a
    server's URL), or None when ``exc`` is not about the store (an unknown collection, a
    bad argument): those stay what they are."""
    if isinstance(exc, StorageError) or not location:
        return None
    if not isinstance(location, Path):
        return remote_fault(KNOWLEDGE, f"Chroma server {location}", exc) \
            if isinstance(exc, InternalError) else None
    if isinstance(exc, OSError):  # the store's folder (or one it is made in), not a document's
        named = Path(exc.filename) if exc.filename else None
        if named is None or not (named.is_relative_to(location) or named in location.parents):
            return None
    elif not (isinstance(exc, InternalError) or is_storage_exception(exc)):
        return None
    return fault(KNOWLEDGE, location / CHROMA_FILE, exc)


def collection_name(kb_name: str) -> str:
    return f"{COLLECTION_PREFIX}{kb_name}"


def ensure_search_ef(collection: Collection, search_ef: int) -> None:
    """Give the collection's HNSW index the search breadth of the settings. Chroma's
    default (100) makes dense results differ between processes for the same query: four
    processes gave four different top-50 lists for the 100 MuSiQue questions over their
    1,849 chunks; at 500 every process returns the exact top 50."""
    try:
        hnsw = (collection.configuration or {}).get("hnsw") or {}
        if hnsw.get("ef_search") != search_ef:
            collection.modify(configuration={"hnsw": {"ef_search": search_ef}})
    except (ChromaError, ValueError) as exc:  # a server that cannot: search still works
        log.warning("could not set the search breadth of %s (%s); dense results may vary "
                    "slightly between processes", collection.name, exc)
