"""A question that asks the same thing of several things at once is several questions.

"What are the investment philosophies of Duan Yongping, Warren Buffett and Charlie
Munger?" asks one attribute of three people: each is researched on its own. "How to set
up replication in PostgreSQL and monitor its lag?" asks how to do two things: each action
is a question of its own, with the words the two share ("How to"). Read from the
coordination in the dependency parse; the text is sliced from the question itself.
"""

from __future__ import annotations

from typing import NamedTuple

from lemminflect import getAllLemmas
from spacy.tokens import Span, Token

from research_studio.understanding.facets import (
    CLAUSE_SUBJECTS,
    PREPOSITION_OBJECTS,
    WH_TAGS,
    conjuncts_in_order,
    inside_relative_clause,
    member_tokens,
    resolve_pronouns,
    text_of,
    verb_form,
    verb_in_number,
)
from research_studio.understanding.parser import contrasting_conjunct, parse
from research_studio.understanding.serial import next_referent, opens_a_question, serial_members

# A question is split over at most this many members: a longer enumeration is a list of
# examples ("such as A, B, C, D, E, F …"), asked about as a whole.
MAX_MEMBERS = 5
# What a subject's last word may be: a noun, or a name the small tagger misreads (as a
# verb: "nginx"; as a foreign word; as an adjective when capitalised: "FastAPI"); not a
# modifier ("state and local governments").
_SUBJECT_ENDS = ("NOUN", "PROPN", "VERB", "X", "NUM")
# Penn tags no word of a subject list has: finite verbs, participles, question and
# relative words (a name the tagger misreads as a verb is read in its base form, "VB").
_CLAUSE_TAGS = ("VBD", "VBZ", "VBP", "VBN", "MD", *WH_TAGS)


class DistributedGroup(NamedTuple):
    """A question as ``prefix`` + one member + ``suffix`` (``members``: each member's
    words)."""

    prefix: str
    members: list[str]
    suffix: str
    # each member's own prefix where its verb agrees with it ("What is the history …",
    # "What are the effects …"); empty: ``prefix`` for all
    prefixes: tuple[str, ...] = ()

    def questions(self) -> list[str]:
        prefixes = self.prefixes or (self.prefix,) * len(self.members)
        return [f"{prefix}{member}{self.suffix}"
                for prefix, member in zip(prefixes, self.members, strict=True)]

    def template(self) -> str:
        """The question with ``{item}`` where a member stands (braces of the text escaped)."""
        def escape(part: str) -> str:
            return part.replace("{", "{{").replace("}", "}}")
        return f"{escape(self.prefix)}{{item}}{escape(self.suffix)}"


def group_around(text: str, span: Span, members: list[Token]) -> DistributedGroup:
    """The span's words before the first member and after the last, around each member's
    own words."""
    first = min(t.idx for t in member_tokens(members[0]))
    last = members[-1].idx + len(members[-1].text)
    return DistributedGroup(prefix=text[span.start_char:first],
                            members=[text_of(text, member_tokens(m)) for m in members],
                            suffix=text[last:span.end_char])


def genitive(preposition: Token) -> bool:
    """English's genitive preposition, "of": what it relates owns what it hangs on."""
    return preposition.lower_ == "of"


def owns_an_attribute(token: Token) -> bool:
    """The noun is the object of "of" on a noun ("the effects of the drought"): it owns
    the attribute that noun names."""
    prep = token.head
    return (token.dep_ == "pobj" and token.pos_ in ("NOUN", "PROPN") and genitive(prep)
            and prep.head.pos_ == "NOUN")


def owned_by_an_earlier_member(member: Token) -> bool:
    """A coordinated noun with a third-person possessive ("… and their typical uses")
    belongs to what came before it, not to the attribute the group shares."""
    return any(c.tag_ == "PRP$" and c.morph.get("Person") == ["3"] for c in member.children)


