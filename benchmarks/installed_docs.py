"""What the loader makes of documentation as a system installs it (``/usr/share/doc``):
compressed files, plain text without a suffix, manual pages, underlined headings.

    .venv/bin/python benchmarks/installed_docs.py /usr/share/doc [--top 15]

Walks the folder as ``research-studio ingest`` does (no embedding, nothing stored) and
prints the files found, how many a suffix alone would admit (what the loader read before
compressed and suffixless files were), the documents read by kind, the plain-text
documents with underlined headings and their count, and the skip reasons, commonest
first, with an example each.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_studio.config import KnowledgeSettings
from research_studio.knowledge.documents import SUPPORTED, LoadedDocument, SkippedItem, iter_files, load_file


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top", type=int, default=15, help="skip reasons shown")
    args = parser.parse_args()
    limits = KnowledgeSettings()
    started = time.perf_counter()
    files = by_suffix = with_headings = headings = 0
    kinds: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    example: dict[str, str] = {}
    for item in iter_files([args.folder]):
        if isinstance(item, SkippedItem):
            results: list[LoadedDocument | SkippedItem] = [item]
        else:
            files += 1
            by_suffix += item.suffix.lower() in SUPPORTED
            results = list(load_file(item, limits.max_file_bytes, limits.max_document_chars))
        for result in results:
            if isinstance(result, LoadedDocument):
                kinds[result.source_type] += 1
                if result.source_type == "text" and result.sections:
                    with_headings += 1
                    headings += len(result.sections)
            else:
                reason = result.reason.split(" (")[0]
                reasons[reason] += 1
                example.setdefault(reason, result.location)
    seconds = time.perf_counter() - started
    print(f"{args.folder}: {files:,} files, {by_suffix:,} with a document suffix, "
          f"{sum(kinds.values()):,} documents read in {seconds:.0f} s")
    print("  by kind: " + ", ".join(f"{kind} {count:,}" for kind, count in kinds.most_common()))
    print(f"  plain text with underlined headings: {with_headings:,} documents, {headings:,} headings")
    print("  skipped:")
    for reason, count in reasons.most_common(args.top):
        print(f"    {count:6,}  {reason}  (e.g. {example[reason]})")


if __name__ == "__main__":
    main()
