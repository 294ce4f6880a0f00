"""The statement a yes/no question asks about ("Does coffee cause dehydration?" asks
whether "coffee causes dehydration"), read from the parse: the auxiliary that opens the
question goes back after its subject, and a "do" that only carries the tense gives it
back to the verb (LemmInflect inflects it). A question may also state it in a clause
that completes its main noun or verb ("What is the evidence that X reduces Y?", "Is it
true that …?"). Research then weighs the evidence for and against that statement instead
of filling a template with the question's subject ("What are the causes of coffee?").
"""

from __future__ import annotations

from typing import NamedTuple

from lemminflect import getInflection
from spacy.tokens import Doc, Token

from research_studio.understanding.facets import CLAUSE_SUBJECTS, WH_TAGS, clean_phrase, text_of

_SUBJECTS = ("nsubj", "nsubjpass", "expl")


class Statement(NamedTuple):
    """A question's words in the order of a statement, with its subject."""

    text: str
    subject: Token
    subject_words: str  # the words from the auxiliary to the subject's last


class Claim(NamedTuple):
    """The statement a yes/no question asks about, and its subject."""

    statement: str
    subject: str


def opening_auxiliary(doc: Doc) -> Token | None:
    """The auxiliary or copula the question opens with, when it is the first sentence's
    root or an auxiliary of it ("Is X safe?", "Does X cause Y?", "Can X replace Y?")."""
    first = doc[0]
    root = next(iter(doc.sents)).root
    opens = first == root or (first.head == root and first.dep_ in ("aux", "auxpass"))
    return first if first.pos_ == "AUX" and opens else None


def asks_yes_or_no(doc: Doc) -> bool:
    """One sentence opening with an auxiliary, with no question word."""
    return len(list(doc.sents)) == 1 and opening_auxiliary(doc) is not None \
        and not any(t.tag_ in WH_TAGS for t in doc)


def yes_no_claim(text: str, doc: Doc) -> Claim | None:
    """The statement the question asks about, or None for a question that is not one
    yes/no question (a question word, several sentences, no subject after the auxiliary,
    the asker or the one asked as the subject: "Should I learn Rust?" asks for advice, "Can
    you explain …?" is a request) or one that coordinates anything outside a condition
    ("… worth it if I already have a degree and two years of experience" is one claim)."""
    # anything coordinated ("Are A and B both …?") asks of several things, or two questions
    if not asks_yes_or_no(doc) or any(t.dep_ in ("cc", "preconj")
                                      and not any(a.dep_ == "advcl" for a in t.ancestors) for t in doc):
        return None
    said = statement_order(text, doc, opening_auxiliary(doc))
    # the asker ("Should I …?") asks advice, and "Can you explain …?" is a request
    if said is None or said.subject.morph.get("Person") in (["1"], ["2"]):
        return None
    # "it" of "Is it worth buying …" names no subject to read up on
    return Claim(said.text, said.subject_words if said.subject.pos_ != "PRON" else "")


def statement_order(text: str, doc: Doc, auxiliary: Token) -> Statement | None:
    """The words from ``auxiliary`` (which opens an inverted question, or its part after a
    question word) to the end in the order of a statement, and the subject: the auxiliary
    back after its subject, or a "do" that only carries the tense given back to the verb
    ("does coffee cause dehydration" → "coffee causes dehydration"). None without a subject
    after the auxiliary, or when it was cut short."""
    verb = auxiliary if auxiliary.dep_ == "ROOT" else auxiliary.head
    negation = negation_after(auxiliary)
    inverted = auxiliary_words(text, auxiliary)
    subject = next((c for c in verb.children if c.dep_ in _SUBJECTS and c.i > auxiliary.i), None)
    if subject is None and verb is auxiliary:
        # "Is nuclear power safe?": the parse makes the copula's subject its attribute,
        # followed by what is said of it
        subject = next((c for c in verb.children if c.dep_ == "attr" and c.pos_ in ("NOUN", "PROPN")
                        and any(o.i > c.i and o.dep_ in ("acomp", "prep", "attr") for o in verb.children)),
                       None)
    if subject is None:
        return None
    # an adjective the parse hangs after the subject opens what is said of it ("Is Rust
    # worth learning?": "worth" read as a modifier of "Rust"); English puts its modifiers first
    said_of = next((c.i for c in subject.children if c.dep_ == "amod" and c.i > subject.i), None)
    last = said_of - 1 if said_of is not None else max(t.i for t in subject.subtree)
    words = list(doc[(negation or auxiliary).i + 1:last + 1])
    end = max(t.i for t in words) + 1
    if end < len(doc) and doc[end].pos_ in ("NOUN", "PROPN"):
        return None  # the subject was cut short ("Is git gc safe …?": "git" read alone)
    rest = [t for t in doc[end:] if not t.is_punct or t.text in ",-/"]
    # "Does coffee cause …" → "coffee causes …"; "doesn't" stays as written
    if auxiliary.lemma_ == "do" and verb is not auxiliary and negation is None:
        inflected = getInflection(verb.lemma_, tag=auxiliary.tag_) if auxiliary.tag_ != "VBP" else None
        said = (inflected or [verb.text])[0]
        tail = text_of(text, [t for t in rest if t.i > verb.i])
        between = text_of(text, [t for t in rest if t.i < verb.i])
        statement = " ".join(p for p in (text_of(text, words), between, said, tail) if p)
    else:
        statement = " ".join(p for p in (text_of(text, words), inverted, text_of(text, rest)) if p)
    return Statement(clean_phrase(statement), subject, text_of(text, words))


def auxiliary_words(text: str, auxiliary: Token) -> str:
    """The inverted auxiliary as it goes after the subject: with the negation written
    right after it ("doesn't", "is not"), in lower case."""
    negation = negation_after(auxiliary)
    return text[auxiliary.idx:negation.idx + len(negation.text)].lower() if negation else auxiliary.lower_


def negation_after(auxiliary: Token) -> Token | None:
    """The negation written right after an inverted auxiliary ("Why *doesn't* X …", "Is
    *not* X …"), or None."""
    following = auxiliary.nbor(1) if auxiliary.i + 1 < len(auxiliary.doc) else None
    return following if following is not None and following.dep_ == "neg" else None


def complement_claim(text: str, doc: Doc) -> Claim | None:
    """The statement a one-sentence question gives in a clause of its own, opened by a
    subordinating conjunction and with its own subject, that completes the main verb or
    the noun it is about ("What is the evidence that mindfulness reduces anxiety?", "Is
    there proof that …?", "Is it true that …?"); None without one, or when the clause holds
    the question word (it asks, it states nothing)."""
    sentences = list(doc.sents)
    if len(sentences) != 1:
        return None
    root = sentences[0].root
    for clause in doc:
        if clause.dep_ not in ("acl", "relcl", "ccomp"):
            continue
        head = clause.head
        if not (head == root or (head.head == root and head.dep_ in ("nsubj", "attr", "dobj"))):
            continue
        mark = next((c for c in clause.children if c.dep_ == "mark"), None)
        subject = next((c for c in clause.children if c.dep_ in CLAUSE_SUBJECTS), None)
        if mark is None or subject is None or mark.i > subject.i:
            continue
        words = [t for t in clause.subtree if t.i > mark.i]
        if any(t.tag_ in WH_TAGS for t in words):  # "… held that the practice of what way …": asked
            continue
        named = text_of(text, list(subject.subtree)) if subject.pos_ != "PRON" else ""
        return Claim(clean_phrase(text_of(text, words)), named)
    return None
