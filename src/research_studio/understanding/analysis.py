"""Understand a question once: its kind, and the items, facets, positions or clause chain
that kind is split along (seed 001's decomposition strategies).

Structure decides first (several questions in one, a nested chain, stated positions, a
coordinated group); the sentence encoder's reading of what the question asks
(``kinds``) decides between structures that could be read two ways, and the kind of a
question with no structure to split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

from spacy.tokens import Doc, Span, Token

from research_studio.knowledge.lexical import tokenize
from research_studio.prompts import load_data
from research_studio.understanding import facets as parts
from research_studio.understanding.answer_type import (
    asker_action,
    asker_acts,
    asker_frame,
    asks_for_a_thing,
    asks_how_the_asker_acts,
    defined_thing,
    means_asked_for,
)
from research_studio.understanding.asker import about_the_asker, wants_a_thing_to_act
from research_studio.understanding.chains import chain, relative_openers
from research_studio.understanding.claim import asks_yes_or_no, complement_claim, yes_no_claim
from research_studio.understanding.dimensions import ComparedOn, attribute_lists, compared_on, phrase_opening
from research_studio.understanding.distribute import (
    distributed_group,
    group_around,
    inverted_subject_group,
    own_words,
    owned_by_an_earlier_member,
    owned_group,
    owns_an_attribute,
    per_action,
    preposition_group,
    subject_group,
)
from research_studio.understanding.embedded import lowered_opening
from research_studio.understanding.kinds import (
    TOGETHER_MARGIN,
    Embed,
    asker_judges,
    asks_for_effects,
    asks_of_the_group,
    kind_scores,
    writing_judge,
)
from research_studio.understanding.lists import ListItem, list_items
from research_studio.understanding.offers import (
    asked_of_each_offered,
    before_the_offer,
    offered_as_answers,
    offered_at_the_end,
    offered_phrases,
)
from research_studio.understanding.parser import parse
from research_studio.understanding.serial import MAX_SERIAL, MIN_SERIAL, serial_members, serial_questions
from research_studio.understanding.structure import MIN_QUESTION_WORDS, Facet, QuestionKind, QuestionStructure
from research_studio.understanding.subject import heading_subject, ranked_subjects, with_article

K = QuestionKind


def understand(text: str, embed: Embed | None = None) -> QuestionStructure:
    """The structure of ``text``; a question that is not English or cannot be parsed is
    researched as it stands (kind ``open``, ``english=False``)."""
    doc = parse(text)
    if doc is None:
        return QuestionStructure(text=text, kind=K.OPEN, english=False)
    scores = kind_scores(text, embed) if embed is not None else {}
    structure = _structure(text, doc, scores, writing_judge(embed) if embed is not None else None, embed)
    phrase = with_article(structure.topic, text, doc)
    return replace(structure, topic_phrase=phrase) if phrase != structure.topic else structure


def _leading(scores: dict[str, float]) -> str | None:
    if not scores:
        return None
    ranked = sorted(scores, key=lambda k: -scores[k])
    return ranked[0]


def _structure(text: str, doc: Doc, scores: dict[str, float],
               writing: Callable[[str], bool] | None, embed: Embed | None) -> QuestionStructure:
    intent = _leading(scores)
    sentences = list(doc.sents)
    segments = parts.clause_segments(doc, relative_openers(doc))
    groups = parts.coordinated_groups(doc)
    if intent in (K.COMPARISON, K.EVALUATIVE):
        groups += parts.modifier_groups(doc)  # "Compare electric and hybrid cars"
        # "How do A compare to B in X and Y?" sets A against B, and lists attributes
        pair = parts.contrasted_pair(doc, opening_only=intent == K.EVALUATIVE) if groups else []
        compared = [*groups, pair] if pair else groups
        if len(compared) >= 2 and embed is not None:  # "Compare A and B by X, Y and Z" compares A and B
            listed = attribute_lists(doc, compared, embed)
            groups = [g for g in groups if not any(g is a for a in listed)] or ([] if pair else groups)
        if pair:  # "How does A differ from B in X and Y?": A and B are compared, in X and Y
            groups = [g for g in groups if phrase_opening(doc, g, [pair]) is None]
    # the longest group, but the one a query typed without a verb is made of before any
    # ("Notion or Obsidian for note taking, pros and cons?" offers Notion and Obsidian)
    group = max(groups, key=lambda g: (_offered_without_a_verb(g), len(g))) if groups else []
    # one question after statements: what they name led to it ("My tests and my linter
    # fail on CI. What could cause that?")
    premised = _one_question_after_statements(sentences, segments)
    in_premises = premised and bool(group) and group[0].i < sentences[-1].start
    # things named in the statements a question follows are compared or offered only when
    # the question picks from them ("…. Which should I use?"); else they led to it
    led_to = len(group) >= 2 and in_premises and not _picks_from(sentences[-1], [group])
    offered = offered_as_answers(group) if len(group) >= 2 and not led_to else []
    nested = chain(doc, text)
    held = parts.positions(text, doc)
    asks_itself = bool(segments) and parts.asks(segments[0])
    # one sentence that asks, with its question mark or typed without one ("how do i …")
    one_question = len(sentences) == 1 and (text.rstrip().endswith("?") or asks_itself)
    brief = len(sentences) >= 2  # a research brief: its parts before any one list in it
    items = list_items(doc)
    split = len(segments) >= 2 or brief or bool(items)
    # a brief or an instruction is about the phrase the whole text means most; a question's
    # topic is its first clause's subject
    subjects = ranked_subjects(text, doc, embed) if embed is not None and not one_question else []
    # a heading asked about with pronouns ("git reflog: what it records, …") is the subject
    heading = heading_subject(text, doc)
    subject = heading or (subjects[0] if subjects else "")
    topic = subject or parts.topic(text, doc)
    pieces = _pieces(text, segments, items)
    # a list's parts are asked about the subject its lead-in names, or about nothing
    referent = topic if subject or not items else ""
    opening = _opening_subject(referent, pieces, writing) if subject and referent else None
    if opening is not None:  # "Assess X and conclude with Y" is about X, which it opens with
        referent = topic = opening
    elif subject and referent and _one_of_the_parts(referent, pieces, writing):
        # "Write a guide on A, B, and C" is not about A: the next phrase the text means most
        referent = next((s for s in subjects if s.lower() != referent.lower()), "")
        topic = referent or topic
    asker = asker_judges(embed) if embed is not None else None
    by_segment, context = _segment_parts(pieces, writing, referent, headed=bool(heading),
                                         situation=asker.situation if asker is not None else None) \
        if split or not one_question else ([], "")
    research_question = _whole_question(text) if one_question else _research_question(text, by_segment)
    if len(sentences) == 1 and not heading and _asked_after_a_statement(segments) \
            and _points_back(segments[-1]) and not _picks_from(segments[-1], groups) \
            and not parts.versus_pieces(doc):
        # "apache keeps printing X on restart, how do I fix it?": a statement and the
        # question that points back to it, in one sentence
        return replace(_asked_with_its_situation(text, doc, topic, scores),
                       research_question=_whole_question(text))
    if premised:
        if _points_back(sentences[-1]) and not _picks_from(sentences[-1], groups):
            return _asked_with_its_situation(text, doc, topic, scores)
        if len(held) < 2 and asker is not None \
                and _premises_give_parts(pieces, by_segment, asker.wish) \
                and not _splits_alone(sentences[-1].text, embed):
            # the question names what it asks about: asked alone, it reads as a heading
            return replace(_asked_with_its_situation(text, doc, topic, scores),
                           premised_question=sentences[-1].text.strip())
    if context and embed is not None:
        # the asker's situation is no part of what they ask: "I accidentally committed a
        # password. How do I remove it …?" asks a procedure, not for causes
        scores = kind_scores(research_question, embed)
        intent = _leading(scores)
    common = dict(text=text, entities=parts.names(text, doc), sentences=len(sentences),
                  kind_scores=scores, asks_itself=asks_itself, research_question=research_question)
    versus = parts.versus_pieces(doc)
    if versus:  # "A vs B vs C …" sets them against each other, whatever its words read like
        return _comparison(text, doc, [piece.root for piece in versus], segments, common, embed,
                           written=versus)
    if len(held) >= 2 and intent in (K.EVALUATIVE, K.COMPARISON):
        skip = {t.i for t in doc if t.dep_.startswith("nsubj")}
        return QuestionStructure(kind=K.EVALUATIVE, positions=held,
                                 topic=parts.topic(text, doc, skip), **common)
    again = _asked_again(text, doc) if one_question else []
    if again:  # "Which languages are growing fastest, and why?": the question, then its reason
        return QuestionStructure(kind=K.MULTI_FACETED, facets=again, topic=parts.topic(text, doc), **common)
    bare = _bare_question_word(doc) if one_question else None
    if bare is not None and (reread := parse(shorter := _without_the_bare_word(text, bare))) is not None:
        # "Which is better, A or B, and why?": the parse coordinates "why" with the items;
        # read without it, and the question, researched whole, asks it
        return replace(_structure(shorter, reread, scores, writing, embed),
                       text=text, research_question=research_question)
    facets = _segment_facets(by_segment) if split else []
    if one_question and facets and _asks_a_short_question(by_segment):
        # "Who wrote Hamlet and why is it still performed?": a question too short to stand
        # alone ("Who wrote Hamlet?") is researched within the whole, beside the others
        # ("What causes inflation, why does it matter …, and what can …?")
        facets = [Facet(text=_whole_question(text), source=text), *facets]
    offer = offered_at_the_end(text, doc) if one_question else None
    if offer is not None and len(offer.alternatives) > len(offered):
        # alternatives the parse did not coordinate, or not all of them ("…: a MacBook Air,
        # a Dell XPS or a ThinkPad?": the first read as an apposition)
        return QuestionStructure(kind=K.COMPARISON, items=offer.alternatives,
                                 item_question=offer.item_question,
                                 topic=parts.topic(text, doc, offer.taken), **common)
    # alternatives offered ("… for X: A, B or C?") are no aspects of what precedes them
    owner = parts.introduced_by(group) if len(group) >= 2 and not brief and not offered else None
    aspect_list = None
    if owner is None and not brief and not offered:  # the parse missed the list: "X — its goals, how much …"
        owner, aspect_list = _list_owner(doc) or (None, None)
    if owner is not None:  # "Describe X: its A, its B and C" asks for X's aspects
        owned = _owner_phrase(text, owner)
        if aspect_list is None:  # the parse may miss a member ("… and common failure modes")
            aspect_list = _listed_after(owner)
        aspects = _listed_aspects(text, aspect_list, owned) if len(aspect_list) > len(group) \
            else _aspect_facets(text, group, owned)
        if len(aspects) >= 2:
            return QuestionStructure(kind=K.MULTI_FACETED, facets=aspects, topic=owned, **common)
    # "the environmental and economic impacts of X": kinds of what X has are its facets,
    # also where the question reads as a comparison (they are not things compared)
    kinds_asked = _kinds_asked_apart(text, doc, owned_only=intent in (K.COMPARISON, K.EVALUATIVE)) \
        if one_question and not offered else []
    if len(kinds_asked) >= 2:
        return QuestionStructure(kind=K.MULTI_FACETED, facets=kinds_asked, topic=topic, **common)
    # alternatives a question offers that no reading of its kind compares ("Which came out
    # first, A or B?" reads as history): each researched beside the question
    compared_group = len(group) >= 2 and _compared(group, intent) \
        and not _detail_of_the_askers_action(doc, group) and not led_to \
        and not _the_askers_circumstance(group[0])
    # "We are a 5-person startup. Which database should we use, A or B?" asks, its situation
    # set aside, what each item is asked
    compares = {**common, "asks_itself": True} \
        if context and not asks_itself and _asks_once(pieces, by_segment) else common
    if offered and not compared_group and (alternatives := offered_phrases(text, offered)):
        grouped = {t.i for m in offered for t in m.subtree}
        return QuestionStructure(kind=K.COMPARISON, items=alternatives,
                                 item_question=asked_of_each_offered(text, offered),
                                 topic=parts.topic(text, doc, grouped), **compares)
    if compared_group \
            and not (brief and len(facets) >= 2 and not _asks_of_each(text, segments, group)):
        # the parse coordinates the words before the offered names with them ("Which is
        # better for beginners, A or B?"): those words are what they are compared for
        compared = _comparison(text, doc, offered or group, segments, compares, embed,
                               before_the_offer(text, group, offered))
        alternatives = offered_phrases(text, offered) if offered else []
        if len(alternatives) == len(compared.items):  # the names as written ("Raging Bull")
            # a word of a name the parse read apart is no dimension ("Women" of "First for Women")
            written = {w for a in alternatives for w in tokenize(a)}
            compared = replace(compared, items=alternatives, dimensions=[
                d for d in compared.dimensions if not set(tokenize(d)) <= written])
        if offered:
            compared = replace(compared, item_question=asked_of_each_offered(text, offered))
        return compared
    pair = parts.contrasted_pair(doc, opening_only=intent == K.EVALUATIVE) \
        if len(group) < 2 and intent in (K.COMPARISON, K.EVALUATIVE) and not brief else []
    if pair:  # "How does A differ from B?", "A vs. B for X?", "A vs. B: which should I pick?"
        return _comparison(text, doc, pair, segments, common, embed)
    if len(facets) >= 2:
        return QuestionStructure(kind=K.MULTI_FACETED, facets=facets, topic=topic, **common)
    listed = _listed_actions(text, segments[0], topic, one_question) \
        if nested is not None and len(sentences) == 1 and segments else []
    if listed:  # "the procedure to renew X, book Y, and pay Z": a list of actions, not a chain
        return QuestionStructure(kind=K.MULTI_FACETED, topic=topic, **common, facets=[
            Facet(text=q, source=segments[0].text) for q in listed])
    if nested is not None:
        return QuestionStructure(kind=K.CHAIN, clauses=nested.clauses, anchor=nested.anchor,
                                 asked_kind=nested.asked_kind,
                                 topic=parts.topic(text, doc), **common)
    # "the causes, effects and solutions to X" asks facets; "the effects of A, B and C"
    # asks one attribute of each (below); nouns coordinated in what a question follows are
    # what led to it ("I run two sites on one machine and users of …. How does nginx …?")
    if len(group) >= 2 and all(m.pos_ == "NOUN" for m in group) and not owns_an_attribute(group[0]) \
            and not in_premises and not _the_askers_circumstance(group[0]):
        facets = _noun_facets(text, group)
        if len(facets) >= 2:
            return QuestionStructure(kind=K.MULTI_FACETED, facets=facets,
                                     topic=parts.shared_object(text, group)[1], **common)
    if len(sentences) == 1 and segments:  # the same asked of several things, or several actions
        asked = _segment_facets(by_segment) if by_segment else [
            Facet(text=parts.as_question(q), source=segments[0].text)
            for q in _distributed(text, segments[0], topic)]
        if len(asked) >= 2:
            return QuestionStructure(kind=K.MULTI_FACETED, facets=asked, topic=topic, **common)
    kind = K(intent) if intent in set(K) else K.OPEN
    if len(sentences) == 1 and embed is not None and asks_for_a_thing(doc, embed):
        # "Who founded Mozilla?": the kind of the whole question leans on its subject
        # ("founded" reads as history); what its asking words ask for does not. A query
        # typed as a noun phrase ("default redis port") asks for what it names.
        kind = K.SINGLE_FACT
    elif len(sentences) == 1 and (thing := defined_thing(doc)) is not None \
            and not any(c.dep_ == "prep" for c in thing.children):
        # "What is a bare repository?" asks one thing, what it is, as "What is quantum
        # computing?" does (seed 001: researched flat); its asking words alone ("What is
        # a") say too little for the encoder to tell (lab log §47). A thing in a setting
        # is left to the encoder: "the outlook for Arctic sea ice" asks an outlook
        kind = K.SINGLE_FACT
    if kind == K.SINGLE_FACT and len(sentences) > 1:
        kind = K.OPEN
    if kind == K.COMPARISON:  # nothing to compare in the parse: research it openly
        kind = K.OPEN
    if kind == K.TEMPORAL and asker_acts(doc):
        kind = K.OPEN  # "How do I migrate X from version 13 to 15?" asks a procedure, not a history
    if kind == K.EVALUATIVE and asks_how_the_asker_acts(doc):
        # "How can I reduce my electricity bill?" asks a way to do something, which the
        # sources state: the options and criteria templates were asked of what is acted on
        # ("Which criteria matter when judging electricity bill?")
        kind = K.OPEN
    # a question about the asker's doing asks a way to act ("How do I") or a reason ("Why
    # am I"): its asking words alone say which, by a wide margin (lab log §46), where the
    # whole question leans on its subject matter ("restore", "crash" read as causes)
    frame = asker_frame(doc) if embed is not None and asks_how_the_asker_acts(doc) else ""
    asks_a_way = bool(frame) and _leading(kind_scores(frame, embed)) != K.CAUSAL
    if kind == K.CAUSAL and asks_a_way:
        kind = K.OPEN  # the causes of what the asker acts on ("a single table") answer nothing
    # "Does coffee cause dehydration?" asks whether a statement holds: the evidence for and
    # against it is weighed, whatever the kind its subject reads like
    means = means_asked_for(text, doc) if one_question else ""
    claim = (complement_claim(text, doc) or yes_no_claim(text, doc)) \
        if one_question and kind != K.SINGLE_FACT and not means else None
    if means:  # "Is there a way to …?" asks how to do it
        kind = K.OPEN
    elif claim is not None:
        kind, topic = K.EVALUATIVE, claim.subject or topic
    elif kind in (K.CAUSAL, K.TEMPORAL) and asks_yes_or_no(doc):
        # a yes/no question whose statement the parse cannot read ("Does git rebase …":
        # "git" read as the verb) is researched as asked, not through the templates
        kind = K.OPEN
    # "I want to understand why X" asks "Why X?": the reason is read from what is asked
    why_text, why_doc = text, doc
    if kind == K.CAUSAL and research_question != text and (reread := parse(research_question)) is not None:
        why_text, why_doc = research_question, reread
    reason = parts.asked_reason(why_text, why_doc) if kind == K.CAUSAL else ""
    outcome = parts.asked_outcome(why_text, why_doc) if kind == K.CAUSAL and not reason else ""
    if kind == K.CAUSAL and not reason and not outcome and _asks_which_thing_does(why_doc):
        # "Which setting makes the server log …?" asks for a setting, not for causes: "What
        # are the causes of the server?" asks nothing it asks; it is researched as asked
        kind = K.OPEN
    if kind == K.CAUSAL and not reason and not outcome:
        # "What caused the collapse of X in 2023?" asks the causes of the collapse, not of X
        topic = parts.object_asked_about(why_text, why_doc) or topic
    effects = kind == K.CAUSAL and embed is not None and asks_for_effects(text, embed)
    return QuestionStructure(kind=kind, topic=topic, reason_for=reason, outcome_of=outcome,
                             asks_effects=effects, weighs_options=parts.asks_for_a_choice(doc),
                             action=means or (asker_action(text, doc) if asks_a_way else ""),
                             claim=claim.statement if claim is not None else "", **common)


def _asks_which_thing_does(doc: Doc) -> bool:
    """The question word is the determiner of its main verb's subject ("Which setting
    makes …", "What option causes …"): it asks which thing of that kind does something."""
    root = next(iter(doc.sents)).root
    return any(c.dep_.startswith("nsubj") and any(d.dep_ == "det" and d.tag_ in parts.WH_TAGS
                                                  for d in c.children) for c in root.children)


