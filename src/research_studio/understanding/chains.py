"""The nested clauses of a multi-hop question, read from the tagged and parsed question.

"What county is the city where Joe Biden was born located in?" nests a clause ("where
Joe Biden was born") in a definite noun phrase ("the city"): the inner clause names the
anchor, each outer clause asks about the previous answer. A clause opens at a relative
word right after a definite noun phrase (after its comma or preposition: "the party in
which …"), or, in a question with no relative word, at a participle right after one
("the actor playing Bart's father", "the series created by …"). An indefinite phrase ("a
startup that needs to scale") describes a kind of thing, not a hop, and does not nest;
a clause that holds the question's own question word asks rather than nests.

The parse alone misses clauses on long questions (the small parser attaches "that the
producer … is from" to the wrong noun); the tags and noun chunks it is built on are
steadier, so the markers are read from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc, Span, Token

from research_studio.understanding.facets import WH_TAGS

_NOUN_MODIFIERS = ("det", "amod", "compound", "poss", "nummod", "case", "nmod", "punct", "advmod")


@dataclass(frozen=True)
class Chain:
    clauses: list[str]  # outermost first
    anchor: str  # the innermost clause with the noun phrase it describes
    asked_kind: str | None  # that noun: what the first hop looks for


@dataclass(frozen=True)
class _Marker:
    start: int  # characters that separate the clause from the phrase it describes
    end: int
    phrase: Span  # the definite noun phrase the clause describes


def _definite(phrase: Span) -> bool:
    """"the city", "its capital", "Bart's father" — not "a startup", not "which film"."""
    return any(t.dep_ == "poss" or "Def" in t.morph.get("Definite") for t in phrase[:-1])


def _phrase_before(doc: Doc, index: int) -> tuple[Span | None, int]:
    """The noun phrase that ends just before token ``index`` (across a comma or the
    preposition of "in which"), and the token where the marker starts."""
    start = index
    if start > 0 and doc[start - 1].pos_ == "ADP" and doc[index].tag_ in WH_TAGS:
        start -= 1
    if start > 0 and doc[start - 1].text == ",":
        start -= 1
    if start == 0 or doc[start - 1].pos_ not in ("NOUN", "PROPN"):
        return None, start
    noun = doc[start - 1]
    first = noun.i
    while first > 0 and _modifies(doc[first - 1], first - 1, noun.i):
        first -= 1
    return doc[first:noun.i + 1], start


def _modifies(token: Token, start: int, end: int) -> bool:
    """A modifier inside the noun phrase that spans tokens ``start``…``end``."""
    return (token.dep_ in _NOUN_MODIFIERS and token.tag_ not in WH_TAGS
            and start <= token.head.i <= end)


def _opens_relative(token: Token) -> bool:
    """A relative word by its tag, or the first word of a relative clause whatever the
    tagger called it ("the river that/IN Orlam clans crossed")."""
    if token.tag_ in WH_TAGS:
        # a capitalised one opens a title ("How I Met Your Mother"); "what artist" asks;
        # the first, of the main clause, asks the question after a phrase that sets its
        # scene ("According to the manual, how do I pin a package?")
        asks = token.head.dep_ == "ROOT" and not any(t.tag_ in WH_TAGS for t in token.doc[:token.i])
        return token.text[:1].islower() and token.dep_ != "det" and not asks
    clause = next((t for t in token.ancestors if t.dep_ == "relcl"
                   and min(s.i for s in t.subtree) == token.i), None)
    return clause is not None and not (token.tag_ == "TO" and _is_what_is_asked(clause.head))


def _is_what_is_asked(noun: Token) -> bool:
    """The noun is what a "be" question asks for ("Who was the first person to climb …?",
    "What is the best way to learn …?"): an infinitive after it describes the answer, not
    a thing to find first ("Who directed the first film to win …?" is a hop)."""
    return noun.head.lemma_ == "be" and noun.dep_ in ("nsubj", "attr")


def _markers(doc: Doc) -> list[_Marker]:
    relatives, participles = [], []
    for token in doc[1:]:
        relative = _opens_relative(token)
        participle = token.tag_ == "VBG" or (
            token.tag_ == "VBN" and any(c.dep_ == "agent" for c in token.children))
        if not (relative or participle):
            continue
        phrase, start = _phrase_before(doc, token.i)
        if phrase is None or not _definite(phrase):
            continue
        if relative:  # a relative word is dropped; a clause with none keeps its first word
            pronoun = token.tag_ in WH_TAGS or token.pos_ in ("PRON", "SCONJ")
            end = token.idx + len(token.text) if pronoun else token.idx
            relatives.append(_Marker(doc[start].idx if pronoun else token.idx, end, phrase))
        elif phrase.root.pos_ == "NOUN" and not _holds_question_word(doc, token):
            participles.append(_Marker(token.idx, token.idx, phrase))
    return relatives or participles


def relative_openers(doc: Doc) -> set[int]:
    """Character offsets where a nested clause opens: not where a new question starts."""
    return {m.end for m in _markers(doc)}


def _holds_question_word(doc: Doc, token: Token) -> bool:
    """The participle's clause asks the question ("… the actor playing which role?")."""
    return any(t.tag_ in WH_TAGS for t in doc[token.i:])


def chain(doc: Doc, text: str) -> Chain | None:
    """The clause chain of a nested question, or None when nothing nests."""
    markers = _markers(doc)
    if not markers:
        return None
    parts, position = [], 0
    for marker in markers:
        parts.append(text[position:marker.start])
        position = marker.end
    parts.append(text[position:])
    clauses = [p.strip(" ,?") for p in parts]
    clauses = [c for c in clauses if any(ch.isalnum() for ch in c)]
    if len(clauses) < 2:
        return None
    innermost = markers[-1].phrase
    noun = innermost[-1]
    kind = noun.lower_ if noun.pos_ == "NOUN" and noun.is_alpha else None
    return Chain(clauses=clauses, anchor=text[innermost.start_char:].strip(" ?"),
                 asked_kind=kind)
