"""The offline decomposition of a question by its kind (seed 001's strategies): one
sub-question per compared item, facet or position, or the question seen from its
causes, its history, or the options it weighs.

Chains, single facts and open questions are decomposed against the knowledge base
(``graph/nodes/plan.py``): their parts are the entities the evidence links to, which the
question alone cannot name; the wording of those parts as questions is here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from lemminflect import getInflection

from research_studio.prompts import load_data
from research_studio.understanding.embedded import asking_word, embedded_question, lead_and_question
from research_studio.understanding.facets import WH_TAGS
from research_studio.understanding.names import without_possessive
from research_studio.understanding.parser import parse
from research_studio.understanding.structure import MIN_QUESTION_WORDS, QuestionKind, QuestionStructure

K = QuestionKind


class PlanRow(NamedTuple):
    text: str  # the sub-question as the reader sees it
    priority: float
    rationale: str
    query: str = ""  # what research searches, where it differs from the text


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _comparison(s: QuestionStructure, limit: int) -> list[PlanRow]:
    """An instruction to compare ("Compare X, Y and Z for …") gets each item's profile and
    how they differ; a question that compares ("Which film is newer, X or Y?") is asked
    itself, with what is known about each item beside it. Attributes the question lists
    ("on cost and reliability") are compared one by one where the limit leaves room."""
    t = load_data("offline_plan")["comparison"]
    dims = _join(s.dimensions) if s.dimensions else ""
    # a question about the items together ("what's different between them?") takes the
    # place of how they differ; each item is then researched as if it were not asked
    together = [f.text.format(items=_join(s.items)) for f in s.facets if "{items}" in f.text]
    # one that names some of them ("…, and when should I avoid WAL?") is asked as it stands
    own = [f.text for f in s.facets if "{item" not in f.text]
    s = replace(s, facets=[f for f in s.facets if "{item}" in f.text])
    # "what is each one good for?" asked of each item, once
    asked_each = {item: _asked_of(item, s.facets[0].text) for item in s.items} if s.facets else {}
    if any(len(asked.split()) < MIN_QUESTION_WORDS for asked in asked_each.values()):
        # "What causes X?" is under a sub-question's words: the question asks it of every
        # item already, and each item is researched beside it
        s, asked_each = replace(s, facets=[]), {}
    asking = s.asks_itself and not s.facets
    # the question itself, unless it would leave an item without a sub-question of its own
    whole = asking and len(s.items) + len(own) < limit
    rows: list[PlanRow] = [(s.as_question, 1.0, "the question itself, researched directly")] if whole else []
    for item in s.items:
        query = ""  # searched as worded, but for a template whose words are the reader's
        if item in asked_each:  # "what is each one good for?"
            text = asked_each[item]
        elif dims:
            text = t["item_with_dimensions"].format(item=item, dimensions=dims, purpose=s.purpose)
        elif asking and len((asked := _asked_of(item, s.item_question)).split()) >= MIN_QUESTION_WORDS:
            text = asked  # "Which handles JSON better, X or Y?" → "Does X handle JSON better?"
        elif asking:
            text = t["item_of_question"].format(item=item, purpose=s.purpose)
        else:  # "main characteristics, strengths and weaknesses" are not the evidence's words
            text, query = t["item"].format(item=item, purpose=s.purpose), f"{item}{s.purpose}"
        rows.append(PlanRow(text, 0.9, f"compared item: {item}", query))
    rows += [PlanRow(text, 0.8, "a question the text asks beside the comparison") for text in own]
    if s.dimensions_listed and len(rows) + len(s.dimensions) <= limit:
        # "… on performance, learning curve and ecosystem": each attribute compared on its own
        return rows + [(t["contrast_with_dimensions"].format(items=_join(s.items), dimensions=d,
                                                             purpose=s.purpose),
                        0.8, f"the compared items on {d}") for d in s.dimensions]
    if together:
        return rows + [PlanRow(text, 0.8, "the compared items together") for text in together][
            :max(1, limit - len(rows))]
    if len(rows) < limit and not asking:
        contrast = t["contrast_with_dimensions"] if dims else t["contrast"]
        rows.append(PlanRow(contrast.format(items=_join(s.items), dimensions=dims, purpose=s.purpose),
                            0.8, "how the compared items differ",
                            " ".join(filter(None, (_join(s.items), dims))) + s.purpose))
    return rows


def _asked_of(item: str, question: str) -> str:
    """``question`` asked of ``item``, which takes the place of "{item}"; the verb before
    it in the singular agrees with a plural common noun ("Is {item} cheaper to run?" of
    "heat pumps" → "Are heat pumps cheaper to run?", "How does {item} explain inflation?"
    of "Keynesian economists" → "How do …"); a name stays singular ("Does Postgres …?")."""
    question = " ".join(question.split())
    text = question.replace("{item}", item)
    if not text:
        return ""
    item_doc = parse(item, judge_language=False)
    head = next(iter(item_doc.sents)).root if item_doc is not None and len(item_doc) else None
    # a capitalised word is a name, whatever its ending ("Postgres", "Kubernetes")
    if head is None or head.tag_ != "NNS" or head.text[:1].isupper() or "{item}" not in question:
        return text
    doc = parse(text, judge_language=False)
    start = question.index("{item}")
    # the auxiliary or verb right before the item, after no word but a question word
    before = [t for t in doc or () if t.idx + len(t.text) <= start]
    agreeing = before[-1] if before and all(t.tag_ in WH_TAGS for t in before[:-1]) else None
    if agreeing is None or agreeing.tag_ not in ("VBZ", "VBD") or agreeing.morph.get("Number") != ["Sing"]:
        return text
    forms = getInflection(agreeing.lemma_, tag="VBP" if agreeing.tag_ == "VBZ" else "VBD")
    if not forms:
        return text
    plural = forms[-1]  # "are" of ("am", "are"), "were" of ("was", "were")
    if agreeing.text[:1].isupper():
        plural = plural[:1].upper() + plural[1:]
    return text[:agreeing.idx] + plural + text[agreeing.idx + len(agreeing.text):]


def _facets(s: QuestionStructure, limit: int) -> list[PlanRow]:
    return [(f.text, round(max(0.6, 1.0 - 0.1 * i), 2), f"facet of the question: {f.source}")
            for i, f in enumerate(s.facets)]


def _evaluative(s: QuestionStructure, limit: int) -> list[PlanRow]:
    t = load_data("offline_plan")["evaluative"]
    topic = s.topic or s.text
    if s.positions:
        rows = [(t["position"].format(position=p, topic=topic), 0.9, f"position held by {p}")
                for p in s.positions[:max(1, limit - 1)]]
        evidence = (t["evidence"].format(topic=topic), 1.0, "the evidence the positions are weighed against")
        return [*rows, evidence]
    if s.claim:  # "Does coffee cause dehydration?": the evidence for and against
        rows = [(s.as_question, 1.0, "the question itself, researched directly"),
                (t["claim_for"].format(claim=s.claim), 0.9, "evidence for the statement asked about"),
                (t["claim_against"].format(claim=s.claim), 0.8, "evidence against the statement asked about")]
        if s.topic:
            background = background_question(s.written_topic, s.action)
            rows.append((background, 0.7, "background on the main subject"))
        return rows
    if not s.topic or not s.asks_itself or not s.weighs_options:
        # no subject to weigh options for, an instruction that weighs none ("Summarize
        # the key findings of X") or a question that asks for no option ("Should we keep
        # using SQLite …?", "Are A and B both from X?"): researched like an open question
        return []
    return [(s.as_question, 1.0, "the question itself, researched directly"),
            (t["options"].format(topic=topic, purpose=s.purpose), 0.9, "the options being weighed"),
            (t["criteria"].format(topic=topic, purpose=s.purpose), 0.8, "what the choice depends on"),
            (t["tradeoffs"].format(topic=topic, purpose=s.purpose), 0.7, "evidence for each option")]


def _templated(section: str, keys: list[str]):
    def rows(s: QuestionStructure, limit: int) -> list[PlanRow]:
        if not s.topic:  # "How did <the whole question> originate?" asks nothing
            return []
        t = load_data("offline_plan")[section]
        return [(s.as_question, 1.0, "the question itself, researched directly"),
                *((t[key].format(topic=s.written_topic), round(0.9 - 0.1 * i, 2), f"{section} view: {key}")
                  for i, key in enumerate(keys))]
    return rows


def _causal(s: QuestionStructure, limit: int) -> list[PlanRow]:
    t = load_data("offline_plan")["causal"]
    if not s.topic and not s.reason_for:
        return []
    # "Why did X fall?" asks the factors that led X to fall; "How does X affect Y?" the
    # mechanisms that lead X to affect Y
    key = "mechanisms" if s.asks_effects else "factors"
    asked = t[f"{key}_of_event"].format(event=s.reason_for) if s.reason_for \
        else t[key].format(topic=s.written_topic)
    why = "the mechanisms the question asks about" if s.asks_effects else "the causes the question asks about"
    if s.outcome_of:  # "What happens if the primary server fails?" asks for consequences
        asked = t["outcome_of_event"].format(event=s.outcome_of)
        why = "the consequences the question asks about"
    rows = [(s.as_question, 1.0, "the question itself, researched directly"), (asked, 0.9, why)]
    if s.topic:
        rows.append((background_question(s.written_topic, s.action), 0.7, "background on the main subject"))
    return rows


_BY_KIND = {
    K.COMPARISON: _comparison,
    K.MULTI_FACETED: _facets,
    K.EVALUATIVE: _evaluative,
    K.CAUSAL: _causal,
    K.TEMPORAL: _templated("temporal", ["past", "present", "future"]),
}


def decompose(structure: QuestionStructure, limit: int) -> list[PlanRow]:
    """Up to ``limit`` sub-questions for the kinds the question alone can be split by;
    empty for the kinds that need the knowledge base (chain, single fact, open), and for
    a question of a templated kind whose parse found no subject to fill the templates."""
    build = _BY_KIND.get(structure.kind)
    if build is None:
        return []
    rows = build(structure, limit)
    seen: set[str] = set()  # exact text: items may differ in case alone ("ls -a", "ls -A")
    unique = [PlanRow(*r) for r in rows if r[0] not in seen and not seen.add(r[0])]
    return unique[:limit]


def background_question(topic: str, action: str = "") -> str:
    """Background on the question's subject, or on doing what the asker asks how to do."""
    t = load_data("offline_plan")["open"]
    return t["background_of_action"].format(action=action) if action else t["background"].format(topic=topic)


