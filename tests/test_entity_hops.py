"""Which entities of retrieved evidence become the next hop: names connected to the
question and specific to the collection, not words every passage shares."""

from research_studio.config import ResearchConfig
from research_studio.graph.text_analysis import linked_entities, titled_passage
from research_studio.knowledge.lexical import LexicalIndex
from research_studio.knowledge.structure import CODE, TextBlock

QUESTION = "Who is the spouse of the actress who plays Scarlett in Gone with the Wind?"
PASSAGES = [
    "Scarlett O'Hara. Scarlett O'Hara is the heroine of Gone with the Wind, portrayed by "
    "Vivien Leigh in the 1939 film. The American film opened in December.",
    "Gone with the Wind (film). The American film premiered in Atlanta in December 1939. "
    "It was produced by David O. Selznick.",
    "Hattie McDaniel. Hattie McDaniel was an American actress and singer.",
]
CORPUS = [*PASSAGES, *[f"An American town founded in December {1800 + i} near the river." for i in range(30)]]


def test_the_hop_named_beside_the_question_terms_ranks_first():
    index = LexicalIndex([str(i) for i in range(len(CORPUS))], CORPUS)
    ranked = linked_entities(QUESTION, PASSAGES, index.specificity)
    assert ranked[0] == "Vivien Leigh", ranked
    # words most passages share name nothing in particular
    assert "American" not in ranked[:3] and "December" not in ranked[:3]
    # names the question already says are not hops
    assert not any(e.lower() in QUESTION.lower() for e in ranked)


def test_specificity_orders_rare_names_above_common_words():
    index = LexicalIndex([str(i) for i in range(len(CORPUS))], CORPUS)
    assert index.specificity("Vivien Leigh") > 0.8
    assert index.specificity("American") < 0.3
    assert index.specificity("") == 0.0
    assert LexicalIndex([], []).specificity("anything") == 0.0


def test_without_a_collection_the_question_link_alone_ranks():
    ranked = linked_entities(QUESTION, PASSAGES)
    assert ranked[0] == "Vivien Leigh"
    assert linked_entities(QUESTION, []) == []


# ---- nested questions: the next hop climbs the clause chain ----------------------------------------
NESTED_CLAUSES = ["Which county shares a border with the county", "the most populous city in the state",
                  "WDXQ can be found is located"]


def test_follow_up_hops_climb_the_chain_of_the_question():
    from research_studio.graph.nodes.strategy import follow_up_queries

    source = {"source_id": "s1", "title": "WDXQ",
              "text": "WDXQ is a radio station licensed to Cochran, Georgia, United States."}
    finding = {"finding_id": "f1", "source_id": "s1", "text": source["text"], "confidence": 0.9}
    hop = {"sub_question_id": "sq_002", "question_text": "the state where WDXQ can be found",
           "hop_clauses": NESTED_CLAUSES, "queries_done": []}
    towns = [f"Town {i} is a small town in the United States." for i in range(20)]
    index = LexicalIndex([str(i) for i in range(21)], [source["text"], *towns])
    [query] = follow_up_queries(hop, [finding], {"s1": source}, 1, index.specificity)
    entity, terms = query.split(" ", 1)
    assert entity in {"Cochran", "Georgia"}, query
    assert terms.startswith("most populous city"), query  # the next clause out, not the last one


def test_names_in_a_flattened_infobox_count_with_the_part_that_names_them():
    """The whole box shares every question term; the name beside the asked-for fact
    ("portrayed by Vivien Leigh") must outrank names listed elsewhere in the box."""
    fields = " ".join(f"field {i} value {i};" for i in range(40))
    infobox = ("Scarlett O'Hara Scarlett O'Hara as portrayed by Vivien Leigh in the 1939 film "
               f"adaptation of Gone with the Wind information {fields} sequel actress "
               "Joanne Whalley (Scarlett) gender female")
    assert len(infobox) > 400
    ranked = linked_entities(QUESTION, [infobox])
    assert ranked.index("Vivien Leigh") < ranked.index("Joanne Whalley")


# ---- the kind the first hop asks for -----------------------------------------------------------
def test_names_that_read_like_the_asked_kind_move_up():
    from research_studio.config import WebSettings
    from research_studio.graph.answer_kind import rank_by_kind
    from research_studio.graph.deps import ResearchDeps

    # the research's own sentence-encoder similarity (the real MiniLM); nothing else is used
    encoder = ResearchDeps(coordinator=None, kb=None, web=WebSettings(provider="none")).similarity
    # the anchor's evidence names the author first; the question asks for a city
    assert rank_by_kind("city", ["Pope John XXIII", "Vatican City"], encoder)[0] == "Vatican City"
    ranked = rank_by_kind("country", ["Karaginsky Island", "Commander Islands", "Russian Federation"],
                          encoder)
    assert ranked.index("Russian Federation") < ranked.index("Commander Islands")
    assert sorted(ranked) == sorted(["Karaginsky Island", "Commander Islands", "Russian Federation"])
    assert rank_by_kind("city", ["Rome"], encoder) == ["Rome"]


