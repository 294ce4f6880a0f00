"""The sentence encoder: batches are formed by a token budget, and how texts are batched
never changes their vectors."""

import numpy as np
import pytest

from research_studio.knowledge.embeddings import DIMENSION, MiniLMOnnxEmbeddings

TEXTS = ["", "Bees dance.", "The waggle dance tells other bees where the flowers are. " * 3,
         "word " * 600,  # past the model's 256 tokens: truncated, not refused
         "Mars is red because iron oxide covers its surface.", "Why is Mars red?"]


@pytest.mark.parametrize(("batch_size", "batch_tokens"), [(1, 512), (8, 16), (8, 512), (64, 10**6)])
def test_vectors_do_not_depend_on_how_texts_are_batched(batch_size, batch_tokens):
    alone = np.stack([MiniLMOnnxEmbeddings(batch_size=1).embed_array([t])[0] for t in TEXTS])
    batched = MiniLMOnnxEmbeddings(batch_size, batch_tokens=batch_tokens).embed_array(TEXTS)
    assert batched.shape == (len(TEXTS), DIMENSION)
    assert np.allclose(batched, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    # the vectors stay in the order of the texts: the question is nearest its answer
    assert int(np.argmax(batched[:-1] @ batched[-1])) == TEXTS.index(
        "Mars is red because iron oxide covers its surface.")


def test_batches_hold_at_most_the_token_budget(monkeypatch):
    encoder = MiniLMOnnxEmbeddings(batch_size=8, batch_tokens=40)
    seen: list[tuple[int, int]] = []
    embed_batch = encoder._embed_batch

    def recording(tokens: list[list[int]]) -> np.ndarray:
        seen.append((len(tokens), max(len(t) for t in tokens)))
        return embed_batch(tokens)

    monkeypatch.setattr(encoder, "_embed_batch", recording)
    encoder.embed_array(["short one"] * 20 + ["a longer text of many more words " * 4] * 3)
    assert sum(count for count, _ in seen) == 23
    # padded to the longest text of its batch, no batch is over budget unless it holds one
    # text that is longer by itself
    assert all(count * width <= 40 or count == 1 for count, width in seen)
    assert max(count for count, _ in seen) == 8  # short texts: the count caps the batch