def own_words(member: Token) -> Span:
    """A coordinated noun's own phrase, without the members coordinated under it."""
    others = {t.i for c in member.children if c.dep_ in ("conj", "cc") for t in c.subtree}
    words = [t for t in member.subtree if t.i not in others and not t.is_punct]
    return member.doc[words[0].i:words[-1].i + 1]


def owned_group(text: str, span: Span) -> DistributedGroup | None:
    """An attribute of something coordinated with what that thing owns asks two things:
    the attribute, and each later member as the thing's. The parse joins either the
    owners ("the main types of [databases and their typical uses]") or the attributes
    ("[the causes of inflation] and [its effects on savings]"); either way the possessive
    stands for the thing the first attribute is "of" ("the typical uses of databases",
    "the effects of inflation on savings"). None for any other group."""
    for token in span:
        owners = owns_an_attribute(token)  # else the attributes are coordinated
        # the owner of the first attribute stands between the attributes, which are then
        # no list by ``conjuncts_in_order``'s reading ("the causes of inflation and …")
        members = conjuncts_in_order(token) if owners \
            else sorted([token, *token.conjuncts], key=lambda t: t.i)
        if (token.dep_ == "conj" or not 2 <= len(members) <= MAX_MEMBERS
                or any(m.i >= span.end for m in members) or inside_relative_clause(token)
                or not all(owned_by_an_earlier_member(m) for m in members[1:])):
            continue
        if owners:
            attribute, owner = token.head.head, own_words(token)
        else:  # the attributes are: the first's owner is the object of its "of"
            attribute = token
            owner = next((own_words(o) for p in token.children if p.dep_ == "prep" and p.lower_ == "of"
                          for o in p.children if owns_an_attribute(o)), None)
            if owner is None:
                continue
        start = span.doc[min(t.i for t in attribute.subtree)]
        asked = text[start.idx:owner.end_char]
        others = [resolve_pronouns(text, own_words(m), owner.text).rstrip(" .?!;:") for m in members[1:]]
        prefix = text[span.start_char:start.idx]
        heads = [attribute, *members[1:]]
        return DistributedGroup(prefix=prefix, members=[asked, *others],
                                suffix=text[own_words(members[-1]).end_char:span.end_char],
                                prefixes=tuple(_agreeing(prefix, span, head) for head in heads))
    return None


def _agreeing(prefix: str, span: Span, head: Token) -> str:
    """The words before a member with their verb agreeing with the member's noun ("What
    is" before "the effects …" is "What are"; "How does" before "the costs" is "How do")."""
    before = span.start_char + len(prefix)
    verb = next((t for t in span if t.pos_ in ("AUX", "VERB") and t.idx < before), None)
    if verb is None:
        return prefix
    word = verb_in_number(verb, plural=head.tag_ in ("NNS", "NNPS"))
    at = verb.idx - span.start_char
    return prefix[:at] + word + prefix[at + len(verb.text):]


def distributed_group(text: str, span: Span) -> DistributedGroup | None:
    """The coordinated nouns whose shared attribute the question asks ("the philosophies
    of A, B and C"): two to ``MAX_MEMBERS`` members listed together as the object of
    "of" (English's genitive preposition: each member owns the attribute) on a noun.
    A group that another preposition relates ("the difference between A and B") or that
    stands inside a relative clause ("the man who wrote A and B") stays whole: None."""
    if any("Cmp" in t.morph.get("Degree") for t in span):  # "Who has more X, A or B?" asks which
        return None
    for token in span:
        if not owns_an_attribute(token) or inside_relative_clause(token):
            continue
        members = conjuncts_in_order(token)
        if (not 2 <= len(members) <= MAX_MEMBERS or any(m.i >= span.end for m in members)
                or any(m.pos_ not in ("NOUN", "PROPN") for m in members)):
            continue
        if any(c.dep_ == "cc" and not c.is_alpha for m in members for c in m.children):
            continue  # "Romeo & Juliet", "Johnson & Johnson": a symbol joins one name
        if any(owned_by_an_earlier_member(m) for m in members[1:]):
            continue  # "the types of databases and their uses": not the types of their uses
        return group_around(text, span, members)
    return None