def _one_question_after_statements(sentences: list[Span], segments: list[Span]) -> bool:
    """The text states something, then asks one question in its last sentence (a question
    word alone, "Why?", is one); nothing before that asks or instructs."""
    if len(sentences) < 2:
        return False
    last = sentences[-1]
    before = [s for s in segments if s.end <= last.start]
    if any(parts.asks(s) or _instructs(s) for s in before):
        return False
    asking = [s for s in segments if s.start >= last.start and parts.asks(s)]
    # a question word alone ("Why?") makes no segment of its own
    bare = not any(s.start >= last.start for s in segments) and last[0].tag_ in parts.WH_TAGS
    return len(asking) == 1 or bare


def _asked_after_a_statement(segments: list[Span]) -> bool:
    """One sentence states something, then asks after it ("nginx keeps returning 502
    after a reload, how do I fix it"): its last segment asks and every one before is a
    clause of its own that neither asks nor instructs."""
    return len(segments) >= 2 and parts.asks(segments[-1]) and all(
        parts.has_main_verb(s) and not parts.asks(s) and not _instructs(s)
        and s[0].pos_ not in ("VERB", "AUX")  # a verb first: a question the parse misread ("Do A …")
        for s in segments[:-1])


def _points_back(question: Span) -> bool:
    """The question points back to what the statements before it say: a pronoun standing
    for it ("What can cause that?", "How do I shrink it?"), or it names nothing ("Why?",
    "What went wrong?"). Asked alone, it has no subject."""
    # a pronoun, not a determiner: "for that kind of workload" names what it asks about
    pointing = any(t.pos_ == "PRON" and ("Dem" in t.morph.get("PronType")
                                         or t.morph.get("Person") == ["3"]) for t in question)
    return pointing or not _names_a_thing(question)


