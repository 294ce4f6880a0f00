"""Which documents ingest marks as near copies of another (``knowledge.near_duplicates``).

Loads files as ingest does (or the paragraphs of QA files), in ingest's order, and
prints how many documents are marked a near copy of an earlier one, how many of those
pairs share their file name in another format (``page.html`` and ``page.rst.txt``) or
their title, and how many same-named pairs are not marked, with examples of each.

    .venv/bin/python benchmarks/near_copies.py /usr/share/doc/python3.11/html
    .venv/bin/python benchmarks/near_copies.py --qa DATA/hotpotqa_dev200.jsonl DATA/musique_dev100.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from pathlib import Path

from research_studio.config import KnowledgeSettings
from research_studio.knowledge.documents import LoadedDocument, iter_files, load_file
from research_studio.knowledge.near_duplicates import CopyFinder, sketch

SHOWN = 8


def _documents(paths: list[Path]) -> Iterator[LoadedDocument]:
    settings = KnowledgeSettings()
    for item in iter_files(paths):
        if isinstance(item, Path):
            yield from (d for d in load_file(item, settings.max_file_bytes, settings.max_document_chars)
                        if isinstance(d, LoadedDocument))


def _paragraphs(files: list[Path]) -> Iterator[LoadedDocument]:
    seen: set[str] = set()
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            for k, paragraph in enumerate(json.loads(line)["paragraphs"]):
                text = paragraph["text"]
                if text not in seen:  # an exact copy is stored once, never marked
                    seen.add(text)
                    yield LoadedDocument(f"p{len(seen)}", paragraph.get("title", ""), text,
                                         f"{file.name}#{len(seen)}-{k}", "text")


def _stem(location: str) -> str:
    return Path(location).name.split(".")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--qa", action="store_true", help="the paths are QA files: their paragraphs")
    args = parser.parse_args()
    threshold = KnowledgeSettings().near_duplicate_jaccard
    finder = CopyFinder(threshold)
    started = time.perf_counter()
    docs = list(_paragraphs(args.paths) if args.qa else _documents(args.paths))
    by_id: dict[str, LoadedDocument] = {}
    marked: list[tuple[LoadedDocument, str]] = []
    for doc in docs:
        minhash = sketch(doc.text)
        original = finder.original_of(minhash)
        finder.add(doc.location, doc.doc_id, minhash, original)
        by_id.setdefault(doc.doc_id, doc)
        if original is not None:
            marked.append((doc, original))
    seconds = time.perf_counter() - started
    named = [] if args.qa else [(d, o) for d, o in marked
                                if _stem(d.location) == _stem(by_id[o].location)]
    titled = [(d, o) for d, o in marked if d.title == by_id[o].title]
    stems: dict[str, list[LoadedDocument]] = {}
    for doc in docs:  # a name held by two documents only: one page in two formats
        stems.setdefault(_stem(doc.location) if not args.qa else doc.location, []).append(doc)
    marked_ids = {d.location for d, _ in marked}
    pairs = [group for group in stems.values() if len(group) == 2]
    unmarked = [group for group in pairs if not any(d.location in marked_ids for d in group)]
    print(f"{len(docs)} documents, threshold {threshold} (word 5-gram Jaccard), {seconds:.1f} s")
    formats = "" if args.qa else f"the same file name in another format {len(named)}, "
    print(f"near copies marked: {len(marked)}; of them {formats}the same title {len(titled)}")
    if not args.qa:
        print(f"file names held by exactly two documents: {len(pairs)}, "
              f"not marked {len(unmarked)}")
    print("\nmarked, another name and title:")
    for doc, original in [(d, o) for d, o in marked if (d, o) not in named and (d, o) not in titled][:SHOWN]:
        print(f"  {doc.title[:50]!r} ({doc.location[-40:]}) ~ {by_id[original].title[:50]!r}")
    if unmarked:
        print("\nsame-named, not marked:")
        for group in unmarked[:SHOWN]:
            print("  " + " / ".join(d.location[-45:] for d in group))


if __name__ == "__main__":
    main()
