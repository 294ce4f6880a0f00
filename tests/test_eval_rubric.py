"""Rubric grading with a scripted judge: weight arithmetic, refusal to let a model grade
itself, and a judge that returns garbage."""

import json

import pytest
from typer.testing import CliRunner

from research_studio.cli import app
from research_studio.config import ModelSettings, ModelSpec, Settings, load_context
from research_studio.errors import ResearchStudioError
from research_studio.eval.rubric import (
    JudgeNotIndependent,
    check_judge,
    dimension_score,
    grade_task,
    judge_schema,
    overall_score,
)
from research_studio.eval.rubric_run import RubricOptions, run_rubric_eval
from research_studio.models.structured import grammar_problems, json_schema_for
from tests.conftest import scripted

# Two dimensions; criterion weights deliberately not normalised.
TASK = {"id": "t1", "prompt": "Compare two bridge designs.", "dimensions": {
    "depth": {"weight": 0.6, "criteria": [
        {"criterion": "Covers loads", "explanation": "", "weight": 0.5},
        {"criterion": "Covers materials", "explanation": "", "weight": 0.3},
        {"criterion": "Covers cost", "explanation": "", "weight": 0.2}]},
    "clarity": {"weight": 0.4, "criteria": [
        {"criterion": "Structure", "explanation": "", "weight": 1.0},
        {"criterion": "Plain language", "explanation": "", "weight": 3.0}]}}}
DEPTH = json.dumps({"scores": [{"criterion": 0, "score": 10}, {"criterion": 1, "score": 5},
                               {"criterion": 2, "score": 0}]})
TASK_WEIGHTS = {d: v["weight"] for d, v in TASK["dimensions"].items()}
CLARITY = json.dumps({"scores": [{"criterion": 1, "score": 8}, {"criterion": 0, "score": 4}]})


@pytest.fixture
def settings(home):
    """The embedded model under test plus a second, local model that may judge."""
    return Settings(models=ModelSettings(models={
        "embedded": ModelSpec(),
        "judge": ModelSpec(provider="openai", model="judge-7b", base_url="http://127.0.0.1:9/v1"),
        "embedded-alias": ModelSpec()}))


def test_weight_arithmetic_on_a_two_dimension_task(settings):
    grade = grade_task(TASK, "# Report\n\nText.", settings, "judge", scripted(DEPTH, CLARITY))
    depth, clarity = grade["dimensions"]["depth"], grade["dimensions"]["clarity"]
    assert depth["score"] == pytest.approx(10 * 0.5 + 5 * 0.3 + 0 * 0.2)  # Σw = 1.0
    assert clarity["score"] == pytest.approx((4 * 1.0 + 8 * 3.0) / 4.0)  # 7.0
    assert grade["overall"] == pytest.approx((0.6 * 6.5 + 0.4 * 7.0) / 10)  # 0.67
    assert [c["score"] for c in clarity["criteria"]] == [4.0, 8.0]
    assert grade["missing_criteria"] == 0 and grade["criteria"] == 5
    assert grade["judge_usage"]["llm_calls"] == 2


def test_pure_combination_functions():
    assert dimension_score([1.0, 1.0], {0: 6.0}) == 6.0  # a missing criterion is left out
    assert dimension_score([1.0, 2.0], {}) is None
    assert dimension_score([0.0], {0: 5.0}) is None
    assert overall_score({"a": 0.25, "b": 0.75}, {"a": 8.0, "b": None}) == pytest.approx(0.8)
    assert overall_score({"a": 1.0}, {"a": None}) is None


def test_garbage_from_the_judge_is_reported_as_missing_not_a_crash(settings):
    judge = scripted("I think the report is great!", "{still not json", CLARITY)
    grade = grade_task(TASK, "report", settings, "judge", judge)
    depth = grade["dimensions"]["depth"]
    assert depth["score"] is None and depth["missing"] == [0, 1, 2]
    assert depth["judge_path"] == "fallback" and depth["judge_error"]
    assert grade["overall"] == pytest.approx(0.7)  # only clarity was scored
    assert grade["missing_criteria"] == 3


def test_out_of_range_scores_and_partial_replies(settings):
    bad = json.dumps({"scores": [{"criterion": 0, "score": 11}]})  # 11 is not allowed
    partial = json.dumps({"scores": [{"criterion": 0, "score": 6}, {"criterion": 0, "score": 1}]})
    grade = grade_task(TASK, "report", settings, "judge", scripted(bad, DEPTH, partial))
    assert grade["dimensions"]["depth"]["judge_path"] == "repaired"
    clarity = grade["dimensions"]["clarity"]
    assert clarity["score"] == 6.0 and clarity["missing"] == [1]  # first score of 0 wins


def test_judge_schema_is_grammar_safe():
    schema = json_schema_for(judge_schema(3))
    assert grammar_problems(schema) == []
    assert schema["properties"]["scores"]["maxItems"] == 3


def test_refuses_a_judge_that_is_the_model_under_test(settings):
    with pytest.raises(JudgeNotIndependent, match="configured high-tier model"):
        check_judge(settings, "embedded", None)
    with pytest.raises(JudgeNotIndependent):
        check_judge(settings, "judge", "judge")
    with pytest.raises(JudgeNotIndependent):  # another name for the same model
        check_judge(settings, "embedded-alias", None)
    assert check_judge(settings, "judge", None) == "judge"
    with pytest.raises(ResearchStudioError, match="--judge: unknown model 'gpt-x'"):
        check_judge(settings, "gpt-x", None)


def test_command_refuses_same_model_with_exit_2(home, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": 1, "prompt": "p", "criteria": {
        "dimension_weight": {"d": 1}, "criterions": {"d": [{"criterion": "c", "weight": 1}]}}}))
    result = CliRunner().invoke(app, ["eval-reports", str(tasks), "--judge", "embedded",
                                      "--home", str(home)])
    assert result.exit_code == 2
    assert "must not grade its own reports" in " ".join(result.output.split())


def test_grading_a_folder_of_reports(home, tmp_path):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[models.models.judge]\nprovider = "openai"\nmodel = "judge-7b"\n'
        'base_url = "http://127.0.0.1:9/v1"\n')
    tasks = tmp_path / "tasks.jsonl"
    criteria = {"dimension_weight": TASK_WEIGHTS, "criterions": {
        d: [{"criterion": c["criterion"], "explanation": "", "weight": c["weight"]}
            for c in v["criteria"]] for d, v in TASK["dimensions"].items()}}
    tasks.write_text("\n".join(json.dumps({"id": i, "prompt": "p", "criteria": criteria})
                               for i in (1, 2)) + "\n")
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "1.md").write_text("# Report one\n")  # no report for task 2
    outcome = run_rubric_eval(load_context(home), tasks,
                              RubricOptions(judge="judge", reports=reports, out=tmp_path / "out"),
                              judge_model=scripted(DEPTH, CLARITY))
    rows = [json.loads(line) for line in (tmp_path / "out" / "grades.jsonl").read_text().splitlines()]
    assert rows[0]["grade"]["overall"] == pytest.approx(0.67)
    assert "no report" in rows[1]["error"]
    assert outcome.summary["n"] == 1 and outcome.summary["errors"] == 1
    assert outcome.summary["dimensions"]["clarity"]["mean"] == pytest.approx(0.7)
    again = run_rubric_eval(load_context(home), tasks,
                            RubricOptions(judge="judge", reports=reports, out=tmp_path / "out"),
                            judge_model=scripted())  # nothing left to grade: no call made
    assert again.summary["n"] == 1