def _premises_give_parts(pieces: list[_Piece], by_segment: list[Parts],
                         wish: Callable[[str], bool]) -> bool:
    """The statements before the question gave something to research apart (a statement to
    check, a thing to read about) and none says what the asker wants: they are the
    question's premises ("In psql, one typo inside BEGIN ... COMMIT wrecks the whole
    transaction. Can psql just skip the failed statement …?"), not parts of what is asked,
    as a wish is ("I need help drafting a chapter about monetary policy. What instruments
    do central banks use?" asks about monetary policy)."""
    premises = [(piece, found) for piece, found in zip(pieces, by_segment, strict=True)
                if not parts.asks(piece.segment)]
    return any(asked or stated for _, (asked, stated) in premises) and not any(
        wish(reading.frame) and not wants_a_thing_to_act(piece.segment)
        for piece, _ in premises for reading in about_the_asker(piece.segment))


def _splits_alone(question: str, embed: Embed | None) -> bool:
    """The question, read without the statements before it, asks several things: items to
    compare ("How do ext4, XFS and ZFS compare for that kind of workload?"), parts ("What
    are effective strategies, best practices or existing projects …?") or positions."""
    alone = understand(question, embed)
    return alone.kind in (K.COMPARISON, K.MULTI_FACETED) or len(alone.positions) >= 2


def _picks_from(question: Span, groups: list[list[Token]]) -> bool:
    """The question asks of things coordinated in the statements before it ("I'm choosing
    between Flask and Django. Which should I use?", "… Is either of them …?"): a group of
    two or more stands before it, and a word of it picks one of them or stands for them."""
    asking = next((t for t in question if t.tag_ in parts.WH_TAGS), None)
    return any(len(g) >= 2 and g[0].i < question.start for g in groups) \
        and any(_picks(t, asking) for t in question)


def _picks(token: Token, asking: Token | None) -> bool:
    """The question's own question word (not one of a question it embeds: "How does X
    decide which copy wins?") as "which" alone or before a function word ("which one"; a
    content noun, "which copy", names a thing of its own), or a word that is no question
    word and stands for several things in a subject's or an object's place ("each",
    "either", "them"; "that" stands for one)."""
    if token.tag_ == "WDT":
        return token == asking and (token.dep_ != "det" or token.head.is_stop
                                    or token.head.pos_ not in ("NOUN", "PROPN"))
    return token.dep_ in parts.ITEM_ROLES and token.pos_ in ("PRON", "DET") \
        and token.tag_ not in parts.WH_TAGS and token.morph.get("Number") != ["Sing"] \
        and parts.stands_for_items(token)


def _asked_with_its_situation(text: str, doc: Doc, topic: str,
                              scores: dict[str, float]) -> QuestionStructure:
    """A question that cannot be asked without the sentences before it ("My -wal file keeps
    growing. What can cause that?") is researched with them, whole: the pronoun stands for
    what they state, often for all of it ("that": the file's growing), which no phrase of
    theirs put in its place would say. It is researched as asked, with background on its
    subject: a kind's templates are asked of the situation's subject, a thing, where the
    question asks about an event ("What are the causes of SQLite?" for "… SQLite returned
    the text itself. Why?")."""
    return QuestionStructure(kind=K.OPEN, topic=topic, text=text, entities=parts.names(text, doc),
                             sentences=len(list(doc.sents)), kind_scores=scores,
                             asks_itself=True, research_question=text)


def _instructs(span: Span) -> bool:
    """The segment is an instruction: its main verb in the base form without a subject."""
    root = span.root
    return root.tag_ == "VB" and not any(c.dep_.startswith("nsubj") for c in root.children)


