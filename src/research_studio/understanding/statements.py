"""Whether a sentence states something on its own: a report's claim is a statement.

A title, a caption or a "see also" line ("PEP 343 - The with statement The
specification, background, and examples for the Python with statement") has no verb: it
is quotable text that answers nothing when shown alone. The verb is read from spaCy's
part-of-speech tags; text that does not read as English is not judged (the English
tagger cannot tell its verbs). A sentence that ends in a colon before a list or code
still counts: "Crockett County is the name of two counties …, both named for … Davy
Crockett:" states the fact a question needs (tried as a rule and dropped: it lost that
supporting paragraph on MuSiQue, lab log §21).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from spacy.tokens import Doc, Token

from research_studio.understanding.facets import WH_TAGS
from research_studio.understanding.parser import TAGS_ONLY, parse_batch, points_back, reads_as_english

_VERB_POS = ("VERB", "AUX")
# A sentence is judged only when it is plainly English: in doubt it is kept. Sampled
# sentences of HotpotQA's Wikipedia paragraphs (402) have an English function-word share
# of 0.37 at the 5th percentile and 0.57 at the median, while French, Spanish and German
# sentences reach 0.17 through words the English stop list shares ("a", "on"), so 0.25
# judges nearly all English sentences and no sentence of those languages.
MIN_STATEMENT_ENGLISH_SHARE = 0.25


# question marks of the Latin, full-width (CJK) and Arabic scripts, and what may close
# around one ("… on?)", "… this?”")
_QUESTION_MARKS = ("?", "？", "؟")
_CLOSERS = ")]\"'”’»"


def asks(text: str) -> bool:
    """The text is a question: it ends with a question mark. A source's question ("Now
    what is a query tree?", a FAQ's heading) introduces its answer and states nothing."""
    return text.rstrip().rstrip(_CLOSERS).endswith(_QUESTION_MARKS)


def states_something(texts: Sequence[str]) -> list[bool]:
    """Per text: it has a verb and does not ask (``asks``). One tagger batch for all; every
    text but a question counts when the pipeline is not installed."""
    docs = parse_batch(list(texts), skip=TAGS_ONLY)
    return [not asks(text) and (doc is None or not reads_as_english(doc, MIN_STATEMENT_ENGLISH_SHARE)
                                or any(t.pos_ in _VERB_POS for t in doc))
            for text, doc in zip(texts, docs, strict=True)]


_SUBJECTS = ("nsubj", "nsubjpass", "csubj", "csubjpass", "expl")
# the clause an "it" subject stands in for, put after the verb ("It is possible to run …",
# "It is recommended that …"): such an "it" points at nothing before it
_EXTRAPOSED = ("xcomp", "ccomp", "csubj")


def stands_alone(doc: Doc | None) -> bool:
    """The parsed text's first sentence does not lack the subject its verb needs, nor
    stand for what the line before said by its subject ("This is inherently true …"), nor
    open with a conjunction that joins it to the line before ("And then this is what …
    says about git bisect"). A quote cut after a code line ("will create a new branch
    based at the current HEAD …", whose subject was the command above it) has a verb with
    an auxiliary and no subject; an imperative ("Run git gc") has neither and stands. True
    when the text cannot be judged."""
    sentence = next(iter(doc.sents)) if doc is not None and len(doc) else None
    if sentence is None:
        return True
    first = next((t for t in sentence if not (t.is_punct or t.is_space)), None)
    if first is not None and first.pos_ == "CCONJ":
        return False
    root = sentence.root
    # a subject that stands for what was said before: "This is inherently true …", "In
    # particular, it must have read access …"
    if any(c.dep_ in ("nsubj", "nsubjpass") and c.pos_ == "PRON" and points_back(c)
           for c in root.children) \
            and not any(c.dep_ in _EXTRAPOSED for c in root.children):
        return False
    return not (root.pos_ in _VERB_POS and any(c.dep_ in ("aux", "auxpass") for c in root.children)
                and not any(c.dep_ in _SUBJECTS for c in root.children))


