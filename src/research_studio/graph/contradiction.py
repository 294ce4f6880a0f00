"""Do two findings contradict each other? The same statement about the same thing, with
another figure.

The encoder alone cannot tell: "The 1964 Georgia Tech Yellow Jackets football team
represented the Georgia Institute of Technology during the 1964 season" and the same
sentence about 1987 score above any same-topic threshold and state disjoint numbers, yet
they are about two teams. Nor can a number check: "He made his first-team debut in March
2009, at the age of 19" and "He started his career in the youth team at the age of 10"
state different ages of different events. Over the 300 HotpotQA and MuSiQue reports, 248
pairs were set aside as conflicts on cosine and numbers alone, nearly all of them such
pairs (lab log §36). A pair of same-topic findings with disjoint figures is a
contradiction only when, read with spaCy's parse:

- the numbers that say which thing their subjects are, are the same ("the 1951 FA Cup
  Final", "888 7th Avenue", a table row's label "E061-03 — Description: …");
- the names in their subjects, where both subjects have some, are the same (or the
  subjects' words are, the parse having read "the viaduct near Millau" and "The Millau
  Viaduct" as different names); words in brackets are an aside, not the subject; the words of
  one subject are all in the other ("Common index properties are listed in Table 9.73"
  is not about "Access method properties"), unless a pronoun stands for what it is
  ("It", "Its total length"); and one statement names nothing the other does not (dates
  and amounts aside);
- they come from the same source, or from sources whose titles are about the same thing
  (the same title, or the first name one title gives stated by the other with no title
  numbers disagreeing):
  "It has a Roud Folk Song Index number of 821" is about its page, not another song's;
- some figure each states that the other does not is a figure of the same thing: the
  same clause verb ("opened … in 1998", "opened … in 2003") or the same counted noun
  ("70% of Jews", "75% of Jews"; a unit or a date alone counts nothing).

Two statements about different things can still pass ("Back to the Future" and "Back to
the Future Part II": a Roman numeral is no number; "the 16th-century castle" and "the
20th-century castle" read as two castles); lab log §36 has the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spacy.tokens import Doc, Span, Token

from research_studio.graph.claim_check import MEASURE_LABELS, name_words, names_covered
from research_studio.graph.text_analysis import NUMBER, numbers_disagree, numeric_tokens
from research_studio.knowledge.structure import row_label
from research_studio.understanding.parser import parse_batch

_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
# dependency labels by which a number (or the noun phrase it sits in) modifies a noun
_MODIFIES = frozenset({"nummod", "quantmod", "compound", "amod"})
# spaCy's entity labels of a figure whose head word is its unit ("25 metres", "70%",
# "$5"): such a figure counts what the unit's prepositional phrase names ("of Jews"),
# the unit alone counts nothing
_UNIT_LABELS = frozenset({"QUANTITY", "PERCENT", "MONEY"})
_TIME_LABELS = frozenset({"DATE", "TIME"})
_AMOUNT_LABELS = frozenset({"CARDINAL", *_UNIT_LABELS})
_CONTENT = frozenset({"NOUN", "PROPN", "ADJ"})


@dataclass(frozen=True)
class Figures:
    """What a statement's numbers are figures of."""

    in_subject: frozenset[str]  # numbers that say which thing the subject is
    subject_names: frozenset[str]  # the words of the names inside the subject
    subject_words: frozenset[str]  # the subject's content words (none for a pronoun)
    stated: dict[str, frozenset[str]]  # each other number: the verb and noun it is a figure of


def _root(token: Token) -> bool:
    return token.head.i == token.i


def _says_which(token: Token, label: str) -> bool:
    """The number is part of what names the subject: a table row's label, a name inside
    the subject ("Interstate 95 is …"), or a date or an ordinal
    before the subject's head noun ("the 1964 … team", "the second-generation Acura RL").
    A count there ("About 100 species … were treated") and anything after the head ("(born
    1954)", "members since 2012") is stated of the subject."""
    if label:  # a table row's label names what the row is about
        return token.idx < len(label)
    subject = token
    while subject.dep_ not in _SUBJECTS:
        if _root(subject):
            return False
        subject = subject.head
    if token.ent_type_ and token.ent_type_ not in MEASURE_LABELS:
        return True
    return token.i < subject.i and token.ent_type_ not in _AMOUNT_LABELS


