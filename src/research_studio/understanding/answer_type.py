"""What a question asks for: a thing (a person, a place, a date, a number …) or an
explanation, judged by the sentence encoder against exemplar questions
(``prompts/answer_types.toml``) from the question's asking words.

The offline writer reads it to pick a short answer from the evidence; the analysis reads
it to tell a single fact ("Who founded Mozilla?") from a question that needs several
angles, where the kind encoder, reading the whole question, is pulled by its subject
("founded" reads as history).
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from research_studio.understanding.distribute import owns_an_attribute
from research_studio.understanding.exemplars import Embed, exemplar_scores
from research_studio.understanding.facets import WH_TAGS, asker_possessive
from research_studio.understanding.names import NAME_LABELS
from research_studio.understanding.parser import contrasting_conjunct, parse, supported_by_do

NO_SINGLE_THING = "explanation"
# A question asks for a thing when its asking words are closer to a thing's exemplars
# than to the explanations' by this much. Held out one at a time, the exemplar file's own
# explanation questions score at most +0.03, and 35 of its 43 thing questions more than
# +0.10 (two of the eight below are "What is the …", whose asking words alone say nothing);
# a "how" about change ("How has remote work changed cities?") scores +0.02. A thing
# question missed is researched from several angles (slower, still answered); an
# explanation taken for a thing is researched flat and loses its angles, so the margin
# sits above the ambiguous band rather than at its middle.
THING_MARGIN = 0.10


def _asking_word(doc: Doc) -> Token | None:
    """The question word that asks: not a relative one, nor one inside a name ("How I Met
    Your Mother"). A question with no other question word asks for no single thing."""
    return next((t for t in doc if t.tag_ in WH_TAGS and t.ent_type_ not in NAME_LABELS
                 and not _opens_relative_clause(t)), None)


def _opens_relative_clause(token: Token) -> bool:
    """The word is the relative pronoun or adverb of a clause describing a noun: the
    clause's first word, or the object of the preposition that opens it ("a config file
    that is already committed", "the river on which the city stands"). Still asking: a
    question word further inside such a clause ("a retailer that has how many stores?"),
    one under a noun the parser took for a clause's verb ("on the banks of which river?"),
    and one the parser took for the relative of a noun in a phrase put first, in a
    sentence with no verb before it and none for its root ("In A League of Their Own, who
    played …?")."""
    clause = next((a for a in token.ancestors if a.dep_ == "relcl"), None)
    if clause is None or clause.pos_ not in ("VERB", "AUX"):
        return False
    sentence = token.sent
    if sentence.root.pos_ not in ("VERB", "AUX") \
            and not any(t.pos_ in ("VERB", "AUX") for t in sentence if t.i < token.i):
        return False
    first = token.doc[clause.left_edge.i]
    return first == token or (first.pos_ == "ADP" and first.i + 1 == token.i)


def _named_thing(doc: Doc) -> Token | None:
    """The head noun of a query written as a noun phrase alone ("default redis port",
    "population of Tokyo"): a search-style query asks for the thing it names. None for
    anything with a verb or a question word, or of more than one sentence."""
    sentences = list(doc.sents)
    if len(sentences) != 1 or _asking_word(doc) is not None:
        return None
    root = sentences[0].root
    if root.pos_ not in ("NOUN", "PROPN") or any(t.pos_ in ("VERB", "AUX") for t in doc):
        return None
    return root


def asked_noun(doc: Doc | None) -> Token | None:
    """The noun the question word determines ("port" in "What port does …", "county" in
    "Which county …"); None when it asks with a verb ("Who founded", "How many")."""
    if doc is not None and (named := _named_thing(doc)) is not None:
        return named
    asking = _asking_word(doc) if doc is not None else None
    # only a question word that can determine a noun does ("How did packaging evolve" asks
    # with a verb the tagger read as a noun)
    if asking is None or asking.tag_ == "WRB":
        return None
    if asking.head.pos_ in ("NOUN", "PROPN") and asking.head.i > asking.i:
        return asking.head
    following = doc[asking.i + 1] if asking.i + 1 < len(doc) else None
    if following is None or following.pos_ not in ("NOUN", "PROPN"):
        return None
    # "which Python release": the noun the words after the question word modify
    while following.dep_ in ("compound", "amod") and following.head.i > following.i \
            and following.head.pos_ in ("NOUN", "PROPN"):
        following = following.head
    return following


def asked_phrase(doc: Doc | None) -> str | None:
    """The words that say what is asked: the question word with the noun it determines
    ("What year", "Which county") or the verb it hangs from ("Who married", "When is"), or
    a noun-phrase query's head with its modifiers ("default port").
    The rest of a multi-hop question describes the thing asked for and would pull the
    encoder towards its own subject ("… the network which …" is not asking for a network).
    None without a question word (a yes/no question or an instruction asks for no thing)
    and for a question that does not parse as English (``doc`` None): its asking words are
    unknown."""
    if doc is not None and (named := _named_thing(doc)) is not None:
        return doc[named.left_edge.i:named.i + 1].text  # "default port" of "default port for X"
    asking = _asking_word(doc) if doc is not None else None
    if asking is None:
        return None
    noun = asked_noun(doc)
    if noun is not None:
        return doc[asking.i:noun.i + 1].text
    head = asking.head
    if head.i < asking.i:
        return asking.text
    # a phrasal verb's particle is part of the verb: "back up" is not "back", "find out"
    # not "find"
    particles = [c.text for c in head.children if c.dep_ == "prt"]
    return " ".join([asking.text, head.text, *particles])


def _type_scores(doc: Doc | None, embed: Embed) -> dict[str, float] | None:
    phrase = asked_phrase(doc)
    if phrase is None:
        return None
    [scores] = exemplar_scores([phrase], embed, "answer_types", "questions")
    return scores


def asked_type(question: str | Doc | None, embed: Embed) -> str:
    """The answer type whose exemplar questions are nearest to what the question (its
    text, or its parse) asks."""
    doc = parse(question) if isinstance(question, str) else question
    scores = _type_scores(doc, embed)
    if scores is None:
        return NO_SINGLE_THING
    # a bare phrase names a topic as often as a thing; a question about what the asker does
    # ("How can I find out which queries are slowest?") asks for a procedure as often
    if _named_thing(doc) is not None or asker_acts(doc) or not _adverb_agrees(doc, scores, embed):
        return _thing_type(scores) or NO_SINGLE_THING
    return max(scores, key=lambda name: scores[name])


def _adverb_agrees(doc: Doc, scores: dict[str, float], embed: Embed) -> bool:
    """A question adverb is typed from two words, itself and its verb ("How start",
    "When fall"), and such a pair leans wherever the verb does ("How does systemd start
    services at boot?" read as a person by 0.05). The adverb alone says what it asks for
    when it clearly asks for a thing ("When" a time and "Where" a place, each by 0.19 or
    more; "How" asks for a way, and "Why" is as near a work as an explanation): where the
    pair's nearest type is not that, the pair is a weak reading and must lead by
    ``THING_MARGIN``. Over 696 questions (labelled files, QA and DeepResearch Bench sets,
    manuals' questions) this changes 34, each a "how" or "why" read as a thing;
    "how many", "how far" and the rest keep their numbers by more than the margin, "when"
    and "where" their times and places. Other question words pass: "What was" alone says
    nothing of what it asks."""
    asking = _asking_word(doc)
    if asking is None or asking.tag_ != "WRB" or asked_noun(doc) is not None:
        return True
    [alone] = exemplar_scores([asking.text], embed, "answer_types", "questions")
    return _thing_type(alone) == max(scores, key=lambda name: scores[name])


def asker_acts(doc: Doc) -> bool:
    """The asker is the subject of the verb of the sentence that asks ("How do I migrate
    …", "How can we reduce …") or of one before it ("I removed a user from the group. What
    went wrong?"): first person, by morphology. The sentence with the question word asks
    ("My backup failed last night. What should I check first?"), the first when none has
    one."""
    asking = _asking_word(doc)
    last = asking.sent.end if asking is not None else next(iter(doc.sents)).end
    return any(c.dep_.startswith("nsubj") and c.morph.get("Person") == ["1"]
               for sentence in doc.sents if sentence.start < last for c in sentence.root.children)


def asks_how_the_asker_acts(doc: Doc) -> bool:
    """A question about what the asker (or the asker's own team, company …) does that
    opens with a question adverb ("How can I reduce my electricity bill?", "How can our
    team reduce cloud costs?", "When should we rotate the keys?"): it asks for a way, a
    time or a place to act, not which thing to take ("What should I use …?", "Which
    framework should we learn?" open with a word that asks for a thing)."""
    opening = next((t for t in doc if not t.is_punct), None)
    return opening is not None and opening.tag_ == "WRB" and _asker_subject(doc) is not None


def _asker_subject(doc: Doc) -> Token | None:
    """The subject of the first sentence's verb when it is the asker (first person) or
    the asker's own ("our team", "my laptop")."""
    root = next(iter(doc.sents)).root
    return next((c for c in root.children if c.dep_.startswith("nsubj")
                 and (c.morph.get("Person") == ["1"] or any(map(asker_possessive, c.children)))), None)


def asker_frame(doc: Doc) -> str:
    """The words that ask of a question about what the asker does, up to the asker ("How
    do I", "Why am I", "How can our" of "How can our team", "why does my" of "why does my
    container": the thing owned would pull the encoder to its subject matter); empty when
    the asker is not its subject."""
    subject = _asker_subject(doc)
    if subject is None:
        return ""
    owner = next((c for c in subject.children if asker_possessive(c)), None)
    return doc[:(owner or subject).i + 1].text


def asker_action(text: str, doc: Doc) -> str:
    """What a question about the asker's own doing asks how to do, its verb in the base
    form ("How do I configure a firewall on Debian?" → "configure a firewall on Debian"),
    without a condition joined to it by a contrast ("… but keep my changes");
    empty for any other question, one whose subject is only the asker's ("Why does my
    table keep growing?"), or a verb in another form ("Why am I getting …")."""
    if not (asks_how_the_asker_acts(doc) and asker_acts(doc)):
        return ""
    sentence = next(iter(doc.sents))
    root = sentence.root
    if root.tag_ != "VB":
        return ""
    # "undo the last commit but keep my changes": the action is undoing, the rest a
    # condition on it
    condition = contrasting_conjunct(root)
    end = min(t.i for t in condition.subtree) if condition is not None else sentence.end
    words = [t for t in doc[root.i:end] if not t.is_space]
    while words and (words[-1].is_punct or words[-1].dep_ == "cc"):
        words.pop()
    return text[words[0].idx:words[-1].idx + len(words[-1].text)] if words else ""


def means_asked_for(text: str, doc: Doc) -> str:
    """What a question asks whether a means exists to do ("Is there a way to see the full
    history of a file in git?" → "see the full history of a file in git"; "Is there a
    command to list all tables?"): a yes/no question of "there is", whose thing takes an
    infinitive. It asks how to do that, as "How can I …?" does; the statement "there is a
    way to …" is nothing the sources weigh evidence for. Empty for any other question
    ("Is there a limit on the number of columns?" asks whether one exists)."""
    sentences = list(doc.sents)
    root = sentences[0].root if len(sentences) == 1 else None
    if root is None or root.pos_ != "AUX" or doc[0] != root \
            or not any(c.dep_ == "expl" for c in root.children):
        return ""
    thing = next((c for c in root.children if c.dep_ == "attr"), None)
    infinitive = next((c for c in thing.children if c.dep_ in ("relcl", "acl")
                       and any(a.tag_ == "TO" for a in c.children)), None) if thing is not None else None
    if infinitive is None:
        return ""
    words = [t for t in infinitive.subtree if t.i >= infinitive.i and not t.is_space]
    while words and (words[-1].is_punct or words[-1].dep_ == "cc"):
        words.pop()
    return text[words[0].idx:words[-1].idx + len(words[-1].text)] if words else ""


def _thing_type(scores: dict[str, float]) -> str | None:
    """The nearest thing type when it leads the explanations by ``THING_MARGIN``."""
    best = max((name for name in scores if name != NO_SINGLE_THING), key=lambda name: scores[name])
    return best if scores[best] - scores[NO_SINGLE_THING] >= THING_MARGIN else None


def _coordinates(doc: Doc) -> bool:
    """Something in the question is coordinated outside a name ("… for beginners and
    why?", "In Paris, Berlin, and Rome, …"); "Who wrote Pride and Prejudice?" is one title,
    while a name with commas in it is a list the recogniser took whole ("Redis, Memcached
    and MongoDB")."""
    named = {t.i for entity in doc.ents if not any(t.text == "," for t in entity) for t in entity}
    return any(t.dep_ in ("cc", "conj") and t.i not in named for t in doc)


def asks_for_a_thing(doc: Doc, embed: Embed) -> bool:
    """The question opens by asking for one thing, clearly more than for an explanation.
    Its question word must come before its main verb: "Is there a method for bidders who
    have …?" asks yes or no, its "who" opens a relative clause. A query written as a noun
    phrase asks with its head ("default port" of "default port for PostgreSQL"). A
    question that coordinates asks for more than one."""
    asking = _asking_word(doc)
    if asking is None and _named_thing(doc) is None:
        return False
    if (asking is not None and asking.i > asking.sent.root.i) or _coordinates(doc):
        return False
    scores = _type_scores(doc, embed)
    return scores is not None and _thing_type(scores) is not None


def _whole_thing(thing: Token) -> bool:
    """A noun or a name (the tagger reads an unknown "MVCC" as an adjective) said whole: not
    an attribute of something ("the father of X": the short answer's business), nor
    described by a clause, nor coordinated ("A and B")."""
    named = thing.pos_ in ("NOUN", "PROPN") or any(ch.isupper() for ch in thing.text)
    attribute = any(owns_an_attribute(o) for c in thing.children if c.dep_ == "prep" for o in c.children)
    return named and not attribute and not any(c.dep_ in ("relcl", "acl") for c in thing.children) \
        and not any(t.dep_ == "conj" for t in thing.subtree)


def _only_sentence_root(doc: Doc | None) -> Token | None:
    """The root of a text one sentence long; None for none or several."""
    sentences = list(doc.sents) if doc is not None else []
    return sentences[0].root if len(sentences) == 1 else None


def defined_thing(doc: Doc | None) -> Token | None:
    """The head word of what a question asks the nature of ("repository" in "What is a
    bare repository?", "MVCC" in "What is MVCC?", "Torvalds" in "Who is Linus Torvalds?"):
    the phrase its copula joins to its question word, one sentence long, said whole
    (``_whole_thing``: not "the father of X", "the population of Y", "A and B"), where it
    may be set ("What is type affinity in SQLite?"). None for any other question."""
    root = _only_sentence_root(doc)
    if root is None or root.lemma_ != "be" or not any(c.tag_ in WH_TAGS and c.dep_ in ("attr", "nsubj")
                                                      for c in root.children):
        return None
    things = [c for c in root.children if c.dep_ in ("nsubj", "attr", "acomp")
              and c.tag_ not in WH_TAGS and not any(t.tag_ in WH_TAGS for t in c.subtree)]
    return things[0] if len(things) == 1 and _whole_thing(things[0]) else None


def asked_thing(doc: Doc | None) -> Token | None:
    """The head word of what a question asks about: the thing it asks the nature of
    (``defined_thing``), or the doer of what it asks with "do" ("option" in "What does the
    push.default option control?", "work_mem" in "What does work_mem do?")."""
    thing = defined_thing(doc)
    if thing is not None:
        return thing
    root = _only_sentence_root(doc)
    if root is None or root.pos_ != "VERB" or not supported_by_do(root) \
            or not any(c.tag_ in WH_TAGS and c.dep_ == "dobj" for c in root.children):
        return None
    doers = [c for c in root.children if c.dep_ == "nsubj"]
    return doers[0] if len(doers) == 1 and _whole_thing(doers[0]) else None
