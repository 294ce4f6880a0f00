"""The parts of a question, read from the dependency parse: compared items, facets,
stated positions, the topic, and the names it gives.

Everything here is structure (coordination, clause boundaries, subjects, morphology):
no English word lists. Text is always sliced from the question by character offsets, so
what comes back is the person's own wording.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

from lemminflect import getInflection
from spacy.tokens import Doc, Span, Token

from research_studio.knowledge.lexical import tokenize
from research_studio.understanding.names import names_in_doc
from research_studio.understanding.parser import FUNCTION_POS, parse_batch

WH_TAGS = ("WP", "WDT", "WRB", "WP$")  # Penn tags of wh-words: question and relative words
# Dependencies (spaCy's English labels) of a preposition's object, a noun or a gerund's
# clause ("… of using Docker in production"), and of a clause's own subject
PREPOSITION_OBJECTS = ("pobj", "pcomp")
CLAUSE_SUBJECTS = ("nsubj", "nsubjpass", "csubj")
# the most words a label before a colon has ("Research Topic:", "Objective:", "Scope and aims:")
MAX_LABEL_WORDS = 4
# the most words an option of "A vs B vs C" has ("the University of Bologna", "yarn install
# --frozen-lockfile"): a longer piece means the word is not setting names against each other
MAX_NAME_WORDS = 5
_NOMINAL = ("NOUN", "PROPN")
# What the small tagger makes of a name it does not know: a verb ("git merge"), an
# adjective, a foreign word; never a pronoun or a determiner
_MISREAD_NAME = ("VERB", "ADJ", "X")
_PARTICIPLES = ("VBG", "VBN")
_QUOTES = (("'", "'"), ('"', '"'), ("\u201c", "\u201d"), ("\u2018", "\u2019"))
# what a verb that states a position holds: an object, a clause, an attribute
_STATED = ("dobj", "ccomp", "attr", "oprd", "npadvmod")
# clauses that hang on a noun or complete a verb ("a report analysing X", "help drafting X")
_CLAUSE_MODIFIERS = ("acl", "relcl", "advcl", "xcomp")
# What introduces a list and ends the one before it: a colon, or a dash set off by spaces
# ("the Marshall Plan — its goals, …")
LIST_INTRODUCERS = (":", "\u2014", "\u2013")
_LEFT_MODIFIERS = ("compound", "amod", "nmod", "nummod", "npadvmod", "punct", "poss", "case")


def inside_relative_clause(token: Token) -> bool:
    """The token is in a clause that describes a noun ("a file *that is committed*", "the
    actor *playing* Bart"): a wh-word there asks nothing, a verb there is not the sentence's."""
    return any(t.dep_ in ("relcl", "acl") for t in (token, *token.ancestors))


def text_of(text: str, tokens: list[Token]) -> str:
    """The question's own characters from the first to the last of ``tokens``."""
    if not tokens:
        return ""
    first, last = min(tokens, key=lambda t: t.i), max(tokens, key=lambda t: t.i)
    return text[first.idx:last.idx + len(last.text)].strip(" ,;:")


def as_question(phrase: str) -> str:
    """A phrase as a question of its own: one line, capitalised, closed by "?"."""
    phrase = clean_phrase(phrase)
    return phrase[:1].upper() + phrase[1:] + "?" if phrase else ""


def clean_phrase(phrase: str) -> str:
    """One line, no closing punctuation, no bracket or quotation left open by a cut."""
    phrase = " ".join(phrase.split()).rstrip(" .?!;:,")
    while phrase.count("(") > phrase.count(")"):
        phrase = phrase[:phrase.rindex("(")].rstrip(" .?!;:,")
    for opening, closing in _QUOTES:
        opened = [k for k, ch in enumerate(phrase) if ch == opening and (k == 0 or phrase[k - 1] == " ")
                  and phrase[k + 1:k + 2].isalnum()]
        # a closing mark follows a word or a quotation closed inside it ("… run 'dpkg -a'\"")
        closed = [k for k, ch in enumerate(phrase) if ch == closing and k
                  and (phrase[k - 1].isalnum() or phrase[k - 1] in "'\u2019.!?)")
                  and not phrase[k + 1:k + 2].isalnum()]
        if len(opened) > len(closed):  # "a 'New Paradigm of …" cut before its closing quote
            k = opened[-1]
            phrase = phrase[:k] + phrase[k + 1:]
    return phrase


def member_tokens(member: Token) -> list[Token]:
    """A coordinated noun with its own modifiers, without the conjuncts hanging on it."""
    return [member, *(t for t in _own_words(member)[1:] if t.dep_ not in ("conj", "cc"))]


def _own_words(token: Token) -> list[Token]:
    """A noun with the modifiers written before it ("BRIN indexes", "B-tree") and a number
    right after it, which names its version or model ("iPhone 15", "Python 3"), or a
    number word written as part of its name ("Capture One", whatever the parse hangs it as)."""
    out = [token]
    for child in token.lefts:
        # not a preposition the parse hangs on it ("A vs B vs C": the second "vs")
        if child.dep_ in _LEFT_MODIFIERS and child.dep_ not in ("punct", "case", "poss") \
                and child.pos_ != "ADP":
            out += [t for t in child.subtree]
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if following is not None and following.head == token and (
            following.dep_ == "nummod" or (following.pos_ == "NUM" and following.text[:1].isupper())):
        out.append(following)
    return out


def _conjuncts(token: Token) -> list[Token]:
    return [token, *token.conjuncts] if token.conjuncts else [token]


def conjuncts_in_order(token: Token) -> list[Token]:
    """The token and its conjuncts written as one list with it, in text order (a colon
    ends a list: "Rust: ownership, borrowing and lifetimes" lists Rust's aspects, and the
    parser may coordinate Rust with them)."""
    members = sorted(_conjuncts(token), key=lambda t: t.i)
    colons = [t.i for t in token.doc[members[0].i:members[-1].i] if t.text in LIST_INTRODUCERS]
    before = [i for i in colons if i < token.i]
    after = [i for i in colons if i > token.i]
    start, end = (before[-1] if before else -1), (after[0] if after else len(token.doc))
    return _listed_together([m for m in members if start < m.i < end])


def introduced_by(members: list[Token]) -> Token | None:
    """The noun a list is introduced by with a colon ("PostgreSQL: its architecture, its
    query planner and its replication options"): the list names its aspects. None when no
    colon stands right before the first member's phrase."""
    first = members[0]
    start = min([t.i for t in _own_words(first)] + [c.i for c in first.children
                                                      if c.dep_ in ("det", "poss") and c.i < first.i])
    if start < 2 or first.doc[start - 1].text not in LIST_INTRODUCERS:
        return None
    owner = first.doc[start - 2]
    # aspects are common nouns; names after a colon are the items asked about ("Which
    # novelist wrote under the pen name X: A or B?")
    aspects = all(m.pos_ == "NOUN" for m in members)
    return owner if owner.pos_ in _NOMINAL and aspects else None


# ---- coordinated groups: compared items or nominal facets --------------------------
def coordinated_groups(doc: Doc) -> list[list[Token]]:
    """Groups of two or more coordinated nouns ("React, Vue and Angular"; "the causes,
    effects and solutions")."""
    groups: list[list[Token]] = []
    seen: set[int] = set()
    for token in doc:
        if token.i in seen or (token.pos_ not in _NOMINAL and token.dep_ not in ("dobj", "pobj", "nsubj")):
            continue
        members = conjuncts_in_order(token)
        # a member with a subject of its own is a clause ("how MVCC works"), not a thing
        if len(members) >= 2 and not any(c.dep_.startswith("nsubj") and c.pos_ in (*_NOMINAL, "PRON")
                                         for m in members for c in m.children):
            seen.update(t.i for t in members)
            groups.append(members)
    return groups


def modifier_groups(doc: Doc) -> list[list[Token]]:
    """Groups of two or more coordinated adjectives before one noun ("electric and hybrid
    cars", "the French and American revolutions"), which ``coordinated_groups`` leaves
    out: each names a kind of that noun."""
    return [members for token in doc if token.pos_ == "ADJ" and token.dep_ == "amod"
            and len(members := conjuncts_in_order(token)) >= 2 and shared_head(members) is not None]


def shared_head(group: list[Token]) -> Token | None:
    """The noun every member of the group modifies, written right after the last member
    ("cars" of "electric and hybrid cars", "governments" of "state and local governments");
    None when the first member has words of its own ("git merge and git rebase" names two
    commands), is a name, or the members are not modifiers."""
    first, last = group[0], group[-1]
    head = first.head
    # names are items as they stand ("both the Lithocarpus and Duranta species")
    if first.dep_ not in ("amod", "nmod", "compound") or first.pos_ == "PROPN" \
            or head.pos_ not in _NOMINAL or head.i != last.i + 1:
        return None
    own = {t.i for t in hyphenated_word(first)}  # "client-" of "client-side" is the member itself
    if any(c.dep_ not in ("cc", "conj", "punct", "det") and c.i not in own for c in first.children):
        return None
    return head


def _listed_together(members: list[Token]) -> list[Token]:
    """The members written as one list: between two of them stand only commas, a
    conjunction and the next member's own modifiers and determiner ("a Roth IRA and a
    traditional IRA", "its architecture and its scheduling model"). The small parser
    sometimes hangs a later noun on the last item ("React, Vue, and Angular for building
    … applications")."""
    loose = _listed(members, determiners=True)
    # a determiner may open a member of one plain list: not a member described by a clause
    # of its own ("both X and the team that Y is on": a chain), not a list whose
    # conjunctions differ ("Edward Sharpe and the Magnetic Zeros or Louis XIV": a name in it)
    doc = members[0].doc
    conjunctions = {t.lower_ for t in doc[loose[0].i:loose[-1].i] if t.pos_ == "CCONJ"}
    if len(conjunctions) > 1 or any(c.dep_ in ("relcl", "acl") for m in loose for c in m.children):
        return _listed(members, determiners=False)
    return loose


def _listed(members: list[Token], determiners: bool) -> list[Token]:
    kept = [members[0]]
    for member in members[1:]:
        start = min(t.i for t in _own_words(member))
        between = member.doc[max(t.i for t in _own_words(kept[-1])) + 1:start]
        if not len(between) and len(kept) > 1:
            # nothing separates them: one member the parser cut in two ("… and git
            # cherry-pick" read as "git" and "cherry-pick"); its phrase takes both
            kept[-1] = member
            continue
        if any(t.pos_ not in ("PUNCT", "CCONJ")
               and not (determiners and t.head == member and t.dep_ in ("det", "poss"))
               for t in between):
            break
        kept.append(member)
    return kept


def member_phrases(text: str, members: list[Token]) -> list[str]:
    """Each member with its own modifiers; a head noun that the last member shares
    ("B-tree, GIN and BRIN indexes") is not repeated on the others. A member also takes
    the nouns written right before its phrase that the parse hung elsewhere ("Compare git
    merge, …": "git" read as the verb's object, "merge" as another word). A member that is
    an adjective alone takes the noun the last member names ("a soft and a hard link":
    "soft link"; "soft" alone names nothing to research)."""
    phrases = _member_words(members)
    # the words after the last member's own adjective: the noun it and the adjective
    # members share ("disk quota limit" of "a hard disk quota limit"); none without one
    last_adjective = max((t.i for t in phrases[-1] if t.pos_ == "ADJ"), default=None)
    shared = [] if last_adjective is None else [t for t in phrases[-1] if t.i > last_adjective]
    return [f"{text_of(text, phrase)} {text_of(text, shared)}" if shared and _adjective_alone(phrase)
            else text_of(text, phrase) for phrase in phrases]


def _adjective_alone(phrase: list[Token]) -> bool:
    """Adjectives (and their determiners) without a noun: "a soft" of "a soft and a hard link"."""
    return any(t.pos_ == "ADJ" for t in phrase) and all(t.pos_ in ("ADJ", "DET", "ADV") for t in phrase)


def _member_words(members: list[Token]) -> list[list[Token]]:
    """Each member's words (``member_phrases``)."""
    phrases = [_own_words(m) for m in members]
    taken = {t.i for phrase in phrases for t in phrase}
    for member, phrase in zip(members, phrases, strict=True):
        first = min(t.i for t in phrase)
        # not a noun the member hangs from ("the drinks Gibson and …" names what they are)
        while first > 0 and (before := member.doc[first - 1]).i not in taken \
                and before.pos_ in ("NOUN", "PROPN", "ADJ") and before not in member.ancestors:
            phrase.append(before)
            taken.add(before.i)
            first -= 1
    for position, phrase in enumerate(phrases):  # "git fetch and git pull": "pull" hung elsewhere
        after = _parallel_word_after(position, phrases, taken)
        if after is not None:
            phrase.append(after)
            taken.add(after.i)
    for phrase in phrases:  # a word is never cut at its hyphen ("row-level", "cherry-pick")
        edges = (min(phrase, key=lambda t: t.i), max(phrase, key=lambda t: t.i))
        for token in (t for edge in edges for t in hyphenated_word(edge) if t.i not in taken):
            phrase.append(token)
            taken.add(token.i)
    return phrases


def hyphenated_word(token: Token) -> Span:
    """The written word a token is part of where hyphens join tokens with no space between
    ("row-level" is "row", "-", "level" to the tokenizer); the token alone otherwise."""
    doc = token.doc
    start = end = token.i
    while start > 0 and not doc[start - 1].whitespace_ \
            and (_is_hyphen(doc[start - 1]) or _is_hyphen(doc[start])):
        start -= 1
    while end + 1 < len(doc) and not doc[end].whitespace_ \
            and (_is_hyphen(doc[end]) or _is_hyphen(doc[end + 1])):
        end += 1
    return doc[start:end + 1]


def _is_hyphen(token: Token) -> bool:
    """A hyphen by its tag, or by its character (Unicode's dash punctuation) where the small
    model tagged it otherwise ("non-free": "-" read as an adjective)."""
    return token.tag_ == "HYPH" or (len(token.text) == 1
                                    and unicodedata.category(token.text) == "Pd")


def _parallel_word_after(position: int, phrases: list[list[Token]], taken: set[int]) -> Token | None:
    """The word right after member ``position`` when it is written as the start of another member
    ("git" of "git fetch and git pull"), or as the whole of an earlier one ("VACUUM and
    VACUUM FULL" compares two things): the member's next word, which the parse hung
    elsewhere; None for a member that is neither, or a function word after it."""
    def words_of(tokens: list[Token]) -> list[str]:
        return [t.lower_ for t in sorted(tokens, key=lambda t: t.i)]

    phrase = phrases[position]
    words = words_of(phrase)
    parallel = any(len(other) > len(phrase) and words_of(other)[:len(words)] == words
                   for other in phrases if other is not phrase) \
        or any(words_of(other) == words for other in phrases[:position])
    doc = phrase[0].doc
    end = max(t.i for t in phrase) + 1
    if not parallel or end >= len(doc) or end in taken:
        return None
    after = doc[end]
    return after if after.is_alpha and after.pos_ not in FUNCTION_POS else None


# The preposition that sets one thing against another ("A vs B", "A versus B"). The small
# model tags it a preposition but hangs the phrases around it anywhere ("cast iron vs
# carbon steel vs stainless steel pans" made "cast" the verb, "VACUUM vs VACUUM FULL" made
# "FULL" a clause), so the phrases it joins are read from the words, not from the tree.
SETS_AGAINST = frozenset({"vs", "vs.", "versus"})
# Parts of speech that end a phrase set against another: it names a thing, so a
# preposition ("… vs C for a home server"), a conjunction, a pronoun or an auxiliary
# begins what is said of the things
_ENDS_A_PIECE = ("ADP", "AUX", "PRON", "SCONJ", "CCONJ", "PART")


def versus_pieces(doc: Doc) -> list[Span]:
    """The phrases an "A vs B (vs C)" that opens a sentence sets against each other, in
    text order: the first from the sentence's start (after an imperative's verb: "Compare
    A vs B"), each later one to the next "vs", the last to punctuation or a word that
    begins what is said of them ("…, which should I use", "… for a home server"). Read
    from the words, whatever the parse makes of them; a word of code counts as a word
    ("dpkg -r vs dpkg --purge"). Empty when no sentence opens so, when a phrase is longer
    than a name (``MAX_NAME_WORDS``) or when two are the same ("Kramer vs. Kramer" names
    one film)."""
    for sentence in doc.sents:
        cuts = [t.i for t in sentence if t.lower_ in SETS_AGAINST]
        if not cuts:
            continue
        start = sentence.start
        if doc[start].tag_ == "VB" and start + 1 < cuts[0]:  # "Compare A vs B"
            start += 1
        end = cuts[-1] + 1
        while end < sentence.end and _names_on(doc[end]):
            end += 1
        pieces = [doc[a + 1:b] for a, b in itertools.pairwise([start - 1, *cuts, end])]
        if all(0 < len(p) <= MAX_NAME_WORDS and all(map(_names_on, p)) for p in pieces) \
                and len({p.text.lower() for p in pieces}) == len(pieces):
            return pieces
        return []
    return []


def asked_after_pieces(pieces: Sequence[Span]) -> Token | None:
    """The question word right after the phrases an "A vs B" sets against each other and
    a punctuation mark ("git merge vs git rebase, which should I use …", "dpkg -r vs dpkg
    --purge, what's the difference"): a question asked of them, not more of their names."""
    doc, end = pieces[-1].doc, pieces[-1].end
    if end + 1 < len(doc) and doc[end].is_punct and doc[end + 1].tag_ in WH_TAGS:
        return doc[end + 1]
    return None


def said_of_pieces(text: str, pieces: Sequence[Span]) -> str:
    """What the words right after an "A vs B" say of the things it sets against each other,
    to the next punctuation mark ("… for a home server", "… when copying large folders"),
    with its leading space as ``purpose_phrase`` gives it; empty after punctuation (a
    question asked of them) or at the end."""
    doc, end = pieces[-1].doc, pieces[-1].end
    if end >= len(doc) or not _a_word(doc[end]):
        return ""
    stop = next((t.i for t in doc[end:] if _ends_a_phrase(t)), len(doc))
    return " " + text_of(text, list(doc[end:stop]))


def _a_word(token: Token) -> bool:
    """A word or a word of code ("-r", "--purge", "pg_dump"), not punctuation."""
    return any(ch.isalnum() for ch in token.text)


def _names_on(token: Token) -> bool:
    """The token can go on in a phrase that names a thing (a word of code included)."""
    return _a_word(token) and token.pos_ not in _ENDS_A_PIECE and token.tag_ not in WH_TAGS


def contrasted_pair(doc: Doc, opening_only: bool = False) -> list[Token]:
    """The two things a comparison sets against each other with a preposition rather than
    a conjunction: the subject of the sentence's verb and the object of the preposition
    right after it ("How does A differ from B?"), or the phrase that opens the sentence and
    the object of the preposition right after it ("A vs. B for X?", "git merge vs git
    rebase: which one …?", "A versus B — when should I use each?"), with the objects of
    the same preposition written again ("A vs B vs C"). Empty when there is no such pair.
    ``opening_only``: only the phrase that opens the sentence ("A vs. B: which should I
    pick?" weighs two options; "Does coffee improve with age?" sets nothing against
    coffee)."""
    sentence = next(iter(doc.sents))
    root = sentence.root
    subjects = [c for c in root.children if c.dep_.startswith("nsubj")]
    # the preposition right after the verb ("differ from"), or after the head of the phrase
    # that opens the sentence, wherever the parse hangs that phrase ("A vs. B"); "Which X
    # are best for Y?" rates, it does not set one thing against another
    # "git reset vs …": a name the parse reads as a subject and its verb (a verb in its
    # base or plural present form after a subject, with no auxiliary, opening the sentence)
    named = bool(subjects) and root.tag_ in ("VB", "VBP") and subjects[0].i == root.i - 1 \
        and subjects[0].left_edge.i == sentence.start and not any(c.dep_ == "aux" for c in root.children)
    heads = [] if root.pos_ == "AUX" or opening_only or named else \
        [subjects[0], root] if subjects else [root]
    heads += [t for t in sentence if t.left_edge.i == sentence.start and t not in heads
              and (t != root or opening_only or named) and not (named and t in subjects)]
    for head in heads:
        verb = root if head in subjects else head
        prep = next((c for c in verb.children if c.dep_ == "prep" and c.i == verb.i + 1), None)
        if prep is None:
            # "git stash pop vs git stash apply": the parse reads the second name as the
            # verb and leaves the preposition after the first without an object; the pieces
            # it cuts are the pair
            stranded = next((c for c in head.children if c.dep_ == "prep" and c.i == head.i + 1
                             and not any(c.children)), None) if head in subjects else None
            if stranded is not None and (pieces := _pieces_between(sentence, stranded, 1)):
                return pieces
            continue
        others = [t for t in _set_against(verb, prep.lower_) if _nominal(t)]
        # a head that is no noun is a name the tagger misread only where its phrase opens
        # the sentence ("React vs Vue", "git merge vs …"); "How does git merge differ from
        # …" has no subject the parse found; a preposition the parse makes of a participle
        # ("According to the handbook, …") names nothing
        headed = head.pos_ in _NOMINAL or (head.pos_ in _MISREAD_NAME and head.dep_ != "prep" and (
            _opens_the_sentence(head) or (named and head == root)))
        # the first object is the preposition's own ("A vs B"), not one found further on
        if others and others[0].i == min((c.i for c in prep.children), default=-1) and headed:
            return _pieces_between(sentence, prep) or [head, *others]
    return []


def _pieces_between(sentence: Span, prep: Token, fewest_cuts: int = 2) -> list[Token]:
    """The head of each phrase of an opening "A vs B vs C" (to a colon, a dash, another
    preposition or the sentence's end) cut at every occurrence of the preposition's word,
    whatever the tagger makes of the later ones ("git fetch vs git pull vs git clone:
    …"); empty unless the word occurs ``fewest_cuts`` times or more and every piece is a
    short phrase."""
    doc = sentence.doc
    end = next((t.i for t in sentence if t.i > prep.i and t.text in LIST_INTRODUCERS), sentence.end)
    cuts = [t.i for t in doc[sentence.start:end] if t.lower_ == prep.lower_]
    if len(cuts) < fewest_cuts:
        return []
    heads = []
    for start, stop in itertools.pairwise([sentence.start - 1, *cuts, end]):
        # a piece ends where a phrase of another preposition opens ("… vs C for a home server")
        stop = next((t.i for t in doc[start + 1:stop] if t.pos_ == "ADP" and t.dep_ == "prep"), stop)
        words = [t for t in doc[start + 1:stop] if not t.is_punct]
        if not words or len(words) > MAX_NAME_WORDS:
            return []
        heads.append(words[-1])
    return heads


def _set_against(holder: Token, preposition: str) -> list[Token]:
    """The objects of ``preposition`` on ``holder``, and of the same preposition on each
    of them ("A vs B vs C", where the parse hangs "vs C" on B or on A), in text order."""
    found = []
    for prep in holder.children:
        if prep.dep_ == "prep" and prep.lower_ == preposition:
            for obj in _objects_of(prep):
                found += [obj, *_set_against(obj, preposition)]
    return sorted(found, key=lambda t: t.i)


def _objects_of(prep: Token) -> list[Token]:
    """A preposition's objects; without one, an adjective alone in its place, used as a
    noun ("differ from solar": the small model hangs "solar" on the preposition as a
    modifier of nothing)."""
    objects = [c for c in prep.children if c.dep_ == "pobj"]
    return objects or [c for c in prep.children
                       if c.dep_ == "amod" and c.pos_ == "ADJ" and not any(c.children)]


def _nominal(token: Token) -> bool:
    """A noun, or a name the tagger reads as a number ("MySQL" after "vs"), or an
    adjective used as a noun as a preposition's object (``_objects_of``)."""
    return token.pos_ in _NOMINAL or (token.pos_ == "NUM" and any(ch.isalpha() for ch in token.text)) \
        or (token.dep_ == "amod" and token.head.pos_ == "ADP")


def _opens_the_sentence(head: Token) -> bool:
    """The sentence opens with the head, or with words that modify it as a name's parts
    ("git merge", "the docker exec"): a phrase, not a clause the head governs."""
    opening = head.doc[head.sent.start:head.i]
    return all(t.head == head and t.dep_ in ("compound", "amod", "det", "nmod") for t in opening)


def disjunction(token: Token) -> bool:
    """The conjunction that offers alternatives ("A or B"), not one that adds ("A and B")."""
    return token.pos_ == "CCONJ" and token.lower_ == "or"


def plural(noun: Token) -> bool:
    """A noun is plural when it is written as its lemma's plural (LemmInflect), also when
    the tagger reads it as a verb ("common failure modes")."""
    if noun.tag_ in ("NNS", "NNPS"):
        return True
    forms = getInflection(noun.lemma_, tag="NNS") if noun.tag_ in ("VBZ", "NN", "NNP") else None
    return bool(forms) and noun.text.lower() == forms[0].lower() and noun.text.lower() != noun.lemma_.lower()


def personal(tokens: list[Token] | Span) -> bool:
    """The phrase belongs to the person asking or the reader ("my research area", "our
    daily dietary choices", "your analysis"): first or second person, by morphology."""
    return any(t.morph.get("Person") in (["1"], ["2"]) for t in tokens)


def asker_possessive(token: Token) -> bool:
    """The asker's own "my", "our" before a noun (first person, by morphology)."""
    return token.dep_ == "poss" and token.morph.get("Person") == ["1"]


def shared_object(text: str, members: list[Token]) -> tuple[str, str]:
    """The preposition and object the group shares ("… and solutions to climate change"
    → ("to", "climate change")), attached to a member or to the word that governs it."""
    holders = [*members, members[0].head]
    # the phrases after the group, wherever the parser hangs them ("the causes and effects
    # of inflation in Argentina" may hang "in Argentina" on "causes"): the first gives the
    # preposition, all of them the object
    # the object may be a gerund's clause ("… of using Docker in production")
    preps = sorted((c for holder in holders for c in holder.rights if c.dep_ == "prep"
                    and c.i > members[-1].i - 1 and any(o.dep_ in PREPOSITION_OBJECTS for o in c.children)),
                   key=lambda t: t.i)
    if not preps:
        return "", ""
    first = preps[0]
    objects = [c for c in first.children if c.dep_ in PREPOSITION_OBJECTS]
    if personal(list(objects[0].subtree)):  # "my research area" names nothing
        return "", ""
    start = min(t.i for t in objects[0].subtree)
    end = max(t.i for p in preps for t in p.subtree)
    return first.lower_, text_of(text, list(members[0].doc[start:end + 1]))


def purpose_phrase(text: str, doc: Doc, group: list[Token]) -> str:
    """The phrase an instruction adds after the compared group ("… for building web
    applications"): a prepositional phrase right after the group, attached to the verb
    that governs it or to a member, read to the end of its clause (the small parser does
    not always attach the whole phrase to one word)."""
    verb = group[0].head
    if group[0].dep_ == "pobj" and verb.dep_ == "prep":  # "choose between A and B for X"
        verb = verb.head
    after = max(t.i for t in _own_words(group[-1])) + 1
    verbless = group[0].dep_ == "ROOT"  # a query typed without a verb: "A or B for X?"
    if (verb.pos_ not in ("VERB", "AUX") and not verbless) or after >= len(doc):
        return ""
    # the phrase hangs on the verb or a member, or on the adjective that judges the members
    # ("Is A or B better for X?"); a phrase on an auxiliary is an attribute ("Were A and B
    # of the same nationality?")
    holders = [verb, *group] if verb.pos_ == "VERB" else list(group) if verbless else []
    if doc[after].dep_ in ("acomp", "advmod") and doc[after].head == verb and after + 1 < len(doc):
        holders.append(doc[after])
        after += 1
    child = doc[after]
    if child.dep_ == "prep" and child.head in holders:
        end = next((t.i for t in doc[child.i:] if _ends_a_phrase(t)), len(doc))
        return " " + text_of(text, list(doc[child.i:end]))
    return ""


def _ends_a_phrase(token: Token) -> bool:
    """Punctuation, but not a word's hyphen or slash ("first-line", "TCP/IP"); a hyphen
    with a space on each side is a dash ("… in httpd.conf - when to use which")."""
    if not token.is_punct:
        return False
    set_off = token.i > 0 and bool(token.whitespace_) and bool(token.doc[token.i - 1].whitespace_)
    return token.text not in "-/" or set_off


def asked_after(group: list[Token]) -> Token | None:
    """The question word of a question asked after the group and a colon or dash ("A vs
    B: which should I use …?"), or a comma where no verb governs the group ("A or B for
    X, which is better?"); not a relative word, nor one that names an attribute ("bred for
    what activity?")."""
    doc = group[-1].doc
    introducers = (*LIST_INTRODUCERS, ",") if group[0].dep_ == "ROOT" else LIST_INTRODUCERS
    return next((t for t in doc[group[-1].i + 2:] if t.tag_ in WH_TAGS
                 and (t.dep_ != "det" or t.head.pos_ == "PRON")  # "which one"
                 and doc[t.i - 1].text in introducers), None)


def dimension_words(text: str, doc: Doc, group: list[Token], purpose: str,
                    stop: int | None = None) -> list[str]:
    """Attributes the question names for a comparison ("in terms of cost and care", "of
    the same nationality"): nouns after the group, outside its purpose phrase and before
    a question asked after it (``stop``, where a later question begins: "…, and which
    should I use on a shared branch?" compares nothing "in branch"), in the clause that
    compares the group: a noun of a clause of its own says what the items are for or
    asks something else ("… to include a library", "… for finding which package owns a
    file", "…, what actually happens in each case")."""
    grouped = {t.i for phrase in _member_words(group) for t in phrase}
    purpose_start = text.find(purpose.strip()) if purpose else -1
    asked = asked_after(group)  # "A vs B: which should I use to undo a commit?" asks its own question
    comparing = _clause_of(group[0])
    dims = []
    for token in doc:
        if (purpose_start >= 0 and token.idx >= purpose_start) or token == asked or (
                stop is not None and token.i >= stop):
            break
        if (token.pos_ == "NOUN" and token.i not in grouped and token.i > group[0].i
                and token.dep_ in ("pobj", "conj", "dobj", "attr")
                and token.head.i not in grouped and _clause_of(token) == comparing):
            dims.append(token.text)
    return list(dict.fromkeys(dims))


def verb_of(token: Token) -> Token | None:
    """The verb whose clause holds the word: its nearest verbal ancestor; None when none is
    (a question typed without a verb)."""
    return next((a for a in token.ancestors if a.pos_ in ("VERB", "AUX")), None)


def _clause_of(token: Token) -> Token:
    """The verb whose clause holds the word (``verb_of``), or the sentence's root."""
    return verb_of(token) or token.sent.root


def compared_in_clause(group: list[Token], stop: int | None = None) -> Span | None:
    """A question clause that says in what the items are compared ("… differ in how they
    explain inflation", "the differences between A and B in what they eat"): the object of
    a preposition after the group, before ``stop``; None for a clause about the asker
    ("… for how long I plan to keep it" says what the comparison is for)."""
    doc = group[0].doc
    for preposition in doc[max(m.i for m in group) + 1:len(doc) if stop is None else stop]:
        clause = next((c for c in preposition.children if c.dep_ == "pcomp"), None)
        if preposition.pos_ != "ADP" or clause is None or clause.left_edge.i != preposition.i + 1 \
                or clause.left_edge.tag_ not in WH_TAGS:
            continue
        subjects = [c for c in clause.children if c.dep_ in CLAUSE_SUBJECTS]
        return None if personal(subjects) else doc[preposition.i + 1:clause.right_edge.i + 1]
    return None


# ---- clause facets: several questions in one ---------------------------------------
def _own_opening(asking: Token, since: int) -> Token:
    """The first word of the question a question word asks: words right before it that
    its clause holds belong to it, back to the conjunction that joins it to the one
    before ("…, and if not, what are the alternatives?" opens at "if"), from after
    ``since``; the question word itself when none do."""
    doc = asking.doc
    clause = {t.i for t in asking.head.subtree} if asking.head != asking else {asking.i}
    first = asking.i
    while first - 1 > since and first - 1 in clause and doc[first - 1].pos_ != "CCONJ":
        first -= 1
    if doc[first - 1].pos_ != "CCONJ":  # no conjunction bounds them: the parse's clause is unsure
        return asking
    while first < asking.i and doc[first].is_punct:  # the comma after the conjunction
        first += 1
    return doc[first]


def clause_segments(doc: Doc, nested_at: set[int] = frozenset()) -> list[Span]:
    """The questions a text asks one after another ("What does VACUUM do, why is it
    needed, and how does autovacuum decide when to run?"): a new one opens at a sentence
    start or at a question word that follows a comma, colon or conjunction and does not
    open a relative clause (``nested_at``: where relative clauses open, by the end offset
    of their relative word); after a label's colon or dash, at every question word of the
    list that follows ("docker volumes: where they live, who owns them and what …")."""
    starts = []
    listed = False  # inside questions listed after a label ("docker volumes: where they live, who …")
    for token in doc:
        if token.is_sent_start:
            starts.append(token.i)
            listed = False
            continue
        previous = doc[token.i - 1]
        coordinated = token.i > 1 and previous.pos_ == "CCONJ" and doc[token.i - 2].tag_ in WH_TAGS
        if token.tag_ in WH_TAGS and previous.text in LIST_INTRODUCERS:
            # no relative clause opens after a colon or dash: the parse's "relcl" is a slip;
            # after a label, every question word of the list opens a question
            listed = _a_label(doc[starts[-1]:previous.i])
            starts.append(token.i)
            continue
        opening = _own_opening(token, starts[-1]) if token.tag_ in WH_TAGS else token
        previous = doc[opening.i - 1] if opening.i else previous
        if (token.tag_ in WH_TAGS and previous.pos_ in ("PUNCT", "CCONJ") and not coordinated
                and previous.text not in ("(", "\"")
                and (listed or (token.head.dep_ not in ("relcl", "acl")
                                and token.idx + len(token.text) not in nested_at
                                and has_main_verb(doc[starts[-1]:opening.i])
                                and not introduces(doc[starts[-1]:previous.i])))):
            starts.append(previous.i if previous.pos_ == "CCONJ" else opening.i)
        elif previous.pos_ == "CCONJ" and _inverted(token) and (
                has_main_verb(doc[starts[-1]:previous.i]) or doc[starts[-1]].tag_ in WH_TAGS):
            # "How do X work, and can they slow down queries?"; a question opened at its
            # question word has a clause of its own, whatever the parse hangs it on ("…,
            # where do they come from, and are they harmful?": read as a relative clause)
            starts.append(previous.i)
    starts = sorted(set(starts))
    spans = []
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(doc)
        span = _without_label(doc[start:end])
        while len(span) and (span[0].pos_ in ("CCONJ", "PUNCT") or _connective(span)):
            span = span[1:]
        while len(span) and (span[-1].pos_ in ("CCONJ", "PUNCT")):
            span = span[:-1]
        if any(t.pos_ in ("NOUN", "PROPN", "VERB", "PRON") for t in span):
            spans.append(span)
    return spans


def _a_label(span: Span) -> bool:
    """A few words without a verb ("docker volumes", "Kubernetes liveness probes")."""
    words = [t for t in span if t.is_alpha]
    return 0 < len(words) <= MAX_LABEL_WORDS and not any(t.pos_ in ("VERB", "AUX") for t in span)


def _without_label(span: Span) -> Span:
    """The span after a label that opens it ("Objective: Investigate …", "Research Topic:
    X"): a few words without a verb, then a colon."""
    colon = next((t for t in span[:MAX_LABEL_WORDS + 1] if t.text == ":"), None)
    if colon is None or colon.i == span.start:
        return span
    label = span.doc[span.start:colon.i]
    return span if any(t.pos_ in ("VERB", "AUX") for t in label) else span.doc[colon.i + 1:span.end]


def _connective(span: Span) -> bool:
    """The span opens with an adverb set off by a comma ("Furthermore, …", "However, …"):
    it links the segment to the one before and says nothing of its own."""
    return len(span) > 1 and span[0].pos_ == "ADV" and span[0].tag_ not in WH_TAGS \
        and span[1].text == ","


def has_main_verb(span: Span) -> bool:
    """A verb of the span's own clause, not of a relative clause inside a phrase ("for
    patients who have undergone surgery" has none): without one the span only introduces
    what follows it."""
    def relative(token: Token) -> bool:
        return any(t.dep_ in ("relcl", "acl") for t in (token, *token.ancestors))
    # nor a participle the parse makes a preposition ("According to the handbook, how …")
    return any(t.pos_ in ("VERB", "AUX") and t.dep_ != "prep" and not relative(t) for t in span)


def _inverted(token: Token) -> bool:
    """An auxiliary before the subject of a coordinated clause: a yes/no question asked
    after another ("… and can they slow down queries", "… and is it secure")."""
    if token.pos_ != "AUX":
        return False
    verb = token if token.dep_ == "conj" else token.head
    subjects = [c for c in verb.children if c.dep_.startswith("nsubj")]
    return verb.dep_ == "conj" and bool(subjects) and subjects[0].i > token.i


def asks(span: Span) -> bool:
    """The segment is a question: it opens with a question word or an inverted auxiliary,
    or with a question word after an introductory phrase without a verb of its own ("As
    family members, which signs …")."""
    first = span[0]
    if first.tag_ in WH_TAGS:
        return not embedded_question(span)
    # an auxiliary opens a question when it is inverted before its subject, or when the
    # parser reads the subject as its attribute ("Are AI tools leading to …?") and the
    # sentence ends with a question mark
    if (first.pos_ == "AUX" and (
            first.dep_ != "ROOT" or any(c.dep_.startswith("nsubj") for c in first.children)
            or first.sent[-1].text == "?")):
        return True
    for token in span[1:]:
        if token.tag_ in WH_TAGS and span.doc[token.i - 1].text == ",":
            return not has_main_verb(span.doc[span.start:token.i])
    return False


def embedded_question(span: Span) -> bool:
    """A question word opens a clause that is asked about, not asked ("how backups work",
    "what vacuum does", "how to tune memory", as list items or after "explain"): its
    subject comes before its verb and holds no question word, or it has no subject and an
    infinitive verb or no auxiliary; and the sentence does not end with a question mark."""
    if span[0].tag_ not in WH_TAGS or span.sent[-1].text == "?":
        return False
    if len(span) > 1 and span[1].pos_ == "AUX":  # "where do …", "how does …": inverted, asked
        return False
    root = span.root
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
    if not subjects:  # "how to recycle panels"; "how solar panels age" read as a noun phrase
        auxiliaries = [c for c in root.children if c.dep_ in ("aux", "auxpass")]
        infinitive = any(c.tag_ == "TO" for c in auxiliaries)
        # a question asks with an auxiliary after its question word; without one the clause
        # is asked about ("how branching differs from SVN", its subject misread as the verb)
        return infinitive or root.pos_ not in ("VERB", "AUX") or (root.pos_ == "VERB" and not auxiliaries)
    subject = subjects[0]
    # "which plugins work best": the question word belongs to the subject, and the clause
    # reads the same asked or embedded (the parser may hang "which" elsewhere)
    if any(t.tag_ in WH_TAGS for t in subject.subtree) or (
            span[0].tag_ == "WDT" and min(t.i for t in subject.subtree) == span[0].i + 1):
        return False
    verbs = [root, *(c for c in root.children if c.dep_ in ("aux", "auxpass"))]
    return all(v.i > subject.i for v in verbs)


# ---- positions: who holds which view -------------------------------------------------
def positions(text: str, doc: Doc) -> list[str]:
    """Distinct named subjects of statements ("Expert A cites 2030, Expert B cites
    2050, …"): each holds a position an evaluative question weighs. A position states
    something: its verb has an object or a clause of what is held, and its sentence is not
    a question ("a single set of PID parameters performs well only …" holds no position)."""
    found: list[str] = []
    for token in doc:
        if not token.dep_.startswith("nsubj") or token.head.pos_ not in ("VERB", "AUX"):
            continue
        if token.sent[-1].text == "?" or not any(c.dep_ in _STATED for c in token.head.children):
            continue
        if any(c.tag_ in WH_TAGS for c in token.head.children):  # "when a GIN index is better"
            continue
        phrase = list(token.subtree)
        if not any(t.pos_ == "PROPN" for t in phrase) or any(t.tag_ in WH_TAGS for t in phrase):
            continue
        if token.head.dep_ in ("relcl", "acl"):
            continue
        name = text_of(text, phrase)
        if name and name not in found:
            found.append(name)
    return found


# ---- topic, names, pronouns -----------------------------------------------------------
def _is_content_chunk(chunk: Span) -> bool:
    return chunk.root.pos_ in _NOMINAL and not any(t.tag_ in WH_TAGS for t in chunk)


def _content_chunks(doc: Doc) -> list[Span]:
    """The noun chunks that name something, not a question word; a chunk the parse opens
    with the question word and its auxiliary ("What does "detached HEAD"", the question
    word read as the noun's determiner) is the noun phrase after them."""
    found = []
    for chunk in doc.noun_chunks:
        inside = [t.i for t in chunk if t.pos_ == "AUX" and t.i < chunk.root.i]
        if inside and chunk[0].tag_ in WH_TAGS and chunk[0].dep_ == "det" and chunk[0].head == chunk.root:
            chunk = doc[inside[-1] + 1:chunk.end]
            while len(chunk) > 1 and (chunk[0].is_punct or chunk[0].dep_ == "neg"):
                chunk = chunk[1:]  # the quote before the noun phrase, the auxiliary's "n't"
        if _is_content_chunk(chunk):
            found.append(chunk)
    return found


def topic(text: str, doc: Doc, skip: set[int] = frozenset()) -> str:
    """What the question is about: the subject of its first clause when that is a noun
    phrase (its object, with its article, when a question word is the subject and a second
    question follows), else its first name, else its first noun phrase that is neither a
    question word nor a pronoun (``skip``: token indexes already used as items or
    positions)."""
    chunks = [c for c in _content_chunks(doc) if not {t.i for t in c} & skip]
    first_sentence = next(iter(doc.sents))
    # not the subject of a clause coordinated with the first: "central banks" in "What
    # causes inflation, and how do central banks fight it?" is the second question's
    subjects = [c for c in chunks if c.root.dep_.startswith("nsubj") and c.start < first_sentence.end
                and c.root.head.dep_ != "conj"]
    # "Who invented the printing press, and how did it change Europe?": a question word
    # asks for the subject, so a first clause that a second question follows is about its
    # object (which the second's pronoun stands for)
    root = first_sentence.root
    # so is one whose subject is the asker ("How do I create a read-only user, and does
    # it see …?": "it" is the user), when the second asks again, with a question word or
    # an auxiliary before its subject
    asked = any(c.dep_.startswith("nsubj") and (c.tag_ in WH_TAGS or personal([c]))
                for c in root.children) and any(
        c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")
        and (c.left_edge.tag_ in WH_TAGS or _inverted(c.left_edge)) for c in root.children)
    objects = [c for c in chunks if asked and c.root.dep_ == "dobj" and c.root.head == root]
    named = [c for c in chunks if c.root.pos_ == "PROPN"]
    if objects:  # it stands for the pronoun of the next question: "How did the telephone …?"
        return clean_phrase(noun_phrase(text, objects[0], keep_article=True))
    # "What do experts say about X?": who speaks, a common noun, is not what it is about
    about = next((c for c in root.children if c.dep_ == "prep" and c.lower_ == "about"), None) \
        if subjects and subjects[0].root.pos_ == "NOUN" else None
    if about is not None:
        said = [c for c in chunks if c.root.dep_ == "pobj" and c.root.head == about]
        if said:
            return clean_phrase(noun_phrase(text, said[0], keep_article=True))
        clause = next((c for c in about.children if c.dep_ == "pcomp"), None)
        if clause is not None:  # "… about passkeys replacing passwords"
            return clean_phrase(text_of(text, list(clause.subtree)))
    for candidates in (subjects, named, chunks):
        if candidates:
            return clean_phrase(noun_phrase(text, candidates[0], keep_article=True))
    return ""


def asks_for_a_choice(doc: Doc) -> bool:
    """The question asks for the best of something or for which one of a kind: a
    superlative ("the best database", "the most effective way") or a question word that
    determines a noun ("Which backup tool …", "What database …")."""
    return any(t.tag_ in ("JJS", "RBS") or (t.tag_ == "WDT" and t.dep_ == "det") for t in doc)


def object_asked_about(text: str, doc: Doc) -> str:
    """What a question whose question word is its verb's subject asks about: the verb's
    direct object, whole ("What caused the collapse of Silicon Valley Bank in March 2023?"
    is about the collapse, not the bank); empty for any other question."""
    root = next(iter(doc.sents)).root
    if not any(c.dep_.startswith("nsubj") and c.tag_ in WH_TAGS for c in root.children):
        return ""
    thing = next((c for c in root.children if c.dep_ == "dobj"), None)
    return clean_phrase(text_of(text, list(thing.subtree))) if thing is not None else ""


def noun_phrase(text: str, chunk: Span, keep_article: bool = False) -> str:
    """The chunk without its article (a name keeps it), a superlative ("the best
    database" is about databases) or the asker's possessive, with compound words that
    follow it ("machine learning", when the parser hangs "learning" on the next word) and
    the prepositional phrase or infinitive that completes it ("the history of Lisbon", "the
    best way to learn a language")."""
    doc = chunk.doc
    first = chunk[0]
    following = chunk.end
    while following < len(doc) and doc[following].dep_ == "compound":
        following += 1
    # an infinitive after a noun with an article says which one ("the best way to learn a
    # language", "a good idea to rewrite history"): a superlative then grades the phrase and
    # stays. A bare noun's infinitive may open a list of actions, which completes nothing
    # ("Steps to generate a key, add it to the agent and …")
    infinitive = next((c for c in chunk.root.rights if c.dep_ in ("acl", "relcl")
                       and c.left_edge.i == following and c.left_edge.tag_ == "TO"
                       and first.morph.get("PronType") == ["Art"]), None)
    superlative = [t for t in chunk if "Sup" in t.morph.get("Degree")] if infinitive is None else []
    # "the Roman Empire" keeps its article; with ``keep_article``, any phrase keeps one ("the
    # printing press"), but not another determiner ("this film"), nor one a dropped
    # superlative leaves behind
    dropped = first.dep_ == "det" and (
        bool(superlative) or (chunk.root.pos_ != "PROPN" and not keep_article)
        or (keep_article and first.morph.get("PronType") != ["Art"]))
    # nor the asker's own "my", "our" ("my laptop" is about laptops)
    tokens = [t for t in chunk if not (dropped and t.i == first.i) and t not in superlative
              and not asker_possessive(t)]
    tokens += list(doc[chunk.end:following])
    for child in chunk.root.rights:
        # a preposition with no object of its own is stranded ("What is the staging area
        # for?"): it completes nothing
        if child.dep_ == "prep" and child.i == following and child.n_rights:
            tokens += list(child.subtree)
            break
    else:
        tokens += list(infinitive.subtree) if infinitive is not None else []
    # a conjunction the parse hangs on the phrase's last noun joins the next clause ("…
    # between two servers, and how can I check …"): no part of the phrase
    tokens.sort(key=lambda t: t.i)
    while len(tokens) > 1 and (tokens[-1].pos_ == "CCONJ" or tokens[-1].text in (",", ";")):
        tokens.pop()
    phrase = text_of(text, tokens)
    if tokens[0].is_sent_start and tokens[0].pos_ == "DET" and chunk.root.pos_ != "PROPN":
        phrase = phrase[:1].lower() + phrase[1:]  # "The printing press …": not a name's "The"
    return phrase


def names(text: str, doc: Doc) -> list[str]:
    """The names a question gives (``names.names_in_doc``), longest first."""
    unique = list(dict.fromkeys(names_in_doc(text, doc)))
    return sorted(unique, key=lambda n: (-len(n.split()), -len(n)))


def resolve_pronouns(text: str, span: Span, referent: str) -> str:
    """The segment with third-person pronouns replaced by what they stand for: "its
    applications in healthcare" → "the applications of machine learning in healthcare",
    "why is it needed" → "why is VACUUM needed". A pronoun that does not agree with the
    referent in number may stand for what the referent is of ("its history" after "the
    main uses of PostgreSQL" → "the history of PostgreSQL"), or for a plural noun before it
    (``parallel_antecedent``: "how can I avoid them" after "How does PostgreSQL handle
    deadlocks"; a name is singular unless written as a plural, ``name_number``)."""
    if not referent:
        return text_of(text, list(span))
    number = grammatical_number(referent) or name_number(referent)
    owner = owner_of(referent)
    owner_number = grammatical_number(owner) if owner else []
    head = head_lemma(referent)
    # a pronoun does not stand for a phrase its own clause names ("What did it find about
    # air quality?": "it" is not air quality)
    words = set(tokenize(referent))
    named_here = bool(words) and words <= set(tokenize(span.text))
    pieces: list[str] = []
    position = span.start_char
    for token in span:
        agrees = not number or token.morph.get("Number") in ([], number)
        third = token.morph.get("Person") == ["3"]
        # an owner whose number cannot be read (a name) is one thing: a singular pronoun
        # stands for it
        stands_for = referent if agrees else (
            owner if owner and token.morph.get("Number") in ([], owner_number or ["Sing"]) else "")
        if third and token.tag_ in ("PRP", "PRP$") and not stands_for:
            # a plural pronoun the referent cannot be: a plural noun before it, the one in
            # the same role first ("How does PostgreSQL handle deadlocks, and how can I
            # avoid them?": "them", an object, is the deadlocks)
            stands_for = parallel_antecedent(token, span)
        if ("Dem" in token.morph.get("PronType") and token.dep_ == "det" and head and agrees
                and token.head.lemma_.lower() == head and token.idx >= position):
            # "images of these devices" → "images of tablet-style devices"
            pieces += [text[position:token.idx], referent]
            position = token.head.idx + len(token.head.text)
        elif named_here and token.tag_ in ("PRP$", "PRP"):
            continue
        elif token.tag_ == "PRP$" and third and stands_for:
            noun = token.head
            after = max(t.idx + len(t.text) for t in _own_words(noun))
            pieces += [text[position:token.idx], "the", text[token.idx + len(token.text):after],
                       f" of {stands_for}"]
            position = after
        elif (token.tag_ == "PRP" and third and stands_for and token.dep_ not in ("expl",)
              and token.idx >= position and not _bound_by_its_subject(token)):
            pieces += [text[position:token.idx], stands_for]
            position = token.idx + len(token.text)
        elif _pronoun_one(token) and not named_here and _indefinite(referent) \
                and token.idx >= position:
            # "What is a context manager and how do I write one?": one of its kind
            pieces += [text[position:token.idx], referent]
            position = token.idx + len(token.text)
    pieces.append(text[position:span.end_char])
    return "".join(pieces).strip(" ,;:")


def _bound_by_its_subject(pronoun: Token) -> bool:
    """The pronoun is no subject, and its clause's subject is the same pronoun: English
    would say "itself" for the subject's referent, so this one stands for something else,
    or for nothing ("is it worth it": the second "it" is not the thing asked about)."""
    if pronoun.dep_.startswith("nsubj"):
        return False
    clause = verb_of(pronoun)
    subject = next((c for c in clause.children if c.dep_.startswith("nsubj")), None) \
        if clause is not None else None
    return subject is not None and subject.lower_ == pronoun.lower_


# a pronoun's role and the roles a noun phrase before it takes to be what it stands for
# (an indirect object, "give them sudo rights", is the one the clause before acted on)
_PARALLEL_ROLES = {"nsubj": ("nsubj", "nsubjpass"), "nsubjpass": ("nsubj", "nsubjpass"),
                   "dobj": ("dobj",), "pobj": ("pobj",), "dative": ("dative", "dobj")}
# the roles in which a plural pronoun may stand for one thing: an object, whose verb does
# not agree with it ("do they" cannot become "do the firewall"); not after a preposition,
# where the noun in that role is seldom the one meant ("tell my manager about the outage
# and what should I say to them")
_SINGULAR_THEY_ROLES = ("dobj", "dative")


def parallel_antecedent(pronoun: Token, span: Span) -> str:
    """What a plural pronoun stands for: the nearest plural common noun before the segment
    that is what the pronoun is in its own clause (a subject for "they", an object for
    "them"; a possessive, "their", is read as a subject), else the nearest plural common
    noun, else (a singular "them", an object) the nearest singular common noun in that role,
    with the words written before it and their determiner; empty when there is none, or
    when a plural noun of the segment comes before the pronoun, which may be what it
    stands for and keeps it readable ("…, what can be done for patients to improve their
    comfort?"). Names are left out: the tagger reads "Kubernetes" as a plural."""
    if pronoun.morph.get("Number") != ["Plur"] or any(
            t.pos_ in ("NOUN", "PROPN") and t.morph.get("Number") == ["Plur"]
            for t in span.doc[span.start:pronoun.i]):
        return ""
    roles = _PARALLEL_ROLES.get("nsubj" if pronoun.tag_ == "PRP$" else pronoun.dep_, ())
    before = list(reversed(span.doc[:span.start]))
    plurals = [t for t in before if t.pos_ == "NOUN" and t.morph.get("Number") == ["Plur"]]
    noun = next((t for t in plurals if t.dep_ in roles), plurals[0] if plurals else None)
    if noun is None and not plurals and pronoun.dep_ in _SINGULAR_THEY_ROLES:
        # no plural noun before: a singular "them" for the noun in the same role ("How do
        # I add a new user and give them sudo rights?": "them" is the new user)
        noun = next((t for t in before if t.pos_ == "NOUN" and t.dep_ in roles
                     and t.morph.get("Number") == ["Sing"]), None)
    if noun is None:
        return ""
    words = _own_words(noun) + [t for t in noun.lefts if t.dep_ == "det"]
    return text_of(span.doc.text, words)


def _pronoun_one(token: Token) -> bool:
    """"one" standing alone for a noun phrase ("how do I write one?"): the numeral heads a
    subject, object or complement and counts nothing ("one of them" is a part of a group)."""
    return token.lower_ == "one" and token.pos_ == "NUM" and not any(token.children) \
        and token.dep_ in ("dobj", "pobj", "nsubj", "nsubjpass", "attr")


def _indefinite(phrase: str) -> bool:
    """The phrase is indefinite ("a context manager"): "one" stands for another of its kind
    as it is written; for "the GIL" or a name it would not."""
    head = _phrase_head(phrase)
    return head is not None and any(c.dep_ == "det" and "Ind" in c.morph.get("Definite")
                                    for c in head.children)


def owner_of(phrase: str) -> str:
    """What a noun phrase is of ("the main uses of PostgreSQL" → "PostgreSQL"); empty when
    its head has no "of" complement."""
    head = _phrase_head(phrase)
    if head is None:
        return ""
    of = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    objects = [c for c in of.children if c.dep_ == "pobj"] if of is not None else []
    return text_of(head.doc.text, list(objects[0].subtree)) if objects else ""


@lru_cache(maxsize=256)
def _phrase_head(phrase: str) -> Token | None:
    """The head noun of a phrase parsed alone, or None: one parse serves its lemma and its
    number (a referent is asked for both)."""
    doc = parse_batch([phrase], skip=("ner",))[0]  # a phrase: no English test
    if doc is None or not len(doc):
        return None
    root = next(iter(doc.sents)).root  # "modes" of "lock modes", where "lock" is a chunk of its own
    if root.pos_ in _NOMINAL:
        return root
    return next((chunk.root for chunk in doc.noun_chunks if chunk.root.pos_ in _NOMINAL), None)


def name_number(phrase: str) -> list[str]:
    """The grammatical number of a name, which its tag does not say ("Kubernetes" and
    "VACUUM" are tagged plural, "PostgreSQL" alone has no noun head): plural when written
    with a determiner before a head tagged plural ("the Beatles", "the Alps"), singular
    otherwise."""
    head = _phrase_head(phrase)
    determined = head is not None and any(c.dep_ == "det" for c in head.children)
    return ["Plur"] if determined and head.tag_ in ("NNS", "NNPS") else ["Sing"]


def head_lemma(phrase: str) -> str:
    """The lemma of a noun phrase's head in lower case ("tablet-style devices" → "device");
    empty when it has none."""
    head = _phrase_head(phrase)
    return head.lemma_.lower() if head is not None else ""


def grammatical_number(phrase: str) -> list[str]:
    """The grammatical number of a noun phrase's head (["Sing"], ["Plur"], or [] when it
    cannot be read): "their" does not stand for "Parkinson's disease"."""
    head = _phrase_head(phrase)
    # a name's number is not read reliably ("VACUUM" alone is tagged a plural noun):
    # ``name_number`` reads it from how it is written
    common = head is not None and head.is_lower  # a phrase alone is often tagged a proper noun
    return head.morph.get("Number") if common else []


def asked_reason(text: str, doc: Doc) -> str:
    """What a "why" question asks the reason for, as "<subject> to <verb> …": "Why did
    the Roman Empire fall?" → "the Roman Empire to fall". Empty when the question does
    not open with a question word before a verb with its own subject."""
    root = next(iter(doc.sents)).root
    first = doc[0]
    if root.pos_ == "AUX" and not any(c.dep_.startswith("nsubj") for c in root.children):
        # "Why is my file not shrinking …?": the parse hangs the participle, with its
        # subject, on the auxiliary it goes with; that participle is the verb
        root = next((c for c in root.children if c.tag_ in ("VBG", "VBN") and c.i > root.i
                     and any(g.dep_.startswith("nsubj") for g in c.children)), root)
    subjects = [c for c in root.children if c.dep_.startswith("nsubj")] or [
        c for complement in root.children if complement.dep_ in ("acomp", "attr")
        for c in complement.children if c.dep_.startswith("nsubj")]  # "sky" hung on "blue"
    # a root with an auxiliary is a verb, whatever its tag ("Why do cats purr?": "purr" a
    # noun); a copula is one too ("Why is the sky blue?" → "the sky to be blue")
    verb = root.pos_ in ("VERB", "AUX") or any(c.dep_ == "aux" for c in root.children)
    if first.tag_ != "WRB" or not verb or not subjects:
        return ""
    head = subjects[0]  # its words before it and its complements ("the sea", "the fall of Rome")
    if personal([head]):
        return ""  # "How can we find the cause?" asks what the asker can do, not a reason
    named = [t for t in head.subtree if t.i <= head.i] + [
        t for c in head.rights if c.dep_ == "prep" for t in c.subtree]
    subject = text_of(text, named)
    negation = [c for c in root.children if c.dep_ == "neg"]
    rest = [t for t in doc[root.i + 1:root.sent.end]
            if not t.is_punct and t not in named and t not in negation]
    if root.pos_ == "AUX" and not rest:
        return ""  # a copula with no complement: the parse took it into the subject ("the ocean blue")
    # a negated verb keeps its negation: "Why does my database file not shrink …?" asks
    # for what led it not to shrink
    negated = "not " if negation else ""
    # a passive keeps its voice: "Why is git push rejected?" asks what led it to be rejected
    passive = any(c.dep_ == "auxpass" for c in root.children)
    verb = f"be {root.text}" if passive and root.tag_ == "VBN" else root.lemma_
    return f"{subject} {negated}to {verb}{' ' + text_of(text, rest) if rest else ''}"


def asked_outcome(text: str, doc: Doc) -> str:
    """The event a question asks the outcome of: the clause that a question word's verb is
    conditioned on ("What happens when a transaction ID wraps around?" → "a transaction ID
    wraps around", "What happens if the primary server fails?"), without its connective.
    Empty when the question word is not the subject or no such clause follows."""
    root = next(iter(doc.sents)).root
    if not any(c.dep_.startswith("nsubj") and c.tag_ in WH_TAGS for c in root.children):
        return ""
    for clause in root.children:
        words = [t for t in clause.subtree if not t.is_punct]
        if clause.dep_ == "advcl" and clause.i > root.i and words[0].dep_ in ("mark", "advmod") \
                and any(c.dep_.startswith("nsubj") for c in clause.children):
            return text_of(text, words[1:])
    return ""


def per_item(text: str, span: Span) -> str:
    """A question asked of every compared item, with ``{item}`` where the word that stands
    for them is ("what is each one good for" → "what is {item} good for", also when the
    parser reads "one" as a noun: it is a function word; "when should I run each" → "when
    should I run {item}"). That word is a subject or an object and no content noun; the
    asker and the one asked (a pronoun in the first or second person: "I", "we", "you")
    never stand for the items. A plural pronoun that is an object stands for them together
    ("what's different between them", "can I use them together"): the question is asked
    once of the group, with ``{items}`` in its place, as no single item can fill it
    ("between tabs" reads as nothing); one that is the subject is asked of each item, its
    verb in the singular ("how do they handle X" → "how does {item} handle X"). Without
    such a word the question is asked as it stands."""
    standing = _standing_for_items(span)
    if not standing:
        return text_of(text, list(span))
    # the group stands there unless a word that picks one of it holds it ("which of them")
    together = next((t for t in standing if _the_group(t) and not t.dep_.startswith("nsubj")
                     and not any(t in other.subtree for other in standing if other != t)), None)
    if together is not None:
        return _asked_of_the_group(text, span, together)
    if _the_group(standing[0]):
        return _asked_of_each_member(text, span, standing[0])
    return _asked_of_one(text, span, standing[0])


def asked_of_them_together(text: str, span: Span) -> str:
    """``span`` with ``{items}`` in place of the plural pronoun that is its subject and
    stands for the items ("can they be taken together" → "can {items} be taken
    together"); empty when it has none. ``per_item`` asks such a question of each item;
    the caller, which can judge what the question asks, takes this where it asks of the
    group."""
    subject = next((t for t in _standing_for_items(span) if t.dep_.startswith("nsubj") and _the_group(t)),
                   None)
    return _asked_of_the_group(text, span, subject) if subject is not None else ""


def picks_one(span: Span, question_word: Token) -> bool:
    """The question word stands for the items, or picks the one that does ("which should I
    use", "which one keeps …"): the question picks one of them, asked of each it reads
    nothing ("Should I use to undo git reset a commit?"). The parse may hang a "which" that
    determines the next word on the verb ("which one keeps …": "which" a bare dependent)."""
    return any(question_word in t.subtree
               or (question_word.i + 1 == t.i and question_word.dep_ in ("det", "dep"))
               for t in _standing_for_items(span))


def _standing_for_items(span: Span) -> list[Token]:
    """The words of the span in a subject's or an object's place that stand for the
    compared items (``stands_for_items``), a subject first; a question word only where no
    other word does ("what causes each one": "each one" stands for them, "what" asks)."""
    found = sorted((t for t in span if t.dep_ in ITEM_ROLES and stands_for_items(t)),
                   key=lambda t: not t.dep_.startswith("nsubj"))
    return [t for t in found if t.tag_ not in WH_TAGS] or found


def _the_group(token: Token) -> bool:
    """A plural pronoun, personal or demonstrative ("them", "they", "those")."""
    kinds = token.morph.get("PronType")
    return token.morph.get("Number") == ["Plur"] and ("Prs" in kinds or "Dem" in kinds)


def _asked_of_the_group(text: str, span: Span, pronoun: Token) -> str:
    """``span`` with ``{items}`` in place of the plural pronoun that stands for the items."""
    start, end = pronoun.idx, pronoun.idx + len(pronoun.text)
    return (text[span.start_char:start] + "{items}" + text[end:span.end_char]).strip(" ,;:")


def _asked_of_each_member(text: str, span: Span, subject: Token) -> str:
    """``span`` with ``{item}`` in place of its plural subject and the verb that agrees
    with it in the singular ("do they" → "does {item}", "they differ" → "{item} differs")."""
    verb = subject.head
    auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    agreeing = auxiliaries[0] if auxiliaries else verb
    words = []
    for token in span:
        word = "{item}" if token == subject else token.text
        if token == agreeing:
            word = verb_in_number(token, plural=False)
        words.append(word + token.whitespace_)
    return "".join(words).strip(" ,;:")


def verb_in_number(verb: Token, plural: bool) -> str:
    """The verb for a subject of the third person in that number ("do" → "does", "were" →
    "was"; "is" → "are", "was" → "were"), in the case it is written; unchanged where its
    form does not vary ("did", "founded")."""
    if verb.tag_ == ("VBZ" if plural else "VBP"):
        forms = getInflection(verb.lemma_, tag="VBP" if plural else "VBZ")
    elif verb.tag_ == "VBD" and verb.lemma_ == "be":  # the one past tense with a number
        forms = getInflection(verb.lemma_, tag="VBD")
    else:
        forms = None
    if not forms:
        return verb.text
    word = forms[-1] if plural else forms[0]  # "are", not "am"; "were" and "was"
    return word[:1].upper() + word[1:] if verb.text[:1].isupper() else word


def asked_of_an_offered_item(text: str, span: Span) -> str:
    """The question asked of one of the alternatives a question offers, the alternatives
    cut from it ("Which database handles JSON better" of "…, A or B?" → "Does {item} handle
    JSON better"): its question word's phrase, a subject or an object, stands for each
    (a content noun too: "which database" is one of the databases offered). Empty where
    no such phrase is, or nothing can open the question."""
    asking = next((t for t in span if t.tag_ in ("WDT", "WP")), None)
    if asking is None:
        return ""
    token = asking.head if asking.dep_ == "det" else asking
    if token.dep_ not in ITEM_ROLES or not span.start <= token.i < span.end:
        return ""
    question = _asked_of_one(text, span, token)
    return question if "{item}" in question else ""


def _asked_of_one(text: str, span: Span, token: Token) -> str:
    """``span`` asked of one item, which takes the place of ``token`` and its modifiers."""
    phrase = [t for t in token.subtree if t.i <= token.i]
    before = span.doc[phrase[0].i - 1] if phrase[0].i > span.start else None
    if before is not None and before.tag_ == "WDT":  # "which" the parse hung elsewhere
        phrase.insert(0, before)
    if any(t.tag_ in WH_TAGS for t in phrase):
        if token.dep_.startswith("nsubj"):  # "Which one fits X?" → "Does {item} fit X?"
            return _asked_whether(text, span, token)
        return _asked_of_the_object(text, span, phrase)
    last = token
    if any(_the_group(t) for t in token.subtree if t.i > token.i):
        last = token.right_edge  # "each of them": the one item and no "of them" after it
    start, end = phrase[0].idx, last.idx + len(last.text)
    return (text[span.start_char:start] + "{item}" + text[end:span.end_char]).strip(" ,;:")


ITEM_ROLES = ("nsubj", "nsubjpass", "dobj", "pobj")  # where a word standing for the items is


def stands_for_items(token: Token) -> bool:
    """A function word in a subject's or an object's place ("each", "which one", "either
    of them"), not the asker nor the one asked (the parser's Person feature 1 or 2) nor a
    single thing of the third person ("it": not the items)."""
    if (token.pos_ in ("NOUN", "PROPN") and not token.is_stop) \
            or (token.tag_ in WH_TAGS and token.head.dep_ == "relcl"):
        return False  # a content noun, or a relative pronoun ("the organization that killed …")
    return not (personal([token]) or (token.morph.get("Person") == ["3"]
                                      and token.morph.get("Number") == ["Sing"]))


def _asked_of_the_object(text: str, span: Span, phrase: list[Token]) -> str:
    """A question whose object asks which of the items ("Which one should I choose for
    X?") asked of one item, which takes the object's place after the word it depends on
    ("Should I choose {item} for X?"); the question as it stands unless an auxiliary opens
    what remains (the parse's reading is then unsure)."""
    taken = {t.i for t in phrase}
    rest = [t for t in span if t.i not in taken]
    if not rest or rest[0].pos_ != "AUX":
        return text_of(text, list(span))
    after = phrase[-1].head  # the verb or preposition the object depends on
    words = "".join(t.text + (" {item}" if t == after else "") + t.whitespace_ for t in rest)
    return (words[:1].upper() + words[1:]).strip(" ,;:")


def _asked_whether(text: str, span: Span, subject: Token) -> str:
    """A question whose subject asks which of the items ("Which one fits X better?") asked
    of one item, which it then names ("Does {item} fit X better?"); the question as it
    stands when nothing can open it (the parse's reading is then unsure)."""
    verb, fronted = subject.head, _fronted(subject.head, subject)
    if fronted is None:
        return text_of(text, list(span))
    opener, moved = fronted
    # after the subject's own words ("which of these battles occurred" → "occur")
    words = _after_the_opener([t for t in span if t.i > subject.right_edge.i and t != moved],
                              verb, moved)
    return f"{opener[:1].upper()}{opener[1:]} {{item}} {words}".strip(" ,;:")


def _fronted(verb: Token, subject: Token) -> tuple[str, Token | None] | None:
    """What opens the question a clause makes, and the word it moves: the clause's
    auxiliary after its subject ("will scale" → "Will {item} scale"), its copula ("is
    cheaper" → "Is {item} cheaper"), or "do" in the verb's tense, which moves nothing and
    leaves the verb its lemma ("fits" → "Does {item} fit"); None for a verb with none."""
    auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.i > subject.i]
    if auxiliaries:
        return auxiliaries[0].text, auxiliaries[0]
    if verb.pos_ == "AUX":
        return verb.text, verb
    if verb.tag_ in ("VBZ", "VBP", "VBD") and (forms := getInflection("do", tag=verb.tag_)):
        return forms[0], None
    return None


