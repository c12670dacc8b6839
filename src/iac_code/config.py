"""Settings of the agent: where it keeps its files, which model it runs, and its limits.

Values come, highest precedence first, from keyword arguments, from environment variables
(`IAC_CODE_*`, plus the Anthropic SDK's own `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and
`ANTHROPIC_BASE_URL`), then from the JSON file `<config dir>/config.json`, then from the defaults
below. The config dir is `~/.iac-code` unless `IAC_CODE_CONFIG_DIR` moves it; the config file is
always read from there, even when `config_dir` is given as an argument.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from iac_code.configdir import default_config_dir
from iac_code.core.vocabulary import PermissionMode, SandboxSetting, ThoughtLevel
from iac_code.redact import MIN_SECRET_CHARS, SECRET_ENV_NAMES

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Mode:
    """A permission mode as offered to clients."""

    id: PermissionMode
    name: str
    description: str


MODES: tuple[Mode, ...] = (  # in the order of PERMISSION_MODES (tests/unit/test_vocabulary.py)
    Mode("default", "Default", "Ask before every edit and command"),
    Mode("accept_edits", "Accept edits", "Edit files inside the project without asking; ask before commands"),
    Mode(
        "sandboxed_commands",
        "Sandboxed commands",
        "Edit files inside the project and run sandboxed commands without asking; commands that leave the sandbox still ask",
    ),
    Mode("plan", "Plan", "Read-only: explore and plan; edits are refused, commands run in the sandbox with the project read-only"),
    Mode("bypass_permissions", "Bypass permissions", "Run everything without asking, commands in the sandbox (writes outside the project still ask)"),
)

THOUGHT_LEVEL_NAMES: dict[ThoughtLevel, str] = {"off": "Off", "low": "Low", "medium": "Medium", "high": "High"}

SCRIPTED_MODEL = "scripted"
CREDENTIALS_HELP = (
    "No Anthropic credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the agent's "
    "environment or `anthropic_api_key` in ~/.iac-code/config.json, or use the offline model "
    "with IAC_CODE_MODEL=scripted."
)


class _JsonFileSource(PydanticBaseSettingsSource):
    """Reads `<config dir>/config.json`; a missing file is empty, a broken one is logged and ignored."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        super().__init__(settings_cls)
        self._data: dict[str, Any] = {}
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable config file %s: %s", path, exc)
            return
        if isinstance(raw, dict):
            self._data = raw
            if "mcpServers" in raw:  # Claude's `.mcp.json` spelling
                self._data = {**raw, "mcp_servers": raw["mcpServers"]}
        else:
            log.warning("ignoring config file %s: top level is not an object", path)

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return {k: v for k, v in self._data.items() if k in self.settings_cls.model_fields}


class Settings(BaseSettings):
    """The agent's settings (see the module docstring for where each value comes from)."""

    model_config = SettingsConfigDict(env_prefix="IAC_CODE_", extra="ignore", populate_by_name=True)

    config_dir: Path = Field(default_factory=default_config_dir)
    model: str | None = None
    """Model id: a Claude model id or `scripted`. None picks the default for the credentials."""
    script: Path | None = None
    """JSON script of the offline `scripted` model."""
    script_chunk_delay_ms: float | None = Field(default=None, ge=0)
    """Replaces every scripted turn's `chunk_delay_ms` (0: the script streams at once, as the
    tests of the demo play it); None keeps each turn's own."""
    max_turns: int = Field(default=50, ge=1)
    """Model requests allowed in one prompt turn; reaching it ends with `max_turn_requests`."""
    permission_mode: PermissionMode = "default"
    thought_level: ThoughtLevel = "off"
    max_output_tokens: int = Field(default=16_000, ge=256)
    context_window: int | None = Field(default=None, ge=1_000)
    """Override of the model's context window in tokens (compaction starts near it)."""
    stream_idle_timeout: float = Field(default=120.0, gt=0)
    """Seconds without a stream event after which a model response is aborted as stalled."""
    allow_private_fetch: bool = False
    """Let `web_fetch` reach loopback, private and link-local addresses."""
    sandbox: SandboxSetting = "auto"
    """The command sandbox's backend (PROTOCOL.md, Command sandbox): `auto` takes bubblewrap, else
    Landlock, else none; `bwrap` or `landlock` only that one (else none); `off` none."""
    log_level: str = "INFO"
    max_message_bytes: int = Field(default=50 * 1024 * 1024, ge=1024)
    """Largest JSON-RPC message accepted: a longer stdin line is discarded as it is read and
    answered -32600; a longer HTTP body gets 413."""
    http_idle_timeout: float = Field(default=1800.0, gt=0)
    """Seconds after which an HTTP connection with no request and no open event stream is closed."""
    mcp_servers: dict[str, Any] = Field(default_factory=dict)
    """MCP servers for headless use and iac-tui, in Claude's `.mcp.json` shape; the config file's
    key is `mcpServers` (PROTOCOL.md, MCP servers). An ACP client's own `mcpServers` replace them."""
    mcp_connect_timeout: float = Field(default=30.0, gt=0)
    """Seconds an MCP server has to start and list its tools."""
    mcp_call_timeout: float = Field(default=600.0, gt=0)
    """Seconds an MCP tool call may take."""

    anthropic_api_key: SecretStr | None = Field(default=None, validation_alias="ANTHROPIC_API_KEY")
    anthropic_auth_token: SecretStr | None = Field(default=None, validation_alias="ANTHROPIC_AUTH_TOKEN")
    anthropic_base_url: str | None = Field(default=None, validation_alias="ANTHROPIC_BASE_URL")

    @field_validator("config_dir", "script", mode="after")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        file_source = _JsonFileSource(settings_cls, default_config_dir() / "config.json")
        return (init_settings, env_settings, file_source)

    # ----- derived -----

    @property
    def sessions_dir(self) -> Path:
        """Where session histories live: `<config dir>/sessions`."""
        return self.config_dir / "sessions"

    @property
    def logs_dir(self) -> Path:
        """Where the agent's log file lives: `<config dir>/logs`."""
        return self.config_dir / "logs"

    @property
    def has_credentials(self) -> bool:
        """True when an Anthropic API key or auth token is configured."""
        return bool(self.anthropic_api_key or self.anthropic_auth_token)

    def secrets(self) -> list[str]:
        """The secret values that must never reach logs, session files, tool environments or tool
        results: every `SecretStr` setting, plus the HTTP token (`IAC_CODE_HTTP_TOKEN`) and the
        Anthropic credentials however they are set. Values under 8 characters are left out."""
        values = [getattr(self, name) for name, f in type(self).model_fields.items() if _is_secret(f.annotation)]
        plain = [v.get_secret_value() for v in values if v is not None]
        plain += [os.environ.get(name, "") for name in sorted(SECRET_ENV_NAMES)]
        return sorted({v for v in plain if len(v) >= MIN_SECRET_CHARS})


def _is_secret(annotation: Any) -> bool:
    return annotation is SecretStr or SecretStr in getattr(annotation, "__args__", ())


def load_settings(**overrides: Any) -> Settings:
    """Build the settings from the environment and the config file; `overrides` win over both."""
    return Settings(**overrides)
