"""The names a text gives: things one can look up (people, places, organisations, works,
events), read with spaCy's entity recogniser rather than a grammar of capital letters.

A name is a run of capitalised words or of words inside a name entity ("University of
Oxford", "J. R. R. Tolkien"), so titles the recogniser does not know ("Warn That Man")
are names too. Words of a date or time entity are never part of one: the recogniser,
not a list of month names, says that "August" in "August 18, 2009" is a date (a
capitalised number word stays: "Three Kingdoms", "Ten Kingdoms").
Function words that open a run ("The Kichi Sipi", "However, NASA") are not part of the
name, and a lone capitalised word that only opens a sentence ("Boxing is …") is a name
only when the recogniser or the tagger reads it as one.

The tagger and the recogniser run, not the parser; a sentence read once is not read again
in the same process (passages come back in every iteration of a research).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from spacy.tokens import Doc, Span, Token

from research_studio.understanding.parser import (
    FUNCTION_POS,
    TAGS_AND_ENTITIES_ONLY,
    opens_a_line,
    parse_batch,
)
from research_studio.understanding.text_memory import TextMemory

# spaCy's English entity labels for things one can look up (not a date, a count or an amount)
NAME_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT",
                         "WORK_OF_ART", "LAW", "LANGUAGE"})
# entity labels of dates and times: their words ("August", "Monday") are never part of a name
TIME_LABELS = frozenset({"DATE", "TIME"})
# How many distinct texts keep their names in memory: the passages of a research run (a
# few hundred sentences per sub-question) many times over, at a few hundred bytes each.
CACHED_TEXTS = 20_000
_SENTENCE_ENDS = ".!?"
_CLAUSE_MARKS = ":;"
_DASHES = ("-", "–", "—")
# A title read whole (quoted, or a line of its own) has at most this many words. Of 10,641
# page, section and article titles (four Debian manuals, MuSiQue, HotpotQA), 99% have at
# most 9 words; a longer line in Title Case is more often a table row or a cast list read
# as one line ("Tom Selleck as Jesse Stone Mackenzie Foy as Jenny …"), whose names are
# read one by one as before.
TITLE_MAX_WORDS = 12
# each quotation mark that opens a quoted phrase, with the mark that closes it
_QUOTE_PAIRS = {"\u201c": "\u201d", "\u2018": "\u2019", '"': '"', "\u00ab": "\u00bb"}


def _opens_sentence(token: Token) -> bool:
    """The token opens a sentence, a line or a clause set off by a colon, a semicolon or a
    dash with spaces around it, with nothing but punctuation before it ("DESCRIPTION\n
    -----------\nRuns a number of …" of a manual page; a list item "- Forget about the
    current operation"; "git-remote - Manage set of tracked repositories"; a table row
    read as "Lock — Description: The server process …", whose cells a semicolon parts:
    "pg_table_size ( regclass ) → bigint; Computes the disk space …")."""
    doc = token.doc
    position = token.i
    while not opens_a_line(doc[position]):
        before = doc[position - 1]
        if any(ch.isalnum() for ch in before.text):
            return False
        if before.text in _SENTENCE_ENDS or before.text in _CLAUSE_MARKS or _separates(before):
            return True
        position -= 1
    return True


def _separates(token: Token) -> bool:
    """A dash written with spaces on both sides: it sets off what follows as a clause of
    its own, as a colon does (a hyphen inside a word has none)."""
    return token.text in _DASHES and token.i > 0 and bool(token.doc[token.i - 1].whitespace_) \
        and bool(token.whitespace_)


def _opening_verb(token: Token, named: set[int]) -> bool:
    """A verb that opens its sentence, is in no name the recogniser found and is followed
    by a word in lower case: capitalised for its place, not a name ("See the "PACKFILE
    OPTIMIZATION" section"); a title that opens with a verb goes on in capitals ("Warn That
    Man is a 1943 film")."""
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return token.pos_ == "VERB" and token.i not in named and _opens_sentence(token) \
        and following is not None and following.text[:1].islower()


def _quoted(doc: Doc) -> list[Span]:
    """The phrases between a pair of quotation marks, the marks left out (an apostrophe,
    which also writes possessives and elisions, opens none)."""
    spans: list[Span] = []
    opening: Token | None = None
    for token in doc:
        if opening is None:
            opening = token if token.text in _QUOTE_PAIRS else None
        elif token.text == _QUOTE_PAIRS[opening.text]:
            if token.i > opening.i + 1:
                spans.append(doc[opening.i + 1:token.i])
            opening = None
    return spans


def _lines(doc: Doc) -> list[Span]:
    """The lines of the text (``opens_a_line``): a heading stands on one."""
    starts = [token.i for token in doc if opens_a_line(token)]
    return [doc[start:end] for start, end in zip(starts, [*starts[1:], len(doc)], strict=True)]


def _title_case(phrase: Span) -> bool:
    """Every word of the phrase is capitalised but its function words, of which it has
    some, and two of its words at least are in Title Case: a title ("Upgrading from One
    Stable Distribution to the Next", "Return of the King"), whose capitals say nothing of
    the names inside it."""
    words = [t for t in phrase if t.is_alpha]
    lowered = [t for t in words if not t.text[:1].isupper()]
    # written in Title Case, not in capitals only: "JOIN pg_am am ON …" is code
    title_cased = [t for t in words if t.text[:1].isupper() and not t.text.isupper()]
    return len(words) <= TITLE_MAX_WORDS and len(title_cased) >= 2 and bool(lowered) \
        and words[0].text[:1].isupper() and all(t.is_stop and t.pos_ in FUNCTION_POS for t in lowered)


def _goes_on_in_lower_case(phrase: Span) -> bool:
    """A word after the phrase's first is a content word in lower case: the phrase is
    prose, not a title ("Hello", "Warn That Man")."""
    return any(t.is_alpha and t.text[:1].islower() and not t.is_stop for t in phrase[1:])


def _runs(doc: Doc) -> list[list[Token]]:
    named: set[int] = set()
    dated: set[int] = set()
    for entity in doc.ents:
        if entity.label_ in NAME_LABELS:
            named.update(range(entity.start, entity.end))
        elif entity.label_ in TIME_LABELS:
            dated.update(range(entity.start, entity.end))
    quoted = _quoted(doc)
    # a title in quotation marks or on a line of its own (a heading) is one name, its
    # function words included; a capitalised word opening a quoted phrase that goes on
    # in lower case is capitalised for its place, as at the opening of a sentence (the
    # option “Guided - use entire disk”)
    for phrase in [*quoted, *_lines(doc)]:
        if _title_case(phrase):
            named.update(range(phrase.start, phrase.end))
    quote_openings = {phrase.start for phrase in quoted if _goes_on_in_lower_case(phrase)}

    def part_of_name(token: Token, run: list[Token]) -> bool:
        if token.i in named:
            return True
        if token.i in dated or not any(ch.isalpha() for ch in token.text):
            return bool(run) and token.text == "-" and not run[-1].whitespace_  # "Kia-ngau"
        if run and run[-1].text == "-" and not run[-1].whitespace_:
            # "Kia-ngau" goes on; "Paris-based", "PostgreSQL-implemented" describe by a name
            return token.text[:1].isupper() or token.pos_ not in ("VERB", "ADJ")
        return token.text[:1].isupper()

    runs: list[list[Token]] = []
    run: list[Token] = []
    for token in [*doc, None]:
        # a name ends with its line: a heading, a list item or a table row is one
        ends_a_line = token is not None and bool(run) and opens_a_line(token)
        if token is not None and not ends_a_line and part_of_name(token, run):
            run.append(token)
            continue
        # a function word opening the run is left out when it is one (a stop word) or only
        # capitalised for its place; a name opens with a capital or inside a recognised
        # name: "PostgreSQL-implemented", "PostgreSQL" tagged an adverb, gave "implemented"
        while run and ((run[0].pos_ in FUNCTION_POS and (run[0].is_stop or _opens_sentence(run[0])))
                       or not any(ch.isalpha() for ch in run[0].text)
                       or _opening_verb(run[0], named)
                       or (run[0].i not in named and not any(ch.isupper() for ch in run[0].text))):
            run.pop(0)
        trailing: list[Token] = []
        while run and not any(ch.isalpha() for ch in run[-1].text):
            trailing.insert(0, run.pop())  # closing punctuation, or a year put inside a name
        if len(run) == 1 and trailing and _numbers_the_name(trailing[0], named):
            # one word and the number the recogniser read with it: "Section 27.2", "Table
            # 13.1"; without it the word names nothing in particular
            run.append(trailing[0])
        if run and not (len(run) == 1 and run[0].i not in named
                        and (_opens_sentence(run[0]) or run[0].i in quote_openings)
                        and run[0].pos_ != "PROPN") and not _written_onto_a_number(run[0]):
            runs.append(run)
        run = [token] if ends_a_line and part_of_name(token, []) else []
    return runs


def _numbers_the_name(token: Token, named: set[int]) -> bool:
    """A number inside a recognised name that is not a year written in four digits (the
    recogniser puts a date's year in a name: "Obama 2008")."""
    return token.i in named and token.like_num and not (token.text.isdigit() and len(token.text) == 4)


def _written_onto_a_number(token: Token) -> bool:
    """A word written onto a number is its unit ("40MB", "10ms"), not a name."""
    before = token.doc[token.i - 1] if token.i > 0 else None
    return before is not None and before.like_num and not before.whitespace_


def names_in_doc(text: str, doc: Doc) -> list[str]:
    """Every name of ``doc`` (read from ``text``) in reading order, repeats included."""
    found = []
    for run in _runs(doc):
        name = _balanced(" ".join(text[run[0].idx:run[-1].idx + len(run[-1].text)].split()))
        if len(name) >= 2 and not name.isdigit():
            found.append(name)
    return found


def _balanced(name: str) -> str:
    """The name before a bracket it opens and does not close: the recogniser ends
    "git-rerere(1) Manual Page" at "git-rerere(1"."""
    while name.count("(") > name.count(")"):
        name = name[:name.rindex("(")].rstrip()
    return name


def names_in_texts(texts: Sequence[str]) -> list[list[str]]:
    """The names of each text (in reading order, repeats included), read in one batch;
    empty lists when spaCy's English pipeline is not installed."""
    docs = parse_batch(list(texts), skip=TAGS_AND_ENTITIES_ONLY)
    return [names_in_doc(text, doc) if doc is not None else []
            for text, doc in zip(texts, docs, strict=True)]


_read: TextMemory[tuple[str, ...]] = TextMemory(CACHED_TEXTS)


def names_of_each(texts: Sequence[str]) -> list[tuple[str, ...]]:
    """``names_in_texts`` with each text read at most once per process (the memory is
    emptied when it would hold more than ``CACHED_TEXTS`` texts)."""
    return _read.read(texts, lambda unread: map(tuple, names_in_texts(unread)))


def without_possessive(name: str) -> str:
    """A name without the possessive it was written with ("Einstein's", "Jennifer
    Parker’s")."""
    return name.removesuffix("'s").removesuffix("’s")


def entities(text: str, limit: int = 12) -> list[str]:
    """The names of ``text``, most often named first (longer first on ties)."""
    counts = Counter(names_of_each([text])[0])
    return sorted(counts, key=lambda n: (-counts[n], -len(n)))[:limit]