def _after_the_opener(rest: list[Token], verb: Token, moved: Token | None) -> str:
    """The words that follow what ``_fronted`` put first, the verb in its lemma when "do"
    took its tense ("fits X" → "fit X")."""
    return "".join((verb.lemma_ if t == verb and moved is None else t.text) + t.whitespace_ for t in rest)


def asked_as_it_stands(text: str, span: Span) -> str:
    """A clause asked about whose question word is its subject ("what happens in the brain
    during sleep", "what is known about long COVID", "which plugins work best") reads as a
    question as it stands: that question ("What happens in the brain during sleep?").
    Empty for any other span ("how tides form" asks "How do tides form?")."""
    first = span[0]
    if first.tag_ not in WH_TAGS:
        return ""
    subject = first if first.dep_ in ("nsubj", "nsubjpass") else first.head
    if subject.dep_ not in ("nsubj", "nsubjpass") or first not in list(subject.subtree) \
            or subject.head.i < subject.i or not span.start <= subject.head.i < span.end:
        return ""
    words = text_of(text, list(span)).rstrip(" .?!;:,")
    return words[:1].upper() + words[1:] + "?"


def direct_question(text: str, span: Span, of_the_items: bool = False) -> str:
    """A clause asked about with a subject of its own, as the question it embeds: the
    auxiliary, the copula, or "do" in the verb's tense before the subject ("how MVCC works"
    → "How does MVCC work?", "what isolation levels PostgreSQL offers" → "What isolation
    levels does PostgreSQL offer?", "why leaves are green" → "Why are leaves green?").
    Empty where the words cannot simply be moved: a pronoun to resolve, a negation, a
    subject that is not one phrase between the question words and the verb.
    ``of_the_items``: a plural pronoun that stands for compared items stays ("how they
    explain X" → "How do they explain X?"), for ``per_item`` to put each item in its place."""
    first = span[0]
    if first.tag_ not in WH_TAGS or first.dep_.startswith("nsubj") or any(
            (t.pos_ == "PRON" or "Dem" in t.morph.get("PronType")) and t.tag_ not in WH_TAGS
            and not (of_the_items and _the_group(t) and stands_for_items(t)) for t in span):
        return ""  # a pronoun or "these scooters" stands for what ``resolve_pronouns`` finds
    subjects = [t for t in span if t.dep_ in ("nsubj", "nsubjpass")]
    if len(subjects) != 1 or first in subjects[0].subtree or not span.start <= subjects[0].head.i < span.end:
        return ""  # one clause, whose subject is not what is asked ("which plugins work best")
    subject = subjects[0]
    verb, phrase = subject.head, list(subject.subtree)
    if phrase[0].i <= first.i or phrase[-1].i >= verb.i or any(c.dep_ == "neg" for c in verb.children) \
            or [t.i for t in phrase] != list(range(phrase[0].i, phrase[-1].i + 1)):
        return ""
    fronted = _fronted(verb, subject)
    if fronted is None or any(c.dep_ == "conj" for c in verb.children) \
            or (fronted[1] is not None and fronted[1] != verb and verb.tag_ in ("VBZ", "VBP", "VBD")):
        return ""  # a clause coordinated to it; or a misparse (no finite verb follows an auxiliary)
    opener, moved = fronted
    asked = [t for t in span if t.i < phrase[0].i]
    rest = [t for t in span if t.i > phrase[-1].i and t != moved and not (t.is_punct and t.i == span.end - 1)]
    words = "".join(t.text + t.whitespace_ for t in asked) + opener + " " \
        + "".join(t.text + t.whitespace_ for t in phrase) + _after_the_opener(rest, verb, moved)
    words = " ".join(words.split()).rstrip(" ,;:")
    return words[:1].upper() + words[1:] + "?"


