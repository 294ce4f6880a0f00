"""Bad input gets a clear error and loses nothing; hostile sources and a garbage model do
not change what the pipeline does."""

import asyncio
import dataclasses
import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from research_studio.config import ModelSettings, ModelSpec, ResearchConfig, load_context
from research_studio.errors import InvalidQuery
from research_studio.graph.session import Hooks, run_research
from research_studio.graph.sub_agent import STEPS
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.store.backends import storage_backend
from research_studio.store.sessions import SessionStore
from tests.child_env import child_env
from tests.research_corpus import QUESTION, write_research_corpus

CLI = Path(sys.executable).parent / "research-studio"
ALL_NODES = {"analyze", "plan", "collect", "detect_gaps", "domain_synthesis", "trust_engine",
             "write", *(name for name, _ in STEPS)}  # with the research sub-agent's steps


def test_empty_and_huge_questions_are_refused_clearly(tmp_path):
    for question, message in (("   ", "question is empty"), ("x" * 50_000, "50,000 characters")):
        result = subprocess.run([str(CLI), "research", question, "--kb", "any", "--home",
                                 str(tmp_path)], capture_output=True, text=True, timeout=120,
                                stdin=subprocess.DEVNULL)
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    with pytest.raises(InvalidQuery):
        asyncio.run(run_research(load_context(tmp_path), "", ResearchConfig(kb="any")))


@pytest.mark.parametrize(("question", "message"), [
    (b"caf\xe9 bridges?", "not valid text"),  # Latin-1 bytes in a UTF-8 terminal
    ("\U0001f642\U0001f642".encode(), "no words"),  # emoji only
    ("\u200b\u200b\u200b".encode(), "no words"),  # zero-width spaces only
    (b"what\x07is it", "control characters"),
])
def test_unusable_questions_are_one_line_errors_at_the_cli(tmp_path, question, message):
    """These once ended in a UnicodeEncodeError traceback from SQLite, or ran a session
    that could find nothing."""
    result = subprocess.run([str(CLI).encode(), b"research", question, b"--kb", b"any",
                             b"--home", str(tmp_path).encode()], capture_output=True,
                            timeout=120, stdin=subprocess.DEVNULL, env=child_env())
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2 and message in " ".join(stderr.split()), stderr
    assert "Traceback" not in stderr and "Error:" not in stderr


def test_a_session_with_nothing_to_research_is_refused_before_it_is_recorded(tmp_path):
    ctx = load_context(tmp_path)
    with pytest.raises(InvalidQuery, match="nothing to research") as refused:
        asyncio.run(run_research(ctx, "Who designed the Millau Viaduct?", ResearchConfig()))
    assert refused.value.field == "config"
    for question in ("what\x00is", "\U0001f642", "\u200b", "caf\udce9 bridges?"):
        with pytest.raises(InvalidQuery):
            asyncio.run(run_research(ctx, question, ResearchConfig(use_web=True)))
    assert SessionStore(storage_backend(ctx).sessions_url).count() == 0


def test_serve_options_are_validated_like_the_config(tmp_path):
    result = subprocess.run([str(CLI), "serve", "--port", str(2**70), "--home", str(tmp_path)],
                            capture_output=True, text=True, timeout=120,
                            stdin=subprocess.DEVNULL, env=child_env())
    assert result.returncode == 2 and "65535" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def hostile_home(tmp_path_factory):
    ctx = load_context(tmp_path_factory.mktemp("hostile"))
    corpus = write_research_corpus(tmp_path_factory.mktemp("corpus"), with_injection=True)
    KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge).open("bridges", create=True) \
        .ingest_paths([corpus])
    return ctx


@pytest.mark.slow
def test_prompt_injection_in_a_source_changes_nothing(hostile_home):
    question = "How are the cables of the Millau Viaduct inspected and who designed it?"
    result = asyncio.run(run_research(hostile_home, question,
                                      ResearchConfig(kb="bridges", clarify="never",
                                                     mode="hierarchical")))
    assert result["status"] == "completed"
    retrieved = {s["title"] for s in result["sources"]}
    assert "Bridge maintenance notes" in retrieved, "the hostile document was retrieved"
    quotes = [f["quote"] for sq in result["sub_questions"] for f in sq["findings"]]
    assert not any("Ignore previous instructions" in q or "developer mode" in q for q in quotes)
    assert "HACKED" not in result["report_markdown"]
    assert {t for t in result["usage"]["node_s"]} == ALL_NODES
    assert 2 <= len(result["sub_questions"]) <= 5
    assert re.search(r"\[S\d+\]", result["report_markdown"])


@pytest.mark.slow
@pytest.mark.parametrize("capability", ["basic", "strong"])
def test_a_model_returning_garbage_still_completes_grounded(hostile_home, capability):
    """As the embedded model (asked nothing: analysis and plan come from the parse) and as
    a model trusted to reason, which every step asks: when its findings are garbage the
    passages' own sentences are the evidence, so the report is still cited."""
    models = ModelSettings(models={"embedded": ModelSpec(capability=capability)})
    settings = hostile_home.settings.model_copy(update={"models": models})
    ctx = dataclasses.replace(hostile_home, settings=settings)
    garbage = GenericFakeChatModel(messages=itertools.cycle(
        [AIMessage("}} not json at all {{"), AIMessage("I am sorry, as an AI I cannot.")]))
    result = asyncio.run(run_research(
        ctx, QUESTION, ResearchConfig(kb="bridges", clarify="never", mode="hierarchical"),
        Hooks(chat_models={"embedded": garbage})))
    assert result["status"] == "completed"
    assert result["query_analysis"]["method"] == ("offline" if capability == "basic" else "fallback")
    assert result["metrics"]["decomposition_path"] == "deterministic"
    asked = set(result["usage"]["by_node"])
    assert asked == (set() if capability == "basic" else
                     {"analyze", "plan", "research", "synthesize_sub_question", "write"})
    assert result["usage"]["structured_output"]["fallback"] >= (0 if capability == "basic" else 3)
    assert result["usage"]["structured_output"]["repaired"] == 0
    assert re.search(r"\[S\d+\]", result["report_markdown"])
    assert "not json" not in result["report_markdown"]