def preposition_group(text: str, span: Span) -> DistributedGroup | None:
    """Two prepositions joined by a conjunction that share one object ("the arguments for
    and against a basic income", "before and after reunification") ask one question with
    each: the arguments for, the arguments against; the state before, the state after."""
    for first in span:
        second = next((c for c in first.children if c.dep_ == "conj" and c.pos_ == "ADP"), None)
        if second is None or first.pos_ not in ("ADP", "ADV") or second.i >= span.end \
                or any(c.dep_ in PREPOSITION_OBJECTS for c in first.children) \
                or not any(c.dep_ in PREPOSITION_OBJECTS for c in second.children) \
                or any(t.pos_ != "CCONJ" for t in span.doc[first.i + 1:second.i]):
            continue
        return DistributedGroup(prefix=text[span.start_char:first.idx], members=[first.text, second.text],
                                suffix=text[second.idx + len(second.text):span.end_char])
    return None


def _subject_members(subjects: list[Token]) -> list[Span]:
    """The coordinated subject's members, each with all its words; where the parser gives
    the verb several subjects ("When were Harvard, Oxford, and the University of Bologna
    founded?" has two) or reads a member as an apposition, the comma list they stand in."""
    doc = subjects[0].doc
    region = doc[min(t.i for t in subjects[0].subtree):max(t.i for t in subjects[-1].subtree) + 1]
    listed = serial_members(region)
    if len(subjects) >= 2:
        return listed
    spans = []
    for member in conjuncts_in_order(subjects[0]):
        own = _own_words(member, min(t.i for t in member.subtree))
        spans.append(doc[min(t.i for t in own):max(t.i for t in own) + 1])
    return listed if len(listed) > len(spans) else spans


def subject_group(text: str, span: Span) -> list[str]:
    """One question per member of a question's coordinated subject ("When were Harvard,
    Oxford and the University of Bologna founded?" → "When was Harvard founded?" …), the
    verb made to agree with each (lemminflect). Only names, in a question with a question
    word (a yes/no question about "A and B" is mostly about both together), neither
    comparative nor "both A and B", nor a member holding the question word. Empty
    otherwise."""
    if (not any(t.tag_ in WH_TAGS for t in span)
            or any("Cmp" in t.morph.get("Degree") for t in span)):
        return []
    for verb in span:
        subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass") and c.i < span.end]
        if not subjects or inside_relative_clause(verb):
            continue
        members = _subject_members(subjects)
        if (not 2 <= len(members) <= MAX_MEMBERS or any(m.end > span.end for m in members)
                or any(m.root.pos_ != "PROPN" for m in members)):
            continue  # common nouns may share a head ("the design and production phases")
        if any(c.dep_ == "preconj" for m in members for c in m.root.children) or any(
                t.tag_ in WH_TAGS for m in members for t in m):
            return []
        start, end = members[0].start_char, members[-1].end_char
        finite = [t for t in (*(c for c in verb.children if c.dep_ in ("aux", "auxpass")), verb)
                  if t.tag_ in ("VBP", "VBD")]
        questions = []
        for member in members:
            own = text[member.start_char:member.end_char]
            question = text[span.start_char:start] + own + text[end:span.end_char]
            if finite and member.root.tag_ not in ("NNS", "NNPS"):
                at = finite[0].idx - span.start_char
                if finite[0].idx > start:
                    at += len(own) - (end - start)
                agreeing = verb_in_number(finite[0], plural=False)
                question = question[:at] + agreeing + question[at + len(finite[0].text):]
            questions.append(question)
        return questions
    return []


