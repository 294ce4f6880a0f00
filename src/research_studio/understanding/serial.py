"""A serial list ("A, B, and C") read from its commas when the parse's coordination is broken.

The small parser often attaches the middle member of a comma list to something else:
in "Write a report on the operational costs, the effect on developer productivity, and
lessons from companies that migrated back" it hangs "the effect" on "report" and
"lessons" on "productivity"; in "How do I set up X, install Y, and check Z" it reads
"install" as an adverbial clause of "set". The commas and the final conjunction still
say where the members are: pieces separated by commas outside brackets and quotes, the
last opened by a coordinating conjunction (none is needed after a label's colon), each
opening the same way (a noun phrase, or a verb of one form). Used only where the parse
finds fewer members.
"""

from __future__ import annotations

import itertools

from spacy.tokens import Span, Token

from research_studio.knowledge.lexical import tokenize
from research_studio.prompts import load_data
from research_studio.understanding.facets import (
    LIST_INTRODUCERS,
    WH_TAGS,
    disjunction,
    embedded_question,
    has_main_verb,
    resolve_pronouns,
    verb_form,
)
from research_studio.understanding.parser import parse_batch

# A serial list has at least three members (two are "A and B", which the parse reads);
# more than five is a list of examples, researched as a whole (as in ``distribute``).
MIN_SERIAL = 3
MAX_SERIAL = 5
# What may open a member that is a noun phrase: a determiner, possessive, number,
# adjective or the noun itself (Universal POS tags).
_NOUN_OPENERS = ("DET", "NOUN", "PROPN", "ADJ", "NUM")
# Verb forms no "to" can open (Penn tags: past, third person, participles).
_INFLECTED = ("VBD", "VBZ", "VBN", "VBG")


def _opening(token: Token) -> str | None:
    """How a member opens: "noun", a verb's form (``verb_form``: "to", "participle",
    "finite"), "question" (a question word: "what it records, how long entries are kept,
    and how to use it"), or None."""
    if token.tag_ in WH_TAGS and token.dep_ != "det":  # "which bands" opens a noun phrase
        return "question"
    # a gerund phrase is nominal ("hiring implications"), and so is a word that modifies a
    # noun or is a verb's object whatever its tag ("restore times", "risk classification",
    # "install nginx")
    if token.tag_ == "VBG" or token.dep_ in ("compound", "amod", "nmod") or (
            token.dep_ == "dobj" and token.pos_ == "VERB"):
        return "noun"
    if token.pos_ == "VERB":
        return verb_form(token)
    if token.pos_ != "AUX" and any(c.dep_ == "dobj" for c in token.children):
        # a word with a direct object is a verb whatever its tag ("…, book an appointment,
        # …", "back it up")
        return "finite"
    if token.pos_ in _NOUN_OPENERS or (token.pos_ == "PRON" and token.tag_ == "PRP$"):
        return "noun"
    return None


def _top_level_commas(span: Span) -> list[int]:
    """Commas of the span outside brackets and quotation marks."""
    depth, commas, quoted = 0, [], False
    for token in span:
        if token.is_quote and token.tag_ != "POS":  # not the possessive of "developers' tools"
            quoted = not quoted
        elif token.is_bracket and token.is_left_punct:
            depth += 1
        elif token.is_bracket and token.is_right_punct:
            depth = max(0, depth - 1)
        elif token.text == "," and depth == 0 and not quoted:
            commas.append(token.i)
    return commas


def _finite_outside_clause(tokens: list[Token]) -> bool:
    """A member with a verb of its own that has a subject is a clause, not a noun phrase
    ("…, the market grew, and …"); a relative clause inside a member is part of it."""
    return any(t.dep_.startswith("nsubj") and t.head.dep_ not in ("relcl", "acl", "ccomp")
               and t.head in tokens for t in tokens if t.head.pos_ in ("VERB", "AUX"))


