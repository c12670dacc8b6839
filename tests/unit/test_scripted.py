"""The scripted model's pace: each turn's `chunk_delay_ms`, unless `IAC_CODE_SCRIPT_CHUNK_DELAY_MS`
replaces it for every turn (0: the script plays at once, as the tests of the demo play it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from iac_code.config import Settings
from iac_code.core.conversation import user_text
from iac_code.core.provider import ModelRequest
from iac_code.providers import create_provider
from iac_code.providers.scripted import ScriptedProvider


def pauses(provider: ScriptedProvider, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The pauses (s) the provider takes while streaming one response to "go"."""
    taken: list[float] = []

    async def sleep(seconds: float) -> None:
        taken.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", sleep)

    async def play() -> None:
        async for _event in provider.stream(ModelRequest(model="scripted", system="", messages=[user_text("go")])):
            pass

    asyncio.run(play())
    return taken


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": [{"chunk_delay_ms": 40, "blocks": [{"type": "text", "text": "one two three"}]}]}))
    return path


def test_each_turn_keeps_its_own_delay_by_default(script: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IAC_CODE_SCRIPT_CHUNK_DELAY_MS", raising=False)
    provider = create_provider("scripted", Settings(script=script))
    assert isinstance(provider, ScriptedProvider)
    assert pauses(provider, monkeypatch) == [0.04, 0.04, 0.04]


@pytest.mark.parametrize(("setting", "expected"), [("0", []), ("5", [0.005, 0.005, 0.005])])
def test_the_setting_replaces_every_turns_delay(script: Path, monkeypatch: pytest.MonkeyPatch, setting: str, expected: list[float]) -> None:
    monkeypatch.setenv("IAC_CODE_SCRIPT_CHUNK_DELAY_MS", setting)
    provider = create_provider("scripted", Settings(script=script))
    assert isinstance(provider, ScriptedProvider)
    assert pauses(provider, monkeypatch) == expected