def _listed_actions(text: str, segment: Span, topic: str, asks: bool) -> list[str]:
    """One question per member of a comma list of actions that shares its opening ("What
    is the procedure to renew X, book Y, and pay Z?"); an instruction's opening verb is
    the asker's ("Explain the steps to A, B, and C" asks what is known about the steps to
    each). Empty without such a list, or for an instruction that does not open with its
    verb."""
    listed = serial_questions(text, segment, topic)
    if asks or not listed:
        return [parts.as_question(q) for q in listed]
    verb = segment[0]
    if verb != segment.root or verb.pos_ != "VERB":
        return []
    cut = verb.idx + len(verb.text) - segment.start_char
    template = load_data("offline_plan")["multi_faceted"]["phrase_facet"]
    return [template.format(facet=q[cut:].strip()) for q in listed]


def _asks_once(pieces: list[_Piece], by_segment: list[Parts]) -> bool:
    """One piece of the text asks a question and no other gives anything to research (a
    situation set aside gives nothing)."""
    asking_at = [k for k, piece in enumerate(pieces) if parts.asks(piece.segment)]
    return len(asking_at) == 1 and not any(
        asked or stated for k, (asked, stated) in enumerate(by_segment) if k not in asking_at)


def _offered_without_a_verb(group: list) -> bool:
    """The group is a query typed without a verb that offers alternatives ("Redis or
    Memcached for session storage?")."""
    return group[0].dep_ == "ROOT" and any(parts.disjunction(c) for c in group[0].children)


def _compared(group: list, intent: str | None) -> bool:
    """The group is compared: the question reads as a comparison, or it weighs the
    members as options ("Should I use microservices or a monolith for a startup?"), nouns
    with no complement of their own (the benefits and risks *of X* are facets of X)."""
    # "their side effects and their costs": what a pronoun's referent has, not things compared
    if any(c.dep_ == "poss" and c.tag_ == "PRP$" for m in group for c in m.children):
        return False
    if _offered_without_a_verb(group):
        return True  # "A or B for X?" offers them whatever it reads like
    if intent == K.COMPARISON:
        # "the advantages and disadvantages of using Docker": common nouns sharing an "of"
        # complement are facets of what they are of, not things compared
        return not (all(m.pos_ == "NOUN" for m in group) and _owner_complement(group))
    return intent == K.EVALUATIVE and not any(c.dep_ == "prep" for m in group for c in m.children) \
        and not any(t.dep_ in ("relcl", "acl") for t in group[0].ancestors)  # "who served as A and B"


def _the_askers_circumstance(token: Token) -> bool:
    """The word is in a clause subordinate to the question whose subject is the asker ("…
    worth it if I already have a CS degree and two years of experience", "What should I
    know before adopting a greyhound, we have a cat and a small apartment"): what the
    asker has or does, which the question is asked under, not a part of what it asks."""
    clause = parts.verb_of(token)
    return clause is not None and clause.dep_ in ("advcl", "ccomp") and parts.personal(
        [c for c in clause.children if c.dep_.startswith("nsubj")])


def _detail_of_the_askers_action(doc: Doc, group: list) -> bool:
    """A question about how the asker acts compares what its own verb takes ("How do I
    choose between A and B?", "How should I store X, in A or in B?"), not the things a
    detail of the action names: "How can I add an index without blocking inserts and
    updates?", "… show changes for binary files like office documents or photos?" ask
    one way to act, not the inserts against the updates."""
    if not asks_how_the_asker_acts(doc):
        return False
    verb = next(iter(doc.sents)).root
    first = group[0]
    return not (first.head == verb or (first.head.dep_ == "prep" and first.head.head == verb))


def _asks_of_each(text: str, segments: list[Span], group: list) -> bool:
    """Every segment that asks, besides the one that names the group, asks the same of
    each member or of the members together ("Compare Vim and Emacs. Which one should I
    learn?", "… How do they differ?"): a brief that compares, not one of several questions."""
    grouped = {t.i for m in group for t in m.subtree}
    asking = [s for s in segments if parts.asks(s) and not {t.i for t in s} & grouped]
    last = max(grouped)
    return bool(asking) and all("{item}" in asked or "{items}" in asked or (
        s.start > last and _names_no_one_thing(s))
        for s, asked in ((s, parts.per_item(text, s)) for s in asking))


def _names_no_one_thing(segment: Span) -> bool:
    """A question that names no one thing ("What are the main differences?", "What are the
    costs?": no name, no pronoun for something named before): after the things compared,
    it asks about them."""
    return not any(t.pos_ == "PROPN" or t.ent_type_ or (t.pos_ == "PRON" and t.morph.get("Person") == ["3"])
                   for t in segment)


def _owner_complement(group: list) -> bool:
    """A member has an "of" complement, which the parse hangs on the first member or the
    last and the members share (English's genitive preposition: they are attributes of
    its object)."""
    return any(c.dep_ == "prep" and c.lower_ == "of" for m in group for c in m.children)


def _comparison(text: str, doc: Doc, group: list, segments: list[Span], common: dict,
                embed: Embed | None, purpose_before: str = "",
                written: Sequence[Span] = ()) -> QuestionStructure:
    """The items, what is asked of them, their purpose and dimensions. ``written``: the
    items' own phrases, read from the words (``versus_pieces``), ``group`` their heads."""
    asked_at = parts.asked_after(group) or (parts.asked_after_pieces(written) if written else None)
    if asked_at is not None:  # "A vs B: which should I use …?" is asked itself
        common = {**common, "asks_itself": True}
        if written and common["sentences"] == 1:  # as typed: "A vs B, which …" with its mark
            common["research_question"] = _whole_question(text)
    items = [parts.text_of(text, list(piece)) for piece in written] or parts.member_phrases(text, group)
    grouped = {t.i for piece in written for t in piece} or {t.i for m in group for t in m.subtree}
    topic = parts.topic(text, doc, grouped)
    if topic and _third_person(group):
        # "What is a BRIN index, and should I use it or a B-tree …?": "it" is the BRIN index
        items = [topic if _third_person([m]) else item for m, item in zip(group, items, strict=True)]
    head = None if written else parts.shared_head(group)
    if head is not None and items[-1].split()[-1] == head.text:
        head = None  # the last member took it as its own word ("git clone and git init")
    if head is not None:  # "state and local governments": a state government, a local government
        items = [f"{item} {head.text}" for item in items]
    # what follows the compared phrase follows its shared noun, when it has one
    compared = [head] if head is not None else group
    facets, asked_later = [], []
    openers = []
    for segment in segments:  # "… : what is each one good for?" asks the same of every item
        if parts.asks(segment) and not {t.i for t in segment} & grouped:
            asked = parts.per_item(text, segment)
            # "can they be taken together?" asks of the items together, not of each
            together = parts.asked_of_them_together(text, segment) \
                if "{item}" in asked and embed is not None else ""
            if together and asks_of_the_group(segment.text, embed, TOGETHER_MARGIN):
                asked = together
            if written and asked_at is not None and asked_at in segment and (
                    "{item" not in asked or parts.picks_one(segment, asked_at)):
                # "A vs B: which has …?" picks one of them: the question itself asks it
                # (as a heading of commands: "git reset vs git revert: which should I use?")
                continue
            facets.append(Facet(text=parts.as_question(asked), source=segment.text))
            asked_later.append(segment.start)
            openers.append(segment[0])
    # "… differ in how they explain inflation": what the items are compared in is asked of each
    within = parts.compared_in_clause(group, min(asked_later, default=None))
    asked_within = parts.asked_of_each_in(text, within) if within is not None else ""
    if asked_within and not any("{item}" in f.text for f in facets):
        facets.append(Facet(text=asked_within, source=within.text))
        asked_later.append(within.start - 1)
        openers.append(within[0])
    said = parts.said_of_pieces(text, written) if written else parts.purpose_phrase(text, doc, compared)
    if asked_within and not said:  # how they differ is read in it: "How do A and B differ in how …?"
        said = " " + parts.text_of(text, list(doc[within.start - 1:within.end]))
    purpose = said or purpose_before
    # attributes are listed before any question asked after the group ("…, and what's the
    # difference between them?" lists none)
    stop = min([*asked_later, *([asked_at.i] if asked_at is not None else [])], default=None)
    listed = compared_on(text, doc, compared, embed, stop) if embed is not None else None
    each = listed is not None and bool(listed.dimensions)  # attributes compared one by one
    if listed is not None and each:  # "… for a small web app on cost and reliability"
        purpose = _around(text, purpose, listed)
        dimensions = listed.dimensions
    else:  # a listed purpose ("for beginners and experts") holds no attributes
        purpose = purpose or (f" {listed.then}" if listed is not None else "")
        dimensions = parts.dimension_words(text, doc, compared, purpose, stop)
    asked = distributed_group(text, segments[0]) if common["asks_itself"] else None
    if not facets and asked is not None and asked.members == items:
        # "What are the pros and cons of A, B and C for X?" asks the same of each item: its
        # attribute, not the nouns after the group, is what each item is researched for
        facets, dimensions, each = [Facet(text=parts.as_question(asked.template()),
                                          source=segments[0].text)], [], False
    elif head is None and owns_an_attribute(group[0]):
        # "Compare the economies of Japan and Germany" compares each one's economy
        attribute = _one_of(text, group[0].head.head)
        items = [f"the {attribute} of {item}" for item in items]
        # "… and their costs per person": what each one's attribute owns, compared on
        owned = [m for m in group[0].head.head.conjuncts if owned_by_an_earlier_member(m)]
        if owned:
            dimensions, each = [parts.text_of(text, [t for t in own_words(m) if t.dep_ != "poss"])
                                for m in owned], True
    if openers:  # the questions asked after the group, each placed beside the items
        facets = [_placed(f, opener, items, embed) for f, opener in zip(facets, openers, strict=True)]
    return QuestionStructure(kind=K.COMPARISON, items=items, facets=facets, purpose=purpose,
                             dimensions=dimensions, dimensions_listed=each, topic=topic, **common)