def asked_of_each_in(text: str, clause: Span) -> str:
    """The question a clause the items are compared in asks (``compared_in_clause``): of
    each item where a plural pronoun stands for them ("how they explain inflation" → "How
    does {item} explain inflation?"), else as it stands ("how ordinary citizens took part
    in government" → "How did ordinary citizens take part in government?"); empty when
    its words cannot simply be moved."""
    asked = asked_as_it_stands(text, clause) or direct_question(text, clause, of_the_items=True)
    doc = parse_batch([asked], skip=("ner",))[0] if asked else None  # the question, parsed as asked
    if doc is None or not len(doc):
        return asked
    return as_question(per_item(asked, doc[:]))


def names_its_subject(span: Span) -> bool:
    """A clause asked about that has a subject of its own besides its question word ("how
    coral reefs recover", "why leaves are green"): it names what it is about, unless the
    subject points back to the topic ("what the fines are": the fines of what the text is
    about; ``bridging``)."""
    if span[0].tag_ not in WH_TAGS:
        return False
    for token in span:
        if token.dep_ not in ("nsubj", "nsubjpass") or token.tag_ in WH_TAGS or token.pos_ == "PRON":
            continue
        phrase = list(token.subtree)
        own = span.doc[phrase[0].i:phrase[-1].i + 1]
        if not any(w.tag_ in WH_TAGS for w in phrase) and not bridging(own):
            return True
    return False


