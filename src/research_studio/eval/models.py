"""Which configured model an evaluation uses, and whether a judge is independent of it."""

from __future__ import annotations

from research_studio.config import TIERS, Settings
from research_studio.errors import ResearchStudioError


def require_model(settings: Settings, name: str, option: str = "--model") -> str:
    """``name`` if it is a configured model; otherwise an error listing the configured ones."""
    if name not in settings.models.models:
        raise ResearchStudioError(f"{option}: unknown model {name!r}; configured models: "
                                  f"{', '.join(sorted(settings.models.models))}")
    return name


def settings_for_model(settings: Settings, name: str | None) -> Settings:
    """A copy of ``settings`` whose every tier uses ``name`` (unchanged when None), so both
    modes and the answer extraction run on the same model."""
    if name is None:
        return settings
    require_model(settings, name)
    models = settings.models.model_copy(update={"tiers": {t: [name] for t in TIERS}})
    return settings.model_copy(update={"models": models})


def model_under_test(settings: Settings, name: str | None) -> str:
    """``--model`` when given, else the first configured high-tier model."""
    return name or (settings.models.tiers.get("high") or ["embedded"])[0]


def same_model(settings: Settings, a: str, b: str) -> bool:
    """Two configured names for one model (same provider, model and endpoint) count as one."""
    if a == b:
        return True
    first, second = settings.models.models[a], settings.models.models[b]
    return (first.provider, first.model, first.base_url) == (second.provider, second.model,
                                                             second.base_url)
