"""Offline question understanding on spaCy's English parser and the sentence encoder:
the question's kind, items, facets, positions and clause chain, computed once."""

from research_studio.understanding.analysis import understand
from research_studio.understanding.decompose import decompose
from research_studio.understanding.structure import QuestionKind, QuestionStructure

__all__ = ["QuestionKind", "QuestionStructure", "decompose", "understand"]