def linked_questions(entities: list[str], question: str) -> list[str]:
    """The sub-questions that follow names the evidence links the question to: what each
    name tells about the question, the question read inside it ("What can we learn from
    Colin Firth about who played the king in The King's Speech?"). The question is parsed
    once for all of them."""
    t = load_data("offline_plan")["linked"]
    names = [without_possessive(entity) for entity in entities]
    doc = parse(question)
    if embedded := embedded_question(question, doc):
        return [t["through_entity"].format(entity=name, question=embedded) for name in names]
    if led := lead_and_question(question, doc):
        return [t["through_entity_after"].format(lead=led.lead, entity=name, question=led.question)
                for name in names]
    whole = question.rstrip(" .!?") + "?"
    return [t["through_entity_quoted"].format(entity=name, question=whole) for name in names]


def anchor_question(anchor: str) -> str:
    """A nested question's innermost clause asked ("the country where X is located" →
    "What is the country where X is located?"), with "Who" where a personal relative
    pronoun opens it ("the actress who played Ripley"; tagged WP, where "which", "that"
    and "where" are WDT or WRB)."""
    t = load_data("offline_plan")["linked"]
    doc = parse(anchor)
    relative = next((tok for tok in doc if tok.tag_ in WH_TAGS), None) if doc is not None else None
    person = relative is not None and relative.tag_ == "WP"
    return t["anchor_person" if person else "anchor_thing"].format(anchor=anchor)