# tags of the words that open a clause inside a sentence: wh-words ("which will display
# …", "where release-script is …"); a conjunction is told by its part of speech
_CLAUSE_OPENING_TAGS = ("WDT", "WP", "WRB")


def resumes_sentences(texts: Sequence[str]) -> list[bool]:
    """Per text that follows a code block the sentence before did not end at (it ended in a
    colon, or mid-clause): the text goes on with that sentence rather than starting one
    ("The main differences between: ‹code› and: ‹code› are that the materialized view
    cannot …", "… a lightweight tag with ‹code› which just writes …", "… like this:
    ‹code› selects a scale of 0."). It starts in lower case and opens with a conjunction or a
    wh-word, or its verb has no subject; a sentence that opens with a name written in
    lower case ("pg_dump is a utility …") has one. One tagger batch; text that does not
    read as English, or starts in upper case, is taken to start a sentence."""
    wanted = [i for i, text in enumerate(texts) if text[:1].islower()]
    docs = parse_batch([texts[i] for i in wanted])
    out = [False] * len(texts)
    for i, doc in zip(wanted, docs, strict=True):
        if doc is None or not len(doc) or not reads_as_english(doc, MIN_STATEMENT_ENGLISH_SHARE):
            continue
        sentence = next(iter(doc.sents))
        first, root = sentence[0], sentence.root
        out[i] = (first.pos_ in ("CCONJ", "SCONJ") or first.tag_ in _CLAUSE_OPENING_TAGS
                  or (root.pos_ in _VERB_POS and not any(c.dep_ in _SUBJECTS for c in root.children)))
    return out


# clauses that say when, why or which, inside a sentence about something else
_DEPENDENT_CLAUSES = ("advcl", "relcl", "acl")


def _naming_words(head: Token) -> set[str]:
    """The lemmas a thing is named by: its head and the words that say which one it is
    ("bare repository", "WAL mode"), not what a preposition adds ("… of PostgreSQL")."""
    return {head.lemma_.lower()} | {c.lemma_.lower() for c in head.children
                                    if c.dep_ in ("compound", "amod") and not c.is_stop}


def has_for_subject(doc: Doc | None, thing: Token) -> bool:
    """The parsed text's first sentence has the thing for its subject ("A bare repository
    is normally a directory …", "Multiversion Concurrency Control (MVCC) is …" for "What is
    MVCC?"): it says what the thing is or does, where a sentence that names it elsewhere
    ("Usually publishers … make bare repositories available") is about something else."""
    sentence = next(iter(doc.sents)) if doc is not None and len(doc) else None
    if sentence is None:
        return False
    # the first subject a reader meets outside a subordinate or relative clause and
    # outside a question it embeds ("Specifies how the submodules obtain alternates"; the
    # parser may hang the main clause under a later one: "X is …, so older commits are …")
    subject = next((t for t in sentence if t.dep_ in ("nsubj", "nsubjpass")
                    and t.head.dep_ not in _DEPENDENT_CLAUSES
                    and not any(c.tag_ in WH_TAGS for c in t.head.children)), None)
    if subject is None:
        return False
    wanted = _naming_words(thing)
    return any(wanted <= _naming_words(head)
               for head in [subject, *(c for c in subject.children if c.dep_ == "appos")])


_TERM_WORD = re.compile(r"[\w.\-]+")


def term_names(term: str, thing: Token) -> bool:
    """A definition list's term is the thing: it holds the words that say which thing it is
    (the names before its head, "push.default" of "the push.default option"; else its head
    and what describes it, "bare repository"), as "push.default" and "work_mem (integer)"
    are the terms of the settings they describe."""
    compounds = [c.text.lower() for c in thing.lefts if c.dep_ == "compound"]
    wanted = set(compounds) if compounds else {thing.text.lower()} | {
        c.text.lower() for c in thing.lefts if c.dep_ == "amod"}
    return wanted <= {w.strip(".-") for w in _TERM_WORD.findall(term.lower())}
