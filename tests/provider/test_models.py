"""The model list comes from the SDK's own `Model` type, read without importing `anthropic`."""

from __future__ import annotations

import subprocess
import sys

from iac_code.providers.models import claude_models, default_claude_model, sdk_model_ids


def test_the_claude_models_are_the_sdk_model_type_less_dated_snapshots():
    import anthropic.types  # here, not at collection (seconds of imports)

    ids = sdk_model_ids(anthropic.types.Model)
    assert ids, "anthropic.types.Model has no Literal of model ids any more"
    expected = tuple(m for m in dict.fromkeys(ids) if m.startswith("claude-") and not m[-8:].isdigit())
    assert claude_models() == expected
    assert "sonnet" in default_claude_model() and default_claude_model() in expected


def test_reading_the_list_does_not_import_the_sdk():
    code = (
        "import sys; from iac_code.providers.models import claude_models; "
        "assert claude_models(); print('anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
