"""Agent logging: secrets are kept out of every part of a record."""

from __future__ import annotations

import logging

import pytest

from iac_code.config import Settings
from iac_code.logs import setup_logging

KEY = "sk-ant-test-SECRET-0123456789abcdef"


@pytest.fixture
def restore_root_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)


def test_secrets_are_redacted_in_messages_and_tracebacks(tmp_path, restore_root_logging, capsys):
    settings = Settings(config_dir=tmp_path, anthropic_api_key=KEY)
    setup_logging(settings, "test")
    log = logging.getLogger("iac_code.test")
    log.warning("key is %s", KEY)
    try:
        raise RuntimeError(f"the server rejected {KEY}")
    except RuntimeError:
        log.exception("request failed")
    for handler in logging.getLogger().handlers:
        handler.flush()
    written = (tmp_path / "logs" / "test.log").read_text() + capsys.readouterr().err
    assert "RuntimeError: the server rejected [REDACTED]" in written
    assert "key is [REDACTED]" in written
    assert KEY not in written
