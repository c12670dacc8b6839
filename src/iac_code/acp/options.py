"""The session state a client can see and change: modes, models and config options.

`configOptions` carries `mode` (category mode), `model` (category model) and `thought_level`
(category thought_level). The older `models` field ({`currentModelId`, `availableModels`}) that
the protocol reference shows is not in the SDK's 0.12 schema, so the responses below extend the
SDK's response models with it.
"""

from __future__ import annotations

from typing import Annotated

from acp.schema import (
    ForkSessionResponse,
    LoadSessionResponse,
    NewSessionResponse,
    ResumeSessionResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)
from pydantic import BaseModel, ConfigDict, Field

from iac_code.agent.session import Session
from iac_code.config import MODES, THOUGHT_LEVEL_NAMES
from iac_code.core.vocabulary import THOUGHT_LEVELS
from iac_code.providers import available_models, model_display_name


NO_SOURCE_READING = ConfigDict(use_attribute_docstrings=False, defer_build=True)
"""For our subclasses of the SDK's models: its config reads each class's source for field docstrings
(~3 ms a class at start-up, for descriptions only a JSON schema shows; see sdk_import.py), and
each is built at its first use, as the SDK's are (~5 ms a class: a session's `session/new` result
is built by most agents, the load, fork and resume results by few)."""


class ModelInfo(BaseModel):
    """One model a session can use."""

    model_config = ConfigDict(populate_by_name=True)
    model_id: Annotated[str, Field(alias="modelId")]
    name: str
    description: str | None = None


class SessionModelState(BaseModel):
    """The models of a session, in the shape of ACP's (unstable) `SessionModelState`."""

    model_config = ConfigDict(populate_by_name=True)
    current_model_id: Annotated[str, Field(alias="currentModelId")]
    available_models: Annotated[list[ModelInfo], Field(alias="availableModels")]


class NewSessionResult(NewSessionResponse):
    """`session/new` result with `models`."""

    model_config = NO_SOURCE_READING
    models: SessionModelState | None = None


class LoadSessionResult(LoadSessionResponse):
    """`session/load` result with `models`."""

    model_config = NO_SOURCE_READING
    models: SessionModelState | None = None


class ForkSessionResult(ForkSessionResponse):
    """`session/fork` result with `models`."""

    model_config = NO_SOURCE_READING
    models: SessionModelState | None = None


class ResumeSessionResult(ResumeSessionResponse):
    """`session/resume` result with `models`."""

    model_config = NO_SOURCE_READING
    models: SessionModelState | None = None


def mode_state(session: Session) -> SessionModeState:
    """The session's modes and current mode."""
    return SessionModeState(
        current_mode_id=session.mode,
        available_modes=[SessionMode(id=m.id, name=m.name, description=m.description) for m in MODES],
    )


def model_state(session: Session) -> SessionModelState:
    """The session's model and the models it may switch to."""
    return SessionModelState(
        current_model_id=session.model,
        available_models=[ModelInfo(model_id=m, name=model_display_name(m)) for m in available_models()],
    )


def config_options(session: Session) -> list[SessionConfigOptionSelect]:
    """The session's config options: `mode`, `model` and `thought_level`."""
    return [
        SessionConfigOptionSelect(
            type="select",
            id="mode",
            name="Mode",
            description="Who approves edits and commands",
            category="mode",
            current_value=session.mode,
            options=[SessionConfigSelectOption(value=m.id, name=m.name, description=m.description) for m in MODES],
        ),
        SessionConfigOptionSelect(
            type="select",
            id="model",
            name="Model",
            category="model",
            current_value=session.model,
            options=[SessionConfigSelectOption(value=m, name=model_display_name(m)) for m in available_models()],
        ),
        SessionConfigOptionSelect(
            type="select",
            id="thought_level",
            name="Thinking",
            description="Extended thinking budget",
            category="thought_level",
            current_value=session.thought_level,
            options=[SessionConfigSelectOption(value=v, name=THOUGHT_LEVEL_NAMES[v]) for v in THOUGHT_LEVELS],
        ),
    ]
