"""Read and validate evaluation files line by line, so a bad record names its line
instead of failing halfway through a long evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from research_studio.errors import ResearchStudioError


class DatasetError(ResearchStudioError):
    """An evaluation file that cannot be used; the message names the file and line."""


def _fail(path: Path, lineno: int, problem: str) -> DatasetError:
    return DatasetError(f"{path}:{lineno}: {problem}")


def _text(value: Any, what: str, path: Path, lineno: int, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise _fail(path, lineno, f"{what} must be a non-empty string")
    return value


def _ident(value: Any, what: str, path: Path, lineno: int) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise _fail(path, lineno, f"{what} must be a non-empty string or integer")
    return str(value)


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a missing file or bad JSON is an error."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"no such dataset file: {path}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from exc
    rows = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _fail(path, lineno, f"invalid JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise _fail(path, lineno, "a record must be a JSON object")
        rows.append((lineno, record))
    if not rows:
        raise DatasetError(f"{path} contains no records")
    return rows


def _paragraph(raw: Any, i: int, path: Path, lineno: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _fail(path, lineno, f"paragraphs[{i}] must be an object")
    supporting = raw.get("is_supporting", False)
    if not isinstance(supporting, bool):
        raise _fail(path, lineno, f"paragraphs[{i}].is_supporting must be true or false")
    return {"id": _ident(raw.get("id"), f"paragraphs[{i}].id", path, lineno),
            "title": _text(raw.get("title", ""), f"paragraphs[{i}].title", path, lineno,
                           allow_empty=True),
            "text": _text(raw.get("text"), f"paragraphs[{i}].text", path, lineno),
            "is_supporting": supporting}


def _hop(raw: Any, i: int, path: Path, lineno: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _fail(path, lineno, f"decomposition[{i}] must be an object")
    return {**raw, "question": _text(raw.get("question"), f"decomposition[{i}].question",
                                     path, lineno)}


def validate_qa_record(raw: dict[str, Any], path: Path, lineno: int) -> dict[str, Any]:
    """One normalised QA record (see /work/shared/eval/README.md), cleaned up."""
    answers = raw.get("answers")
    if not isinstance(answers, list) or not answers or not all(
            isinstance(a, str) and a.strip() for a in answers):
        raise _fail(path, lineno, "answers must be a non-empty list of non-empty strings")
    paragraphs = raw.get("paragraphs")
    if not isinstance(paragraphs, list) or not paragraphs:
        raise _fail(path, lineno, "paragraphs must be a non-empty list")
    decomposition = raw.get("decomposition") or []
    if not isinstance(decomposition, list):
        raise _fail(path, lineno, "decomposition must be a list when present")
    return {**raw,
            "id": _ident(raw.get("id"), "id", path, lineno),
            "question": _text(raw.get("question"), "question", path, lineno).strip(),
            "answers": answers,
            "paragraphs": [_paragraph(p, i, path, lineno) for i, p in enumerate(paragraphs)],
            "decomposition": [_hop(h, i, path, lineno) for i, h in enumerate(decomposition)]}


def load_qa_dataset(path: Path) -> list[dict[str, Any]]:
    """Every record of a QA file, validated; ids must be unique, and a paragraph id seen
    twice must carry the same text (the pooled corpus keys documents by it)."""
    records: list[dict[str, Any]] = []
    seen_questions: dict[str, int] = {}
    paragraph_texts: dict[str, str] = {}
    for lineno, raw in read_jsonl(path):
        record = validate_qa_record(raw, Path(path), lineno)
        if record["id"] in seen_questions:
            raise _fail(Path(path), lineno, f"duplicate question id {record['id']!r} "
                                            f"(first on line {seen_questions[record['id']]})")
        seen_questions[record["id"]] = lineno
        for paragraph in record["paragraphs"]:
            previous = paragraph_texts.setdefault(paragraph["id"], paragraph["text"])
            if previous != paragraph["text"]:
                raise _fail(Path(path), lineno, f"paragraph id {paragraph['id']!r} reappears "
                                                "with a different text")
        records.append(record)
    return records


def _criterion(raw: Any, dim: str, i: int, path: Path, lineno: int) -> dict[str, Any]:
    where = f"criteria.criterions.{dim}[{i}]"
    if not isinstance(raw, dict):
        raise _fail(path, lineno, f"{where} must be an object")
    weight = raw.get("weight")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
        raise _fail(path, lineno, f"{where}.weight must be a non-negative number")
    return {"criterion": _text(raw.get("criterion"), f"{where}.criterion", path, lineno),
            "explanation": _text(raw.get("explanation", ""), f"{where}.explanation", path, lineno,
                                 allow_empty=True),
            "weight": float(weight)}


def validate_task(raw: dict[str, Any], path: Path, lineno: int) -> dict[str, Any]:
    """One rubric task: a prompt and weighted criteria per dimension."""
    criteria = raw.get("criteria")
    if not isinstance(criteria, dict):
        raise _fail(path, lineno, "criteria must be an object")
    weights = criteria.get("dimension_weight")
    criterions = criteria.get("criterions")
    if not isinstance(weights, dict) or not weights:
        raise _fail(path, lineno, "criteria.dimension_weight must be a non-empty object")
    if not isinstance(criterions, dict):
        raise _fail(path, lineno, "criteria.criterions must be an object")
    dimensions: dict[str, dict[str, Any]] = {}
    for dim, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
            raise _fail(path, lineno, f"criteria.dimension_weight.{dim} must be a non-negative number")
        items = criterions.get(dim)
        if not isinstance(items, list) or not items:
            raise _fail(path, lineno, f"criteria.criterions.{dim} must be a non-empty list")
        dimensions[dim] = {"weight": float(weight),
                           "criteria": [_criterion(c, dim, i, path, lineno)
                                        for i, c in enumerate(items)]}
    return {"id": _ident(raw.get("id"), "id", path, lineno),
            "prompt": _text(raw.get("prompt"), "prompt", path, lineno).strip(),
            "topic": raw.get("topic"), "language": raw.get("language"),
            "dimensions": dimensions}


def load_tasks(path: Path) -> list[dict[str, Any]]:
    """Every rubric task of a file, validated, with unique ids."""
    tasks: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for lineno, raw in read_jsonl(path):
        task = validate_task(raw, Path(path), lineno)
        if task["id"] in seen:
            raise _fail(Path(path), lineno, f"duplicate task id {task['id']!r} "
                                            f"(first on line {seen[task['id']]})")
        seen[task["id"]] = lineno
        tasks.append(task)
    return tasks
