"""Pydantic schemas of every LLM step, shaped for llama.cpp grammars.

Every string has ``max_length``, every list ``max_length``, scores are enums
(PLATFORM.md): a small model then cannot ramble past the token limit.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

Score = Literal[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
Phrase = Annotated[str, Field(max_length=120)]
Line = Annotated[str, Field(max_length=200)]


class AnalysisOutput(BaseModel):
    intent: str = Field(max_length=200)
    query_class: Literal["factual", "comparison", "explanation", "evaluation", "how_to",
                         "exploratory", "multi_hop"]
    primary_subject: str = Field(max_length=100)
    topic_focus: str = Field(max_length=100)
    temporal_scope: str = Field(max_length=60)
    complexity: Literal["simple", "moderate", "complex"]
    ambiguity_level: Literal["low", "medium", "high"]
    needs_clarification: bool
    clarification_question: str = Field(max_length=200)
    suggested_template: Literal["quick_fact", "general", "deep_dive", "comparison", "academic",
                                "hierarchical"]


class CoverageOutput(BaseModel):
    coverage: Score
    gaps: list[Phrase] = Field(max_length=4)
    questions: list[Line] = Field(min_length=2, max_length=3)


class SubQuestionOutput(BaseModel):
    question: str = Field(max_length=200)
    priority: Score
    rationale: str = Field(max_length=160)


class DecompositionOutput(BaseModel):
    strategy: Literal["comparison", "multi_faceted", "causal", "temporal", "evaluative",
                      "sequential", "definitional"]
    sub_questions: list[SubQuestionOutput] = Field(min_length=2, max_length=5)
    outline: list[Phrase] = Field(min_length=2, max_length=6)


class FindingOutput(BaseModel):
    statement: str = Field(max_length=240)
    quote: str = Field(max_length=300)
    source_number: Literal[1, 2, 3, 4, 5, 6, 7, 8]


class FindingsOutput(BaseModel):
    findings: list[FindingOutput] = Field(max_length=4)


class SubAnswerOutput(BaseModel):
    direct_answer: str = Field(max_length=400)
    caveats: list[Line] = Field(max_length=3)
    confidence: Score


class SummaryOutput(BaseModel):
    summary: str = Field(max_length=1200)