def inverted_subject_group(text: str, span: Span) -> list[str]:
    """One question per member of a list that is the subject after a question's
    auxiliary ("Which license do React, Vue and Svelte use?" → "Which license does React
    use?" …), where the small parser misreads the list (it makes "React" the root and
    "use" a noun). The parser says where the subject ends when the list is read as the
    one word "they": the shortest run after the auxiliary that leaves "Which license do
    they use?" with "they" the subject of the verb that follows it. Empty when the
    question does not open with its question word and an auxiliary, or no such run holds
    two to ``MAX_MEMBERS`` members."""
    doc = span.doc
    if any("Cmp" in t.morph.get("Degree") for t in span):  # "Which is taller, A or B?" asks which
        return []
    asked = next((t for t in span if opens_a_question(t)), None)
    # the first verb after the question word, whatever its tag ("do" is read as the main
    # verb in "Which license do A, B and C use?"): the reading with "they" says whether
    # it is an auxiliary with a subject after it
    aux = next((t for t in span if asked is not None and t.i > asked.i and t.pos_ in ("AUX", "VERB")), None)
    if aux is None or aux.i + 1 >= span.end:
        return []
    first = doc[aux.i + 1]
    joint = next((t for t in doc[first.i + 1:span.end]
                  if t.pos_ == "CCONJ" and t.is_alpha and t.dep_ != "preconj"), None)
    if joint is None or any(_opens_a_clause(t) for t in doc[first.i:joint.i]):
        return []  # "In what city can a person find both A and B?": the subject is "a person"
    found = _subject_run(text, span, aux, doc[first.i:joint.i + 1])
    if found is None:
        return []
    last, read = found
    members = _split_at_commas(doc[first.i:last.i + 1])
    if not 2 <= len(members) <= MAX_MEMBERS or _modifies_a_later_member(members):
        return []
    prefix, suffix = text[span.start_char:first.idx], text[last.idx + len(last.text):span.end_char]
    at = aux.idx - span.start_char
    questions = []
    for member in members:
        verb = aux.text if member.root.tag_ in ("NNS", "NNPS") else verb_in_number(read, plural=False)
        questions.append(prefix[:at] + verb + prefix[at + len(aux.text):]
                         + text[member.start_char:member.end_char] + suffix)
    return questions


def _opens_a_clause(token: Token) -> bool:
    """A word no subject list holds before its conjunction: a finite verb, a participle,
    a question or relative word, an auxiliary, "both" of "both A and B", or a verb with
    a subject of its own ("a person find"; a name the tagger reads as a verb has none)."""
    return token.tag_ in _CLAUSE_TAGS or token.pos_ == "AUX" or token.dep_ == "preconj" or (
        token.pos_ == "VERB" and any(c.dep_ in CLAUSE_SUBJECTS for c in token.children))


def _subject_run(text: str, span: Span, aux: Token, opening: Span) -> tuple[Token, Token] | None:
    """The last word of the shortest run from ``opening`` (the subject's words to its
    first conjunction) that reads as the subject of the verb after it, with the auxiliary
    as then read; None when no run does. A run ends before a clause of its own or a
    punctuation mark, and not on a modifier ("state and local governments")."""
    for last in span.doc[opening.end:span.end - 1]:
        if last.is_punct or last.tag_ in _CLAUSE_TAGS or last.pos_ == "AUX":
            return None  # a clause of its own ("… projects that address X"), not a subject
        if (last.pos_ in _SUBJECT_ENDS or (last.pos_ == "ADJ" and not last.is_lower)) \
                and (read := _read_with_pronoun(text, span, aux, opening[0], last)):
            return last, read
    return None


