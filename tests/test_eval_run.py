"""Dataset validation, the pooled corpus, the resumable runner, outputs and the command."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.cli import app
from research_studio.config import load_context
from research_studio.errors import ResearchStudioError
from research_studio.eval.corpus import kb_name_for, write_pooled_corpus
from research_studio.eval.datasets import DatasetError, load_qa_dataset, load_tasks
from research_studio.eval.pipeline import EvalOptions, run_dataset_eval
from research_studio.eval.runner import ResultsFile
from tests.child_env import child_env

FIXTURE = Path(__file__).parent / "eval_fixtures" / "tiny_multihop.jsonl"
CLI = Path(sys.executable).parent / "research-studio"
REQUIRED = ("n", "support_recall_retrieved", "support_recall_cited", "citation_precision",
            "answer_em", "answer_f1", "answer_containment", "hallucination_score",
            "wall_s_mean", "llm_calls_mean", "tokens_mean")


def record(qid="q1", **overrides):
    base = {"id": qid, "question": "Who?", "answers": ["Ann"],
            "paragraphs": [{"id": f"{qid}#0", "title": "T", "text": "Ann did it.",
                            "is_supporting": True}]}
    return {**base, **overrides}


def write_lines(path: Path, *lines) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n",
                    encoding="utf-8")
    return path


# ---- validation ----------------------------------------------------------------------------
def test_fixture_is_a_valid_dataset():
    records = load_qa_dataset(FIXTURE)
    assert [r["id"] for r in records] == ["tiny1", "tiny2", "tiny3"]
    assert all(len(r["paragraphs"]) == 4 and r["decomposition"] for r in records)


@pytest.mark.parametrize("bad, message", [
    ("{not json", "invalid JSON"),
    ("[1, 2]", "a record must be a JSON object"),
    (record("q2", answers=[]), "answers must be a non-empty list"),
    (record("q2", question=" "), "question must be a non-empty string"),
    (record("q2", paragraphs={}), "paragraphs must be a non-empty list"),
    (record("q2", paragraphs=[{"id": "p", "title": "", "text": "x", "is_supporting": "yes"}]),
     "paragraphs[0].is_supporting must be true or false"),
    (record("q2", paragraphs=[{"id": "p", "title": "", "text": ""}]),
     "paragraphs[0].text must be a non-empty string"),
    (record("q2", decomposition=[{"answer": "x"}]), "decomposition[0].question"),
    (record("q1"), "duplicate question id 'q1' (first on line 1)"),
    (record("q2", paragraphs=[{"id": "q1#0", "title": "T", "text": "Other text."}]),
     "paragraph id 'q1#0' reappears with a different text"),
])
def test_a_bad_record_names_its_line(tmp_path, bad, message):
    path = write_lines(tmp_path / "data.jsonl", record("q1"), bad)
    with pytest.raises(DatasetError) as caught:
        load_qa_dataset(path)
    assert str(caught.value).startswith(f"{path}:2: ")
    assert message in str(caught.value)


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(DatasetError, match="no such dataset file"):
        load_qa_dataset(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(DatasetError, match="no records"):
        load_qa_dataset(tmp_path / "empty.jsonl")


def test_task_validation(tmp_path):
    task = {"id": 7, "prompt": "Study X.", "criteria": {
        "dimension_weight": {"depth": 1.0},
        "criterions": {"depth": [{"criterion": "c", "explanation": "e", "weight": 1}]}}}
    assert load_tasks(write_lines(tmp_path / "t.jsonl", task))[0]["id"] == "7"
    broken = {**task, "criteria": {**task["criteria"], "criterions": {}}}
    with pytest.raises(DatasetError, match=r"t2.jsonl:2: criteria.criterions.depth"):
        load_tasks(write_lines(tmp_path / "t2.jsonl", task, {**broken, "id": 8}))


# ---- pooled corpus -------------------------------------------------------------------------
def test_pooled_corpus_and_kb_name(tmp_path):
    records = load_qa_dataset(FIXTURE)
    out = tmp_path / "pool.jsonl"
    assert write_pooled_corpus(records, out) == 12
    first = json.loads(out.read_text().splitlines()[0])
    assert set(first) == {"id", "title", "text"} and first["id"] == "tiny1#0"
    assert kb_name_for(Path("/x/musique dev#1.jsonl"), "ab" * 32) == "musique-dev-1-ababababab"


# ---- resumable runner ----------------------------------------------------------------------
class FakePipeline:
    """Stands in for research: cites the first paragraph of each question, fails on request."""

    def __init__(self, fail_on=()):
        self.calls = []
        self.fail_on = set(fail_on)

    def __call__(self, record, mode):
        self.calls.append((record["id"], mode))
        if record["id"] in self.fail_on:
            raise RuntimeError("model crashed")
        first = record["paragraphs"][0]
        return {"session_id": "s", "status": "completed", "mode": mode,
                "report_markdown": f"# Q\n\n## Answer\n\n{first['text']} ⚠[S1]\n",
                "sources": [{"sid": "S1", "doc_id": first["id"], "cited": True, "text": first["text"]}],
                "claims": [{"status": "verified"}], "metrics": {"hallucination_score": 0.0},
                "sub_questions": [{"question_text": record["question"]}],
                "usage": {"wall_s": 2.0 if mode == "flat" else 3.0, "llm_calls": 1,
                          "prompt_tokens": 10, "completion_tokens": 5}}


def no_model(record, result):
    return "Keldmouth", "fake"


def fake_embed(texts):
    import numpy as np

    return np.ones((len(texts), 2)) / np.sqrt(2)


def evaluate(home, out, pipeline, **options):
    return run_dataset_eval(load_context(home), FIXTURE, EvalOptions(out=out, **options),
                            run_question=pipeline, extract_answer=no_model, embed=fake_embed)


def test_second_run_skips_done_pairs_and_appends_only_new_ones(home, tmp_path):
    out = tmp_path / "out"
    first = FakePipeline()
    outcome = evaluate(home, out, first, limit=2)
    assert first.calls == [("tiny1", "flat"), ("tiny1", "hierarchical"),
                           ("tiny2", "flat"), ("tiny2", "hierarchical")]
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 4 and outcome.added == 4

    second = FakePipeline()
    outcome = evaluate(home, out, second, limit=3)
    assert second.calls == [("tiny3", "flat"), ("tiny3", "hierarchical")]
    assert (out / "results.jsonl").read_text().splitlines()[:4] == lines
    assert len((out / "results.jsonl").read_text().splitlines()) == 6
    assert (outcome.added, outcome.skipped) == (2, 4)
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) == {"flat", "hierarchical"} and summary["flat"]["n"] == 3
    assert all(key in summary["hierarchical"] for key in REQUIRED)
    assert summary["flat"]["support_recall_cited"] == pytest.approx(0.5)  # 1 of 2 supporting
    assert summary["hierarchical"]["wall_s_mean"] == 3.0
    for name in ("summary.md", "metrics.png", "cost.png", "run.json"):
        assert (out / name).stat().st_size > 0
    assert "| support recall (cited) |" in (out / "summary.md").read_text()
    assert len(list((out / "runs").glob("*.json"))) == 6

    third = FakePipeline()
    evaluate(home, out, third, limit=3, mode="flat")
    assert third.calls == []


def test_a_failing_question_is_recorded_and_the_rest_go_on(home, tmp_path):
    out = tmp_path / "out"
    outcome = evaluate(home, out, FakePipeline(fail_on={"tiny2"}), mode="hierarchical")
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["id"], "error" in r) for r in rows] == [("tiny1", False), ("tiny2", True),
                                                       ("tiny3", False)]
    assert rows[1]["error"] == "RuntimeError: model crashed"
    assert outcome.summary["hierarchical"]["n"] == 2
    assert outcome.summary["hierarchical"]["errors"] == 1


def test_offset_and_limit_select_questions(home, tmp_path):
    pipeline = FakePipeline()
    evaluate(home, tmp_path / "out", pipeline, mode="flat", offset=1, limit=1)
    assert pipeline.calls == [("tiny2", "flat")]
    with pytest.raises(ResearchStudioError, match="past the 3 records"):
        evaluate(home, tmp_path / "out", pipeline, mode="flat", offset=3)


def test_results_of_another_dataset_are_not_mixed_in(home, tmp_path):
    out = tmp_path / "out"
    evaluate(home, out, FakePipeline(), mode="flat", limit=1)
    changed = tmp_path / "tiny_multihop.jsonl"
    changed.write_text(FIXTURE.read_text() + "\n")
    with pytest.raises(ResearchStudioError, match="different dataset sha256"):
        run_dataset_eval(load_context(home), changed, EvalOptions(out=out, mode="flat"),
                         run_question=FakePipeline(), extract_answer=no_model, embed=fake_embed)


def test_a_line_cut_short_by_a_crash_is_ignored_and_repaired(tmp_path):
    results = ResultsFile(tmp_path / "results.jsonl")
    results.append({"id": "a", "mode": "flat"})
    with results.path.open("a") as handle:
        handle.write('{"id": "b", "mo')
    assert results.done() == {("a", "flat")}
    results.append({"id": "b", "mode": "flat"})
    assert results.done() == {("a", "flat"), ("b", "flat")}
    assert len(results.path.read_text().splitlines()) == 2


# ---- the command: operational failures exit 2, with a clear message -------------------------
@pytest.mark.parametrize("args, message", [
    (["eval", "missing.jsonl"], "no such dataset file"),
    (["eval", str(FIXTURE), "--mode", "deep"], "--mode must be flat, hierarchical or both"),
    (["eval", str(FIXTURE), "--model", "gpt-9"], "unknown model 'gpt-9'; configured models: embedded"),
])
def test_operational_failures_exit_2(home, args, message):
    result = CliRunner().invoke(app, [*args, "--home", str(home)])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


def test_a_bad_line_is_reported_by_the_command(home, tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", record("q1"), "{oops")
    result = CliRunner().invoke(app, ["eval", str(path), "--home", str(home)])
    assert result.exit_code == 2 and "bad.jsonl:2: invalid JSON" in " ".join(result.output.split())


# ---- end to end: real ingestion, the real embedded model, the real command ------------------
@pytest.mark.slow
def test_eval_command_end_to_end(tmp_path):
    out, home = tmp_path / "out", tmp_path / "home"
    env = {**child_env(), "MPLCONFIGDIR": str(tmp_path / "mpl"),
           **({"OMP_NUM_THREADS": os.environ["OMP_NUM_THREADS"]}
              if "OMP_NUM_THREADS" in os.environ else {})}
    started = time.perf_counter()
    result = subprocess.run([str(CLI), "eval", str(FIXTURE), "--mode", "hierarchical",
                             "--limit", "2", "--out", str(out), "--home", str(home)],
                            capture_output=True, text=True, timeout=600, env=env)
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["id"], r["mode"]) for r in rows] == [("tiny1", "hierarchical"),
                                                    ("tiny2", "hierarchical")]
    assert all("error" not in r for r in rows), rows
    summary = json.loads((out / "summary.json").read_text())
    assert all(key in summary["hierarchical"] for key in REQUIRED)
    assert summary["hierarchical"]["n"] == 2
    assert (out / "summary.md").exists() and (out / "metrics.png").exists()
    assert (out / "cost.png").exists()
    assert "support recall (cited)" in result.stdout
    assert "[1/2] hierarchical" in result.stderr
    print(f"end-to-end eval took {elapsed:.1f}s")