def _placed(facet: Facet, opener: Token, items: list[str], embed: Embed | None) -> Facet:
    """A question beside a comparison, placed: one without a word for the items is asked as
    it stands when it names one of them ("…, and when should I avoid WAL?"), else of each
    item ("As for {item}, what are the trade-offs?") or of them together ("As for {items},
    what is the practical difference?"), as it reads (``kinds.asks_of_the_group``)."""
    if "{item" in facet.text or _names_an_item(facet.text, items):
        return facet
    together = embed is not None and asks_of_the_group(facet.text, embed)
    template = load_data("offline_plan")["comparison"]["item_facet"]
    return replace(facet, text=template.format(item="{items}" if together else "{item}",
                                               facet=lowered_opening(facet.text, opener)))


def _names_an_item(question: str, items: list[str]) -> bool:
    """The question holds a word that tells one item from the others ("WAL" of "WAL mode"
    beside "rollback journal"; "rebase" of "git rebase" beside "git merge")."""
    words = [set(tokenize(item)) for item in items]
    shared = set.intersection(*words) if words else set()
    asked = set(tokenize(question))
    return any((own - shared) & asked for own in words)


def _one_of(text: str, noun: Token) -> str:
    """A noun with the modifiers before it, in the singular ("education system" of "the
    education systems of Finland and …"): what each member of the group has one of."""
    words = [t for t in noun.lefts if t.dep_ in ("compound", "amod")
             and t.morph.get("Degree", []) not in (["Cmp"], ["Sup"])]  # not "more scope"
    singular = noun.lemma_ if noun.morph.get("Number") == ["Plur"] else noun.text
    return " ".join([*(parts.text_of(text, list(w.subtree)) for w in words), singular])


def _around(text: str, purpose: str, listed: ComparedOn) -> str:
    """The purpose phrase without the attributes listed in it: its words before them ("for
    a small web app" of "… on cost and reliability"), else those after them ("for English
    speakers" of "in difficulty and usefulness for English speakers")."""
    start = text.find(purpose.strip()) if purpose else -1
    before = text[start:listed.start].strip(" ,") if 0 <= start < listed.start else ""
    return f" {before or listed.then}" if before or listed.then else ""


def _asked_again(text: str, doc: Doc) -> list[Facet]:
    """A question word coordinated with the question and asking nothing of its own
    ("Which languages are growing fastest, and why?", "…, and how?") asks the question
    again for its reason or manner, of what the first asks for: the question without it,
    then that word before the question asked of "these …" ("Why are these languages growing
    fastest?", "What is the most popular X, and why?" → "Why is this the most popular X?").
    A yes/no question is asked again with the word before it ("Can I build an index over
    part of a table, and how?" → "How can I build an index over part of a table?").
    Empty for any other question, or one whose question word neither determines a subject
    or an object nor asks what a copula's noun is ("Who invented the telephone, and when?")."""
    root = next(iter(doc.sents)).root
    word = _bare_question_word(doc)
    if word is None or word.head != root:
        return []
    first = _without_the_bare_word(text, word)
    reread = parse(first, judge_language=False)
    if reread is None or _offers(first, reread):
        return []  # "Which is cheapest, A, B or C, and why?" compares them, the reason with them
    asking = next((t for t in reread if t.tag_ in ("WDT", "WP")), None)
    if asking is None and asks_yes_or_no(reread):
        return [Facet(text=first, source=first),
                Facet(text=f"{word.text.capitalize()} {lowered_opening(first, reread[0])}",
                      source=text[word.idx:])]
    if asking is None:
        return []
    if asking.dep_ == "det":  # "Which countries have …" → "… do these countries have …"
        asked = parts.asked_of_an_offered_item(first, reread[:])
        these = parts.text_of(first, [t for t in asking.head.subtree if t != asking])
        again = asked.replace("{item}", f"{_demonstrative(asking.head)} {these}") if asked and these else ""
    elif asking.head.pos_ == "AUX" and asking.head.dep_ == "ROOT":
        # "What is the most popular X" → "is this the most popular X"
        copula = asking.head
        named = next((c for c in copula.children if c.dep_ in ("nsubj", "attr") and c != asking
                      and c.pos_ in ("NOUN", "PROPN")), None)
        again = f"{copula.text} {_demonstrative(named)} {parts.text_of(first, list(named.subtree))}" \
            if named is not None else ""
    else:
        again = ""
    if not again:
        return []
    return [Facet(text=parts.as_question(first), source=first),
            Facet(text=parts.as_question(f"{word.text.capitalize()} {again[:1].lower()}{again[1:]}"),
                  source=text[word.idx:])]


def _offers(text: str, doc: Doc) -> bool:
    """The question offers alternatives, read by the parse or on their own."""
    groups = parts.coordinated_groups(doc)
    return bool(groups and offered_as_answers(max(groups, key=len))) \
        or offered_at_the_end(text, doc) is not None


def _bare_question_word(doc: Doc) -> Token | None:
    """The question word that ends a question, coordinated with it and asking nothing of
    its own ("…, and why?")."""
    words = [t for t in doc if not t.is_punct and not t.is_space]
    last = words[-1] if words else None
    if last is None or last.tag_ != "WRB" or last.dep_ != "conj" \
            or any(not c.is_punct for c in last.children) or last.i == 0 \
            or doc[last.i - 1].pos_ != "CCONJ":
        return None
    return last


def _without_the_bare_word(text: str, word: Token) -> str:
    """The question without its bare question word and the conjunction and comma before
    it: "Which is better, A or B, and why?" → "Which is better, A or B?"."""
    doc, start = word.doc, word.i
    while start > 0 and (doc[start - 1].is_punct or doc[start - 1].pos_ == "CCONJ"):
        start -= 1
    return text[:doc[start].idx].rstrip() + "?"


def _demonstrative(noun: Token) -> str:
    """What points back at what a question found: "these" for a plural noun, else "this"."""
    return "these" if parts.plural(noun) else "this"


Parts = tuple[list[Facet], list[Facet]]  # a segment's questions and instructions, its statements


def _segment_facets(by_segment: list[Parts]) -> list[Facet]:
    """Each question, instruction and coordinated part of the text as a question of its
    own ("Research X, and its Y. Explain Z, and detail W." → X, Y, Z, W); questions and
    instructions first, statements (which mostly set the context) after them."""
    asked = [f for questions, _ in by_segment for f in questions]
    statements = [f for _, stated in by_segment for f in stated]
    return _whole(asked + statements)


def _asks_a_short_question(by_segment: list[Parts]) -> bool:
    """A segment asks a question under ``MIN_QUESTION_WORDS`` words."""
    return any(len(f.text.split()) < MIN_QUESTION_WORDS for asked, _ in by_segment for f in asked)


