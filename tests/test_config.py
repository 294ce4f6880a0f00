import pytest
from pydantic import ValidationError

from research_studio.config import (
    MAX_INT64,
    ModelSpec,
    ResearchConfig,
    Settings,
    check_kb_name,
    load_context,
    resolve_home,
)
from research_studio.errors import ConfigError


def test_defaults_use_the_embedded_model_for_every_tier(context):
    models = context.settings.models
    assert set(models.tiers) == {"low", "medium", "high"}
    assert all(names == ["embedded"] for names in models.tiers.values())
    assert models.models["embedded"].provider == "embedded"
    assert models.prefer_local is True


def test_config_file_then_environment_override(home, monkeypatch):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        '[knowledge]\nchunk_size = 500\nbm25_weight = 0.5\n'
        '[models]\nmax_external_calls = 3\n', encoding="utf-8")
    monkeypatch.setenv("RESEARCH_STUDIO_KNOWLEDGE__CHUNK_SIZE", "700")
    settings = load_context(home).settings
    assert settings.knowledge.chunk_size == 700  # environment wins
    assert settings.knowledge.bm25_weight == 0.5  # file
    assert settings.models.max_external_calls == 3
    assert settings.knowledge.rrf_k == 10  # default


def test_models_configured_in_file(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        '[models.models.vllm]\nprovider = "openai"\nmodel = "qwen"\n'
        'base_url = "http://127.0.0.1:8001/v1"\n'
        '[models.tiers]\nhigh = ["vllm", "embedded"]\n', encoding="utf-8")
    models = load_context(home).settings.models
    assert models.tiers["high"] == ["vllm", "embedded"]
    assert models.models["vllm"].is_local  # loopback server costs nothing
    assert "embedded" in models.models


def test_invalid_config_is_a_clear_error(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text('[models.tiers]\nhigh = ["missing"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown model"):
        load_context(home)
    (home / "config.toml").write_text("not = [valid", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read config"):
        load_context(home)


def test_home_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("RESEARCH_STUDIO_HOME", str(tmp_path / "env"))
    assert resolve_home() == (tmp_path / "env").resolve()
    assert resolve_home(tmp_path / "flag") == (tmp_path / "flag").resolve()
    monkeypatch.delenv("RESEARCH_STUDIO_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert resolve_home() == (tmp_path / "xdg" / "research-studio").resolve()


@pytest.mark.parametrize(("spec", "local"), [
    (ModelSpec(provider="embedded"), True),
    (ModelSpec(provider="openai", model="gpt-4o-mini"), False),
    (ModelSpec(provider="openai", base_url="http://localhost:8000/v1"), True),
    (ModelSpec(provider="openai", base_url="https://openrouter.ai/api/v1"), False),
    (ModelSpec(provider="ollama"), True),
    (ModelSpec(provider="anthropic", model="claude-sonnet-4"), False),
    (ModelSpec(provider="openai", base_url="https://example.org", local=True), True),
])
def test_locality(spec, local):
    assert spec.is_local is local


@pytest.mark.parametrize(("section", "values"), [
    ("models", {"max_total_cost_usd": float("nan")}),
    ("models", {"max_total_cost_usd": float("inf")}),
    ("models", {"max_external_calls": -1}),
    ("models", {"max_external_calls": 2**63}),
    ("knowledge", {"chunk_size": 0}),
    ("knowledge", {"chunk_size": 500, "chunk_overlap": 500}),
    ("knowledge", {"bm25_weight": float("nan")}),
    ("web", {"timeout_s": float("inf")}),
    ("web", {"max_results": -5}),
    ("service", {"port": 70_000}),
    ("service", {"sse_keepalive_s": 0}),
    ("service", {"max_request_bytes": 2**64}),
])
def test_settings_numbers_are_finite_and_bounded(section, values):
    """NaN budgets compare false with every cost; huge integers fail later in SQL or C."""
    with pytest.raises(ValidationError):
        Settings(**{section: values})


def test_a_bad_number_in_the_config_file_is_a_clear_error(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text("[models]\nmax_total_cost_usd = nan\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="finite"):
        load_context(home)
    (home / "config.toml").write_text("[models.models.embedded]\nmax_tokens = 0\n",
                                      encoding="utf-8")
    with pytest.raises(ConfigError, match="max_tokens"):
        load_context(home)


@pytest.mark.parametrize("values", [
    {"max_total_cost_usd": float("nan")}, {"max_total_cost_usd": -1.0},
    {"max_external_calls": -1}, {"max_iterations": 2**63}, {"min_confidence": 1.5},
    {"fuzzy_match_threshold": float("-inf")}, {"max_concurrency": 0},
    {"results_per_query": 0}, {"kb": "main\n"}, {"kb": "../etc"},
])
def test_research_settings_are_finite_non_negative_and_64_bit(values):
    with pytest.raises(ValidationError):
        ResearchConfig(**values)


def test_the_largest_64_bit_values_are_accepted():
    config = ResearchConfig(max_iterations=MAX_INT64, max_external_calls=MAX_INT64,
                            max_total_cost_usd=1e300, kb="a.b-c_9")
    assert config.max_iterations == 2**63 - 1 and config.kb == "a.b-c_9"
    schema = ResearchConfig.model_json_schema()["properties"]
    assert schema["max_iterations"]["maximum"] == MAX_INT64 and schema["min_confidence"]["maximum"] == 1


@pytest.mark.parametrize(("name", "ok"), [
    ("main", True), ("a", True), ("a" * 63, True), ("docs.v2_final-1", True),
    ("main\n", False), ("main\r\n", False), ("\nmain", False), ("", False), ("-main", False),
    ("main-", False), ("a" * 64, False), ("ma in", False), ("mäin", False), ("..", False)])
def test_knowledge_base_names_match_in_full(name, ok):
    if ok:
        assert check_kb_name(name) == name
    else:
        with pytest.raises(ValueError, match="invalid knowledge base name"):
            check_kb_name(name)


def test_a_session_budget_applies_within_the_operators_ceiling(home):
    """One budget per session: the research config's limits (a template's, an API
    request's), lowered to the [models] ceiling of config.toml, and recorded that way."""
    from research_studio.config import apply_template
    from research_studio.graph.session import Workspace, prepare_session

    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        '[models]\nmax_total_cost_usd = 1.25\nmax_external_calls = 4\n', encoding="utf-8")
    ctx = load_context(home)
    deep = apply_template(ResearchConfig(use_web=True), "deep_dive")
    assert deep.max_total_cost_usd == 5.0
    capped = deep.within(ctx.settings.models)
    assert (capped.max_total_cost_usd, capped.max_external_calls) == (1.25, 4)
    modest = ResearchConfig(use_web=True, max_total_cost_usd=0.5, max_external_calls=2)
    assert modest.within(ctx.settings.models) == modest, "a lower session budget is kept"

    workspace = Workspace(ctx)
    session_id = prepare_session(workspace, "How do tides work?", deep)
    recorded = workspace.store.get(session_id)["config"]
    assert (recorded["max_total_cost_usd"], recorded["max_external_calls"]) == (1.25, 4)
