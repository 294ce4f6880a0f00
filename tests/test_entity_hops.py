"""Which entities of retrieved evidence become the next hop: names connected to the
question and specific to the collection, not words every passage shares."""

from research_studio.graph.text_analysis import linked_entities
from research_studio.knowledge.lexical import LexicalIndex

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