def _whole(facets: list[Facet]) -> list[Facet]:
    """The facets that are whole questions (at least four words), not fragments."""
    return [f for f in facets if len(f.text.split()) >= MIN_QUESTION_WORDS]


class _Piece(NamedTuple):
    """A segment to read, the text its offsets point into, and whether it is a list item
    (the asker's own unit of work: its coordinated nouns stay together)."""

    text: str
    segment: Span
    item: bool = False
    phrase: bool = False  # an item that is the object of its lead-in's verb ("Please cover (1) …")


def _pieces(text: str, segments: list[Span], items: list[ListItem]) -> list[_Piece]:
    """The segments to read: with a list, the segments before it, then each item's own
    segments (the item parsed alone). The segment that introduces the list ("Your report
    should:", "refine the following components:") gives way to its items."""
    if not items:
        return [_Piece(text, segment) for segment in segments]
    lead = [s for s in segments if s.end_char <= items[0].marker]
    if lead and not text[lead[-1].end_char:items[0].marker].strip(" :\n\t"):
        lead = lead[:-1]
    objects = _wants_object(segments[0].doc, items[0].marker) if segments else False
    pieces = [_Piece(text, segment) for segment in lead]
    for item in items:
        words = text[item.start:item.end].strip()
        item_doc = parse(words, judge_language=False)
        if item_doc is not None:
            pieces += [_Piece(words, segment, item=True, phrase=objects)
                       for segment in parts.clause_segments(item_doc, relative_openers(item_doc))]
    return pieces


def _wants_object(doc: Doc, marker: int) -> bool:
    """A list's first marker follows a verb ("Please cover (1) X, (2) Y", "The report
    should cover: 1. X"): each item is that verb's object, a phrase, even where the parser
    reads a verb in it ("evidence on accuracy and clinician time saved")."""
    before = [t for t in doc if t.idx < marker and not t.is_punct and not t.is_space]
    return bool(before) and before[-1].pos_ == "VERB"


def _segment_parts(pieces: list[_Piece], writing: Callable[[str], bool] | None,
                   referent: str, headed: bool = False,
                   situation: Callable[[str], bool] | None = None) -> tuple[list[Parts], str]:
    """Per segment, its questions and instructions, and its statements, as questions;
    ``referent``: what the text is about (pronouns stand for it, and a part that does not
    name it is asked about it); ``headed``: a heading names it, and every question after
    the heading is about it; ``situation`` judges a sentence about the person asking
    (``asker.about_the_asker``): their situation ("I keep reading about microplastics") is
    not a part of what they ask but its context, which a question that names nothing is
    asked about ("How worried should I be?" → "… regarding microplastics"), unless the
    text asks nothing else. With them, the situation set aside (empty when none was)."""
    templates = load_data("offline_plan")["multi_faceted"]
    by_segment: list[Parts] = []
    asking: list[int] = []  # read last, once the situation (if any) is known
    aside: list[tuple[int, list[Facet], list[Facet]]] = []
    context = ""
    for text, segment, item, phrase in pieces:
        asked: list[Facet] = []
        statements: list[Facet] = []
        by_segment.append((asked, statements))
        if parts.asks(segment):
            asking.append(len(by_segment) - 1)
            continue
        if parts.embedded_question(segment):  # "(a) how backups work" → what is known about it
            # one per action it lists ("how to write X, enable it at boot and view its logs")
            listed = [] if item else serial_questions(text, segment, referent)
            own = parts.names_its_subject(segment)  # "how coral reefs recover" needs no anchor
            if not listed and (question := _clause_question(text, segment, own)):
                asked.append(Facet(text=question, source=segment.text))
                continue
            for phrase in listed or [parts.resolve_pronouns(text, segment, referent)]:
                phrase = parts.clean_phrase(phrase)
                asked.append(Facet(text=templates["phrase_facet"].format(
                    facet=phrase if own else _anchored(phrase, referent, templates)), source=segment.text))
            continue
        whole = item or _serial_object(segment, writing)
        for unit in [segment] if whole else parts.coordinated_units(segment):
            if parts.introduces(unit):
                continue
            unit_asked, unit_stated = _unit_facets(text, unit, item, phrase, writing, referent, templates)
            asker = next((r for r in about_the_asker(unit) if situation(r.frame)), None) \
                if situation is not None else None
            if asker is not None:
                aside.append((len(by_segment) - 1, unit_asked, unit_stated))
                context = context or parts.clean_phrase(parts.text_of(text, list(asker.thing)))
                continue
            asked += unit_asked
            statements += unit_stated
    if not asking and not any(asked or stated for asked, stated in by_segment):
        for index, unit_asked, unit_stated in aside:
            by_segment[index][0].extend(unit_asked)
            by_segment[index][1].extend(unit_stated)
        context = ""
    for index in asking:  # a question that names nothing is about the person's situation
        text, segment, item, _ = pieces[index]
        by_segment[index][0].extend(
            Facet(text=parts.as_question(q), source=segment.text)
            for q in _asked_pieces(text, segment, referent, templates, split=not item,
                                   about_referent=headed, anchor=context))
    return by_segment, context


def _unit_facets(text: str, unit: Span, item: bool, phrase: bool, writing: Callable[[str], bool] | None,
                 referent: str, templates: dict) -> Parts:
    """A statement's or an instruction's questions: what it asks to research, one per
    piece, or the statement to weigh."""
    target, stated = parts.research_object(unit, writing)
    # a list item after a verb, or all after a label ("Focus areas: risk …, …")
    if (phrase and (stated or target is None)) or _after_a_label(unit):
        target, stated = unit, False
    if target is None:
        return [], []
    if stated:  # no pronoun resolution: a statement's "it" is too often ambiguous
        statement = parts.clean_phrase(parts.text_of(text, list(target)))
        if statement.lower() == referent.lower():
            return [], []  # the heading the rest is asked about ("kubernetes liveness probes - …")
        return [], [Facet(text=templates["statement_facet"].format(
            facet=statement[:1].lower() + statement[1:] if target[0].pos_ != "PROPN"
            else statement), source=unit.text)]
    names_subject = parts.names_its_subject(target)  # "how coral reefs recover" needs no anchor
    # "Explain how MVCC works" when it needs no anchor (it names its own subject, or what
    # the text is about); "I'd like to know what happens when X" in any case
    unanchored = names_subject or referent.lower() in target.text.lower()
    if not item and (question := _clause_question(text, target, unanchored)):
        return [Facet(text=question, source=unit.text)], []
    members = [] if item else parts.listed_nouns(target)
    objects = [p for p in map(parts.clean_phrase, _object_pieces(
        text, target, members, referent, split=not item)) if p]
    # a subject that is one of the parts ("a memo on A, B and C" about A) anchors none
    sibling = bool(referent) and len(objects) > 1 and any(
        referent.lower() in p.lower() for p in objects)
    key = "action_facet" if target[0].tag_ == "VB" else "phrase_facet"
    own = sibling or names_subject
    return [Facet(text=templates[key].format(
        facet=piece if own else _anchored(piece, referent, templates)), source=unit.text)
        for piece in objects], []


def _clause_question(text: str, clause: Span, unanchored: bool) -> str:
    """A clause asked about as a question: as it stands when its question word is its
    subject ("what happens when X"), else, when it needs no anchor, the question it embeds
    ("how MVCC works" → "How does MVCC work?"); empty otherwise."""
    return parts.asked_as_it_stands(text, clause) or (
        parts.direct_question(text, clause) if unanchored else "")


def _one_of_the_parts(referent: str, pieces: list[_Piece], writing: Callable[[str], bool] | None) -> bool:
    """The phrase the text means most is one member of a list it asks to cover (the whole
    member, not a phrase inside one): a part of the research, not the subject the other
    parts are about."""
    for piece in pieces:
        if piece.item or parts.asks(piece.segment):
            continue
        target, stated = parts.research_object(piece.segment, writing)
        if target is None or stated:
            continue
        members = serial_members(target) or [
            piece.segment.doc[m.i:m.i + 1] for m in parts.listed_nouns(target)]
        if len(members) >= 2 and any(_without_article(m).lower() == referent.lower() for m in members):
            return True
    return False


