"""A sentence about the person asking ("I run a small bakery", "Git rebase confuses me"),
read as a frame for the sentence encoder ("I run it") and the thing it names: whether it
asks for something or states the person's situation is the encoder's judgement
(``kinds.asker_judges``), which needs the frame without the thing's own words.
"""

from __future__ import annotations

from typing import NamedTuple

from spacy.tokens import Span, Token

from research_studio.understanding.facets import WH_TAGS, asker_possessive, text_of


class AboutTheAsker(NamedTuple):
    """A sentence about the person asking: the sentence with the thing it names replaced
    by "it" (``frame``), and that thing."""

    frame: str
    thing: Span


def about_the_asker(unit: Span) -> list[AboutTheAsker]:
    """A sentence about the person asking ("I run a small bakery", "My team is choosing
    between A and B", "Git rebase confuses me") read as "I run it" and "a small bakery", for
    the encoder to judge whether it asks for something or states the person's situation;
    empty for a sentence about anything else. A subject the person owns ("My queries got
    slow after a bulk delete", "My laptop keeps overheating") is read both ways: as the
    person's ("My queries got slow after it") and as a thing with a state of its own ("it
    got slow after a bulk delete"); a situation in either is the person's."""
    head = unit.root
    people = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass", "dobj", "dative")
              and unit.start <= c.i < unit.end]
    if not any(_first_person(p) for p in people):
        return []
    subject = next((c for c in people if c.dep_.startswith("nsubj")), None)
    predicate = "it " + text_of(unit.doc.text, [t for t in unit if t.i >= head.i and not t.is_punct])
    if subject is not None and not _first_person(subject):  # "Git rebase confuses me"
        return [AboutTheAsker(predicate, _phrase(subject))]
    readings = []
    words: list[Token] = []
    for token in unit:
        if token.i > head.i and _names_a_thing(token):
            thing = token
            while thing.dep_ in ("det", "poss", "amod", "compound", "nummod") and thing.head.i > thing.i:
                thing = thing.head  # "a small bakery": the noun the words before it modify
            readings.append(AboutTheAsker(text_of(unit.doc.text, words) + " it", _phrase(thing)))
            break
        words.append(token)
    if subject is not None and subject.morph.get("Person") != ["1"]:  # "my queries", not "I"
        readings.append(AboutTheAsker(predicate, _phrase(subject)))
    return readings


def wants_a_thing_to_act(unit: Span) -> bool:
    """The asker wants something other than themselves or the one asked to do something
    ("I want Apache to serve two sites", "I would like git to sign every commit"): a goal,
    which a question after it asks the way to, not research the asker asks for ("I need
    help drafting a chapter", "I'd like you to explain how tides work"). Read from the
    parse: the verb's clause has its own subject, or the verb's object is that clause's
    doer ("git … to sign"; "a script to run at 8", which the parser hangs on the object),
    and that is no person of the conversation."""
    head = unit.root
    doers = [grand for c in head.children if c.dep_ == "ccomp"
             for grand in c.children if grand.dep_.startswith("nsubj")]
    to_do = any(c.dep_ == "xcomp" for c in head.children)  # "like git … to sign"
    doers += [thing for thing in head.children if thing.dep_ == "dobj" and (to_do or any(
        c.dep_ in ("relcl", "acl") and _infinitive(c) for c in thing.children))]
    return bool(doers) and not any(d.morph.get("Person") in (["1"], ["2"]) for d in doers)


def _infinitive(verb: Token) -> bool:
    """A verb with its infinitive marker ("to run")."""
    return any(c.dep_ == "aux" and c.tag_ == "TO" for c in verb.children)


def _phrase(token: Token) -> Span:
    """A token with the words that hang on it, from the first after the asker's own ("my",
    "our": a search for "my laptop" finds nothing the laptop does not)."""
    tokens = [t for t in token.subtree if not t.is_punct and not asker_possessive(t)]
    return token.doc[tokens[0].i:tokens[-1].i + 1]


def _first_person(token: Token) -> bool:
    """The person asking, alone or as the owner ("I", "we", "my team", "our website")."""
    return token.morph.get("Person") == ["1"] or any(asker_possessive(c) for c in token.children)


def _names_a_thing(token: Token) -> bool:
    """The token opens the thing a sentence names: a noun phrase, a clause asked about
    ("how X works", "that X is Y") or a third-person pronoun."""
    if token.pos_ == "PRON":
        return token.morph.get("Person") == ["3"] or token.tag_ in WH_TAGS
    return (token.pos_ in ("DET", "NOUN", "PROPN", "NUM") or token.tag_ in WH_TAGS
            or token.dep_ == "mark" or (token.pos_ == "ADJ" and token.dep_ != "acomp"))
