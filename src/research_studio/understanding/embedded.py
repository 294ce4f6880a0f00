"""A question as it reads inside another sentence ("… about who directed Alien", "… about
how I set up replication", "… about whether A and B are both documentaries"), read from
the parse: a question word that is the subject, or the subject of a copula ("Who is X?"),
keeps the question's order; otherwise the auxiliary goes back after its subject, or "do"
gives its tense back to the verb (``claim.statement_order``); a yes/no question becomes
"whether" and its statement.

A plan that follows a name the evidence links the question to asks what that name tells
about the question; the question inside that sub-question must read as part of it. What
opens a question before it asks (a statement of the asker's situation in a sentence of its
own, or a phrase set off by a comma: "When automating git bisect, what exit status …")
stays in front of the sub-question as its lead-in (``lead_and_question``).
"""

from __future__ import annotations

from typing import NamedTuple

from spacy.tokens import Doc, Span, Token

from research_studio.prompts import load_data
from research_studio.understanding.claim import (
    auxiliary_words,
    negation_after,
    opening_auxiliary,
    statement_order,
)
from research_studio.understanding.facets import (
    CLAUSE_SUBJECTS,
    WH_TAGS,
    clean_phrase,
    inside_relative_clause,
    text_of,
)
from research_studio.understanding.parser import parse
from research_studio.understanding.serial import opens_a_question

# spaCy's entity labels of amounts and times: a word they mark ("Two batch jobs …") is no name
_QUANTITIES = ("CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME")


def asking_word(doc: Doc) -> Token | None:
    """The question word that opens the question, alone or after a preposition ("In what
    city …"); not one that opens an adverbial clause before it ("*When* backporting a fix,
    how do I …?")."""
    return next((t for t in doc[:2] if opens_a_question(t)
                 and not (t.dep_ in ("advmod", "mark") and t.head.dep_ == "advcl")), None)


def _auxiliary_after(asking: Token, root: Token) -> Token | None:
    """The auxiliary or copula of the question's main verb that follows the question word
    and comes before the verb's subject: the inverted word ("What year *did* the author
    …", "Who *is* the leader …")."""
    candidates = [root] if root.pos_ == "AUX" else [c for c in root.children if c.dep_ in ("aux", "auxpass")]
    subject = next((c for c in root.children if c.dep_ in CLAUSE_SUBJECTS), None)
    for auxiliary in candidates:
        if auxiliary.i > asking.i and (subject is None or auxiliary.i < subject.i):
            return auxiliary
    return None


def lowered_opening(text: str, first: Token) -> str:
    """``text`` with its first word (``first``) in lower case, unless it is a name or
    written in capitals (an acronym, "I")."""
    acronym = first.text.isupper() and (len(first.text) > 1 or first.pos_ == "PRON")  # "SQL", "I"; not "A"
    if first.pos_ == "PROPN" or first.ent_type_ not in ("", *_QUANTITIES) or acronym:
        return text
    return text[:1].lower() + text[1:]


def _asks_with_subject(asking: Token, root: Token) -> bool:
    """The question word is the subject, or determines it ("who directed …", "what
    company merged …"), or is what a copula asks for ("who is the leader of …"): the
    question is in the order of a statement already. A "do" as its first verb says the
    parse took the object for the subject ("What occupation did X and Y share?"), and so
    does a preposition left without its object."""
    verb = next((t for t in root.doc[asking.i + 1:] if t.pos_ in ("AUX", "VERB")), None)
    if verb is None or verb.lemma_ == "do":
        return False
    # a preposition left without its object has the question word for it: "What is the
    # staging area for?" asks what the area is for
    if any(_stranded(t) for t in root.doc):
        return False
    # the question word is the subject or inside it: "who directed …", "how many bones are …"
    if asking.dep_ in CLAUSE_SUBJECTS \
            or any(t.dep_ in CLAUSE_SUBJECTS and t.i > asking.i for t in asking.ancestors):
        return True
    return root.lemma_ == "be" and root.pos_ == "AUX" and "attr" in (asking.dep_, asking.head.dep_)


def _stranded(token: Token) -> bool:
    """A preposition of the question's own clause without an object ("… for?"); not one
    of a relative clause ("the organization that X is a member of"), nor the first word
    of a compound preposition ("along with")."""
    return token.dep_ == "prep" and not any(c.dep_ in ("pobj", "pcomp", "prep") for c in token.children) \
        and not any(a.dep_ == "relcl" for a in token.ancestors)