def _opening_subject(referent: str, pieces: list[_Piece],
                     writing: Callable[[str], bool] | None) -> str | None:
    """What the text opens with asking, when the phrase it means most is the whole object
    of a later instruction ("Assess the risks of deepfakes in elections and conclude with
    regulatory guidelines": what it asks for at its end is not what the rest is about):
    the first instruction's object, or the empty string when that is no noun phrase (the
    referent is then none). None when the referent is not asked for last."""
    asked: list[Span | None] = []  # per part, in order: an instruction's object
    for piece in pieces:
        if piece.item or parts.asks(piece.segment):
            asked.append(None)
            continue
        for unit in parts.coordinated_units(piece.segment):
            target, stated = parts.research_object(unit, writing)
            asked.append(target if target is not None and not stated and _instructs(unit) else None)
    wanted = referent.lower()

    def names(target: Span | None) -> bool:
        return target is not None and wanted in (target.text.lower(), _without_article(target).lower())
    if len(asked) < 2 or names(asked[0]) or not any(names(t) for t in asked[1:]):
        return None
    first = asked[0]
    return first.text if first is not None and first.root.pos_ in ("NOUN", "PROPN") else ""


def _without_article(span: Span) -> str:
    return span[1:].text if len(span) > 1 and span[0].dep_ == "det" else span.text


def _after_a_label(unit: Span) -> bool:
    """The unit is all that follows a label's colon or dash ("Focus areas: A, B, C"): a
    phrase, even where the tagger reads its first word as a verb ("risk")."""
    return unit.start > 0 and unit.doc[unit.start - 1].text in parts.LIST_INTRODUCERS \
        and bool(serial_members(unit))


def _serial_object(segment: Span, writing: Callable[[str], bool] | None) -> bool:
    """The segment's object is one comma list ("Write a memo on A, the B on X, and C"),
    which the parse may cut into two objects of the verb: it is read whole."""
    if _after_a_label(segment):
        return True
    target, stated = parts.research_object(segment, writing)
    return target is not None and not stated and bool(serial_members(target))


def _anchored(piece: str, referent: str, templates: dict) -> str:
    """A part that shares no content word with what the text is about is asked about it
    ("other relevant factors" → "other relevant factors regarding hollow motor shafts"): a
    sub-question is researched alone and must name its subject."""
    if not referent or set(tokenize(piece)) & set(tokenize(referent)):
        return piece
    return piece + templates["topic_suffix"].format(topic=referent)


def _whole_question(text: str) -> str:
    """A question as asked, given its question mark when it was typed without one."""
    return text if text.rstrip().endswith("?") else parts.as_question(text)


def _research_question(text: str, by_segment: list[Parts]) -> str:
    """The text as one whole question, for a plan's "the question itself", when it is not
    one question already: its first question or instruction, as a question ("Write a paper
    on X, considering Y" → "What is known about X, considering Y?"); with neither, what is
    known about the text ("nginx rate limiting config"), or the text as it stands when it
    ends as a question or a sentence."""
    whole = [f for asked, _ in by_segment for f in _whole(asked)]
    if whole:
        return whole[0].text
    if text.rstrip()[-1:] in "?.!":
        return text
    return load_data("offline_plan")["multi_faceted"]["phrase_facet"].format(facet=text.strip())


def _asked_pieces(text: str, segment: Span, referent: str, templates: dict,
                  split: bool = True, about_referent: bool = False, anchor: str = "") -> list[str]:
    """A question, or (``split``) one question per coordinated noun it asks about ("What
    are effective strategies, best practices, or existing projects that address X?");
    ``about_referent``: the question is about the referent even where it does not point
    back to it ("probes - …, and what happens when one fails"); ``anchor``: the person's
    situation, which a question that names nothing is about ("How worried should I be?"
    after "I keep reading about microplastics"). A question that names its own subject
    keeps its words: the situation's words in a search query find the situation, not the
    answer ("How can I make git status faster?" after "I maintain a large monorepo" found
    pages on bundles and maintenance)."""
    phrase = parts.resolve_pronouns(text, segment, referent)
    too_short = len(phrase.split()) < MIN_QUESTION_WORDS  # "What is MVCC?" in a list about X
    if anchor and not _names_a_thing(segment):
        phrase = _anchored(phrase.rstrip(" ?"), anchor, templates)
    elif referent and referent.lower() not in phrase.lower() and (
            parts.bridging(segment) or too_short or about_referent
            or not (_names_a_thing(segment) or _third_person(segment))):
        phrase += templates["topic_suffix"].format(topic=referent)
    elif too_short and (asked_about := _named_thing(segment, referent)):
        # "What is CRISPR, how does it work, …": the short question is about its own subject
        phrase = templates["phrase_facet"].format(facet=asked_about)
    inverted = inverted_subject_group(text, segment) if split else []
    if inverted:  # "Which ports do A, B and C use by default, and …?"
        return inverted
    members = parts.listed_nouns(segment) if split else []
    if len(members) < 2 or len(members) > 5:
        return (_distributed(text, segment, referent, inverted) or [phrase]) if split else [phrase]
    return group_around(text, segment, members).questions()


def _names_a_thing(span: Span) -> bool:
    """A noun or a name is in it; without one ("what should I check first", "Why?") a
    question asked alone searches for nothing."""
    return any(t.pos_ in ("NOUN", "PROPN") for t in span)


def _third_person(span: Iterable[Token]) -> bool:
    """A pronoun of the third person is in it, which stands for something named before."""
    return any(t.pos_ == "PRON" and t.morph.get("Person") == ["3"] for t in span)


def _named_thing(segment: Span, referent: str) -> str:
    """What a question that only asks what something is names ("CRISPR" in "What is
    CRISPR"; the referent in "What is it"): its last noun phrase that is not its question
    word. Empty when its main verb says more than "is" ("What causes inflation" asks for
    causes) or it names nothing."""
    if segment.root.pos_ != "AUX":
        return ""
    chunks = [c for c in segment.noun_chunks if c.root.tag_ not in parts.WH_TAGS]
    if not chunks:
        return ""
    if chunks[-1].root.pos_ == "PRON" and chunks[-1].root.morph.get("Person") == ["3"]:
        return referent
    return chunks[-1].text


def _distributed(text: str, segment: Span, referent: str, inverted: list[str] | None = None) -> list[str]:
    """The question asked of each member of a group it names ("the philosophies of A, B
    and C"), or of each action it coordinates ("set up X and monitor its lag"); empty when
    it asks one thing of one thing. ``inverted``: the segment's ``inverted_subject_group``
    when the caller has it (it parses the question again for every run it tries)."""
    group = distributed_group(text, segment) or owned_group(text, segment) \
        or preposition_group(text, segment)
    if group is not None:
        return group.questions()
    if inverted is None:
        inverted = inverted_subject_group(text, segment)
    # the parse's subjects, or the subject list it misread, where that finds more members
    found = max(subject_group(text, segment), inverted, key=len) or per_action(text, segment, referent)
    listed = serial_questions(text, segment, referent)  # "install X, check Y, and run Z"
    if len(listed) > len(found) and (coordinated := _list_the_parse_reads(segment)):
        # "… in London, Stockholm and Singapore at reducing traffic and pollution?": the
        # parse says where each member ends, and the words after the list are asked of each
        return group_around(text, segment, coordinated).questions()
    return listed if len(listed) > len(found) else found


def _list_the_parse_reads(segment: Span) -> list[Token]:
    """The comma list of the segment (``serial_members``) as the parse coordinates it,
    where it coordinates a noun list from the word before the first comma ("in London,
    Stockholm and Singapore at reducing traffic and pollution": the commas alone end the
    list at the last "and"); empty where the parse reads no such list (a broken
    coordination is why the commas are read)."""
    members = serial_members(segment, owners=True)
    first = members[0][-1] if members else None
    if first is None or first.pos_ not in ("NOUN", "PROPN"):
        return []
    coordinated = parts.conjuncts_in_order(first)
    return coordinated if MIN_SERIAL <= len(coordinated) <= MAX_SERIAL else []


