import asyncio

import pytest
from langchain_core.messages import HumanMessage

from research_studio.config import ModelSettings, ModelSpec
from research_studio.errors import BudgetExhausted, ModelUnavailable
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.pricing import call_cost, price_per_mtok
from tests.conftest import scripted

ASK = [HumanMessage("question " * 100)]  # ~ 225 estimated tokens


def _settings(**kwargs) -> ModelSettings:
    return ModelSettings(
        models={"local": ModelSpec(provider="embedded"),
                "cloud": ModelSpec(provider="openai", model="gpt-4o")},
        tiers={"low": ["local"], "medium": ["cloud", "local"], "high": ["cloud"]},
        **kwargs)


def test_prefer_local_reorders_candidates():
    assert ModelCoordinator(_settings()).candidates("medium") == ["local", "cloud"]
    assert ModelCoordinator(_settings(prefer_local=False)).candidates("medium") == ["cloud", "local"]


def test_usage_is_recorded_per_call_with_cost():
    coordinator = ModelCoordinator(_settings(), chat_models={
        "cloud": scripted("a" * 400), "local": scripted("b")})
    reply, name = coordinator.invoke(ASK, tier="high", node="write")
    assert (reply.content, name) == ("a" * 400, "cloud")
    [call] = coordinator.ledger.calls
    assert (call.model, call.tier, call.node, call.external) == ("cloud", "high", "write", True)
    assert call.completion_tokens == 100 and call.tokens_estimated
    assert call.cost_usd == pytest.approx(call_cost(ModelSpec(provider="openai", model="gpt-4o"),
                                                    call.prompt_tokens, 100))
    coordinator.invoke(ASK, tier="low", node="analyze")
    summary = coordinator.ledger.summary()
    assert summary["llm_calls"] == 2 and summary["external_calls"] == 1
    assert summary["by_tier"]["low"]["cost_usd"] == 0.0
    assert set(summary["by_node"]) == {"write", "analyze"}


def test_external_call_budget_is_enforced():
    coordinator = ModelCoordinator(_settings(max_external_calls=1), chat_models={
        "cloud": scripted("one", "two"), "local": scripted("local")})
    assert coordinator.invoke(ASK, tier="high", node="n")[1] == "cloud"
    with pytest.raises(BudgetExhausted, match="1 of 1 external calls"):
        coordinator.invoke(ASK, tier="high", node="n")
    # medium still has a local model, so it continues on that one
    assert coordinator.invoke(ASK, tier="medium", node="n", )[1] == "local"


def test_cost_budget_is_enforced():
    coordinator = ModelCoordinator(
        ModelSettings(models={"cloud": ModelSpec(provider="openai", model="x",
                                                 price_prompt_per_mtok=1_000_000.0)},
                      tiers={"high": ["cloud"]}, max_total_cost_usd=10.0),
        chat_models={"cloud": scripted("first", "second")})
    coordinator.invoke(ASK, tier="high", node="n")
    assert coordinator.ledger.cost_usd > 10.0
    with pytest.raises(BudgetExhausted, match="budget spent"):
        coordinator.invoke(ASK, tier="high", node="n")


def test_failing_model_falls_to_next_and_is_named():
    coordinator = ModelCoordinator(_settings(prefer_local=False), chat_models={
        "cloud": scripted(ConnectionError("refused")), "local": scripted("fine")})
    reply, name = coordinator.invoke(ASK, tier="medium", node="n")
    assert name == "local" and reply.content == "fine"
    failed = [c for c in coordinator.ledger.calls if not c.ok]
    assert failed and failed[0].model == "cloud" and "refused" in failed[0].error
    coordinator = ModelCoordinator(_settings(), chat_models={"cloud": scripted(OSError("down"))})
    with pytest.raises(ModelUnavailable, match=r"'cloud'.*down"):
        asyncio.run(coordinator.ainvoke(ASK, tier="high", node="n"))


def test_price_table():
    assert price_per_mtok(ModelSpec(provider="embedded")) == (0.0, 0.0)
    assert price_per_mtok(ModelSpec(provider="openai", model="gpt-4o-mini-2024")) == (0.15, 0.60)
    assert price_per_mtok(ModelSpec(provider="openai", model="openai/gpt-4o")) == (2.5, 10.0)
    unknown = price_per_mtok(ModelSpec(provider="openai", model="mystery"))
    assert unknown[0] > 0, "unknown external models must not read as free"
    assert call_cost(ModelSpec(provider="openai", model="gpt-4o"), 1_000_000, 0) == 2.5


def test_a_self_hosted_openai_compatible_server_gets_the_classic_max_tokens():
    """llama.cpp's server ignores max_completion_tokens (what LangChain sends): the request
    body to a custom base_url carries max_tokens too, at construction and when bound."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from research_studio.models.factory import build_chat_model, token_limit

    bodies: list[dict] = []

    class Capture(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            reply = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": "ok"}}],
                                "usage": {"prompt_tokens": 1, "completion_tokens": 1,
                                          "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = HTTPServer(("127.0.0.1", 0), Capture)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        spec = ModelSpec(provider="openai", model="m", max_tokens=300,
                         base_url=f"http://127.0.0.1:{server.server_port}/v1")
        model = build_chat_model("local", spec)
        model.invoke([HumanMessage("hi")])
        model.bind(**token_limit(spec, 40)).invoke([HumanMessage("hi")])
    finally:
        server.shutdown()
    assert [body.get("max_tokens") for body in bodies] == [300, 40]
    assert token_limit(ModelSpec(provider="openai", model="gpt-4o"), 40) == {"max_tokens": 40}
