"""Request and response bodies of the API (they are also its OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from research_studio.config import ResearchConfig, apply_template


class ResearchOptions(ResearchConfig):
    """The CLI's research options and every threshold of the graph; unknown fields are
    refused. ``enable_hierarchical`` is seed 000's spelling of ``mode``."""

    enable_hierarchical: bool | None = None

    def to_config(self) -> ResearchConfig:
        values = self.model_dump(exclude={"enable_hierarchical"})
        explicit = set(self.model_fields_set) - {"enable_hierarchical", "template"}
        if self.enable_hierarchical is not None and "mode" not in self.model_fields_set:
            values["mode"] = "hierarchical" if self.enable_hierarchical else "flat"
            explicit.add("mode")
        # over HTTP a clarifying question is answered with POST …/clarification
        values["interactive"] = values["clarify"] != "never"
        config = ResearchConfig(**values)
        return apply_template(config, self.template, explicit) if self.template else config


class SessionCreate(BaseModel):
    model_config = {"extra": "forbid"}

    query: str = Field(max_length=200_000, description="The question to research.")
    config: ResearchOptions = Field(default_factory=ResearchOptions)


class SessionCreated(BaseModel):
    session_id: str
    status: str
    links: dict[str, str]


class SessionSummary(BaseModel):
    id: str
    query: str
    status: str
    stage: str
    mode: str
    created_at: str
    updated_at: str


class SessionPage(BaseModel):
    items: list[SessionSummary]
    total: int
    limit: int
    offset: int


class SessionDetail(SessionSummary):
    error: str | None = None
    progress: dict[str, Any]
    pending_clarification: dict[str, Any] | None = None
    pending_plan: dict[str, Any] | None = Field(default=None, description=(
        "The plan a session in awaiting_plan_review waits on: its sub-questions with id, "
        "question, priority, strategy, rationale and budgets; decide with POST …/plan."))
    config: dict[str, Any]


class ClarificationAnswer(BaseModel):
    model_config = {"extra": "forbid"}

    answer: str = Field(min_length=1, max_length=20_000,
                        description="The reply to the pending questions, or /end to stop asking.")


class Accepted(BaseModel):
    session_id: str
    status: str


class ErrorMessage(BaseModel):
    """Every refusal but a validation error: 400, 404, 409, 413, 503 (and 401 with a key
    set)."""

    detail: str


class ValidationProblem(BaseModel):
    """One reason a request was refused: where (``["body", "config", "kb"]``), why, and a
    machine-readable kind. The input is never echoed back (it may be huge)."""

    loc: list[str | int]
    msg: str
    type: str


class ValidationErrors(BaseModel):
    """The body of every 422, whether the schema or a later check refused the request."""

    detail: list[ValidationProblem]


class NotComplete(BaseModel):
    """A 409 from the results route: the session is not complete yet."""

    detail: str
    status: str
    stage: str


class KnowledgeBaseRow(BaseModel):
    name: str
    chunks: int
    created_at: str
    embedding_model: str


class KnowledgeBaseList(BaseModel):
    knowledge_bases: list[KnowledgeBaseRow]