def embedded_question(text: str, doc: Doc | None) -> str:
    """The one-sentence question ``text`` (parsed as ``doc``) as it reads after "about",
    without its question mark (two questions joined by a conjunction: each embedded);
    empty when the parse does not show how: several sentences, a question word in the
    middle, a subject the parse cut short or read with the rest of the sentence in it."""
    if doc is None or not len(doc) or len(list(doc.sents)) != 1:
        return ""
    words = [t for t in doc if not t.is_punct]
    if len(words) == 1 and words[0].tag_ in WH_TAGS:  # "Why?" after a statement
        return words[0].lower_
    root = next(iter(doc.sents)).root
    joined = [c for c in root.children if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")]
    if any(_asks_again(c) for c in joined):
        return _coordinated(text, root)  # "how do X work, and can they …": two questions
    if any(c.tag_ != root.tag_ for c in joined):
        return ""  # verbs of different forms are not one predicate ("Are A and To Shoot an Elephant …")
    if opening_auxiliary(doc) is not None \
            and not any(t.tag_ in WH_TAGS and not inside_relative_clause(t) for t in doc):
        # a yes/no question, relative clauses in it or not ("Is there a way … that is …?")
        auxiliary, opening = doc[0], "whether"
    else:
        asking = asking_word(doc)
        if asking is None:
            return ""
        if _asks_with_subject(asking, root):  # "who directed Alien"
            return lowered_opening(clean_phrase(text_of(text, list(doc))), doc[0])
        auxiliary = _auxiliary_after(asking, root)
        subject = next((c for c in root.children if c.dep_ in CLAUSE_SUBJECTS and c.i > asking.i), None)
        if auxiliary is None or subject is None \
                or subject.left_edge.i != (negation_after(auxiliary) or auxiliary).i + 1:
            return ""  # something other than the subject follows the auxiliary ("is located the city …")
        opening = lowered_opening(text_of(text, list(doc[:auxiliary.i])), doc[0])
    if joined and auxiliary.lemma_ == "do" and auxiliary.tag_ in ("VBZ", "VBD"):
        return ""  # "does X cause A and lead to B": the tense goes back to the first verb only
    said = statement_order(text, doc, auxiliary)
    # "were the bands X and Y from the U.S." read "from the U.S." into the subject: nothing
    # is left to say of it
    if said is None or said.text.endswith(f" {auxiliary_words(text, auxiliary)}"):
        return ""
    return f"{opening} {said.text}"


def _asks_again(verb: Token) -> bool:
    """A verb joined to the question's main verb that asks a question of its own: it has
    its own subject ("… and can *I* change it?"); one that shares the first's subject is
    one question ("Can psql skip the statement and keep going?")."""
    return any(c.dep_ in CLAUSE_SUBJECTS for c in verb.children)


def _coordinated(text: str, root: Token) -> str:
    """Two questions joined by a conjunction ("How long does X keep it, and can I change
    it?"), each embedded: "how long X keeps it and whether I can change it"; empty unless
    both read so."""
    conjunction = next((c for c in root.children if c.dep_ == "cc"), None)
    if conjunction is None or conjunction.i + 1 >= len(root.doc):
        return ""
    first = text[:conjunction.idx].rstrip(" ,;") + "?"
    second = text[root.doc[conjunction.i + 1].idx:].strip()
    second = second[:1].upper() + second[1:]  # a question of its own opens with a capital
    parts = [embedded_question(part, parse(part)) for part in (first, second)]
    return f"{parts[0]} {conjunction.lower_} {parts[1]}" if all(parts) else ""


class LeadIn(NamedTuple):
    """A question split into what comes before it asks (``lead``, written to open a
    sentence) and the question as it reads after "about" (``question``)."""

    lead: str
    question: str


def lead_and_question(text: str, doc: Doc | None) -> LeadIn | None:
    """The question after its lead-in, embedded, for a question ``embedded_question``
    cannot embed whole: one statement followed by the question in a sentence of its own
    ("My -wal file keeps growing. What can cause that?" → "Given that my -wal file keeps
    growing", "what can cause that"), or a phrase before the question's main verb set off
    by a comma ("If a login fails on the first line, does PostgreSQL try the next?" → "If a
    login fails on the first line", "whether PostgreSQL tries the next"). The question keeps
    its pronouns, so the lead-in comes first, where they find what they stand for. None when
    neither reads so."""
    if doc is None or not len(doc):
        return None
    sentences = list(doc.sents)
    if len(sentences) == 2:
        return _after_statement(text, sentences)
    if len(sentences) == 1:
        return _after_opening_phrase(text, doc, sentences[0].root)
    return None


def _after_statement(text: str, sentences: list[Span]) -> LeadIn | None:
    """A statement with a subject of its own (not an instruction, not a question) and the
    question that follows it."""
    premise, asked = sentences
    stated = any(c.dep_ in CLAUSE_SUBJECTS for c in premise.root.children)
    if premise.text.rstrip().endswith("?") or not stated:
        return None
    question = text[asked.start_char:asked.end_char].strip()
    embedded = embedded_question(question, parse(question))
    if not embedded:
        return None
    said = text[premise.start_char:premise.end_char].strip().rstrip(".!;: ")
    given = load_data("offline_plan")["linked"]["given"]
    return LeadIn(f"{given} {lowered_opening(said, premise[0])}", embedded)


def _after_opening_phrase(text: str, doc: Doc, root: Token) -> LeadIn | None:
    """The first comma before the main verb, where the words after it ask a question of
    their own ("According to the 2001 census, what was …")."""
    comma = next((t for t in doc[1:root.i] if t.text == ","), None)
    if comma is None:
        return None
    question = text[comma.idx + 1:].strip()
    embedded = embedded_question(question, parse(question))
    return LeadIn(text[:comma.idx].strip(), embedded) if embedded else None
