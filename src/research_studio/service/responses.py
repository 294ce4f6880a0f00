"""The refusals each route documents in OpenAPI, and 422s raised after validation.

FastAPI documents only a 422 of its own shape by default; the routes list here every status
they really return with the model of its body, so the schema and the responses agree (the
fuzzing benchmark, benchmarks/api_fuzz.py, checks that they do)."""

from __future__ import annotations

from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel

from research_studio.service.schemas import ErrorMessage, NotComplete, ValidationErrors

_DESCRIPTIONS: dict[int, tuple[type[BaseModel], str]] = {
    400: (ErrorMessage, "The request cannot be served as asked (the message says why)."),
    404: (ErrorMessage, "No such session or knowledge base."),
    409: (ErrorMessage, "The session is not in a state that allows this."),
    413: (ErrorMessage, "The request body is larger than the configured limit."),
    422: (ValidationErrors, "The request is invalid; each problem names its location."),
    501: (ErrorMessage, "This server cannot produce the format asked for (PDF export needs "
                        "the optional 'pdf' extra)."),
    503: (ErrorMessage, "The server's storage cannot be used (a database that is corrupt, "
                        "truncated or not writable, a full disk); the message names it and "
                        "says what to do."),
}
# every route reads or writes the sessions database or the knowledge bases
STORAGE_FAULT = 503


def refusals(*codes: int, not_complete: bool = False) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: the given status codes with their body models, and the
    503 of a storage fault; ``not_complete`` documents the results route's 409, which also
    carries the status."""
    documented: dict[int | str, dict[str, Any]] = {}
    for code in (*codes, STORAGE_FAULT):
        model, description = _DESCRIPTIONS[code]
        if code == 409 and not_complete:
            model, description = NotComplete, "The session is not complete yet."
        documented[code] = {"model": model, "description": description}
    return documented


def stream_refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for the event-stream route: FastAPI files a ``model`` under the
    route's own media type (text/event-stream), but refusals are JSON, so the schemas are
    referenced by name (the other routes register them)."""
    documented: dict[int | str, dict[str, Any]] = {}
    for code in (*codes, STORAGE_FAULT):
        model, description = _DESCRIPTIONS[code]
        schema = {"$ref": f"#/components/schemas/{model.__name__}"}
        documented[code] = {"description": description,
                            "content": {"application/json": {"schema": schema}}}
    return documented


def invalid(location: tuple[str | int, ...], message: str, kind: str) -> RequestValidationError:
    """A 422 in the same shape as the schema's own, for checks that need the server's state
    (the question's content, a configured limit)."""
    return RequestValidationError([{"loc": location, "msg": message, "type": kind}])
