"""The relevance gate's pieces: encoder relevance and the bridge to a chain's next hop."""

from __future__ import annotations

from research_studio.graph.relevance import bridged_claims, claim_relevance, relevant_claims
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings

ENCODER = MiniLMOnnxEmbeddings()


def similarity(a: list[str], b: list[str]):
    return ENCODER.embed_array(a) @ ENCODER.embed_array(b).T


def claim(claim_id: str, text: str, sub_question_id: str = "sq_001") -> dict:
    return {"claim_id": claim_id, "text": text, "sub_question_id": sub_question_id}


def test_relevance_is_the_closer_of_the_question_and_the_claims_own_sub_question():
    question = "What causes ocean tides, and why do coral reefs bleach?"
    claims = [claim("c1", "Rising sea temperatures cause coral bleaching.", "sq_002"),
              claim("c2", "An object's type is accessed by the built-in function type().")]
    relevance = claim_relevance(question, {"sq_001": "What causes ocean tides?",
                                           "sq_002": "Why do coral reefs bleach?"}, claims, similarity)
    own = float(similarity([claims[0]["text"]], ["Why do coral reefs bleach?"])[0, 0])
    assert relevance["c1"] == round(own, 4) and relevance["c1"] > 0.5
    assert relevance["c2"] < 0.3
    assert relevant_claims(claims, relevance, 0.3) == [claims[0]]


def test_a_claim_below_the_gate_is_kept_when_it_names_the_bridge_a_shown_claim_names():
    question = "Who married the publisher of The North Star?"
    shown = claim("c1", "The North Star was published by the abolitionist Frederick Douglass.")
    hop = claim("c2", "In 1884 Frederick Douglass married Helen Pitts.")
    subject_only = claim("c3", "The North Star merged with another paper in 1851.")
    unrelated = claim("c4", "Frederick Douglass wrote three autobiographies.")
    relevance = {"c1": 0.6, "c2": 0.25, "c3": 0.25, "c4": 0.1}
    kept = bridged_claims(question, [shown, hop, subject_only, unrelated], [shown], relevance, 0.2)
    # c3 names only what the question names; c4 names the bridge but is below the floor
    assert kept == [hop]
    assert bridged_claims(question, [hop, unrelated], [], relevance, 0.2) == []
