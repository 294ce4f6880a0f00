"""How much of a documentation set's HTML ingestion keeps: text, program listings, titles.

    .venv/bin/python benchmarks/page_coverage.py \
        handbook='/usr/share/doc/debian-handbook/html/en-US/*.html' \
        postgresql='/usr/share/doc/postgresql-doc-15/html/*.html'

For each set (NAME=GLOB): pages, characters of text, the page's ``<pre>`` listings and how
many of them reach the text (compared without whitespace), its headings (``<h1>`` to
``<h6>``) and how many reach the text, and the titles recorded (headings and box or
example captions, ``structure.TITLE``). A listing missing from the
text is one the extractor dropped with its surroundings; the first few are named.
"""

from __future__ import annotations

import argparse
import glob
from pathlib import Path

import lxml.html

from research_studio.knowledge import structure
from research_studio.knowledge.markup import render_html
from research_studio.knowledge.structure import CODE


def _squeezed(text: str) -> str:
    return "".join(text.split())


def coverage(pattern: str) -> dict[str, object]:
    pages = sorted(glob.glob(pattern, recursive=True))
    chars = listings = kept = code = titles = headings = headings_kept = 0
    missing: list[str] = []
    for page in pages:
        raw = Path(page).read_bytes()
        rendered = render_html(raw.decode("utf-8", errors="replace"))
        text = _squeezed(rendered.text)
        chars += len(rendered.text)
        code += sum(block.kind == CODE for block in rendered.blocks)
        # read by name, so the script also measures code from before titles were recorded
        titles += sum(block.kind == getattr(structure, "TITLE", None)
                      for block in rendered.blocks)
        tree = lxml.html.fromstring(raw)
        for heading in tree.iter("h1", "h2", "h3", "h4", "h5", "h6"):
            shown = _squeezed(heading.text_content()).rstrip("¶#")
            if shown:
                headings += 1
                headings_kept += shown in text
        for pre in tree.iter("pre"):
            listing = _squeezed(pre.text_content())
            if not listing:
                continue
            listings += 1
            if listing[:60] in text:
                kept += 1
            elif len(missing) < 3:
                missing.append(f"{page.rsplit('/', 1)[-1]}: {pre.text_content().strip()[:50]!r}")
    return {"pages": len(pages), "chars": chars, "listings": listings, "kept": kept,
            "code": code, "titles": titles, "headings": headings,
            "headings_kept": headings_kept, "missing": missing}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+", help="NAME=GLOB of HTML pages")
    args = parser.parse_args()
    print("| set | pages | characters | listings kept | code blocks | headings kept | titles |")
    print("|---|---|---|---|---|---|---|")
    for item in args.sets:
        name, _, pattern = item.partition("=")
        c = coverage(pattern)
        print(f"| {name} | {c['pages']} | {c['chars']:,} | {c['kept']}/{c['listings']} | "
              f"{c['code']} | {c['headings_kept']}/{c['headings']} | {c['titles']} |", flush=True)
        for line in c["missing"]:
            print(f"    missing: {line}")


if __name__ == "__main__":
    main()