def bridging(span: Span) -> bool:
    """The segment's noun phrase points back to the topic without naming it: a definite
    common noun with no complement of its own ("… and what are the ethical concerns?" —
    the concerns of what the question is about), and no name in the segment; or a
    demonstrative pronoun in a segment that names nothing ("How do I fix that?")."""
    if any(t.pos_ == "PROPN" for t in span):
        return False
    if not any(t.pos_ == "NOUN" for t in span) and any(
            "Dem" in t.morph.get("PronType") and t.dep_ != "det" for t in span):
        return True
    for token in span:
        if token.pos_ != "NOUN" or token.dep_ == "compound":
            continue
        definite = any("Def" in c.morph.get("Definite") for c in token.children if c.dep_ == "det")
        if definite and not any(c.dep_ == "prep" for c in token.children):
            return True
    return False


def verb_form(verb: Token) -> str:
    """"to" for an infinitive with its particle, "participle" (without an auxiliary of its
    own), or "finite" (which includes the imperative and "has been implicated")."""
    auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
    if any(c.tag_ == "TO" for c in auxiliaries):
        return "to"
    return "participle" if verb.tag_ in _PARTICIPLES and not auxiliaries else "finite"


def coordinated_units(span: Span) -> list[Span]:
    """A segment cut at the coordination of its head ("Explain X, and detail Y" → two
    instructions; "Research on X, and its Y" → two topics): each conjunct of the head
    with its own words, the head without its conjuncts' words."""
    head = span.root
    # coordination joins like with like: a noun hung on a verb as its conjunct ("Research
    # and analyze the paths … in Europe, Asia, and the Americas"), or a participle or an
    # infinitive hung on a verb of another form ("integrate technical principles, existing
    # legal frameworks, and case law to examine …"), is the parser's slip; an opening
    # participle ("Acting as …, conduct …") is cut from what follows it
    conjuncts = [c for c in head.children if c.dep_ == "conj" and span.start <= c.i < span.end
                 and (head.pos_ != "VERB" or (c.pos_ in ("VERB", "AUX") and (
                     verb_form(c) == verb_form(head) or head.tag_ in _PARTICIPLES)))]
    if not conjuncts:
        conjuncts = _objects_of_their_own(head, span)
    if not conjuncts:
        return [span]
    cuts = sorted(min(t.i for t in c.subtree) for c in conjuncts)
    bounds = [span.start, *cuts, span.end]
    units = []
    for start, end in itertools.pairwise(bounds):
        unit = span.doc[start:end]
        while len(unit) and unit[-1].pos_ in ("CCONJ", "PUNCT"):
            unit = unit[:-1]
        while len(unit) and unit[0].pos_ in ("CCONJ", "PUNCT"):
            unit = unit[1:]
        if any(t.pos_ in ("NOUN", "PROPN") for t in unit):
            units.append(unit)
    return units


