"""One knowledge base per dataset file: its pooled paragraphs, ingested with the product's
own path (JSON Lines records keep ``id`` as ``doc_id``), named after the file's content so
an unchanged file reuses its knowledge base and a changed one gets a fresh one."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from research_studio.config import AppContext
from research_studio.knowledge.base import IngestSummary, KnowledgeBaseRegistry


def normalize_text(text: str) -> str:
    """Whitespace-normalised text: the key under which identical paragraphs are one source."""
    return " ".join((text or "").split())


def file_digest(path: Path) -> str:
    """sha256 of the file's bytes (the dataset's identity)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def kb_name_for(path: Path, digest: str) -> str:
    """``<stem>-<sha256[:10]>``, reduced to what knowledge-base names allow."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(path).stem).strip("._-")[:40] or "dataset"
    return f"{stem}-{digest[:10]}"


def paragraph_texts(records: list[dict[str, Any]]) -> dict[str, str]:
    """Paragraph id -> normalised text, for mapping a source's ``doc_id`` back to the data."""
    return {p["id"]: normalize_text(p["text"]) for r in records for p in r["paragraphs"]}


def write_pooled_corpus(records: list[dict[str, Any]], out: Path) -> int:
    """Every paragraph of every record as ``{"id", "title", "text"}``; returns the count.
    A paragraph id shared by several records is written once."""
    out.parent.mkdir(parents=True, exist_ok=True)
    written: set[str] = set()
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            for p in record["paragraphs"]:
                if p["id"] in written:
                    continue
                written.add(p["id"])
                handle.write(json.dumps({"id": p["id"], "title": p["title"], "text": p["text"]},
                                        ensure_ascii=False) + "\n")
    return len(written)


def ensure_knowledge_base(ctx: AppContext, dataset: Path, records: list[dict[str, Any]],
                          digest: str, progress: Callable[[str], None] = lambda _: None,
                          ) -> tuple[str, IngestSummary | None]:
    """The dataset's knowledge base in ``ctx``'s home; ingested only when it has no chunks
    or an earlier ingest did not finish (ingestion skips what is already stored).

    Returns its name and the ingest summary (None when it was reused as is)."""
    name = kb_name_for(dataset, digest)
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    base = registry.open(name, create=True)
    corpus = ctx.home / "corpora" / f"{name}.jsonl"
    finished = corpus.with_suffix(".done")
    if base.count() > 0 and finished.exists():
        progress(f"reusing knowledge base {name} ({base.count()} chunks)")
        return name, None
    count = write_pooled_corpus(records, corpus)
    progress(f"building knowledge base {name} from {count} paragraphs…")
    summary = base.ingest_paths([corpus])
    finished.write_text(json.dumps(summary.to_dict(), default=str), encoding="utf-8")
    progress(f"ingested {summary.documents_added} documents ({summary.duplicates} duplicate "
             f"texts stored once, {summary.chunks_added} chunks) in {summary.seconds:.1f}s")
    return name, summary
