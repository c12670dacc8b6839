"""`acp/sdk_import.py` imports the SDK with pydantic's attribute-docstring reading switched off,
through a private name of pydantic: this fails, naming what moved, when a pydantic release changes
it (the agent then still starts, paying ~0.14 s of CPU more per start)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from pydantic import BaseModel, ConfigDict

from iac_code.acp.sdk_import import without_attribute_docstrings


def _documented_model() -> type[BaseModel]:
    class Documented(BaseModel):
        model_config = ConfigDict(use_attribute_docstrings=True)

        name: str
        """The name."""

    return Documented


def test_inside_no_field_takes_its_docstring_and_outside_it_does():
    with without_attribute_docstrings():
        inside = _documented_model()
    outside = _documented_model()
    assert inside.model_fields["name"].description is None, (
        f"pydantic {version('pydantic')} no longer reads attribute docstrings through "
        "pydantic._internal._fields.extract_docstrings_from_cls: re-read acp/sdk_import.py"
    )
    assert outside.model_fields["name"].description == "The name.", "the original was not put back"
    assert inside.model_validate({"name": "x"}).model_dump() == outside.model_validate({"name": "x"}).model_dump()


def test_the_agent_process_builds_the_sdk_models_without_docstrings_or_collection_and_freezes_them():
    code = (
        "import gc, iac_code.acp.stdio, acp.schema as s;"
        "print(repr(s.NewSessionRequest.model_fields['cwd'].description), gc.isenabled(), gc.get_freeze_count() > 10_000)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["None", "True", "True"], (
        f"the SDK was imported before iac_code.acp's import_sdk(), or the collector was left off or froze nothing: {out!r}"
    )