def _read_with_pronoun(text: str, span: Span, aux: Token, first: Token, last: Token) -> Token | None:
    """The auxiliary ``aux`` as read in the question with "they" in place of ``first`` …
    ``last``, when "they" is then the subject of the verb right after it (adverbs aside),
    ``aux`` is that verb's auxiliary, and the verb is a word LemmInflect knows as one (the
    parser makes a verb of "dynasty" in "Why did they dynasty decline?"); else None."""
    start = first.idx - span.start_char
    question = text[span.start_char:first.idx] + "they" + text[last.idx + len(last.text):span.end_char]
    doc = parse(question, judge_language=False)
    if doc is None:
        return None
    they = next((t for t in doc if t.idx == start), None)
    after = next((t for t in doc if they is not None and t.i > they.i and t.pos_ != "ADV"), None)
    if they is None or after is None or they.dep_ not in ("nsubj", "nsubjpass") \
            or they.head != after or after.pos_ != "VERB" \
            or not getAllLemmas(after.lower_, upos="VERB"):
        return None
    read = next((t for t in doc if t.idx == aux.idx - span.start_char), None)
    return read if read is not None and read.dep_ in ("aux", "auxpass") and read.head == after else None


def _split_at_commas(run: Span) -> list[Span]:
    """A subject list's members: the pieces between its commas and its conjunctions."""
    doc, members, start = run.doc, [], run.start
    marks = [t.i for t in run if t.text == "," or (t.pos_ == "CCONJ" and t.is_alpha)]
    for mark in [*marks, run.end]:
        if mark > start:  # ", and" leaves nothing between the comma and the conjunction
            members.append(doc[start:mark])
        start = mark + 1
    return members


def _modifies_a_later_member(members: list[Span]) -> bool:
    """An earlier member only modifies a later member's noun ("state and local
    governments"): the list is of modifiers sharing a head, not of subjects."""
    return any(member[-1].dep_ in ("compound", "amod", "nmod") and any(
        member[-1].head in later for later in members[k + 1:])
        for k, member in enumerate(members[:-1]))


def _bare_verbs(words: list[Token]) -> list[list[Token]]:
    """An action's words, or the bare verbs they list where the parse read the verbs after
    the first as its objects ("build, tag" of "How do I build, tag and push an image?"): a
    comma follows the first, and each later word, between commas and conjunctions, is a
    word LemmInflect knows as a verb."""
    ordered = sorted(words, key=lambda t: t.i)
    listed = [t for t in ordered[1:] if not (t.is_punct or t.pos_ == "CCONJ")]
    first = ordered[0]
    if first.i + 1 >= len(first.doc) or first.doc[first.i + 1].text != "," or not listed or not all(
            t.is_alpha and getAllLemmas(t.lower_, upos="VERB") for t in listed):
        return [words]
    return [[first], *([t] for t in listed)]


def _names_something(token: Token) -> bool:
    """A word of an action that says what it is done to: a noun, or its object whatever
    its tag: a pronoun ("restore it", which ``resolve_pronouns`` words as what "it" stands
    for) or a name the small tagger reads as a verb ("install nginx")."""
    return token.pos_ in ("NOUN", "PROPN") or token.dep_ in ("dobj", "obj")


def _shared_object(text: str, words: list[list[Token]]) -> str:
    """The last action's object with the space before it (" a web service"), when every
    other action is a verb alone, with its particle at most ("set up"); else empty."""
    if any(t.dep_ != "prt" and t.i != w[0].i for w in words[:-1] for t in w):
        return ""
    last = words[-1]
    verb_words = [t for t in last if t.i == last[0].i or (t.dep_ == "prt" and t.head.i == last[0].i)]
    rest = [t for t in last if t not in verb_words]
    if not rest or not any(t.pos_ in ("NOUN", "PROPN") for t in rest):
        return ""
    end = max(verb_words, key=lambda t: t.i)
    return text[end.idx + len(end.text):rest[-1].idx + len(rest[-1].text)]


def _same_form(verb: Token, conjunct: Token) -> bool:
    """Coordination joins verbs of one form; "to" is written once for all the infinitives
    it opens ("to set up X and monitor Y"), an auxiliary for all its participles."""
    form = verb_form(verb)
    if verb_form(conjunct) == form or (form == "to" and conjunct.tag_ == "VB"):
        return True
    # "are developed and tested": the participles share the auxiliary written once
    return _passive(verb) and conjunct.tag_ == verb.tag_ == "VBN"


