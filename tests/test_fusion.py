from research_studio.knowledge.fusion import reciprocal_rank_fusion


def test_rrf_arithmetic_with_weights():
    fused = dict(reciprocal_rank_fusion({"dense": ["a", "b"], "bm25": ["b", "c"]},
                                        {"dense": 1.0, "bm25": 0.5}, k=60))
    assert fused["a"] == 1.0 / 61
    assert fused["b"] == 1.0 / 62 + 0.5 / 61
    assert fused["c"] == 0.5 / 62


def test_rrf_order_and_ties():
    ranked = reciprocal_rank_fusion({"x": ["a", "b"], "y": ["b", "a"]}, {}, k=10)
    assert [doc for doc, _ in ranked] == ["a", "b"]  # tie: first seen wins
    ranked = reciprocal_rank_fusion({"x": ["a", "b"], "y": ["b"]}, {}, k=10)
    assert ranked[0][0] == "b"


def test_zero_weight_ignores_a_ranking():
    ranked = reciprocal_rank_fusion({"dense": ["a"], "bm25": ["z"]}, {"bm25": 0.0})
    assert ranked[0][0] == "a"
    assert dict(ranked)["z"] == 0.0
