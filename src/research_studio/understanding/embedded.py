"""A question as it reads inside another sentence ("… about who directed Alien", "… about
how I set up replication", "… about whether A and B are both documentaries"), read from
the parse: a question word that is the subject, or the subject of a copula ("Who is X?"),
keeps the question's order; otherwise the auxiliary goes back after its subject, or "do"
gives its tense back to the verb (``claim.statement_order``); a yes/no question becomes
"whether" and its statement.

A plan that follows a name the evidence links the question to asks what that name tells
about the question; the question inside that sub-question must read as part of it.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from research_studio.understanding.claim import asks_yes_or_no, statement_order
from research_studio.understanding.facets import CLAUSE_SUBJECTS, clean_phrase, text_of
from research_studio.understanding.serial import opens_a_question


def asking_word(doc: Doc) -> Token | None:
    """The question word that opens the question, alone or after a preposition ("In what
    city …")."""
    return next((t for t in doc[:2] if opens_a_question(t)), None)


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
    if first.pos_ == "PROPN" or first.ent_type_ or first.text.isupper():
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
    if asking.dep_ in CLAUSE_SUBJECTS or (asking.head.dep_ in CLAUSE_SUBJECTS and asking.head.i > asking.i):
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
    without its question mark; empty when the parse does not show how: several sentences
    or coordinated questions, a question word in the middle, a subject the parse cut
    short or read with the rest of the sentence in it."""
    if doc is None or not len(doc) or len(list(doc.sents)) != 1:
        return ""
    root = next(iter(doc.sents)).root
    if any(c.dep_ == "conj" and c.pos_ in ("VERB", "AUX") for c in root.children):
        return ""  # "how do X work, and can they …": two questions
    if asks_yes_or_no(doc):
        auxiliary, opening = doc[0], "whether"
    else:
        asking = asking_word(doc)
        if asking is None:
            return ""
        if _asks_with_subject(asking, root):  # "who directed Alien"
            return lowered_opening(clean_phrase(text_of(text, list(doc))), doc[0])
        auxiliary = _auxiliary_after(asking, root)
        subject = next((c for c in root.children if c.dep_ in CLAUSE_SUBJECTS and c.i > asking.i), None)
        if auxiliary is None or subject is None or subject.left_edge.i != auxiliary.i + 1:
            return ""  # something other than the subject follows the auxiliary ("is located the city …")
        opening = lowered_opening(text_of(text, list(doc[:auxiliary.i])), doc[0])
    said = statement_order(text, doc, auxiliary)
    # "were the bands X and Y from the U.S." read "from the U.S." into the subject: nothing
    # is left to say of it
    if said is None or said.text.endswith(f" {auxiliary.lower_}"):
        return ""
    return f"{opening} {said.text}"