def _passive(verb: Token) -> bool:
    return any(c.dep_ == "auxpass" for c in verb.children)


def _shares_its_subject(verb: Token) -> bool:
    """The first action has what its conjuncts share: the "to" of infinitives, or a
    subject written before it that is not the question word ("How can cities reduce X
    and improve Y"). "Who held X and was surpassed by Y?" asks one person under two
    conditions, not two things; a finite verb with no subject is the parser's slip."""
    if verb_form(verb) == "to":
        return True
    subjects = [c for c in verb.children if c.dep_.startswith("nsubj") and c.i < verb.i]
    return bool(subjects) and not any(t.tag_ in WH_TAGS for t in subjects[0].subtree)  # "What film …"


def _own_words(verb: Token, start: int) -> list[Token]:
    """A coordinated word's own words from ``start``, without its conjuncts and what joins
    them to it: an action's ("set up replication"), or a member's ("the University of
    Bologna")."""
    joined = {t.i for c in verb.children if c.dep_ == "conj" for t in c.subtree}
    joined |= {c.i for c in verb.children if c.dep_ in ("cc", "punct") and c.i > verb.i}
    return [t for t in verb.subtree if t.i >= start and t.i not in joined and not t.is_space]


def _joined(action: Token) -> bool:
    """A conjunction or a comma stands before the action's words: the parser also makes a
    conjunct of a clause that nothing joins ("… so apt upgrade won't touch it")."""
    start = action.left_edge.i
    return start > 0 and (action.doc[start - 1].pos_ == "CCONJ" or action.doc[start - 1].is_punct)


def per_action(text: str, span: Span, referent: str = "") -> list[str]:
    """One question per coordinated verb of a question ("How to set up X and monitor its
    lag?" → "How to set up X?", "How to monitor the lag of X?"; "What can I do to reduce X
    and improve Y?"): verbs of one form, neither with a subject or question word of its
    own, outside a relative clause, each with an object of its own, none joined by a
    contrast (``parser.contrasting_conjunct``); the words before the first verb are
    shared. ``referent``: what a pronoun in an action stands for. Empty when the question
    does not coordinate actions."""
    for verb in span:
        if verb.pos_ != "VERB" or inside_relative_clause(verb):
            continue
        # every conjunct, also one the parser hangs on the previous one ("install X, check
        # Y, and run Z")
        actions = [verb, *(c for c in verb.conjuncts if c.i > verb.i and c.pos_ == "VERB"
                           and _same_form(verb, c) and c.i < span.end)]
        if len(actions) < 2 or any(ch.dep_.startswith("nsubj") or ch.tag_ in WH_TAGS
                                   for a in actions[1:] for ch in a.children):
            continue
        if not all(map(_joined, actions[1:])):
            continue  # "pin X so apt upgrade won't touch it": a conjunct without a conjunction
        # "undo the last commit but keep my changes" asks one way to do both: "How do I
        # keep my changes?" alone asks nothing
        if any(contrasting_conjunct(a) for a in actions):
            return []
        if not _shares_its_subject(verb):
            return []
        own = [_own_words(verb, verb.i), *(_own_words(a, min(t.i for t in a.subtree)) for a in actions[1:])]
        words = [piece for w in own for piece in _bare_verbs(w)]
        prefix = text[span.start_char:verb.idx]
        # a passive's subject is what each action is done to ("How are vaccines developed
        # and tested?")
        if not _passive(verb) and any(not any(_names_something(t) for t in w) for w in words):
            # "How should a team deploy, monitor and roll back a service?": the last
            # action's object is every bare action's
            shared = _shared_object(text, words)
            return [prefix + text_of(text, w) + shared for w in words[:-1]] + [
                prefix + text_of(text, words[-1])] if shared else []
        questions = []
        for w in words:
            action = span.doc[w[0].i:w[-1].i + 1]
            questions.append(prefix + resolve_pronouns(text, action, referent))
            referent = next_referent(action, referent)  # "create a tag, sign it …"
        return questions
    return []
