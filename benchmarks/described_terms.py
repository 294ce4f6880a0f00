"""Whether research quotes the description of the thing asked about, in manuals that
describe things in definition lists (settings, options, functions), where a description's
sentences seldom name what they describe ("The default value is four megabytes").

    .venv/bin/python benchmarks/described_terms.py --kb pg --home HOME \\
        --pages '/usr/share/doc/postgresql-doc-15/html/runtime-config-*.html' \\
        --question 'What is the default value of {name}?' --within default

The questions are made from the pages' own definition lists, not written by hand: one per
entry whose description has a sentence holding the ``--within`` word, asking
``--question`` of the entry's name (its term up to the first space or bracket:
"work_mem (integer)" gives "work_mem") and, where it holds ``{page}``, of the page's title
("What does the --soft option of git-reset(1) do?"): an option most commands share is
asked of one. For each question the knowledge base is searched
as research searches it and the findings stage picks its sentences; printed: the share of
questions whose first finding (and any of the first three) is quoted from the asked
entry's description, and of first findings from any description, the share whose term is the
asked one. Run it with the code and the knowledge base of each version to compare (a
knowledge base ingested before definition lists were recorded reads as one without).
"""

from __future__ import annotations

import argparse
import glob
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_studio.config import ResearchConfig, WebSettings, load_context
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.execute import _kb_search
from research_studio.graph.nodes.findings import extractive_findings
from research_studio.graph.nodes.strategy import Task
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.knowledge.structure import sentences


@dataclass(frozen=True)
class Definition:  # as knowledge.structure records one; here too for older code
    term: str
    start: int
    end: int


def entry_name(term: str) -> str:
    """The name a term gives first: "work_mem (integer)" → "work_mem", "-q, --quiet" → "-q"."""
    for stop in (" ", "(", ",", "="):
        term = term.split(stop, 1)[0]
    return term


def questions(pages: list[str], template: str, within: str,
              starts: str = "") -> list[tuple[str, str, Definition]]:
    """(question, page, entry) for each entry with a sentence holding ``within``, each
    question once (a name described on two pages is asked about its first)."""
    from research_studio.knowledge.markup import page_title, render_html

    out, seen = [], set()
    for page in pages:
        html = Path(page).read_text(encoding="utf-8", errors="replace")
        rendered, title = render_html(html), page_title(html)
        for entry in rendered.definitions:
            question = template.format(name=entry_name(entry.term), page=title)
            described = rendered.text[entry.start:entry.end]
            if entry_name(entry.term).startswith(starts) and entry_name(entry.term) \
                    and question not in seen \
                    and any(within in s.text.lower() for s in sentences(described)):
                seen.add(question)
                out.append((question, page, entry))
    return out


def in_entry(finding: dict, source: dict, page: str, entry: Definition) -> bool:
    """The finding is quoted from the entry's description on its page, in part: code that
    did not record definition lists quotes the term and the first sentence after it as
    one sentence ("work_mem (integer) - Sets the base maximum …")."""
    start = source["start"] + finding["quote_start"]
    return source["location"] == page and start < entry.end and start + len(finding["quote"]) > entry.start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", required=True)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--pages", required=True, help="glob of the ingested HTML pages to ask about")
    parser.add_argument("--question", required=True, help="template with {name}, may hold {page}")
    parser.add_argument("--within", default="", help="a word the entry's description must hold")
    parser.add_argument("--starts", default="", help="ask only of names starting so ('-': options)")
    parser.add_argument("--limit", type=int, default=200,
                        help="at most this many questions (a seeded sample)")
    parser.add_argument("--save", type=Path, help="write the questions here (JSON)")
    parser.add_argument("--load", type=Path, help="ask the questions written by --save: code "
                        "from before definition lists were recorded cannot make them")
    args = parser.parse_args()

    context = load_context(args.home)
    kb = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open(args.kb)
    if args.load:
        asked = [(q, page, Definition(*entry)) for q, page, entry in json.loads(args.load.read_text())]
    else:
        asked = questions(sorted(glob.glob(args.pages)), args.question, args.within.lower(), args.starts)
        if len(asked) > args.limit:
            asked = sorted(random.Random(0).sample(asked, args.limit), key=lambda q: q[0])
    if args.save:
        args.save.write_text(json.dumps([[q, page, [e.term, e.start, e.end]] for q, page, e in asked]))
    config = ResearchConfig()
    deps = ResearchDeps(coordinator=None, kb=kb, web=WebSettings(provider="none"))  # type: ignore[arg-type]
    first = top3 = from_entry = termed = 0
    for question, page, entry in asked:
        retrieved = _kb_search(deps, Task("kb", question, "breadth"), config.results_per_query, "sq_001")
        findings = extractive_findings({"sub_question_id": "sq_001", "question_text": question,
                                        "queries_done": []}, retrieved, 0, config, deps.similarity)
        findings.sort(key=lambda f: -f["relevance"])
        sources = {r.source["source_id"]: r.source for r in retrieved}

        hits = [in_entry(f, sources[f["source_id"]], page, entry) for f in findings[:3]]
        first += bool(hits[:1] and hits[0])
        top3 += any(hits)
        if findings and findings[0].get("context"):
            termed += 1
            from_entry += entry_name(findings[0]["context"]) == entry_name(entry.term)
    n = len(asked)
    print(f"{n} questions ({args.question!r} over {args.pages})")
    print(f"first finding in the asked entry's description: {first / n:.3f} ({first}/{n})")
    print(f"any of the first three in it: {top3 / n:.3f} ({top3}/{n})")
    if termed:
        print(f"first findings under a term: {termed}; under the asked one: "
              f"{from_entry / termed:.3f} ({from_entry}/{termed})")


if __name__ == "__main__":
    main()
