"""Model providers. Only this package imports `anthropic`, and only when a Claude model is used."""

from __future__ import annotations

from iac_code.config import SCRIPTED_MODEL, Settings
from iac_code.core.provider import Provider
from iac_code.providers.models import (
    DEFAULT_MODEL,
    available_models,
    model_display_name,
)


def create_provider(model: str, settings: Settings) -> Provider:
    """Create the provider serving `model` (`scripted` or a Claude model id).

    Importing the Anthropic SDK is deferred to here, so a scripted session never pays for it.
    """
    if model == SCRIPTED_MODEL:
        from iac_code.providers.scripted import ScriptedProvider

        return ScriptedProvider(settings.script, settings.context_window, chunk_delay_ms=settings.script_chunk_delay_ms)
    from iac_code.providers.anthropic import AnthropicProvider

    return AnthropicProvider(settings)


__all__ = ["DEFAULT_MODEL", "Provider", "available_models", "create_provider", "model_display_name"]
