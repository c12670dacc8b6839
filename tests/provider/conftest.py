"""Fixtures for the provider tests: the fake Messages API, settings pointing at it, a provider."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from anthropic_rig import API_KEY, MODEL, LoopRig, anthropic_provider
from fake_anthropic import FakeAnthropic

from iac_code.config import Settings

if TYPE_CHECKING:
    from iac_code.providers.anthropic import AnthropicProvider


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keep the developer's Anthropic environment and config file out of these tests."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_PROFILE", "ANTHROPIC_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("IAC_CODE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic-config"))


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    """A started fake Messages API, closed after the test."""
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def settings(fake: FakeAnthropic, tmp_path: Path) -> Settings:
    """Settings pointing at the fake, with a test key."""
    return Settings(config_dir=tmp_path / "config", anthropic_api_key=API_KEY, anthropic_base_url=fake.url, model=MODEL)


@pytest.fixture
async def provider(settings: Settings) -> AsyncIterator[AnthropicProvider]:
    """An `AnthropicProvider` on `settings`, closed after the test."""
    p = anthropic_provider(settings)
    yield p
    await p.aclose()


@pytest.fixture
def rig(provider: AnthropicProvider, tmp_path: Path) -> Callable[..., LoopRig]:
    """Build a `LoopRig` on the test's provider, in a project dir under `tmp_path`."""
    cwd = tmp_path / "proj"
    cwd.mkdir(exist_ok=True)
    return lambda **kw: LoopRig(provider, cwd, **kw)
