"""`acp/sdk_import.py` imports the SDK with pydantic's attribute-docstring reading switched off and
its models' builds deferred to their first use, through private names of pydantic: this fails,
naming what moved, when a pydantic release changes them (the agent then still starts, paying
~0.14 s and ~0.08 s of CPU more per start)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from pydantic import BaseModel, ConfigDict

from iac_code.acp.sdk_import import deferred_model_builds, without_attribute_docstrings


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


def test_inside_a_model_is_built_at_its_first_use_and_outside_at_once():
    with deferred_model_builds():
        inside = _documented_model()
    outside = _documented_model()
    assert inside.__pydantic_complete__ is False, (
        f"pydantic {version('pydantic')} no longer takes a model's `defer_build` from "
        "pydantic._internal._config.config_defaults: re-read acp/sdk_import.py"
    )
    assert outside.__pydantic_complete__ is True, "the default was not put back"
    assert inside.model_fields.keys() == outside.model_fields.keys()  # the fields are there before the build
    assert inside.model_validate({"name": "x"}).model_dump_json() == outside.model_validate({"name": "x"}).model_dump_json()
    assert inside.__pydantic_complete__ is True
    assert inside.model_json_schema() == outside.model_json_schema()


def test_the_agent_process_builds_the_sdk_models_without_docstrings_or_collection_and_freezes_them():
    code = (
        "import gc, iac_code.acp.stdio, acp.schema as s;"
        "print(repr(s.NewSessionRequest.model_fields['cwd'].description), gc.isenabled(), gc.get_freeze_count() > 10_000);"
        "unused = s.ReadTextFileRequest; print(unused.__pydantic_complete__);"
        "print(unused.model_validate({'sessionId': 'a', 'path': '/p', 'line': 2}).line, unused.__pydantic_complete__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split()[:3] == ["None", "True", "True"], (
        f"the SDK was imported before iac_code.acp's import_sdk(), or the collector was left off or froze nothing: {out!r}"
    )
    assert out.split()[3:] == ["False", "2", "True"], f"a model the agent had not used yet was built at the import: {out!r}"
