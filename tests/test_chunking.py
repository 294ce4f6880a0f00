from itertools import pairwise

import pytest

from research_studio.knowledge.chunking import chunk_spans

TEXT = ("Alpha beta gamma. " * 40 + "\n\n" + "Delta epsilon zeta eta. " * 60).strip()


def test_every_chunk_is_an_exact_slice_within_size():
    spans = chunk_spans(TEXT, size=200, overlap=40)
    assert len(spans) > 5
    for span in spans:
        piece = TEXT[span.start:span.end]
        assert 0 < len(piece) <= 200
        assert piece == piece.strip()
    assert [s.index for s in spans] == list(range(len(spans)))


def test_chunks_cover_the_text_and_overlap():
    spans = chunk_spans(TEXT, size=200, overlap=40)
    assert spans[0].start == 0
    assert spans[-1].end == len(TEXT)
    for previous, current in pairwise(spans):
        assert current.start <= previous.end, "a gap would lose text"
        assert current.start > previous.start, "progress on every step"
    overlaps = [p.end - c.start for p, c in pairwise(spans)]
    assert max(overlaps) > 0


def test_breaks_prefer_sentence_ends():
    spans = chunk_spans(TEXT, size=200, overlap=0)
    assert all(TEXT[s.end - 1] == "." for s in spans[:-1])


def test_short_and_empty_text():
    assert chunk_spans("", 100, 10) == []
    assert chunk_spans("   \n ", 100, 10) == []
    [only] = chunk_spans("  hello world  ", 100, 10)
    assert (only.start, only.end) == (2, 13)


def test_text_without_spaces_is_cut_hard():
    text = "x" * 1000
    spans = chunk_spans(text, 300, 50)
    assert all(s.end - s.start <= 300 for s in spans)
    assert spans[-1].end == 1000


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        chunk_spans("abc", 0, 0)
    with pytest.raises(ValueError):
        chunk_spans("abc", 10, 10)


def test_a_line_ending_in_a_colon_stays_with_what_it_announces():
    """A chunk that ends after "To restore the dump into a new database called newdb:"
    leaves the commands to the next chunk, which starts inside that sentence; the break
    is taken before the announcing line, so one chunk holds both whole."""
    lead = "Dumps are written by pg_dump and read back by psql. " * 9
    announcing = "To restore the dump into a new database called newdb:"
    code = "```\n$ createdb -T template0 newdb\n$ pg_restore -d newdb db.dump\n```"
    text = (f"{lead.strip()}\n\nEarlier paragraph of the page.\n\n{announcing}\n\n{code}\n\n"
            + "More text here. " * 30)
    spans = chunk_spans(text, size=len(lead) + 120, overlap=40)
    pieces = [text[s.start:s.end] for s in spans]
    assert not any(p.endswith(":") for p in pieces), pieces
    assert any(f"{announcing}\n\n{code}" in p for p in pieces), pieces


def test_a_chunk_does_not_cut_an_announced_list_or_code_that_fits_in_one():
    """The paragraph breaks between a list's items are where a chunk would end; with the
    announcing sentence and its list given as a stretch to keep together, some chunk
    holds both whole (the next one begins an overlap before the break)."""
    from research_studio.knowledge.structure import announced_stretches

    lead = "Locales are chosen when a cluster is created. " * 12
    announcing = "PostgreSQL supports two localization facilities:"
    items = ("- Using the locale features of the operating system to provide locale-specific "
             "collation order, number formatting, translated messages.\n\n"
             "- Providing a number of different character sets to support storing text in "
             "all kinds of languages.")
    code_intro = "To create a database with another collation, run:"
    code = "```\n$ createdb --locale=sv_SE.utf8 sales\n$ psql sales\n```"
    text = (f"{lead.strip()}\n\n{announcing}\n\n{items}\n\nSome text. {code_intro}\n\n{code}\n\n"
            + "Trailing words follow the list here. " * 20)
    stretches = announced_stretches(text)
    assert [text[a:b] for a, b in stretches] == [f"{announcing}\n\n{items}", f"{code_intro}\n\n{code}"]
    size = text.index(items) + items.index("- Providing") + 40  # the best break: between the items
    plain = [text[s.start:s.end] for s in chunk_spans(text, size=size, overlap=150)]
    kept = [text[s.start:s.end] for s in chunk_spans(text, size=size, overlap=150,
                                                      keep_together=stretches)]
    assert not any(f"{announcing}\n\n{items}" in p for p in plain), "the example must cut the list"
    assert any(f"{announcing}\n\n{items}" in p for p in kept), kept
    assert any(f"{code_intro}\n\n{code}" in p for p in kept), kept
    # a stretch longer than a chunk can hold is cut as any text is
    long_items = "\n\n".join(f"- Item number {i} of a long list of things to say." for i in range(60))
    text = f"{lead.strip()}\n\n{announcing}\n\n{long_items}\n\nEnd."
    spans = chunk_spans(text, size=400, overlap=100, keep_together=announced_stretches(text))
    assert all(s.end - s.start <= 400 for s in spans) and spans[-1].end == len(text)