def test_a_plan_does_not_hop_twice_on_one_entity():
    from research_studio.graph.text_analysis import distinct_entities

    assert distinct_entities(["Pope John XXIII", "John XXIII", "Vatican City"]) == \
        ["Pope John XXIII", "Vatican City"]
    assert distinct_entities(["Einstein's", "Albert Einstein", "Nobel Prize"]) == \
        ["Einstein's", "Nobel Prize"]
    assert distinct_entities(["Bank of America", "Bank of Cyprus"]) == ["Bank of America", "Bank of Cyprus"]


# ---- a name whose head word is the kind asked for ------------------------------------------------
KIND_QUESTION = "Of which river is the river the Oak Bridge crosses a tributary?"


def test_the_question_asks_for_its_lower_case_nouns_not_for_its_names():
    from research_studio.graph.text_analysis import answer_kinds, kinds_named

    kinds = answer_kinds(KIND_QUESTION)
    assert "river" in kinds and "tributary" in kinds
    assert not {"oak", "bridge"} & kinds  # capitalised: part of a name the question gives
    assert answer_kinds("What team was Anna Benson's husband on?") == {"team", "husband"}
    assert kinds_named("Nelson River", kinds) == {"river"}
    assert kinds_named("Oak Bridge Road", kinds) == set()
    assert kinds_named("", kinds) == set()


def test_a_name_of_the_asked_kind_outranks_names_found_beside_it():
    """Three names in one sentence earn the same link to the question; the river is
    what a question about a river follows first, where its shared word used to halve it."""
    passage = ("Oak Bridge. The Oak Bridge spans a deep channel of the Nelson River south of "
               "Cross Lake, linking eastern Manitoba with the rest of Canada.")
    weight = ResearchConfig().asked_kind_weight
    assert linked_entities(KIND_QUESTION, [passage], asked_kind_weight=weight)[0] == "Nelson River"
    # a name that restates the question's own name stays discounted
    restating = "Oak Bridge Road. Oak Bridge Road runs past Cross Lake."
    ranked = linked_entities(KIND_QUESTION, [restating], asked_kind_weight=weight)
    assert ranked.index("Cross Lake") < ranked.index("Oak Bridge Road"), ranked


# ---- what the plan follows in a manual -------------------------------------------------------
MANUAL_QUESTION = "How do I remove rows from a table?"


def test_names_only_in_code_are_not_linked():
    """A code block's identifiers and sample data name nothing a reader researches; the
    same name in prose is linked."""
    code = ("Deletions. Rows can be removed from a table.\n\n```\nDELETE FROM weather "
            "WHERE city = 'Hayward';\n```\n")
    assert "Hayward" not in linked_entities(MANUAL_QUESTION, [code])
    prose = "Deletions. Rows of a table about Hayward can be removed."
    assert "Hayward" in linked_entities(MANUAL_QUESTION, [prose])


def test_a_name_weighing_less_than_one_mention_is_not_followed():
    passages = ["Deletions. Rows are removed from a table with the DELETE command.",
                "Routine maintenance. See Chapter 14 for details about the planner."]
    weakly = linked_entities(MANUAL_QUESTION, passages)
    assert "See Chapter" in weakly  # named, in a later passage, beside no word of the question
    floor = ResearchConfig().min_linked_weight
    followed = linked_entities(MANUAL_QUESTION, passages, min_weight=floor)
    assert "DELETE" in followed and "See Chapter" not in followed


def test_a_passage_title_in_title_case_is_linked_whole():
    """A page's title is read as one name: its capitalised fragments ("Next") name
    nothing to follow."""
    title = "Upgrading from One Stable Distribution to the Next"
    text = "Once the sources are updated, run apt full-upgrade with aptitude or synaptic."
    question = "How do I upgrade Debian to a new stable release?"
    linked = linked_entities(question, [titled_passage(title, text)])
    assert "Next" not in linked and "One Stable Distribution" not in linked
    assert title in linked


def test_a_code_block_the_knowledge_base_recorded_names_nothing():
    """A chunk that opens inside a console listing shows no fence; the block recorded for it
    at ingestion says it is code, and its dates and devices are not followed."""
    listing = ("brw-rw---- 1 root disk 253, 1 Mar  1 00:19 /dev/dm-1\n"
               "brw-rw---- 1 root disk 253, 2 Mar  1 00:19 /dev/dm-2")
    prose = "\n\nThe LVM volumes appear as device-mapper nodes, which Debian creates at boot."
    question = "How do I set up LVM on a new disk?"
    assert "Mar" in linked_entities(question, [titled_passage("", listing + prose)])
    recorded = [TextBlock(0, len(listing), CODE)]
    linked = linked_entities(question, [titled_passage("", listing + prose, recorded)])
    assert "Mar" not in linked and "Debian" in linked