def _clause_verb(token: Token) -> str | None:
    """The verb of the clause a number sits in ("opened … in 1998" → "open"), or the word
    a verbless sentence hangs on; None for a number that is a sentence of its own."""
    if _root(token):
        return None
    head = token.head
    while not _root(head) and head.pos_ not in ("VERB", "AUX"):
        head = head.head
    return f"verb:{head.lemma_.lower()}"


def _counted(token: Token) -> str | None:
    """The noun a number counts ("1,000 rows", "the 33rd largest city", "70% of Jews"),
    with what its prepositional phrases name; None for a date or a bare unit."""
    if token.ent_type_ in _TIME_LABELS:
        return None
    head = token
    while head.dep_ in _MODIFIES and not _root(head):
        head = head.head
    if head.i == token.i or head.pos_ not in ("NOUN", "PROPN"):
        return None
    of = [obj.lemma_.lower() for prep in head.children if prep.dep_ == "prep"
          for obj in prep.children if obj.dep_ == "pobj"]
    if token.ent_type_ in _UNIT_LABELS and not of:
        return None
    return "noun:" + " ".join([head.lemma_.lower(), *of])


def _subject(doc: Doc) -> Span | None:
    """The first sentence's subject, or a table row's label."""
    label = row_label(doc.text)
    if label:
        return doc.char_span(0, len(label), alignment_mode="expand")
    for sentence in doc.sents:
        for child in sentence.root.children:
            if child.dep_ in _SUBJECTS:
                words = list(child.subtree)
                return doc[words[0].i:words[-1].i + 1]
    return None


def _figures(doc: Doc | None, text: str) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    in_subject: set[str] = set()
    stated: dict[str, set[str]] = {}
    label = row_label(text)
    for match in NUMBER.finditer(text):
        values = numeric_tokens(text[match.start():match.end() + 2])  # "95 %" is also 0.95
        token = doc.char_span(match.start(), match.end(), alignment_mode="expand") \
            if doc is not None else None
        if not values or token is None:
            continue
        token = token.root
        if _says_which(token, label):
            in_subject |= values
            continue
        of = {_clause_verb(token), _counted(token)} - {None}
        for value in values:
            stated.setdefault(value, set()).update(of)
    return frozenset(in_subject), {value: frozenset(of) for value, of in stated.items()}


def _unbracketed(subject: Span | None) -> list[Token]:
    """The subject's words outside brackets: "A soft drink (see terminology for other
    names)" is about a soft drink; the aside names nothing the subject is."""
    kept: list[Token] = []
    depth = 0
    for token in subject if subject is not None else []:
        if token.is_bracket:
            depth = depth + 1 if token.is_left_punct else max(0, depth - 1)
        elif not depth:
            kept.append(token)
    return kept


def _content_words(subject: list[Token]) -> frozenset[str]:
    if any(t.dep_ == "poss" and t.pos_ == "PRON" for t in subject):
        return frozenset()  # "its total length": what it stands for is not written here
    return frozenset(t.lemma_.lower() for t in subject if t.pos_ in _CONTENT)


def figures_of(texts: Sequence[str]) -> list[Figures]:
    """Each statement's figures and subject, from one parse batch (and one of their
    subjects' names)."""
    docs = parse_batch(list(texts))
    read = [_figures(doc, text) for doc, text in zip(docs, texts, strict=True)]
    subjects = [_unbracketed(_subject(doc)) if doc is not None else [] for doc in docs]
    names = name_words(["".join(t.text_with_ws for t in subject).strip() for subject in subjects])
    return [Figures(in_subject, frozenset(w for name in named for w in name),
                    _content_words(subject), stated)
            for (in_subject, stated), named, subject in zip(read, names, subjects, strict=True)]


def _same_figure(a: Figures, b: Figures) -> bool:
    """Some figure only one states is a figure of what a figure only the other states is."""
    own_a = [of for value, of in a.stated.items() if value not in b.stated]
    own_b = [of for value, of in b.stated.items() if value not in a.stated]
    return any(x & y for x in own_a for y in own_b)


