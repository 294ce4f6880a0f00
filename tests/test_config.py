import pytest

from research_studio.config import ModelSpec, load_context, resolve_home
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