def serial_members(span: Span, owners: bool = False) -> list[Span]:
    """The members of the comma list that ends the span ("…, and C"); empty when the span
    holds no such list. Every member is one phrase whose head is of its kind. The words
    before the first member are what the list shares ("How do I "); with ``owners``, also
    an attribute and its preposition ("Who composed the scores for A, B, and C?"), which a
    question asks of each (in a brief's "correlations between A, B, and C" it relates them
    to one another, and only "of" is read so, in ``distribute``)."""
    doc = span.doc
    # the comma after a phrase that sets the scene before the question word ("With
    # kubectl, how do I scale X, roll out Y and roll back Z?") belongs to no list
    asking = next((t for t in span if t.tag_ in WH_TAGS), None)
    scene = asking is not None and span[0].pos_ == "ADP" and asking.i > span.start \
        and doc[asking.i - 1].text == "," and not has_main_verb(doc[span.start:asking.i]) \
        and not any(t.text in LIST_INTRODUCERS for t in doc[span.start:asking.i])
    commas = [c for c in _top_level_commas(span) if not scene or c > asking.i]
    if not commas:
        return []
    # a list after a colon or dash (in the span, or just before it: "Focus areas: A, B, C")
    introduced = any(t.text in LIST_INTRODUCERS for t in doc[max(span.start - 1, 0):commas[0]])
    pieces, joint = _pieces_after(span, commas, introduced)
    if len(pieces) < MIN_SERIAL - 1:
        return []
    kind = _common_opening(pieces, introduced) or (
        "finite" if not introduced and _actions_read_alone(pieces) else None)
    if kind is None:
        return []
    first = _first_member(doc[span.start:commas[0]], kind, pieces, introduced, owners)
    if first is None:
        return []
    # a question that opens with its question word and ends "…, A or B?" offers A and B as
    # its answers ("Which band has more members, A or B?", "Who was the first to …, A or
    # B?"), not as more members of a list that began before the comma; the parser
    # coordinates them all alike. Actions are read from the commas alone.
    if joint is not None and disjunction(joint) and kind == "noun" and not introduced \
            and any(opens_a_question(t) for t in doc[span.start:first.end]):
        return []
    members = [first, *pieces]
    # every member names something: a noun, or an object whatever its tag ("push it to a
    # remote", "remote" read as an adjective), or asks a question ("how it is filled")
    if not MIN_SERIAL <= len(members) <= MAX_SERIAL or not all(
            _opening(m[0]) == "question"
            or any(t.pos_ in ("NOUN", "PROPN") or t.dep_ in ("dobj", "pobj") for t in m) for m in members):
        return []
    # (after a label the list is all the rest, whatever the parse hangs on what)
    return [] if kind == "noun" and not introduced and _runs_on(members) else members


def _pieces_after(span: Span, commas: list[int], introduced: bool) -> tuple[list[Span], Token | None]:
    """The pieces between the commas and after the last one, the last without its
    conjunction; empty when a piece is empty or the last has no conjunction (which only
    a list after a label may leave out: "Focus areas: A, B, C, D."). With them, the
    conjunction that alone joins the last two pieces ("A, B and C"), if it does."""
    doc = span.doc
    pieces: list[Span] = []
    for start, stop in itertools.pairwise([*commas, span.end]):
        piece = doc[start + 1:stop]
        while len(piece) and (piece[-1].is_punct or piece[-1].is_space):
            piece = piece[:-1]
        if not len(piece):
            return [], None
        pieces.append(piece)
    last = pieces[-1]
    # the conjunction opens the last piece ("A, B, and C"), or is inside it where the list
    # has no comma before it ("A, B and C": the pieces must then still open alike)
    joint = next((t for t in reversed(last) if t.pos_ == "CCONJ" and t.i > last.start), None)
    if last[0].pos_ == "CCONJ" and len(last) >= 2:
        pieces[-1] = last[1:]
    elif joint is not None and joint.i + 1 < last.end:
        pieces[-1:] = [doc[last.start:joint.i], doc[joint.i + 1:last.end]]
        return pieces, joint
    elif not introduced:
        return [], None
    return pieces, None


def _common_opening(pieces: list[Span], introduced: bool = False) -> str | None:
    """How every piece opens, when they all open alike and none is a clause with its own
    subject (after a label's colon a list holds no clause: "common failure modes" is one
    whatever the tagger says); None otherwise."""
    kinds = {_opening(p[0]) for p in pieces}
    if introduced and kinds == {"noun", "question"}:
        # after a label the aspects of one thing may mix phrases and questions ("X: its
        # goals, how much money was involved, and its effect"): a list of noun phrases
        kinds = {"noun"}
    if len(kinds) != 1 or None in kinds:
        return None
    [kind] = kinds
    if kind == "noun" and not introduced and any(_finite_outside_clause(list(p)) for p in pieces):
        return None
    return kind


def _actions_read_alone(pieces: list[Span]) -> bool:
    """Every piece reads as an action when parsed on its own after "to" ("to pin
    dependencies with a lock file"), where the parse of the whole sentence made nouns of
    some of its verbs ("pin", "configure"); at least one piece is a verb in that parse."""
    if not any(_opening(p[0]) in ("finite", "to") for p in pieces):
        return False
    docs = parse_batch([f"to {p.text}" for p in pieces], skip=("ner",))
    return all(d is not None and len(d) > 1 and d[1].tag_ == "VB" for d in docs)