def _object_pieces(text: str, target: Span, members: list, referent: str,
                   split: bool = True) -> list[str]:
    """The object of an instruction, one piece per coordinated noun that shares a
    complement ("the current applications and recent advancements of light therapies"),
    per member of a group it names ("the side effects of A, B and C") or per member of
    its comma list; whole when not ``split`` (a list item: the asker's unit of work)."""
    if not split:
        return [parts.resolve_pronouns(text, target, referent).rstrip(" .?!;:")]
    owned = _owned_by_the_first(text, members)
    if owned:  # "renewable energy sources and their costs"
        return owned
    attribute = owned_group(text, target)
    if attribute is not None:  # "the history of the printing press and its effects on …"
        return attribute.questions()
    # "the costs, the effect on X, and lessons from Y", where the parse misses a member
    listed = serial_members(target)
    group = distributed_group(text, target) if len(members) < 2 else None
    if group is not None and len(group.members) >= len(listed):
        return group.questions()
    if len(listed) > len(members):
        shared = text[target.start_char:listed[0].start_char]  # "how X can be improved through "
        if any(mark in shared for mark in parts.LIST_INTRODUCERS):  # "three things: A, B, and C"
            shared = ""
        return [shared + parts.resolve_pronouns(text, piece, referent).rstrip(" .?!;:") for piece in listed]
    if len(members) < 2:
        return [parts.resolve_pronouns(text, target, referent).rstrip(" .?!;:")]
    complement = text[members[-1].idx + len(members[-1].text):target.end_char].rstrip(" .?!;:")
    return [f"{parts.text_of(text, parts.member_tokens(m))}{complement}" for m in members]


def _owned_by_the_first(text: str, members: list) -> list[str]:
    """Coordinated nouns whose later members have a possessive pronoun of the third
    person ("renewable energy sources and their costs"): the pronoun stands for the first,
    which is asked about, and each later member is asked as the first's ("the costs of
    renewable energy sources"); empty for any other list."""
    if len(members) < 2 or not any(owned_by_an_earlier_member(m) for m in members[1:]):
        return []
    first = parts.clean_phrase(parts.text_of(text, list(own_words(members[0]))))
    return [first, *(parts.resolve_pronouns(text, own_words(m), first).rstrip(" .?!;:")
                     for m in members[1:])]


def _owner_phrase(text: str, owner) -> str:
    """The noun phrase a list's colon follows, as a topic ("the Roman Empire", "PostgreSQL")."""
    doc = owner.doc
    # a gerund owner heads no noun chunk ("HTTP caching")
    chunk = next((c for c in doc.noun_chunks if c.root == owner), doc[owner.i:owner.i + 1])
    while len(chunk) > 1 and chunk[0].pos_ == "VERB":  # "Explain Kubernetes"
        chunk = chunk[1:]
    cut = next((c for c in doc.noun_chunks if c.end == chunk.start), None)
    if cut is not None and cut.root.head == owner.head:
        # one phrase the parse cut in two words of the verb ("the Linux page | cache",
        # "HTTP | caching")
        chunk = doc[cut.start:chunk.end]
    # its article stays ("the Linux page cache", "the water cycle"): the aspects are asked "of" it
    return parts.clean_phrase(parts.noun_phrase(text, chunk, keep_article=True))


def _aspect_facets(text: str, group: list, owned: str) -> list[Facet]:
    """One question per aspect a colon list names: "PostgreSQL: its architecture, its query
    planner …" → "What is the architecture of PostgreSQL?"."""
    return _aspects(list(zip(group, parts.member_phrases(text, group), strict=True)), owned)


def _aspects(nouns_and_phrases: list[tuple], owned: str) -> list[Facet]:
    """"What is/are the <phrase> of <owned>?" for each aspect, agreeing with its noun."""
    template = load_data("offline_plan")["multi_faceted"]["noun_facet"]
    return [Facet(text=template.format(be=_be(noun), facet=phrase, preposition="of", topic=owned),
                  source=phrase)
            for noun, phrase in nouns_and_phrases]


def _listed_after(owner) -> list[Span]:
    """The comma list after the colon or dash that follows ``owner``, to the sentence's end."""
    sentence = owner.sent
    mark = next((t for t in sentence if t.i > owner.i and t.text in parts.LIST_INTRODUCERS), None)
    end = sentence.end
    while end > (mark.i + 1 if mark is not None else end) and sentence.doc[end - 1].is_punct:
        end -= 1
    return serial_members(sentence.doc[mark.i + 1:end]) if mark is not None else []


def _list_owner(doc: Doc) -> tuple[Token, list[Span]] | None:
    """The noun a colon or dash follows when a comma list of three or more aspects comes
    after it ("the Marshall Plan — its goals, how much money was involved, and its
    effect"), with that list; None without one. A list of questions alone is asked about
    the heading (``subject.heading_subject``)."""
    for mark in doc:
        before = doc[mark.i - 1] if mark.i else None
        if mark.text not in parts.LIST_INTRODUCERS or before is None \
                or not (before.pos_ in ("NOUN", "PROPN") or before.tag_ == "VBG"):  # "HTTP caching:"
            continue
        listed = _listed_after(before)
        if len(listed) >= 3:
            return before, listed
    return None


def _listed_aspects(text: str, listed: list[Span], owned: str) -> list[Facet]:
    """One question per aspect of a comma list after a colon, without the possessive or
    article that opens it ("its architecture" → "What is the architecture of X?"), the
    aspect's own complement after X ("its effect on Y" → "What is the effect of X on
    Y?"); an aspect asked as a question is asked about X ("how much money was involved")."""
    templates = load_data("offline_plan")["multi_faceted"]
    facets = []
    for member in listed:
        if member[0].tag_ in parts.WH_TAGS:
            facets.append(Facet(text=templates["phrase_facet"].format(facet=_anchored(
                parts.clean_phrase(parts.resolve_pronouns(text, member, owned)), owned, templates)),
                source=member.text))
            continue
        opening = member[0].dep_ in ("poss", "det") and len(member) > 1
        head = member.root if member.root.pos_ in ("NOUN", "PROPN") else member[-1]
        phrase = parts.clean_phrase(text[(member[1] if opening else member[0]).idx:head.idx + len(head.text)])
        complement = parts.clean_phrase(text[head.idx + len(head.text):member.end_char])
        facets.append(Facet(text=templates["noun_facet"].format(
            be=_be(head), facet=phrase, preposition="of",
            topic=f"{owned} {complement}" if complement else owned), source=member.text))
    return facets


def _be(noun) -> str:
    """The verb "to be" that agrees with a noun in a "What is/are the …" question."""
    return "are" if parts.plural(noun) else "is"


def _kinds_asked_apart(text: str, doc: Doc, owned_only: bool) -> list[Facet]:
    """A question about kinds of one plural noun ("What are the environmental and economic
    impacts of lithium mining?", "the security and performance implications of X": its
    adjectives or the nouns that modify it) asked once per kind, the others left out
    ("What are the environmental impacts of lithium mining?"): each kind is a facet to
    research on its own. A singular noun is one thing with every property ("a free and open-source
    editor"); none for a question without such a group. ``owned_only``: only kinds of
    what something has (an "of" complement: "the security and performance implications of
    X"), where the question reads as a comparison ("Compare electric and hybrid cars"
    compares the kinds)."""
    heads = [(g, parts.shared_head(g)) for g in [*parts.modifier_groups(doc), *parts.coordinated_groups(doc)]
             if len(g) >= 2]
    root = next(iter(doc.sents)).root
    # what the question asks for: its main clause's subject or object ("What are the …
    # impacts", "How do I weigh the … risks"), not a noun inside a clause of its own ("…
    # where Serbian and Croatian languages are both official")
    groups = [g for g, head in heads if head is not None and parts.plural(head) and head.head == root
              and (not owned_only or any(c.dep_ == "prep" and c.lower_ == "of" for c in head.children))]
    if not groups:
        return []
    group = max(groups, key=len)
    words = [parts.hyphenated_word(m) for m in group]
    start, end = words[0].start_char, words[-1].end_char
    return [Facet(text=parts.as_question(text[:start] + parts.text_of(text, list(word)) + text[end:]),
                  source=member.text) for member, word in zip(group, words, strict=True)]


def _noun_facets(text: str, group: list) -> list[Facet]:
    """"the causes, effects and solutions to climate change" → one question per noun,
    about the object they share."""
    preposition, shared = parts.shared_object(text, group)
    shared = parts.clean_phrase(shared)
    if not shared:
        return []
    template = load_data("offline_plan")["multi_faceted"]["noun_facet"]
    out = []
    for member, phrase in zip(group, parts.member_phrases(text, group), strict=True):
        # the written preposition belongs to the member it is written after or attached to
        # ("the causes, effects and solutions to X": solutions to X, causes of X)
        own = member is group[-1] or any(c.dep_ == "prep" and c.lower_ == preposition
                                         for c in member.children)
        out.append(Facet(text=template.format(be=_be(member), facet=phrase,
                                              preposition=preposition if own else "of", topic=shared),
                         source=phrase))
    return out
