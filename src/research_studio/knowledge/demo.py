"""The ``python-docs`` demo knowledge base, built from the reference topics that ship
with CPython (``pydoc_data.topics``), so the main job works with nothing downloaded."""

from __future__ import annotations

from collections.abc import Iterator

from research_studio.knowledge.documents import LoadedDocument

DEMO_KB = "python-docs"


def python_docs_documents() -> Iterator[LoadedDocument]:
    """One document per pydoc topic (for example ``with``, ``assignment``, ``exceptions``)."""
    from pydoc_data.topics import topics

    for key in sorted(topics):
        text = topics[key]
        if not text.strip():
            continue
        first = next((line.strip() for line in text.splitlines() if line.strip()), key)
        yield LoadedDocument(
            doc_id=f"pydoc:{key}", title=first[:120], text=text,
            location=f"pydoc_data.topics#{key}", source_type="python-docs")