def next_hop_questions(entities: list[str], structure: QuestionStructure) -> list[str]:
    """The clause just outside a nested question's anchor, asked of each name found for
    the anchor: where that clause opens the question, the name takes the anchor's noun
    phrase ("Who was the first president in the country" → "Who was the first president
    in Russia?"); otherwise what the name tells about the question."""
    if opening := _outer_opening(structure):
        return [f"{opening} {without_possessive(entity)}?" for entity in entities]
    return linked_questions(entities, structure.as_question)


def _outer_opening(structure: QuestionStructure) -> str:
    """The outer clause of a two-clause question without the anchor's noun phrase that
    ends it ("Who was the first president in"), when it opens the question and holds its
    main verb; empty otherwise."""
    clauses, anchor = structure.clauses, structure.anchor or ""
    doc = parse(structure.text)
    if len(clauses) != 2 or doc is None or not len(doc) \
            or (asking_word(doc) is None and doc[0].pos_ != "AUX"):
        return ""
    outer = clauses[0]
    # the anchor's noun phrase ends the outer clause: the longest such word run
    cuts = [k for k in range(1, len(outer)) if outer[k - 1] == " " and anchor.startswith(outer[k:])]
    opening = outer[:cuts[0]].rstrip() if cuts else ""
    # the opening holds the question's main verb: nothing of the question follows the
    # anchor ("Where did the arguer that … declare …?" does not end at "the arguer")
    root = next(iter(doc.sents)).root
    return opening if opening and root.idx + len(root.text) <= len(opening) else ""