def _first_member(lead: Span, kind: str, pieces: list[Span], introduced: bool,
                  owners: bool) -> Span | None:
    """The first member, in the words before the first comma: all of them after a label's
    colon; else the longest phrase headed by its kind (a noun phrase from a noun chunk's
    first word, a verb phrase from the last verb of that form, or the first word of the
    kind when the tagger gives none of them a head of the kind). None when the parse
    reads the list inside it ("paths in Europe, Asia, and …") or it holds an attribute
    asked of each member (unless ``owners``)."""
    doc = lead.doc
    heads = ("NOUN", "PROPN") if kind == "noun" else ("VERB",)
    colons = [t.i for t in lead if t.text in LIST_INTRODUCERS]
    lead = doc[(colons[-1] + 1 if colons else lead.start):lead.end]  # "three things: A, B, and C"
    if introduced:
        return lead
    # "to apply for X, book Y, and get Z": one "to" opens every bare infinitive of the list
    shared_to = kind == "finite" and not any(p[0].tag_ in _INFLECTED for p in pieces)
    openers = [t for t in lead if (_opening(t) == kind or (shared_to and _opening(t) == "to"))
               and (kind != "noun" or _starts_phrase(t) or _heads_gerund_phrase(t, lead))]
    if not openers:
        return None
    if kind != "noun":
        openers = openers[-1:]
    first = next((doc[t.i:lead.end] for t in openers if doc[t.i:lead.end].root.pos_ in heads
                  or _heads_gerund_phrase(t, lead)), doc[openers[0].i:lead.end])
    if kind == "noun" and _related(first) and not any(_related(p) for p in pieces):
        if not owners:
            return None  # "the influence of A, B, and C": an attribute asked of each, not a list
        # "the scores for A, B, and C": the list starts after the preposition
        first = doc[max(t.i for t in first if t.pos_ == "ADP") + 1:first.end]
        if not len(first) or first.root.pos_ not in heads:
            return None
    second = pieces[0].root
    if second.dep_ == "conj" and second.head in first and second.head != first.root:
        return None
    return first


def _heads_gerund_phrase(token: Token, lead: Span) -> bool:
    """The token is a gerund heading the rest of the lead ("taking a pg_dump of one
    database" of "walk me through taking …, copying it …"): the member is the action, not
    only its object."""
    return token.tag_ == "VBG" and token.doc[token.i:lead.end].root == token


def opens_a_question(token: Token) -> bool:
    """The token is a question word that opens its question, after a preposition at most
    ("Who …", "In which …")."""
    return token.tag_ in WH_TAGS and all(t.pos_ == "ADP" for t in token.doc[token.sent.start:token.i])


def _runs_on(members: list[Span]) -> bool:
    """A noun list that does not end where the span ends: its last member holds a clause
    of the words before the list ("…, and C to examine Y": the purpose belongs to the
    verb of the whole list), or a later member holds what the first hangs on ("…, and
    the composer C buried": the verb the list is the subject of)."""
    first, last = members[0], members[-1]
    outside = [t for t in last if not t.is_punct and not last.start <= t.head.i < last.end]
    if len(outside) > 1 and any(t.pos_ == "VERB" and t.dep_ in ("xcomp", "advcl", "conj") for t in outside):
        return True
    return any(m.root in first.root.ancestors for m in members[1:])


def _related(span: Span) -> bool:
    """The span holds a preposition (not a verb's particle: "setting up a virtualenv")."""
    return any(t.pos_ == "ADP" and t.dep_ != "prt" for t in span)


def serial_questions(text: str, span: Span, referent: str = "") -> list[str]:
    """One question per member of the span's comma list, each with the words before the
    first member ("How do I set up X, install Y, and check Z?" → "How do I install Y?");
    ``referent``: what a pronoun in a member stands for. Empty without such a list."""
    members = serial_members(span, owners=True)
    if not members:
        return []
    prefix = text[span.start_char:members[0].start_char]
    asked_about = load_data("offline_plan")["multi_faceted"]["phrase_facet"]
    questions = []
    for member in members:
        question = prefix + resolve_pronouns(text, member, referent)
        if not prefix and embedded_question(member):  # "what it records, …" is asked about
            question = asked_about.format(facet=question)
        questions.append(question)
        referent = next_referent(member, referent)
    return questions


def next_referent(action: Span, referent: str) -> str:
    """What an "it" in the action after ``action`` stands for: the thing the action made
    or handled ("create a branch, push it to a remote"), unless the referent so far says
    more about that same thing ("replication in PostgreSQL" for "set up replication")."""
    handled = object_phrase(action)
    if not handled:
        return referent
    said = set(tokenize(referent))
    return referent if set(tokenize(handled)) < said else handled


def object_phrase(member: Span) -> str:
    """A verb member's direct object with the words before it ("a branch"); empty for a
    noun member or one without an object naming something."""
    if _opening(member[0]) in (None, "noun"):
        return ""
    obj = next((t for t in member if t.dep_ == "dobj" and t.head == member[0]
                and (t.pos_ in ("NOUN", "PROPN") or _opening(t) == "noun")), None)
    return member.doc[obj.left_edge.i:obj.i + 1].text if obj is not None else ""


def _starts_phrase(token: Token) -> bool:
    """A word that opens a noun phrase: the first word of a noun chunk."""
    return any(chunk.start == token.i for chunk in token.doc.noun_chunks)