def _objects_of_their_own(verb: Token, span: Span) -> list[Token]:
    """The conjuncts of a verb's object when each coordinated noun has its own complement
    ("I need a summary of X and an overview of Y": two things asked for); nouns that share
    one ("the causes and effects of X") are one object."""
    for obj in (c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"):
        conjuncts = [c for c in obj.children if c.dep_ == "conj" and c.pos_ == "NOUN" and c.i < span.end]
        own = [n for n in (obj, *conjuncts) if any(c.dep_ == "prep" for c in n.children)]
        if conjuncts and len(own) == len(conjuncts) + 1:
            return conjuncts
    return []


def introduces(unit: Span) -> bool:
    """The unit opens its sentence with a participle or a preposition, has no subject, and
    a comma sets it off from the rest of the sentence ("Acting as a senior hardware product
    manager, conduct …"): it says who asks or in what circumstances, not what to research."""
    after = unit.doc[unit.end] if unit.end < len(unit.doc) else None
    return (unit.start == unit.sent.start and after is not None and after.text == ","
            and after.i + 1 < unit.sent.end and unit.root.tag_ in (*_PARTICIPLES, "IN")
            and not any(c.dep_.startswith("nsubj") for c in unit.root.children))


def research_object(unit: Span, writing: Callable[[str], bool] | None = None
                    ) -> tuple[Span | None, bool]:
    """What a unit asks to research, and whether it is a statement: the object of an
    instruction ("Explain the problems …" → "the problems …"), a verbless phrase as it
    stands, what a first-person need asks for ("I need to adjust X" → "adjust X"), or a
    third-person statement as a whole. A piece of writing asked for ("Write a paper on
    X", "a report analysing X"; ``writing`` judges the noun) gives way to its subject."""
    head = unit.root
    inquiry = [c for c in head.children if c.dep_ == "csubj" and unit.start <= c.i < unit.end]
    if inquiry and inquiry[0].tag_ == "VBG":  # "Understanding how X … would be interesting": X
        tokens = [t for c in inquiry for t in c.subtree if t.i > inquiry[0].i and not t.is_space]
        if tokens:
            return unit.doc[tokens[0].i:tokens[-1].i + 1], False
    subjects = [c for c in head.children if c.dep_.startswith("nsubj") and unit.start <= c.i < unit.end]
    if head.pos_ in ("NOUN", "PROPN") or (head.dep_ == "ROOT" and head.pos_ != "VERB" and not subjects):
        return _subject_of(unit, writing), False
    if subjects and subjects[0].morph.get("Person") in (["1"], ["2"]):
        wanted = _wanted(unit, head)
        if wanted is not None:
            return wanted, False
        goals = [c for c in head.children if c.dep_ in ("xcomp", "ccomp", "dobj")]
        if not goals:
            return None, False
        head = goals[0]
        # an object keeps its modifiers ("rent control"), not its determiner; a clause
        # starts at its verb
        start = min((t.i for t in head.subtree if t.dep_ != "det"), default=head.i) \
            if head.pos_ in _NOMINAL else head.i
        tokens = [t for t in head.subtree if start <= t.i < unit.end]
        return _subject_of(unit.doc[tokens[0].i:tokens[-1].i + 1], writing), False
    if subjects and not _addresses_the_writing(subjects[0], writing):
        return unit, True
    tokens = [t for t in unit if t.i > head.i]
    while tokens and (tokens[0].pos_ in ("ADP", "PUNCT", "CCONJ", "PART") or tokens[0].dep_ == "acomp"
                      or (tokens[0].pos_ == "PRON" and tokens[0].morph.get("Person") != ["3"]
                          and tokens[0].tag_ not in WH_TAGS)  # "describe what X adds" keeps "what"
                      or (tokens[0].tag_ == "VB" and tokens[0].dep_ == "xcomp")
                      or (tokens[0].tag_ == "VBG" and tokens[0].dep_ == "pcomp"
                          and not _first_of_parallel_gerunds(tokens))):
        tokens = tokens[1:]  # "make sure to include X" → X, "conclude by identifying X" → X
    if not any(t.pos_ in ("NOUN", "PROPN") for t in tokens):
        return None, False
    clause = next((c for c in head.children if c.dep_ == "ccomp" and c in tokens), None)
    if clause is not None and any(c.dep_.startswith("nsubj") and _addresses_the_writing(c, writing)
                                  for c in clause.children):  # "Ensure the review only cites X"
        return research_object(unit.doc[tokens[0].i:tokens[-1].i + 1], writing)
    return _subject_of(unit.doc[tokens[0].i:tokens[-1].i + 1], writing), False


def _wanted(unit: Span, head: Token) -> Span | None:
    """What a person's stated wish to know is about: the question the wish embeds ("I'd
    like to know how long immunity lasts" → "how long immunity lasts") or the thing an
    attitude is directed at ("I'm also curious about its history", "I'm wondering about
    battery life", "interested in understanding its architecture" → "its architecture").
    The wish is read through its chain of infinitives ("like to know") and adjective
    complements ("curious about"); None when it asks for an action or a thing directly
    ("I need to adjust X", "I need a report on X"), which the caller reads."""
    verb = head
    while (nxt := next((c for c in verb.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")), None)):
        verb = nxt
    holders = [verb, *(c for c in verb.children if c.dep_ == "acomp" and c.pos_ == "ADJ")]
    for holder in holders:
        for clause in (c for c in holder.children if c.dep_ in ("ccomp", "pcomp")):
            start = min(t.i for t in clause.subtree)
            if unit.doc[start].tag_ in WH_TAGS:  # "know how long immunity lasts"
                return unit.doc[start:min(max(t.i for t in clause.subtree) + 1, unit.end)]
    for holder in holders:
        if any(c.dep_ == "dobj" for c in holder.children):
            continue  # "planning a trip to Japan in spring": the preposition is the trip's
        for prep in (c for c in holder.children if c.dep_ == "prep" and c.i > holder.i):
            inner = next((c for c in prep.children if c.dep_ in PREPOSITION_OBJECTS), None)
            if inner is None:
                continue
            if inner.dep_ == "pcomp" and inner.tag_ in (*WH_TAGS, "VBZ", "VBP", "VBD"):
                continue  # a clause, read above
            if inner.tag_ == "VBG":  # "interested in understanding X": X
                objects = [c for c in inner.children if c.dep_ in ("dobj", "ccomp")]
                if not objects:
                    continue
                inner = objects[0]
            tokens = [t for t in inner.subtree if t.i < unit.end and not t.is_punct]
            if tokens and any(t.pos_ in _NOMINAL or t.tag_ in WH_TAGS for t in tokens):
                return unit.doc[tokens[0].i:tokens[-1].i + 1]
    return None


def _first_of_parallel_gerunds(tokens: list[Token]) -> bool:
    """The first token, a gerund, opens a list of gerund phrases ("walk me through creating
    a branch, committing changes and opening a pull request"): it is one of the actions
    asked about, not the way of asking ("conclude by identifying X, Y and Z")."""
    separators = [k for k, t in enumerate(tokens[1:], 1) if t.text == "," or t.pos_ == "CCONJ"]
    if not separators:
        return False
    after = next((t for t in tokens[separators[0]:] if t.text != "," and t.pos_ != "CCONJ"), None)
    return after is not None and after.tag_ == "VBG"


def _addresses_the_writing(subject: Token, writing: Callable[[str], bool] | None) -> bool:
    """A statement about the piece of writing wanted or its reader ("Your analysis should
    integrate X", "The report should conclude by identifying Y", "These notes should
    offer Z") is an instruction: what its verb asks for is the thing to research."""
    phrase = list(subject.subtree)
    if personal(phrase):
        return True
    if subject.pos_ != "NOUN" or writing is None:
        return False
    # "These notes", "the review" name the writing asked for earlier by its head noun
    # ("Create study notes for …", "write a literature review on …")
    earlier = [t for t in subject.doc[:subject.i] if t.pos_ == "NOUN" and t.lemma_ == subject.lemma_]
    named = dict.fromkeys(text_of(subject.doc.text, tokens)
                          for tokens in [phrase, *map(_own_words, earlier)])
    return any(writing(words) for words in named)


def _subject_of(span: Span, writing: Callable[[str], bool] | None) -> Span | None:
    """The subject of a piece of writing the span asks for ("a detailed research paper on
    X" → X, "assistance writing a paper on X" → X): the object of the preposition or
    participle that follows the noun, attached to it or to the verb that governs it. Only
    the span's head noun, or the object of a participle hanging on it, can be the piece
    of writing; None when the piece of writing is all the span names ("conduct a study
    and prepare a report on X": the first part asks for nothing to research). The span
    itself otherwise."""
    if writing is None:
        return span
    head = span.root
    candidates = [head] + [c for verb in head.children if verb.dep_ in _CLAUSE_MODIFIERS
                           for c in verb.children if c.dep_ == "dobj" and c.i < span.end]
    for noun in candidates:
        if noun.pos_ != "NOUN" or not writing(text_of(span.doc.text, _own_words(noun))):
            continue
        for holder in (noun, noun.head):  # "a paper on X", "write a paper to discuss X"
            following = [c for c in holder.children if noun.i < c.i < span.end
                         and (c.dep_ == "prep" or (c.dep_ in _CLAUSE_MODIFIERS and c.pos_ == "VERB"))]
            if not following:
                continue
            objects = [o for o in following[0].children if o.dep_ in ("pobj", "dobj", "pcomp")]
            if objects:
                return span.doc[min(t.i for t in objects[0].subtree):span.end]
        if noun == head:  # "conduct a study": writing asked for, with no subject of its own
            return None
    return span


def listed_nouns(span: Span) -> list[Token]:
    """The coordinated nouns an object opens with ("the current applications and recent
    scientific advancements of …"), or nothing when it opens with one."""
    head = next((t for t in span if (t.pos_ == "NOUN" and t.head.i not in range(span.start, span.end))
                 or (t.pos_ == "NOUN" and t.head == t)), None)
    if head is None:
        head = span.root if span.root.pos_ == "NOUN" else None
    if head is None:
        return []
    members = conjuncts_in_order(head)
    return members if len(members) >= 2 and all(m.i < span.end for m in members) else []