def titles_agree(first: str, second: str, first_names: list[set[str]],
                 second_names: list[set[str]]) -> bool:
    """Two sources are about the same thing: their titles are the same, or the first name
    one title gives is stated by the other ("Jews" and "Ashkenazi Jews"; not "Fontanelle,
    Iowa" and "Dow City, Iowa") and their numbers agree ("2014 Toyota Grand Prix of Long
    Beach" is not 2015's)."""
    if " ".join(first.lower().split()) == " ".join(second.lower().split()):
        return True
    if numbers_disagree(numeric_tokens(first), numeric_tokens(second)):
        return False
    return bool((first_names and names_covered(first_names[:1], second))
                or (second_names and names_covered(second_names[:1], first)))


def contradicting(texts: Sequence[str], titles: Sequence[str], sources: Sequence[str],
                  pairs: Sequence[tuple[int, int]], terms: Sequence[str] | None = None) -> list[bool]:
    """For each pair (i, j) of same-topic statements whose numbers disagree: do they state
    another figure for the same thing? ``titles`` and ``sources`` are those of each
    statement's source; an untitled source tells nothing and agrees with any. ``terms``:
    the definition list term each is stated under, "" for none; statements under two
    different terms describe two things ("The default value is four megabytes" under
    "work_mem", "It defaults to 64 megabytes" under "maintenance_work_mem"). Only the
    statements and titles in some pair are parsed."""
    return _compare(texts, titles, sources, pairs, figure_differs=True, terms=terms)


def about_the_same_thing(texts: Sequence[str], titles: Sequence[str], sources: Sequence[str],
                         pairs: Sequence[tuple[int, int]],
                         terms: Sequence[str] | None = None) -> list[bool]:
    """For each pair (i, j): are the two statements about the same thing, by the test
    ``contradicting`` applies (the subject's identifying numbers and names, its words, the
    sources' titles, the terms they are stated under)? Two statements that confirm each
    other must be ("New York's 1st State Senate district is one of 62 districts" does not
    confirm the 4th's)."""
    return _compare(texts, titles, sources, pairs, figure_differs=False, terms=terms)


def _under_one_term(terms: Sequence[str] | None, i: int, j: int) -> bool:
    """Not stated under two different definition list terms (one or both under none
    may still be about one thing)."""
    return not terms or not terms[i] or not terms[j] or terms[i] == terms[j]


def _compare(texts: Sequence[str], titles: Sequence[str], sources: Sequence[str],
             pairs: Sequence[tuple[int, int]], figure_differs: bool,
             terms: Sequence[str] | None = None) -> list[bool]:
    asked = list(pairs)
    pairs = [(i, j) for i, j in asked if _under_one_term(terms, i, j)]
    involved = sorted({k for pair in pairs for k in pair})
    if not involved:
        return [False] * len(asked)
    figures = dict(zip(involved, figures_of([texts[k] for k in involved]), strict=True))
    names = dict(zip(involved, name_words([texts[k] for k in involved]), strict=True))
    # a domain's findings come from a few sources: each title is read once
    distinct = sorted({titles[k] for k in involved})
    named = dict(zip(distinct, name_words(distinct), strict=True))
    title_names = {k: named[titles[k]] for k in involved}

    def same_thing(i: int, j: int) -> bool:
        a, b = figures[i], figures[j]
        if a.in_subject != b.in_subject:
            return False
        if (a.subject_names and b.subject_names and a.subject_names != b.subject_names
                and a.subject_words != b.subject_words):
            return False  # other names, unless the same words were read as names differently
        if a.subject_words and b.subject_words and not (a.subject_words <= b.subject_words
                                                        or b.subject_words <= a.subject_words):
            return False
        if not (names_covered(names[i], texts[j]) or names_covered(names[j], texts[i])):
            return False
        return (sources[i] == sources[j] or not titles[i].strip() or not titles[j].strip()
                or titles_agree(titles[i], titles[j], title_names[i], title_names[j]))

    kept = {(i, j): same_thing(i, j) and (not figure_differs or _same_figure(figures[i], figures[j]))
            for i, j in pairs}
    return [kept.get(pair, False) for pair in asked]
